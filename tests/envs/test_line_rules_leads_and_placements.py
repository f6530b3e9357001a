"""Hand-built scenario tests for the line games (block, draw, Cuban): leads and placements
(docs/rules.md §2.1), written from the rules.

Source of truth, contract and notation: the docstring of ``line_rules_helpers``.
"""

from __future__ import annotations

from line_rules_helpers import (
    DRAW,
    FULL4,
    PASS,
    all_tiles,
    canon,
    deal,
    expect,
    legal,
    make,
    step,
    tidx,
    tile_count,
)

# ---------------------------------------------------------------------------
# The helpers' tile indices (docs/rules.md §0)
# ---------------------------------------------------------------------------


def test_helper_index_matches_canonical_order():
    for n in (6, 9, 12):
        tiles = all_tiles(n)
        assert len(tiles) == tile_count(n)
        assert [tidx(t, n) for t in tiles] == list(range(len(tiles)))
        assert all(tidx((b, a), n) == tidx((a, b), n) for a, b in tiles)


# ---------------------------------------------------------------------------
# Leads (docs/rules.md §2.1)
# ---------------------------------------------------------------------------


def test_full_deal_covers_the_set():
    assert sorted(tidx(t, 6) for h in FULL4 for t in h) == list(range(28))


def test_first_round_lead_is_the_highest_double_and_it_must_be_led():
    """docs/rules.md §2.1 (seeds 003, 004): the holder of the highest double leads it; with 4 players
    and double-6 that is always 6-6. The mask holds exactly that one action."""
    env = make("block", deal(FULL4))
    assert env.agent_selection == "player_2"
    assert env.unwrapped.game_state.leader == 2
    assert legal(env) == expect(env, ((6, 6), 0))
    for other in (0, 1, 3):
        assert not env.observe(f"player_{other}")["action_mask"].any()
    step(env, ((6, 6), 0))
    assert env.unwrapped.game_state.line == [(6, 6)]
    assert env.unwrapped.game_state.ends == (6, 6)
    assert env.agent_selection == "player_3"


def test_cuban_leads_the_highest_double_dealt_when_9_9_is_out_of_play():
    """docs/rules.md §2.1, an engine choice for Cuban (seed 001 names only who starts): the holder
    of the highest double dealt (8-8 here: 9-9 is among the tiles out of play) leads, with it."""
    hands = [[(7, 9), (0, 1)], [(8, 8), (1, 2)], [(5, 5), (0, 2)], [(6, 9), (0, 3)]]
    env = make("cuban", deal(hands))
    assert env.agent_selection == "player_1" and env.unwrapped.game_state.leader == 1
    assert legal(env) == expect(env, ((8, 8), 0))


def test_highest_double_beats_a_heavier_non_double():
    """docs/rules.md §2.1: the highest *double* leads even when another tile is heavier (6-5 > 4-4)."""
    hands = [[(5, 6), (1, 2)], [(4, 4), (0, 1)], [(3, 3), (2, 6)]]
    env = make("block", deal(hands), num_players=3)
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, ((4, 4), 0))


def test_no_double_dealt_heaviest_tile_is_led_tie_to_higher_pip():
    """docs/rules.md §2.1 (seeds 003, 004): no double dealt -> the holder of the heaviest tile leads it;
    tie: the higher of its two pips (3-4, 2-5 and 1-6 all weigh 7: 1-6 leads)."""
    hands = [[(3, 4), (0, 1)], [(2, 5), (0, 2)], [(1, 6), (0, 3)], [(2, 4), (1, 2)]]
    env = make("block", deal(hands))
    assert env.agent_selection == "player_2"
    assert legal(env) == expect(env, ((1, 6), 0))
    # and the same deal rotated: the holder changes, the tile does not
    env = make("block", deal(hands[2:] + hands[:2]))
    assert env.agent_selection == "player_0"
    assert legal(env) == expect(env, ((1, 6), 0))


def test_first_player_in_deal_leads_any_tile_on_end_0_only():
    """Contract: a deal with "first_player" makes that seat lead with any tile; the lead uses
    end 0 only (docs/rules.md §2.1: the lead starts the line)."""
    env = make("block", deal(FULL4, first=1))
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, *[(t, 0) for t in FULL4[1]])
    step(env, ((3, 5), 0))
    st = env.unwrapped.game_state
    assert canon(st.line[0]) == [3, 5] and len(st.line) == 1
    assert sorted(st.ends) == [3, 5]
    assert env.agent_selection == "player_2"


# ---------------------------------------------------------------------------
# Placements (docs/rules.md §2.1)
# ---------------------------------------------------------------------------


def test_both_ends_same_pip_only_end_0_and_orientation():
    """docs/rules.md §2.1: if both ends show the same pip, a tile's two placements are the same move:
    only end 0 is legal (contract). The tile is oriented so its right pip meets the left end."""
    hands = [[(3, 3), (1, 1)], [(3, 5), (6, 6), (0, 2)], [(3, 4), (2, 2)]]
    env = make("block", deal(hands, first=0), num_players=3)
    step(env, ((3, 3), 0))
    assert env.unwrapped.game_state.ends == (3, 3)
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, ((3, 5), 0))
    step(env, ((3, 5), 0))
    st = env.unwrapped.game_state
    assert st.line == [(5, 3), (3, 3)]
    assert (st.left, st.right) == (5, 3) and st.ends == (5, 3)
    # Seat 2: 3-4 fits the right end only.
    assert legal(env) == expect(env, ((3, 4), 1))
    step(env, ((3, 4), 1))
    assert env.unwrapped.game_state.line == [(5, 3), (3, 3), (3, 4)]
    assert env.unwrapped.game_state.ends == (5, 4)


def test_tile_matching_both_ends_has_two_distinct_actions():
    """docs/rules.md §2.1: a tile matching the left and the right end has two placements (two actions);
    a tile matching one end only has one."""
    hands = [[(2, 4), (0, 0)], [(4, 5), (1, 1)], [(2, 5), (2, 2), (5, 6), (0, 1)]]
    env = make("block", deal(hands, first=0), num_players=3)
    st = env.unwrapped.game_state
    step(env, ((2, 4), 0))
    four = 0 if st.left == 4 else 1  # the lead's orientation is not part of the contract
    step(env, ((4, 5), four))
    assert sorted(st.ends) == [2, 5]
    two, five = (0, 1) if st.left == 2 else (1, 0)
    assert legal(env) == expect(env, ((2, 5), 0), ((2, 5), 1), ((2, 2), two), ((5, 6), five))
    # 2-5 on the left end: oriented so its right pip meets the left end
    old = list(st.line)
    left = st.left
    step(env, ((2, 5), 0))
    other = 7 - left
    assert st.line == [(other, left)] + old
    assert st.ends == (other, other)


def test_tile_matching_both_ends_right_placement():
    hands = [[(2, 4), (0, 0)], [(4, 5), (1, 1)], [(2, 5), (0, 1)]]
    env = make("block", deal(hands, first=0), num_players=3)
    st = env.unwrapped.game_state
    step(env, ((2, 4), 0))
    step(env, ((4, 5), 0 if st.left == 4 else 1))
    old, right = list(st.line), st.right
    step(env, ((2, 5), 1))
    assert st.line == old + [(right, 7 - right)]
    assert st.ends == (7 - right, 7 - right)


def test_must_play_if_able_no_pass_or_draw():
    """docs/rules.md §2.1: a player must play if able; passing (and drawing, 2.2) only without a
    playable tile. Block and draw games alike."""
    hands = [[(6, 6), (0, 0)], [(6, 1), (2, 3), (4, 4)]]
    for kind, extra in (("block", {}), ("draw", {})):
        bone = [(5, 5), (1, 2)] if kind == "draw" else []
        env = make(kind, deal(hands, bone), num_players=2, **extra)
        assert legal(env) == expect(env, ((6, 6), 0))
        step(env, ((6, 6), 0))
        assert env.agent_selection == "player_1"
        assert legal(env) == expect(env, ((1, 6), 0))
        assert PASS(env) not in legal(env) and DRAW(env) not in legal(env)


def test_block_game_pass_when_nothing_fits():
    """docs/rules.md §2.1 / 2.2 block (seed 004): a player who cannot play passes; the turn moves on."""
    hands = [[(6, 6), (1, 1)], [(0, 1), (2, 3)], [(6, 2), (5, 5)]]
    env = make("block", deal(hands), num_players=3)
    step(env, ((6, 6), 0))
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, "PASS")
    step(env, "PASS")
    assert env.agent_selection == "player_2"
    assert legal(env) == expect(env, ((2, 6), 0))
    assert not env.unwrapped.game_state.round_over


def test_draw_game_draws_one_at_a_time_until_a_tile_fits_then_must_play():
    """docs/rules.md §2.2 draw (seed 003): no playable tile -> draw one tile per action (same player
    keeps acting) until one fits, then must play it (no more DRAW)."""
    hands = [[(6, 6), (6, 0), (1, 1)], [(2, 3), (4, 5)]]
    bone = [(1, 2), (3, 3), (5, 6), (0, 2), (4, 4)]
    env = make("draw", deal(hands, bone), num_players=2)
    st = env.unwrapped.game_state
    step(env, ((6, 6), 0))
    assert env.agent_selection == "player_1"
    for k, expected_size in ((0, 5), (1, 4), (2, 3)):
        assert legal(env) == expect(env, "DRAW")
        assert st.boneyard_size == expected_size
        step(env, "DRAW")
        assert env.agent_selection == "player_1"
        assert st.hand_size(1) == 3 + k
    # 5-6 drawn: it fits; DRAW is gone although the boneyard still has 2 tiles
    assert sorted(map(canon, st.hand_tiles(1))) == [[1, 2], [2, 3], [3, 3], [4, 5], [5, 6]]
    assert st.boneyard_size == 2
    assert legal(env) == expect(env, ((5, 6), 0))
    step(env, ((5, 6), 0))
    assert env.agent_selection == "player_0"
    assert st.ends == (5, 6)


def test_draw_game_pass_when_boneyard_empty():
    """docs/rules.md §2.2 draw: with an empty boneyard a player who cannot play passes."""
    hands = [[(6, 6), (6, 1), (3, 3)], [(2, 3)]]
    env = make("draw", deal(hands, [(4, 4)]), num_players=2)
    step(env, ((6, 6), 0))
    assert legal(env) == expect(env, "DRAW")
    step(env, "DRAW")
    assert env.unwrapped.game_state.boneyard_size == 0
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, "PASS")
    step(env, "PASS")
    assert env.agent_selection == "player_0"
    assert legal(env) == expect(env, ((1, 6), 0))
