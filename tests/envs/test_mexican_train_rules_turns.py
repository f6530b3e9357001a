"""Hand-built scenario tests for Mexican Train turns, written from the rules.

Source of truth: ``docs/rules.md`` sections 0 and 1, plus the lead's decisions in
``docs/rules.md`` ("Points where docs/rules.md is silent").  These tests only use the
public environment contract (``raw_env`` / ``env``, the action mask, ``step``, ``infos``,
rewards and the read-only ``env.unwrapped.game_state`` accessors).  Tile indices and action
integers are computed by small helpers in this file, independently of the library.

Conventions used below: station (9, 9) on a double-9 set unless said otherwise, seat i is
``player_i``, slot 0 is the actor's own train, slot k is the train of seat (actor + k) % P,
slot P is the Mexican train.
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.core.errors import ConfigError, DealError, IllegalActionError
from domino_env.envs.infos import Termination, seats_of
from domino_env.envs.mexican_train_v0 import env as wrapped_env
from domino_env.envs.mexican_train_v0 import raw_env

# ---------------------------------------------------------------------------
# Independent helpers (docs/rules.md §0 and the contract's action layout)
# ---------------------------------------------------------------------------


def tile_count(max_pip: int) -> int:
    """(N+1)(N+2)/2 tiles in a double-N set (docs/rules.md §0)."""
    return (max_pip + 1) * (max_pip + 2) // 2


def all_tiles(max_pip: int) -> list[tuple[int, int]]:
    """Canonical order (0,0), (0,1), ..., (0,N), (1,1), ..., (N,N)."""
    return [(a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1)]


def tile_index(a: int, b: int, max_pip: int) -> int:
    """Closed-form index of tile (a, b) in canonical order."""
    a, b = min(a, b), max(a, b)
    # rows 0..a-1 hold N+1, N, ..., N+2-a tiles
    return a * (max_pip + 1) - a * (a - 1) // 2 + (b - a)


def tile_at(i: int, max_pip: int) -> tuple[int, int]:
    """Inverse of tile_index, by walking the rows."""
    a = 0
    while i >= max_pip + 1 - a:
        i -= max_pip + 1 - a
        a += 1
    return (a, a + i)


def canon(t) -> tuple[int, int]:
    return (min(t), max(t))


def dims(env) -> tuple[int, int, int]:
    """(P, T, N) of the env, from the contract's state accessors."""
    st = env.unwrapped.game_state
    n = st.config.max_pip
    return st.num_players, tile_count(n), n


def action(env, tile, slot: int) -> int:
    """tile_index * (P + 1) + slot (contract: Agents and actions)."""
    p, _t, n = dims(env)
    assert 0 <= slot <= p
    return tile_index(*tile, n) * (p + 1) + slot


def draw_action(env) -> int:
    p, t, _n = dims(env)
    return t * (p + 1)


def pass_action(env) -> int:
    return draw_action(env) + 1


def decode(env, a: int):
    """Readable form of an action int: ((a, b), slot), "DRAW" or "PASS"."""
    p, t, n = dims(env)
    if a == t * (p + 1):
        return "DRAW"
    if a == t * (p + 1) + 1:
        return "PASS"
    return (tile_at(a // (p + 1), n), a % (p + 1))


def legal(env) -> list[int]:
    """Sorted nonzero indices of the acting agent's mask."""
    mask = np.asarray(env.observe(env.agent_selection)["action_mask"])
    return sorted(int(i) for i in np.flatnonzero(mask))


def legal_moves(env) -> list:
    return [decode(env, a) for a in legal(env)]


def moves(env, *items) -> list:
    """Expected legal list, in the same (sorted, decoded) form as legal_moves."""
    acts = []
    for it in items:
        if it == "DRAW":
            acts.append(draw_action(env))
        elif it == "PASS":
            acts.append(pass_action(env))
        else:
            tile, slot = it
            acts.append(action(env, tile, slot))
    return [decode(env, a) for a in sorted(acts)]


def seat(env) -> int:
    return int(env.agent_selection.rsplit("_", 1)[1])


def slot_of(actor: int, owner: int, p: int) -> int:
    """Slot, seen from `actor`, of the personal train of `owner`."""
    return (owner - actor) % p


def act(env, tile, slot: int) -> None:
    a = action(env, tile, slot)
    assert a in legal(env), f"{(canon(tile), slot)} not legal; legal={legal_moves(env)}"
    env.step(a)


def draw(env) -> None:
    assert draw_action(env) in legal(env), f"DRAW not legal; legal={legal_moves(env)}"
    env.step(draw_action(env))


def pass_(env) -> None:
    assert pass_action(env) in legal(env), f"PASS not legal; legal={legal_moves(env)}"
    env.step(pass_action(env))


def deal(hands, boneyard=(), station=9, first=0) -> dict:
    return {
        "deal": {
            "hands": [[list(canon(t)) for t in h] for h in hands],
            "boneyard": [list(canon(t)) for t in boneyard],
            "station": [station, station],
            "first_player": first,
        }
    }


def start(hands, boneyard=(), station=9, first=0, max_pip=9, **kw):
    """raw_env on a hand-built position."""
    e = raw_env(num_players=len(hands), max_pip=max_pip, **kw)
    e.reset(seed=0, options=deal(hands, boneyard, station, first))
    return e


def state(env):
    return env.unwrapped.game_state


def hand(env, s: int) -> list[tuple[int, int]]:
    return [tuple(t) for t in state(env).hand_tiles(s)]


def train(env, k: int) -> list[tuple[int, int]]:
    return [tuple(t) for t in state(env).train_tiles(k)]


def all_terminated(env) -> bool:
    return all(env.terminations.get(a, False) for a in env.possible_agents)


def all_done(env) -> bool:
    """Every seat is terminated / truncated, or already removed from env.agents (dead step)."""
    live = set(env.agents)
    return all(
        a not in live or env.terminations.get(a, False) or env.truncations.get(a, False)
        for a in env.possible_agents
    )


def assert_round(env, termination, winners, pips, scores=None) -> None:
    for ag in env.possible_agents:
        info = env.infos[ag]
        assert info["termination_code"] == Termination.of(termination), (ag, info)
        assert seats_of(info["winners"]) == winners, (ag, info)
        assert list(info["pips"]) == pips, (ag, info)
        if scores is not None:
            assert list(info["scores"]) == scores, (ag, info)


def rewards_of(env) -> list[float]:
    return [float(env.rewards.get(a, 0.0)) for a in env.possible_agents]


def cumulative_of(env) -> list[float]:
    return [float(env._cumulative_rewards.get(a, 0.0)) for a in env.possible_agents]


def pass_until_over(env, limit: int) -> None:
    """Everyone can only pass; at most `limit` passes until the round is over (RULES 1.5)."""
    n = 0
    while not all_terminated(env):
        assert legal_moves(env) == ["PASS"], legal_moves(env)
        env.step(pass_action(env))
        n += 1
        assert n <= limit, "blocked round not ended after a full cycle of passes"


def random_step(env, rng) -> None:
    ag = env.agent_selection
    if env.terminations.get(ag, False) or env.truncations.get(ag, False):
        env.step(None)
        return
    acts = legal(env)
    assert acts, "acting agent's mask is empty"
    env.step(int(rng.choice(acts)))


# ---------------------------------------------------------------------------
# Section 0: tiles and the action layout
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("max_pip,count", [(9, 55), (12, 91)])
def test_tile_index_helper_matches_canonical_order(max_pip, count):
    """docs/rules.md §0: canonical order (0,0),(0,1),...,(0,N),(1,1),...,(N,N); both ways."""
    tiles = all_tiles(max_pip)
    assert len(tiles) == count == tile_count(max_pip)
    for i, t in enumerate(tiles):
        assert tile_index(*t, max_pip) == i
        assert tile_index(t[1], t[0], max_pip) == i
        assert tile_at(i, max_pip) == t
    assert tiles[:3] == [(0, 0), (0, 1), (0, 2)]
    assert tiles[max_pip + 1] == (1, 1)
    assert tiles[-1] == (max_pip, max_pip)


@pytest.mark.parametrize("max_pip,count", [(9, 55), (12, 91)])
def test_library_tile_index_agrees_both_ways(max_pip, count):
    """docs/rules.md §0 ("test it both ways"): the library's conversion agrees with the canonical order."""
    from domino_env.core import tiles as lib

    assert lib.tile_count(max_pip) == count
    for i, (a, b) in enumerate(all_tiles(max_pip)):
        assert lib.tile_index(a, b, max_pip) == i
        assert tuple(lib.tile_from_index(i, max_pip)) == (a, b)


@pytest.mark.parametrize("max_pip", [9, 12])
def test_placement_action_index_via_mask_for_every_tile(max_pip):
    """docs/rules.md §0 + contract action layout: placing tile t on the own train is
    tile_index(t) * (P + 1) + 0, checked through the env's mask for every tile of the set
    (non-doubles from the station, doubles on a train ending in their pip)."""
    p = 2
    e = raw_env(num_players=p, max_pip=max_pip)
    pips = range(max_pip + 1)
    for s in pips:
        for b in pips:
            if b == s:
                continue
            t = canon((s, b))
            others = [x for x in pips if x != s]
            filler = (others[0], others[1])
            e.reset(seed=0, options=deal([[t], [filler]], [], station=s))
            assert legal(e) == [tile_index(*t, max_pip) * (p + 1)], (s, t, legal_moves(e))
    for d in pips:
        s = (d + 1) % (max_pip + 1)
        others = [x for x in pips if x not in (s, d)]
        filler = (others[0], others[1])
        e.reset(seed=0, options=deal([[(s, d), (d, d)], [filler]], [], station=s))
        act(e, (s, d), 0)
        assert legal_moves(e) == ["PASS"]  # seat 1: nothing fits, empty boneyard
        pass_(e)
        assert legal(e) == [tile_index(d, d, max_pip) * (p + 1)], (d, legal_moves(e))


@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_action_space_size_is_T_times_P_plus_1_plus_2(num_players):
    """Contract (Agents and actions): Discrete(T*(P+1)+2), double-12 T=91; DRAW and PASS last."""
    e = raw_env(num_players=num_players)
    e.reset(seed=0)
    n = 91 * (num_players + 1) + 2
    assert e.possible_agents == [f"player_{i}" for i in range(num_players)]
    for ag in e.possible_agents:
        assert int(e.action_space(ag).n) == n
        mask = np.asarray(e.observe(ag)["action_mask"])
        assert mask.shape == (n,)
        # contract: all zeros for non-acting agents, never empty for the acting one
        assert (mask.sum() > 0) == (ag == e.agent_selection)
    assert draw_action(e) == n - 2 and pass_action(e) == n - 1


# ---------------------------------------------------------------------------
# 1.3.1 first turn, 1.3.2 no voluntary draw, 1.3.3 drawing, 1.3.4 passing
# ---------------------------------------------------------------------------

FIRST_TURN_HANDS = [[(3, 9), (2, 4)], [(5, 9), (1, 2)], [(6, 9), (0, 1)]]


def test_first_turn_default_only_own_train():
    """docs/rules.md §1.3.1 (first_turn="own_train", default): on a seat's first turn the only
    legal placement is starting its own train from the station; not the Mexican train."""
    e = start(FIRST_TURN_HANDS, [(7, 8)])
    assert e.agent_selection == "player_0"
    assert legal_moves(e) == moves(e, ((3, 9), 0))
    act(e, (3, 9), 0)
    assert train(e, 0) == [(9, 3)]
    assert state(e).open_end(0) == 3
    # seat 1's first turn: the Mexican train (slot 3) is still not allowed
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == moves(e, ((5, 9), 0))


def test_first_turn_any_allows_mexican_train():
    """docs/rules.md §1.3.1 variant first_turn="any": the Mexican train is legal on the first turn."""
    e = start(FIRST_TURN_HANDS, [(7, 8)], first_turn="any")
    assert legal_moves(e) == moves(e, ((3, 9), 0), ((3, 9), 3))
    act(e, (3, 9), 3)
    assert train(e, 3) == [(9, 3)]
    assert state(e).open_end(3) == 3
    assert train(e, 0) == []
    assert state(e).open_end(0) == 9  # unstarted train: station pip (1.2)


def test_first_turn_ignores_marked_train_and_restriction_ends_after_draw_and_pass():
    """docs/rules.md §1.3.1 + contract point 1: during the first turn only the own train is legal
    (even a marked train of another seat is not); after a first turn that ended in
    draw-and-pass the restriction is gone although the own train was never started."""
    e = start(
        [[(1, 2), (3, 4)], [(8, 9), (7, 9), (0, 1)]],
        [(5, 6), (2, 9), (0, 3)],
    )
    # seat 0: no station tile -> DRAW only; (5,6) does not fit -> PASS only -> marker
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert hand(e, 0) == [(1, 2), (3, 4), (5, 6)]
    assert state(e).boneyard_size == 2
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).has_marker(0)
    assert not state(e).has_marker(1)
    # seat 1, first turn: seat 0's marked train (slot 1) and the Mexican train (slot 2) not legal
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == moves(e, ((8, 9), 0), ((7, 9), 0))
    act(e, (8, 9), 0)
    assert train(e, 1) == [(9, 8)]
    # seat 0, second turn: restriction gone; drawn (2,9) fits own train and Mexican train
    assert e.agent_selection == "player_0"
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((2, 9), 0), ((2, 9), 2))


DRAW_FITS = dict(hands=[[(1, 2), (3, 4)], [(8, 9), (0, 1)]], boneyard=[(0, 9), (5, 6)])


def test_drawn_tile_that_fits_must_be_played():
    """docs/rules.md §1.3.3 (drawn_tile="must_play", default): the actor has no station tile ->
    DRAW only; the drawn tile fits -> it must be placed, PASS is not legal."""
    e = start(**DRAW_FITS)
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert hand(e, 0) == [(0, 9), (1, 2), (3, 4)]
    assert legal_moves(e) == moves(e, ((0, 9), 0))
    act(e, (0, 9), 0)
    assert train(e, 0) == [(9, 0)]
    assert not state(e).has_marker(0)
    assert e.agent_selection == "player_1"


def test_drawn_tile_that_fits_goes_on_any_legal_placement():
    """docs/rules.md §1.3.3: the drawn tile is placed "on any legal placement" (first_turn="any":
    own train or Mexican train); still no PASS under must_play."""
    e = start(**DRAW_FITS, first_turn="any")
    draw(e)
    assert legal_moves(e) == moves(e, ((0, 9), 0), ((0, 9), 2))


def test_drawn_tile_may_play_allows_keeping_it_and_passing():
    """docs/rules.md §1.3.3 variant drawn_tile="may_play" + contract point 2: PASS is legal too;
    passing keeps the tile and puts the marker down (1.3.4)."""
    e = start(**DRAW_FITS, drawn_tile="may_play")
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((0, 9), 0), "PASS")
    pass_(e)
    assert state(e).has_marker(0)
    assert hand(e, 0) == [(0, 9), (1, 2), (3, 4)]
    assert e.agent_selection == "player_1"


def test_drawn_tile_that_does_not_fit_pass_only_and_marker():
    """docs/rules.md §1.3.3-1.3.4: one draw only ("one and only one"); nothing fits -> PASS only;
    the pass puts the passer's marker on its own train and ends the turn."""
    e = start([[(1, 2), (3, 4)], [(8, 9), (0, 1)]], [(5, 6), (0, 9)])
    draw(e)
    assert legal_moves(e) == ["PASS"]  # no second DRAW although (0,9) is next
    pass_(e)
    assert state(e).has_marker(0)
    assert not state(e).has_marker(1)
    assert state(e).boneyard_size == 1
    assert hand(e, 0) == [(1, 2), (3, 4), (5, 6)]
    assert e.agent_selection == "player_1"


def test_no_voluntary_draw_or_pass_with_playable_tile():
    """docs/rules.md §1.3.2: a player holding a playable tile must play; DRAW and PASS are not
    legal and stepping them on raw_env raises IllegalActionError."""
    e = start([[(4, 9), (4, 5), (1, 2)], [(8, 9), (0, 1), (2, 3)]], [(5, 6), (6, 7)])
    assert legal_moves(e) == moves(e, ((4, 9), 0))
    for bad in (draw_action(e), pass_action(e)):
        with pytest.raises(IllegalActionError):
            e.step(bad)
    act(e, (4, 9), 0)
    act(e, (8, 9), 0)
    # later turn: (4,5) fits the own train (end 4); still no DRAW / PASS
    assert legal_moves(e) == moves(e, ((4, 5), 0))
    with pytest.raises(IllegalActionError):
        e.step(draw_action(e))


def test_empty_boneyard_pass_directly_and_mark():
    """docs/rules.md §1.3.4 + contract point 2: with an empty boneyard there is no DRAW; the player
    passes at once and its marker goes down."""
    e = start([[(1, 2), (3, 4)], [(8, 9), (0, 1)]], [])
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).has_marker(0)
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == moves(e, ((8, 9), 0))


def test_no_boneyard_variant_pass_directly_from_deal():
    """docs/rules.md §1.7 use_boneyard=False: leftovers are never drawn; no placement -> PASS at once.

    The leftovers ((0,9), (5,6), ... appear in no hand) are out of play; the engine refuses a
    non-empty deal boneyard under use_boneyard=False (DealError), so none is given here."""
    e = start([[(1, 2), (3, 4)], [(8, 9), (0, 1)]], [], use_boneyard=False)
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).has_marker(0)
    assert hand(e, 0) == [(1, 2), (3, 4)]


def test_no_boneyard_variant_seeded_rounds_never_draw():
    """docs/rules.md §1.7 use_boneyard=False: equal hands (double-12, 4 players: floor(90/4)=22),
    DRAW is never legal; a player without placement has PASS only and is marked."""
    passes = 0
    for seed in range(3):
        e = raw_env(num_players=4, max_pip=12, use_boneyard=False, max_cycles=100000)
        e.reset(seed=seed)
        assert [len(hand(e, s)) for s in range(4)] == [22] * 4
        rng = np.random.default_rng(seed)
        steps = 0
        while not all_done(e):
            moves_now = legal_moves(e)
            assert "DRAW" not in moves_now
            if "PASS" in moves_now:
                assert moves_now == ["PASS"]
                s = seat(e)
                e.step(pass_action(e))
                passes += 1
                if not all_done(e):
                    assert state(e).has_marker(s)
            else:
                random_step(e, rng)
            steps += 1
            assert steps < 5000
    assert passes > 0


# ---------------------------------------------------------------------------
# 1.2 / 1.3.5 markers and public trains
# ---------------------------------------------------------------------------


def test_marked_train_is_public_unmarked_is_private():
    """docs/rules.md §1.2 + 1.3.1: a marked personal train is public (another seat's slot for it
    appears in the mask); an unmarked one is private. Playing on it keeps the marker (1.3.5)."""
    e = start(
        [[(1, 2), (3, 4), (0, 5)], [(8, 9), (1, 8)], [(2, 8), (7, 9), (0, 6)]],
        [(6, 7), (5, 5)],
        first_turn="any",
    )
    draw(e)
    pass_(e)
    assert state(e).has_marker(0)
    # seat 1: own (slot 0), seat 0's marked train (slot 2), Mexican (slot 3); not seat 2 (slot 1)
    assert slot_of(1, 0, 3) == 2
    assert legal_moves(e) == moves(e, ((8, 9), 0), ((8, 9), 2), ((8, 9), 3))
    act(e, (8, 9), 2)
    assert train(e, 0) == [(9, 8)]
    assert state(e).open_end(0) == 8
    assert state(e).has_marker(0)
    # seat 2: seat 0's train is slot 1 (end 8); seat 1's unmarked train (slot 2) not legal
    assert slot_of(2, 0, 3) == 1
    assert legal_moves(e) == moves(e, ((2, 8), 1), ((7, 9), 0), ((7, 9), 3))


MARKER_DEAL = dict(
    hands=[[(1, 2), (3, 4), (5, 8)], [(5, 9), (3, 9), (4, 6), (0, 1)]],
    boneyard=[(6, 7), (2, 8), (0, 2)],
)


def test_marker_removal_own_train_play():
    """docs/rules.md §1.3.5 (marker_removal="own_train_play", default): playing on the Mexican
    train or having others play on your train keeps the marker; placing on your own train
    removes it, and the train is private again."""
    e = start(**MARKER_DEAL, first_turn="any")
    draw(e)
    pass_(e)
    assert state(e).has_marker(0)
    # seat 1: (5,9)/(3,9) on own, on seat 0's marked train (slot 1), on Mexican (slot 2)
    assert legal_moves(e) == moves(
        e,
        ((5, 9), 0),
        ((5, 9), 1),
        ((5, 9), 2),
        ((3, 9), 0),
        ((3, 9), 1),
        ((3, 9), 2),
    )
    act(e, (5, 9), 2)
    # seat 0 plays on the Mexican train: marker stays
    assert legal_moves(e) == moves(e, ((5, 8), 2))
    act(e, (5, 8), 2)
    assert state(e).has_marker(0)
    # seat 1 plays on seat 0's train: marker stays
    assert legal_moves(e) == moves(e, ((3, 9), 0), ((3, 9), 1))
    act(e, (3, 9), 1)
    assert train(e, 0) == [(9, 3)]
    assert state(e).has_marker(0)
    # seat 0 plays on its own train: marker removed
    assert legal_moves(e) == moves(e, ((3, 4), 0))
    act(e, (3, 4), 0)
    assert not state(e).has_marker(0)
    # seat 1 holds (4,6) matching seat 0's end 4, but the train is private again
    assert state(e).open_end(0) == 4
    assert legal_moves(e) == ["DRAW"]


def test_marker_removal_next_turn():
    """docs/rules.md §1.3.5 variant marker_removal="next_turn" + contract point 9: the marker is
    removed at the start of its owner's next turn, so the train is private again then."""
    e = start(**MARKER_DEAL, first_turn="any", marker_removal="next_turn")
    draw(e)
    pass_(e)
    assert state(e).has_marker(0)
    assert legal_moves(e) == moves(
        e,
        ((5, 9), 0),
        ((5, 9), 1),
        ((5, 9), 2),
        ((3, 9), 0),
        ((3, 9), 1),
        ((3, 9), 2),
    )
    act(e, (5, 9), 2)
    assert e.agent_selection == "player_0"
    assert not state(e).has_marker(0)  # removed as seat 0's turn starts
    act(e, (5, 8), 2)  # Mexican play
    assert not state(e).has_marker(0)
    # seat 1: seat 0's train (end 9) is private now
    assert legal_moves(e) == moves(e, ((3, 9), 0))


def test_marker_next_turn_removed_then_put_back_by_a_new_pass():
    """docs/rules.md §1.3.4-1.3.5 (marker_removal="next_turn"): the marker is lifted as the owner's
    turn starts; if the owner passes again it goes back down and the train is public again."""
    e = start(**MARKER_DEAL, first_turn="any", marker_removal="next_turn")
    draw(e)
    pass_(e)
    act(e, (3, 9), 0)  # seat 1 plays on its own train
    assert e.agent_selection == "player_0"
    assert not state(e).has_marker(0)
    draw(e)  # (2,8): fits nothing
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).has_marker(0)
    assert legal_moves(e) == moves(e, ((5, 9), 1), ((5, 9), 2))


# ---------------------------------------------------------------------------
# Mexican train (1.2, 1.3.1, 1.7)
# ---------------------------------------------------------------------------

MEXICAN_DEAL = dict(
    hands=[[(5, 9), (4, 9), (1, 2)], [(6, 9), (3, 9), (1, 3)], [(7, 9), (2, 9), (0, 1)]],
    boneyard=[(0, 0)],
)


def test_mexican_train_any_player_may_start_it_after_first_turn():
    """docs/rules.md §1.2 / 1.3.1: the Mexican train is shared and any player may start it (seed
    000); it is not legal during first turns (default first_turn)."""
    e = start(**MEXICAN_DEAL)
    assert legal_moves(e) == moves(e, ((5, 9), 0), ((4, 9), 0))
    act(e, (5, 9), 0)
    assert legal_moves(e) == moves(e, ((6, 9), 0), ((3, 9), 0))
    act(e, (6, 9), 0)
    assert legal_moves(e) == moves(e, ((7, 9), 0), ((2, 9), 0))
    act(e, (7, 9), 0)
    # seat 0's second turn: own end 5, Mexican end 9
    assert legal_moves(e) == moves(e, ((4, 9), 3))
    act(e, (4, 9), 3)
    assert train(e, 3) == [(9, 4)]
    assert state(e).open_end(3) == 4
    # seat 1: nothing fits own (6) nor Mexican (4); seat 0's train private -> DRAW
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    # The drawn 0-0 fits nothing and the boneyard is empty: no hand holds a 4, 5, 6 or 7 (the
    # open ends), so nobody can ever place and the round is blocked at once (issue 12), without
    # seat 1's forced PASS.
    assert state(e).round_over
    assert e.infos["player_1"]["termination_code"] == Termination.BLOCKED


def test_no_mexican_train_variant_slot_never_legal():
    """docs/rules.md §1.7 use_mexican_train=False + contract point 3: slot P is never legal."""
    e = start(**MEXICAN_DEAL, use_mexican_train=False)
    act(e, (5, 9), 0)
    act(e, (6, 9), 0)
    act(e, (7, 9), 0)
    assert legal_moves(e) == ["DRAW"]  # (4,9) would only fit the (absent) Mexican train
    e2 = start(**MEXICAN_DEAL, use_mexican_train=False, first_turn="any")
    assert legal_moves(e2) == moves(e2, ((5, 9), 0), ((4, 9), 0))


@pytest.mark.parametrize("use_mexican", [False, True])
def test_mexican_slot_in_random_rounds(use_mexican):
    """docs/rules.md §1.7: over random legal play, slot P appears in a mask iff the Mexican train exists."""
    p = 4
    seen_mexican = False
    for seed in range(4):
        e = raw_env(num_players=p, max_pip=9, use_mexican_train=use_mexican, max_cycles=100000)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = 0
        while not all_done(e):
            _p, t, _n = dims(e)
            placements = [a for a in legal(e) if a < t * (p + 1)]
            if any(a % (p + 1) == p for a in placements):
                seen_mexican = True
            random_step(e, rng)
            steps += 1
            assert steps < 5000
    assert seen_mexican == use_mexican


# ---------------------------------------------------------------------------
# 1.5 end of round, scoring and rewards
# ---------------------------------------------------------------------------

OUT_HANDS = [[(4, 9)], [(1, 2), (3, 3)], [(0, 0), (5, 6)], [(7, 8)]]


def test_round_ends_when_last_tile_placed():
    """docs/rules.md §0 / 1.5: placing the last tile ends the round at once; winners = [that seat];
    each other seat scores the pips left in its hand; outcome rewards: winner +1, the three
    others share -1 (-1/3 each)."""
    e = start(OUT_HANDS, [(0, 1)])
    act(e, (4, 9), 0)
    assert all_terminated(e)
    assert state(e).round_over
    assert_round(e, "went_out", [0], [0, 9, 11, 15], [0, 9, 11, 15])
    expected = [1.0, -1 / 3, -1 / 3, -1 / 3]
    assert rewards_of(e) == pytest.approx(expected)
    assert cumulative_of(e) == pytest.approx(expected)


def test_points_reward_is_minus_points_over_100():
    """Contract rewards: reward="points": every seat gets -(its points this round)/100;
    double_blank_points=10 counts the (0,0) as 10 (docs/rules.md §1.5)."""
    e = start(OUT_HANDS, [(0, 1)], reward="points", double_blank_points=10)
    act(e, (4, 9), 0)
    assert_round(e, "went_out", [0], [0, 9, 21, 15], [0, 9, 21, 15])
    expected = [0.0, -0.09, -0.21, -0.15]
    assert rewards_of(e) == pytest.approx(expected)
    assert cumulative_of(e) == pytest.approx(expected)


def test_going_out_on_another_seats_marked_train_ends_round():
    """docs/rules.md §0 / 1.5: the round ends whatever train took the last tile (here seat 0's
    marked train, slot 1 seen from seat 1)."""
    e = start([[(1, 2), (3, 4)], [(5, 9)]], [(6, 7)], first_turn="any")
    draw(e)
    pass_(e)
    assert legal_moves(e) == moves(e, ((5, 9), 0), ((5, 9), 1), ((5, 9), 2))
    act(e, (5, 9), 1)
    assert all_terminated(e)
    assert train(e, 0) == [(9, 5)]
    assert_round(e, "went_out", [1], [23, 0], [23, 0])
    assert cumulative_of(e) == pytest.approx([-1.0, 1.0])


@pytest.mark.parametrize("doubles", ["satisfy", "double_double", "chain", "no_cover"])
def test_last_tile_double_ends_round_without_cover(doubles):
    """docs/rules.md §0 and 1.4 ("In every mode: if the tile placed was the player's last, the round
    ends at once"): a double as last tile wins although it would otherwise oblige."""
    e = start([[(4, 9), (4, 4)], [(1, 9), (2, 3), (5, 6)]], [(0, 7)], doubles=doubles)
    act(e, (4, 9), 0)
    assert legal_moves(e) == moves(e, ((1, 9), 0))
    act(e, (1, 9), 0)
    assert legal_moves(e) == moves(e, ((4, 4), 0))
    act(e, (4, 4), 0)
    assert all_terminated(e)
    assert_round(e, "went_out", [0], [0, 16], [0, 16])


def test_covering_own_double_with_last_tile_ends_round():
    """docs/rules.md §1.4 satisfy + 0: the cover of one's own double may be the last tile; the round
    ends at once."""
    e = start([[(4, 9), (4, 4), (1, 4)], [(1, 9), (2, 3), (5, 6)]], [(0, 7)])
    act(e, (4, 9), 0)
    act(e, (1, 9), 0)
    act(e, (4, 4), 0)
    assert legal_moves(e) == moves(e, ((1, 4), 0))
    act(e, (1, 4), 0)
    assert all_terminated(e)
    assert train(e, 0) == [(9, 4), (4, 4), (4, 1)]
    assert_round(e, "went_out", [0], [0, 16], [0, 16])


def test_double_not_last_tile_obliges_cover_contrast():
    """docs/rules.md §1.4 satisfy (contrast to the test above): the same double, when it is not the
    last tile, does not end the round and the player must now cover it (here: DRAW only)."""
    e = start([[(4, 9), (4, 4), (1, 2)], [(1, 9), (2, 3), (5, 6)]], [(0, 7)])
    act(e, (4, 9), 0)
    act(e, (1, 9), 0)
    act(e, (4, 4), 0)
    assert not all_terminated(e)
    assert e.agent_selection == "player_0"
    assert legal_moves(e) == ["DRAW"]


def test_drawn_double_gives_a_new_obligation_and_one_new_draw():
    """docs/rules.md §1.3.3 + 1.4 satisfy + contract points 2 and 5: a drawn double that fits must
    be placed; covering it is a new obligation that allows one new draw; a drawn cover must be
    placed on that double; the turn then ends."""
    e = start([[(4, 9), (1, 2)], [(8, 9), (0, 1), (2, 3)]], [(4, 4), (4, 6), (5, 7)])
    act(e, (4, 9), 0)
    act(e, (8, 9), 0)
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((4, 4), 0))
    act(e, (4, 4), 0)
    assert e.agent_selection == "player_0"
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((4, 6), 0))
    act(e, (4, 6), 0)
    assert train(e, 0) == [(9, 4), (4, 4), (4, 6)]
    assert list(state(e).open_doubles) == []
    assert e.agent_selection == "player_1"
    assert not state(e).has_marker(0)


def test_drawn_double_left_open_after_second_draw_fails():
    """docs/rules.md §1.4 satisfy: the second draw does not cover -> PASS only, marker down, the
    double stays open and the next player may only cover it (here after its own draw)."""
    e = start([[(4, 9), (1, 2)], [(8, 9), (0, 1), (2, 3)]], [(4, 4), (5, 7), (3, 4)])
    act(e, (4, 9), 0)
    act(e, (8, 9), 0)
    draw(e)
    act(e, (4, 4), 0)
    draw(e)
    assert legal_moves(e) == ["PASS"]
    pass_(e)
    assert state(e).has_marker(0)
    assert list(state(e).open_doubles) == [0]
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((3, 4), 1))


def test_may_play_governs_draws_while_covering():
    """Contract point 2 ("drawn_tile governs every draw, including draws while covering open
    doubles") + docs/rules.md §1.3.3 may_play: a drawn cover may be kept; the pass marks the train
    and the double stays open, freezing the table for the next player (1.4)."""
    e = start(
        [[(4, 9), (4, 4), (1, 2)], [(1, 9), (3, 9), (2, 3)]],
        [(4, 6), (0, 0)],
        drawn_tile="may_play",
    )
    act(e, (4, 9), 0)
    act(e, (1, 9), 0)
    act(e, (4, 4), 0)
    assert legal_moves(e) == ["DRAW"]
    draw(e)
    assert legal_moves(e) == moves(e, ((4, 6), 0), "PASS")
    pass_(e)
    assert state(e).has_marker(0)
    assert list(state(e).open_doubles) == [0]
    # seat 1 holds (3,9) for the Mexican train, but the table is frozen: DRAW only
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == ["DRAW"]


BLOCK_HANDS = [[(5, 9), (1, 2), (0, 0)], [(3, 4)], [(0, 1), (0, 2)]]


def test_blocked_round_scores_fewest_pips_win_ties_shared():
    """docs/rules.md §1.5 + contract point 10: empty boneyard and nobody can ever place -> round
    "blocked"; everyone scores own pips; winners = all seats with the fewest pips;
    outcome rewards: the two winners share +1, the loser gets -1."""
    e = start(BLOCK_HANDS, [])
    act(e, (5, 9), 0)  # now nobody holds a 5 or a 9
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [0, 2], [3, 7, 3], [3, 7, 3])
    assert cumulative_of(e) == pytest.approx([0.5, -1.0, 0.5])


def test_blocked_round_points_reward():
    """Contract rewards, reward="points" on a blocked round: -(pips)/100 each."""
    e = start(BLOCK_HANDS, [], reward="points")
    act(e, (5, 9), 0)
    pass_until_over(e, limit=3)
    assert cumulative_of(e) == pytest.approx([-0.03, -0.07, -0.03])


def test_blocked_round_void():
    """docs/rules.md §1.5 variant blocked_round="void" + contract: winners [], nothing scored,
    outcome rewards 0 for all."""
    e = start(BLOCK_HANDS, [], blocked_round="void")
    act(e, (5, 9), 0)
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [], [3, 7, 3], [0, 0, 0])
    assert cumulative_of(e) == pytest.approx([0.0, 0.0, 0.0])


def test_blocked_round_double_blank_points():
    """docs/rules.md §1.5 double_blank_points=10 (seed 002): the 0-0 counts 10 pips; that changes
    the blocked-round winner."""
    e = start(BLOCK_HANDS, [], double_blank_points=10)
    act(e, (5, 9), 0)
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [2], [13, 7, 3], [13, 7, 3])
    assert cumulative_of(e) == pytest.approx([-0.5, -0.5, 1.0])


def test_blocked_without_boneyard_variant():
    """docs/rules.md §1.5 + 1.7: with use_boneyard=False nothing can be drawn, so a table where
    nobody can place is blocked although tiles are left over."""
    e = start([[(1, 2)], [(3, 4)]], [], use_boneyard=False)
    pass_until_over(e, limit=2)
    assert_round(e, "blocked", [0], [3, 7], [3, 7])


def test_not_blocked_while_a_new_marker_opens_a_placement():
    """Contract "Blocked = ... no player can ever place again": a cycle of passes is not
    the end when a pass just made a train public that another player can use.

    NOTE for the lead: docs/rules.md §1.5 literally says blocked = "every player in turn has passed
    since the last placement"; here seat 1 and seat 0 both pass after seat 0's placement, yet
    seat 0's pass marks its train and seat 1 can then place (3,6) on it. This test follows the
    contract (and seed 000: "ningún jugador tiene posibilidad de colocar fichas")."""
    e = start([[(1, 2), (3, 9)], [(4, 5), (3, 6)]], [], first_turn="any")
    act(e, (3, 9), 0)
    pass_(e)  # seat 1: nothing fits, seat 0's train private
    pass_(e)  # seat 0: nothing fits; its marker makes its train public
    assert not all_terminated(e)
    assert e.agent_selection == "player_1"
    assert legal_moves(e) == moves(e, ((3, 6), 1))


def test_blocked_by_an_open_double_nobody_can_cover():
    """docs/rules.md §1.4 + 1.5: an open double nobody can cover freezes the table; with an empty
    boneyard nobody can ever place again, although (3,9) would fit the Mexican train:
    blocked."""
    e = start([[(4, 9), (4, 4), (1, 2)], [(1, 9), (3, 9), (2, 3)]], [])
    act(e, (4, 9), 0)
    act(e, (1, 9), 0)
    act(e, (4, 4), 0)
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [0], [3, 17], [3, 17])


def test_blocked_from_the_start():
    """docs/rules.md §1.5: station 9, no hand tile has a 9, empty boneyard: blocked (the engine may
    end at once or after one full cycle of passes)."""
    e = start([[(1, 2)], [(3, 4)], [(0, 1)]], [])
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [2], [3, 7, 1], [3, 7, 1])


# ---------------------------------------------------------------------------
# 1.1 / 1.6 games of several rounds
# ---------------------------------------------------------------------------


def test_game_episode_next_round_after_going_out():
    """docs/rules.md §1.1 / 1.6 + contract (episode="game"): after round 0 (station 9) the next
    round has station 8, round_index 1, scores carry over, the round's winner acts first,
    no agent terminates; points rewards arrive mid-episode via _cumulative_rewards / last()."""
    e = start(
        [[(5, 9), (1, 2)], [(4, 9)], [(0, 1), (3, 3)]],
        [(6, 7)],
        episode="game",
        reward="points",
        max_cycles=100000,
    )
    act(e, (5, 9), 0)
    act(e, (4, 9), 0)  # seat 1 goes out
    assert_round(e, "went_out", [1], [3, 0, 7], [3, 0, 7])
    st = state(e)
    assert not any(e.terminations.values())
    assert not any(e.truncations.values())
    assert sorted(e.agents) == sorted(e.possible_agents)
    assert st.round_index == 1
    assert st.station == 8
    assert list(st.scores) == [3, 0, 7]
    assert st.current_player == 1
    assert e.agent_selection == "player_1"
    # fresh deal for round 1: domino_cubano double-9, 3 players: floor((55-1-6)/3) = 16
    assert [len(hand(e, s)) for s in range(3)] == [16, 16, 16]
    assert st.boneyard_size == 55 - 1 - 48
    assert all((8, 8) not in hand(e, s) for s in range(3))
    assert rewards_of(e) == pytest.approx([-0.03, 0.0, -0.07])
    assert cumulative_of(e) == pytest.approx([-0.03, 0.0, -0.07])
    rng = np.random.default_rng(0)

    def first_turn(agent):
        # first turn of each seat in round 1: only own-train starts from the new station 8
        # (DRAW / PASS when none): the first-turn restriction applies again (1.3.1)
        while e.agent_selection == agent:
            for m in legal_moves(e):
                assert m in ("DRAW", "PASS") or (m[1] == 0 and 8 in m[0]), legal_moves(e)
            random_step(e, rng)

    first_turn("player_1")
    assert e.agent_selection == "player_2"
    _obs, r, term, trunc, _info = e.last()
    assert r == pytest.approx(-0.07)
    assert not term and not trunc
    first_turn("player_2")
    assert e.agent_selection == "player_0"
    _obs, r, _term, _trunc, _info = e.last()
    assert r == pytest.approx(-0.03)
    first_turn("player_0")


def test_game_episode_after_blocked_round_fewest_pips_starts():
    """docs/rules.md §1.1: after a blocked round the player with the fewest pips starts; tie ->
    the earliest of them in turn order after the previous round's first player (seat 1 ->
    seat 2 before seat 0)."""
    e = start(
        [[(1, 2), (0, 0)], [(5, 9), (3, 4)], [(0, 1), (0, 2)]],
        [],
        first=1,
        episode="game",
        max_cycles=100000,
    )
    assert e.agent_selection == "player_1"
    act(e, (5, 9), 0)
    n = 0
    while state(e).round_index == 0:
        assert legal_moves(e) == ["PASS"]
        pass_(e)
        n += 1
        assert n <= 3
    assert not any(e.terminations.values())
    assert e.infos["player_0"]["termination_code"] == Termination.BLOCKED
    assert seats_of(e.infos["player_0"]["winners"]) == [0, 2]
    assert state(e).station == 8
    assert list(state(e).scores) == [3, 7, 3]
    assert state(e).current_player == 2
    assert e.agent_selection == "player_2"


def test_game_episode_full_random_game():
    """docs/rules.md §1.6 (default game): stations 9, 8, ..., 0 (N+1 rounds), scores add up round
    by round, the episode ends after the 0-0 round; the points rewards summed over the
    episode equal -(final total)/100 per seat."""
    p = 2
    e = raw_env(num_players=p, max_pip=9, episode="game", reward="points", max_cycles=1_000_000)
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    stations = [state(e).station]
    totals = [0] * p
    reward_sum = [0.0] * p
    rounds = 0
    steps = 0
    while not all_done(e):
        ri = state(e).round_index
        random_step(e, rng)
        steps += 1
        assert steps < 100000
        reward_sum = [
            r + float(e.rewards.get(a, 0.0))
            for r, a in zip(reward_sum, e.possible_agents, strict=True)
        ]
        if all_done(e) or state(e).round_index != ri:
            rounds += 1
            info = e.infos["player_0"]
            totals = [t + q for t, q in zip(totals, info["pips"], strict=True)]
            assert list(info["scores"]) == totals
            if not all_done(e):
                assert state(e).round_index == rounds
                stations.append(state(e).station)
    assert not any(e.truncations.values())
    assert stations == list(range(9, -1, -1))
    assert rounds == 10
    assert list(state(e).scores) == totals
    assert reward_sum == pytest.approx([-t / 100 for t in totals])


def test_game_episode_outcome_reward_only_at_game_end():
    """Contract rewards + docs/rules.md §1.6: with episode="game" and reward="outcome", rounds give
    no reward; at the end the lowest total wins: winner +1, the other -1 (2 players)."""
    e = raw_env(num_players=2, max_pip=9, episode="game", max_cycles=1_000_000)
    e.reset(seed=11)
    rng = np.random.default_rng(11)
    steps = 0
    while not all_done(e):
        random_step(e, rng)
        steps += 1
        assert steps < 100000
        if not all_done(e):
            assert rewards_of(e) == [0.0, 0.0], (steps, state(e).round_index)
    totals = list(state(e).scores)
    assert state(e).round_index == 9 and state(e).station == 0
    assert totals[0] != totals[1], "pick another seed: tie"
    winner = 0 if totals[0] < totals[1] else 1
    expected = [-1.0, -1.0]
    expected[winner] = 1.0
    assert rewards_of(e) == pytest.approx(expected)
    assert cumulative_of(e) == pytest.approx(expected)


def test_game_elimination():
    """docs/rules.md §1.6 variant game_end="elimination": after a round, a seat whose total reached
    the limit is out (never acts again); the game ends when one player is left (or all
    remaining cross together: lowest total wins)."""
    limit = 5
    e = start(
        [[(4, 9)], [(3, 4), (5, 6)], [(0, 1), (0, 2)]],
        [(7, 8)],
        episode="game",
        game_end="elimination",
        elimination_limit=limit,
        max_cycles=1_000_000,
    )
    act(e, (4, 9), 0)
    assert_round(e, "went_out", [0], [0, 18, 3], [0, 18, 3])
    assert not all_done(e)  # seats 0 and 2 remain
    assert not e.terminations["player_0"] and not e.terminations["player_2"]
    assert state(e).station == 8
    reward_sum = cumulative_of(e)
    # the eliminated seat may be terminated now (AEC dead step), the others never are
    while e.terminations.get(e.agent_selection) or e.truncations.get(e.agent_selection):
        assert e.agent_selection == "player_1"
        e.step(None)
    assert e.agent_selection == "player_0"  # round winner starts
    rng = np.random.default_rng(1)
    steps = 0
    while not all_done(e):
        ri = state(e).round_index
        ag = e.agent_selection
        if ag == "player_1":
            assert e.terminations.get(ag) or e.truncations.get(ag), "eliminated seat 1 acts"
        random_step(e, rng)
        steps += 1
        assert steps < 100000
        reward_sum = [
            r + float(e.rewards.get(a, 0.0))
            for r, a in zip(reward_sum, e.possible_agents, strict=True)
        ]
        if not all_done(e) and state(e).round_index != ri:
            below = [s for s in range(3) if state(e).scores[s] < limit]
            assert len(below) >= 2, f"game should have ended: scores {list(state(e).scores)}"
    final = list(state(e).scores)
    below = [s for s in range(3) if final[s] < limit]
    assert len(below) <= 1, final
    assert not any(e.truncations.values())
    if below:
        winner = below[0]
    else:
        winner = min((0, 2), key=lambda s: final[s])
    # contract (reward="outcome"): the game winner gets +1, the others (the eliminated seat 1
    # included: it lost the game) share -1 equally
    expected = [-0.5, -0.5, -0.5]
    expected[winner] = 1.0
    assert reward_sum == pytest.approx(expected)


def test_elimination_stations_wrap_around():
    """docs/rules.md §1.6 elimination: the stations continue N..0 and then again from N (seed 002:
    "La 13a ronda comienza con el 0 doble y la 14a de nuevo con el 12 doble")."""
    e = raw_env(
        num_players=2,
        max_pip=9,
        episode="game",
        game_end="elimination",
        elimination_limit=2000,
        max_cycles=10_000_000,
    )
    e.reset(seed=7)
    rng = np.random.default_rng(7)
    stations = [state(e).station]
    steps = 0
    while not all_done(e):
        ri = state(e).round_index
        random_step(e, rng)
        steps += 1
        assert steps < 1_000_000
        if not all_done(e) and state(e).round_index != ri:
            stations.append(state(e).station)
    assert len(stations) > 10, "limit too low for this check"
    assert stations == [9 - (r % 10) for r in range(len(stations))]


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
