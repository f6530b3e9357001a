"""Engine states pickled before ``round_history()`` existed (no ``actors``; Mexican Train states
no ``round_start`` either) unpickle with their seats rebuilt from their deals and actions: before,
``round_history()``, ``copy()`` and ``apply()`` raised AttributeError, so an env pickled by the
previous release could not even step."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from domino_env.core.belief import InformationState
from domino_env.core.mexican_train import MexicanTrainState
from domino_env.envs import cuban_v0, draw_v0, mexican_train_v0


class _OldPickle:
    """Pickles ``state`` as the release before ``round_history()`` did: its slots less the new ones."""

    def __init__(self, state):
        self.state = state

    def __reduce_ex__(self, protocol):
        slots = {n: getattr(self.state, n) for n in type(self.state).__slots__ if hasattr(self.state, n)}
        slots.pop("actors")
        if isinstance(self.state, MexicanTrainState):
            slots.pop("round_start")
        return object.__new__, (type(self.state),), (None, slots)


def _mid_later_round(env, seed: int):
    """Random play until the game is in its second round or later (or over), a few actions in."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    extra = 3
    while env.agents:
        state = env.game_state
        if state.round_index + getattr(state, "annulments", 0) >= 1:
            extra -= 1
            if extra < 0:
                break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return env.game_state


@pytest.mark.parametrize(
    "make",
    [
        lambda: cuban_v0.raw_env(episode="game"),
        lambda: draw_v0.raw_env(episode="game"),
        lambda: mexican_train_v0.raw_env(episode="game", max_pip=9, num_players=3, game_end="elimination"),
        lambda: mexican_train_v0.raw_env(episode="game", max_pip=9, num_players=4, preset="tren_mexicano"),
    ],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_state_pickled_before_round_history_gets_its_seats_back(make, seed):
    state = _mid_later_round(make(), seed)
    old = pickle.loads(pickle.dumps(_OldPickle(state)))
    assert old.round_history() == state.round_history()
    assert old.actors == state.actors and old.round_start == state.round_start
    assert old.copy().round_history() == state.round_history()
    seat = old.current_player
    assert InformationState.from_state(old, seat).public.round_history() == state.round_history()
    if not old.round_over:
        action = old.legal_actions()[0]
        old.apply(action)
        assert old.round_history()[-1] == (seat, action)


def test_a_current_pickle_keeps_its_fields_without_replaying():
    state = _mid_later_round(cuban_v0.raw_env(episode="game"), 0)
    state.actors[0] = -7  # (a replay would rebuild it)
    assert pickle.loads(pickle.dumps(state)).actors[0] == -7


def _play_until(env, seed: int, stop):
    """Random play from ``reset(seed=seed)`` until ``stop(state)`` or the episode's end."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while env.agents and not stop(env.game_state):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:  # a seat out of an elimination game
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    return env.game_state


@pytest.mark.parametrize(
    "make",
    [
        lambda: cuban_v0.raw_env(episode="game"),
        lambda: mexican_train_v0.raw_env(episode="game", max_pip=9, num_players=3, game_end="elimination"),
    ],
)
def test_a_state_pickled_at_the_start_of_a_later_round_or_at_the_end_of_the_game(make):
    """Right after the action that ended a round the next round is already dealt (its deal is the
    state's last, none of its actions played): the rebuilt round_start is that round's, and its
    round history empty. A game-over state has no next deal. Kills: deleting the rebuild's last
    ``if fresh.round_over and deals: fresh.start_next_round(...)`` (round_start stayed the ended
    round's), reading it with ``or`` or popping ``deals[1]`` (an IndexError) (core/history.py)."""
    env = make()
    state = _play_until(env, 0, lambda s: s.round_index >= 1 and s.round_start == len(s.actions))
    assert not state.round_over and state.round_start == len(state.actions) > 0
    old = pickle.loads(pickle.dumps(_OldPickle(state)))
    assert old.round_start == state.round_start and old.round_history() == state.round_history() == []
    assert old.actors == state.actors and len(old.actors) == len(state.actions)
    seat, action = old.current_player, old.legal_actions()[0]
    old.apply(action)
    assert old.round_history() == [(seat, action)]
    over = _play_until(env, 1, lambda s: s.game_over)
    assert over.game_over and over.round_history()
    old = pickle.loads(pickle.dumps(_OldPickle(over)))
    assert old.round_start == over.round_start and old.actors == over.actors
    assert old.round_history() == over.round_history()
