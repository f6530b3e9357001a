"""Hand-built scenario tests for Mexican Train public trains: markers (docs/rules.md §1.2 /
1.3.5) and the Mexican train (docs/rules.md §1.2, 1.3.1, 1.7), written from the rules.

Source of truth, contract and notation: the docstring of ``mexican_train_slot_helpers``.
"""

from __future__ import annotations

import numpy as np
import pytest
from mexican_train_rules_helpers import legal
from mexican_train_slot_helpers import (
    act,
    all_done,
    dims,
    draw,
    legal_moves,
    moves,
    pass_,
    random_step,
    slot_of,
    start,
    state,
    train,
)

from domino_env.envs.infos import Termination
from domino_env.envs.mexican_train_v0 import raw_env

# ---------------------------------------------------------------------------
# 1.2 / 1.3.5 markers and public trains
# ---------------------------------------------------------------------------


def test_marked_train_is_public_unmarked_is_private():
    """docs/rules.md §1.2 + 1.3.1: a marked personal train is public (another seat's slot for it
    appears in the mask); an unmarked one is private. Playing on it keeps the marker (1.3.5)."""
    e = start(
        [[(1, 2), (3, 4), (0, 5)], [(8, 9), (1, 8)], [(2, 8), (7, 9), (0, 6)]],
        [(6, 7), (5, 5)],
        first_turn="any",
    )
    draw(e)
    pass_(e)
    assert state(e).has_marker(0)
    # seat 1: own (slot 0), seat 0's marked train (slot 2), Mexican (slot 3); not seat 2 (slot 1)
    assert slot_of(1, 0, 3) == 2
    assert legal_moves(e) == moves(e, ((8, 9), 0), ((8, 9), 2), ((8, 9), 3))
    act(e, (8, 9), 2)
    assert train(e, 0) == [(9, 8)]
    assert state(e).open_end(0) == 8
    assert state(e).has_marker(0)
    # seat 2: seat 0's train is slot 1 (end 8); seat 1's unmarked train (slot 2) not legal
    assert slot_of(2, 0, 3) == 1
    assert legal_moves(e) == moves(e, ((2, 8), 1), ((7, 9), 0), ((7, 9), 3))


MARKER_DEAL = dict(
    hands=[[(1, 2), (3, 4), (5, 8)], [(5, 9), (3, 9), (4, 6), (0, 1)]],
    boneyard=[(6, 7), (2, 8), (0, 2)],
)


def test_marker_removal_own_train_play():
    """docs/rules.md §1.3.5 (marker_removal="own_train_play", default): playing on the Mexican
    train or having others play on your train keeps the marker; placing on your own train
    removes it, and the train is private again."""
    e = start(**MARKER_DEAL, first_turn="any")
    draw(e)
    pass_(e)
    assert state(e).has_marker(0)
    # seat 1: (5,9)/(3,9) on own, on seat 0's marked train (slot 1), on Mexican (slot 2)
    assert legal_moves(e) == moves(
        e,
        ((5, 9), 0),
        ((5, 9), 1),
        ((5, 9), 2),
        ((3, 9), 0),
        ((3, 9), 1),
        ((3, 9), 2),
    )
    act(e, (5, 9), 2)
    # seat 0 plays on the Mexican train: marker stays
    assert legal_moves(e) == moves(e, ((5, 8), 2))
    act(e, (5, 8), 2)
    assert state(e).has_marker(0)
    # seat 1 plays on seat 0's train: marker stays
    assert legal_moves(e) == moves(e, ((3, 9), 0), ((3, 9), 1))
    act(e, (3, 9), 1)
    assert train(e, 0) == [(9, 3)]
    assert state(e).has_marker(0)
    # seat 0 plays on its own train: marker removed
    assert legal_moves(e) == moves(e, ((3, 4), 0))
    act(e, (3, 4), 0)
    assert not state(e).has_marker(0)
    # seat 1 holds (4,6) matching seat 0's end 4, but the train is private again
    assert state(e).open_end(0) == 4
    assert legal_moves(e) == ["DRAW"]


def test_marker_removal_next_turn():
    """docs/rules.md §1.3.5 variant marker_removal="next_turn" + contract point 9: the marker is
    removed at the start of its owner's next turn, so the train is private again then."""
    e = start(**MARKER_DEAL, first_turn="any", marker_removal="next_turn")
    draw(e)
    pass_(e)
    assert state(e).has_marker(0)
    assert legal_moves(e) == moves(
        e,
        ((5, 9), 0),
        ((5, 9), 1),
        ((5, 9), 2),
        ((3, 9), 0),
        ((3, 9), 1),
        ((3, 9), 2),
    )
    act(e, (5, 9), 2)
    assert e.agent_selection == "player_0"
    assert not state(e).has_marker(0)  # removed as seat 0's turn starts
    act(e, (5, 8), 2)  # Mexican play
    assert not state(e).has_marker(0)
    # seat 1: seat 0's train (end 9) is private now
    assert legal_moves(e) == moves(e, ((3, 9), 0))


def test_marker_next_turn_removed_then_put_back_by_a_new_pass():
    """docs/rules.md §1.3.4-1.3.5 (marker_removal="next_turn"): the marker is lifted as the owner's
    turn starts; if the owner passes again it goes back down and the train is public again."""
    e = start(**MARKER_DEAL, first_turn="any", marker_removal="next_turn")
    draw(e)
    pass_(e)
    act(e, (3, 9), 0)  # seat 1 plays on its own train
    assert e.agent_selection == "player_0"
    assert not state(e).has_marker(0)
    draw(e)  # (2,8): fits nothing
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).has_marker(0)
    assert legal_moves(e) == moves(e, ((5, 9), 1), ((5, 9), 2))


# ---------------------------------------------------------------------------
# Mexican train (1.2, 1.3.1, 1.7)
# ---------------------------------------------------------------------------

MEXICAN_DEAL = dict(
    hands=[[(5, 9), (4, 9), (1, 2)], [(6, 9), (3, 9), (1, 3)], [(7, 9), (2, 9), (0, 1)]],
    boneyard=[(0, 0)],
)


def test_mexican_train_any_player_may_start_it_after_first_turn():
    """docs/rules.md §1.2 / 1.3.1: the Mexican train is shared and any player may start it (seed
    000); it is not legal during first turns (default first_turn)."""
    e = start(**MEXICAN_DEAL)
    assert legal_moves(e) == moves(e, ((5, 9), 0), ((4, 9), 0))
    act(e, (5, 9), 0)
    assert legal_moves(e) == moves(e, ((6, 9), 0), ((3, 9), 0))
    act(e, (6, 9), 0)
    assert legal_moves(e) == moves(e, ((7, 9), 0), ((2, 9), 0))
    act(e, (7, 9), 0)
    # seat 0's second turn: own end 5, Mexican end 9
    assert legal_moves(e) == moves(e, ((4, 9), 3))
    act(e, (4, 9), 3)
    assert train(e, 3) == [(9, 4)]
    assert state(e).open_end(3) == 4
    # seat 1: nothing fits own (6) nor Mexican (4); seat 0's train private -> DRAW
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    # The drawn 0-0 fits nothing and the boneyard is empty: no hand holds a 4, 5, 6 or 7 (the
    # open ends), so nobody can ever place and the round is blocked at once (issue 12), without
    # seat 1's forced PASS.
    assert state(e).round_over
    assert e.infos["player_1"]["termination_code"] == Termination.BLOCKED


def test_no_mexican_train_variant_slot_never_legal():
    """docs/rules.md §1.7 use_mexican_train=False + contract point 3: slot P is never legal."""
    e = start(**MEXICAN_DEAL, use_mexican_train=False)
    act(e, (5, 9), 0)
    act(e, (6, 9), 0)
    act(e, (7, 9), 0)
    assert legal_moves(e) == ["DRAW"]  # (4,9) would only fit the (absent) Mexican train
    e2 = start(**MEXICAN_DEAL, use_mexican_train=False, first_turn="any")
    assert legal_moves(e2) == moves(e2, ((5, 9), 0), ((4, 9), 0))


@pytest.mark.parametrize("use_mexican", [False, True])
def test_mexican_slot_in_random_rounds(use_mexican):
    """docs/rules.md §1.7: over random legal play, slot P appears in a mask iff the Mexican train exists."""
    p = 4
    seen_mexican = False
    for seed in range(4):
        e = raw_env(num_players=p, max_pip=9, use_mexican_train=use_mexican, max_cycles=100000)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = 0
        while not all_done(e):
            _p, t, _n = dims(e)
            placements = [a for a in legal(e) if a < t * (p + 1)]
            if any(a % (p + 1) == p for a in placements):
                seen_mexican = True
            random_step(e, rng)
            steps += 1
            assert steps < 5000
    assert seen_mexican == use_mexican
