"""RLlib modules for the domino environments (needs the ``[rllib]`` extra: ray and torch).

* :class:`MaskedPPOTorchRLModule`: PPO's default MLP module (``DefaultPPOTorchRLModule``: actor
  and critic encoders, ``pi`` and ``vf`` heads) reading the observation dict of
  :class:`domino_env.agents.rllib.env.DominoMultiAgentEnv` (``"observations"``, ``"action_mask"``). Illegal
  logits are pushed to ``FLOAT_MIN`` in every forward pass (sampling, inference, training), so an
  illegal action is never sampled and its probability is 0 in the PPO loss. The observation is
  multiplied by ``model_config["observation_scale"]`` (:func:`domino_env.agents.ppo.observation_scale`:
  tiles / 20, points / 100, ...) inside the module, so a checkpoint is self-contained. It does
  what RLlib's example ``ActionMaskingTorchRLModule`` does, on the non-deprecated base class.
* :class:`ScriptedRLModule`: one of our scripted agents (``random``, ``greedy``, ``planner``, any
  :func:`domino_env.agents.make_agent` spec) as a non-trainable RLlib module. It reads the observation and
  the action mask of every row and plays the agent's (always legal) action. Map opponent seats to
  it through the policy mapping and leave it out of ``policies_to_train``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from domino_env.core.errors import AgentSpecError, ConfigError

#: The key under which the mask travels once the observation dict has been split.
MASK = "action_mask"


def _numpy(x: Any) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """Masked PPO module (see the module docstring).

    Inputs: ``batch["obs"] = {"observations": float (B, obs size), "action_mask": (B, actions)}``.
    Outputs: PPO's ``action_dist_inputs`` (B, actions) with illegal entries at ``FLOAT_MIN``.
    ``model_config``: PPO's (``fcnet_hiddens``, ``fcnet_activation``, ...) plus
    ``observation_scale`` (a list of floats, one per observation element; absent: no scaling).

    Raises:
        ConfigError: the observation space is not the env's dict, or the scale has another size.
    """

    def __init__(self, *args: Any, observation_space: gym.Space | None = None, **kwargs: Any):
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space) != {
            "observations",
            MASK,
        }:
            raise ConfigError(
                "observation_space",
                observation_space,
                "a Dict with keys 'observations' and 'action_mask' (DominoMultiAgentEnv's)",
            )
        self._space_with_mask = observation_space
        # The networks are built for the observation alone; the mask only gates the logits.
        super().__init__(*args, observation_space=observation_space["observations"], **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self._space_with_mask
        cfg = self.model_config if isinstance(self.model_config, dict) else {}
        scale = cfg.get("observation_scale")
        size = int(np.prod(self._space_with_mask["observations"].shape))
        if scale is not None and len(scale) != size:
            raise ConfigError(
                "observation_scale", f"{len(scale)} values", f"{size} values (the observation size)"
            )
        self._obs_scale = None if scale is None else torch.tensor(scale, dtype=torch.float32)

    def _split(self, batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """``(mask, batch with the scaled observation tensor as "obs")``; a batch already split
        (by :meth:`compute_values`) is returned as it is."""
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict):
            return batch[MASK], batch
        x = obs["observations"].float()
        if self._obs_scale is not None:
            x = x * self._obs_scale.to(x.device)
        out = dict(batch)
        out[Columns.OBS] = x
        return obs[MASK], out

    @staticmethod
    def _mask(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = logits + torch.clamp(
            torch.log(mask.to(logits.dtype)), min=FLOAT_MIN
        )
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._mask(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._mask(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if isinstance(batch[Columns.OBS], dict):
            # Split in place: the learner passes this same batch to _forward_train afterwards.
            mask, split = self._split(batch)
            batch[Columns.OBS], batch[MASK] = split[Columns.OBS], mask
        return super().compute_values(batch, embeddings)


class ScriptedRLModule(RLModule):
    """A scripted agent as a non-trainable RLlib module.

    ``model_config``: ``{"agent": spec, "env_config": {...}, "seed": int}``: ``spec`` is an
    :func:`domino_env.agents.make_agent` spec (``"random"``, ``"greedy"``, ``"planner"``, ``"planner:200"``,
    ``"ppo:PATH"``, ...), built for the rules of ``env_config`` (the env's config, ``game`` key
    included); ``seed`` seeds the agent's generator (each module copy replays the same stream).

    Output: ``{"actions": int64 (B,)}``, every action legal under the row's mask.

    Raises:
        ConfigError: unknown agent spec or rules.
        NotImplementedError: asked to train (keep it out of ``policies_to_train``).
    """

    def setup(self):
        from domino_env.agents.base import make_agent

        from .env import aec_from_env_config

        cfg = dict(self.model_config or {})
        self.spec = cfg.get("agent", "random")
        self.agent = make_agent(self.spec, aec_from_env_config(cfg.get("env_config") or {}).config)
        if getattr(self.agent, "wants_info_state", False):  # it would fail at its first decision
            raise AgentSpecError(self.spec, "an agent that plays from the observation alone: RLlib's "
                              "opponent modules have no public history (not search, nor a model reading "
                              "action-features-v3)")  # fmt: skip
        self.rng = np.random.default_rng(cfg.get("seed", 0))

    def _act(self, batch: dict[str, Any]) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        observations = _numpy(obs["observations"])
        masks = _numpy(obs["action_mask"]).astype(np.int8)
        actions = np.empty(len(masks), dtype=np.int64)
        for i in range(len(masks)):
            action = int(self.agent(observations[i], masks[i], self.rng))
            if not masks[i][action]:  # an agent bug must not reach the env as a sampled move
                raise ConfigError("action", action, f"a legal action of agent {self.spec!r}")
            actions[i] = action
        return {Columns.ACTIONS: actions}

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._act(batch)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._act(batch)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._act(batch)

    def _forward_train(self, *args: Any, **kwargs: Any):
        raise NotImplementedError(
            f"scripted agent {self.spec!r} is not trainable: leave it out of policies_to_train"
        )

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to compile (RLlib may call this on every module)."""

    def get_state(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {}

    def set_state(self, state: dict[str, Any]) -> None:
        pass
