"""Ablation of the Mexican Train planner: each variant turns one decision rule off and plays
against greedy opponents over duplicate deals (the README's "What makes the planner win" table).

Usage: ``python benchmarks/planner_ablation.py PLAYERS ROUNDS VARIANT [VARIANT ...]``, e.g.
``python benchmarks/planner_ablation.py 4 800 full no_plan strict no_lift no_flex`` (seed 7).
"""

from __future__ import annotations

import argparse

from domino_env.agents.mexican_train import PlannerAgent
from domino_env.train.evaluate import evaluate

VARIANTS = {
    "full": {},
    "no_plan": {"plan": False},
    "no_double_rule": {"double_rule": False},
    "strict": {"double_penalty": 10**6},
    "no_lift": {"lift_marker": False},
    "no_flex": {"flexibility": False},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("players", type=int)
    parser.add_argument("rounds", type=int)
    parser.add_argument("variants", nargs="+", choices=list(VARIANTS))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    for name in args.variants:
        agent = PlannerAgent({"num_players": args.players})
        for key, value in VARIANTS[name].items():
            setattr(agent, key, value)
        agent.name = name
        result = evaluate([agent] + ["greedy"] * (args.players - 1), rounds=args.rounds, seed=args.seed, workers=1)
        s = result.stats[0]
        print(
            f"P={args.players} {name:10s} win {s.win_rate:.3f} "
            f"wilson [{s.ci95_wilson[0]:.3f}, {s.ci95_wilson[1]:.3f}] "
            f"per-deal [{s.ci95_deal[0]:.3f}, {s.ci95_deal[1]:.3f}] pips {s.mean_pips_per_round:.1f}"
        )


if __name__ == "__main__":
    main()
