"""Two ways to combine trained PPO models at play time, measured against three planners on
duplicate deals (the "every lever tried" table of docs/training_experiments.md):

* ``ensemble``: several models vote by their mean log-probability over the legal moves (the argmax
  of the sum), e.g. the release and models of the same command with other ``--seed`` values;
* ``topk``: one model chooses among the planner's ``k`` best moves only (``rank_actions``).

A model reading ``--action-features v3`` rows (a search at play time) is given the seat's
``info_state`` by the tournament, through either agent.

Usage: ``python benchmarks/policy_probes.py ensemble MODEL [MODEL ...] --rounds 2000 --seed 4041``,
``python benchmarks/policy_probes.py topk MODEL --k 3 --rounds 2000 --seed 2027`` (Mexican Train,
4 players, double-12, the default rules; ``--workers 2`` by default).
"""

from __future__ import annotations

import argparse

import numpy as np

from domino_env.agents.base import make_agent
from domino_env.core.config import MexicanTrainConfig
from domino_env.core.errors import DominoError
from domino_env.train.arg_types import SEED, int_at_least
from domino_env.train.evaluate import evaluate


class Ensemble:
    """The legal move with the largest sum of the models' log-probabilities (ties: the lowest
    action index). Picklable: the models are ``ppo:`` agents."""

    name = "ensemble"

    def __init__(self, paths: list[str]):
        self.models = [make_agent(f"ppo:{p}", MexicanTrainConfig()) for p in paths]
        # a model reading action-features-v3 rows searches the public history: the tournament passes it
        self.wants_info_state = any(m.wants_info_state for m in self.models)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator,
                 info_state: object = None) -> int:  # fmt: skip
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        total = np.zeros(len(legal))
        for model in self.models:
            x = model.policy_input(observation, action_mask, info_state)
            z = model.actor.logits(x)[legal].astype(np.float64)
            z -= z.max()
            total += z - np.log(np.exp(z).sum())
        return int(legal[int(np.argmax(total))])


class PlannerTopK:
    """A ``ppo:`` model restricted to the planner's ``k`` best moves (the planner's ranking)."""

    def __init__(self, path: str, k: int):
        self.planner = make_agent("planner", MexicanTrainConfig())
        self.model = make_agent(f"ppo:{path}", MexicanTrainConfig())
        self.k, self.name = k, f"top{k}"
        self.wants_info_state = self.model.wants_info_state

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator,
                 info_state: object = None) -> int:  # fmt: skip
        if int(action_mask.sum()) == 1:
            return int(np.flatnonzero(action_mask)[0])
        kept = np.zeros_like(action_mask)
        kept[self.planner.rank_actions(observation, action_mask, rng)[: self.k]] = 1
        return self.model(observation, kept, rng, info_state=info_state)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("ensemble", "topk"))
    parser.add_argument("models", nargs="+", metavar="MODEL", help="ppo model folders (topk: one)")
    parser.add_argument("--k", type=int_at_least(1), default=2, help="topk: the planner's moves kept")
    parser.add_argument("--rounds", type=int_at_least(1), default=2000)
    parser.add_argument("--seed", type=SEED, default=4041)
    parser.add_argument("--workers", type=int_at_least(1), default=2)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (stderr)")
    args = parser.parse_args(argv)
    if args.mode == "topk" and (len(args.models) != 1 or args.k < 1):
        parser.error("topk takes one MODEL and --k >= 1")
    if args.rounds < 1 or args.workers < 1:
        parser.error("--rounds and --workers must be >= 1")
    try:  # a missing or corrupt model, or one of other rules: one line
        agent = Ensemble(args.models) if args.mode == "ensemble" else PlannerTopK(args.models[0], args.k)
    except (DominoError, OSError) as exc:
        parser.error(str(exc))
    result = evaluate([agent, "planner", "planner", "planner"], rounds=args.rounds, seed=args.seed,
                      workers=args.workers, progress=not args.no_progress)  # fmt: skip
    s = result.stats_for(agent.name)
    low, high = s.ci95_deal
    print(f"{agent.name} of {', '.join(args.models)} against 3 planners, {result.episodes} rounds of seed "
          f"{args.seed}: win rate {s.win_rate:.4f} [{low:.3f}, {high:.3f}], {s.mean_pips_per_round:.2f} pips a round")


if __name__ == "__main__":
    from domino_env.train.cli import run_script

    run_script("policy_probes.py", main)
