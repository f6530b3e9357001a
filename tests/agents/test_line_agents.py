"""Scripted line-game agents (issue 5 section 2): legality over random positions of every preset
and player count, determinism, pickling, the registry, and hand-built positions for greedy and the
planner (deals given through ``reset(options={"deal": ...})``)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from episode import decide, drive, seat_view, start_line

from domino_env.agents import LineGreedyAgent, LinePlannerAgent, LineRandomAgent, make_agent
from domino_env.agents.base import Agent, agent_names, as_config
from domino_env.core.config import LineConfig, MexicanTrainConfig, line_from_preset
from domino_env.core.errors import ConfigError
from domino_env.core.tiles import tile_count, tile_index
from domino_env.envs import line_v0
from domino_env.wrappers import line_single_agent

NAMES = ["random", "greedy", "planner"]


def act(tile, end, n=6):
    return 2 * tile_index(tile[0], tile[1], n) + end


CASES = [
    ("block", 2, {}),
    ("block", 3, {}),
    ("block", 4, {}),
    ("block", 4, {"teams": True}),
    ("block", 3, {"max_pip": 9, "hand_size": 9}),
    ("draw", 2, {}),
    ("draw", 3, {}),
    ("draw", 4, {"teams": True, "next_lead": "winner"}),
    ("draw", 2, {"max_pip": 12, "hand_size": 10}),
    ("cuban", 4, {}),
    ("cuban", 4, {"teams": False}),
    ("cuban", 4, {"annul_doubles": 2}),  # annulment legal often
]


@pytest.mark.parametrize("preset,players,rules", CASES)
def test_agents_only_choose_legal_actions(preset, players, rules):
    """At every decision of whole games (random, greedy and planner seats), each of the three
    agents is asked for an action on that position and must pick a legal one."""
    env = line_v0.raw_env(
        preset=preset, num_players=players, episode="game", target_score=150, **rules
    )
    agents = [make_agent(n, env.config) for n in NAMES]
    searcher = make_agent("planner:search=3", env.config)
    rng = np.random.default_rng(0)
    seen = {"n": 0, "annul": 0}

    def check(obs, mask):
        seen["n"] += 1
        seen["annul"] += int(mask[-1])
        for agent in [*agents, searcher]:
            a = agent(obs, mask, rng)
            assert isinstance(a, int)
            assert mask[a] == 1, f"{agent.name} chose illegal action {a}"

        legal = np.flatnonzero(mask).tolist()  # the planner's ranking (search's ``candidates``)
        move = planner(obs, mask, np.random.default_rng(seen["n"]))
        ranked = planner.rank_actions(obs, mask, np.random.default_rng(seen["n"]))
        assert sorted(ranked) == legal and ranked[0] == move
        places = planner.placements(ranked[1:])
        if len(places) > 1:  # the same draws as rank_actions: its move, then the scores
            same = np.random.default_rng(seen["n"])
            planner(obs, mask, same)
            scores = planner.score_moves(planner.view(obs), places, same)
            assert scores == sorted(scores, reverse=True)

    planner = agents[2]
    for seed in range(2):
        drive(env, agents, seed, check, max_steps=600)
    assert seen["n"] > 50
    if rules.get("annul_doubles") == 2:
        assert seen["annul"] > 0


@pytest.mark.parametrize("name", [*NAMES, "planner:search=4"])
@pytest.mark.parametrize("preset", ["block", "draw", "cuban"])
def test_same_seed_same_choices_and_pickle_round_trip(name, preset):
    env = line_v0.raw_env(preset=preset, episode="game", target_score=60)
    agent = make_agent(name, env.config)
    first = drive(env, [agent], seed=5)
    assert drive(env, [agent], seed=5) == first
    clone = pickle.loads(pickle.dumps(agent))
    assert type(clone) is type(agent)
    assert drive(env, [clone], seed=5) == first
    # usable as a single-agent opponent (the same protocol)
    single = line_single_agent(preset, opponents=agent)
    single.reset(seed=1)
    done = False
    while not done:
        legal = np.flatnonzero(single.action_masks())
        _, _, terminated, truncated, info = single.step(int(legal[0]))
        done = terminated or truncated
        assert not info.get("illegal_action")


def test_registry_and_config_helpers():
    block = line_v0.raw_env(preset="block")
    assert isinstance(make_agent("greedy", block), LineGreedyAgent)
    assert isinstance(make_agent("greedy", block.config), LineGreedyAgent)
    assert isinstance(make_agent("planner", line_from_preset("cuban")), LinePlannerAgent)
    assert make_agent("planner:8", line_from_preset("cuban")).samples == 8
    assert make_agent("planner:search", line_from_preset("cuban")).rollouts == 32
    assert make_agent("planner:search=4", line_from_preset("cuban")).rollouts == 4
    with pytest.raises(ConfigError):
        make_agent("planner:deep", line_from_preset("cuban"))
    assert isinstance(make_agent("random", {"preset": "draw", "episode": "game"}), LineRandomAgent)
    # as_config: line configs, envs and preset dicts; Mexican Train unchanged
    cfg = as_config({"preset": "cuban", "teams": False, "reward": "points"})
    assert isinstance(cfg, LineConfig) and cfg.max_pip == 9 and not cfg.teams
    assert as_config(block) is block.config
    assert isinstance(as_config({"num_players": 2, "max_pip": 9}), MexicanTrainConfig)
    assert isinstance(as_config(None), MexicanTrainConfig)
    assert (
        type(make_agent("greedy", {"num_players": 2, "max_pip": 9})).__module__
        == "domino_env.agents.mexican_train"
    )
    assert agent_names("line") == ["greedy", "planner", "ppo", "random", "rllib", "search"]
    obj = LineGreedyAgent(block.config)
    assert make_agent(obj) is obj and isinstance(obj, Agent)
    with pytest.raises(ConfigError):
        make_agent("nonsense", block.config)
    with pytest.raises(ConfigError):
        LineGreedyAgent(MexicanTrainConfig())
    with pytest.raises(ConfigError):
        as_config({"preset": "block", "doubles": "chain"})  # a Mexican Train rule
    with pytest.raises(ConfigError, match=r"'preset': got 'nope'; allowed: one of \('domino_cubano', "
                       r"'tren_mexicano', 'novelty', 'block', 'draw', 'cuban'\)$"):  # fmt: skip
        make_agent("greedy", {"preset": "nope"})  # the line presets are accepted too: listed
    with pytest.raises(ConfigError, match=r"'preset': got \['x'\]; allowed: one of"):
        as_config({"preset": ["x"]})  # was TypeError: unhashable type


def test_random_agent_uses_only_the_rng():
    agent = LineRandomAgent(line_from_preset("block"))
    mask = np.zeros(2 * tile_count(6) + 3, dtype=np.int8)
    mask[[3, 8, 20]] = 1
    obs = np.zeros(10, dtype=np.float32)  # the random agent does not read the observation
    assert len({agent(obs, mask, np.random.default_rng(1)) for _ in range(3)}) == 1
    assert {agent(obs, mask, np.random.default_rng(s)) for s in range(50)} == {3, 8, 20}


# ------------------------------------------------------------------------ hand-built positions


def test_greedy_picks_the_heaviest_tile():
    # 2-player block game, seat 0 leads freely: 6-5 (11) is the heaviest of its hand.
    deal = {
        "hands": [[[1, 2], [6, 5], [0, 0], [4, 4]], [[3, 3], [2, 5], [0, 6]]],
        "first_player": 0,
    }
    env = start_line(deal, preset="block", num_players=2)
    assert decide(LineGreedyAgent(env.config), env) == act((5, 6), 0)
    # Tie rule: seat 1 leads 2-4 (ends 2 / 4); seat 0 holds 4-4 and 2-6 (8 pips each) and 1-3:
    # the double first (on the left end: the lowest action).
    deal2 = {"hands": [[[4, 4], [2, 6], [1, 3]], [[2, 4], [5, 5], [0, 0]]], "first_player": 1}
    env2 = start_line(deal2, preset="block", num_players=2)
    env2.step(act((2, 4), 0))
    legal = set(np.flatnonzero(env2.observe("player_0")["action_mask"]).tolist())
    assert len(legal) == 2 and all(
        a // 2 in (tile_index(4, 4, 6), tile_index(2, 6, 6)) for a in legal
    )
    assert decide(LineGreedyAgent(env2.config), env2) // 2 == tile_index(4, 4, 6)


def only_action(env) -> int:
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    assert len(legal) == 1
    return int(legal[0])


def test_planner_plays_to_the_end_an_opponent_is_known_to_lack():
    # 2-player block game. Seat 1 leads 3-3, seat 0 plays 3-5 (ends 3 / 5); seat 1 holds no 3 or
    # 5 and passes: it is known to lack 3 and 5. Seat 0 now holds 5-2 and 5-6, 3-2... it chooses
    # a move whose new end is a value seat 1 lacks (keeps the ends 3 / 5), over the heavier 5-6
    # that opens a 6 (seat 1 may hold sixes).
    deal = {
        "hands": [
            [[3, 5], [5, 5], [5, 6], [0, 1], [1, 2]],
            [[3, 3], [6, 4], [6, 2], [0, 4], [2, 4]],
        ],
        "first_player": 1,
    }
    env = start_line(deal, preset="block", num_players=2)
    env.step(act((3, 3), 0))  # seat 1 leads 3-3
    env.step(act((3, 5), 0))  # seat 0: ends 5 / 3
    env.step(only_action(env))  # seat 1 lacks 3 and 5: passes
    view = LinePlannerAgent(env.config).view(env.observe("player_0")["observation"])
    assert view.missing[1] == (1 << 3) | (1 << 5)
    legal = set(np.flatnonzero(env.observe("player_0")["action_mask"]).tolist())
    assert act((5, 6), 0) in legal and act((5, 5), 0) in legal
    planner = LinePlannerAgent(env.config)
    # greedy plays the heavier 5-6 (opens a 6); the planner plays 5-5: the ends stay 5 / 3,
    # both known to be lacking for seat 1, which must pass again.
    assert decide(LineGreedyAgent(env.config), env) // 2 == tile_index(5, 6, 6)
    assert decide(planner, env) // 2 == tile_index(5, 5, 6)


def test_planner_avoids_ends_its_partner_lacks():
    # 4-player teams block game (seats 0+2 vs 1+3), 5-tile hands. Seat 1 leads 1-4; seat 2 (seat
    # 0's partner) holds no 1 or 4 and passes; seat 3 plays 1-6 on the 1 (ends 6 / 4). Seat 0's
    # only playable tile is 4-6: on the 6 end it leaves 4 / 4 (its partner is known to lack 4:
    # blocked), on the 4 end 6 / 6. Everything else is symmetric (five unseen fours, five unseen
    # sixes, no other four or six in its hand): the partner rule decides.
    deal = {
        "hands": [
            [[4, 6], [0, 0], [3, 3], [5, 5], [2, 3]],
            [[1, 4], [0, 2], [2, 2], [0, 3], [1, 2]],
            [[0, 5], [2, 6], [3, 5], [0, 6], [3, 6]],
            [[1, 6], [1, 1], [1, 3], [1, 5], [0, 1]],
        ],
        "first_player": 1,
    }
    env = start_line(deal, preset="block", teams=True, hand_size=5)
    env.step(act((1, 4), 0))  # seat 1 leads 1-4
    env.step(only_action(env))  # seat 2 (no 1, no 4) passes
    legal3 = np.flatnonzero(env.observe("player_3")["action_mask"]).tolist()
    env.step(next(a for a in legal3 if a // 2 == tile_index(1, 6, 6)))  # seat 3: 1-6 on the 1
    assert env.agent_selection == "player_0" and sorted(env.game_state.ends) == [4, 6]
    planner = LinePlannerAgent(env.config)
    view = planner.view(env.observe("player_0")["observation"])
    assert view.partner == 2 and view.missing[2] == (1 << 1) | (1 << 4)
    choice = decide(planner, env)
    assert choice // 2 == tile_index(4, 6, 6)
    assert planner.after(view, choice // 2, choice % 2) == (6, 6)
    blind = LinePlannerAgent(env.config)
    blind.w_partner = 0.0
    places = [(tile_index(4, 6, 6), 0), (tile_index(4, 6, 6), 1)]
    a, b = blind.score_moves(view, places, np.random.default_rng(0))
    assert a == pytest.approx(b)  # without the partner rule the two moves tie


def test_planner_closes_only_when_it_wins_the_count():
    # Every tile with a 0 or a 6 is on the table except the 0-6 in hand; ends 0 / 6. Playing 0-6
    # closes the game for sure. 2-player block game (the unseen tiles are seat 1's hand or out of
    # play): seat 1 holds one tile (at most 4-5 = 9 pips unseen).
    planner = LinePlannerAgent(line_from_preset("block", num_players=2))
    placed = [
        (a, b)
        for a in range(7)
        for b in range(a, 7)
        if (a in (0, 6) or b in (0, 6)) and (a, b) != (0, 6)
    ]
    six_zero = tile_index(0, 6, 6)
    rng = np.random.default_rng(0)
    light = seat_view(planner, [(0, 6), (1, 1), (1, 2), (1, 3)], placed, (0, 6), [4, 1])
    worlds = planner.sample_worlds(light, rng)
    assert (
        planner.closing(
            light,
            light.hand_mask & ~(1 << six_zero),
            planner.pip_masks[0] | planner.pip_masks[6],
            worlds,
        )[0]
        == 1.0
    )
    # light hand (2 + 3 + 4 = 9 pips) against one tile: it wins the count only if seat 1's tile
    # is heavier; heavy hand (5-5, 4-5, 4-4 = 27 pips): it always loses the count.
    heavy = seat_view(planner, [(0, 6), (5, 5), (4, 5), (4, 4)], placed, (0, 6), [4, 1])
    rest = heavy.hand_mask & ~(1 << six_zero)
    fit = planner.pip_masks[0] | planner.pip_masks[6]
    closes, wins = planner.closing(heavy, rest, fit, planner.sample_worlds(heavy, rng))
    assert (closes, wins) == (1.0, 0.0)
    # the closing move is scored w_close lower than without the closing rule
    plain = LinePlannerAgent(planner.config)
    plain.w_close = 0.0
    moves = [(six_zero, 0)]
    assert planner.score_moves(heavy, moves, np.random.default_rng(1))[0] == pytest.approx(
        plain.score_moves(heavy, moves, np.random.default_rng(1))[0] - planner.w_close
    )
    # very light hand (0 pips left after 0-6 would be a domino): 0-6 and 1-1 -> 2 pips, and the
    # unseen single tile of seat 1 is at least 1-2 = 3 pips (0s, 6s and 1-1 are accounted for):
    # it always wins the count, so the closing move gets +w_close.
    winner = seat_view(planner, [(0, 6), (1, 1)], placed, (0, 6), [2, 1])
    rest = winner.hand_mask & ~(1 << six_zero)
    assert planner.closing(winner, rest, fit, planner.sample_worlds(winner, rng)) == (1.0, 1.0)


def test_planner_annuls_weak_hands_only():
    cfg = line_from_preset("cuban")
    planner = LinePlannerAgent(cfg)

    def view_of(hand):
        return seat_view(planner, hand, [], None, [10] * 4, partner=2)

    # five doubles, none backed by another tile of its suit: weak -> annul
    weak = [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4], [5, 6], [5, 7], [6, 8], [7, 9], [8, 9]]
    assert planner.should_annul(view_of(weak))
    # five doubles, every one backed: strong -> keep
    strong = [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4], [0, 1], [1, 2], [2, 3], [3, 4], [4, 9]]
    assert not planner.should_annul(view_of(strong))


def test_agent_arguments_are_checked():
    """A ':argument' an agent does not take, or a non-positive count, is refused by name."""
    from domino_env import ConfigError
    from domino_env.agents import make_agent

    for spec in (
        "greedy:banana",
        "random:7",
        "planner:-3",
        "planner:0",
        "planner:x",
        "planner:search=0",
        "planner:searchXYZ",
    ):
        with pytest.raises(ConfigError, match="agent"):
            make_agent(spec, {"preset": "block"})
    for spec in ("greedy:1", "planner:-1", "planner:abc"):
        with pytest.raises(ConfigError, match="agent"):
            make_agent(spec)  # Mexican Train
    assert make_agent("planner:search=4", {"preset": "block"}) is not None


def test_planner_counts_are_plain_positive_decimal_integers():
    """planner:N and planner:search=N take N >= 1 written in ASCII digits only: 1 is the smallest
    count; letters, other scripts' digits, a sign or a space are refused, not read by int()."""
    import re

    from domino_env.core.errors import AgentSpecError

    assert make_agent("planner:1", {"preset": "block"}).samples == 1
    assert make_agent("planner:search=1", {"preset": "block"}).rollouts == 1
    assert make_agent("planner:search=12", {"preset": "block"}).rollouts == 12
    for spec in ("planner:search=abc", "planner:search=\u0663", "planner:\u0663", "planner:search= 5",
                 "planner:search=+5", "planner:search=1_0"):  # fmt: skip
        with pytest.raises(AgentSpecError, match=rf"^invalid agent '{re.escape(spec)}'; allowed: planner, planner:N, "
                                                 r"planner:search or planner:search=N \(N an integer >= 1\)$"):  # fmt: skip
            make_agent(spec, {"preset": "block"})


def test_agents_refuse_a_mask_from_other_rules():
    from domino_env import ConfigError
    from domino_env.agents import make_agent

    greedy = make_agent("greedy", {"preset": "block", "max_pip": 9})  # 113 actions
    with pytest.raises(ConfigError, match="built for other rules"):
        greedy(np.zeros(10, np.float32), np.ones(59, np.int8), np.random.default_rng(0))
    with pytest.raises(ConfigError, match="built for other rules"):
        make_agent("random")(
            np.zeros(10, np.float32), np.ones(59, np.int8), np.random.default_rng(0)
        )


def test_line_planner_refuses_an_rng_that_is_not_a_generator():
    """Its sampled worlds used ``rng.permutation``: an AttributeError for None or a seed."""
    from domino_env import ConfigError
    from domino_env.agents import make_agent
    from domino_env.envs import draw_v0

    env = draw_v0.raw_env()
    env.reset(seed=4)
    greedy = make_agent("greedy", env.config)
    for _ in range(4):  # into the round, where the planner samples the unseen tiles
        o = env.observe(env.agent_selection)
        env.step(greedy(o["observation"], o["action_mask"], np.random.default_rng(0)))
    o = env.observe(env.agent_selection)
    planner = make_agent("planner", env.config)
    assert planner(o["observation"], o["action_mask"], np.random.default_rng(0)) in np.flatnonzero(o["action_mask"])
    for bad in (None, 7):
        with pytest.raises(ConfigError, match="'rng'.*numpy.random.Generator"):
            planner(o["observation"], o["action_mask"], bad)
