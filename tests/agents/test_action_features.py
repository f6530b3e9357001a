"""Per-action features (``domino_env.agents.action_features``, issue 8): the planner's move, the
mask, hand-built values, and that the rows read only the seat's observation."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from domino_env.agents import PlannerAgent
from domino_env.agents.action_features import FEATURES, ActionFeatures
from domino_env.core.tiles import tile_index
from domino_env.envs.mexican_train_v0 import raw_env

COL = {name: i for i, name in enumerate(FEATURES)}


def act(tile, slot, p, n=9):
    return tile_index(tile[0], tile[1], n) * (p + 1) + slot


@pytest.mark.parametrize(
    "rules",
    [
        {"num_players": 4},
        {"num_players": 2},
        {"num_players": 3, "drawn_tile": "may_play"},
        {"num_players": 5, "max_pip": 9, "doubles": "no_cover"},
        {"num_players": 4, "doubles": "chain", "first_turn": "any"},
    ],
)
def test_rows_match_the_mask_and_mark_the_planners_move(rules):
    env = raw_env(**rules)
    planner, features = PlannerAgent(env.config), ActionFeatures(env.config)
    rng = np.random.default_rng(0)
    decisions = 0
    for episode in range(6):
        env.reset(seed=episode)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            o, m = obs["observation"], obs["action_mask"]
            f = features(o, m)
            assert f.shape == (len(m), len(FEATURES)) and f.dtype == np.float32
            np.testing.assert_array_equal(f[:, COL["legal"]], m.astype(np.float32))
            assert not f[m == 0].any()  # illegal actions: all-zero rows
            move = planner(o, m, rng)
            assert np.flatnonzero(f[:, COL["planner_choice"]]).tolist() == [move]
            decisions += 1
            legal = np.flatnonzero(m)
            env.step(int(legal[rng.integers(len(legal))]) if rng.random() < 0.3 else move)
    assert decisions > 200


def test_hand_built_position_values():
    # Own end 9; chain 9-5, 5-2, 2-7; 9-8 is a spare (the planner sheds it on the Mexican train).
    deal = {
        "hands": [[[9, 5], [5, 2], [2, 7], [9, 8]], [[1, 1], [3, 4], [0, 6]]],
        "boneyard": [],
        "station": [9, 9],
        "first_player": 0,
    }
    env = raw_env(num_players=2, max_pip=9, first_turn="any")
    env.reset(seed=0, options={"deal": deal})
    obs = env.observe("player_0")
    f = ActionFeatures(env.config)(obs["observation"], obs["action_mask"])
    spare_mexican, follow, break_own = act((8, 9), 2, 2), act((5, 9), 0, 2), act((8, 9), 0, 2)
    row = dict(zip(FEATURES, f[spare_mexican], strict=True))
    assert row["planner_choice"] == 1 and row["mexican_train"] == 1 and row["in_chain"] == 0
    assert row["plan_change"] == pytest.approx(1.017)  # a spare shed: + (1000 + 17) / 1000
    assert row["pips"] == pytest.approx(17 / 18)
    row = dict(zip(FEATURES, f[follow], strict=True))
    assert row["follows_chain"] == 1 and row["in_chain"] == 1 and row["own_train"] == 1
    assert row["plan_change"] == 0 and row["planner_choice"] == 0
    # 9-8 on the own train leaves end 8 and no chain from it: the plan loses its 3 tiles
    row = dict(zip(FEATURES, f[break_own], strict=True))
    assert row["follows_chain"] == 0 and row["own_train"] == 1
    assert row["plan_change"] == pytest.approx((1017 - (1014 + 1007 + 1009)) / 1000)


def test_features_read_only_the_observation_and_pickle():
    env = raw_env(num_players=4)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    features = ActionFeatures(env.config)
    a = features(obs["observation"], obs["action_mask"])
    clone = pickle.loads(pickle.dumps(features))
    np.testing.assert_array_equal(clone(obs["observation"].copy(), obs["action_mask"].copy()), a)
    empty = features(obs["observation"], np.zeros_like(obs["action_mask"]))
    assert not empty.any()  # an episode that is over: no legal action, no features
