"""The observation spec and scaling a trained model reads (the model's ``metadata.json`` names them):
:func:`spec_for` (the env's spec for the game and rules), :func:`observation_scale` (the
multipliers applied to a raw observation before the policy network) and :func:`scaling_name`.

Mexican Train's scaling ``unit-v1``: counts of tiles / 20, rounds / 13, points / 100, every flag,
one-hot and rank field by its bound. The line games' (block / draw / Cuban) ``line-unit-v1``:
tiles / 10, rounds / 13, points / 100, flags and one-hots as they are. Training applies the same
scaling (``domino_env.train``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from domino_env.core.config import LINE_PRESETS
from domino_env.core.errors import ConfigError
from domino_env.encoding.line import line_observation_spec, line_scores_bound
from domino_env.encoding.mexican_train import observation_spec, scores_bound

#: Name of the observation scaling (saved in metadata.json; see :func:`observation_scale`).
OBSERVATION_SCALING = "unit-v1"
#: Divisor per unit of the observation spec (fields with other units use their upper bound).
_UNIT_DIVISORS = {"tiles": 20.0, "rounds": 13.0, "points": 100.0}
#: Name of the line-game observation scaling (block / draw / Cuban).
LINE_OBSERVATION_SCALING = "line-unit-v1"
_LINE_UNIT_DIVISORS = {"tiles": 10.0, "rounds": 13.0, "points": 100.0}


def spec_for(
    num_players: int, max_pip: int, game: str = "mexican_train", config: Any = None
) -> Any:
    """The observation spec of ``game`` (``"mexican_train"``, or ``"line"`` / a line preset).

    With ``config`` (the rules) it is the env's own spec: the ``scores`` bound is sized from the
    rules (``scores_bound`` / ``line_scores_bound``: larger than the default for big sets,
    elimination limits or targets), which changes the spec's hash but not its layout. Without it,
    the default bound (what models trained before that change recorded).

    Raises:
        ConfigError: ``game`` is none of ``"mexican_train"``, ``"line"``, ``"block"``,
            ``"draw"``, ``"cuban"`` (any other name was read as a line game).
    """
    if _family(game) == "mexican_train":
        if config is None:
            return observation_spec(num_players, max_pip)
        return observation_spec(num_players, max_pip, scores_bound(config))
    if config is None:
        return line_observation_spec(num_players, max_pip)
    return line_observation_spec(num_players, max_pip, line_scores_bound(config))


def scaling_name(game: str = "mexican_train") -> str:
    """The observation scaling name of ``game`` (saved as ``metadata["observation_scaling"]``).

    Raises:
        ConfigError: unknown ``game`` (as :func:`spec_for`)."""
    return OBSERVATION_SCALING if _family(game) == "mexican_train" else LINE_OBSERVATION_SCALING


#: What ``game`` may be in the functions above: Mexican Train, the line family, or a line game.
GAME_NAMES = ("mexican_train", "line", *LINE_PRESETS)


def _family(game: Any) -> str:
    """``"mexican_train"`` or ``"line"`` for a name of :data:`GAME_NAMES`; a ConfigError otherwise."""
    if not isinstance(game, str) or game not in GAME_NAMES:
        raise ConfigError("game", game, f"one of {GAME_NAMES}")
    return "mexican_train" if game == "mexican_train" else "line"


def observation_scale(num_players: int, max_pip: int, game: str = "mexican_train") -> np.ndarray:
    """Per-element multipliers applied to a raw observation before the policy network.

    Returns:
        float32 array, shape ``(spec.size,)``: ``1 / 20`` for tile counts (line games:
        ``1 / 10``), ``1 / 13`` for rounds, ``1 / 100`` for points, ``1 / high`` for the other
        fields (flags and one-hots: 1).

    Raises:
        ConfigError: unknown ``game`` (as :func:`spec_for`).
    """
    spec = spec_for(num_players, max_pip, game)
    units = _UNIT_DIVISORS if _family(game) == "mexican_train" else _LINE_UNIT_DIVISORS
    parts = []
    for f in spec.fields:
        divisor = units.get(f.unit, float(f.high) or 1.0)
        parts.append(np.full(int(np.prod(f.shape)), 1.0 / divisor, dtype=np.float32))
    return np.concatenate(parts)
