"""The agent protocol and the agent registry (DESIGN.md section 5).

An **agent** is any picklable callable ``agent(observation, action_mask, rng) -> int``:

* ``observation``: the acting seat's float32 observation vector (``env.observe(agent)["observation"]``),
* ``action_mask``: its int8 action mask (never all zeros while the seat acts),
* ``rng``: a ``numpy.random.Generator`` owned by the caller (tournament, single-agent adapter),
  the only randomness an agent may use, so a seeded caller replays exactly.

This is exactly the opponent protocol of :class:`domino_env.wrappers.SingleAgentEnv`, so every
agent here can be an opponent of a learner. Scripted agents see only what their seat sees (the
observation and the mask), never the engine state.

Build agents by name with :func:`make_agent` (``"random"``, ``"greedy"``, ``"planner"``; more can be
added with :func:`register_agent`, e.g. ``"ppo:PATH"`` for trained policies).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from domino_env.core.config import MexicanTrainConfig, from_preset
from domino_env.core.errors import ConfigError

#: Env keyword arguments that are not rules (dropped when a config is built from env kwargs).
_ENV_ONLY_KWARGS = ("episode", "reward", "render_mode", "max_cycles")


@runtime_checkable
class Agent(Protocol):
    """``agent(observation, action_mask, rng) -> action`` (see the module docstring)."""

    def __call__(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int: ...


def as_config(config: Any = None) -> MexicanTrainConfig:
    """A :class:`MexicanTrainConfig` from a config, an env (anything with ``.config`` or
    ``.unwrapped.config``), a dict of env keyword arguments, or ``None`` (the default rules).

    Raises:
        ConfigError: the dict has an unknown or invalid field.
    """
    if config is None:
        return MexicanTrainConfig()
    if isinstance(config, MexicanTrainConfig):
        return config
    if isinstance(config, dict):
        kwargs = {k: v for k, v in config.items() if k not in _ENV_ONLY_KWARGS}
        preset = kwargs.pop("preset", "domino_cubano")
        return from_preset(preset, **kwargs)
    for holder in (config, getattr(config, "unwrapped", None)):
        cfg = getattr(holder, "config", None)
        if isinstance(cfg, MexicanTrainConfig):
            return cfg
    raise ConfigError(
        "config", config, "a MexicanTrainConfig, an env, a dict of env kwargs or None"
    )


AgentFactory = Callable[[MexicanTrainConfig, "str | None"], Agent]
_REGISTRY: dict[str, AgentFactory] = {}


def register_agent(name: str, factory: AgentFactory) -> None:
    """Make ``make_agent(name)`` / ``make_agent(f"{name}:{arg}")`` call ``factory(config, arg)``
    (``arg`` is ``None`` without a colon), e.g. ``register_agent("ppo", load_ppo_agent)``."""
    _REGISTRY[name] = factory


def agent_names() -> list[str]:
    """Registered agent names, sorted."""
    return sorted(_REGISTRY)


def make_agent(spec: str | Agent, config: Any = None) -> Agent:
    """Build the agent named by ``spec`` (``"random"``, ``"greedy"``, ``"planner"``, or
    ``"name:arg"`` for registered factories that take an argument) for the rules ``config``
    (anything :func:`as_config` accepts). An agent object (any callable) is returned unchanged.

    Raises:
        ConfigError: unknown agent name.
    """
    if not isinstance(spec, str):
        if callable(spec):
            return spec
        raise ConfigError(
            "agent", spec, f"an agent name ({', '.join(agent_names())}) or a callable"
        )
    name, _, arg = spec.partition(":")
    if name not in _REGISTRY:
        raise ConfigError("agent", spec, f"one of {agent_names()} (optionally 'name:arg')")
    return _REGISTRY[name](as_config(config), arg or None)


def agent_label(agent: str | Agent) -> str:
    """Display name of an agent spec or object: the spec string, else ``agent.name``, else the
    class name."""
    if isinstance(agent, str):
        return agent
    return str(getattr(agent, "name", None) or type(agent).__name__)
