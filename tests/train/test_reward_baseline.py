"""``LearnerEnv(baseline=...)`` / ``domino-train --reward-baseline AGENT``: the duplicate-deal
baseline replays each episode's deal with the baseline agent in the learner's seat(s) and the
episode's own opponents, and subtracts its return from the learner's at the episode's end."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from domino_env.agents import make_agent  # noqa: E402
from domino_env.train.learner_env import LearnerEnv  # noqa: E402

MT = {"num_players": 4, "max_pip": 12}


def _episode(env, seed, policy):
    """Play one episode with ``policy(env) -> action``; (return, last info)."""
    env.reset(seed=seed)
    total, done, info = 0.0, False, {}
    while not done:
        _, reward, terminated, truncated, info = env.step(policy(env))
        total += reward
        done = terminated or truncated
    return total, info


def _as(agent):
    rng = np.random.default_rng(0)
    return lambda env: int(agent(env.raw_observation, env.action_masks(), rng))


@pytest.mark.parametrize(
    "game, kwargs",
    [("mexican_train", {"env_kwargs": MT, "opponents": ["planner"], "reward": "mixed"}),
     ("cuban", {"env_kwargs": {}, "opponents": ["planner"], "reward": "outcome", "partner": "learner"})],
    ids=["mexican-train-mixed", "cuban-team-play"],
)  # fmt: skip
def test_a_learner_playing_the_baselines_moves_gets_exactly_zero(game, kwargs):
    """The same deal and the same (deterministic) opponents: the baseline's episode is the
    learner's own, so the reward is 0 and the baseline's return is what the learner got without
    a baseline, episode by episode (a replay on another deal would differ)."""
    plain = LearnerEnv(game=game, **kwargs)
    dup = LearnerEnv(game=game, baseline="planner", **kwargs)
    me = _as(make_agent("planner", plain.unwrapped.aec.config))
    returns = []
    for seed in range(8):
        base, _ = _episode(plain, seed, me)
        total, info = _episode(dup, seed, me)
        assert total == 0.0 and info["baseline_return"] == pytest.approx(base)
        returns.append(base)
    assert len(set(np.round(returns, 6))) > 1  # the deals differ: the check means something


def test_the_baseline_does_not_depend_on_the_learners_actions():
    """Its return is fixed at reset: a random learner and a planner learner on the same seed see
    the same baseline, and each one's reward is its own return (as without a baseline) minus it."""
    envs = [LearnerEnv(MT, ["planner", "greedy"], baseline="planner") for _ in range(2)]
    plain = LearnerEnv(MT, ["planner", "greedy"])
    config = plain.unwrapped.aec.config
    for seed in range(6):
        seen = []
        for env, name in zip(envs, ("random", "planner"), strict=True):
            total, info = _episode(env, seed, _as(make_agent(name, config)))
            own, _ = _episode(plain, seed, _as(make_agent(name, config)))  # a fresh generator: the same play
            assert total == pytest.approx(own - info["baseline_return"])
            seen.append(info["baseline_return"])
        assert seen[0] == seen[1]
