"""A blocked Mexican Train round ends as soon as no seat can ever place again (docs/rules.md
§1.5; issue 12 item 5): right after the placement or draw that makes it so, never after a forced
PASS that could not change anything."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from domino_env.core.config import from_preset
from domino_env.core.errors import ConfigError, IllegalActionError
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


def test_a_knocked_out_seats_train_does_not_keep_a_round_going():
    """docs/rules.md §1.1 (a seat knocked out of an elimination game: "its train is not in play")
    and §1.5: the blocked test counts only the trains in play. Round 1, station 8-8: the train of
    knocked-out seat 1 still ends in 8 and seat 0 holds 2-8, but nobody may play there: the round
    is blocked once every train in play ends in a pip nobody holds."""
    config = from_preset(num_players=3, max_pip=9, game_end="elimination", elimination_limit=1, first_turn="any")
    n, slots = 9, 4

    def place(state, tile, slot):
        state.apply(tile_index(*tile, n) * slots + slot)

    round0 = {"hands": [[[9, 1]], [[5, 6]], [[0, 0]]], "boneyard": [], "station": [9, 9], "first_player": 0}
    state = MexicanTrainState.new_game(config, None, round0)
    place(state, (9, 1), 0)  # seat 0 goes out; seat 1 (11 pips) reaches the limit, seat 2 (0 pips) does not
    assert state.round_over and state.active == [True, False, True] and not state.game_over
    assert state.eliminated_at == [None, 0, None]  # knocked out in round 0
    round1 = {"hands": [[[8, 1], [1, 7], [2, 8]], [], [[8, 3], [8, 4], [6, 6]]], "boneyard": [], "station": [8, 8]}
    state.start_next_round(None, round1)
    assert state.current_player == 0  # the winner of round 0
    place(state, (8, 1), 0)  # own train: 1
    place(state, (8, 3), 0)  # seat 2's own train: 3
    place(state, (1, 7), 0)  # own train: 7
    assert not state.round_over  # seat 2 may still start the Mexican train with 8-4
    place(state, (8, 4), 3)  # seat 2 on the Mexican train (slot P = 3): it ends in 4
    assert state.open_end(1) == 8 and state.hand_tiles(0) == [(2, 8)]
    assert state.round_over and state.round_result.termination == "blocked"
    assert state.round_result.pips == (10, 0, 12) and state.round_result.winners == (0,)


def test_a_round_blocked_by_a_pass_has_no_legal_action_left():
    """docs/rules.md §1.5: a deal where nobody can place is found blocked by the first forced PASS;
    the round is then over: no legal action is left, and a further PASS is refused."""
    config = from_preset(num_players=2, max_pip=9)
    deal = {"hands": [[[1, 2]], [[3, 4]]], "boneyard": [], "station": [9, 9], "first_player": 0}
    state = MexicanTrainState.new_game(config, None, deal)
    assert state.legal_actions() == [state.pass_action]
    state.apply(state.pass_action)
    assert state.round_over and state.round_result.termination == "blocked"
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="after the round ended"):
        state.apply(state.pass_action)


def test_a_tile_that_fits_only_the_mexican_train_keeps_the_round_going():
    """docs/rules.md §1.5: the blocked test counts every train in play, the Mexican train too.
    No boneyard; once the personal trains end in 1 and 2 and the Mexican train in 5, only seat 0's
    5-7 can still be placed, on the Mexican train: the round goes on and seat 0 goes out."""
    config = from_preset(num_players=2, max_pip=9, first_turn="any")
    deal = {"hands": [[[9, 1], [9, 5], [5, 7]], [[9, 2], [8, 8]]], "boneyard": [], "station": [9, 9],
            "first_player": 0}  # fmt: skip
    state = MexicanTrainState.new_game(config, None, deal)
    state.apply(tile_index(1, 9, 9) * 3)  # seat 0, own train: 1
    state.apply(tile_index(2, 9, 9) * 3)  # seat 1, own train: 2
    state.apply(tile_index(5, 9, 9) * 3 + 2)  # seat 0, the Mexican train: 5
    assert not state.round_over
    assert state.legal_actions() == [state.pass_action]  # seat 1: 8-8 fits nowhere
    state.apply(state.pass_action)
    assert not state.round_over
    state.apply(tile_index(5, 7, 9) * 3 + 2)
    assert state.round_result.termination == "went_out" and state.round_result.winners == (0,)
