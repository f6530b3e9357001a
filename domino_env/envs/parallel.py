"""Parallel view of the turn-based envs (PettingZoo's ``turn_based_aec_to_parallel``).

The envs are turn-based AEC envs (``metadata["is_parallelizable"] = False``): PettingZoo's
generic ``aec_to_parallel`` refuses them with a bare ``AssertionError`` (it would need every
agent to act once per cycle). ``turn_based_aec_to_parallel`` works: each parallel step takes the
action of the agent whose turn it is (``infos[agent]["active_agent"]`` names it; the other
agents' entries of the action dict are ignored) and returns every live agent's observation.
Three departures from PettingZoo 1.27's wrapper, all things it handled badly: a step once the
episode is over returns the five empty dicts of the Parallel API (it returned four), a bad
later deal of ``reset(options={"deals": [...]})`` ends the episode here too (``agents`` empty)
before its ``DealError`` propagates, and ``reset`` / ``step`` return infos dicts of their own
(it returned the AEC env's, which later steps changed; docs/integrations.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from ..core.errors import ConfigError, DealError, DominoError, IllegalActionError


class TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's ``turn_based_aec_to_parallel`` wrapper with the package's errors.

    ``step(actions)``: ``actions`` must hold the active agent's action (``infos[a]["active_agent"]``,
    also ``aec_env.agent_selection``); the other entries are ignored.

    Raises:
        DominoError: ``step`` before the first ``reset`` (was PettingZoo's ``AttributeError``).
        IllegalActionError: ``actions`` is not a mapping (a dict), or has no entry for the active agent (was a
            bare ``KeyError``).
        DealError: the next deal of ``reset``'s ``options["deals"]`` is refused as its round
            starts. The finished round is paid (its rewards are in ``aec_env.rewards``), every
            agent is terminated and ``agents`` is empty, as after a last round: call ``reset()``.
    """

    def step(self, actions):
        if getattr(self, "agents", None) is None:  # (PettingZoo's: "object has no attribute 'agents'")
            raise DominoError(f"{type(self).__name__}: call reset() first")
        if not self.agents:  # PettingZoo 1.27 returned four empty dicts here
            return {}, {}, {}, {}, {}
        actor = self.aec_env.agent_selection
        if not isinstance(actions, Mapping) or actor not in actions:
            got = sorted(map(str, actions)) if isinstance(actions, Mapping) else type(actions).__name__
            raise IllegalActionError(f"parallel step: actions must be a dict holding the active agent "
                                     f"{actor!r} (infos[agent]['active_agent']), got {got}")
        try:
            observations, rewards, terminations, truncations, infos = super().step(actions)
        except DealError:
            self.agents = []  # the AEC env has ended the episode: so does this view
            raise
        return observations, rewards, terminations, truncations, _own_infos(infos)

    def reset(self, seed=None, options=None):
        observations, infos = super().reset(seed=seed, options=options)
        return observations, _own_infos(infos)


def _own_infos(infos: dict[str, dict]) -> dict[str, dict]:
    """Copies of ``infos`` for the caller. PettingZoo's wrapper returns the AEC env's own info
    dicts, which the env keeps from step to step and the wrapper writes ``active_agent`` into:
    a stored infos dict changed with every later step, and the AEC env's infos left their fixed
    layout (docs/infos.md). The key is taken back off the AEC env's dicts."""
    own = {}
    for agent, info in infos.items():
        own[agent] = dict(info)
        info.pop("active_agent", None)
    return own


def parallel_view(make_env: Callable[..., AECEnv], max_cycles: int | None = None, **kwargs: Any) -> ParallelEnv:
    """``turn_based_aec_to_parallel(make_env(**kwargs))``, as :class:`TurnBasedParallelEnv`.

    In this view one parallel step is one action, so a cycle (every acting agent acting once,
    PettingZoo's meaning) is one step: ``max_cycles`` here caps parallel steps (the AEC env's
    ``max_steps``). PettingZoo's ``max_cycles_test`` holds for both views.

    Raises:
        ConfigError: ``max_cycles`` not a positive integer, or both ``max_cycles`` and
            ``max_steps`` given (they are one limit here).
    """
    if max_cycles is not None:
        # checked here, not as the AEC env's max_steps: the error must name the keyword given
        if isinstance(max_cycles, bool) or not isinstance(max_cycles, (int, np.integer)) or max_cycles < 1:
            raise ConfigError("max_cycles", max_cycles, "None or a positive integer (parallel steps)")
        if kwargs.get("max_steps") is not None:
            raise ConfigError("max_steps", kwargs["max_steps"], "omitted when max_cycles is given (parallel_env)")
        kwargs["max_steps"] = max_cycles
    return TurnBasedParallelEnv(make_env(**kwargs))
