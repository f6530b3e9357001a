"""Global state arrays: PettingZoo's ``env.state()`` / ``env.state_space`` (centralised critics).

PRIVILEGED: unlike an observation, the state reveals everything hidden from the players (every
hand, the boneyard and its draw order), so it is meant for critics, search and debugging, never
as a policy input at play time. Seat blocks are in absolute seat order (seat 0 first, not
egocentric); Mexican Train train blocks are the trains of seats 0..P-1, then the Mexican train.
T = tiles in the set, P = seats, V = N + 1 pip values; tiles in canonical order
(:func:`domino_env.core.tiles.tile_table`).

One spec table per game (the :class:`~domino_env.encoding.spec.ObservationSpec` machinery) drives
the Box space, the flat layout and the named views of :meth:`StateEncoderBase.decode`. What is
left out: engine bookkeeping with no effect on the rules from here on (the record of deals and
actions, the public-information undo of a drawn tile).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..core.config import LineConfig, MexicanTrainConfig
from ..core.deal import bits
from ..core.line import LineState
from ..core.mexican_train import PHASE_NAMES, MexicanTrainState
from ..core.tiles import tile_count, tile_table
from .spec import Field, ObservationSpec


def _totals(obs_spec: ObservationSpec) -> tuple[float, float]:
    """Bounds of the scores and round index, the observation's own (so both stay in step)."""
    by_name = {f.name: f for f in obs_spec.fields}
    return float(by_name["scores"].high), float(by_name["round_index"].high)


def mexican_train_state_fields(num_players: int, max_pip: int, scores_high: float = 10000.0,
                               rounds_high: float = 1000.0) -> list[Field]:
    """The spec table of the Mexican Train global state for P seats on a double-N set (tables in
    docs/state.md; ``scores_high`` / ``rounds_high``: the Box bounds of ``scores`` (points) and
    ``round_index`` (rounds), an env's the same as its observation's)."""
    p, v = num_players, max_pip + 1
    t = tile_count(max_pip)
    tr = p + 1
    return [
        Field("hands", (p, t), 1, "flag", "tiles in each seat's hand (seat order; hidden from the other seats)"),
        Field("boneyard", (t,), float(t), "rank", "draw order of the boneyard: 1 = drawn next, 2 = after it...; 0 = not in the boneyard (hidden)"),
        Field("out_of_play", (t,), 1, "flag", "tiles dealt to nobody this round (hidden)"),
        Field("station", (v,), 1, "one-hot", "pip of the station double"),
        Field("train_tiles", (tr, t), float(t), "rank", "position of each tile on each train: 1 = next to the station; 0 = not on it (trains of seats 0..P-1, then Mexican)"),
        Field("train_end", (tr, v), 1, "one-hot", "open-end pip of each train (a train not in play, a knocked-out seat's or the Mexican train when not used, shows the station pip)"),
        Field("train_in_play", (tr,), 1, "flag", "train exists this round (seat not eliminated; Mexican train used)"),
        Field("marker", (p,), 1, "flag", "seat's marker is down: its train is public"),
        Field("open_double_order", (tr,), float(tr), "rank", "1 = oldest open double that obliges every player, 2 = next...; 0 = none"),
        Field("current_player", (p,), 1, "one-hot", "seat acting now (zeros once the round is over)"),
        Field("phase", (len(PHASE_NAMES),), 1, "one-hot", "turn phase of the current player: " + ", ".join(PHASE_NAMES)),
        Field("turn_doubles", (tr,), float(tr), "rank", "doubles the current player placed this turn, in order (1 = first)"),
        Field("drawn_tile", (t,), 1, "one-hot", "tile the current player just drew for its present obligation (hidden)"),
        Field("in_first_turn", (1,), 1, "flag", "the current turn is the current player's first of the round"),
        Field("first_turn_pending", (p,), 1, "flag", "seat has not started its first turn of the round"),
        Field("missing_pips", (p, v), 1, "flag", "pips each seat is publicly known to lack"),
        Field("round_first_player", (p,), 1, "one-hot", "seat that started the round"),
        Field("stations_used", (v,), 1, "flag", "station pips already used in the current pass over N..0"),
        Field("seat_active", (p,), 1, "flag", "seat still in the game (elimination)"),
        Field("round_over", (1,), 1, "flag", "the round has ended (only seen between a round end and the next deal)"),
        Field("round_index", (1,), rounds_high, "rounds", "rounds played before this one in the episode's game (stops at 1,000)"),
        Field("scores", (p,), scores_high, "points", "game totals so far, in points (seat order)"),
    ]  # fmt: skip


def line_state_fields(num_players: int, max_pip: int, scores_high: float = 1e7,
                      rounds_high: float = 1000.0) -> list[Field]:
    """The spec table of the line-game (block, draw, Cuban) global state for P seats, double-N
    (``scores_high`` / ``rounds_high`` as in :func:`mexican_train_state_fields`)."""
    p, v = num_players, max_pip + 1
    t = tile_count(max_pip)
    return [
        Field("hands", (p, t), 1, "flag", "tiles in each seat's hand (seat order; hidden from the other seats)"),
        Field("boneyard", (t,), float(t), "rank", "draw order of the boneyard: 1 = drawn next...; 0 = not in the boneyard (hidden)"),
        Field("out_of_play", (t,), 1, "flag", "tiles dealt to nobody this round (block game; hidden)"),
        Field("line", (t,), float(t), "rank", "position of each tile on the table, 1 = leftmost; 0 = not placed"),
        Field("left_end", (v,), 1, "one-hot", "pip of the left open end (zeros before the lead)"),
        Field("right_end", (v,), 1, "one-hot", "pip of the right open end (zeros before the lead)"),
        Field("current_player", (p,), 1, "one-hot", "seat acting now (zeros once the round is over)"),
        Field("leader", (p,), 1, "one-hot", "seat that leads the round, the 'mano'"),
        Field("forced_lead", (t,), 1, "one-hot", "tile the leader must lead (first round: highest double); zeros otherwise"),
        Field("in_first_turn", (1,), 1, "flag", "the current turn is the current player's first of the round"),
        Field("first_turn_pending", (p,), 1, "flag", "seat has not started its first turn of the round"),
        Field("doubles_dealt", (p,), float(v), "tiles", "doubles dealt to each seat this round (Cuban annulment; hidden)"),
        Field("drew", (p,), 1, "flag", "seat drew since its last placement or pass"),
        Field("missing_pips", (p, v), 1, "flag", "pips each seat is publicly known to lack"),
        Field("round_over", (1,), 1, "flag", "the round has ended (only seen between a round end and the next deal)"),
        Field("round_winner", (p,), 1, "one-hot", "seat that won the last finished round (the leader after an annulment; zeros before any)"),
        Field("annulments", (1,), rounds_high, "rounds", "rounds annulled so far in the game"),
        Field("round_index", (1,), rounds_high, "rounds", "rounds played before this one in the episode's game (stops at 1,000)"),
        Field("scores", (p,), scores_high, "points", "game totals so far (seat order)"),
    ]  # fmt: skip


@cache
def mexican_train_state_spec(num_players: int = 4, max_pip: int = 12, scores_high: float = 10000.0,
                             rounds_high: float = 1000.0) -> ObservationSpec:
    """The spec of the Mexican Train global state (see :func:`mexican_train_state_fields`)."""
    return ObservationSpec(mexican_train_state_fields(num_players, max_pip, scores_high, rounds_high))


@cache
def line_state_spec(num_players: int = 4, max_pip: int = 6, scores_high: float = 1e7,
                    rounds_high: float = 1000.0) -> ObservationSpec:
    """The spec of the line-game global state (see :func:`line_state_fields`)."""
    return ObservationSpec(line_state_fields(num_players, max_pip, scores_high, rounds_high))


class StateEncoderBase:
    """Writes an engine state into its global-state array.

    Attributes:
        spec: the state's spec; ``spec.space`` equals ``env.state_space`` (float32 Box, low 0; each env holds its own copy).
    """

    spec: ObservationSpec

    def decode(self, state: np.ndarray) -> dict[str, np.ndarray]:
        """Named views of a state array: ``{field: array of the field's shape}``.

        Raises:
            ConfigError (a ValueError): ``state`` does not have shape ``(spec.size,)``.
        """
        return self.spec.decode(state)

    def encode(self, st) -> np.ndarray:
        """The global state of engine state ``st``: float32 array of shape ``(spec.size,)``."""
        out = np.zeros(self.spec.size, dtype=np.float32)
        self._write(st, self.spec.decode(out))  # the views write through into ``out``
        return out

    def _write(self, st, v: dict[str, np.ndarray]) -> None:
        raise NotImplementedError

    def _common(self, st, v: dict[str, np.ndarray]) -> None:
        """Blocks both games share (hands, boneyard, missing pips, turn, totals). The totals are
        clipped at their bounds, the observation's (past 1,000 rounds, say), so the state stays in
        ``state_space`` as the observation stays in its space."""
        for s, hand in enumerate(st.hands):
            v["hands"][s, bits(hand)] = 1
            v["missing_pips"][s, bits(st.missing[s])] = 1
        if st.boneyard:  # stored with the next draw last
            v["boneyard"][st.boneyard[::-1]] = np.arange(1, len(st.boneyard) + 1)
        v["out_of_play"][bits(st.out_of_play)] = 1
        if not st.round_over:
            v["current_player"][st.current_player] = 1
            v["in_first_turn"][0] = st.in_first_turn
        v["first_turn_pending"][:] = st.first_turn_pending
        v["round_over"][0] = st.round_over
        scores_high, rounds_high = self._highs
        v["round_index"][0] = min(st.round_index, rounds_high)
        v["scores"][:] = np.minimum(st.scores, scores_high)


class MexicanTrainStateEncoder(StateEncoderBase):
    """Global state of a Mexican Train game (fields: :func:`mexican_train_state_fields`)."""

    def __init__(self, config: MexicanTrainConfig, obs_spec: ObservationSpec):
        self.config = config
        self._highs = _totals(obs_spec)
        self.spec = mexican_train_state_spec(config.num_players, config.max_pip, *self._highs)
        self._index = {tile: i for i, tile in enumerate(tile_table(config.max_pip))}

    def _write(self, st: MexicanTrainState, v: dict[str, np.ndarray]) -> None:
        self._common(st, v)
        p, index = self.config.num_players, self._index
        v["station"][st.station] = 1
        for train, tiles in enumerate(st.trains):
            for pos, (a, b) in enumerate(tiles, 1):
                v["train_tiles"][train, index[(a, b) if a <= b else (b, a)]] = pos
            v["train_end"][train, st.ends[train]] = 1
        v["train_in_play"][:p] = st.active
        v["train_in_play"][p] = self.config.use_mexican_train
        v["marker"][:] = st.markers
        for k, train in enumerate(st.open_doubles, 1):
            v["open_double_order"][train] = k
        if not st.round_over:
            v["phase"][st.phase] = 1
            for k, train in enumerate(st.turn_doubles, 1):
                v["turn_doubles"][train] = k
            if st.drawn_tile >= 0:
                v["drawn_tile"][st.drawn_tile] = 1
        v["round_first_player"][st.round_first_player] = 1
        v["stations_used"][sorted(st._used_stations)] = 1
        v["seat_active"][:] = st.active


class LineStateEncoder(StateEncoderBase):
    """Global state of a block / draw / Cuban game (fields: :func:`line_state_fields`)."""

    def __init__(self, config: LineConfig, obs_spec: ObservationSpec):
        self.config = config
        self._highs = _totals(obs_spec)
        self.spec = line_state_spec(config.num_players, config.max_pip, *self._highs)
        self._index = {tile: i for i, tile in enumerate(tile_table(config.max_pip))}

    def _write(self, st: LineState, v: dict[str, np.ndarray]) -> None:
        self._common(st, v)
        index = self._index
        for pos, (a, b) in enumerate(st.line, 1):
            v["line"][index[(a, b) if a <= b else (b, a)]] = pos
        if st.line:
            v["left_end"][st.left] = 1
            v["right_end"][st.right] = 1
        v["leader"][st.leader] = 1
        if st.forced_lead >= 0:
            v["forced_lead"][st.forced_lead] = 1
        v["doubles_dealt"][:] = st.doubles_dealt
        v["drew"][:] = st._drew
        if st.winner_seat >= 0:
            v["round_winner"][st.winner_seat] = 1
        v["annulments"][0] = min(st.annulments, self._highs[1])  # rounds: the same bound
