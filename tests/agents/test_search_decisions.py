"""How the search agent (agents.search) values a finished round and decides from its playout
values: hand-built round results and hand-given values with their expected numbers."""

from types import SimpleNamespace

import numpy as np
import pytest

from domino_env.agents import make_agent
from domino_env.agents.line_inference import log_weight, placements, resample
from domino_env.agents.line_solver import LineSolver, solve_or_playout
from domino_env.agents.rollout import playout
from domino_env.agents.search import SearchAgent
from domino_env.core.belief import InformationState
from domino_env.core.config import MexicanTrainConfig, line_from_preset
from domino_env.core.errors import ConfigError
from domino_env.core.line import LineRoundResult, LineState
from domino_env.core.mexican_train import MexicanTrainState, RoundResult
from domino_env.envs import line_v0


def mexican(winners, pips, termination="went_out"):
    return RoundResult(termination, winners, pips, (0,) * len(pips), 12, 0)


def line(winners, pips, termination="went_out"):
    return LineRoundResult(termination, winners, pips, (0,) * len(pips), 0, 0)


def test_a_round_is_worth_the_win_credit_plus_the_pip_margin_per_100():
    agent = SearchAgent(MexicanTrainConfig(), prior=None)  # pip_weight 0.1, 4 seats
    result = mexican((1,), (10, 0, 20, 30))
    # seat 1 won; the others hold 10, 20, 30 (mean 20) and it 0: 1 + 0.1 * 20 / 100
    assert agent.value(result, 1) == pytest.approx(1.02)
    # seat 0 lost; the others' mean (0 + 20 + 30) / 3 against its 10
    assert agent.value(result, 0) == pytest.approx(0.1 * (50 / 3 - 10) / 100)
    assert agent.value(result, 3) == pytest.approx(0.1 * (10 - 30) / 100)
    # a two-way tie (a blocked round) halves the credit
    tie = mexican((0, 2), (5, 9, 5, 13), "blocked")
    assert agent.value(tie, 2) == pytest.approx(0.5 + 0.1 * (27 / 3 - 5) / 100)
    assert agent.value(tie, 1) == pytest.approx(0.1 * (23 / 3 - 9) / 100)
    heavy = SearchAgent(MexicanTrainConfig(num_players=2), prior=None, pip_weight=2.0)
    assert heavy.value(mexican((0,), (0, 35)), 0) == pytest.approx(1.7)
    assert heavy.value(mexican((0,), (0, 35)), 1) == pytest.approx(-0.7)


def test_with_teams_a_win_counts_for_both_partners_and_the_margin_is_the_sides_totals():
    agent = SearchAgent(line_from_preset("cuban"), prior=None)  # teams 0+2 against 1+3
    result = line((1, 3), (5, 0, 7, 3))
    for seat in (1, 3):
        assert agent.value(result, seat) == pytest.approx(1 + 0.1 * (12 - 3) / 100)
    for seat in (0, 2):
        assert agent.value(result, seat) == pytest.approx(0.1 * (3 - 12) / 100)
    both = line((0, 1, 2, 3), (4, 6, 4, 6), "blocked")  # a blocked round tied between the sides
    assert agent.value(both, 0) == pytest.approx(0.5 + 0.1 * 4 / 100)
    assert agent.value(both, 3) == pytest.approx(0.5 - 0.1 * 4 / 100)


def test_an_annulled_round_is_worth_the_parity_share():
    annulled = line((), (0, 0, 0, 0), "annulled")
    assert SearchAgent(line_from_preset("cuban"), prior=None).value(annulled, 1) == 0.5
    block = SearchAgent(line_from_preset("block"), prior=None)  # 4 seats, no teams
    assert block.value(annulled, 1) == 0.25
    two = SearchAgent(line_from_preset("block", num_players=2), prior=None)
    assert two.value(line((), (0, 0), "annulled"), 0) == 0.5


def decide(agent, legal, default, values, mask=None):
    """The agent's move when its search returns ``(legal, default, values)``."""
    if mask is None:
        mask = np.zeros(agent.num_actions, dtype=np.int8)
        mask[legal] = 1
    agent.searched_values = lambda *args: (legal, default, values)
    agent._check_info_state = lambda info_state: None  # (no position: the values are given)
    return agent(None, mask, np.random.default_rng(0), info_state=object())


def test_the_best_mean_wins_unless_it_beats_the_priors_move_by_under_margin_standard_errors():
    agent = SearchAgent(line_from_preset("block", num_players=2), prior=None)
    assert agent.margin == 1.5
    # no prior move (-1): the best mean, whatever the noise
    assert decide(agent, [4, 9, 20], -1, [[0, 1], [1, 0.9], [0.2, 0.2]]) == 9
    # the prior's move 4 against 9: paired differences 1, 0, 1, 0 (mean 0.5, standard error
    # 0.5774 / 2 = 0.2887; 1.5 of them = 0.433 < 0.5): 9 is clearly better
    assert decide(agent, [4, 9], 4, [[0, 0, 0, 0], [1, 0, 1, 0]]) == 9
    # differences 1, 0, 0, 0 (mean 0.25, standard error 0.25; 1.5 x 0.25 > 0.25): keep 4
    assert decide(agent, [4, 9], 4, [[0, 0, 0, 0], [1, 0, 0, 0]]) == 4
    assert decide(agent, [9, 4], 4, [[1, 0, 0, 0], [0, 0, 0, 0]]) == 4  # by move, not by place
    # margin 0.9: 0.25 > 0.9 x 0.25 leaves it
    loose = SearchAgent(line_from_preset("block", num_players=2), prior=None, margin=0.9)
    assert decide(loose, [4, 9], 4, [[0, 0, 0, 0], [1, 0, 0, 0]]) == 9
    # one determinization: no standard error, so the prior's move stays
    assert decide(loose, [4, 9], 4, [[0.0], [1.0]]) == 4
    # the differences, not the two moves' own spreads: 9 beats 4 by 0.1 on every deal
    assert decide(agent, [4, 9], 4, [[0, 1, 0, 1], [0.1, 1.1, 0.1, 1.1]]) == 9
    # a worse best than the prior's move never leaves it: the prior's move has the best mean
    assert decide(agent, [4, 9], 4, [[1, 1, 1, 1], [0, 0, 0, 0]]) == 4
    # the difference of the values, not their sum: 0.25, 0, 0, 0 keeps 4
    assert decide(agent, [4, 9], 4, [[1, 1, 1, 1], [1.25, 1, 1, 1]]) == 4
    # action 0 is a prior's move like any other (only -1 means no prior)
    assert decide(agent, [0, 9], 0, [[0, 0, 0, 0], [1, 0, 0, 0]]) == 0
    # two determinizations have a standard error: 1 and 0.9 (mean 0.95, standard error 0.05)
    assert decide(agent, [4, 9], 4, [[0, 0], [1, 0.9]]) == 9
    # the sample standard deviation (ddof 1): differences 1, 0, 0, 0 have standard error 0.25
    # exactly; margin 1.1 keeps 4 (0.275 > 0.25), margin 1.0 too (the mean must exceed it)
    for margin in (1.1, 1.0):
        edge = SearchAgent(line_from_preset("block", num_players=2), prior=None, margin=margin)
        assert decide(edge, [4, 9], 4, [[0, 0, 0, 0], [1, 0, 0, 0]]) == 4


def test_equal_means_go_to_the_priors_move_then_to_the_lowest_action():
    agent = SearchAgent(line_from_preset("block", num_players=2), prior=None)
    same = [[0.5, 0.5]] * 3
    assert decide(agent, [4, 9, 20], -1, same) == 4
    assert decide(agent, [4, 9, 20], 20, same) == 20
    assert decide(agent, [4, 9, 20], 9, [[0.7, 0.3], [0.5, 0.5], [0.6, 0.4]]) == 9


def test_one_legal_action_is_played_without_a_search():
    """A single legal action is returned as is, nothing drawn from the rng; the info_state is
    still needed (it was not: a caller that never passed one found out at its first choice)."""
    agent = SearchAgent(MexicanTrainConfig())
    mask = np.zeros(agent.num_actions, dtype=np.int8)
    mask[agent.num_actions - 2] = 1  # DRAW alone
    state = MexicanTrainState.new_game(MexicanTrainConfig(), np.random.default_rng(0))
    info = InformationState.from_state(state, state.current_player)
    rng = np.random.default_rng(5)
    assert agent(None, mask, rng, info_state=info) == agent.num_actions - 2
    assert rng.integers(1 << 30) == np.random.default_rng(5).integers(1 << 30)
    with pytest.raises(ConfigError, match="info_state"):
        agent(None, mask, rng)
    with pytest.raises(ConfigError, match=r"'info_state': got 'str'; allowed: an InformationState"):
        agent(None, mask, rng, info_state="junk")


def test_the_priors_move_is_the_default_of_a_line_search_over_every_move():
    """Line games search every legal move (candidates 0), the prior's move still the default the
    search must clearly beat; candidates=1 returns the prior's move alone, unvalued."""
    env = line_v0.raw_env(preset="cuban")
    env.reset(seed=2)
    state = env.game_state
    while len(state.legal_actions()) < 3:
        env.step(int(state.legal_actions()[0]))
    obs = env.observe(env.agent_selection)
    args = (obs["observation"], obs["action_mask"])
    info = InformationState.from_state(state, state.current_player)
    planner = make_agent("planner", env.config)
    agent = SearchAgent(env.config, budget=8)
    legal, default, values = agent.searched_values(*args, np.random.default_rng(3), info)
    assert legal == list(state.legal_actions()) and len(values) == len(legal)
    assert default == planner(*args, np.random.default_rng(3))
    one = SearchAgent(env.config, budget=8, candidates=1)
    assert one.searched_values(*args, np.random.default_rng(3), info) == ([default], default, [[]])


def test_an_info_state_is_refused_by_what_it_lacks():
    agent = SearchAgent(MexicanTrainConfig(num_players=2, max_pip=9), budget=8, prior=None)
    start = MexicanTrainState.new_game(agent.config, np.random.default_rng(0))
    info, legal = decisions(start, 1)[0]
    mask = np.zeros(agent.num_actions, dtype=np.int8)
    mask[legal] = 1
    rng = np.random.default_rng(0)
    with pytest.raises(ConfigError, match="'info_state': got None; allowed: the seat's InformationState: search needs the public history"):
        agent(None, mask, rng)
    partial = SimpleNamespace(public=info.public, seat=info.seat)  # no sample
    with pytest.raises(ConfigError, match="got 'SimpleNamespace'; allowed: an InformationState"):
        agent(None, mask, rng, info_state=partial)


def reference_values(agent, info, legal, seed):
    """Steps 3-4 of the search (agents/search.py docstring), written out with a fresh solver per
    solve: ``K = max(min_worlds, budget // A)`` uniform determinizations, each action played in
    every one of them (a random rollout seeded alike for every action of one determinization)."""
    rng = np.random.default_rng(seed)
    out = [[] for _ in legal]
    plans = {}
    worlds = max(agent.min_worlds, agent.budget // len(legal))
    moves = placements(info.public, info.seat) if agent.infer > 0 else None
    if moves:  # line games: re-weighted by the opponent model
        pool = [info.sample(rng) for _ in range(worlds * agent.oversample)]
        logw = [log_weight(w, moves, agent.infer, agent.opponent_model) for w in pool]
        sampled = resample(pool, logw, worlds, rng)
    for k in range(worlds):
        world = sampled[k] if moves else info.sample(rng)
        playout_seed = int(rng.integers(2**63))
        for i, action in enumerate(legal):
            state = world.copy()
            state.apply(action)
            if agent.rollout == "solve":
                solver = LineSolver(state, agent.node_limit)
                result = solve_or_playout(state, info.seat % 2, solver, agent.solve_tiles)
                if isinstance(result, float):
                    out[i].append(result)
                    continue
            elif not state.round_over:
                r = np.random.default_rng(playout_seed)
                playout(state, agent.rollout, r, plans)
            out[i].append(agent.value(state.round_result, info.seat))
    return out


def decisions(state, num_players):
    """The first position of each seat with two or more legal actions: (its information, the
    legal actions)."""
    found = {}
    while not state.round_over and len(found) < num_players:
        legal = list(state.legal_actions())
        if len(legal) > 1:
            found.setdefault(state.current_player, (InformationState.from_state(state, state.current_player), legal))
        state.apply(legal[len(legal) // 2])
    return list(found.values())


@pytest.mark.parametrize(
    ("config", "options"),
    [
        (line_from_preset("block", num_players=2), {"rollout": "solve", "infer": 0}),
        (line_from_preset("block", num_players=2), {"rollout": "solve"}),
        (line_from_preset("cuban"), {"rollout": "solve", "infer": 0}),
        (line_from_preset("draw"), {"rollout": "solve", "infer": 0, "solve_tiles": 20}),
        (MexicanTrainConfig(num_players=2, max_pip=9), {"rollout": "random"}),
        (MexicanTrainConfig(num_players=3, max_pip=9), {"rollout": "plan"}),
    ],
)
def test_the_playout_values_are_those_of_each_action_in_the_same_sampled_deals(config, options):
    agent = SearchAgent(config, budget=12, prior=None, **options)
    checked = 0
    for seed in range(3):
        cls = LineState if agent.line else MexicanTrainState
        for info, legal in decisions(cls.new_game(config, np.random.default_rng(seed)), config.num_players):
            values = agent.action_values(info, legal, np.random.default_rng(seed))
            assert values == reference_values(agent, info, legal, seed)
            assert len(values[0]) == max(4, 12 // len(legal))
            checked += 1
    assert checked >= 3 * config.num_players - 1


def test_late_draw_game_solves_match_a_fresh_solver_per_deal():
    """Late in a draw game the sampled deals often share both hands and differ only in the
    boneyard's order, which the solver's table does not key: it is cleared for every deal."""
    agent = SearchAgent(line_from_preset("draw"), budget=24, prior=None, infer=0)
    checked = 0
    for seed in range(12):
        state = LineState.new_game(agent.config, np.random.default_rng(seed))
        while not state.round_over:
            legal = list(state.legal_actions())
            if len(legal) > 1 and 1 <= state.boneyard_size <= 3:
                info = InformationState.from_state(state, state.current_player)
                values = agent.action_values(info, legal, np.random.default_rng(seed))
                assert values == reference_values(agent, info, legal, seed)
                checked += 1
            state.apply(legal[len(legal) // 2])
    assert checked >= 4


def test_a_spec_relabels_only_the_errors_of_the_fields_it_gave(monkeypatch):
    """``search:...`` names the whole spec for a value it gave (AgentSpecError); an error about a
    field it did not give (here the default prior failing) stays that field's own ConfigError."""
    import domino_env.agents.search as search

    def refuse(config, **options):
        raise ConfigError("prior", "planner", "an agent name for this game")

    monkeypatch.setattr(search, "SearchAgent", refuse)
    with pytest.raises(ConfigError) as err:
        make_agent("search:budget=8", MexicanTrainConfig())
    assert type(err.value) is ConfigError and err.value.field == "prior"
    with pytest.raises(ConfigError) as err:
        make_agent("search:budget=8,prior=planner", MexicanTrainConfig())
    assert type(err.value) is not ConfigError and err.value.field == "agent"
    assert err.value.value == "search:budget=8,prior=planner"
