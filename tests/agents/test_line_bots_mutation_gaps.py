"""Line-game bots: behaviours a mutation run of agents/line_planner.py, line_solver.py and
line_inference.py found untested (each test names the rule it pins), on hand-built positions with
values worked out by hand in the comments."""

from __future__ import annotations

import math

import numpy as np
import pytest
from episode import seat_view

from domino_env.agents import LinePlannerAgent
from domino_env.agents.line_inference import log_weight, placements, resample
from domino_env.agents.line_solver import LineSolver, solve_or_playout, solved_value
from domino_env.core.config import line_from_preset
from domino_env.core.errors import ConfigError
from domino_env.core.line import LineState
from domino_env.core.tiles import tile_index


def t(a, b, n=6):
    return tile_index(a, b, n)


def every_tile_but(n, *kept):
    return [(a, b) for a in range(n + 1) for b in range(a, n + 1) if (a, b) not in kept]


# ------------------------------------------------------------------ planner: __call__
def test_the_planner_refuses_a_mask_of_other_rules_or_with_no_legal_action():
    planner = LinePlannerAgent(line_from_preset("block", num_players=2))  # 2 x 28 + 3 actions
    obs, rng = np.zeros(10, np.float32), np.random.default_rng(0)
    with pytest.raises(ConfigError, match="'action_mask': got '58 actions'.*59 actions: .*built for other rules"):
        planner(obs, np.ones(58, np.int8), rng)
    with pytest.raises(ConfigError, match="'action_mask': got 'no legal action'"):
        planner(obs, np.zeros(59, np.int8), rng)


def test_the_planner_counts_refuse_what_its_docstring_refuses():
    cfg = line_from_preset("block", num_players=2)
    assert LinePlannerAgent(cfg, samples=1, rollouts=0).samples == 1
    with pytest.raises(ConfigError, match="'samples': got 0; allowed: an integer >= 1"):
        LinePlannerAgent(cfg, samples=0)
    with pytest.raises(ConfigError, match="'rollouts': got -1; allowed: an integer >= 0"):
        LinePlannerAgent(cfg, rollouts=-1)


def test_equal_scores_go_to_the_lowest_action():
    # 2-player block game, ends 1 / 2, seat 1 known to lack every value (it cannot play: +16 for
    # every move). 1-4 on the 1 (ends 4 / 2: 2-3 fits) and 2-3 on the 2 (ends 1 / 3: 1-4 fits)
    # both score 5 + 3 + 16 = 24: the lower action, 1-4 on the left end, is played.
    cfg = line_from_preset("block", num_players=2)
    hand = [(1, 4), (2, 3), (5, 5), (6, 6)]

    class Seated(LinePlannerAgent):
        def view(self, observation):
            return seat_view(self, hand, [(1, 2)], (1, 2), [4, 6], missing=[0, 0b1111111])

    planner = Seated(cfg)
    places = [(t(1, 4), 0), (t(2, 3), 1)]
    assert planner.score_moves(planner.view(None), places, np.random.default_rng(0)) == [24.0, 24.0]
    mask = np.zeros(planner.num_actions, np.int8)
    mask[[2 * t(1, 4), 2 * t(2, 3) + 1]] = 1
    obs = np.zeros(1, np.float32)
    assert planner(obs, mask, np.random.default_rng(0)) == 2 * t(1, 4)
    assert planner.rank_actions(obs, mask, np.random.default_rng(0)) == [2 * t(1, 4), 2 * t(2, 3) + 1]


# ------------------------------------------------------------------ planner: score_moves
def test_a_seat_with_no_tile_cannot_play_on_any_end():
    # Rule 4's chance for a seat holding no tile is 1, whatever fits: here every unseen tile
    # fits and the seat lacks nothing.
    planner = LinePlannerAgent(line_from_preset("block", num_players=3))
    v = seat_view(planner, [(1, 1), (2, 2)], [(1, 6)], (1, 6), [2, 0, 7])
    assert planner.cannot_play(v, 1, planner.all_mask) == 1.0
    # seat 2 (7 tiles): each of the 25 unseen tiles is in its hand with chance 7/25
    assert planner.cannot_play(v, 2, planner.all_mask) == pytest.approx((18 / 25) ** 25)


def test_going_out_scores_1e9_on_either_end():
    # Rule 1: the last tile of the hand goes out, whatever the ends it leaves (here 3-4 on ends
    # 3 / 4: to the left it leaves 4 / 4, to the right 3 / 3, which score differently otherwise).
    planner = LinePlannerAgent(line_from_preset("block", num_players=2))
    v = seat_view(planner, [(3, 4)], [(3, 5), (4, 5)], (3, 4), [1, 5])
    got = planner.score_moves(v, [(t(3, 4), 0), (t(3, 4), 1)], np.random.default_rng(0))
    assert got == [1e9, 1e9]


def test_the_partner_term_is_minus_8_times_its_seat_weight_times_its_chance_to_be_stuck():
    # Cuban (double-9, teams), 9-9 led (ends 9 / 9). Seat 0 holds 9-5, 9-8, 5-5, 5-6, 8-8, 0-1,
    # 0-2, 0-3, 1-3 (45 tiles unseen). Seats 1 and 3 are known to lack every value: they cannot
    # play (16 x (1 + 1/4) = 20). The partner (seat 2, 9 tiles) lacks nothing: each unseen tile is
    # in its hand with chance 9/45, and the move scores -8 x 1/2 x (1 - 9/45)^k, k = the unseen
    # tiles fitting the new ends.
    planner = LinePlannerAgent(line_from_preset("cuban"))
    hand = [(5, 9), (8, 9), (5, 5), (5, 6), (8, 8), (0, 1), (0, 2), (0, 3), (1, 3)]
    every = (1 << 10) - 1
    v = seat_view(planner, hand, [(9, 9)], (9, 9), [9, 10, 9, 10], missing=[0, every, 0, every],
                  partner=2)  # fmt: skip
    got = planner.score_moves(v, [(t(5, 9, 9), 0), (t(8, 9, 9), 0)], np.random.default_rng(0))
    # 9-5 on the left: ends 5 / 9; 9-8, 5-5, 5-6 fit (3 x 3); 7 unseen fives + 7 unseen nines.
    nine_five = 14 + 9 + 20 - 4 * 0.8**14
    # 9-8 on the left: ends 8 / 9; 9-5 and 8-8 fit (3 x 2); 8 unseen eights + 7 unseen nines.
    nine_eight = 17 + 6 + 20 - 4 * 0.8**15
    assert got == pytest.approx([nine_five, nine_eight], abs=1e-12)


def closing_view(planner, seat0, seat1_lacks, seat1_size, extra_unseen=()):
    """2-player block game, ends 1 / 2, seat 0 holds ``seat0`` (0-1 and one more tile). Seat 1
    is known to lack 0, 2 and ``seat1_lacks``. Unseen: the 0s and 2s 0-5, 0-6, 2-5, 2-6 (+
    ``extra_unseen``) and the tiles seat 1 may hold; the rest is on the table."""
    unseen_fit = [(0, 5), (0, 6), (2, 5), (2, 6), *extra_unseen]
    held = [(5, 5), (5, 6), (6, 6)]
    placed = every_tile_but(6, *seat0, *unseen_fit, *held)
    lacks = 1 << 0 | 1 << 2 | sum(1 << p for p in seat1_lacks)
    return seat_view(planner, seat0, placed, (1, 2), [2, seat1_size], missing=[0, lacks])


def test_a_move_that_closes_the_game_gains_or_loses_60_as_it_wins_or_loses_the_count():
    # Rule 6. 0-1 on the 1 leaves ends 0 / 2: seat 0's other tile does not fit, 4 unseen tiles
    # fit (<= close_unseen) and seat 1, known to lack 0 and 2, holds none of them: the move closes
    # the game in every sampled deal (c = 1). The rest of the score: 1 pip, no own tile fitting,
    # seat 1 cannot play (+16): 17.
    planner = LinePlannerAgent(line_from_preset("block", num_players=2))
    rng = np.random.default_rng(0)
    # Seat 1 may hold only 5-6 and 6-6 (it lacks 0 to 4): 23 pips against seat 0's 5-5 (10):
    # seat 0 wins the count (v = 1): 17 + 60.
    win = closing_view(planner, [(0, 1), (5, 5)], [1, 3, 4], 2)
    assert planner.score_moves(win, [(t(0, 1), 0)], rng) == [77.0]
    # Seat 1 may hold only 5-5 (it lacks 0 to 4 and 6): 10 pips against seat 0's 6-6 (12): it
    # loses the count (v = 0): 17 - 60.
    lose = closing_view(planner, [(0, 1), (6, 6)], [1, 3, 4, 6], 1)
    assert planner.score_moves(lose, [(t(0, 1), 0)], rng) == [-43.0]
    # Five unseen tiles fit (2-4 too): more than close_unseen, no closing estimate: 17.
    five = closing_view(planner, [(0, 1), (5, 5)], [1, 3, 4], 2, extra_unseen=[(2, 4)])
    assert (five.unseen_mask & (planner.pip_masks[0] | planner.pip_masks[2])).bit_count() == 5
    assert planner.score_moves(five, [(t(0, 1), 0)], rng) == [17.0]
    # A tile left in hand that fits the new ends (0-3): no closing estimate either:
    # 1 + 3 (one fitting tile) + 16.
    keeps = closing_view(planner, [(0, 1), (0, 3)], [1, 3, 4], 2)
    assert planner.score_moves(keeps, [(t(0, 1), 0)], rng) == [20.0]


def test_the_closing_term_is_60_times_c_times_2v_minus_1_over_the_sampled_deals():
    # The position of the test above where seat 0 keeps 5-5 (10 pips), with four deals of seat 1's
    # hand given by hand: 6-6 and 5-6 (the move closes, seat 0 wins the count), 1-3 (closes, seat
    # 0 loses it, 10 pips to 4), 0-6 (seat 1 can play on the 0: no close). c = 3/4, v = 2/3:
    # 17 + 60 x 3/4 x (2 x 2/3 - 1) = 17 + 15.
    def m(*tiles):
        return sum(1 << t(a, b) for a, b in tiles)

    worlds = [([0, m(tile)], 0, []) for tile in ((6, 6), (5, 6), (1, 3), (0, 6))]

    class Dealt(LinePlannerAgent):
        def sample_worlds(self, v, rng, count=None):
            return worlds

    planner = Dealt(line_from_preset("block", num_players=2))
    v = closing_view(planner, [(0, 1), (5, 5)], [1, 3, 4], 2)
    assert planner.score_moves(v, [(t(0, 1), 0)], np.random.default_rng(0)) == [pytest.approx(32.0)]


# ------------------------------------------------------------------ solver
def block_2p(hands, first=0):
    cfg = line_from_preset("block", num_players=2)
    return LineState.new_game(cfg, None, deal={"hands": hands, "first_player": first})


def test_solved_value_is_none_before_the_lead_and_a_half_for_an_annulled_round():
    # Before the lead the solver does not apply (LineSolver.solvable): None, not a solve.
    state = block_2p([[[3, 4], [3, 6], [1, 4]], [[6, 6]]])
    led = state.copy()
    led.apply(2 * t(3, 4))
    solver = LineSolver(led)
    assert state.left < 0 and not LineSolver.solvable(state)
    assert solved_value(state, 0, solver) is None
    assert solver.nodes == 0  # no search was started
    # Cuban, annul_doubles=2: seat 1, to lead with two doubles, annuls: worth 1/2 to either side.
    cfg = line_from_preset("cuban", annul_doubles=2)
    tiles = every_tile_but(9)
    doubles = [[d, d] for d in range(10)]
    others = [list(x) for x in tiles if x[0] != x[1]]
    hands = [others[0:10], doubles[:2] + others[10:18], others[18:28], others[28:38]]
    cuban = LineState.new_game(cfg, None, deal={"hands": hands, "first_player": 1})
    assert cuban.annul_action in cuban.legal_actions()
    cuban.apply(cuban.annul_action)
    assert cuban.round_over and cuban.round_result.termination == "annulled"
    assert solved_value(cuban, 0, solver) == 0.5 and solved_value(cuban, 1, solver) == 0.5
    # line_inference.placements: the record of an annulled round ends at its ANNUL: no placements
    assert placements(cuban, 0) == [] and placements(cuban, 2) == []


def test_each_solve_counts_its_own_nodes_and_reuses_the_table_until_reset():
    # Block 2p: seat 0 leads 3-4, seat 1 (6-6 only) passes; seat 0 holds 3-6 and 4-6 on ends 3 / 4:
    # either opens a 6 and seat 1 goes out with 6-6: side 0 loses with every move (no cut at the
    # root: the result is stored when every move has been tried).
    state = block_2p([[[3, 4], [3, 6], [4, 6]], [[6, 6]]])
    state.apply(2 * t(3, 4))
    state.apply(state.pass_action)
    solver = LineSolver(state)
    assert solver.nodes == 0 and solver.node_limit == 20_000  # docs/search.md: the default budget
    assert solver.wins(state, 0) is False
    first = solver.nodes
    assert first == 3  # the root and the two positions where seat 1 goes out
    assert solver.wins(state, 0) is False and solver.nodes == 0  # the root is in the table
    solver.reset()
    assert solver.wins(state, 0) is False and solver.nodes == first  # counted from 0 again
    # the node budget holds per call: a limit of 3 never runs out on this position
    tight = LineSolver(state, node_limit=first)
    for _ in range(3):
        tight.reset()
        assert tight.wins(state, 0) is False


def test_a_position_where_the_seat_to_move_must_pass_is_in_the_table_too():
    # Block 2p: seat 0 leads 3-4; seat 1 holds only 6-6 and must pass (the root is a pass). Seat 0
    # then wins with 1-4 (ends 3 / 1: seat 1 passes again and 3-6 goes out), not with 3-6.
    state = block_2p([[[3, 4], [3, 6], [1, 4]], [[6, 6]]])
    state.apply(2 * t(3, 4))
    assert state.current_player == 1 and state.legal_actions() == [state.pass_action]
    solver = LineSolver(state)
    assert solver.wins(state, 0) is True and solver.nodes > 0
    assert solver.wins(state, 0) is True and solver.nodes == 0
    solver.reset()
    assert solver.wins(state, 1) is False and solver.nodes > 0


def test_a_solve_whose_root_has_a_winning_move_is_in_the_table_and_tries_heavy_tiles_first():
    # Block 2p, seat 0 to move on ends 3 / 4 with 3-6 and 1-4 (seat 1: 6-6): 1-4 wins, a cut at
    # the root; the second solve is a table hit. Heaviest tile first: 3-6 is tried first (it
    # opens a 6: seat 1 goes out), then 1-4 (seat 1 passes, seat 0 goes out): 4 nodes.
    state = block_2p([[[3, 4], [3, 6], [1, 4]], [[6, 6]]])
    state.apply(2 * t(3, 4))
    state.apply(state.pass_action)
    solver = LineSolver(state)
    assert solver.wins(state, 0) is True and solver.nodes == 4
    assert solver.wins(state, 0) is True and solver.nodes == 0


def tiles_left(state):
    return sum(h.bit_count() for h in state.hands) + len(state.boneyard)


def late_draw_game():
    """Draw 2p after 12 moves (seed 5, the first legal action each time)."""
    state = LineState.new_game(line_from_preset("draw", num_players=2), np.random.default_rng(5))
    for _ in range(12):
        state.apply([a for a in state.legal_actions() if a != state.annul_action][0])
    return state


def test_the_rollout_hands_over_to_the_solver_at_exactly_solve_tiles_hand_and_boneyard_tiles():
    # 8 tiles in the hands and 11 in the boneyard. With solve_tiles 19 the solver takes the
    # position as it is (the state is not played on); with 16 the block rollout plays until
    # exactly 16 tiles are left in the hands and boneyard together (3 placements), and the value
    # is the solved value of that position.
    state = late_draw_game()

    assert (sum(h.bit_count() for h in state.hands), len(state.boneyard)) == (8, 11)
    as_is = state.copy()
    assert solve_or_playout(as_is, 0, LineSolver(state), 19) == 1.0
    assert as_is.actions == state.actions
    later = state.copy()
    value = solve_or_playout(later, 0, LineSolver(state), 16)
    assert tiles_left(later) == 16 and len(later.actions) == 15 and not later.round_over
    assert later.actions[:12] == state.actions
    assert value == solved_value(later.copy(), 0, LineSolver(later)) == 1.0


def test_an_unsolved_position_is_tried_again_each_time_2_more_tiles_have_left():
    # A node budget of 0 never solves: solve_or_playout tries at 16 tiles left, then 14, 12 and
    # 10, until the block rollout ends the round (blocked, seat 0 has fewer pips) and returns its
    # result.
    state = late_draw_game()
    solver = LineSolver(state, node_limit=0)
    tried = []
    wins = solver.wins

    def spy(position, side):
        tried.append(tiles_left(position))
        return wins(position, side)

    solver.wins = spy
    out = solve_or_playout(state, 0, solver, 16)
    assert tried == [16, 14, 12, 10]
    assert out is state.round_result and out.termination == "blocked" and out.winners == (0,)


# ------------------------------------------------------------------ inference
def test_a_pass_hands_the_turn_on_in_the_placement_record():
    # Block 2p: seat 0 leads 3-4, seat 1 (6-6) passes, seat 0 plays 1-4 on the 4 although 3-6
    # (9 pips, on the 3) fitted too: seen by seat 1 that is seat 0's choice, with probability
    # e^(5b) / (e^(5b) + e^(9b)) under the heavy model; seat 0 sees no other seat's placement.
    state = block_2p([[[3, 4], [3, 6], [1, 4]], [[6, 6]]])
    for action in (2 * t(3, 4), state.pass_action, 2 * t(1, 4) + 1):
        state.apply(action)
    moves = placements(state, observer=1)
    assert moves == [(0, 3, 4, t(1, 4), 1)]
    assert placements(state, observer=0) == []
    beta = 0.5
    assert log_weight(state, moves, beta) == pytest.approx(
        5 * beta - math.log(math.exp(5 * beta) + math.exp(9 * beta))
    )


def two_choices_of_seat_1():
    """Block 2p: seat 0 (0-5, 6-6, 2-2) leads 0-5 (ends 0 / 5); seat 1 (5-1, 0-3, 1-4, 1-2, 1-1)
    plays 5-1 on the 5 (ends 0 / 1); seat 0 passes; seat 1 plays 0-3 on the 0 (ends 3 / 1)."""
    state = block_2p([[[0, 5], [6, 6], [2, 2]], [[1, 5], [0, 3], [1, 4], [1, 2], [1, 1]]])
    for action in (2 * t(0, 5), 2 * t(1, 5) + 1, state.pass_action, 2 * t(0, 3)):
        state.apply(action)
    return state


def test_the_record_follows_both_ends_and_an_end_of_pip_0():
    state = two_choices_of_seat_1()
    assert placements(state, observer=0) == [(1, 0, 5, t(1, 5), 1), (1, 0, 1, t(0, 3), 0)]
    # heavy model: 5-1 (6) against 0-3 (3); then 0-3 (3) against 1-4 (5), 1-2 (3) and 1-1 (2)
    b = 0.5
    heavy = (6 * b - math.log(math.exp(3 * b) + math.exp(6 * b))
             + 3 * b - math.log(2 * math.exp(3 * b) + math.exp(5 * b) + math.exp(2 * b)))  # fmt: skip
    assert log_weight(state, placements(state, 0), b) == pytest.approx(heavy)


def test_the_record_passes_the_turn_on_in_seat_order_with_three_players():
    # Block 3p: seat 0 leads 1-2; seat 1 plays 2-3 on the 2 (1-6 on the 1 fitted too); seat 2
    # plays 3-4 on the 3 (1-1 on the 1 fitted too).
    cfg = line_from_preset("block", num_players=3)
    deal = {"hands": [[[1, 2], [5, 5]], [[2, 3], [1, 6], [5, 6]], [[3, 4], [1, 1], [0, 5]]],
            "first_player": 0}  # fmt: skip
    state = LineState.new_game(cfg, None, deal=deal)
    for action in (2 * t(1, 2), 2 * t(2, 3) + 1, 2 * t(3, 4) + 1):
        state.apply(action)
    moves = placements(state, observer=0)
    assert moves == [(1, 1, 2, t(2, 3), 1), (2, 1, 3, t(3, 4), 1)]
    assert placements(state, observer=2) == [(1, 1, 2, t(2, 3), 1)]
    b = 0.5
    want = (5 * b - math.log(math.exp(5 * b) + math.exp(7 * b))
            + 7 * b - math.log(math.exp(7 * b) + math.exp(2 * b)))  # fmt: skip
    assert log_weight(state, moves, b) == pytest.approx(want)
    # Seat 1 (5-6, 0-0) passes on 1 / 2: the next placement (2-3 on the 2) is seat 2's.
    deal = {"hands": [[[1, 2], [5, 5]], [[5, 6], [0, 0]], [[2, 3], [1, 6], [0, 5]]],
            "first_player": 0}  # fmt: skip
    passed = LineState.new_game(cfg, None, deal=deal)
    for action in (2 * t(1, 2), passed.pass_action, 2 * t(2, 3) + 1):
        passed.apply(action)
    assert placements(passed, observer=0) == [(2, 1, 2, t(2, 3), 1)]


def test_one_tile_on_either_end_is_a_choice_of_two_placements():
    # Block 2p: seat 0 leads 3-4; seat 1 plays 4-6 on the 4 (3-6 on the 3 fitted too: 10 against
    # 9 pips); seat 0 passes; on ends 3 / 6 seat 1's 3-6 fits both ends: two placements of the
    # same weight, probability 1/2 whatever beta.
    state = block_2p([[[3, 4], [0, 0], [1, 1]], [[4, 6], [3, 6], [5, 5]]])
    for action in (2 * t(3, 4), 2 * t(4, 6) + 1, state.pass_action, 2 * t(3, 6)):
        state.apply(action)
    moves = placements(state, observer=0)
    assert moves == [(1, 3, 4, t(4, 6), 1), (1, 3, 6, t(3, 6), 0)]
    b = 0.5
    assert log_weight(state, moves, b) == pytest.approx(
        10 * b - math.log(math.exp(10 * b) + math.exp(9 * b)) - math.log(2)
    )
    assert log_weight(state, moves[1:], 3.0) == pytest.approx(-math.log(2))
    assert log_weight(state, moves[1:], 3.0, "planner") == pytest.approx(-math.log(2))
    # planner model, first choice (seat 1 holding 4-6, 3-6, 5-5 on ends 3 / 4): 4-6 on the 4
    # (played, the right end) leaves 3 / 6 (3-6 fits): 10 + 3 = 13; 3-6 on the 3 leaves 6 / 4
    # (4-6 fits): 9 + 3 = 12. The second choice is 3-6 on either end (9 each): 1/2.
    assert log_weight(state, moves, b, "planner") == pytest.approx(
        13 * b - math.log(math.exp(13 * b) + math.exp(12 * b)) - math.log(2)
    )


def test_the_planner_model_scores_each_option_on_its_own_end():
    # Planner-model scores (pips + 2 x double + 3 x min(3, tiles left that fit the new ends)).
    # First choice, seat 1 holding 5-1, 0-3, 1-4, 1-2, 1-1 on ends 0 / 5: 0-3 on the 0 leaves
    # 3 / 5 (5-1 fits): 3 + 3 = 6; 5-1 on the 5 (played) leaves 0 / 1 (all four fit, 3 count):
    # 6 + 9 = 15. Second, holding 0-3, 1-4, 1-2, 1-1 on ends 0 / 1: 0-3 on the 0 (played) leaves
    # 3 / 1 (three fit): 3 + 9 = 12; 1-4 on the 1 leaves 0 / 4 (0-3 fits): 5 + 3 = 8; 1-2 on the
    # 1 leaves 0 / 2 (0-3 fits): 3 + 3 = 6; 1-1 on the 1 leaves 0 / 1 (three fit): 2 + 2 + 9 = 13.
    state = two_choices_of_seat_1()
    b = 0.5
    e = [math.exp(b * x) for x in (6, 15, 12, 8, 6, 13)]
    want = 15 * b - math.log(e[0] + e[1]) + 12 * b - math.log(sum(e[2:]))
    assert log_weight(state, placements(state, 0), b, "planner") == pytest.approx(want)


def test_systematic_resampling_keeps_the_worlds_in_their_order():
    # weights 1, 2, 3 over 6 draws: one pointer in [0, 1) stepping by 1 meets "a" once, "b"
    # twice, "c" three times, in the order of the worlds, whatever the uniform draw.
    worlds, logw = ["a", "b", "c"], [0.0, math.log(2), math.log(3)]
    for seed in range(5):
        assert resample(worlds, logw, 6, np.random.default_rng(seed)) == list("abbccc")
    # log weights far below 0 (long records): the proportions are those of exp(logw - max)
    low = [-900.0, -900.0 + math.log(3)]
    assert resample(["a", "b"], low, 4, np.random.default_rng(0)) == list("abbb")


# ------------------------------------------------------------------ planner: rank_actions
def test_rank_actions_keeps_a_draw_after_an_annul():
    # Draw game with annul_doubles: a seat with no placement on its first turn may DRAW or ANNUL.
    # Its doubles 0-0 and 1-1 are uncovered: the planner annuls, and DRAW still ranks after it
    # (rank_actions orders every legal action); with 0-1 they are covered: DRAW, then ANNUL.
    cfg = line_from_preset("draw", annul_doubles=2)

    def ranked(hand):
        class Seated(LinePlannerAgent):
            def view(self, observation):
                return seat_view(self, hand, [(5, 6)], (5, 6), [5, 7], boneyard=14)

        planner = Seated(cfg)
        mask = np.zeros(planner.num_actions, np.int8)
        mask[[planner.draw_action, planner.annul_action]] = 1
        return planner, planner.rank_actions(np.zeros(1, np.float32), mask, np.random.default_rng(0))

    planner, got = ranked([(0, 0), (1, 1), (2, 3), (2, 4), (3, 4)])
    assert got == [planner.annul_action, planner.draw_action]
    planner, got = ranked([(0, 0), (1, 1), (0, 1), (2, 4), (3, 4)])
    assert got == [planner.draw_action, planner.annul_action]


def test_a_lone_placement_next_to_annul_is_played_on_its_own_end():
    # Cuban, a first turn with ANNUL legal and one placement, 5-9 on the right end (ends 8 / 9);
    # the doubles 0-0 and 1-1 are covered by 0-1: the planner keeps the hand and plays 5-9 there.
    cfg = line_from_preset("cuban")
    hand = [(0, 0), (1, 1), (0, 1), (5, 9), (2, 3)]

    class Seated(LinePlannerAgent):
        def view(self, observation):
            return seat_view(self, hand, [(8, 9)], (8, 9), [5, 10, 10, 10], partner=2)

    planner = Seated(cfg)
    mask = np.zeros(planner.num_actions, np.int8)
    mask[[2 * t(5, 9, 9) + 1, planner.annul_action]] = 1
    assert planner(np.zeros(1, np.float32), mask, np.random.default_rng(0)) == 2 * t(5, 9, 9) + 1
