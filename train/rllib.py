"""Train masked multi-agent PPO on Ray RLlib, on one machine or a Ray cluster (docs/rllib.md).

Command line (also the ``domino-rllib`` console script; needs ``pip install domino-env[rllib]``)::

    domino-rllib --game mexican_train --players 2 --max-pip 9 --iterations 50
    domino-rllib --game cuban --mode opponents --opponents greedy planner
    domino-rllib --game block --mode league --league-size 4 --snapshot-every 5
    domino-rllib --address HEAD_IP:6379 --num-env-runners 16 ...   # a running cluster
    domino-rllib --resume runs/rllib_X --iterations 100             # continue a run

Every seat of the PettingZoo env is an RLlib agent (:class:`domino_env.agents.rllib.env.DominoMultiAgentEnv`:
observations ``{"observations", "action_mask"}``, the env's own turn-based rewards). The learner
is the module ``main`` (:class:`domino_env.agents.rllib.modules.MaskedPPOTorchRLModule`: illegal actions are
never sampled). ``--mode`` picks who plays the other seats, through the policy mapping:

* ``self-play`` (default): every seat is ``main`` (one shared policy, trained on every seat).
* ``opponents``: one seat per episode, drawn at random, is ``main``; every other seat draws one of
  ``--opponents`` (scripted agents as :class:`~agents.rllib.modules.ScriptedRLModule`: ``random``,
  ``greedy``, ``planner``, ``ppo:PATH``, ``rllib:PATH``). With teams (Cuban) the partner is one of
  those seats.
* ``league``: one seat is ``main``; the others draw from ``--league-size`` frozen snapshots of
  ``main`` (``snapshot_0`` ..; refreshed in turn every ``--snapshot-every`` iterations; all start
  as copies of the initial ``main``) and from ``--opponents`` if given.

The run folder ``--out`` holds ``checkpoint/`` (the latest RLlib algorithm checkpoint, written every
``--checkpoint-every`` iterations, at the end and on Ctrl-C or SIGTERM: continue with ``--resume``), ``domino_rllib.json`` (rules,
observation spec hash, model config, arguments, versions, per-iteration history, evaluation; also
copied into ``checkpoint/``) and ``progress.jsonl``. The checkpoint plays as an agent anywhere:
``domino-evaluate --agents rllib:OUT greedy`` (``domino_env.agents.rllib.agent``). At the end
``--eval-rounds`` duplicate-deal rounds against each of ``--eval-opponents`` are played through
``domino_env.train.evaluate`` with the checkpoint loaded that way. The ``PPOConfig`` itself (modules, seat
mapping, callbacks) is built by :func:`domino_env.train.rllib_config.ppo_config`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from domino_env.agents.base import make_agent
from domino_env.agents.ppo import scaling_name, spec_for
from domino_env.agents.rllib.agent import CHECKPOINT_DIR, METADATA_FILE
from domino_env.core.config import PRESETS
from domino_env.core.errors import DominoError
from domino_env.train.cli import ArgumentParser, DefaultsHelpFormatter
from domino_env.train.evaluate import add_mexican_train_rule_options
from domino_env.train.rllib_config import (  # noqa: F401  (re-exported: the command's config)
    MAIN,
    MODES,
    SeatMapping,
    copy_module,
    env_config_of,
    make_callbacks_class,
    model_config_of,
    ppo_config,
)
from domino_env.train.run_folder import command_line

GAMES = ("mexican_train", "block", "draw", "cuban")
METADATA_FORMAT = "domino_env.rllib/1"


# ---------------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(  # one-line errors, as every command of the package
        prog="domino-rllib",
        description="Masked multi-agent PPO on Ray RLlib for every domino game: self-play, "
        "scripted opponents or a league of frozen snapshots; one machine or a Ray cluster.",
        formatter_class=DefaultsHelpFormatter,
    )
    g = parser.add_argument_group("game")
    g.add_argument("--game", default="mexican_train", choices=GAMES, help="the game")
    g.add_argument(
        "--preset", default="domino_cubano", choices=tuple(PRESETS), help="Mexican Train rule preset"
    )
    g.add_argument(
        "--players", type=int, default=None,
        help="seats (default: 4 for Mexican Train, the preset's for a line game)",
    )  # fmt: skip
    g.add_argument(
        "--max-pip", type=int, default=None, choices=(6, 9, 12, 15, 18),
        help="double-N set (default: 12 for Mexican Train, the preset's for a line game)",
    )  # fmt: skip
    g.add_argument("--episode", default="round", choices=("round", "game"), help="episode length")
    g.add_argument("--reward", default="outcome", choices=("outcome", "points"), help="env reward")
    add_mexican_train_rule_options(parser)

    m = parser.add_argument_group("who plays the other seats")
    m.add_argument("--mode", default="self-play", choices=MODES, help="see the module docstring")
    m.add_argument(
        "--opponents", nargs="+", default=[], metavar="AGENT",
        help="scripted opponents (random, greedy, planner, ppo:PATH, rllib:PATH); needed with "
        "--mode opponents, optional in a league",
    )  # fmt: skip
    m.add_argument("--league-size", type=int, default=4, help="frozen snapshots in a league")
    m.add_argument(
        "--snapshot-every", type=int, default=5, help="iterations between snapshot refreshes"
    )

    t = parser.add_argument_group("training")
    t.add_argument("--iterations", type=int, default=20, help="PPO iterations (at most)")
    t.add_argument(
        "--time-limit", type=float, default=None, metavar="SECONDS",
        help="stop after the iteration that passes this wall time",
    )  # fmt: skip
    t.add_argument("--seed", type=int, default=0, help="seeds the envs, the modules, the seating")
    t.add_argument("--batch-size", type=int, default=4000, help="env steps per iteration (all seats)")
    t.add_argument("--minibatch-size", type=int, default=256, help="SGD minibatch")
    t.add_argument("--epochs", type=int, default=5, help="passes over each batch")
    t.add_argument("--lr", type=float, default=3e-4, help="Adam learning rate")
    t.add_argument("--gamma", type=float, default=0.995, help="discount")
    t.add_argument("--gae-lambda", type=float, default=0.95, help="GAE lambda")
    t.add_argument("--entropy-coeff", type=float, default=0.01, help="entropy bonus")
    t.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="MLP layer sizes")

    r = parser.add_argument_group("Ray")
    r.add_argument("--num-env-runners", type=int, default=0, help="sampling actors (0: in the driver)")
    r.add_argument("--num-envs-per-env-runner", type=int, default=1, help="envs per env runner")
    r.add_argument(
        "--num-learners", type=int, default=0,
        help="learner actors (0: learn in the driver; more: data-parallel PPO updates, e.g. one "
        "per GPU node of a cluster)",
    )  # fmt: skip
    r.add_argument(
        "--address", default=None,
        help="join a running Ray cluster (HEAD_IP:6379, or 'auto'); default: start a local one",
    )  # fmt: skip
    r.add_argument(
        "--num-cpus", type=int, default=None, help="CPUs of the local Ray instance (not with --address)"
    )

    o = parser.add_argument_group("output and evaluation")
    o.add_argument("--out", default=None, help="run folder (default: runs/rllib_<game>_<date>_<time>)")
    o.add_argument("--resume", default=None, metavar="RUN", help="continue the run in this folder")
    o.add_argument("--checkpoint-every", type=int, default=5, help="iterations between checkpoints")
    o.add_argument(
        "--eval-rounds", type=int, default=200,
        help="duplicate-deal rounds per evaluation opponent at the end (0: none)",
    )  # fmt: skip
    o.add_argument(
        "--eval-opponents", nargs="+", default=["random", "greedy"], metavar="AGENT",
        help="the checkpoint plays [rllib, X, X, ...] for each X",
    )  # fmt: skip
    o.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=True, help="progress bar"
    )
    return parser


def rules_of(args: argparse.Namespace) -> dict[str, Any]:
    """The full rules dict of the parsed options (``domino_env.train.ppo.rules_from_args``).

    Raises:
        ConfigError: invalid rule values.
    """
    from domino_env.train.ppo import rules_from_args

    return rules_from_args(args)


def validate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    """Check every flag before any work starts (``parser.error`` names the flag); return the
    env config."""
    positive = ("iterations", "league_size", "snapshot_every", "batch_size", "minibatch_size",
                "epochs", "checkpoint_every", "num_envs_per_env_runner")  # fmt: skip
    for name in positive:
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    for name in ("num_env_runners", "num_learners", "eval_rounds", "seed"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be >= 0, got {getattr(args, name)}")
    if args.time_limit is not None and not args.time_limit > 0:
        parser.error(f"--time-limit must be > 0 seconds, got {args.time_limit}")
    if args.minibatch_size > args.batch_size:
        parser.error(f"--minibatch-size {args.minibatch_size} exceeds --batch-size {args.batch_size}")
    if any(h < 1 for h in args.hidden):
        parser.error(f"--hidden sizes must be >= 1, got {args.hidden}")
    if not 0 < args.gamma <= 1 or not 0 <= args.gae_lambda <= 1 or not args.lr > 0:
        parser.error("--gamma must be in (0, 1], --gae-lambda in [0, 1], --lr > 0")
    if args.mode == "opponents" and not args.opponents:
        parser.error("--mode opponents needs --opponents (e.g. --opponents greedy random)")
    if args.mode == "self-play" and args.opponents:
        parser.error("--opponents is for --mode opponents or league (self-play: every seat is main)")
    if args.address is not None and not re.fullmatch(r"auto|(ray://)?[\w.\-]+:\d+", args.address):
        parser.error(f"--address {args.address!r}: give HOST:PORT of the head (e.g. 10.0.0.1:6379), ray://HOST:PORT or auto")
    if args.address is not None and args.num_cpus is not None:
        parser.error("--num-cpus sizes a local Ray instance; a cluster (--address) has its own")
    if args.num_cpus is not None and args.num_cpus < 1:
        parser.error(f"--num-cpus must be >= 1, got {args.num_cpus}")
    if args.game != "mexican_train":
        for name in ("hand_size", "first_turn", "doubles", "drawn_tile", "marker_removal",
                     "station_source", "blocked_round", "game_end", "use_boneyard",
                     "use_mexican_train", "double_blank_points", "elimination_limit"):  # fmt: skip
            if getattr(args, name) is not None:
                parser.error(f"--{name.replace('_', '-')} is a Mexican Train rule, not of --game {args.game}")
    import importlib.util

    # Found, not imported: ray reads its auth settings at import (see join_cluster).
    if importlib.util.find_spec("ray") is None or importlib.util.find_spec("ray.rllib") is None:
        parser.error("Ray RLlib is not installed: pip install 'domino-env[rllib]'")
    try:
        rules = rules_of(args)
        env_config = env_config_of(args.game, rules, args.episode, args.reward)
        from domino_env.agents.rllib.env import aec_from_env_config

        cfg = aec_from_env_config(env_config).config
        for spec in (*args.opponents, *args.eval_opponents):
            agent = make_agent(spec, cfg)  # an unknown name or a bad path fails now
            if spec in args.opponents and getattr(agent, "wants_info_state", False):
                # RLlib's opponent modules see observation batches only, never the engine state
                parser.error(f"--opponents {spec}: it needs the seat's public history (search, or a model "
                             "reading action-features-v3), which RLlib's opponent modules do not have; "
                             "it can be an --eval-opponents entry")  # fmt: skip
    except (DominoError, FileNotFoundError) as exc:
        parser.error(str(exc))
    if args.resume is not None:
        run = Path(args.resume)
        if not (run / METADATA_FILE).is_file() or not (run / CHECKPOINT_DIR).is_dir():
            parser.error(f"--resume {run}: not a run folder of domino-rllib (no {METADATA_FILE} / {CHECKPOINT_DIR}/)")
        if args.out is not None and Path(args.out).resolve() != run.resolve():
            parser.error("--out and --resume name different folders (a resumed run stays in its folder)")
        previous = json.loads((run / METADATA_FILE).read_text())
        if previous.get("env_config") != env_config:
            parser.error(f"--resume {run}: the run's rules {previous.get('env_config')} differ from these {env_config}")
    elif args.out is not None and Path(args.out).exists() and any(Path(args.out).iterdir()):
        parser.error(f"--out {args.out} exists and is not empty (use --resume {args.out} to continue it)")
    return env_config


def use_token_if_present() -> None:
    """Ray 2.60 turns token authentication on by default for clusters started with ``ray start``:
    a driver then needs ``RAY_AUTH_MODE=token`` and the head's token (``ray get-auth-token``; in
    ``~/.ray/auth_token``, ``RAY_AUTH_TOKEN`` or ``RAY_AUTH_TOKEN_PATH``). When the mode is unset
    and a token is there, switch token mode on (before ray is imported: it reads this once)."""
    has_token = (Path.home() / ".ray" / "auth_token").is_file() or any(
        k in os.environ for k in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
    )
    if "RAY_AUTH_MODE" not in os.environ and has_token:
        os.environ["RAY_AUTH_MODE"] = "token"


def join_cluster(address: str) -> None:
    """``ray.init(address=...)`` with a one-line error when the head cannot be reached.

    Raises:
        SystemExit: the cluster cannot be joined (the message says what to check).
    """
    import ray

    try:
        ray.init(address=address, log_to_driver=False)
    except (ConnectionError, RuntimeError) as err:
        raise SystemExit(
            f"domino_env.train.rllib: error: --address {address}: cannot join the Ray cluster ({err}). Is "
            "`ray start --head` running there, and its port reachable? With token authentication "
            "(ray's default) set RAY_AUTH_MODE=token and the head's token (ray get-auth-token)."
        ) from None


def _versions() -> dict[str, str]:
    import ray
    import torch

    import domino_env

    return {"domino_env": domino_env.__version__, "ray": ray.__version__, "torch": torch.__version__,
            "python": platform.python_version(), "numpy": np.__version__}  # fmt: skip


def _summary(result: dict[str, Any]) -> dict[str, Any]:
    er = result.get("env_runners", {})
    returns = er.get("module_episode_returns_mean", {})
    return {
        "iteration": int(result.get("training_iteration", 0)),
        "env_steps": int(result.get("num_env_steps_sampled_lifetime", er.get("num_env_steps_sampled_lifetime", 0))),
        "episodes": int(er.get("num_episodes_lifetime", 0)),
        "episode_len_mean": float(er.get("episode_len_mean", float("nan"))),
        "main_return_mean": float(returns.get(MAIN, float("nan"))),
        "main_win_rate": float(er.get("main_win_rate", float("nan"))),
        "illegal_actions": int(er.get("illegal_actions", 0)),
        "time_s": float(result.get("time_total_s", 0.0)),
    }


def train(argv: Sequence[str] | None = None) -> Path:
    """Parse ``argv``, train, checkpoint, evaluate; return the run folder.

    Raises:
        SystemExit: invalid options (argparse's message, before any work starts).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.address is not None:
        use_token_if_present()  # before anything imports ray
    env_config = validate(parser, args)
    if args.resume is not None:
        out = Path(args.resume)
    else:
        stamp = time.strftime("%Y%m%d_%H%M%S")
        out = Path(args.out or f"runs/rllib_{args.game}_{stamp}")
    out.mkdir(parents=True, exist_ok=True)

    import ray

    if args.address is not None:
        join_cluster(args.address)
    else:
        # "local": always a new instance of our own, never a `ray start` cluster of this machine
        ray.init(address="local", num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    config = ppo_config(
        env_config, mode=args.mode, opponents=args.opponents, league_size=args.league_size,
        snapshot_every=args.snapshot_every, hidden=args.hidden,
        num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.num_envs_per_env_runner,
        num_learners=args.num_learners, train_batch_size=args.batch_size, minibatch_size=args.minibatch_size, num_epochs=args.epochs,
        lr=args.lr, gamma=args.gamma, lambda_=args.gae_lambda, entropy_coeff=args.entropy_coeff,
        seed=args.seed,
    )  # fmt: skip
    domino = config._domino
    algo = config.build_algo()
    history: list[dict[str, Any]] = []
    done_before = 0
    if args.resume is not None:
        algo.restore_from_path(str((out / CHECKPOINT_DIR).resolve()))
        previous = json.loads((out / METADATA_FILE).read_text())
        history = list(previous.get("history", []))
        done_before = int(previous.get("iterations_done", 0))
    elif domino["league"]:
        for slot in domino["league"]["slots"]:  # every snapshot starts as the initial main
            copy_module(algo, MAIN, slot)
    game_family = "mexican_train" if args.game == "mexican_train" else "line"
    p, n = env_config["num_players"], env_config["max_pip"]
    from domino_env.agents.rllib.env import aec_from_env_config

    aec = aec_from_env_config(env_config)
    spec = spec_for(p, n, game_family, aec.config)
    metadata: dict[str, Any] = {
        "format": METADATA_FORMAT,
        "game": args.game,
        "env_id": aec.ENV_ID,
        "env_config": env_config,
        "env_kwargs": aec.env_kwargs,
        "observation_spec_hash": spec.hash(),
        "observation_size": spec.size,
        "num_actions": int(aec.action_space(aec.possible_agents[0]).n),
        "observation_scaling": scaling_name(game_family),
        "model_config": domino["model_config"],
        "module_id": MAIN,
        "mode": args.mode,
        "opponents": domino["opponents"],
        "league": domino["league"],
        "args": vars(args),
        "command": command_line("train.rllib", list(argv if argv is not None else sys.argv[1:])),
        "versions": _versions(),
        "ray_resources": {k: float(v) for k, v in ray.cluster_resources().items() if k in ("CPU", "GPU")},
    }

    def save(interrupted: bool = False) -> None:
        ckpt = (out / CHECKPOINT_DIR).resolve()
        algo.save_to_path(str(ckpt))
        metadata.update(
            iterations_done=done_before + new_iterations, history=history,
            interrupted=interrupted, wall_seconds=round(time.perf_counter() - start, 2),
        )  # fmt: skip
        write_metadata(out, metadata)

    new_iterations = 0
    bar = None
    if args.progress:
        from tqdm import tqdm

        bar = tqdm(total=args.iterations, unit="it", desc=f"rllib {args.game} {args.mode}", dynamic_ncols=True)
    start = time.perf_counter()
    interrupted = False

    def stop_on_sigterm(signum: int, frame: Any) -> None:  # a scheduler's stop: like Ctrl-C
        raise KeyboardInterrupt

    previous_handler = signal.signal(signal.SIGTERM, stop_on_sigterm)
    try:
        for i in range(args.iterations):
            result = algo.train()
            row = _summary(result)
            history.append(row)
            new_iterations += 1
            with open(out / "progress.jsonl", "a") as f:
                f.write(json.dumps(row) + "\n")
            if bar is not None:
                bar.update(1)
                bar.set_postfix(steps=row["env_steps"], eps=row["episodes"], ret=f"{row['main_return_mean']:.3f}",
                                win=f"{row['main_win_rate']:.3f}", illegal=row["illegal_actions"])  # fmt: skip
            else:
                print(json.dumps(row), flush=True)
            if (i + 1) % args.checkpoint_every == 0:
                save()
            if args.time_limit is not None and time.perf_counter() - start >= args.time_limit:
                break
    except KeyboardInterrupt:
        interrupted = True
        print(f"\ninterrupted: saving a checkpoint (continue with --resume {out})", file=sys.stderr)
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
        if bar is not None:
            bar.close()
    save(interrupted)
    algo.stop()
    ray.shutdown()
    if not interrupted and args.eval_rounds > 0:
        metadata["evaluation"] = evaluate_checkpoint(out, args, env_config)
        write_metadata(out, metadata)
    total_illegal = sum(r["illegal_actions"] for r in history)
    print(f"{new_iterations} iterations, {history[-1]['env_steps'] if history else 0} env steps, "
          f"{total_illegal} illegal actions; checkpoint {out / CHECKPOINT_DIR}; play it: "
          f"domino-evaluate --game {args.game} --agents rllib:{out} ...")  # fmt: skip
    return out


def write_metadata(out: Path, metadata: dict[str, Any]) -> None:
    """Write ``domino_rllib.json`` into the run folder and its checkpoint (the loader's copy)."""
    text = json.dumps(metadata, indent=1, default=str)
    (out / METADATA_FILE).write_text(text)
    (out / CHECKPOINT_DIR / METADATA_FILE).write_text(text)


def evaluate_checkpoint(out: Path, args: argparse.Namespace, env_config: dict[str, Any]) -> dict[str, Any]:
    """``[rllib:OUT, X, ..., X]`` duplicate-deal tournaments through ``domino_env.train.evaluate``."""
    from domino_env.train.evaluate import evaluate

    kwargs = {k: v for k, v in env_config.items() if k not in ("game", "num_players", "reward")}
    p = env_config["num_players"]
    results = {}
    for opponent in args.eval_opponents:
        res = evaluate(
            [f"rllib:{out}"] + [opponent] * (p - 1), rounds=args.eval_rounds, num_players=p,
            seed=args.seed, game=args.game, progress=args.progress, **kwargs,
        )  # fmt: skip
        s = res.stats_for(f"rllib:{out}")
        results[opponent] = {"win_rate": s.win_rate, "ci95_deal": list(s.ci95_deal), "parity": s.parity,
                             "verdict": s.verdict, "rounds": res.rounds_played}  # fmt: skip
        print(f"rllib vs {opponent}: win rate {s.win_rate:.3f} [{s.ci95_deal[0]:.3f}, {s.ci95_deal[1]:.3f}] "
              f"(parity {s.parity:.3f}, {s.verdict}) over {res.rounds_played} rounds")  # fmt: skip
    return results


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``domino-rllib`` (``python -m domino_env.train.rllib``)."""
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    train(argv)


if __name__ == "__main__":
    from domino_env.train.cli import launch

    launch("domino-rllib", main)
