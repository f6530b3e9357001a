"""Scripted Mexican Train agents (issue 3 sections 1 and 4): legality over random positions of
every preset and player count, determinism, pickling, and hand-built positions for greedy and the
planner (deals given through ``reset(options={"deal": ...})``)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from episode import drive

from domino_env.agents import GreedyAgent, PlannerAgent, RandomAgent, make_agent
from domino_env.agents.base import Agent, agent_label, as_config
from domino_env.core.errors import ConfigError
from domino_env.core.tiles import tile_count, tile_index
from domino_env.envs.mexican_train_v0 import raw_env
from domino_env.wrappers import SingleAgentEnv

NAMES = ["random", "greedy", "planner"]


def act(tile, slot, p, n=9):
    return tile_index(tile[0], tile[1], n) * (p + 1) + slot


CASES = [
    ("domino_cubano", 2, 12, {}),
    ("domino_cubano", 4, 12, {}),
    ("domino_cubano", 8, 12, {}),
    ("domino_cubano", 3, 9, {"doubles": "double_double"}),
    ("domino_cubano", 5, 9, {"doubles": "no_cover", "marker_removal": "next_turn"}),
    ("domino_cubano", 4, 9, {"use_boneyard": False, "use_mexican_train": False}),
    ("tren_mexicano", 2, 9, {}),
    ("tren_mexicano", 4, 12, {}),
    ("tren_mexicano", 6, 12, {}),
    ("tren_mexicano", 7, 9, {"doubles": "satisfy"}),
    ("novelty", 3, 12, {}),
    ("novelty", 4, 9, {"drawn_tile": "may_play", "first_turn": "any"}),
    ("novelty", 8, 15, {}),
]


@pytest.mark.parametrize("preset,players,max_pip,rules", CASES)
def test_agents_only_choose_legal_actions(preset, players, max_pip, rules):
    """At every decision of whole games (random, greedy and planner seats), each of the three
    agents is asked for an action on that position and must pick a legal one."""
    env = raw_env(preset=preset, num_players=players, max_pip=max_pip, episode="game", **rules)
    agents = [make_agent(n, env.config) for n in NAMES]
    rng = np.random.default_rng(0)
    seen = {"n": 0}

    def check(obs, mask):
        seen["n"] += 1
        for agent in agents:
            a = agent(obs, mask, rng)
            assert isinstance(a, int)
            assert mask[a] == 1, f"{agent_label(agent)} chose illegal action {a}"

    for seed in range(2 if max_pip < 12 else 1):
        drive(env, agents, seed, check, max_steps=400)
    assert seen["n"] > 50


@pytest.mark.parametrize("preset,players,max_pip,rules", CASES)
def test_the_planner_on_engine_state_sees_and_plays_as_from_the_observation(
    preset, players, max_pip, rules
):
    """``state_view`` (the rollouts' fast path) equals the view decoded from the observation,
    field by field, and ``state_move`` is the planner's own move, at every decision of whole
    games of every preset (random, greedy and planner seats)."""
    from domino_env.agents.mexican_train import state_view

    env = raw_env(preset=preset, num_players=players, max_pip=max_pip, episode="game", **rules)
    planner = PlannerAgent(env.config)
    rng = np.random.default_rng(0)
    seen = {"n": 0, "choices": 0}

    def check(obs, mask):
        state = env.game_state
        seat = state.current_player
        assert state_view(state, seat) == planner.view(obs)
        move = planner(obs, mask, rng)
        assert planner.state_move(state) == move
        legal = np.flatnonzero(mask).tolist()
        ranked = planner.rank_actions(obs, mask)  # what search's ``candidates`` keeps
        assert sorted(ranked) == legal and ranked[0] == move
        if len(ranked) > 2:  # the others by their exact keys, best first
            places = planner.placements(ranked[1:])
            keys = [k[0] for k in planner.placement_keys(planner.view(obs), places)]
            assert keys == sorted(keys, reverse=True)
        seen["n"] += 1
        seen["choices"] += int(mask.sum() > 1)

    agents = [make_agent(n, env.config) for n in NAMES]
    for seed in range(2 if max_pip < 12 else 1):
        drive(env, agents, seed, check, max_steps=400)
    assert seen["n"] > 50 and seen["choices"] > 10


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_choices_and_pickle_round_trip(name):
    env = raw_env(num_players=3, max_pip=9)
    agent = make_agent(name, env.config)
    first = drive(env, [agent], seed=5)
    assert drive(env, [agent], seed=5) == first
    clone = pickle.loads(pickle.dumps(agent))
    assert type(clone) is type(agent)
    assert drive(env, [clone], seed=5) == first
    # usable as a SingleAgentEnv opponent (the same protocol)
    single = SingleAgentEnv(raw_env(num_players=3, max_pip=9), opponents=agent)
    obs, _ = single.reset(seed=1)
    done = False
    while not done:
        legal = np.flatnonzero(single.action_masks())
        obs, _, terminated, truncated, info = single.step(int(legal[0]))
        done = terminated or truncated
        assert not info.get("illegal_action")


def test_random_agent_uses_only_the_rng():
    agent = RandomAgent({"num_players": 2, "max_pip": 9})
    mask = np.zeros(tile_count(9) * 3 + 2, dtype=np.int8)
    mask[[3, 7, 11, 40]] = 1
    obs = np.zeros(10, dtype=np.float32)  # the random agent does not read the observation
    picks = [agent(obs, mask, np.random.default_rng(1)) for _ in range(3)]
    assert len(set(picks)) == 1 and picks[0] in (3, 7, 11, 40)
    many = {agent(obs, mask, np.random.default_rng(s)) for s in range(50)}
    assert many == {3, 7, 11, 40}
    for bad in (None, 0, np.random.RandomState(0)):  # an AttributeError ('integers') before
        with pytest.raises(ConfigError, match="'rng'.*numpy.random.Generator"):
            agent(obs, mask, bad)


def test_registry_and_config_helpers():
    env = raw_env(num_players=2, max_pip=9)
    assert isinstance(make_agent("greedy", env), GreedyAgent)
    assert isinstance(make_agent("planner:50", env.config), PlannerAgent)
    assert make_agent("planner:50", env.config).budget == 50
    assert isinstance(
        make_agent("random", {"num_players": 2, "max_pip": 9, "episode": "game"}), RandomAgent
    )
    assert as_config(None).num_players == 4
    obj = GreedyAgent(env.config)
    assert make_agent(obj) is obj
    assert isinstance(obj, Agent)
    assert agent_label("planner") == "planner" and agent_label(obj) == "greedy"
    with pytest.raises(ConfigError):
        make_agent("nonsense", env.config)
    with pytest.raises(ConfigError):
        make_agent(42, env.config)


# ------------------------------------------------------------------------ hand-built positions
def start(deal, players=2, max_pip=9, **rules):
    env = raw_env(num_players=players, max_pip=max_pip, **rules)
    env.reset(seed=0, options={"deal": deal})
    return env


def decide(agent, env):
    obs = env.observe(env.agent_selection)
    return agent(obs["observation"], obs["action_mask"], np.random.default_rng(0))


def test_greedy_picks_the_heaviest_tile_own_train_first():
    # Station 9-9, first turn anywhere: 9-8 (17) beats 9-3 and 9-0; it fits the own train and the
    # Mexican train: the own train wins the tie.
    deal = {
        "hands": [[[9, 3], [9, 8], [2, 4], [9, 0]], [[1, 1], [5, 6], [3, 3]]],
        "boneyard": [[0, 1]],
        "station": [9, 9],
        "first_player": 0,
    }
    env = start(deal, first_turn="any")
    assert decide(GreedyAgent(env.config), env) == act((8, 9), 0, 2)
    # Own end 0 after 9-0; 0-0 (worth double_blank_points) on the own train vs 9-1 (10 pips) on
    # the public trains (seat 1's, marked by its pass, and the Mexican train, both ending in 9):
    # 9-1 by default (0-0 = 0) on the lowest slot (seat 1's train), the own train's 0-0 on the
    # 10-10 tie.
    deal3 = {
        "hands": [[[9, 0], [0, 0], [9, 1]], [[1, 1], [5, 6]]],
        "boneyard": [],
        "station": [9, 9],
        "first_player": 0,
    }
    for points, expected in ((0, act((1, 9), 1, 2)), (10, act((0, 0), 0, 2))):
        env3 = start(deal3, first_turn="any", double_blank_points=points)
        env3.step(act((0, 9), 0, 2))  # seat 0: own train 9 -> 0
        env3.step(only_action(env3))  # seat 1 cannot place: passes
        assert env3.agent_selection == "player_0"
        assert decide(GreedyAgent(env3.config), env3) == expected


def only_action(env) -> int:
    """The only legal action of a seat that cannot place (PASS with an empty boneyard)."""
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    assert len(legal) == 1
    return int(legal[0])


def test_planner_keeps_its_chain_and_sheds_spares_on_the_mexican_train():
    # Own end 9; chain 9-5, 5-2, 2-7 on the own train; 9-8 is a spare: it goes on the Mexican
    # train (greedy would put the heavy 9-8 on its own train and lose the chain).
    deal = {
        "hands": [[[9, 5], [5, 2], [2, 7], [9, 8]], [[1, 1], [3, 4], [0, 6]]],
        "boneyard": [],
        "station": [9, 9],
        "first_player": 0,
    }
    env = start(deal, first_turn="any")
    planner = PlannerAgent(env.config)
    chain, _ = planner.longest_chain(
        9, planner.view(env.observe("player_0")["observation"]).hand_mask
    )
    assert [planner.tiles[t] for t in chain] == [(5, 9), (2, 5), (2, 7)]
    assert decide(planner, env) == act((8, 9), 2, 2)
    assert decide(GreedyAgent(env.config), env) == act((8, 9), 0, 2)
    env.step(act((8, 9), 2, 2))
    env.step(only_action(env))  # seat 1 cannot place: passes
    # The Mexican train now ends in 8: the planner follows its chain on its own train.
    assert decide(planner, env) == act((5, 9), 0, 2)


def test_planner_plays_a_double_when_it_can_cover_it():
    # Seat 0 starts its own train with 9-4 (first turn); then own end 4 with 4-4 and 4-1 in
    # hand: the double goes first (two tiles in one turn), then it covers with 4-1.
    deal = {
        "hands": [[[9, 4], [4, 4], [4, 1], [1, 6]], [[9, 5], [3, 3], [0, 2], [0, 3]]],
        "boneyard": [],
        "station": [9, 9],
        "first_player": 0,
    }
    env = start(deal)
    planner = PlannerAgent(env.config)
    assert decide(planner, env) == act((4, 9), 0, 2)
    env.step(act((4, 9), 0, 2))
    env.step(act((5, 9), 0, 2))  # seat 1 starts its own train
    assert decide(planner, env) == act((4, 4), 0, 2)
    env.step(act((4, 4), 0, 2))
    assert env.agent_selection == "player_0"  # satisfy: it must cover its double now
    assert decide(planner, env) == act((1, 4), 0, 2)


def test_planner_does_not_play_an_uncoverable_double():
    # Own end 8 with 8-8 (16 pips, no other 8) and 9-1 (fits the Mexican train): greedy plays the
    # double and gets stuck; the planner plays 9-1 on the Mexican train.
    deal = {
        "hands": [[[9, 8], [8, 8], [9, 1], [2, 3]], [[9, 5], [0, 0], [0, 2], [0, 3]]],
        "boneyard": [],
        "station": [9, 9],
        "first_player": 0,
    }
    env = start(deal)
    env.step(act((8, 9), 0, 2))
    env.step(act((5, 9), 0, 2))
    assert decide(GreedyAgent(env.config), env) == act((8, 8), 0, 2)
    assert decide(PlannerAgent(env.config), env) == act((1, 9), 2, 2)


def test_planner_covers_an_open_double_with_a_spare():
    # Seat 1 leaves 5-5 open on its own train (cannot cover, empty boneyard). Seat 0 (own end 6,
    # chain 6-5, 5-1, 1-2) must cover it: with the spare 5-8, not with a chain tile.
    deal = {
        "hands": [
            [[9, 3], [3, 6], [6, 5], [5, 1], [1, 2], [5, 8]],
            [[9, 5], [5, 5], [0, 0], [0, 1]],
        ],
        "boneyard": [],
        "station": [9, 9],
        "first_player": 0,
    }
    env = start(deal)
    env.step(act((3, 9), 0, 2))  # seat 0: own 9 -> 3
    env.step(act((5, 9), 0, 2))  # seat 1: own 9 -> 5
    env.step(act((3, 6), 0, 2))  # seat 0: own 3 -> 6
    env.step(act((5, 5), 0, 2))  # seat 1: double on its own train
    env.step(only_action(env))  # seat 1 cannot cover: passes, the double stays open
    assert env.agent_selection == "player_0"
    legal = np.flatnonzero(env.observe("player_0")["action_mask"])
    assert set(legal.tolist()) == {act(t, 1, 2) for t in ((5, 6), (1, 5), (5, 8))}
    assert decide(PlannerAgent(env.config), env) == act((5, 8), 1, 2)


def test_planner_search_is_bounded_on_big_hands():
    """The chain search stops at its node budget (counted, not timed: these machines are shared)."""
    import sys

    env = raw_env(num_players=2, max_pip=12)  # 43-tile hands
    env.reset(seed=3)
    planner = PlannerAgent(env.config)
    v = planner.view(env.observe(env.agent_selection)["observation"])
    assert len(v.hand) == 43
    nodes = 0

    def count(frame, event, arg):
        nonlocal nodes
        nodes += event == "call" and frame.f_code.co_name == "dfs"

    sys.setprofile(count)
    try:
        chain, weight = planner.longest_chain(v.ends[0], v.hand_mask)
    finally:
        sys.setprofile(None)
    assert nodes == planner.budget  # 43 tiles: the budget, not the hand, ends the search
    assert weight >= 1000 * len(chain)
    # the chain is a valid sequence from the open end
    end = v.ends[0]
    for tile in chain:
        a, b = planner.tiles[tile]
        assert end in (a, b) and v.hand_mask >> tile & 1
        end = b if a == end else a
    assert planner.longest_chain(v.ends[0], v.hand_mask) == (chain, weight)


def test_an_all_zero_mask_is_a_config_error_for_every_agent():
    """A non-acting seat's (or a finished episode's) mask: greedy raised IndexError and ppo
    ValueError; every agent of both families now says what is wrong."""
    from domino_env.core.config import MexicanTrainConfig, line_from_preset

    release = "ppo:checkpoints/mexican_train_4p_d12_action_scores"
    for config, names in ((MexicanTrainConfig(), ("random", "greedy", "planner", "search:4", release)),
                          (line_from_preset("cuban"), ("random", "greedy", "planner", "search:4"))):  # fmt: skip
        for name in names:
            agent = make_agent(name, config)
            size = agent.num_actions
            with pytest.raises(ConfigError, match="at least one legal action") as err:
                agent(np.zeros(1, np.float32), np.zeros(size, np.int8), np.random.default_rng(0))
            assert err.value.field == "action_mask"
