"""Line-game rule tests written to kill mutants of ``domino_env/core/line.py`` that the other rule
tests let live (a mutation-testing pass, 2026-12): each test names the rule it checks
(docs/rules.md section) and the engine change it catches.

Source of truth, contract and notation: the docstring of ``line_rules_helpers``.
"""

from __future__ import annotations

import pytest
from line_rules_helpers import deal, expect, info, legal, make, missing_row, step, tidx

from domino_env.core.config import line_from_preset
from domino_env.core.errors import DealError
from domino_env.core.line import LineState
from domino_env.envs import block_v0
from domino_env.envs.infos import Termination


def bitmask(tiles, n: int) -> int:
    return sum(1 << tidx(t, n) for t in tiles)


# ---------------------------------------------------------------------------
# Deals (docs/rules.md §2.2: the tiles not dealt are out of play, or the boneyard)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        # every hand holds a tile, so only the named fault can be refused (the same faults in
        # test_bad_deals_raise_deal_error come with empty hands, refused for those first)
        {
            "hands": [[[6, 6]], [[1, 1]], [[2, 3]], [[4, 5]]],
            "boneyard": [[2, 2]],
        },  # boneyard in block
        {"hands": [[[6, 6]], [[1, 1]], [[2, 3]], [[4, 5]]], "first_player": 4},
        {"hands": [[[6, 6]], [[1, 1]], [[2, 3]], [[4, 5]]], "first_player": -1},
        {"hands": [[[6, 6]], [[1, 1]], [[2, 3]], [[4, 5]]], "station": [6, 6]},  # unknown key
    ],
)
def test_a_deal_with_full_hands_is_still_refused_for_its_one_fault(bad):
    """docs/rules.md §2.2: the block game has no boneyard ("nobody draws"); a first player must be
    a seat. Kills: deleting the ``boneyard and not use_boneyard`` refusal (line.py _start_round)."""
    env = block_v0.raw_env()
    with pytest.raises(DealError):
        env.reset(options={"deal": bad})
    good = {"hands": bad["hands"]}
    env.reset(options={"deal": good})  # the same hands alone are a valid deal
    assert env.unwrapped.game_state.leader == 0


@pytest.mark.parametrize("preset", ["block", "draw"])
def test_an_explicit_deal_puts_every_undealt_tile_out_of_play(preset):
    """docs/rules.md §2.2 + §3: the tiles of an explicit deal that are in no hand (and, in the draw
    game, not in its boneyard) are out of play: hidden, never drawn (what env.state() and the
    search agents' belief count). Kills: mutants of the explicit deal's out-of-play mask
    (``out = (1 << T) - 1``, ``out &= ~h``, the boneyard loop) in _start_round."""
    hands = [[(6, 6), (1, 2)], [(3, 4), (0, 5)]]
    boneyard = [(2, 2), (0, 0)] if preset == "draw" else []
    cfg = line_from_preset(preset, num_players=2)
    s = LineState.new_game(cfg, None, deal(hands, boneyard))
    dealt = bitmask([t for h in hands for t in h] + boneyard, 6)
    assert s.out_of_play == ((1 << 28) - 1) & ~dealt
    assert s.out_of_play.bit_count() == 28 - 4 - len(boneyard)
    assert s.placed == 0
    assert sorted(s.boneyard) == sorted(tidx(t, 6) for t in boneyard)


# ---------------------------------------------------------------------------
# Leads (docs/rules.md §2.1)
# ---------------------------------------------------------------------------


def test_the_double_blank_as_highest_double_is_a_forced_lead():
    """docs/rules.md §2.1: the holder of the highest double leads and must lead it, even when that
    double is 0-0 (tile index 0); the record keeps no first player, so a replay forces it too.
    Kills: ``forced_lead >= 0`` -> ``> 0`` in legal_actions, ``forced < 0`` -> ``<= 0`` in the
    recorded deal."""
    env = make("block", deal([[(1, 2), (3, 4)], [(0, 0), (5, 6)]]), num_players=2)
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, ((0, 0), 0))
    assert env.to_record()["deals"][0]["first_player"] is None
    step(env, ((0, 0), 0))
    assert env.unwrapped.game_state.ends == (0, 0)


# ---------------------------------------------------------------------------
# What env.state() shows of the rules' bookkeeping (docs/state.md, line games)
# ---------------------------------------------------------------------------


def state_view(env) -> dict:
    return env.unwrapped.state_encoder.decode(env.unwrapped.state())


def test_the_state_s_drew_flags_start_at_zero_and_follow_draws_and_placements():
    """docs/state.md ``drew``: "seat drew since its last placement or pass": zeros at the deal,
    1 after a draw, 0 again after placing. Kills: ``self._drew = [False] * p`` -> ``[True] * p``
    in _start_round."""
    env = make("draw", deal([[(6, 6), (1, 1)], [(2, 3)]], [(5, 6), (0, 0)]), num_players=2)
    assert state_view(env)["drew"].tolist() == [0, 0]
    step(env, ((6, 6), 0))
    assert state_view(env)["drew"].tolist() == [0, 0]
    step(env, "DRAW")
    assert state_view(env)["drew"].tolist() == [0, 1]
    step(env, ((5, 6), 0))
    assert state_view(env)["drew"].tolist() == [0, 0]


def test_the_forced_lead_is_in_the_state_until_the_lead_and_gone_after_it():
    """docs/rules.md §2.1 + docs/state.md ``forced_lead``: "tile the leader must lead (first round:
    highest double); zeros otherwise". Kills: ``self.forced_lead = -1`` after a placement changed
    to 0 or 1 (a stale forced tile after the lead)."""
    env = make("block", deal([[(1, 2), (3, 4)], [(6, 6), (5, 6)]]), num_players=2)
    v = state_view(env)
    assert v["forced_lead"].nonzero()[0].tolist() == [tidx((6, 6), 6)]
    step(env, ((6, 6), 0))
    assert not state_view(env)["forced_lead"].any()


def test_after_an_annulment_the_state_names_the_leader_as_the_round_winner():
    """docs/rules.md §2.2 + docs/state.md ``round_winner``: "seat that won the last finished round
    (the leader after an annulment; zeros before any)". Seat 1 (5 doubles) annuls a round led by
    seat 0; ``annulments`` counts it. Kills: deleting ``self.winner_seat = self.leader`` in
    _end_round, and mutants of ``self.annulments += 1`` in apply."""
    five = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    hands = [
        [(9, 9), (6, 6), (7, 7), (8, 8), (0, 9), (1, 2)],
        five + [(8, 9)],
        [(5, 6), (4, 6), (3, 6)],
        [(0, 2), (7, 8), (0, 3)],
    ]
    round2 = [
        [(0, 1), (0, 2), (5, 5)],
        [(9, 9), (1, 2), (3, 3)],
        [(8, 8), (4, 5)],
        [(6, 7), (2, 3)],
    ]
    env = make("cuban", deals=[deal(hands), deal(round2)])
    assert not state_view(env)["round_winner"].any()  # zeros before any finished round
    assert state_view(env)["annulments"].tolist() == [0]
    step(env, ((9, 9), 0))
    step(env, "ANNUL")
    assert info(env)["termination_code"] == Termination.ANNULLED
    assert env.unwrapped.game_state.leader == 0
    assert state_view(env)["round_winner"].tolist() == [1, 0, 0, 0]
    assert state_view(env)["annulments"].tolist() == [1]
    assert env.unwrapped.game_state.annulments == 1


# ---------------------------------------------------------------------------
# The next round (docs/rules.md §2.1 Later rounds)
# ---------------------------------------------------------------------------


def test_a_refused_next_deal_leaves_the_round_index_and_may_be_given_again():
    """LineState.start_next_round: "a refused deal changes nothing: the same call may be made
    again". Kills: deleting the ``self.round_index = index`` restore."""
    cfg = line_from_preset("block", num_players=3, target_score=1000)
    s = LineState.new_game(cfg, None, deal([[(6, 6), (1, 4)], [(5, 6), (3, 3)], [(4, 5), (2, 2)]]))
    for tile, end in (((6, 6), 0), ((5, 6), 0), ((4, 5), 0), ((1, 4), 0)):
        s.apply(2 * tidx(tile, 6) + end)
    assert s.round_over and s.round_index == 0 and not s.game_over
    with pytest.raises(DealError):
        s.start_next_round(None, {"hands": [[[6, 6]], [[6, 6]], [[1, 2]]]})  # a tile dealt twice
    assert s.round_index == 0 and s.round_over
    s.start_next_round(None, deal([[(0, 1)], [(2, 3)], [(4, 5)]]))
    assert s.round_index == 1 and s.leader == 1 and not s.round_over  # next_seat: seat 1 leads
    assert s.legal_actions() == [2 * tidx((2, 3), 6)]


# ---------------------------------------------------------------------------
# Pips known to be missing after draws (docs/rules.md §3)
# ---------------------------------------------------------------------------


def test_placing_the_drawn_tile_adds_both_ends_even_when_neither_is_0():
    """docs/rules.md §3: "placing the tile it just drew restores what was known before that draw,
    plus the ends it could not play on then". Seat 1 lacks 6 (it drew at 6|6 and played the drawn
    tile); at ends 5|4 it draws 1-4 and plays it: it lacks 4, 5 and 6. (The other draw tests have
    an end of 0, where ``1 >> 0 == 1 << 0``.) Kills: ``1 << self.right`` -> ``1 >> self.right``
    (and the same on the left) in the DRAW branch of apply."""
    hands = [[(6, 6), (4, 6), (1, 1)], [(2, 3)]]
    env = make("draw", deal(hands, [(5, 6), (1, 4), (0, 0)]), num_players=2)
    step(env, ((6, 6), 0))
    step(env, "DRAW")
    step(env, ((5, 6), 0))
    assert missing_row(env, 0, 1) == {6}
    step(env, ((4, 6), 1))
    assert env.unwrapped.game_state.ends == (5, 4)
    step(env, "DRAW")
    assert legal(env) == expect(env, ((1, 4), 1))
    step(env, ((1, 4), 1))
    assert missing_row(env, 0, 1) == {4, 5, 6}


def test_a_pass_after_a_draw_ends_the_draw_so_a_later_placement_keeps_what_the_pass_showed():
    """docs/rules.md §3: after a draw, a pass makes the ends it could not play on known again, and
    nothing more (the drawn tile is unseen). Seat 1 lacks 6 (drew and played the drawn 5-6), then
    at 5|4 draws the last tile 0-0, passes (known: 4, 5; 6 no longer certain) and later places a
    tile it held: still 4 and 5 only. Kills: deleting ``self._drew[seat] = False`` in the PASS
    branch (the later placement then "restored" the knowledge before the second draw: 4, 5, 6)."""
    hands = [[(6, 6), (4, 6), (1, 4), (3, 3)], [(1, 2), (2, 3)]]
    env = make("draw", deal(hands, [(5, 6), (0, 0)]), num_players=2)
    step(env, ((6, 6), 0))
    step(env, "DRAW")
    step(env, ((5, 6), 0))
    step(env, ((4, 6), 1))
    step(env, "DRAW")  # 0-0: no fit, and the boneyard is empty
    assert legal(env) == expect(env, "PASS")
    step(env, "PASS")
    assert missing_row(env, 0, 1) == {4, 5}
    step(env, ((1, 4), 1))  # seat 0: ends 5|1
    step(env, ((1, 2), 1))  # seat 1 places a tile it held: ends 5|2
    assert env.unwrapped.game_state.ends == (5, 2)
    assert missing_row(env, 0, 1) == {4, 5}
