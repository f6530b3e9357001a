"""An independent rules referee for Mexican Train, written from docs/rules.md §0, §1 and §3 (the
pips a seat is known to lack) and the interface pages, without reading the engine's code.

It shares no code with ``domino_env.core``: tiles are ``(a, b)`` tuples with ``a <= b``, trains are
numbered by owner seat (``0..P-1``) and ``P`` is the Mexican train. ``RoundRef`` plays one round
from its deal; ``GameRef`` carries the game across rounds (scores, elimination, next first player,
next station; in ``mt_referee_game``). Rules are tagged with their section of docs/rules.md.
"""

from __future__ import annotations

import copy
from collections import Counter

# how often each rule situation was met (the test reports it and checks each is reached)
EVENTS: Counter = Counter()

DRAW = "draw"
PASS = "pass"

FREE = "free"  # start of a turn (no placement yet)
COVER_OWN = "cover_own_double"  # satisfy: after a double
SECOND_OR_COVER = "second_double_or_cover"  # double_double: after a first double
COVER_EITHER = "cover_either"  # double_double: after a second double
EXTRA = "extra_play_after_double"  # chain / no_cover: after a double

# §1.1 hand-size table (seeds 002/003), by set then by number of seats 2..8
HAND_TABLE = {
    12: [15, 15, 15, 12, 12, 11, 11],
    9: [9, 9, 9, 7, 7, 7, 6],
    15: [15, 15, 15, 15, 15, 13, 13],
    18: [15, 15, 15, 15, 15, 15, 15],
}


def norm(tile) -> tuple[int, int]:
    a, b = int(tile[0]), int(tile[1])
    return (a, b) if a <= b else (b, a)


def set_size(n: int) -> int:
    return (n + 1) * (n + 2) // 2


def is_double(tile) -> bool:
    return tile[0] == tile[1]


def tile_value(tile, double_blank_points: int) -> int:
    """§0 / §1.5: the pip total; the double-blank counts ``double_blank_points``."""
    if tile == (0, 0):
        return double_blank_points
    return tile[0] + tile[1]


def hand_size(cfg: dict, seats_in: int) -> int:
    """§1.1: tiles per seat for a deal among ``seats_in`` seats (before a held station is removed)."""
    if cfg["hand_size"] is not None:
        return cfg["hand_size"]
    tiles = set_size(cfg["max_pip"])
    if not cfg["use_boneyard"]:
        return (tiles - 1) // seats_in
    if cfg["hand_size_rule"] == "table":
        return HAND_TABLE[cfg["max_pip"]][seats_in - 2]
    return (tiles - 1 - 2 * seats_in) // seats_in


class RoundRef:
    """One round of Mexican Train from its deal (§1.2-§1.5)."""

    def __init__(self, cfg: dict, active: list[bool], hands, boneyard, station, first_player: int):
        self.cfg = cfg
        self.P = len(active)
        self.active = list(active)
        self.hands = [set(norm(t) for t in h) for h in hands]
        self.boneyard = [norm(t) for t in boneyard]
        self.station = norm(station)[0]
        s = self.station
        self.trains: list[list[tuple[int, int]]] = [[] for _ in range(self.P + 1)]
        self.ends = [s] * (self.P + 1)
        self.in_play = self.active + [bool(cfg["use_mexican_train"])]
        self.marker = [False] * self.P
        self.obliging: list[int] = []  # trains whose open double obliges everybody, oldest first
        self.first_pending = list(self.active)
        # §3: pips each seat is publicly known to lack, and what was known before its last draw
        self.missing: list[set[int]] = [set() for _ in range(self.P)]
        self.pre_draw: list[set[int]] = [set() for _ in range(self.P)]
        self.over = False
        self.termination = None  # "went_out" | "blocked"
        self.winner_out: int | None = None
        self.cur = first_player
        self._start_turn()  # no block check at the deal: §1.5 checks "after every action"

    # ---- helpers ---------------------------------------------------------------------------
    def _next_seat(self, seat: int) -> int:
        for k in range(1, self.P + 1):
            q = (seat + k) % self.P
            if self.active[q]:
                return q
        raise AssertionError("no active seat")

    def _start_turn(self) -> None:
        p = self.cur
        if self.cfg["marker_removal"] == "next_turn":
            if self.marker[p]:
                EVENTS["marker_off_next_turn"] += 1
            self.marker[p] = False  # §1.3.5: comes off by itself at the start of the owner's turn
        self.in_first_turn = self.first_pending[p]
        self.first_pending[p] = False
        self.phase = FREE
        self.just_drew = False
        self.drawn = None
        self.turn_doubles: list[int] = []

    def ends_in_double(self, k: int) -> bool:
        return bool(self.trains[k]) and is_double(self.trains[k][-1])

    def _free_trains(self, p: int) -> list[int]:
        """§1.2 / §1.3.1: own train, Mexican train, other seats' marked trains."""
        out = [p]
        if self.in_play[self.P]:
            out.append(self.P)
        out += [q for q in range(self.P) if q != p and self.active[q] and self.marker[q]]
        return out

    def _mode(self) -> str:
        return self.cfg["doubles"]

    def _target_trains(self) -> tuple[list[int], list[int]]:
        """(trains any matching tile may go on, trains only a matching double may go on) for the
        acting seat in the current phase (§1.3.1, §1.4)."""
        p, mode = self.cur, self._mode()
        if self.phase == FREE:
            if self.obliging and mode != "no_cover":  # §1.4: the table is frozen
                return ([self.obliging[-1]] if mode == "chain" else list(self.obliging)), []
            if self.in_first_turn and self.cfg["first_turn"] == "own_train":
                return [p], []  # §1.3.1 first turn: own train only
            return self._free_trains(p), []
        if self.phase in (COVER_OWN, COVER_EITHER):
            return list(self.turn_doubles), []
        if self.phase == SECOND_OR_COVER:
            first = self.turn_doubles[0]
            return [first], [k for k in self._free_trains(p) if k != first]
        return self._free_trains(p), []  # EXTRA

    def placements(self) -> list[tuple[tuple[int, int], int]]:
        """Legal (tile, train) placements of the acting seat in the current phase."""
        p = self.cur
        anywhere, doubles_only = self._target_trains()
        cover: list[int] = []
        hand = sorted(self.hands[p])
        out = []
        for k in cover + anywhere:
            e = self.ends[k]
            out += [(t, k) for t in hand if e in t]
        for k in doubles_only:
            e = self.ends[k]
            out += [(t, k) for t in hand if is_double(t) and e in t]
        return sorted(set(out))

    def cover_targets(self) -> list[int]:
        """§1.4: trains whose double the acting seat must cover now (a drawn tile that covers one
        is placed, §1.3.3, also under may_play)."""
        if self.phase == FREE:
            if self.obliging and self._mode() != "no_cover":
                return [self.obliging[-1]] if self._mode() == "chain" else list(self.obliging)
            return []
        if self.phase in (COVER_OWN, COVER_EITHER):
            return list(self.turn_doubles)
        if self.phase == SECOND_OR_COVER:
            return [self.turn_doubles[0]]
        return []

    def legal(self) -> list:
        """Legal actions of the acting seat: (tile, train) pairs, DRAW, PASS."""
        assert not self.over
        pl = self.placements()
        if self.just_drew:
            if not pl:
                return [PASS]
            covers = any(k in self.cover_targets() for _, k in pl)
            if self.cfg["drawn_tile"] == "may_play" and not covers:
                return pl + [PASS]
            return pl
        if pl:
            return pl
        if self.cfg["use_boneyard"] and self.boneyard:
            return [DRAW]
        return [PASS]

    # ---- actions ---------------------------------------------------------------------------
    def step(self, action) -> None:
        legal = self.legal()
        assert action in legal, f"referee: illegal {action!r}; legal {legal}"
        p = self.cur
        self._infer_missing(p, action)
        if action == DRAW:
            if self.phase != FREE:
                EVENTS["draw_for_owed_play_after_double"] += 1
            self.drawn = self.boneyard.pop(0)
            self.hands[p].add(self.drawn)
            self.just_drew = True
        elif action == PASS:
            if self.just_drew and self.placements():
                EVENTS["may_play_kept"] += 1
            EVENTS["pass_open_double" if self.phase != FREE else "pass"] += 1
            self.marker[p] = True  # §1.3.4
            self._end_turn()
        else:
            self._place(p, *action)
        if not self.over:
            self._check_block()

    def _infer_missing(self, p: int, action) -> None:
        """§3: a draw or a pass proves the seat had nothing for the ends it was allowed to use
        (the trains where a double only may go prove nothing); a draw then clears what was known
        (an unseen tile joins the hand); a pass after it makes those ends known again (with
        may_play only where the draw was made to cover a double); placing the drawn tile restores
        what was known before the draw plus those ends."""
        anywhere, _ = self._target_trains()
        ends = {self.ends[k] for k in anywhere}
        if action == DRAW:
            self.pre_draw[p] = self.missing[p] | ends
            self.missing[p] = set()
        elif action == PASS:
            if not self.just_drew:
                self.missing[p] |= ends
            elif self.cfg["drawn_tile"] == "must_play" or self.cover_targets():
                self.missing[p] = ends
        elif self.just_drew and action[0] == self.drawn:
            self.missing[p] = set(self.pre_draw[p])

    def _place(self, p: int, tile, k: int) -> None:
        self.hands[p].remove(tile)
        e = self.ends[k]
        self.trains[k].append(tile)
        self.ends[k] = tile[1] if tile[0] == e else tile[0]
        if k in self.obliging:
            self.obliging.remove(k)  # covered
            EVENTS["cover_obliging"] += 1
            if k not in (p, self.P) and not self.marker[k]:
                EVENTS["cover_private_train"] += 1
        if k == p and self.cfg["marker_removal"] == "own_train_play":
            if self.marker[p]:
                EVENTS["marker_off_own_play"] += 1
            self.marker[p] = False  # §1.3.5
        if self.phase == SECOND_OR_COVER and is_double(tile):
            EVENTS["second_double"] += 1
            if self.just_drew:
                EVENTS["drawn_second_double"] += 1
        if self.just_drew and is_double(tile):
            EVENTS["drawn_double_placed"] += 1
        if self.phase == COVER_EITHER:
            EVENTS["third_tile_cover"] += 1
        if self.phase == EXTRA:
            EVENTS["extra_play_" + self._mode()] += 1
        if self.in_first_turn and self.cfg["first_turn"] == "own_train":
            EVENTS["first_turn_own_train"] += 1
        self.just_drew = False
        self.drawn = None
        if not self.hands[p]:  # §0: the round is over at once
            self.over, self.termination, self.winner_out = True, "went_out", p
            EVENTS["went_out_on_double" if is_double(tile) else "went_out"] += 1
            return
        if not is_double(tile):
            self._end_turn()
            return
        mode = self._mode()
        self.turn_doubles.append(k)
        if mode == "satisfy":
            self.phase = COVER_OWN
        elif mode == "double_double":
            self.phase = SECOND_OR_COVER if self.phase == FREE else COVER_EITHER
        else:
            self.phase = EXTRA

    def _end_turn(self) -> None:
        if self._mode() != "no_cover":
            for k in self.turn_doubles:  # §1.4: uncovered doubles oblige, in placement order
                if self.ends_in_double(k) and k not in self.obliging:
                    self.obliging.append(k)
        self.cur = self._next_seat(self.cur)
        self._start_turn()

    # ---- §1.5 blocked rounds ---------------------------------------------------------------
    def _can_draw(self) -> bool:
        return bool(self.cfg["use_boneyard"] and self.boneyard)

    def _nobody_can_place(self) -> bool:
        if self.obliging and self._mode() != "no_cover":
            targets = [self.obliging[-1]] if self._mode() == "chain" else list(self.obliging)
        else:
            targets = [k for k in range(self.P + 1) if self.in_play[k]]
        pips = {self.ends[k] for k in targets}
        return not any(pips & set(t) for q in range(self.P) if self.active[q] for t in self.hands[q])

    def _check_block(self) -> None:
        if self._can_draw():
            return
        mid_turn = self.phase != FREE or self.just_drew
        if mid_turn:
            if self.legal() != [PASS]:
                return
            probe = copy.copy(self)
            probe.obliging = list(self.obliging)
            if self._mode() != "no_cover":
                for k in self.turn_doubles:
                    if self.ends_in_double(k) and k not in probe.obliging:
                        probe.obliging.append(k)
            blocked = probe._nobody_can_place()
        else:
            blocked = self._nobody_can_place()
        if blocked:
            self.over, self.termination = True, "blocked"
            EVENTS["blocked_mid_turn" if mid_turn else "blocked"] += 1
            if self.obliging:
                EVENTS["blocked_open_double"] += 1

    # ---- §1.5 scoring ----------------------------------------------------------------------
    def pips(self) -> list[int]:
        dbp = self.cfg["double_blank_points"]
        return [sum(tile_value(t, dbp) for t in h) if self.active[q] else 0
                for q, h in enumerate(self.hands)]

    def result(self) -> tuple[list[int], list[int]]:
        """(winners, points) of the finished round."""
        assert self.over
        pips = self.pips()
        if self.termination == "went_out":
            return [self.winner_out], pips
        if self.cfg["blocked_round"] == "void":
            return [], [0] * self.P
        best = min(pips[q] for q in range(self.P) if self.active[q])
        return [q for q in range(self.P) if self.active[q] and pips[q] == best], pips
