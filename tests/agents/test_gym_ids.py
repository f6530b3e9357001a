"""The registered Gymnasium ids take opponents by agent name (issue 12 item 7): their entry points
live in ``domino_env.agents.gym_ids`` so that ``domino_env`` never imports ``agents``."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import domino_env  # noqa: F401  (registers the ids)
from domino_env import ConfigError
from domino_env.agents import (
    GreedyAgent,
    LineGreedyAgent,
    LinePlannerAgent,
    LineRandomAgent,
    PlannerAgent,
)
from domino_env.wrappers import line_single_agent, mexican_train_single_agent, random_legal_opponent


def play(env, seed: int = 0) -> float:
    """One episode with the first legal action; returns the learner's return."""
    env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        mask = env.get_wrapper_attr("action_masks")()
        _, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
        total += reward
        done = terminated or truncated
    return total


def test_mexican_train_id_with_one_agent_name():
    env = gymnasium.make("dominoes/MexicanTrain-v0", num_players=3, max_pip=9, opponents="greedy")
    opponents = env.unwrapped.opponents
    assert len(opponents) == 2 and all(isinstance(o, GreedyAgent) for o in opponents)
    assert opponents[0] is not opponents[1]  # one agent object per seat
    assert opponents[0].num_players == 3
    assert play(env) in (-1.0, -0.5, 0.0, 0.5, 1.0)


def test_mexican_train_id_with_a_list_of_names_and_callables():
    env = gymnasium.make(
        "dominoes/MexicanTrain-v0", num_players=3, max_pip=9, opponents=["planner", random_legal_opponent]
    )
    first, second = env.unwrapped.opponents
    assert isinstance(first, PlannerAgent) and second is random_legal_opponent
    play(env)


@pytest.mark.parametrize(
    "env_id, kwargs, names, classes",
    [
        ("dominoes/Block-v0", {"num_players": 2}, "greedy", [LineGreedyAgent]),
        ("dominoes/Draw-v0", {}, ["planner"], [LinePlannerAgent]),
        ("dominoes/Cuban-v0", {}, ["planner", "greedy", "random"], [LinePlannerAgent, LineGreedyAgent, LineRandomAgent]),
    ],
)
def test_line_ids_take_line_agent_names(env_id, kwargs, names, classes):
    env = gymnasium.make(env_id, opponents=names, **kwargs)
    assert [type(o) for o in env.unwrapped.opponents] == classes
    play(env, seed=1)


def test_callables_still_work_and_defaults_are_random():
    env = gymnasium.make("dominoes/Cuban-v0")
    assert env.unwrapped.opponents == [random_legal_opponent] * 3
    env = gymnasium.make("dominoes/MexicanTrain-v0", num_players=2, opponents=random_legal_opponent)
    assert env.unwrapped.opponents == [random_legal_opponent]


@pytest.mark.parametrize(
    "opponents, match",
    [
        ("nobody", r"argument 'opponents': got 'nobody'.*one of \['greedy', 'planner', 'ppo', 'random'"),
        (["greedy", "gredy", "planner"], r"argument 'opponents': got 'gredy'.*one of \['greedy'"),
        (["greedy"], r"'opponents'.*an agent name \(greedy, planner, ppo, random.*\) or callable, or a sequence of 3"),
        (5, r"'opponents'"),
    ],
)
def test_bad_opponents_are_refused_naming_the_allowed_values(opponents, match):
    with pytest.raises(ConfigError, match=match):
        gymnasium.make("dominoes/MexicanTrain-v0", opponents=opponents)


def test_line_id_refuses_another_preset():
    with pytest.raises(ConfigError, match="'block' for this id"):
        gymnasium.make("dominoes/Block-v0", preset="cuban")


@pytest.mark.parametrize(
    ("make", "typo", "listed"),
    [
        (lambda **kw: gymnasium.make("dominoes/MexicanTrain-v0", **kw), "oponents", ["opponents", "num_players"]),
        (lambda **kw: gymnasium.make("dominoes/Cuban-v0", **kw), "team_paly", ["team_play", "learner_seat", "teams"]),
        (mexican_train_single_agent, "learner", ["learner_seat", "illegal_reward", "max_pip"]),
        (lambda **kw: line_single_agent("draw", **kw), "illegal", ["illegal_reward", "team_play", "target_score"]),
    ],
)
def test_a_misspelt_adapter_keyword_is_refused_listing_the_adapters_keywords(make, typo, listed):
    """The AEC env's own error listed only its keywords, so a misspelt ``opponents`` was told to
    pick from a list without ``opponents``."""
    with pytest.raises(ConfigError, match="single-agent adapter") as err:
        make(**{typo: 1})
    assert err.value.field == typo
    assert all(repr(name) in err.value.allowed for name in listed)


def test_team_play_is_not_a_keyword_of_the_mexican_train_id():
    with pytest.raises(ConfigError) as err:
        gymnasium.make("dominoes/MexicanTrain-v0", team_play=True)
    assert err.value.field == "team_play" and "'team_play'" not in err.value.allowed


def test_the_random_opponent_refuses_a_mask_with_no_legal_action():
    """numpy's "high <= 0" was the message; a typed error names the mask."""
    with pytest.raises(ConfigError, match="invalid argument 'action_mask': got 'all zero'; allowed: a mask with a legal action"):
        random_legal_opponent(np.zeros(4, dtype=np.float32), np.zeros(7, dtype=np.int8), np.random.default_rng(0))
    assert random_legal_opponent(None, np.array([0, 0, 1, 0], dtype=np.int8), np.random.default_rng(0)) == 2
