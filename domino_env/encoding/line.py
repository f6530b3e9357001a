"""Line-game (block, draw, Cuban) observation tensors, masks and action codec (docs/design.md §3).

Egocentric: seat blocks start with the observer, then the other seats in turn order. T = tiles in
the set, P = seats, V = N + 1 pip values. Actions: ``tile * 2 + end`` (end 0 = left / lead, 1 =
right), then DRAW = 2T, PASS = 2T + 1, ANNUL = 2T + 2.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..core.config import LineConfig
from ..core.errors import ActionLike, ConfigError, DominoError, as_int, check_action
from ..core.line import LineState
from ..core.tiles import set_tables, tile_count, tile_from_index, tile_index, tile_pair
from .spec import EncoderBase, Field, ObservationSpec

ENDS = ("left", "right")


def line_action_count(max_pip: int) -> int:
    """Size of the action space: ``2T + 3``."""
    return 2 * tile_count(max_pip) + 3


def encode_line_action(tile: tuple[int, int] | None, end: int | str, max_pip: int) -> int:
    """Action int for ``tile`` on ``end`` (0 = left / lead, 1 = right), or ``end="draw"`` /
    ``"pass"`` / ``"annul"`` (``tile`` ignored).

    Raises:
        DominoError: ``end`` not one of those (a bool or float is refused), or ``tile`` not a
            pair of integers of the set.
    """
    t = tile_count(max_pip)
    special = {"draw": 2 * t, "pass": 2 * t + 1, "annul": 2 * t + 2}
    if isinstance(end, str):
        if end not in special:
            raise DominoError(f"end must be 0, 1, 'draw', 'pass' or 'annul', got {end!r}")
        return special[end]
    side = as_int(end)
    if side not in (0, 1) or tile is None:
        raise DominoError(f"a placement needs a tile and end 0 or 1, got {tile!r}, {end!r}")
    a, b = tile_pair(tile)
    return 2 * tile_index(a, b, max_pip) + side


def decode_line_action(action: ActionLike, max_pip: int) -> tuple[str, tuple[int, int] | None, int | None]:
    """Inverse of :func:`encode_line_action`: ``("place", (a, b), end)`` or ``("draw" | "pass" |
    "annul", None, None)``.

    Raises:
        DominoError: ``action`` not an integer (Python or numpy; a float or string is refused,
            not rounded), or outside the action space.
    """
    t = tile_count(max_pip)
    action = check_action(action)
    for name, value in (("draw", 2 * t), ("pass", 2 * t + 1), ("annul", 2 * t + 2)):
        if action == value:
            return (name, None, None)
    if not 0 <= action < 2 * t:
        raise DominoError(f"action {action} outside 0..{2 * t + 2}")
    tile, end = divmod(action, 2)
    return ("place", tile_from_index(tile, max_pip), end)


def describe_line_action(action: ActionLike, max_pip: int, *, lead: bool = False) -> str:
    """Readable action in the engine's words (``LineState.describe_action``): ``"place 6-6 on
    the left end"``, ``"lead 6-6"`` with ``lead=True`` (no tile on the table yet: the action
    alone cannot tell), ``"draw"``, ``"pass"``, ``"annul the round"``.

    Raises:
        DominoError: ``action`` is not an integer or outside the action space
            (:func:`decode_line_action`); ``lead`` is not True or False.
    """
    if not isinstance(lead, (bool, np.bool_)):
        raise ConfigError("lead", lead, "True (no tile on the table yet) or False")
    kind, tile, end = decode_line_action(action, max_pip)
    if kind != "place":
        return "annul the round" if kind == "annul" else kind
    if lead:
        return f"lead {tile[0]}-{tile[1]}"
    return f"place {tile[0]}-{tile[1]} on the {ENDS[end]} end"


#: Default bound of the ``scores`` entries (the largest ``target_score``); see :func:`line_scores_bound`.
LINE_SCORES_HIGH = 1e7


def line_scores_bound(config: LineConfig) -> float:
    """Bound of the ``scores`` entries for ``config``: 10**7, or more with a target so close to it
    that the last round (at most every pip of the set) can pass it (docs/rules.md §2.1)."""
    total = sum(set_tables(config.max_pip).values)
    return max(LINE_SCORES_HIGH, float(config.target_score - 1 + total))


def line_observation_fields(num_players: int, max_pip: int, scores_high: float = LINE_SCORES_HIGH) -> list[Field]:
    """The spec table of the line-game observation for P seats on a double-N set
    (``scores_high``: see :func:`line_scores_bound`; ``round_index`` saturates at 1,000)."""
    p, v = num_players, max_pip + 1
    t = tile_count(max_pip)
    return [
        Field("hand", (t,), 1, "flag", "tiles in the observer's hand (canonical tile order)"),
        Field("placed", (t,), 1, "flag", "tiles on the table"),
        Field("left_end", (v,), 1, "one-hot", "pip of the left open end (zeros before the lead)"),
        Field("right_end", (v,), 1, "one-hot", "pip of the right open end (zeros before the lead)"),
        Field("line_length", (1,), float(t), "tiles", "tiles on the table"),
        Field("hand_sizes", (p,), float(t), "tiles", "tiles in each seat's hand (observer first)"),
        Field("boneyard_size", (1,), float(t), "tiles", "tiles left to draw (draw game)"),
        Field("current_player", (p,), 1, "one-hot", "seat acting now (observer first)"),
        Field("leader", (p,), 1, "one-hot", "seat that led the round, the 'mano' (observer first)"),
        Field("partner", (p,), 1, "one-hot", "the observer's partner with teams on (zeros without teams)"),
        Field("missing_pips", (p - 1, v), 1, "flag", "pips each other seat is publicly known to lack (from its passes and draws)"),
        Field("may_annul", (1,), 1, "flag", "the observer may annul the round now or on its first turn (Cuban)"),
        Field("round_index", (1,), 1000.0, "rounds", "rounds played before this one in the episode's game (stops at 1,000)"),
        Field("scores", (p,), scores_high, "points", "game totals so far (observer first; a team's total for both partners)"),
    ]


def line_observation_spec(
    num_players: int = 4, max_pip: int = 6, scores_high: float = LINE_SCORES_HIGH
) -> ObservationSpec:
    """The :class:`ObservationSpec` of the line-game observation for P seats, double-N (an env's
    own spec is ``line_observation_spec(P, N, line_scores_bound(config))``)."""
    return _line_spec_cached(num_players, max_pip, float(scores_high))


@cache
def _line_spec_cached(num_players: int, max_pip: int, scores_high: float) -> ObservationSpec:
    return ObservationSpec(line_observation_fields(num_players, max_pip, scores_high))


def decode_line_observation(obs: np.ndarray, num_players: int = 4, max_pip: int = 6) -> dict[str, np.ndarray]:
    """Named views of a line-game observation (shapes of :func:`line_observation_fields`):
    views into ``obs`` (not copies) when it is a numpy array, float32 for an env's observation.

    Raises:
        ConfigError (a ValueError): ``obs`` does not have shape ``(size,)`` for these seats and set
            (another seat count or set, or a batch).
    """
    return line_observation_spec(num_players, max_pip).decode(obs)


class LineEncoder(EncoderBase):
    """Builds line-game observations and masks for one config.

    Attributes:
        spec: the :class:`ObservationSpec`; ``num_actions``: ``2T + 3``.
    """

    def __init__(self, config: LineConfig):
        self.config = config
        p, n = config.num_players, config.max_pip
        self.num_players = p
        self.num_tiles = tile_count(n)
        self.num_values = n + 1
        self.num_actions = line_action_count(n)
        self._score_cap = line_scores_bound(config)
        self.spec = line_observation_spec(p, n, self._score_cap)
        self._o = {k: sl.start for k, sl in self.spec.slices.items()}

    def observe(self, state: LineState, seat: int) -> np.ndarray:
        """Observation of ``seat``: float32 array of shape ``(spec.size,)``; nothing hidden leaks."""
        o = self._o
        p, v = self.num_players, self.num_values
        buf = bytearray(self.spec.size)
        if state.line:
            buf[o["left_end"] + state.left] = 1
            buf[o["right_end"] + state.right] = 1
            buf[o["line_length"]] = len(state.line)
        hands, missing = state.hands, state.missing
        for k in range(p):
            other = (seat + k) % p
            buf[o["hand_sizes"] + k] = hands[other].bit_count()
            if k:
                m = missing[other]
                base = o["missing_pips"] + (k - 1) * v
                while m:
                    low = m & -m
                    buf[base + low.bit_length() - 1] = 1
                    m ^= low
        buf[o["boneyard_size"]] = len(state.boneyard)
        if not state.round_over:
            buf[o["current_player"] + (state.current_player - seat) % p] = 1
        buf[o["leader"] + (state.leader - seat) % p] = 1
        if self.config.teams:
            buf[o["partner"] + 2] = 1
        need = self.config.annul_doubles
        if (
            need is not None
            and not state.round_over
            and state.doubles_dealt[seat] >= need
            and (state.first_turn_pending[seat] or (state.current_player == seat and state.in_first_turn))
        ):
            buf[o["may_annul"]] = 1
        return self._finish(buf, state, seat)
