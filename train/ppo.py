"""Train a MaskablePPO agent on Mexican Train against scripted opponents .

Command line (also the ``domino-train`` console script)::

    domino-train                     # defaults: about 9 min on a 2-core CPU
    domino-train --timesteps 2000000 --opponents greedy planner --out runs/big
    domino-train --help              # every option

One seat (drawn at random every episode) is the learner; the other seats are played by agents
from ``--opponents`` (``random``, ``greedy``, ``planner``, ``ppo:PATH``): with
``--opponent-mode mix`` (default) every opponent seat draws its agent from the list at every
episode; with ``--opponent-mode fixed`` the list gives the P-1 opponents in turn order after the
learner. ``--self-play P`` replaces each opponent seat, with probability P, by a frozen snapshot
of the learner (taken every ``--snapshot-freq`` steps, the last ``--max-snapshots`` kept).

``--game`` picks the game: ``mexican_train`` (default) or a line game ``block``, ``draw``,
``cuban`` (the preset of that name, ``dominoes/<game>-v0``; ``--players`` and ``--max-pip``
override it, the preset's set by default: double-6 for block / draw, double-9 for Cuban). A line
game's learner env is :func:`domino_env.wrappers.line_single_agent`'s adapter, its opponents come
from the line-game agent registry (``random``, ``greedy``, ``planner``, ``ppo:PATH``), evaluations
use ``domino_env.train.evaluate.evaluate(..., game=<game>)``, the observation spec is the line spec and the
scaling ``line-unit-v1`` (tiles / 10, rounds / 13, points / 100). With teams (Cuban: seats 0+2
against 1+3) the learner's **partner is an opponent seat**: it draws its agent from
``--opponents`` like the two opponents (with ``--opponent-mode fixed``, the second entry of the
list is the partner), and the learner's reward and win credit are its team's. The evaluation
ladder rows ``[ppo, X, X, X]`` thus put the model with an X partner against an X team. With
``--partner learner`` the learner plays both seats of its team instead (the adapter's ``team_play``;
``--opponent-mode fixed`` lists the 2 opponents) and the evaluations are ``[ppo, X, ppo, X]``. Line games
take ``--reward outcome`` (default there) or ``points``.

Reward (``--reward``): ``outcome`` (the env's zero-sum +1 / -1 shared), ``points`` (the env's
-points/100 at the round's end), or ``mixed`` (default): outcome + ``--pips-coef`` x (-points/100),
both given at the round's end (round episodes only).

Interrupting a run (Ctrl-C / SIGINT, SIGTERM, or SIGHUP: a closed terminal) stops it cleanly at
the next step: ``model.zip`` and ``metadata.json`` (status ``"interrupted"``) are saved, the exit
status is 128 + the signal number (SIGHUP stops it as SIGTERM: 143), and
``domino-train --resume OUT`` continues it. ``--init-from PATH`` starts from another model's weights (for example ``domino-bc``'s imitation of the planner) with this
command's hyperparameters. Every option is checked before any work starts
(:mod:`domino_env.train.ppo_args`).

The code is split by what it holds: :mod:`domino_env.train.learner_env` (the training env),
:mod:`domino_env.train.callbacks` (what runs during ``learn``: periodic evaluation, snapshots, signals),
:mod:`domino_env.train.ladder` (evaluation against the ladder and its tables), :mod:`domino_env.train.ppo_args` (the
command line and its checks), :mod:`domino_env.train.start_model` (the model a run starts from: new,
resumed or initialised from another), :mod:`domino_env.train.run_folder` (the run folder and its
metadata); this module puts them together.

Every run writes ``--out``: ``model.zip`` (final), ``best_model.zip`` (best mean win rate over the
evaluation ladder), ``metadata.json`` (env id and version, full rules, observation spec hash,
package version, the command, every argument, seed, timesteps, wall time, every evaluation),
``evaluations.json``, ``learning_curve.png``, ``final_evaluation.md`` and TensorBoard logs under
``tb/`` (``tensorboard --logdir OUT/tb``).
"""

from __future__ import annotations

import shlex
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import domino_env
from domino_env.agents.ppo import MODEL_FILE, PPOAgent
from domino_env.train.arg_types import MAX_ROLLOUT, MAX_SEED
from domino_env.train.evaluate import evaluate_command
from domino_env.train.folder_lock import releasing_run_folders
from domino_env.train.interrupts import (
    sigterm_as_interrupt,
    stop_signals_held,
    terminate_as_interrupt,
)
from domino_env.train.ladder import (
    LADDER,
    evaluate_vs_ladder,
    finish_run,
    print_summary,
    strip_tables,
    summary_markdown,
    summary_title,
)
from domino_env.train.learner_env import GAMES, REWARDS, LearnerEnv, action_masks_of, make_env_fn
from domino_env.train.ppo_args import (
    CheckedRun,
    build_parser,
    check_args,
    rules_from_args,
)
from domino_env.train.run_folder import (
    BEST_MODEL_FILE,
    EVALUATIONS_FILE,
    FINAL_EVALUATION_FILE,
    LEARNING_CURVE_FILE,
    RunFolder,
    claim_run_folder,
    clear_run_files,
    command_line,
    config_of,
    earlier_evaluations,
    env_metadata,
    launcher,
    missing_folders,
    remove_if_empty,
    resume_command,
)
from domino_env.train.start_model import (  # noqa: F401  (new_model re-exported)
    continued_seed,
    load_start_model,
    new_model,
    saved_counts,
)
from domino_env.train.vec_envs import close_vec_env, make_vec_env, usable_cores  # noqa: F401  (re-exported)

__all__ = [
    "BEST_MODEL_FILE", "GAMES", "LADDER", "REWARDS", "LearnerEnv", "action_masks_of", "build_parser",
    "evaluate_vs_ladder", "main", "make_env_fn", "rules_from_args", "summary_markdown", "train",
]  # fmt: skip


def _prepare(parser, args, checked: CheckedRun, vec_env, tb, n_envs: int, argv_list: list[str], out: Path, cores: int):
    """The model (:func:`~domino_env.train.start_model.load_start_model`) and the run folder with its first metadata:
    ``(model, started, folder, metadata)``."""
    model, started = load_start_model(parser, args, checked, vec_env, tb)
    if tb is None:  # SB3's default logger would make an empty SB3-<time> folder in the temp dir
        from stable_baselines3.common.logger import Logger

        model.set_logger(Logger(folder=None, output_formats=[]))
    resumed = started if args.resume else None
    if args.resume and model.batch_size > model.n_steps * n_envs:  # the model keeps its batch size
        vec_env.close()
        parser.error(f"--n-envs {n_envs}: the resumed model's --batch-size {model.batch_size} is larger than "
                     f"a rollout of its --n-steps {model.n_steps} x {n_envs} envs = {model.n_steps * n_envs} "
                     f"samples; give --n-envs {-(-model.batch_size // model.n_steps)} or more")  # fmt: skip
    # a resumed run must not replay the deals (and draws) of the run it continues: --seed again
    # would seed the envs as at step 0; the model's step count makes the stream this part's own
    train_seed = continued_seed(args.seed, resumed["timesteps"]) if resumed else args.seed
    if train_seed != args.seed:
        model.set_random_seed(train_seed)  # torch, the action space and the envs (at learn's reset)
    meta: dict[str, Any] = {
        **env_metadata(checked.rules, args.game, checked.env_kwargs, vec_env.action_space.n,
                      checked.env_cfg["policy_input"], checked.env_cfg["critic_input"]),
        "command": command_line("train.ppo", argv_list),
        "argv": argv_list,
        "args": vars(args),
        "seed": args.seed,
        "train_seed": train_seed,
        "eval_seed": eval_seed_of(vars(args)),
        "n_envs": n_envs,
        "vec_env": type(vec_env).__name__,
        "cpu_count": cores,
        "device": str(model.device),  # the learner's (--device auto: what it found)
        "resumed_from": resumed,
        "initialized_from": started if args.init_from else None,
        "status": "training",
    }
    if args.overwrite:  # checked: --out is not the folder --resume continues
        clear_run_files(out)
    folder = RunFolder(out, meta).create()
    return model, started, folder, meta


@releasing_run_folders
def run(argv: Sequence[str] | None = None) -> tuple[Path, str | None]:
    """Parse ``argv``, train, evaluate, save: ``(output folder, name of the signal that
    interrupted training or None)``.

    Raises:
        SystemExit: invalid options (status 2, one line naming the flag).
    """
    parser = build_parser()
    argv_list = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv_list)
    checked = check_args(parser, args)
    given = {a.split("=", 1)[0] for a in argv_list if a.startswith("--")}
    for flag, needs, used in (("--snapshot-freq", "--self-play above 0", args.self_play > 0),
                              ("--max-snapshots", "--self-play above 0", args.self_play > 0),
                              ("--eval-rounds", "--eval-freq above 0", args.eval_freq > 0)):  # fmt: skip
        if flag in given and not used:  # a setting that would silently do nothing
            parser.error(f"{flag} is only used with {needs}")

    import torch
    from stable_baselines3.common.utils import set_random_seed

    from domino_env.train.callbacks import Schedule, StopSignals, TrainingCallback
    from domino_env.train.start_model import self_play_problem

    game, rules = args.game, checked.rules
    p, n = rules["num_players"], rules["max_pip"]
    cores = usable_cores()
    n_envs = _envs_of(parser, args, checked, cores)
    if problem := self_play_problem(args, checked, n_envs):  # no snapshot within the run: self-play would do nothing
        parser.error(problem)
    if args.n_envs is None:  # the default follows the cores: the recorded command must not
        argv_list = [*argv_list, "--n-envs", str(n_envs)]
    torch.set_num_threads(args.torch_threads)
    eval_seed = eval_seed_of(vars(args))

    set_random_seed(args.seed)
    # until StopSignals takes over, SIGTERM stops the start as Ctrl-C does (its default killed us
    # at once: no line, the env workers' tracebacks, an empty run folder left behind)
    sigterm = signal.getsignal(signal.SIGTERM)
    if sigterm is not signal.SIG_IGN:
        signal.signal(signal.SIGTERM, terminate_as_interrupt)
    claimed = args.out is None  # the default folder is made now, so that a parallel run takes another
    made = missing_folders("runs") if claimed else []  # runs/ too, removed again if a failed start leaves it empty
    out = claim_run_folder(time.strftime("runs/ppo_%Y%m%d_%H%M%S")) if claimed else Path(args.out)
    if claimed and args.resume and not args.quiet:  # (a user expected the run's own folder)
        folder_of_model = checked.start_model.parent.resolve()
        releases = Path(domino_env.__file__).resolve().parents[1] / "checkpoints"  # the clone's released models
        where = ("its folder is one of the clone's released models, kept as they are" if releases in folder_of_model.parents
                 else f"--out {shlex.quote(str(checked.start_model.parent))} continues in the model's own")  # fmt: skip
        print(f"--resume: training continues in a new folder, {out} ({where})", file=sys.stderr, flush=True)
    tb = str(out / "tb") if args.tensorboard else None
    vec_env = None
    try:
        vec_env = make_vec_env(checked.env_cfg, n_envs, args.vec_env, args.seed)
        model, started, folder, meta = _prepare(parser, args, checked, vec_env, tb, n_envs, argv_list, out, cores)
    except BaseException:  # the env workers ignore SIGINT / SIGTERM: an error here left them (and us) hanging
        if vec_env is not None:
            close_vec_env(vec_env, aborted=True)
        if claimed:
            remove_if_empty(out, made)
        raise
    resumed = started if args.resume else None
    start = time.perf_counter()
    schedule = Schedule(
        rules=rules, game=game, episode=args.episode, eval_freq=args.eval_freq,
        eval_rounds=args.eval_rounds, eval_opponents=list(args.eval_opponents), eval_seed=eval_seed,
        self_play=args.self_play, snapshot_freq=args.snapshot_freq, max_snapshots=args.max_snapshots,
        start=start, deadline=start + 60 * args.time_limit if args.time_limit else None,
        time_limit=args.time_limit, verbose=not args.quiet, partner=args.partner, progress=args.progress,
    )  # fmt: skip
    aborted = failed = False
    rollout = model.n_steps * n_envs  # SB3 trains whole rollouts: ask for (and show) what it does
    whole = -(-args.timesteps // rollout) * rollout
    try:
        with StopSignals() as stop:
            if not args.quiet:  # after the handlers are in place: from here a signal is a clean stop
                print(_start_line(args, whole, rollout, f"{n_envs} x {type(vec_env).__name__}", out, resumed),
                      file=sys.stderr, flush=True)  # fmt: skip
            callback = TrainingCallback(schedule, folder, vec_env, stop)
            if resumed and checked.start_model.parent.resolve() == out.resolve():
                old = checked.start_metadata
                # comparable scores: the same opponents, rounds, seed and seating (--partner)
                was = old.get("args", {})
                ladder = (list(args.eval_opponents), args.eval_rounds, eval_seed, args.partner)
                earlier = earlier_evaluations(out, old)
                if not callback.carry_over(earlier, ladder == (  # (a run stopped hard has no eval_seed saved)
                    was.get("eval_opponents"), was.get("eval_rounds"), eval_seed_of(was),
                    was.get("partner", "opponents"))) and earlier and args.eval_freq and not args.quiet:  # fmt: skip
                    print("--resume: the run's earlier evaluations were made on another ladder (opponents, "
                          "rounds, seed or seating): they stay in evaluations.json, and this run's first "
                          "evaluation makes the new best_model.zip", file=sys.stderr, flush=True)  # fmt: skip
            try:
                model.learn(
                    total_timesteps=whole,  # the same steps as args.timesteps; the bar's total is right
                    callback=callback,  # it draws the bar (on stderr; SB3's own draws on stdout)
                    reset_num_timesteps=resumed is None,
                    tb_log_name="ppo",
                )
            finally:
                callback.close_bar()
            # a signal from here on is still a clean stop: the model is saved first
            train_seconds = time.perf_counter() - start
            played = int(model.num_timesteps)
            if callback.trained_steps < played:  # stopped inside a rollout: its steps were never
                model.num_timesteps = callback.trained_steps  # trained on, so a resume counts from here
            steps = int(model.num_timesteps)
            before = (resumed or {}).get("timesteps", 0)  # the resumed model's own steps
            this_run = steps - before
            history = callback.history
            # Every asked step trained: a stop request after the last step (during the last PPO
            # update, the evaluation due there, or this save) stopped nothing, so the run is
            # trained, and only the final evaluation is skipped (none was asked: the run is done).
            complete = this_run >= whole
            stopped = None if complete else callback.stopped
            if stopped and callback.stopped_at > steps:  # inside a rollout: what the model holds, as printed
                stopped += (f" (the model has the {steps} of its last whole rollout)" if steps else
                            " (before its first whole rollout: the model is untrained)")  # fmt: skip
            folder.save_model(model)
            if not (out / BEST_MODEL_FILE).exists():
                folder.save_model(model, BEST_MODEL_FILE)
            folder.write_metadata(
                status="interrupted" if stop.received and not complete else "trained",
                timesteps=steps,
                timesteps_trained=steps,
                timesteps_played=played,
                timesteps_this_run=this_run,
                stopped_early=stopped,
                train_wall_seconds=round(train_seconds, 1),
                steps_per_second=round((played - before) / max(train_seconds, 1e-9), 1),
                evaluations=strip_tables(history),
                best_model={"timesteps": next((e["timesteps"] for e in reversed(history) if e.get("best")), steps),
                            "file": BEST_MODEL_FILE},
                eval_seed=eval_seed,
            )  # fmt: skip
            interrupted = None if complete and not args.final_eval_rounds else stop.received
    except KeyboardInterrupt:  # a second signal: aborted without saving this step's model
        aborted = True
        if folder.metadata.get("status") == "training":
            folder.write_metadata(status="aborted")
        raise
    except BaseException:  # any error may have cut a step in two: the graceful close would wait forever
        failed = True
        raise
    finally:
        close_vec_env(vec_env, aborted or failed)
        if sigterm is not signal.SIG_IGN:
            signal.signal(signal.SIGTERM, sigterm)

    if interrupted and complete:  # as a signal during the final evaluation
        (out / FINAL_EVALUATION_FILE).unlink(missing_ok=True)  # an earlier model's: never beside this one
        print(f"{interrupted} after the last training step: the final evaluation is skipped; the trained model "
              f"is saved: {out / MODEL_FILE} (metadata status trained); evaluate it with "
              f"{evaluate_command(args, f'ppo:{out}')}", file=sys.stderr, flush=True)  # fmt: skip
        _plot(args, history, out, rules, game)
        return out, interrupted
    if interrupted:  # the hint first: another Ctrl-C during the (slow) plot must not lose it
        dropped = ("" if played <= steps else f" (the model has the {steps} of its last whole rollout)" if steps
                   else " (before its first whole rollout: the model is untrained)")
        if callback.skipped_eval is not None:  # as metadata.json's stopped_early says
            dropped += f" (the evaluation due at {callback.skipped_eval} steps is not made)"
        print(f"training interrupted by {interrupted} at {played} steps{dropped}; saved {out / MODEL_FILE} and "
              f"{out / 'metadata.json'} (status interrupted); continue with: "
              f"{resume_command(argv_list, out, args.timesteps - this_run, launcher('train.ppo'))}",
              file=sys.stderr, flush=True)  # fmt: skip
        _plot(args, history, out, rules, game)
        return out, interrupted

    if stopped and this_run <= 0:  # the same command would stop at the same place again
        print(f"training stopped early: {callback.stopped}, before its first whole rollout "
              f"({model.n_steps} x {model.n_envs} steps): nothing was trained; give a longer --time-limit or a "
              "smaller --n-steps", file=sys.stderr, flush=True)  # fmt: skip
    elif stopped and not args.quiet:  # the time limit: say so, and how to go on
        print(f"training stopped early: {stopped}; saved {out / MODEL_FILE}; continue with: "
              f"{resume_command(argv_list, out, args.timesteps - this_run, launcher('train.ppo'))}", flush=True)  # fmt: skip
    agent = PPOAgent.from_policy(model.policy, p, n, game, config=config_of(rules, game), name="ppo")
    workers = args.eval_workers or max(1, min(cores, 4))
    # SIGTERM (e.g. from timeout) during the final evaluation ends it as Ctrl-C does
    previous = signal.signal(signal.SIGTERM, terminate_as_interrupt)
    try:
        final = finish_run(folder, agent, args, rules, game, eval_seed, workers, start)
    except KeyboardInterrupt:  # training is done and saved: only the final evaluation is lost
        print(f"final evaluation interrupted; the trained model is saved: {out / MODEL_FILE} (metadata "
              f"status trained); evaluate it with {evaluate_command(args, f'ppo:{out}')}", file=sys.stderr, flush=True)
        _plot(args, history, out, rules, game)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
    drawn = _plot(args, history, out, rules, game)
    if final and not args.quiet:
        # a resumed run's wall time is this run's: say which steps it covers
        trained = f"{steps} steps, {this_run} of them in this run," if resumed else f"{steps} steps"
        print_summary(final, p, f"{summary_title(out / MODEL_FILE, final, p)} | {trained} in "
                      f"{train_seconds / 60:.1f} min")  # fmt: skip
    if not args.quiet:  # every file this run wrote (evaluations.json, final_evaluation.md too)
        wrote = {EVALUATIONS_FILE: bool(history), FINAL_EVALUATION_FILE: bool(final),
                 LEARNING_CURVE_FILE: drawn}  # fmt: skip
        saved = [str(out / f) for f in (MODEL_FILE, BEST_MODEL_FILE, "metadata.json", *wrote) if wrote.get(f, True)]
        print(f"saved {', '.join(saved)}" + (f"; tensorboard --logdir {out / 'tb'}" if args.tensorboard else ""))
    return out, None


def eval_seed_of(run_args: dict[str, Any]) -> int | None:
    """The evaluation seed of a run's arguments (``metadata["args"]``): ``--eval-seed``, else
    ``--seed`` + 1000; None when neither is there."""
    if run_args.get("eval_seed") is not None:
        return run_args["eval_seed"]
    return run_args["seed"] + 1000 if isinstance(run_args.get("seed"), int) else None


def _envs_of(parser, args, checked: CheckedRun, cores: int) -> int:
    """How many training envs: ``--n-envs``, else a resumed run's own (the size of its rollouts),
    else the usable cores (at most 8). Too many for the machine or the rollout limit, env seeds
    (``--seed`` + i; not a resumed model's with steps, :func:`continued_seed`) past 2**32 - 1, or
    fewer samples a rollout than ``--batch-size``, is a parser error."""
    from domino_env.train.vec_envs import process_count_problem

    run_envs = (checked.start_metadata or {}).get("n_envs") if args.resume else None
    if not (isinstance(run_envs, int) and 1 <= run_envs <= 256):  # (a run without the field: the cores)
        run_envs = None
    n_envs = args.n_envs or run_envs or max(1, min(cores, 8))
    if problem := process_count_problem(n_envs, args.vec_env, cores):  # (a resumed run's too: a larger machine's)
        parser.error(problem)
    # env i is seeded --seed + i (make_vec_env): the limit of every seed; a resumed model with steps
    # seeds them from continued_seed instead, always below 2**31
    resumed_steps = saved_counts(checked.start_model).get("num_timesteps", 0) if args.resume else 0
    if resumed_steps <= 0 and args.seed + n_envs - 1 > MAX_SEED:
        given = "--n-envs" if args.n_envs else "the resumed run's --n-envs:" if run_envs else "the --n-envs default here:"
        parser.error(f"--seed {args.seed}: env i of the {n_envs} training envs ({given} {n_envs}) is seeded --seed + i, "
                     f"up to {args.seed + n_envs - 1:,}, above 2**32 - 1; give a --seed up to "
                     f"{MAX_SEED - n_envs + 1:,} with --n-envs {n_envs}")  # fmt: skip
    if args.n_steps * n_envs > MAX_ROLLOUT:
        parser.error(f"--n-steps {args.n_steps} x {n_envs} envs = {args.n_steps * n_envs} samples a rollout; "
                     f"give at most {MAX_ROLLOUT} (--n-steps x --n-envs)")  # fmt: skip
    if not args.resume and args.batch_size > args.n_steps * n_envs:  # (--resume: the model's own)
        parser.error(f"--batch-size {args.batch_size}: larger than a rollout, --n-steps {args.n_steps} x "
                     f"{n_envs} envs = {args.n_steps * n_envs} samples; give at most that (or more "
                     f"--n-steps / --n-envs)")  # fmt: skip
    return n_envs


def _start_line(args, whole: int, rollout: int, envs: str, out: Path, resumed: dict[str, Any] | None = None) -> str:
    """The line that says what is trained, and where to: the steps (and, resumed, the model and the
    steps it had), ``envs`` (``"2 x SubprocVecEnv"``), the opponents, the reward and every option
    away from its default that changes the training."""
    extras = [text for on, text in (
        (args.partner == "learner", "the learner as its own partner"),
        (args.self_play > 0, f"self-play {args.self_play:g}"),
        (args.reward_baseline is not None, f"reward baseline {args.reward_baseline}"),
        (args.critic_input != "observation", f"critic input {args.critic_input}"),
        (args.policy == "action-scores" and args.action_features != "v1", f"action features {args.action_features}"),
    ) if on]  # fmt: skip
    rounded = f" ({whole} in whole rollouts of {rollout})" if whole != args.timesteps else ""
    if resumed:
        rounded += f", resuming {resumed['path']} after its {resumed['timesteps']} steps"
    return (f"training {args.timesteps} steps{rounded}, {envs}, opponents {args.opponents} ({args.opponent_mode}), "
            f"reward {args.reward}" + "".join(f", {t}" for t in extras) + f" -> {out}")


def _plot(args, history, out: Path, rules: dict[str, Any], game: str) -> bool:
    """Draw ``learning_curve.png`` with SIGINT / SIGTERM held (noted): a signal here (a second
    Ctrl-C after an interrupted run's save) raised inside the import of matplotlib's compiled
    modules and crashed Python (a traceback, "ImportError: initialization failed", "Fatal Python
    error", exit 134). A signal while matplotlib is imported skips the drawing; one while it draws
    (under a second) waits for the file; either then stops the command with one line, its
    ``KeyboardInterrupt(name, detail)`` (:func:`~domino_env.train.cli.launch`). Returns whether it
    drew: not with ``--no-plot``, without evaluations, or (one line on stderr) with evaluations the
    curve cannot draw (:func:`~domino_env.train.plots.curve_fault`)."""
    if not (args.plot and history):
        return False
    from domino_env.train.plots import curve_fault

    fault = curve_fault(history)  # a resumed run's hand-edited evaluations.json: one line, not a traceback
    if fault:
        print(f"{out / LEARNING_CURVE_FILE} not drawn: the run's evaluations ({EVALUATIONS_FILE}) cannot be drawn: "
              f"{fault}", file=sys.stderr, flush=True)  # fmt: skip
        return False
    name, drawn = (args.preset if game == "mexican_train" else game), False
    with stop_signals_held() as noted:
        from domino_env.train.plots import plot_learning_curve, pyplot

        pyplot()  # whole: its compiled modules' initialisation must not be cut
        if not noted:
            plot_learning_curve(history, out / LEARNING_CURVE_FILE,
                                title=f"MaskablePPO, {rules['num_players']} players, double-{rules['max_pip']}, {name}")  # fmt: skip
            drawn = True
    if noted:
        from domino_env.train.cli import path_word

        what = (f"{out / LEARNING_CURVE_FILE} is written" if drawn else f"{out / LEARNING_CURVE_FILE} not drawn; draw it "
                f"with: python -m domino_env.train.plots {shlex.quote(path_word(out))}")  # fmt: skip
        raise KeyboardInterrupt(signal.Signals(noted[0]).name, f"a signal while the learning curve was drawn: {what}")
    return drawn


def train(argv: Sequence[str] | None = None) -> Path:
    """Parse ``argv``, train, evaluate, save; return the output folder (see :func:`run`)."""
    return run(argv)[0]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``domino-train`` (``python -m domino_env.train.ppo``): returns the exit status, 0 when
    done, 128 + the signal number when a signal interrupted training (the run is saved and
    resumable)."""
    with sigterm_as_interrupt():  # from the start: the imports, checks and run folder take about a second
        _, interrupted = run(argv)
    return 128 + signal.Signals[interrupted].value if interrupted else 0


if __name__ == "__main__":  # through train.cli: a missing extra or a bad file is one line
    from domino_env.train.cli import launch

    launch("domino-train", main)
