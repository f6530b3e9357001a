"""PettingZoo AEC environments for the line games: block, draw and Cuban (docs/rules.md §2).

One class, :class:`raw_env`, plays every line game; the three registered ids differ only in their
preset: ``dominoes/block-v0`` (seed 004, "Dominó Exprés"), ``dominoes/draw-v0`` (seed 003,
"Dominó 6-9-12") and ``dominoes/cuban-v0`` (seed 001, "Domino Cubano", partnerships). Modules
``block_v0``, ``draw_v0`` and ``cuban_v0`` give the PettingZoo-style ``env`` / ``raw_env`` of each.

Keyword arguments: ``preset`` plus every field of :class:`~domino_env.core.config.LineConfig`
(explicit values override the preset), and ``episode``, ``reward``, ``render_mode``,
``max_cycles`` (cycles of turns), ``max_steps`` (actions) as for Mexican Train.

Turn-based AEC only, like Mexican Train: ``aec_to_parallel`` refuses it (bare ``AssertionError``),
``turn_based_aec_to_parallel`` works (``parallel_env`` of each module). ``state()`` /
``state_space``: the PRIVILEGED global state (docs/state.md); ``infos``: fixed layout
(docs/infos.md).
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv, ParallelEnv

from ..core.config import LineConfig, installed_render_modes, line_from_preset
from ..core.line import LineState
from ..encoding.line import LineEncoder
from ..encoding.state import LineStateEncoder
from ..render import render_line
from .base import DominoAECEnv
from .parallel import parallel_view
from .rewards import outcome_rewards
from .wrapping import wrap

ENV_IDS = {"block": "dominoes/block-v0", "draw": "dominoes/draw-v0", "cuban": "dominoes/cuban-v0"}

#: Scale of ``reward="points"``: points / POINTS_SCALE.
POINTS_SCALE = 100.0


class raw_env(DominoAECEnv):
    """A line game (block, draw or Cuban), one agent per seat (``player_0`` .. ``player_{P-1}``),
    under the rules of docs/rules.md §2 (T = tiles in the set).

    Observation: ``{"observation": float32 (spec.size,), "action_mask": int8 (2T+3,)}`` (see
    :func:`domino_env.encoding.line.line_observation_fields`). Actions: ``Discrete(2T+3)``;
    ``tile*2+end`` places a tile on the left (0; also the lead) or right (1) end, then DRAW, PASS,
    ANNUL.

    Rewards (``reward``), team-shared with teams on (both partners get their team's reward):
    ``"outcome"``: at the end of the episode, without teams the winner gets +1 and the others
    share -1; with teams each winner gets +1 and each loser -1. ``"points"``: at every round end
    the winning side gets +points/100 (each partner with teams); without teams each loser gets
    -(its own pips)/100 (so the sum is 0); with teams each loser gets -points/100. An annulled
    Cuban round pays nothing. Rewards are floats (points as docs/rules.md §2.1 scores them).

    Raises:
        ConfigError: invalid keyword argument (names the field and the allowed values).
        ImportError: ``render_mode="rgb_array"`` without Pillow (the ``[render]`` extra).
    """

    metadata = {
        "name": "line_v0",
        "render_modes": installed_render_modes(),
        "is_parallelizable": False,
        "render_fps": 2,
    }
    config_class = LineConfig
    state_class = LineState
    encoder_class = LineEncoder
    state_encoder_class = LineStateEncoder
    default_preset = "block"

    @property
    def ENV_ID(self) -> str:  # noqa: N802 - the base class's name for it
        return ENV_IDS[self.config.preset]

    def make_config(self, preset: str, rules: dict[str, Any]) -> LineConfig:
        return line_from_preset(preset, **rules)

    def round_info(self) -> dict[str, int]:
        return {"leader": int(self.game_state.leader)}

    def round_rewards(self, seats: list[int]) -> dict[int, float]:
        state = self.game_state
        result = state.round_result
        if result.termination == "annulled":
            return {}
        if self.reward_mode == "points":
            score = max(result.points)
            if self.config.teams:
                return {s: (score if s in result.winners else -score) / POINTS_SCALE for s in seats}
            return {
                s: (score if s in result.winners else -result.pips[s]) / POINTS_SCALE for s in seats
            }
        if self.episode == "round":
            winners = result.winners
        elif state.game_over:
            winners = state.game_winners
        else:
            return {}
        if self.config.teams:
            return {s: 1.0 if s in winners else -1.0 for s in seats}
        return outcome_rewards(winners, seats)

    def render_text(self, viewer: int | None = None) -> str:
        return render_line(self.game_state, viewer)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` wrapped in PettingZoo's standard wrappers (illegal action ends the episode
    with -1 for the offender; out-of-bounds actions assert; call order enforced)."""
    return wrap(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> ParallelEnv:
    """``env(**kwargs)`` through PettingZoo's ``turn_based_aec_to_parallel`` (the envs are
    turn-based: ``aec_to_parallel`` refuses them); see :func:`~domino_env.envs.parallel.parallel_view`
    (there ``max_cycles`` counts parallel steps, one action each)."""
    return parallel_view(env, **kwargs)
