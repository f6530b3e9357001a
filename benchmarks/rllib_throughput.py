#!/usr/bin/env python3
"""Sampling throughput of RLlib (0, 1, 2 env runners) next to the SB3 adapter, in one run.

Run from the repository root in the project's virtual environment (``[train,rllib]`` extras)::

    nice -n 10 .venv/bin/python benchmarks/rllib_throughput.py             # about 2 minutes
    nice -n 10 .venv/bin/python benchmarks/rllib_throughput.py --runners 0 1 2 4 --steps 4000 \\
        --json rllib_bench.json

Game: Mexican Train (preset ``domino_cubano``, ``--players`` default 4, ``--max-pip`` default 12).
Policy: the masked PPO module of ``domino_env.train.rllib`` (MLP ``--hidden``, default 256 256, on CPU).

* ``rllib opponents runners=K``: ``domino_env.train.rllib.ppo_config`` with the learner ``main`` at one seat
  and scripted random opponents (``ScriptedRLModule``) at the others, the setup of the SB3 rows;
  ``num_env_runners=K`` (K=0: sampling in the driver process), one env per runner.
  ``envs=E``: E envs in the one runner, stepped together (one batched forward pass per step).
  ``rllib self-play runners=0``: every seat is ``main`` (every env step a policy decision). After a warm-up sample on every runner, the env runners sample
  ``--steps`` env steps each **in parallel** (``foreach_env_runner(lambda r: r.sample(...))``);
  the rate is the env steps of the returned episodes over the wall time of that call (the module
  forward pass, RLlib's connectors and episode bookkeeping included; no learning).
* ``sb3 MaskablePPO rollout``: ``domino_env.train.ppo.LearnerEnv`` (the single-agent adapter of
  ``domino_env.wrappers`` with random opponents) in a ``DummyVecEnv`` of one env, and
  ``MaskablePPO("MlpPolicy", net_arch=--hidden).collect_rollouts`` for ``--steps`` learner
  decisions (the policy forward pass and rollout buffer included; no learning). Env steps count
  the learner's decisions plus the opponents' moves (each opponent call is one env step).
* ``sb3 adapter, random learner``: the same adapter without a policy (a random legal learner):
  the env-only ceiling.

Learner decisions are the steps of the policy being trained (SB3: the learner seat; RLlib: the
seats mapped to ``main``). Ratios are taken against ``sb3 MaskablePPO rollout`` env steps/s, measured in the same run. The
1-minute load average is printed before and after (the machine is shared: compare ratios).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's packages first


class CountingOpponent:
    """A random legal opponent that counts its moves (one env step each)."""

    def __init__(self):
        self.calls = 0

    def __call__(self, observation, action_mask, rng):
        self.calls += 1
        legal = np.flatnonzero(action_mask)
        return int(legal[rng.integers(len(legal))])


def rllib_rate(env_config: dict[str, Any], runners: int, steps: int, hidden: list[int], seed: int,
               mode: str = "opponents", envs: int = 1) -> dict[str, Any]:
    from domino_env.train.rllib import MAIN, ppo_config

    opponents = ["random"] if mode == "opponents" else []
    config = ppo_config(env_config, mode=mode, opponents=opponents, hidden=hidden,
                        num_env_runners=runners, num_envs_per_env_runner=envs, train_batch_size=steps,
                        minibatch_size=min(256, steps), seed=seed)  # fmt: skip
    algo = config.build_algo()
    group = algo.env_runner_group
    local = runners == 0

    def sample(n):
        def fn(runner):
            episodes = runner.sample(num_timesteps=n, random_actions=False)
            decisions = sum(
                len(ae) for e in episodes for a, ae in e.agent_episodes.items() if e.module_for(a) == MAIN
            )
            return sum(e.env_steps() for e in episodes), decisions

        return group.foreach_env_runner(fn, local_env_runner=local)

    try:
        sample(min(500, steps))  # warm-up: module, connectors, env
        start = time.perf_counter()
        counts = sample(steps)
        wall = time.perf_counter() - start
    finally:
        algo.stop()
    total = int(sum(c[0] for c in counts))
    decisions = int(sum(c[1] for c in counts))
    envs_label = f" envs={envs}" if envs > 1 else ""
    return {"name": f"rllib {mode} runners={runners}{envs_label}", "env_steps": total, "seconds": wall,
            "env_steps_per_s": total / wall, "learner_steps_per_s": decisions / wall,
            "per_runner": [int(c[0]) for c in counts]}  # fmt: skip


def sb3_rates(env_kwargs: dict[str, Any], steps: int, hidden: list[int], seed: int) -> list[dict[str, Any]]:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from domino_env.train.ppo import LearnerEnv

    opponent = CountingOpponent()
    env = LearnerEnv(env_kwargs, [opponent], reward="outcome", game="mexican_train")
    vec = DummyVecEnv([lambda: env])
    model = MaskablePPO("MlpPolicy", vec, n_steps=steps, batch_size=min(256, steps), seed=seed,
                        policy_kwargs={"net_arch": list(hidden)}, device="cpu", verbose=0)  # fmt: skip
    from stable_baselines3.common.logger import Logger

    model.set_logger(Logger(folder=None, output_formats=[]))  # not an empty SB3-<time> folder in the temp dir
    _, callback = model._setup_learn(steps, None)
    callback.on_training_start(locals(), globals())
    model.collect_rollouts(vec, callback, model.rollout_buffer, n_rollout_steps=min(500, steps))
    opponent.calls = 0
    start = time.perf_counter()
    model.collect_rollouts(vec, callback, model.rollout_buffer, n_rollout_steps=steps)
    wall = time.perf_counter() - start
    rollout = {"name": "sb3 MaskablePPO rollout", "learner_steps": steps, "env_steps": steps + opponent.calls,
               "seconds": wall, "env_steps_per_s": (steps + opponent.calls) / wall,
               "learner_steps_per_s": steps / wall}  # fmt: skip

    # The adapter alone: a random legal learner (no policy), the env-only ceiling.
    opponent.calls = 0
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
        if terminated or truncated:
            env.reset()
    wall = time.perf_counter() - start
    adapter = {"name": "sb3 adapter, random learner", "learner_steps": steps,
               "env_steps": steps + opponent.calls, "seconds": wall,
               "env_steps_per_s": (steps + opponent.calls) / wall, "learner_steps_per_s": steps / wall}  # fmt: skip
    return [rollout, adapter]


def show(row: dict[str, Any]) -> None:
    print(f"{row['name']:<32} {row['env_steps_per_s']:8.0f} env steps/s "
          f"({row['learner_steps_per_s']:.0f} learner decisions/s)", flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    from domino_env.core.config import from_preset
    from domino_env.core.errors import ConfigError
    from domino_env.train.arg_types import int_at_least
    from domino_env.train.cli import check_output_file

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runners", type=int_at_least(0), nargs="+", default=[0, 1, 2], help="env runner counts")
    parser.add_argument("--steps", type=int_at_least(100), default=2000,
                        help="env steps per runner (SB3: learner steps; at least 100)")  # fmt: skip
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--max-pip", type=int, default=12, choices=(9, 12, 15, 18))
    parser.add_argument("--hidden", type=int_at_least(1), nargs="+", default=[256, 256])
    parser.add_argument(
        "--vector-envs", type=int_at_least(1), nargs="*", default=[8],
        help="also measure 0 env runners with this many envs each (batched forward passes)",
    )  # fmt: skip
    parser.add_argument(
        "--self-play", type=int, default=1, choices=(0, 1),
        help="also measure self-play (every seat the PPO module) with 0 env runners",
    )  # fmt: skip
    parser.add_argument("--seed", type=int_at_least(0), default=0)
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    try:  # the table is checked here, not inside the first RLlib env runner
        from_preset("domino_cubano", num_players=args.players, max_pip=args.max_pip)
    except ConfigError as exc:
        parser.error(f"--players {args.players} with --max-pip {args.max_pip}: {exc}")
    if args.json is not None:  # before minutes of measuring, not after
        check_output_file(parser, "--json", args.json, {"meta", "rows"}, "an rllib_throughput result")

    import ray
    import torch

    torch.set_num_threads(1)  # one thread per process, as every env runner actor has
    rules = {"preset": "domino_cubano", "num_players": args.players, "max_pip": args.max_pip}
    env_config = {"game": "mexican_train", **rules}
    load_before = os.getloadavg()
    ray.init(address="local", num_cpus=max(2, max(args.runners) + 1), include_dashboard=False,
             log_to_driver=False)  # fmt: skip
    rows = []
    try:
        cells = [(k, "opponents", 1) for k in args.runners]
        cells += [(0, "opponents", e) for e in args.vector_envs]
        cells += [(0, "self-play", 1)] * args.self_play
        for k, mode, envs in cells:
            rows.append(rllib_rate(env_config, k, args.steps, args.hidden, args.seed, mode, envs))
            show(rows[-1])
    finally:
        ray.shutdown()
    for row in sb3_rates(rules, args.steps, args.hidden, args.seed):
        rows.append(row)
        show(row)
    load_after = os.getloadavg()
    base = next(r for r in rows if r["name"] == "sb3 MaskablePPO rollout")["env_steps_per_s"]
    for r in rows:
        r["ratio_vs_sb3_rollout"] = r["env_steps_per_s"] / base
    print()
    print("| sampler | env steps/s | learner decisions/s | env steps/s vs SB3 rollout |")
    print("| --- | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['name']} | {r['env_steps_per_s']:.0f} | {r['learner_steps_per_s']:.0f} | "
              f"{r['ratio_vs_sb3_rollout']:.2f} |")  # fmt: skip
    print(f"\nMexican Train {args.players} players double-{args.max_pip}, MLP {args.hidden}, "
          f"{args.steps} steps per runner; {os.cpu_count()} CPUs, load average (1 min) "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after")  # fmt: skip
    if args.json:
        import ray as _ray

        meta = {"players": args.players, "max_pip": args.max_pip, "hidden": args.hidden,
                "steps": args.steps, "cpus": os.cpu_count(), "load_before": load_before,
                "load_after": load_after, "python": platform.python_version(),
                "ray": _ray.__version__, "torch": torch.__version__}  # fmt: skip
        args.json.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    from domino_env.train.cli import run_script

    run_script("rllib_throughput.py", main)
