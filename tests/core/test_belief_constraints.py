"""The belief sampler's per-seat constraints (domino_env/core/belief.py, module docstring) on
hand-built line positions: the exact tiles each other seat is barred from."""

from __future__ import annotations

import numpy as np

from domino_env.core.belief import InformationState
from domino_env.core.config import line_from_preset
from domino_env.core.line import LineState


def _tiles(state, mask):
    return [state._t.tiles[i] for i in range(state._t.num_tiles) if mask >> i & 1]


def test_without_a_double_dealt_the_tiles_above_the_heaviest_lead_are_barred():
    """Constraint 3 when no double was dealt (docs/rules.md §2.1: the heaviest tile leads, ties
    to the higher pip): seat 0 must lead 4-6 (10 pips), so nobody was dealt a double or 5-6 (11),
    and 0-1, 2-3, 4-5 (lighter) are allowed; the leader's own decision bars the same tiles for
    seat 1. Kills: the non-double key ranking by a - b instead of the pip total."""
    cfg = line_from_preset("block", num_players=2, hand_size=2)
    state = LineState.new_game(cfg, None, {"hands": [[[4, 6], [0, 1]], [[2, 4], [1, 2]]]})
    assert state.current_player == 0 and state._t.tiles[state.forced_lead] == (4, 6)
    above = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (5, 6), (6, 6)]
    assert _tiles(state, InformationState.from_state(state, 0).forbidden[1]) == above
    state.apply(state.legal_actions()[0])  # 4-6 is led; seat 1 (2-4) decides
    info = InformationState.from_state(state, 1)
    assert _tiles(state, info.forbidden[0]) == above and info.forbidden[1] == 0
    rng = np.random.default_rng(0)
    held = set()
    for _ in range(200):
        held.update(_tiles(state, info.sample(rng).hands[0]))
    assert held & {(0, 1), (2, 3), (4, 5)} and not held & set(above)
