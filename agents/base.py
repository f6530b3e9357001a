"""The agent protocol and the agent registry.

An **agent** is any picklable callable ``agent(observation, action_mask, rng) -> int``:

* ``observation``: the acting seat's float32 observation vector (``env.observe(agent)["observation"]``),
* ``action_mask``: its int8 action mask (never all zeros while the seat acts),
* ``rng``: a ``numpy.random.Generator`` owned by the caller (tournament, single-agent adapter),
  the only randomness an agent may use, so a seeded caller replays exactly.

This is exactly the opponent protocol of :class:`domino_env.wrappers.SingleAgentEnv`, so every
agent here can be an opponent of a learner.

**Optional extension: the public history.** An agent whose attribute ``wants_info_state`` is true
is called ``agent(observation, action_mask, rng, info_state=...)`` where ``info_state`` is the
seat's :class:`domino_env.core.belief.InformationState` (its hand, the table, hand sizes, the
public actions of the round and the pips each seat is known to lack; nothing hidden), built by
:func:`domino_env.wrappers.info_state_kwargs`. ``domino_env.train.evaluate`` and ``SingleAgentEnv`` pass it;
agents without the attribute are called exactly as before. ``search`` (:mod:`domino_env.agents.search`,
docs/search.md) uses it to sample determinizations. Scripted agents see only what their seat sees (the
observation and the mask), never the engine state.

Build agents by name with :func:`make_agent` (``"random"``, ``"greedy"``, ``"planner"``; more can be
added with :func:`register_agent`, e.g. ``"ppo:PATH"`` for trained policies). There is one registry
per game family: Mexican Train (:class:`MexicanTrainConfig`) and the line games block / draw /
Cuban (:class:`LineConfig`); :func:`make_agent` picks the registry from the rules it is given, so
``make_agent("greedy", line_config)`` builds the line-game greedy agent.

Imports flow one way: this module imports no agent module; each agent module (``mexican_train``,
``line``, ``ppo``) registers its agents here when it is imported, and ``agents/__init__.py`` imports
every one of them, so the registry is full as soon as anything under ``agents`` is imported
(Python imports the package first). A new agent module registers itself the same way and is added
to ``agents/__init__.py``.
"""

from __future__ import annotations

import difflib
import functools
import numbers
import types
import warnings
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, overload, runtime_checkable

import numpy as np

from domino_env.core.config import (
    LINE_PRESETS,
    PRESETS,
    LineConfig,
    MexicanTrainConfig,
    from_preset,
    line_from_preset,
)
from domino_env.core.errors import AgentSpecError, ConfigError, DominoError
from domino_env.wrappers import InfoStateAgent

#: Env keyword arguments that are not rules (dropped when a config is built from env kwargs).
_ENV_ONLY_KWARGS = ("episode", "reward", "render_mode", "max_cycles", "max_steps")


@runtime_checkable
class Agent(Protocol):
    """``agent(observation, action_mask, rng) -> action`` (see the module docstring). Called with
    positional arguments, so a function or class of yours may name its parameters as it likes;
    an agent that needs ``info_state=`` is an :class:`~domino_env.wrappers.InfoStateAgent`."""

    def __call__(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator, /
    ) -> int | np.integer[Any]: ...


_AgentObject = TypeVar("_AgentObject", bound="Agent | InfoStateAgent")


#: Game families of the agent registry.
GAMES = ("mexican_train", "line")


def as_config(config: Any = None) -> MexicanTrainConfig | LineConfig:
    """The rules config from a config (:class:`MexicanTrainConfig` or :class:`LineConfig`), an env
    (anything with ``.config`` or ``.unwrapped.config``), a dict of env keyword arguments, or
    ``None`` (the default Mexican Train rules).

    A dict whose ``"preset"`` is a line-game preset (``"block"``, ``"draw"``, ``"cuban"``) gives a
    :class:`LineConfig`; any other dict a :class:`MexicanTrainConfig` (default preset
    ``"domino_cubano"``). Env-only keys (``episode``, ``reward``, ``render_mode``, ``max_cycles``,
    ``max_steps``) are dropped.

    Raises:
        ConfigError: the dict has an unknown preset or an unknown or invalid field; ``config`` is
            none of the above (field ``config``).
    """
    if config is None:
        return MexicanTrainConfig()
    if isinstance(config, (MexicanTrainConfig, LineConfig)):
        return config
    if isinstance(config, dict):
        kwargs = {k: v for k, v in config.items() if k not in _ENV_ONLY_KWARGS}
        preset = kwargs.pop("preset", "domino_cubano")
        # checked here: from_preset and line_from_preset each list only their own presets
        if not isinstance(preset, str) or (preset not in PRESETS and preset not in LINE_PRESETS):
            raise ConfigError("preset", preset, f"one of {(*PRESETS, *LINE_PRESETS)}")
        if preset in LINE_PRESETS:
            return line_from_preset(preset, **kwargs)
        return from_preset(preset, **kwargs)
    for holder in (config, getattr(config, "unwrapped", None)):
        cfg = getattr(holder, "config", None)
        if isinstance(cfg, (MexicanTrainConfig, LineConfig)):
            return cfg
    raise ConfigError(
        "config",
        config,
        "a MexicanTrainConfig or LineConfig, an env, a dict of env kwargs or None",
    )


def game_of(config: MexicanTrainConfig | LineConfig) -> str:
    """Registry family of a config: ``"line"`` for a :class:`LineConfig`, else ``"mexican_train"``."""
    return "line" if isinstance(config, LineConfig) else "mexican_train"


AgentFactory = Callable[[Any, "str | None"], "Agent | InfoStateAgent"]
_REGISTRIES: dict[str, dict[str, AgentFactory]] = {game: {} for game in GAMES}
_BUILT_IN: dict[str, set[str]] = {game: set() for game in GAMES}
#: The Mexican Train registry (kept under its old name).
_REGISTRY = _REGISTRIES["mexican_train"]


def register_agent(name: str, factory: AgentFactory, game: str = "mexican_train", *, replace: bool = False) -> None:
    """Make ``make_agent(name)`` / ``make_agent(f"{name}:{arg}")`` call ``factory(config, arg)``
    (``arg`` is ``None`` without a colon), e.g. ``register_agent("mine", lambda config, arg:
    MyAgent(config))``.

    ``game`` is the family the factory builds agents for: ``"mexican_train"`` (default; it gets a
    :class:`MexicanTrainConfig`) or ``"line"`` (block / draw / Cuban; it gets a
    :class:`LineConfig`). Results are counted by name, so a built-in name (``"greedy"``, ...) is
    refused unless ``replace=True``, and replacing one of your own names warns (as re-running a
    notebook cell does) unless ``replace=True``. (The package's own modules register with
    ``replace=True``: reloading one, as IPython's autoreload does, registers its agents anew.)

    Raises:
        ConfigError: unknown ``game``; a ``name`` that is not a non-empty string without ``:``,
            ``,`` and spaces (``make_agent`` could never build it, nor search take it as its
            ``prior=``: a comma separates search's options); a ``factory`` that is not callable; a
            built-in ``name`` with another factory, without ``replace=True``.
    """
    if game not in _REGISTRIES:
        raise ConfigError("game", game, f"one of {GAMES}")
    if not isinstance(name, str) or not name or ":" in name or "," in name or any(c.isspace() for c in name):
        raise ConfigError("name", name, "a non-empty string without ':', ',' or spaces (make_agent reads "
                          "'name:arg', and search's options 'search:N,prior=name,...')")  # fmt: skip
    if not callable(factory):
        raise ConfigError("factory", type(factory).__name__, "a callable factory(config, arg) -> agent")
    known = _REGISTRIES[game].get(name)
    if known is not None and known is not factory and not replace:
        if name in _BUILT_IN[game]:
            raise ConfigError("name", name, f"a name other than the built-in agents' ({name!r} is one for "
                              f"{game} rules, and results are counted by name), or replace=True")  # fmt: skip
        # as Gymnasium's registry does: re-running a notebook cell registers a new class
        warnings.warn(f"register_agent: {name!r} ({game}) now builds another agent (replace=True says so "
                      "without this warning)", stacklevel=2)  # fmt: skip
    _REGISTRIES[game][name] = factory


def _mark_built_in() -> None:
    """Note every name registered so far as the package's own (``domino_env.agents`` calls this
    once its modules have registered theirs; for :func:`register_agent`'s message)."""
    for game, names in _REGISTRIES.items():
        _BUILT_IN[game].update(names)


def agent_names(game: str = "mexican_train") -> list[str]:
    """Registered agent names of the family ``game`` (``"mexican_train"`` or ``"line"``), sorted;
    ``[]`` for any other ``game``."""
    return sorted(_REGISTRIES.get(game, {}))


@overload
def make_agent(spec: str, config: Any = None) -> Agent: ...
@overload
def make_agent(spec: _AgentObject, config: Any = None) -> _AgentObject: ...
def make_agent(spec: str | Agent | InfoStateAgent, config: Any = None) -> Agent | InfoStateAgent:
    """Build the agent named by ``spec`` (``"random"``, ``"greedy"``, ``"planner"``, or
    ``"name:arg"`` for registered factories that take an argument) for the rules ``config``
    (anything :func:`as_config` accepts; ``None``: the default Mexican Train rules, 4 players,
    double-12; for any other game or table give the env itself, or its config). An
    agent object (any callable) is returned unchanged.
    The registry is chosen by the rules: a :class:`LineConfig` (or a line-game env / line preset
    dict) builds a line-game agent, anything else a Mexican Train agent. An agent built from
    ``"name:arg"`` is named by the whole spec (``make_agent("planner:1").name == "planner:1"``).

    Raises:
        AgentSpecError: unknown agent name (for that game family), a bad ``:argument``, a
            ``spec`` that is neither a string nor a callable, or a factory that returned no
            callable (a :class:`ConfigError` with field ``agent``).
        ConfigError: ``config`` is not rules :func:`as_config` accepts.

    A factory's own errors propagate (``"ppo:PATH"``: those of
    :func:`~domino_env.agents.ppo.load_ppo_agent`, such as ``CheckpointNotFoundError``).
    """
    if not isinstance(spec, str):
        if callable(spec):
            return spec
        raise AgentSpecError(spec, f"an agent name ({', '.join(agent_names())}) or a callable")
    name, colon, arg = spec.partition(":")
    cfg = as_config(config)
    game = game_of(cfg)
    registry = _REGISTRIES[game]
    if name not in registry:
        other = next((g for g in _REGISTRIES if g != game and name in _REGISTRIES[g]), None)
        if other is not None:  # registered, but for the other family of games
            raise AgentSpecError(spec, f"an agent registered for {game} rules: {name!r} is registered for {other} "
                                 f"only (register_agent(..., game={game!r}) adds it there); {game}: {agent_names(game)}")  # fmt: skip
        close = difflib.get_close_matches(name.lower(), registry, n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise AgentSpecError(spec, f"one of {agent_names(game)} (optionally 'name:arg') for {game} rules, or "
                             f"one of your own given a name with domino_env.agents.register_agent{hint}")  # fmt: skip
    if colon and not arg:  # "search:" -- an empty argument is a typo, not the default
        factory = registry[name]
        if not getattr(factory, "takes_argument", True):
            raise AgentSpecError(spec, f"{name!r} alone (it takes no argument)")
        try:  # whether the name alone is an agent decides the hint (error path only)
            factory(cfg, None)
        except DominoError:
            raise AgentSpecError(spec, f"an argument after the colon ({name}:ARG)") from None
        raise AgentSpecError(spec, f"an argument after the colon, or {name!r} alone (no colon)")
    agent = registry[name](cfg, arg or None)
    if not callable(agent):  # a registered factory that returned None, say
        raise AgentSpecError(spec, f"a factory that returns an agent (the one registered as {name!r} "
                             f"returned {type(agent).__name__})")  # fmt: skip
    if arg and getattr(agent, "name", None) == name:  # "planner:1" is another agent than "planner":
        try:  # label it by its spec, or evaluate would count the two as one row
            agent.name = spec
        except AttributeError:  # a factory's read-only name stays
            pass
    return agent


def no_argument(factory: Callable[[Any], Agent]) -> AgentFactory:
    """A registry factory for an agent that takes no ``name:arg`` argument (one given is refused)."""

    def build(config: Any, arg: str | None) -> Agent:
        if arg is not None:
            raise AgentSpecError(f"{getattr(factory, 'name', factory.__name__)}:{arg}", "no ':argument' for this agent")
        return factory(config)

    build.takes_argument = False  # type: ignore[attr-defined]
    return build


def positive_int(spec: str, text: str) -> int:
    """``text`` as an integer >= 1, or a ConfigError naming the agent ``spec``."""
    # plain decimal digits only: int() would also take " 5", "+5" and "1_0"
    value = int(text) if text.isascii() and text.isdigit() else 0
    if value < 1:
        raise AgentSpecError(spec, "a positive integer after the colon")
    return value


def check_count(field: str, value: Any, low: int) -> int:
    """``value`` as an int, when it is an integer (numpy's too; not a bool) >= ``low``.

    Raises:
        ConfigError: otherwise (``field`` names the constructor argument, e.g. ``budget``).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ConfigError(field, value, f"an integer >= {low}")
    return int(value)


def check_mask_size(agent: Any, action_mask: np.ndarray) -> None:
    """Refuse a mask from another game or seat count than the agent was built for, or with no
    legal action (every agent needs one to choose from).

    Raises:
        ConfigError: the mask length differs from ``agent.num_actions``, or no action is legal
            (a seat that is not to act, or a finished episode: its mask is all zero).
    """
    if len(action_mask) != agent.num_actions:
        raise ConfigError(
            "action_mask",
            f"{len(action_mask)} actions",
            f"{agent.num_actions} actions: {agent!r} was built for other rules; build it with the "
            "env's config (make_agent(name, env.unwrapped.config))",
        )
    if not np.any(action_mask):
        raise ConfigError("action_mask", "no legal action", "at least one legal action: call the agent "
                          "for the seat to act (other seats' masks, and every mask once the episode is "
                          "over, are all zero)")  # fmt: skip


def agent_label(agent: str | Agent | InfoStateAgent) -> str:
    """Display name of an agent spec or object: the spec string, else ``agent.name``, else a
    function's name, else the class name."""
    if isinstance(agent, str):
        return agent
    name = getattr(agent, "name", None)
    if not name and isinstance(agent, functools.partial):
        return agent_label(agent.func)
    if not name and isinstance(agent, (types.FunctionType, types.MethodType)):  # its own name
        name = agent.__name__
    return str(name or type(agent).__name__)
