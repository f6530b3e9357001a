"""TorchRL's ``PettingZooWrapper(use_mask=True, return_state=True)`` on every game (issue 10): a
short masked random rollout with no illegal action (``raw_env`` raises at one), finished
episodes auto-reset, the global state recorded at every step and the fixed-layout infos stacked."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from torchrl.envs.libs.pettingzoo import PettingZooWrapper

from domino_env.envs import block_v0, cuban_v0, draw_v0, mexican_train_v0

GAMES = {
    "mexican_train": lambda: mexican_train_v0.raw_env(num_players=3, max_pip=9),
    "block": block_v0.raw_env,
    "draw": draw_v0.raw_env,
    "cuban": cuban_v0.raw_env,
}
STEPS = 150


@pytest.mark.parametrize("name", list(GAMES))
def test_masked_rollout_with_state(name):
    raw = GAMES[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = PettingZooWrapper(raw, use_mask=True, return_state=True, categorical_actions=True, seed=0)
        td = env.rollout(STEPS, break_when_any_done=False)  # an illegal action raises in raw_env
    assert td.batch_size == torch.Size([STEPS])
    acted = 0
    for agent in raw.possible_agents:
        group = td[agent]
        mask = group["mask"].reshape(STEPS)  # the agent acted at this step
        actions = group["action"].reshape(STEPS)
        legal = group["action_mask"].reshape(STEPS, -1)
        assert legal[mask, actions[mask]].all(), f"{agent} played a masked-out action"
        acted += int(mask.sum())
    assert acted == STEPS  # exactly one agent acts per step: turn-based
    state = td["next", "state"].numpy()
    assert state.shape == (STEPS, *raw.state_space.shape)
    assert all(raw.state_space.contains(s) for s in state)
    assert td["next", "done"].any(), "no episode finished"
    info = td["next", raw.possible_agents[0], "info"]
    assert set(info.keys()) >= {"round_over", "termination_code", "won", "scores"}
    assert info["won"].shape[-1] == raw.config.num_players
    assert info["round_over"].sum() >= 1
    # a round won by going out names its winner(s) in the fixed layout
    went_out = info["termination_code"].reshape(STEPS) == 1
    assert (info["won"].reshape(STEPS, -1)[went_out].sum(-1) >= 1).all()
    assert np.isfinite(state).all()
