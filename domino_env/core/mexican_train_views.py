"""Mexican Train read-only views: what agents, renderers and tests read of a game (hands, trains,
open ends, markers, the round's history, what a seat is known to lack) and the names of actions.

:class:`MexicanTrainViews` is a base class of :class:`~domino_env.core.mexican_train.MexicanTrainState`
with no state of its own (empty ``__slots__``): every field is declared by ``MexicanTrainState``.
None of these methods changes the game.
"""

from __future__ import annotations

from .deal import bits
from .errors import check_action, check_index
from .tiles import Tile

_TRAINS = " (the seats' trains, then the Mexican train)"  # what a train number means


class MexicanTrainViews:
    """Read-only views of :class:`~domino_env.core.mexican_train.MexicanTrainState` (use that class;
    this one only groups the methods that read it). A seat outside 0..P-1 (a train outside 0..P)
    raises :class:`~domino_env.core.errors.DominoError`."""

    __slots__ = ()

    def describe_action(self, action: int, seat: int | None = None) -> str:
        """Human-readable action, e.g. ``"place 6-12 on own train"``, relative to the seat that
        plays it: ``seat`` (a :meth:`round_history` entry's), default the current player. An
        integer outside the action space reads ``"out-of-range action N"``.

        Raises:
            DominoError: ``seat`` is not an integer 0..P-1; IllegalActionError (a DominoError):
                ``action`` is not an integer (a float, bool, string or None).
        """
        action = check_action(action)
        p = self.num_players
        seat = self.current_player if seat is None else check_index(seat, p, "seat")
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
            where = f"the train of seat {(seat + slot) % p}"
        return f"place {a}-{b} on {where}"

    def hand_tiles(self, seat: int) -> list[Tile]:
        """Tiles in ``seat``'s hand, canonical order (hidden information: agents see their own)."""
        return [self._t.tiles[i] for i in bits(self.hands[check_index(seat, self.num_players, "seat")])]

    def train_tiles(self, train: int) -> list[Tile]:
        """Tiles of ``train`` (seat number, or P for the Mexican train), oriented (matching pip
        first), in placement order."""
        return list(self.trains[check_index(train, self.num_trains, "train", _TRAINS)])

    def open_end(self, train: int) -> int:
        """Pip a tile must match to go on ``train`` (the station pip while it is empty)."""
        return self.ends[check_index(train, self.num_trains, "train", _TRAINS)]

    def has_marker(self, seat: int) -> bool:
        """Whether ``seat``'s train carries its marker (public)."""
        return self.markers[check_index(seat, self.num_players, "seat")]

    @property
    def boneyard_size(self) -> int:
        """Tiles left to draw (0 with ``use_boneyard=False``)."""
        return len(self.boneyard)

    @property
    def num_tiles(self) -> int:
        """Tiles in the set (T)."""
        return self._t.num_tiles

    def round_history(self) -> list[tuple[int, int]]:
        """This round's actions so far, in order, as ``(seat, action)`` pairs (actions as in
        :meth:`legal_actions`, named by :meth:`describe_action`): who placed which tile on which
        train, who drew, who passed. Public information: every seat sees every move."""
        return list(zip(self.actors[self.round_start :], self.actions[self.round_start :], strict=True))

    def describe_round_history(self) -> list[tuple[int, str]]:
        """:meth:`round_history` with each action named as its seat played it: ``(seat, text)``."""
        return [(seat, self.describe_action(action, seat)) for seat, action in self.round_history()]

    def hand_size(self, seat: int) -> int:
        """Number of tiles in ``seat``'s hand (public)."""
        return self.hands[check_index(seat, self.num_players, "seat")].bit_count()

    def missing_pips(self, seat: int) -> list[int]:
        """Pip values ``seat`` is publicly known to lack, from its draws and passes (docs/rules.md §3)."""
        missing = self.missing[check_index(seat, self.num_players, "seat")]
        return [v for v in range(self.config.max_pip + 1) if missing >> v & 1]
