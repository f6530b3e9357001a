"""Scripted line-game agents (block, draw, Cuban): the ladder ``random`` < ``greedy`` < ``planner``.

Every agent follows the protocol of :mod:`domino_env.agents.base`: ``agent(observation, action_mask, rng) ->
int``, built from the rules (``LineGreedyAgent(line_config)``, or ``make_agent("greedy",
line_config)``). They read only the acting seat's observation (through
:func:`~domino_env.encoding.line.decode_line_observation`) and its mask, never the engine state.
Actions are ``tile_index * 2 + end`` (end 0 = the left end, and the only end for the lead; end 1 =
the right end), DRAW = ``2T``, PASS = ``2T + 1``, ANNUL = ``2T + 2``.

:class:`LineRandomAgent` and :class:`LineGreedyAgent` are here; :class:`LinePlannerAgent` is in
:mod:`domino_env.agents.line_planner` and the seat view they share in
:mod:`domino_env.agents.line_base` (both re-exported here).

All three are deterministic given the ``rng`` passed in (``random`` draws its choice from it,
``planner`` its samples of the hidden hands; ``greedy`` ignores it) and picklable (plain
attributes only).
"""

from __future__ import annotations

import numpy as np

from domino_env.wrappers import random_legal_opponent

from .base import check_mask_size, no_argument, register_agent

# The seat view and shared set-up in line_base.py, the planner in line_planner.py; re-exported
# here, the public import path (``from domino_env.agents.line import LinePlannerAgent, ...``).
from .line_base import LineSeatView, _LineAgent, _mask_of  # noqa: F401
from .line_planner import LinePlannerAgent, _planner  # noqa: F401


class LineRandomAgent(_LineAgent):
    """Uniform choice among the legal actions (DRAW, PASS and ANNUL included when legal), using
    ``rng``.

    Raises:
        ConfigError: ``config`` does not give line-game rules (None: the block preset); when
            called, an ``action_mask`` whose length is not the rules' ``2T + 3`` actions, or with
            no legal action, or an ``rng`` that is not a ``numpy.random.Generator``.
    """

    name = "random"

    def __call__(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        check_mask_size(self, action_mask)
        return random_legal_opponent(observation, action_mask, rng)


class LineGreedyAgent(_LineAgent):
    """ "Bota gorda": plays the heaviest playable tile.

    Rules, in order:

    1. If some placement is legal, place a tile; it never annuls (ANNUL is ignored). DRAW or PASS
       only when it is the only legal action.
    2. The tile with the highest pip total wins.
    3. Ties between tiles of the same total: the double first (the hardest tile to place), then
       the lowest tile index (canonical order: the tile with the lower small pip, e.g. 1-5 before
       2-4). One tile that fits both ends goes on the left end (end 0: the lowest action).

    It ignores the rng (deterministic).

    Raises:
        ConfigError: ``config`` does not give line-game rules (None: the block preset); when
            called, an ``action_mask`` whose length is not the rules' ``2T + 3`` actions, or with
            no legal action.
    """

    name = "greedy"

    def __call__(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        check_mask_size(self, action_mask)
        legal = np.flatnonzero(action_mask)
        places = self.placements(legal)
        if not places:
            return int(next((a for a in legal if a != self.annul_action), legal[0]))
        values, tiles = self.values, self.tiles
        tile, end = min(
            places,
            key=lambda te: (-values[te[0]], tiles[te[0]][0] != tiles[te[0]][1], te[0], te[1]),
        )
        return 2 * tile + end


register_agent("random", no_argument(LineRandomAgent), game="line", replace=True)
register_agent("greedy", no_argument(LineGreedyAgent), game="line", replace=True)
register_agent("planner", _planner, game="line", replace=True)
