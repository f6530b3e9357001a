"""Belief sampling: complete engine states consistent with what one seat knows (determinization).

:class:`InformationState` is one seat's view of a round in progress, built by
:meth:`InformationState.from_state` from the engine state. It keeps only what that seat may see:
its own hand, the table (trains / line, open ends, markers, open doubles, the phase of the
turn), every seat's hand size, the boneyard size, the scores, the public action list (a draw is
``DRAW`` whatever tile it took) and the pips each seat is publicly known to lack
(``state.missing``, derived by the engine from the public draws and passes). Every hidden field
(the other hands, the boneyard order, the tiles out of play, the dealt deals) is erased from the
copy it keeps, so two states with the same public information give identical information states
and, from the same generator, identical samples.

:meth:`InformationState.sample` deals the **unseen tiles** (every tile of the set that is not in
the seat's hand, not on the table and not the Mexican Train station) at random to the other hands
(their public sizes), the boneyard (its public size, in a random drawing order) and out of play
(the rest), and returns an ordinary engine state that plays on through ``apply`` (and through an
env, by assigning ``env.game_state``).

**Constraints** (never violated by a sample):

1. hand sizes, boneyard size, the seat's own hand and everything on the table are as observed;
2. a seat holds no tile carrying a pip it is publicly known to lack (``missing_pips``,
   docs/rules.md §3);
3. line games, first round of a game (the lead forced on the holder of the highest double, or of
   the heaviest tile when no double was dealt, docs/rules.md §2.1): no seat was dealt a tile
   above the lead tile in that order, so a seat that has not drawn this round holds none;
4. line games: the round did not end blocked after any placement (docs/rules.md §2.1), so for each
   placement some tile fitting the ends it left was in a hand or the boneyard: a tile placed later,
   one of the seat's own tiles, or an unseen tile the sample does not put out of play.

**Distribution.** Exactly uniform over the deals of the unseen tiles that satisfy 1-4 (counting
boneyard orders): constraints 1-2-3 are per-seat forbidden tile sets, so the tiles fall into
classes by the set of seats allowed to hold them; the number of tiles each class gives each
constrained seat is drawn from its exact distribution (the counts of the generating function
``prod_c (1 + sum_{s allowed in c} x_s)^{|c|}``, a dynamic programme over the constrained seats'
hand sizes), the tiles within a class uniformly, and the remaining tiles uniformly to the
unconstrained hands, the boneyard and out of play. Constraint 4 is then checked and a failing
sample redrawn (rejection keeps the distribution uniform on the intersection). When the table of
every constrained seat would pass :data:`MAX_TABLE` (many constrained seats, 6-8 players), the
most constrained seats that fit are dealt through it and the others with the free tiles, a draw
giving one of them a tile it cannot hold being redrawn: still exactly uniform.

**What it ignores** (so it is uniform over a superset of the deals the full public history
allows, never a smaller set): agents' policies (no likelihood weighting: plain determinization),
and public inferences the engine's lack sets do not keep: after a seat draws, the engine forgets
what its older tiles lacked until the drawn tile is placed (``drawn_tile="may_play"`` always, but
for a draw made to cover a double, and with ``"must_play"`` only the pips of earlier turns); a
seat that could not place a second double (``doubles="double_double"``) lacks those doubles;
constraint 3 for a seat that drew, the ``station_source="highest_held"`` station order (Mexican
Train), and the "somebody can still place" condition that a Mexican Train round with tiles out of
play (``use_boneyard=False``) met after every placement and pass (a sample may be a deal under
which the round would have ended blocked earlier).

**Cost.** Building: one state copy and a pass over the round's actions. The first sample builds
the class table (about ``(classes) x (size+1)^k`` float operations for k constrained seats); a
sample then costs about 40-60 microseconds (``benchmarks/playouts.py``: about 23,000 samples/s in
Mexican Train 4p double-12, 18,700 in Cuban, first samples included).

Numpy-only (the engine's layer): no gymnasium, pettingzoo or torch.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .deal import bits
from .errors import ConfigError, DominoError, as_int, check_rng
from .line import LineState
from .mexican_train import MexicanTrainState
from .tiles import double_index

#: Largest dynamic-programme table (cells x classes); constrained seats beyond it are checked by
#: rejection (:meth:`InformationState._table`).
MAX_TABLE = 1 << 22
_LOG_FACT = np.array([math.lgamma(k + 1) for k in range(512)])


class BeliefError(DominoError):
    """An information state that cannot be built or sampled (named reason)."""


class InformationState:
    """One seat's information about a round in progress (see the module docstring).

    Attributes:
        seat: the observing seat.
        game: ``"mexican_train"`` or ``"line"``.
        unseen: bitmask of the unseen tiles (other hands, boneyard, out of play).
        hand_sizes: tiles in each seat's hand (public).
        boneyard_size: tiles left to draw (public).
        forbidden: per seat, bitmask of unseen tiles it cannot hold (0 for the observer).
        needs: bitmasks of which at least one tile must not be out of play (constraint 4).
        public: the engine state with every hidden field erased (other hands empty, boneyard
            empty, nothing out of play, deal records reduced to their public ``first_player``);
            do not play it, :meth:`sample` instead.
    """

    def __init__(self) -> None:  # use from_state
        self.seat = -1
        self.game = ""
        self.unseen = 0
        self.hand_sizes: list[int] = []
        self.boneyard_size = 0
        self.forbidden: list[int] = []
        self.needs: list[int] = []
        self.public: Any = None
        self._dp: Any = None

    # ------------------------------------------------------------------ building
    @classmethod
    def from_state(cls, state: MexicanTrainState | LineState, seat: int) -> InformationState:
        """The information of ``seat`` in ``state`` (reads only what ``seat`` may see).

        Raises:
            BeliefError: the round is over, ``seat`` is not a seat of the game, or another seat
                is in the middle of a turn whose hidden part ``seat`` cannot see (a Mexican Train
                seat that has just drawn; a line-game leader before its forced lead).
            ConfigError: ``state`` is not an engine state (an env, say: pass ``env.unwrapped.game_state``).
        """
        if not isinstance(state, MexicanTrainState | LineState):
            raise ConfigError("state", type(state).__name__, "an engine state (MexicanTrainState or LineState): "
                              "env.unwrapped.game_state, not the env")  # fmt: skip
        p = state.num_players
        number = as_int(seat)  # a numpy integer or a 0-d integer array too
        if number is None or not 0 <= number < p:
            raise BeliefError(f"seat must be 0..{p - 1}, got {seat!r}")
        seat = number
        if state.round_over:
            raise BeliefError("the round is over: nothing is hidden any more")
        self = cls()
        self.seat = seat
        t = state._t
        line = isinstance(state, LineState)
        self.game = "line" if line else "mexican_train"
        cur = state.current_player
        if not line and cur != seat and state.drawn_tile >= 0:
            raise BeliefError(
                f"seat {cur} has just drawn a tile seat {seat} cannot see: build the information "
                f"state at seat {seat}'s own decisions (or before the draw)"
            )
        if line and cur != seat and state.forced_lead >= 0:
            raise BeliefError(f"seat {cur} has not led its forced lead yet; nothing to sample for seat {seat}")
        all_tiles = (1 << t.num_tiles) - 1
        seen = state.hands[seat] | state.placed
        if not line:
            seen |= 1 << double_index(state.station, state.config.max_pip)
        self.unseen = all_tiles & ~seen
        self.hand_sizes = [h.bit_count() for h in state.hands]
        self.boneyard_size = len(state.boneyard)
        pip_masks = t.pip_masks
        forbidden = [0] * p
        for s in range(p):
            if s == seat:
                continue
            m = state.missing[s]
            for v in bits(m):
                forbidden[s] |= pip_masks[v]
        if line:
            # the deal record says whether the lead was forced (first_player None); only that
            # public field of it is read
            forced = bool(state.deals) and state.deals[-1].get("first_player") is None
            lead_mask, drew, self.needs = _line_history(state, seat, self.unseen, forced)
            for s in range(p):
                if s != seat and not drew[s]:
                    forbidden[s] |= lead_mask
        self.forbidden = [f & self.unseen for f in forbidden]
        # the public copy: every hidden field erased
        pub = state.copy()
        for s in range(p):
            if s != seat:
                pub.hands[s] = 0
        pub.boneyard = []
        pub.out_of_play = 0
        # deal records hold the hidden deals: keep only their public field (whether the round's
        # first player was given, i.e. the lead was not forced)
        pub.deals = [{"first_player": d.get("first_player")} for d in state.deals]
        pub._legal = None
        if line:
            pub.doubles_dealt = [d if s == seat else 0 for s, d in enumerate(pub.doubles_dealt)]
        self.public = pub
        return self

    # ------------------------------------------------------------------ sampling
    def __repr__(self) -> str:
        return (f"InformationState(seat={self.seat}, game={self.game!r}, hand_sizes={self.hand_sizes}, "
                f"boneyard_size={self.boneyard_size}, unseen={self.unseen.bit_count()} tiles)")

    def sample(self, rng: np.random.Generator, max_tries: int = 10_000) -> MexicanTrainState | LineState:
        """A complete engine state drawn uniformly from the deals consistent with this information.

        Args:
            rng: the only randomness used (same generator state, same sample).
            max_tries: redraws allowed for constraint 4 (and for the seats checked by rejection
                beyond :data:`MAX_TABLE`).

        Returns:
            an independent engine state (``deals`` hold only ``first_player``; everything else as
            a real state).

        Raises:
            ConfigError: ``rng`` is not a ``numpy.random.Generator``; ``max_tries`` is not an
                integer >= 1.
            BeliefError: no consistent deal was found in ``max_tries`` draws.
        """
        check_rng(rng)  # a seed or RandomState failed deep inside
        if isinstance(max_tries, bool) or not isinstance(max_tries, numbers.Integral) or max_tries < 1:
            raise ConfigError("max_tries", max_tries, "an integer >= 1")  # it read as inconsistent information
        for _ in range(max_tries):
            drawn = self._draw(rng)
            if drawn is not None and all(need & ~drawn[2] for need in self.needs):
                hands, boneyard, out = drawn
                break
        else:
            raise BeliefError(f"no deal consistent with seat {self.seat}'s information in {max_tries} draws")
        state = self.public.copy()
        for s, h in hands.items():
            state.hands[s] = h
        state.boneyard = boneyard  # next draw = last element, as in the engine
        state.out_of_play = out
        if self.game == "line":
            dbl = state._t.double_mask
            for s in hands:
                if state.first_turn_pending[s]:  # its hand is still the dealt hand
                    state.doubles_dealt[s] = (hands[s] & dbl).bit_count()
        return state

    def _draw(self, rng: np.random.Generator) -> tuple[dict[int, int], list[int], int] | None:
        """One draw of (hands of the other seats, boneyard list, out-of-play mask), or None when a
        seat left out of the class table (:meth:`_table`) got a tile it cannot hold."""
        seat, sizes = self.seat, self.hand_sizes
        others = [s for s in range(len(sizes)) if s != seat]
        hands = {s: 0 for s in others}
        table_seats, checked = self._table()
        pool: list[int] = []
        if table_seats:
            dp = self._dp[0]
            counts = dp.sample_counts(rng)
            for c, tiles in enumerate(dp.class_tiles):
                order = [tiles[i] for i in rng.permutation(len(tiles))]
                k = 0
                for j, s in enumerate(table_seats):
                    n = counts[c][j]
                    for tile in order[k : k + n]:
                        hands[s] |= 1 << tile
                    k += n
                pool.extend(order[k:])
            pool.extend(dp.free_tiles)
            pool.sort()  # canonical order, then one shuffle: the draw depends on rng only
        else:
            pool = bits(self.unseen)
        order = [pool[i] for i in rng.permutation(len(pool))]
        k = 0
        for s in others:
            if s in table_seats:
                continue
            for tile in order[k : k + sizes[s]]:
                hands[s] |= 1 << tile
            k += sizes[s]
        if any(hands[s] & self.forbidden[s] for s in checked):
            return None  # rejected: the caller redraws (exactly uniform on the intersection)
        boneyard = order[k : k + self.boneyard_size]
        out = 0
        for tile in order[k + self.boneyard_size :]:
            out |= 1 << tile
        return hands, boneyard, out

    def _table(self) -> tuple[list[int], list[int]]:
        """(seats dealt through the exact class table, constrained seats checked by rejection).
        Every constrained seat goes in the table while it fits :data:`MAX_TABLE` (cells x
        classes), the most constrained first; the others (only with many constrained seats, 6-8
        players) are dealt with the free tiles and a draw giving one a forbidden tile is redrawn.
        Built once (the constraints do not change between samples)."""
        if self._dp is None:
            sizes = self.hand_sizes
            constrained = [s for s in range(len(sizes))
                           if s != self.seat and self.forbidden[s] and sizes[s] > 0]  # fmt: skip
            chosen: list[int] = []
            for s in sorted(constrained, key=lambda s: (-self.forbidden[s].bit_count(), s)):
                trial = sorted([*chosen, s])
                if _table_cells(self.unseen, [self.forbidden[t] for t in trial], [sizes[t] for t in trial]) <= MAX_TABLE:
                    chosen = trial
            checked = [s for s in constrained if s not in chosen]
            table = _ClassTable(self.unseen, [self.forbidden[s] for s in chosen],
                                [sizes[s] for s in chosen]) if chosen else None  # fmt: skip
            self._dp = (table, chosen, checked)
        table, chosen, checked = self._dp
        return chosen, checked


def _table_cells(unseen: int, forbidden: list[int], sizes: list[int]) -> int:
    """Cells x (classes + 1) of the class table for these seats (what :data:`MAX_TABLE` bounds)."""
    classes = set()
    for tile in bits(unseen):
        classes.add(sum(1 << j for j, f in enumerate(forbidden) if not f >> tile & 1))
    classes.discard(0)
    return math.prod(n + 1 for n in sizes) * (len(classes) + 1)


class _ClassTable:
    """Exact counts for the per-seat forbidden sets: tiles grouped by the constrained seats allowed
    to hold them; ``prefix[j]`` is the coefficient table of ``prod_{c<j} (1 + sum x_s)^{|c|}``
    truncated at the hand sizes (a float64 array with one axis per constrained seat)."""

    def __init__(self, unseen: int, forbidden: list[int], sizes: list[int]):
        k = len(sizes)
        classes: dict[int, list[int]] = {}
        free: list[int] = []
        for tile in bits(unseen):
            allowed = 0
            for j in range(k):
                if not forbidden[j] >> tile & 1:
                    allowed |= 1 << j
            if allowed == 0:
                free.append(tile)  # no constrained seat may hold it: pool only
            else:
                classes.setdefault(allowed, []).append(tile)
        self.free_tiles = free
        self.class_keys = sorted(classes)
        self.class_tiles = [classes[c] for c in self.class_keys]
        self.sizes = sizes
        shape = tuple(n + 1 for n in sizes)
        prefix = [np.zeros(shape)]
        prefix[0][(0,) * k] = 1.0
        for key, tiles in zip(self.class_keys, self.class_tiles, strict=True):
            cur = prefix[-1]
            axes = [j for j in range(k) if key >> j & 1]
            for _ in range(len(tiles)):
                nxt = cur.copy()
                for ax in axes:
                    src = [slice(None)] * k
                    dst = [slice(None)] * k
                    src[ax] = slice(0, -1)
                    dst[ax] = slice(1, None)
                    nxt[tuple(dst)] += cur[tuple(src)]
                cur = nxt
            prefix.append(cur)
        if prefix[-1][tuple(sizes)] <= 0:
            raise BeliefError("no deal satisfies the known constraints (inconsistent information)")
        self.prefix = prefix
        # enumeration grids of every class (all count vectors within the hand sizes)
        self._grids = []
        for key, tiles in zip(self.class_keys, self.class_tiles, strict=True):
            axes = [j for j in range(k) if key >> j & 1]
            grid = np.indices([min(sizes[a], len(tiles)) + 1 for a in axes]).reshape(len(axes), -1)
            grid = grid[:, grid.sum(axis=0) <= len(tiles)]
            m = len(tiles)
            logmult = _LOG_FACT[m] - _LOG_FACT[grid].sum(axis=0) - _LOG_FACT[m - grid.sum(axis=0)]
            self._grids.append((axes, grid, logmult))

    def sample_counts(self, rng: np.random.Generator) -> list[list[int]]:
        """Per class, the number of its tiles each constrained seat gets (exact distribution)."""
        k = len(self.sizes)
        rest = list(self.sizes)
        out: list[list[int]] = [[0] * k for _ in self.class_keys]
        for c in range(len(self.class_keys) - 1, -1, -1):
            axes, grid, logmult = self._grids[c]
            before = self.prefix[c]
            r = np.array([rest[a] for a in axes])[:, None]
            ok = (grid <= r).all(axis=0)
            g = grid[:, ok]
            index = [np.full(g.shape[1], rest[j]) for j in range(k)]
            for i, a in enumerate(axes):
                index[a] = rest[a] - g[i]
            weight = before[tuple(index)]
            with np.errstate(divide="ignore"):
                logw = logmult[ok] + np.log(weight)
            top = logw.max()
            prob = np.exp(logw - top)
            prob /= prob.sum()
            pick = int(rng.choice(len(prob), p=prob))
            for i, a in enumerate(axes):
                n = int(g[i, pick])
                out[c][a] = n
                rest[a] -= n
        assert not any(rest), "class counts must fill every constrained hand"
        return out


def _line_history(
    state: LineState, seat: int, unseen: int, forced: bool
) -> tuple[int, list[bool], list[int]]:
    """Walk the round's public actions: (tiles above a forced lead, which seats drew this round,
    the constraint-4 masks)."""
    t = state._t
    p = state.num_players
    actions = state.actions[state.round_start :]
    who = state.leader
    drew = [False] * p
    left = right = -1
    placed_after: list[int] = []  # per placement: the ends' fitting mask
    placements: list[int] = []  # tiles placed, in order
    lead_tile = -1
    for a in actions:
        if a == state.draw_action:
            drew[who] = True
            continue
        if a == state.pass_action:
            who = (who + 1) % p
            continue
        tile, end = divmod(a, 2)
        x, y = t.tiles[tile]
        if left < 0:
            left, right, lead_tile = x, y, tile
        elif end == 0:
            left = x if y == left else y
        else:
            right = y if x == right else x
        placements.append(tile)
        placed_after.append(t.pip_masks[left] | t.pip_masks[right])
        who = (who + 1) % p
    if lead_tile < 0 and state.forced_lead >= 0:
        # the observer is the leader before its forced lead (from_state refuses any other seat
        # then): the tile it must lead is the highest dealt, so nobody else holds one above it
        lead_tile = state.forced_lead
    lead_mask = 0
    if lead_tile >= 0 and forced:
        key = _lead_key(t.tiles[lead_tile])
        for i, tl in enumerate(t.tiles):
            if _lead_key(tl) > key:
                lead_mask |= 1 << i
    needs = []
    own = state.hands[seat]
    for i, fits in enumerate(placed_after):
        later = 0
        for tile in placements[i + 1 :]:
            later |= 1 << tile
        if fits & (later | own):
            continue
        needs.append(fits & unseen)
    return lead_mask, drew, needs


def _lead_key(tile: tuple[int, int]) -> tuple[int, int, int]:
    a, b = tile
    return (1, a, 0) if a == b else (0, a + b, b)

