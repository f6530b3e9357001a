"""Ray RLlib integration (docs/rllib.md): env, modules and checkpoint agents.

* :mod:`domino_env.agents.rllib.env`: :class:`DominoMultiAgentEnv`, every game as an RLlib
  ``MultiAgentEnv`` with the observation keys RLlib's masking modules read (``"observations"``,
  ``"action_mask"``).
* :mod:`domino_env.agents.rllib.modules`: :class:`MaskedPPOTorchRLModule` (masked PPO policy) and
  :class:`ScriptedRLModule` (our scripted agents, mask-aware, as non-trainable modules).
* :mod:`domino_env.agents.rllib.agent`: ``make_agent("rllib:PATH", config)`` loads a checkpoint's module as
  a numpy agent (registered on import of :mod:`domino_env.agents`).

Importing this package does not import ray or torch (the ``[rllib]`` extra): the env and module
classes are loaded on first access (``domino_env.agents.rllib.DominoMultiAgentEnv``).
"""

from __future__ import annotations

from typing import Any

from .agent import RLlibActor, load_rllib_agent

_LAZY = {
    "DominoMultiAgentEnv": "env",
    "make_aec": "env",
    "MaskedPPOTorchRLModule": "modules",
    "ScriptedRLModule": "modules",
}

__all__ = ["RLlibActor", "load_rllib_agent", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
