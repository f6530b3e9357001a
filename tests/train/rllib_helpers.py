"""Shared by the RLlib tests: observations and masks of real positions for a module to score."""

import numpy as np


def observation_batch(env, n=16, seed=0):
    """``(observations, masks)`` of ``n`` positions along random games of ``env`` (a
    ``DominoMultiAgentEnv``), stacked: float32 ``(n, obs)`` and int8 ``(n, actions)``."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    env.reset(seed=seed)
    for _ in range(n):  # observations of real positions along a random game
        a = env.aec.agent_selection
        o = env.aec.observe(a)
        obs.append(o["observation"])
        masks.append(o["action_mask"])
        env.aec.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
        if not env.aec.agents or any(env.aec.terminations.values()):
            env.reset(seed=int(rng.integers(1000)))
    return np.array(obs), np.array(masks)
