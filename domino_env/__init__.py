"""Domino games as PettingZoo / Gymnasium environments: Mexican Train and the line games.

``import domino_env`` registers the environments::

    import pettingzoo, domino_env
    env = pettingzoo.make("aec", "dominoes/mexican_train-v0", num_players=4)
"""

from __future__ import annotations

from .core.errors import ConfigError, DealError, DominoError, IllegalActionError, RecordError

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "DealError",
    "DominoError",
    "IllegalActionError",
    "RecordError",
    "__version__",
]


def _register() -> None:
    import pettingzoo

    if hasattr(pettingzoo, "register"):
        pettingzoo.register(
            "aec",
            "dominoes/mexican_train-v0",
            entry_point="domino_env.envs.mexican_train_v0:env",
        )


_register()
