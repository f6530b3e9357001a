"""Independent helpers of the line-game rule tests (block, draw, Cuban; docs/rules.md §0 and the
contract's action layout), computed independently of the library: action = tile_index * 2 + end
(end 0 = left, the only end for the lead; end 1 = right), DRAW = 2T, PASS = 2T + 1,
ANNUL = 2T + 2. Also the deals and plays that several rule sections share.

Source of truth: ``docs/rules.md`` sections 0 and 2 (seeds 001 "Domino Cubano", 003 "Dominó
6-9-12", 004 "Dominó Exprés"), plus the lead's decisions in ``docs/rules.md``.  Only the
public contract is used: ``raw_env``, the action mask, ``step``, ``infos``, rewards, the
observation (decoded with ``decode_line_observation``) and the read-only ``env.unwrapped.game_state``.
Tile indices and action ints are computed by the helpers in ``line_rules_helpers``, independently
of the library: action = tile_index * 2 + end (end 0 = left, the only end for the lead; end 1 =
right), DRAW = 2T, PASS = 2T + 1, ANNUL = 2T + 2.
"""

from __future__ import annotations

import numpy as np

from domino_env.encoding.line import decode_line_observation
from domino_env.envs import block_v0, cuban_v0, draw_v0


def all_tiles(n: int) -> list[tuple[int, int]]:
    """Canonical order (0,0), (0,1), ..., (0,N), (1,1), ..., (N,N) (docs/rules.md §0)."""
    return [(a, b) for a in range(n + 1) for b in range(a, n + 1)]


def tile_count(n: int) -> int:
    return (n + 1) * (n + 2) // 2


def tidx(tile, n: int) -> int:
    """Closed-form canonical index of a tile."""
    a, b = min(tile), max(tile)
    return a * (n + 1) - a * (a - 1) // 2 + (b - a)


def N(env) -> int:
    return env.unwrapped.game_state.config.max_pip


def place(env, tile, end: int) -> int:
    return 2 * tidx(tile, N(env)) + end


def DRAW(env) -> int:
    return 2 * tile_count(N(env))


def PASS(env) -> int:
    return DRAW(env) + 1


def ANNUL(env) -> int:
    return DRAW(env) + 2


def legal(env) -> list[int]:
    mask = np.asarray(env.observe(env.agent_selection)["action_mask"])
    return sorted(int(i) for i in np.flatnonzero(mask))


def seat(env) -> int:
    return int(env.agent_selection.rsplit("_", 1)[1])


def expect(env, *items) -> list[int]:
    """Sorted action ints of items: (tile, end), "DRAW", "PASS" or "ANNUL"."""
    out = []
    for it in items:
        if it == "DRAW":
            out.append(DRAW(env))
        elif it == "PASS":
            out.append(PASS(env))
        elif it == "ANNUL":
            out.append(ANNUL(env))
        else:
            out.append(place(env, *it))
    return sorted(out)


def step(env, item) -> None:
    a = expect(env, item)[0]
    assert a in legal(env), f"{item} not legal for {env.agent_selection}; legal={legal(env)}"
    env.step(a)


def canon(t):
    return [min(t), max(t)]


def deal(hands, boneyard=(), first=None) -> dict:
    d = {"hands": [[canon(t) for t in h] for h in hands], "boneyard": [canon(t) for t in boneyard]}
    if first is not None:
        d["first_player"] = first
    return d


def make(kind="block", deal_=None, deals=None, **kw):
    mod = {"block": block_v0, "draw": draw_v0, "cuban": cuban_v0}[kind]
    env = mod.raw_env(**kw)
    if deals is not None:
        env.reset(seed=0, options={"deals": deals})
    else:
        env.reset(seed=0, options={"deal": deal_})
    return env


def pips(hand) -> int:
    return sum(a + b for a, b in hand)


def obs_of(env, observer: int) -> dict:
    st = env.unwrapped.game_state
    o = env.observe(f"player_{observer}")["observation"]
    return decode_line_observation(o, st.num_players, st.config.max_pip)


def missing_row(env, observer: int, other: int) -> set[int]:
    """Pips the observer's observation says seat `other` is known to lack."""
    st = env.unwrapped.game_state
    k = (other - observer) % st.num_players
    row = np.asarray(obs_of(env, observer)["missing_pips"]).reshape(st.num_players - 1, -1)[k - 1]
    return {int(i) for i in np.flatnonzero(row)}


def info(env):
    return env.infos["player_0"]


# A full 4 x 7 double-6 deal with 6-6 in seat 2's hand.
FULL4 = [
    [(0, 0), (0, 1), (1, 1), (2, 5), (3, 4), (1, 6), (4, 4)],
    [(0, 2), (0, 3), (1, 2), (2, 2), (3, 5), (4, 6), (5, 5)],
    [(6, 6), (0, 4), (1, 3), (2, 3), (2, 6), (3, 6), (4, 5)],
    [(0, 5), (0, 6), (1, 4), (1, 5), (2, 4), (3, 3), (5, 6)],
]


# ---------------------------------------------------------------------------
# Deals and plays shared by several rule sections
# ---------------------------------------------------------------------------

DOMINO3 = [[(6, 6), (1, 4)], [(5, 6), (3, 3)], [(4, 5), (2, 2)]]


def _play_domino3(env):
    step(env, ((6, 6), 0))
    step(env, ((5, 6), 0))
    step(env, ((4, 5), 0))
    assert env.unwrapped.game_state.ends == (4, 6)
    step(env, ((1, 4), 0))


DOMINO4 = [[(6, 6), (1, 4)], [(5, 6), (3, 3)], [(4, 5), (2, 2)], [(0, 0), (0, 1)]]


def _play_domino4(env):
    step(env, ((6, 6), 0))
    step(env, ((5, 6), 0))
    step(env, ((4, 5), 0))
    assert legal(env) == expect(env, "PASS")  # seat 3 holds no 4 or 6; seat 0 still can play
    step(env, "PASS")
    step(env, ((1, 4), 0))


def _blocked_deal(hands_rest, leader):
    """Leader holds 0-0 and leads it; no other 0-tile is dealt: blocked right after the lead."""
    hands = [list(h) for h in hands_rest]
    hands[leader] = [(0, 0)] + hands[leader]
    for h in hands:
        assert all(0 not in t for t in h if t != (0, 0))
    return deal(hands, first=leader)
