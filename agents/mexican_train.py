"""Scripted Mexican Train agents: the ladder ``random`` < ``greedy`` < ``planner``.

Every agent follows the protocol of :mod:`agents.base`: ``agent(observation, action_mask, rng) ->
int``, built from the rules (``RandomAgent(config)``). They read only the acting seat's observation
(through :func:`~domino_env.encoding.mexican_train.decode_observation`) and its mask. Actions are
``tile_index * (P + 1) + slot`` (slot 0 = own train, 1..P-1 = the seats after the actor, P = the
Mexican train), DRAW = ``T * (P + 1)``, PASS = DRAW + 1.

All three are deterministic given the ``rng`` passed in (only ``random`` uses it) and picklable
(plain attributes only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from domino_env.core.config import MexicanTrainConfig
from domino_env.core.tiles import tile_count, tile_table
from domino_env.encoding.mexican_train import decode_observation

from .base import as_config, register_agent


@dataclass
class SeatView:
    """The acting seat's table, decoded from its observation (egocentric slots).

    Attributes:
        hand: tile indices in the hand, ascending.
        hand_mask: the same as a bitmask (bit i = tile i).
        ends: open-end pip of every slot 0..P (own train, the others in turn order, Mexican).
        in_play: whether each slot's train exists this round.
        marker: whether each slot's train is public (Mexican: always True when in play).
        open_doubles: slots whose train ends in an obliging open double.
        hand_sizes: tiles in each seat's hand (own first, then turn order).
        boneyard: tiles left to draw.
        drawn_tile: tile index just drawn by this seat, or -1.
    """

    hand: list[int]
    hand_mask: int
    ends: list[int]
    in_play: list[bool]
    marker: list[bool]
    open_doubles: list[int]
    hand_sizes: list[int]
    boneyard: int
    drawn_tile: int


class _MexicanTrainAgent:
    """Shared set-up: the rules, the tile table and the action layout."""

    name = "agent"

    def __init__(self, config: Any = None):
        cfg: MexicanTrainConfig = as_config(config)
        self.config = cfg
        self.num_players = p = cfg.num_players
        self.max_pip = n = cfg.max_pip
        self.num_tiles = tile_count(n)
        self.draw_action = self.num_tiles * (p + 1)
        self.pass_action = self.draw_action + 1
        self.tiles = tile_table(n)
        self.values = tuple(cfg.double_blank_points if a == b == 0 else a + b for a, b in self.tiles)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_players={self.num_players}, max_pip={self.max_pip})"

    def placements(self, legal: np.ndarray) -> list[tuple[int, int]]:
        """``(tile, slot)`` of the legal placement actions, in action order."""
        slots = self.num_players + 1
        return [divmod(int(a), slots) for a in legal if a < self.draw_action]

    def view(self, observation: np.ndarray) -> SeatView:
        """The structured seat view of ``observation`` (see :class:`SeatView`)."""
        d = decode_observation(observation, self.num_players, self.max_pip)
        hand = np.flatnonzero(d["hand"]).tolist()
        mask = 0
        for t in hand:
            mask |= 1 << t
        drawn = np.flatnonzero(d["drawn_tile"])
        return SeatView(
            hand=hand,
            hand_mask=mask,
            ends=d["train_end"].argmax(axis=1).tolist(),
            in_play=(d["train_in_play"] > 0).tolist(),
            marker=(d["train_marker"] > 0).tolist(),
            open_doubles=np.flatnonzero(d["train_open_double_order"]).tolist(),
            hand_sizes=d["hand_sizes"].astype(int).tolist(),
            boneyard=int(d["boneyard_size"][0]),
            drawn_tile=int(drawn[0]) if len(drawn) else -1,
        )


class RandomAgent(_MexicanTrainAgent):
    """Uniform choice among the legal actions (DRAW and PASS included when legal), using ``rng``."""

    name = "random"

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[rng.integers(len(legal))])


class GreedyAgent(_MexicanTrainAgent):
    """Plays the heaviest playable tile.

    Rules, in order:

    1. If some placement is legal, place a tile (also after a draw under ``drawn_tile="may_play"``,
       where PASS would be legal too). DRAW or PASS only when they are the only legal actions.
    2. The tile with the highest pip total wins (the 0-0 is worth ``config.double_blank_points``).
    3. Ties (same weight: two tiles, or one tile fitting several trains): the own train first, then
       the lowest slot (the trains of the next seats in turn order, the Mexican train last), then the
       lowest tile index.

    It ignores the rng (deterministic).
    """

    name = "greedy"

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        places = self.placements(legal)
        if not places:
            return int(legal[0])
        values = self.values
        tile, slot = min(places, key=lambda ts: (-values[ts[0]], ts[1], ts[0]))
        return tile * (self.num_players + 1) + slot


class PlannerAgent(_MexicanTrainAgent):
    """Plans the longest chain on its own train and sheds everything else elsewhere.

    At every decision (the table changes between turns, so it re-plans each time) it:

    1. **Plans a chain**: the longest sequence of hand tiles that can be laid one after the other
       from its own train's open end (ties: more pips in the chain, so the spare tiles left over are
       light). Search: depth-first with a transposition table, doubles taken as soon as their pip is
       reached (always optimal for a self-loop), edges ordered towards well-stocked pips, and a
       node budget (``budget``, deterministic), so 20-40 tile hands stay fast.
    2. **Scores every legal placement** ``(tile, slot)`` by the sort key below (highest wins):

       a. *double rule*: a double is played only if the rest of the hand can cover it (a tile with
          that pip), or it is the last tile (``doubles="no_cover"``: always allowed). Playing an
          uncoverable double would leave an open double, a draw and probably a pass and a marker.
       b. *lift the marker*: when its own train is public (marker down), a play on the own train
          that loses nothing of the plan comes first, to make the train private again before the
          others spoil its open end.
       c. *plan value*: ``w(tile) + W(best chain left after the move)`` from the own train's
          (possibly new) open end, with ``w = 1000 + pips`` per tile. A spare tile (not in the
          chain) placed on the Mexican or a public train keeps the whole chain, so it beats playing
          the chain's next tile on the own train by ``w(spare)``; heavier spares first. Breaking
          the chain (a chain tile elsewhere, another tile on the own train) costs what the re-plan
          says. Covering an open double is scored the same way, so it covers with its least useful
          tile: a spare if it has one (the heaviest), else the chain tile whose loss hurts least.
       d. *flexibility*: more remaining spare tiles that fit a public train's end after the move.
       e. an opponent's public train rather than the Mexican train for the same tile (it changes
          the end that opponent planned on), then the lowest action.

    3. DRAW / PASS only when no placement is legal, except under ``drawn_tile="may_play"``: after
       a draw it passes rather than play a tile that fails the double rule.

    Args:
        config: the rules (anything :func:`agents.base.as_config` accepts).
        budget: search nodes per chain search (the main plan; re-plans of candidate moves use
            ``budget // 4``).
    """

    name = "planner"

    def __init__(self, config: Any = None, budget: int = 2000):
        super().__init__(config)
        self.budget = int(budget)
        n = self.max_pip
        self.doubles = tuple(self._double(p) for p in range(n + 1))
        self.weights = tuple(1000 + min(v, 99) for v in self.values)
        # pip -> [(tile, other pip)] over the whole set (filtered by the hand at search time)
        self.by_pip: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple((i, b if a == pip else a) for i, (a, b) in enumerate(self.tiles) if pip in (a, b) and a != b)
            for pip in range(n + 1)
        )
        self.pip_masks = tuple(sum(1 << i for i, (a, b) in enumerate(self.tiles) if pip in (a, b)) for pip in range(n + 1))

    def _double(self, pip: int) -> int:
        from domino_env.core.tiles import double_index

        return double_index(pip, self.max_pip)

    # ------------------------------------------------------------------ chain search
    def longest_chain(self, end: int, hand_mask: int, budget: int | None = None) -> tuple[list[int], int]:
        """Best chain of hand tiles from open end ``end``: ``(tiles in play order, weight)``, the
        weight being ``sum(1000 + pips)`` (length first, then pips). Deterministic; explores at
        most ``budget`` nodes (default ``self.budget``)."""
        budget = self.budget if budget is None else budget
        weights, doubles = self.weights, self.doubles
        n1 = self.max_pip + 1
        # Adjacency restricted to the hand, ordered towards pips with more tiles left (they keep
        # the chain going), then heavier tiles.
        degree = [(hand_mask & self.pip_masks[p]).bit_count() for p in range(n1)]
        adj = []
        for p in range(n1):
            edges = [(t, o) for t, o in self.by_pip[p] if hand_mask >> t & 1]
            edges.sort(key=lambda e: (-degree[e[1]], -weights[e[0]], e[0]))
            adj.append(edges)
        best_path: list[int] = []
        best = [0]
        nodes = [0]
        seen: dict[tuple[int, int], int] = {}
        path: list[int] = []
        total = sum(weights[t] for t in range(self.num_tiles) if hand_mask >> t & 1)

        def dfs(e: int, avail: int, score: int, rest: int) -> bool:
            """Returns True when the search must stop (budget spent or a perfect chain)."""
            nodes[0] += 1
            d = doubles[e]
            took = avail >> d & 1
            if took:  # a double at the open end: always take it now
                avail ^= 1 << d
                path.append(d)
                score += weights[d]
                rest -= weights[d]
            key = (e, avail)
            if seen.get(key, -1) >= score:
                if took:
                    path.pop()
                return False
            seen[key] = score
            if score > best[0]:
                best[0] = score
                best_path[:] = path
                if rest == 0:  # every tile used
                    return True
            stop = nodes[0] >= budget
            if not stop and score + rest > best[0]:
                for t, o in adj[e]:
                    if avail >> t & 1:
                        path.append(t)
                        stop = dfs(o, avail ^ (1 << t), score + weights[t], rest - weights[t])
                        path.pop()
                        if stop or nodes[0] >= budget:
                            stop = True
                            break
            if took:
                path.pop()
            return stop

        dfs(end, hand_mask, 0, total)
        return best_path, best[0]

    # ------------------------------------------------------------------ decisions
    def __call__(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        places = self.placements(legal)
        if not places:
            return int(legal[0])
        slots = self.num_players + 1
        v = self.view(observation)
        if len(v.hand) == 1:  # the last tile goes out and wins the round
            tile, slot = places[0]
            return tile * slots + slot
        can_pass = self.pass_action in set(legal.tolist())
        best_key, best_action = None, None
        for key, action in self._scored(v, places):
            if best_key is None or key > best_key:
                best_key, best_action = key, action
        if can_pass and best_key[0] == 0:
            return self.pass_action  # may_play: keep an uncoverable drawn double
        return best_action

    def _scored(self, v: SeatView, places: list[tuple[int, int]]):
        p = self.num_players
        slots = p + 1
        weights, tiles = self.weights, self.tiles
        hand = v.hand_mask
        own_end = v.ends[0]
        chain, chain_w = self.longest_chain(own_end, hand)
        first = chain[0] if chain else -1
        in_chain = 0
        for t in chain:
            in_chain |= 1 << t
        spares = hand & ~in_chain
        # Public trains other than the own one, as (slot, end).
        public = [k for k in range(1, slots) if v.in_play[k] and v.marker[k]]
        marked = v.marker[0]
        small = max(1, self.budget // 4)
        cache: dict[tuple[int, int], int] = {}

        def replan(end: int, mask: int) -> int:
            key = (end, mask)
            if key not in cache:
                cache[key] = self.longest_chain(end, mask, small)[1]
            return cache[key]

        no_cover = self.config.doubles == "no_cover"
        for tile, slot in places:
            a, b = tiles[tile]
            rest = hand & ~(1 << tile)
            train_end = v.ends[slot]
            new_end = b if a == train_end else a
            # a. double rule
            double_ok = 1
            if a == b and not no_cover and not (rest & self.pip_masks[a] & ~(1 << tile)):
                double_ok = 0
            # c. plan value
            if slot == 0:
                after = chain_w - weights[tile] if tile == first else replan(new_end, rest)
            elif not in_chain >> tile & 1:
                after = chain_w
            else:
                after = replan(own_end, rest)
            value = weights[tile] + after
            # b. lift the marker without losing the plan
            lift = int(marked and slot == 0 and value >= chain_w)
            # d. flexibility: spares left that fit a public end after the move
            ends_after = [new_end if k == slot else v.ends[k] for k in public]
            spare_rest = spares & rest
            flex = 0
            for e in set(ends_after):
                flex += (spare_rest & self.pip_masks[e]).bit_count()
            # e. an opponent's public train before the Mexican train
            opp = int(0 < slot < p)
            yield (double_ok, lift, value, flex, opp, -tile), tile * slots + slot


register_agent("random", lambda config, arg: RandomAgent(config))
register_agent("greedy", lambda config, arg: GreedyAgent(config))
register_agent("planner", lambda config, arg: PlannerAgent(config, **({"budget": int(arg)} if arg else {})))
