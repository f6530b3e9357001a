"""The fixed layout of ``env.infos[agent]``: the same keys at every step for every agent, each
value a scalar or an array of length P (seats), so collectors that stack infos into arrays
(Tianshou's ``Collector``, TorchRL's ``PettingZooWrapper``) see one shape throughout. Documented
in docs/infos.md.

Round-result keys describe the round that ended at this step (``round_over`` true) and are
neutral otherwise (``termination_code`` 0, ``-1`` padding, zeros): see :func:`info_layout`.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np


class Termination(enum.IntEnum):
    """How the round ended at this step (``info["termination_code"]``), an int so numeric
    pipelines stack it: 0 ``NONE`` (no round ended at this step), 1 ``WENT_OUT``, 2 ``BLOCKED``,
    3 ``ANNULLED`` (Cuban re-deal). ``str()`` gives the engine's name (``"went_out"``...), the
    string the infos held under ``"termination"`` before the fixed layout."""

    NONE = 0
    WENT_OUT = 1
    BLOCKED = 2
    ANNULLED = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def of(cls, name: str) -> Termination:
        """The member of an engine's termination name (``"went_out"``, ``"blocked"``...; ``"none"``
        too). Raises KeyError for any other name."""
        return cls[name.upper()]


def seats_padded(seats: tuple[int, ...] | list[int], num_players: int) -> np.ndarray:
    """``seats`` ascending, padded with -1 to length P: int64 array of shape (P,) (``s in
    winners`` keeps its meaning; -1 is never a seat)."""
    out = np.full(num_players, -1, dtype=np.int64)
    out[: len(seats)] = sorted(seats)
    return out


def seats_of(padded: np.ndarray) -> list[int]:
    """The seats of a padded seat array (``info["winners"]``, ``info["game_winners"]``) as the
    plain list the infos held before the fixed layout: ``seats_of(info["winners"]) == [0, 2]``."""
    return [int(s) for s in padded if s >= 0]


def seat_flags(seats: tuple[int, ...] | list[int], num_players: int) -> np.ndarray:
    """int8 array of shape (P,): 1 at each seat of ``seats``."""
    out = np.zeros(num_players, dtype=np.int8)
    out[list(seats)] = 1
    return out


def info_layout(
    num_players: int,
    scores: list[int],
    round_index: int,
    game_keys: dict[str, int],
    result: Any = None,
    game_winners: tuple[int, ...] | None = None,
) -> dict[str, Any]:
    """One agent's info dict (P = ``num_players``).

    Keys: ``round_over`` (bool), ``termination_code`` (:class:`Termination`), ``winners`` (int64
    (P,), winning seats padded with -1), ``won`` (int8 (P,) flags), ``pips`` and ``points``
    (int64 (P,), the ended round's pips left / points scored; zeros while a round runs),
    ``scores`` (int64 (P,), game totals), ``round_index`` (int), ``game_over`` (bool),
    ``game_winners`` (int64 (P,), padded), ``game_won`` (int8 (P,)), ``limit_reached``
    (bool: ``max_cycles`` or ``max_steps`` truncated the episode at this step), plus the game's
    ``game_keys`` (``station`` or ``leader``, ints).

    Args:
        result: the engine's round result when a round ended at this step, else None.
        game_winners: the game's winners when the game ended at this step, else None.
    """
    p = num_players
    ended = result is not None
    info = {
        "round_over": ended,
        "termination_code": Termination.of(result.termination) if ended else Termination.NONE,
        "winners": seats_padded(result.winners if ended else (), p),
        "won": seat_flags(result.winners if ended else (), p),
        "pips": np.array(result.pips if ended else [0] * p, dtype=np.int64),
        "points": np.array(result.points if ended else [0] * p, dtype=np.int64),
        "scores": np.array(scores, dtype=np.int64),
        "round_index": int(round_index),
        "game_over": game_winners is not None,
        "game_winners": seats_padded(game_winners or (), p),
        "game_won": seat_flags(game_winners or (), p),
        "limit_reached": False,
    }
    info.update(game_keys)
    return info
