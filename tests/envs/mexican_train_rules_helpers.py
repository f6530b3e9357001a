"""Independent helpers shared by the Mexican Train rule tests (docs/rules.md §0 and the contract's
action layout), computed here from the formulas, independently of the library (not from
``domino_env.core.tiles``):

* canonical order (0,0), (0,1), ..., (0,N), (1,1), ..., (N,N);
* action ``tile_index * (P + 1) + slot``, slot k = train of seat (actor + k) % P, slot P = the
  Mexican train; DRAW = T * (P + 1), PASS = T * (P + 1) + 1.

The tests name their moves in one of two ways, each with its own helpers on top of these: by
slot, seen from the actor (``mexican_train_slot_helpers``), or by the train's owner seat, "M" for
the Mexican train (``mexican_train_seat_helpers``).
"""

from __future__ import annotations

import numpy as np


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


def tile_from_index(i: int, n: int) -> tuple[int, int]:
    """Inverse of tile_index, by walking the rows."""
    for a in range(n + 1):
        row = n + 1 - a
        if i < row:
            return (a, a + i)
        i -= row
    raise IndexError(i)


def canon(t) -> tuple[int, int]:
    return (min(t), max(t))


def draw_action(env) -> int:
    """T * (P + 1) (contract: Agents and actions)."""
    state = env.unwrapped.game_state
    return tile_count(state.config.max_pip) * (state.num_players + 1)


def pass_action(env) -> int:
    return draw_action(env) + 1


def legal(env) -> list[int]:
    """Sorted nonzero indices of the acting agent's mask."""
    mask = np.asarray(env.observe(env.agent_selection)["action_mask"])
    return sorted(int(i) for i in np.flatnonzero(mask))


def hand(env, seat: int) -> list[tuple[int, int]]:
    return [canon(t) for t in env.unwrapped.game_state.hand_tiles(seat)]
