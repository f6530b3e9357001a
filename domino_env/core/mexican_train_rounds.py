"""Mexican Train rounds: dealing and starting a round, ending it, and the game around it
(docs/rules.md §1.1, §1.5, §1.7).

:class:`MexicanTrainRounds` is a base class of :class:`~domino_env.core.mexican_train.MexicanTrainState`
holding the code that runs once per round (the deal, the station, the round's result, eliminations
and the game's end); the turn logic that search and training spend their time in (``legal_actions``,
``apply``, ``copy``) stays in :mod:`domino_env.core.mexican_train`. It has no state of its own
(empty ``__slots__``): every field is declared by ``MexicanTrainState``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .deal import TileReader, bits, check_keys, check_seat, plain, tiles_as_pairs
from .errors import DealError, DominoError, check_optional_rng
from .tiles import double_index, tile_pair


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


class MexicanTrainRounds:
    """Round start and end of :class:`~domino_env.core.mexican_train.MexicanTrainState` (use that
    class; this one only groups its once-per-round methods)."""

    __slots__ = ()

    # ------------------------------------------------------------------ dealing
    def station_for_round(self, round_index: int) -> int:
        """Scheduled station pip of ``round_index``: N, N-1, ..., 0, then N again (docs/rules.md §1.1)."""
        return scheduled_station(self.config.max_pip, round_index)

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
        self.round_start = len(self.actions)  # this round's actions are actions[round_start:]
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
        return read_deal(self.config, deal, self.round_index, self.active)

    @classmethod
    def check_later_deal(cls, config: Any, deal: Any, round_index: int) -> None:
        """Refuse, before any play, a deal given for round ``round_index`` (``reset``'s
        ``options["deals"][k]``) for what does not depend on the play: its keys, the number of
        hands, tiles outside the set or given twice, a hand or the boneyard holding the round's
        station (given, or the schedule's), a boneyard with ``use_boneyard=False``, an empty hand
        (unless ``game_end="elimination"``, where the seat may be out by then), ``first_player``'s
        range. Whether a seat is still in the game, and the station under ``highest_held``, are
        checked when the round starts.

        Raises:
            DealError: as :meth:`start_next_round` would for the same deal."""
        seats = None if config.game_end == "elimination" else [True] * config.num_players
        read_deal(config, deal, round_index, seats)

    def _deal_record(self, hands: list[int], boneyard: list[int], station: int, first: int):
        n = self.config.max_pip
        return {
            "hands": [tiles_as_pairs(bits(h), n) for h in hands],
            "boneyard": tiles_as_pairs(boneyard, n),
            "station": [station, station],
            "first_player": first,
        }

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
        self._update_game()

    def _update_game(self) -> None:
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
            ConfigError: ``rng`` is neither None nor a ``numpy.random.Generator``.
            DealError: the game is over, the current round is not, or ``deal`` is invalid (the
                state is then unchanged), or no ``deal`` and no ``rng``.
        """
        check_optional_rng(rng)
        if not self.round_over:
            raise DealError("the current round is still being played")
        if self.game_over:
            raise DealError("the game is over")
        first = self.next_first_player()
        index, used = self.round_index, set(self._used_stations)
        self.round_index += 1
        try:
            self._start_round(rng, first, deal)
        except DealError:  # a refused deal changes nothing: the same call may be made again
            self.round_index, self._used_stations = index, used
            raise


def read_deal(config: Any, deal: Any, round_index: int, active: list[bool] | None):
    """``(hands, boneyard, station, first_player)`` of a given deal for round ``round_index``
    (docs/envs.md, "Starting from a given position"): hands as bitmasks, boneyard as tile indices
    in drawing order, station None when ``highest_held`` picks it from the hands, first_player
    None when the deal names none. An optional key given as None (``station``, ``boneyard``,
    ``first_player``) reads as if it were absent. ``active``: who is still in the game (None:
    not known yet, and the checks that need it are left out).

    Raises:
        DealError: naming the deal's field that is wrong."""
    n, p = config.max_pip, config.num_players
    check_keys(deal, ("hands", "boneyard", "station", "first_player"))
    reader = TileReader(n)
    if deal.get("station") is not None:  # None: as if absent, as first_player's None
        st = plain(deal["station"])
        try:
            a, b = tile_pair(st)
        except DominoError:  # (9.5 was read as 9)
            raise DealError(f"station must be a double [s, s] of integers, got {st!r}") from None
        if a != b or not 0 <= a <= n:
            raise DealError(f"station must be a double [s, s] with 0 <= s <= {n}, got {st!r}")
        station = a
        reader.tile((station, station), "the deal's station", station=True)
    elif config.station_source == "highest_held":
        station = None  # chosen from the hands by the rule (_held_station_of_deal)
    else:
        station = scheduled_station(n, round_index)
        reader.tile((station, station), f"round {round_index}'s station (the schedule's double)", station=True)
    hands = reader.hands(deal, p)
    for s in range(p) if active is not None else ():
        if hands[s] and not active[s]:
            raise DealError(f"seat {s} has been eliminated and cannot be dealt tiles")
        if not hands[s] and active[s]:
            raise DealError(f"hand of seat {s} is empty: every seat in the game needs a tile")
    boneyard = reader.boneyard(deal)
    if boneyard and not config.use_boneyard:
        raise DealError("use_boneyard=False: the deal's boneyard must be empty")
    first = deal.get("first_player")
    if first is not None:
        first = check_seat(first, p, "first_player")
    return hands, boneyard, station, first


def scheduled_station(max_pip: int, round_index: int) -> int:
    """Station pip of round ``round_index`` by the schedule: N, N-1, ..., 0, then N again
    (docs/rules.md §1.1)."""
    return max_pip - round_index % (max_pip + 1)
