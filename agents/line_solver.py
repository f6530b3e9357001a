"""Exact win/loss solver for determinized line-game rounds with two sides (``search`` ``rollout="solve"``).

In a determinization every hand (and the boneyard order) is known, so a two-sided round (2
players, or 4 players in two teams: Cuban) is a finite zero-sum game of perfect information whose
outcome for one side is a win or a loss: the engine's rules leave no tied rounds (a blocked
round goes to the lowest pips, ties to the seat nearest the leader; docs/rules.md §2.1). The
solver computes that outcome by depth-first search with win/loss pruning (a side stops at its
first winning move, the other at its first losing one) and a transposition table keyed by the
hands, the open ends, the seat to move and the boneyard size.

It follows the engine's rules (:class:`~domino_env.core.line.LineState`): a seat places a
fitting tile if it holds one (a double open at both ends, ``left == right``, is played on the
left end only, as ``legal_actions`` offers it); otherwise it draws while the boneyard has tiles
(draw game) and passes when it is empty; the round ends when a hand is empty (that seat's side
wins) or, after a placement, when no hand and no boneyard tile fits the ends (blocked: the side
with the fewest pips, ties to the seat nearest the leader). It ignores only ANNUL, which the
rollouts never choose either (legal on a seat's first turn only). ``tests/agents/test_line_solver.py``
checks solved outcomes against plain enumeration through the engine.

Cost: pure Python, about 4 µs per node on this machine (block 2p from its first decision: about 120 nodes;
Cuban with 24 tiles left: about 1,400); a node budget (``node_limit``) bounds
one solve, beyond which :meth:`LineSolver.wins` returns ``None`` and the caller falls back to a
playout.
"""

from __future__ import annotations

from typing import Any

from domino_env.core.deal import bits
from domino_env.core.line import LineState

from .rollout import block_move


class _OverBudget(Exception):
    pass


class LineSolver:
    """Win/loss of a determinized line round for one side (module docstring).

    Args:
        state: a :class:`LineState` of a two-sided game (``num_players == 2`` or ``teams``) whose
            line has been led; only its rules tables are kept.
        node_limit: nodes one :meth:`wins` call may visit before it gives up.
    """

    def __init__(self, state: LineState, node_limit: int = 20_000):
        t = state._t
        self.p = state.num_players
        self.teams = bool(state.config.teams)
        if not (self.p == 2 or self.teams):
            raise ValueError("the solver needs two sides: 2 players, or teams")
        self.tiles = t.tiles
        self.values = t.values
        self.pip_masks = t.pip_masks
        self.node_limit = int(node_limit)
        self.nodes = 0
        # Moves of a hand on open ends: tiles in descending value (heaviest first is the usual
        # good move, which makes the first-win / first-loss cuts come early).
        self._order = sorted(range(t.num_tiles), key=lambda i: (-t.values[i], i))

    @staticmethod
    def solvable(state: LineState) -> bool:
        """The solver applies: two sides, the line led, the round running."""
        p = state.num_players
        return (p == 2 or bool(state.config.teams)) and state.left >= 0 and not state.round_over

    def reset(self) -> None:
        """Forget the transposition table. Its entries hold for the states of one deal (the same
        boneyard order and leader) and one side: call this before solving another deal or side."""
        self._memo = {}
        self._key = None

    def wins(self, state: LineState, side: int) -> bool | None:
        """Does ``side`` (0 or 1: seat % 2) win the round from ``state`` with best play by both
        sides? ``None`` when the node budget ran out. Solves of states of one deal share their
        transposition table until :meth:`reset` (a change of side or leader resets it)."""
        self.nodes = 0
        if getattr(self, "_key", None) != (side, state.leader):
            self._memo = {}
            self._key = (side, state.leader)
        self._side = side
        self._leader = state.leader
        boneyard = list(state.boneyard)  # next draw = last element
        self._boneyard = boneyard
        masks = [0]
        for tile in boneyard:
            masks.append(masks[-1] | 1 << tile)
        self._bmasks = masks  # masks[n]: the first n boneyard tiles (the n still to draw)
        try:
            return self._solve(
                tuple(state.hands), state.left, state.right, state.current_player, len(boneyard)
            )
        except _OverBudget:
            return None

    # ------------------------------------------------------------------ search
    def _solve(self, hands: tuple, left: int, right: int, seat: int, nb: int) -> bool:
        key = (hands, left, right, seat, nb)
        memo = self._memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise _OverBudget
        pm = self.pip_masks
        hand = hands[seat]
        fit_l = hand & pm[left]
        fit_r = 0 if left == right else hand & pm[right]
        p = self.p
        if not fit_l | fit_r:
            if nb:  # draw the next boneyard tile; same seat again
                new = list(hands)
                new[seat] = hand | 1 << self._boneyard[nb - 1]
                res = self._solve(tuple(new), left, right, seat, nb - 1)
            else:  # pass (not blocked: the last placement left a fitting tile somewhere)
                res = self._solve(hands, left, right, (seat + 1) % p, nb)
            memo[key] = res
            return res
        mine = seat % 2 == self._side
        nxt = (seat + 1) % p
        tiles = self.tiles
        fits = fit_l | fit_r
        res = not mine
        for tile in self._order:
            if not fits >> tile & 1:
                continue
            a, b = tiles[tile]
            rest = hand & ~(1 << tile)
            for end in (0, 1):
                if end == 0:
                    if not fit_l >> tile & 1:
                        continue
                    nl, nr = (a if b == left else b), right
                else:
                    if not fit_r >> tile & 1:
                        continue
                    nl, nr = left, (b if a == right else a)
                if not rest:
                    won = mine
                else:
                    new = list(hands)
                    new[seat] = rest
                    ends = pm[nl] | pm[nr]
                    if any(h & ends for h in new) or self._bmasks[nb] & ends:
                        won = self._solve(tuple(new), nl, nr, nxt, nb)
                    else:
                        won = self._blocked_winner(new) % 2 == self._side
                if won == mine:  # this side's best move found: cut
                    memo[key] = won
                    return won
        memo[key] = res
        return res

    def _blocked_winner(self, hands: list[int]) -> int:
        """The winning seat of a blocked round (docs/rules.md §2.1: fewest pips, the side's total
        with teams; ties to the seat nearest the leader)."""
        values = self.values
        pips = [sum(values[i] for i in bits(h)) for h in hands]
        p = self.p
        order = [(self._leader + k) % p for k in range(p)]
        if self.teams:
            team = [pips[0] + pips[2], pips[1] + pips[3]]
            low = min(team)
            return next(s for s in order if team[s % 2] == low)
        low = min(pips)
        return next(s for s in order if pips[s] == low)


def solved_value(state: LineState, side: int, solver: LineSolver) -> float | None:
    """1.0 / 0.0: ``side`` wins / loses ``state`` (a finished round: its result); ``None`` when
    the solver does not apply or runs out of nodes."""
    if state.round_over:
        result = state.round_result
        if result.termination == "annulled":
            return 0.5
        return 1.0 if result.winners[0] % 2 == side else 0.0
    if not LineSolver.solvable(state):
        return None
    won = solver.wins(state, side)
    return None if won is None else float(won)


def solve_or_playout(state: LineState, side: int, solver: LineSolver, solve_tiles: int) -> Any:
    """Value of ``state`` (mutated: pass a copy) for ``side``: the ``"block"`` rollout policy plays
    every seat until at most ``solve_tiles`` tiles are left in the hands and the boneyard
    together, then the solver gives the exact outcome (1.0 / 0.0). If it runs out of nodes, the
    rollout plays on and the solver tries again once 2 more tiles have left the hands and
    boneyard (so a deep position costs a few failed solves, not one per move). Returns a float,
    or the round result when the rollout reached the end unsolved."""
    hands = state.hands
    limit = solve_tiles
    while not state.round_over:
        left = sum(h.bit_count() for h in hands) + len(state.boneyard)
        if left <= limit:
            v = solved_value(state, side, solver)
            if v is not None:
                return v
            limit = left - 2
        state.apply(block_move(state))
    return state.round_result
