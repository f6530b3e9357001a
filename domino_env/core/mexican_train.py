"""Mexican Train rules engine (docs/rules.md §1; seeds 000, 002 and 003).

Plain Python and a ``numpy.random.Generator`` for the shuffle; no gymnasium, pettingzoo or torch.

A :class:`MexicanTrainState` holds a whole game: the current round (hands, boneyard, trains,
markers, open doubles, whose turn and in which phase) and the game around it (round number,
totals, eliminated seats, station bookkeeping). It is mutable with a cheap :meth:`copy`. This
module holds the turn logic (legal actions, apply); dealing, the station and the end of a round
and of the game are in its base class :class:`~domino_env.core.mexican_train_rounds.MexicanTrainRounds`,
the read-only views (hands, trains, the round's history, action names) in its base class
:class:`~domino_env.core.mexican_train_views.MexicanTrainViews`.

Actions are ints with one fixed meaning relative to the acting seat (docs/rules.md / docs/design.md §3):
``tile_index * (P + 1) + slot`` places that tile on the train ``slot`` seats after the actor
(slot 0 = own train, slot P = the Mexican train); ``T * (P + 1)`` is DRAW and ``T * (P + 1) + 1``
is PASS, where T is the number of tiles of the set and P the number of seats.

Trains are numbered absolutely: train ``s`` (0..P-1) belongs to seat ``s``, train ``P`` is the
Mexican train.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .config import MexicanTrainConfig
from .deal import check_keys
from .errors import ConfigError, IllegalActionError, check_action, check_optional_rng
from .history import set_slots
from .mexican_train_rounds import MexicanTrainRounds, RoundResult  # noqa: F401 (RoundResult: public here)
from .mexican_train_views import MexicanTrainViews
from .tiles import set_tables

# Turn phases (what the acting player owes right now).
FREE = 0  #: start of a turn: any legal placement (or cover an obliging open double)
COVER_OWN = 1  #: after the player's own double(s): must cover one of them (satisfy, double_double)
SECOND_DOUBLE = 2  #: double_double after a first double: cover it or place a second double
EXTRA = 3  #: chain / no_cover: one more placement anywhere legal after a double
PHASE_NAMES = ("free", "cover_own_double", "second_double_or_cover", "extra_play_after_double")


class MexicanTrainState(MexicanTrainRounds, MexicanTrainViews):
    """A Mexican Train game in progress. Build one with :meth:`new_game`.

    Read-only views for agents, tests and renderers: :meth:`hand_tiles`, :meth:`train_tiles`,
    :meth:`open_end`, :meth:`has_marker`, :attr:`open_doubles`, :attr:`boneyard_size`,
    :attr:`station`, :attr:`current_player`, :attr:`round_over`, :attr:`scores`. A seat outside
    0..P-1 (a train outside 0..P) raises :class:`~domino_env.core.errors.DominoError`.
    Mutate only through :meth:`apply` and :meth:`start_next_round`.
    """

    __slots__ = (
        "config", "_t", "num_players", "num_trains", "draw_action", "pass_action",
        "active", "scores", "round_index", "game_over", "game_winners", "eliminated_at",
        "_used_stations", "round_first_player",
        "hands", "boneyard", "out_of_play", "station", "ends", "trains", "markers",
        "open_doubles", "placed", "current_player", "phase", "turn_doubles", "drawn_tile",
        "first_turn_pending", "in_first_turn", "missing", "_pre_draw_missing",
        "round_over", "round_result", "deals", "actions", "_legal", "actors", "round_start",
    )  # fmt: skip

    # ------------------------------------------------------------------ construction
    @classmethod
    def new_game(
        cls,
        config: MexicanTrainConfig,
        rng: np.random.Generator,
        deal: dict[str, Any] | None = None,
    ) -> MexicanTrainState:
        """Start a game and deal its first round.

        Args:
            config: the rules (a :class:`MexicanTrainConfig`).
            rng: the only source of randomness (first seat when not configured, the shuffles), a
                ``numpy.random.Generator``; None only with a ``deal`` that names its first player
                (or ``config.first_player`` set): records replay that way.
            deal: optional exact first deal, ``{"hands": [[[a, b], ...] per seat], "boneyard":
                [[a, b], ...] (first drawn first), "station": [s, s], "first_player": seat}``;
                tiles of the set that appear nowhere are out of play for the round. Without
                ``"station"``: the round's scheduled double (``station_source="set_aside"``), or
                with ``"highest_held"`` the rule picks it from the hands (docs/rules.md §1.7:
                its holder places it and moves first); without ``"boneyard"``, none. An
                optional key given as None reads as if it were absent.

        Raises:
            ConfigError: ``config`` is not a MexicanTrainConfig, or ``rng`` neither None nor a
                ``numpy.random.Generator``.
            DealError: invalid ``deal``, or no ``deal`` and no ``rng``.
        """
        if not isinstance(config, MexicanTrainConfig):
            raise ConfigError("config", config, "a MexicanTrainConfig (domino_env.core.config.from_preset(...))")
        check_optional_rng(rng)
        self = cls.__new__(cls)
        self.config = config
        self._t = set_tables(config.max_pip, config.double_blank_points)
        p = config.num_players
        self.num_players = p
        self.num_trains = p + 1
        self.draw_action = self._t.num_tiles * (p + 1)
        self.pass_action = self.draw_action + 1
        self.active = [True] * p
        self.scores = [0] * p
        self.round_index = 0
        self.game_over = False
        self.game_winners: tuple[int, ...] = ()
        self.eliminated_at: list[int | None] = [None] * p
        self._used_stations: set[int] = set()
        self.deals: list[dict[str, Any]] = []
        self.actions: list[int] = []
        self.actors: list[int] = []  # the seat that played each entry of ``actions``
        if deal is not None:
            check_keys(deal, ("hands", "boneyard", "station", "first_player"))
        first = config.first_player
        if first is None and (deal is None or deal.get("first_player") is None) and rng is not None:
            first = int(rng.integers(p))  # without rng (a replay) the deal must name it: DealError below
        self._start_round(rng, first, deal)
        return self

    def __setstate__(self, pickled: Any) -> None:
        set_slots(self, pickled)  # (a state pickled before round_history(): its seats rebuilt)

    def copy(self) -> MexicanTrainState:
        """An independent copy (tables shared; every mutable container copied)."""
        new = MexicanTrainState.__new__(MexicanTrainState)
        for name in self.__slots__:
            setattr(new, name, getattr(self, name))
        new.active = self.active[:]
        new.scores = self.scores[:]
        new.eliminated_at = self.eliminated_at[:]
        new._used_stations = set(self._used_stations)
        new.hands = self.hands[:]
        new.boneyard = self.boneyard[:]
        new.ends = self.ends[:]
        new.trains = [t[:] for t in self.trains]
        new.markers = self.markers[:]
        new.open_doubles = self.open_doubles[:]
        new.turn_doubles = self.turn_doubles[:]
        new.first_turn_pending = self.first_turn_pending[:]
        new.missing = self.missing[:]
        new._pre_draw_missing = self._pre_draw_missing[:]
        new.deals = self.deals[:]
        new.actions = self.actions[:]
        new.actors = self.actors[:]
        new._legal = None if self._legal is None else self._legal[:]
        return new

    # ------------------------------------------------------------------ turn structure
    def _begin_turn(self, seat: int) -> None:
        self.current_player = seat
        self.phase = FREE
        self.turn_doubles = []
        self.drawn_tile = -1
        self.in_first_turn = self.first_turn_pending[seat]
        self.first_turn_pending[seat] = False
        if self.config.marker_removal == "next_turn":
            self.markers[seat] = False
        self._legal = None

    def _end_turn(self) -> None:
        self._leave_doubles_open()
        seat = self.current_player
        p = self.num_players
        for _ in range(p):
            seat = (seat + 1) % p
            if self.active[seat]:
                break
        self._begin_turn(seat)

    def _leave_doubles_open(self) -> None:
        """Doubles this player left uncovered now oblige the others (not with no_cover)."""
        if self.turn_doubles and self.config.doubles != "no_cover":
            self.open_doubles.extend(self.turn_doubles)
        self.turn_doubles = []

    def _public_trains(self, seat: int) -> list[int]:
        """Trains ``seat`` may place on in free play: own, Mexican, marked trains (docs/rules.md §1.2-1.3)."""
        trains = [seat]
        if self.config.use_mexican_train:
            trains.append(self.num_players)
        markers = self.markers
        for other in range(self.num_players):
            if other != seat and markers[other] and self.active[other]:
                trains.append(other)
        return trains

    def own_doubles_to_cover(self) -> list[int]:
        """Trains ending in a double the current player placed this turn and must still cover
        itself (docs/rules.md §1.4): its doubles while it must cover one (``satisfy``,
        ``double_double``), the first one while ``double_double`` allows a second double; none
        under ``chain`` and ``no_cover``, where a double gives one more placement anywhere."""
        if self.phase not in (COVER_OWN, SECOND_DOUBLE):
            return []
        return self.turn_doubles[:] if self.phase == COVER_OWN else self.turn_doubles[:1]

    def _coverable(self, open_doubles: list[int] | None = None) -> list[int]:
        """Obliging open doubles that may be covered now (docs/rules.md §1.4); ``open_doubles``
        replaces the current list."""
        if open_doubles is None:
            open_doubles = self.open_doubles
        if not open_doubles or self.config.doubles == "no_cover":
            return []
        if self.config.doubles == "chain":
            return [open_doubles[-1]]
        return open_doubles

    def _must_cover(self) -> bool:
        """Whether the current player is obliged to cover a double now: its own (``satisfy``,
        ``double_double``) or an open double that freezes the table (docs/rules.md §1.4). A drawn
        tile that covers is then placed under either ``drawn_tile`` rule."""
        phase = self.phase
        return phase in (COVER_OWN, SECOND_DOUBLE) or (phase == FREE and bool(self._coverable()))

    def _targets(self) -> tuple[list[int], list[int]]:
        """(trains any matching tile may go on, trains only a matching double may go on)."""
        seat = self.current_player
        phase = self.phase
        if phase == COVER_OWN:
            return self.turn_doubles, []
        if phase == SECOND_DOUBLE:
            first = self.turn_doubles[0]
            return [first], [x for x in self._public_trains(seat) if x != first]
        if phase == FREE:
            coverable = self._coverable()
            if coverable:
                return coverable, []
        if self.in_first_turn and self.config.first_turn == "own_train":
            return [seat], []
        return self._public_trains(seat), []

    def legal_actions(self) -> list[int]:
        """Legal actions of the current player under docs/rules.md §1.3-1.4, sorted ascending
        (never empty while the round runs).

        Returns:
            list of action ints (see the module docstring for the layout).
        """
        if self._legal is not None:
            return self._legal
        if self.round_over:
            self._legal = []
            return self._legal
        seat = self.current_player
        p = self.num_players
        t = self._t
        hand = self.hands[seat]
        slots = p + 1
        actions = []
        any_trains, double_trains = self._targets()
        for train in any_trains:
            slot = p if train == p else (train - seat) % p
            m = hand & t.pip_masks[self.ends[train]]
            while m:
                low = m & -m
                actions.append((low.bit_length() - 1) * slots + slot)
                m ^= low
        for train in double_trains:
            slot = p if train == p else (train - seat) % p
            m = hand & t.pip_masks[self.ends[train]] & t.double_mask
            while m:
                low = m & -m
                actions.append((low.bit_length() - 1) * slots + slot)
                m ^= low
        if actions:
            actions.sort()
            # may_play: the drawn tile may be kept, unless it covers a double the player must cover
            if self.drawn_tile >= 0 and self.config.drawn_tile == "may_play" and not (
                self._must_cover() and any(t.pip_masks[self.ends[x]] >> self.drawn_tile & 1 for x in any_trains)
            ):
                actions.append(self.pass_action)
        elif self.drawn_tile < 0 and self.config.use_boneyard and self.boneyard:
            actions.append(self.draw_action)
        else:
            actions.append(self.pass_action)
        self._legal = actions
        return actions

    # ------------------------------------------------------------------ applying actions
    def apply(self, action: int) -> None:
        """Apply ``action`` for the current player.

        Raises:
            IllegalActionError: the action is not an integer or not legal now (the state is left
                unchanged).
        """
        action = check_action(action)
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalActionError(self._illegal_message(action, legal))
        self.actions.append(action)
        self.actors.append(self.current_player)
        if action == self.draw_action:
            self._draw()
        elif action == self.pass_action:
            self._pass()
            return  # _pass ends a blocked round itself
        else:
            p = self.num_players
            tile, slot = divmod(action, p + 1)
            train = p if slot == p else (self.current_player + slot) % p
            self._place(tile, train)
        if not self.round_over and not (self.config.use_boneyard and self.boneyard):
            if self._blocked_now():
                self._end_round("blocked", None)

    def _illegal_message(self, action: int, legal: list[int]) -> str:
        if self.round_over:
            return f"action {action} given after the round ended"
        shown = [self.describe_action(a) for a in legal[:12]]
        more = f" (+{len(legal) - 12} more)" if len(legal) > 12 else ""
        return (
            f"illegal action {action} ({self.describe_action(action)}) for seat "
            f"{self.current_player}; legal: {shown}{more}"
        )

    def _place(self, tile: int, train: int) -> None:
        seat = self.current_player
        cfg = self.config
        bit = 1 << tile
        self.hands[seat] &= ~bit
        self.placed |= bit
        a, b = self._t.tiles[tile]
        end = self.ends[train]
        out = b if a == end else a
        self.trains[train].append((end, out))
        self.ends[train] = out
        if tile == self.drawn_tile:  # the drawn tile is public now: the old hand lacked these pips
            self.missing[seat] = self._pre_draw_missing[seat]
        self.drawn_tile = -1
        if train in self.open_doubles:
            self.open_doubles.remove(train)
        if train in self.turn_doubles:
            self.turn_doubles.remove(train)
        if train == seat and cfg.marker_removal == "own_train_play":
            self.markers[seat] = False
        self._legal = None
        if not self.hands[seat]:
            self._end_round("went_out", (seat,))
            return
        if a == b:
            mode = cfg.doubles
            if mode == "satisfy":
                self.phase = COVER_OWN
                self.turn_doubles = [train]
            elif mode == "double_double":
                if self.phase == SECOND_DOUBLE:
                    self.phase = COVER_OWN
                    self.turn_doubles.append(train)
                else:
                    self.phase = SECOND_DOUBLE
                    self.turn_doubles = [train]
            else:  # chain, no_cover
                self.phase = EXTRA
                self.turn_doubles.append(train)
            return
        self._end_turn()

    def _blocking_pips(self) -> int:
        """Pips the current player publicly lacks given what they were allowed to place on."""
        mask = 0
        any_trains, _ = self._targets()
        for train in any_trains:
            mask |= 1 << self.ends[train]
        return mask

    def _draw(self) -> None:
        seat = self.current_player
        lacking = self._blocking_pips()
        self._pre_draw_missing[seat] = self.missing[seat] | lacking
        tile = self.boneyard.pop()
        self.hands[seat] |= 1 << tile
        self.drawn_tile = tile
        self.missing[seat] = 0  # an unseen tile joined the hand
        self._legal = None

    def _pass(self) -> None:
        seat = self.current_player
        lacking = self._blocking_pips()
        if self.drawn_tile >= 0:
            # must_play, or a draw to cover a double: the drawn tile does not fit those ends either;
            # may_play elsewhere: it might have fitted.
            kept_a_fit = self.config.drawn_tile == "may_play" and not self._must_cover()
            self.missing[seat] = 0 if kept_a_fit else lacking
        else:
            self.missing[seat] |= lacking
        self.markers[seat] = True
        self._leave_doubles_open()
        if not (self.config.use_boneyard and self.boneyard) and self._nobody_can_place():
            self._end_round("blocked", None)
            return
        self._end_turn()

    def _blocked_now(self) -> bool:
        """After a placement or a draw, the boneyard being exhausted: True when no seat can ever
        place again (docs/rules.md §1.5), so the round ends at once instead of after the forced
        PASS (one decision fewer per blocked round; the result is the same, as the
        round's result depends only on the hands).

        At the start of a turn that is :meth:`_nobody_can_place`. In the middle of a turn (a
        double placed, or a tile drawn) the actor may still have a placement; if not, its only
        action is PASS, after which its uncovered doubles oblige everyone: check that position.
        """
        if self.phase == FREE and self.drawn_tile < 0:
            return self._nobody_can_place()
        if self.legal_actions() != [self.pass_action]:
            return False
        left_open = self.turn_doubles if self.config.doubles != "no_cover" else []
        return self._nobody_can_place(self.open_doubles + left_open)

    def _nobody_can_place(self, open_doubles: list[int] | None = None) -> bool:
        """True when no seat can ever place again (docs/rules.md §1.5), the boneyard being exhausted.

        Every seat that cannot place passes and marks its train, so each seat is checked against
        every active train (and the obliging open doubles, which stay until covered).
        ``open_doubles`` replaces the current open doubles (the position after a PASS).
        """
        t = self._t
        coverable = self._coverable(open_doubles)
        p = self.num_players
        if coverable:
            trains = coverable
        else:
            trains = [s for s in range(p) if self.active[s]]
            if self.config.use_mexican_train:
                trains.append(p)
        pips = 0
        for train in trains:
            pips |= t.pip_masks[self.ends[train]]
        return not any(hand & pips for hand in self.hands)
