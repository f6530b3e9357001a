"""``DominoMultiAgentEnv``'s documented defaults and attributes that no other test checked (found
by mutation testing of ``domino_env.agents.rllib.env``): the default illegal-move penalty, records
kept only when asked, the spaces and agents of a fresh env."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.agents.rllib.env import DominoMultiAgentEnv
from domino_env.core.errors import IllegalActionError

MT = {"game": "mexican_train", "num_players": 3, "max_pip": 9}


def _random_episode(env, seed):
    """Play one legal random episode; the final step's ``(rew, term, trunc, info)``."""
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(5000):
        actor = env.aec.agent_selection
        obs, rew, term, trunc, info = env.step({actor: int(rng.choice(np.flatnonzero(obs[actor]["action_mask"])))})
        if term["__all__"] or trunc["__all__"]:
            return rew, term, trunc, info
    raise AssertionError("the episode did not end")


def test_the_default_illegal_move_penalty_is_minus_one_and_counted_per_episode():
    env = DominoMultiAgentEnv(MT)
    assert env.illegal_reward == -1.0
    obs, _ = env.reset(seed=2)
    (actor,) = obs
    _, rew, term, _, _ = env.step({actor: int(np.flatnonzero(obs[actor]["action_mask"] == 0)[0])})
    assert rew[actor] == -1.0 and term["__all__"] and env.illegal_actions == 1
    env.reset(seed=3)  # the count is the current episode's (0 or 1)
    assert env.illegal_actions == 0


def test_records_are_kept_only_when_asked():
    """``records`` grows with every episode only under ``keep_records`` (a long run would keep
    them all in memory); ``last_record`` is always the last finished episode's."""
    env = DominoMultiAgentEnv(MT)
    assert env.keep_records is False and env.last_record is None
    for seed in (1, 2):
        _random_episode(env, seed)
        assert env.records == [] and env.last_record is not None
    assert env.last_record["actions"] == env.aec.to_record()["actions"]


def test_a_fresh_env_lists_its_agents_and_spaces_before_reset():
    """What RLlib and a user read before the first reset: every seat as an agent, the per-agent
    spaces and their ``Dict`` over all agents, the ``env_config`` given (a copy), and ``step``
    refused until ``reset``."""
    config = dict(MT)
    env = DominoMultiAgentEnv(config)
    seats = ["player_0", "player_1", "player_2"]
    assert env.possible_agents == seats and env.agents == seats
    assert env.env_config == MT and env.env_config is not config
    assert set(env.observation_spaces) == set(seats) and dict(env.observation_space) == env.observation_spaces
    assert dict(env.action_space) == env.action_spaces and set(env.action_spaces) == set(seats)
    assert env.illegal_actions == 0 and env.returns.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(IllegalActionError, match="call reset"):
        env.step({"player_0": 0})


def test_a_seat_eliminated_mid_game_leaves_agents_and_comes_back_at_reset():
    """Elimination: a seat reported terminated while the game goes on leaves ``agents`` at the
    next step (RLlib checks every agent it is given is listed); ``reset`` seats everyone again."""
    env = DominoMultiAgentEnv({**MT, "episode": "game", "game_end": "elimination", "elimination_limit": 40})
    seats = env.possible_agents
    for seed in range(40):
        obs, _ = env.reset(seed=seed)
        assert env.agents == seats
        rng, left = np.random.default_rng(seed), set()
        while True:
            actor = env.aec.agent_selection
            obs, _, term, trunc, _ = env.step({actor: int(rng.choice(np.flatnonzero(obs[actor]["action_mask"])))})
            assert env.agents == [a for a in seats if a not in left]
            if term["__all__"] or trunc["__all__"]:
                break
            left |= {a for a in term if a != "__all__" and term[a]}
        if left:
            break
    else:
        pytest.fail("no seat was eliminated before the end of a game in 40 seeds")
    obs, _ = env.reset(seed=99)
    assert env.agents == seats and list(obs) == [env.aec.agent_selection]


def _play(env, seed, check):
    """A random legal episode; ``check(obs, rew, term, trunc, info)`` after every step; the last."""
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        actor = env.aec.agent_selection
        step = env.step({actor: int(rng.choice(np.flatnonzero(obs[actor]["action_mask"])))})
        check(*step)
        obs, _, term, trunc, _ = step
        if term["__all__"] or trunc["__all__"]:
            return step


def _same_agents(obs, rew, term, trunc, info):
    """Every step's dicts name the same agents (``__all__`` besides in term and trunc); an agent
    that is not done is never marked truncated or terminated."""
    assert set(rew) == set(obs) == set(info) and set(term) == set(trunc) == set(obs) | {"__all__"}
    for a in obs:
        assert not (term[a] and trunc[a])


@pytest.mark.parametrize("seed", [0, 1])
def test_a_step_reports_the_same_agents_in_every_dict_and_ends_terminated(seed):
    obs, rew, term, trunc, info = _play(DominoMultiAgentEnv(MT), seed, _same_agents)
    assert set(obs) == {"player_0", "player_1", "player_2"}
    assert term == {**dict.fromkeys(obs, True), "__all__": True} and trunc == {**dict.fromkeys(obs, False), "__all__": False}
    assert all(info[a]["episode_returns"].tolist() == info["player_0"]["episode_returns"].tolist() for a in obs)


def test_a_truncated_episode_reports_every_agent_truncated_not_terminated():
    """``max_cycles``: every seat truncated (``__all__`` too), none terminated, the rewards so far."""
    env = DominoMultiAgentEnv({**MT, "max_cycles": 2})
    obs, rew, term, trunc, info = _play(env, 3, _same_agents)
    seats = env.possible_agents
    assert set(obs) == set(seats)
    assert term == {**dict.fromkeys(seats, False), "__all__": False}
    assert trunc == {**dict.fromkeys(seats, True), "__all__": True}
    assert env.aec.to_record() == env.last_record and env.returns.tolist() == [0.0, 0.0, 0.0]


def test_an_illegal_move_ends_the_episode_paying_the_others_their_pending_rewards():
    """Whole games with points: after a round the seats get rewards they collect at their next
    turn. An illegal move then ends the episode: the offender gets ``illegal_reward`` (what was
    pending for it is dropped, as in ``TerminateIllegalWrapper``), every other seat what was
    pending for it, and ``episode_returns`` sums what each seat was reported."""
    env = DominoMultiAgentEnv({**MT, "episode": "game", "reward": "points", "illegal_reward": -7.0})
    for seed in range(20):
        obs, _ = env.reset(seed=seed)
        rng, reported, found = np.random.default_rng(seed), dict.fromkeys(env.possible_agents, 0.0), False
        while not found:
            actor = env.aec.agent_selection
            pending = {a: float(env.aec._cumulative_rewards[a]) for a in env.aec.agents}
            found = pending[actor] != 0 and any(pending[a] for a in pending if a != actor)
            if found:
                break
            obs, rew, term, trunc, _ = env.step({actor: int(rng.choice(np.flatnonzero(obs[actor]["action_mask"])))})
            for a, r in rew.items():
                reported[a] += r
            if term["__all__"] or trunc["__all__"]:
                break
        if found:
            break
    else:
        pytest.fail("no position with rewards pending for the actor and another seat in 20 games")
    illegal = int(np.flatnonzero(obs[actor]["action_mask"] == 0)[0])
    _, rew, term, trunc, info = env.step({actor: illegal})
    assert rew == {a: -7.0 if a == actor else pending[a] for a in env.aec.agents}
    assert term == {**dict.fromkeys(rew, True), "__all__": True} and trunc == {**dict.fromkeys(rew, False), "__all__": False}
    want = [reported[a] + rew[a] for a in env.possible_agents]
    for a in rew:
        assert info[a]["illegal_action"] is True and info[a]["illegal_actor"] == actor
        assert info[a]["episode_returns"].tolist() == pytest.approx(want)


def test_render_is_the_pettingzoo_envs():
    """``render_mode="ansi"`` goes to the raw env: ``render()`` returns its text picture."""
    env = DominoMultiAgentEnv({**MT, "render_mode": "ansi"})
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and text and text == env.aec.render()


def test_the_unknown_option_warning_points_at_the_callers_line():
    """In an editable install (``domino_env.agents`` mapped to agents/, beside domino_env/) the
    warning named ``DominoMultiAgentEnv.reset``'s own line in agents/rllib/env.py."""
    import warnings

    env = DominoMultiAgentEnv(MT)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.reset(seed=0, options={"dael": {}})
    assert [(w.filename, "unknown option(s) ['dael']" in str(w.message)) for w in caught] == [(__file__, True)]
