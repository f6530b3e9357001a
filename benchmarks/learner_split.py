"""Where a ``domino-train`` step goes: collecting a rollout (the envs, their scripted opponents,
the action features, the policy's inference) against the PPO update, for the action-scoring
policy as it is (the scorer runs on the legal rows only) and for the same network scoring every
row (the actor before 2026-12-04), measured side by side in one run.

Usage: ``python benchmarks/learner_split.py [domino-train options]`` (default: the Mexican Train
release's settings, 2 envs x 1,024 steps, minibatches of 256, 5 epochs, against planner,
planner, greedy; ``--repeat N`` rollouts per actor, default 2). It prints milliseconds per
sample for each phase and the ratios; nothing is written.
"""

from __future__ import annotations

import sys
import time

import torch
from stable_baselines3.common.logger import Logger

from domino_env.train.action_policy import ActionScoringNet
from domino_env.train.arg_types import int_at_least
from domino_env.train.ppo import new_model
from domino_env.train.ppo_args import build_parser, check_args
from domino_env.train.vec_envs import close_vec_env, make_vec_env

DEFAULTS = ["--policy", "action-scores", "--opponents", "planner", "planner", "greedy", "--n-envs", "2"]
#: domino-train options that change nothing here (nothing is trained to a budget, evaluated or written).
NO_EFFECT = ("timesteps", "time_limit", "resume", "init_from", "out", "overwrite", "eval_freq", "eval_rounds",
             "eval_opponents", "final_eval_rounds", "eval_workers", "eval_seed", "progress", "tensorboard", "plot",
             "quiet", "snapshot_freq", "max_snapshots")  # fmt: skip


def all_rows_actor(self: ActionScoringNet, x: torch.Tensor) -> torch.Tensor:
    """The scorer on every row, legal or not (illegal logits are masked by SB3 afterwards)."""
    obs, feats, _ = self._split(x)
    c = torch.relu(self.context(obs))
    h = torch.relu(self.w2(torch.relu(self.w1(feats) + self.u(c).unsqueeze(1))))
    return (self.out(h) + self.skip(feats)).squeeze(-1)


def timed_rollout_and_update(model) -> tuple[float, float]:
    """Seconds for one rollout (``n_steps`` x envs samples) and for the PPO update on it."""
    _, callback = model._setup_learn(model.n_steps * model.n_envs, None, True, "bench", False)
    callback.on_training_start(locals(), globals())
    start = time.perf_counter()
    model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)
    middle = time.perf_counter()
    model.train()
    return middle - start, time.perf_counter() - middle


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()  # domino-train's options, and this script's own
    parser.prog, parser.description = "learner_split.py", __doc__.split("\n\n")[0]
    parser.add_argument("--repeat", type=int_at_least(1), default=2,
                        help="rollouts and updates timed per actor (the best of them is kept)")
    args = parser.parse_args([*DEFAULTS, *(sys.argv[1:] if argv is None else argv)])
    flags = {a.dest: a.option_strings for a in parser._actions}
    for dest in NO_EFFECT:  # accepted silently before: --out /nonexistent/x exited 0
        if getattr(args, dest) != parser.get_default(dest):
            parser.error(f"{'/'.join(flags[dest])}: has no effect here (this script times one rollout and one "
                         "update per actor; it trains to no budget, evaluates nothing and writes nothing)")  # fmt: skip
    checked = check_args(parser, args)
    if args.policy != "action-scores":
        parser.error("--policy action-scores: the split compares the action-scoring actor's two forms")
    torch.set_num_threads(args.torch_threads)
    venv = make_vec_env(checked.env_cfg, args.n_envs, args.vec_env, args.seed)
    legal_rows = ActionScoringNet.forward_actor
    times: dict[str, list[tuple[float, float]]] = {"legal rows": [], "every row": []}
    try:
        model = new_model(args, venv)
        # SB3's default logger would make an empty SB3-<time> folder in the temp dir
        model.set_logger(Logger(folder=None, output_formats=[]))
        print(f"timing {args.repeat} rollout(s) and update(s) per actor ...", file=sys.stderr, flush=True)
        start = {k: v.clone() for k, v in model.policy.state_dict().items()}
        for _ in range(args.repeat):  # alternate, so that a change in the machine's load hits both
            for name, actor in (("legal rows", legal_rows), ("every row", all_rows_actor)):
                ActionScoringNet.forward_actor = actor
                model.policy.load_state_dict(start)
                times[name].append(timed_rollout_and_update(model))
    finally:
        ActionScoringNet.forward_actor = legal_rows
        close_vec_env(venv, aborted=False)
    samples = model.n_steps * model.n_envs
    print(f"{samples} samples a rollout ({model.n_envs} envs x {model.n_steps}), minibatch {model.batch_size}, "
          f"{model.n_epochs} epochs, opponents {' '.join(args.opponents)}, torch threads {args.torch_threads}, "
          f"best of {args.repeat}")  # fmt: skip
    print(f"{'actor':<12} {'rollout ms/sample':>18} {'update ms/sample':>17} {'total ms/sample':>16}")
    best = {}
    for name, runs in times.items():
        rollout, update = (min(t[i] for t in runs) * 1000 / samples for i in (0, 1))
        best[name] = (rollout, update, rollout + update)
        print(f"{name:<12} {rollout:>18.3f} {update:>17.3f} {rollout + update:>16.3f}")
    ratios = [best["every row"][i] / best["legal rows"][i] for i in range(3)]
    print(f"{'ratio':<12} {ratios[0]:>17.1f}x {ratios[1]:>16.1f}x {ratios[2]:>15.1f}x   (every row / legal rows)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
