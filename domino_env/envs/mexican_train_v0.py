"""PettingZoo AEC environment for Mexican Train (docs/rules.md §1; docs/design.md §3).

``raw_env(**kwargs)`` raises :class:`~domino_env.core.errors.IllegalActionError` on an illegal
action; ``env(**kwargs)`` wraps it in PettingZoo's standard wrappers (an unmasked action ends the
episode with ``-1`` for the offender). Registered as ``"dominoes/mexican_train-v0"``.

Keyword arguments: ``preset`` plus every field of
:class:`~domino_env.core.config.MexicanTrainConfig` (explicit values override the preset), and
``episode`` (``"round"`` or ``"game"``), ``reward`` (``"outcome"`` or ``"points"``),
``render_mode`` (None, ``"human"``, ``"ansi"``, ``"rgb_array"``), ``max_cycles`` (cycles: truncation before any
agent would start turn ``max_cycles + 1``, PettingZoo's meaning; a turn may hold several actions)
and ``max_steps`` (None, or truncation after that many actions).

Turn-based AEC only (``metadata["is_parallelizable"]`` is False): PettingZoo's ``aec_to_parallel``
refuses it with a bare ``AssertionError``; ``turn_based_aec_to_parallel`` works and
:func:`parallel_env` applies it. ``state()`` / ``state_space``: the PRIVILEGED global state (every
hand and the boneyard; docs/state.md). ``infos``: the same keys at every step (docs/infos.md).
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv, ParallelEnv

from ..core.config import MexicanTrainConfig, from_preset, installed_render_modes
from ..core.mexican_train import MexicanTrainState
from ..encoding.mexican_train import MexicanTrainEncoder
from ..encoding.state import MexicanTrainStateEncoder
from ..render import render_mexican_train
from .base import DominoAECEnv
from .parallel import parallel_view
from .rewards import outcome_rewards
from .wrapping import wrap

ENV_ID = "dominoes/mexican_train-v0"

#: Scale of ``reward="points"``: a round gives each seat -(points scored) / POINTS_SCALE.
POINTS_SCALE = 100.0


class raw_env(DominoAECEnv):
    """Mexican Train, one agent per seat (``player_0`` .. ``player_{P-1}``), under the rules of
    docs/rules.md §1 (T = tiles in the set, P = seats).

    Observation of each agent: ``{"observation": float32 (spec.size,), "action_mask": int8
    (T*(P+1)+2,)}`` (see :func:`domino_env.encoding.mexican_train.observation_fields`).
    Actions: ``Discrete(T*(P+1)+2)``; ``tile*(P+1)+slot`` places a tile on the train ``slot``
    seats after the actor (P = Mexican train), then DRAW, PASS.

    Rewards (``reward``): ``"outcome"``: at the end of the episode the winners share +1 and the
    others share -1 (a void round gives 0; with ``game_end="elimination"`` every seat that loses
    the game gets -1/(P-1) when it is out or beaten, the winners share the rest); ``"points"``: at
    every round end each seat gets -(points it scored in that round) / 100. Rewards are floats
    (docs/envs.md, "Rewards"; points as docs/rules.md §1.5 scores them).

    Raises:
        ConfigError: invalid keyword argument (names the field and the allowed values).
        ImportError: ``render_mode="rgb_array"`` without Pillow (the ``[render]`` extra).
    """

    metadata = {
        "name": "mexican_train_v0",
        "render_modes": installed_render_modes(),
        "is_parallelizable": False,
        "render_fps": 2,
    }
    ENV_ID = ENV_ID
    config_class = MexicanTrainConfig
    state_class = MexicanTrainState
    encoder_class = MexicanTrainEncoder
    state_encoder_class = MexicanTrainStateEncoder
    default_preset = "domino_cubano"

    def make_config(self, preset: str, rules: dict[str, Any]) -> MexicanTrainConfig:
        return from_preset(preset, **rules)

    def round_info(self) -> dict[str, int]:
        return {"station": int(self.game_state.station)}

    def round_rewards(self, seats: list[int]) -> dict[int, float]:
        state = self.game_state
        result = state.round_result
        if self.reward_mode == "points":
            return {s: -result.points[s] / POINTS_SCALE for s in seats}
        if self.episode == "round":
            return outcome_rewards(result.winners, seats)
        if self.config.game_end == "elimination":
            # Every seat that loses the game gets -1/(P-1) when it is out (eliminated now or
            # beaten at the end); the game's winners share the sum (+1 for a single winner).
            loss = -1.0 / (self.config.num_players - 1)
            if state.game_over:
                losers = self.config.num_players - len(state.game_winners)
                rewards = {s: loss for s in seats if s not in state.game_winners}
                share = -loss * losers / len(state.game_winners)
                rewards.update({s: share for s in state.game_winners})
                return rewards
            return {s: loss for s in seats if not state.active[s]}
        if state.game_over:
            return outcome_rewards(state.game_winners, seats)
        return {}

    def render_text(self, viewer: int | None = None) -> str:
        return render_mexican_train(self.game_state, viewer)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` wrapped in PettingZoo's standard wrappers (illegal action ends the episode
    with -1 for the offender; out-of-bounds actions assert; call order enforced)."""
    return wrap(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> ParallelEnv:
    """``env(**kwargs)`` through PettingZoo's ``turn_based_aec_to_parallel`` (the envs are
    turn-based: ``aec_to_parallel`` refuses them); see :func:`~domino_env.envs.parallel.parallel_view`
    (there ``max_cycles`` counts parallel steps, one action each)."""
    return parallel_view(env, **kwargs)
