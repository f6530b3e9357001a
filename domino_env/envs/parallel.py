"""Parallel view of the turn-based envs (PettingZoo's ``turn_based_aec_to_parallel``).

The envs are turn-based AEC envs (``metadata["is_parallelizable"] = False``): PettingZoo's
generic ``aec_to_parallel`` refuses them with a bare ``AssertionError`` (it would need every
agent to act once per cycle). ``turn_based_aec_to_parallel`` works: each parallel step takes the
action of the agent whose turn it is (``infos[agent]["active_agent"]`` names it; the other
agents' entries of the action dict are ignored) and returns every live agent's observation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ..core.errors import ConfigError


def parallel_view(make_env: Callable[..., AECEnv], max_cycles: int | None = None, **kwargs: Any) -> ParallelEnv:
    """``turn_based_aec_to_parallel(make_env(**kwargs))``.

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
    return turn_based_aec_to_parallel(make_env(**kwargs))
