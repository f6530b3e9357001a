"""Scripted Mexican Train agents: the ladder ``random`` < ``greedy`` < ``planner``.

Every agent follows the protocol of :mod:`domino_env.agents.base`: ``agent(observation, action_mask, rng) ->
int``, built from the rules (``RandomAgent(config)``). They read only the acting seat's observation
(through :func:`~domino_env.encoding.mexican_train.decode_observation`) and its mask. Actions are
``tile_index * (P + 1) + slot`` (slot 0 = own train, 1..P-1 = the seats after the actor, P = the
Mexican train), DRAW = ``T * (P + 1)``, PASS = DRAW + 1.

All three are deterministic given the ``rng`` passed in (only ``random`` uses it) and picklable
(plain attributes only).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from domino_env.core.config import MexicanTrainConfig
from domino_env.core.errors import AgentSpecError, ConfigError
from domino_env.core.tiles import double_index, tile_count, tile_table
from domino_env.wrappers import random_legal_opponent

from .base import as_config, check_count, check_mask_size, no_argument, register_agent
from .seat_view import SeatView, observation_view, state_view  # noqa: F401 (re-exported)

_MEXICAN_TRAIN_RULES = ("Mexican Train rules (a MexicanTrainConfig, a Mexican Train env, a dict of its env kwargs "
                        "or None); the line-game agents are in domino_env.agents.line")  # fmt: skip


class _MexicanTrainAgent:
    """Shared set-up: the rules, the tile table and the action layout."""

    name = "agent"

    def __init__(self, config: Any = None):
        try:
            cfg = as_config(config)
        except ConfigError as exc:  # its words list line-game rules too, which are refused below
            if exc.field != "config":
                raise
            cfg = None
        if not isinstance(cfg, MexicanTrainConfig):  # a LineConfig's fields differ: an AttributeError further on
            raise ConfigError("config", config if cfg is None else cfg, _MEXICAN_TRAIN_RULES)
        self.config = cfg
        self.num_players = p = cfg.num_players
        self.max_pip = n = cfg.max_pip
        self.num_tiles = tile_count(n)
        self.draw_action = self.num_tiles * (p + 1)
        self.pass_action = self.draw_action + 1
        self.num_actions = self.draw_action + 2
        self.tiles = tile_table(n)
        self.values = tuple(
            cfg.double_blank_points if a == b == 0 else a + b for a, b in self.tiles
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_players={self.num_players}, max_pip={self.max_pip})"

    def placements(self, legal: np.ndarray) -> list[tuple[int, int]]:
        """``(tile, slot)`` of the legal placement actions, in action order."""
        slots = self.num_players + 1
        return [divmod(int(a), slots) for a in legal if a < self.draw_action]

    def view(self, observation: np.ndarray) -> SeatView:
        """The structured seat view of ``observation`` (see :class:`SeatView`)."""
        return observation_view(observation, self.num_players, self.max_pip)


class RandomAgent(_MexicanTrainAgent):
    """Uniform choice among the legal actions (DRAW and PASS included when legal), using ``rng``.

    Called as ``agent(observation, action_mask, rng) -> int`` (observation float32, mask int8 of
    the env's spaces).

    Raises:
        ConfigError: ``config`` is not Mexican Train rules :func:`~domino_env.agents.base.as_config` accepts;
            when called, an ``action_mask`` whose length is not the rules' ``T * (P + 1) + 2``
            actions, or with no legal action, or an ``rng`` that is not a
            ``numpy.random.Generator``.
    """

    name = "random"

    def __call__(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        check_mask_size(self, action_mask)
        return random_legal_opponent(observation, action_mask, rng)


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

    Raises:
        ConfigError: ``config`` is not Mexican Train rules :func:`~domino_env.agents.base.as_config` accepts;
            when called, an ``action_mask`` whose length is not the rules' ``T * (P + 1) + 2``
            actions, or with no legal action.
    """

    name = "greedy"

    def __call__(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        check_mask_size(self, action_mask)
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
    2. **Scores every legal placement** ``(tile, slot)`` by the sort key ``(b, c - a, d, e)``
       (highest wins):

       a. *double rule*: a double that the rest of the hand cannot cover (no other tile with that
          pip; ``doubles="no_cover"``: never) is worth ``double_penalty`` (one tile's weight) less:
          it will cost a draw and maybe a pass, a marker and an open double. So it plays a double
          when it can cover it, and an uncoverable one only when everything else costs more of its
          plan (a strict ban measured worse: 0.61 vs 0.65 against three greedy players).
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
       d. *flexibility*: more remaining spare tiles that fit a public train's end after the move
          (summed over the distinct end pips: a spare fitting two of them counts twice).
       e. an opponent's public train rather than the Mexican train for the same tile (it changes
          the end that opponent planned on), then the lowest tile; one tile whose placements on
          two trains tie on every term goes to the higher action (the later slot: the Mexican
          train before the own train).

    3. DRAW / PASS only when no placement is legal, except under ``drawn_tile="may_play"``: after
       a draw it passes rather than play an uncoverable drawn double.

    The plan (c) is what beats greedy: without it (a-b-d-e only) the agent is no better than
    greedy; the other rules change little (docs/agents.md, the planner's ablation).

    Args:
        config: the rules (anything :func:`domino_env.agents.base.as_config` accepts).
        budget: search nodes per chain search (the main plan; re-plans of candidate moves use
            ``budget // 8``): an integer >= 1.

    Raises:
        ConfigError: ``config`` is not Mexican Train rules :func:`~domino_env.agents.base.as_config` accepts,
            or ``budget`` is not an integer >= 1;
            when called, an ``action_mask`` whose length is not the rules' ``T * (P + 1) + 2``
            actions, or with no legal action.
    """

    name = "planner"

    #: Ablation switches (class attributes, all on; docs/agents.md's ablation turns them off one by
    #: one): the chain plan (c), the double rule (a), lifting the marker (b), flexibility (d).
    plan = True
    double_rule = True
    lift_marker = True
    flexibility = True
    #: Plan-value cost of an uncoverable double (it will cost a draw, maybe a pass and a marker).
    double_penalty = 1000

    def __init__(self, config: Any = None, budget: int = 400):
        super().__init__(config)
        self.budget = check_count("budget", budget, 1)
        n = self.max_pip
        self.doubles = tuple(double_index(p, n) for p in range(n + 1))
        self.weights = tuple(1000 + min(v, 99) for v in self.values)
        # pip -> [(tile, other pip)] over the whole set (filtered by the hand at search time)
        self.by_pip: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple(
                (i, b if a == pip else a)
                for i, (a, b) in enumerate(self.tiles)
                if pip in (a, b) and a != b
            )
            for pip in range(n + 1)
        )
        self.pip_masks = tuple(
            sum(1 << i for i, (a, b) in enumerate(self.tiles) if pip in (a, b))
            for pip in range(n + 1)
        )

    # ------------------------------------------------------------------ chain search
    def adjacency(self, hand_mask: int) -> list[list[tuple[int, int]]]:
        """Per pip, the ``(tile, other pip)`` of the hand's non-double tiles with that pip, ordered
        towards pips with more tiles in the hand (they keep a chain going), then heavier tiles."""
        weights = self.weights
        degree = [(hand_mask & m).bit_count() for m in self.pip_masks]
        adj = []
        for edges in self.by_pip:
            mine = [e for e in edges if hand_mask >> e[0] & 1]
            mine.sort(key=lambda e: (-degree[e[1]], -weights[e[0]], e[0]))
            adj.append(mine)
        return adj

    def longest_chain(
        self, end: int, hand_mask: int, budget: int | None = None, adj: list | None = None
    ) -> tuple[list[int], int]:
        """Best chain of hand tiles from open end ``end``: ``(tiles in play order, weight)``, the
        weight being ``sum(1000 + pips)`` (length first, then pips). Deterministic; explores at
        most ``budget`` nodes (default ``self.budget``). ``adj``: :meth:`adjacency` of any
        superset of the hand (computed when omitted)."""
        budget = self.budget if budget is None else budget
        weights, doubles = self.weights, self.doubles
        if adj is None:
            adj = self.adjacency(hand_mask)
        best_path: list[int] = []
        best = 0
        nodes = 0
        seen: dict[tuple[int, int], int] = {}
        path: list[int] = []
        total = 0
        m = hand_mask
        while m:
            low = m & -m
            total += weights[low.bit_length() - 1]
            m ^= low

        def dfs(e: int, avail: int, score: int, rest: int) -> bool:
            """Returns True when the search must stop (budget spent or every tile chained)."""
            nonlocal best, nodes
            nodes += 1
            d = doubles[e]
            took = avail >> d & 1
            if took:  # a double at the open end: taking it now is always optimal
                avail ^= 1 << d
                path.append(d)
                score += weights[d]
                rest -= weights[d]
            key = (e, avail)
            if seen.get(key, -1) >= score:  # same table reached before with a better prefix
                if took:
                    path.pop()
                return False
            seen[key] = score
            stop = False
            if score > best:
                best = score
                best_path[:] = path
                stop = rest == 0
            if not stop and nodes < budget and score + rest > best:
                for t, o in adj[e]:
                    if avail >> t & 1:
                        path.append(t)
                        stop = dfs(o, avail ^ (1 << t), score + weights[t], rest - weights[t])
                        path.pop()
                        if stop or nodes >= budget:
                            stop = True
                            break
            if took:
                path.pop()
            return stop

        dfs(end, hand_mask, 0, total)
        return best_path, best

    # ------------------------------------------------------------------ decisions
    def __call__(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        check_mask_size(self, action_mask)
        legal = np.flatnonzero(action_mask).tolist()
        return self._move(legal, lambda: self.view(observation))

    def state_move(self, state: Any) -> int:
        """The move :meth:`__call__` makes for the seat to act in the engine ``state`` (a running
        :class:`~domino_env.core.mexican_train.MexicanTrainState` of this agent's rules), read
        through :func:`state_view` instead of an observation: the same action (tested on every
        decision of whole games of every preset) without encoding and decoding an observation,
        which is what rollouts need. Cost: the chain search, about 0.2 ms a decision with
        several legal actions in Mexican Train 4p double-12."""
        return self._move(state.legal_actions(), lambda: state_view(state, state.current_player))

    def _move(self, legal: list[int], view: Any) -> int:
        """The decision of :meth:`__call__` from the legal actions (ascending) and a callable that
        returns the seat's :class:`SeatView` (built only when there is a choice to make)."""
        if len(legal) == 1:
            return legal[0]
        places = self.placements(legal)
        if not places:
            return legal[0]
        v = view()
        if len(v.hand) == 1:  # the last tile goes out and wins the round
            tile, slot = places[0]
            return tile * (self.num_players + 1) + slot
        _, action, double_ok = self.choose(v, places)
        if not double_ok and legal[-1] == self.pass_action:
            return self.pass_action  # may_play: keep an uncoverable drawn double
        return action

    def rank_actions(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: Any = None
    ) -> list[int]:
        """The legal actions of ``action_mask``, the planner's move first, then the other
        placements by their exact sort key (:meth:`placement_keys`; ties: the higher action),
        then DRAW / PASS. What ``search`` uses to look at the planner's best few moves only
        (``candidates``; ``rng`` unused: the planner is deterministic). The order after the first
        can differ from :meth:`choose`'s in the rare positions where its lazy re-planning bound is
        not an upper bound (the budget-limited chain search): the move itself is always the
        planner's."""
        check_mask_size(self, action_mask)
        legal = np.flatnonzero(action_mask).tolist()
        v = self.view(observation)
        move = self._move(legal, lambda: v)
        slots = self.num_players + 1
        places = [p for p in self.placements(legal) if p[0] * slots + p[1] != move]
        keys = self.placement_keys(v, places) if places else []
        ranked = sorted(
            ((k[0], t * slots + s) for k, (t, s) in zip(keys, places, strict=True)), reverse=True
        )
        rest = [a for a in legal if a >= self.draw_action and a != move]
        return [move] + [a for _, a in ranked] + rest

    def _chain(self, end: int, hand_mask: int, budget: int, adj: list) -> tuple[list[int], int]:
        """:meth:`longest_chain` through a bounded memo (a pure function of its arguments, so the
        memo never changes a decision; consecutive decisions often ask for the same chain)."""
        key = (end, hand_mask, budget)
        memo = self.__dict__.setdefault("_memo", {})
        hit = memo.get(key)
        if hit is None:
            if len(memo) >= 4096:
                memo.clear()
            hit = memo[key] = self.longest_chain(end, hand_mask, budget, adj)
        return hit

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_memo", None)  # a cache: not part of the agent
        return state

    def choose(
        self, v: SeatView, places: list[tuple[int, int]], ctx: dict[str, Any] | None = None
    ) -> tuple[tuple, int, int]:
        """Best placement for the seat view ``v``: ``(sort key, action, double rule ok)``
        (``ctx``: :meth:`plan_context` of ``v`` when the caller has it already)."""
        ctx = self.plan_context(v) if ctx is None else ctx
        slots = self.num_players + 1
        exact: list[tuple[tuple, int, int]] = []
        pending: list[tuple] = []  # (upper-bound key, tile, slot, double_ok, re-plan arguments)
        for tile, slot in places:
            key, double_ok, replan = self._placement_key(ctx, tile, slot)
            if replan is None:
                exact.append((key, tile * slots + slot, double_ok))
            else:
                pending.append((key, tile, slot, double_ok, replan))
        best = max(exact) if exact else None
        # Re-plan only the moves whose optimistic key could still beat the best exact one.
        pending.sort(key=lambda x: x[0], reverse=True)
        for bound, tile, slot, double_ok, replan in pending:
            if best is not None and bound <= best[0]:
                break
            cand = (
                self._replanned_key(ctx, bound, tile, slot, *replan),
                tile * slots + slot,
                double_ok,
            )
            if best is None or cand > best:
                best = cand
        return best

    def placement_keys(
        self, v: SeatView, places: list[tuple[int, int]], ctx: dict[str, Any] | None = None
    ) -> list[tuple]:
        """Per placement ``(key, double_ok, in_chain, follows_chain)``: the exact sort key
        ``(lift, plan value - penalty, flexibility, public train, -tile)`` of :meth:`choose` (its
        lazy re-planning done for every placement), whether the double rule is satisfied, whether
        the tile is in the chain plan and whether the move is the plan's next tile on the own
        train. The per-action features of :mod:`domino_env.agents.action_features` (``ctx``: as
        in :meth:`choose`; its ``"chain_w"`` is the plan's value now)."""
        ctx = self.plan_context(v) if ctx is None else ctx
        out = []
        for tile, slot in places:
            key, double_ok, replan = self._placement_key(ctx, tile, slot)
            if replan is not None:
                key = self._replanned_key(ctx, key, tile, slot, *replan)
            out.append(
                (
                    key,
                    double_ok,
                    bool(ctx["in_chain"] >> tile & 1),
                    slot == 0 and tile == ctx["first"],
                )
            )
        return out

    def plan_context(self, v: SeatView) -> dict[str, Any]:
        """What every placement's key needs: the chain plan from the own train and the table."""
        hand = v.hand_mask
        adj = self.adjacency(hand)
        chain, chain_w = self._chain(v.ends[0], hand, self.budget, adj) if self.plan else ([], 0)
        in_chain = 0
        for t in chain:
            in_chain |= 1 << t
        slots = self.num_players + 1
        return {
            "v": v,
            "adj": adj,
            "chain_w": chain_w,
            "first": chain[0] if chain else -1,
            "in_chain": in_chain,
            "spares": hand & ~in_chain,
            "public": [k for k in range(1, slots) if v.in_play[k] and v.marker[k]],
        }

    def _placement_key(
        self, ctx: dict[str, Any], tile: int, slot: int
    ) -> tuple[tuple, int, tuple | None]:
        """``(key, double_ok, None)`` for a placement whose plan value is known without a re-plan,
        else ``(optimistic key, double_ok, (end, rest, penalty))`` (the re-plan's arguments)."""
        v = ctx["v"]
        p = self.num_players
        weights, pip_masks = self.weights, self.pip_masks
        a, b = self.tiles[tile]
        rest = v.hand_mask & ~(1 << tile)
        new_end = b if a == v.ends[slot] else a
        # a. double rule
        no_cover = self.config.doubles == "no_cover"
        double_ok = int(a != b or no_cover or bool(rest & pip_masks[a]) or not self.double_rule)
        pen = 0 if double_ok else self.double_penalty
        # d. flexibility: spares left that fit a public end after the move
        spare_rest = ctx["spares"] & rest
        flex = 0
        if self.flexibility:
            for e in {new_end if k == slot else v.ends[k] for k in ctx["public"]}:
                flex += (spare_rest & pip_masks[e]).bit_count()
        # e. an opponent's public train before the Mexican train
        tail = (flex, int(0 < slot < p), -tile)
        chain_w, marked = ctx["chain_w"], v.marker[0]
        # c. plan value (b. depends on it)
        if not self.plan:
            after = 0
        elif slot == 0 and tile == ctx["first"]:
            after = chain_w - weights[tile]
        elif slot != 0 and not ctx["in_chain"] >> tile & 1:
            after = chain_w
        else:  # breaks the plan: re-plan (lazily in choose)
            end = new_end if slot == 0 else v.ends[0]
            lift_bound = int(marked and slot == 0 and self.lift_marker)
            bound = (lift_bound, weights[tile] + chain_w - pen, *tail)
            return bound, double_ok, (end, rest, pen)
        value = weights[tile] + after
        lift = int(marked and slot == 0 and value >= chain_w and self.lift_marker)
        return (lift, value - pen, *tail), double_ok, None

    def _replanned_key(
        self, ctx: dict[str, Any], bound: tuple, tile: int, slot: int, end: int, rest: int, pen: int
    ) -> tuple:
        """The exact key of a plan-breaking placement (re-plan with ``budget // 8`` nodes)."""
        after = self._chain(end, rest, max(1, self.budget // 8), ctx["adj"])[1]
        value = self.weights[tile] + after
        lift = int(
            ctx["v"].marker[0] and slot == 0 and value >= ctx["chain_w"] and self.lift_marker
        )
        return (lift, value - pen, *bound[2:])


register_agent("random", no_argument(RandomAgent), replace=True)
register_agent("greedy", no_argument(GreedyAgent), replace=True)
def _planner(config: Any, arg: str | None) -> PlannerAgent:
    """``planner`` or ``planner:BUDGET`` (chain-search nodes)."""
    if not arg:
        return PlannerAgent(config)
    if not (arg.isascii() and arg.isdigit() and int(arg) >= 1):  # e.g. planner:search=3, a line-game form
        raise AgentSpecError(f"planner:{arg}", "planner or planner:BUDGET (chain-search nodes, an "
                          "integer >= 1; planner:search is a line-game option)")  # fmt: skip
    return PlannerAgent(config, budget=int(arg))


register_agent("planner", _planner, replace=True)
