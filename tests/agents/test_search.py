"""The search agent (agents.search), the rollouts and the info_state protocol extension."""

import pickle

import numpy as np
import pytest

from domino_env.agents import make_agent
from domino_env.agents.rollout import playout, quick_chain
from domino_env.agents.search import SearchAgent
from domino_env.core.belief import InformationState
from domino_env.core.config import MexicanTrainConfig, line_from_preset
from domino_env.core.errors import AgentSpecError, ConfigError
from domino_env.core.mexican_train import MexicanTrainState
from domino_env.core.tiles import set_tables, tile_index
from domino_env.envs import line_v0, mexican_train_v0
from domino_env.train.evaluate import evaluate
from domino_env.wrappers import SingleAgentEnv, info_state_kwargs


def decision(env, seed):
    """The first position of a seeded round where the acting seat has several legal actions."""
    env.reset(seed=seed)
    while True:
        agent = env.agent_selection
        obs = env.observe(agent)
        if obs["action_mask"].sum() > 1:
            seat = env.possible_agents.index(agent)
            return obs, InformationState.from_state(env.game_state, seat)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize("preset", [None, "block", "cuban"])
def test_registry_builds_search_for_every_game(preset):
    config = MexicanTrainConfig() if preset is None else line_from_preset(preset)
    agent = make_agent("search", config)
    assert isinstance(agent, SearchAgent) and agent.budget == 200
    assert make_agent("search:40", config).budget == 40
    # a bad bare item names both spellings (a misspelt key looks like a bad budget)
    for text in ("0", "many", " 5", "+5", "1_0", "5 ", "xyz"):
        with pytest.raises(ConfigError, match=r"search:N with N an integer >= 1, or search:key=value,\.\.\. with keys") as err:
            make_agent(f"search:{text}", config)
        assert "'budget', 'candidates', 'prior', 'margin', 'rollout'" in str(err.value)


def test_the_keyed_spelling_sets_every_search_option():
    """``search:key=value,...``: the budget, candidates, prior (another agent spec, colons and
    all), margin and rollout; every bad item is a ConfigError naming the whole spec."""
    config = MexicanTrainConfig()
    agent = make_agent("search:60,prior=greedy,margin=0.5,rollout=greedy", config)
    assert (agent.budget, agent.margin, agent.rollout, agent.candidates) == (60, 0.5, "greedy", 0)
    assert agent.prior.__class__.__name__ == "GreedyAgent"
    agent = make_agent("search:budget=60,candidates=3,prior=planner:50", config)
    assert agent.candidates == 3 and agent.prior.budget == 50 and agent.budget == 60
    assert make_agent("search:prior=none", config).prior is None
    assert make_agent("search:candidates=0", config).candidates == 0
    line = make_agent("search:30,prior=planner", line_from_preset("cuban"))
    assert line.budget == 30 and line.candidates == 0 and line.opponent_model == "heavy"
    assert make_agent("search:opponent_model=planner", line_from_preset("cuban")).opponent_model == "planner"
    with pytest.raises(ConfigError, match="opponent_model: 'heavy' in Mexican Train"):
        make_agent("search:opponent_model=planner", config)
    for bad, message in [("search:100,x=1", "with keys"), ("search:100,200", "with keys"),
                         ("search:budget=1,budget=2", "given twice"), ("search:candidates=-1", "integer >= 0"),
                         ("search:margin=a", "a finite number"), ("search:budget=0", "integer >= 1")]:  # fmt: skip
        with pytest.raises(ConfigError, match=message) as err:
            make_agent(bad, config)
        assert bad in str(err.value)
    with pytest.raises(ConfigError, match="prior: an agent name"):
        make_agent("search:prior=nobody", config)
    with pytest.raises(ConfigError, match="candidates: 0 with prior"):  # a prior that does not rank its moves
        make_agent("search:candidates=2,prior=greedy", config)


@pytest.mark.parametrize("preset", [None, "cuban"])
@pytest.mark.parametrize(
    "bad, message",
    [
        ("search:100,", "with keys"),
        ("search:,100", "search:N with N an integer >= 1, or search:key=value"),
        ("search:100,,candidates=1", "with keys"),
        ("search:budget = 5", "with keys"),
        ("search:budget=5, candidates=1", "no space around a comma"),
        ("search:budget=", "budget=N with N an integer >= 1"),
        ("search:budget=abc", "budget=N with N an integer >= 1"),
        ("search:budget= 5", "budget=N with N an integer >= 1"),
        ("search:margin=", "margin=X"),
        ("search:margin=-1", "margin=X"),
        ("search:margin=nan", "margin=X"),
        ("search:margin=inf", "margin=X"),
        ("search:margin=1e400", "margin=X"),
        ("search:margin= 2", "margin=X"),
        ("search:margin=1_0", "margin=X"),
        ("search:prior=", "allowed: prior: an agent"),
        ("search:prior=search", "allowed: prior: an agent that plays from the observation"),
        ("search:prior=search:5", "allowed: prior: an agent that plays"),
        ("search:prior=ppo:runs/a,b", "'b' is not one .a prior's path cannot hold a comma"),
        ("search:budget=9,prior=greedy,x", "with keys"),
        ("search:rollout=", "allowed: rollout: one of"),
        ("search:rollout=bogus", "allowed: rollout: one of"),
        ("search:prior=none,candidates=2", "allowed: candidates: 0 with prior"),
        ("search:opponent_model=greedy", "allowed: opponent_model: one of"),
        ("search:8,prior", "with keys"),  # a key with no value after the first item
        ("search:candidates=x", "candidates=K with K an integer >= 0"),
        ("search:candidates=٣", "candidates=K with K an integer >= 0"),  # an Arabic-Indic 3
    ],
)
def test_every_bad_spec_is_a_config_error_naming_the_spec(preset, bad, message):
    """The values the agent itself refuses (margin, rollout, prior, candidates) name the whole
    spec too, as the parse errors do; float()'s extra spellings (" 2", "1_0", "nan") are refused."""
    config = MexicanTrainConfig() if preset is None else line_from_preset(preset)
    with pytest.raises(ConfigError, match=message) as err:
        make_agent(bad, config)
    assert err.value.field == "agent" and err.value.value == bad
    assert isinstance(err.value, AgentSpecError) and str(err.value).startswith(f"invalid agent {bad!r}; allowed: ")


def test_keyed_spelling_accepts_plain_decimals_and_a_prior_with_its_own_argument():
    config = MexicanTrainConfig(num_players=2, max_pip=9)
    for text, value in (("0", 0.0), ("2", 2.0), ("0.5", 0.5), (".5", 0.5), ("1e-1", 0.1), ("3.", 3.0)):
        assert make_agent(f"search:margin={text}", config).margin == value
    assert make_agent("search:budget=1", config).budget == make_agent("search:1", config).budget == 1
    agent = make_agent("search:20,prior=planner:50,rollout=greedy", config)
    assert agent.prior.budget == 50 and agent.budget == 20
    assert pickle.loads(pickle.dumps(agent)).prior.budget == 50
    line = make_agent("search:budget=20,rollout=block,prior=greedy", line_from_preset("cuban"))
    assert (line.budget, line.rollout, type(line.prior).__name__) == (20, "block", "LineGreedyAgent")
    assert pickle.loads(pickle.dumps(line)).rollout == "block"


def test_a_line_planner_at_another_seat_count_is_refused_by_name():
    """Line games have the same actions at every seat count; the observation tells them apart."""
    two = make_agent("planner", line_from_preset("block", num_players=2))
    with pytest.raises(ConfigError, match=r"'observation': got 'shape \(115,\)'.*shape \(91,\)"):
        evaluate([two, "planner", "planner", "planner"], game="block", rounds=4)


def test_deterministic_given_rng_and_picklable():
    env = mexican_train_v0.raw_env()
    agent = make_agent("search:30", env.config)
    clone = pickle.loads(pickle.dumps(agent))
    for seed in range(3):
        obs, info = decision(env, seed)
        args = (obs["observation"], obs["action_mask"])
        a = agent(*args, np.random.default_rng(seed), info_state=info)
        b = agent(*args, np.random.default_rng(seed), info_state=info)
        c = clone(*args, np.random.default_rng(seed), info_state=info)
        assert a == b == c
        assert obs["action_mask"][a] == 1


def test_refuses_to_play_blind():
    env = mexican_train_v0.raw_env()
    obs, _ = decision(env, 0)
    with pytest.raises(ConfigError, match="info_state"):
        make_agent("search:10", env.config)(
            obs["observation"], obs["action_mask"], np.random.default_rng(0)
        )


def test_info_state_kwargs_only_for_agents_that_ask():
    env = mexican_train_v0.raw_env()
    env.reset(seed=0)
    seat = env.game_state.current_player
    assert info_state_kwargs(make_agent("planner", env.config), env.game_state, seat) == {}
    kw = info_state_kwargs(make_agent("search", env.config), env.game_state, seat)
    assert isinstance(kw["info_state"], InformationState) and kw["info_state"].seat == seat


def test_single_agent_adapter_with_search_opponents():
    aec = line_v0.raw_env(preset="block", num_players=2)
    env = SingleAgentEnv(aec, opponents=make_agent("search:20", aec.config))
    obs, _ = env.reset(seed=3)
    done, steps = False, 0
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        obs, reward, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
        steps += 1
    assert reward in (-1.0, 0.0, 1.0)
    assert steps >= 1


def test_tournament_with_workers_and_strength_against_random():
    result = evaluate(
        ["search:24", "random"], rounds=40, game="block", num_players=2, workers=2, seed=1
    )
    same = evaluate(
        ["search:24", "random"], rounds=40, game="block", num_players=2, workers=1, seed=1
    )
    s = result.stats_for("search:24")
    assert s.win_rate == same.stats_for("search:24").win_rate  # workers do not change results
    assert s.win_rate > 0.6  # above parity 0.5 against random play (block 2p is luck-heavy)


def test_quick_chain_and_playouts_finish_rounds():
    t = set_tables(12)
    hand = sum(1 << tile_index(a, b, 12) for a, b in [(12, 5), (5, 5), (5, 3), (3, 9), (1, 2)])
    chain = quick_chain(12, hand, t)
    assert [t.tiles[i] for i in chain] == [(5, 12), (5, 5), (3, 5), (3, 9)]
    rng = np.random.default_rng(0)
    for policy in ("greedy", "random", "plan", "planner"):
        state = MexicanTrainState.new_game(MexicanTrainConfig(), rng)
        result = playout(state.copy(), policy, rng)
        assert result.termination in ("went_out", "blocked")
    from domino_env.core.line import LineState

    for policy in ("greedy", "random", "block"):
        line = LineState.new_game(line_from_preset("cuban"), rng)
        assert playout(line, policy, rng).termination in ("went_out", "blocked")
    with pytest.raises(ValueError, match="unknown rollout policy"):
        playout(state.copy(), "smart")
    # a policy of the other game family: named as such, with this game's policies
    with pytest.raises(
        ValueError,
        match=r"'planner': not a rollout policy of line games; allowed: \('greedy', 'random', 'block'\)",
    ):
        playout(line.copy(), "planner")
    with pytest.raises(
        ValueError,
        match=r"'block': not a rollout policy of Mexican Train; allowed: \('greedy', 'random', 'plan', 'planner'\)",
    ):
        playout(state.copy(), "block")


@pytest.mark.parametrize("rules", [{}, {"num_players": 3, "max_pip": 9, "drawn_tile": "may_play"}])
def test_the_planner_rollout_plays_the_round_the_planners_play(rules):
    """Rollout ``"planner"`` from a round's start makes exactly the moves four planner agents
    make through the env from their observations (the same round, action for action)."""
    from episode import drive

    from domino_env.agents import PlannerAgent

    env = mexican_train_v0.raw_env(**rules)
    for seed in (0, 1):
        env.reset(seed=seed)
        start = env.game_state.copy()
        drive(env, [PlannerAgent(env.config)], seed)
        played = env.game_state.actions
        result = playout(start, "planner")
        assert start.actions == played and len(played) > 20
        assert result.winners == env.game_state.round_result.winners


def test_an_empty_budget_after_the_colon_is_refused():
    from domino_env.core.errors import ConfigError

    for spec in ("search:", "planner:"):
        with pytest.raises(ConfigError, match=f"an argument after the colon, or '{spec[:-1]}' alone"):
            make_agent(spec, {"num_players": 4, "max_pip": 12})
    # the hint fits the agent: ppo has no default model, greedy takes no argument (a checker read
    # "or no colon" for ppo, which plain `ppo` then refused)
    with pytest.raises(ConfigError, match=r"allowed: an argument after the colon \(ppo:ARG\)$"):
        make_agent("ppo:", {"num_players": 4, "max_pip": 12})
    with pytest.raises(ConfigError, match=r"allowed: 'greedy' alone \(it takes no argument\)$"):
        make_agent("greedy:", {"preset": "block"})


@pytest.fixture
def searched(monkeypatch):
    """The moves each ``SearchAgent.action_values`` call was asked to value (a list per call)."""
    calls = []
    real = SearchAgent.action_values

    def spy(self, info, legal, rng, mask_legal=None):
        calls.append(list(legal))
        return real(self, info, legal, rng, mask_legal)

    monkeypatch.setattr(SearchAgent, "action_values", spy)
    return calls


def test_candidates_search_only_the_planners_best_moves(searched):
    """``candidates=2`` (Mexican Train's default): the playouts value exactly the prior's two
    best-ranked moves (its own move first) and the agent plays one of them; ``candidates=0``
    values every legal move."""
    env = mexican_train_v0.raw_env()
    agent = SearchAgent(env.config, budget=12)  # Mexican Train's default: candidates=2
    assert agent.candidates == 2
    every = SearchAgent(env.config, budget=12, candidates=0)
    checked = 0
    for seed in range(12):
        obs, info = decision(env, seed)
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
        if len(legal) < 3:
            continue
        searched.clear()
        ranked = agent.prior.rank_actions(obs["observation"], obs["action_mask"])
        move = agent(
            obs["observation"], obs["action_mask"], np.random.default_rng(seed), info_state=info
        )
        assert searched == [sorted(ranked[:2])]
        assert move in ranked[:2]
        searched.clear()
        every(obs["observation"], obs["action_mask"], np.random.default_rng(seed), info_state=info)
        assert searched == [legal]
        checked += 1
    assert checked >= 3


def test_candidates_defaults_and_refusals():
    config = MexicanTrainConfig()
    assert SearchAgent(config, candidates=0).candidates == 0  # every legal move
    assert SearchAgent(config, prior=None).candidates == 0
    assert SearchAgent(line_from_preset("cuban")).candidates == 0
    assert SearchAgent(line_from_preset("cuban"), candidates=3).candidates == 3
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ConfigError, match="candidates"):
            SearchAgent(config, candidates=bad)
    with pytest.raises(ConfigError, match="candidates.*does not rank"):
        SearchAgent(config, prior=None, candidates=2)
    with pytest.raises(ConfigError, match="candidates.*does not rank"):
        SearchAgent(config, prior="greedy", candidates=2)


def test_candidates_in_a_line_game_keep_exactly_k_moves_and_the_priors_move(searched):
    """The line planner draws from the rng (its closing estimate), so its move and its ranking
    come from one call: ``candidates=1`` plays the prior's move for that rng, ``candidates=2``
    searches exactly two moves, on every decision of a Cuban round. (Round 15 has a position,
    step 26, where the planner's move depends on the rng: ranking after a second call once
    played another move than the prior's.)"""
    env = line_v0.raw_env(preset="cuban")
    one = SearchAgent(env.config, budget=8, candidates=1)
    two = SearchAgent(env.config, budget=8, candidates=2)
    planner = make_agent("planner", env.config)
    env.reset(seed=15)
    step, checked, rng_dependent = 0, 0, 0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        obs = env.observe(agent)
        x, mask = obs["observation"], obs["action_mask"]
        if mask.sum() > 2:
            info = InformationState.from_state(env.game_state, env.possible_agents.index(agent))
            wants = [planner(x, mask, np.random.default_rng(k)) for k in range(6)]
            for k, want in enumerate(wants):
                assert one(x, mask, np.random.default_rng(k), info_state=info) == want
            rng_dependent += len(set(wants)) > 1
            searched.clear()
            two(x, mask, np.random.default_rng(0), info_state=info)
            assert [len(moves) for moves in searched] == [2]
            checked += 1
        env.step(int(planner(x, mask, np.random.default_rng(step))))
        step += 1
    assert checked >= 5 and rng_dependent >= 1


def test_a_wrong_info_state_is_named():
    env = mexican_train_v0.raw_env(num_players=4)
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)
    while np.count_nonzero(obs["action_mask"]) < 2:
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        obs = env.observe(env.agent_selection)
    agent, state = make_agent("search:25", env.config), env.game_state
    seat = state.current_player
    args = (obs["observation"], obs["action_mask"], np.random.default_rng(0))
    with pytest.raises(ConfigError, match=r"'info_state': got 'str'; allowed: an InformationState"):
        agent(*args, info_state="junk")
    other = (seat + 1) % 4
    with pytest.raises(ConfigError, match=rf"got 'seat {other}'; allowed: the information of the seat to act \(seat {seat}\)"):
        agent(*args, info_state=InformationState.from_state(state, other))
    assert obs["action_mask"][agent(*args, info_state=InformationState.from_state(state, seat))]


def test_the_key_list_names_opponent_model_only_in_the_line_games():
    """Mexican Train search has no opponent model: its messages list the keys it takes."""
    with pytest.raises(ConfigError) as err:
        make_agent("search:foo=1", MexicanTrainConfig())
    assert "('budget', 'candidates', 'prior', 'margin', 'rollout')" in str(err.value)
    with pytest.raises(ConfigError) as err:
        make_agent("search:foo=1", line_from_preset("cuban"))
    assert "'rollout', 'opponent_model')" in str(err.value)


def test_an_info_state_of_another_position_of_the_same_seat_is_named():
    """A stale info_state (the seat's information one turn later) with this turn's mask raised an
    IllegalActionError from inside the playouts, as if the caller had played an illegal move."""
    env = mexican_train_v0.raw_env(num_players=4)
    env.reset(seed=0)
    agent, seat = make_agent("search:8", env.config), env.game_state.current_player
    obs = env.observe(env.agent_selection)
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    while env.game_state.current_player != seat:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    later = InformationState.from_state(env.game_state, seat)
    with pytest.raises(ConfigError, match=rf"'info_state': got 'seat {seat}'; allowed: the information of the position "
                       r"the action mask comes from \(the mask allows \[[0-9, ]+\], the position \[[0-9, ]+\]\)"):  # fmt: skip
        agent(obs["observation"], obs["action_mask"], np.random.default_rng(0), info_state=later)


def test_a_space_in_a_search_spec_is_named():
    for spec in ("search:8, prior=none", "search:8 ,prior=none"):
        with pytest.raises(AgentSpecError, match=rf"'{spec}'; allowed: a spec without spaces"):
            make_agent(spec, MexicanTrainConfig())


@pytest.mark.parametrize("game", ["mexican_train", "block"])
def test_every_stale_info_state_is_refused(game):
    """A user trial: 6 of 52 stale info_states (the seat's previous turn) were used silently, when
    every masked move was also legal in the old position; the mask is now compared in full."""
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9) if game == "mexican_train" else line_v0.raw_env(
        preset="block", num_players=2)  # fmt: skip
    env.reset(seed=11)
    agent = make_agent("search:4,prior=none", env.config)
    rng, previous, refused = np.random.default_rng(0), {}, 0
    while not env.game_state.round_over:
        seat, obs = env.game_state.current_player, env.observe(env.agent_selection)
        legal = np.flatnonzero(obs["action_mask"])
        old = previous.get(seat)
        if old is not None and len(legal) > 1 and sorted(old[1]) != legal.tolist():
            with pytest.raises(ConfigError, match="the information of the position the action mask comes from"):
                agent(obs["observation"], obs["action_mask"], rng, info_state=old[0])
            refused += 1
        previous[seat] = (InformationState.from_state(env.game_state, seat), env.game_state.legal_actions())
        env.step(int(legal[rng.integers(len(legal))]))
    assert refused >= 3


def test_counts_take_numpy_integers_and_0d_arrays_and_refuse_the_rest():
    """budget, min_worlds, oversample, solve_tiles, node_limit and candidates: numpy integer
    scalars and 0-d integer arrays are integers (stored as plain ints); bools, floats, strings,
    1-d arrays and values below the minimum are refused, naming the field."""
    config = MexicanTrainConfig()
    agent = SearchAgent(config, budget=np.array(50), min_worlds=np.int64(3), candidates=np.array(2))
    assert (agent.budget, agent.min_worlds, agent.candidates) == (50, 3, 2)
    assert type(agent.budget) is int and type(agent.candidates) is int
    for field in ("budget", "min_worlds", "oversample", "solve_tiles", "node_limit"):
        for bad in (0, 1.0, True, "5", np.array([5]), np.array(5.0)):
            with pytest.raises(ConfigError, match=field):
                SearchAgent(config, **{field: bad})
    for bad in (np.array(-1), np.array([2]), np.float64(2.0)):
        with pytest.raises(ConfigError, match="candidates"):
            SearchAgent(config, candidates=bad)
    ones = dict.fromkeys(("budget", "min_worlds", "oversample", "solve_tiles", "node_limit"), 1)
    one = SearchAgent(line_from_preset("block", num_players=2), **ones)  # the minimum, 1, is taken
    assert [getattr(one, field) for field in ones] == [1] * 5


@pytest.mark.parametrize("preset", [None, "block"])
def test_a_budget_too_large_to_ever_finish_is_refused_naming_the_field(preset):
    """search:N with N up to MAX_BUDGET plays; a larger N (or min_worlds) is refused when the agent is
    built (search:10**20 was accepted and its first decision never returned)."""
    from domino_env.agents.search import MAX_BUDGET

    config = MexicanTrainConfig() if preset is None else line_from_preset(preset)
    assert make_agent(f"search:{MAX_BUDGET}", config).budget == MAX_BUDGET
    for spec in (f"search:{MAX_BUDGET + 1}", "search:99999999999999999999", "search:budget=10000000,prior=none"):
        with pytest.raises(ConfigError, match=r"budget: an integer from 1 to 100,000") as err:
            make_agent(spec, config)
        assert spec in str(err.value) and "\n" not in str(err.value)
    for field in ("budget", "min_worlds"):
        with pytest.raises(ConfigError, match=f"'{field}': got {10**20}; allowed: an integer from 1 to 100,000"):
            SearchAgent(config, **{field: 10**20})


def test_a_game_of_other_rules_is_refused_naming_the_field():
    """Only the seats, the set, the boneyard and teams were compared: a doubles="chain" game was
    played by an agent built for "satisfy", whose prior planned with the wrong rule."""
    env = mexican_train_v0.raw_env(num_players=3, doubles="chain")
    obs, info = decision(env, 0)
    agent = make_agent("search:8", MexicanTrainConfig(num_players=3, doubles="satisfy"))
    with pytest.raises(ConfigError, match="'doubles': got 'chain'; allowed: satisfy: this search agent was built for"):
        agent(obs["observation"], obs["action_mask"], np.random.default_rng(0), info_state=info)
    same = make_agent("search:8", MexicanTrainConfig(num_players=3, doubles="chain"))
    assert obs["action_mask"][same(obs["observation"], obs["action_mask"], np.random.default_rng(0), info_state=info)]


def test_equal_rules_written_otherwise_are_not_refused():
    """Comparing every field refused equal games: the preset's name (the same rules written out
    field by field) and hand_size=None against the number it deals."""
    import dataclasses

    from domino_env.core.config import from_preset

    fields = {f.name: getattr(from_preset("tren_mexicano"), f.name) for f in dataclasses.fields(MexicanTrainConfig)}
    spelled = MexicanTrainConfig(**{k: v for k, v in fields.items() if k != "preset"})
    env = mexican_train_v0.raw_env(preset="tren_mexicano")
    obs, info = decision(env, 1)
    assert obs["action_mask"][make_agent("search:8", spelled)(obs["observation"], obs["action_mask"],
                                                              np.random.default_rng(0), info_state=info)]  # fmt: skip
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9)
    obs, info = decision(env, 1)
    dealt = env.config.dealt_hand_size(2)
    number = make_agent("search:8", MexicanTrainConfig(num_players=2, max_pip=9, hand_size=dealt))
    assert obs["action_mask"][number(obs["observation"], obs["action_mask"], np.random.default_rng(0), info_state=info)]
    other = make_agent("search:8", MexicanTrainConfig(num_players=2, max_pip=9, hand_size=dealt - 1))
    with pytest.raises(ConfigError, match=f"'hand_size': got \\({dealt},\\); allowed: \\({dealt - 1},\\)"):
        other(obs["observation"], obs["action_mask"], np.random.default_rng(0), info_state=info)
