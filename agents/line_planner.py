"""The line-game ``planner`` (block, draw, Cuban): it counts pips and suits, plays to the ends an
opponent is known to lack, helps its partner, closes the game only when it wins the count, and
has a search option (rollouts). Registered as ``planner`` by :mod:`domino_env.agents.line`, which
re-exports :class:`LinePlannerAgent`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from domino_env.core.config import LineConfig
from domino_env.core.errors import AgentSpecError, ConfigError, check_rng

from .base import check_count, check_mask_size, positive_int
from .line_base import LineSeatView, _LineAgent


class LinePlannerAgent(_LineAgent):
    """Counts pips and suits: scores every legal placement by what it leaves on the table.

    A *suit* is a pip value; "the ends" are the two open-end pips after the move. Every legal
    placement (the lead included) gets the score below; the highest wins (ties: the lowest
    action). Seats are read egocentrically from the observation; the hidden tiles are the
    *unseen* ones (neither in the hand nor on the table: the other hands, the boneyard and the
    tiles out of play).

    1. **Going out** wins the round: a move that empties the hand is taken at once.
    2. **Shed weight** (``w_pips`` per pip): heavier tiles first, as greedy, because the pips left
       in hand decide a blocked round and the score; a double earns ``w_double`` more (it fits only
       one suit, so it is the hardest tile to place later).
    3. **Keep control of its suits** (``w_fit`` per tile, at most ``fit_cap`` tiles): the tiles
       left in hand that fit the ends after the move, i.e. ends in the suits it holds most of, so
       it can play next turn too. A lead is chosen the same way: from its longest suit.
    4. **Play to the ends an opponent is known to lack** (``w_opp``): for every other seat, an
       estimate of the probability that it cannot play on the ends after the move. A seat known
       to lack both end values (observation field ``missing_pips``, from its passes and draws)
       cannot play: probability 1. Otherwise the unseen tiles that fit the ends and do not carry a
       value that seat lacks are each in its hand with probability ``hand size / eligible unseen
       tiles``, independently. Opponents count positively, the next seat to act most (weights
       ``seat_weights``: 1, 1/2, 1/4 for seats 1, 2, 3 places on).
    5. **Help the partner** (teams): the same probability for the partner counts negatively
       (``w_partner``): it avoids ends its partner is known to lack (blocking its partner) and
       prefers ends the partner may still hold. The observation carries no per-seat history, so
       the partner's suits are known only through what it lacks and the unseen tiles.
    6. **Close (block) the game only when it wins the count**: when, after the move, no tile that
       fits the ends is left in its hand and few unseen ones remain (<= ``close_unseen``), it
       samples ``samples`` deals of the unseen tiles to the other hands, the boneyard and out of
       play (hand sizes and boneyard size as observed; each seat gets only tiles without a value
       it is known to lack when possible), and estimates the probability ``c`` that the move
       closes the game (nobody, boneyard included, holds a fitting tile) and the probability
       ``v`` that it then wins the count (fewest pips, or the fewest team pips with teams, ties to
       the seat nearest the leader, as the rules say): the score gets ``w_close * c * (2v - 1)``:
       it closes when it would win the count and avoids closing when it would lose it.
    7. **ANNUL** (Cuban, 5+ doubles dealt): annuls when the hand is weak: at least ``annul_uncovered``
       of its doubles are *uncovered* (no other tile of the hand carries that double's pip, so the
       double can only be placed when someone else opens its suit). A hand whose doubles are
       backed by tiles of their suits controls those suits and is kept.
    8. DRAW or PASS only when they are the only legal actions (the rules force them).

    Weights (class attributes, so variants are one ``setattr`` away): ``w_pips`` 1 per pip,
    ``w_double`` 2, ``w_fit`` 3 per fitting tile up to ``fit_cap`` 3, ``w_opp`` 16, ``w_partner``
    8, ``seat_weights`` (0, 1, 1/2, 1/4), ``w_close`` 60 with ``close_unseen`` 4, and
    ``annul_uncovered`` 2. Tuned on tournaments against greedy (seed 7, not the reported seed 0):
    the opponent term (4) is what beats greedy; ``w_opp`` 16 rather than 8 helped the draw game.

    **Search option** (``rollouts > 0``, ``make_agent("planner:search")`` = 32 rollouts; off in
    the ladder's ``planner``): the rule scores above become a prior; each move is then also played
    out in ``rollouts`` sampled deals of the unseen tiles (as in rule 6), every seat playing greedy
    to the end of the round, and the move's score is its win frequency plus ``rollout_prior`` x
    rule score / 100. Measured against greedy it is much stronger in the block game with 4
    players and in the draw game, about the same with 2-player block, and *weaker* in Cuban with
    teams (docs/agents.md, "The search option"), so the ladder keeps the rules alone.

    Args:
        config: the rules (anything :func:`domino_env.agents.base.as_config` accepts that gives a
            :class:`LineConfig`).
        samples: deals sampled for the closing estimate (rule 6): an integer >= 1.
        rollouts: deals sampled per decision for the search option (0 = off): an integer >= 0.

    Raises:
        ConfigError: ``config`` does not give line-game rules (None: the block preset), or
            ``samples`` / ``rollouts`` is out of range or not an integer; when
            called, an ``action_mask`` whose length is not the rules' ``2T + 3`` actions, or with
            no legal action; an ``rng`` that is not a ``numpy.random.Generator`` when it samples
            deals (rule 6, the search option).
    """

    name = "planner"

    w_pips = 1.0
    w_double = 2.0
    w_fit = 3.0
    fit_cap = 3
    w_opp = 16.0
    w_partner = 8.0
    seat_weights = (0.0, 1.0, 0.5, 0.25)
    w_close = 60.0
    close_unseen = 4
    annul_uncovered = 2

    def __init__(self, config: Any = None, samples: int = 48, rollouts: int = 0):
        super().__init__(config)
        self.samples = check_count("samples", samples, 1)
        self.rollouts = check_count("rollouts", rollouts, 0)

    # ------------------------------------------------------------------ decision
    def __call__(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        check_mask_size(self, action_mask)
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        v = self.view(observation)
        if self.annul_action in legal and self.should_annul(v):
            return self.annul_action
        places = self.placements(legal)
        if not places:
            return int(next(a for a in legal if a != self.annul_action))
        if len(places) == 1:
            tile, end = places[0]
            return 2 * tile + end
        scores = self.score_moves(v, places, rng)
        if self.rollouts > 0:
            scores = self.search(v, places, scores, rng)
        best = max(range(len(places)), key=lambda i: (scores[i], -i))
        tile, end = places[best]
        return 2 * tile + end

    def rank_actions(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> list[int]:
        """The legal actions of ``action_mask``, the planner's move first, then the other
        placements by their rule score (:meth:`score_moves`, drawing its closing estimates from
        ``rng``; ties: the lower action, as the planner breaks them), then DRAW / PASS / ANNUL.
        What ``search`` uses to look at the planner's best few moves only (``candidates``)."""
        move = int(self(observation, action_mask, rng))
        legal = np.flatnonzero(action_mask).tolist()
        places = [p for p in self.placements(legal) if 2 * p[0] + p[1] != move]
        scores = self.score_moves(self.view(observation), places, rng) if places else []
        ranked = sorted(((-s, 2 * t + e) for s, (t, e) in zip(scores, places, strict=True)))
        rest = [a for a in legal if a >= self.draw_action and a != move]
        return [move] + [a for _, a in ranked] + rest

    def should_annul(self, v: LineSeatView) -> bool:
        """Rule 7: annul when at least ``annul_uncovered`` doubles of the hand are uncovered."""
        uncovered = 0
        for i in v.hand:
            a, b = self.tiles[i]
            if a == b and not (v.hand_mask & ~(1 << i) & self.pip_masks[a]):
                uncovered += 1
        return uncovered >= self.annul_uncovered

    def after(self, v: LineSeatView, tile: int, end: int) -> tuple[int, int]:
        """The open ends after placing ``tile`` on ``end``."""
        a, b = self.tiles[tile]
        if v.ends is None:
            return (a, b)
        left, right = v.ends
        if end == 0:
            return (a if b == left else b, right)
        return (left, b if a == right else a)

    def cannot_play(self, v: LineSeatView, seat: int, fit: int) -> float:
        """Estimated probability that egocentric ``seat`` holds no tile of the bitmask ``fit``
        (rule 4)."""
        size = v.hand_sizes[seat]
        if size <= 0:
            return 1.0
        lacks = v.missing[seat]
        banned = 0
        for p in range(self.max_pip + 1):
            if lacks >> p & 1:
                banned |= self.pip_masks[p]
        eligible = v.unseen_mask & ~banned
        k = (eligible & fit).bit_count()
        if k == 0:
            return 1.0
        p_tile = min(1.0, size / max(eligible.bit_count(), 1))
        return (1.0 - p_tile) ** k

    def score_moves(
        self, v: LineSeatView, places: list[tuple[int, int]], rng: np.random.Generator
    ) -> list[float]:
        """Scores of the placements (rules 1-6)."""
        p = self.num_players
        pm = self.pip_masks
        worlds = None
        out = []
        for tile, end in places:
            rest = v.hand_mask & ~(1 << tile)
            if not rest:
                out.append(1e9)  # rule 1: domino
                continue
            y, z = self.after(v, tile, end)
            fit = pm[y] | pm[z]
            a, b = self.tiles[tile]
            s = self.w_pips * self.values[tile] + (self.w_double if a == b else 0.0)
            s += self.w_fit * min((rest & fit).bit_count(), self.fit_cap)
            for k in range(1, p):
                q = self.cannot_play(v, k, fit)
                w = self.seat_weights[k] if k < len(self.seat_weights) else 0.0
                if k == v.partner:
                    s -= self.w_partner * w * q
                else:
                    s += self.w_opp * w * q
            unseen_fit = v.unseen_mask & fit
            if not (rest & fit) and unseen_fit.bit_count() <= self.close_unseen:
                if worlds is None:
                    worlds = self.sample_worlds(v, rng)
                closes, wins = self.closing(v, rest, fit, worlds)
                if closes:
                    s += self.w_close * closes * (2.0 * wins / closes - 1.0)
            out.append(s)
        return out

    # ------------------------------------------------------------------ closing estimate
    def sample_worlds(
        self, v: LineSeatView, rng: np.random.Generator, count: int | None = None
    ) -> list[tuple[list[int], int, list[int]]]:
        """``count`` (default ``samples``) deals of the unseen tiles: ``(hands per egocentric seat
        (0 for the observer), boneyard mask, boneyard as a list, next draw last)``; the rest is
        out of play. Seats are filled most constrained first, each from the tiles without a value
        it is known to lack while any are left.

        Raises:
            ConfigError: ``rng`` is not a ``numpy.random.Generator``."""
        check_rng(rng)
        p = self.num_players
        unseen = [i for i in range(self.num_tiles) if v.unseen_mask >> i & 1]
        banned = [0] * p
        for k in range(1, p):
            for pip in range(self.max_pip + 1):
                if v.missing[k] >> pip & 1:
                    banned[k] |= self.pip_masks[pip]
        order = sorted(range(1, p), key=lambda k: -banned[k].bit_count())
        worlds = []
        for _ in range(self.samples if count is None else count):
            perm = [unseen[i] for i in rng.permutation(len(unseen))]
            hands = [0] * p
            taken = 0
            for k in order:
                need = v.hand_sizes[k]
                for tile in perm:
                    if need == 0:
                        break
                    if not (taken >> tile & 1) and not (banned[k] >> tile & 1):
                        hands[k] |= 1 << tile
                        taken |= 1 << tile
                        need -= 1
                for tile in perm:  # not enough eligible tiles: the constraint is relaxed
                    if need == 0:
                        break
                    if not taken >> tile & 1:
                        hands[k] |= 1 << tile
                        taken |= 1 << tile
                        need -= 1
            boneyard, need = 0, v.boneyard
            for tile in perm:
                if need == 0:
                    break
                if not taken >> tile & 1:
                    boneyard |= 1 << tile
                    taken |= 1 << tile
                    need -= 1
            worlds.append((hands, boneyard, [t for t in perm if boneyard >> t & 1]))
        return worlds

    # ------------------------------------------------------------------ search (rollouts)
    rollout_prior = 1.0

    def search(
        self,
        v: LineSeatView,
        places: list[tuple[int, int]],
        scores: list[float],
        rng: np.random.Generator,
    ) -> list[float]:
        """Win frequency of each move over ``rollouts`` sampled deals, every seat then playing
        greedy to the end of the round, plus ``rollout_prior`` x the rule score / 100."""
        worlds = self.sample_worlds(v, rng, self.rollouts)
        out = []
        for (tile, end), prior in zip(places, scores, strict=True):
            if prior >= 1e9:
                out.append(prior)
                continue
            y, z = self.after(v, tile, end)
            rest = v.hand_mask & ~(1 << tile)
            wins = 0
            for hands, _, boneyard in worlds:
                h = hands[:]
                h[0] = rest
                wins += self.rollout(h, boneyard[:], y, z, 1, v.leader, v.partner is not None)
            out.append(wins / len(worlds) + self.rollout_prior * prior / 100.0)
        return out

    def rollout(
        self,
        hands: list[int],
        boneyard: list[int],
        left: int,
        right: int,
        seat: int,
        leader: int,
        teams: bool,
    ) -> int:
        """Play the round out greedily from a placement just made (``seat`` acts next); 1 if the
        observer's side wins."""
        p, pm, values, tiles = self.num_players, self.pip_masks, self.values, self.tiles
        while True:
            ends = pm[left] | pm[right]
            if not any(h & ends for h in hands) and not any(ends >> t & 1 for t in boneyard):
                pips = [self.pips(h) for h in hands]
                order = [(leader + i) % p for i in range(p)]
                if teams:
                    side = [pips[0] + pips[2], pips[1] + pips[3]]
                    low = min(side)
                    return int(next(s for s in order if side[s % 2] == low) % 2 == 0)
                low = min(pips)
                return int(next(s for s in order if pips[s] == low) == 0)
            while True:
                h = hands[seat]
                fit = h & ends
                if fit or not boneyard:
                    break
                hands[seat] = h | 1 << boneyard.pop()
            if not fit:
                seat = (seat + 1) % p
                continue
            best, bv = -1, -1
            while fit:
                low = fit & -fit
                i = low.bit_length() - 1
                if values[i] > bv:
                    best, bv = i, values[i]
                fit ^= low
            a, b = tiles[best]
            if a == left:
                left = b
            elif b == left:
                left = a
            elif a == right:
                right = b
            else:
                right = a
            hands[seat] = h & ~(1 << best)
            if not hands[seat]:
                return int(seat == 0 or (teams and seat == 2))
            seat = (seat + 1) % p

    def closing(
        self, v: LineSeatView, rest: int, fit: int, worlds: list[tuple[list[int], int, list[int]]]
    ) -> tuple[float, float]:
        """(probability the move closes the game, probability it closes and the observer's side
        wins the count) over the sampled ``worlds``."""
        p = self.num_players
        teams = v.partner is not None
        order = [(v.leader + i) % p for i in range(p)]
        closes = wins = 0
        for hands, boneyard, _ in worlds:
            if boneyard & fit or any(h & fit for h in hands[1:]):
                continue
            closes += 1
            pips = [self.pips(rest)] + [self.pips(h) for h in hands[1:]]
            if teams:
                side = [pips[0] + pips[2], pips[1] + pips[3]]
                low = min(side)
                winner = next(s for s in order if side[s % 2] == low)
                wins += winner % 2 == 0
            else:
                low = min(pips)
                winner = next(s for s in order if pips[s] == low)
                wins += winner == 0
        n = max(len(worlds), 1)
        return closes / n, wins / n


def _planner(config: LineConfig, arg: str | None) -> LinePlannerAgent:
    """``planner``; ``planner:N`` (N samples for the closing estimate); ``planner:search`` /
    ``planner:search=N`` (the search option with N rollouts, default 32)."""
    if arg is None:
        return LinePlannerAgent(config)
    spec = f"planner:{arg}"
    allowed = "planner, planner:N, planner:search or planner:search=N (N an integer >= 1)"
    try:
        if arg == "search":
            return LinePlannerAgent(config, rollouts=32)
        if arg.startswith("search="):
            return LinePlannerAgent(config, rollouts=positive_int(spec, arg[len("search=") :]))
        if arg.isdigit():
            return LinePlannerAgent(config, samples=positive_int(spec, arg))
    except ConfigError:  # positive_int's "after the colon" reads wrongly for search=N
        raise AgentSpecError(spec, allowed) from None
    raise AgentSpecError(spec, allowed)
