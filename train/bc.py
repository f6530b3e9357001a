"""Imitation warm start: behaviour cloning of a scripted expert (the planner) into the MaskablePPO
policy network, optionally with DAgger-style relabelling on the learner's own states.

Command line::

    domino-bc                                           # planner on the default rules
    domino-bc --samples 200000 --dagger-iters 2 --out runs/bc
    domino-train --init-from runs/bc --out runs/bc_ppo  # PPO fine-tuning from the clone
    domino-bc --help                                    # every option

1. **Dataset** (:func:`collect`): the learner's seat (drawn per episode, as in ``domino_env.train.ppo``)
   plays ``--expert`` (default ``planner``) against ``--opponents`` (default ``greedy planner``,
   drawn per seat per episode) through the training env (:class:`domino_env.train.learner_env.LearnerEnv`).
   Every learner decision is a sample: the raw observation (int16), the action mask (bit-packed),
   the expert's action, and the discounted return to go of the training reward (``--reward``,
   ``--gamma``) for the value head.
2. **Cloning** (:func:`domino_env.train.bc_fit.fit`): masked cross-entropy of the policy's action
   distribution (illegal actions masked out, as MaskablePPO does) on the expert's actions, plus ``--vf-coef`` x the
   value head's squared error on the returns, so PPO fine-tuning starts with a critic. A held-out
   ``--val-fraction`` of the episodes gives the agreement with the expert.
3. **DAgger** (``--dagger-iters K``): K times, the clone plays the learner's seat (the expert
   only with probability ``--dagger-beta``) for ``--dagger-samples`` decisions, the expert labels
   each of those states, the samples join the dataset and the clone is trained further.
4. **Fine-tuning a model** (``--init-from PATH``): the clone starts from a trained model (its
   ``--policy``: ``mlp`` or ``action-scores``); with ``--samples 0`` the DAgger rounds, played by
   that model, are the whole dataset, and ``--kl-coef`` keeps the clone near the model. A slow
   expert (``search``) collects in ``--workers`` processes; every DAgger round's labelled
   decisions are kept in ``OUT/dagger_samples.npz`` (a dataset file ``--dataset`` reads).

The output folder is a normal ``domino_env.train.ppo`` model folder: ``model.zip`` (a ``MaskablePPO`` with
``domino_env.train.ppo``'s default hyperparameters, so ``--resume`` works, ``--init-from`` takes new ones),
``best_model.zip`` (the same model), ``metadata.json`` (command, arguments, dataset size,
per-epoch losses and expert agreement, evaluation), ``final_evaluation.md``. It loads as
``ppo:OUT`` everywhere. The expert dataset is written only to ``--dataset PATH`` (``.npz``; reused
when it exists and matches the rules), the DAgger rounds' decisions to ``OUT/dagger_samples.npz``;
keep both out of the repository (``runs/`` is ignored).

SIGINT / SIGTERM (and SIGHUP, a closed terminal, as SIGTERM): during cloning, the model so far is saved (status ``"interrupted"``); during
collection, the samples so far are saved to ``--dataset`` (when given and not empty), marked as an
interrupted collection, and no model is written. The same command continues it: it collects the
missing decisions (from deals of their own, :func:`continuation_seed`) into the same file; with
``--samples`` at most their number it clones them as they are.
"""

from __future__ import annotations

import argparse
import copy
import os
import shlex
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from domino_env.agents.base import make_agent
from domino_env.agents.ppo import MODEL_FILE, PPOAgent, read_metadata, spec_for
from domino_env.train.arg_types import NON_NEGATIVE, PER_CPU, POSITIVE, SEED, int_at_least, real
from domino_env.train.bc_data import (  # noqa: F401 (re-exported: domino_env.train.bc.collect etc.)
    DATASET_KEYS,
    collect,
    collect_parallel,
    concat,
    dagger_seed_problem,
    dataset_problem,
    held_out,
    interrupted_of,
    load_dataset,
    save_dataset,
)
from domino_env.train.bc_fit import fit, on_policy_agreement  # noqa: F401 (re-exported)
from domino_env.train.cli import load_failure
from domino_env.train.evaluate import evaluate_command, rule_flags
from domino_env.train.folder_lock import releasing_run_folders
from domino_env.train.interrupts import aborts_also_say
from domino_env.train.ladder import (
    finish_run,
    print_summary,
    summary_title,
)
from domino_env.train.learner_env import LearnerEnv
from domino_env.train.ppo_args import (
    ArgumentParser,
    DefaultsHelpFormatter,
    add_evaluation_options,
    add_game_options,
    add_opponent_options,
    add_policy_options,
    check_agents,
    check_args,
)
from domino_env.train.ppo_args import build_parser as ppo_parser
from domino_env.train.run_folder import (
    BEST_MODEL_FILE,
    DAGGER_SAMPLES_FILE,
    RUN_FILES,
    RunFolder,
    check_overwrite_keeps,
    claim_run_folder,
    clear_run_files,
    clone_on_command,
    command_line,
    config_of,
    env_metadata,
    launcher,
    make_run_folder,
    missing_folders,
    overwrite_note,
    removed_if_left_empty,
)
from domino_env.train.start_model import resolve_policy


# ---------------------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="domino-bc",
        description="Behaviour cloning of a scripted expert (default: the planner) into a MaskablePPO "
        "policy (masked cross-entropy), optionally with DAgger relabelling; writes a domino-train model "
        "folder (ppo:OUT; fine-tune with domino-train --init-from OUT or --resume OUT).",
        formatter_class=DefaultsHelpFormatter,
    )
    add_game_options(parser)
    add_opponent_options(parser, self_play=False)
    d = parser.add_argument_group("dataset")
    d.add_argument("--expert", default="planner", metavar="AGENT", help="the agent imitated")
    d.add_argument("--samples", type=NON_NEGATIVE, default=100_000,
                   help="expert decisions to record, in whole episodes (the last one is finished: a few more); 0, with "
                   "--init-from: none (the DAgger rounds, played by the clone, make the whole dataset)")
    d.add_argument("--workers", type=PER_CPU, default=1,
                   help="processes that collect the expert's and DAgger decisions (each its own env and seed; "
                   "the same --seed and --workers give the same dataset)")
    d.add_argument("--dataset", default=None, metavar="PATH",
                   help="dataset file (.npz): loaded when it exists (same rules, expert, opponents, reward), "
                   "else the expert dataset is written there (missing folders are created); default: not saved. Never commit it")
    d.add_argument("--dagger-iters", type=NON_NEGATIVE, default=0,
                   help="DAgger rounds: the clone plays, the expert labels its states, the clone trains further")
    # None: not given (refused without --dagger-iters), then filled with the default of the help
    d.add_argument("--dagger-samples", type=POSITIVE, default=None, help="decisions per DAgger round, in whole episodes (default: 50000)")
    d.add_argument("--dagger-beta", type=real(0.0, 1.0), default=None,
                   help="probability that the expert's action is played at a DAgger decision (default: 0.0)")
    d.add_argument("--dagger-epochs", type=POSITIVE, default=None,
                   help="epochs over the aggregated dataset after each DAgger round (default: --epochs)")
    c = parser.add_argument_group("cloning")
    c.add_argument("--policy", default=argparse.SUPPRESS, choices=("mlp", "action-scores"),
                   help="the clone's network (default: the --init-from model's, else mlp): mlp, one MLP from "
                   "the observation to every action's logit; action-scores, the domino-train policy that "
                   "scores each legal action from its features (which include the planner's move, so it "
                   "is meant for another expert, e.g. search, or for fine-tuning with --init-from)")
    c.add_argument("--init-from", default=None, metavar="PATH",
                   help="start the clone from this model (a domino-train / domino-bc folder or .zip for "
                   "the same rules; --policy, --net-arch and --activation default to the model's, others are "
                   "refused)")
    c.add_argument("--kl-coef", type=real(0.0), default=0.0,
                   help="with --init-from: weight of KL(start model || clone) over the legal actions in "
                   "the loss, which keeps the clone near the model it started from")
    add_policy_options(parser, c, policy=False, start="--init-from")
    c.add_argument("--epochs", type=POSITIVE, default=10, help="passes over the dataset")
    c.add_argument("--batch-size", type=int_at_least(2), default=512, help="minibatch size")
    c.add_argument("--learning-rate", type=real(0.0, low_open=True), default=1e-3, help="Adam learning rate")
    c.add_argument("--vf-coef", type=real(0.0), default=0.5, help="weight of the value head's squared error")
    c.add_argument("--gamma", type=real(0.0, 1.0, low_open=True), default=0.995,
                   help="discount of the value targets (as domino-train)")
    c.add_argument("--val-fraction", type=real(0.0, 1.0, high_open=True), default=0.05,
                   help="share of the episodes held out to measure agreement with the expert")
    c.add_argument("--seed", type=SEED, default=0, help="seed of the envs, torch and the evaluations")
    e = parser.add_argument_group("evaluation and output")
    e.add_argument("--out", default=None,
                   help="output folder (default: runs/bc_<date>_<time>); an existing non-empty one is "
                   "refused unless --overwrite is given")
    e.add_argument("--overwrite", action="store_true",
                   help="reuse a non-empty --out: delete its run files (models, metadata, evaluations, dagger_samples.npz) "
                   "before collecting")
    add_evaluation_options(parser, e)
    e.set_defaults(final_eval_rounds=400)
    e.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True, help="progress bars")
    e.add_argument("--quiet", action="store_true", help="no progress lines, no summary table")
    return parser  # fmt: skip


def ppo_hyperparameters(args: argparse.Namespace) -> argparse.Namespace:
    """``domino_env.train.ppo``'s default options with this command's network, seed and gamma: the
    hyperparameters saved in the clone's ``model.zip`` (what ``--resume`` continues with)."""
    ppo = ppo_parser().parse_args(["--policy", getattr(args, "policy", "mlp")])
    for name in ("net_arch", "activation", "seed", "gamma", "game", "reward", "pips_coef", "action_features"):
        setattr(ppo, name, getattr(args, name, None))
    resolve_policy(ppo)  # the network defaults where args left them open
    return ppo


def epochs_done(log: list[dict[str, Any]], desc: str, epochs: int) -> str:
    """Where a fit ``desc`` stands (``stopped_early``): ``"cloning, after 2 of 10 epochs"``."""
    return f"{desc}, after {sum(entry['phase'] == desc for entry in log)} of {epochs} epochs"


def dagger_note(dagger: dict[str, np.ndarray] | None, out: Path, rounds: int) -> str:
    """What the line of an interrupted run says of the DAgger decisions it kept (none: nothing):
    the commands it prints do not read them, and no command continues the rounds."""
    if dagger is None:
        return ""
    return (f"; this run's {len(dagger['actions'])} DAgger decisions so far are kept in {out / DAGGER_SAMPLES_FILE} "
            f"(a dataset file), which neither command reads: cloning on plays its {rounds} DAgger round(s) again")


def continuation_seed(seed: int, have: int) -> int:
    """The env seed that continues an interrupted collection of ``have`` decisions made with
    ``--seed seed``: deals of their own (a SeedSequence of three words, where the workers' are of
    two), so the continued dataset repeats none of the first part's episodes. It is not the
    dataset an uninterrupted collection makes, but the same file and command give the same one."""
    return int(np.random.SeedSequence([seed, 17, have]).generate_state(1)[0] >> 1)


@releasing_run_folders
def run(argv: Sequence[str] | None = None) -> tuple[Path | None, str | None]:
    """Parse ``argv``, collect, clone, evaluate, save: ``(output folder or None, name of the
    signal that interrupted it or None)``.

    Raises:
        SystemExit: invalid options (status 2, one line naming the flag).
    """
    parser = build_parser()
    argv_list = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv_list)
    if not hasattr(args, "policy"):  # the start model's, else the flat MLP
        args.policy = None
    resolve_policy(args, default_policy="mlp")  # also --net-arch / --activation
    if getattr(args, "action_features", None) == "v3":  # only --init-from can bring it
        parser.error(f"--init-from {args.init_from}: the model reads action features v3 (a search over the "
                     "public history at each decision), which domino-bc's datasets do not hold")  # fmt: skip
    given = [f"--dagger-{k}" for k in ("samples", "beta", "epochs") if getattr(args, f"dagger_{k}") is not None]
    if given and not args.dagger_iters:
        parser.error(f"{given[0]}: has no effect without --dagger-iters (the DAgger rounds it sets)")
    args.dagger_samples = 50_000 if args.dagger_samples is None else args.dagger_samples
    args.dagger_beta = 0.0 if args.dagger_beta is None else args.dagger_beta
    if args.samples == 0 and not args.init_from:
        parser.error("--samples 0: needs --init-from (a model to play the DAgger rounds)")
    if args.samples == 0 and not args.dagger_iters:
        parser.error("--samples 0: needs --dagger-iters (with no expert dataset the DAgger rounds are the data)")
    if args.samples == 0 and args.dataset:
        parser.error("--dataset: holds the expert dataset, and --samples 0 records none")
    if args.kl_coef > 0 and not args.init_from:
        parser.error("--kl-coef: needs --init-from (the model the clone is kept near)")
    if args.init_from:  # a critic with the hidden tiles needs inputs the expert dataset lacks
        try:
            had = (read_metadata(args.init_from)[1].get("args") or {}).get("critic_input") or "observation"
        except (OSError, ValueError):  # check_args names what is wrong with the file
            had = "observation"
        if had != "observation":
            parser.error(f"--init-from {args.init_from}: the model was trained with --critic-input {had}; "
                         "domino-bc fine-tunes models whose critic reads the observation (the default)")
    # the shared checks (rules, reward, --opponents, --eval-opponents, --init-from, --out) through train.ppo's
    checks = argparse.Namespace(**{**vars(ppo_hyperparameters(args)), **vars(args), "reward": args.reward,
                                   "self_play": 0.0, "resume": None, "tensorboard": False,
                                   "out_may_hold": args.dataset})  # fmt: skip (no tb/ here; an --out holding only --dataset is new)
    checked = check_args(parser, checks, can_resume=False)
    args.reward, args.pips_coef = checks.reward, checks.pips_coef
    if problem := dagger_seed_problem(args.seed, args.dagger_iters):  # (after the evaluations' seed, --seed + 1000)
        parser.error(problem)
    rules, game = checked.rules, args.game
    config = config_of(rules, game)
    check_agents(parser, "--expert", [args.expert], config)
    check_overwrite_keeps(parser, args, {"--expert": args.expert})
    p, n = rules["num_players"], rules["max_pip"]
    fingerprint = {"rules": rules, "episode": args.episode, "expert": args.expert, "opponents": args.opponents,
                   "opponent_mode": args.opponent_mode, "reward": args.reward, "pips_coef": args.pips_coef,
                   "gamma": args.gamma, "observation_spec_hash": spec_for(p, n, game, config).hash()}  # fmt: skip
    dataset = Path(args.dataset) if args.dataset else None
    out = Path(args.out or time.strftime("runs/bc_%Y%m%d_%H%M%S"))
    if dataset is not None and dataset.name in RUN_FILES and dataset.parent.resolve() == out.resolve():
        # --overwrite would delete it, a DAgger round rewrite it with its own samples only
        parser.error(f"--dataset {dataset}: is the run file {dataset.name} of --out {out}, which this run "
                     "replaces; copy it out of the folder (or give another --out) to reuse it")  # fmt: skip
    if args.dataset is not None and (problem := dataset_problem(args.dataset)):  # fail now, not after the collection
        parser.error(f"--dataset {args.dataset}: {problem}" if args.dataset.strip() else f"--dataset: {problem}")
    data, missing, asked = None, 0, None
    env = LearnerEnv(**checked.env_cfg)
    num_actions = int(env.action_space.n)
    if dataset is not None and dataset.exists():
        try:  # its arrays too: a file whose arrays disagree failed with a traceback in the cloning
            data = load_dataset(dataset, fingerprint, len(env.scale), num_actions)
        except ValueError as exc:
            parser.error(f"--dataset {dataset}: {exc}")
        have, asked = len(data["actions"]), interrupted_of(dataset)
        # an interrupted collection is continued up to --samples, never cloned as if it were complete
        missing = args.samples - have if asked is not None and args.samples > have else 0

    import torch
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv

    from domino_env.train.callbacks import StopSignals
    from domino_env.train.learner_env import make_env_fn
    from domino_env.train.start_model import new_model

    torch.set_num_threads(args.torch_threads)
    set_random_seed(args.seed)
    eval_seed = args.eval_seed if args.eval_seed is not None else args.seed + 1000
    verbose = not args.quiet
    progress = args.progress and verbose
    expert = make_agent(args.expert, config)
    venv = DummyVecEnv([make_env_fn(checked.env_cfg)])
    model = new_model(ppo_hyperparameters(args), venv)
    anchor = None
    if args.init_from:
        from sb3_contrib import MaskablePPO

        try:
            source = MaskablePPO.load(checked.start_model, device="cpu")
            model.policy.load_state_dict(source.policy.state_dict())
        except Exception as exc:  # a corrupt or foreign zip: one line, not a traceback
            venv.close()
            parser.error(f"--init-from {args.init_from}: cannot load {checked.start_model}: {load_failure(exc)}")
        if args.kl_coef > 0:
            anchor = copy.deepcopy(model.policy).eval()
    scale = env.scale
    # the network input of each raw observation (action features for --policy action-scores)
    policy_input = env.policy_input if args.policy == "action-scores" else None
    cloning = {"policy_input": policy_input, "anchor": anchor, "kl_coef": args.kl_coef}
    start = time.perf_counter()
    log: list[dict[str, Any]] = []
    phases: list[dict[str, Any]] = []
    ending = "stopping at the end of the episodes being played"
    collecting = (f"{ending}, then saving the samples so far to {dataset} (no model: nothing is fitted yet)"
                  if dataset else f"{ending}; no model is written (nothing is fitted yet)")  # fmt: skip
    fitting = "stopping after this minibatch, then saving the model so far"
    # after every check and load: a refused command deletes nothing (an abort from here on names what is gone)
    removed = clear_run_files(out) if args.overwrite else []
    again = overwrite_note(out, removed, command_line("train.bc", argv_list))
    if args.out is None:  # made now, after every check and load: a run started in the same second takes another
        made = missing_folders(out.parent)  # runs/, removed again if left empty
        out = claim_run_folder(str(out))
    else:  # made and held before the collection: a second command given this --out is refused now, not at the end
        made = make_run_folder(out)
    relabelling = f"{ending}, then saving the model so far and this run's DAgger samples ({out / DAGGER_SAMPLES_FILE})"
    # a stop while collecting writes no model: a claimed default folder is not left behind empty
    with aborts_also_say(again), removed_if_left_empty(out, claimed=args.out is None or bool(made), made=made), \
            StopSignals(collecting) as stop:  # fmt: skip
        if data is None and args.samples > 0:
            data = collect_parallel(checked.env_cfg, expert, args.samples, args.seed, args.gamma, args.workers,
                                    progress=progress, stop=stop)  # fmt: skip
            if dataset is not None and len(data["actions"]):  # an empty one would only be in the way
                save_dataset(dataset, data, fingerprint, args.samples if stop.received else None)
            phases.append({"phase": "expert", "samples": int(len(data["actions"])),
                           "seconds": round(time.perf_counter() - start, 1)})  # fmt: skip
        elif missing:
            have = len(data["actions"])
            if verbose:
                print(f"--dataset {dataset}: continuing its interrupted collection, {have} of {args.samples} "
                      f"decisions; collecting {missing} more", file=sys.stderr)  # fmt: skip
            more = collect_parallel(checked.env_cfg, expert, missing, continuation_seed(args.seed, have), args.gamma,
                                    args.workers, first_episode=int(data["episodes"].max()) + 1, progress=progress,
                                    stop=stop)  # fmt: skip
            data = concat(data, more)
            save_dataset(dataset, data, fingerprint, args.samples if stop.received else None)
            phases.append({"phase": "expert (continued)", "samples": int(len(data["actions"])), "loaded": have,
                           "file": str(dataset), "seconds": round(time.perf_counter() - start, 1)})  # fmt: skip
        elif data is not None:
            phases.append({"phase": "expert (loaded)", "samples": int(len(data["actions"])), "file": str(dataset),
                           **({"interrupted_of": asked} if asked is not None else {})})  # fmt: skip
            if verbose and asked is not None:  # --samples at most what it holds: cloned as it is, and said so
                print(f"--dataset {dataset}: loaded its {len(data['actions'])} decisions, part of an interrupted "
                      f"collection of {asked} (a --samples above {len(data['actions'])} continues it)", file=sys.stderr)  # fmt: skip
            elif verbose and len(data["actions"]) != args.samples:  # the file decides, not --samples
                print(f"--dataset {dataset}: loaded its {len(data['actions'])} decisions (--samples {args.samples} "
                      "is what a new collection records)", file=sys.stderr)  # fmt: skip
        if stop.received and data is not None:
            kept = len(data["actions"]) if dataset else 0
            print(f"{stop.received}: interrupted while collecting; no model written"
                  + (f" (the {kept} samples so far are in {dataset}: the same command continues the collection, "
                     f"with --samples {kept} it clones them)" if kept else "")
                  + (f"; {again}" if again else ""), file=sys.stderr)  # fmt: skip
            venv.close()
            return None, stop.received
        doing = "the start"  # what a signal stopped: metadata.json's stopped_early
        if data is not None:
            t = time.perf_counter()
            stop.saving = fitting
            fit(model.policy, data, scale, num_actions, args.epochs, args.batch_size, args.learning_rate,
                args.vf_coef, args.val_fraction, args.seed, progress, stop, log, "cloning", **cloning)  # fmt: skip
            doing = epochs_done(log, "cloning", args.epochs)
            phases[-1]["fit_seconds"] = round(time.perf_counter() - t, 1)
        dagger = None  # this run's DAgger samples (out / DAGGER_SAMPLES_FILE)
        for k in range(args.dagger_iters):
            if stop.received:
                break
            t = time.perf_counter()
            stop.saving = relabelling
            clone = PPOAgent.from_policy(model.policy, p, n, game, config=config)
            more = collect_parallel(checked.env_cfg, expert, args.dagger_samples, args.seed + 1 + k, args.gamma,
                                    args.workers, policy=clone, beta=args.dagger_beta,
                                    first_episode=0 if data is None else int(data["episodes"].max()) + 1,
                                    progress=progress, stop=stop, desc=f"DAgger {k + 1}/{args.dagger_iters}")  # fmt: skip
            data = concat(data, more)
            doing = f"DAgger round {k + 1} of {args.dagger_iters}, after {len(more['actions'])} decisions"
            if len(more["actions"]):  # the labels are the slow part (search): kept even when interrupted
                dagger = concat(dagger, more)
                save_dataset(out / DAGGER_SAMPLES_FILE, dagger, fingerprint)
            phase = {"phase": f"dagger {k + 1}", "samples": int(len(more["actions"])),
                     "on_policy_agreement": on_policy_agreement(clone, more, num_actions),
                     "seconds": round(time.perf_counter() - t, 1)}  # fmt: skip
            if stop.received:
                phases.append(phase)
                break
            t = time.perf_counter()
            stop.saving = fitting
            fit(model.policy, data, scale, num_actions, args.dagger_epochs or args.epochs, args.batch_size,
                args.learning_rate, args.vf_coef, args.val_fraction, args.seed + 1 + k, progress, stop, log,
                f"cloning {k + 1}/{args.dagger_iters}", **cloning)  # fmt: skip
            doing = epochs_done(log, f"cloning {k + 1}/{args.dagger_iters}", args.dagger_epochs or args.epochs)
            phase["fit_seconds"] = round(time.perf_counter() - t, 1)
            phases.append(phase)
        interrupted = stop.received
        if data is None:  # --samples 0, interrupted before the first DAgger round ended
            data = {k: np.zeros((0,), np.int32) for k in DATASET_KEYS}
        train_seconds = time.perf_counter() - start
        meta: dict[str, Any] = {
            **env_metadata(rules, game, checked.env_kwargs, num_actions, checked.env_cfg["policy_input"]),
            "trained_by": "behaviour cloning (train.bc)",
            "command": command_line("train.bc", argv_list),
            "argv": argv_list,
            "args": vars(args),
            "ppo_hyperparameters": {k: v for k, v in vars(ppo_hyperparameters(args)).items()
                                    if k in ("n_steps", "batch_size", "n_epochs", "learning_rate", "gamma",
                                             "gae_lambda", "clip_range", "ent_coef", "vf_coef")},  # fmt: skip
            "seed": args.seed,
            "timesteps": 0,
            "initialized_from": {"flag": "--init-from", "path": str(checked.start_model),
                                 "command": (checked.start_metadata or {}).get("command")}
            if args.init_from else None,  # fmt: skip
            "dataset": {"samples": int(len(data["actions"])), "episodes": int(len(np.unique(data["episodes"]))),
                        "file": str(dataset) if dataset else None, "phases": phases,
                        "dagger_file": DAGGER_SAMPLES_FILE if dagger is not None else None},  # fmt: skip
            "bc_epochs": log,
            "train_wall_seconds": round(train_seconds, 1),
            "status": "interrupted" if interrupted else "trained",
            "stopped_early": f"{interrupted} during {doing}" if interrupted else None,  # as domino-train's
            "eval_seed": eval_seed,
        }
        folder = RunFolder(out, meta).create()
        folder.save_model(model)
        folder.save_model(model, BEST_MODEL_FILE)
    venv.close()
    if interrupted:
        # the commands keep the run's rules (a model for other rules is refused) and, to clone on, its dataset
        fine_tune = " ".join([launcher("train.ppo"), *rule_flags(args), "--init-from", shlex.quote(str(out))])
        print(f"{interrupted}: interrupted; saved {out / MODEL_FILE}, the model so far (status interrupted); "
              f"it loads as ppo:{out}; clone on from it with {clone_on_command(argv_list, out, launcher('train.bc'))}, "
              f"or fine-tune it with {fine_tune}" + dagger_note(dagger, out, args.dagger_iters), file=sys.stderr)  # fmt: skip
        return out, interrupted
    agent = PPOAgent.from_policy(model.policy, p, n, game, config=config, name="ppo")
    workers = args.eval_workers or max(1, min(os.cpu_count() or 1, 4))
    from domino_env.train.interrupts import terminate_as_interrupt

    # SIGTERM (e.g. from timeout) during the final evaluation ends it as Ctrl-C does, as in domino-train
    previous = signal.signal(signal.SIGTERM, terminate_as_interrupt)
    try:
        final = finish_run(folder, agent, args, rules, game, eval_seed, workers, start)
    except KeyboardInterrupt:  # the model is cloned and saved: only the final evaluation is lost
        print(f"final evaluation interrupted; the cloned model is saved: {out / MODEL_FILE} (metadata status "
              f"trained); evaluate it with {evaluate_command(args, f'ppo:{out}')}", file=sys.stderr, flush=True)  # fmt: skip
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
    if verbose:
        last = log[-1] if log else {}
        agreement = last.get("val_agreement")
        held_out = "no held-out split" if agreement is None else f"held-out agreement {agreement:.3f}"
        print(f"cloned {args.expert}: {len(data['actions'])} samples, {held_out}, {train_seconds / 60:.1f} min -> {out}",
              file=sys.stderr)  # fmt: skip
        if final:
            print_summary(final, p, summary_title(out / MODEL_FILE, final, p))
    return out, None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``domino-bc``: returns the exit status, 0 when done, 128 + the
    signal number when interrupted."""
    from domino_env.train.interrupts import sigterm_as_interrupt

    with sigterm_as_interrupt():  # until StopSignals takes over (imports, env and model set-up)
        _, interrupted = run(argv)
    return 128 + signal.Signals[interrupted].value if interrupted else 0


if __name__ == "__main__":  # through train.cli: a missing extra or a bad file is one line
    from domino_env.train.cli import launch

    launch("domino-bc", main)
