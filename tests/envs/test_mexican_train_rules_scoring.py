"""Hand-built scenario tests for the end of a Mexican Train round, scoring and rewards
(docs/rules.md §1.5), written from the rules.

Source of truth, contract and notation: the docstring of ``mexican_train_slot_helpers``.
"""

from __future__ import annotations

import pytest
from mexican_train_slot_helpers import (
    act,
    all_terminated,
    assert_round,
    cumulative_of,
    draw,
    legal_moves,
    moves,
    pass_,
    pass_until_over,
    rewards_of,
    start,
    state,
    train,
)

# ---------------------------------------------------------------------------
# 1.5 end of round, scoring and rewards
# ---------------------------------------------------------------------------

OUT_HANDS = [[(4, 9)], [(1, 2), (3, 3)], [(0, 0), (5, 6)], [(7, 8)]]


def test_round_ends_when_last_tile_placed():
    """docs/rules.md §0 / 1.5: placing the last tile ends the round at once; winners = [that seat];
    each other seat scores the pips left in its hand; outcome rewards: winner +1, the three
    others share -1 (-1/3 each)."""
    e = start(OUT_HANDS, [(0, 1)])
    act(e, (4, 9), 0)
    assert all_terminated(e)
    assert state(e).round_over
    assert_round(e, "went_out", [0], [0, 9, 11, 15], [0, 9, 11, 15])
    expected = [1.0, -1 / 3, -1 / 3, -1 / 3]
    assert rewards_of(e) == pytest.approx(expected)
    assert cumulative_of(e) == pytest.approx(expected)


def test_points_reward_is_minus_points_over_100():
    """Contract rewards: reward="points": every seat gets -(its points this round)/100;
    double_blank_points=10 counts the (0,0) as 10 (docs/rules.md §1.5)."""
    e = start(OUT_HANDS, [(0, 1)], reward="points", double_blank_points=10)
    act(e, (4, 9), 0)
    assert_round(e, "went_out", [0], [0, 9, 21, 15], [0, 9, 21, 15])
    expected = [0.0, -0.09, -0.21, -0.15]
    assert rewards_of(e) == pytest.approx(expected)
    assert cumulative_of(e) == pytest.approx(expected)


def test_going_out_on_another_seats_marked_train_ends_round():
    """docs/rules.md §0 / 1.5: the round ends whatever train took the last tile (here seat 0's
    marked train, slot 1 seen from seat 1)."""
    e = start([[(1, 2), (3, 4)], [(5, 9)]], [(6, 7)], first_turn="any")
    draw(e)
    pass_(e)
    assert legal_moves(e) == moves(e, ((5, 9), 0), ((5, 9), 1), ((5, 9), 2))
    act(e, (5, 9), 1)
    assert all_terminated(e)
    assert train(e, 0) == [(9, 5)]
    assert_round(e, "went_out", [1], [23, 0], [23, 0])
    assert cumulative_of(e) == pytest.approx([-1.0, 1.0])


@pytest.mark.parametrize("doubles", ["satisfy", "double_double", "chain", "no_cover"])
def test_last_tile_double_ends_round_without_cover(doubles):
    """docs/rules.md §0 and 1.4 ("In every mode: if the tile placed was the player's last, the round
    ends at once"): a double as last tile wins although it would otherwise oblige."""
    e = start([[(4, 9), (4, 4)], [(1, 9), (2, 3), (5, 6)]], [(0, 7)], doubles=doubles)
    act(e, (4, 9), 0)
    assert legal_moves(e) == moves(e, ((1, 9), 0))
    act(e, (1, 9), 0)
    assert legal_moves(e) == moves(e, ((4, 4), 0))
    act(e, (4, 4), 0)
    assert all_terminated(e)
    assert_round(e, "went_out", [0], [0, 16], [0, 16])


def test_covering_own_double_with_last_tile_ends_round():
    """docs/rules.md §1.4 satisfy + 0: the cover of one's own double may be the last tile; the round
    ends at once."""
    e = start([[(4, 9), (4, 4), (1, 4)], [(1, 9), (2, 3), (5, 6)]], [(0, 7)])
    act(e, (4, 9), 0)
    act(e, (1, 9), 0)
    act(e, (4, 4), 0)
    assert legal_moves(e) == moves(e, ((1, 4), 0))
    act(e, (1, 4), 0)
    assert all_terminated(e)
    assert train(e, 0) == [(9, 4), (4, 4), (4, 1)]
    assert_round(e, "went_out", [0], [0, 16], [0, 16])


def test_double_not_last_tile_obliges_cover_contrast():
    """docs/rules.md §1.4 satisfy (contrast to the test above): the same double, when it is not the
    last tile, does not end the round and the player must now cover it (here: DRAW only)."""
    e = start([[(4, 9), (4, 4), (1, 2)], [(1, 9), (2, 3), (5, 6)]], [(0, 7)])
    act(e, (4, 9), 0)
    act(e, (1, 9), 0)
    act(e, (4, 4), 0)
    assert not all_terminated(e)
    assert e.agent_selection == "player_0"
    assert legal_moves(e) == ["DRAW"]


def test_drawn_double_gives_a_new_obligation_and_one_new_draw():
    """docs/rules.md §1.3.3 + 1.4 satisfy + contract points 2 and 5: a drawn double that fits must
    be placed; covering it is a new obligation that allows one new draw; a drawn cover must be
    placed on that double; the turn then ends."""
    e = start([[(4, 9), (1, 2)], [(8, 9), (0, 1), (2, 3)]], [(4, 4), (4, 6), (5, 7)])
    act(e, (4, 9), 0)
    act(e, (8, 9), 0)
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((4, 4), 0))
    act(e, (4, 4), 0)
    assert e.agent_selection == "player_0"
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((4, 6), 0))
    act(e, (4, 6), 0)
    assert train(e, 0) == [(9, 4), (4, 4), (4, 6)]
    assert list(state(e).open_doubles) == []
    assert e.agent_selection == "player_1"
    assert not state(e).has_marker(0)


def test_drawn_double_left_open_after_second_draw_fails():
    """docs/rules.md §1.4 satisfy: the second draw does not cover -> PASS only, marker down, the
    double stays open and the next player may only cover it (here after its own draw)."""
    e = start([[(4, 9), (1, 2)], [(8, 9), (0, 1), (2, 3)]], [(4, 4), (5, 7), (3, 4)])
    act(e, (4, 9), 0)
    act(e, (8, 9), 0)
    draw(e)
    act(e, (4, 4), 0)
    draw(e)
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).has_marker(0)
    assert list(state(e).open_doubles) == [0]
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((3, 4), 1))


def test_a_drawn_tile_that_covers_ones_own_double_is_placed_under_may_play_too():
    """docs/rules.md §1.4 satisfy ("if it covers, it is placed"): a draw made to cover one's own
    double leaves no choice under drawn_tile="may_play" either; until 2026-12-04 the engine let
    the covering tile be kept (PASS legal), against seed 002 ("el jugador que
    pueda debe terminarlo obligatoriamente")."""
    e = start(
        [[(4, 9), (4, 4), (1, 2)], [(1, 9), (3, 9), (2, 3)]],
        [(4, 6), (0, 0)],
        drawn_tile="may_play",
    )
    act(e, (4, 9), 0)
    act(e, (1, 9), 0)
    act(e, (4, 4), 0)
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((4, 6), 0))  # no PASS: the drawn tile covers
    act(e, (4, 6), 0)
    assert list(state(e).open_doubles) == [] and not state(e).has_marker(0)
    # the table is free again: seat 1 may place (3,9) on the Mexican train
    assert e.agent_selection == "player_1"
    assert moves(e, ((3, 9), 2))[0] in legal_moves(e)


def test_a_drawn_tile_that_does_not_cover_leaves_the_double_open_under_may_play():
    """A draw made to cover one's own double that brings no cover: PASS, the train is marked and
    the double stays open, freezing the table for the next player (docs/rules.md §1.4)."""
    e = start(
        [[(4, 9), (4, 4), (1, 2)], [(1, 9), (3, 9), (2, 3)]],
        [(0, 0), (2, 9)],
        drawn_tile="may_play",
    )
    act(e, (4, 9), 0)
    act(e, (1, 9), 0)
    act(e, (4, 4), 0)
    draw(e)  # (0,0) covers nothing: PASS only
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).has_marker(0) and list(state(e).open_doubles) == [0]
    # public knowledge: seat 0 holds no 4 (the drawn tile did not cover either; under may_play
    # it had been forgotten, as if a covering tile might have been kept)
    assert state(e).missing[0] == 1 << 4
    # seat 1 holds (3,9) for the Mexican train, but the table is frozen: DRAW only
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == ["DRAW"]


BLOCK_HANDS = [[(5, 9), (1, 2), (0, 0)], [(3, 4)], [(0, 1), (0, 2)]]


def test_blocked_round_scores_fewest_pips_win_ties_shared():
    """docs/rules.md §1.5 + contract point 10: empty boneyard and nobody can ever place -> round
    "blocked"; everyone scores own pips; winners = all seats with the fewest pips;
    outcome rewards: the two winners share +1, the loser gets -1."""
    e = start(BLOCK_HANDS, [])
    act(e, (5, 9), 0)  # now nobody holds a 5 or a 9
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [0, 2], [3, 7, 3], [3, 7, 3])
    assert cumulative_of(e) == pytest.approx([0.5, -1.0, 0.5])


def test_blocked_round_points_reward():
    """Contract rewards, reward="points" on a blocked round: -(pips)/100 each."""
    e = start(BLOCK_HANDS, [], reward="points")
    act(e, (5, 9), 0)
    pass_until_over(e, limit=3)
    assert cumulative_of(e) == pytest.approx([-0.03, -0.07, -0.03])


def test_blocked_round_void():
    """docs/rules.md §1.5 variant blocked_round="void" + contract: winners [], nothing scored,
    outcome rewards 0 for all."""
    e = start(BLOCK_HANDS, [], blocked_round="void")
    act(e, (5, 9), 0)
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [], [3, 7, 3], [0, 0, 0])
    assert cumulative_of(e) == pytest.approx([0.0, 0.0, 0.0])


def test_blocked_round_void_points_reward_is_zero():
    """reward="points" pays -(points scored)/100, and a void blocked round scores nothing: 0 for
    all, not -(pips left)/100."""
    e = start(BLOCK_HANDS, [], blocked_round="void", reward="points")
    act(e, (5, 9), 0)
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [], [3, 7, 3], [0, 0, 0])
    assert cumulative_of(e) == [0.0, 0.0, 0.0]


def test_blocked_round_double_blank_points():
    """docs/rules.md §1.5 double_blank_points=10 (seed 002): the 0-0 counts 10 pips; that changes
    the blocked-round winner."""
    e = start(BLOCK_HANDS, [], double_blank_points=10)
    act(e, (5, 9), 0)
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [2], [13, 7, 3], [13, 7, 3])
    assert cumulative_of(e) == pytest.approx([-0.5, -0.5, 1.0])


def test_blocked_without_boneyard_variant():
    """docs/rules.md §1.5 + 1.7: with use_boneyard=False nothing can be drawn, so a table where
    nobody can place is blocked although tiles are left over."""
    e = start([[(1, 2)], [(3, 4)]], [], use_boneyard=False)
    pass_until_over(e, limit=2)
    assert_round(e, "blocked", [0], [3, 7], [3, 7])


def test_not_blocked_while_a_new_marker_opens_a_placement():
    """Contract "Blocked = ... no player can ever place again": a cycle of passes is not
    the end when a pass just made a train public that another player can use.

    NOTE for the lead: docs/rules.md §1.5 literally says blocked = "every player in turn has passed
    since the last placement"; here seat 1 and seat 0 both pass after seat 0's placement, yet
    seat 0's pass marks its train and seat 1 can then place (3,6) on it. This test follows the
    contract (and seed 000: "ningún jugador tiene posibilidad de colocar fichas")."""
    e = start([[(1, 2), (3, 9)], [(4, 5), (3, 6)]], [], first_turn="any")
    act(e, (3, 9), 0)
    pass_(e)  # seat 1: nothing fits, seat 0's train private
    pass_(e)  # seat 0: nothing fits; its marker makes its train public
    assert not all_terminated(e)
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == moves(e, ((3, 6), 1))


def test_blocked_by_an_open_double_nobody_can_cover():
    """docs/rules.md §1.4 + 1.5: an open double nobody can cover freezes the table; with an empty
    boneyard nobody can ever place again, although (3,9) would fit the Mexican train:
    blocked."""
    e = start([[(4, 9), (4, 4), (1, 2)], [(1, 9), (3, 9), (2, 3)]], [])
    act(e, (4, 9), 0)
    act(e, (1, 9), 0)
    act(e, (4, 4), 0)
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [0], [3, 17], [3, 17])


def test_blocked_from_the_start():
    """docs/rules.md §1.5: station 9, no hand tile has a 9, empty boneyard: blocked (the engine may
    end at once or after one full cycle of passes)."""
    e = start([[(1, 2)], [(3, 4)], [(0, 1)]], [])
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [2], [3, 7, 1], [3, 7, 1])
