"""Observations stay inside their declared Box for every accepted config (issue 12 item 2): the
``scores`` bound is sized from the rules, ``round_index`` saturates at 1,000."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from domino_env.core.config import from_preset, line_from_preset
from domino_env.core.errors import ConfigError
from domino_env.encoding.line import line_observation_spec, line_scores_bound
from domino_env.encoding.mexican_train import observation_spec, scores_bound
from domino_env.envs import line_v0, mexican_train_v0

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

mexican_configs = st.fixed_dictionaries(
    {
        "preset": st.sampled_from(["domino_cubano", "tren_mexicano", "novelty"]),
        "num_players": st.integers(2, 8),
        "max_pip": st.sampled_from([9, 12, 15, 18]),
        "episode": st.sampled_from(["round", "game"]),
        "game_end": st.sampled_from(["rounds", "elimination"]),
        "elimination_limit": st.integers(1, 10**6),
        "double_blank_points": st.integers(0, 1000),
        "use_boneyard": st.booleans(),
        "station_source": st.sampled_from(["set_aside", "highest_held"]),
        "hand_size": st.none() | st.integers(1, 30),
    }
)
line_configs = st.fixed_dictionaries(
    {
        "preset": st.sampled_from(["block", "draw", "cuban"]),
        "num_players": st.integers(2, 4),
        "max_pip": st.sampled_from([6, 9, 12]),
        "hand_size": st.integers(1, 20),
        "episode": st.sampled_from(["round", "game"]),
        "use_boneyard": st.booleans(),
        "target_score": st.integers(1, 10**7),
        "teams": st.booleans(),
    }
)


def play_checking_boxes(env, seed: int, steps: int) -> int:
    """Random legal play from ``reset(seed)``; every agent's observation checked against its Box
    at every step. Returns the steps played."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    played = 0
    while env.agents and played < steps:
        for agent in env.possible_agents:
            obs = env.observe(agent)
            box = env.observation_space(agent)
            assert box["observation"].contains(obs["observation"]), (agent, env.env_kwargs)
            assert box["action_mask"].contains(obs["action_mask"])
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(rng.choice(legal)))
        played += 1
    return played


@SETTINGS
@given(kwargs=mexican_configs, seed=st.integers(0, 2**31 - 1))
def test_mexican_train_observations_inside_their_box(kwargs, seed):
    try:
        env = mexican_train_v0.raw_env(max_cycles=300, **kwargs)
    except ConfigError:
        assume(False)  # a config the library refuses (e.g. hands too big for the set): draw another
    play_checking_boxes(env, seed, 300)


@SETTINGS
@given(kwargs=line_configs, seed=st.integers(0, 2**31 - 1))
def test_line_observations_inside_their_box(kwargs, seed):
    try:
        env = line_v0.raw_env(max_cycles=300, **kwargs)
    except ConfigError:
        assume(False)
    play_checking_boxes(env, seed, 300)


def test_elimination_scores_above_ten_thousand_stay_inside_the_box():
    """The issue's config: elimination_limit=20000 reaches totals above the old bound 10,000; the
    bound now comes from the limit (limit - 1 + the largest hand a round can leave)."""
    env = mexican_train_v0.raw_env(
        num_players=2, max_pip=9, episode="game", game_end="elimination", elimination_limit=20000
    )
    box = env.observation_space("player_0")["observation"]
    spec = env.encoder.spec
    high = box.high[spec.slices["scores"]]
    assert (high == scores_bound(env.config)).all() and high[0] > 20000
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    top = 0
    while env.agents and top <= 10500:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        obs = env.observe(agent)
        assert box.contains(obs["observation"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        top = max(env.game_state.scores)
    assert top > 10500
    for agent in env.possible_agents:
        obs = env.observe(agent)["observation"]
        assert box.contains(obs)
        assert obs[spec.slices["scores"]].max() == top  # real totals, not clipped


def test_round_index_saturates_at_its_bound_in_long_games():
    """A draw game that never reaches its target (10**7) plays rounds of one step each (hands of
    one tile): the observation's round index stops at 1,000 while the infos keep counting."""
    env = line_v0.raw_env(
        preset="block", num_players=2, hand_size=1, target_score=10**7, episode="game"
    )
    box = env.observation_space("player_0")["observation"]
    at = env.encoder.spec.slices["round_index"].start
    env.reset(seed=0)
    while env.game_state.round_index < 1005:
        agent = env.agent_selection
        obs = env.observe(agent)
        assert box.contains(obs["observation"])
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.game_state.round_index == 1005
    obs = env.observe("player_0")["observation"]
    assert obs[at] == 1000.0 and box.high[at] == 1000.0
    assert box.contains(obs)
    assert env.round_results[-1]["round_index"] == 1004
    state = env.state()  # the global state stops there too (it went on counting, outside its space)
    assert state[env.state_encoder.spec.slices["round_index"].start] == 1000.0 and env.state_space.contains(state)


def test_mexican_train_state_stays_in_its_space_past_round_1000():
    """The state's ``round_index`` and ``scores`` are clipped at the observation's bounds, so a
    long elimination game keeps ``state_space.contains(env.state())``."""
    env = mexican_train_v0.raw_env(
        num_players=2, max_pip=9, episode="game", game_end="elimination", elimination_limit=10**6
    )
    env.reset(seed=0)
    env.game_state.round_index = 1500  # as if 1,500 rounds had been played (each takes ~50 steps)
    env.game_state.scores[:] = [10**7, 10]  # above the scores bound (a hand-made total)
    state = env.state()
    slices = env.state_encoder.spec.slices
    assert state[slices["round_index"].start] == 1000.0
    assert list(state[slices["scores"]]) == [env.state_space.high[slices["scores"]][0], 10.0]
    assert env.state_space.contains(state)


def test_default_specs_and_their_hashes_are_unchanged():
    """Configs whose dealt games stay under 10,000 points keep the released spec (and hash), so
    the released checkpoints still load; bigger sets raise only the scores bound."""
    env = mexican_train_v0.raw_env()
    assert env.encoder.spec is observation_spec(4, 12)
    assert observation_spec(4, 12).hash() == "62037286c7fe3ba1"
    cuban = line_v0.raw_env(preset="cuban")
    assert cuban.encoder.spec is line_observation_spec(4, 9)
    big = mexican_train_v0.raw_env(num_players=2, max_pip=18)
    assert big.encoder.spec.slices == observation_spec(2, 18).slices
    assert big.encoder.spec.space.high[big.encoder.spec.slices["scores"]][0] > 10000


def test_cuban_state_annulments_stay_in_the_state_space():
    """``annulments`` shares the round bound (1,000); it went on counting past it."""
    from domino_env.envs import cuban_v0

    env = cuban_v0.raw_env(episode="game", annul_doubles=1, target_score=10**6)
    env.reset(seed=0)
    env.game_state.annulments = 1006  # as after 1,006 annulled deals (the fresh-user check played them)
    state = env.state()
    assert state[env.state_encoder.spec.slices["annulments"].start] == 1000.0
    assert env.state_space.contains(state)


def test_line_scores_bound_rises_only_for_a_target_near_ten_million():
    """A game ends after the round in which a total reaches the target (docs/rules.md §2.1), and
    that round scores at most every pip of the set (168 in double-6, 495 in double-9): a total
    can reach target - 1 + that. The bound stays 10**7 until a target makes that larger (only
    the default 10**7 was tested, through docs/envs.md's table)."""
    assert line_scores_bound(line_from_preset("block")) == 1e7
    assert line_scores_bound(line_from_preset("cuban", target_score=10**7 - 495)) == 1e7  # 10**7 - 1
    assert line_scores_bound(line_from_preset("cuban", target_score=10**7 - 400)) == 10**7 + 94
    assert line_scores_bound(line_from_preset("block", target_score=10**7)) == 10**7 + 167
    env = line_v0.raw_env(preset="block", num_players=2, target_score=10**7)
    box = env.observation_space("player_0")["observation"]
    assert box.high[env.encoder.spec.slices["scores"]].tolist() == [10**7 + 167] * 2


def test_scores_bound_is_the_largest_total_a_dealt_game_reaches():
    """docs/rules.md §1.5-1.6: a round scores at most the pips of the largest hand a seat can hold,
    its dealt tiles plus the whole boneyard; a "rounds" game has N + 1 rounds, and in an
    elimination game a seat stops at the limit. Double-9, two seats: hands of (55 - 1 - 4) // 2 =
    25 tiles, boneyard 54 - 50 = 4, so 29 tiles: every tile of 10 pips or more (25 tiles, 320 pips)
    and four 9s, 356 pips. Only the bounds' "> 10,000" was tested, never their value."""
    d9 = {"num_players": 2, "max_pip": 9}
    assert scores_bound(from_preset(game_end="elimination", elimination_limit=20000, **d9)) == 20000 - 1 + 356
    # three seats: a round with two left deals 25-tile hands again (16 with three): the largest still 356
    assert scores_bound(from_preset(num_players=3, max_pip=9, game_end="elimination", elimination_limit=20000)) == 20355
    assert scores_bound(from_preset(**d9)) == 10000  # 10 rounds x 356 < 10,000
    # the 0-0 worth 1000 is one of the 29 tiles, beside the 28 best others (320 + 3 x 9): 1347 a round
    assert scores_bound(from_preset(double_blank_points=1000, **d9)) == 10 * 1347
    # sin monte: no boneyard, 27 tiles a hand: the 0-0 and 26 others (320 + 9)
    assert scores_bound(from_preset(double_blank_points=1000, use_boneyard=False, **d9)) == 10 * 1329
    # highest_held: the station comes from a hand, so 55 tiles are dealt or drawn: 25 + 5 = 30 tiles
    assert scores_bound(from_preset(double_blank_points=1000, station_source="highest_held", **d9)) == 10 * 1356
