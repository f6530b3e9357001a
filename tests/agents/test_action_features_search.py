"""The v3 search columns of the per-action features (``search_candidate``, ``search_gain``,
``search_z``) against the documented formula: ``search:25`` (12 determinizations of the planner's
two best moves) run with the rows' own generator, the paired differences with the planner's move,
their mean clipped to [-1, 1] and mean / standard error / 5 clipped to [-1, 1] (the sign when the
standard error is 0)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from domino_env.agents import PlannerAgent, make_agent
from domino_env.agents.action_features import ACTION_FEATURES_V3, ActionFeatures
from domino_env.core.belief import InformationState
from domino_env.envs.mexican_train_v0 import raw_env


def search_of(env, o, m, info):
    """What ``search:25`` (made from its spec) values at this decision, with the rows' generator
    (seeded from the observation and mask bytes)."""
    rng = np.random.default_rng(zlib.crc32(o.tobytes() + m.astype(np.int8).tobytes()))
    return make_agent("search:25", env.config).searched_values(o, m, rng, info)


def test_search_columns_follow_the_formula_over_a_game():
    env = raw_env(num_players=4)
    features, planner = ActionFeatures(env.config, ACTION_FEATURES_V3), PlannerAgent(env.config)
    checked = clipped = 0
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        o, m = obs["observation"], obs["action_mask"]
        if np.count_nonzero(m) > 1 and checked < 12:
            info = InformationState.from_state(env.game_state, env.game_state.current_player)
            f = features(o, m, info)[:, -3:]
            moves, default, values = search_of(env, o, m, info)
            assert default == planner(o, m, rng) and len(moves) == 2
            assert [len(v) for v in values] == [12, 12]  # 25 playouts // 2 moves
            want = np.zeros_like(f)
            base = np.asarray(values[moves.index(default)])
            for move, vals in zip(moves, values, strict=True):
                want[move, 0] = 1
                if move != default:
                    d = np.asarray(vals) - base
                    se = d.std(ddof=1) / np.sqrt(12)
                    want[move, 1] = np.clip(d.mean(), -1, 1)
                    want[move, 2] = np.clip(d.mean() / se / 5, -1, 1) if se else np.sign(d.mean())
                    clipped += abs(want[move, 2]) == 1
            np.testing.assert_allclose(f, want, rtol=1e-5, atol=1e-7)
            checked += 1
        legal = np.flatnonzero(m)
        env.step(int(legal[rng.integers(len(legal))]))
    assert checked == 12 and clipped < checked  # some z inside (-1, 1)


@pytest.mark.parametrize(
    "hand,sign",
    [([[9, 5], [9, 4]], -1), ([[9, 5], [5, 0], [1, 1]], 1)],
)
def test_search_z_is_the_sign_when_every_deal_is_the_same(hand, sign):
    """Seat 1 holds every tile seat 0 does not (no boneyard, 2 players, double-9): seat 0 knows the
    deal, every determinization is that deal and the playouts agree, so the paired difference is
    one number 12 times, its standard error 0: ``search_z`` is its sign, ``search_gain`` the
    difference itself."""
    n = 9
    mine = [sorted(t) for t in hand]
    others = [[a, b] for a in range(n + 1) for b in range(a, n + 1) if [a, b] not in mine and a + b < 2 * n]
    deal = {"hands": [mine, others], "boneyard": [], "station": [n, n], "first_player": 0}
    env = raw_env(num_players=2, max_pip=n, first_turn="any")
    env.reset(seed=0, options={"deal": deal})
    obs = env.observe("player_0")
    o, m = obs["observation"], obs["action_mask"]
    info = InformationState.from_state(env.game_state, 0)
    f = ActionFeatures(env.config, ACTION_FEATURES_V3)(o, m, info)[:, -3:]
    moves, default, values = search_of(env, o, m, info)
    (other,) = [a for a in moves if a != default]
    assert all(len(set(v)) == 1 for v in values)  # one deal, twelve times
    gain = values[moves.index(other)][0] - values[moves.index(default)][0]
    assert np.sign(gain) == sign
    assert f[other].tolist() == pytest.approx([1, gain, sign], abs=1e-6)
    assert f[default].tolist() == [1, 0, 0]
    assert not np.delete(f, moves, axis=0).any()  # the unsearched moves


def test_search_columns_of_moves_that_all_go_out():
    """Seat 0's last tile, 9-5, fits its own train and the Mexican train: either move wins the
    round at once with the same pips, so the paired difference is 0 in every deal (standard
    error 0): both moves are searched, gain and z are 0."""
    deal = {"hands": [[[9, 5]], [[4, 3], [0, 0], [6, 6]]], "boneyard": [[1, 1]], "station": [9, 9],
            "first_player": 0}  # fmt: skip
    env = raw_env(num_players=2, max_pip=9, first_turn="any")
    env.reset(seed=0, options={"deal": deal})
    obs = env.observe("player_0")
    o, m = obs["observation"], obs["action_mask"]
    info = InformationState.from_state(env.game_state, 0)
    f = ActionFeatures(env.config, ACTION_FEATURES_V3)(o, m, info)[:, -3:]
    legal = np.flatnonzero(m).tolist()
    assert len(legal) == 2
    moves, _, values = search_of(env, o, m, info)
    assert moves == legal and values[0] == values[1]
    assert f[legal].tolist() == [[1, 0, 0], [1, 0, 0]] and f.sum() == 2



# 2-player double-9 rounds played to a decision after the boneyard is empty (the seat to act knows
# the deal): seed 10, seat 0, the planner's move wins where its runner-up loses; seed 69, seat 1,
# the other way round.
ROUNDS = {
    10: [132, 54, 155, 39, 120, 42, 12, 36, 9, 84, 93, 23, 111, 105, 108, 26, 90, 126, 87, 48, 15,
         30, 33, 27, 6, 99, 77, 81, 96, 74, 51, 149, 165, 166, 140, 18, 45, 69, 123, 57, 78, 129,
         159, 114, 165, 166, 151, 165, 166, 117, 165, 137, 166],
    69: [78, 27, 57, 69, 56, 35, 74, 128, 0, 3, 135, 138, 17, 48, 42, 30, 36, 11, 86, 66, 14, 63, 8,
         39, 77, 98, 89, 125, 146, 51, 134, 24, 131, 21, 152, 149, 95, 165, 62, 165, 166, 112, 117,
         165, 166, 99, 165, 166],
}  # fmt: skip


@pytest.mark.parametrize("seed,seat,sign", [(10, 0, -1), (69, 1, 1)])
def test_search_gain_and_z_are_clipped_at_one(seed, seat, sign):
    env = raw_env(num_players=2, max_pip=9)
    env.reset(seed=seed)
    for action in ROUNDS[seed]:
        env.step(action)
    state = env.game_state
    assert not state.boneyard and state.current_player == seat
    obs = env.observe(f"player_{seat}")
    o, m = obs["observation"], obs["action_mask"]
    info = InformationState.from_state(state, seat)
    f = ActionFeatures(env.config, ACTION_FEATURES_V3)(o, m, info)[:, -3:]
    moves, default, values = search_of(env, o, m, info)
    (other,) = [a for a in moves if a != default]
    d = np.asarray(values[moves.index(other)]) - np.asarray(values[moves.index(default)])
    assert d.mean() * sign > 1 and d.max() - d.min() < 1e-9  # a won round against a lost one, every deal
    assert f[other].tolist() == [1, sign, sign] and f[default].tolist() == [1, 0, 0]
