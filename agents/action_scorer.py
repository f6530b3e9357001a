"""Torch-free play of ``--policy action-scores`` models (``domino_env.train.action_policy``).

:class:`NumpyActionScorer` is the actor of an ``ActionScoringPolicy`` copied into numpy arrays;
:class:`PolicyInput` builds the network input from a raw observation and its action mask, the same
way the training env does: the scaled observation, then (``action-features-v1`` / ``-v2`` /
``-v3``) the per-action feature rows of :func:`~domino_env.agents.action_features.action_features_for`
(Mexican Train or line game), flattened.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from domino_env.core.errors import CheckpointError

from .action_features import ACTION_FEATURES_VERSIONS, action_features_for

#: ``metadata["policy_input"]`` of a model whose input is the scaled observation only.
FLAT_INPUT = "observation"
POLICY_INPUTS = (FLAT_INPUT, *ACTION_FEATURES_VERSIONS)


class PolicyInput:
    """``policy_input(raw observation, action mask) -> float32 (input size,)``.

    Args:
        scale: the observation multipliers (``domino_env.agents.ppo.observation_scale``).
        kind: ``"observation"`` (scaled observation) or ``"action-features-v1"`` / ``-v2`` /
            ``-v3`` (scaled observation + ``num_actions x`` the version's feature columns,
            :func:`~domino_env.agents.action_features.feature_columns`; v3 also reads the
            seat's InformationState).
        config: the rules (needed for the action features).

    Raises:
        CheckpointError: an unknown ``kind`` (a model's metadata names one this version lacks).
        ConfigError: v2 / v3 rows for a line game (they have v1 only).
    """

    def __init__(self, scale: np.ndarray, kind: str = FLAT_INPUT, config: Any = None):
        if kind not in POLICY_INPUTS:
            raise CheckpointError(f"unknown policy input {kind!r}; this version knows {POLICY_INPUTS}")
        self.scale = np.asarray(scale, dtype=np.float32)
        self.kind = kind
        self.features = None if kind == FLAT_INPUT else action_features_for(config, kind)
        self.size = len(self.scale) + (0 if self.features is None else self.features.size)
        #: ``action-features-v3`` reads the seat's InformationState (its search columns)
        self.wants_info_state = bool(getattr(self.features, "wants_info_state", False))

    def __call__(
        self, observation: np.ndarray, action_mask: np.ndarray | None, info_state: Any = None
    ) -> np.ndarray:
        """The network input; ``action_mask`` is read only by the action features (may be None
        for ``"observation"``), ``info_state`` only by ``action-features-v3``."""
        x = np.asarray(observation, dtype=np.float32) * self.scale
        if self.features is None:
            return x
        if self.wants_info_state:
            rows = self.features(observation, action_mask, info_state)
        else:  # (the line rows take no information state)
            rows = self.features(observation, action_mask)
        return np.concatenate([x, rows.ravel()])


class NumpyActionScorer:
    """The actor of an ``ActionScoringPolicy`` in numpy (see ``domino_env.train.action_policy``).

    Args:
        weights: ``ActionScoringNet.export_numpy()``.
    """

    def __init__(self, weights: dict[str, Any]):
        if weights.get("kind") != "action-scores-v1":
            raise ValueError(f"not an action-scores-v1 actor: {weights.get('kind')!r}")
        self.obs_size = int(weights["obs_size"])
        self.num_actions = int(weights["num_actions"])
        self.num_features = int(weights["num_features"])
        self.params = {k: v for k, v in weights.items() if isinstance(v, tuple)}

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Action logits, shape ``(num_actions,)``, for one network input ``x`` (PolicyInput)."""
        p = self.params
        x = np.asarray(x, dtype=np.float32)
        obs = x[: self.obs_size]
        feats = x[self.obs_size :].reshape(self.num_actions, self.num_features)
        rows = np.flatnonzero(feats[:, 0])  # legal actions only (column 0 is "legal")
        if not len(rows):
            return np.zeros(self.num_actions, dtype=np.float32)
        out = np.full(self.num_actions, -np.inf, dtype=np.float32)
        f = feats[rows]
        c = np.maximum(obs @ p["context"][0] + p["context"][1], 0.0)
        h = np.maximum(f @ p["w1"][0] + p["w1"][1] + c @ p["u"][0], 0.0)
        h = np.maximum(h @ p["w2"][0] + p["w2"][1], 0.0)
        out[rows] = (h @ p["out"][0] + p["out"][1] + f @ p["skip"][0]).ravel()
        return out
