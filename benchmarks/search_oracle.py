#!/usr/bin/env python3
"""How strong search is when it sees everything: an upper bound for determinized search.

Run from the repository root in the project's virtual environment::

    .venv/bin/python benchmarks/search_oracle.py --rollout planner --rounds 400
    .venv/bin/python benchmarks/search_oracle.py --rollout plan --budget 200 --rounds 400
    .venv/bin/python benchmarks/search_oracle.py --game block --rollout solve --rounds 600
    .venv/bin/python benchmarks/search_oracle.py --game cuban --rounds 400
    .venv/bin/python benchmarks/search_oracle.py --know hands --rollout planner --budget 35 --candidates 2
    .venv/bin/python benchmarks/search_oracle.py --know hands --reveal 0.5 --rollout planner --budget 35 --candidates 2
    .venv/bin/python benchmarks/search_oracle.py --know hands --reveal 0.5 --belief-share --rounds 40

One :class:`~domino_env.agents.search.SearchAgent` whose only determinization is the **true**
state of the round (every hand, the boneyard order) plays against planners in every other seat
(Mexican Train: 4 players, double-12, default rules; block: 2 players; Cuban: the oracle in both
seats of its team, against a planner team), in a duplicate-deal
tournament (``train.evaluate``: every deal in every seat rotation, so ``--rounds`` is rounded up
to a multiple of the player count; seed ``--seed``, one process). Everything else is the real
agent: the planner prior, the playouts or the endgame solver, the margin test; only the budget
(default 2, not the agent's 200), ``min_worlds`` (2, not 4) and the moves searched
(``--candidates``, default 0: every legal move, not Mexican Train's top two) differ, since copies of one world
add nothing when the rollout is deterministic (every rollout but ``random``). The true state enters
through the tournament's ``info_state`` hook, replaced in this process only by one whose
``sample`` returns a copy of the real state; with at least 2 copies of that one world the paired
differences have no noise, so the agent plays the best action of its playouts whenever it differs
from the prior's. The gap between this and the real agent (``train.evaluate --agents search ...``)
is what hidden information costs search; the gap between this and a win every round is what its
rollout's model of the other seats costs (docs/search.md, section 5). ``--know hands`` hides the
boneyard order (no belief can know it), ``--reveal Q`` part of the hands too (a belief of known
accuracy), and ``--belief-share`` measures that accuracy against the package's sampler.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

import domino_env.train.tournament as tournament  # noqa: E402
from domino_env.agents.search import ROLLOUTS_LINE, ROLLOUTS_MEXICAN, SearchAgent  # noqa: E402
from domino_env.core.config import MexicanTrainConfig, line_from_preset  # noqa: E402
from domino_env.core.deal import bits  # noqa: E402
from domino_env.train.arg_types import SEED  # noqa: E402
from domino_env.train.evaluate import evaluate  # noqa: E402


class TrueState:
    """Stands in for the seat's InformationState: every sample is the real state, or with
    ``know="hands"`` the real hands with the boneyard drawn in a fresh random order. With
    ``reveal`` below 1, each hidden tile (another seat's hand, the boneyard, out of play) keeps
    its true place with probability ``reveal``; the others are dealt at random into the places so
    freed (hand sizes kept, the public missing pips not respected: a belief of known accuracy,
    not a sampler)."""

    know = "all"  # set by main(): "all" or "hands"
    reveal = 1.0  # set by main(): share of the hidden tiles left where they are (know="hands")

    def __init__(self, state, seat: int):
        self.seat = seat
        self.public = state.copy()  # the rules check reads public.config

    def sample(self, rng):
        world = self.public.copy()
        if self.know == "hands":
            if self.reveal < 1.0:
                self._deal_unrevealed(world, rng)
            order = rng.permutation(len(world.boneyard))
            world.boneyard = [world.boneyard[i] for i in order]
        return world

    def _deal_unrevealed(self, world, rng) -> None:
        places = [(s, t) for s, h in enumerate(world.hands) if s != self.seat for t in bits(h)]
        places += [(-1, t) for t in world.boneyard] + [(-2, t) for t in bits(world.out_of_play)]
        moved = [k for k in range(len(places)) if rng.random() >= self.reveal]
        tiles = [places[k][1] for k in moved]
        tiles = [tiles[i] for i in rng.permutation(len(tiles))]
        for k, tile in zip(moved, tiles, strict=True):
            places[k] = (places[k][0], tile)
        hands = [h if s == self.seat else 0 for s, h in enumerate(world.hands)]
        boneyard, out = [], 0
        for holder, tile in places:  # -1: the boneyard, -2: out of play
            if holder == -1:
                boneyard.append(tile)
            elif holder == -2:
                out |= 1 << tile
            else:
                hands[holder] |= 1 << tile
        world.hands, world.boneyard, world.out_of_play = hands, boneyard, out
        if hasattr(world, "doubles_dealt"):  # line games: a hand not yet played is as dealt
            for s, h in enumerate(hands):
                if s != self.seat and world.first_turn_pending[s]:
                    world.doubles_dealt[s] = (h & world._t.double_mask).bit_count()


def oracle_kwargs(agent, state, seat: int) -> dict:
    return {"info_state": TrueState(state, seat)} if getattr(agent, "wants_info_state", False) else {}


def belief_share(game: str, players: int, rounds: int, seed: int, samples: int = 5) -> tuple[float, float]:
    """(oracle, sampler): the mean share of the other seats' tiles that a determinization puts in
    the right hand, for :class:`TrueState` as set and for the package's InformationState, at
    every decision of seat 0 with a choice in ``rounds`` planner rounds (seeds seed, seed+1, ...)."""
    from domino_env.agents import make_agent
    from domino_env.core.belief import InformationState
    from domino_env.envs.games import make_raw_env

    rng = np.random.default_rng(seed)
    shares: dict[str, list[float]] = {"oracle": [], "sampler": []}
    for r in range(rounds):
        env = make_raw_env(game, num_players=players)
        env.reset(seed=seed + r)
        agent = make_agent("planner", env.config)
        while not env.game_state.round_over:
            state = env.game_state
            if state.current_player == 0 and len(state.legal_actions()) > 1:
                held = [(s, h) for s, h in enumerate(state.hands) if s != 0]
                total = sum(h.bit_count() for _, h in held)
                for name, belief in (("oracle", TrueState(state, 0)), ("sampler", InformationState.from_state(state, 0))):
                    for _ in range(samples):
                        world = belief.sample(rng)
                        shares[name].append(sum((world.hands[s] & h).bit_count() for s, h in held) / total)
            obs = env.observe(env.agent_selection)
            env.step(int(agent(obs["observation"], obs["action_mask"], rng)))
    return float(np.mean(shares["oracle"])), float(np.mean(shares["sampler"]))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=("mexican_train", "block", "cuban"), default="mexican_train")
    parser.add_argument("--rollout", default=None, help="the search rollout (default: the game's)")
    parser.add_argument("--budget", type=int, default=2, help="playouts per decision (default 2)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=400,
        help="rounds, rounded up to a multiple of the players (default 400)",
    )
    parser.add_argument("--seed", type=SEED, default=0, help="tournament seed, 0 to 2**32 - 1 (default 0)")
    parser.add_argument(
        "--candidates",
        type=int,
        default=0,
        help="moves searched, the prior's best-ranked (default 0: every legal move)",
    )
    parser.add_argument(
        "--know",
        choices=("all", "hands"),
        default="all",
        help="what the oracle sees: every hand and the boneyard order (all, default), or every "
        "hand with the boneyard order unknown (hands: each determinization shuffles it; raise "
        "--budget, the playouts are no longer alike)",
    )
    parser.add_argument(
        "--reveal",
        type=float,
        default=1.0,
        help="with --know hands: the share of the hidden tiles each determinization keeps in "
        "their true place, the rest dealt at random among the places they free (default 1)",
    )
    parser.add_argument(
        "--belief-share",
        action="store_true",
        help="no tournament: the share of the other seats' tiles the oracle's determinizations (as "
        "--know / --reveal set them) and the package's sampler put in the right hand, over --rounds "
        "planner rounds",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (stderr)")
    args = parser.parse_args(argv)
    allowed = ROLLOUTS_MEXICAN if args.game == "mexican_train" else ROLLOUTS_LINE
    if args.rollout is not None and args.rollout not in allowed:
        parser.error(f"--rollout must be one of {allowed} for --game {args.game}, got {args.rollout!r}")
    for flag, value, low in (("--budget", args.budget, 1), ("--rounds", args.rounds, 1), ("--candidates", args.candidates, 0)):
        if value < low:
            parser.error(f"{flag} must be >= {low}, got {value}")
    if not 0.0 <= args.reveal <= 1.0:
        parser.error(f"--reveal must be between 0 and 1, got {args.reveal}")
    if args.reveal < 1.0 and args.know != "hands":
        parser.error("--reveal below 1 needs --know hands (with --know all every tile is known)")
    if args.game == "mexican_train":
        config, players = MexicanTrainConfig(), 4
    elif args.game == "block":
        config, players = line_from_preset("block", num_players=2), 2
    else:
        config, players = line_from_preset("cuban"), 4
    TrueState.know, TrueState.reveal = args.know, args.reveal
    if args.belief_share:
        oracle, sampler = belief_share(args.game, players, args.rounds, args.seed)
        print(f"share of the other seats' tiles in the right hand ({args.game}, knows {args.know}"
              + (f" (reveal {args.reveal})" if args.reveal < 1.0 else "")
              + f", {args.rounds} planner rounds, seed {args.seed}): oracle {oracle:.3f}, sampler {sampler:.3f}")  # fmt: skip
        return
    agent = SearchAgent(
        config, budget=args.budget, min_worlds=2, rollout=args.rollout, candidates=args.candidates
    )
    agent.name = "oracle"
    tournament.info_state_kwargs = oracle_kwargs  # this process only: workers=1 below
    # Cuban: the oracle in both seats of its team ([oracle, planner, oracle, planner])
    seats = [agent, "planner", agent, "planner"] if args.game == "cuban" else [agent] + ["planner"] * (players - 1)
    res = evaluate(
        seats, rounds=args.rounds, seed=args.seed, workers=1,
        game=args.game, num_players=players, progress=not args.no_progress,
    )  # fmt: skip
    s = res.stats_for("oracle")
    lo, hi = s.ci95_deal
    print(
        f"oracle search ({args.game}, knows {args.know}"
        + (f" (reveal {args.reveal})" if args.reveal < 1.0 else "")
        + f", rollout {agent.rollout}, budget "
        f"{args.budget}, candidates {args.candidates}) vs planners: "
        f"win rate {s.win_rate:.3f} [{lo:.3f}, {hi:.3f}] over {res.episodes} rounds, seed {args.seed}"
    )


if __name__ == "__main__":
    from domino_env.train.cli import run_script

    run_script("search_oracle.py", main)
