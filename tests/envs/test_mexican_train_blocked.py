"""A blocked Mexican Train round ends as soon as no seat can ever place again (docs/rules.md
§1.5; issue 12 item 5): right after the placement or draw that makes it so, never after a forced
PASS that could not change anything."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from domino_env.core.config import from_preset
from domino_env.core.errors import ConfigError
from domino_env.core.mexican_train import MexicanTrainState
from domino_env.core.tiles import tile_index
from domino_env.envs.infos import Termination, seats_of
from domino_env.envs.mexican_train_v0 import raw_env


def test_issue_example_is_blocked_right_after_the_placement():
    """Hands [1-9, 5-5] and [2-3], station 9-9, no boneyard: once seat 0 plays 1-9 on its own
    train the open ends are 1 (own) and 9 (seat 1's train, the Mexican train); nobody holds a 1
    or a 9 and nothing can change that, so the round ends at once: seat 1 is not asked to PASS."""
    env = raw_env(num_players=2, max_pip=9, first_turn="any", use_boneyard=False)
    env.reset(
        seed=0,
        options={"deal": {"hands": [[[1, 9], [5, 5]], [[2, 3]]], "station": [9, 9], "first_player": 0}},
    )
    env.step(tile_index(1, 9, 9) * 3 + 0)  # 1-9 on seat 0's own train
    state = env.game_state
    assert state.round_over
    assert state.actions == [tile_index(1, 9, 9) * 3]
    for agent in env.possible_agents:
        assert env.terminations[agent]
        info = env.infos[agent]
        assert info["termination_code"] == Termination.BLOCKED
        assert list(info["pips"]) == [10, 5]
        assert seats_of(info["winners"]) == [1]
    # the dead steps of the two agents end the episode
    env.step(None)
    env.step(None)
    assert env.agents == []


def test_blocked_after_a_draw_of_the_last_tile():
    """Seat 1 draws the last tile of the boneyard (0-0), which fits nothing, and no hand can ever
    place: the round ends after the DRAW, without seat 1's forced PASS."""
    env = raw_env(num_players=2, max_pip=9, first_turn="any")
    env.reset(
        seed=0,
        options={
            "deal": {
                "hands": [[[1, 9], [5, 5]], [[2, 3]]],
                "boneyard": [[0, 0]],
                "station": [9, 9],
                "first_player": 0,
            }
        },
    )
    env.step(tile_index(1, 9, 9) * 3)
    assert not env.game_state.round_over  # seat 1 may still draw
    assert env.agent_selection == "player_1"
    env.step(env.game_state.draw_action)
    assert env.game_state.round_over
    assert env.infos["player_1"]["termination_code"] == Termination.BLOCKED
    assert list(env.infos["player_1"]["pips"]) == [10, 5]  # 0-0 counts 0 (double_blank_points=0)


def test_a_seat_that_can_still_place_keeps_the_round_going():
    """Same table, but seat 1 also holds 2-9, which fits the Mexican train (open end 9): the
    round goes on after seat 0's placement."""
    env = raw_env(num_players=2, max_pip=9, first_turn="any", use_boneyard=False)
    env.reset(
        seed=0,
        options={"deal": {"hands": [[[1, 9], [5, 5]], [[2, 3], [2, 9]]], "station": [9, 9], "first_player": 0}},
    )
    env.step(tile_index(1, 9, 9) * 3)
    assert not env.game_state.round_over
    assert env.game_state.legal_actions() != [env.game_state.pass_action]  # 2-9 fits the Mexican train


configs = st.fixed_dictionaries(
    {
        "preset": st.sampled_from(["domino_cubano", "tren_mexicano", "novelty"]),
        "num_players": st.integers(2, 6),
        "max_pip": st.sampled_from([9, 12]),
        "doubles": st.sampled_from(["satisfy", "double_double", "chain", "no_cover"]),
        "drawn_tile": st.sampled_from(["must_play", "may_play"]),
        "first_turn": st.sampled_from(["own_train", "any"]),
        "use_boneyard": st.booleans(),
        "use_mexican_train": st.booleans(),
        "hand_size": st.none() | st.integers(2, 8),
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kwargs=configs, seed=st.integers(0, 2**31 - 1))
def test_no_forced_pass_ever_ends_a_round(kwargs, seed):
    """Over random play: after the first action of a round, whenever the actor's only action is
    PASS, that PASS never ends the round as blocked (it would have been declared one step
    earlier). Checked on a copy, so the game goes on with random actions."""
    try:
        config = from_preset(kwargs["preset"], **{k: v for k, v in kwargs.items() if k != "preset"})
    except ConfigError:
        assume(False)  # a combination the library refuses (e.g. hands too big for the set)
    rng = np.random.default_rng(seed)
    state = MexicanTrainState.new_game(config, rng)
    blocked = 0
    for _ in range(3000):
        if state.round_over:
            blocked += state.round_result.termination == "blocked"
            if state.game_over:
                break
            state.start_next_round(rng)
            continue
        legal = state.legal_actions()
        if legal == [state.pass_action] and state.actions and len(state.deals) and _not_round_start(state):
            probe = state.copy()
            probe.apply(state.pass_action)
            assert not probe.round_over, f"a forced PASS ended a round: {config}"
        state.apply(int(rng.choice(legal)))


def _not_round_start(state: MexicanTrainState) -> bool:
    """Some action was played in the current round (a deal where nobody can place at all is
    only found by the first forced PASS)."""
    return state.trains != [[] for _ in state.trains] or state.boneyard_size < len(state.deals[-1]["boneyard"])
