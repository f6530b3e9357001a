"""The RLlib modules outside inference (found by mutation testing of
``domino_env.agents.rllib.modules``): the masked PPO module's training pass and value function
(the learner calls ``compute_values`` on the batch, then ``forward_train`` on the same batch), and
the scripted module's refusals and defaults. The training runs themselves are in
test_rllib_smoke.py (they start Ray)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from rllib_helpers import observation_batch

from domino_env.agents import make_agent
from domino_env.agents.rllib.env import DominoMultiAgentEnv
from domino_env.agents.rllib.modules import MaskedPPOTorchRLModule, ScriptedRLModule
from domino_env.core.errors import AgentSpecError, ConfigError
from domino_env.train.rllib import model_config_of

MT = {"game": "mexican_train", "num_players": 2, "max_pip": 9}


def _spec(env, module_class, model_config):
    return RLModuleSpec(
        module_class=module_class, observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"], model_config=model_config,
    )  # fmt: skip


def _batch(obs, masks):
    return {Columns.OBS: {"observations": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}


def test_the_training_pass_masks_and_the_value_reads_the_scaled_observation():
    """The PPO loss reads ``forward_train``'s logits: illegal ones at FLOAT_MIN, the same as in
    inference. ``compute_values`` splits the dict batch in place (scaled observation, mask) and
    the ``forward_train`` after it on that batch still masks."""
    env = DominoMultiAgentEnv(MT)
    cfg = {**model_config_of(MT, (16,)), "vf_share_layers": False}
    module = _spec(env, MaskedPPOTorchRLModule, cfg).build()
    obs, masks = observation_batch(env, n=12, seed=3)
    scale = torch.tensor(cfg["observation_scale"], dtype=torch.float32)
    with torch.no_grad():
        want = module.forward_inference(_batch(obs, masks))[Columns.ACTION_DIST_INPUTS]
        train = module.forward_train(_batch(obs, masks))[Columns.ACTION_DIST_INPUTS]
        torch.testing.assert_close(train, want)
        assert (train[torch.from_numpy(masks) == 0] < -1e30).all()
        batch = _batch(obs, masks)
        values = module.compute_values(batch)
        scaled = torch.from_numpy(obs) * scale
        torch.testing.assert_close(batch[Columns.OBS], scaled)
        torch.testing.assert_close(batch["action_mask"], torch.from_numpy(masks))
        plain = module.vf(module.encoder({Columns.OBS: scaled})["encoder_out"]["critic"]).squeeze(-1)
        torch.testing.assert_close(values, plain)
        torch.testing.assert_close(module.forward_train(batch)[Columns.ACTION_DIST_INPUTS], want)


def test_a_scale_of_another_size_is_refused():
    env = DominoMultiAgentEnv(MT)
    with pytest.raises(ConfigError, match=r"observation_scale.*3 values.*252 values \(the observation size\)"):
        _spec(env, MaskedPPOTorchRLModule, {"fcnet_hiddens": [8], "observation_scale": [1.0, 2.0, 3.0]}).build()
    module = _spec(env, MaskedPPOTorchRLModule, {"fcnet_hiddens": [8]}).build()  # none: no scaling
    assert module._obs_scale is None and module.observation_space == env.observation_spaces["player_0"]


def test_the_scripted_module_defaults_to_random_rules_from_the_env_and_seed_0():
    """No model config: ``random`` for Mexican Train's default rules, seeded 0; every forward
    pass (inference, exploration, the plain one) plays the agent; the state is empty."""
    env = DominoMultiAgentEnv({"game": "mexican_train"})
    module = _spec(env, ScriptedRLModule, None).build()
    assert module.spec == "random" and module.agent.config == env.config
    obs, masks = observation_batch(env, n=10, seed=5)
    agent, rng = make_agent("random", env.config), np.random.default_rng(0)
    want = [agent(o, m, rng) for o, m in zip(obs, masks, strict=True)]
    for forward in (module.forward_inference, module._forward):  # the module's own rng first
        got = forward(_batch(obs, masks))[Columns.ACTIONS]
        assert got.dtype == np.int64 and list(got) == want
        module.rng = np.random.default_rng(0)
    assert module.get_state() == {}
    module.set_state({})  # nothing to restore


def test_the_scripted_module_reads_an_env_config_of_none_as_the_default_rules():
    env = DominoMultiAgentEnv({"game": "mexican_train"})
    module = _spec(env, ScriptedRLModule, {"agent": "greedy", "env_config": None, "seed": 4}).build()
    assert module.agent.config == env.config


def test_the_scripted_module_refuses_an_agent_that_needs_the_public_history():
    env = DominoMultiAgentEnv(MT)
    with pytest.raises(AgentSpecError, match="an agent that plays from the observation alone"):
        _spec(env, ScriptedRLModule, {"agent": "search", "env_config": MT}).build()


def test_an_illegal_action_of_the_scripted_agent_is_refused_before_it_reaches_the_env():
    env = DominoMultiAgentEnv(MT)
    module = _spec(env, ScriptedRLModule, {"agent": "random", "env_config": MT}).build()
    obs, masks = observation_batch(env, n=3, seed=1)
    bad = int(np.flatnonzero(masks[1] == 0)[0])
    module.agent = lambda o, m, rng: bad if (m == masks[1]).all() else int(np.flatnonzero(m)[0])
    with pytest.raises(ConfigError, match=rf"'action'.*{bad}.*a legal action of agent 'random'"):
        module.forward_exploration(_batch(obs, masks))


@pytest.mark.parametrize("kind", ["numpy", "tensor_with_grad"])
def test_the_scripted_module_reads_numpy_rows_and_tensors_that_carry_a_gradient(kind):
    """A batch of numpy arrays (a direct call) or of tensors that require grad: the same moves."""
    env = DominoMultiAgentEnv(MT)
    module = _spec(env, ScriptedRLModule, {"agent": "greedy", "env_config": MT}).build()
    obs, masks = observation_batch(env, n=6, seed=8)
    want = list(module.forward_inference(_batch(obs, masks))[Columns.ACTIONS])
    if kind == "numpy":
        batch = {Columns.OBS: {"observations": obs, "action_mask": masks}}
    else:
        batch = {Columns.OBS: {"observations": torch.from_numpy(obs).requires_grad_(),
                               "action_mask": torch.from_numpy(masks).float().requires_grad_()}}  # fmt: skip
    assert list(module.forward_inference(batch)[Columns.ACTIONS]) == want
