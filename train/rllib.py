"""Train masked multi-agent PPO on Ray RLlib, on one machine or a Ray cluster (docs/rllib.md).

Command line (also the ``domino-rllib`` console script; needs ``pip install 'domino-env[rllib]'``; in a clone ``pip install -e '.[rllib]'``)::

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
  ``--opponents`` (scripted agents as :class:`~domino_env.agents.rllib.modules.ScriptedRLModule`: ``random``,
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
The checkpoint's save, the metadata and the final evaluation are in :mod:`domino_env.train.rllib_output`.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from domino_env.agents.ppo import scaling_name, spec_for
from domino_env.agents.rllib.agent import CHECKPOINT_DIR, METADATA_FILE
from domino_env.core.errors import DominoError
from domino_env.core.files import replace_text
from domino_env.train.cli import first_line
from domino_env.train.evaluate import evaluate_command
from domino_env.train.folder_lock import hold_run_folder, releasing_run_folders
from domino_env.train.interrupts import in_import_machinery, stop_began, stop_signals_held
from domino_env.train.rllib_args import (  # noqa: F401  (re-exported: the command line)
    GAMES,
    build_parser,
    check_mode_flags,
    resume_options,
    validate,
)
from domino_env.train.rllib_config import (  # noqa: F401  (re-exported: the command's config)
    MAIN,
    MODES,
    NO_MAIN_STEP,
    SeatMapping,
    copy_module,
    env_config_of,
    join_cluster,
    make_callbacks_class,
    model_config_of,
    no_main_step,
    ppo_config,
    progress_row,
    use_token_if_present,
)
from domino_env.train.rllib_output import (  # noqa: F401  (re-exported)
    WriteRefused,
    evaluate_checkpoint,
    evaluation_commands,
    finish_swap_command,
    refusal_error,
    refused_as,
    refused_replace,
    save_checkpoint,
    skip_evaluation,
    skipped_evaluation,
    versions,
    write_metadata,
)
from domino_env.train.run_folder import (
    claim_run_folder,
    command_line,
    launcher,
    make_folders,
    missing_folders,
    remove_if_empty,
    remove_made,
    rllib_resume_command,
    source_commit,
)
from domino_env.train.start_model import continued_seed

METADATA_FORMAT = "domino_env.rllib/1"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


class _StoppedInRayInit(Exception):
    """SIGTERM reached Ray's own handler inside ray.init: Ray is half started."""


def _abandon_start(out: Path, made: list[Path]) -> None:
    """After a signal or an error during start-up: stop Ray, and remove ``out`` and the folders above it
    that this command made (``made``: ``runs/`` of a default ``--out``) if nothing is in them yet."""
    ray = sys.modules.get("ray")  # None, or half imported, when the signal came during its import
    if ray is not None and getattr(ray, "is_initialized", lambda: False)():
        ray.shutdown()
    if made:
        remove_if_empty(out, made)


def _start(
    args: argparse.Namespace, argv: list[str], env_config: dict[str, Any], out: Path, on_sigterm: Any,
    made: list[Path], claimed: bool,
) -> tuple[Any, dict[str, Any], list[dict[str, Any]], int]:
    """Start Ray, build the algorithm (restored with ``--resume``) and the run's metadata: the
    ``(algo, metadata, history, iterations done before)`` the training loop continues from.
    ``made``: the folders missing at the command's start (:func:`missing_folders`), made here for
    a new ``--out`` and then set to those this command made (a failed start removes only these);
    ``claimed``: ``out`` is the default folder, already made."""
    import ray

    # While Ray starts a signal is only noted: raised inside ray.init it left a half-started Ray
    # that crashed the process (-11) on its way out. Part-way, ray.init installs its own SIGTERM
    # handler (sys.exit(SIGTERM)), met below as _StoppedInRayInit.
    noted: list[int] = []
    previous_sigint = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))
    if on_sigterm is not signal.SIG_IGN:
        signal.signal(signal.SIGTERM, lambda signum, frame: noted.append(signum))
    try:
        if args.address is not None:
            join_cluster(args.address)
        else:
            # "local": always a new instance of our own, never a `ray start` cluster of this machine
            ray.init(address="local", num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    except SystemExit as exc:
        if exc.code == signal.SIGTERM:
            raise _StoppedInRayInit from None
        raise
    finally:
        signal.signal(signal.SIGINT, previous_sigint)
        signal.signal(signal.SIGTERM, on_sigterm)  # ray.init installed its own: ours again
    if signal.SIGTERM in noted:
        on_sigterm(signal.SIGTERM, None)  # raises KeyboardInterrupt, noting SIGTERM
    if noted:
        raise KeyboardInterrupt
    try:  # once Ray runs: a failed start leaves no folder
        now_made = make_folders(out)
    except OSError as exc:  # checked before Ray started; a folder can change since
        remove_made(getattr(exc, "made", []))
        ray.shutdown()
        raise DominoError(f"--out {out}: cannot make the run folder ({exc.strerror or exc})") from exc
    if made and not claimed:  # a new --out: from here on, only the folders this command made are its own
        made[:] = now_made
        if not now_made or now_made[0] != out.resolve():  # another run made it while Ray started here
            ray.shutdown()
            raise DominoError(f"--out {out}: another command made this folder while this one started; "
                              "give another --out")  # fmt: skip
    hold_run_folder(out)  # (another run holding it: refused; the folder stays as it is)
    previous: dict[str, Any] = json.loads((out / METADATA_FILE).read_text()) if args.resume is not None else {}
    done_before = int(previous.get("iterations_done", 0))
    # a resumed part must not replay the deals, draws and seatings of the run's first part (--seed
    # again seeds the envs as at iteration 0): a seed of its own from --seed and the iterations done
    train_seed = continued_seed(args.seed, done_before)
    config = ppo_config(
        env_config, mode=args.mode, opponents=args.opponents, league_size=args.league_size,
        snapshot_every=args.snapshot_every, hidden=args.hidden,
        num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.num_envs_per_env_runner,
        num_learners=args.num_learners, train_batch_size=args.batch_size, minibatch_size=args.minibatch_size, num_epochs=args.epochs,
        lr=args.lr, gamma=args.gamma, lambda_=args.gae_lambda, entropy_coeff=args.entropy_coeff,
        seed=train_seed,
    )  # fmt: skip
    domino = config._domino
    algo = config.build_algo()
    history: list[dict[str, Any]] = []
    if args.resume is not None:
        try:
            algo.restore_from_path(str((out / CHECKPOINT_DIR).resolve()))
        except Exception as exc:  # a damaged file the module check did not read (optimizer, learner)
            algo.stop()
            ray.shutdown()
            raise DominoError(f"--resume {out}: the checkpoint cannot be restored ({type(exc).__name__}: "
                              f"{first_line(exc)})") from exc  # fmt: skip
        history = list(previous.get("history", []))
        # rows of iterations after the checkpoint (a crash or a kill between checkpoints) were lost
        # with it: the run goes on from the checkpoint's, without them (they came twice: 1 2 3 3)
        try:
            with refused_replace():
                replace_text(out / "progress.jsonl", "".join(json.dumps(row) + "\n" for row in history))
        except WriteRefused as exc:  # (chattr +i RUN/progress.jsonl: it was a traceback)
            algo.stop()
            ray.shutdown()
            kept = f"nothing was trained and the run is as it was (the checkpoint of iteration {done_before} in {out / CHECKPOINT_DIR})"
            raise refusal_error(exc, out, done_before, f"continue with: {rllib_resume_command(argv, out, args.iterations, launcher('train.rllib'))}",
                                "--resume", kept) from None  # fmt: skip
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
        "train_seed": train_seed,
        "eval_seed": args.seed,  # the final evaluation's (evaluate_checkpoint), as domino-train's metadata names it
        "command": command_line("train.rllib", argv),
        # the run this command continued: the chain back to the command that began it
        "resumed_from": {k: previous.get(k) for k in ("command", "iterations_done", "interrupted", "failed", "resumed_from")}
        if args.resume is not None else None,
        "versions": versions(),
        "source": source_commit(),
        "ray_resources": {k: float(v) for k, v in ray.cluster_resources().items() if k in ("CPU", "GPU")},
    }
    return algo, metadata, history, done_before


def train(argv: Sequence[str] | None = None) -> Path:
    """Parse ``argv``, train, checkpoint, evaluate; return the run folder.

    Raises:
        SystemExit: invalid options (argparse's message, before any work starts).
        DominoError: the ``--resume`` checkpoint cannot be restored.

    A SIGTERM that reaches Ray's own handler inside ``ray.init`` ends the process at once (exit
    status 143): a half-started Ray cannot be shut down safely.
    """
    return _run(argv)[0]


@releasing_run_folders
def _run(argv: Sequence[str] | None = None) -> tuple[Path, int]:
    """:func:`train`, also returning the exit status: 0, or 128 + the signal number when SIGINT
    or SIGTERM stopped training (the checkpoint is saved: continue with ``--resume``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    resume_options(parser, args, argv)  # --resume RUN: the run's rules, mode, opponents, network
    check_mode_flags(parser, args, argv)
    if args.address is not None:
        use_token_if_present()  # before anything imports ray
    env_config = validate(parser, args)
    if args.resume is not None:
        out = Path(args.resume)
    else:
        stamp = time.strftime("%Y%m%d_%H%M%S")
        out = Path(args.out) if args.out else None

    stopped_by = signal.SIGINT  # what a KeyboardInterrupt means unless SIGTERM's handler says

    def stop_on_sigterm(signum: int, frame: Any) -> None:  # a scheduler's stop: like Ctrl-C
        nonlocal stopped_by
        stopped_by = signal.SIGTERM
        stop_began()  # its lines may meet a closed pipe (`| tee`): dropped, the checkpoint is saved
        if not in_import_machinery(frame):  # (there the checks after the start and each iteration act)
            raise KeyboardInterrupt

    # SIGTERM ignored (nohup or a parent that ignores it): it stays ignored
    if signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
        stop_on_sigterm = signal.SIG_IGN  # type: ignore[assignment]
    previous_handler = signal.signal(signal.SIGTERM, stop_on_sigterm)
    claimed = out is None
    if out is None:  # made now, so that a run started in the same second takes another folder
        made = missing_folders("runs")  # before it is made: a failed start removes only its own folders
        out = claim_run_folder(f"runs/rllib_{args.game}_{stamp}")
        made.insert(0, out)
    else:
        made = missing_folders(out)  # (made with its parents once Ray runs)
    hold_run_folder(out)  # an existing folder: no other command may write it (a new one: once made)
    try:
        algo, metadata, history, done_before = _start(args, argv, env_config, out, stop_on_sigterm, made, claimed)
        if stopped_by is signal.SIGTERM:  # its KeyboardInterrupt was swallowed (raised in a finalizer?)
            algo.stop()
            raise KeyboardInterrupt
    except _StoppedInRayInit:
        # A half-started Ray crashes when shut down or at the interpreter's exit: leave at once,
        # as Ray's own handler meant to (its workers end with this process; its dashboard and
        # runtime-env agents notice within a minute or two and exit); the claimed default folder
        # (and a runs/ made for it) is removed: a --out is made only once Ray runs.
        if made:
            remove_if_empty(out, made)
        print("\ninterrupted while Ray started (SIGTERM): nothing was trained", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(128 + signal.SIGTERM)
    except KeyboardInterrupt:
        signal.signal(signal.SIGTERM, previous_handler)
        _abandon_start(out, made)
        print(f"\ninterrupted while starting: nothing was trained{'' if made else ' (the run is as it was)'}",
              file=sys.stderr)  # fmt: skip
        return out, 128 + stopped_by.value
    except Exception:  # e.g. Ray refused an option: no empty run folder stays behind
        signal.signal(signal.SIGTERM, previous_handler)
        _abandon_start(out, made)
        raise
    import ray

    saved_at = done_before if args.resume is not None else None  # the checkpoint's iteration in out/

    def refused(exc: WriteRefused, evaluation_next: bool = False) -> DominoError:  # one line, what is kept
        at = done_before + new_iterations if exc.swapped else saved_at  # (swapped: the new checkpoint is in place)
        left = args.iterations - (at - done_before) if at is not None else 0
        more = f"continue with: {rllib_resume_command(argv, out, left, launcher('train.rllib'))}"
        then = (more + " (it finishes the swap first)" * exc.swapped if left > 0 else finish_swap_command(out)
                if exc.swapped else None if at is not None else f"remove {out} (nothing in it can be resumed) and "
                "start the run again, or give another --out")  # fmt: skip
        # a save before the final evaluation: the run ends here, and no command it prints evaluates
        skipped = evaluation_next and at is not None and left == 0 and args.eval_rounds > 0
        return refusal_error(exc, out, at, then, "--out" if args.resume is None else "--resume",
                             skipped=skipped_evaluation(out, args, env_config) if skipped else None)  # fmt: skip

    def save(interrupted: bool = False) -> None:
        nonlocal saved_at
        metadata.update(
            iterations_done=done_before + new_iterations, history=history,
            interrupted=interrupted, wall_seconds=round(time.perf_counter() - start, 2),
        )  # fmt: skip
        with refused_as(out / f"{CHECKPOINT_DIR}.saving"):  # (pyarrow's error names no file)
            noted = save_checkpoint(algo, out, metadata)
        saved_at = done_before + new_iterations
        if noted is not None:  # it came while the new checkpoint replaced the old one: now
            signal.raise_signal(noted)

    new_iterations = 0
    time_before = float(history[-1].get("time_s", 0.0)) if history else 0.0
    bar = None
    if args.progress:
        from domino_env.train.progress import advance, progress_bar

        bar = progress_bar(total=args.iterations, unit="it", desc=f"rllib {args.game} {args.mode}", dynamic_ncols=True)
    start = time.perf_counter()
    interrupted, failed, refusal = False, None, None
    try:
        for i in range(args.iterations):
            result = algo.train()
            row = progress_row(result)
            row["time_s"] += time_before  # RLlib's time_total_s restarts at 0 in a resumed run
            history.append(row)
            new_iterations += 1
            with refused_as(out / "progress.jsonl"), open(out / "progress.jsonl", "a") as f:
                f.write(json.dumps(row) + "\n")
            if bar is not None:
                advance(bar, 1, steps=row["env_steps"], eps=row["episodes"], ret=_fmt(row["main_return_mean"]),
                        win=_fmt(row["main_win_rate"]), illegal=row["illegal_actions"])  # fmt: skip
            else:
                print(json.dumps(row), flush=True)
            if (i + 1) % args.checkpoint_every == 0:
                save()
            if stopped_by is signal.SIGTERM:  # as after _start: a SIGTERM whose exception was lost
                raise KeyboardInterrupt
            if args.time_limit is not None and time.perf_counter() - start >= args.time_limit:
                if i + 1 < args.iterations:  # (the run and its reader are told why it trained fewer)
                    metadata["time_limit_reached"] = f"{new_iterations} of {args.iterations} iterations"
                    print(f"--time-limit reached: {new_iterations} of {args.iterations} iterations trained",
                          file=sys.stderr, flush=True)  # fmt: skip
                break
    except KeyboardInterrupt:
        interrupted = True
        stop_began()  # (Ctrl-C also killed `| tee`: this line and the later ones are dropped, the save goes on)
        left = args.iterations - new_iterations  # 0: the signal came while the last iteration was saved
        hint = (f"continue with: {rllib_resume_command(argv, out, left, launcher('train.rllib'))}" if left
                else f"the run's {done_before + new_iterations} iterations")  # fmt: skip
        print(f"\ninterrupted: saving a checkpoint ({hint})", file=sys.stderr)
    except WriteRefused as exc:  # refused again if saved now (a full disk, a folder made read-only)
        refusal = refused(exc, evaluation_next=True)
        interrupted, failed = True, refusal
    except Exception as exc:  # a crash (RLlib's or ours): the iterations trained are kept, then it fails
        if no_main_step(exc):  # RLlib's UnboundLocalError: the flag checks cover one action per turn only
            exc = DominoError(f"iteration {done_before + new_iterations + 1}: {NO_MAIN_STEP} (it was {args.batch_size})")
        interrupted, failed = True, exc
        said = exc if first_line(exc) or exc.__cause__ is None else exc.__cause__  # RLlib re-raises env errors bare
        metadata["failed"] = f"{type(said).__name__}: {first_line(said)}"
        print(f"\ntraining failed ({metadata['failed']}): saving a checkpoint (continue with: "
              f"{rllib_resume_command(argv, out, args.iterations - new_iterations, launcher('train.rllib'))})",
              file=sys.stderr)  # fmt: skip
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
        if bar is not None:
            bar.close()
    try:
        if not interrupted:
            try:
                save()
            except KeyboardInterrupt as exc:  # a first signal while the final checkpoint was written: as in the loop
                interrupted = True
                stop_began()
                stopped_by = signal.SIGTERM if exc.args[:1] == ("SIGTERM",) else stopped_by
                print(f"\ninterrupted: saving a checkpoint (the run's {done_before + new_iterations} iterations)",
                      file=sys.stderr)  # fmt: skip
        if interrupted and refusal is None:
            save(interrupted=True)
    except WriteRefused as exc:
        interrupted, failed = True, refused(exc, evaluation_next=True)
    except KeyboardInterrupt as exc:  # out/ keeps the last whole checkpoint
        name = exc.args[0] if exc.args and exc.args[0] in ("SIGTERM", "SIGHUP") else "SIGINT"
        kept = f"{out / CHECKPOINT_DIR} is the one of iteration {saved_at}" if saved_at is not None else "no checkpoint was written"
        raise KeyboardInterrupt(name, f"{'a second signal' if interrupted else 'a signal'} while the checkpoint "
                                      f"was written; {kept}") from None  # fmt: skip
    trained_all = not interrupted or (failed is None and new_iterations == args.iterations)  # (or --time-limit)
    with stop_signals_held() as noted:  # the checkpoint is whole: a signal while Ray stops skips only the evaluation
        algo.stop()
        ray.shutdown()
    if failed is not None:
        raise failed
    if noted and not interrupted:
        interrupted, stopped_by = True, signal.Signals(noted[0])
    try:
        if interrupted and trained_all:  # a signal after the last iteration
            skip_evaluation(out, args, env_config, metadata, stopped_by.name, "after the last iteration", saved_at,
                            new_iterations)  # fmt: skip
        elif not interrupted and args.eval_rounds > 0:
            signal.signal(signal.SIGTERM, stop_on_sigterm)
            try:
                metadata["evaluation"] = evaluate_checkpoint(out, args, env_config)
                with refused_as(out / METADATA_FILE):
                    write_metadata(out, metadata)
            except KeyboardInterrupt:  # the checkpoint is saved: only the evaluation is missing
                interrupted = True
                skip_evaluation(out, args, env_config, metadata, stopped_by.name, "during the final evaluation",
                                saved_at, new_iterations)  # fmt: skip
            finally:
                signal.signal(signal.SIGTERM, previous_handler)
    except WriteRefused as exc:  # the checkpoint is whole: only the record of the run's end is missing
        raise refused(exc) from None
    total_illegal = sum(r["illegal_actions"] for r in history)
    so_far = f" ({done_before + new_iterations} in the run)" if done_before else ""
    print(f"{new_iterations} iteration{'s' * (new_iterations != 1)}{so_far}, "
          f"{history[-1]['env_steps'] if history else 0} env steps in the run, "
          f"{total_illegal} illegal actions; checkpoint {out / CHECKPOINT_DIR}; play it: "
          f"{evaluate_command(args, f'rllib:{out}')}")  # fmt: skip
    return out, 128 + stopped_by.value if interrupted else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``domino-rllib`` (``python -m domino_env.train.rllib``): the exit status, 0
    when done, 128 + the signal number (130 Ctrl-C, 143 SIGTERM) when a signal stopped training
    (after the checkpoint is saved), as ``domino-train``."""
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    from domino_env.train.interrupts import sigterm_as_interrupt

    # from the start: the flag checks load the opponents and find ray (about 1.5 s before _run
    # takes SIGTERM over)
    try:
        with sigterm_as_interrupt():
            return _run(argv)[1]
    except KeyboardInterrupt:
        # Ctrl-C while ray.rllib was imported (Ray not started): Ray's exit hook imports modules as
        # the process exits, which cleared Python's note of the KeyboardInterrupt (exit status 1,
        # where a shell loop needs death by SIGINT); with nothing started it has nothing to do
        if (worker := sys.modules.get("ray._private.worker")) and not worker.is_initialized():
            atexit.unregister(worker.shutdown)
        raise


if __name__ == "__main__":
    from domino_env.train.cli import launch

    launch("domino-rllib", main)
