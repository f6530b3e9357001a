"""The line planner's sampled deals (``sample_worlds``), its closing estimate (``closing``, rule
6) and its search option (``search``, ``rollout``), on hand-built positions: seat views built by
hand, and for ``closing`` / ``rollout`` the deals themselves (hands, boneyard), so every value is
known in advance."""

from __future__ import annotations

import numpy as np
import pytest
from episode import seat_view

from domino_env.agents import LinePlannerAgent
from domino_env.core.config import line_from_preset
from domino_env.core.tiles import tile_index


def t(a, b):
    return tile_index(a, b, 6)


def m(*tiles):
    """Bitmask of double-6 tiles ``(a, b)``."""
    return sum(1 << t(a, b) for a, b in tiles)


def planner_of(players, **rules):
    return LinePlannerAgent(line_from_preset("block", num_players=players, **rules))


def bits(mask):
    return [i for i in range(28) if mask >> i & 1]


# ------------------------------------------------------------------ sample_worlds
def three_player_view(planner, seat2_size=1):
    # 3 players, double-6: seat 0 holds 1-1 and 1-2, 1-6 and 2-6 are on the table (24 tiles
    # unseen). Seat 1 (5 tiles) is known to lack 5; seat 2 is known to lack every value but 0,
    # so the only unseen tile it may hold is 0-0. Six tiles in the boneyard, the rest out of play.
    return seat_view(planner, [(1, 1), (1, 2)], [(1, 6), (2, 6)], (1, 2), [2, 5, seat2_size],
                     missing=[0, 1 << 5, 0b1111110], boneyard=6)  # fmt: skip


def test_sampled_worlds_deal_the_unseen_tiles_as_the_seat_knows_them():
    planner = planner_of(3)
    v = three_player_view(planner)
    worlds = planner.sample_worlds(v, np.random.default_rng(0))
    assert len(worlds) == planner.samples == 48
    sevens = 0
    for hands, boneyard, drawn in worlds:
        assert hands[0] == 0  # the observer's own hand is not dealt
        assert [h.bit_count() for h in hands[1:]] == [5, 1] and boneyard.bit_count() == 6
        assert sorted(drawn) == bits(boneyard)
        assert hands[1] & hands[2] == 0 and (hands[1] | hands[2]) & boneyard == 0
        assert (hands[1] | hands[2] | boneyard) & ~v.unseen_mask == 0
        assert hands[1] & planner.pip_masks[5] == 0  # seat 1 lacks 5
        assert hands[2] == m((0, 0))  # seat 2, the most constrained, is dealt first: 0-0
        sevens += bool(hands[1] & m((3, 4), (2, 5)))  # pip total 7, for the spread below
    # Every tile seat 1 may hold is dealt to it in some world, every unseen tile but 0-0 is in the
    # boneyard in some world (the permutation, not a fixed order, picks them).
    assert sum(hands[1] for hands, _, _ in worlds) and 0 < sevens < 48
    held = drawn_any = 0
    for hands, boneyard, _ in worlds:
        held |= hands[1]
        drawn_any |= boneyard
    assert held == v.unseen_mask & ~planner.pip_masks[5] & ~m((0, 0))
    assert drawn_any == v.unseen_mask & ~m((0, 0))
    # The same generator state gives the same worlds; ``count`` overrides ``samples``.
    assert planner.sample_worlds(v, np.random.default_rng(0)) == worlds
    assert planner.sample_worlds(v, np.random.default_rng(0), count=5) == worlds[:5]
    assert planner.sample_worlds(v, np.random.default_rng(1), count=5) != worlds[:5]


def test_sampled_worlds_relax_a_constraint_no_deal_can_meet():
    # Seat 1 (one tile) may hold only 0-0; seat 2 (five tiles) is known to lack 0 to 4, so only
    # 5-5, 5-6 and 6-6 of the unseen tiles fit what it knows: seat 1 is dealt first (more tiles
    # banned), seat 2 gets those three and two other unseen tiles, never one already dealt.
    planner = planner_of(3)
    v = seat_view(planner, [(1, 1), (1, 2)], [(1, 6), (2, 6)], (1, 2), [2, 1, 5],
                  missing=[0, 0b1111110, 0b0011111], boneyard=6)  # fmt: skip
    highs = m((5, 5), (5, 6), (6, 6))
    others = set()
    for hands, boneyard, drawn in planner.sample_worlds(v, np.random.default_rng(2), count=40):
        assert hands[1] == m((0, 0)) and hands[2] & highs == highs
        assert hands[2].bit_count() == 5 and boneyard.bit_count() == 6 and len(drawn) == 6
        assert hands[1] & hands[2] == 0 and (hands[1] | hands[2]) & boneyard == 0
        assert (hands[1] | hands[2] | boneyard) & ~v.unseen_mask == 0
        others.update(bits(hands[2] & ~highs))
    assert len(others) > 10  # the relaxed tiles come from the whole unseen pool


# ------------------------------------------------------------------ closing
def test_closing_counts_the_worlds_where_the_move_closes_and_wins():
    # 2 players, the move leaves 2-3 (5 pips) and ends 0 / 6 (``fit``). Five sampled worlds:
    # seat 1 holds 1-1 (closes, the observer loses the count 5 to 2), 4-5 (closes, wins 5 to 9),
    # 0-5 (fits: no close), 1-4 (closes, a 5-5 tie: the seat nearest the leader wins it); in the
    # last one seat 1 holds 1-3 but the boneyard holds 6-6 (no close).
    planner = planner_of(2)
    fit = planner.pip_masks[0] | planner.pip_masks[6]
    rest = m((2, 3))
    worlds = [([0, m(hand)], bone, bits(bone)) for hand, bone in
              (((1, 1), 0), ((4, 5), 0), ((0, 5), 0), ((1, 4), 0), ((1, 3), m((6, 6))))]  # fmt: skip

    def closing(leader):
        v = seat_view(planner, [(2, 3), (0, 6)], [], (0, 6), [2, 1], leader=leader)
        return planner.closing(v, rest, fit, worlds)

    assert closing(0) == (pytest.approx(3 / 5), pytest.approx(2 / 5))
    assert closing(1) == (pytest.approx(3 / 5), pytest.approx(1 / 5))
    assert planner.closing(seat_view(planner, [(2, 3)], [], (0, 6), [1, 1]), rest, fit, []) == (
        0.0, 0.0,
    )  # fmt: skip


def test_closing_ties_go_round_from_the_leader_and_teams_count_together():
    # 3 players, the observer keeps 2-3 (5 pips), seats 1 and 2 hold 4-5 (9) and 1-4 (5): a tie
    # between seats 0 and 2; from leader 1 the order is 1, 2, 0: seat 2 wins it.
    planner = planner_of(3)
    fit = planner.pip_masks[0] | planner.pip_masks[6]
    world = [([0, m((4, 5)), m((1, 4))], 0, [])]
    for leader, wins in ((0, 1.0), (1, 0.0), (2, 0.0)):
        v = seat_view(planner, [(2, 3)], [], (0, 6), [1, 1, 1], leader=leader)
        assert planner.closing(v, m((2, 3)), fit, world) == (1.0, wins)
    # one opponent holding a fitting tile (0-5) is enough to keep the game open
    assert planner.closing(v, m((2, 3)), fit, [([0, m((0, 5)), m((1, 4))], 0, [])]) == (0.0, 0.0)
    # 4 players in teams (partner 2): team pips, then the tie rule over the four seats.
    teams = planner_of(4, teams=True)

    def team_closing(rest, hands, leader=0):
        v = seat_view(teams, [(2, 3)], [], (0, 6), [1, 1, 1, 1], partner=2, leader=leader)
        return teams.closing(v, m(rest), fit, [([0, *(m(h) for h in hands)], 0, [])])[1]

    # 1-2 (3) + partner 1-1 (2) = 5 against 1-3 (4) + 1-4 (5) = 9: the team wins, though seat 2
    # alone is lightest; 1-1 (2) + partner 4-5 (9) = 11 against 1-2 + 1-3 = 7: it loses, though
    # the observer alone is lightest.
    assert team_closing((1, 2), [(1, 3), (1, 1), (1, 4)]) == 1.0
    assert team_closing((1, 1), [(1, 2), (4, 5), (1, 3)]) == 0.0
    # 2-3 (5) + 1-1 (2) = 7 against 1-2 (3) + 1-3 (4) = 7: the leader's team wins the tie
    for leader, wins in ((0, 1.0), (1, 0.0), (2, 1.0), (3, 0.0)):
        assert team_closing((2, 3), [(1, 2), (1, 1), (1, 3)], leader) == wins


# ------------------------------------------------------------------ rollout
def test_a_blocked_rollout_goes_to_the_lightest_hand_ties_from_the_leader():
    # Nobody holds a 6 and the boneyard is empty: the round is blocked as it stands.
    two = planner_of(2)
    assert two.rollout([m((2, 3)), m((1, 1))], [], 6, 6, 1, 0, False) == 0  # 5 against 2 pips
    assert two.rollout([m((1, 1)), m((2, 3))], [], 6, 6, 1, 0, False) == 1
    assert two.rollout([m((1, 2)), m((0, 3))], [], 6, 6, 1, 0, False) == 1  # 3 and 3: leader 0
    assert two.rollout([m((1, 2)), m((0, 3))], [], 6, 6, 1, 1, False) == 0
    # 3 players, seats 0 and 2 tie on 3 pips: the order from leader 1 is 1, 2, 0.
    three = planner_of(3)
    for leader, won in ((0, 1), (1, 0), (2, 0)):
        assert three.rollout([m((1, 2)), m((4, 4)), m((0, 3))], [], 6, 6, 1, leader, False) == won
    # The boneyard holds 4-4, which fits no end either: blocked now, nobody draws it.
    assert two.rollout([m((1, 1)), m((2, 3))], [t(4, 4)], 6, 6, 0, 0, False) == 1
    # 4 players: with teams the sides' pips (seats 0 + 2 against 1 + 3) decide.
    four = planner_of(4, teams=True)
    for hands, teams, solo in (
        ([(4, 5), (0, 1), (0, 0), (0, 2)], 0, 0),  # 9 + 0 against 1 + 2
        ([(0, 1), (0, 2), (4, 5), (0, 0)], 0, 0),  # 1 + 9 against 2 + 0
        ([(1, 3), (2, 4), (0, 0), (0, 1)], 1, 0),  # 4 + 0 against 6 + 1; seat 2 is lightest
        ([(1, 1), (1, 2), (4, 5), (1, 3)], 0, 1),  # 2 + 9 against 3 + 4; seat 0 is lightest
    ):
        assert four.rollout([m(h) for h in hands], [], 6, 6, 1, 0, True) == teams
        assert four.rollout([m(h) for h in hands], [], 6, 6, 1, 0, False) == solo
    for leader, won in ((0, 1), (1, 0), (2, 1), (3, 0)):  # 5 + 2 against 3 + 4: a tie
        hands = [m((2, 3)), m((1, 2)), m((1, 1)), m((1, 3))]
        assert four.rollout(hands, [], 6, 6, 1, leader, True) == won


def test_a_rollout_plays_the_heaviest_fitting_tile_and_draws_when_stuck():
    two = planner_of(2)
    # Ends 5 / 4, seat 0 to act: 5-6 (heavier than 1-5) makes the left end 6, where seat 1 goes
    # out with 6-6. 1-5 and 2-4 weigh the same: the lower tile 1-5 goes (left end 1) and seat 1
    # goes out with 1-1. 0-5 and 1-5: 1-5, and seat 1 goes out with 1-6 (after 0-5 the round
    # would block with seat 0 the lighter hand).
    assert two.rollout([m((5, 6), (1, 5)), m((6, 6))], [], 5, 4, 0, 0, False) == 0
    assert two.rollout([m((1, 5), (2, 4)), m((1, 1))], [], 5, 4, 0, 0, False) == 0
    assert two.rollout([m((0, 5), (1, 5)), m((1, 6))], [], 5, 4, 0, 0, False) == 0
    # The only fitting tile is 0-0 (worth nothing): it is played, and seat 1 goes out with 0-2.
    assert two.rollout([m((0, 0), (3, 3)), m((0, 2))], [], 0, 5, 0, 0, False) == 0
    # The four ways a tile meets an end (3-5 by its first or second pip, on the left or right
    # end): seat 1 then goes out on the new end; 2-2 is stuck.
    for left, right, seat1 in ((3, 0, (5, 5)), (5, 0, (3, 3)), (0, 3, (5, 5)), (0, 5, (3, 3))):
        assert two.rollout([m((3, 5), (2, 2)), m(seat1)], [], left, right, 0, 0, False) == 0
    # Seat 1 has no 6 but the boneyard does: not blocked. It draws from the end of the list:
    # 5-5 (no fit), then 3-6, plays it (ends 3 / 6) and is stuck with 2-4 and 5-5: 16 pips
    # against seat 0's 1. With only 3-6 to draw, it plays 3-6 and goes out with 2-3.
    assert two.rollout([m((0, 1)), m((2, 4))], [t(3, 6), t(5, 5)], 6, 6, 1, 0, False) == 1
    assert two.rollout([m((1, 1)), m((2, 3))], [t(3, 6)], 6, 6, 1, 0, False) == 0
    # 3 players: the turn passes to the next seat, after a play or a pass. Seat 0 plays 5-6 and
    # seat 1 goes out with 6-6 (seat 2 is stuck, seat 0 would go out with 1-6); seat 1 is stuck
    # and seat 2 goes out with 5-5 (before seat 0's 0-4).
    three = planner_of(3)
    assert three.rollout([m((5, 6), (1, 6)), m((6, 6)), m((2, 2))], [], 5, 4, 0, 0, False) == 0
    assert three.rollout([m((0, 4)), m((1, 1)), m((5, 5))], [], 5, 4, 1, 0, False) == 0
    # Going out wins for the observer, or with teams for its partner (seat 2).
    four = planner_of(4, teams=True)
    hands = [m((0, 0)), m((0, 1)), m((5, 6)), m((0, 2))]
    assert four.rollout(list(hands), [], 5, 4, 2, 0, True) == 1
    assert four.rollout(list(hands), [], 5, 4, 2, 0, False) == 0
    assert two.rollout([m((1, 5)), m((3, 3))], [], 5, 4, 0, 1, False) == 1


# ------------------------------------------------------------------ search
def test_search_keeps_a_domino_and_lets_the_next_seat_act():
    # 2 players: every tile but seat 0's 2-4, 4-4 and seat 1's 4-5 is on the table (each sampled
    # deal is the true one); ends 2 / 6. After 2-4 on the 2 (ends 4 / 6) seat 1 acts next and
    # goes out with 4-5, before seat 0's 4-4: no win in 4 rollouts, the score is prior / 100.
    two = planner_of(2)
    searcher = LinePlannerAgent(two.config, rollouts=4)
    hand = [(2, 4), (4, 4)]
    placed = [(a, b) for a in range(7) for b in range(a, 7) if (a, b) not in [*hand, (4, 5)]]
    v = seat_view(two, hand, placed, (2, 6), [2, 1])
    rng = np.random.default_rng(0)
    assert searcher.search(v, [(t(2, 4), 0)], [30.0], rng) == [pytest.approx(0.3)]
    # A move that empties the hand keeps its rule score (1e9), unplayed.
    v1 = seat_view(two, [(2, 4)], placed, (2, 6), [1, 1])
    assert searcher.search(v1, [(t(2, 4), 0)], [1e9], rng) == [1e9]


def test_search_counts_a_partners_domino_as_a_win():
    # 4 players in teams. Seat 0 holds 2-4 and 0-0, ends 2 / 6; the unseen tiles are 1-1, 4-5
    # and 3-3, and what each seat is known to lack deals them one way only: 1-1 to seat 1, 4-5
    # to seat 2 (the partner), 3-3 to seat 3. After 2-4 (ends 4 / 6) seat 1 is stuck and the
    # partner goes out: a win in every rollout.
    four = planner_of(4, teams=True)
    searcher = LinePlannerAgent(four.config, rollouts=3)
    hand, theirs = [(2, 4), (0, 0)], [(1, 1), (4, 5), (3, 3)]
    placed = [(a, b) for a in range(7) for b in range(a, 7) if (a, b) not in hand + theirs]
    only = [0, 0b1111101, 0b1001111, 0b1110111]  # all but 1; all but 4 and 5; all but 3
    v = seat_view(four, hand, placed, (2, 6), [2, 1, 1, 1], missing=only, partner=2)
    for hands, _, _ in searcher.sample_worlds(v, np.random.default_rng(0)):
        assert hands == [0, *(m(x) for x in theirs)]
    got = searcher.search(v, [(t(2, 4), 0)], [10.0], np.random.default_rng(0))
    assert got == [pytest.approx(1.0 + 0.1)]
