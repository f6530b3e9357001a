"""Hand-built scenario tests for Mexican Train set-up and validation: the first player and hand
sizes (docs/rules.md §1.1), config and deal validation, illegal actions, written from the rules.

Source of truth, contract and notation: the docstring of ``mexican_train_slot_helpers``.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from mexican_train_rules_helpers import (
    draw_action,
    hand,
    legal,
    pass_action,
    tile_count,
    tile_index,
)
from mexican_train_slot_helpers import act, action, deal, decode, legal_moves, start, state, train

from domino_env.core.errors import ConfigError, DealError, IllegalActionError
from domino_env.envs.mexican_train_v0 import env as wrapped_env
from domino_env.envs.mexican_train_v0 import raw_env

# ---------------------------------------------------------------------------
# 1.1 setup: first player, hand sizes
# ---------------------------------------------------------------------------


def test_first_player_config_fixes_first_seat():
    """docs/rules.md §1.1: first_player fixes the first seat of the game."""
    for seed in range(5):
        e = raw_env(first_player=2)
        e.reset(seed=seed)
        assert e.agent_selection == "player_2"
        assert state(e).current_player == 2


def test_first_player_random_from_seed():
    """docs/rules.md §1.1: without first_player the first seat is drawn from the seeded RNG:
    different seeds give different first players (>= 2 distinct over 20 seeds), and the
    same seed gives the same one."""
    firsts = []
    for seed in range(20):
        e = raw_env()
        e.reset(seed=seed)
        firsts.append(e.agent_selection)
        e2 = raw_env()
        e2.reset(seed=seed)
        assert e2.agent_selection == e.agent_selection
        assert [hand(e2, s) for s in range(4)] == [hand(e, s) for s in range(4)]
    assert len(set(firsts)) >= 2


def test_a_deal_without_first_player_takes_the_seeded_first_seat():
    """docs/rules.md §1.1: a given deal that names no first player (and no first_player in the
    config) starts with the seat drawn from the seeded RNG, the same seat as a seeded reset
    without a deal (the generator's first draw after the reset)."""
    firsts = []
    for seed in range(12):
        options = deal([[(9, 1)], [(9, 2)], [(9, 3)], [(9, 4)]], boneyard=[(0, 0)])
        del options["deal"]["first_player"]
        e = raw_env(max_pip=9)
        e.reset(seed=seed, options=options)
        plain = raw_env(max_pip=9)
        plain.reset(seed=seed)
        assert e.agent_selection == plain.agent_selection
        assert state(e).round_first_player == state(e).current_player
        firsts.append(state(e).current_player)
    assert len(set(firsts)) >= 2


def _check_seeded_deal(e, p, hand_size, boneyard):
    st = state(e)
    n = st.config.max_pip
    hands = [hand(e, s) for s in range(p)]
    assert [len(h) for h in hands] == [hand_size] * p
    assert st.boneyard_size == boneyard
    assert st.station == n
    tiles = [t for h in hands for t in h]
    assert len(set(tiles)) == len(tiles)
    assert (n, n) not in tiles
    assert all(0 <= a <= b <= n for a, b in tiles)


@pytest.mark.parametrize(
    "preset,max_pip,players,hand_size",
    [
        ("domino_cubano", 12, 4, 20),
        ("tren_mexicano", 12, 2, 15),
        ("tren_mexicano", 12, 5, 12),
        ("tren_mexicano", 12, 7, 11),
        ("tren_mexicano", 9, 4, 9),
        ("tren_mexicano", 9, 8, 6),
        ("tren_mexicano", 15, 7, 13),
    ],
)
def test_hand_sizes_from_seeded_reset(preset, max_pip, players, hand_size):
    """docs/rules.md §1.1 hand sizes: domino_cubano floor((tiles-1-2P)/P) (double-12, 4 players: 20,
    boneyard 10); tren_mexicano uses the table; the station double is set aside."""
    e = raw_env(preset=preset, num_players=players, max_pip=max_pip)
    e.reset(seed=3)
    t = tile_count(max_pip)
    _check_seeded_deal(e, players, hand_size, t - 1 - players * hand_size)
    if preset == "domino_cubano":
        assert state(e).boneyard_size == 10


def test_novelty_hand_sizes_and_highest_held_station():
    """docs/rules.md §1.1 table (novelty, double-12, 4 players: 15) + 1.7 highest_held: the
    holder of the station double places it (one tile fewer) and moves first; no higher
    double is held by anybody."""
    for seed in range(5):
        e = raw_env(preset="novelty", num_players=4, max_pip=12)
        e.reset(seed=seed)
        st = state(e)
        sizes = [len(hand(e, s)) for s in range(4)]
        assert sorted(sizes) == [14, 15, 15, 15], sizes
        assert st.boneyard_size == 91 - 60
        holder = sizes.index(14)
        assert st.current_player == holder
        held = [t for s in range(4) for t in hand(e, s)]
        assert all((d, d) not in held for d in range(st.station, 13))


def test_hand_size_override():
    """docs/rules.md §1.1: hand_size overrides any rule (also a preset's table)."""
    e = raw_env(num_players=3, max_pip=9, hand_size=5)
    e.reset(seed=0)
    _check_seeded_deal(e, 3, 5, 55 - 1 - 15)
    e = raw_env(preset="tren_mexicano", num_players=2, max_pip=9, hand_size=4)
    e.reset(seed=0)
    _check_seeded_deal(e, 2, 4, 55 - 1 - 8)


@pytest.mark.parametrize("max_pip,players,each", [(12, 4, 22), (9, 4, 13), (12, 7, 12)])
def test_no_boneyard_equal_hands(max_pip, players, each):
    """docs/rules.md §1.7 use_boneyard=False: as many tiles each as allows an equal deal
    (floor((T-1)/P)); leftovers are never drawable (DRAW not legal at the start)."""
    e = raw_env(num_players=players, max_pip=max_pip, use_boneyard=False)
    e.reset(seed=0)
    assert [len(hand(e, s)) for s in range(players)] == [each] * players
    assert "DRAW" not in legal_moves(e)


def _mask(tiles, n):
    return sum(1 << tile_index(*t, n) for t in tiles)


@pytest.mark.parametrize("use_boneyard", [True, False])
def test_an_explicit_deal_puts_every_undealt_tile_but_the_station_out_of_play(use_boneyard):
    """docs/rules.md §1.1 + §1.7: the tiles of a given deal that are in no hand, not in its
    boneyard and not the station double are out of play (hidden, never drawn): exactly the set's
    other tiles, the station not among them. Kills: mutants of the given deal's out-of-play mask
    in _start_round (``(1 << T) - 1``, the station bit, ``out &= ~h``, the boneyard loop) and
    of the placed mask's and the lack sets' resets (``self.placed = 0``, ``self.missing``)."""
    hands = [[(1, 2), (3, 9)], [(4, 5)], [(6, 7), (0, 0)]]
    boneyard = [(0, 8), (5, 5)] if use_boneyard else []
    e = start(hands, boneyard, station=9, use_boneyard=use_boneyard)
    st = state(e)
    dealt = _mask([t for h in hands for t in h] + boneyard + [(9, 9)], 9)
    assert st.out_of_play == ((1 << 55) - 1) & ~dealt
    assert st.out_of_play.bit_count() == 55 - 5 - len(boneyard) - 1
    assert st.boneyard_size == len(boneyard)
    assert st.placed == 0  # nothing placed yet (the station is not a placed tile; 0-0 is in a hand)
    assert [st.missing_pips(s) for s in range(3)] == [[], [], []]  # nobody is known to lack a pip yet


def test_a_deal_without_a_boneyard_rule_must_give_no_boneyard():
    """docs/rules.md §1.7 use_boneyard=False: nothing is ever drawn, so a given deal's boneyard must
    be empty (its tiles are named by leaving them out: they are out of play). Kills: mutants of the
    ``boneyard and not cfg.use_boneyard`` check of _parse_deal."""
    e = raw_env(num_players=2, max_pip=9, use_boneyard=False)
    with pytest.raises(DealError, match=r"^options\['deal'\]: use_boneyard=False: the deal's boneyard must be empty$"):
        e.reset(seed=0, options=deal([[(1, 2)], [(3, 4)]], boneyard=[(0, 8)]))
    e.reset(seed=0, options=deal([[(1, 2)], [(3, 4)]]))
    assert state(e).boneyard_size == 0 and state(e).out_of_play.bit_count() == 55 - 3


def test_an_explicit_highest_held_deal_keeps_the_held_station_out_of_out_of_play():
    """docs/rules.md §1.7 highest_held: the double the rule takes from a hand as the station is on
    the table, not out of play; every tile of no hand and not in the boneyard is."""
    hands = [[(1, 2), (9, 9)], [(4, 5)], [(6, 7)]]
    e = raw_env(num_players=3, max_pip=9, station_source="highest_held")
    e.reset(seed=0, options={"deal": {"hands": [[list(t) for t in h] for h in hands], "boneyard": [[0, 8]]}})
    st = state(e)
    assert st.station == 9 and st.current_player == 0 and hand(e, 0) == [(1, 2)]
    assert st.out_of_play == ((1 << 55) - 1) & ~_mask([t for h in hands for t in h] + [(0, 8)], 9)


# ---------------------------------------------------------------------------
# Config and deal validation
# ---------------------------------------------------------------------------


def _build(**kw):
    e = raw_env(**kw)
    e.reset(seed=0)
    return e


@pytest.mark.parametrize(
    "kwargs,names",
    [
        (dict(num_players=1), ["num_players"]),
        (dict(num_players=9), ["num_players"]),
        (dict(max_pip=7), ["max_pip"]),
        (dict(doubles="bogus"), ["doubles", "bogus"]),
        (dict(preset="bogus"), ["preset", "bogus"]),
        (dict(first_turn="bogus"), ["first_turn"]),
        (dict(drawn_tile="bogus"), ["drawn_tile"]),
        (dict(marker_removal="bogus"), ["marker_removal"]),
        (dict(blocked_round="bogus"), ["blocked_round"]),
        (dict(game_end="bogus"), ["game_end"]),
        (dict(station_source="bogus"), ["station_source"]),
        (dict(episode="bogus"), ["episode"]),
        (dict(reward="bogus"), ["reward"]),
        # 4 x 14 + 1 = 57 > 55 tiles (RULES 1.1: the error names the numbers)
        (dict(max_pip=9, num_players=4, hand_size=14), ["14", "55"]),
    ],
)
def test_bad_config_raises_config_error_naming_field(kwargs, names):
    """docs/rules.md §1.1 + contract: bad values raise ConfigError (a ValueError) naming the field."""
    assert issubclass(ConfigError, ValueError)
    with pytest.raises(ConfigError) as info:
        _build(**kwargs)
    msg = str(info.value)
    for name in names:
        assert name in msg, msg


def test_unknown_kwarg_raises():
    """Contract: constructor kwargs are a fixed list; an unknown one is refused."""
    with pytest.raises((TypeError, ConfigError)):
        _build(bogus_field=1)


VALID_HANDS = [[(1, 2), (3, 9)], [(4, 5)], [(6, 7)]]


@pytest.mark.parametrize(
    "hands,boneyard,first",
    [
        ([[(1, 2), (3, 9)], [(1, 2)], [(6, 7)]], [], 0),  # duplicate across hands
        (VALID_HANDS, [(4, 5)], 0),  # duplicate hand / boneyard
        (VALID_HANDS, [(0, 8), (0, 8)], 0),  # duplicate inside the boneyard
        ([[(1, 2), (3, 10)], [(4, 5)], [(6, 7)]], [], 0),  # (3,10) outside double-9
        ([[(1, 2), (3, 9)], [(9, 9)], [(6, 7)]], [], 0),  # a hand holds the station
        ([[(1, 2), (3, 9)], [(4, 5)]], [], 0),  # 2 hands for 3 players
        (VALID_HANDS, [], 3),  # bad first_player
    ],
)
def test_invalid_deal_raises_deal_error(hands, boneyard, first):
    """Contract (Starting from a given position): invalid deals raise DealError (a ValueError)."""
    assert issubclass(DealError, ValueError)
    e = raw_env(num_players=3, max_pip=9)
    e.reset(seed=0, options=deal(VALID_HANDS, [(0, 8)]))  # the valid base deal works
    with pytest.raises(DealError):
        e.reset(seed=0, options=deal(hands, boneyard, first=first))


def test_a_deal_may_give_numpy_arrays_and_its_messages_say_what_is_wrong():
    """Hands, tiles, the boneyard and the station may be numpy arrays (they were refused, with a
    hint to call tolist()); the record keeps plain lists. A wrong count or type is named, and a
    station of non-integers is refused (9.5 was read as 9, "9" as 9)."""
    e = raw_env(num_players=2, max_pip=9)
    hands = [[[1, 2], [3, 9]], [[4, 5], [6, 7]]]
    options = {"deal": {"hands": np.array(hands), "boneyard": np.array([[0, 8]]), "station": np.array([9, 9]),
                        "first_player": np.int64(0)}}  # fmt: skip
    e.reset(seed=0, options=options)
    assert hand(e, 0) == [(1, 2), (3, 9)] and hand(e, 1) == [(4, 5), (6, 7)]
    assert json.dumps(e.to_record()["deals"]) == json.dumps([{"hands": hands, "boneyard": [[0, 8]], "station": [9, 9],
                                                             "first_player": 0}])  # fmt: skip
    e.reset(seed=0, options={"deal": {**options["deal"], "hands": [np.array(h) for h in hands]}})  # one array a hand
    assert hand(e, 1) == [(4, 5), (6, 7)]
    with pytest.raises(DealError, match=r"must list one hand per seat \(2 seats\), got 1$"):
        e.reset(seed=0, options={"deal": {**options["deal"], "hands": hands[:1]}})
    with pytest.raises(DealError, match=r"must be a list with one list of \[a, b\] tiles per seat \(2 seats\), got str"):
        e.reset(seed=0, options={"deal": {**options["deal"], "hands": "12"}})
    with pytest.raises(DealError, match=r"a tile must be a pair of integers \[a, b\], got \[1.0, 2.0\]"):
        e.reset(seed=0, options={"deal": {**options["deal"], "hands": np.array(hands, dtype=float)}})
    for station in ([9.5, 9.5], ["9", "9"], [9, 9, 9], 9, np.array([9.0, 9.0])):
        with pytest.raises(DealError, match=r"station must be a double \[s, s\] of integers, got"):
            e.reset(seed=0, options={"deal": {**options["deal"], "station": station}})


def test_a_hand_or_boneyard_that_is_not_a_list_is_refused_by_name():
    """A deal's hand given as a number or None, or its boneyard as a number, is a DealError
    naming it, not a TypeError from iterating it (a boneyard None is an empty one, as when left
    out: tests/envs/test_deal_none_keys.py). Kills: deleting the list checks of TileReader.hand
    and TileReader.boneyard (core/deal.py)."""
    e = raw_env(num_players=2, max_pip=9)
    base = {"hands": [[[1, 2], [3, 9]], [[4, 5], [6, 7]]], "boneyard": [[0, 8]], "station": [9, 9]}
    for bad in (7, None):
        with pytest.raises(DealError, match=re.escape(f"options['deal']: hand of seat 1 must be a list of [a, b] tiles, got {bad}") + "$"):
            e.reset(seed=0, options={"deal": {**base, "hands": [base["hands"][0], bad]}})
    for bad in (7, "88"):
        with pytest.raises(DealError, match=re.escape(f"options['deal']: deal['boneyard'] must be a list of [a, b] tiles, got {bad!r}") + "$"):
            e.reset(seed=0, options={"deal": {**base, "boneyard": bad}})
    e.reset(seed=0, options={"deal": base})  # the same deal with lists is valid
    assert hand(e, 1) == [(4, 5), (6, 7)] and state(e).deals[0]["boneyard"] == [[0, 8]]


def test_a_deal_tile_with_a_pip_below_0_or_above_the_set_is_refused_naming_where_it_is():
    """A tile [-1, 3] or [3, -1] (or one past the double-9 set) in a hand or the boneyard is a
    DealError naming its place. Kills: ``0 <= a`` / ``0 <= b`` read as ``-1 <= ...`` in
    TileReader.tile (then tile_index's DominoError, naming no hand, came out)."""
    e = raw_env(num_players=2, max_pip=9)
    base = {"hands": [[[1, 2], [3, 9]], [[4, 5], [6, 7]]], "boneyard": [[0, 8]], "station": [9, 9]}
    for bad in ([-1, 3], [3, -1], [10, 3], [3, 10]):
        message = f"tile {bad} is not in the double-9 set"
        with pytest.raises(DealError, match=re.escape(f"options['deal']: hand of seat 1: {message}") + "$"):
            e.reset(seed=0, options={"deal": {**base, "hands": [base["hands"][0], [[4, 5], bad]]}})
        with pytest.raises(DealError, match=re.escape(f"options['deal']: boneyard: {message}") + "$"):
            e.reset(seed=0, options={"deal": {**base, "boneyard": [[0, 8], bad]}})


def test_a_deal_may_give_any_double_of_the_set_as_its_station_and_no_other_tile():
    """docs/rules.md §1.1 + contract (Starting from a given position): a given deal's "station" is
    any double s-s of the set, 0-0 and N-N included; anything else is refused by name. Kills:
    mutants of ``a != b or not 0 <= a <= n`` in _parse_deal."""
    hands = [[(1, 2)], [(3, 4)]]
    for s in (0, 9):
        e = start(hands, station=s)
        assert state(e).station == s and state(e).ends == [s, s, s]
        assert state(e).deals[0]["station"] == [s, s]
    e = raw_env(num_players=2, max_pip=9)
    for station in ([10, 10], [-1, -1], [3, 4]):
        message = f"options['deal']: station must be a double [s, s] with 0 <= s <= 9, got {station}"
        with pytest.raises(DealError, match=f"^{re.escape(message)}$"):
            e.reset(seed=0, options={"deal": {**deal(hands)["deal"], "station": station}})


# ---------------------------------------------------------------------------
# Illegal actions
# ---------------------------------------------------------------------------


def test_illegal_action_raw_env_raises_and_leaves_state_unchanged():
    """DESIGN 3 / contract: raw_env raises IllegalActionError (a ValueError) on an unmasked
    action and leaves the state unchanged; the legal action still works afterwards."""
    assert issubclass(IllegalActionError, ValueError)
    e = start([[(4, 9), (1, 2)], [(8, 9), (0, 1)]], [(5, 6)])
    before = (e.agent_selection, legal(e), hand(e, 0), state(e).boneyard_size, train(e, 0))
    bad = [
        draw_action(e),
        pass_action(e),
        action(e, (4, 9), 2),  # Mexican train on the first turn (own_train default)
        action(e, (4, 9), 1),  # seat 1's private train
        action(e, (1, 2), 0),  # does not match the station
        action(e, (5, 9), 0),  # not in hand
    ]
    for a in bad:
        with pytest.raises(IllegalActionError):
            e.step(a)
        after = (e.agent_selection, legal(e), hand(e, 0), state(e).boneyard_size, train(e, 0))
        assert after == before, decode(e, a)
    act(e, (4, 9), 0)
    assert train(e, 0) == [(9, 4)]
    assert e.agent_selection == "player_1"


def test_illegal_action_wrapped_env_terminates_with_penalty():
    """DESIGN 3: env() handles an unmasked action like TerminateIllegalWrapper: the episode
    ends (every agent terminated or truncated) and the offender gets a negative reward."""
    e = wrapped_env(num_players=2, max_pip=9)
    e.reset(seed=0, options=deal([[(4, 9), (1, 2)], [(8, 9), (0, 1)]], [(5, 6)]))
    assert e.agent_selection == "player_0"
    assert pass_action(e) not in legal(e)
    e.step(pass_action(e))
    raw = e.unwrapped
    assert all(
        raw.terminations.get(a, False) or raw.truncations.get(a, False) for a in raw.possible_agents
    )
    assert raw._cumulative_rewards["player_0"] < 0 or raw.rewards["player_0"] < 0
