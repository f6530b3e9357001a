"""A done agent (terminated or truncated) is stepped with ``None``; any other action is an
``IllegalActionError`` naming the agent, in ``raw_env`` and ``env()`` of every game (a user trial:
PettingZoo's own check raised a plain ``ValueError`` naming no agent), and nothing changes."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.core.errors import IllegalActionError
from domino_env.envs import cuban_v0, mexican_train_v0

MAKERS = [
    mexican_train_v0.raw_env,
    mexican_train_v0.env,
    cuban_v0.raw_env,
    cuban_v0.env,
    # a knock-out game: a seat is done while the others play on
    lambda: mexican_train_v0.raw_env(preset="tren_mexicano", episode="game", num_players=3),
]


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("action", [0, np.int64(1)])
def test_a_done_agent_stepped_with_an_action_is_refused_and_none_goes_on(make, action):
    env = make()
    env.reset(seed=2)
    refused = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            before = (env.agent_selection, list(env.agents), dict(env.terminations))
            done = "terminated" if terminated else "truncated"
            with pytest.raises(IllegalActionError, match=rf"^{agent} is done \({done}\): step\(None\) for it, not "):
                env.step(action)
            assert (env.agent_selection, list(env.agents), dict(env.terminations)) == before
            refused += 1
            env.step(None)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert refused >= 1 and not env.agents


def test_raw_env_names_the_done_agent_for_any_action():
    """(``env()`` first refuses a non-integer action as such, for every agent.)"""
    env = mexican_train_v0.raw_env(preset="tren_mexicano", episode="game", num_players=3)
    env.reset(seed=2)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            with pytest.raises(IllegalActionError, match=rf"^{agent} is done .*, not 2\.5$"):
                env.step(2.5)
            break
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    else:
        pytest.fail("no agent was done before the episode's end")


@pytest.mark.parametrize("module", [mexican_train_v0, cuban_v0])
def test_after_an_illegal_move_ends_the_episode_under_env_an_action_names_the_done_agent(module):
    """An attacker: PettingZoo's TerminateIllegalWrapper does its own dead step after the illegal
    move, which raised its plain ValueError."""
    env = module.env()
    env.reset(seed=1)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))  # masked out: the episode ends
    agent = env.agent_selection
    assert env.terminations[agent] and env.truncations[agent]
    with pytest.raises(IllegalActionError, match=rf"^{agent} is done \(terminated\): step\(None\) for it, not 0$"):
        env.step(0)
    while env.agents:
        env.step(None)
