"""Mexican Train observation tensors, action masks and the action codec (docs/design.md §3).

Everything is egocentric: seat blocks start with the observer, then the other seats in turn order;
train blocks are the observer's own train, the other seats' trains in turn order, then the Mexican
train. T = tiles in the set, P = seats, V = N + 1 pip values.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..core.config import MexicanTrainConfig
from ..core.errors import ActionLike, DominoError, as_int, check_action
from ..core.mexican_train import COVER_OWN, PHASE_NAMES, SECOND_DOUBLE, MexicanTrainState
from ..core.tiles import set_tables, tile_count, tile_from_index, tile_index, tile_pair
from .spec import EncoderBase, Field, ObservationSpec, top_pips


def action_count(num_players: int, max_pip: int) -> int:
    """Size of the action space: ``T * (P + 1) + 2``."""
    return tile_count(max_pip) * (num_players + 1) + 2


def encode_action(tile: tuple[int, int] | None, slot: int | str, num_players: int, max_pip: int) -> int:
    """Action int for placing ``tile`` on train ``slot`` (0 = own, 1..P-1 = seats after the actor,
    P = Mexican), or for ``slot="draw"`` / ``slot="pass"`` (``tile`` ignored).

    Raises:
        DominoError: slot out of range (or a bool), or ``tile`` not a pair of integers of the set.
    """
    t = tile_count(max_pip)
    if isinstance(slot, str) and slot == "draw":  # (a numpy array == str warns on numpy 1.24)
        return t * (num_players + 1)
    if isinstance(slot, str) and slot == "pass":
        return t * (num_players + 1) + 1
    train = as_int(slot)
    if train is None or not 0 <= train <= num_players:
        raise DominoError(f"slot must be 0..{num_players}, 'draw' or 'pass', got {slot!r}")
    if tile is None:
        raise DominoError("a placement needs a tile")
    a, b = tile_pair(tile)
    return tile_index(a, b, max_pip) * (num_players + 1) + train


def decode_action(action: ActionLike, num_players: int, max_pip: int) -> tuple[str, tuple[int, int] | None, int | None]:
    """Inverse of :func:`encode_action`: ``("place", (a, b), slot)``, ``("draw", None, None)`` or
    ``("pass", None, None)``.

    Raises:
        DominoError: ``action`` not an integer (Python or numpy; a float or string is refused,
            not rounded), or outside the action space.
    """
    t = tile_count(max_pip)
    action = check_action(action)
    if action == t * (num_players + 1):
        return ("draw", None, None)
    if action == t * (num_players + 1) + 1:
        return ("pass", None, None)
    if not 0 <= action < t * (num_players + 1):
        raise DominoError(f"action {action} outside 0..{t * (num_players + 1) + 1}")
    tile, slot = divmod(action, num_players + 1)
    return ("place", tile_from_index(tile, max_pip), slot)


def describe_action(action: ActionLike, num_players: int, max_pip: int) -> str:
    """Readable action relative to the actor, e.g. ``"place 3-12 on slot 4 (Mexican train)"``,
    or ``"draw"`` / ``"pass"``.

    Raises:
        DominoError: as :func:`decode_action` (not an integer, or outside the action space).
    """
    kind, tile, slot = decode_action(action, num_players, max_pip)
    if kind != "place":
        return kind
    where = "own train" if slot == 0 else "Mexican train" if slot == num_players else f"train of seat +{slot}"
    return f"place {tile[0]}-{tile[1]} on slot {slot} ({where})"


#: Default bound of the ``scores`` entries; :func:`scores_bound` raises it for rules that need more.
SCORES_HIGH = 10000.0


def scores_bound(config: MexicanTrainConfig) -> float:
    """Bound of the ``scores`` entries for ``config``: 10,000, or more where dealt games can go
    beyond it (``game_end="elimination"`` with a large ``elimination_limit``, big sets).

    A round scores at most the pips of the largest hand a seat can reach (its dealt tiles plus
    the whole boneyard); a ``"rounds"`` game has N+1 rounds; with ``"elimination"`` a seat stops
    scoring once its total reaches the limit (docs/rules.md §1.5-1.6).
    """
    t = set_tables(config.max_pip, config.double_blank_points)
    seats = range(2, config.num_players + 1) if config.game_end == "elimination" else [config.num_players]
    round_max = 0
    for live in seats:
        size = config.dealt_hand_size(live)
        pool = t.num_tiles - (1 if config.station_source == "set_aside" else 0)
        boneyard = pool - live * size if config.use_boneyard else 0
        round_max = max(round_max, top_pips(t.values, size + boneyard))
    if config.game_end == "elimination":
        game_max = config.elimination_limit - 1 + round_max
    else:
        game_max = (config.max_pip + 1) * round_max
    return max(SCORES_HIGH, float(game_max))


def observation_fields(num_players: int, max_pip: int, scores_high: float = SCORES_HIGH) -> list[Field]:
    """The spec table of the Mexican Train observation for P seats on a double-N set
    (``scores_high``: bound of the ``scores`` entries, see :func:`scores_bound`; ``round_index``
    saturates at its bound, 1,000)."""
    p, v = num_players, max_pip + 1
    t = tile_count(max_pip)
    tr = p + 1
    big = float(t)
    return [
        Field("hand", (t,), 1, "flag", "tiles in the observer's hand (canonical tile order)"),
        Field("placed", (t,), 1, "flag", "tiles placed on any train (the station excluded)"),
        Field("station", (v,), 1, "one-hot", "pip of the station double"),
        Field("train_end", (tr, v), 1, "one-hot", "open-end pip of each train (own, others in turn order, Mexican); a train not in play, a knocked-out seat's or the Mexican train when not used, shows the station pip"),
        Field("train_in_play", (tr,), 1, "flag", "train exists this round (seat not eliminated; Mexican train used)"),
        Field("train_started", (tr,), 1, "flag", "train has at least one tile"),
        Field("train_length", (tr,), big, "tiles", "tiles on the train"),
        Field("train_marker", (tr,), 1, "flag", "owner's marker is down: the train is public (Mexican: always 1 when in play)"),
        Field("train_ends_in_double", (tr,), 1, "flag", "the train ends in an uncovered double"),
        Field("train_open_double_order", (tr,), float(tr), "rank", "1 = oldest open double that obliges every player, 2 = next...; 0 = none"),
        Field("train_coverable", (tr,), 1, "flag", "the double ending this train obliges the current player now: its placement must cover a flagged double (rules §1.4; `double_double` after a first double: or be a second double elsewhere); 0 where covering is only allowed (`chain` doubles of the turn, `no_cover`)"),
        Field("hand_sizes", (p,), big, "tiles", "tiles in each seat's hand (observer first)"),
        Field("boneyard_size", (1,), big, "tiles", "tiles left to draw"),
        Field("current_player", (p,), 1, "one-hot", "seat acting now (observer first)"),
        Field("phase", (len(PHASE_NAMES),), 1, "one-hot", "turn phase of the current player: " + ", ".join(PHASE_NAMES)),
        Field("first_turn", (1,), 1, "flag", "the observer's current or next turn is its first of the round"),
        Field("just_drew", (1,), 1, "flag", "the current player drew for its present obligation"),
        Field("drawn_tile", (t,), 1, "one-hot", "tile the observer just drew (only while it is acting)"),
        Field("missing_pips", (p - 1, v), 1, "flag", "pips each other seat is publicly known to lack (from its draws and passes)"),
        Field("round_index", (1,), 1000.0, "rounds", "rounds played before this one in the episode's game (stops at 1,000)"),
        Field("scores", (p,), scores_high, "points", "game totals so far, in points (observer first)"),
        Field("seat_active", (p,), 1, "flag", "seat still in the game (elimination)"),
    ]


def observation_spec(
    num_players: int = 4, max_pip: int = 12, scores_high: float = SCORES_HIGH
) -> ObservationSpec:
    """The :class:`ObservationSpec` of the Mexican Train observation for P seats, double-N (an
    env's own spec is ``observation_spec(P, N, scores_bound(config))``)."""
    return _spec_cached(num_players, max_pip, float(scores_high))


@cache
def _spec_cached(num_players: int, max_pip: int, scores_high: float) -> ObservationSpec:
    return ObservationSpec(observation_fields(num_players, max_pip, scores_high))


def decode_observation(obs: np.ndarray, num_players: int = 4, max_pip: int = 12) -> dict[str, np.ndarray]:
    """Named views of a Mexican Train observation: ``{field: array}`` with the shapes of
    :func:`observation_fields` (e.g. ``"hand"`` (T,), ``"train_end"`` (P+1, N+1)): views into
    ``obs`` (not copies) when it is a numpy array, float32 for an env's observation.

    Raises:
        ConfigError (a ValueError): ``obs`` does not have shape ``(size,)`` for these seats and set
            (another seat count or set, or a batch).
    """
    return observation_spec(num_players, max_pip).decode(obs)


class MexicanTrainEncoder(EncoderBase):
    """Builds observations and masks for one config.

    Attributes:
        spec: the :class:`ObservationSpec` (``spec.space`` equals the Box of the ``"observation"`` key; each env holds its own copy).
        num_actions: ``T * (P + 1) + 2``.
    """

    def __init__(self, config: MexicanTrainConfig):
        self.config = config
        p, n = config.num_players, config.max_pip
        self.num_players = p
        self.num_tiles = tile_count(n)
        self.num_values = n + 1
        self.num_actions = action_count(p, n)
        self._score_cap = scores_bound(config)
        self.spec = observation_spec(p, n, self._score_cap)
        o = {k: sl.start for k, sl in self.spec.slices.items()}
        self._o = o
        v = self.num_values
        tr = p + 1
        # Per egocentric position k: the offsets of each per-train block entry.
        self._train_rows = [
            (
                o["train_end"] + k * v,
                o["train_in_play"] + k,
                o["train_started"] + k,
                o["train_length"] + k,
                o["train_marker"] + k,
                o["train_ends_in_double"] + k,
                o["train_open_double_order"] + k,
                o["train_coverable"] + k,
            )
            for k in range(tr)
        ]
        # Per observer seat: (train, its block offsets) in egocentric order, and per other seat
        # (seat, hand-size offset, active offset, missing-pips offset or -1 for the observer).
        self._train_rot = [
            [(p if k == p else (seat + k) % p, *self._train_rows[k]) for k in range(tr)]
            for seat in range(p)
        ]
        self._seat_rot = [
            [
                (
                    (seat + k) % p,
                    o["hand_sizes"] + k,
                    o["seat_active"] + k,
                    o["missing_pips"] + (k - 1) * v if k else -1,
                )
                for k in range(p)
            ]
            for seat in range(p)
        ]

    def observe(self, state: MexicanTrainState, seat: int) -> np.ndarray:
        """Observation of ``seat``: float32 array of shape ``(spec.size,)``; nothing hidden leaks.

        Hot path: entries are written into a ``bytearray`` (every entry but the scores fits in a
        byte), converted once to float32; scalar numpy writes would cost ~0.1 us each. The
        egocentric offsets of every train and seat are precomputed per observer seat.
        """
        o = self._o
        buf = bytearray(self.spec.size)
        buf[o["station"] + state.station] = 1
        actor = state.current_player
        live = not state.round_over
        ends, trains, markers, active = state.ends, state.trains, state.markers, state.active
        coverable = None  # computed only if some train ends in a double (rare)
        for train, end_at, in_play_at, started_at, length_at, marker_at, dbl_at, order_at, cover_at in self._train_rot[seat]:
            buf[end_at + ends[train]] = 1
            if train < self.num_players:
                if active[train]:
                    buf[in_play_at] = 1
                if markers[train]:
                    buf[marker_at] = 1
            elif self.config.use_mexican_train:
                buf[in_play_at] = 1
                buf[marker_at] = 1
            tiles = trains[train]
            if tiles:
                buf[started_at] = 1
                buf[length_at] = len(tiles)
                last = tiles[-1]
                if last[0] == last[1]:
                    buf[dbl_at] = 1
                    if train in state.open_doubles:
                        buf[order_at] = state.open_doubles.index(train) + 1
                    if coverable is None:
                        coverable = self._coverable_now(state) if live else ()
                    if train in coverable:
                        buf[cover_at] = 1
        hands, missing = state.hands, state.missing
        for other, size_at, active_at, missing_at in self._seat_rot[seat]:
            buf[size_at] = hands[other].bit_count()
            if active[other]:
                buf[active_at] = 1
            m = missing[other] if missing_at >= 0 else 0
            while m:
                low = m & -m
                buf[missing_at + low.bit_length() - 1] = 1
                m ^= low
        buf[o["boneyard_size"]] = len(state.boneyard)
        if live:
            buf[o["current_player"] + (actor - seat) % self.num_players] = 1
            buf[o["phase"] + state.phase] = 1
            if state.drawn_tile >= 0:
                buf[o["just_drew"]] = 1
                if actor == seat:
                    buf[o["drawn_tile"] + state.drawn_tile] = 1
        if state.first_turn_pending[seat] or (live and actor == seat and state.in_first_turn):
            buf[o["first_turn"]] = 1
        return self._finish(buf, state, seat)

    @staticmethod
    def _coverable_now(state: MexicanTrainState) -> list[int]:
        """Trains whose double obliges the current player now (its placement must cover one of
        them); not the doubles it may cover without being obliged (``chain`` doubles of its own
        turn, ``no_cover``)."""
        if state.phase in (COVER_OWN, SECOND_DOUBLE):
            return state.own_doubles_to_cover()
        if state.phase == 0:
            return state._coverable()
        return []
