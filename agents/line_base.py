"""What every line-game agent shares (block, draw, Cuban): the acting seat's table decoded from
its observation (:class:`LineSeatView`) and the set-up from the rules (tile tables, pip masks, the
action layout). The agents themselves are in :mod:`domino_env.agents.line` and
:mod:`domino_env.agents.line_planner`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from domino_env.core.config import LineConfig
from domino_env.core.errors import ConfigError
from domino_env.core.tiles import tile_count, tile_table
from domino_env.encoding.line import decode_line_observation

from .base import as_config


@dataclass
class LineSeatView:
    """The acting seat's table, decoded from its observation. Seats are egocentric: ``k`` is the
    seat ``k`` places after the observer in turn order (0 = the observer).

    Attributes:
        hand: tile indices in the hand, ascending; hand_mask: the same as a bitmask.
        placed_mask: tiles on the table (bitmask).
        unseen_mask: tiles neither in the hand nor on the table: the other hands, the boneyard and
            the tiles out of play.
        ends: ``(left, right)`` open-end pips, or ``None`` before the lead.
        hand_sizes: tiles in each seat's hand (observer first).
        boneyard: tiles left to draw.
        leader: egocentric seat that led the round (the "mano", first in the tie rule).
        partner: egocentric seat of the partner (2) with teams, else ``None``.
        missing: per egocentric seat, bitmask over pips that seat is publicly known to lack (0 for
            the observer).
        may_annul: the observer may annul the round now.
    """

    hand: list[int]
    hand_mask: int
    placed_mask: int
    unseen_mask: int
    ends: tuple[int, int] | None
    hand_sizes: list[int]
    boneyard: int
    leader: int
    partner: int | None
    missing: list[int]
    may_annul: bool


def _mask_of(indices) -> int:
    m = 0
    for i in indices:
        m |= 1 << int(i)
    return m


class _LineAgent:
    """Shared set-up: the rules, the tile tables and the action layout."""

    name = "agent"

    def __init__(self, config: Any = None):
        cfg = as_config({"preset": "block"} if config is None else config)
        if not isinstance(cfg, LineConfig):
            raise ConfigError(
                "config", cfg, "line-game rules (a LineConfig, a line env or line env kwargs)"
            )
        self.config = cfg
        self.num_players = cfg.num_players
        self.max_pip = n = cfg.max_pip
        self.num_tiles = t = tile_count(n)
        self.draw_action, self.pass_action, self.annul_action = 2 * t, 2 * t + 1, 2 * t + 2
        self.num_actions = 2 * t + 3
        self.tiles = tile_table(n)
        self.values = tuple(a + b for a, b in self.tiles)
        self.pip_masks = tuple(
            _mask_of(i for i, (a, b) in enumerate(self.tiles) if p in (a, b)) for p in range(n + 1)
        )
        self.all_mask = (1 << t) - 1

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_players={self.num_players}, max_pip={self.max_pip})"

    def pips(self, mask: int) -> int:
        """Pip total of the tiles of a bitmask."""
        values, total = self.values, 0
        while mask:
            low = mask & -mask
            total += values[low.bit_length() - 1]
            mask ^= low
        return total

    def view(self, observation: np.ndarray) -> LineSeatView:
        """The structured seat view of ``observation`` (see :class:`LineSeatView`)."""
        p = self.num_players
        d = decode_line_observation(observation, p, self.max_pip)
        hand = np.flatnonzero(d["hand"]).tolist()
        hand_mask = _mask_of(hand)
        placed = _mask_of(np.flatnonzero(d["placed"]))
        left, right = np.flatnonzero(d["left_end"]), np.flatnonzero(d["right_end"])
        ends = (int(left[0]), int(right[0])) if len(left) and len(right) else None
        partner = np.flatnonzero(d["partner"])
        missing = [0] + [_mask_of(np.flatnonzero(row)) for row in d["missing_pips"]]
        return LineSeatView(
            hand=hand,
            hand_mask=hand_mask,
            placed_mask=placed,
            unseen_mask=self.all_mask & ~hand_mask & ~placed,
            ends=ends,
            hand_sizes=np.rint(d["hand_sizes"]).astype(int).tolist(),
            boneyard=int(round(float(d["boneyard_size"][0]))),
            leader=int(np.argmax(d["leader"])),
            partner=int(partner[0]) if len(partner) else None,
            missing=missing,
            may_annul=bool(d["may_annul"][0] > 0),
        )

    def placements(self, legal: np.ndarray) -> list[tuple[int, int]]:
        """``(tile, end)`` of the legal placement actions, in action order."""
        return [divmod(int(a), 2) for a in legal if a < self.draw_action]
