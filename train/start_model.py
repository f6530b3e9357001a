"""What a ``domino-train`` / ``domino-bc`` run takes from the model it starts from (``--resume``,
``--init-from``): the options the model was trained with (:func:`trained_options`, also for
models older than an option), the defaults they fill (:func:`resolve_policy`) and the network
input an options set reads (:func:`policy_input_of`), and the setup options a ``--resume`` takes
from its own command (:func:`setup_changes` names those that differ). The checks that refuse a
mismatch are in :mod:`domino_env.train.ppo_args`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from domino_env.agents.action_features import ACTION_FEATURES_VERSION, ACTION_FEATURES_VERSIONS
from domino_env.agents.action_scorer import FLAT_INPUT
from domino_env.agents.ppo import read_metadata

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


#: Training-setup options a ``--resume`` takes from this command, not from the model's run.
SETUP_OPTIONS = ("partner", "opponents", "opponent_mode", "reward", "pips_coef", "self_play",
                 "reward_baseline")  # fmt: skip


def setup_changes(args, run_args: dict) -> list[str]:
    """``--flag value (the model's run: value)`` for each of :data:`SETUP_OPTIONS` that this
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
