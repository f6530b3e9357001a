"""The numpy copy of an RLlib PPO module (``RLlibActor``, behind ``rllib:PATH``): the model-config
values RLlib takes that no other test gave it (found by mutation testing of
``domino_env.agents.rllib.agent``), each either copied exactly or refused in one clear line."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from rllib_helpers import observation_batch

from domino_env.agents.rllib.agent import RLlibActor
from domino_env.agents.rllib.env import DominoMultiAgentEnv
from domino_env.agents.rllib.modules import MaskedPPOTorchRLModule
from domino_env.core.errors import DominoError
from domino_env.train.rllib import model_config_of

MT = {"game": "mexican_train", "num_players": 2, "max_pip": 9}


def _module(env, **config):
    cfg = {**model_config_of(MT, (16, 8)), **config}
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule, observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"], model_config=cfg,
    ).build()  # fmt: skip
    return module, cfg, {k: v.detach().numpy() for k, v in module.state_dict().items()}


def test_a_none_activation_is_linear_as_in_rllib():
    """RLlib builds no activation for ``None`` (as for "linear"); the copy read ``None.lower()``
    once the early return of a known name was gone."""
    env = DominoMultiAgentEnv(MT)
    module, cfg, state = _module(env, fcnet_activation=None, head_fcnet_hiddens=[8], head_fcnet_activation=None)
    obs, masks = observation_batch(env, n=8, seed=1)
    batch = {Columns.OBS: {"observations": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}
    with torch.no_grad():
        want = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    actor = RLlibActor(state, cfg)
    assert [act for _, _, act in actor.layers] == [None, None, None, None]
    assert actor.input_size == obs.shape[1] == 252 and actor.num_actions == masks.shape[1] == 167  # 4 layers
    got = actor.logits(obs * np.asarray(cfg["observation_scale"], np.float32))
    np.testing.assert_allclose(got[masks == 1], want[masks == 1], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("bad", [5, ["tanh"], {"name": "tanh"}])
def test_an_activation_that_is_not_a_name_is_one_clear_error(bad):
    """A metadata file may hold any JSON value: a number or a list is refused like an unknown
    name (not an AttributeError from ``.lower()`` or a TypeError from an unhashable key)."""
    _, cfg, state = _module(DominoMultiAgentEnv(MT))
    for key in ("fcnet_activation", "head_fcnet_activation"):
        with pytest.raises(DominoError, match=rf"cannot copy an RLlib module with {key}={re.escape(repr(bad))} \(known: "):
            RLlibActor(state, {**cfg, key: bad})


@pytest.mark.parametrize("bad", [[1], "tanh", 3])
def test_a_model_config_that_is_not_a_dict_is_one_clear_error(bad):
    _, _, state = _module(DominoMultiAgentEnv(MT))
    with pytest.raises(DominoError, match=rf"^the model config is not a dict \(got {type(bad).__name__}\)$"):
        RLlibActor(state, bad)


@pytest.mark.parametrize("missing", ["encoder", "pi head", "both"])
def test_a_state_without_the_actor_encoder_or_the_pi_head_is_not_a_ppo_mlp_module(missing):
    """Either part missing (a config naming the other encoder layout, another module type) is
    refused by name: with only the head it loaded as a one-layer model, with neither an IndexError."""
    _, cfg, state = _module(DominoMultiAgentEnv(MT), vf_share_layers=False)
    cfg = {**cfg, "vf_share_layers": missing != "pi head"}  # True: reads encoder.encoder, absent here
    if missing != "encoder":
        state = {k: v for k, v in state.items() if not k.startswith("pi.")}
    with pytest.raises(DominoError, match=r"^the checkpoint's module is not a PPO MLP module \(no actor encoder / pi head"):
        RLlibActor(state, cfg)
