"""Per-action features of a line-game seat (block, draw, Cuban), for ``--policy action-scores``.

The line-game counterpart of :mod:`domino_env.agents.action_features`: from the acting seat's
observation and action mask only, one row of ``len(LINE_FEATURES)`` numbers per action
(float32, zero rows for illegal actions), built from the terms of the line planner
(:class:`~domino_env.agents.line.LinePlannerAgent`, rules 1-7 of its docstring):

===================== ===================================================================
``legal``             1 for a legal action
``draw``, ``pass``,   the action is DRAW / PASS / ANNUL (``annul`` also carries the planner's
``annul``             rule 7: 1 when it would annul, 0.5 when annulling is legal but it would not)
``pips``              the tile's pip total / (2 x max pip)
``double``            the tile is a double
``lead``              the move leads the round (empty table)
``goes_out``          the move empties the hand (rule 1)
``fit_after``         tiles left in hand that fit the ends after the move / 5 (rule 3)
``next_cannot``,      estimated probability that the seat 1, 2, 3 places on cannot play on
``second_cannot``,    the ends after the move (rule 4; with teams the second seat is the
``third_cannot``      partner); 0 for seats the game does not have
``closes``            probability that the move closes (blocks) the game (rule 6; only
                      estimated when no own tile fits the ends and few unseen ones do)
``close_value``       the closing term ``c x (2v - 1)``: positive when closing wins the count
``planner_score``     the planner's score of the move / 50 (clipped to [-2, 4]; going out: 4)
``planner_choice``    1 for the planner's move in this position
===================== ===================================================================

The closing estimate samples deals; its generator is seeded from the observation bytes, so the
rows are a deterministic function of (observation, mask). Picklable, torch-free.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from .base import as_config
from .line import LinePlannerAgent

LINE_FEATURES = (
    "legal",
    "draw",
    "pass",
    "annul",
    "pips",
    "double",
    "lead",
    "goes_out",
    "fit_after",
    "next_cannot",
    "second_cannot",
    "third_cannot",
    "closes",
    "close_value",
    "planner_score",
    "planner_choice",
)
_COL = {name: i for i, name in enumerate(LINE_FEATURES)}


class LineActionFeatures:
    """``features(observation, action_mask) -> float32 (num_actions, len(LINE_FEATURES))``.

    Args:
        config: line-game rules (anything :func:`domino_env.agents.base.as_config` accepts that
            gives a ``LineConfig``).

    Raises:
        ConfigError: not line-game rules.
    """

    columns = LINE_FEATURES

    def __init__(self, config: Any = None):
        self.planner = LinePlannerAgent(as_config(config))
        self.num_actions = self.planner.num_actions
        self.num_features = len(LINE_FEATURES)
        self.size = self.num_actions * self.num_features

    def __repr__(self) -> str:
        return f"LineActionFeatures(num_actions={self.num_actions}, features={self.num_features})"

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        pl = self.planner
        out = np.zeros((self.num_actions, self.num_features), dtype=np.float32)
        legal = np.flatnonzero(action_mask)
        if not len(legal):
            return out
        out[legal, _COL["legal"]] = 1.0
        for action, col in ((pl.draw_action, "draw"), (pl.pass_action, "pass")):
            if action_mask[action]:
                out[action, _COL[col]] = 1.0
        obs = np.ascontiguousarray(observation, dtype=np.float32)
        rng = np.random.default_rng(zlib.crc32(obs.tobytes()))
        v = pl.view(obs)
        if action_mask[pl.annul_action]:
            out[pl.annul_action, _COL["annul"]] = 1.0 if pl.should_annul(v) else 0.5
        places = pl.placements(legal)
        scores = self._placement_rows(out, v, places, rng) if places else []
        # the planner's decision (LinePlannerAgent.__call__, rules 1-8) from the same scores
        if len(legal) == 1:
            choice = int(legal[0])
        elif action_mask[pl.annul_action] and pl.should_annul(v):
            choice = pl.annul_action
        elif not places:
            choice = int(next(a for a in legal if a != pl.annul_action))
        else:
            best = max(range(len(places)), key=lambda i: (scores[i], -i))
            choice = 2 * places[best][0] + places[best][1]
        out[choice, _COL["planner_choice"]] = 1.0
        return out

    def _placement_rows(
        self, out: np.ndarray, v: Any, places: list, rng: np.random.Generator
    ) -> list[float]:
        """Fill the placement rows; returns the planner's scores of ``places``."""
        pl = self.planner
        p, pm = pl.num_players, pl.pip_masks
        top = 2.0 * pl.max_pip
        scores = pl.score_moves(v, places, rng)
        worlds = None
        for (tile, end), score in zip(places, scores, strict=True):
            row = out[2 * tile + end]
            a, b = pl.tiles[tile]
            rest = v.hand_mask & ~(1 << tile)
            y, z = pl.after(v, tile, end)
            fit = pm[y] | pm[z]
            row[_COL["pips"]] = pl.values[tile] / top
            row[_COL["double"]] = float(a == b)
            row[_COL["lead"]] = float(v.ends is None)
            row[_COL["goes_out"]] = float(not rest)
            row[_COL["fit_after"]] = (rest & fit).bit_count() / 5.0
            for k, col in ((1, "next_cannot"), (2, "second_cannot"), (3, "third_cannot")):
                if k < p:
                    row[_COL[col]] = pl.cannot_play(v, k, fit)
            if rest and not (rest & fit) and (v.unseen_mask & fit).bit_count() <= pl.close_unseen:
                if worlds is None:
                    worlds = pl.sample_worlds(v, rng)
                closes, wins = pl.closing(v, rest, fit, worlds)
                row[_COL["closes"]] = closes
                row[_COL["close_value"]] = closes * (2.0 * wins / closes - 1.0) if closes else 0.0
            row[_COL["planner_score"]] = 4.0 if score >= 1e9 else min(4.0, max(-2.0, score / 50.0))
        return scores
