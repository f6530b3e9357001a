"""Per-action features of a Mexican Train seat, for policies that score each legal action.

A flat policy head maps the observation to 457 logits (double-12, 4 players) and has to learn,
for every tile and train separately, what a move does to the seat's plan. The planner knows it by
search (the longest chain of the hand from the own train's open end). :class:`ActionFeatures`
computes, from the acting seat's observation and action mask only (nothing hidden: the same
inputs as the planner), a row of ``F`` numbers per action, so one small network shared by all
actions can score them (``domino_env.train.action_policy``, ``domino-train --policy
action-scores``).

Rows (float32, zero for illegal actions; ``FEATURES`` names the columns):

=================== =====================================================================
``legal``           1 for a legal action
``draw``, ``pass``  the action is DRAW / PASS
``pips``            the tile's pip total / (2 x max pip) (the 0-0: ``double_blank_points``)
``double``          the tile is a double
``own_train``       placed on the own train (slot 0)
``mexican_train``   placed on the Mexican train
``other_train``     placed on another seat's (public) train
``covers_double``   the target train ends in an obliging open double
``target_hand``     the target train owner's hand size / 20 (0 for the own and Mexican train)
``in_chain``        the tile is in the planner's chain plan for the own train
``follows_chain``   the move is the plan's next tile on the own train
``plan_change``     (plan value after the move - plan value now) / 1000, clipped to [-5, 2]:
                    about +1 for a spare tile shed elsewhere, 0 for following the plan,
                    -k when the move costs the plan k tiles (planner's weights: 1000 + pips
                    a tile; an uncoverable double -1000)
``double_ok``       1 unless the tile is a double the rest of the hand cannot cover
``lift_marker``     the planner's rule (b): an own-train move that lifts the marker and loses
                    nothing of the plan
``flexibility``     spare tiles that fit a public open end after the move / 10
``planner_choice``  1 for the planner's move in this position
=================== =====================================================================

Cost: one planner decision with every plan-breaking move re-planned (about 0.1-0.4 ms at
double-12). Picklable (plain attributes), deterministic, torch-free. The line games have their
own rows (:mod:`domino_env.agents.line_action_features`); :func:`action_features_for` picks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import as_config
from .mexican_train import PlannerAgent

#: Column names of the feature rows (see the module docstring).
FEATURES = (
    "legal",
    "draw",
    "pass",
    "pips",
    "double",
    "own_train",
    "mexican_train",
    "other_train",
    "covers_double",
    "target_hand",
    "in_chain",
    "follows_chain",
    "plan_change",
    "double_ok",
    "lift_marker",
    "flexibility",
    "planner_choice",
)
#: Name saved in a model's metadata (``policy_input``) for observations extended by these rows.
ACTION_FEATURES_VERSION = "action-features-v1"
_COL = {name: i for i, name in enumerate(FEATURES)}


class ActionFeatures:
    """``features(observation, action_mask) -> float32 (num_actions, len(FEATURES))``.

    Args:
        config: Mexican Train rules (anything :func:`domino_env.agents.base.as_config` accepts).

    Raises:
        ConfigError: not Mexican Train rules (the line games:
            :class:`~domino_env.agents.line_action_features.LineActionFeatures`).
    """

    columns = FEATURES

    def __init__(self, config: Any = None):
        cfg = as_config(config)
        self.planner = PlannerAgent(cfg)
        self.num_actions = self.planner.num_actions
        self.num_features = len(FEATURES)
        self.size = self.num_actions * self.num_features

    def __repr__(self) -> str:
        return f"ActionFeatures(num_actions={self.num_actions}, features={len(FEATURES)})"

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        pl = self.planner
        out = np.zeros((self.num_actions, len(FEATURES)), dtype=np.float32)
        legal = np.flatnonzero(action_mask)
        if not len(legal):  # the episode is over: no action, all rows zero
            return out
        out[legal, _COL["legal"]] = 1.0
        if pl.draw_action in legal:
            out[pl.draw_action, _COL["draw"]] = 1.0
        if pl.pass_action in legal:
            out[pl.pass_action, _COL["pass"]] = 1.0
        places = pl.placements(legal)
        if not places:
            out[legal[0], _COL["planner_choice"]] = 1.0
            return out
        v = pl.view(observation)
        p = pl.num_players
        slots = p + 1
        ctx = pl.plan_context(v)  # one chain search for the rows and the planner's move
        keys, chain_w = pl.placement_keys(v, places, ctx), ctx["chain_w"]
        top = 2.0 * pl.max_pip
        for (tile, slot), (key, double_ok, in_chain, follows) in zip(places, keys, strict=True):
            action = tile * slots + slot
            row = out[action]
            a, b = pl.tiles[tile]
            row[_COL["pips"]] = pl.values[tile] / top
            row[_COL["double"]] = float(a == b)
            row[_COL["own_train"]] = float(slot == 0)
            row[_COL["mexican_train"]] = float(slot == p)
            row[_COL["other_train"]] = float(0 < slot < p)
            row[_COL["covers_double"]] = float(slot in v.open_doubles)
            row[_COL["target_hand"]] = v.hand_sizes[slot] / 20.0 if 0 < slot < p else 0.0
            row[_COL["in_chain"]] = float(in_chain)
            row[_COL["follows_chain"]] = float(follows)
            row[_COL["plan_change"]] = min(2.0, max(-5.0, (key[1] - chain_w) / 1000.0))
            row[_COL["double_ok"]] = float(double_ok)
            row[_COL["lift_marker"]] = float(key[0])
            row[_COL["flexibility"]] = key[2] / 10.0
        # The planner's own move (its lazy re-planning can differ from the exhaustive keys above
        # when a budget-limited chain search is beaten by a re-plan; the planner is what it is).
        if len(v.hand) == 1:  # its shortcut: the last tile goes out
            choice = places[0][0] * slots + places[0][1]
        else:
            _, choice, double_ok = pl.choose(v, places, ctx)
            if not double_ok and pl.pass_action in legal:
                choice = pl.pass_action
        out[choice, _COL["planner_choice"]] = 1.0
        return out


def action_features_for(config: Any) -> Any:
    """The feature builder of the rules' game: :class:`ActionFeatures` (Mexican Train) or
    :class:`~domino_env.agents.line_action_features.LineActionFeatures` (block, draw, Cuban)."""
    from domino_env.core.config import LineConfig

    from .line_action_features import LineActionFeatures

    cfg = as_config(config)
    return LineActionFeatures(cfg) if isinstance(cfg, LineConfig) else ActionFeatures(cfg)


def feature_columns(game: str = "mexican_train") -> tuple[str, ...]:
    """Column names of the feature rows of ``game`` (``"mexican_train"`` or a line game)."""
    from .line_action_features import LINE_FEATURES

    return FEATURES if game == "mexican_train" else LINE_FEATURES
