"""The training env of domino-train (``LearnerEnv``): the learner's reward on scripted deals
(outcome, mixed, points; the learner's own final reward when an opponent ends the round), the
observation scaling and action masks a vector env passes on, the opponents drawn per episode and
the self-play snapshots, and the team credit and whole-game episodes of the line games."""

import numpy as np
import pytest

from domino_env.agents.ppo import observation_scale
from domino_env.envs.infos import seats_of
from domino_env.train.ppo import LearnerEnv


def _opponent_goes_out():
    # Seat 0 (learner) has 9-1 and 1-2; seat 1 goes out on its first turn with its only tile.
    return {
        "hands": [[[9, 1], [1, 2]], [[9, 3]], [[9, 4], [4, 4]]],
        "boneyard": [],
        "station": [9, 9],
        "first_player": 0,
    }


def _learner_goes_out():
    return {
        "hands": [[[9, 1]], [[9, 3], [3, 5]], [[9, 4], [4, 4]]],
        "boneyard": [],
        "station": [9, 9],
        "first_player": 0,
    }


def _play(reward, deal, **kwargs):
    env = LearnerEnv(
        {"num_players": 3, "max_pip": 9}, ["greedy"], reward=reward, learner_seat=0, **kwargs
    )
    obs, _ = env.reset(seed=0, options={"deal": deal})
    total, done = 0.0, False
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        obs, r, terminated, truncated, info = env.step(action)
        assert isinstance(r, float)
        total += r
        done = terminated or truncated
    return total, info


@pytest.mark.parametrize("reward, expected", [("outcome", 1.0), ("mixed", 1.0), ("points", 0.0)])
def test_a_round_the_learner_wins_gives_it_a_positive_return(reward, expected):
    total, info = _play(reward, _learner_goes_out())
    assert seats_of(info["winners"]) == [0] and info["learner_won"] == 1.0 and info["learner_pips"] == 0
    assert total == pytest.approx(expected)


@pytest.mark.parametrize(
    "reward, expected", [("outcome", -0.5), ("mixed", -0.5 - 3 / 100), ("points", -3 / 100)]
)
def test_a_round_an_opponent_ends_gives_the_learner_its_own_final_reward(reward, expected):
    total, info = _play(reward, _opponent_goes_out())
    assert seats_of(info["winners"]) == [1] and info["learner_won"] == 0.0
    assert info["learner_pips"] == 3  # 1-2 left: the learner's own pips, not the winner's 0
    assert total == pytest.approx(
        expected
    )  # the learner's share of -1 (and its own points), never +1


def test_pips_coef_weights_the_points_term():
    total, _ = _play("mixed", _opponent_goes_out(), pips_coef=10.0)
    assert total == pytest.approx(-0.5 - 0.3)


def test_observations_are_scaled_and_masks_reach_the_vec_env():
    from stable_baselines3.common.vec_env import DummyVecEnv

    from domino_env.train.ppo import make_env_fn

    cfg = {"env_kwargs": {"num_players": 4, "max_pip": 12}, "opponents": ["greedy"], "opponent_mode": "mix",
           "reward": "mixed", "pips_coef": 1.0, "self_play": 0.0}  # fmt: skip
    venv = DummyVecEnv([make_env_fn(cfg), make_env_fn(cfg)])
    venv.seed(0)
    obs = venv.reset()
    masks = np.stack(venv.env_method("action_masks"))
    assert (
        obs.shape == (2, 449)
        and masks.shape == (2, 457)
        and masks.dtype == bool
        and masks.any(axis=1).all()
    )
    assert obs.max() <= 1.0 + 1e-6  # every field scaled to about [0, 1]
    raw = venv.envs[0].unwrapped.aec.observe(venv.envs[0].unwrapped.learner)["observation"]
    assert np.allclose(obs[0], raw * observation_scale(4, 12))


def test_opponents_are_drawn_per_episode_and_self_play_uses_snapshots():
    env = LearnerEnv({"num_players": 4}, ["greedy", "random"])
    seen = set()
    for s in range(12):
        env.reset(seed=s)
        seen |= {o.name for o in env.env.unwrapped.opponents}
    assert seen == {"greedy", "random"}

    def snapshot(obs, mask, rng):
        return int(np.flatnonzero(mask)[0])

    env = LearnerEnv({"num_players": 4}, ["greedy"], self_play=1.0)
    env.set_snapshots([snapshot])
    env.reset(seed=0)
    assert env.env.unwrapped.opponents == [snapshot] * 3
    fixed = LearnerEnv({"num_players": 4}, ["greedy", "random", "planner"], opponent_mode="fixed")
    fixed.reset(seed=0)
    assert [o.name for o in fixed.env.unwrapped.opponents] == ["greedy", "random", "planner"]


def test_line_learner_env_scales_and_credits_the_team():
    from domino_env.core.config import line_from_preset

    rules = line_from_preset("cuban").to_dict()
    env = LearnerEnv(rules, ["greedy"], reward="outcome", learner_seat=0, game="cuban")
    obs, _ = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and float(np.abs(obs).max()) <= 1.0
    done, info, total = False, {}, 0.0
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, reward, term, trunc, info = env.step(int(legal[0]))
        total += reward
        done = term or trunc
    if info["round_over"]:
        team_won = 0 in info["winners"]
        assert info["learner_won"] in ((0.5, 1.0) if team_won else (0.0,))
        assert (total > 0) == (team_won and 1 not in info["winners"])
    with pytest.raises(Exception, match="line game"):
        LearnerEnv(rules, ["greedy"], reward="mixed", game="cuban")


def test_a_whole_game_episode_credits_the_game_not_its_last_round():
    """``learner_won`` (the rolling training win rate) at the end of a game episode is the game's
    win: in Mexican Train (fewest total points after every round) a seat can win the last round
    and lose the game."""
    env = LearnerEnv({"num_players": 2, "max_pip": 9, "episode": "game"}, ["greedy"], reward="outcome", learner_seat=0)
    differ = 0
    for seed in range(30):
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            done = term or trunc
        assert info["game_over"]
        shared = int(info["game_won"].sum())
        assert info["learner_won"] == (1.0 / shared if info["game_won"][0] else 0.0)
        differ += bool(info["won"][0]) != bool(info["game_won"][0])
    assert differ >= 1  # games where the last round's winner lost the game were checked
