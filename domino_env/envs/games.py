"""The raw AEC env of a game by name: one place for the commands (evaluation, play, RLlib) that
take ``--game``."""

from __future__ import annotations

from typing import Any

from ..core.config import LINE_PRESETS
from ..core.errors import ConfigError

#: Game names: Mexican Train and the line-game presets (``block``, ``draw``, ``cuban``).
GAMES = ("mexican_train", *LINE_PRESETS)


def make_raw_env(game: str = "mexican_train", **env_kwargs: Any) -> Any:
    """The raw AEC env of ``game``: ``mexican_train_v0.raw_env(**env_kwargs)``, or for a line game
    ``line_v0.raw_env(preset=game, **env_kwargs)`` (a ``preset`` in ``env_kwargs`` must then be
    ``game`` itself).

    Raises:
        ConfigError: unknown game, a line game given another preset, or bad rules.
    """
    if game == "mexican_train":
        from .mexican_train_v0 import raw_env

        return raw_env(**env_kwargs)
    if game not in GAMES:
        raise ConfigError("game", game, f"one of {GAMES}")
    from . import line_v0

    preset = env_kwargs.pop("preset", None)
    if preset is not None and preset != game:
        raise ConfigError("preset", preset, f"{game!r} (or nothing) for game={game!r}")
    return line_v0.raw_env(preset=game, **env_kwargs)
