"""Hand-built scenario tests for the line games (block, draw, Cuban): the observation, partner,
known-missing pips and public fields (contract; docs/design.md), written from the rules.

Source of truth, contract and notation: the docstring of ``line_rules_helpers``.
"""

from __future__ import annotations

import numpy as np
import pytest
from line_rules_helpers import (
    DOMINO4,
    FULL4,
    deal,
    expect,
    legal,
    make,
    missing_row,
    obs_of,
    step,
    tidx,
)

# ---------------------------------------------------------------------------
# Observation: partner, known-missing pips (contract; docs/design.md)
# ---------------------------------------------------------------------------


def test_partner_field_with_and_without_teams():
    for teams, expected in ((True, [0, 0, 1, 0]), (False, [0, 0, 0, 0])):
        env = make("block", deal(FULL4), teams=teams)
        for s in range(4):
            assert obs_of(env, s)["partner"].tolist() == expected


def test_known_missing_pips_after_passes_accumulate_in_block_game():
    """A pass shows publicly that the passer holds no tile with either end's pip; in the block
    game hands never grow, so the knowledge accumulates."""
    hands = [[(6, 6), (6, 1), (1, 2), (2, 5)], [(3, 4), (4, 4), (3, 3)], [(6, 5), (1, 3), (0, 0)]]
    env = make("block", deal(hands), num_players=3)
    step(env, ((6, 6), 0))
    assert missing_row(env, 0, 1) == set()
    step(env, "PASS")  # seat 1 lacks 6
    for obs in (0, 2):
        assert missing_row(env, obs, 1) == {6}
    step(env, ((5, 6), 0))  # seat 2: ends (5, 6)
    step(env, ((1, 6), 1))  # seat 0: ends (5, 1)
    assert env.unwrapped.game_state.ends == (5, 1)
    step(env, "PASS")  # seat 1 lacks 5, 1
    assert missing_row(env, 0, 1) == {1, 5, 6}
    assert missing_row(env, 2, 1) == {1, 5, 6}
    assert missing_row(env, 1, 0) == set() and missing_row(env, 1, 2) == set()


def test_known_missing_pips_after_draws():
    """Draw game: a seat that draws shows it had no tile with either end's pip. After drawing and
    playing the drawn tile (the only tile that can fit), its hand still lacks those pips."""
    hands = [[(6, 6), (6, 0), (1, 1), (2, 2)], [(2, 3), (4, 5), (0, 3)]]
    bone = [(1, 2), (5, 6), (3, 3)]
    env = make("draw", deal(hands, bone), num_players=2)
    step(env, ((6, 6), 0))
    step(env, "DRAW")  # 1-2: no fit
    step(env, "DRAW")  # 5-6: fits
    step(env, ((5, 6), 0))  # ends (5, 6)
    assert missing_row(env, 0, 1) == {6}
    step(env, ((0, 6), 1))  # seat 0: ends (5, 0)
    assert env.unwrapped.game_state.ends == (5, 0)
    # seat 1 holds 4-5 and 0-3: plays 4-5; no new knowledge
    step(env, ((4, 5), 0))
    assert missing_row(env, 0, 1) == {6}
    # seat 0 holds 1-1, 2-2: no 4 or 0 -> draws 3-3 (no fit), boneyard empty -> passes
    step(env, "DRAW")
    assert legal(env) == expect(env, "PASS")
    step(env, "PASS")
    assert missing_row(env, 1, 0) == {0, 4}


@pytest.mark.parametrize("draws", [1, 2])
def test_known_missing_pips_after_one_or_more_draws(draws):
    """Draw game, exact public knowledge. Seat 1 is known to lack 6 (it drew at ends 6|6, then
    played the drawn tile). Later, at ends 5|0, it draws again:
    - mid-draw (an unseen tile just joined its hand) nothing is certain any more;
    - one draw then a play: the played tile is the drawn one, the hand is the old one: it lacks
      6, 5 and 0;
    - two draws then a play: the first drawn tile (2-6 here) stays in the hand, so only 5 and 0
      are certain; claiming 6 would be false."""
    hands = [[(6, 6), (0, 6), (4, 4)], [(2, 3)]]
    bone = [(5, 6)] + ([(2, 6)] if draws == 2 else []) + [(0, 1), (1, 5)]
    env = make("draw", deal(hands, bone), num_players=2)
    st = env.unwrapped.game_state
    step(env, ((6, 6), 0))
    step(env, "DRAW")
    step(env, ((5, 6), 0))
    assert missing_row(env, 0, 1) == {6}
    step(env, ((0, 6), 1))
    assert st.ends == (5, 0)
    step(env, "DRAW")
    assert env.agent_selection == "player_1"
    assert missing_row(env, 0, 1) == set()
    if draws == 2:
        step(env, "DRAW")
        assert missing_row(env, 0, 1) == set()
    assert legal(env) == expect(env, ((0, 1), 1))
    step(env, ((0, 1), 1))
    assert missing_row(env, 0, 1) == ({5, 0, 6} if draws == 1 else {5, 0})


def test_observation_public_fields_egocentric():
    """Contract / docs/design.md: the observation shows the observer's hand, the placed tiles, both
    ends, hand sizes, current player and leader (observer first), scores; nothing else."""
    env = make("block", deal(DOMINO4), teams=True)
    step(env, ((6, 6), 0))
    step(env, ((5, 6), 0))  # ends (5, 6)
    for observer in range(4):
        o = obs_of(env, observer)
        st = env.unwrapped.game_state
        own = np.zeros(28)
        own[[tidx(t, 6) for t in st.hand_tiles(observer)]] = 1
        assert o["hand"].tolist() == own.tolist()
        placed = np.zeros(28)
        placed[[tidx((6, 6), 6), tidx((5, 6), 6)]] = 1
        assert o["placed"].tolist() == placed.tolist()
        assert np.flatnonzero(o["left_end"]).tolist() == [5]
        assert np.flatnonzero(o["right_end"]).tolist() == [6]
        assert o["line_length"].tolist() == [2]
        sizes = [1, 1, 2, 2]  # seats 0..3
        assert o["hand_sizes"].tolist() == [sizes[(observer + k) % 4] for k in range(4)]
        assert np.flatnonzero(o["current_player"]).tolist() == [(2 - observer) % 4]
        assert np.flatnonzero(o["leader"]).tolist() == [(0 - observer) % 4]
        assert o["boneyard_size"].tolist() == [0]
        assert o["may_annul"].tolist() == [0]
