"""An agent against opponents that no model of the package trained or was selected against:
playing styles written here from the action layout alone, each in every other seat, and mixed
tables. The planner plays the same deals from the same seat, so each row also gives the agent's
paired difference from the planner (does what the model learnt against greedy and planner
opponents carry over to other styles?). Mexican Train (4 players, double-12, the default rules),
or Cuban (``--game cuban``: the agent is both seats of its team, 0 and 2, against two seats of
the style; ``mexican_first`` has no line-game meaning).

The styles (each places a tile whenever one is legal, else draws or passes as the only legal
action; ties go to the lowest action index):

* ``lightest``: the tile with the fewest pips (the 0-0 counts ``double_blank_points``);
* ``mexican_first``: the Mexican train first, then the other seats' trains, then its own; the
  heaviest tile within each;
* ``doubles_first``: a double whenever one is legal (the heaviest), else the heaviest tile, the
  own train (the line's first end) before the others;
* ``placer``: a legal placement drawn uniformly at random.

Usage: ``python benchmarks/unseen_opponents.py [--game cuban] [--agent SPEC] [--rounds 2000]
[--seed 31337]`` (the agent defaults to the game's released action-scoring model; ``--workers 2``
by default). Prints one Markdown row per table.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from domino_env.agents.base import agent_label, make_agent
from domino_env.core.config import LineConfig, MexicanTrainConfig, line_from_preset
from domino_env.core.errors import DominoError
from domino_env.core.tiles import tile_table
from domino_env.train.arg_types import PER_CPU, POSITIVE, SEED
from domino_env.train.evaluate import evaluate
from domino_env.train.paired import paired_difference
from domino_env.train.result_chart import short_label

CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"
RELEASES = {"mexican_train": CHECKPOINTS / "mexican_train_4p_d12_action_scores",
            "cuban": CHECKPOINTS / "cuban_4p_teams_action_scores"}  # fmt: skip


class Style:
    """One playing style (``name``, see the module docstring); picklable, deterministic except
    ``placer``, which draws from the rng it is given."""

    def __init__(self, name: str, config: MexicanTrainConfig | LineConfig):
        self.name = name
        # action = tile x slots + slot: Mexican Train's slot 0 is the own train and the last the
        # Mexican train; a line game's slots are its two ends (draw, pass, annul come after)
        self.slots = 2 if isinstance(config, LineConfig) else config.num_players + 1
        self.draw = len(tile_table(config.max_pip)) * self.slots
        tiles = tile_table(config.max_pip)
        blank = getattr(config, "double_blank_points", 0)
        self.pips = [blank if a == b == 0 else a + b for a, b in tiles]
        self.double = [a == b for a, b in tiles]

    def __repr__(self) -> str:
        return f"Style({self.name!r})"

    def _rank(self, action: int) -> tuple:
        tile, slot = divmod(action, self.slots)
        if self.name == "lightest":
            return (self.pips[tile],)
        if self.name == "mexican_first":
            train = 0 if slot == self.slots - 1 else (1 if slot else 2)
            return (train, -self.pips[tile])
        return (not self.double[tile], -self.pips[tile], slot != 0)  # doubles_first

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        places = [int(a) for a in legal if a < self.draw]
        if not places:
            return int(legal[0])
        if self.name == "placer":
            return int(rng.choice(places))
        return min(places, key=lambda a: (*self._rank(a), a))


class InSeat:
    """``agent`` under its own label, so that the seat measured is counted apart from the same
    agent among the opponents (the planner against a table with planners)."""

    def __init__(self, agent: object, name: str):
        self.agent, self.name = agent, name
        self.wants_info_state = getattr(agent, "wants_info_state", False)  # (search agents)

    def __call__(self, *args: object, **kwargs: object) -> int:
        return self.agent(*args, **kwargs)


STYLES = ("lightest", "mexican_first", "doubles_first", "placer")
#: Each table: the three opponents of the agent (and of the planner in its place).
TABLES = {
    **{f"3 x {s}": (s, s, s) for s in STYLES},
    "planner, mexican_first, doubles_first": ("planner", "mexican_first", "doubles_first"),
    "greedy, planner, placer": ("greedy", "planner", "placer"),
}
#: Played only when named in --tables: about 0.35 s a round (searches of 25 playouts).
SLOW_TABLES = {"3 x search:25": ("search:25", "search:25", "search:25")}
#: Cuban: the other team's two seats (1 and 3); the agent sits at 0 and 2.
CUBAN_TABLES = {
    **{f"2 x {s}": (s, s) for s in ("lightest", "doubles_first", "placer")},
    "planner, placer": ("planner", "placer"),
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--game", choices=tuple(RELEASES), default="mexican_train", help="the game (default mexican_train)")
    parser.add_argument("--agent", default=None, help="the agent measured (default: the game's release)")
    parser.add_argument("--compare", default="planner", help="the agent in its seat on the same deals")
    parser.add_argument("--rounds", type=POSITIVE, default=2000, help="rounds per table (default 2000)")
    parser.add_argument("--seed", type=SEED, default=31337, help="tournament seed (default 31337)")
    parser.add_argument("--workers", type=PER_CPU, default=2, help="processes (default 2)")
    parser.add_argument("--tables", nargs="+", choices=[*TABLES, *SLOW_TABLES, *CUBAN_TABLES], default=None,
                        metavar="TABLE", help="tables to play (default: the game's, but the slow "
                        f"{', '.join(SLOW_TABLES)}): {', '.join(repr(t) for t in [*TABLES, *SLOW_TABLES])}; "
                        f"Cuban: {', '.join(repr(t) for t in CUBAN_TABLES)}")  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (stderr)")
    args = parser.parse_args(argv)
    cuban = args.game == "cuban"
    own = CUBAN_TABLES if cuban else {**TABLES, **SLOW_TABLES}
    args.tables = args.tables or list(CUBAN_TABLES if cuban else TABLES)
    if wrong := [t for t in args.tables if t not in own]:
        parser.error(f"--tables {wrong[0]!r} is not a table of --game {args.game}: {', '.join(map(repr, own))}")
    args.agent = args.agent or f"ppo:{RELEASES[args.game]}"
    config = line_from_preset("cuban") if cuban else MexicanTrainConfig()
    styles = {s: Style(s, config) for s in STYLES}
    full = [agent_label(args.agent), agent_label(args.compare)]
    if full[0] == full[1]:
        parser.error(f"--agent and --compare are the same agent ({full[0]})")
    labels = [short_label(label) for label in full]
    if labels[0] == labels[1]:  # two models in folders of one name: their whole paths
        labels = full
    try:  # a missing or corrupt model, an unknown name: one line
        heroes = [InSeat(make_agent(spec, config), f"{label} (measured)")
                  for spec, label in zip((args.agent, args.compare), labels, strict=True)]  # fmt: skip
    except (DominoError, OSError) as exc:
        parser.error(str(exc))
    where = "seats (0 and 2, a team)" if cuban else "seat"
    print(f"{labels[0]} against each table, and {labels[1]} in its {where} on the same deals: {args.rounds} "
          f"rounds of seed {args.seed} per table (95% per-deal intervals; parity {0.5 if cuban else 0.25})\n")  # fmt: skip
    print(f"| opponents | {labels[0]} | {labels[1]} | paired difference | pips (the two) |")
    print("|---|---|---|---|---|")
    for table in args.tables:
        opponents = [styles.get(o, o) for o in own[table]]
        seats = ([[hero, opponents[0], hero, opponents[1]] for hero in heroes] if cuban
                 else [[hero, *opponents] for hero in heroes])  # fmt: skip
        results = [evaluate(table_seats, rounds=args.rounds, seed=args.seed, workers=args.workers, game=args.game,
                            keep_records=True, progress=not args.no_progress)  # fmt: skip
                   for table_seats in seats]  # fmt: skip
        stats = [r.stats_for(hero.name) for r, hero in zip(results, heroes, strict=True)]
        diff = paired_difference(results[0], results[1], heroes[0].name, heroes[1].name)
        cells = [f"{s.win_rate:.3f} [{s.ci95_deal[0]:.3f}, {s.ci95_deal[1]:.3f}]" for s in stats]
        print(f"| {table} | {cells[0]} | {cells[1]} | {diff.mean:+.3f} [{diff.ci95[0]:+.3f}, {diff.ci95[1]:+.3f}] | "
              f"{stats[0].mean_pips_per_round:.1f} / {stats[1].mean_pips_per_round:.1f} |", flush=True)


if __name__ == "__main__":
    from domino_env.train.cli import run_script

    run_script("unseen_opponents.py", main)
