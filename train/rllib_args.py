"""The command line of ``domino-rllib`` (:mod:`domino_env.train.rllib`): its options
(:func:`build_parser`), the checks every flag passes before any work starts (:func:`validate`) and
what ``--resume`` takes from the run it continues (:func:`resume_options`).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from domino_env.agents.base import make_agent
from domino_env.agents.rllib.agent import CHECKPOINT_DIR, load_rllib_agent
from domino_env.core.config import PRESETS
from domino_env.core.errors import DominoError
from domino_env.train.arg_types import (
    MAX_PARAMETERS,
    MAX_ROLLOUT,
    MAX_ROUNDS,
    MOST_PER_CPU,
    count,
    duration,
    int_at_least,
)
from domino_env.train.cli import (
    ArgumentParser,
    DefaultsHelpFormatter,
    output_folder_problem,
)
from domino_env.train.evaluate import add_mexican_train_rule_options
from domino_env.train.folder_lock import hold_run_folder
from domino_env.train.ppo_args import MEXICAN_TRAIN_RULE_ARGS, check_rules, flag_of
from domino_env.train.rllib_config import (
    MANY_LEARNERS,
    MODES,
    env_config_of,
    min_batch_size,
    network_parameters,
)
from domino_env.train.rllib_resume import damaged_pickle, holds_checkpoint, not_resumable, read_run

GAMES = ("mexican_train", "block", "draw", "cuban")


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
        "--players", type=count, default=None,
        help="seats (default: 4 for Mexican Train, the preset's for a line game)",
    )  # fmt: skip
    g.add_argument(
        "--max-pip", type=int, default=None, choices=(6, 9, 12, 15, 18),
        help="double-N set (default 12 for Mexican Train: 9, 12, 15, 18; line games: 6, 9, 12, default the preset's)",
    )  # fmt: skip
    g.add_argument("--episode", default="round", choices=("round", "game"), help="episode length")
    g.add_argument("--reward", default="outcome", choices=("outcome", "points"), help="env reward")
    add_mexican_train_rule_options(parser)

    m = parser.add_argument_group("who plays the other seats")
    m.add_argument(
        "--mode", default="self-play", choices=MODES,
        help="self-play: every seat is the learner main; opponents: one seat is main, the others "
        "draw from --opponents; league: one seat is main, the others draw from --league-size frozen "
        "snapshots of main (and --opponents if given)",
    )  # fmt: skip
    m.add_argument(
        "--opponents", nargs="+", default=[], metavar="AGENT",
        help="scripted opponents (random, greedy, planner, ppo:PATH, rllib:PATH); needed with "
        "--mode opponents, optional in a league",
    )  # fmt: skip
    m.add_argument("--league-size", type=count, default=4, help=f"frozen snapshots in a league (at most {MAX_LEAGUE_SIZE})")
    m.add_argument(
        "--snapshot-every", type=count, default=5, help="iterations between snapshot refreshes"
    )

    t = parser.add_argument_group("training")
    t.add_argument("--iterations", type=count, default=20,
                   help="PPO iterations (at most) this command runs (with --resume: more, after the run's)")
    t.add_argument(
        "--time-limit", type=duration("s", bare=False), default=None, metavar="TIME",
        help="stop after the iteration that passes this wall time, with its unit: 90s, 15m, 1.5h",
    )  # fmt: skip
    t.add_argument("--seed", type=count, default=0, help="seeds the envs, the modules, the seating")
    t.add_argument("--batch-size", type=count, default=4000, help=f"env steps per iteration (all seats; at most {MAX_ROLLOUT})")
    t.add_argument("--minibatch-size", type=count, default=256, help="SGD minibatch")
    t.add_argument("--epochs", type=count, default=5, help="passes over each batch")
    t.add_argument("--lr", type=float, default=3e-4, help="Adam learning rate")
    t.add_argument("--gamma", type=float, default=0.995, help="discount")
    t.add_argument("--gae-lambda", type=float, default=0.95, help="GAE lambda")
    t.add_argument("--entropy-coeff", type=float, default=0.01, help="entropy bonus")
    t.add_argument("--hidden", type=count, nargs="+", default=[256, 256],
                   help=f"MLP layer sizes (main and its league snapshots: at most {MAX_PARAMETERS // 10**6} M parameters together)")

    r = parser.add_argument_group("Ray")
    r.add_argument("--num-env-runners", type=count, default=0, help="sampling actors (0: in the driver)")
    r.add_argument("--num-envs-per-env-runner", type=count, default=1, help=f"envs per env runner (at most {MAX_ENVS_PER_RUNNER})")
    r.add_argument(
        "--num-learners", type=count, default=0,
        help="learner actors: 0 learns in the driver, 1 in a learner actor of its own (e.g. on a "
        "cluster's GPU node); more are refused (RLlib's data-parallel split of turn-based episodes fails)",
    )  # fmt: skip
    r.add_argument(
        "--address", default=None,
        help="join a running Ray cluster (HEAD_IP:6379, or 'auto'); default: start a local one",
    )  # fmt: skip
    r.add_argument(
        "--num-cpus", type=count, default=None, help="CPUs of the local Ray instance, at most 4 x the CPUs of this machine (not with --address)"
    )

    o = parser.add_argument_group("output and evaluation")
    o.add_argument("--out", default=None, help="run folder (default: runs/rllib_<game>_<date>_<time>)")
    o.add_argument("--resume", default=None, metavar="RUN", help="continue the run in this folder")
    o.add_argument("--checkpoint-every", type=count, default=5, help="iterations between checkpoints")
    o.add_argument(
        "--eval-rounds", type=int_at_least(0, MAX_ROUNDS), default=200,
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


#: Largest --seed (RLlib adds each env's index to it; numpy seeds are below 2**32).
MAX_SEED = 2**31 - 1
#: Largest --league-size: each snapshot is a module built on the learner and every env runner and
#: written into every checkpoint (about 0.05 s of start-up each: 100000 sat silent for minutes).
MAX_LEAGUE_SIZE = 100
#: Most envs one env runner steps (--num-envs-per-env-runner): about 40 KB each, but one process
#: steps them one after another (more runners, --num-env-runners, sample in parallel).
MAX_ENVS_PER_RUNNER = 4096


def validate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    """Check every flag before any work starts (``parser.error`` names the flag); return the
    env config."""
    positive = ("iterations", "league_size", "snapshot_every", "batch_size", "minibatch_size",
                "epochs", "checkpoint_every", "num_envs_per_env_runner")  # fmt: skip
    for name in positive:
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.league_size > MAX_LEAGUE_SIZE:
        parser.error(f"--league-size must be at most {MAX_LEAGUE_SIZE}, got {args.league_size}: each snapshot is a copy "
                     "of main built on the learner and every env runner and written into every checkpoint (start-up "
                     f"alone grows by about 0.05 s a snapshot), and the league takes --league-size x --snapshot-every "
                     "iterations to refresh them all once")  # fmt: skip
    for name in ("num_env_runners", "num_learners", "seed"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be >= 0, got {getattr(args, name)}")
    if args.num_envs_per_env_runner > MAX_ENVS_PER_RUNNER:
        parser.error(f"--num-envs-per-env-runner must be at most {MAX_ENVS_PER_RUNNER}, got "
                     f"{args.num_envs_per_env_runner}: one process steps them all in turn")  # fmt: skip
    if args.batch_size > MAX_ROLLOUT:  # held whole in memory (observations, masks, logits) before each update
        parser.error(f"--batch-size must be at most {MAX_ROLLOUT}, got {args.batch_size}: the learner holds the "
                     "whole batch in memory")  # fmt: skip
    if args.minibatch_size > args.batch_size:
        parser.error(f"--minibatch-size {args.minibatch_size} exceeds --batch-size {args.batch_size}")
    if any(h < 1 for h in args.hidden):
        parser.error(f"--hidden sizes must be >= 1, got {args.hidden}")
    if not 0 < args.lr <= 1:  # (1e39 passed as "finite" and overflowed the optimizer's float32)
        parser.error(f"--lr must be in (0, 1], got {args.lr}")
    if args.seed > MAX_SEED:  # RLlib seeds each env runner's envs with seed + their index
        parser.error(f"--seed must be from 0 to {MAX_SEED} (2**31 - 1), got {args.seed}")
    if not (math.isfinite(args.entropy_coeff) and args.entropy_coeff >= 0):  # RLlib's own check: after Ray starts
        parser.error(f"--entropy-coeff must be a finite number >= 0, got {args.entropy_coeff}")
    if args.num_learners > 1:
        parser.error(f"--num-learners must be 0 or 1, got {args.num_learners}: {MANY_LEARNERS}")
    if not 0 < args.gamma <= 1:
        parser.error(f"--gamma must be in (0, 1], got {args.gamma}")
    if not 0 <= args.gae_lambda <= 1:
        parser.error(f"--gae-lambda must be in [0, 1], got {args.gae_lambda}")
    if args.mode == "opponents" and not args.opponents:
        parser.error("--mode opponents needs --opponents (e.g. --opponents greedy random)")
    if args.mode == "self-play" and args.opponents:
        parser.error("--opponents is for --mode opponents or league (self-play: every seat is main)")
    if args.address is not None and not re.fullmatch(r"auto|(ray://)?[\w.\-]+:\d+", args.address):
        parser.error(f"--address {args.address!r}: give HOST:PORT of the head (e.g. 10.0.0.1:6379), ray://HOST:PORT or auto")
    port = re.search(r":(\d+)$", args.address or "")
    if port and not 1 <= int(port.group(1)) <= 65535:
        parser.error(f"--address {args.address!r}: port {port.group(1)} is not a port (1 to 65535)")
    if args.address is not None and args.num_cpus is not None:
        parser.error("--num-cpus sizes a local Ray instance; a cluster (--address) has its own")
    if args.num_cpus is not None and not 1 <= args.num_cpus <= MOST_PER_CPU:  # Ray started that many workers
        parser.error(f"--num-cpus must be from 1 to {MOST_PER_CPU} (4 x the CPUs of this machine), got {args.num_cpus}")
    cpus = args.num_cpus or os.cpu_count() or 1
    actors = args.num_env_runners + args.num_learners
    if args.address is None and actors > cpus:  # Ray would wait for ever for the missing CPUs
        parser.error(f"--num-env-runners {args.num_env_runners} + --num-learners {args.num_learners} need "
                     f"{actors} CPUs (one actor each) and this local Ray has {cpus} "
                     f"({'--num-cpus' if args.num_cpus else 'the CPUs of this machine'}); give fewer, or "
                     "--address for a cluster")  # fmt: skip
    if args.out is not None and (problem := output_folder_problem(args.out)):
        parser.error(f"--out {args.out}: {problem}")
    if args.game != "mexican_train":
        for name in (n for n in MEXICAN_TRAIN_RULE_ARGS if n != "hand_size"):  # the line games deal hands too
            if getattr(args, name) is not None:
                parser.error(f"--{name.replace('_', '-')} is a Mexican Train rule, not of --game {args.game}")
    import importlib.util

    # Found, not imported: ray reads its auth settings at import (see join_cluster).
    if importlib.util.find_spec("ray") is None or importlib.util.find_spec("ray.rllib") is None:
        parser.error("Ray RLlib is not installed: pip install 'domino-env[rllib]' (in a clone: pip install -e '.[rllib]')")
    rules = check_rules(parser, args)  # a bad rule value names its flag
    try:
        env_config = env_config_of(args.game, rules, args.episode, args.reward)
        from domino_env.agents.rllib.env import aec_from_env_config

        aec = aec_from_env_config(env_config)
        cfg = aec.config
    except DominoError as exc:
        parser.error(str(exc))
    features = aec.observation_space(aec.possible_agents[0])["observation"].shape[0]
    actions = int(aec.action_space(aec.possible_agents[0]).n)
    copies = 1 + args.league_size if args.mode == "league" else 1
    # main and its league snapshots together: the learner, every env runner and each checkpoint hold
    # them all (--hidden 100000000 was torch's allocation traceback)
    weights = copies * network_parameters(features, args.hidden, actions)
    if weights > MAX_PARAMETERS:
        flags = f"--hidden {_shown(args.hidden)}" + (f" with --league-size {args.league_size}" if copies > 1 else "")
        whose = f"main and its {args.league_size} league snapshots" if copies > 1 else "main"
        parser.error(f"{flags}: {whose} would have {weights:.3g} parameters (policy and value MLPs on {features} "
                     f"observation features, {actions} actions); at most {MAX_PARAMETERS:,} ({MAX_PARAMETERS * 4 // 10**6} "
                     "MB of float32 weights), as the learner, every env runner and each checkpoint hold them all")  # fmt: skip
    least = min_batch_size(cfg.num_players, args.mode, args.num_env_runners, args.num_envs_per_env_runner)
    if least > MAX_ROLLOUT:  # no --batch-size fits both bounds: "give --batch-size >= 1228800" was refused in turn
        envs = max(args.num_env_runners, 1) * args.num_envs_per_env_runner
        parser.error(f"--num-env-runners {args.num_env_runners} x --num-envs-per-env-runner "
                     f"{args.num_envs_per_env_runner} = {envs} sampling envs need a batch of at least {least} env "
                     f"steps ({least // envs} each for a finished step of main with {cfg.num_players} seats in --mode "
                     f"{args.mode}), more than --batch-size may be ({MAX_ROLLOUT}); give fewer envs")  # fmt: skip
    if args.batch_size < least:  # RLlib's learner fails on it after Ray starts (UnboundLocalError)
        envs = max(args.num_env_runners, 1) * args.num_envs_per_env_runner
        steps = least // envs
        why = (f"every seat is main, {steps} env steps" if args.mode == "self-play" else
               f"main holds one seat: it acts within a round of turns and sees its next observation within another, "
               f"2 x {cfg.num_players} - 1 = {steps} env steps")  # fmt: skip
        parser.error(f"--batch-size {args.batch_size} is too small for {cfg.num_players} seats in --mode {args.mode}: "
                     f"each of the {envs} sampling env{'s' * (envs != 1)} (--num-env-runners x --num-envs-per-env-runner) "
                     f"needs a finished step of the learner main ({why}), or RLlib's learner fails; "
                     f"give --batch-size >= {least}")  # fmt: skip
    for flag, specs in (("--opponents", args.opponents), ("--eval-opponents", args.eval_opponents)):
        for spec in specs:
            try:
                agent = make_agent(spec, cfg)  # an unknown name or a bad path fails now
            except (DominoError, OSError) as exc:
                parser.error(f"{flag} {spec}: {exc}")
            if flag == "--opponents" and getattr(agent, "wants_info_state", False):
                # RLlib's opponent modules see observation batches only, never the engine state
                parser.error(f"--opponents {spec}: it needs the seat's public history (search, or a model "
                             "reading action-features-v3), which RLlib's opponent modules do not have; "
                             "it can be an --eval-opponents entry")  # fmt: skip
    if args.resume is not None:
        run = Path(args.resume)
        previous = read_run(parser, run)
        if args.out is not None and Path(args.out).resolve() != run.resolve():
            parser.error("--out and --resume name different folders (a resumed run stays in its folder)")
        if previous.get("env_config") != env_config:
            parser.error(f"--resume {run}: the run's rules differ from these: {_rule_differences(previous, env_config)}")
        try:  # the learner's module must load (a damaged checkpoint is one line, not a traceback)
            load_rllib_agent(run, cfg)
        except (DominoError, OSError) as exc:
            parser.error(f"--resume {run}: {exc}")
        if damaged := damaged_pickle(run / CHECKPOINT_DIR):  # RLlib's restore named no file, after Ray started
            parser.error(f"--resume {run}: the checkpoint cannot be restored: {damaged}")
    elif args.out is not None and Path(args.out).exists() and any(Path(args.out).iterdir()):
        hold_run_folder(args.out)  # first: a live run has only progress.jsonl until its first checkpoint
        if why := not_resumable(Path(args.out)):
            parser.error(f"--out {args.out}: {why}")
        if not holds_checkpoint(Path(args.out)):  # --resume could not continue it: not told to
            parser.error(f"--out {args.out} exists and is not empty and holds no run of domino-rllib to resume "
                         f"(no {CHECKPOINT_DIR}/); give a new or empty --out")  # fmt: skip
        parser.error(f"--out {args.out} exists and is not empty (use --resume {args.out} to continue it)")
    if args.address is not None:
        check_reachable(parser, args.address)
    return env_config


#: What a gRPC server (a Ray head's GCS port, or its ``ray://`` client port) sends first: an HTTP/2
#: SETTINGS frame (3 bytes of length, then type 4). A TLS-enabled head answers our plain bytes with a
#: TLS record (first byte 0x15 alert or 0x16 handshake): also let through, Ray then decides.
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def _speaks_grpc(reply: bytes) -> bool:
    return (len(reply) >= 4 and reply[3] == 0x04) or reply[:1] in (b"\x15", b"\x16")


def check_reachable(parser: argparse.ArgumentParser, address: str, timeout: float = 5.0) -> None:
    """The head's ``HOST:PORT`` (also of ``ray://HOST:PORT``) accepts a TCP connection and answers
    as a gRPC server within ``timeout`` seconds, else a parser error: Ray itself retries an
    unreachable head, or a port where another service listens, for minutes. ``auto`` (a head of
    this machine, found by Ray) is not probed."""
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as conn:
            reply = b""
            try:
                conn.sendall(_HTTP2_PREFACE)
                while len(reply) < 4:
                    chunk = conn.recv(64)
                    if not chunk:
                        break
                    reply += chunk
            except OSError:  # reset, or silence until the timeout: judged by what came
                pass
    except OSError as exc:
        parser.error(f"--address {address}: nothing answers at {host}:{port} ({exc.strerror or exc}); is "
                     "`ray start --head` running there, and its port reachable from here?")  # fmt: skip
    if not _speaks_grpc(reply):
        seen = f"it replied {reply[:24]!r}" if reply else f"no reply (closed, reset or silent for {timeout:g} s)"
        parser.error(f"--address {address}: something listens at {host}:{port} but it is not a Ray head ({seen}; "
                     "a head answers in gRPC); give the address `ray start --head` printed")  # fmt: skip


#: What a resumed run keeps of its own: taken from the run when the command does not give it, and
#: a different value is refused (the checkpoint's env, modules and networks were built from them).
RUN_OPTIONS = ("game", "preset", "players", "max_pip", "episode", "reward", *MEXICAN_TRAIN_RULE_ARGS,
               "mode", "opponents", "league_size", "snapshot_every", "hidden")  # fmt: skip
#: Training settings a resumed run takes from the run unless the command gives them (they may change).
CONTINUED_OPTIONS = ("seed", "batch_size", "minibatch_size", "epochs", "lr", "gamma", "gae_lambda",
                     "entropy_coeff")  # fmt: skip


def given_options(argv: Sequence[str]) -> set[str]:
    """The options (``args`` attribute names) that ``argv`` gives explicitly."""
    probe = build_parser()
    for action in probe._actions:
        action.default = argparse.SUPPRESS
    return set(vars(probe.parse_args(list(argv))))


def resume_options(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str]) -> None:
    """With ``--resume RUN``: fill the :data:`RUN_OPTIONS` and :data:`CONTINUED_OPTIONS` that
    ``argv`` does not give from the run's recorded arguments, so ``--resume RUN --iterations N``
    continues the run as it was; a :data:`RUN_OPTIONS` value given and different from the run's is
    a parser error naming the flag. Runs without recorded arguments are left to :func:`validate`'s
    rules check."""
    if args.resume is None:
        return
    run = Path(args.resume)
    previous = read_run(parser, run)
    had = previous.get("args")
    if not isinstance(had, dict):
        return
    rules = previous.get("env_config") if isinstance(previous.get("env_config"), dict) else {}
    given = given_options(argv)
    for name in RUN_OPTIONS + CONTINUED_OPTIONS:
        # an option newer than the run (not in its args) counts as left to the preset, when given
        if name not in had and (name not in given or name not in MEXICAN_TRAIN_RULE_ARGS):
            continue
        if name not in given:
            setattr(args, name, had[name])
            continue
        game = had.get("game", args.game)
        if game != "mexican_train" and name in MEXICAN_TRAIN_RULE_ARGS and name != "hand_size":
            parser.error(f"--resume {run}: {flag_of(name)} is a Mexican Train rule, not of the run's --game {game}")
        # a rule the run left to its preset is compared with the value it played with
        was = rules.get(_RULE_KEY.get(name, name)) if had.get(name) is None else had[name]
        if name in LEAGUE_OPTIONS and args.mode != "league":  # (check_mode_flags says why)
            continue
        if name == "opponents" and isinstance(was, list) and sorted(args.opponents) == sorted(was):
            args.opponents = list(was)  # the same opponents in another order: the run's order
            continue
        if name in RUN_OPTIONS and getattr(args, name) != was:
            flag = flag_of(name)
            parser.error(f"--resume {run}: the run has {flag} {_shown(was)}, this command "
                         f"{_shown(getattr(args, name))}; leave {flag} out to continue the run's")  # fmt: skip


def _rule_differences(run: dict[str, Any], now: dict[str, Any]) -> str:
    """The rules of a run (its ``env_config``) that differ from ``now``: ``key run's (this command's)``."""
    was, missing = run.get("env_config") if isinstance(run.get("env_config"), dict) else {}, object()
    return ", ".join(f"{k} {_shown(was.get(k, 'unset'))} (this command's: {_shown(now.get(k, 'unset'))})"
                     for k in sorted(set(was) | set(now)) if was.get(k, missing) != now.get(k, missing))  # fmt: skip


#: The options of ``--mode league`` alone.
LEAGUE_OPTIONS = ("league_size", "snapshot_every")


def check_mode_flags(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str]) -> None:
    """Refuse a league option given with another ``--mode`` (the run's, with ``--resume``): it
    would do nothing, as ``--opponents`` would in self-play (refused in :func:`validate`)."""
    if args.mode != "league":
        for name in sorted(given_options(argv) & set(LEAGUE_OPTIONS)):
            whose = "the run's --mode is" if args.resume is not None else "not"
            parser.error(f"{flag_of(name)} is for --mode league (its frozen snapshots of main), {whose} {args.mode}")


#: The run's ``env_config`` key of an option whose name differs.
_RULE_KEY = {"players": "num_players"}


def _shown(value: Any) -> str:
    if value is None or value == []:  # (an empty list printed as nothing: "--opponents , this command")
        return "none"
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)
