"""The torch-free play of a trained policy, on hand-built networks and inputs (found by mutation
testing): ``observation_scale`` per field, ``PolicyInput``, ``NumpyActor`` and
``NumpyActionScorer`` against the torch modules they copy, and ``PPOAgent``'s pick, sampling and
ranking of the legal actions."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
from torch import nn

from domino_env.agents.action_scorer import FLAT_INPUT, NumpyActionScorer, PolicyInput
from domino_env.agents.observation_scaling import (
    LINE_OBSERVATION_SCALING,
    OBSERVATION_SCALING,
    observation_scale,
    scaling_name,
)
from domino_env.agents.ppo import NumpyActor, PPOAgent
from domino_env.core.errors import CheckpointError, ConfigError

#: the multiplier of one element of each field (Mexican Train 4 players, double-12: 449 floats)
MT_4_12 = {
    "hand": 1.0, "station": 1.0, "train_length": 1 / 20, "train_open_double_order": 1 / 5,
    "hand_sizes": 1 / 20, "boneyard_size": 1 / 20, "round_index": 1 / 13, "scores": 1 / 100,
}  # fmt: skip
#: the same for Cuban (4 players, double-9: 184 floats)
CUBAN_4_9 = {"hand": 1.0, "line_length": 1 / 10, "hand_sizes": 1 / 10, "boneyard_size": 1 / 10,
             "round_index": 1 / 13, "scores": 1 / 100, "may_annul": 1.0}  # fmt: skip


def _by_field(game: str, players: int, max_pip: int) -> dict[str, set[float]]:
    from domino_env.agents.observation_scaling import spec_for

    scale, at, out = observation_scale(players, max_pip, game), 0, {}
    for f in spec_for(players, max_pip, game).fields:
        n = int(np.prod(f.shape))
        out[f.name] = {round(float(v), 7) for v in scale[at : at + n]}
        at += n
    assert at == len(scale)
    return out


@pytest.mark.parametrize("game, players, max_pip, want, size",
                         [("mexican_train", 4, 12, MT_4_12, 449), ("cuban", 4, 9, CUBAN_4_9, 184)])  # fmt: skip
def test_observation_scale_divides_each_field_by_its_unit_or_bound(game, players, max_pip, want, size):
    scale = observation_scale(players, max_pip, game)
    assert scale.dtype == np.float32 and scale.shape == (size,)
    fields = _by_field(game, players, max_pip)
    for name, value in want.items():
        assert fields[name] == {round(float(np.float32(value)), 7)}, name


def test_scaling_names():
    assert OBSERVATION_SCALING == "unit-v1" and LINE_OBSERVATION_SCALING == "line-unit-v1"
    assert scaling_name() == scaling_name("mexican_train") == "unit-v1"
    assert {scaling_name(g) for g in ("line", "block", "draw", "cuban")} == {"line-unit-v1"}


def test_spec_for_sizes_the_scores_bound_from_the_rules():
    """With the rules, the env's own spec (a larger scores bound for a long Cuban game changes the
    hash, not the layout); without, the default bound's."""
    from domino_env.agents.base import as_config
    from domino_env.agents.observation_scaling import spec_for
    from domino_env.envs.cuban_v0 import raw_env as cuban_env
    from domino_env.envs.mexican_train_v0 import raw_env as mt_env

    for env, game in ((cuban_env(target_score=10_000_000), "cuban"), (mt_env(num_players=4, max_pip=18), "mexican_train")):
        p, n = env.config.num_players, env.config.max_pip
        own = spec_for(p, n, game, env.config)
        assert own.hash() == env.encoder.spec.hash() != spec_for(p, n, game).hash()
        assert own.size == spec_for(p, n, game).size
    cfg = as_config({"preset": "cuban"})
    assert spec_for(4, 9, "line", cfg).hash() == cuban_env().encoder.spec.hash()


def test_policy_input_of_the_observation_only_is_the_scaled_observation():
    scale = np.array([0.5, 2.0, 1.0], dtype=np.float32)
    pi = PolicyInput(scale)
    assert pi.kind == FLAT_INPUT and pi.size == 3 and pi.features is None and not pi.wants_info_state
    np.testing.assert_array_equal(pi(np.array([4, 3, 7]), None), [2.0, 6.0, 7.0])
    with pytest.raises(CheckpointError, match=r"unknown policy input 'action-features-v9'"):
        PolicyInput(scale, "action-features-v9")


def test_policy_input_of_action_features_appends_the_rows():
    from domino_env.agents.action_features import action_features_for
    from domino_env.envs.mexican_train_v0 import raw_env

    env = raw_env(num_players=4, max_pip=12)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    x, mask = obs["observation"], obs["action_mask"]
    scale = observation_scale(4, 12)
    rows = action_features_for(env.config, "action-features-v2")(x, mask)
    for kind, v3 in (("action-features-v1", False), ("action-features-v2", False), ("action-features-v3", True)):
        pi = PolicyInput(scale, kind, env.config)
        assert pi.wants_info_state is v3
        assert pi.size == 449 + pi.features.size
    pi = PolicyInput(scale, "action-features-v2", env.config)
    got = pi(x, mask)
    assert got.shape == (pi.size,)
    np.testing.assert_array_equal(got[:449], x.astype(np.float32) * scale)
    np.testing.assert_array_equal(got[449:], rows.ravel())


class _Policy:
    """What NumpyActor reads of an SB3 ActorCriticPolicy."""

    def __init__(self, layers, head, extractor=None):
        import gymnasium as gym
        from stable_baselines3.common.torch_layers import FlattenExtractor

        self.features_extractor = extractor or FlattenExtractor(gym.spaces.Box(0, 1, (4,)))
        self.mlp_extractor = type("M", (), {"policy_net": nn.Sequential(*layers)})()
        self.action_net = head


def test_numpy_actor_gives_the_torch_networks_logits():
    torch.manual_seed(0)
    layers = [nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 5), nn.ReLU()]
    head = nn.Linear(5, 3)
    actor = NumpyActor(_Policy(layers, head))
    assert actor.num_actions == 3
    x = np.random.default_rng(0).normal(size=(7, 4)).astype(np.float32)
    with torch.no_grad():
        want = head(nn.Sequential(*layers)(torch.as_tensor(x))).numpy()
    got = actor.logits(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert (np.maximum(x @ actor.layers[0][1][0] + actor.layers[0][1][1], 0) != np.tanh(
        x @ actor.layers[0][1][0] + actor.layers[0][1][1])).any()  # (the activations differ here)
    np.testing.assert_allclose(actor.logits(x[2].tolist()), want[2], rtol=1e-5, atol=1e-6)


def test_numpy_actor_refuses_what_it_cannot_copy():
    with pytest.raises(ValueError, match="cannot copy policy layer Sigmoid"):
        NumpyActor(_Policy([nn.Linear(4, 4), nn.Sigmoid()], nn.Linear(4, 2)))
    with pytest.raises(ValueError, match="cannot copy features extractor Identity"):
        NumpyActor(_Policy([nn.Linear(4, 4)], nn.Linear(4, 2), extractor=nn.Identity()))


def _scorer_net(obs_size=5, num_actions=6, num_features=3):
    from domino_env.train.action_policy import ActionScoringNet

    torch.manual_seed(1)
    net = ActionScoringNet(obs_size, num_actions, num_features, context=4, hidden=(5, 3), vf_arch=(4,))
    with torch.no_grad():
        for param in net.parameters():
            param.normal_(0, 0.7)
    return net


def test_numpy_action_scorer_gives_the_torch_scorers_logits_on_the_legal_rows():
    from domino_env.train.action_policy import ILLEGAL_LOGIT

    net = _scorer_net()
    scorer = NumpyActionScorer(net.export_numpy())
    assert (scorer.obs_size, scorer.num_actions, scorer.num_features) == (5, 6, 3)
    rng = np.random.default_rng(2)
    obs = rng.normal(size=5).astype(np.float32)
    feats = rng.normal(size=(6, 3)).astype(np.float32)
    feats[:, 0] = [1, 0, 1, 1, 0, 1]  # column 0: legal
    x = np.concatenate([obs, feats.ravel()])
    with torch.no_grad():
        want = net.forward_actor(torch.as_tensor(x[None]))[0].numpy()
    got = scorer.logits(x)
    legal = feats[:, 0] != 0
    np.testing.assert_allclose(got[legal], want[legal], rtol=1e-5, atol=1e-5)
    assert (want[~legal] == ILLEGAL_LOGIT).all() and np.isneginf(got[~legal]).all()
    assert len(set(np.round(got[legal], 4))) == 4  # distinct scores: the rows are not mixed up
    np.testing.assert_array_equal(scorer.logits(x.tolist()), got)  # any array-like, as NumpyActor
    feats[:, 0] = 0  # no legal row: all zeros (a uniform choice, as masked)
    np.testing.assert_array_equal(scorer.logits(np.concatenate([obs, feats.ravel()])), np.zeros(6))
    with pytest.raises(ValueError, match="not an action-scores-v1 actor: 'mlp'"):
        NumpyActionScorer({**net.export_numpy(), "kind": "mlp"})


class _Fixed:
    """An actor with fixed logits (ignores its input)."""

    def __init__(self, logits):
        self.z = np.asarray(logits, dtype=np.float32)
        self.calls = 0

    @property
    def num_actions(self):
        return len(self.z)

    def logits(self, x):
        self.calls += 1
        return self.z


def _agent(logits, **kw):
    return PPOAgent(_Fixed(logits), np.ones(3, dtype=np.float32), **kw)


OBS = np.zeros(3, dtype=np.float32)


def test_the_agent_plays_the_best_legal_action_never_an_illegal_one():
    agent = _agent([5.0, 1.0, 3.0, 2.0, 9.0])
    assert agent.num_actions == 5 and not agent.wants_info_state
    assert agent(OBS, np.array([1, 1, 1, 1, 0]), None) == 0
    assert agent(OBS, np.array([0, 1, 1, 1, 1]), None) == 4
    assert agent(OBS, np.array([0, 1, 0, 1, 0]), None) == 3
    calls = agent.actor.calls
    assert agent(OBS, np.array([0, 0, 0, 1, 0]), None) == 3  # one legal action: no network
    assert agent.actor.calls == calls
    assert agent.scale.dtype == np.float32


def test_a_sampling_agent_draws_by_the_softmax_of_the_legal_logits():
    agent = _agent([np.log(3.0), 50.0, 0.0, 7.0], deterministic=False)
    rng = np.random.default_rng(0)
    picks = [agent(OBS, np.array([1, 0, 1, 0]), rng) for _ in range(4000)]
    assert set(picks) == {0, 2}
    assert abs(picks.count(0) / 4000 - 0.75) < 0.03
    big = _agent([1000.0, 1001.0, 0.0], deterministic=False)  # no overflow: shifted by the max
    picks = [big(OBS, np.array([1, 1, 0]), rng) for _ in range(2000)]
    assert abs(picks.count(1) / 2000 - 1 / (1 + np.exp(-1))) < 0.04


def test_rank_actions_puts_the_move_first_then_decreasing_logits_ties_to_the_lower():
    agent = _agent([2.0, 5.0, 2.0, 7.0, 9.0, 2.0])
    mask = np.array([1, 1, 1, 1, 0, 1])
    assert agent.rank_actions(OBS, mask, None) == [3, 1, 0, 2, 5]
    assert agent.rank_actions(OBS, np.array([0, 0, 1, 0, 0, 0]), None) == [2]
    sampler = _agent([0.0, 0.0, 30.0, 0.0], deterministic=False)
    assert sampler.rank_actions(OBS, np.array([1, 1, 1, 1]), np.random.default_rng(0)) == [2, 0, 1, 3]


def test_the_agent_refuses_an_observation_of_another_shape_and_keeps_its_settings():
    agent = _agent([1.0, 2.0], name="mine", metadata={"a": 1}, deterministic=0)
    assert agent.name == "mine" and agent.metadata == {"a": 1} and agent.deterministic is False
    assert _agent([1.0]).metadata == {} and _agent([1.0]).deterministic is True
    with pytest.raises(ConfigError, match=r"'observation'.*shape \(4,\).*shape \(3,\)"):
        agent(np.zeros(4), np.array([1, 1]), np.random.default_rng(0))
    with pytest.raises(ConfigError, match=r"'observation'"):
        agent.rank_actions(np.zeros((2, 3)), np.array([1, 1]), np.random.default_rng(0))
    clone = pickle.loads(pickle.dumps(agent))
    assert clone.name == "mine" and clone(OBS, np.array([1, 1]), np.random.default_rng(0)) in (0, 1)


def test_numpy_actor_logits_are_float32_whatever_the_input():
    torch.manual_seed(0)
    actor = NumpyActor(_Policy([nn.Linear(4, 3), nn.ReLU()], nn.Linear(3, 2)))
    assert actor.logits(np.ones(4, dtype=np.float64)).dtype == np.float32
    assert actor.logits([1, 2, 3, 4]).dtype == np.float32


def test_a_v3_agent_wants_the_information_state_and_reads_it():
    """The v3 rows carry a search over the seat's InformationState: the agent says it wants it,
    refuses to guess without it at a decision with a choice, and passes it to the rows."""
    from domino_env.agents.action_features import action_features_for
    from domino_env.core.belief import InformationState
    from domino_env.envs.mexican_train_v0 import raw_env

    env = raw_env(num_players=4, max_pip=12)
    env.reset(seed=3)
    while True:
        obs = env.observe(env.agent_selection)
        if obs["action_mask"].sum() >= 2:
            break
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    x, mask = obs["observation"], obs["action_mask"]
    info = InformationState.from_state(env.game_state, env.game_state.current_player)
    scale = observation_scale(4, 12)
    pi = PolicyInput(scale, "action-features-v3", env.config)
    want = action_features_for(env.config, "action-features-v3")(x, mask, info)
    np.testing.assert_array_equal(pi(x, mask, info)[449:], want.ravel())
    agent = PPOAgent(_Fixed(np.arange(len(mask), dtype=np.float32)), scale, policy_input="action-features-v3",
                     config=env.config)  # fmt: skip
    assert agent.wants_info_state is True
    with pytest.raises(ConfigError, match=r"'info_state'.*reads action-features-v3 rows"):
        agent(x, mask, np.random.default_rng(0))
    assert agent(x, mask, np.random.default_rng(0), info_state=info) == np.flatnonzero(mask)[-1]
    # its ranking takes the information state too (before, it could not pass one: the rows refused)
    with pytest.raises(ConfigError, match=r"'info_state'.*reads action-features-v3 rows"):
        agent.rank_actions(x, mask, None)
    assert agent.rank_actions(x, mask, None, info_state=info) == np.flatnonzero(mask)[::-1].tolist()
    one = np.zeros_like(mask)
    one[np.flatnonzero(mask)[0]] = 1
    assert agent.rank_actions(x, one, None) == [int(np.flatnonzero(mask)[0])]  # no choice: nothing to read
    # called as an agent it refuses a missing info_state with one legal move too (as search does:
    # the caller's wiring shows on its first call, not at its first real choice)
    with pytest.raises(ConfigError, match=r"'info_state'.*reads action-features-v3 rows"):
        agent(x, one, np.random.default_rng(0))
    assert agent(x, one, np.random.default_rng(0), info_state=info) == int(np.flatnonzero(mask)[0])
    v2 = PPOAgent(_Fixed(np.arange(len(mask), dtype=np.float32)), scale, policy_input="action-features-v2",
                  config=env.config)  # fmt: skip
    assert v2.wants_info_state is False and v2(x, mask, np.random.default_rng(0)) == np.flatnonzero(mask)[-1]


def test_line_game_action_features_read_no_information_state():
    from domino_env.agents.action_features import action_features_for
    from domino_env.envs.cuban_v0 import raw_env

    env = raw_env()
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    pi = PolicyInput(observation_scale(4, 9, "cuban"), "action-features-v1", env.config)
    assert pi.wants_info_state is False and pi.size == 184 + pi.features.size
    rows = action_features_for(env.config, "action-features-v1")(obs["observation"], obs["action_mask"])
    np.testing.assert_array_equal(pi(obs["observation"], obs["action_mask"])[184:], rows.ravel())


def test_rank_actions_of_two_legal_actions_and_of_one_without_a_generator():
    agent = _agent([2.0, 5.0, 9.0])
    assert agent.rank_actions(OBS, np.array([1, 1, 0]), None) == [1, 0]
    sampler = _agent([2.0, 5.0, 9.0], deterministic=False)
    assert sampler.rank_actions(OBS, np.array([0, 1, 0]), None) == [1]  # one legal action: no draw
    assert sampler(OBS, np.array([0, 0, 1]), None) == 2


def test_from_policy_sizes_the_feature_rows_from_the_seats_and_set_given():
    """An action-scores policy snapshot without ``config``: the rows are those of the default rules
    at the given seats and set (3 players, double-9 here, not the package's 4 and 12)."""
    from types import SimpleNamespace

    from domino_env.agents.action_features import action_features_for, feature_columns
    from domino_env.agents.base import as_config
    from domino_env.train.action_policy import ActionScoringNet

    rows = action_features_for(as_config({"num_players": 3, "max_pip": 9}), "action-features-v1")
    obs_size = len(observation_scale(3, 9))
    net = ActionScoringNet(obs_size, rows.num_actions, len(feature_columns("mexican_train", "action-features-v1")),
                           context=4, hidden=(4, 4), vf_arch=(4,))  # fmt: skip
    agent = PPOAgent.from_policy(SimpleNamespace(mlp_extractor=net), 3, 9)
    assert agent.policy_input.kind == "action-features-v1" and agent.num_actions == rows.num_actions
    assert agent.policy_input.features.num_actions == rows.num_actions
    assert agent.policy_input.size == obs_size + rows.num_actions * rows.num_features
