"""The model a ``domino-train`` / ``domino-bc`` run starts from: a fresh one (:func:`new_model`) or
one loaded by ``--resume`` / ``--init-from`` (:func:`load_start_model`), and what the run takes
from it: the options the model was trained with (:func:`trained_options`, also for
models older than an option), the defaults they fill (:func:`resolve_policy`) and the network
input an options set reads (:func:`policy_input_of`), and the setup options a ``--resume`` takes
from its own command (:func:`setup_changes` names those that differ). The checks that refuse a
mismatch are in :mod:`domino_env.train.ppo_args`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from domino_env.agents.action_features import ACTION_FEATURES_VERSION, ACTION_FEATURES_VERSIONS
from domino_env.agents.action_scorer import FLAT_INPUT
from domino_env.agents.ppo import read_metadata
from domino_env.train.cli import load_failure

#: The network options' values when neither the command nor a start model gives them.
NETWORK_DEFAULTS = {"net_arch": [256, 256], "activation": "tanh"}


def resolve_policy(args: argparse.Namespace, default_policy: str = "action-scores") -> None:
    """Fill ``args.policy``, ``args.net_arch`` and ``args.activation`` where not given: the
    ``--resume`` / ``--init-from`` model's (``"mlp"`` for models from before ``--policy``), else
    ``default_policy`` and :data:`NETWORK_DEFAULTS`; ``args.critic_input`` and (action-scores)
    ``args.action_features`` likewise. An unreadable model is left to
    ``ppo_args.check_start_model``, which names the problem."""
    path = getattr(args, "resume", None) or getattr(args, "init_from", None)
    trained: dict[str, Any] = {}
    if path:
        try:
            trained = trained_options(*read_metadata(path))
        except (OSError, ValueError):
            pass
    if getattr(args, "policy", None) is None:
        args.policy = trained.get("policy", "mlp") if trained else default_policy
    for name, value in NETWORK_DEFAULTS.items():
        if getattr(args, name, None) is None:
            setattr(args, name, trained.get(name) or value)
    if hasattr(args, "critic_input") and args.critic_input is None:  # (domino-bc has no critic option)
        args.critic_input = trained.get("critic_input") or "observation"
    if args.policy == "action-scores" and getattr(args, "action_features", None) is None:
        # the model's rows, else the default, v1 (an mlp reads no rows: left None)
        args.action_features = trained.get("action_features") or ACTION_FEATURES_VERSION.rsplit("-", 1)[1]


def _network_of_model(zip_path: Path) -> dict[str, Any]:
    """``net_arch`` (and ``activation`` of an mlp) from a saved model's own ``policy_kwargs`` (the
    JSON ``data`` of SB3's zip), for metadata without them; ``{}`` where it does not say."""
    import json
    import zipfile

    try:
        with zipfile.ZipFile(zip_path) as z:
            kwargs = json.loads(z.read("data")).get("policy_kwargs", {})
    except (OSError, ValueError, KeyError, AttributeError, zipfile.BadZipFile):
        return {}
    if not isinstance(kwargs, dict):
        return {}
    out: dict[str, Any] = {}
    net = kwargs.get("net_arch")
    arch = kwargs.get("vf_arch") or (net.get("pi") if isinstance(net, dict) else net)
    if isinstance(arch, list) and arch and all(isinstance(x, int) for x in arch):
        out["net_arch"] = arch
    act = str(kwargs.get("activation_fn", ""))  # "<class 'torch.nn.modules.activation.Tanh'>"
    for name, cls in (("tanh", "Tanh'>"), ("relu", "ReLU'>")):
        if act.endswith(cls):
            out["activation"] = name
    return out


#: ``metadata["policy_input"]`` -> ``--action-features`` (models from before the option).
_FEATURES_OF_INPUT = {version: version.rsplit("-", 1)[1] for version in ACTION_FEATURES_VERSIONS}


def _features_of(meta: dict[str, Any]) -> dict[str, str]:
    """``{"action_features": "v1" / "v2" / "v3"}`` of a model's metadata whose ``policy_input`` names
    feature rows (for models from before ``--action-features``); ``{}`` otherwise."""
    version = _FEATURES_OF_INPUT.get(meta.get("policy_input", ""))
    return {"action_features": version} if version else {}


def trained_options(zip_path: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """The options a saved model was trained with: its metadata's ``args``, with what the file
    itself says (network sizes, feature rows) where the metadata is silent (older models)."""
    return {**_network_of_model(zip_path), **_features_of(meta), **meta.get("args", {})}


def policy_input_of(policy: str, action_features: str = "v1") -> str:
    """The network input a ``--policy`` with ``--action-features`` reads
    (``metadata["policy_input"]``)."""
    if policy != "action-scores":
        return FLAT_INPUT
    return f"action-features-{action_features}"


def continued_seed(seed: int, timesteps: int) -> int:
    """The seed of the envs and torch in a ``--resume``d run: ``seed`` for a model with no steps,
    else a seed drawn from ``seed`` and the model's ``timesteps`` (below ``2**31``: env ``i``
    takes the seed + ``i``). With ``--seed`` itself, every resumed part of a run replayed the deals,
    opponent draws and seats of its first part, in the same order (the deals do not depend on the
    play); the same model and ``--seed`` still give the same stream, so a resume is reproducible."""
    if timesteps <= 0:
        return seed
    import numpy as np

    return int(np.random.SeedSequence([seed, timesteps]).generate_state(1)[0]) % 2**31


def saved_counts(zip_path: Path) -> dict[str, int]:
    """``num_timesteps`` and ``n_steps`` of a saved model (the JSON ``data`` of SB3's zip; ``{}``
    where it does not say): what a ``--resume`` continues from, read before the model is loaded."""
    import json
    import zipfile

    try:
        with zipfile.ZipFile(zip_path) as z:
            data = json.loads(z.read("data"))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return {}
    return {k: data[k] for k in ("num_timesteps", "n_steps") if isinstance(data, dict) and isinstance(data.get(k), int)}


def first_snapshot(done: int, freq: int) -> int:
    """The step of a run's first self-play snapshot: the next multiple of ``--snapshot-freq`` after
    the ``done`` steps it starts from (a resumed run keeps the run's schedule)."""
    return (done // freq + 1) * freq


def self_play_problem(args: Any, checked: Any, n_envs: int) -> str | None:
    """Why ``--self-play`` would do nothing in this run (no snapshot before its last step: the
    opponents would all be scripted), else None. The run ends after whole rollouts of ``n_steps``
    (a resumed model's own) x ``n_envs``, from the steps a resumed model has; its step count
    moves ``n_envs`` at a time, so a snapshot comes at the first count at or past its multiple."""
    if args.self_play <= 0:
        return None
    saved = saved_counts(checked.start_model) if args.resume else {}
    done = saved.get("num_timesteps", 0)
    rollout = saved.get("n_steps", args.n_steps) * n_envs
    end = done + -(-args.timesteps // rollout) * rollout
    # the steps go n_envs at a time: the snapshot is taken at the first count at or past its multiple
    first = done + -(-(first_snapshot(done, args.snapshot_freq) - done) // n_envs) * n_envs
    if first < end:
        return None
    after = f" after the resumed model's {done}" if done else ""
    return (f"--self-play {args.self_play:g}: the first snapshot of the learner (every --snapshot-freq "
            f"{args.snapshot_freq} steps) would come at step {first}, but the run ends at step {end} (--timesteps "
            f"{args.timesteps}{after}): no self-play; give a --snapshot-freq below {end - done - n_envs + 1} or "
            "more --timesteps")


#: Training-setup options a ``--resume`` takes from this command, not from the model's run.
SETUP_OPTIONS = ("partner", "opponents", "opponent_mode", "reward", "pips_coef", "self_play",
                 "reward_baseline")  # fmt: skip


def setup_changes(args, run_args: dict) -> list[str]:
    """``--flag value (the model's run: --flag value)`` for each of :data:`SETUP_OPTIONS` that this
    command sets otherwise than the run that made the model (as its metadata records it): a
    resume without ``--partner learner`` would otherwise switch to scripted partners silently."""
    def text(value):
        return " ".join(map(str, value)) if isinstance(value, list) else str(value)

    out = []
    for name in SETUP_OPTIONS:
        if name in run_args and run_args[name] != getattr(args, name, run_args[name]):
            flag = "--" + name.replace("_", "-")
            now, was = (f"{flag} {'none' if v is None else text(v)}" for v in (getattr(args, name), run_args[name]))
            out.append(f"{now} (the model's run: {was})")
    return out


def new_model(args: Any, vec_env: Any, tensorboard_log: str | None = None):
    """A fresh ``MaskablePPO`` with the command's network and PPO hyperparameters."""
    import torch
    from sb3_contrib import MaskablePPO

    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[args.activation]
    lr: Any = args.learning_rate
    if getattr(args, "lr_schedule", "constant") == "linear":
        lr0 = args.learning_rate
        lr = lambda progress: lr0 * progress  # noqa: E731
    policy: Any = "MlpPolicy"
    policy_kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(args.net_arch), "vf": list(args.net_arch)},
        "activation_fn": act,
    }
    if getattr(args, "policy", "mlp") == "action-scores":
        from domino_env.agents.action_features import feature_columns
        from domino_env.train.action_policy import ActionScoringPolicy

        n_feat = len(feature_columns(args.game, policy_input_of(args.policy, args.action_features)))
        extra = int(vec_env.get_attr("critic_extra")[0])  # --critic-input full-state: the hidden tiles
        obs_size = vec_env.observation_space.shape[0] - int(vec_env.action_space.n) * n_feat - extra
        policy = ActionScoringPolicy
        policy_kwargs = {"obs_size": obs_size, "num_features": n_feat, "vf_arch": list(args.net_arch)}
        if extra:  # (absent otherwise, so such models match those saved before the option)
            policy_kwargs["critic_extra"] = extra
    return MaskablePPO(
        policy,
        vec_env,
        learning_rate=lr,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        clip_range=args.clip_range,
        ent_coef=args.ent_coef,
        vf_coef=args.vf_coef,
        max_grad_norm=args.max_grad_norm,
        target_kl=args.target_kl,
        policy_kwargs=policy_kwargs,
        tensorboard_log=tensorboard_log,
        seed=args.seed,
        device=getattr(args, "device", "cpu"),
        verbose=0,
    )


#: PPO settings a ``--resume``d model keeps from its own run (``MaskablePPO`` attributes).
_RESUMED_SETTINGS = ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "ent_coef", "vf_coef",
                     "max_grad_norm")  # fmt: skip
#: The same, held by the model as functions of progress: compared with its run's metadata.
_RESUMED_SCHEDULES = ("learning_rate", "lr_schedule", "clip_range", "target_kl")


def load_start_model(parser: argparse.ArgumentParser, args: Any, checked: Any, vec_env: Any, tb: str | None):
    """The model to train and where it came from, ``(model, started)``: ``--resume`` (loaded
    whole), ``--init-from`` (weights copied into a fresh model) or a fresh model (``started``
    None). ``checked``: ``ppo_args.check_args``'s result. A model file that does not load is a
    parser error (the run folder is not created yet)."""
    from sb3_contrib import MaskablePPO

    flag = "--resume" if args.resume else "--init-from" if args.init_from else None
    try:
        if args.resume:
            model = MaskablePPO.load(checked.start_model, env=vec_env, device=args.device,
                                     tensorboard_log=tb, seed=args.seed)  # fmt: skip
        else:
            model = new_model(args, vec_env, tb)
            if args.init_from:
                source = MaskablePPO.load(checked.start_model, device="cpu")
                model.policy.load_state_dict(source.policy.state_dict())
                source_steps = int(source.num_timesteps)
    except Exception as exc:  # a corrupt or foreign zip: one line, not a traceback
        if flag is None:
            raise
        vec_env.close()
        parser.error(f"{flag} {getattr(args, flag[2:].replace('-', '_'))}: cannot load {checked.start_model}: "
                     f"{load_failure(exc)}")  # fmt: skip
    if args.resume:  # the loaded model keeps its PPO settings: say so, and record the ones used
        kept = []
        for name in _RESUMED_SETTINGS:
            value = getattr(model, name, None)
            if isinstance(value, (int, float)) and getattr(args, name, value) != value:
                kept.append(f"--{name.replace('_', '-')} {value} (instead of this command's {getattr(args, name)}, given or default)")
                setattr(args, name, value)
        meta = checked.start_metadata or {}  # a domino-bc run: its PPO settings, not its cloning ones
        run_args = meta.get("ppo_hyperparameters") or meta.get("args") or {}
        for name in _RESUMED_SCHEDULES:  # the model holds them as schedules: its run's values
            value = run_args.get(name, getattr(args, name))
            if value != getattr(args, name):
                kept.append(f"--{name.replace('_', '-')} {value} (instead of this command's {getattr(args, name)}, given or default)")
                setattr(args, name, value)
        if kept:  # flags the user gave are overridden: said even with --quiet
            print("--resume keeps the model's " + ", ".join(kept), file=sys.stderr, flush=True)
        changed = setup_changes(args, (checked.start_metadata or {}).get("args") or {})
        if changed and not args.quiet:
            print("--resume trains with this command's " + ", ".join(changed), file=sys.stderr, flush=True)
        if args.lr_schedule == "linear" and not args.quiet:  # SB3 stretches it over the new total (docs/training.md)
            done, rollout = int(model.num_timesteps), model.n_steps * vec_env.num_envs
            total = done + -(-args.timesteps // rollout) * rollout
            print(f"--resume: --lr-schedule linear runs over the new total of {total} steps: the learning rate restarts "
                  f"from {args.learning_rate * (1 - done / total):.3g} ({1 - done / total:.1%} of --learning-rate "
                  f"{args.learning_rate:g}) at the model's {done} steps (its first update, after a rollout of {rollout} "
                  f"steps, uses {args.learning_rate * (1 - (done + rollout) / total):.3g}) and decays to 0 at step {total}",
                  file=sys.stderr, flush=True)  # fmt: skip
    started = None
    if flag:
        meta = checked.start_metadata or {}
        # the model's own steps (a released best_model.zip has fewer than its run's final count)
        started = {"flag": flag, "path": str(checked.start_model), "timesteps": int(model.num_timesteps)
                   if args.resume else source_steps, "command": meta.get("command"),
                   "status": meta.get("status")}  # fmt: skip
        for earlier in ("resumed_from", "initialized_from") if args.resume else ():
            if meta.get(earlier):  # the model's own start: the chain back to the command that began it
                started[earlier] = meta[earlier]
    return model, started
