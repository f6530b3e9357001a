"""Which constrained seats the belief sampler deals through its exact class table
(``InformationState._table``, bounded by ``MAX_TABLE``) and which it checks by rejection, on a
hand-built block position, and the table's count of the deals (one possible deal is sampled,
none refused by name); the distribution is tested in ``test_belief.py``."""

from __future__ import annotations

import numpy as np
import pytest

import domino_env.core.belief as belief
from domino_env.core.belief import BeliefError, InformationState
from domino_env.core.config import line_from_preset
from domino_env.core.line import LineState


def _block_position(hands, moves, lacks):
    """Block, 3 seats, 4 tiles each, seat 0 leads: play ``moves`` (a tile, or None for a pass), then
    seat 0 decides; ``lacks`` are the pips each seat is then known to lack."""
    cfg = line_from_preset("block", num_players=3, hand_size=4)
    state = LineState.new_game(cfg, None, {"hands": hands, "first_player": 0})
    for move in moves:
        if move is None:
            state.apply(state.pass_action)
        else:
            tile = state._t.tiles.index(tuple(sorted(move)))
            state.apply(next(a for a in state.legal_actions() if a < state.draw_action and a // 2 == tile))
    assert state.current_player == 0 and [state.missing_pips(s) for s in range(3)] == lacks
    return state


def _two_constrained_seats():
    """6-6; seat 1 passes (lacks 6); seat 2 6-5; seat 0 5-3; seat 1 3-2; seat 2 passes (lacks 6 and
    2). Seat 0 sees 5 unseen tiles seat 1 cannot hold and 9 seat 2 cannot; both hold 3 tiles."""
    hands = [[[6, 6], [5, 3], [2, 1], [0, 0]], [[3, 2], [1, 0], [4, 4], [4, 1]], [[6, 5], [5, 5], [4, 0], [3, 3]]]
    return _block_position(hands, ((6, 6), None, (6, 5), (5, 3), (3, 2), None), [[], [6], [2, 6]])


def test_the_most_constrained_seat_goes_in_the_table_first(monkeypatch):
    """Each seat alone needs a table of 8 cells (4 hand sizes x (1 class + 1)), both 48: with
    MAX_TABLE 8 only one fits and it is seat 2 (9 forbidden tiles, the module docstring's "most
    constrained seats that fit"), seat 1 is checked by rejection; at MAX_TABLE 7 neither fits;
    by default both are in the table. Kills: the sort key's minus removed (the least constrained
    first), ``<=`` read as ``<``, the fit check or ``chosen = trial`` deleted or negated, the
    rejected seats taken as the chosen ones, ``_table_cells`` counting no class or the wrong ones."""
    state = _two_constrained_seats()
    info = InformationState.from_state(state, 0)
    assert [f.bit_count() for f in info.forbidden] == [0, 5, 9] and info.hand_sizes == [2, 3, 3]
    assert [belief._table_cells(info.unseen, [info.forbidden[s]], [3]) for s in (1, 2)] == [8, 8]
    assert belief._table_cells(info.unseen, info.forbidden[1:], [3, 3]) == 48
    assert info._table() == ([1, 2], [])
    for limit, expected in ((48, ([1, 2], [])), (47, ([2], [1])), (8, ([2], [1])), (7, ([], [1, 2]))):
        monkeypatch.setattr(belief, "MAX_TABLE", limit)
        info = InformationState.from_state(state, 0)
        assert info._table() == expected, limit
        rng = np.random.default_rng(limit)
        for _ in range(20):  # every split keeps the constraints
            sample = info.sample(rng)
            assert not sample.hands[1] & info.forbidden[1] and not sample.hands[2] & info.forbidden[2]
            assert sample.hands[0] == state.hands[0] and [h.bit_count() for h in sample.hands] == [2, 3, 3]



def test_table_sizes_count_the_classes_of_seats_allowed_to_hold_a_tile():
    """6-6; seat 1 passes (lacks 6); seat 2 6-5; seat 0 6-3; seat 1 5-2; seat 2 passes (lacks 2 and
    3). Seat 0 holds 6-2, so no unseen tile is barred to both seats: the unseen tiles fall in three
    classes (either seat, seat 1 only, seat 2 only), a table of 4 x 4 x (3 + 1) = 64 cells.
    Kills: classes keyed by the seats barred instead of allowed, the wrong key discarded (1, not
    the empty class): 48 cells each."""
    hands = [[[6, 6], [6, 3], [6, 2], [1, 1]], [[5, 2], [1, 0], [4, 4], [4, 1]], [[6, 5], [0, 0], [4, 0], [5, 5]]]
    state = _block_position(hands, ((6, 6), None, (6, 5), (6, 3), (5, 2), None), [[], [6], [2, 3]])
    info = InformationState.from_state(state, 0)
    assert [f.bit_count() for f in info.forbidden] == [0, 3, 10] and info.hand_sizes == [2, 3, 3]
    assert not info.forbidden[1] & info.forbidden[2]
    assert [belief._table_cells(info.unseen, [info.forbidden[s]], [3]) for s in (1, 2)] == [8, 8]
    assert belief._table_cells(info.unseen, info.forbidden[1:], [3, 3]) == 64


def _one_tile_allowed():
    """Block, 2 seats, no double dealt: seat 0 must lead the heaviest tile, 0-3, and keeps one tile;
    seat 1 (1-2, 0-2) decides. Of the 25 unseen tiles only 0-1 is not above 0-3."""
    cfg = line_from_preset("block", num_players=2, hand_size=2)
    state = LineState.new_game(cfg, None, {"hands": [[[0, 3], [0, 1]], [[1, 2], [0, 2]]]})
    assert state._t.tiles[state.forced_lead] == (0, 3)
    state.apply(state.legal_actions()[0])
    info = InformationState.from_state(state, 1)
    assert info.unseen.bit_count() == 25 and info.forbidden[0] == info.unseen & ~(1 << state._t.tiles.index((0, 1)))
    return state, info


def test_a_constrained_hand_with_one_possible_deal_is_sampled():
    """Exactly one way to fill seat 0's hand (the table's count is 1, not 0): every sample gives it
    0-1 and the other 24 tiles are out of play. Kills: the "no deal" check ``<= 0`` read as
    ``<= 1``."""
    state, info = _one_tile_allowed()
    assert info._table() == ([0], [])
    rng = np.random.default_rng(0)
    for _ in range(5):
        sample = info.sample(rng)
        assert sample.hands[0] == 1 << state._t.tiles.index((0, 1)) and sample.out_of_play.bit_count() == 24


def test_constraints_no_deal_can_meet_are_refused_by_name():
    """Seat 0 barred from every unseen tile but holding one (information no real position gives):
    sampling raises the named BeliefError, not a numpy error from all-zero weights. Kills: the
    "no deal satisfies" check deleted or read as ``< 0``."""
    state, info = _one_tile_allowed()
    info.forbidden[0] = info.unseen
    with pytest.raises(BeliefError, match="no deal satisfies the known constraints"):
        info.sample(np.random.default_rng(0))
