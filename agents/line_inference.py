"""Opponent-model weights for line-game determinizations (``search`` with ``infer > 0``).

The belief sampler (:mod:`domino_env.core.belief`) deals the unseen tiles uniformly among the
deals consistent with the public record. Players are not indifferent to which tile they place,
though: they shed heavy tiles first. Seen from a determinization, a seat that placed a light tile
while also holding fitting heavy ones is less likely than one that had nothing heavier, so the
deals are re-weighted by how likely the other seats' public placements were under a simple model
of play:

    P(placement of tile t | the seat's hand then, the ends then) = exp(beta * pips(t)) / sum over
    the seat's legal placements u then of exp(beta * pips(u))

(the "heavy tiles first" softmax; ``beta`` per pip, 0 = uniform, large = greedy). The weight of a
deal is the product over every placement of the round by a seat other than the observer that had
a choice. A seat's hand at a past decision is, in the deal, its hand now plus the tiles it placed
from then on; the model is the same for every seat and never looks at who the seat is.

Applies to rounds without draws (block, Cuban; a round whose record has a DRAW gets weight 1 for
every deal). ``tests/agents/test_line_inference.py`` checks the weights against hand-computed
values.
"""

from __future__ import annotations

import math
from typing import Any

from domino_env.core.deal import bits
from domino_env.core.line import LineState


def placements(public: LineState, observer: int) -> list[tuple[int, int, int, int]] | None:
    """The round's placements by seats other than ``observer``: ``(seat, left, right, tile)``
    with the ends before the placement (``left = -1`` for the lead, which is skipped: a lead has
    no ends to fit, and a forced lead no choice). ``None`` when the round has a DRAW."""
    out = []
    seat, left, right = public.leader, -1, -1
    tiles = public._t.tiles
    p = public.num_players
    for action in public.actions[public.round_start :]:
        if action == public.annul_action:
            break
        if action == public.draw_action:
            return None
        if action == public.pass_action:
            seat = (seat + 1) % p
            continue
        tile, end = divmod(action, 2)
        a, b = tiles[tile]
        if left >= 0 and seat != observer:
            out.append((seat, left, right, tile))
        if left < 0:
            left, right = a, b
        elif end == 0:
            left = a if b == left else b
        else:
            right = b if a == right else a
        seat = (seat + 1) % p
    return out


def log_weight(world: LineState, moves: list[tuple[int, int, int, int]], beta: float) -> float:
    """Log-likelihood of ``moves`` (from :func:`placements`) in the deal of ``world`` under the
    heavy-first softmax (module docstring)."""
    t = world._t
    values, pm = t.values, t.pip_masks
    later = [0] * world.num_players  # tiles each seat placed after the decision being scored
    total = 0.0
    for seat, left, right, tile in reversed(moves):
        later[seat] |= 1 << tile
        hand = world.hands[seat] | later[seat]
        fit_l = hand & pm[left]
        fit_r = 0 if left == right else hand & pm[right]
        if (fit_l | fit_r) == 1 << tile and not (fit_l and fit_r):
            continue  # a single legal placement: no choice, no evidence
        # log-sum-exp around the heaviest fitting tile: no overflow for any finite beta
        heavy = [values[i] for fit in (fit_l, fit_r) for i in bits(fit)]
        top = max(heavy)
        z = sum(math.exp(beta * (v - top)) for v in heavy)
        total += beta * (values[tile] - top) - math.log(z)
    return total


def resample(worlds: list[Any], logw: list[float], k: int, rng: Any) -> list[Any]:
    """``k`` worlds drawn from ``worlds`` in proportion to ``exp(logw)`` (systematic resampling:
    one uniform draw from ``rng``)."""
    top = max(logw)
    w = [math.exp(x - top) for x in logw]
    s = sum(w)
    step = s / k
    u = float(rng.random()) * step
    out, acc, i = [], w[0], 0
    for _ in range(k):
        while u > acc and i < len(w) - 1:
            i += 1
            acc += w[i]
        out.append(worlds[i])
        u += step
    return out
