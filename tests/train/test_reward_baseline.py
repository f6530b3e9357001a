"""``LearnerEnv(baseline=...)`` / ``domino-train --reward-baseline AGENT``: the duplicate-deal
baseline replays each episode's deal with the baseline agent in the learner's seat(s) and the
episode's own opponents, and subtracts its return from the learner's at the episode's end."""

import json
import os

import numpy as np
import pytest
from ppo_helpers import SMALL, run_ppo

from domino_env.agents import make_agent
from domino_env.train.learner_env import LearnerEnv

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


def test_none_turns_the_baseline_off_and_the_start_line_names_the_options_that_are_on(tmp_path):
    """``--reward-baseline none`` is the explicit off switch (metadata: no baseline); the start-up
    line names self-play, the baseline and the critic input when they are on. The default
    ``--n-envs`` counts the cores the process may use (here: one, by its CPU affinity)."""
    def train(out, *args, **kwargs):
        res = run_ppo([*SMALL, "--timesteps", "64", *args, "--out", str(out)], **kwargs)
        assert res.returncode == 0, res.stderr
        return res.stderr.splitlines()[0], json.loads((out / "metadata.json").read_text())

    one_core = min(os.sched_getaffinity(0))
    line, meta = train(tmp_path / "off", "--reward-baseline", "none", "--self-play", "0.25", "--snapshot-freq", "32",
                       preexec_fn=lambda: os.sched_setaffinity(0, {one_core}))  # fmt: skip
    assert meta["args"]["reward_baseline"] is None and "reward baseline" not in line
    assert line.startswith("training 64 steps, 1 x DummyVecEnv,") and ", self-play 0.25 ->" in line
    assert meta["n_envs"] == 1 and meta["cpu_count"] == 1
    line, meta = train(tmp_path / "on", "--reward-baseline", "greedy", "--critic-input", "full-state",
                       "--action-features", "v2", "--n-envs", "1", "--timesteps", "100")  # fmt: skip
    assert line.startswith("training 100 steps (128 in whole rollouts of 64), 1 x DummyVecEnv,")
    assert meta["args"]["reward_baseline"] == "greedy"
    assert line.endswith(", reward baseline greedy, critic input full-state, action features v2 -> " + str(tmp_path / "on"))
