"""Opponent-model weights for line-game determinizations (``search`` with ``infer > 0``).

The belief sampler (:mod:`domino_env.core.belief`) deals the unseen tiles uniformly among the
deals consistent with the public record. Players are not indifferent to which tile they place,
though: they shed heavy tiles first. Seen from a determinization, a seat that placed a light tile
while also holding fitting heavy ones is less likely than one that had nothing heavier, so the
deals are re-weighted by how likely the other seats' public placements were under a simple model
of play:

    P(placement of tile t | the seat's hand then, the ends then) = exp(beta * pips(t)) / sum over
    the seat's legal placements u then of exp(beta * pips(u))

(the "heavy tiles first" softmax, model ``"heavy"``; ``beta`` per pip, 0 = uniform, large =
greedy). Model ``"planner"`` scores each legal placement u (a tile on an end) by the first three
rules of the line planner (:class:`~domino_env.agents.line.LinePlannerAgent`, with its default
weights) instead of its pips alone:

    score(u) = pips(u) + 2 x [u is a double] + 3 x min(3, tiles left in the hand that fit the
    ends after u)

so a seat that kept tiles of the suits it opened is likelier than one that did not, and
``P(u) = exp(beta * score(u)) / sum_v exp(beta * score(v))``. The weight of a deal is the product
over every placement of the round by a seat other than the observer that had a choice. A seat's
hand at a past decision is, in the deal, its hand now plus the tiles it placed from then on; the
model is the same for every seat and never looks at who the seat is.

Applies to rounds without draws (block, Cuban; a round whose record has a DRAW gets weight 1 for
every deal). ``tests/agents/test_line_solver.py`` checks the weights against hand-computed
values.
"""

from __future__ import annotations

import math
from typing import Any

from domino_env.core.deal import bits
from domino_env.core.line import LineState

from .line_planner import LinePlannerAgent

#: Opponent models of :func:`log_weight` (module docstring).
OPPONENT_MODELS = ("heavy", "planner")


def placements(public: LineState, observer: int) -> list[tuple[int, int, int, int, int]] | None:
    """The round's placements by seats other than ``observer``: ``(seat, left, right, tile,
    end)`` with the ends before the placement and the end played (0 left, 1 right; the lead,
    ``left = -1``, is skipped: a lead has no ends to fit, and a forced lead no choice). ``None``
    when the round has a DRAW."""
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
            out.append((seat, left, right, tile, end))
        if left < 0:
            left, right = a, b
        elif end == 0:
            left = a if b == left else b
        else:
            right = b if a == right else a
        seat = (seat + 1) % p
    return out


def log_weight(
    world: LineState, moves: list[tuple[int, int, int, int, int]], beta: float, model: str = "heavy"
) -> float:
    """Log-likelihood of ``moves`` (from :func:`placements`) in the deal of ``world`` under the
    softmax of opponent model ``model`` (:data:`OPPONENT_MODELS`, module docstring)."""
    t = world._t
    values, pm = t.values, t.pip_masks
    later = [0] * world.num_players  # tiles each seat placed after the decision being scored
    total = 0.0
    for seat, left, right, tile, end in reversed(moves):
        later[seat] |= 1 << tile
        hand = world.hands[seat] | later[seat]
        fit_l = hand & pm[left]
        fit_r = 0 if left == right else hand & pm[right]
        if (fit_l | fit_r) == 1 << tile and not (fit_l and fit_r):
            continue  # a single legal placement: no choice, no evidence
        if model == "planner":
            total += _planner_log_p(t, hand, left, right, fit_l, fit_r, tile, end, beta)
            continue
        # log-sum-exp around the heaviest fitting tile: no overflow for any finite beta
        heavy = [values[i] for fit in (fit_l, fit_r) for i in bits(fit)]
        top = max(heavy)
        z = sum(math.exp(beta * (v - top)) for v in heavy)
        total += beta * (values[tile] - top) - math.log(z)
    return total


def _planner_log_p(t: Any, hand: int, left: int, right: int, fit_l: int, fit_r: int, tile: int,
                   end: int, beta: float) -> float:
    """log P(tile on end | hand, ends) under the ``"planner"`` model (module docstring)."""
    values, pm, tiles = t.values, t.pip_masks, t.tiles
    lp = LinePlannerAgent  # the planner's own weights (class attributes), not copies

    def score(i: int, e: int) -> float:
        a, b = tiles[i]
        old = left if e == 0 else right
        new = b if a == old else a
        ends = pm[new] | pm[right if e == 0 else left]
        fit = min(lp.fit_cap, (hand & ~(1 << i) & ends).bit_count())
        return lp.w_pips * values[i] + (lp.w_double if a == b else 0.0) + lp.w_fit * fit

    scores = [score(i, e) for e, fit in ((0, fit_l), (1, fit_r)) for i in bits(fit)]
    top = max(scores)
    z = sum(math.exp(beta * (s - top)) for s in scores)
    played = score(tile, end if left != right else 0)
    return beta * (played - top) - math.log(z)


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
