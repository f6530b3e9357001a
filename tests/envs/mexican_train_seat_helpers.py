"""Move helpers of the Mexican Train rule tests that name a train by its owner's seat, "M" for the
Mexican train: a move reads ((a, b), train), "DRAW" or "PASS"; ``expect`` checks that the acting
seat's mask is exactly a set of such moves; ``make`` and ``deal`` set up a hand-built position.
Used by the doubles, station, preset and record tests; the tile and action arithmetic is in
``mexican_train_rules_helpers``.

Written from docs/rules.md (sections 0 and 1) and the public env contract, not from
the engine's code. Tile indices and action ints are computed from the formulas of
docs/rules.md §0 and the contract (independent of ``domino_env.core.tiles``) by the helpers in
``mexican_train_rules_helpers``; moves name a train by its owner's seat, "M" for the Mexican
train (``mexican_train_seat_helpers``).

Scenario notation used in the comments: "s0 (9,3)->0" = seat 0 places tile 9-3 on the train
of seat 0; "M" = the Mexican train. All deals use the double-9 set, station 9-9, unless noted.
Tiles that appear in no hand and not in the boneyard are out of play for the round.
"""

from __future__ import annotations

import numpy as np
from mexican_train_rules_helpers import (
    canon,
    draw_action,
    legal,
    pass_action,
    tile_from_index,
    tile_index,
)

from domino_env.envs.mexican_train_v0 import raw_env

M = "M"  # the Mexican train, in expected-move sets
DRAW = "DRAW"
PASS = "PASS"


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
