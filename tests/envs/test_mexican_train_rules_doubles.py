"""Hand-built scenario tests for Mexican Train doubles, stations and presets.

Written from docs/rules.md (sections 0 and 1) and the public env contract, not from
the engine's code. Tile indices and action ints are computed here from the formulas of
docs/rules.md §0 and the contract (independent of ``domino_env.core.tiles``):

* canonical order (0,0), (0,1), ..., (0,N), (1,1), ..., (N,N);
* action ``tile_index * (P + 1) + slot``, slot k = train of seat (actor + k) % P, slot P = the
  Mexican train; DRAW = T * (P + 1), PASS = T * (P + 1) + 1.

Scenario notation used in the comments: "s0 (9,3)->0" = seat 0 places tile 9-3 on the train
of seat 0; "M" = the Mexican train. All deals use the double-9 set, station 9-9, unless noted.
Tiles that appear in no hand and not in the boneyard are out of play for the round.
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.envs.infos import Termination, seats_of
from domino_env.envs.mexican_train_v0 import raw_env

M = "M"  # the Mexican train, in expected-move sets
DRAW = "DRAW"
PASS = "PASS"
MODES = ["satisfy", "double_double", "chain", "no_cover"]


# --------------------------------------------------------------------------------------------
# Independent helpers (docs/rules.md §0 + contract "Agents and actions")
# --------------------------------------------------------------------------------------------


def tile_count(n: int) -> int:
    return (n + 1) * (n + 2) // 2


def tile_index(a: int, b: int, n: int) -> int:
    a, b = min(a, b), max(a, b)
    # rows 0..a-1 hold (n+1), n, ..., (n+2-a) tiles
    return a * (n + 1) - a * (a - 1) // 2 + (b - a)


def tile_from_index(i: int, n: int) -> tuple[int, int]:
    for a in range(n + 1):
        row = n + 1 - a
        if i < row:
            return (a, a + i)
        i -= row
    raise IndexError(i)


def canon(t) -> tuple[int, int]:
    a, b = t
    return (min(a, b), max(a, b))


def test_helper_tile_index_roundtrip():
    """docs/rules.md §0: canonical order, index <-> tile both ways (checks this file's helpers)."""
    for n in (6, 9, 12, 15, 18):
        tiles = [(a, b) for a in range(n + 1) for b in range(a, n + 1)]
        assert len(tiles) == tile_count(n)
        for i, t in enumerate(tiles):
            assert tile_index(*t, n) == i
            assert tile_index(t[1], t[0], n) == i
            assert tile_from_index(i, n) == t


def st(env):
    return env.unwrapped.game_state


def geom(env) -> tuple[int, int]:
    s = st(env)
    return s.num_players, s.config.max_pip


def seat_of(env) -> int:
    agent = env.agent_selection
    assert agent.startswith("player_"), agent
    return int(agent.split("_")[1])


def train_id(env, train) -> int:
    p, _ = geom(env)
    return p if train == M else int(train)


def draw_action(env) -> int:
    p, n = geom(env)
    return tile_count(n) * (p + 1)


def pass_action(env) -> int:
    return draw_action(env) + 1


def place_action(env, tile, train=None, slot=None, seat=None) -> int:
    p, n = geom(env)
    actor = seat_of(env) if seat is None else seat
    if slot is None:
        slot = p if train == M else (int(train) - actor) % p
    return tile_index(*tile, n) * (p + 1) + slot


def decode(env, action: int, seat=None):
    p, n = geom(env)
    actor = seat_of(env) if seat is None else seat
    if action == draw_action(env):
        return DRAW
    if action == pass_action(env):
        return PASS
    idx, slot = divmod(action, p + 1)
    train = M if slot == p else (actor + slot) % p
    return (tile_from_index(idx, n), train)


def mask(env, agent=None):
    agent = env.agent_selection if agent is None else agent
    return np.asarray(env.observe(agent)["action_mask"])


def legal(env) -> list[int]:
    return sorted(int(i) for i in np.flatnonzero(mask(env)))


def moves(env) -> set:
    return {decode(env, a) for a in legal(env)}


def norm_moves(expected) -> set:
    out = set()
    for m in expected:
        if m in (DRAW, PASS):
            out.add(m)
        else:
            tile, train = m
            out.add((canon(tile), train))
    return out


def expect(env, seat: int, expected) -> None:
    """The acting seat is `seat` and its mask is exactly `expected` (moves with absolute trains)."""
    assert seat_of(env) == seat, f"acting agent {env.agent_selection}, expected player_{seat}"
    assert st(env).current_player == seat
    exp = norm_moves(expected)
    assert moves(env) == exp
    ints = []
    for m in exp:
        if m == DRAW:
            ints.append(draw_action(env))
        elif m == PASS:
            ints.append(pass_action(env))
        else:
            ints.append(place_action(env, m[0], m[1]))
    assert legal(env) == sorted(ints)


def act(env, tile, train=None, slot=None) -> None:
    a = place_action(env, tile, train=train, slot=slot)
    assert a in legal(env), (
        f"{env.agent_selection} cannot place {tile} on train {train} (slot {slot}); "
        f"legal: {sorted(moves(env), key=str)}"
    )
    env.step(a)


def draw(env) -> None:
    assert draw_action(env) in legal(env), f"DRAW not legal; legal: {sorted(moves(env), key=str)}"
    env.step(draw_action(env))


def pass_(env) -> None:
    assert pass_action(env) in legal(env), f"PASS not legal; legal: {sorted(moves(env), key=str)}"
    env.step(pass_action(env))


def make(num_players=2, max_pip=9, **kwargs):
    return raw_env(num_players=num_players, max_pip=max_pip, **kwargs)


def deal(env, hands, boneyard, station=9, first=0, seed=0):
    env.reset(
        seed=seed,
        options={
            "deal": {
                "hands": [[list(t) for t in h] for h in hands],
                "boneyard": [list(t) for t in boneyard],
                "station": [station, station],
                "first_player": first,
            }
        },
    )
    return env


def tiles(env, train) -> list[tuple[int, int]]:
    return [tuple(t) for t in st(env).train_tiles(train_id(env, train))]


def open_doubles(env) -> list[int]:
    return list(st(env).open_doubles)


def hand(env, seat) -> list[tuple[int, int]]:
    return [canon(t) for t in st(env).hand_tiles(seat)]


# --------------------------------------------------------------------------------------------
# doubles="satisfy" (default)
# --------------------------------------------------------------------------------------------


def test_satisfy_is_default_and_after_a_double_only_covers_are_legal():
    """docs/rules.md §1.4 satisfy (contract 5): after placing a double the same player acts again and
    the only legal placements cover that double: not a second double elsewhere (double_double),
    not another tile elsewhere (chain / no_cover); the cover ends the turn and the double is no
    longer open."""
    env = make(first_turn="any")
    deal(
        env,
        hands=[
            [(9, 5), (5, 7), (1, 2), (2, 3)],
            [(9, 4), (4, 4), (4, 6), (4, 8), (7, 7), (1, 7)],
        ],
        boneyard=[(0, 0), (0, 1)],
    )
    assert st(env).config.doubles == "satisfy"
    act(env, (9, 5), M)  # s0 starts the Mexican train
    act(env, (9, 4), 1)
    act(env, (5, 7), M)
    # before the double: s1 may play on its own train (end 4) or the Mexican train (end 7)
    expect(env, 1, [((4, 4), 1), ((4, 6), 1), ((4, 8), 1), ((7, 7), M), ((1, 7), M)])
    act(env, (4, 4), 1)
    # same player again; only covers of 4-4 on its own train
    expect(env, 1, [((4, 6), 1), ((4, 8), 1)])
    act(env, (4, 6), 1)
    assert seat_of(env) == 0
    assert tiles(env, 1) == [(9, 4), (4, 4), (4, 6)]
    assert st(env).open_end(1) == 6
    assert open_doubles(env) == []
    assert not st(env).has_marker(1)


def test_satisfy_cannot_cover_draws_and_must_place_a_covering_draw():
    """docs/rules.md §1.4 satisfy + 1.3.3 (contract 2, 5): a player who cannot cover their double may
    only DRAW; a drawn tile that covers must be placed there (no PASS, no other placement)."""
    env = make(first_turn="any")
    deal(
        env,
        hands=[[(9, 5), (1, 2), (2, 3)], [(5, 5), (9, 4), (3, 3), (0, 1)]],
        boneyard=[(5, 7), (1, 1), (0, 0)],
    )
    act(env, (9, 5), M)
    act(env, (5, 5), M)
    expect(env, 1, [DRAW])  # (9,4) would fit s1's own train, but the double must be covered
    draw(env)
    assert st(env).boneyard_size == 2
    expect(env, 1, [((5, 7), M)])  # must_play: no PASS
    act(env, (5, 7), M)
    assert seat_of(env) == 0
    assert tiles(env, M) == [(9, 5), (5, 5), (5, 7)]
    assert open_doubles(env) == []
    assert not st(env).has_marker(1)
    assert hand(env, 1) == [(0, 1), (3, 3), (4, 9)]


def test_satisfy_uncovered_double_stays_open_and_freezes_the_table():
    """docs/rules.md §1.4 (satisfy; open doubles): a non-covering draw leaves PASS only; the pass puts
    the marker down and the double stays open (state.open_doubles); the next player may only
    cover it, otherwise DRAW then PASS (and marks their own train), even when the drawn tile fits
    elsewhere. The owner whose marker is down who covers their own open double removes the marker
    (marker_removal="own_train_play"), and the train is private again."""
    env = make(first_turn="any")
    deal(
        env,
        hands=[[(9, 0), (0, 2), (2, 3), (6, 8)], [(9, 4), (4, 4), (1, 3), (0, 5)]],
        boneyard=[(1, 5), (2, 7), (4, 6), (8, 8)],
    )
    act(env, (9, 0), 0)
    act(env, (9, 4), 1)
    act(env, (0, 2), 0)
    act(env, (4, 4), 1)
    expect(env, 1, [DRAW])
    draw(env)  # (1,5) does not cover 4-4
    expect(env, 1, [PASS])
    pass_(env)
    assert st(env).has_marker(1)
    assert open_doubles(env) == [1]
    assert tiles(env, 1) == [(9, 4), (4, 4)]
    # s0 holds (2,3) which fits its own train (open end 2), but the table is frozen
    expect(env, 0, [DRAW])
    draw(env)  # (2,7) fits s0's own train, still not a cover
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [1]
    # s1 (marker down) still cannot cover: draws (4,6) which covers -> must place it there
    expect(env, 1, [DRAW])
    draw(env)
    expect(env, 1, [((4, 6), 1)])
    act(env, (4, 6), 1)
    assert open_doubles(env) == []
    assert tiles(env, 1) == [(9, 4), (4, 4), (4, 6)]
    assert st(env).open_end(1) == 6
    assert not st(env).has_marker(1), "covering one's own open double removes one's marker"
    assert st(env).has_marker(0)
    # s0 is free again: own train (end 2); train 1 is private again so (6,8) is not legal there
    expect(env, 0, [((2, 3), 0), ((2, 7), 0)])


def test_satisfy_next_player_may_only_cover_and_covering_changes_no_marker():
    """docs/rules.md §1.4: while an open double exists every placement by any player must cover it;
    a player who can cover may do only that (not their own train, not the Mexican train).
    Covering someone else's double changes no marker."""
    env = make(num_players=3, first_turn="any")
    deal(
        env,
        hands=[
            [(9, 5), (5, 5), (0, 1), (1, 2)],
            [(9, 4), (5, 6), (4, 8), (9, 7)],
            [(9, 3), (3, 8), (0, 0)],
        ],
        boneyard=[(2, 2), (0, 3), (1, 7)],
    )
    act(env, (9, 5), 0)
    act(env, (9, 4), 1)
    act(env, (9, 3), 2)
    act(env, (5, 5), 0)
    expect(env, 0, [DRAW])
    draw(env)  # (2,2): no cover
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [0]
    # s1 could play (4,8) on its own train and (9,7) on the Mexican train, but must cover 5-5
    expect(env, 1, [((5, 6), 0)])
    assert place_action(env, (5, 6), 0) == tile_index(5, 6, 9) * 4 + 2  # slot 2 = seat (1+2)%3
    act(env, (5, 6), 0)
    assert open_doubles(env) == []
    assert tiles(env, 0) == [(9, 5), (5, 5), (5, 6)]
    assert st(env).has_marker(0)
    assert not st(env).has_marker(1)
    assert not st(env).has_marker(2)
    # s2 plays freely again: own train end 3; Mexican end 9 (none); train 0 public end 6 (none)
    expect(env, 2, [((3, 8), 2)])


def test_first_turn_own_train_restriction_and_open_double_override_is_unreachable_in_cycle_one():
    """docs/rules.md §1.3.1 (contract 1): with first_turn="own_train" (default) a seat's first turn may
    only start its own train. (The override by an open double, 1.3.1 last sentence, cannot arise:
    during the first cycle every placement starts an own train from the station pip, so no double
    can be placed before every seat has had its first turn. This test checks the restriction
    itself and that it is gone on the second turn.)"""
    env = make(num_players=2)
    deal(
        env,
        hands=[[(9, 5), (9, 6), (5, 1)], [(9, 4), (9, 2), (4, 0)]],
        boneyard=[(0, 0), (1, 1)],
    )
    assert st(env).config.first_turn == "own_train"
    expect(env, 0, [((9, 5), 0), ((9, 6), 0)])  # not the Mexican train
    act(env, (9, 5), 0)
    expect(env, 1, [((9, 4), 1), ((9, 2), 1)])
    act(env, (9, 4), 1)
    expect(env, 0, [((9, 6), M), ((5, 1), 0)])  # second turn: Mexican train allowed
    act(env, (5, 1), 0)
    expect(env, 1, [((9, 2), M), ((4, 0), 1)])


# --------------------------------------------------------------------------------------------
# doubles="double_double"
# --------------------------------------------------------------------------------------------


def test_double_double_second_double_then_cover_either_and_private_open_double():
    """docs/rules.md §1.4 double_double (contract 6): after D1 the player may cover D1 or place a
    second double on another legal train; after D2 they must cover D1 or D2 (either). A double left
    open on the placer's private train obliges the next player, who must cover it there even
    though the train is private (1.4: "even on a private train"); covering it does not make the
    train public."""
    env = make(first_turn="any", doubles="double_double")
    deal(
        env,
        hands=[
            [(9, 3), (3, 3), (5, 5), (3, 6), (5, 7), (3, 5), (0, 1), (0, 7)],
            [(9, 5), (3, 8), (9, 2), (8, 1), (1, 7)],
        ],
        boneyard=[(0, 0), (4, 4)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)  # D1 on s0's own (private) train
    # cover D1, or a second double on another legal train; (5,7)/(3,5) on M are neither
    expect(env, 0, [((3, 6), 0), ((3, 5), 0), ((5, 5), M)])
    act(env, (5, 5), M)  # D2
    expect(env, 0, [((3, 6), 0), ((3, 5), 0), ((3, 5), M), ((5, 7), M)])
    act(env, (5, 7), M)  # covers D2; turn ends, D1 stays open on a private train
    assert open_doubles(env) == [0]
    assert not st(env).has_marker(0)
    assert tiles(env, M) == [(9, 5), (5, 5), (5, 7)]
    # s1: (9,2) fits its own train, (1,7) fits M, but it must cover D1 on s0's private train
    expect(env, 1, [((3, 8), 0)])
    assert place_action(env, (3, 8), 0) == tile_index(3, 8, 9) * 3 + 1
    act(env, (3, 8), 0)
    assert open_doubles(env) == []
    assert tiles(env, 0) == [(9, 3), (3, 3), (3, 8)]
    assert not st(env).has_marker(0), "covering a double on a private train does not mark it"
    expect(env, 0, [((0, 7), M)])
    act(env, (0, 7), M)
    # s1 holds (8,1) which matches train 0's open end 8, but train 0 is private
    expect(env, 1, [((2, 9), 1)])


def test_double_double_failing_marks_and_both_open_doubles_oblige_in_any_order():
    """docs/rules.md §1.4 double_double: failing to cover D1/D2 -> draw one / pass and mark; both open
    doubles must be covered before anyone plays elsewhere, in any order (the mask offers covers
    of both)."""
    env = make(first_turn="any", doubles="double_double")
    deal(
        env,
        hands=[[(9, 3), (3, 3), (5, 5), (0, 1)], [(9, 5), (3, 8), (5, 1), (9, 2)]],
        boneyard=[(0, 2), (6, 6), (4, 4)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [((5, 5), M)])  # no cover held; a second double is a legal placement
    act(env, (5, 5), M)
    expect(env, 0, [DRAW])
    draw(env)  # (0,2) covers neither
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [0, 2]  # oldest first
    # s1: covers of both doubles, nothing else ((9,2) fits its own train)
    expect(env, 1, [((3, 8), 0), ((1, 5), M)])
    act(env, (3, 8), 0)  # the OLDER one first: allowed in this mode
    assert open_doubles(env) == [2]
    expect(env, 0, [DRAW])
    draw(env)  # (6,6)
    expect(env, 0, [PASS])
    pass_(env)
    expect(env, 1, [((1, 5), M)])
    act(env, (1, 5), M)
    assert open_doubles(env) == []


# --------------------------------------------------------------------------------------------
# doubles="chain"
# --------------------------------------------------------------------------------------------


def test_chain_double_gives_free_extra_play_and_turn_ends_after_non_double():
    """docs/rules.md §1.4 chain (contract 7): a double gives another play anywhere legal (not forced to
    cover); another double gives another; the turn ends after a non-double. The double left open
    obliges the next player, even on the placer's private train."""
    env = make(first_turn="any", doubles="chain")
    deal(
        env,
        hands=[
            [(9, 3), (3, 3), (5, 5), (3, 6), (5, 7), (0, 1)],
            [(9, 5), (3, 8), (9, 2), (7, 1)],
        ],
        boneyard=[(0, 0), (1, 1)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [((3, 6), 0), ((5, 5), M), ((5, 7), M)])
    act(env, (5, 5), M)  # second double: another play
    expect(env, 0, [((3, 6), 0), ((5, 7), M)])
    act(env, (5, 7), M)  # non-double: turn ends
    assert tiles(env, M) == [(9, 5), (5, 5), (5, 7)]
    assert open_doubles(env) == [0]
    assert not st(env).has_marker(0)
    expect(env, 1, [((3, 8), 0)])  # cover on s0's private train, nothing else
    act(env, (3, 8), 0)
    assert open_doubles(env) == []
    assert not st(env).has_marker(0)
    assert seat_of(env) == 0


def test_chain_open_doubles_are_covered_newest_first():
    """docs/rules.md §1.4 chain (contract 7): doubles left open oblige the following players in
    reverse order of placement: only the newest open double is coverable."""
    env = make(first_turn="any", doubles="chain")
    deal(
        env,
        hands=[[(9, 3), (3, 3), (5, 5), (0, 1)], [(9, 5), (3, 8), (5, 1), (9, 2)]],
        boneyard=[(0, 2), (6, 6), (4, 4)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [((5, 5), M)])
    act(env, (5, 5), M)
    expect(env, 0, [DRAW])
    draw(env)  # (0,2) fits nothing
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [0, 2]
    # s1 holds (3,8) covering the older double on (public) train 0: not coverable yet
    expect(env, 1, [((1, 5), M)])
    act(env, (1, 5), M)
    assert open_doubles(env) == [0]
    expect(env, 0, [DRAW])
    draw(env)  # (6,6)
    expect(env, 0, [PASS])
    pass_(env)
    expect(env, 1, [((3, 8), 0)])  # (9,2) fits its own train, but 3-3 must be covered
    act(env, (3, 8), 0)
    assert open_doubles(env) == []


# --------------------------------------------------------------------------------------------
# doubles="no_cover"
# --------------------------------------------------------------------------------------------


def test_no_cover_double_gives_one_more_placement_and_obliges_nobody():
    """docs/rules.md §1.4 no_cover (contract 8): a double gives one more placement anywhere legal; the
    uncovered double obliges nobody: the next player plays freely (and cannot touch the private
    train holding it)."""
    env = make(first_turn="any", doubles="no_cover")
    deal(
        env,
        hands=[[(9, 3), (3, 3), (3, 6), (5, 7), (0, 1)], [(9, 5), (3, 8), (9, 2), (7, 4)]],
        boneyard=[(0, 0), (1, 1)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [((3, 6), 0), ((5, 7), M)])
    act(env, (5, 7), M)
    assert open_doubles(env) == []
    assert tiles(env, 0) == [(9, 3), (3, 3)]
    expect(env, 1, [((2, 9), 1), ((4, 7), M)])


@pytest.mark.parametrize("mode", MODES)
def test_uncovered_double_after_pass_obliges_next_player_except_no_cover(mode):
    """docs/rules.md §1.4: the placer cannot play after the double, draws, passes and marks; in
    satisfy / double_double / chain the double is open and the next player may only cover it;
    in no_cover it obliges nobody and the next player plays freely."""
    env = make(first_turn="any", doubles=mode)
    deal(
        env,
        hands=[[(9, 3), (3, 3), (0, 1)], [(9, 5), (3, 8), (9, 2)]],
        boneyard=[(0, 2), (1, 1), (4, 4)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [DRAW])
    draw(env)  # (0,2) fits nothing
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    if mode == "no_cover":
        assert open_doubles(env) == []
        expect(env, 1, [((3, 8), 0), ((2, 9), 1)])  # train 0 is public; not an obligation
    else:
        assert open_doubles(env) == [0]
        expect(env, 1, [((3, 8), 0)])


# --------------------------------------------------------------------------------------------
# A double as the last tile ends the round at once (every mode)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_last_tile_double_ends_round_at_once(mode):
    """docs/rules.md §0 and 1.4 ("In every mode: if the tile placed was the player's last, the round
    ends at once"): nobody has to cover it; termination "went_out", winner = that seat."""
    env = make(first_turn="any", doubles=mode)
    deal(
        env,
        hands=[[(9, 3), (3, 3)], [(9, 5), (1, 2), (4, 6)]],
        boneyard=[(0, 0), (0, 1)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    assert st(env).round_over
    assert all(env.terminations[a] for a in env.possible_agents)
    for a in env.possible_agents:
        info = env.infos[a]
        assert info["termination_code"] == Termination.WENT_OUT
        assert seats_of(info["winners"]) == [0]
        assert list(info["pips"]) == [0, 1 + 2 + 4 + 6]


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


# --------------------------------------------------------------------------------------------
# Presets
# --------------------------------------------------------------------------------------------


TREN_MEXICANO = dict(
    first_turn="any",
    doubles="chain",
    drawn_tile="may_play",
    blocked_round="void",
    double_blank_points=10,
    game_end="elimination",
    elimination_limit=100,
)


def _check_fields(cfg, fields):
    for k, v in fields.items():
        assert getattr(cfg, k) == v, (k, getattr(cfg, k), v)


def test_preset_tren_mexicano_from_preset_and_env():
    """docs/rules.md §1.8: preset tren_mexicano (seed 002) differs from the default in the hand-size
    table, first_turn="any", doubles="chain", drawn_tile="may_play", blocked_round="void",
    double_blank_points=10, game_end="elimination" (limit 100); nothing else."""
    from domino_env.core.config import from_preset

    cfg = from_preset("tren_mexicano")
    _check_fields(cfg, TREN_MEXICANO)
    _check_fields(
        cfg,
        dict(
            station_source="set_aside",
            marker_removal="own_train_play",
            use_boneyard=True,
            use_mexican_train=True,
        ),
    )
    env = raw_env(preset="tren_mexicano")
    env.reset(seed=0)
    _check_fields(st(env).config, TREN_MEXICANO)
    default = from_preset("domino_cubano")
    _check_fields(
        default,
        dict(
            first_turn="own_train",
            doubles="satisfy",
            drawn_tile="must_play",
            blocked_round="score",
            double_blank_points=0,
            game_end="rounds",
            station_source="set_aside",
        ),
    )


@pytest.mark.parametrize(
    "max_pip,players,size",
    [
        (12, 2, 15),
        (12, 4, 15),
        (12, 5, 12),
        (12, 8, 11),
        (9, 2, 9),
        (9, 5, 7),
        (9, 8, 6),
        (15, 7, 13),
        (18, 8, 15),
    ],
)
def test_preset_tren_mexicano_hand_size_table(max_pip, players, size):
    """docs/rules.md §1.1 hand-size table (presets tren_mexicano / novelty)."""
    env = raw_env(preset="tren_mexicano", num_players=players, max_pip=max_pip)
    env.reset(seed=3)
    state = st(env)
    sizes = [len(state.hand_tiles(s)) for s in range(players)]
    assert sizes == [size] * players
    assert sum(sizes) + state.boneyard_size == tile_count(max_pip) - 1


@pytest.mark.parametrize("players,size", [(4, 15), (5, 12)])
def test_preset_novelty(players, size):
    """docs/rules.md §1.8: preset novelty (seed 003) = hand-size table + station_source="highest_held"
    (the holder of the station double places it, so holds one tile fewer, and moves first)."""
    from domino_env.core.config import from_preset

    cfg = from_preset("novelty")
    assert cfg.station_source == "highest_held"
    _check_fields(
        cfg,
        dict(
            first_turn="own_train",
            doubles="satisfy",
            drawn_tile="must_play",
            blocked_round="score",
            game_end="rounds",
        ),
    )
    for seed in range(3):
        env = raw_env(preset="novelty", num_players=players, max_pip=12)
        env.reset(seed=seed)
        state = st(env)
        assert state.config.station_source == "highest_held"
        sizes = [len(state.hand_tiles(s)) for s in range(players)]
        assert sorted(sizes) == [size - 1] + [size] * (players - 1), sizes
        assert state.current_player == sizes.index(size - 1)
        assert sum(sizes) + state.boneyard_size == tile_count(12) - 1


def test_explicit_kwargs_override_preset():
    """Contract "Constructor kwargs" / docs/rules.md §1.8 ("Every variant flag ... can be combined
    freely with any preset"): explicit kwargs override the preset, other preset fields stay."""
    from domino_env.core.config import from_preset

    cfg = from_preset("tren_mexicano", doubles="satisfy")
    assert cfg.doubles == "satisfy"
    _check_fields(cfg, {k: v for k, v in TREN_MEXICANO.items() if k != "doubles"})
    env = raw_env(preset="tren_mexicano", doubles="satisfy", num_players=3)
    env.reset(seed=0)
    cfg = st(env).config
    assert cfg.doubles == "satisfy"
    assert cfg.num_players == 3
    _check_fields(cfg, {k: v for k, v in TREN_MEXICANO.items() if k != "doubles"})
    env = raw_env(preset="novelty", station_source="set_aside")
    env.reset(seed=0)
    assert st(env).config.station_source == "set_aside"
    assert st(env).station == 12


def test_preset_tren_mexicano_plays_chain_and_may_play_in_a_scenario():
    """docs/rules.md §1.8 (tren_mexicano) + 1.3.1 first_turn="any" + 1.4 chain + 1.3.3 may_play: the
    preset's behaviour, not just its fields: the Mexican train may be started on the first turn;
    a double gives a free extra play; a drawn playable tile may be kept (PASS is legal too)."""
    env = raw_env(preset="tren_mexicano", num_players=2, max_pip=9)
    deal(
        env,
        hands=[[(9, 3), (3, 3), (0, 1)], [(9, 5), (5, 2), (8, 8)]],
        boneyard=[(3, 6), (1, 1), (0, 0)],
    )
    expect(env, 0, [((3, 9), 0), ((3, 9), M)])
    act(env, (9, 3), M)
    expect(env, 1, [((5, 9), 1)])
    act(env, (9, 5), 1)
    act(env, (3, 3), M)
    expect(env, 0, [DRAW])  # extra play after the double: nothing fits
    draw(env)  # (3,6) would cover the double
    expect(env, 0, [((3, 6), M), PASS])  # may_play
    pass_(env)
    assert st(env).has_marker(0)
    assert hand(env, 0) == [(0, 1), (3, 6)]
    assert open_doubles(env) == [2]
    expect(env, 1, [DRAW])  # (5,2) fits its own train, but 3-3 on M must be covered
    draw(env)  # (1,1) cannot cover
    expect(env, 1, [PASS])


# --------------------------------------------------------------------------------------------
# Records and replay
# --------------------------------------------------------------------------------------------


def _snapshot(state):
    p = state.num_players
    return (
        state.current_player,
        state.round_index,
        state.station,
        tuple(tuple(map(tuple, state.train_tiles(t))) for t in range(p + 1)),
        tuple(tuple(map(tuple, state.hand_tiles(s))) for s in range(p)),
        tuple(state.open_doubles),
        tuple(state.has_marker(s) for s in range(p)),
        state.boneyard_size,
        tuple(state.scores),
        bool(state.round_over),
    )


def _play_random(env, rng, max_steps):
    """Random legal play; returns per decision (agent, mask, every agent's observation, table)."""
    trace = []
    while len(trace) < max_steps:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            if all(env.terminations[a] or env.truncations[a] for a in env.agents):
                break
            env.step(None)
            continue
        m = mask(env)
        obs = {a: np.array(env.observe(a)["observation"]) for a in env.possible_agents}
        trace.append((agent, m.copy(), obs, _snapshot(st(env))))
        env.step(int(rng.choice(np.flatnonzero(m))))
    return trace


REPLAY_CONFIGS = [
    dict(num_players=4, max_pip=12),
    dict(num_players=3, max_pip=9, doubles="double_double", first_turn="any"),
    dict(num_players=2, max_pip=9, doubles="no_cover", station_source="highest_held"),
    dict(preset="tren_mexicano", num_players=3, max_pip=9, episode="game"),
    dict(num_players=2, max_pip=9, episode="game", station_source="highest_held"),
]


@pytest.mark.parametrize("kwargs", REPLAY_CONFIGS)
def test_record_replay_reproduces_masks_observations_and_states(kwargs):
    """docs/rules.md §0 ("Given the shuffle and the action sequence, a round replays exactly") and
    the contract (records): env.unwrapped.to_record() exports the game so far as JSON; replaying
    it (through a fresh env fed the recorded deals, and through
    domino_env.core.records.replay) reproduces every mask, observation and table state."""
    import json

    from domino_env.core.records import replay

    for seed in range(3):
        env = raw_env(**kwargs)
        env.reset(seed=seed)
        trace = _play_random(env, np.random.default_rng(seed), max_steps=400)
        final = _snapshot(st(env))
        record = json.loads(json.dumps(env.unwrapped.to_record()))
        actions = record["actions"]
        assert len(actions) == len(trace)

        # 1) a fresh env fed the recorded deals and actions
        env2 = raw_env(**record["env_kwargs"])
        env2.reset(seed=seed + 1000, options={"deals": record["deals"]})
        k = 0
        while k < len(actions):
            agent = env2.agent_selection
            if env2.terminations[agent] or env2.truncations[agent]:
                env2.step(None)
                continue
            agent0, m0, obs0, snap0 = trace[k]
            assert agent == agent0, k
            np.testing.assert_array_equal(mask(env2), m0)
            for a in env2.possible_agents:
                np.testing.assert_array_equal(env2.observe(a)["observation"], obs0[a])
            assert _snapshot(st(env2)) == snap0, k
            env2.step(actions[k])
            k += 1
        assert _snapshot(st(env2)) == final

        # 2) the engine-level replay
        states = list(replay(record))
        assert len(states) == len(actions) + 1
        for k, state in enumerate(states[:-1]):
            if state.round_over:  # next round is dealt lazily by replay, at once by the env
                continue
            agent0, m0, _, snap0 = trace[k]
            assert _snapshot(state) == snap0, k
            assert sorted(state.legal_actions()) == sorted(int(i) for i in np.flatnonzero(m0))
        if not states[-1].round_over or final[-1]:
            assert _snapshot(states[-1]) == final


# --------------------------------------------------------------------------------------------
# More doubles edge cases (draws inside double obligations, targets of a second double)
# --------------------------------------------------------------------------------------------


def test_satisfy_drawn_double_is_placed_then_one_new_draw_for_its_cover():
    """docs/rules.md §1.3.3 + 1.4 satisfy (contract 2: "A new obligation in the same turn (e.g. after
    placing a drawn double in satisfy mode) allows one new draw"): a drawn double that fits must be
    placed; its cover is a new obligation with one new draw; failing it -> PASS, marker, open."""
    env = make(first_turn="any")
    deal(
        env,
        hands=[[(9, 5), (1, 2)], [(9, 4), (1, 3), (2, 4)]],
        boneyard=[(5, 5), (0, 1), (6, 6), (7, 7)],
    )
    act(env, (9, 5), M)
    act(env, (9, 4), 1)
    expect(env, 0, [DRAW])  # own train at 9, M at 5: (1,2) fits nothing
    draw(env)  # (5,5) fits M
    expect(env, 0, [((5, 5), M)])
    act(env, (5, 5), M)
    expect(env, 0, [DRAW])
    assert st(env).boneyard_size == 3
    draw(env)  # (0,1)
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [2]
    assert hand(env, 0) == [(0, 1), (1, 2)]
    expect(env, 1, [DRAW])  # (2,4) fits its own train at 4: frozen


def test_satisfy_may_play_draw_while_covering_allows_pass():
    """docs/rules.md §1.3.3 drawn_tile="may_play" + 1.4 (contract 2: "drawn_tile governs every draw,
    including draws while covering open doubles"): a drawn tile that covers someone's open double
    may be kept (PASS legal); the pass marks the passer and the double stays open."""
    env = make(first_turn="any", drawn_tile="may_play")
    deal(
        env,
        hands=[[(9, 5), (5, 5), (1, 2)], [(9, 4), (4, 0), (2, 3)]],
        boneyard=[(0, 0), (5, 6), (1, 1), (8, 8)],
    )
    act(env, (9, 5), 0)
    act(env, (9, 4), 1)
    act(env, (5, 5), 0)
    expect(env, 0, [DRAW])
    draw(env)  # (0,0) fits nothing
    expect(env, 0, [PASS])
    pass_(env)
    assert open_doubles(env) == [0]
    expect(env, 1, [DRAW])  # (4,0) fits its own train but the table is frozen
    draw(env)  # (5,6) covers 5-5 on train 0
    expect(env, 1, [((5, 6), 0), PASS])
    pass_(env)
    assert st(env).has_marker(1)
    assert open_doubles(env) == [0]
    assert (5, 6) in hand(env, 1)
    expect(env, 0, [DRAW])
    draw(env)  # (1,1)
    expect(env, 0, [PASS])
    pass_(env)
    expect(env, 1, [((5, 6), 0)])


def test_satisfy_without_boneyard_passes_at_once():
    """docs/rules.md §1.7 use_boneyard=False + 1.4: a player who cannot cover their double passes and
    marks at once (no DRAW action); the double stays open and obliges the next player."""
    env = make(first_turn="any", use_boneyard=False)
    deal(env, hands=[[(9, 3), (3, 3), (0, 1)], [(9, 5), (2, 4), (3, 8)]], boneyard=[])
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [0]
    expect(env, 1, [((3, 8), 0)])


def test_double_double_second_double_targets_and_no_third_double():
    """docs/rules.md §1.4 double_double (contract 6): the second double may go on another train where
    it is otherwise legal (the Mexican train, a marked train) but not on another seat's private
    train; after D2 only covers of D1/D2 are legal (no third double)."""
    env = make(num_players=3, first_turn="any", doubles="double_double")
    deal(
        env,
        hands=[
            [(9, 3), (9, 5), (3, 3), (5, 5), (6, 6), (8, 8), (3, 7), (0, 1)],
            [(9, 4), (4, 8), (0, 2), (1, 6)],
            [(9, 6), (1, 2)],
        ],
        boneyard=[(0, 0), (7, 7), (2, 2)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 4), 1)
    act(env, (9, 6), 2)
    act(env, (9, 5), M)
    act(env, (4, 8), 1)  # train 1 (private) ends at 8
    expect(env, 2, [DRAW])
    draw(env)  # (0,0)
    expect(env, 2, [PASS])
    pass_(env)
    assert st(env).has_marker(2)  # train 2 (end 6) is public
    expect(env, 0, [((3, 3), 0), ((3, 7), 0), ((5, 5), M), ((6, 6), 2)])
    act(env, (3, 3), 0)
    # cover D1, or D2 on M or on marked train 2; not (8,8) on private train 1
    expect(env, 0, [((3, 7), 0), ((5, 5), M), ((6, 6), 2)])
    act(env, (6, 6), 2)
    expect(env, 0, [((3, 7), 0)])  # (5,5) on M would be a third double
    act(env, (3, 7), 0)
    assert open_doubles(env) == [2]
    assert tiles(env, 2) == [(9, 6), (6, 6)]
    expect(env, 1, [((1, 6), 2)])


def test_double_double_drawn_double_can_be_the_second_double():
    """docs/rules.md §1.4 double_double + 1.3.3 (contract 2: after a draw the legal placements are
    computed as usual; a new obligation allows one new draw): with no cover and no second double,
    the player draws; a drawn double that fits another train is placed as D2 (must_play); then one
    new draw for covering D1/D2; failing -> PASS with both doubles open."""
    env = make(first_turn="any", doubles="double_double")
    deal(
        env,
        hands=[[(9, 3), (3, 3), (0, 1)], [(9, 5), (2, 4)]],
        boneyard=[(5, 5), (0, 2), (6, 6), (1, 1)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [DRAW])
    draw(env)  # (5,5) fits the Mexican train
    expect(env, 0, [((5, 5), M)])
    act(env, (5, 5), M)
    expect(env, 0, [DRAW])
    draw(env)  # (0,2)
    expect(env, 0, [PASS])
    pass_(env)
    assert open_doubles(env) == [0, 2]
    assert st(env).has_marker(0)


def test_chain_drawn_double_gives_another_play():
    """docs/rules.md §1.4 chain + 1.3.3: a drawn double that fits must be placed and, being a double,
    gives another play (with one new draw); a draw-and-pass ends the turn, the double is open."""
    env = make(first_turn="any", doubles="chain")
    deal(
        env,
        hands=[[(9, 3), (0, 1)], [(9, 5), (2, 4), (3, 8)]],
        boneyard=[(3, 3), (1, 6), (7, 7)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    expect(env, 0, [DRAW])
    draw(env)  # (3,3)
    expect(env, 0, [((3, 3), 0)])
    act(env, (3, 3), 0)
    expect(env, 0, [DRAW])
    draw(env)  # (1,6) fits nothing
    expect(env, 0, [PASS])
    pass_(env)
    assert open_doubles(env) == [0]
    expect(env, 1, [((3, 8), 0)])


def test_no_cover_second_double_gives_another_placement():
    """docs/rules.md §1.4 no_cover (contract 8: another double gives another placement): D1, then D2
    elsewhere, then a non-double ends the turn; neither uncovered double obliges the next player."""
    env = make(first_turn="any", doubles="no_cover")
    deal(
        env,
        hands=[
            [(9, 3), (3, 3), (5, 5), (3, 6), (5, 7), (0, 1)],
            [(9, 5), (9, 2), (5, 1), (6, 8)],
        ],
        boneyard=[(0, 0), (1, 1)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [((3, 6), 0), ((5, 5), M), ((5, 7), M)])
    act(env, (5, 5), M)
    expect(env, 0, [((3, 6), 0), ((5, 7), M)])
    act(env, (3, 6), 0)
    assert open_doubles(env) == []
    assert tiles(env, M) == [(9, 5), (5, 5)]
    # M ends in an uncovered 5-5: covering it is allowed but not required
    expect(env, 1, [((2, 9), 1), ((1, 5), M)])


def test_open_double_nobody_can_cover_blocks_the_round():
    """docs/rules.md §1.5 (blocked: no draw possible and nobody can ever place again) with 1.4: an open
    double that no hand can cover freezes the table, so the round is blocked although hands hold
    tiles that would fit elsewhere; blocked_round="score": fewest pips win (contract 10)."""
    env = make(first_turn="any", use_boneyard=False)
    deal(env, hands=[[(9, 3), (3, 3), (0, 1)], [(9, 5), (2, 4), (5, 6)]], boneyard=[])
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    # Seat 0 owes a cover of 3-3 and holds no 3; once it passes, 3-3 obliges seat 1, which holds
    # no 3 either ((5,6) would fit the Mexican train, but 3-3 must be covered): nobody can ever
    # place, so the round is blocked at once, without seat 0's forced PASS (issue 12).
    act(env, (3, 3), 0)
    assert st(env).round_over
    for a in env.possible_agents:
        assert env.terminations[a]
        info = env.infos[a]
        assert info["termination_code"] == Termination.BLOCKED
        assert seats_of(info["winners"]) == [0]
        assert list(info["pips"]) == [1, 17]


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


def test_record_of_a_dealt_scenario_replays_the_table():
    """Contract (records) + docs/rules.md §0: a game started from options["deal"] is recorded with its
    deal; replaying the record rebuilds the same table (open doubles, markers, trains, hands)."""
    import json

    from domino_env.core.records import replay

    env = make(first_turn="any", doubles="chain")
    deal(
        env,
        hands=[[(9, 3), (3, 3), (5, 5), (0, 1)], [(9, 5), (3, 8), (5, 1), (9, 2)]],
        boneyard=[(0, 2), (6, 6), (4, 4)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    act(env, (5, 5), M)
    draw(env)
    pass_(env)
    record = json.loads(json.dumps(env.unwrapped.to_record()))
    assert len(record["actions"]) == 6
    last = list(replay(record))[-1]
    assert _snapshot(last) == _snapshot(st(env))
    assert list(last.open_doubles) == [0, 2]
    assert sorted(last.legal_actions()) == legal(env)
