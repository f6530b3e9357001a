"""Tianshou's ``PettingZooEnv`` + ``Collector`` + an off-policy trainer on our envs (issue 10).

Tianshou stacks every step's ``info`` into its replay buffer: keys that appear on some steps only,
or values whose length changes (a tied round's two winners), leave NaN rows that its trainer
rejects (``MalformedBufferError``). The fixed info layout (docs/infos.md) keeps the buffer whole.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from domino_env.envs import block_v0, cuban_v0, draw_v0, mexican_train_v0

#: raw_env: an illegal action raises IllegalActionError instead of ending the episode quietly
GAMES = {
    "mexican_train": lambda: mexican_train_v0.raw_env(num_players=2, max_pip=9),
    "block": block_v0.raw_env,
    "draw": draw_v0.raw_env,
    "cuban": cuban_v0.raw_env,
}


def _random_players(env: PettingZooEnv) -> MultiAgentOffPolicyAlgorithm:
    players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents]
    return MultiAgentOffPolicyAlgorithm(algorithms=players, env=env)


@pytest.mark.parametrize("name", list(GAMES))
def test_collector_stacks_a_few_episodes(name):
    np.random.seed(0)  # Tianshou's random policy draws from numpy's global generator
    env = PettingZooEnv(GAMES[name]())
    buffer = VectorReplayBuffer(3000, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collector = Collector(_random_players(env), DummyVectorEnv([lambda: PettingZooEnv(GAMES[name]())]), buffer)
        collector.reset()
        stats = collector.collect(n_episode=3, reset_before_collect=True)
    assert stats.n_collected_episodes == 3
    p = len(env.agents)
    data = buffer.sample(0)[0]  # every stored step
    assert len(data) == stats.n_collected_steps
    assert data.info.won.shape == (len(data), p) and data.info.winners.shape == (len(data), p)
    for key in ("round_over", "termination_code", "won", "pips", "scores", "limit_reached"):
        assert np.isfinite(np.asarray(data.info[key], dtype=float)).all(), key
    # the last step of each episode carries its round result; a round won by going out names a winner
    ended = data.info.round_over.astype(bool)
    assert ended.sum() >= 3
    went_out = data.info.termination_code == 1
    assert (data.info.won[went_out].sum(-1) >= 1).all()
    assert np.isfinite(np.asarray(data.rew)).all()


def test_trainer_runs_a_dqn_learner_against_a_random_seat():
    torch.manual_seed(0)
    np.random.seed(0)
    env = PettingZooEnv(draw_v0.env())
    net = Net(state_shape=env.observation_space["observation"].shape[0], action_shape=env.action_space.n,
              hidden_sizes=[32])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.2),
        optim=AdamOptimizerFactory(lr=1e-3),
        gamma=0.9,
        target_update_freq=20,
    )
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)
    algo = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train = Collector(algo, DummyVectorEnv([lambda: PettingZooEnv(draw_v0.env())] * 2),
                          VectorReplayBuffer(2000, 2), exploration_noise=True)
        test = Collector(algo, DummyVectorEnv([lambda: PettingZooEnv(draw_v0.env())]))
        train.reset()
        test.reset()
        result = algo.run_training(
            OffPolicyTrainerParams(
                training_collector=train, test_collector=test, max_epochs=1, epoch_num_steps=120,
                collection_step_num_env_steps=40, test_step_num_episodes=2, batch_size=32,
                update_step_num_gradient_steps_per_sample=0.1,
                multi_agent_return_reduction=lambda r: r[:, 0], show_progress=False, verbose=False,
            )
        )  # fmt: skip
    # the trainer checks the buffer for NaN rows after every collection (MalformedBufferError)
    assert result.update_step >= 1 and result.train_step >= 120
    assert np.isfinite(result.best_reward)
