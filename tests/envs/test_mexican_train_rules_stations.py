"""Hand-built scenario tests for Mexican Train stations: the station double set aside
(docs/rules.md §1.1) or the highest double held (docs/rules.md §1.7).

Source of truth, contract and notation: the docstring of ``mexican_train_seat_helpers``.
"""

from __future__ import annotations

import numpy as np
import pytest
from mexican_train_rules_helpers import canon, legal, tile_count
from mexican_train_seat_helpers import st

from domino_env.envs.mexican_train_v0 import raw_env

# --------------------------------------------------------------------------------------------
# Station source
# --------------------------------------------------------------------------------------------


def _all_hands(state):
    return [[canon(t) for t in state.hand_tiles(s)] for s in range(state.num_players)]


@pytest.mark.parametrize("max_pip,players", [(12, 4), (9, 3), (15, 6)])
def test_set_aside_station_is_in_no_hand_nor_boneyard(max_pip, players):
    """docs/rules.md §1.1 (station_source="set_aside", default): round 0's station is N-N, taken out
    of the set before the deal: it is in no hand, and hands + boneyard == tiles - 1. Hand size
    (domino_cubano) = floor((tiles - 1 - 2P) / P)."""
    total = tile_count(max_pip)
    hand_size = (total - 1 - 2 * players) // players
    for seed in range(5):
        env = raw_env(num_players=players, max_pip=max_pip)
        env.reset(seed=seed)
        state = st(env)
        assert state.config.station_source == "set_aside"
        assert state.station == max_pip
        hands = _all_hands(state)
        assert all((max_pip, max_pip) not in h for h in hands)
        assert [len(h) for h in hands] == [hand_size] * players
        assert sum(len(h) for h in hands) + state.boneyard_size == total - 1
        assert len({t for h in hands for t in h}) == sum(len(h) for h in hands)


def test_highest_held_station_is_the_highest_double_held_and_its_holder_starts():
    """docs/rules.md §1.7 (station_source="highest_held"; contract 11): no double is set aside; after
    the deal the holder of the round's double (12-12 in round 0) places it as the station and
    moves first; if nobody holds it the highest lower double held serves. Checked over seeds:
    no hand holds a double above the station nor the station tile, the first player is the only
    seat with one tile fewer, and hands + boneyard == tiles - 1."""
    seen = set()
    for seed in range(40):
        env = raw_env(num_players=4, max_pip=12, hand_size=8, station_source="highest_held")
        env.reset(seed=seed)
        state = st(env)
        s = state.station
        seen.add(s)
        hands = _all_hands(state)
        held_doubles = {t[0] for h in hands for t in h if t[0] == t[1]}
        assert (s, s) not in {t for h in hands for t in h}
        assert all(d < s for d in held_doubles), (seed, s, held_doubles)
        sizes = [len(h) for h in hands]
        assert sorted(sizes) == [7, 8, 8, 8], (seed, sizes)
        holder = sizes.index(7)
        assert state.current_player == holder
        assert env.agent_selection == f"player_{holder}"
        assert sum(sizes) + state.boneyard_size == tile_count(12) - 1
    # 32 of 91 tiles dealt: 12-12 is held in about a third of the deals
    assert 12 in seen, seen
    assert any(s < 12 for s in seen), seen


@pytest.mark.parametrize("first_player", [0, 3])
def test_highest_held_holder_moves_first_whatever_first_player(first_player):
    """Contract 11 / docs/rules.md §1.7: with highest_held the holder of the station double always
    moves first, even when first_player names another seat."""
    holders = set()
    for seed in range(12):
        env = raw_env(
            num_players=4,
            max_pip=12,
            hand_size=10,
            station_source="highest_held",
            first_player=first_player,
        )
        env.reset(seed=seed)
        state = st(env)
        sizes = [len(state.hand_tiles(s)) for s in range(4)]
        assert sorted(sizes) == [9, 10, 10, 10]
        holders.add(sizes.index(9))
        assert state.current_player == sizes.index(9)
    assert holders != {first_player}


def test_highest_held_skipped_double_is_used_when_next_held():
    """docs/rules.md §1.7 (highest_held), best effort with seeded deals in episode="game": when round
    0 skipped 12-12 (nobody held it), at the start of round 1 no hand may hold 12-12 (if dealt, it
    must be the station), and some seed shows it actually used as round 1's station."""
    rng = np.random.default_rng(1234)
    used_later = 0
    checked = 0
    for seed in range(60):
        env = raw_env(
            num_players=4,
            max_pip=12,
            hand_size=8,
            station_source="highest_held",
            episode="game",
            first_turn="any",
        )
        env.reset(seed=seed)
        state = st(env)
        if state.station == 12:
            continue
        station0 = state.station
        steps = 0
        while state.round_index == 0 and not any(env.terminations.values()):
            env.step(int(rng.choice(legal(env))))
            state = st(env)
            steps += 1
            assert steps < 10_000
        if state.round_index != 1:
            continue
        checked += 1
        hands = _all_hands(state)
        assert (12, 12) not in {t for h in hands for t in h}, (seed, station0, state.station)
        if state.station == 12:
            used_later += 1
            sizes = [len(h) for h in hands]
            assert state.current_player == sizes.index(min(sizes))
        if used_later >= 2:
            break
    assert checked > 0
    assert used_later > 0


def test_highest_held_round_one_uses_highest_held_double_below_used_one():
    """docs/rules.md §1.1 (station of round r = double N - r) + 1.7 highest_held, episode="game": when
    round 0 used 12-12, round 1's station is the highest double held among 11-11 and below (a
    held 12-12 is no longer eligible), and its holder moves first."""
    rng = np.random.default_rng(99)
    checked = 0
    for seed in range(30):
        env = raw_env(
            num_players=4,
            max_pip=12,
            hand_size=8,
            station_source="highest_held",
            episode="game",
            first_turn="any",
        )
        env.reset(seed=seed)
        state = st(env)
        if state.station != 12:
            continue
        steps = 0
        while state.round_index == 0 and not any(env.terminations.values()):
            env.step(int(rng.choice(legal(env))))
            state = st(env)
            steps += 1
            assert steps < 10_000
        if state.round_index != 1:
            continue
        checked += 1
        s = state.station
        hands = _all_hands(state)
        held = {t[0] for h in hands for t in h if t[0] == t[1]}
        assert s <= 11, (seed, s)
        assert not any(s < d <= 11 for d in held), (seed, s, held)
        sizes = [len(h) for h in hands]
        assert sorted(sizes) == [7, 8, 8, 8]
        assert state.current_player == sizes.index(7)
        if checked >= 5:
            break
    assert checked > 0
