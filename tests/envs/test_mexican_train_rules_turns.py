"""Hand-built scenario tests for Mexican Train turns (docs/rules.md §1.3): the first turn, no
voluntary draw, drawing and passing, written from the rules.

Source of truth, contract and notation: the docstring of ``mexican_train_slot_helpers``.
"""

from __future__ import annotations

import numpy as np
import pytest
from mexican_train_rules_helpers import draw_action, hand, pass_action
from mexican_train_slot_helpers import (
    act,
    all_done,
    draw,
    legal_moves,
    moves,
    pass_,
    random_step,
    seat,
    start,
    state,
    train,
)

from domino_env.core.errors import IllegalActionError
from domino_env.envs.mexican_train_v0 import raw_env

# ---------------------------------------------------------------------------
# 1.3.1 first turn, 1.3.2 no voluntary draw, 1.3.3 drawing, 1.3.4 passing
# ---------------------------------------------------------------------------

FIRST_TURN_HANDS = [[(3, 9), (2, 4)], [(5, 9), (1, 2)], [(6, 9), (0, 1)]]


def test_first_turn_default_only_own_train():
    """docs/rules.md §1.3.1 (first_turn="own_train", default): on a seat's first turn the only
    legal placement is starting its own train from the station; not the Mexican train."""
    e = start(FIRST_TURN_HANDS, [(7, 8)])
    assert e.agent_selection == "player_0"
    assert legal_moves(e) == moves(e, ((3, 9), 0))
    act(e, (3, 9), 0)
    assert train(e, 0) == [(9, 3)]
    assert state(e).open_end(0) == 3
    # seat 1's first turn: the Mexican train (slot 3) is still not allowed
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == moves(e, ((5, 9), 0))


def test_first_turn_any_allows_mexican_train():
    """docs/rules.md §1.3.1 variant first_turn="any": the Mexican train is legal on the first turn."""
    e = start(FIRST_TURN_HANDS, [(7, 8)], first_turn="any")
    assert legal_moves(e) == moves(e, ((3, 9), 0), ((3, 9), 3))
    act(e, (3, 9), 3)
    assert train(e, 3) == [(9, 3)]
    assert state(e).open_end(3) == 3
    assert train(e, 0) == []
    assert state(e).open_end(0) == 9  # unstarted train: station pip (1.2)


def test_first_turn_ignores_marked_train_and_restriction_ends_after_draw_and_pass():
    """docs/rules.md §1.3.1 + contract point 1: during the first turn only the own train is legal
    (even a marked train of another seat is not); after a first turn that ended in
    draw-and-pass the restriction is gone although the own train was never started."""
    e = start(
        [[(1, 2), (3, 4)], [(8, 9), (7, 9), (0, 1)]],
        [(5, 6), (2, 9), (0, 3)],
    )
    # seat 0: no station tile -> DRAW only; (5,6) does not fit -> PASS only -> marker
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert hand(e, 0) == [(1, 2), (3, 4), (5, 6)]
    assert state(e).boneyard_size == 2
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).has_marker(0)
    assert not state(e).has_marker(1)
    # seat 1, first turn: seat 0's marked train (slot 1) and the Mexican train (slot 2) not legal
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == moves(e, ((8, 9), 0), ((7, 9), 0))
    act(e, (8, 9), 0)
    assert train(e, 1) == [(9, 8)]
    # seat 0, second turn: restriction gone; drawn (2,9) fits own train and Mexican train
    assert e.agent_selection == "player_0"
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((2, 9), 0), ((2, 9), 2))


DRAW_FITS = dict(hands=[[(1, 2), (3, 4)], [(8, 9), (0, 1)]], boneyard=[(0, 9), (5, 6)])


def test_drawn_tile_that_fits_must_be_played():
    """docs/rules.md §1.3.3 (drawn_tile="must_play", default): the actor has no station tile ->
    DRAW only; the drawn tile fits -> it must be placed, PASS is not legal."""
    e = start(**DRAW_FITS)
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert hand(e, 0) == [(0, 9), (1, 2), (3, 4)]
    assert legal_moves(e) == moves(e, ((0, 9), 0))
    act(e, (0, 9), 0)
    assert train(e, 0) == [(9, 0)]
    assert not state(e).has_marker(0)
    assert e.agent_selection == "player_1"


def test_drawn_tile_that_fits_goes_on_any_legal_placement():
    """docs/rules.md §1.3.3: the drawn tile is placed "on any legal placement" (first_turn="any":
    own train or Mexican train); still no PASS under must_play."""
    e = start(**DRAW_FITS, first_turn="any")
    draw(e)
    assert legal_moves(e) == moves(e, ((0, 9), 0), ((0, 9), 2))


def test_drawn_tile_may_play_allows_keeping_it_and_passing():
    """docs/rules.md §1.3.3 variant drawn_tile="may_play" + contract point 2: PASS is legal too;
    passing keeps the tile and puts the marker down (1.3.4)."""
    e = start(**DRAW_FITS, drawn_tile="may_play")
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((0, 9), 0), "PASS")
    pass_(e)
    assert state(e).has_marker(0)
    assert hand(e, 0) == [(0, 9), (1, 2), (3, 4)]
    assert e.agent_selection == "player_1"


def test_drawn_tile_that_does_not_fit_pass_only_and_marker():
    """docs/rules.md §1.3.3-1.3.4: one draw only ("one and only one"); nothing fits -> PASS only;
    the pass puts the passer's marker on its own train and ends the turn."""
    e = start([[(1, 2), (3, 4)], [(8, 9), (0, 1)]], [(5, 6), (0, 9)])
    draw(e)
    assert legal_moves(e) == ["PASS"]  # no second DRAW although (0,9) is next
    pass_(e)
    assert state(e).has_marker(0)
    assert not state(e).has_marker(1)
    assert state(e).boneyard_size == 1
    assert hand(e, 0) == [(1, 2), (3, 4), (5, 6)]
    assert e.agent_selection == "player_1"


def test_no_voluntary_draw_or_pass_with_playable_tile():
    """docs/rules.md §1.3.2: a player holding a playable tile must play; DRAW and PASS are not
    legal and stepping them on raw_env raises IllegalActionError."""
    e = start([[(4, 9), (4, 5), (1, 2)], [(8, 9), (0, 1), (2, 3)]], [(5, 6), (6, 7)])
    assert legal_moves(e) == moves(e, ((4, 9), 0))
    for bad in (draw_action(e), pass_action(e)):
        with pytest.raises(IllegalActionError):
            e.step(bad)
    act(e, (4, 9), 0)
    act(e, (8, 9), 0)
    # later turn: (4,5) fits the own train (end 4); still no DRAW / PASS
    assert legal_moves(e) == moves(e, ((4, 5), 0))
    with pytest.raises(IllegalActionError):
        e.step(draw_action(e))


def test_empty_boneyard_pass_directly_and_mark():
    """docs/rules.md §1.3.4 + contract point 2: with an empty boneyard there is no DRAW; the player
    passes at once and its marker goes down."""
    e = start([[(1, 2), (3, 4)], [(8, 9), (0, 1)]], [])
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).has_marker(0)
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == moves(e, ((8, 9), 0))


def test_no_boneyard_variant_pass_directly_from_deal():
    """docs/rules.md §1.7 use_boneyard=False: leftovers are never drawn; no placement -> PASS at once.

    The leftovers ((0,9), (5,6), ... appear in no hand) are out of play; the engine refuses a
    non-empty deal boneyard under use_boneyard=False (DealError), so none is given here."""
    e = start([[(1, 2), (3, 4)], [(8, 9), (0, 1)]], [], use_boneyard=False)
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).has_marker(0)
    assert hand(e, 0) == [(1, 2), (3, 4)]


def test_no_boneyard_variant_seeded_rounds_never_draw():
    """docs/rules.md §1.7 use_boneyard=False: equal hands (double-12, 4 players: floor(90/4)=22),
    DRAW is never legal; a player without placement has PASS only and is marked."""
    passes = 0
    for seed in range(3):
        e = raw_env(num_players=4, max_pip=12, use_boneyard=False, max_cycles=100000)
        e.reset(seed=seed)
        assert [len(hand(e, s)) for s in range(4)] == [22] * 4
        rng = np.random.default_rng(seed)
        steps = 0
        while not all_done(e):
            moves_now = legal_moves(e)
            assert "DRAW" not in moves_now
            if "PASS" in moves_now:
                assert moves_now == ["PASS"]
                s = seat(e)
                e.step(pass_action(e))
                passes += 1
                if not all_done(e):
                    assert state(e).has_marker(s)
            else:
                random_step(e, rng)
            steps += 1
            assert steps < 5000
    assert passes > 0


def test_missing_pips_cleared_by_a_draw_and_restored_by_placing_the_drawn_tile():
    """docs/rules.md §3 (pips a seat is known to lack): a pass after a non-fitting draw makes the
    ends it could not play on known; a later draw clears them (an unseen tile joined the hand);
    placing the tile just drawn restores what was known before that draw plus the ends it could
    not play on then."""
    e = start(
        [[(9, 1), (2, 3), (4, 5)], [(9, 8), (8, 7), (0, 2), (3, 6)]],
        [(6, 6), (1, 7), (0, 0)],
        first_turn="any",
    )
    act(e, (9, 1), 0)
    act(e, (9, 8), 2)  # s1 starts the Mexican train (slot P)
    draw(e)  # (6,6) fits neither s0's own train (1) nor the Mexican train (8)
    pass_(e)
    assert state(e).missing_pips(0) == [1, 8]
    act(e, (8, 7), 2)  # s1: the Mexican train now ends in 7
    assert legal_moves(e) == ["DRAW"]
    draw(e)  # (1,7)
    assert state(e).missing_pips(0) == []
    act(e, (1, 7), 0)
    assert state(e).missing_pips(0) == [1, 7, 8]
    assert state(e).missing_pips(1) == []  # s1 placed from its hand: nothing known


def test_passes_without_a_draw_add_up_what_is_known_missing_under_may_play_too():
    """docs/rules.md §3: a pass with nothing drawn (empty boneyard) makes the ends the seat could
    not play on known, added to what was known; under drawn_tile="may_play" too, as no tile
    was kept."""
    e = start([[(1, 2), (3, 4)], [(9, 5), (5, 6), (0, 0)]], [], first_turn="any", drawn_tile="may_play")
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).missing_pips(0) == [9]
    act(e, (9, 5), 2)  # s1 starts the Mexican train: it ends in 5
    pass_(e)
    assert state(e).missing_pips(0) == [5, 9]
