"""Mexican Train rules engine (docs/rules.md §1; seeds 000, 002 and 003).

Plain Python and a ``numpy.random.Generator`` for the shuffle; no gymnasium, pettingzoo or torch.

A :class:`MexicanTrainState` holds a whole game: the current round (hands, boneyard, trains,
markers, open doubles, whose turn and in which phase) and the game around it (round number,
totals, eliminated seats, station bookkeeping). It is mutable with a cheap :meth:`copy`.

Actions are ints with one fixed meaning relative to the acting seat (docs/rules.md / docs/design.md §3):
``tile_index * (P + 1) + slot`` places that tile on the train ``slot`` seats after the actor
(slot 0 = own train, slot P = the Mexican train); ``T * (P + 1)`` is DRAW and ``T * (P + 1) + 1``
is PASS, where T is the number of tiles of the set and P the number of seats.

Trains are numbered absolutely: train ``s`` (0..P-1) belongs to seat ``s``, train ``P`` is the
Mexican train.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .config import MexicanTrainConfig
from .deal import TileReader, bits, check_keys, check_seat, tiles_as_pairs
from .errors import DealError, IllegalActionError, check_action
from .tiles import Tile, double_index, set_tables

# Turn phases (what the acting player owes right now).
FREE = 0  #: start of a turn: any legal placement (or cover an obliging open double)
COVER_OWN = 1  #: after the player's own double(s): must cover one of them (satisfy, double_double)
SECOND_DOUBLE = 2  #: double_double after a first double: cover it or place a second double
EXTRA = 3  #: chain / no_cover: one more placement anywhere legal after a double
PHASE_NAMES = ("free", "cover_own_double", "second_double_or_cover", "extra_play_after_double")


@dataclass(frozen=True)
class RoundResult:
    """How a round ended (docs/rules.md §1.5).

    Attributes:
        termination: ``"went_out"`` (a hand emptied) or ``"blocked"``.
        winners: seats that won the round (the seat that went out; the fewest-pips seats of a
            blocked round; empty for a void blocked round).
        pips: pips left in each seat's hand, seat order (the 0-0 counts ``double_blank_points``).
        points: points each seat scored this round (penalty points, lower is better).
        station: the station pip of the round.
        round_index: 0 for the first round of the game.
    """

    termination: str
    winners: tuple[int, ...]
    pips: tuple[int, ...]
    points: tuple[int, ...]
    station: int
    round_index: int


class MexicanTrainState:
    """A Mexican Train game in progress. Build one with :meth:`new_game`.

    Read-only views for agents, tests and renderers: :meth:`hand_tiles`, :meth:`train_tiles`,
    :meth:`open_end`, :meth:`has_marker`, :attr:`open_doubles`, :attr:`boneyard_size`,
    :attr:`station`, :attr:`current_player`, :attr:`round_over`, :attr:`scores`.
    Mutate only through :meth:`apply` and :meth:`start_next_round`.
    """

    __slots__ = (
        "config", "_t", "num_players", "num_trains", "draw_action", "pass_action",
        "active", "scores", "round_index", "game_over", "game_winners", "eliminated_at",
        "_used_stations", "round_first_player",
        "hands", "boneyard", "out_of_play", "station", "ends", "trains", "markers",
        "open_doubles", "placed", "current_player", "phase", "turn_doubles", "drawn_tile",
        "first_turn_pending", "in_first_turn", "missing", "_pre_draw_missing",
        "round_over", "round_result", "deals", "actions", "_legal",
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
            config: the rules.
            rng: the only source of randomness (first seat when not configured, the shuffles).
            deal: optional exact first deal, ``{"hands": [[[a, b], ...] per seat], "boneyard":
                [[a, b], ...] (first drawn first), "station": [s, s], "first_player": seat}``;
                tiles of the set that appear nowhere are out of play for the round. Without
                ``"station"``: the round's scheduled double (``station_source="set_aside"``), or
                with ``"highest_held"`` the rule picks it from the hands (docs/rules.md §1.7:
                its holder places it and moves first).

        Raises:
            DealError: invalid ``deal``.
        """
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
        if deal is not None:
            check_keys(deal, ("hands", "boneyard", "station", "first_player"))
        first = config.first_player
        if first is None and (deal is None or deal.get("first_player") is None):
            first = int(rng.integers(p))
        self._start_round(rng, first, deal)
        return self

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
        new._legal = None if self._legal is None else self._legal[:]
        return new

    # ------------------------------------------------------------------ dealing
    def station_for_round(self, round_index: int) -> int:
        """Scheduled station pip of ``round_index``: N, N-1, ..., 0, then N again (docs/rules.md §1.1)."""
        n = self.config.max_pip
        return n - round_index % (n + 1)

    def _start_round(self, rng: np.random.Generator | None, first: int | None, deal: Any) -> None:
        cfg, t = self.config, self._t
        p = self.num_players
        if deal is not None:
            hands, boneyard, station, deal_first = self._parse_deal(deal)
            if cfg.station_source == "highest_held":
                self._new_station_cycle()
                if station is None:  # the rule picks the station from the hands, as when dealt
                    station, deal_first = self._held_station_of_deal(hands, deal_first)
                else:
                    self._used_stations.add(station)
            if deal_first is not None:
                first = deal_first
            if first is None:
                raise DealError("the deal gives no first_player and none is configured")
            out = ((1 << t.num_tiles) - 1) & ~(1 << double_index(station, cfg.max_pip))
            for h in hands:
                out &= ~h
            for b in boneyard:
                out &= ~(1 << b)
        else:
            if rng is None:
                raise DealError("a new round needs a random generator or an explicit deal")
            hands, boneyard, station, out, holder = self._random_deal(rng)
            if holder is not None:
                first = holder
        if not self.active[first]:
            raise DealError(f"first player {first} has been eliminated")
        self.hands = hands
        self.boneyard = boneyard[::-1]  # next draw = last element
        self.out_of_play = out
        self.station = station
        self.ends = [station] * self.num_trains
        self.trains = [[] for _ in range(self.num_trains)]
        self.markers = [False] * p
        self.open_doubles = []
        self.placed = 0
        self.turn_doubles = []
        self.drawn_tile = -1
        self.first_turn_pending = self.active[:]
        self.missing = [0] * p
        self._pre_draw_missing = [0] * p
        self.round_over = False
        self.round_result = None
        self.round_first_player = first
        self._legal = None
        self.deals.append(self._deal_record(hands, boneyard, station, first))
        self._begin_turn(first)

    def _random_deal(self, rng: np.random.Generator):
        cfg, t = self.config, self._t
        n = cfg.max_pip
        seats = [s for s in range(self.num_players) if self.active[s]]
        size = cfg.dealt_hand_size(len(seats))
        self._new_station_cycle()
        while True:
            pool = list(range(t.num_tiles))
            station = None
            if cfg.station_source == "set_aside":
                station = self.station_for_round(self.round_index)
                pool.remove(double_index(station, n))
            order = [pool[i] for i in rng.permutation(len(pool))]
            hands = [0] * self.num_players
            k = 0
            for s in seats:
                for tile in order[k : k + size]:
                    hands[s] |= 1 << tile
                k += size
            rest = order[k:]
            boneyard = rest if cfg.use_boneyard else []
            out = 0
            if not cfg.use_boneyard:
                for tile in rest:
                    out |= 1 << tile
            if station is not None:
                return hands, boneyard, station, out, None
            found = self._choose_held_station(hands)
            if found is not None:
                station, holder = found
                hands[holder] &= ~(1 << double_index(station, n))
                return hands, boneyard, station, out, holder
            # docs/rules.md §1.7: no player holds any eligible double -> re-deal.

    def _new_station_cycle(self) -> None:
        """Forget the doubles used as stations when a new pass over the stations N..0 starts."""
        if self.round_index % (self.config.max_pip + 1) == 0:
            self._used_stations = set()

    def _held_station_of_deal(self, hands: list[int], first: int | None) -> tuple[int, int]:
        """highest_held with a given deal that names no station (docs/rules.md §1.7): the holder
        of the eligible double (:meth:`_choose_held_station`) places it and moves first; it is
        taken out of ``hands``. Returns ``(station pip, first player)``.

        Raises:
            DealError: no hand holds an eligible double, the deal's ``first_player`` is another
                seat, or the holder's hand would be empty.
        """
        n = self.config.max_pip
        found = self._choose_held_station(hands)
        if found is None:
            eligible = sorted(set(range(n + 1)) - self._used_stations, reverse=True)
            raise DealError(
                f"station_source='highest_held' and the deal gives no station: no hand holds an "
                f"eligible double ({eligible}); deal one, or give 'station'"
            )
        station, holder = found
        if first is not None and first != holder:
            raise DealError(
                f"station_source='highest_held': seat {holder} holds {station}-{station}, so it "
                f"places the station and moves first; the deal's first_player is {first}"
            )
        hands[holder] &= ~(1 << double_index(station, n))
        if not hands[holder]:
            raise DealError(
                f"hand of seat {holder} is only its {station}-{station}, the station: it would be "
                "empty; every seat in the game needs a tile"
            )
        return station, holder

    def _choose_held_station(self, hands: list[int]) -> tuple[int, int] | None:
        """highest_held (docs/rules.md §1.7): the round's double if held, else the highest lower one.

        Doubles skipped in earlier rounds (unused and above the round's scheduled double) come
        first, highest first: a skipped double is used in the first later round where someone
        holds it.
        """
        n = self.config.max_pip
        scheduled = self.station_for_round(self.round_index)
        owed = [d for d in range(n, scheduled - 1, -1) if d not in self._used_stations]
        lower = [d for d in range(scheduled - 1, -1, -1) if d not in self._used_stations]
        for d in owed + lower:
            bit = 1 << double_index(d, n)
            for seat, hand in enumerate(hands):
                if hand & bit:
                    self._used_stations.add(d)
                    return d, seat
        return None

    def _parse_deal(self, deal: Any):
        cfg = self.config
        n, p = cfg.max_pip, self.num_players
        check_keys(deal, ("hands", "boneyard", "station", "first_player"))
        reader = TileReader(n)
        if "station" in deal:
            st = deal["station"]
            try:
                a, b = (int(x) for x in st)
            except (TypeError, ValueError):
                raise DealError(f"station must be a double [s, s], got {st!r}") from None
            if a != b or not 0 <= a <= n:
                raise DealError(f"station must be a double [s, s] with 0 <= s <= {n}, got {st!r}")
            station = a
            reader.tile((station, station), "station")
        elif cfg.station_source == "highest_held":
            station = None  # chosen from the hands by the rule (_held_station_of_deal)
        else:
            station = self.station_for_round(self.round_index)
            reader.tile((station, station), "station")
        hands = reader.hands(deal, p)
        for s in range(p):
            if hands[s] and not self.active[s]:
                raise DealError(f"seat {s} has been eliminated and cannot be dealt tiles")
            if not hands[s] and self.active[s]:
                raise DealError(f"hand of seat {s} is empty: every seat in the game needs a tile")
        boneyard = reader.boneyard(deal)
        if boneyard and not cfg.use_boneyard:
            raise DealError("use_boneyard=False: the deal's boneyard must be empty")
        first = deal.get("first_player")
        if first is not None:
            first = check_seat(first, p, "first_player")
        return hands, boneyard, station, first

    def _deal_record(self, hands: list[int], boneyard: list[int], station: int, first: int):
        n = self.config.max_pip
        return {
            "hands": [tiles_as_pairs(bits(h), n) for h in hands],
            "boneyard": tiles_as_pairs(boneyard, n),
            "station": [station, station],
            "first_player": first,
        }

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
        """Legal actions of the current player, sorted ascending (never empty while the round runs).

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
            if self.drawn_tile >= 0 and self.config.drawn_tile == "may_play":
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
            IllegalActionError: the action is not legal now (the state is left unchanged).
        """
        action = check_action(action)
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalActionError(self._illegal_message(action, legal))
        self.actions.append(action)
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

    def describe_action(self, action: int) -> str:
        """Human-readable action, e.g. ``"place 6-12 on own train"``, relative to the current player."""
        p = self.num_players
        if action == self.draw_action:
            return "draw"
        if action == self.pass_action:
            return "pass"
        if not 0 <= action < self.draw_action:
            return f"out-of-range action {action}"
        tile, slot = divmod(action, p + 1)
        a, b = self._t.tiles[tile]
        if slot == 0:
            where = "own train"
        elif slot == p:
            where = "the Mexican train"
        else:
            where = f"the train of seat {(self.current_player + slot) % p}"
        return f"place {a}-{b} on {where}"

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
            # must_play: the drawn tile fits nothing either; may_play: it might have fitted.
            self.missing[seat] = lacking if self.config.drawn_tile == "must_play" else 0
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
        PASS (issue 12: one decision fewer per blocked round; the result is the same, as the
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

    # ------------------------------------------------------------------ round and game end
    def _end_round(self, termination: str, went_out: tuple[int, ...] | None) -> None:
        cfg = self.config
        values = self._t.values
        pips = tuple(sum(values[i] for i in bits(h)) for h in self.hands)
        if termination == "went_out":
            winners = went_out
            points = pips
        else:
            live = [s for s in range(self.num_players) if self.active[s]]
            low = min(pips[s] for s in live)
            winners = tuple(s for s in live if pips[s] == low)
            if cfg.blocked_round == "void":
                winners = ()
                points = (0,) * self.num_players
            else:
                points = pips
        self.round_over = True
        self._legal = []
        self.drawn_tile = -1
        self.round_result = RoundResult(
            termination, winners, pips, points, self.station, self.round_index
        )
        for s in range(self.num_players):
            self.scores[s] += points[s]
        self._update_game(pips)

    def _update_game(self, pips: tuple[int, ...]) -> None:
        cfg = self.config
        p = self.num_players
        live = [s for s in range(p) if self.active[s]]
        if cfg.game_end == "elimination":
            out = [s for s in live if self.scores[s] >= cfg.elimination_limit]
            for s in out:
                self.active[s] = False
                self.eliminated_at[s] = self.round_index
            left = [s for s in live if self.active[s]]
            if len(left) == 1:
                self.game_over, self.game_winners = True, tuple(left)
            elif not left:  # everyone left crossed the limit together: lowest total wins
                low = min(self.scores[s] for s in live)
                self.game_over = True
                self.game_winners = tuple(s for s in live if self.scores[s] == low)
        elif self.round_index >= cfg.max_pip:
            low = min(self.scores)
            self.game_over = True
            self.game_winners = tuple(s for s in range(p) if self.scores[s] == low)

    def next_first_player(self) -> int:
        """Seat that starts the next round (docs/rules.md §1.1): the round's winner; after a blocked
        round the fewest-pips seat, ties to the earliest in turn order after this round's first
        player. (With ``station_source="highest_held"`` the station's holder overrides this.)"""
        res = self.round_result
        p = self.num_players
        if res.termination == "went_out" and self.active[res.winners[0]]:
            return res.winners[0]
        live = [s for s in range(p) if self.active[s]]
        low = min(res.pips[s] for s in live)
        for k in range(1, p + 1):
            seat = (self.round_first_player + k) % p
            if self.active[seat] and res.pips[seat] == low:
                return seat
        raise AssertionError("unreachable: some active seat has the fewest pips")

    def start_next_round(
        self, rng: np.random.Generator | None, deal: dict[str, Any] | None = None
    ) -> None:
        """Deal the next round of the game (scores and eliminations carried over).

        Raises:
            DealError: the game is over, the current round is not, or ``deal`` is invalid.
        """
        if not self.round_over:
            raise DealError("the current round is still being played")
        if self.game_over:
            raise DealError("the game is over")
        first = self.next_first_player()
        self.round_index += 1
        self._start_round(rng, first, deal)

    # ------------------------------------------------------------------ read-only views
    def hand_tiles(self, seat: int) -> list[Tile]:
        """Tiles in ``seat``'s hand, canonical order (hidden information: agents see their own)."""
        return [self._t.tiles[i] for i in bits(self.hands[seat])]

    def train_tiles(self, train: int) -> list[Tile]:
        """Tiles of ``train`` (seat number, or P for the Mexican train), oriented (matching pip
        first), in placement order."""
        return list(self.trains[train])

    def open_end(self, train: int) -> int:
        """Pip a tile must match to go on ``train`` (the station pip while it is empty)."""
        return self.ends[train]

    def has_marker(self, seat: int) -> bool:
        """Whether ``seat``'s train carries its marker (public)."""
        return self.markers[seat]

    @property
    def boneyard_size(self) -> int:
        """Tiles left to draw (0 with ``use_boneyard=False``)."""
        return len(self.boneyard)

    @property
    def num_tiles(self) -> int:
        """Tiles in the set (T)."""
        return self._t.num_tiles

    def hand_size(self, seat: int) -> int:
        """Number of tiles in ``seat``'s hand (public)."""
        return self.hands[seat].bit_count()

    def pips_in_hand(self, seat: int) -> int:
        """Pip total of ``seat``'s hand (hidden information)."""
        return sum(self._t.values[i] for i in bits(self.hands[seat]))

    def missing_pips(self, seat: int) -> list[int]:
        """Pip values ``seat`` is publicly known to lack (from its draws and passes)."""
        return [v for v in range(self.config.max_pip + 1) if self.missing[seat] >> v & 1]
