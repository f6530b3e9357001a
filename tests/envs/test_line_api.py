"""The line games (block, draw, Cuban) through the libraries' own checkers: PettingZoo's api /
seed / render tests for every preset and seat count, whole games with points and teams, a pickle
round trip mid-game, the single-agent adapter under SB3's and Gymnasium's check_env, and a soak of
random rounds (speed is measured in benchmarks/, not here)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from domino_env.envs import block_v0, cuban_v0, draw_v0, line_v0

# ---------------------------------------------------------------------------- API checks

PRESET_PLAYERS = [
    ("block", 2),
    ("block", 3),
    ("block", 4),
    ("draw", 2),
    ("draw", 3),
    ("draw", 4),
    ("cuban", 4),
]


@pytest.mark.parametrize(("preset", "players"), PRESET_PLAYERS)
def test_pettingzoo_api_seed_render(preset, players):
    from pettingzoo.test import api_test, render_test, seed_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(line_v0.env(preset=preset, num_players=players), num_cycles=200)
        seed_test(lambda: line_v0.env(preset=preset, num_players=players), num_cycles=200)
        render_test(
            lambda render_mode=None: line_v0.env(
                preset=preset, num_players=players, render_mode=render_mode
            )
        )


@pytest.mark.parametrize("mod", [block_v0, draw_v0, cuban_v0])
def test_pettingzoo_api_game_points_and_teams(mod):
    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(mod.env(episode="game", reward="points", target_score=150), num_cycles=2000)
        if mod is not draw_v0:
            api_test(mod.env(teams=True, episode="game", target_score=150), num_cycles=2000)


@pytest.mark.parametrize("preset", ["block", "draw", "cuban"])
def test_pickle_round_trip_mid_game(preset):
    env = line_v0.raw_env(preset=preset, episode="game")
    env.reset(seed=11)
    rng = np.random.default_rng(1)
    for _ in range(9):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    copy = pickle.loads(pickle.dumps(env))
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(300):
        a, b = env.agent_selection, copy.agent_selection
        assert a == b
        if env.terminations[a] or env.truncations[a]:
            assert copy.terminations[b] or copy.truncations[b]
            break
        oa, ob = env.observe(a), copy.observe(b)
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        legal_a = np.flatnonzero(oa["action_mask"])
        legal_b = np.flatnonzero(ob["action_mask"])
        env.step(int(legal_a[rng_a.integers(len(legal_a))]))
        copy.step(int(legal_b[rng_b.integers(len(legal_b))]))
        assert env.rewards == copy.rewards
    assert env.unwrapped.game_state.scores == copy.unwrapped.game_state.scores
    assert env.to_record()["actions"] == copy.to_record()["actions"]


@pytest.mark.parametrize("preset", ["block", "draw", "cuban"])
def test_single_agent_adapter_passes_sb3_and_gymnasium_check_env(preset):
    from gymnasium.utils.env_checker import check_env as gym_check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    from domino_env.wrappers import SingleAgentEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = SingleAgentEnv(line_v0.raw_env(preset=preset))
        sb3_check_env(e)
        gym_check_env(e)


# ---------------------------------------------------------------------------- soak


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["block", "draw", "cuban"])
def test_soak_random_rounds(preset):
    """2,000 random rounds per preset through raw_env, observing every step."""
    env = line_v0.raw_env(preset=preset)
    rng = np.random.default_rng(123)
    terminations = {"went_out": 0, "blocked": 0, "annulled": 0}
    space = env.observation_space("player_0")["observation"]
    for r in range(2000):
        env.reset(seed=r)
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            obs = env.observe(agent)
            assert obs["observation"].shape == space.shape
            legal = np.flatnonzero(obs["action_mask"])
            assert len(legal) >= 1
            env.step(int(legal[rng.integers(len(legal))]))
            if env.infos[agent]["round_over"]:
                terminations[str(env.infos[agent]["termination_code"])] += 1
        assert not any(env.truncations.values())
        rewards = [env._cumulative_rewards[a] for a in env.possible_agents]  # noqa: SLF001
        assert abs(sum(rewards)) < 1e-9 or env.config.teams
    assert terminations["went_out"] + terminations["blocked"] == 2000
    if preset != "cuban":
        assert terminations["annulled"] == 0


@pytest.mark.parametrize("preset", ["block", "draw", "cuban"])
def test_describe_line_action_says_what_the_engine_says(preset):
    """The codec described a lead as "place 6-6 on the left end" where the engine says "lead 6-6"
    (and ANNUL as "annul", not "annul the round"): ``lead=True`` says the table is empty."""
    from domino_env.core.config import line_from_preset
    from domino_env.core.errors import ConfigError
    from domino_env.core.line import LineState
    from domino_env.encoding.line import describe_line_action, encode_line_action

    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(20):
        state = LineState.new_game(line_from_preset(preset), rng)
        while not state.round_over:
            for action in state.legal_actions():
                text = state.describe_action(action)
                assert describe_line_action(action, state.config.max_pip, lead=not state.line) == text
                seen.add(text.split()[0])
            state.apply(state.legal_actions()[int(rng.integers(len(state.legal_actions())))])
    assert {"lead", "place"} <= seen
    six = encode_line_action((6, 6), 0, 6)
    assert describe_line_action(six, 6, lead=True) == "lead 6-6"
    assert describe_line_action(six, 6) == "place 6-6 on the left end"
    assert describe_line_action(encode_line_action(None, "annul", 6), 6) == "annul the round"
    with pytest.raises(ConfigError, match="'lead'"):
        describe_line_action(six, 6, lead="yes")


def test_line_action_codec_layout_and_round_trip():
    """docs/design.md §3: placements are ``tile * 2 + end`` in canonical tile order, then DRAW = 2T,
    PASS = 2T + 1, ANNUL = 2T + 2 (the env's Discrete(2T + 3)). Only "annul" and placements were
    encoded by a test, and only through describe_line_action."""
    from domino_env.core.errors import DominoError
    from domino_env.core.tiles import tile_table
    from domino_env.encoding.line import decode_line_action, encode_line_action, line_action_count

    for n, t in ((6, 28), (9, 55), (12, 91)):
        assert line_action_count(n) == 2 * t + 3
        assert [encode_line_action(None, kind, n) for kind in ("draw", "pass", "annul")] == [2 * t, 2 * t + 1, 2 * t + 2]
        assert [decode_line_action(2 * t + k, n) for k in range(3)] == [("draw", None, None), ("pass", None, None),
                                                                          ("annul", None, None)]  # fmt: skip
        placements = [decode_line_action(a, n) for a in range(2 * t)]
        assert placements == [("place", tile, end) for tile in tile_table(n) for end in (0, 1)]
        assert [encode_line_action(tile, end, n) for _, tile, end in placements] == list(range(2 * t))
        for outside in (-1, 2 * t + 3):
            with pytest.raises(DominoError, match=rf"action {outside} outside 0\.\.{2 * t + 2}"):
                decode_line_action(outside, n)
    assert encode_line_action((6, 5), 1, 6) == encode_line_action((5, 6), 1, 6) == 2 * 26 + 1  # 5-6: tile 26
    assert block_v0.raw_env().action_space("player_0").n == 59 and cuban_v0.raw_env().action_space("player_0").n == 113
    with pytest.raises(DominoError, match=r"end must be 0, 1, 'draw', 'pass' or 'annul', got 'left'"):
        encode_line_action((5, 6), "left", 6)
