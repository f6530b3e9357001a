"""Move helpers of the Mexican Train rule tests that name a train by its slot, seen from the actor
(contract: Agents and actions): slot 0 is the actor's own train, slot k is the train of seat
(actor + k) % P, slot P is the Mexican train. A move reads ((a, b), slot), "DRAW" or "PASS";
``start`` is a ``raw_env`` on a hand-built position. Used by the turn, public-train, scoring, game
and set-up tests; the tile and action arithmetic is in ``mexican_train_rules_helpers``.

Source of truth: ``docs/rules.md`` sections 0 and 1.  These tests only use the public
environment contract (``raw_env``, the action mask, ``step`` and the read-only
``env.unwrapped.game_state`` accessors) and ``domino_env.core.tiles``.

Conventions used below: seat i is ``player_i``, slot 0 is the actor's own train, slot k is the
train of seat (actor + k) % P, slot P is the Mexican train.
"""

from __future__ import annotations

from mexican_train_rules_helpers import (
    canon,
    draw_action,
    legal,
    pass_action,
    tile_count,
    tile_from_index,
    tile_index,
)

from domino_env.envs.infos import Termination, seats_of
from domino_env.envs.mexican_train_v0 import raw_env


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


def decode(env, a: int):
    """Readable form of an action int: ((a, b), slot), "DRAW" or "PASS"."""
    p, t, n = dims(env)
    if a == t * (p + 1):
        return "DRAW"
    if a == t * (p + 1) + 1:
        return "PASS"
    return (tile_from_index(a // (p + 1), n), a % (p + 1))


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
