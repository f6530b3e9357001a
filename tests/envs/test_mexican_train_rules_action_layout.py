"""Mexican Train tiles and the action layout (docs/rules.md §0 and the contract's Agents and
actions), written from the rules: the independent helpers' canonical tile order
(``mexican_train_rules_helpers``), the library's tile conversion checked against it both ways,
and the action ints checked through the env's mask.

Source of truth, contract and notation: the docstring of ``mexican_train_slot_helpers``.
"""

from __future__ import annotations

import numpy as np
import pytest
from mexican_train_rules_helpers import (
    all_tiles,
    canon,
    draw_action,
    legal,
    pass_action,
    tile_count,
    tile_from_index,
    tile_index,
)
from mexican_train_rules_helpers import tile_from_index as tile_at  # the name used below
from mexican_train_slot_helpers import act, deal, legal_moves, pass_

from domino_env.envs.mexican_train_v0 import raw_env

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


def test_helper_tile_index_roundtrip():
    """docs/rules.md §0: canonical order, index <-> tile both ways (checks this file's helpers)."""
    for n in (6, 9, 12, 15, 18):
        tiles = [(a, b) for a in range(n + 1) for b in range(a, n + 1)]
        assert len(tiles) == tile_count(n)
        for i, t in enumerate(tiles):
            assert tile_index(*t, n) == i
            assert tile_index(t[1], t[0], n) == i
            assert tile_from_index(i, n) == t


@pytest.mark.parametrize(("num_players", "max_pip"), [(2, 9), (4, 12), (8, 15)])
def test_library_action_codec_layout_and_words(num_players, max_pip):
    """Contract (Agents and actions): placement = tile * (P + 1) + slot, then DRAW = T * (P + 1) and
    PASS = T * (P + 1) + 1, through the library's own codec (encode_action, decode_action,
    describe_action); its round-trip test steps by 7 and so never met DRAW or PASS, and checked the
    words of slot P only."""
    from domino_env.core.errors import DominoError
    from domino_env.encoding.mexican_train import (
        action_count,
        decode_action,
        describe_action,
        encode_action,
    )

    t, slots = tile_count(max_pip), num_players + 1
    assert action_count(num_players, max_pip) == t * slots + 2
    assert encode_action(None, "draw", num_players, max_pip) == t * slots
    assert encode_action((1, 2), "pass", num_players, max_pip) == t * slots + 1  # the tile is ignored
    assert decode_action(t * slots, num_players, max_pip) == ("draw", None, None)
    assert decode_action(t * slots + 1, num_players, max_pip) == ("pass", None, None)
    assert [describe_action(t * slots + k, num_players, max_pip) for k in (0, 1)] == ["draw", "pass"]
    tile = all_tiles(max_pip)[-2]  # (N-1, N)
    for slot in range(slots):
        action = tile_index(*tile, max_pip) * slots + slot
        assert encode_action(tile[::-1], slot, num_players, max_pip) == action
        assert decode_action(action, num_players, max_pip) == ("place", tile, slot)
    words = [describe_action(tile_index(*tile, max_pip) * slots + slot, num_players, max_pip) for slot in range(slots)]
    where = ["own train"] + [f"train of seat +{k}" for k in range(1, num_players)] + ["Mexican train"]
    assert words == [f"place {tile[0]}-{tile[1]} on slot {k} ({w})" for k, w in enumerate(where)]
    for outside in (-1, t * slots + 2):
        with pytest.raises(DominoError, match=rf"action {outside} outside 0\.\.{t * slots + 1}$"):
            decode_action(outside, num_players, max_pip)
    with pytest.raises(DominoError, match=rf"slot must be 0\.\.{num_players}, 'draw' or 'pass', got 'mexican'"):
        encode_action(tile, "mexican", num_players, max_pip)
    with pytest.raises(DominoError, match="a placement needs a tile"):
        encode_action(None, 0, num_players, max_pip)
