"""A MaskablePPO policy that scores each action with one network shared by all actions.

``domino-train --policy action-scores``. The training env appends the per-action feature rows of
:class:`domino_env.agents.action_features.ActionFeatures` to the scaled observation (input size
``obs + A x F``). The actor then computes, for every action ``a``,

    logit_a = s . f_a + v . relu(W2 relu(W1 f_a + U c + b1) + b2) + b,   c = relu(C obs + d)

(``f_a``: the action's feature row; ``c``: a context vector from the observation, shared by every
action; ``s``: a linear skip on the features). One scorer for all actions means a lesson learnt for
one tile and train holds for every tile and train with the same features, which a flat 457-way
head has to learn 457 times. The critic is an MLP on the observation plus the maximum of every
feature over the legal actions, plus (``critic_extra > 0``, ``--critic-input full-state``) the
hidden tiles that the training env appends after the features: an asymmetric actor-critic, where
only the critic, which is not needed at play time, sees what the seat cannot.

The layout is exported to numpy by :meth:`ActionScoringNet.export_numpy`, so the trained policy
plays through ``ppo:PATH`` without torch (:class:`domino_env.agents.action_scorer.NumpyActionScorer`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

#: ``--policy`` choices of ``domino-train``.
POLICIES = ("mlp", "action-scores")
#: The logit of an illegal action (sb3-contrib's ``MaskableCategorical`` masks with the same).
ILLEGAL_LOGIT = -1e8


class ActionScoringNet(nn.Module):
    """SB3 ``mlp_extractor`` of :class:`ActionScoringPolicy`: ``forward(x) -> (logits, latent_vf)``.

    Args:
        obs_size: length of the scaled observation at the front of ``x``.
        num_actions: A; ``x`` holds A x ``num_features`` feature values after the observation.
        num_features: F, feature columns per action.
        context: size of the context vector ``c``.
        hidden: sizes of the scorer's two hidden layers (W1, W2).
        vf_arch: hidden layer sizes of the critic.
        critic_extra: values after the features in ``x`` that only the critic reads (0: none;
            ``domino_env.train.learner_env.full_state_input``).
    """

    def __init__(
        self,
        obs_size: int,
        num_actions: int,
        num_features: int,
        context: int = 64,
        hidden: tuple[int, int] = (64, 64),
        vf_arch: tuple[int, ...] = (256, 256),
        critic_extra: int = 0,
    ):
        super().__init__()
        self.critic_extra = critic_extra
        self.obs_size, self.num_actions, self.num_features = obs_size, num_actions, num_features
        self.context = nn.Linear(obs_size, context)
        self.w1 = nn.Linear(num_features, hidden[0])
        self.u = nn.Linear(context, hidden[0], bias=False)
        self.w2 = nn.Linear(hidden[0], hidden[1])
        self.out = nn.Linear(hidden[1], 1)
        self.skip = nn.Linear(num_features, 1, bias=False)
        layers: list[nn.Module] = []
        size = obs_size + num_features + critic_extra
        for h in vf_arch:
            layers += [nn.Linear(size, h), nn.ReLU()]
            size = h
        self.value_net = nn.Sequential(*layers)
        self.latent_dim_pi = num_actions
        self.latent_dim_vf = size

    def _split(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        end = self.obs_size + self.num_actions * self.num_features
        obs = x[:, : self.obs_size]
        feats = x[:, self.obs_size : end].reshape(-1, self.num_actions, self.num_features)
        return obs, feats, x[:, end:]

    def forward_actor(self, x: torch.Tensor) -> torch.Tensor:
        """Logits ``(batch, A)``; an illegal action's (its feature row's ``legal`` column, the
        first, is 0) is :data:`ILLEGAL_LOGIT`, as SB3's masking makes it: only the legal rows (under
        1% in Mexican Train 4p double-12, about 2% in Cuban) go through the scorer, as in the numpy
        actor at play time. On CUDA the indexed backward pass is not bit-for-bit repeatable."""
        obs, feats, _ = self._split(x)  # never the critic's extra inputs
        c = torch.relu(self.context(obs))
        batch, action = (feats[:, :, 0] != 0).nonzero(as_tuple=True)
        f = feats[batch, action]  # (legal rows, F)
        h = torch.relu(self.w1(f) + self.u(c)[batch])
        h = torch.relu(self.w2(h))
        logits = feats.new_full(feats.shape[:2], ILLEGAL_LOGIT)
        return logits.index_put((batch, action), (self.out(h) + self.skip(f)).squeeze(-1))

    def forward_critic(self, x: torch.Tensor) -> torch.Tensor:
        obs, feats, extra = self._split(x)
        return self.value_net(torch.cat([obs, feats.amax(dim=1), extra], dim=1))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(x), self.forward_critic(x)

    def export_numpy(self) -> dict[str, Any]:
        """The actor's weights as float32 numpy arrays (``W.T`` layout: ``x @ W + b``)."""

        def lin(m: nn.Linear) -> tuple[np.ndarray, np.ndarray | None]:
            w = m.weight.detach().cpu().numpy().T.copy()
            b = None if m.bias is None else m.bias.detach().cpu().numpy().copy()
            return w, b

        return {
            "kind": "action-scores-v1",
            "obs_size": self.obs_size,
            "num_actions": self.num_actions,
            "num_features": self.num_features,
            **{name: lin(getattr(self, name)) for name in ("context", "w1", "u", "w2", "out", "skip")},
        }


class ActionScoringPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose actor is :class:`ActionScoringNet` (``action_net`` is the identity:
    the scorer already gives one logit per action).

    Extra keyword arguments (``policy_kwargs``, saved with the model): ``obs_size``,
    ``num_features``, ``context``, ``hidden``, ``vf_arch``, ``critic_extra`` (0 in models saved
    before it). ``net_arch`` and ``activation_fn``
    are not used.
    """

    def __init__(
        self,
        *args: Any,
        obs_size: int,
        num_features: int,
        context: int = 64,
        hidden: tuple[int, int] = (64, 64),
        vf_arch: tuple[int, ...] = (256, 256),
        critic_extra: int = 0,
        **kwargs: Any,
    ):
        self.scorer_kwargs = {
            "obs_size": int(obs_size),
            "num_features": int(num_features),
            "context": int(context),
            "hidden": tuple(int(h) for h in hidden),
            "vf_arch": tuple(int(h) for h in vf_arch),
            "critic_extra": int(critic_extra),
        }
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ActionScoringNet(num_actions=int(self.action_space.n), **self.scorer_kwargs)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()
        # small output weights: every legal action about equally likely at the start (as SB3's
        # 0.01 gain on a flat head)
        nn.init.orthogonal_(self.mlp_extractor.out.weight, gain=0.01)
        nn.init.zeros_(self.mlp_extractor.out.bias)
        nn.init.zeros_(self.mlp_extractor.skip.weight)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(self.scorer_kwargs)
        return data
