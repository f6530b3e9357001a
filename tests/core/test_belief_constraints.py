"""The belief sampler's per-seat constraints (domino_env/core/belief.py, module docstring) on
hand-built line positions: the exact tiles each other seat is barred from."""

from __future__ import annotations

import numpy as np

from domino_env.core.belief import InformationState
from domino_env.core.config import line_from_preset
from domino_env.core.line import LineState


def _tiles(state, mask):
    return [state._t.tiles[i] for i in range(state._t.num_tiles) if mask >> i & 1]


def test_without_a_double_dealt_the_tiles_above_the_heaviest_lead_are_barred():
    """Constraint 3 when no double was dealt (docs/rules.md §2.1: the heaviest tile leads, ties
    to the higher pip): seat 0 must lead 4-6 (10 pips), so nobody was dealt a double or 5-6 (11),
    and 0-1, 2-3, 4-5 (lighter) are allowed; the leader's own decision bars the same tiles for
    seat 1. Kills: the non-double key ranking by a - b instead of the pip total."""
    cfg = line_from_preset("block", num_players=2, hand_size=2)
    state = LineState.new_game(cfg, None, {"hands": [[[4, 6], [0, 1]], [[2, 4], [1, 2]]]})
    assert state.current_player == 0 and state._t.tiles[state.forced_lead] == (4, 6)
    above = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (5, 6), (6, 6)]
    assert _tiles(state, InformationState.from_state(state, 0).forbidden[1]) == above
    state.apply(state.legal_actions()[0])  # 4-6 is led; seat 1 (2-4) decides
    info = InformationState.from_state(state, 1)
    assert _tiles(state, info.forbidden[0]) == above and info.forbidden[1] == 0
    rng = np.random.default_rng(0)
    held = set()
    for _ in range(200):
        held.update(_tiles(state, info.sample(rng).hands[0]))
    assert held & {(0, 1), (2, 3), (4, 5)} and not held & set(above)


def test_a_forced_lead_of_the_first_tile_bars_the_tiles_above_it_too():
    """The leader's own decision before its forced lead (docs/rules.md §2.1): 0-0 is the only
    double dealt, so seat 0 must lead it, and seat 1 holds no other double. 0-0 is tile 0 of the
    set, the engine's ``forced_lead`` 0; once it is led (tile 0 the lead tile), seat 1's decision
    bars the same doubles from seat 0. Kills: ``forced_lead >= 0`` or ``lead_tile >= 0`` read as
    ``> 0`` or ``>= 1`` (nothing barred)."""
    cfg = line_from_preset("block", num_players=2, hand_size=2)
    state = LineState.new_game(cfg, None, {"hands": [[[0, 0], [1, 2]], [[0, 3], [2, 4]]]})
    assert state.current_player == 0 and state.forced_lead == 0
    doubles = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6)]
    assert _tiles(state, InformationState.from_state(state, 0).forbidden[1]) == doubles
    state.apply(state.legal_actions()[0])  # 0-0 is led; seat 1 (0-3) decides
    assert state.actions == [0] and state.current_player == 1
    assert _tiles(state, InformationState.from_state(state, 1).forbidden[0]) == doubles


def test_the_ends_a_placement_left_decide_which_tiles_one_must_keep_in_play():
    """Constraint 4 (the round did not end blocked): block, 2 seats. Seat 0 leads 1-4 (ends 1 and
    4), seat 1 plays 1-3 on the 1 (ends 3 and 4), seat 0 holds 0-0 and 2-2 and must pass. Some
    tile carrying a 3 or a 4 was in seat 1's hand, so the one constraint-4 mask is exactly the
    unseen tiles with a 3 or a 4 (not those with a 1, the end 1-3 covered); the lead was given
    (``first_player``), not forced, so nothing is barred for being above it. Kills: the placement
    on the left end (action end 0) moving the right end instead; tiles above a lead that was not
    forced barred."""
    cfg = line_from_preset("block", num_players=2, hand_size=3)
    hands = [[[1, 4], [0, 0], [2, 2]], [[1, 3], [4, 5], [6, 6]]]
    state = LineState.new_game(cfg, None, {"hands": hands, "first_player": 0})
    tiles = state._t.tiles
    state.apply(2 * tiles.index((1, 4)))
    state.apply(2 * tiles.index((1, 3)))  # end 0: the left end, the 1
    assert (state.left, state.right) == (3, 4) and state.legal_actions() == [state.pass_action]
    info = InformationState.from_state(state, 0)
    assert info.forbidden == [0, 0] and len(info.needs) == 1
    assert _tiles(state, info.needs[0]) == [(0, 3), (0, 4), (2, 3), (2, 4), (3, 3), (3, 4), (3, 5), (3, 6),
                                            (4, 4), (4, 5), (4, 6)]  # fmt: skip
    rng = np.random.default_rng(1)
    for _ in range(50):
        sample = info.sample(rng)
        assert sample.hands[1] & info.needs[0] and not sample._nobody_can_place()


def test_a_placement_that_left_a_0_end_needs_a_tile_with_a_0_kept():
    """Constraint 4 with an end of 0: seat 0 leads 0-4, seat 1 plays 4-5 (ends 0 and 5), seat 0
    holds 1-1 and 2-2 and must pass: the mask is the unseen tiles with a 0 or a 5, 0-0 among them.
    Kills: the tiles placed later starting as tile 0 (0-0) instead of none (no mask at all)."""
    cfg = line_from_preset("block", num_players=2, hand_size=3)
    hands = [[[0, 4], [1, 1], [2, 2]], [[4, 5], [0, 3], [6, 6]]]
    state = LineState.new_game(cfg, None, {"hands": hands, "first_player": 0})
    tiles = state._t.tiles
    state.apply(2 * tiles.index((0, 4)))
    state.apply(2 * tiles.index((4, 5)) + 1)  # end 1: the right end, the 4
    assert {state.left, state.right} == {0, 5} and state.legal_actions() == [state.pass_action]
    info = InformationState.from_state(state, 0)
    assert [_tiles(state, need) for need in info.needs] == [
        [(0, 0), (0, 1), (0, 2), (0, 3), (0, 5), (0, 6), (1, 5), (2, 5), (3, 5), (5, 5), (5, 6)]
    ]


def test_a_later_round_led_with_any_tile_bars_nothing_above_its_lead():
    """Constraint 3 binds only in a round whose lead was forced: round 1 (forced 6-6) ends blocked,
    round 2 is led by seat 1 (``next_lead="next_seat"``) with any tile, 2-3, and seat 0 decides.
    Its deal record gives ``first_player`` 1, so nothing is barred above 2-3, and samples give seat
    1 doubles and tiles heavier than 2-3. Kills: the first round's deal record (``deals[0]``, a
    forced lead) read instead of the current round's."""
    cfg = line_from_preset("block", num_players=2, hand_size=2)
    state = LineState.new_game(cfg, None, {"hands": [[[6, 6], [5, 5]], [[0, 1], [0, 2]]]})
    assert state.deals[0]["first_player"] is None
    while not state.round_over:
        state.apply(state.legal_actions()[0])
    state.start_next_round(None, {"hands": [[[0, 0], [1, 2]], [[2, 3], [4, 4]]]})
    assert state.current_player == 1 and state.forced_lead == -1 and state.deals[1]["first_player"] == 1
    state.apply(2 * state._t.tiles.index((2, 3)))
    info = InformationState.from_state(state, 0)
    assert info.forbidden == [0, 0] and info.needs == []
    rng = np.random.default_rng(2)
    held = set()
    for _ in range(100):
        held.update(_tiles(state, info.sample(rng).hands[1]))
    assert {(4, 4), (6, 6), (0, 6), (5, 6)} <= held


def test_the_observers_own_lacks_bar_nothing():
    """``forbidden`` is 0 for the observer (the class docstring) even when it is publicly known to
    lack pips: seat 1 leads 2-3 (given, not forced), seat 0 passes (lacks 2 and 3), seat 1 plays
    3-4 and seat 0 decides. Kills: the observer's own lack set read into ``forbidden[seat]``."""
    cfg = line_from_preset("block", num_players=2, hand_size=3)
    hands = [[[0, 0], [1, 1], [5, 6]], [[2, 3], [3, 4], [4, 4]]]
    state = LineState.new_game(cfg, None, {"hands": hands, "first_player": 1})
    tiles = state._t.tiles
    state.apply(2 * tiles.index((2, 3)))
    state.apply(state.pass_action)
    state.apply(2 * tiles.index((3, 4)) + 1)  # end 1: the right end, the 3
    assert state.current_player == 0 and state.missing_pips(0) == [2, 3]
    assert InformationState.from_state(state, 0).forbidden == [0, 0]
