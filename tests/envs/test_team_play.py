"""The single-agent adapter's team play (``team_play=True``): the learner plays both seats of its
team in Cuban, the partner's opponent callable is never called, every other seat keeps its
callable for the whole round, and the team's reward is counted once."""

import numpy as np
import pytest

from domino_env.core.errors import ConfigError
from domino_env.envs.infos import Termination
from domino_env.envs.line_v0 import POINTS_SCALE
from domino_env.wrappers import SingleAgentEnv, line_single_agent


class Recorder:
    """An opponent that plays its first legal action and remembers the seats it played."""

    def __init__(self):
        self.env = None
        self.seats = []

    def __call__(self, observation, action_mask, rng):
        self.seats.append(self.env.aec.game_state.current_player)
        return int(np.flatnonzero(action_mask)[0])


def recording_env(**kwargs):
    opponents = [Recorder(), Recorder(), Recorder()]  # seat+1, the partner (seat+2), seat+3
    env = line_single_agent("cuban", opponents=opponents, team_play=True, **kwargs)
    for o in opponents:
        o.env = env
    return env, opponents


def play_episode(env, seed, pick=-1):
    obs, info = env.reset(seed=seed)
    first, seats, total, done = env.learner_seat, set(), 0.0, False
    infos = [info]
    while not done:
        seats.add(env.learner_seat)
        legal = np.flatnonzero(env.action_masks())
        assert len(legal) and obs.shape == env.observation_space.shape
        # the observation is that of the seat to act: its own hand
        assert np.array_equal(obs, env.aec.observe(env.learner)["observation"])
        obs, reward, term, trunc, info = env.step(int(legal[pick]))
        total += reward
        done = term or trunc
        infos.append(info)
    return first, seats, total, infos


def test_the_learner_plays_both_seats_of_its_team_and_the_partner_callable_is_never_called():
    env, opponents = recording_env(learner_seat="random")
    both = 0
    firsts = set()
    for seed in range(60):
        for o in opponents:
            o.seats.clear()
        first, seats, _, _ = play_episode(env, seed)
        firsts.add(first)
        assert {s % 2 for s in seats} == {first % 2}  # only its team's seats
        both += seats == {first % 2, first % 2 + 2}
        assert opponents[1].seats == []  # the partner's callable
        # each other seat keeps its callable all round, although learner_seat moved
        played = {s for o in (opponents[0], opponents[2]) for s in set(o.seats)}
        assert len(set(opponents[0].seats)) == len(set(opponents[2].seats)) == 1
        assert played == {(first + 1) % 4, (first + 3) % 4}
    assert firsts == {0, 1, 2, 3}
    assert both >= 55  # nearly every round has decisions for both partners


def test_the_team_reward_is_counted_once_per_round():
    env, _ = recording_env(learner_seat="random")
    outcomes = set()
    for seed in range(40):
        first, _, total, infos = play_episode(env, seed)
        end = infos[-1]
        assert end["round_over"]
        if end["termination_code"] == Termination.ANNULLED:
            continue
        won = first in end["winners"] or (first + 2) % 4 in end["winners"]
        assert total == (1.0 if won else -1.0)
        outcomes.add(total)
    assert outcomes == {1.0, -1.0}


def test_points_rewards_of_a_whole_game_sum_the_team_rounds_exactly():
    # game episodes: several rounds end inside one episode, on either partner's or an opponent's
    # move; each round's reward must reach the learner exactly once
    env, opponents = recording_env(learner_seat=1, episode="game", reward="points", target_score=100)
    checked = 0
    for seed in range(10):
        for o in opponents:
            o.seats.clear()
        first, _, total, infos = play_episode(env, seed)
        assert first in (1, 3)
        # the fixed seat is restored at every reset: entry 0 plays the seat after it, entry 2 the one before
        assert set(opponents[0].seats) == {2} and set(opponents[2].seats) == {0}
        results = [r for info in infos for r in info["round_results"]]
        expected = 0.0
        for r in results:
            if r["termination_code"] == Termination.ANNULLED:
                continue
            score = max(r["points"])
            expected += (score if 1 in r["winners"] or 3 in r["winners"] else -score) / POINTS_SCALE
        assert total == pytest.approx(expected)
        checked += len(results) > 1
    assert checked >= 5  # games of several rounds were checked


def test_team_play_is_refused_without_teams_or_when_not_a_bool():
    from domino_env.envs.line_v0 import raw_env

    with pytest.raises(ConfigError, match="team_play.*no teams"):
        line_single_agent("block", team_play=True)
    with pytest.raises(ConfigError, match="team_play.*True or False"):
        SingleAgentEnv(raw_env(preset="cuban"), team_play="yes")
    env = line_single_agent("cuban")  # default: the partner is a callable
    assert env.team_play is False
    from domino_env.envs.mexican_train_v0 import raw_env as mexican_train_raw_env

    with pytest.raises(ConfigError, match="team_play.*no teams"):  # its config has no teams field at all
        SingleAgentEnv(mexican_train_raw_env(num_players=4), team_play=True)


def test_the_registered_cuban_id_takes_team_play():
    import gymnasium

    import domino_env.agents.gym_ids  # noqa: F401  (registers the ids)

    env = gymnasium.make("dominoes/Cuban-v0", team_play=True, opponents="greedy")
    env.reset(seed=0)
    assert env.unwrapped.team_play is True
    with pytest.raises(ConfigError, match="team_play"):
        gymnasium.make("dominoes/Block-v0", team_play=True)
