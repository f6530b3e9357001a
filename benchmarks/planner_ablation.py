"""Ablation of the planners: each variant turns one decision rule off (or changes one weight) and
plays against greedy opponents over duplicate deals (the "What makes the planner win" tables of
docs/agents.md).

Usage: ``python benchmarks/planner_ablation.py PLAYERS ROUNDS VARIANT [VARIANT ...]``, e.g.
``python benchmarks/planner_ablation.py 4 800 full no_plan strict no_lift no_flex`` (Mexican
Train, seed 7), and ``--game block|draw|cuban`` for the line planner, e.g.
``python benchmarks/planner_ablation.py 4 2000 full no_opp opp8 no_suit no_close no_double --game block``
(in Cuban the variant plays in teams: variant + greedy against greedy + variant's seats).
"""

from __future__ import annotations

import argparse

from domino_env.agents.line_planner import LinePlannerAgent
from domino_env.agents.mexican_train import PlannerAgent
from domino_env.core.errors import DominoError
from domino_env.train.arg_types import SEED, int_at_least
from domino_env.train.evaluate import evaluate

VARIANTS = {
    "full": {},
    "no_plan": {"plan": False},
    "no_double_rule": {"double_rule": False},
    "strict": {"double_penalty": 10**6},
    "no_lift": {"lift_marker": False},
    "no_flex": {"flexibility": False},
}
#: The line planner's variants: its rules are numbered in LinePlannerAgent's docstring.
LINE_VARIANTS = {
    "full": {},
    "no_opp": {"w_opp": 0.0},  # rule 4, the opponent-lacks term
    "opp8": {"w_opp": 8.0},
    "no_suit": {"w_fit": 0.0},  # rule 3, suit control
    "no_close": {"w_close": 0.0},  # rule 6
    "no_double": {"w_double": 0.0},
    "no_partner": {"w_partner": 0.0},  # rule 5 (teams)
    "annul_always": {"annul_uncovered": 0},  # rule 7 (Cuban): annul whenever it may
    "annul_never": {"annul_uncovered": 10**6},
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("players", type=int, metavar="PLAYERS", help="players at the table")
    parser.add_argument("rounds", type=int_at_least(1), metavar="ROUNDS", help="rounds a variant")
    parser.add_argument("variants", nargs="+", metavar="VARIANT",
                        help=f"Mexican Train: {' '.join(VARIANTS)}; line games: {' '.join(LINE_VARIANTS)}")  # fmt: skip
    parser.add_argument("--game", choices=("mexican_train", "block", "draw", "cuban"), default="mexican_train")
    parser.add_argument("--seed", type=SEED, default=7)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (stderr)")
    args = parser.parse_args(argv)
    table = VARIANTS if args.game == "mexican_train" else LINE_VARIANTS
    unknown = [v for v in args.variants if v not in table]
    if unknown:
        parser.error(f"unknown variant(s) {unknown} for --game {args.game}; allowed: {' '.join(table)}")
    if args.game == "cuban" and args.players != 4:
        parser.error(f"--game cuban plays in teams of two: PLAYERS must be 4, got {args.players}")
    agents = []
    for name in args.variants:  # every agent is built (its table checked) before any round
        try:
            if args.game == "mexican_train":
                agent = PlannerAgent({"num_players": args.players})
            else:
                agent = LinePlannerAgent({"preset": args.game, "num_players": args.players})
        except DominoError as exc:
            parser.error(f"PLAYERS {args.players} for --game {args.game}: {exc}")
        for key, value in table[name].items():
            setattr(agent, key, value)
        agent.name = name
        agents.append(agent)
    for agent in agents:
        if args.game == "cuban":  # teams: seats 0 + 2 against 1 + 3
            seats = [agent, "greedy"] * (args.players // 2)
        else:
            seats = [agent] + ["greedy"] * (args.players - 1)
        result = evaluate(seats, rounds=args.rounds, seed=args.seed, workers=1, game=args.game,
                          progress=not args.no_progress)  # fmt: skip
        s = result.stats[0]
        print(
            f"{args.game} P={args.players} {agent.name:10s} win {s.win_rate:.3f} "
            f"wilson [{s.ci95_wilson[0]:.3f}, {s.ci95_wilson[1]:.3f}] "
            f"per-deal [{s.ci95_deal[0]:.3f}, {s.ci95_deal[1]:.3f}] pips {s.mean_pips_per_round:.1f}",
            flush=True,
        )

if __name__ == "__main__":
    from domino_env.train.cli import run_script

    run_script("planner_ablation.py", main)
