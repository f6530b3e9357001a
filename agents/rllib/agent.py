"""RLlib checkpoints as agents: ``make_agent("rllib:PATH", config)`` (no ray or torch needed).

``PATH`` is one of:

* a run folder written by ``domino-rllib`` (it holds ``domino_rllib.json`` and
  ``checkpoint/``, the latest algorithm checkpoint): its module ``main`` is loaded;
* an RLlib algorithm checkpoint folder (``algo.save_to_path(...)``; holds ``learner_group/``):
  its module ``main``;
* an RLlib module folder (``.../learner_group/learner/rl_module/<module id>``, holding
  ``module_state.pkl``): that module (e.g. a league snapshot).

The module must be PPO's default MLP (RLlib's ``ActionMaskingTorchRLModule``,
:class:`domino_env.agents.rllib.modules.MaskedPPOTorchRLModule` or a plain PPO module over the
``"observations"`` key). Its weights (``module_state.pkl``: numpy arrays) are read into a
:class:`RLlibActor`, so the agent is a plain numpy :class:`domino_env.agents.ppo.PPOAgent`: small, picklable
(``domino_env.train.evaluate --workers``), and the mask is always applied (an illegal action can never be
chosen). The observation spec is checked against the environment's (``SpecMismatchError``) from
``domino_rllib.json`` (written next to every checkpoint by ``domino_env.train.rllib``); a checkpoint without
it is read through ray (its module's constructor arguments) and only its shapes are checked.
"""

from __future__ import annotations

import json
import pickle
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from domino_env.core.config import LineConfig
from domino_env.core.errors import AgentSpecError, CheckpointNotFoundError, DominoError
from domino_env.core.files import read_at_most
from domino_env.encoding.line import LineEncoder
from domino_env.encoding.mexican_train import MexicanTrainEncoder

from ..base import as_config, register_agent
from ..checkpoint_files import MAX_METADATA_BYTES
from ..ppo import PPOAgent, SpecMismatchError, agent_label, check_compatible, spec_for

#: Metadata file ``domino_env.train.rllib`` writes in the run folder and in every checkpoint folder.
METADATA_FILE = "domino_rllib.json"
CHECKPOINT_DIR = "checkpoint"
MODULE_STATE_FILE = "module_state.pkl"
#: Model-config defaults of RLlib's ``DefaultModelConfig`` (ray 2.60) the loader relies on.
#: ``vf_share_layers`` is not among them: RLlib's default is True for a module built from a bare
#: ``RLModuleSpec`` but False under ``PPOConfig`` (which writes it into the module's config), so a
#: config without it is read from the weights (a shared ``encoder.encoder`` or an ``actor_encoder``).
MODEL_DEFAULTS = {
    "fcnet_hiddens": [256, 256],
    "fcnet_activation": "tanh",
    "head_fcnet_hiddens": [],
    "head_fcnet_activation": "relu",
}
def _elu(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0.0)))


def _silu(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))  # x * sigmoid(x) without exp(-x), which overflows below -88 in float32
    return x * np.where(x >= 0, 1.0, e) / (1.0 + e)


#: The activations RLlib's ``get_activation_fn`` builds for torch: its lower-case names and the
#: ``torch.nn`` class names it looks up first.
_ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
    "elu": _elu,
    "swish": _silu,
    "silu": _silu,
    "linear": lambda x: x,
    None: lambda x: x,
}
_ACTIVATIONS.update(Tanh=_ACTIVATIONS["tanh"], ReLU=_ACTIVATIONS["relu"], ELU=_elu, SiLU=_silu)


def _activation_name(name: Any) -> Any:
    """``name`` as a key of :data:`_ACTIVATIONS`, as RLlib reads it: a ``torch.nn`` class name as
    given, else its lower-case name ("Relu", "SWISH", "Linear" build the same modules); the name
    itself when unknown."""
    if not isinstance(name, str) or name in _ACTIVATIONS:
        return name
    return name.lower() if name.lower() in _ACTIVATIONS else name


class RLlibActor:
    """The policy path of an RLlib PPO MLP module as numpy arrays: the actor encoder (each
    ``Linear`` followed by ``fcnet_activation``), then the ``pi`` head (``head_fcnet_hiddens``
    layers with ``head_fcnet_activation``, then a linear output).

    Args:
        state: the module's state dict (``module_state.pkl``: parameter name -> numpy array).
        model_config: the module's model config (missing keys: :data:`MODEL_DEFAULTS`).

    Raises:
        DominoError: the state has no PPO MLP encoder / ``pi`` head, or an unknown activation.
    """

    def __init__(self, state: dict[str, Any], model_config: dict[str, Any] | None = None):
        if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
            raise DominoError(f"the module state is not a dict of named weights (got {type(state).__name__})")
        if not isinstance(model_config, (dict, type(None))):
            raise DominoError(f"the model config is not a dict (got {type(model_config).__name__})")
        cfg = {**MODEL_DEFAULTS, **(model_config or {})}
        for key in ("fcnet_activation", "head_fcnet_activation"):
            cfg[key] = _activation_name(cfg[key])
            if not isinstance(cfg[key], (str, type(None))) or cfg[key] not in _ACTIVATIONS:
                known = ", ".join(sorted(repr(k) for k in _ACTIVATIONS if k is not None)) + " or None"
                raise DominoError(f"cannot copy an RLlib module with {key}={cfg[key]!r} (known: {known})")
        shared = cfg.get("vf_share_layers")
        if shared is None:  # not in the config: the weights say which encoder the module has
            shared = not any(k.startswith("encoder.actor_encoder.") for k in state) and any(
                k.startswith("encoder.encoder.") for k in state
            )
        prefix = "encoder.encoder" if shared else "encoder.actor_encoder"
        encoder = self._linears(state, f"{prefix}.net.mlp.")
        head = self._linears(state, "pi.net.mlp.")
        if not encoder or not head:
            raise DominoError(
                "the checkpoint's module is not a PPO MLP module (no actor encoder / pi head "
                f"weights among {sorted(state)[:6]}...)"
            )
        self.layers: list[tuple[np.ndarray, np.ndarray, str | None]] = [
            (w, b, cfg["fcnet_activation"]) for w, b in encoder
        ]
        for i, (w, b) in enumerate(head):
            last = i == len(head) - 1
            self.layers.append((w, b, None if last else cfg["head_fcnet_activation"]))
        width = self.layers[0][0].shape[0] if self.layers[0][0].ndim == 2 else -1
        for i, (w, b, _) in enumerate(self.layers):  # a damaged file failed only in the first game
            if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
                raise DominoError(
                    f"the module's layer {i} has weights {w.T.shape} and bias {b.shape} after "
                    f"{width} inputs: not a chain of linear layers"
                )
            width = w.shape[1]

    @staticmethod
    def _linears(state: dict[str, Any], prefix: str) -> list[tuple[np.ndarray, np.ndarray]]:
        index = sorted(
            int(m.group(1))
            for k in state
            if (m := re.fullmatch(re.escape(prefix) + r"(\d+)\.weight", k))
        )
        try:
            return [
                (
                    np.asarray(state[f"{prefix}{i}.weight"], dtype=np.float32).T.copy(),
                    np.asarray(state[f"{prefix}{i}.bias"], dtype=np.float32).copy(),
                )
                for i in index
            ]
        except (KeyError, TypeError, ValueError) as err:
            raise DominoError(f"the module's {prefix}* weights are not numeric arrays ({err})") from err

    @property
    def input_size(self) -> int:
        return int(self.layers[0][0].shape[0])

    @property
    def num_actions(self) -> int:
        return int(self.layers[-1][0].shape[1])

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Action logits (before the mask) for scaled observations ``x``, shape ``(..., actions)``."""
        x = np.asarray(x, dtype=np.float32)
        for w, b, act in self.layers:
            x = _ACTIVATIONS[act](x @ w + b)
        return x


def module_dir(path: str | Path, module_id: str = "main") -> Path:
    """The module folder (holding ``module_state.pkl``) of a run folder, an algorithm checkpoint
    or a module folder.

    Raises:
        CheckpointNotFoundError: none of those at ``path`` (a DominoError and a FileNotFoundError;
            the message says what was looked for).
    """
    path = Path(path).expanduser()  # "rllib:~/..." reaches here unexpanded by the shell
    candidates = [
        path / module_id,  # the MultiRLModule's folder (its own module_state.pkl is empty)
        path,
        path / "learner_group" / "learner" / "rl_module" / module_id,
        path / CHECKPOINT_DIR / "learner_group" / "learner" / "rl_module" / module_id,
    ]
    for c in candidates:
        if (c / MODULE_STATE_FILE).is_file():
            return c
    if (copy := _cut_swap_copy(path, module_id)) is not None:
        return copy
    other = " (it holds a model of domino-train: load that with ppo:PATH)" if (path / "model.zip").is_file() else ""
    raise CheckpointNotFoundError(
        f"no RLlib module {module_id!r} at {path}: give a run folder of domino-rllib, "
        f"an algorithm checkpoint folder or a module folder (holding module_state.pkl){other}"
    )


def swap_copy(run: Path) -> Path | None:
    """The whole checkpoint of a run folder whose checkpoint swap a crash cut short
    (``domino_env.train.rllib_output.save_checkpoint``: ``checkpoint/`` renamed to
    ``checkpoint.old/``, or none yet, ``checkpoint.saving/`` not yet renamed to ``checkpoint/``):
    ``checkpoint.saving/`` when it was written whole (its ``domino_rllib.json``, written last, is
    there), else ``checkpoint.old/``; None when ``checkpoint/`` is there or neither is left. What
    ``domino-rllib --resume`` puts in place, and ``rllib:PATH`` plays meanwhile."""
    old, saving = run / f"{CHECKPOINT_DIR}.old", run / f"{CHECKPOINT_DIR}.saving"
    if (run / CHECKPOINT_DIR).exists():
        return None
    return saving if (saving / METADATA_FILE).is_file() else old if old.is_dir() else None


def _cut_swap_copy(run: Path, module_id: str) -> Path | None:
    """The module ``module_id`` of :func:`swap_copy` of ``run``, with a warning that says which
    copy is played; None for any other folder."""
    copy = swap_copy(run)
    module = None if copy is None else copy / "learner_group" / "learner" / "rl_module" / module_id
    if module is None or not (module / MODULE_STATE_FILE).is_file():
        return None
    old, saving = run / f"{CHECKPOINT_DIR}.old", run / f"{CHECKPOINT_DIR}.saving"
    which = (f"{saving.name}/, the new checkpoint written whole" if copy == saving else
             f"{old.name}/, the earlier checkpoint (no new one written whole"
             f"{f' in {saving.name}/' if saving.is_dir() else ''})")  # fmt: skip
    left = " and ".join(f"{f.name}/" for f in (old, saving) if f.is_dir())
    warnings.warn(f"{run}: a checkpoint swap was cut short (no {CHECKPOINT_DIR}/; {left} {'are' if ' and ' in left else 'is'} "
                  f"left): playing {which}; the next `domino-rllib --resume {run}` puts it in place", stacklevel=3)  # fmt: skip
    return module


def find_metadata(module: Path) -> dict[str, Any] | None:
    """``domino_rllib.json`` of the checkpoint holding ``module`` (searched upwards), or None."""
    for folder in [module, *module.parents][:6]:
        f = folder / METADATA_FILE
        if f.is_file():
            try:
                raw = read_at_most(f, MAX_METADATA_BYTES)  # (a huge file, or /dev/zero linked, is not read whole)
                if len(raw) > MAX_METADATA_BYTES:
                    raise ValueError(f"more than {MAX_METADATA_BYTES // 2**20} MiB")
                data = json.loads(raw.decode("utf-8"))
            except (OSError, ValueError, RecursionError) as err:
                raise DominoError(f"{f}: not a readable metadata file ({err})") from err
            missing = [k for k in ("observation_spec_hash", "model_config") if k not in data] if isinstance(data, dict) else []
            if not isinstance(data, dict) or missing or not isinstance(data["model_config"], dict):
                raise DominoError(f"{f}: not a metadata file of domino-rllib (a JSON object with "
                                  "observation_spec_hash and a model_config object)")  # fmt: skip
            return data
    return None


def _ctor_model_config(module: Path) -> dict[str, Any]:
    """The module's model config from its constructor arguments (needs ray installed)."""
    try:
        import ray.rllib  # noqa: F401  (unpickling the arguments needs RLlib's classes)
    except ImportError as err:
        raise DominoError(
            f"{module} has no {METADATA_FILE}: reading its model config needs ray "
            "(pip install 'domino-env[rllib]'; in a clone: pip install -e '.[rllib]')"
        ) from err
    try:
        with open(module / "class_and_ctor_args.pkl", "rb") as f:
            kwargs = pickle.load(f)["ctor_args_and_kwargs"][1]
    except (OSError, pickle.UnpicklingError, EOFError, KeyError, IndexError, TypeError) as err:
        raise DominoError(
            f"{module}: not a readable RLlib module (no {METADATA_FILE}, and its "
            f"class_and_ctor_args.pkl could not be read: {err})"
        ) from err
    cfg = kwargs.get("model_config") or {}
    if not isinstance(cfg, dict):  # a DefaultModelConfig dataclass
        import dataclasses

        cfg = dataclasses.asdict(cfg)
    return dict(cfg)


def load_rllib_agent(
    path: str | Path,
    config: Any = None,
    module_id: str = "main",
    deterministic: bool = True,
    name: str | None = None,
) -> PPOAgent:
    """Load an RLlib checkpoint's module as an agent for the rules ``config`` (anything
    :func:`domino_env.agents.as_config` accepts). See the module docstring for ``path``.

    Raises:
        CheckpointNotFoundError: no module at ``path`` (also a ``FileNotFoundError``).
        SpecMismatchError: the module was trained on the other game family, or on another
            observation layout or action count.
        CheckpointError: its metadata names invalid rules, or seats or a set other than its spec.
        DominoError: an unreadable checkpoint or metadata, a module that is not a PPO MLP, or a
            checkpoint without ``domino_rllib.json`` when ray is not installed.
        ConfigError: ``name`` neither None nor a non-empty string (checked before loading), or
            ``config`` not rules :func:`~domino_env.agents.as_config` accepts.
    """
    name = agent_label(name, "rllib")
    cfg = as_config(config)
    game = "line" if isinstance(cfg, LineConfig) else "mexican_train"
    folder = module_dir(path, module_id)
    metadata = find_metadata(folder)
    if metadata is not None:
        check_compatible(metadata, cfg, where=f"RLlib checkpoint {folder}", trainer="domino-rllib")
        model_config = dict(metadata.get("model_config") or {})
    else:
        model_config = _ctor_model_config(folder)
    try:
        with open(folder / MODULE_STATE_FILE, "rb") as f:
            state = pickle.load(f)
    except Exception as err:  # damaged bytes make pickle raise nearly anything (ValueError, UnicodeDecodeError...)
        raise DominoError(f"{folder / MODULE_STATE_FILE}: not a readable module state ({err})") from err
    actor = RLlibActor(state, model_config)
    spec = spec_for(cfg.num_players, cfg.max_pip, game)
    n_actions = (LineEncoder if game == "line" else MexicanTrainEncoder)(cfg).num_actions
    if actor.input_size != spec.size or actor.num_actions != n_actions:
        raise SpecMismatchError(
            f"RLlib module {folder} takes {actor.input_size} observation floats and "
            f"{actor.num_actions} actions; this environment ({cfg.num_players} players, "
            f"double-{cfg.max_pip}) has {spec.size} and {n_actions}"
        )
    # The scaling the module applies to its input (MaskedPPOTorchRLModule); none otherwise.
    scale = model_config.get("observation_scale")
    try:
        scale = np.ones(spec.size, np.float32) if scale is None else np.asarray(scale, np.float32)
    except (TypeError, ValueError) as err:
        raise DominoError(f"RLlib module {folder}: its observation_scale is not numeric ({err})") from err
    if scale.shape != (spec.size,):  # numpy would broadcast a short one: silently mis-scaled inputs
        raise DominoError(f"RLlib module {folder}: observation_scale has shape {scale.shape}, not ({spec.size},)")
    return PPOAgent(
        actor, scale, deterministic=deterministic, name=name, metadata=metadata or {}
    )


def _factory(config: Any, arg: str | None) -> PPOAgent:
    if not arg:
        raise AgentSpecError("rllib", "rllib:PATH (the rllib agent needs a checkpoint path: a run folder of "
                             "domino-rllib, an algorithm checkpoint or a module folder)")  # fmt: skip
    return load_rllib_agent(arg, config, name=f"rllib:{arg}")


register_agent("rllib", _factory, replace=True)
register_agent("rllib", _factory, game="line", replace=True)
