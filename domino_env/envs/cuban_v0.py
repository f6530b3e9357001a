"""PettingZoo AEC environment ``dominoes/cuban-v0``: the line game with preset ``"cuban"``
(see :mod:`domino_env.envs.line_v0` and docs/rules.md §2)."""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv, ParallelEnv

from ..core.errors import ConfigError
from . import line_v0
from .parallel import parallel_view
from .wrapping import wrap


class raw_env(line_v0.raw_env):
    """The cuban game; explicit keyword arguments override the preset.

    Raises:
        ConfigError: a ``preset`` other than ``"cuban"`` (None means ``"cuban"``), or as
            :class:`domino_env.envs.line_v0.raw_env` raises it.
    """

    metadata = {**line_v0.raw_env.metadata, "name": "cuban_v0"}

    def __init__(self, preset: str | None = "cuban", **kwargs: Any):
        preset = "cuban" if preset is None else preset  # None: the default, as in line_v0
        if preset != "cuban":  # the id names the game: other presets go through line_v0.raw_env
            raise ConfigError("preset", preset, "'cuban' for cuban_v0 (use line_v0.raw_env(preset=...))")
        super().__init__(preset=preset, **kwargs)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` wrapped in PettingZoo's standard wrappers (illegal action ends the episode
    with -1 for the offender; out-of-bounds actions assert; call order enforced)."""
    return wrap(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> ParallelEnv:
    """``env(**kwargs)`` through PettingZoo's ``turn_based_aec_to_parallel`` (the envs are
    turn-based: ``aec_to_parallel`` refuses them); see :func:`~domino_env.envs.parallel.parallel_view`
    (there ``max_cycles`` counts parallel steps, one action each)."""
    return parallel_view(env, **kwargs)
