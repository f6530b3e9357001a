"""The exact endgame solver of determinized line rounds (agents.line_solver) and the opponent
model that weights determinizations (agents.line_inference)."""

import math

import numpy as np
import pytest

from domino_env.agents.line_inference import log_weight, placements, resample
from domino_env.agents.line_solver import LineSolver, solve_or_playout, solved_value
from domino_env.agents.search import SearchAgent
from domino_env.core.belief import InformationState
from domino_env.core.config import MexicanTrainConfig, line_from_preset
from domino_env.core.errors import ConfigError
from domino_env.core.line import LineState
from domino_env.core.tiles import tile_index


def random_position(config, rng, moves):
    """A running round after ``moves`` random legal actions (ANNUL excluded), the line led."""
    while True:
        state = LineState.new_game(config, rng)
        for _ in range(moves):
            if state.round_over:
                break
            legal = [a for a in state.legal_actions() if a != state.annul_action]
            state.apply(legal[int(rng.integers(len(legal)))])
        if not state.round_over and state.left >= 0:
            return state


def principal_line(state, side, solver):
    """Play ``state`` (mutated) to the end through the engine, both sides choosing, among its
    legal actions, the first move the solver rates best for them; returns the round result."""
    while not state.round_over:
        legal = [a for a in state.legal_actions() if a != state.annul_action]
        if len(legal) == 1:
            state.apply(legal[0])
            continue
        mover = state.current_player % 2
        choice = legal[0]
        for a in legal:
            trial = state.copy()
            trial.apply(a)
            v = solved_value(trial, side, solver)
            if v is not None and (v == 1.0) == (mover == side):
                choice = a
                break
        state.apply(choice)
    return state.round_result


def engine_minimax(state, side):
    """Does ``side`` win with best play? Plain enumeration through the engine's own legal actions
    and apply (no pruning, no table): the reference the solver must agree with."""
    if state.round_over:
        return state.round_result.winners[0] % 2 == side
    outcomes = []
    for a in state.legal_actions():
        if a == state.annul_action:
            continue
        child = state.copy()
        child.apply(a)
        outcomes.append(engine_minimax(child, side))
    return any(outcomes) if state.current_player % 2 == side else all(outcomes)


@pytest.mark.parametrize(
    "preset,players,moves",
    [("block", 2, 4), ("draw", 2, 22), ("cuban", 4, 28), ("block", 4, 0)],
)
def test_solver_agrees_with_enumeration_through_the_engine(preset, players, moves):
    kw = {} if preset == "cuban" else {"num_players": players}
    config = line_from_preset(preset, **kw)
    if players == 4 and not config.teams:  # block 4p without teams: three sides
        with pytest.raises(ValueError, match="two sides"):
            LineSolver(LineState.new_game(config, np.random.default_rng(0)))
        return
    rng = np.random.default_rng(7)
    checked = wins = 0
    for _ in range(40):
        state = random_position(config, rng, moves)
        if sum(h.bit_count() for h in state.hands) + len(state.boneyard) > 16:
            continue  # keep the plain enumeration small
        solver = LineSolver(state, node_limit=10**6)
        for side in (0, 1):
            solver.reset()
            got = solver.wins(state, side)
            assert got == engine_minimax(state.copy(), side)
            wins += got
            # the engine, playing the solver's chosen moves for both sides, ends as solved
            result = principal_line(state.copy(), side, solver)
            assert (result.winners[0] % 2 == side) == got
            checked += 1
    assert checked >= 10
    assert 0 < wins < checked  # both outcomes occur: the check is not vacuous


def hand_built_block():
    """Block 2p. Seat 0 leads 3-4, seat 1 (holding only 6-6) passes. Seat 0 to move with 3-6 and
    4-1 on ends 3 and 4: 3-6 (the heavier) opens a 6 for seat 1, who goes out with 6-6 and wins;
    4-1 leaves ends 3 and 1, seat 1 passes and seat 0 goes out with 3-6."""
    cfg = line_from_preset("block", num_players=2)
    state = LineState.new_game(
        cfg, None, deal={"hands": [[[3, 4], [3, 6], [4, 1]], [[6, 6]]], "first_player": 0}
    )
    state.apply(2 * tile_index(3, 4, 6))  # the lead
    state.apply(state.pass_action)  # seat 1 cannot play on 3 or 4
    return cfg, state


def test_hand_built_position_solved_and_played():
    cfg, state = hand_built_block()
    assert state.current_player == 0 and state.ends == (3, 4)
    solver = LineSolver(state)
    assert solver.wins(state, 0) is True
    solver.reset()
    assert solver.wins(state, 1) is False
    heavy, light = 2 * tile_index(3, 6, 6), 2 * tile_index(1, 4, 6) + 1  # left end / right end
    assert sorted(state.legal_actions()) == sorted([heavy, light])
    after_heavy, after_light = state.copy(), state.copy()
    after_heavy.apply(heavy)
    after_light.apply(light)
    solver.reset()
    assert solved_value(after_heavy, 0, solver) == 0.0
    assert solved_value(after_light, 0, solver) == 1.0
    # the search agent (no prior) finds the lighter, winning move; the greedy rollout alone would not
    agent = SearchAgent(cfg, budget=8, prior=None)
    info = InformationState.from_state(state, 0)
    mask = np.zeros(agent.num_actions, dtype=np.int8)
    mask[[heavy, light]] = 1
    assert agent(np.zeros(1), mask, np.random.default_rng(0), info_state=info) == light
    blind = SearchAgent(cfg, budget=8, prior=None, rollout="greedy")
    assert blind(np.zeros(1), mask, np.random.default_rng(0), info_state=info) == heavy


def test_node_limit_gives_up_and_the_playout_takes_over():
    config = line_from_preset("cuban")
    state = random_position(config, np.random.default_rng(3), 4)
    solver = LineSolver(state, node_limit=1)
    assert solver.wins(state, 0) is None
    assert solver.nodes == 2  # the first node over the limit is where it stopped
    out = solve_or_playout(state.copy(), 0, solver, solve_tiles=40)
    assert out.termination in ("went_out", "blocked")  # played to the end unsolved
    finished = state.copy()
    while not finished.round_over:
        finished.apply(finished.legal_actions()[0])
    assert solved_value(finished, 0, solver) == float(finished.round_result.winners[0] % 2 == 0)


def test_search_options_are_checked():
    block = line_from_preset("block", num_players=2)
    agent = SearchAgent(block)
    assert (agent.rollout, agent.infer, agent.solve_tiles) == ("solve", 0.5, 20)
    mt = SearchAgent(MexicanTrainConfig())
    assert (mt.rollout, mt.infer) == ("plan", 0.0)
    with pytest.raises(ConfigError, match="infer"):
        SearchAgent(MexicanTrainConfig(), infer=0.5)
    with pytest.raises(ConfigError, match="rollout"):
        SearchAgent(MexicanTrainConfig(), rollout="solve")
    with pytest.raises(ConfigError, match="rollout"):
        SearchAgent(block, rollout="plan")
    with pytest.raises(ConfigError, match="solve_tiles"):
        SearchAgent(block, solve_tiles=0)
    with pytest.raises(ConfigError, match="budget"):
        SearchAgent(block, budget=-3)
    bad = [
        ("budget", "abc"),
        ("budget", None),
        ("solve_tiles", True),
        ("infer", "x"),
        ("infer", float("nan")),
        ("infer", float("inf")),
        ("margin", "x"),
        ("margin", -1),
        ("margin", float("nan")),
        ("pip_weight", float("nan")),
        ("rollout", ""),
        ("rollout", 0),
    ]
    for field, value in bad:
        with pytest.raises(ConfigError, match=f"invalid argument '{field}'"):
            SearchAgent(block, **{field: value})
    with pytest.raises(ConfigError, match="'infer'.*0 in Mexican Train"):
        SearchAgent(MexicanTrainConfig(), infer=0.5)
    with pytest.raises(ConfigError, match="'infer': got nan; allowed: a finite number >= 0"):
        SearchAgent(MexicanTrainConfig(), infer=float("nan"))
    # a huge beta no longer overflows (log-sum-exp): the weights stay finite
    assert SearchAgent(block, infer=1000.0).infer == 1000.0
    with pytest.raises(ConfigError, match="'prior'.*observation alone"):
        SearchAgent(block, prior="search:10")
    assert SearchAgent(line_from_preset("draw")).solve_tiles == 14  # a boneyard: solve later


def test_a_search_agent_refuses_another_seat_count():
    """Built for block 2p, asked to play block 4p (same action count): one clear error."""
    agent = SearchAgent(line_from_preset("block", num_players=2), budget=8)
    state = random_position(line_from_preset("block"), np.random.default_rng(1), 3)
    while len(state.legal_actions()) < 2:
        state.apply(state.legal_actions()[0])
    mask = np.zeros(agent.num_actions, dtype=np.int8)
    mask[state.legal_actions()] = 1
    info = InformationState.from_state(state, state.current_player)
    with pytest.raises(ConfigError, match="'num_players': got 4.*built for num_players=2"):
        agent(np.zeros(115), mask, np.random.default_rng(0), info_state=info)
    # block and draw have the same actions: the rules, not the mask, tell them apart
    draw = random_position(line_from_preset("draw"), np.random.default_rng(1), 3)
    while len(draw.legal_actions()) < 2:
        draw.apply(draw.legal_actions()[0])
    mask[:] = 0
    mask[draw.legal_actions()] = 1
    info = InformationState.from_state(draw, draw.current_player)
    with pytest.raises(ConfigError, match="'use_boneyard': got True.*built for use_boneyard=False"):
        agent(np.zeros(1), mask, np.random.default_rng(0), info_state=info)


def test_draw_game_search_stays_cheap():
    """The draw game's boneyard made every move retry a failing solve; now a failed solve waits
    for 2 more tiles to leave play. Counted in solver nodes, not seconds."""
    cfg = line_from_preset("draw", max_pip=9)
    state = random_position(cfg, np.random.default_rng(0), 2)
    solver = LineSolver(state, node_limit=500)
    calls = []
    real = solver.wins

    def counting(st, side):
        calls.append(sum(h.bit_count() for h in st.hands) + len(st.boneyard))
        return real(st, side)

    solver.wins = counting
    solve_or_playout(state.copy(), 0, solver, solve_tiles=60)
    assert len(calls) >= 2, calls  # the first solves ran out of nodes and were retried
    assert all(b <= a - 2 for a, b in zip(calls, calls[1:], strict=False))  # 2+ tiles later


def test_without_two_sides_solve_falls_back_to_the_block_rollout():
    """Block 4p (no teams) has no two-sided solve: the default plays exactly as rollout="block"."""
    from domino_env.train.evaluate import evaluate

    cfg = line_from_preset("block")
    assert cfg.num_players == 4 and not cfg.teams
    runs = []
    for rollout in ("solve", "block"):
        agent = SearchAgent(cfg, budget=12, rollout=rollout)
        agent.name = "search"
        res = evaluate(
            [agent, "planner", "planner", "planner"],
            rounds=8,
            game="block",
            seed=2,
            keep_records=True,
        )
        runs.append([(r.round_credit, r.pips, r.steps) for r in res.records])
    assert runs[0] == runs[1]


# ---------------------------------------------------------------------------- inference
def test_placement_weights_match_the_softmax_by_hand():
    """Block 2p, seat 0 leads 5-5, seat 1 places 5-1. In a deal where seat 1 also held 5-6 (the
    heavier fitting tile) the placement had probability e^(6b) / (e^(6b) + e^(11b)); in a deal
    where 5-1 was its only fitting tile it was certain."""
    cfg = line_from_preset("block", num_players=2)
    beta = 0.5
    deal = {"hands": [[[5, 5], [0, 0], [2, 3]], [[5, 1], [5, 6], [4, 4]]], "first_player": 0}
    state = LineState.new_game(cfg, None, deal=deal)
    state.apply(2 * tile_index(5, 5, 6))
    state.apply(2 * tile_index(1, 5, 6))
    moves = placements(state, observer=0)
    assert moves == [(1, 5, 5, tile_index(1, 5, 6), 0)]  # the lead is not a choice
    assert placements(state, observer=1) == []
    got = log_weight(state, moves, beta)
    assert got == pytest.approx(6 * beta - math.log(math.exp(6 * beta) + math.exp(11 * beta)))
    other = state.copy()  # the same history, seat 1 holding 4-4 and 2-3 instead of 5-6 and 4-4
    other.hands[1] = 1 << tile_index(4, 4, 6) | 1 << tile_index(2, 3, 6)
    assert log_weight(other, moves, beta) == 0.0
    assert log_weight(state, moves, 0.0) == pytest.approx(-math.log(2))  # uniform: 1 of 2
    assert log_weight(state, moves, 1000.0) == pytest.approx(-5000.0)  # greedy limit, no overflow


def test_the_planner_opponent_model_matches_its_scores_by_hand():
    """Block 2p, seat 0 leads 5-5, seat 1 places 5-1 on the left end (ends 1 | 5). Seat 1 held
    5-6, 1-3 and 4-4 too. Planner-model scores (pips + 2 x double + 3 x min(3, tiles left that
    fit the new ends)): 5-1 leaves ends 1|5: 1-3 and 5-6 fit -> 6 + 6 = 12; 5-6 leaves 6|5: 5-1
    fits -> 11 + 3 = 14 (the same on either end of the 5-5 lead: both options count, as for
    the heavy model)."""
    cfg = line_from_preset("block", num_players=2)
    beta = 0.5
    deal = {"hands": [[[5, 5], [0, 0], [2, 3]], [[5, 1], [5, 6], [1, 3], [4, 4]]], "first_player": 0}
    state = LineState.new_game(cfg, None, deal=deal)
    state.apply(2 * tile_index(5, 5, 6))
    state.apply(2 * tile_index(1, 5, 6))
    moves = placements(state, observer=0)
    got = log_weight(state, moves, beta, "planner")
    # ends 5|5 are equal: one end's options (5-1: 12, 5-6: 14)
    assert got == pytest.approx(12 * beta - math.log(math.exp(12 * beta) + math.exp(14 * beta)))
    heavy = log_weight(state, moves, beta, "heavy")
    assert heavy == pytest.approx(6 * beta - math.log(math.exp(6 * beta) + math.exp(11 * beta)))
    # keeping a suit: with 1-3 gone (4-4 instead of it), 5-1 keeps only 5-6 fitting -> 6 + 3
    other = state.copy()
    other.hands[1] = 1 << tile_index(5, 6, 6) | 1 << tile_index(4, 4, 6) | 1 << tile_index(0, 4, 6)
    assert log_weight(other, moves, beta, "planner") == pytest.approx(
        9 * beta - math.log(math.exp(9 * beta) + math.exp(14 * beta))
    )


def test_rounds_with_draws_are_not_weighted_and_resampling_is_proportional():
    cfg = line_from_preset("draw")
    rng = np.random.default_rng(0)
    seen_draw = False
    for _ in range(30):
        state = random_position(cfg, rng, 14)
        if state.draw_action in state.actions[state.round_start :]:
            assert placements(state, 0) is None
            seen_draw = True
    assert seen_draw
    worlds = ["a", "b", "c"]
    logw = [math.log(1), math.log(3), -math.inf]
    out = resample(worlds, logw, 4000, np.random.default_rng(1))
    assert out.count("c") == 0
    assert out.count("b") == 3000 and out.count("a") == 1000  # systematic: exact proportions
