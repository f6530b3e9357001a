"""A given deal's optional keys given as None mean what leaving them out means (docs/envs.md,
"Starting from a given position"): ``"first_player": None`` was taken as the default while
``"station": None`` and ``"boneyard": None`` were refused as not a double / not a list (a user
trial found it)."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.core.config import from_preset, line_from_preset
from domino_env.core.errors import DealError
from domino_env.core.line import LineState
from domino_env.core.mexican_train import MexicanTrainState
from domino_env.envs import draw_v0, line_v0, mexican_train_v0

HANDS = [[[1, 2], [3, 9]], [[4, 5], [6, 7]]]


def _dealt(env, deal):
    env.reset(seed=3, options={"deal": deal})
    return env.to_record()["deals"], env.game_state


@pytest.mark.parametrize("key", ["station", "boneyard", "first_player"])
def test_mexican_train_none_reads_as_the_key_left_out(key):
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9)
    full = {"hands": HANDS, "boneyard": [[0, 8]], "station": [8, 8], "first_player": 1}
    absent = {k: v for k, v in full.items() if k != key}
    deals, engine = _dealt(env, {**full, key: None})
    assert deals == _dealt(env, absent)[0]
    if key == "station":  # the schedule's double of round 0: 9-9
        assert engine.station == 9 and deals[0]["station"] == [9, 9]
    if key == "boneyard":
        assert engine.boneyard == [] and deals[0]["boneyard"] == []


def test_mexican_train_station_none_under_highest_held_follows_the_rule():
    """Without a station the rule picks the highest double held, whose holder starts."""
    config = from_preset("novelty", num_players=2, max_pip=9)
    hands = [[[1, 2], [3, 9]], [[4, 5], [7, 7], [6, 6]]]
    for deal in ({"hands": hands}, {"hands": hands, "station": None, "boneyard": None, "first_player": None}):
        state = MexicanTrainState.new_game(config, np.random.default_rng(0), deal)
        assert (state.station, state.deals[0]["first_player"], state.deals[0]["boneyard"]) == (7, 1, [])


def test_none_in_a_later_deal_reads_as_absent_too():
    """``options["deals"]``: a later round's deal is read by the same code when it starts."""
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9, episode="game")
    later = {"hands": [[[1, 2]], [[4, 5]]], "station": None, "boneyard": None, "first_player": None}
    env.reset(seed=0, options={"deals": [{"hands": [[[1, 2]], [[3, 4]]], "first_player": 0}, later]})
    env.step(env.game_state.legal_actions()[0])  # seat 0 plays its only tile [1, 2]: round over
    assert env.game_state.round_index == 1 and env.game_state.station == 8  # round 1's scheduled double
    assert env.to_record()["deals"][1] == {"hands": [[[1, 2]], [[4, 5]]], "boneyard": [], "station": [8, 8],
                                           "first_player": env.game_state.round_first_player}  # fmt: skip


def test_line_game_boneyard_none_is_empty_as_left_out():
    env = draw_v0.raw_env()
    hands = [[[6, 6], [1, 6]], [[6, 3], [2, 2]]]
    deals, engine = _dealt(env, {"hands": hands, "boneyard": None, "first_player": None})
    assert deals == _dealt(env, {"hands": hands})[0] and deals[0]["boneyard"] == [] and engine.boneyard == []
    state = LineState.new_game(line_from_preset("draw"), None, {"hands": hands, "boneyard": None})
    assert state.deals[0]["boneyard"] == []


def test_what_none_cannot_stand_for_is_still_refused_by_name():
    """``hands`` has no default; a station or boneyard of another kind is still named."""
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9)
    with pytest.raises(DealError, match=r"^options\['deal'\]: deal\['hands'\] must be a list with one list of \[a, b\] "
                       r"tiles per seat \(2 seats\), got NoneType$"):  # fmt: skip
        env.reset(seed=0, options={"deal": {"hands": None}})
    with pytest.raises(DealError, match=r"^options\['deal'\]: station must be a double \[s, s\] of integers, got 9$"):
        env.reset(seed=0, options={"deal": {"hands": HANDS, "station": 9}})
    with pytest.raises(DealError, match=r"^options\['deal'\]: deal\['boneyard'\] must be a list of \[a, b\] tiles, got 7$"):
        line_v0.raw_env(preset="draw").reset(seed=0, options={"deal": {"hands": [[[6, 6]], [[2, 2]]], "boneyard": 7}})
