"""Hand-built tests of how a Mexican Train round starts (docs/rules.md §1.1, §1.6, §1.7): the deals
given for later rounds (knocked-out seats, refused deals that change nothing) and the
``station_source="highest_held"`` station: the pass over the doubles N..0, the doubles owed by
earlier rounds, the lower doubles down to 0-0. Written from the rules; each test names the mutants
of ``core/mexican_train_rounds.py`` it was written to kill.

Source of truth, contract and notation: the docstring of ``mexican_train_slot_helpers``.
"""

from __future__ import annotations

import numpy as np
import pytest
from mexican_train_slot_helpers import start, state

from domino_env.core.errors import DealError
from domino_env.envs.mexican_train_v0 import raw_env


def _knocked_out_seat_0():
    """Round 0 over, seat 1 went out and seat 0 is knocked out (elimination limit 1)."""
    s = state(start([[(5, 6)], [(9, 1)], [(0, 0)]], first=1, episode="game", game_end="elimination",
                    elimination_limit=1))  # fmt: skip
    s.apply(s.legal_actions()[0])  # seat 1 places 9-1 on its own train: its hand is empty
    assert s.round_over and s.active == [False, True, True] and not s.game_over
    return s


def test_a_next_deal_naming_a_knocked_out_first_player_is_refused_and_changes_nothing():
    """docs/rules.md §1.6: a knocked-out seat never acts again, so a given deal cannot name it as
    the round's first player (its empty hand alone passes the hand checks); the refused deal
    leaves the state as it was and the same call may be made again. Kills: deleting the
    ``if not self.active[first]`` check of _start_round."""
    s = _knocked_out_seat_0()
    deal = {"hands": [[], [[1, 2]], [[3, 4]]], "boneyard": [], "station": [8, 8], "first_player": 0}
    with pytest.raises(DealError, match=r"^first player 0 has been eliminated$"):
        s.start_next_round(None, deal)
    assert s.round_index == 0 and s.round_over and len(s.deals) == 1 and s.station == 9
    s.start_next_round(None, {**deal, "first_player": 2})
    assert s.round_index == 1 and s.station == 8 and s.current_player == 2


def test_a_next_deal_must_deal_every_seat_still_in_and_no_knocked_out_seat():
    """docs/rules.md §1.6: a knocked-out seat is dealt nothing and every seat still in needs a tile;
    a given deal that breaks either is refused by name, the state unchanged. Kills: mutants of the
    per-seat hand checks of _parse_deal (deleting the loop, ``and`` -> ``or``, the ``not``)."""
    s = _knocked_out_seat_0()
    base = {"hands": [[], [[1, 2]], [[3, 4]]], "boneyard": [], "station": [8, 8], "first_player": 1}
    refused = [
        ({"hands": [[[5, 6]], [[1, 2]], [[3, 4]]]}, "seat 0 has been eliminated and cannot be dealt tiles"),
        ({"hands": [[], [], [[3, 4]]]}, "hand of seat 1 is empty: every seat in the game needs a tile"),
        ({"hands": [[], [[1, 2]], []]}, "hand of seat 2 is empty: every seat in the game needs a tile"),
    ]
    for change, message in refused:
        with pytest.raises(DealError) as info:
            s.start_next_round(None, {**base, **change})
        assert str(info.value) == message
        assert s.round_index == 0 and len(s.deals) == 1
    e = raw_env(num_players=2, max_pip=9)  # round 0: every seat is in
    with pytest.raises(DealError, match=r"hand of seat 0 is empty: every seat in the game needs a tile$"):
        e.reset(seed=0, options={"deal": {"hands": [[], [[1, 2]]], "first_player": 1}})
    s.start_next_round(None, base)
    assert s.round_index == 1 and [s.hand_size(k) for k in range(3)] == [0, 1, 1]



def test_the_next_round_is_refused_while_a_round_is_played_and_once_the_game_is_over():
    """The engine deals the next round only between rounds of a game that goes on: in the middle of
    a round, or after the game's last round (here the only other seat is knocked out), the call
    is refused by name and changes nothing. Kills: deleting either check of start_next_round."""
    s = state(start([[(9, 1), (1, 2)], [(2, 3)], [(4, 5)]], episode="game"))
    s.apply(s.legal_actions()[0])
    before = (s.round_index, list(s.hands), s.current_player, len(s.deals))
    with pytest.raises(DealError, match=r"^the current round is still being played$"):
        s.start_next_round(np.random.default_rng(0))
    assert (s.round_index, list(s.hands), s.current_player, len(s.deals)) == before
    s = state(start([[(5, 6)], [(9, 1)]], first=1, episode="game", game_end="elimination", elimination_limit=1))
    s.apply(s.legal_actions()[0])  # seat 1 goes out, seat 0 (11 pips) is knocked out: seat 1 wins
    assert s.round_over and s.game_over and s.game_winners == (1,)
    with pytest.raises(DealError, match=r"^the game is over$"):
        s.start_next_round(np.random.default_rng(0))
    assert s.round_index == 0 and len(s.deals) == 1 and s.round_over


def _held_game():
    """A 2-seat double-9 highest_held game (elimination: it may go past round N) on round 0's deal,
    seat 0 holding only ``(station, 1)``."""
    return state(start([[(9, 1)], [(2, 3)]], station=9, first=0, station_source="highest_held", episode="game",
                       game_end="elimination", elimination_limit=10_000))  # fmt: skip


def _go_out(s):
    """The seat to move places its only tile and goes out."""
    seat = s.current_player
    s.apply(s.legal_actions()[0])
    assert s.round_over and s.round_result.winners == (seat,)


def test_highest_held_forgets_its_used_stations_when_the_pass_over_n_to_0_starts_again():
    """docs/rules.md §1.6 + §1.7: the stations run N..0 and then again from N; with highest_held a
    double used as station is not eligible again in the same pass, but is once the next pass
    starts (round N + 1). Rounds 0..9 here use every double 9..0 (given stations); round 10's deal
    names no station, so the rule picks the held 9-9 again, and round 11's the held 8-8 (9-9 used
    in this pass). Kills: deleting or mis-timing ``self._used_stations = set()`` in
    _new_station_cycle (round 10 found no eligible double)."""
    s = _held_game()
    for r in range(1, 10):
        _go_out(s)
        s.start_next_round(None, {"hands": [[[9 - r, 9 if r != 9 else 1]], [[2, 3] if r not in (6, 7) else [4, 5]]],
                                  "station": [9 - r, 9 - r], "first_player": 0})  # fmt: skip
        assert s.round_index == r and s.station == 9 - r and s._used_stations == set(range(9 - r, 10))
    _go_out(s)
    s.start_next_round(None, {"hands": [[[9, 9], [9, 1]], [[2, 3]]]})  # round 10: no station given
    assert s.round_index == 10 and s.station == 9 and s.current_player == 0 and s._used_stations == {9}
    _go_out(s)
    s.start_next_round(None, {"hands": [[[8, 8], [8, 2]], [[9, 9], [3, 4]]]})  # round 11
    assert s.station == 8 and s.current_player == 0 and s._used_stations == {9, 8}


def test_highest_held_takes_the_owed_doubles_first_highest_first_then_the_lower_ones():
    """docs/rules.md §1.7 highest_held: the round's double if held, else the highest lower one held;
    a double skipped in an earlier round (unused and above the round's scheduled double) comes
    first. Round 0 used 7-7 (given), skipping 9-9 and 8-8. Round 1 (scheduled 8-8): 9-9 and 8-8
    are both held, the owed 9-9 wins. Round 2 (scheduled 7-7, used): 8-8, still owed, wins over
    the held 6-6. Round 3 (scheduled 6-6, held by nobody): the highest lower double held, 5-5,
    not 3-3. Kills: mutants of the owed / lower ranges and their filters in _choose_held_station."""
    s = state(start([[(7, 1)], [(2, 3)]], station=7, first=0, station_source="highest_held", episode="game",
                    game_end="elimination", elimination_limit=10_000))  # fmt: skip
    rounds = [
        ([[[8, 8], [6, 6], [8, 1]], [[9, 9], [9, 2]]], 9, 1, {7, 9}),
        ([[[6, 6], [6, 1]], [[8, 8], [8, 3]]], 8, 1, {7, 9, 8}),
        ([[[3, 3], [3, 1]], [[5, 5], [5, 2]]], 5, 1, {7, 9, 8, 5}),
    ]
    for hands, station, first, used in rounds:
        _go_out(s)
        s.start_next_round(None, {"hands": hands})
        assert (s.station, s.current_player, s._used_stations) == (station, first, used)
        assert s.deals[-1]["station"] == [station, station] and s.deals[-1]["first_player"] == first


def test_highest_held_goes_down_every_lower_double_to_0_0():
    """docs/rules.md §1.7 highest_held: when the round's double is held by nobody, the highest lower
    double held is the station, however low: round 0 (scheduled 9-9) with only 7-7 and 0-0 held
    takes 7-7 (the next lower double but one); round 1 (scheduled 8-8, 9-9 owed) with only 0-0
    held takes 0-0. Kills: mutants of ``range(scheduled - 1, -1, -1)`` in _choose_held_station
    that skip doubles or stop above 0-0."""
    e = raw_env(num_players=2, max_pip=9, station_source="highest_held", episode="game")
    e.reset(seed=0, options={"deal": {"hands": [[[7, 7], [7, 1]], [[0, 0], [2, 3]]]}})
    s = state(e)
    assert (s.station, s.current_player, s.hand_tiles(0)) == (7, 0, [(1, 7)])
    _go_out(s)
    s.start_next_round(None, {"hands": [[[4, 5]], [[0, 0], [0, 3]]]})
    assert (s.station, s.current_player, s.hand_tiles(1), s._used_stations) == (0, 1, [(0, 3)], {7, 0})


def test_a_highest_held_deal_without_an_eligible_double_names_the_eligible_ones():
    """docs/rules.md §1.7: a given deal that names no station and holds none of the doubles still
    eligible (9-9 was round 0's station; in round 0, every double) is refused, its message
    listing them, highest first. Kills: mutants of the ``eligible`` list of _held_station_of_deal."""
    e = raw_env(num_players=2, max_pip=9, station_source="highest_held")
    with pytest.raises(DealError, match=r"no hand holds an eligible double \(\[9, 8, 7, 6, 5, 4, 3, 2, 1, 0\]\); "):
        e.reset(seed=0, options={"deal": {"hands": [[[1, 2]], [[3, 4]]]}})
    s = _held_game()
    _go_out(s)
    with pytest.raises(DealError) as info:
        s.start_next_round(None, {"hands": [[[1, 2]], [[3, 4], [9, 9]]]})
    assert str(info.value) == ("station_source='highest_held' and the deal gives no station: no hand holds an eligible "
                               "double ([8, 7, 6, 5, 4, 3, 2, 1, 0]); deal one, or give 'station'")  # fmt: skip
    assert s.round_index == 0 and s._used_stations == {9}
