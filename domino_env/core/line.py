"""Line dominoes rules engine: block, draw and Cuban (docs/rules.md §2; seeds 001, 003, 004).

One line of play with two open ends. Actions are ints with one fixed meaning (docs/design.md §3):
``tile_index * 2 + end`` places a tile on the left end (0; also the only end for the lead) or the
right end (1); ``2T`` is DRAW, ``2T + 1`` PASS and ``2T + 2`` ANNUL (Cuban: a player dealt
``annul_doubles`` or more doubles asks for a new deal on its first turn).

A :class:`LineState` holds a whole game: the current round and the totals around it. Mutable,
with a cheap :meth:`copy`. Plain Python; randomness is the shuffle only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .config import LineConfig
from .deal import TileReader, bits, check_keys, check_seat, tiles_as_pairs
from .errors import (
    ConfigError,
    DealError,
    IllegalActionError,
    check_action,
    check_index,
    check_optional_rng,
)
from .history import set_slots
from .tiles import Tile, set_tables


@dataclass(frozen=True)
class LineRoundResult:
    """How a line-game round ended (docs/rules.md §2.1).

    Attributes:
        termination: ``"went_out"`` (domino), ``"blocked"`` (cierre / tranque) or ``"annulled"``
            (a seat annulled the round on its first turn, ``annul_doubles``: the round is dealt
            again, docs/rules.md §2.2).
        winners: the winning seat, or both seats of the winning team; ``()`` for an annulled round.
        pips: pips left in each seat's hand, seat order.
        points: points each seat's side scored this round (the winners' score, repeated for both
            partners with teams; 0 for the losers; 0 for every seat of an annulled round).
        leader: the seat that led the round.
        round_index: 0 for the first round of the game.
    """

    termination: str
    winners: tuple[int, ...]
    pips: tuple[int, ...]
    points: tuple[int, ...]
    leader: int
    round_index: int


class LineState:
    """A block / draw / Cuban game in progress. Build one with :meth:`new_game`.

    Read-only views: :attr:`line` (oriented tiles, left to right), :attr:`ends` (``(left,
    right)`` pips, or ``None`` before the lead), :meth:`hand_tiles`, :attr:`boneyard_size`,
    :attr:`current_player`, :attr:`leader`, :attr:`round_over`, :attr:`scores`. A seat argument
    outside 0..P-1 raises :class:`~domino_env.core.errors.DominoError`.
    """

    __slots__ = (
        "config", "_t", "num_players", "draw_action", "pass_action", "annul_action",
        "scores", "round_index", "game_over", "game_winners", "deals", "actions",
        "hands", "boneyard", "out_of_play", "placed", "line", "left", "right", "current_player", "leader",
        "forced_lead", "first_turn_pending", "in_first_turn", "doubles_dealt", "missing",
        "_pre_draw_missing", "_drew", "round_over", "round_result", "annulments", "_legal",
        "winner_seat", "round_start", "actors",
    )  # fmt: skip

    @classmethod
    def new_game(
        cls, config: LineConfig, rng: np.random.Generator | None, deal: dict[str, Any] | None = None
    ) -> LineState:
        """Start a game and deal its first round.

        The first round's leader is the holder of the highest double, who must lead it; if no
        double was dealt, the holder of the heaviest tile leads it (docs/rules.md §2.1). A deal with a
        ``first_player`` makes that seat lead with any tile.

        ``rng``: a ``numpy.random.Generator``, the only source of randomness (the shuffles); None
        only with a ``deal`` (records replay that way).

        Raises:
            ConfigError: ``config`` is not a LineConfig, or ``rng`` neither None nor a
                ``numpy.random.Generator``.
            DealError: invalid ``deal``, or no ``deal`` and no ``rng``.
        """
        if not isinstance(config, LineConfig):
            raise ConfigError("config", config, "a LineConfig (domino_env.core.config.line_from_preset(...))")
        check_optional_rng(rng)
        self = cls.__new__(cls)
        self.config = config
        self._t = set_tables(config.max_pip)
        p = config.num_players
        self.num_players = p
        t = self._t.num_tiles
        self.draw_action, self.pass_action, self.annul_action = 2 * t, 2 * t + 1, 2 * t + 2
        self.scores = [0] * p
        self.round_index = 0
        self.game_over = False
        self.game_winners: tuple[int, ...] = ()
        self.deals: list[dict[str, Any]] = []
        self.actions: list[int] = []
        self.actors: list[int] = []  # the seat that played each entry of ``actions``
        self.annulments = 0
        self.winner_seat = -1
        self._start_round(rng, None, deal)
        return self

    def __setstate__(self, pickled: Any) -> None:
        set_slots(self, pickled)  # (a state pickled before round_history(): its seats rebuilt)

    def copy(self) -> LineState:
        """An independent copy."""
        new = LineState.__new__(LineState)
        for name in self.__slots__:
            setattr(new, name, getattr(self, name))
        for name in ("scores", "deals", "actions", "actors", "hands", "boneyard", "line", "first_turn_pending",
                     "doubles_dealt", "missing", "_pre_draw_missing", "_drew"):
            setattr(new, name, getattr(self, name)[:])
        new._legal = None if self._legal is None else self._legal[:]
        return new

    # ------------------------------------------------------------------ dealing
    @classmethod
    def check_later_deal(cls, config: LineConfig, deal: Any, round_index: int) -> None:
        """Refuse, before any play, a deal given for a later round (``reset``'s
        ``options["deals"][k]``): every check of a line game's deal is independent of the play.

        Raises:
            DealError: as :meth:`start_next_round` would for the same deal."""
        read_deal(config, deal)

    def _start_round(self, rng: np.random.Generator | None, leader: int | None, deal: Any) -> None:
        cfg, t = self.config, self._t
        p = self.num_players
        forced = -1
        if deal is not None:
            hands, boneyard, given = read_deal(cfg, deal)
            leader = leader if given is None else given
            out = (1 << t.num_tiles) - 1
            for h in hands:
                out &= ~h
            for b in boneyard:
                out &= ~(1 << b)
        else:
            if rng is None:
                raise DealError("a new round needs a random generator or an explicit deal")
            order = rng.permutation(t.num_tiles).tolist()
            size = cfg.hand_size
            hands = [0] * p
            for s in range(p):
                for tile in order[s * size : (s + 1) * size]:
                    hands[s] |= 1 << tile
            rest = order[p * size :]
            boneyard = rest if cfg.use_boneyard else []
            out = 0 if cfg.use_boneyard else sum(1 << i for i in rest)
        if leader is None:
            leader, forced = self._first_lead(hands)
        self.hands = hands
        self.boneyard = boneyard[::-1]  # next draw = last element
        self.out_of_play = out
        self.round_start = len(self.actions)  # this round's actions are actions[round_start:]
        self.line: list[Tile] = []
        self.placed = 0
        self.left = self.right = -1
        self.leader = leader
        self.forced_lead = forced
        self.first_turn_pending = [True] * p
        self.doubles_dealt = [(h & t.double_mask).bit_count() for h in hands]
        self.missing = [0] * p
        self._pre_draw_missing = [0] * p
        self._drew = [False] * p
        self.round_over = False
        self.round_result: LineRoundResult | None = None
        self._legal = None
        n = cfg.max_pip
        self.deals.append(
            {
                "hands": [tiles_as_pairs(bits(h), n) for h in hands],
                "boneyard": tiles_as_pairs(boneyard, n),
                "first_player": leader if forced < 0 else None,
            }
        )
        self._begin_turn(leader)

    def _first_lead(self, hands: list[int]) -> tuple[int, int]:
        """(leader, tile it must lead): the highest double held, else the heaviest tile (tie: the
        higher of its two pips). docs/rules.md §2.1, seeds 003 and 004."""
        t = self._t
        best, best_key = -1, None
        for seat, hand in enumerate(hands):
            for i in bits(hand):
                a, b = t.tiles[i]
                key = (1, a, 0) if a == b else (0, a + b, b)
                if best_key is None or key > best_key:
                    best, best_key = (seat, i), key
        if best == -1:
            raise DealError("no tile was dealt: nobody can lead")
        return best

    # ------------------------------------------------------------------ turns
    def _begin_turn(self, seat: int) -> None:
        self.current_player = seat
        self.in_first_turn = self.first_turn_pending[seat]
        self.first_turn_pending[seat] = False
        self._legal = None

    def _next_seat(self) -> None:
        self._begin_turn((self.current_player + 1) % self.num_players)

    def can_annul(self) -> bool:
        """ANNUL is legal: first turn of the round, no tile placed yet by this player, and at least
        ``annul_doubles`` doubles dealt to it (seed 001)."""
        need = self.config.annul_doubles
        return need is not None and self.in_first_turn and self.doubles_dealt[self.current_player] >= need

    def legal_actions(self) -> list[int]:
        """Legal actions of the current player under docs/rules.md §2.1-2.2, sorted ascending
        (never empty while the round runs)."""
        if self._legal is not None:
            return self._legal
        if self.round_over:
            self._legal = []
            return self._legal
        hand = self.hands[self.current_player]
        t = self._t
        actions: list[int] = []
        if not self.line:
            if self.forced_lead >= 0:
                actions.append(2 * self.forced_lead)
            else:
                actions.extend(2 * i for i in bits(hand))
        else:
            left_fit = hand & t.pip_masks[self.left]
            right_fit = 0 if self.left == self.right else hand & t.pip_masks[self.right]
            for i in bits(left_fit | right_fit):
                if left_fit >> i & 1:
                    actions.append(2 * i)
                if right_fit >> i & 1:
                    actions.append(2 * i + 1)
            if not actions:
                if self.config.use_boneyard and self.boneyard:
                    actions.append(self.draw_action)
                else:
                    actions.append(self.pass_action)
        if self.can_annul():
            actions.append(self.annul_action)
        self._legal = actions
        return actions

    def apply(self, action: int) -> None:
        """Apply ``action`` for the current player.

        Raises:
            IllegalActionError: the action is not an integer or not legal now (the state is left
                unchanged).
        """
        action = check_action(action)
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalActionError(
                f"illegal action {action} ({self.describe_action(action)}) for seat "
                f"{self.current_player}; legal: {[self.describe_action(a) for a in legal[:12]]}"
                if not self.round_over
                else f"action {action} given after the round ended"
            )
        self.actions.append(action)
        seat = self.current_player
        self.actors.append(seat)
        if action == self.annul_action:
            self.annulments += 1
            self._end_round("annulled", None)
            return
        if action == self.draw_action:
            base = (1 << self.left | 1 << self.right) if self._drew[seat] else self.missing[seat]
            self._pre_draw_missing[seat] = base | 1 << self.left | 1 << self.right
            self.missing[seat] = 0  # an unseen tile joined the hand
            self._drew[seat] = True
            self.hands[seat] |= 1 << self.boneyard.pop()
            self._legal = None
            return
        if action == self.pass_action:
            ends = 1 << self.left | 1 << self.right
            self.missing[seat] = ends if self._drew[seat] else self.missing[seat] | ends
            self._drew[seat] = False
            self._next_seat()
            return
        tile, end = divmod(action, 2)
        self._place(seat, tile, end)

    def _place(self, seat: int, tile: int, end: int) -> None:
        a, b = self._t.tiles[tile]
        self.hands[seat] &= ~(1 << tile)
        self.placed |= 1 << tile
        if self._drew[seat]:  # the tile placed is the drawn one: the old hand lacked these pips
            self.missing[seat] = self._pre_draw_missing[seat]
            self._drew[seat] = False
        if not self.line:
            self.line.append((a, b))
            self.left, self.right = a, b
        elif end == 0:
            out = a if b == self.left else b
            self.line.insert(0, (out, self.left))
            self.left = out
        else:
            out = b if a == self.right else a
            self.line.append((self.right, out))
            self.right = out
        self.forced_lead = -1
        if not self.hands[seat]:
            self._end_round("went_out", seat)
            return
        if self._nobody_can_place():
            self._end_round("blocked", None)
            return
        self._next_seat()

    def _nobody_can_place(self) -> bool:
        """No tile that fits either end is in a hand or the boneyard (docs/rules.md §2.1: "every tile
        carrying an open-end pip value is on the table", generalised to tiles out of play)."""
        fits = self._t.pip_masks[self.left] | self._t.pip_masks[self.right]
        if any(h & fits for h in self.hands):
            return False
        return not any(fits >> i & 1 for i in self.boneyard)

    # ------------------------------------------------------------------ scoring
    def _end_round(self, termination: str, went_out: int | None) -> None:
        cfg, p = self.config, self.num_players
        values = self._t.values
        pips = tuple(sum(values[i] for i in bits(h)) for h in self.hands)
        order = [(self.leader + k) % p for k in range(p)]  # "mano": nearest the leader first
        self.round_over = True
        self._legal = []
        if termination == "annulled":  # seed 001: re-deal, the same seat leads again
            self.winner_seat = self.leader
            self.round_result = LineRoundResult(
                termination, (), pips, (0,) * p, self.leader, self.round_index
            )
            return
        if went_out is not None:
            winner = went_out
        elif cfg.teams:
            team_pips = [pips[0] + pips[2], pips[1] + pips[3]]
            low = min(team_pips)
            winner = next(s for s in order if team_pips[s % 2] == low)
        else:
            low = min(pips)
            winner = next(s for s in order if pips[s] == low)
        if cfg.teams:
            winners = (winner, (winner + 2) % 4) if winner in (0, 1) else ((winner + 2) % 4, winner)
            winners = tuple(sorted(winners))
            score = sum(pips)
        else:
            winners = (winner,)
            score = sum(pips) - pips[winner]
        points = tuple(score if s in winners else 0 for s in range(p))
        for s in range(p):
            self.scores[s] += points[s]
        self.round_result = LineRoundResult(
            termination, winners, pips, points, self.leader, self.round_index
        )
        self.winner_seat = winner
        top = max(self.scores)
        if top >= cfg.target_score:
            self.game_over = True
            self.game_winners = tuple(s for s in range(p) if self.scores[s] == top)

    def start_next_round(
        self, rng: np.random.Generator | None, deal: dict[str, Any] | None = None
    ) -> None:
        """Deal the next round (docs/rules.md §2.1): after an annulment the same round again with the
        same leader; otherwise the next round, led by the seat after the previous leader
        (``next_lead="next_seat"``) or by the previous round's winner (``"winner"``), with any
        tile.

        Raises:
            ConfigError: ``rng`` is neither None nor a ``numpy.random.Generator``.
            DealError: the game is over, the round is still running, or ``deal`` is invalid (the
                state is then unchanged), or no ``deal`` and no ``rng``.
        """
        check_optional_rng(rng)
        if not self.round_over:
            raise DealError("the current round is still being played")
        if self.game_over:
            raise DealError("the game is over")
        index = self.round_index
        if self.round_result.termination == "annulled":
            leader = self.leader
        else:
            self.round_index += 1
            if self.config.next_lead == "winner":
                leader = self.winner_seat
            else:
                leader = (self.leader + 1) % self.num_players
        try:
            self._start_round(rng, leader, deal)
        except DealError:  # a refused deal changes nothing: the same call may be made again
            self.round_index = index
            raise

    # ------------------------------------------------------------------ views
    def describe_action(self, action: int, seat: int | None = None) -> str:
        """Readable action, e.g. ``"place 6-6 on the left end"``, the same for every ``seat`` (checked:
        outside 0..P-1 raises DominoError, as Mexican Train's); ``"out-of-range action N"`` outside the
        space. A non-integer ``action`` (float, bool, str, None) raises IllegalActionError."""
        action = check_action(action)
        if seat is not None:
            check_index(seat, self.num_players, "seat")
        if action == self.draw_action:
            return "draw"
        if action == self.pass_action:
            return "pass"
        if action == self.annul_action:
            return "annul the round"
        if not 0 <= action < 2 * self._t.num_tiles:
            return f"out-of-range action {action}"
        tile, end = divmod(action, 2)
        a, b = self._t.tiles[tile]
        if not self.line:
            return f"lead {a}-{b}"
        return f"place {a}-{b} on the {'left' if end == 0 else 'right'} end"

    def hand_tiles(self, seat: int) -> list[Tile]:
        """Tiles in ``seat``'s hand, canonical order."""
        return [self._t.tiles[i] for i in bits(self.hands[check_index(seat, self.num_players, "seat")])]

    def round_history(self) -> list[tuple[int, int]]:
        """This round's actions so far, in order, as ``(seat, action)`` pairs (actions as in
        :meth:`legal_actions`, named by :meth:`describe_action`): who placed which tile on which
        end, who drew, who passed. Public information: every seat sees every move."""
        return list(zip(self.actors[self.round_start :], self.actions[self.round_start :], strict=True))

    def describe_round_history(self) -> list[tuple[int, str]]:
        """:meth:`round_history` with each action named as it was played: ``(seat, text)``.
        (:meth:`describe_action` names an action on the table as it is now, where the round's
        lead, described later, reads as a placement on the left end.)"""
        out, led = [], False
        for seat, action in self.round_history():
            if not led and action < 2 * self._t.num_tiles:  # the round's first placement leads
                led = True
                a, b = self._t.tiles[action // 2]
                out.append((seat, f"lead {a}-{b}"))
            else:
                out.append((seat, self.describe_action(action, seat)))
        return out

    def hand_size(self, seat: int) -> int:
        """Number of tiles in ``seat``'s hand (public). Raises ``DominoError`` for a seat outside
        0..num_players-1."""
        return self.hands[check_index(seat, self.num_players, "seat")].bit_count()

    @property
    def ends(self) -> tuple[int, int] | None:
        """``(left, right)`` open-end pips, or None before the lead."""
        return (self.left, self.right) if self.line else None

    @property
    def boneyard_size(self) -> int:
        """Tiles left to draw (0 with ``use_boneyard=False``, as in block: undealt tiles are out of
        play)."""
        return len(self.boneyard)

    @property
    def num_tiles(self) -> int:
        """Tiles in the set (T)."""
        return self._t.num_tiles

    def missing_pips(self, seat: int) -> list[int]:
        """Pip values ``seat`` is publicly known to lack, from its passes and draws (docs/rules.md §3)."""
        missing = self.missing[check_index(seat, self.num_players, "seat")]
        return [v for v in range(self.config.max_pip + 1) if missing >> v & 1]


def read_deal(config: LineConfig, deal: Any) -> tuple[list[int], list[int], int | None]:
    """``(hands, boneyard, first_player)`` of a given deal (docs/envs.md, "Starting from a given
    position"): hands as bitmasks, boneyard as tile indices in drawing order (empty when the deal
    gives none, or None), first_player None when the deal names none (or gives None).

    Raises:
        DealError: naming the deal's field that is wrong."""
    check_keys(deal, ("hands", "boneyard", "first_player"))
    reader = TileReader(config.max_pip)
    hands = reader.hands(deal, config.num_players)
    for s, hand in enumerate(hands):
        if not hand:
            raise DealError(f"hand of seat {s} is empty: every seat needs a tile")
    boneyard = reader.boneyard(deal)
    if boneyard and not config.use_boneyard:
        raise DealError("use_boneyard=False (block game): the deal's boneyard must be empty")
    first = deal.get("first_player")
    return hands, boneyard, None if first is None else check_seat(first, config.num_players, "first_player")
