"""``station_source="highest_held"`` with a given deal that names no station follows the rule
(docs/rules.md §1.1, §1.7; seed 003 "the first player opens the station with his highest double";
issue 12 item 4): the holder of the round's double, else of the highest lower double held, places
it as the station and moves first, exactly as in a dealt round."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env import DealError
from domino_env.core.config import from_preset
from domino_env.core.mexican_train import MexicanTrainState
from domino_env.envs.mexican_train_v0 import raw_env


def held_env(**kwargs):
    return raw_env(num_players=3, max_pip=12, station_source="highest_held", **kwargs)


def test_holder_of_the_round_double_places_it_and_starts():
    """12-12 in seat 1's hand: it is the station, it leaves seat 1's hand, seat 1 starts (the
    issue: this hand was refused as '12-12 appears twice (also in station)')."""
    env = held_env()
    env.reset(seed=0, options={"deal": {"hands": [[[1, 2], [3, 4]], [[12, 12], [5, 12]], [[6, 7]]]}})
    state = env.game_state
    assert state.station == 12
    assert state.current_player == 1 and env.agent_selection == "player_1"
    assert state.hand_tiles(1) == [(5, 12)]
    assert state.deals[0]["station"] == [12, 12] and state.deals[0]["first_player"] == 1
    assert state.deals[0]["hands"][1] == [[5, 12]]


def test_highest_lower_double_serves_when_nobody_holds_the_round_double():
    """Nobody holds 12-12; seat 2 holds 11-11 and seat 0 holds 4-4: 11-11 is the station and
    seat 2 starts; 12-12 is out of play this round (and owed to a later round)."""
    env = held_env()
    env.reset(seed=0, options={"deal": {"hands": [[[4, 4], [1, 2]], [[3, 5]], [[11, 11], [6, 11]]]}})
    state = env.game_state
    assert state.station == 11
    assert state.current_player == 2
    assert state.hand_tiles(2) == [(6, 11)] and state.hand_tiles(0) == [(1, 2), (4, 4)]
    assert state.open_end(0) == 11


def test_given_deal_matches_the_dealt_rule():
    """The station and first player chosen for a given deal equal those of the same hands dealt
    by the engine: replaying a random highest_held deal with its station removed gives the same
    round."""
    config = from_preset("novelty", num_players=4, max_pip=12)
    for seed in range(20):
        dealt = MexicanTrainState.new_game(config, np.random.default_rng(seed))
        record = dealt.deals[0]
        hands = [list(h) for h in record["hands"]]
        hands[record["first_player"]].append(record["station"])  # give the double back
        given = MexicanTrainState.new_game(
            config, np.random.default_rng(0), {"hands": hands, "boneyard": record["boneyard"]}
        )
        assert given.station == dealt.station
        assert given.current_player == dealt.current_player
        assert given.deals[0] == record


def test_round_double_in_a_hand_is_accepted_not_a_duplicate():
    with pytest.raises(DealError, match=r"^options\['deal'\]: hand of seat 0: tile \[12, 12\] is round 0's station "
                       r"\(the schedule's double\): no hand or boneyard holds the station double$"):  # set_aside
        raw_env(num_players=3, max_pip=12).reset(
            seed=0, options={"deal": {"hands": [[[12, 12]], [[1, 2]], [[3, 4]]], "first_player": 0}}
        )
    held_env().reset(seed=0, options={"deal": {"hands": [[[12, 12], [0, 1]], [[1, 2]], [[3, 4]]]}})


@pytest.mark.parametrize(
    "deal, message",
    [
        ({"hands": [[[1, 2]], [[3, 4]], [[5, 6]]]}, "no hand holds an eligible double"),
        ({"hands": [[[12, 12], [1, 2]], [[3, 4]], [[5, 6]]], "first_player": 2}, "seat 0 holds 12-12"),
        ({"hands": [[[12, 12]], [[3, 4]], [[5, 6]]]}, "would be empty"),
    ],
)
def test_deals_the_rule_cannot_play_are_refused(deal, message):
    env = held_env()
    with pytest.raises(DealError, match=message):
        env.reset(seed=0, options={"deal": deal})
    assert env.game_state is None  # a failed reset changes nothing


def test_given_station_still_wins_and_is_remembered():
    """A deal with "station" keeps it (records replay that way); the double counts as used, so a
    later dealt round picks the next double down, as after a dealt round."""
    env = held_env(episode="game", first_turn="any")
    env.reset(seed=5, options={"deal": {"hands": [[[1, 2]], [[3, 4]], [[5, 6]]], "station": [12, 12], "first_player": 0}})
    assert env.game_state.station == 12
    assert 12 in env.game_state._used_stations


def test_a_next_deal_refused_after_the_rule_chose_its_station_leaves_that_station_unused():
    """highest_held marks the double it picks as used before it finds the holder's hand empty
    without it: start_next_round must undo that too, or the next good deal skips the double
    (here 11-11, round 1's own) as if it had been played."""
    env = raw_env(episode="game", station_source="highest_held")
    env.reset(seed=4)
    state = env.game_state
    rng = np.random.default_rng(1)
    while not state.round_over:
        state.apply(int(rng.choice(state.legal_actions())))
    assert state.station == 12 and state._used_stations == {12}
    with pytest.raises(DealError, match="is only its 11-11, the station"):
        state.start_next_round(None, {"hands": [[[11, 11]], [[1, 2]], [[1, 3]], [[1, 4]]]})
    assert state._used_stations == {12} and state.round_index == 0 and len(state.deals) == 1
    state.start_next_round(np.random.default_rng(2))
    assert state.station == 11 and state.round_index == 1
