"""Trained PPO policies as agents: ``make_agent("ppo:PATH", config)``.

``PATH`` is a model folder written by ``domino-train`` (it holds ``model.zip`` and
``metadata.json``; ``best_model.zip`` is used instead with ``ppo:PATH/best_model.zip``), or a
``.zip`` file with a ``metadata.json`` in the same folder. The loader refuses a model whose
observation spec hash (``metadata["observation_spec_hash"]``) differs from the environment's,
with a :class:`SpecMismatchError` saying what differs (seats, set, observation size, hashes).
Rules that differ but keep the observation layout (e.g. ``doubles="chain"`` for a model trained
on ``"satisfy"``) only give a warning.

The agent (:class:`PPOAgent`) follows the protocol of :mod:`domino_env.agents.base`: ``agent(observation,
action_mask, rng) -> int``. The policy's actor network is copied into numpy arrays at load time,
so the agent is small, picklable (tournament workers, ``SubprocVecEnv`` opponents) and needs no
torch to play. It plays the most likely legal action (``deterministic=True``, the default) or
samples among the legal actions with the caller's ``rng``. The mask is always applied: an
illegal action can never be chosen.

Observations are scaled before the network
(:func:`~domino_env.agents.observation_scaling.observation_scale`): counts of tiles / 20,
rounds / 13, points / 100, every flag, one-hot and rank field by its bound. Training applies the
same scaling (``domino_env.train.ppo``), and ``metadata["observation_scaling"]`` names it. Line games
(block / draw / Cuban, ``domino-train --game cuban``) use their own spec
(:func:`~domino_env.encoding.line.line_observation_spec`) and scaling ``line-unit-v1``: tiles / 10,
rounds / 13, points / 100, flags and one-hots as they are. ``ppo:PATH`` loads for line-game rules
too (the factory is registered for ``game="line"``; the spec hash is checked against the line spec).

Loading needs the ``[train]`` extra (torch, sb3-contrib); importing this module does not. A
missing or corrupt checkpoint (empty, truncated, random bytes, a damaged member, missing or garbled
``metadata.json``) is refused before loading with a
:class:`~domino_env.core.errors.CheckpointError` that names the file and what is wrong
(:func:`read_metadata`); the command lines print it as one line.
"""

from __future__ import annotations

import dataclasses
import pickle
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from domino_env.core.config import LineConfig, MexicanTrainConfig
from domino_env.core.errors import (
    AgentSpecError,
    CheckpointError,
    ConfigError,
    DominoError,
    as_flag,
    check_rng,
)

from .action_features import ACTION_FEATURES_VERSIONS, feature_columns
from .action_scorer import FLAT_INPUT, POLICY_INPUTS, NumpyActionScorer, PolicyInput
from .base import as_config, check_mask_size, register_agent
from .checkpoint_files import (  # noqa: F401  (re-exported: the loader's file checks)
    METADATA_FILE,
    METADATA_KEYS,
    MODEL_FILE,
    SB3_MEMBERS,
    UNPICKLING_FAILED,
    agent_label,
    check_model_file,
    check_numpy_reads_it,
    first_line,
    load_metadata,
    model_game,
    read_metadata,
)
from .observation_scaling import (  # noqa: F401  (re-exported: the loader's spec and scaling)
    GAME_NAMES,
    LINE_OBSERVATION_SCALING,
    OBSERVATION_SCALING,
    _family,
    observation_scale,
    scaling_name,
    spec_for,
)


class RulesMismatchWarning(UserWarning):
    """A model is loaded for other rules than it was trained with, on the same observation layout
    (it plays, but it learned another game): :func:`check_compatible` says which rules differ."""


class SpecMismatchError(DominoError):
    """A trained model's observation layout differs from the environment it is asked to play."""


class NumpyActor:
    """The actor of an SB3 ``ActorCriticPolicy`` as numpy arrays: flatten, the policy MLP
    (Linear / Tanh / ReLU layers), then ``action_net``.

    Raises:
        ValueError: the policy has a layer type or a features extractor this class cannot copy.
    """

    _ACTIVATIONS = {"Tanh": np.tanh, "ReLU": lambda x: np.maximum(x, 0.0)}

    def __init__(self, policy: Any):
        if type(policy.features_extractor).__name__ != "FlattenExtractor":
            raise ValueError(
                f"cannot copy features extractor {type(policy.features_extractor).__name__}"
            )
        layers: list[tuple[str, Any]] = []
        for module in policy.mlp_extractor.policy_net:
            kind = type(module).__name__
            if kind == "Linear":
                layers.append(
                    (
                        "linear",
                        (
                            module.weight.detach().cpu().numpy().T.copy(),
                            module.bias.detach().cpu().numpy().copy(),
                        ),
                    )
                )
            elif kind in self._ACTIVATIONS:
                layers.append((kind, None))
            else:
                raise ValueError(f"cannot copy policy layer {kind}")
        head = policy.action_net
        layers.append(
            (
                "linear",
                (
                    head.weight.detach().cpu().numpy().T.copy(),
                    head.bias.detach().cpu().numpy().copy(),
                ),
            )
        )
        self.layers = layers

    @property
    def num_actions(self) -> int:
        """Outputs of the ``action_net`` head: the game's actions."""
        return len(self.layers[-1][1][1])

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Action logits for observations ``x`` (already scaled), shape ``(..., n_actions)``."""
        x = np.asarray(x, dtype=np.float32)
        for kind, params in self.layers:
            if kind == "linear":
                x = x @ params[0] + params[1]
            else:
                x = self._ACTIVATIONS[kind](x)
        return x


class PPOAgent:
    """A trained policy playing one seat (``agent(observation, action_mask, rng) -> int``).

    Args:
        actor: a :class:`NumpyActor` (``--policy mlp``) or a
            :class:`~domino_env.agents.action_scorer.NumpyActionScorer` (``--policy action-scores``).
        scale: observation multipliers (:func:`observation_scale`), float32 ``(obs size,)``.
        deterministic: play the most likely legal action (True) or sample with ``rng``.
        name: the label used in tournament tables.
        metadata: the model's ``metadata.json`` (empty for an in-training snapshot).
        policy_input: what the network reads (:data:`~domino_env.agents.action_scorer.POLICY_INPUTS`):
            ``"observation"`` (the scaled observation) or ``"action-features-v1"`` / ``-v2`` /
            ``-v3`` (plus the per-action feature rows, which need ``config``; v3 also the seat's
            InformationState at each call, :attr:`wants_info_state`).
        config: the rules (for the action features).
    """

    def __init__(
        self,
        actor: Any,
        scale: np.ndarray,
        deterministic: bool = True,
        name: str = "ppo",
        metadata: dict[str, Any] | None = None,
        policy_input: str = FLAT_INPUT,
        config: Any = None,
    ):
        if as_flag(deterministic) is None:  # "no" would have meant True
            raise ConfigError("deterministic", deterministic,
                              "True (the most likely legal action) or False (sample), or 1 / 0")  # fmt: skip
        if not isinstance(name, str) or not name:  # 5 was taken as the label of the tables
            raise ConfigError("name", name, "a non-empty string: the label in tournament tables")
        self.actor = actor
        self.scale = np.asarray(scale, dtype=np.float32)
        self.deterministic = as_flag(deterministic)
        self.name = name
        self.metadata = dict(metadata or {})
        self.policy_input = PolicyInput(self.scale, policy_input, config)

    @classmethod
    def from_policy(
        cls,
        policy: Any,
        num_players: int,
        max_pip: int,
        game: str = "mexican_train",
        config: Any = None,
        **kwargs: Any,
    ) -> PPOAgent:
        """Snapshot a live (training) SB3 policy as an agent (``game``: ``"mexican_train"`` or a
        line game, which picks the observation scaling; ``config``: the rules, which the action
        features of an ``ActionScoringPolicy`` need; default: the default rules at
        ``num_players`` and ``max_pip``)."""
        scale = observation_scale(num_players, max_pip, game)
        export = getattr(policy.mlp_extractor, "export_numpy", None)
        if export is None:
            return cls(NumpyActor(policy), scale, **kwargs)
        if config is None:
            if game != "mexican_train":
                raise ValueError(
                    "an action-scores policy of a line game needs the rules: pass config="
                )
            config = as_config({"num_players": num_players, "max_pip": max_pip})
        weights = export()
        # the feature version is the one whose columns the network was built for
        version = next(v for v in ACTION_FEATURES_VERSIONS
                       if len(feature_columns(game, v)) == int(weights["num_features"]))  # fmt: skip
        return cls(NumpyActionScorer(weights), scale, policy_input=version, config=config, **kwargs)

    def __repr__(self) -> str:
        return f"PPOAgent(name={self.name!r}, deterministic={self.deterministic})"

    @property
    def num_actions(self) -> int:
        """Actions of the game the model was trained on (the length of its logits)."""
        return int(self.actor.num_actions)

    @property
    def wants_info_state(self) -> bool:
        """True for a model reading ``action-features-v3`` (its search columns need the seat's
        InformationState: the package's callers pass ``info_state=``, as to ``search``)."""
        return self.policy_input.wants_info_state

    def __call__(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        rng: np.random.Generator,
        info_state: Any = None,
    ) -> int:
        check_mask_size(self, action_mask)
        self._check_observation(observation)
        self._check_info_state(info_state)  # before the shortcut, as search: a caller's wiring shows on its first call
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        logits = self.actor.logits(self.policy_input(observation, action_mask, info_state))
        return self._pick(logits, legal, rng)

    def _check_info_state(self, info_state: Any) -> None:
        if info_state is None and self.wants_info_state:
            raise ConfigError("info_state", None, f"the seat's InformationState: model {self.name!r} reads "
                              "action-features-v3 rows, a search over the public history (train.evaluate, "
                              "domino-play and SingleAgentEnv pass it; or call agent(obs, mask, rng, "
                              "info_state=InformationState.from_state(state, seat)))")  # fmt: skip

    def _check_observation(self, observation: np.ndarray) -> None:
        """Refuse an observation of another layout (a broadcasting or index error deep inside)."""
        shape = np.shape(observation)
        if shape != self.scale.shape:
            raise ConfigError(
                "observation", f"shape {shape}", f"shape {self.scale.shape}: the model was trained for other "
                "rules (another seat count or set?), or the observation is batched; give one seat's vector"
            )  # fmt: skip

    def _pick(self, logits: np.ndarray, legal: np.ndarray, rng: np.random.Generator) -> int:
        """The move from the logits: the best legal one, or one drawn with ``rng``."""
        z = logits[legal].astype(np.float64)
        if self.deterministic:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(legal[check_rng(rng).choice(len(legal), p=p)])

    def rank_actions(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator, info_state: Any = None
    ) -> list[int]:
        """The legal actions of ``action_mask``, this agent's move first (drawn from ``rng`` when
        not deterministic), then the others by decreasing logit (ties: the lower action). What
        ``search`` uses to look at the policy's best few moves only (``candidates``).
        ``info_state``: as for a call (an ``action-features-v3`` model needs it when more than one
        action is legal; a ConfigError without it)."""
        check_mask_size(self, action_mask)
        self._check_observation(observation)
        legal_arr = np.flatnonzero(action_mask)
        if len(legal_arr) == 1:
            return [int(legal_arr[0])]
        self._check_info_state(info_state)
        logits = self.actor.logits(self.policy_input(observation, action_mask, info_state))
        move = self._pick(logits, legal_arr, rng)
        legal = legal_arr.tolist()
        rest = sorted((a for a in legal if a != move), key=lambda a: (-float(logits[a]), a))
        return [move, *rest]


def _game_text(game: str) -> str:
    return game if game == "mexican_train" else f"{game} (line game)"


def check_compatible(
    metadata: dict[str, Any],
    config: MexicanTrainConfig | LineConfig,
    where: str = "model",
    trainer: str = "domino-train",
) -> None:
    """Refuse a model trained on the other game family (Mexican Train against the line games) or
    another observation layout; warn about other rule differences, among them another line game
    with the same layout (a Cuban model asked to play the draw game with 4 seats and double-9,
    say: it runs, with a warning naming the preset). ``trainer``: the command the messages advise
    for a fitting model.

    Raises:
        SpecMismatchError: the model was trained on a line game and ``config`` is Mexican Train
            (or the reverse; the message names both games), or the observation spec hash (or the
            scaling) differs (the message gives seats, set, observation size and hash on both
            sides).
        CheckpointError: the metadata's ``env_kwargs`` are not valid rules, or name other seats
            or another set than its spec hash (a damaged or hand-edited file).
    """
    p, n = config.num_players, config.max_pip
    game = "line" if isinstance(config, LineConfig) else "mexican_train"
    # the game first: a line-game model asked to play Mexican Train (or the reverse) would
    # otherwise be refused as a difference in seats or set
    trained, wanted = model_game(metadata), config.preset if game == "line" else "mexican_train"
    if trained is not None and (trained == "mexican_train") != (game == "mexican_train"):
        raise SpecMismatchError(
            f"{where} was trained on {_game_text(trained)}, not {_game_text(wanted)}; use a model "
            f"trained for {wanted} ({trainer} --game {wanted})"
        )
    spec = spec_for(p, n, game, config)
    env_hash = spec.hash()
    model_hash = metadata.get("observation_spec_hash")
    rules = metadata.get("env_kwargs", {})
    # models saved before the spec hash followed the rules' scores bound recorded the default
    # bound's hash: the same layout, so they load
    if model_hash != env_hash and model_hash != spec_for(p, n, game).hash():
        mp, mn = rules.get("num_players", "?"), rules.get("max_pip", "?")
        diffs = [f"{k} {a} vs {b}" for k, a, b in (
            ("game", trained or wanted, wanted),
            ("num_players", mp, p),
            ("max_pip", mn, n),
            ("observation size", metadata.get("observation_size"), spec.size),
        ) if a != b]  # fmt: skip
        # same game, seats, set and size: the layout itself differs (or the hash was edited)
        differs = ", ".join(diffs) if diffs else "the observation layout only (same game, seats, set and size)"
        raise SpecMismatchError(
            f"{where} was trained on observation spec {model_hash} ({mp} players, double-{mn}, "
            f"{metadata.get('observation_size', '?')} floats) but this environment ({p} players, double-{n}, "
            f"{spec.size} floats) has spec {env_hash}; differs in: {differs}. Use a model trained for "
            f"this game, seats and set ({trainer} --game G --players P --max-pip N)."
        )
    scaling = metadata.get("observation_scaling")
    if scaling != scaling_name(game):
        raise SpecMismatchError(
            f"{where} uses observation scaling {scaling!r}; this loader applies {scaling_name(game)!r}"
        )
    _check_trained_rules(rules, type(config), p, n, where)
    differing = {
        k: (rules[k], v)
        for k, v in config.to_dict().items()
        if k in rules and rules[k] != v and k != "first_player"
    }
    if differing:
        warnings.warn(
            f"{where} was trained with other rules (trained vs now): "
            + ", ".join(f"{k}={a!r} vs {b!r}" for k, (a, b) in differing.items()),
            RulesMismatchWarning,
            stacklevel=3,
        )


def _check_trained_rules(rules: dict[str, Any], cls: type, p: int, n: int, where: str) -> None:
    """The metadata's rules must be rules (a hand edit or a damaged file could hold
    ``doubles="foo"``) and agree with the observation spec the model passed: its hash fixes the
    seats and the set, so other ``num_players`` / ``max_pip`` mean the file contradicts itself.

    Raises:
        CheckpointError: either; the message names the field.
    """
    fields = {f.name for f in dataclasses.fields(cls)}
    try:
        trained = cls.from_dict({k: v for k, v in rules.items() if k in fields})
    except ConfigError as err:
        raise CheckpointError(f"{where}: corrupt metadata.json: its env_kwargs are not valid rules ({err})") from None
    for field, want in (("num_players", p), ("max_pip", n)):
        if field in rules and getattr(trained, field) != want:
            raise CheckpointError(
                f"{where}: corrupt metadata.json: env_kwargs {field}={rules[field]!r}, but its observation "
                f"spec hash is that of {want} (the hash fixes the seats and the set)"
            )


def load_ppo_agent(
    path: str | Path, config: Any = None, deterministic: bool = True, name: str | None = None
) -> PPOAgent:
    """Load a trained model as an agent for the rules ``config`` (anything ``as_config`` takes).

    Raises:
        CheckpointNotFoundError: no model / metadata at ``path`` (a ``FileNotFoundError`` too).
        CheckpointError: the model or its metadata is corrupt (:func:`read_metadata`) or
            Stable-Baselines3 cannot load the model.
        SpecMismatchError: the model's observation spec differs from the environment's.
        ModuleNotFoundError: the ``train`` extra (sb3-contrib, torch) is not installed; the message
            names it.
        ConfigError: ``path`` is not a path (None was pathlib's TypeError), ``name`` neither None
            nor a non-empty string (checked before loading), or ``deterministic`` not True or False.
    """
    name = agent_label(name, "ppo")
    cfg = as_config(config)
    model_path, metadata = read_metadata(path)
    check_compatible(metadata, cfg, where=f"model {model_path}")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as err:  # the library alone (no extra): say which extra, as the commands do
        raise ModuleNotFoundError(  # the commands turn it into their one line naming the extra
            f'a trained model ({model_path}) loads with sb3-contrib and torch: pip install "domino-env[train]" '
            f"(missing: {err.name})", name=err.name
        ) from err

    try:
        model = MaskablePPO.load(model_path, device="cpu")
    except ImportError as exc:  # a missing package is not the file's fault (numpy 1 and a numpy 2 model: say so)
        check_numpy_reads_it(model_path, exc)
        raise
    except pickle.UnpicklingError as exc:  # torch's text would advise weights_only=False: unsafe
        raise CheckpointError(f"{model_path}: {UNPICKLING_FAILED}") from exc
    except Exception as exc:  # what the checks above cannot see (e.g. a damaged tensor file)
        raise CheckpointError(  # torch's state-dict errors: "Error(s) in loading ...:" and a line per tensor
            f"{model_path}: Stable-Baselines3 cannot load it ({type(exc).__name__}: {first_line(exc)})"
        ) from exc
    game = "line" if isinstance(cfg, LineConfig) else "mexican_train"
    kind = metadata.get("policy_input", FLAT_INPUT)
    if kind not in POLICY_INPUTS:
        raise CheckpointError(
            f"{model_path}: metadata names policy_input {kind!r}; this version knows {POLICY_INPUTS}"
        )
    expected = PolicyInput(observation_scale(cfg.num_players, cfg.max_pip, game), kind, cfg).size
    # the inputs only the critic read in training (--critic-input full-state); the actor skips them
    expected += int(getattr(model.policy.mlp_extractor, "critic_extra", 0))
    if model.observation_space.shape != (expected,):
        raise SpecMismatchError(
            f"model {model_path} takes network inputs of shape {model.observation_space.shape}, but its "
            f"metadata's policy_input {kind!r} gives ({expected},) here (the observation: "
            f"{spec_for(cfg.num_players, cfg.max_pip, game).size} floats): model.zip and metadata.json "
            "do not belong together"
        )
    return PPOAgent.from_policy(
        model.policy,
        cfg.num_players,
        cfg.max_pip,
        game,
        config=cfg,
        deterministic=deterministic,
        name=name,
        metadata=metadata,
    )


def _factory(config: MexicanTrainConfig, arg: str | None) -> PPOAgent:
    if not arg:
        raise AgentSpecError("ppo", "ppo:PATH (the ppo agent needs a model path: a folder written by domino-train "
                             "or domino-bc)")  # fmt: skip
    return load_ppo_agent(arg, config, name=f"ppo:{arg}")


register_agent("ppo", _factory, replace=True)
register_agent("ppo", _factory, game="line", replace=True)
