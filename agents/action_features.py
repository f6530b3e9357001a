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
``flexibility``     spare tiles that fit a public open end after the move / 10 (a tile counted
                    once per distinct end pip it fits, as the planner's rule (d) counts)
``planner_choice``  1 for the planner's move in this position
=================== =====================================================================

``action-features-v2`` (``domino-train --action-features v2``; ``END_FEATURES``) appends four
columns about the open end a placement leaves on its train (for a double, the double's pip; zero
for DRAW and PASS). The v1 rows cannot say it: they carry no tile identity and no target pip, so
a network could not relate a move to what the other seats are known to lack (the line games'
``next_cannot`` column, in Mexican Train terms) or to how many tiles could still follow it:

=================== =====================================================================
``end_unseen``      tiles with that pip the seat cannot see (not in its hand after the
                    move, not on any train, not the station double) / (max pip + 1):
                    0 means nobody else can follow that end (or cover that double)
``end_own``         the seat's own tiles with that pip after the move / (max pip + 1)
``end_lacked``      share of the other seats (in play) publicly known to lack that pip
                    (the observation's ``missing_pips``)
``next_lacks_end``  the move is not on the own train and the next seat (in play) is known to
                    lack that pip
=================== =====================================================================

``action-features-v3`` (``--action-features v3``; ``SEARCH_FEATURES``) appends to v2 the verdict
of ``search:25`` on the planner's two best moves (``search_candidate``, ``search_gain``,
``search_z``: :meth:`ActionFeatures._search_rows`); it reads the seat's
:class:`~domino_env.core.belief.InformationState` (``info_state=``), as the ``search`` agent does.

Cost: one planner decision with every plan-breaking move re-planned (about 0.1-0.4 ms at
double-12; v3: plus 25 playouts, about 8 ms). Picklable (plain attributes), deterministic, torch-free. The line games have their
own rows (:mod:`domino_env.agents.line_action_features`); :func:`action_features_for` picks.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from domino_env.core.config import MexicanTrainConfig
from domino_env.core.errors import ConfigError
from domino_env.core.tiles import double_index
from domino_env.encoding.mexican_train import decode_observation

from .base import as_config
from .mexican_train import PlannerAgent
from .seat_view import decoded_view

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
#: Columns that ``action-features-v2`` appends in Mexican Train (see the module docstring).
END_FEATURES = ("end_unseen", "end_own", "end_lacked", "next_lacks_end")
#: Columns that ``action-features-v3`` appends to v2 (Mexican Train): a small search's verdict.
SEARCH_FEATURES = ("search_candidate", "search_gain", "search_z")
#: Playouts of that search per decision (``search:25``: 12 determinizations of the planner's two
#: best moves, about 8 ms of CPU a decision in Mexican Train 4p double-12).
SEARCH_FEATURES_BUDGET = 25
#: Names saved in a model's metadata (``policy_input``) for observations extended by feature rows:
#: v1 (``FEATURES``, every game), v2 (``FEATURES + END_FEATURES``) and v3 (v2 +
#: ``SEARCH_FEATURES``), the last two in Mexican Train only (the line games have v1 only).
ACTION_FEATURES_V1 = "action-features-v1"
ACTION_FEATURES_V2 = "action-features-v2"
ACTION_FEATURES_V3 = "action-features-v3"
ACTION_FEATURES_VERSIONS = (ACTION_FEATURES_V1, ACTION_FEATURES_V2, ACTION_FEATURES_V3)
#: The columns of each Mexican Train version.
COLUMNS = {
    ACTION_FEATURES_V1: FEATURES,
    ACTION_FEATURES_V2: FEATURES + END_FEATURES,
    ACTION_FEATURES_V3: FEATURES + END_FEATURES + SEARCH_FEATURES,
}
#: The rows new models read unless told (``domino-train --action-features``, default v1: v2 and v3
#: are options, measured in docs/training.md).
ACTION_FEATURES_VERSION = ACTION_FEATURES_V1
_COL = {name: i for i, name in enumerate(COLUMNS[ACTION_FEATURES_V3])}


class ActionFeatures:
    """``features(observation, action_mask) -> float32 (num_actions, len(self.columns))``.

    Args:
        config: Mexican Train rules (anything :func:`domino_env.agents.base.as_config` accepts).
        version: ``"action-features-v1"`` (default: ``FEATURES``), ``"action-features-v2"``
            (``FEATURES + END_FEATURES``) or ``"action-features-v3"`` (v2 + ``SEARCH_FEATURES``,
            which read the seat's InformationState).

    Raises:
        ConfigError: not Mexican Train rules (the line games:
            :class:`~domino_env.agents.line_action_features.LineActionFeatures`), or an unknown
            ``version``.
    """

    def __init__(self, config: Any = None, version: str | None = ACTION_FEATURES_VERSION):
        cfg = as_config(config)
        if not isinstance(cfg, MexicanTrainConfig):
            raise ConfigError("config", type(cfg).__name__, "Mexican Train rules (the line games: "
                              "LineActionFeatures, or action_features_for)")  # fmt: skip
        version = ACTION_FEATURES_VERSION if version is None else version
        if version not in ACTION_FEATURES_VERSIONS:
            raise ConfigError("version", version, f"one of {ACTION_FEATURES_VERSIONS}")
        self.version = version
        self.columns = COLUMNS[version]
        self.planner = PlannerAgent(cfg)
        #: v3 reads the seat's InformationState (``info_state=``), as search agents do
        self.wants_info_state = version == ACTION_FEATURES_V3
        self.search = None
        if self.wants_info_state:
            from .search import SearchAgent

            self.search = SearchAgent(cfg, budget=SEARCH_FEATURES_BUDGET)
        self.num_actions = self.planner.num_actions
        self.num_features = len(self.columns)
        self.size = self.num_actions * self.num_features
        n = cfg.max_pip
        self._station_double = {pip: double_index(pip, n) for pip in range(n + 1)}

    def __repr__(self) -> str:
        return f"ActionFeatures(num_actions={self.num_actions}, features={self.num_features})"

    def __call__(
        self, observation: np.ndarray, action_mask: np.ndarray, info_state: Any = None
    ) -> np.ndarray:
        """The rows; ``info_state`` (the seat's
        :class:`~domino_env.core.belief.InformationState`) is read by v3 only, which needs it
        (``ConfigError`` without it at a decision with a choice)."""
        pl = self.planner
        out = np.zeros((self.num_actions, self.num_features), dtype=np.float32)
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
        d = decode_observation(observation, pl.num_players, pl.max_pip)
        v = decoded_view(d)  # (the same as pl.view(observation); d also serves the v2 rows)
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
        if self.num_features > len(FEATURES):
            self._end_rows(out, d, v, places)
        if self.search is not None and len(legal) > 1:
            if info_state is None:
                raise ConfigError("info_state", None, "the seat's InformationState: action-features-v3 "
                                  "rows run a search over the public history (call features(obs, mask, "
                                  "info_state=InformationState.from_state(state, seat)))")  # fmt: skip
            self._search_rows(out, observation, action_mask, info_state)
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

    def _end_rows(self, out: np.ndarray, d: dict[str, np.ndarray], v: Any, places: list) -> None:
        """Fill the ``END_FEATURES`` columns of the placements (see the module docstring; ``d``:
        the decoded observation, ``v`` its seat view)."""
        pl = self.planner
        p, n = pl.num_players, pl.max_pip
        seen = v.hand_mask | (1 << self._station_double[int(d["station"].argmax())])
        for t in np.flatnonzero(d["placed"]):
            seen |= 1 << int(t)
        lacks = d["missing_pips"] > 0  # (P - 1, N + 1): the seats after this one, in turn order
        others = [k for k in range(1, p) if v.in_play[k]]
        nxt = others[0] if others else 0  # the next seat to play: seats out of the game are skipped
        slots, pip_masks, top = p + 1, pl.pip_masks, float(n + 1)
        for tile, slot in places:
            a, b = pl.tiles[tile]
            end = b if a == v.ends[slot] else a
            row = out[tile * slots + slot]
            row[_COL["end_unseen"]] = (pip_masks[end] & ~seen).bit_count() / top
            row[_COL["end_own"]] = (pip_masks[end] & v.hand_mask & ~(1 << tile)).bit_count() / top
            if others:
                row[_COL["end_lacked"]] = sum(bool(lacks[k - 1, end]) for k in others) / len(others)
            row[_COL["next_lacks_end"]] = float(slot != 0 and nxt > 0 and bool(lacks[nxt - 1, end]))

    def _search_rows(self, out: np.ndarray, observation: np.ndarray, action_mask: np.ndarray,
                     info_state: Any) -> None:  # fmt: skip
        """Fill the ``SEARCH_FEATURES`` columns: ``search:25`` (the ``search`` agent's steps 1-4)
        values the planner's two best moves on the same 12 sampled deals; per searched move, 1 in
        ``search_candidate``, its mean value minus the planner's move's (win credit plus the pip
        term, clipped to [-1, 1]) in ``search_gain``, and that paired difference over its
        standard error / 5 (clipped to [-1, 1]) in ``search_z``; zero for the planner's move and
        the unsearched ones. The search's generator is seeded from the observation and mask bytes,
        so the rows are a function of (observation, mask, information state)."""
        seed = zlib.crc32(observation.tobytes() + np.asarray(action_mask, np.int8).tobytes())
        rng = np.random.default_rng(seed)
        moves, default, values = self.search.searched_values(observation, action_mask, rng, info_state)
        if len(moves) < 2:
            return
        base = np.asarray(values[moves.index(default)])
        for move, vals in zip(moves, values, strict=True):
            row = out[move]
            row[_COL["search_candidate"]] = 1.0
            if move == default:
                continue
            d = np.asarray(vals) - base
            se = float(d.std(ddof=1)) / np.sqrt(len(d))
            row[_COL["search_gain"]] = float(np.clip(d.mean(), -1.0, 1.0))
            z = float(d.mean()) / se if se > 0 else float(np.sign(d.mean())) * 5.0
            row[_COL["search_z"]] = float(np.clip(z / 5.0, -1.0, 1.0))


def action_features_for(config: Any, version: str | None = None) -> Any:
    """The feature builder of the rules' game: :class:`ActionFeatures` (Mexican Train, rows of
    ``version``) or :class:`~domino_env.agents.line_action_features.LineActionFeatures` (block,
    draw, Cuban: v1 rows only); ``version`` None: ``ACTION_FEATURES_VERSION`` (v1).

    Raises:
        ConfigError: an unknown ``version``, or v2 / v3 for a line game.
    """
    from domino_env.core.config import LineConfig

    from .line_action_features import LineActionFeatures

    cfg = as_config(config)
    if isinstance(cfg, LineConfig):
        if version not in (None, ACTION_FEATURES_V1):
            raise ConfigError("version", version, f"{ACTION_FEATURES_V1!r} (the line games have v1 rows only)")
        return LineActionFeatures(cfg)
    return ActionFeatures(cfg, version or ACTION_FEATURES_VERSION)


def feature_columns(game: str = "mexican_train", version: str | None = None) -> tuple[str, ...]:
    """Column names of the feature rows of ``game`` (``"mexican_train"``, ``"line"`` or a line
    game: ``"block"``, ``"draw"``, ``"cuban"``) in ``version`` (None: ``ACTION_FEATURES_VERSION``,
    v1; the line games: v1 rows whatever the version).

    Raises:
        ConfigError: an unknown game or version."""
    from domino_env.envs.games import GAMES

    from .line_action_features import LINE_FEATURES

    if game not in (*GAMES, "line"):
        raise ConfigError("game", game, f"one of {(*GAMES, 'line')}")
    if version is not None and version not in ACTION_FEATURES_VERSIONS:
        raise ConfigError("version", version, f"one of {ACTION_FEATURES_VERSIONS}")
    if game != "mexican_train":
        return LINE_FEATURES
    return COLUMNS[version or ACTION_FEATURES_VERSION]

