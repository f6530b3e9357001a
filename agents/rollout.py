"""Fast playouts on engine states, for search (:mod:`domino_env.agents.search`) and ``benchmarks/playouts.py``.

A playout plays a copied engine state (:class:`MexicanTrainState` or :class:`LineState`) to the
end of its round with a rollout policy applied to every seat and returns the round result. The
policies read the engine state directly (no observation is encoded or decoded), which is what
makes them fast; they see every hand, which is right inside a determinization (a sampled state
in which every tile is placed).

* ``"greedy"``: the heaviest legal placement (ties: the lowest action, i.e. the lowest tile
  index, then the own train / left end first); DRAW or PASS only when nothing can be placed
  (under ``drawn_tile="may_play"`` it places the drawn tile when it fits). ANNUL is never chosen.
* ``"block"`` (line games only): greedy plus ``BLOCK_BONUS`` pips for a placement after which
  the next seat holds no tile that fits the ends (in a determinization every hand is known, so a
  rollout can play to the ends the next player lacks, as the line planner estimates it does).
* ``"random"``: a uniform legal action from the given generator (ANNUL excluded).
* ``"plan"`` (Mexican Train only): the planner's idea at rollout speed. Each seat keeps a chain
  plan for its own train, built greedily (:func:`quick_chain`: from the open end, a double of the
  end's pip first, else the tile whose other pip is the best stocked in the rest of the hand;
  memoised per ``(open end, hand)`` in a ``plans`` dict the caller may share between playouts);
  it sheds its heaviest spare tile (not in the chain) on another train when it can, else plays
  the chain's next tile on its own train, else the heaviest legal placement. The plan is carried
  forward without a new search when the seat follows it, sheds a spare or draws.
* ``"planner"`` (Mexican Train only): every seat plays the ladder's planner
  (:class:`~domino_env.agents.mexican_train.PlannerAgent`) move, read from the engine state
  (:meth:`~domino_env.agents.mexican_train.PlannerAgent.state_move`: the same move as the
  planner given that seat's observation; tested move for move). About 12x dearer than ``"plan"``
  (its chain search runs at every decision with a choice), and an exact model of planner seats:
  stronger search at budget 100 (278 ms a decision), no stronger than ``"plan"`` at the same
  time per decision (docs/search_experiments.md#planner-rollouts-with-sampled-deals-mexican-train).

Rules are the engine's own: every action goes through ``state.apply`` (legality checked), so a
playout can never break a rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from domino_env.core.line import LineState

#: The policies that play each game family, and all of them.
LINE_POLICIES = ("greedy", "random", "block")
MEXICAN_POLICIES = ("greedy", "random", "plan", "planner")
ROLLOUT_POLICIES = tuple(dict.fromkeys(LINE_POLICIES + MEXICAN_POLICIES))


def playout(
    state: Any,
    policy: str = "greedy",
    rng: np.random.Generator | None = None,
    plans: dict | None = None,
    planner: Any = None,
) -> Any:
    """Play ``state`` (mutated in place: pass a copy) to the end of its round.

    Args:
        state: a ``MexicanTrainState`` or ``LineState`` whose round is running (or over).
        policy: one of :data:`ROLLOUT_POLICIES` (see the module docstring; ``"block"`` for line
            games, ``"plan"`` and ``"planner"`` for Mexican Train).
        rng: needed by ``"random"``.
        plans: ``"plan"``: memo ``{(seat's own open end, hand mask): chain}`` (a new dict when
            omitted; share one between playouts of one decision).
        planner: ``"planner"``: the :class:`~domino_env.agents.mexican_train.PlannerAgent` of the
            state's rules (built when omitted; reuse one: it memoises its chain searches).

    Returns:
        the round result (``state.round_result``).

    Raises:
        ValueError: unknown policy, a policy of the other game family (named as such, with this
            game's policies), or ``"random"`` without ``rng``.
    """
    if policy == "greedy":
        if isinstance(state, LineState):
            _greedy_line(state)
        else:
            _greedy_mexican(state)
    elif policy == "random":
        if rng is None:
            raise ValueError("policy 'random' needs an rng")
        _random(state, rng)
    elif policy == "block" and isinstance(state, LineState):
        _block_line(state)
    elif policy == "plan" and not isinstance(state, LineState):
        _plan_mexican(state, {} if plans is None else plans)
    elif policy == "planner" and not isinstance(state, LineState):
        if planner is None:
            from .mexican_train import PlannerAgent

            planner = PlannerAgent(state.config)
        move, apply = planner.state_move, state.apply
        while not state.round_over:
            apply(move(state))
    else:
        line = isinstance(state, LineState)
        kind, allowed = (
            ("line games", LINE_POLICIES) if line else ("Mexican Train", MEXICAN_POLICIES)
        )
        known = (
            "not a rollout policy of" if policy in ROLLOUT_POLICIES else "unknown rollout policy in"
        )
        raise ValueError(f"{policy!r}: {known} {kind}; allowed: {allowed}")
    return state.round_result


def _greedy_mexican(state: Any) -> None:
    values = state._t.values
    slots = state.num_players + 1
    draw = state.draw_action
    apply, legal_actions = state.apply, state.legal_actions
    while not state.round_over:
        legal = legal_actions()
        best = legal[0]
        if len(legal) > 1 and best < draw:
            bv = values[best // slots]
            for a in legal:
                if a >= draw:
                    break
                v = values[a // slots]
                if v > bv:
                    best, bv = a, v
        apply(best)


def _greedy_line(state: LineState) -> None:
    values = state._t.values
    draw = state.draw_action
    apply, legal_actions = state.apply, state.legal_actions
    while not state.round_over:
        legal = legal_actions()
        best = legal[0]
        if best >= draw:  # a forced DRAW or PASS (ANNUL only ever follows a placement)
            apply(best)
            continue
        bv = values[best >> 1]
        for a in legal:
            if a >= draw:
                break
            v = values[a >> 1]
            if v > bv:
                best, bv = a, v
        apply(best)


#: Pips a "block" rollout move earns when the next seat cannot play after it.
BLOCK_BONUS = 10


def _block_line(state: LineState) -> None:
    apply = state.apply
    while not state.round_over:
        apply(block_move(state))


def block_move(state: LineState) -> int:
    """The ``"block"`` rollout policy's action in ``state`` (a running line round): greedy plus
    ``BLOCK_BONUS`` pips for a placement after which the next seat holds no fitting tile."""
    legal = state.legal_actions()
    best = legal[0]
    draw = state.draw_action
    if best >= draw or len(legal) == 1:
        return best
    t = state._t
    values, tiles, pip_masks = t.values, t.tiles, t.pip_masks
    nxt = state.hands[(state.current_player + 1) % state.num_players]
    left, right = state.left, state.right
    bv = -1
    for a in legal:
        if a >= draw:
            break
        tile, end = a >> 1, a & 1
        x, y = tiles[tile]
        if left < 0:
            ends = pip_masks[x] | pip_masks[y]
        elif end == 0:
            ends = pip_masks[x if y == left else y] | pip_masks[right]
        else:
            ends = pip_masks[left] | pip_masks[y if x == right else x]
        v = values[tile] + (BLOCK_BONUS if not nxt & ends else 0)
        if v > bv:
            best, bv = a, v
    return best


def _random(state: Any, rng: np.random.Generator) -> None:
    annul = getattr(state, "annul_action", -1)
    while not state.round_over:
        legal = state.legal_actions()
        if legal[-1] == annul and len(legal) > 1:
            legal = legal[:-1]
        state.apply(legal[int(rng.integers(len(legal)))])


def quick_chain(end: int, hand: int, tables: Any) -> list[int]:
    """A chain of ``hand`` tiles (bitmask) from open end ``end``, built greedily: the end's double
    when held, else the fitting tile whose other pip is carried by the most remaining tiles (ties:
    the lower tile index). ``tables``: the engine's :class:`~domino_env.core.tiles.SetTables`."""
    pip_masks, tiles, doubles = tables.pip_masks, tables.tiles, _doubles(tables)
    chain = []
    h = hand
    while True:
        m = h & pip_masks[end]
        if not m:
            return chain
        d = doubles[end]
        if h >> d & 1:
            chain.append(d)
            h ^= 1 << d
            continue
        best, bo, bs = -1, -1, -1
        while m:
            low = m & -m
            t = low.bit_length() - 1
            m ^= low
            a, b = tiles[t]
            o = b if a == end else a
            score = (h & ~low & pip_masks[o]).bit_count()
            if score > bs:
                best, bo, bs = t, o, score
        chain.append(best)
        h ^= 1 << best
        end = bo


_DOUBLES: dict[int, list[int]] = {}


def _doubles(tables: Any) -> list[int]:
    n = len(tables.pip_masks)
    out = _DOUBLES.get(n)
    if out is None:
        out = _DOUBLES[n] = [
            (tables.pip_masks[v] & tables.double_mask).bit_length() - 1 for v in range(n)
        ]
    return out


def _plan_mexican(state: Any, plans: dict) -> None:
    values = state._t.values
    slots = state.num_players + 1
    draw = state.draw_action
    apply, legal_actions = state.apply, state.legal_actions
    hands, ends = state.hands, state.ends
    tables = state._t
    while not state.round_over:
        legal = legal_actions()
        first = legal[0]
        if len(legal) == 1 or first >= draw:
            seat = state.current_player
            if first == draw:  # keep the plan: the drawn tile is a spare
                key = (ends[seat], hands[seat])
                chain = plans.get(key)
                apply(first)
                if chain is not None:
                    plans.setdefault((ends[seat], hands[seat]), chain)
            else:
                apply(first)
            continue
        seat = state.current_player
        hand = hands[seat]
        key = (ends[seat], hand)
        chain = plans.get(key)
        if chain is None:
            chain = quick_chain(ends[seat], hand, tables)
            plans[key] = chain
        in_chain = 0
        for t in chain:
            in_chain |= 1 << t
        spare, sv = -1, -1
        follow = -1
        best, bv = first, -1
        nxt = chain[0] if chain else -1
        for a in legal:
            if a >= draw:
                break
            tile, slot = divmod(a, slots)
            v = values[tile]
            if slot != 0 and not in_chain >> tile & 1 and v > sv:
                spare, sv = a, v
            if slot == 0 and tile == nxt:
                follow = a
            if v > bv:
                best, bv = a, v
        if spare >= 0:
            choice, rest = spare, chain
        elif follow >= 0:
            choice, rest = follow, chain[1:]
        else:
            choice, rest = best, None
        apply(choice)
        if rest is not None and not state.round_over:
            plans.setdefault((ends[seat], hands[seat]), rest)
