"""A given deal's ``first_player`` out of range is refused naming the seats the game has
(``0..P-1``), in a line game and in Mexican Train; a bool is not a seat (mutation testing found
the range in the message unchecked: ``0..P`` or ``0..P+1`` passed every test)."""

from __future__ import annotations

import re

import pytest

from domino_env.core.errors import DealError
from domino_env.envs import block_v0, mexican_train_v0

HANDS4 = [[[0, 0]], [[0, 1]], [[0, 2]], [[0, 3]]]
HANDS2 = [[[1, 2]], [[3, 4]]]


@pytest.mark.parametrize(("make", "hands", "first", "message"), [
    (block_v0.raw_env, HANDS4, 4, "first_player must be a seat 0..3, got 4"),
    (block_v0.raw_env, HANDS4, -1, "first_player must be a seat 0..3, got -1"),
    (lambda: mexican_train_v0.raw_env(num_players=2, max_pip=9), HANDS2, 2, "first_player must be a seat 0..1, got 2"),
    (lambda: mexican_train_v0.raw_env(num_players=2, max_pip=9), HANDS2, True,
     "first_player must be a seat 0..1, got True"),
])  # fmt: skip
def test_a_first_player_out_of_range_names_the_games_seats(make, hands, first, message):
    env = make()
    with pytest.raises(DealError, match="^" + re.escape(f"options['deal']: {message}") + "$"):
        env.reset(seed=0, options={"deal": {"hands": hands, "first_player": first}})


@pytest.mark.parametrize(("make", "hands", "last"), [
    (block_v0.raw_env, HANDS4, 3),
    (lambda: mexican_train_v0.raw_env(num_players=2, max_pip=9), HANDS2, 1),
])
def test_the_last_seat_may_be_named_first_player(make, hands, last):
    env = make()
    env.reset(seed=0, options={"deal": {"hands": hands, "first_player": last}})
    assert env.agent_selection == f"player_{last}"
