"""The line-game greedy and planner rules (``LineGreedyAgent``'s and ``LinePlannerAgent``'s
docstrings), each on a hand-built position: a deal through ``reset(options={"deal": ...})``, or a
:class:`LineSeatView` built by hand and the planner's ``score_moves``."""

from __future__ import annotations

import numpy as np
import pytest
from episode import decide, seat_view, start_line

from domino_env.agents import LineGreedyAgent, LinePlannerAgent
from domino_env.core.tiles import tile_index


def t(a, b, n=6):
    return tile_index(a, b, n)


def act(tile, end, n=6):
    return 2 * t(*tile, n) + end




def legal_of(env):
    return np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()


def test_greedy_ties_go_to_the_lowest_tile_index_then_the_left_end():
    # 2-player block game: seat 1 leads 1-2 (ends 1 / 2); seat 0's 1-5 and 2-4 weigh 6 each and
    # neither is a double: 1-5 (the lower tile index) wins although 2-4 is the higher action.
    deal = {"hands": [[[1, 5], [2, 4], [0, 0]], [[1, 2], [6, 6], [3, 3]]], "first_player": 1}
    env = start_line(deal, preset="block", num_players=2)
    env.step(act((1, 2), 0))
    assert legal_of(env) == sorted([act((1, 5), 0), act((2, 4), 1)])
    assert decide(LineGreedyAgent(env.config), env) == act((1, 5), 0)
    # Seat 1 leads 3-4 (ends 3 / 4): 2-3 on the left end and 1-4 on the right weigh 5 each: the
    # lower tile index 1-4 wins, on the right end.
    deal3 = {"hands": [[[2, 3], [1, 4], [0, 0]], [[3, 4], [6, 6], [5, 5]]], "first_player": 1}
    env3 = start_line(deal3, preset="block", num_players=2)
    env3.step(act((3, 4), 0))
    assert legal_of(env3) == sorted([act((2, 3), 0), act((1, 4), 1)])
    assert decide(LineGreedyAgent(env3.config), env3) == act((1, 4), 1)
    # Seat 1 leads 1-2, seat 0 plays 2-4, seat 1 plays 0-1: ends 0 / 4, and seat 0's 0-4 fits
    # both: the left end (end 0).
    deal2 = {"hands": [[[2, 4], [0, 4], [5, 5]], [[1, 2], [0, 1], [6, 6]]], "first_player": 1}
    env2 = start_line(deal2, preset="block", num_players=2)
    for tile in ((1, 2), (2, 4), (0, 1)):
        (move,) = [a for a in legal_of(env2) if a // 2 == t(*tile)]
        env2.step(move)
    assert legal_of(env2) == [act((0, 4), 0), act((0, 4), 1)]
    assert decide(LineGreedyAgent(env2.config), env2) == act((0, 4), 0)


def test_planner_scores_by_hand_pips_double_suits_and_opponents():
    # 3-player block game, 1-6 led (ends 1 / 6). Seat 0 holds 1-1, 2-6, 1-2, 1-3, 1-4, 2-5, 0-3;
    # 20 tiles unseen. Seat 1 (7 tiles) lacks nothing; seat 2 (6 tiles) is known to lack 1 and 6
    # (13 eligible unseen tiles). Score = pips + 2 (double) + 3 x min(3, own tiles fitting the
    # new ends) + 16 x (1 x q1 + 1/2 x q2), q = the chance that the seat cannot play.
    from domino_env.core.config import line_from_preset

    planner = LinePlannerAgent(line_from_preset("block", num_players=3))
    hand = [(1, 1), (2, 6), (1, 2), (1, 3), (1, 4), (2, 5), (0, 3)]
    v = seat_view(planner, hand, [(1, 6)], (1, 6), [7, 7, 6], missing=[0, 0, 1 << 1 | 1 << 6])
    places = [(t(1, 1), 0), (t(2, 6), 1), (t(1, 2), 0)]
    got = planner.score_moves(v, places, np.random.default_rng(0))
    # 1-1 on the 1: ends 1 / 6; four own tiles fit (capped at 3); 7 unseen tiles fit (0-1, 1-5
    # and five sixes) for seat 1; seat 2 lacks both ends: it cannot play.
    one_one = 2 + 2 + 3 * 3 + 16 * (0.65**7 + 0.5 * 1.0)
    # 2-6 on the 6: ends 1 / 2; 1-1, 1-2, 1-3, 1-4, 2-5 fit (capped); seat 1: 2 ones + 4 twos
    # unseen; seat 2: the 4 unseen twos are eligible, each in its hand with chance 6/13.
    two_six = 8 + 3 * 3 + 16 * (0.65**6 + 0.5 * (7 / 13) ** 4)
    # 1-2 on the 1: ends 2 / 6; 2-6 and 2-5 fit; seat 1: 4 twos + 5 sixes; seat 2: 4 twos.
    one_two = 3 + 3 * 2 + 16 * (0.65**9 + 0.5 * (7 / 13) ** 4)
    assert got == pytest.approx([one_one, two_six, one_two], abs=1e-9)


def test_planner_annuls_from_two_uncovered_doubles():
    # Cuban (double-9), five doubles: 0-0, 1-1, 2-2 are covered by 0-5, 1-5, 2-5; 3-3 and 4-4 are
    # not: two uncovered doubles -> annul. With 3-6 instead of 6-7 only 4-4 is: keep the hand.
    from domino_env.core.config import line_from_preset

    planner = LinePlannerAgent(line_from_preset("cuban"))
    doubles = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (0, 5), (1, 5), (2, 5), (8, 9)]

    def view_of(hand):
        return seat_view(planner, hand, [], None, [10] * 4, partner=2)

    assert planner.should_annul(view_of(doubles + [(6, 7)]))
    assert not planner.should_annul(view_of(doubles + [(3, 6)]))


def cuban_first_turn_of_seat_1(seat1):
    """Cuban (annul_doubles=2): seat 0 leads 9-9; seat 1 (no 9 in ``seat1``) is on its first
    turn."""
    rest = [[a, b] for a in range(10) for b in range(a, 10) if [a, b] not in seat1 + [[9, 9]]]
    seat0 = [[9, 9], *[tile for tile in rest if tile[0] >= 5][:9]]
    others = [tile for tile in rest if tile not in seat0 and 9 not in tile]
    deal = {"hands": [seat0, seat1, others[:10], others[10:20]], "first_player": 0}
    env = start_line(deal, preset="cuban", annul_doubles=2)
    env.step(act((9, 9), 0, 9))
    assert env.agent_selection == "player_1"
    return env


def test_without_a_placement_greedy_passes_and_the_planner_annuls_a_weak_hand():
    # Seat 1 holds no 9 and two doubles: PASS and ANNUL are legal. Greedy never annuls. The
    # planner keeps a hand whose doubles are covered (0-0 and 1-1 with 0-1, 0-2, 1-2, ...) and
    # passes; it annuls when both are uncovered (no other 0 or 1).
    strong = [[0, 0], [1, 1], [0, 1], [0, 2], [1, 2], [0, 3], [1, 3], [2, 3], [0, 4], [1, 4]]
    weak = [[0, 0], [1, 1], [2, 3], [2, 4], [2, 5], [3, 4], [3, 5], [4, 5], [2, 6], [3, 6]]
    for hand, planner_move in ((strong, "pass"), (weak, "annul")):
        env = cuban_first_turn_of_seat_1(hand)
        planner = LinePlannerAgent(env.config)
        assert legal_of(env) == [planner.pass_action, planner.annul_action]
        assert decide(LineGreedyAgent(env.config), env) == planner.pass_action
        assert decide(planner, env) == getattr(planner, f"{planner_move}_action")


def test_the_search_option_plays_the_move_that_wins_the_rollouts():
    # 2-player block game, ends 3 / 0; seat 0 holds 1-3, 2-6, 0-6 and seat 1 the last unseen tile
    # 2-4 (every other tile is on the table, so each sampled deal is the true one). Rule scores:
    # 0-6 on the 0 (28) beats 1-3 on the 3 (23). Played out greedily: after 1-3 (ends 1 / 0)
    # seat 1 is stuck and seat 0 goes out (0-6, then 2-6); after 0-6 (ends 3 / 6) seat 0's
    # heavier 2-6 opens a 2 and seat 1 goes out with 2-4. planner:search takes 1-3.
    from domino_env.core.config import line_from_preset

    cfg = line_from_preset("block", num_players=2)
    hand = [(1, 3), (2, 6), (0, 6)]
    placed = [(a, b) for a in range(7) for b in range(a, 7) if (a, b) not in hand + [(2, 4)]]

    class Seated(LinePlannerAgent):
        def view(self, observation):
            return seat_view(self, hand, placed, (3, 0), [3, 1])

    mask = np.zeros(2 * 28 + 3, np.int8)
    mask[[act((1, 3), 0), act((0, 6), 1)]] = 1
    obs = np.zeros(1, np.float32)
    assert Seated(cfg)(obs, mask, np.random.default_rng(0)) == act((0, 6), 1)
    searcher = Seated(cfg, rollouts=1)
    assert searcher(obs, mask, np.random.default_rng(0)) == act((1, 3), 0)
    places = [(t(1, 3), 0), (t(0, 6), 1)]
    v = searcher.view(obs)
    assert searcher.search(v, places, [23.0, 28.0], np.random.default_rng(0)) == pytest.approx(
        [1.0 + 0.23, 0.0 + 0.28]
    )
    # four rollouts of the same deal: the win frequency is still 1 and 0
    four = Seated(cfg, rollouts=4).search(v, places, [23.0, 28.0], np.random.default_rng(0))
    assert four == pytest.approx([1.0 + 0.23, 0.0 + 0.28])


def test_cannot_play_chances_by_hand():
    # 2-player block game: 1-6 on the table, seat 0 holds 1-1 and 2-2; the other 25 tiles are
    # unseen and seat 1 holds one of them. Seven unseen tiles carry a 3: it holds none with
    # chance (1 - 1/25)^7; a seat known to lack 3 cannot play on it at all.
    from domino_env.core.config import line_from_preset

    planner = LinePlannerAgent(line_from_preset("block", num_players=2))
    v = seat_view(planner, [(1, 1), (2, 2)], [(1, 6)], (1, 6), [2, 1])
    assert planner.cannot_play(v, 1, planner.pip_masks[3]) == pytest.approx((24 / 25) ** 7)
    lacking = seat_view(planner, [(1, 1), (2, 2)], [(1, 6)], (1, 6), [2, 1], missing=[0, 1 << 3])
    assert planner.cannot_play(lacking, 1, planner.pip_masks[3]) == 1.0
    # One eligible unseen tile fits (a fit of 2-3 alone): the same chance per tile, 24/25.
    assert planner.cannot_play(v, 1, 1 << t(2, 3)) == pytest.approx(24 / 25)
    # Known to lack 0 to 5, seat 1 may hold only 6-6: with one tile (or two, more than the
    # eligible tiles) it holds 6-6 and can play on a 6.
    no_low = (1 << 6) - 1
    for size in (1, 2):
        only_66 = seat_view(planner, [(1, 1), (2, 2)], [(1, 6)], (1, 6), [2, size],
                            missing=[0, no_low])  # fmt: skip
        assert planner.cannot_play(only_66, 1, planner.pip_masks[6]) == 0.0
