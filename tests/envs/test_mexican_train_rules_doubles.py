"""Hand-built scenario tests for Mexican Train doubles (docs/rules.md §1.4): the modes satisfy
(default), double_double, chain and no_cover, and a double as the last tile.

Source of truth, contract and notation: the docstring of ``mexican_train_seat_helpers``.
"""

from __future__ import annotations

import pytest
from mexican_train_rules_helpers import hand, tile_index
from mexican_train_seat_helpers import (
    DRAW,
    PASS,
    M,
    act,
    deal,
    draw,
    expect,
    make,
    open_doubles,
    pass_,
    place_action,
    seat_of,
    st,
    tiles,
)

from domino_env.envs.infos import Termination, seats_of

MODES = ["satisfy", "double_double", "chain", "no_cover"]


# --------------------------------------------------------------------------------------------
# doubles="satisfy" (default)
# --------------------------------------------------------------------------------------------


def test_satisfy_is_default_and_after_a_double_only_covers_are_legal():
    """docs/rules.md §1.4 satisfy (contract 5): after placing a double the same player acts again and
    the only legal placements cover that double: not a second double elsewhere (double_double),
    not another tile elsewhere (chain / no_cover); the cover ends the turn and the double is no
    longer open."""
    env = make(first_turn="any")
    deal(
        env,
        hands=[
            [(9, 5), (5, 7), (1, 2), (2, 3)],
            [(9, 4), (4, 4), (4, 6), (4, 8), (7, 7), (1, 7)],
        ],
        boneyard=[(0, 0), (0, 1)],
    )
    assert st(env).config.doubles == "satisfy"
    act(env, (9, 5), M)  # s0 starts the Mexican train
    act(env, (9, 4), 1)
    act(env, (5, 7), M)
    # before the double: s1 may play on its own train (end 4) or the Mexican train (end 7)
    expect(env, 1, [((4, 4), 1), ((4, 6), 1), ((4, 8), 1), ((7, 7), M), ((1, 7), M)])
    act(env, (4, 4), 1)
    # same player again; only covers of 4-4 on its own train
    expect(env, 1, [((4, 6), 1), ((4, 8), 1)])
    act(env, (4, 6), 1)
    assert seat_of(env) == 0
    assert tiles(env, 1) == [(9, 4), (4, 4), (4, 6)]
    assert st(env).open_end(1) == 6
    assert open_doubles(env) == []
    assert not st(env).has_marker(1)


def test_satisfy_cannot_cover_draws_and_must_place_a_covering_draw():
    """docs/rules.md §1.4 satisfy + 1.3.3 (contract 2, 5): a player who cannot cover their double may
    only DRAW; a drawn tile that covers must be placed there (no PASS, no other placement)."""
    env = make(first_turn="any")
    deal(
        env,
        hands=[[(9, 5), (1, 2), (2, 3)], [(5, 5), (9, 4), (3, 3), (0, 1)]],
        boneyard=[(5, 7), (1, 1), (0, 0)],
    )
    act(env, (9, 5), M)
    act(env, (5, 5), M)
    expect(env, 1, [DRAW])  # (9,4) would fit s1's own train, but the double must be covered
    draw(env)
    assert st(env).boneyard_size == 2
    expect(env, 1, [((5, 7), M)])  # must_play: no PASS
    act(env, (5, 7), M)
    assert seat_of(env) == 0
    assert tiles(env, M) == [(9, 5), (5, 5), (5, 7)]
    assert open_doubles(env) == []
    assert not st(env).has_marker(1)
    assert hand(env, 1) == [(0, 1), (3, 3), (4, 9)]


def test_satisfy_uncovered_double_stays_open_and_freezes_the_table():
    """docs/rules.md §1.4 (satisfy; open doubles): a non-covering draw leaves PASS only; the pass puts
    the marker down and the double stays open (state.open_doubles); the next player may only
    cover it, otherwise DRAW then PASS (and marks their own train), even when the drawn tile fits
    elsewhere. The owner whose marker is down who covers their own open double removes the marker
    (marker_removal="own_train_play"), and the train is private again."""
    env = make(first_turn="any")
    deal(
        env,
        hands=[[(9, 0), (0, 2), (2, 3), (6, 8)], [(9, 4), (4, 4), (1, 3), (0, 5)]],
        boneyard=[(1, 5), (2, 7), (4, 6), (8, 8)],
    )
    act(env, (9, 0), 0)
    act(env, (9, 4), 1)
    act(env, (0, 2), 0)
    act(env, (4, 4), 1)
    expect(env, 1, [DRAW])
    draw(env)  # (1,5) does not cover 4-4
    expect(env, 1, [PASS])
    pass_(env)
    assert st(env).has_marker(1)
    assert open_doubles(env) == [1]
    assert tiles(env, 1) == [(9, 4), (4, 4)]
    # s0 holds (2,3) which fits its own train (open end 2), but the table is frozen
    expect(env, 0, [DRAW])
    draw(env)  # (2,7) fits s0's own train, still not a cover
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [1]
    # s1 (marker down) still cannot cover: draws (4,6) which covers -> must place it there
    expect(env, 1, [DRAW])
    draw(env)
    expect(env, 1, [((4, 6), 1)])
    act(env, (4, 6), 1)
    assert open_doubles(env) == []
    assert tiles(env, 1) == [(9, 4), (4, 4), (4, 6)]
    assert st(env).open_end(1) == 6
    assert not st(env).has_marker(1), "covering one's own open double removes one's marker"
    assert st(env).has_marker(0)
    # s0 is free again: own train (end 2); train 1 is private again so (6,8) is not legal there
    expect(env, 0, [((2, 3), 0), ((2, 7), 0)])


def test_satisfy_next_player_may_only_cover_and_covering_changes_no_marker():
    """docs/rules.md §1.4: while an open double exists every placement by any player must cover it;
    a player who can cover may do only that (not their own train, not the Mexican train).
    Covering someone else's double changes no marker."""
    env = make(num_players=3, first_turn="any")
    deal(
        env,
        hands=[
            [(9, 5), (5, 5), (0, 1), (1, 2)],
            [(9, 4), (5, 6), (4, 8), (9, 7)],
            [(9, 3), (3, 8), (0, 0)],
        ],
        boneyard=[(2, 2), (0, 3), (1, 7)],
    )
    act(env, (9, 5), 0)
    act(env, (9, 4), 1)
    act(env, (9, 3), 2)
    act(env, (5, 5), 0)
    expect(env, 0, [DRAW])
    draw(env)  # (2,2): no cover
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [0]
    # s1 could play (4,8) on its own train and (9,7) on the Mexican train, but must cover 5-5
    expect(env, 1, [((5, 6), 0)])
    assert place_action(env, (5, 6), 0) == tile_index(5, 6, 9) * 4 + 2  # slot 2 = seat (1+2)%3
    act(env, (5, 6), 0)
    assert open_doubles(env) == []
    assert tiles(env, 0) == [(9, 5), (5, 5), (5, 6)]
    assert st(env).has_marker(0)
    assert not st(env).has_marker(1)
    assert not st(env).has_marker(2)
    # s2 plays freely again: own train end 3; Mexican end 9 (none); train 0 public end 6 (none)
    expect(env, 2, [((3, 8), 2)])


def test_first_turn_own_train_restriction_and_open_double_override_is_unreachable_in_cycle_one():
    """docs/rules.md §1.3.1 (contract 1): with first_turn="own_train" (default) a seat's first turn may
    only start its own train. (The override by an open double, 1.3.1 last sentence, cannot arise:
    during the first cycle every placement starts an own train from the station pip, so no double
    can be placed before every seat has had its first turn. This test checks the restriction
    itself and that it is gone on the second turn.)"""
    env = make(num_players=2)
    deal(
        env,
        hands=[[(9, 5), (9, 6), (5, 1)], [(9, 4), (9, 2), (4, 0)]],
        boneyard=[(0, 0), (1, 1)],
    )
    assert st(env).config.first_turn == "own_train"
    expect(env, 0, [((9, 5), 0), ((9, 6), 0)])  # not the Mexican train
    act(env, (9, 5), 0)
    expect(env, 1, [((9, 4), 1), ((9, 2), 1)])
    act(env, (9, 4), 1)
    expect(env, 0, [((9, 6), M), ((5, 1), 0)])  # second turn: Mexican train allowed
    act(env, (5, 1), 0)
    expect(env, 1, [((9, 2), M), ((4, 0), 1)])


# --------------------------------------------------------------------------------------------
# doubles="double_double"
# --------------------------------------------------------------------------------------------


def test_double_double_second_double_then_cover_either_and_private_open_double():
    """docs/rules.md §1.4 double_double (contract 6): after D1 the player may cover D1 or place a
    second double on another legal train; after D2 they must cover D1 or D2 (either). A double left
    open on the placer's private train obliges the next player, who must cover it there even
    though the train is private (1.4: "even on a private train"); covering it does not make the
    train public."""
    env = make(first_turn="any", doubles="double_double")
    deal(
        env,
        hands=[
            [(9, 3), (3, 3), (5, 5), (3, 6), (5, 7), (3, 5), (0, 1), (0, 7)],
            [(9, 5), (3, 8), (9, 2), (8, 1), (1, 7)],
        ],
        boneyard=[(0, 0), (4, 4)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)  # D1 on s0's own (private) train
    # cover D1, or a second double on another legal train; (5,7)/(3,5) on M are neither
    expect(env, 0, [((3, 6), 0), ((3, 5), 0), ((5, 5), M)])
    act(env, (5, 5), M)  # D2
    expect(env, 0, [((3, 6), 0), ((3, 5), 0), ((3, 5), M), ((5, 7), M)])
    act(env, (5, 7), M)  # covers D2; turn ends, D1 stays open on a private train
    assert open_doubles(env) == [0]
    assert not st(env).has_marker(0)
    assert tiles(env, M) == [(9, 5), (5, 5), (5, 7)]
    # s1: (9,2) fits its own train, (1,7) fits M, but it must cover D1 on s0's private train
    expect(env, 1, [((3, 8), 0)])
    assert place_action(env, (3, 8), 0) == tile_index(3, 8, 9) * 3 + 1
    act(env, (3, 8), 0)
    assert open_doubles(env) == []
    assert tiles(env, 0) == [(9, 3), (3, 3), (3, 8)]
    assert not st(env).has_marker(0), "covering a double on a private train does not mark it"
    expect(env, 0, [((0, 7), M)])
    act(env, (0, 7), M)
    # s1 holds (8,1) which matches train 0's open end 8, but train 0 is private
    expect(env, 1, [((2, 9), 1)])


def test_double_double_failing_marks_and_both_open_doubles_oblige_in_any_order():
    """docs/rules.md §1.4 double_double: failing to cover D1/D2 -> draw one / pass and mark; both open
    doubles must be covered before anyone plays elsewhere, in any order (the mask offers covers
    of both)."""
    env = make(first_turn="any", doubles="double_double")
    deal(
        env,
        hands=[[(9, 3), (3, 3), (5, 5), (0, 1)], [(9, 5), (3, 8), (5, 1), (9, 2)]],
        boneyard=[(0, 2), (6, 6), (4, 4)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [((5, 5), M)])  # no cover held; a second double is a legal placement
    act(env, (5, 5), M)
    expect(env, 0, [DRAW])
    draw(env)  # (0,2) covers neither
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [0, 2]  # oldest first
    # s1: covers of both doubles, nothing else ((9,2) fits its own train)
    expect(env, 1, [((3, 8), 0), ((1, 5), M)])
    act(env, (3, 8), 0)  # the OLDER one first: allowed in this mode
    assert open_doubles(env) == [2]
    expect(env, 0, [DRAW])
    draw(env)  # (6,6)
    expect(env, 0, [PASS])
    pass_(env)
    expect(env, 1, [((1, 5), M)])
    act(env, (1, 5), M)
    assert open_doubles(env) == []


# --------------------------------------------------------------------------------------------
# doubles="chain"
# --------------------------------------------------------------------------------------------


def test_chain_double_gives_free_extra_play_and_turn_ends_after_non_double():
    """docs/rules.md §1.4 chain (contract 7): a double gives another play anywhere legal (not forced to
    cover); another double gives another; the turn ends after a non-double. The double left open
    obliges the next player, even on the placer's private train."""
    env = make(first_turn="any", doubles="chain")
    deal(
        env,
        hands=[
            [(9, 3), (3, 3), (5, 5), (3, 6), (5, 7), (0, 1)],
            [(9, 5), (3, 8), (9, 2), (7, 1)],
        ],
        boneyard=[(0, 0), (1, 1)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [((3, 6), 0), ((5, 5), M), ((5, 7), M)])
    act(env, (5, 5), M)  # second double: another play
    expect(env, 0, [((3, 6), 0), ((5, 7), M)])
    act(env, (5, 7), M)  # non-double: turn ends
    assert tiles(env, M) == [(9, 5), (5, 5), (5, 7)]
    assert open_doubles(env) == [0]
    assert not st(env).has_marker(0)
    expect(env, 1, [((3, 8), 0)])  # cover on s0's private train, nothing else
    act(env, (3, 8), 0)
    assert open_doubles(env) == []
    assert not st(env).has_marker(0)
    assert seat_of(env) == 0


def test_chain_open_doubles_are_covered_newest_first():
    """docs/rules.md §1.4 chain (contract 7): doubles left open oblige the following players in
    reverse order of placement: only the newest open double is coverable."""
    env = make(first_turn="any", doubles="chain")
    deal(
        env,
        hands=[[(9, 3), (3, 3), (5, 5), (0, 1)], [(9, 5), (3, 8), (5, 1), (9, 2)]],
        boneyard=[(0, 2), (6, 6), (4, 4)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [((5, 5), M)])
    act(env, (5, 5), M)
    expect(env, 0, [DRAW])
    draw(env)  # (0,2) fits nothing
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [0, 2]
    # s1 holds (3,8) covering the older double on (public) train 0: not coverable yet
    expect(env, 1, [((1, 5), M)])
    act(env, (1, 5), M)
    assert open_doubles(env) == [0]
    expect(env, 0, [DRAW])
    draw(env)  # (6,6)
    expect(env, 0, [PASS])
    pass_(env)
    expect(env, 1, [((3, 8), 0)])  # (9,2) fits its own train, but 3-3 must be covered
    act(env, (3, 8), 0)
    assert open_doubles(env) == []


# --------------------------------------------------------------------------------------------
# doubles="no_cover"
# --------------------------------------------------------------------------------------------


def test_no_cover_double_gives_one_more_placement_and_obliges_nobody():
    """docs/rules.md §1.4 no_cover (contract 8): a double gives one more placement anywhere legal; the
    uncovered double obliges nobody: the next player plays freely (and cannot touch the private
    train holding it)."""
    env = make(first_turn="any", doubles="no_cover")
    deal(
        env,
        hands=[[(9, 3), (3, 3), (3, 6), (5, 7), (0, 1)], [(9, 5), (3, 8), (9, 2), (7, 4)]],
        boneyard=[(0, 0), (1, 1)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [((3, 6), 0), ((5, 7), M)])
    act(env, (5, 7), M)
    assert open_doubles(env) == []
    assert tiles(env, 0) == [(9, 3), (3, 3)]
    expect(env, 1, [((2, 9), 1), ((4, 7), M)])


@pytest.mark.parametrize("mode", MODES)
def test_uncovered_double_after_pass_obliges_next_player_except_no_cover(mode):
    """docs/rules.md §1.4: the placer cannot play after the double, draws, passes and marks; in
    satisfy / double_double / chain the double is open and the next player may only cover it;
    in no_cover it obliges nobody and the next player plays freely."""
    env = make(first_turn="any", doubles=mode)
    deal(
        env,
        hands=[[(9, 3), (3, 3), (0, 1)], [(9, 5), (3, 8), (9, 2)]],
        boneyard=[(0, 2), (1, 1), (4, 4)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [DRAW])
    draw(env)  # (0,2) fits nothing
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    if mode == "no_cover":
        assert open_doubles(env) == []
        expect(env, 1, [((3, 8), 0), ((2, 9), 1)])  # train 0 is public; not an obligation
    else:
        assert open_doubles(env) == [0]
        expect(env, 1, [((3, 8), 0)])


# --------------------------------------------------------------------------------------------
# A double as the last tile ends the round at once (every mode)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_last_tile_double_ends_round_at_once(mode):
    """docs/rules.md §0 and 1.4 ("In every mode: if the tile placed was the player's last, the round
    ends at once"): nobody has to cover it; termination "went_out", winner = that seat."""
    env = make(first_turn="any", doubles=mode)
    deal(
        env,
        hands=[[(9, 3), (3, 3)], [(9, 5), (1, 2), (4, 6)]],
        boneyard=[(0, 0), (0, 1)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    assert st(env).round_over
    assert all(env.terminations[a] for a in env.possible_agents)
    for a in env.possible_agents:
        info = env.infos[a]
        assert info["termination_code"] == Termination.WENT_OUT
        assert seats_of(info["winners"]) == [0]
        assert list(info["pips"]) == [0, 1 + 2 + 4 + 6]
