"""``round_history()`` of both engines: this round's actions as ``(seat, action)`` pairs, the seat
being the one that played it (a seat that draws, or covers its own double, keeps the turn), reset
at every new round (also a re-dealt annulled round), kept by copies, by the public state of
``InformationState`` and by a record's replay; ``describe_round_history()`` names each action as it
was played."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_line_properties import line_configs
from test_mexican_train_properties import configs as mexican_configs

from domino_env.core.belief import InformationState
from domino_env.core.config import from_preset, line_from_preset
from domino_env.core.line import LineState
from domino_env.core.mexican_train import MexicanTrainState
from domino_env.core.records import replay
from domino_env.envs import cuban_v0, mexican_train_v0

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play_game(state, seed: int, max_actions: int = 1500) -> None:
    """Random legal play through whole games; at every action, checks the history against the
    seats and actions seen so far in the round."""
    rng = np.random.default_rng(seed)
    seen: list[tuple[int, int]] = []
    said: list[tuple[int, str]] = []  # each action as describe_action named it when it was played
    round_index, annulments = state.round_index, getattr(state, "annulments", 0)
    for _ in range(max_actions):
        if state.round_over:
            if state.game_over:
                break
            state.start_next_round(rng)
        if (state.round_index, getattr(state, "annulments", 0)) != (round_index, annulments):
            round_index, annulments = state.round_index, getattr(state, "annulments", 0)
            seen, said = [], []  # a new round (an annulled one re-dealt too) starts empty
        assert state.round_history() == seen
        seat, action = state.current_player, int(rng.choice(state.legal_actions()))
        said.append((seat, state.describe_action(action)))
        state.apply(action)
        seen.append((seat, action))
        assert state.round_history() == seen  # the action that ends a round stays in its history
        assert state.describe_round_history() == said  # (a line round's lead, read later, too)


@SETTINGS
@given(mexican_configs, st.integers(0, 2**31 - 1))
def test_mexican_train_history_names_the_seat_of_every_action(kw, seed):
    cfg = from_preset(kw.pop("preset"), **{**kw, "game_end": "rounds"})  # (whole games of a bounded length)
    play_game(MexicanTrainState.new_game(cfg, np.random.default_rng(seed)), seed)


@SETTINGS
@given(line_configs(), st.integers(0, 2**31 - 1))
def test_line_history_names_the_seat_of_every_action(kw, seed):
    cfg = line_from_preset(kw.pop("preset"), **kw)
    play_game(LineState.new_game(cfg, np.random.default_rng(seed)), seed)


def test_a_seat_that_draws_or_covers_its_double_keeps_the_turn_in_the_history():
    cfg = from_preset("domino_cubano", num_players=4, max_pip=12)
    kept = {"draw": 0, "double": 0}
    for seed in range(20):
        state = MexicanTrainState.new_game(cfg, np.random.default_rng(seed))
        play_game(state, seed, max_actions=400)
        pairs = state.round_history()
        for (seat, action), (nxt, _) in zip(pairs, pairs[1:], strict=False):
            if action == state.draw_action:
                kept["draw"] += nxt == seat
            elif action < state.draw_action:
                a, b = state._t.tiles[action // (state.num_players + 1)]
                kept["double"] += a == b and nxt == seat
    assert kept["draw"] > 20 and kept["double"] > 5


def test_copies_public_states_and_record_replays_keep_the_history():
    env = mexican_train_v0.raw_env(num_players=3, max_pip=9)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(25):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    state = env.game_state
    history = state.round_history()
    assert len(history) == 25 and history[0][0] == state.deals[0]["first_player"]
    copy = state.copy()
    copy.apply(copy.legal_actions()[0])
    assert state.round_history() == history and copy.round_history()[:25] == history
    public = InformationState.from_state(state, state.current_player).public
    assert public.round_history() == history
    assert public.hands[(state.current_player + 1) % 3] == 0  # (hidden tiles erased, history kept)
    *_, last = replay(env.to_record())
    assert last.round_history() == history


def test_an_annulled_cuban_round_starts_an_empty_history():
    env = cuban_v0.raw_env(annul_doubles=2)  # a hand with 2 doubles may annul
    for seed in range(200):
        env.reset(seed=seed)
        state = env.game_state
        if state.annul_action in state.legal_actions():
            seat = state.current_player
            env.step(state.annul_action)
            assert state.annulments == 1 and state.round_history() == []
            assert state.actions[-1] == state.annul_action and state.actors[-1] == seat
            return
    raise AssertionError("no deal of 200 let a seat annul")


def test_describe_action_names_a_history_entry_as_its_seat_played_it():
    """A Mexican Train action's train counts from the seat that plays it: the history's seat, not
    the seat to act when it is read."""
    state = MexicanTrainState.new_game(from_preset("domino_cubano", num_players=4), np.random.default_rng(3))
    rng = np.random.default_rng(3)
    said = []
    while len(said) < 40 and not state.round_over:
        action = int(rng.choice(state.legal_actions()))
        said.append(state.describe_action(action))
        state.apply(action)
    later = [state.describe_action(a, s) for s, a in state.round_history()]
    assert later == said[: len(later)] and len(later) == len(said)
    others = sum("the train of seat" in d for d in said)
    assert others > 0 and [state.describe_action(a) for _, a in state.round_history()] != said  # (without the seat)
