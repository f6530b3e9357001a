"""``domino_env.train.bc_fit`` behaviour no other test pinned (found by mutation testing): the exact
losses :func:`fit` logs (batches weighted by their size, the value term, the KL anchor), its
held-out numbers, the refusal of an all-held-out dataset, the stop, and
:func:`on_policy_agreement`'s share.

The policy is a tiny MaskablePPO one; ``learning_rate=0`` leaves it unchanged, so every logged
number can be recomputed here from the same batches."""

import copy

import numpy as np
import pytest
import torch
from bc_helpers import SMALL_ENV

from domino_env.core.errors import DominoError
from domino_env.train.bc_data import held_out
from domino_env.train.bc_fit import _kl_to, fit, on_policy_agreement
from domino_env.train.learner_env import LearnerEnv


@pytest.fixture(scope="module")
def env():
    return LearnerEnv(**SMALL_ENV)


def _policy(seed, spread=False):
    """A fresh mlp policy; ``spread``: its action logits drawn wide (SB3 starts them near uniform)."""
    from argparse import Namespace

    from stable_baselines3.common.vec_env import DummyVecEnv

    from domino_env.train.learner_env import make_env_fn
    from domino_env.train.start_model import new_model

    args = Namespace(activation="tanh", learning_rate=0.001, net_arch=[8], policy="mlp", n_steps=16, batch_size=8,
                     n_epochs=1, gamma=0.9, gae_lambda=0.9, clip_range=0.2, ent_coef=0.0, vf_coef=0.5,
                     max_grad_norm=0.5, target_kl=None, seed=seed)  # fmt: skip
    torch.manual_seed(seed)
    policy = new_model(args, DummyVecEnv([make_env_fn(SMALL_ENV)])).policy
    if spread:
        with torch.no_grad():
            policy.action_net.weight.normal_(0.0, 1.0)
    return policy


@pytest.fixture(scope="module")
def data(env):
    from domino_env.agents import make_agent
    from domino_env.train.bc_data import collect

    return collect(env, make_agent("greedy", SMALL_ENV["env_kwargs"]), 40, seed=2, gamma=0.9)


def _batch(env, data, idx):
    n = int(env.action_space.n)
    obs = torch.as_tensor(data["observations"][idx].astype(np.float32) * env.scale, dtype=torch.float32)
    masks = torch.as_tensor(np.unpackbits(data["masks"][idx], axis=1, count=n).astype(bool))
    return obs, masks, torch.as_tensor(data["actions"][idx].astype(np.int64)), torch.as_tensor(data["returns"][idx])


def _losses(policy, env, data, idx, vf_coef, anchor=None, kl_coef=0.0):
    """(loss, value loss) of one batch as fit computes them."""
    obs, masks, acts, rets = _batch(env, data, idx)
    with torch.no_grad():
        values, log_prob, _ = policy.evaluate_actions(obs, acts, masks)
        value_loss = torch.nn.functional.mse_loss(values.flatten(), rets)
        loss = -log_prob.mean() + vf_coef * value_loss
        if anchor is not None:
            loss = loss + kl_coef * _kl_to(anchor, policy, obs, masks)
    return loss.item(), value_loss.item()


def _fit(policy, env, data, **kw):
    args = {"epochs": 2, "batch_size": 16, "learning_rate": 0.0, "vf_coef": 0.5, "val_fraction": 0.3, "seed": 4, **kw}
    return fit(policy, data, env.scale, int(env.action_space.n), **args)


def test_the_logged_losses_are_the_batches_losses_weighted_by_their_size(env, data):
    policy = _policy(1)
    log = []
    out = _fit(policy, env, data, log=log)
    assert out is log and [e["epoch"] for e in log] == [1, 2]
    is_val = held_out(data["episodes"], 0.3)
    train_idx, val_idx = np.flatnonzero(~is_val), np.flatnonzero(is_val)
    assert 0 < len(val_idx) and len(train_idx) % 16  # a last, smaller batch
    rng = np.random.default_rng([4, 13])
    for entry in log:
        order = rng.permutation(train_idx)
        parts = [(order[i : i + 16], _losses(policy, env, data, order[i : i + 16], 0.5)) for i in range(0, len(order), 16)]
        loss = sum(v[0] * len(b) for b, v in parts) / len(order)
        value = sum(v[1] * len(b) for b, v in parts) / len(order)
        assert entry["train_loss"] == pytest.approx(loss, rel=1e-5)
        assert entry["train_value_loss"] == pytest.approx(value, rel=1e-5)
        assert entry["samples"] == len(train_idx) and entry["val_samples"] == len(val_idx)
        assert entry["phase"] == "cloning"
    obs, masks, acts, _ = _batch(env, data, val_idx)
    with torch.no_grad():
        dist = policy.get_distribution(obs, action_masks=masks)
        val_loss = float(-dist.log_prob(acts).sum()) / len(val_idx)
        agree = float((dist.distribution.probs.argmax(dim=1) == acts).sum()) / len(val_idx)
    assert log[-1]["val_loss"] == pytest.approx(val_loss, rel=1e-5) and log[-1]["val_agreement"] == agree
    assert not policy.training  # left in eval mode


def test_the_value_coefficient_weighs_the_value_loss(env, data):
    a, b = _fit(_policy(1), env, data, vf_coef=0.0, epochs=1), _fit(_policy(1), env, data, vf_coef=2.0, epochs=1)
    assert b[0]["train_value_loss"] == pytest.approx(a[0]["train_value_loss"])
    assert b[0]["train_loss"] - a[0]["train_loss"] == pytest.approx(2.0 * a[0]["train_value_loss"], rel=1e-4)


def test_the_kl_anchor_adds_its_weighted_divergence(env, data):
    policy, anchor = _policy(1, spread=True), _policy(2, spread=True).eval()
    plain = _fit(policy, env, data, epochs=1)[0]["train_loss"]
    anchored = _fit(policy, env, data, epochs=1, anchor=anchor, kl_coef=3.0)[0]["train_loss"]
    off = _fit(policy, env, data, epochs=1, anchor=anchor, kl_coef=0.0)[0]["train_loss"]
    is_val = held_out(data["episodes"], 0.3)
    order = np.random.default_rng([4, 13]).permutation(np.flatnonzero(~is_val))
    kl = 0.0
    for i in range(0, len(order), 16):
        obs, masks, _, _ = _batch(env, data, order[i : i + 16])
        with torch.no_grad():
            kl += _kl_to(anchor, policy, obs, masks).item() * len(order[i : i + 16])
    unweighted = _fit(policy, env, data, epochs=1, anchor=anchor)[0]["train_loss"]  # kl_coef 0 unless given
    assert off == plain == unweighted and kl > 0
    assert anchored == pytest.approx(plain + 3.0 * kl / len(order), rel=1e-5)


def test_kl_to_is_the_divergence_over_the_legal_actions(env, data):
    policy, anchor = _policy(1, spread=True), _policy(2, spread=True)
    obs, masks, _, _ = _batch(env, data, np.arange(6))
    with torch.no_grad():
        p0 = anchor.get_distribution(obs, action_masks=masks).distribution.probs
        p = policy.get_distribution(obs, action_masks=masks).distribution.probs
        want = [sum(float(p0[r, a] * (torch.log(p0[r, a]) - torch.log(p[r, a]))) for a in np.flatnonzero(masks[r]))
                for r in range(6)]  # fmt: skip
        assert np.mean(want) > 0.1
        assert _kl_to(anchor, policy, obs, masks).item() == pytest.approx(np.mean(want), rel=1e-4)
        assert _kl_to(policy, policy, obs, masks).item() == pytest.approx(0.0, abs=1e-6)


def test_without_a_held_out_split_no_validation_is_logged(env, data):
    log = _fit(_policy(1), env, data, val_fraction=0.0, epochs=1)
    assert sorted(log[0]) == ["epoch", "phase", "samples", "train_loss", "train_value_loss"]
    assert log[0]["samples"] == len(data["actions"])


def test_a_dataset_all_held_out_is_refused(env, data):
    with pytest.raises(DominoError) as err:
        _fit(_policy(1), env, data, val_fraction=1.0)
    episodes = len(np.unique(data["episodes"]))
    assert str(err.value) == (f"nothing to clone: the {episodes} episode(s) of the {len(data['actions'])} decisions "
                              "are all held out to measure the agreement (--val-fraction 1); collect more (--samples, "
                              "--dagger-samples) or give --val-fraction 0")  # fmt: skip


def test_a_stop_ends_the_fit_before_the_next_batch(env, data):
    class Stop:
        received = None

    stop, policy = Stop(), _policy(1)
    before = copy.deepcopy(policy.state_dict())
    stop.received = "SIGINT"
    assert _fit(policy, env, data, stop=stop, learning_rate=0.1) == []
    assert all(torch.equal(before[k], v) for k, v in policy.state_dict().items()) and not policy.training


def test_the_fit_trains_with_the_learning_rate(env, data):
    policy = _policy(1)
    before = copy.deepcopy(policy.state_dict())
    log = _fit(policy, env, data, learning_rate=0.01, epochs=3)
    assert not all(torch.equal(before[k], v) for k, v in policy.state_dict().items())
    assert log[-1]["train_loss"] < log[0]["train_loss"]


def test_a_policy_input_builds_the_network_input_of_each_row(env, data):
    seen = []

    def policy_input(obs, mask):
        seen.append((obs.dtype, mask.dtype, mask.shape))
        return (obs * env.scale).astype(np.float32)

    a = _fit(_policy(1), env, data, epochs=1)
    b = _fit(_policy(1), env, data, epochs=1, policy_input=policy_input)
    assert a[0]["train_loss"] == pytest.approx(b[0]["train_loss"], rel=1e-6)
    assert a[0]["val_loss"] == pytest.approx(b[0]["val_loss"], rel=1e-6)
    assert set(seen) == {(np.dtype(np.float32), np.dtype(bool), (int(env.action_space.n),))}


def test_the_progress_bar_counts_the_batches(env, data, capsys):
    _fit(_policy(1), env, data, epochs=3, progress=True, desc="probe")
    n_train = int(np.count_nonzero(~held_out(data["episodes"], 0.3)))
    steps = 3 * -(-n_train // 16)
    last = capsys.readouterr().err.rsplit("\r", 1)[1]
    assert last.startswith(f"probe: 100%|██████████| {steps}/{steps} ") and "agree=" in last


def test_on_policy_agreement_is_the_share_of_the_first_decisions_played_as_labelled(env, data):
    n = int(env.action_space.n)
    labels = data["actions"].astype(int)
    picks = iter(np.where(np.arange(len(labels)) % 3 == 0, labels, -1).tolist())
    assert on_policy_agreement(lambda o, m, r: next(picks), data, n) == round(
        float(np.mean(np.arange(len(labels)) % 3 == 0)), 4)
    calls = []

    def clone(obs, mask, rng):
        calls.append(mask.dtype == bool and mask.shape == (n,) and mask[labels[len(calls)]])
        return labels[len(calls) - 1] if len(calls) <= 2 else -1

    assert on_policy_agreement(clone, data, n, limit=5) == 0.4 and calls == [True] * 5


def test_each_batch_is_one_clipped_adam_step_on_fresh_gradients(env, data):
    """The weights after one epoch are those of the loop written out here: gradients zeroed
    before each batch, their norm clipped to 1, one Adam step."""
    policy, mine = _policy(1, spread=True), _policy(1, spread=True)
    _fit(policy, env, data, epochs=1, learning_rate=0.05, batch_size=8, vf_coef=0.5)
    is_val = held_out(data["episodes"], 0.3)
    order = np.random.default_rng([4, 13]).permutation(np.flatnonzero(~is_val))
    optimizer = torch.optim.Adam(mine.parameters(), lr=0.05)
    mine.train()
    for i in range(0, len(order), 8):
        obs, masks, acts, rets = _batch(env, data, order[i : i + 8])
        values, log_prob, _ = mine.evaluate_actions(obs, acts, masks)
        loss = -log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values.flatten(), rets)
        optimizer.zero_grad()
        loss.backward()
        assert torch.nn.utils.clip_grad_norm_(mine.parameters(), 1.0) > 1.0  # the clip matters here
        optimizer.step()
    want = mine.state_dict()
    assert all(torch.allclose(v, want[k], atol=1e-6) for k, v in policy.state_dict().items())


def test_on_policy_agreement_reads_the_first_2000_decisions_unless_told():
    more = {"observations": np.zeros((2003, 3), dtype=np.int16), "masks": np.full((2003, 1), 255, dtype=np.uint8),
            "actions": np.zeros(2003, dtype=np.int16)}  # fmt: skip
    calls = []
    assert on_policy_agreement(lambda o, m, r: calls.append(1) or 0, more, 8) == 1.0 and len(calls) == 2000


def test_the_batches_are_fitted_in_train_mode_and_validated_in_eval_mode(env, data):
    policy = _policy(1)
    modes = []
    evaluate, distribution = policy.evaluate_actions, policy.get_distribution
    policy.evaluate_actions = lambda *a, **k: (modes.append(("fit", policy.training)), evaluate(*a, **k))[1]
    policy.get_distribution = lambda *a, **k: (modes.append(("val", policy.training)), distribution(*a, **k))[1]
    _fit(policy, env, data, epochs=2)
    n_train = int(np.count_nonzero(~held_out(data["episodes"], 0.3)))
    epoch = [("fit", True)] * -(-n_train // 16) + [("val", False)]  # (dropout or batch norm would differ)
    assert modes == epoch * 2


def test_the_held_out_decisions_are_all_read_in_chunks_of_4_batches(env, data):
    policy = _policy(1, spread=True)
    log = _fit(policy, env, data, epochs=1, batch_size=2)
    val_idx = np.flatnonzero(held_out(data["episodes"], 0.3))
    assert len(val_idx) > 8  # two chunks of 4 x 2 at least
    obs, masks, acts, _ = _batch(env, data, val_idx)
    with torch.no_grad():
        dist = policy.get_distribution(obs, action_masks=masks)
        val_loss = float(-dist.log_prob(acts).sum()) / len(val_idx)
        agree = float((dist.distribution.probs.argmax(dim=1) == acts).sum()) / len(val_idx)
    assert log[0]["val_loss"] == pytest.approx(val_loss, rel=1e-5) and log[0]["val_agreement"] == agree
    assert 0 < agree < 1 and log[0]["val_samples"] == len(val_idx)


def _rows(data, idx):
    return {k: v[idx] for k, v in data.items()}


def test_one_training_decision_is_one_batch_a_loss_of_its_own(env, data, capsys):
    one = _rows(data, [0])
    log = _fit(_policy(1), env, one, val_fraction=0.0, epochs=2, progress=True, desc="probe")
    assert capsys.readouterr().err.rsplit("\r", 1)[1].startswith("probe: 100%|██████████| 2/2 ")
    loss, value = _losses(_policy(1), env, one, [0], 0.5)
    assert log[0]["train_loss"] == pytest.approx(loss, rel=1e-5) and log[0]["samples"] == 1
    assert log[0]["train_value_loss"] == pytest.approx(value, rel=1e-5)


def test_a_fit_on_no_decisions_logs_zero_losses_and_one_step_an_epoch(env, data, capsys):
    log = _fit(_policy(1), env, _rows(data, []), val_fraction=0.0, epochs=2, progress=True, desc="probe")
    assert log == [{"phase": "probe", "epoch": e, "train_loss": 0.0, "train_value_loss": 0.0, "samples": 0}
                   for e in (1, 2)]  # fmt: skip
    assert capsys.readouterr().err.rsplit("\r", 1)[1].startswith("probe:   0%|          | 0/2 ")


def test_a_kl_coefficient_without_an_anchor_adds_nothing(env, data):
    plain = _fit(_policy(1), env, data, epochs=1)[0]["train_loss"]
    assert _fit(_policy(1), env, data, epochs=1, kl_coef=3.0)[0]["train_loss"] == plain


def test_a_kl_coefficient_below_1_weighs_the_divergence_too(env, data):
    policy, anchor = _policy(1, spread=True), _policy(2, spread=True).eval()
    plain = _fit(policy, env, data, epochs=1)[0]["train_loss"]
    half = _fit(policy, env, data, epochs=1, anchor=anchor, kl_coef=0.5)[0]["train_loss"]
    whole = _fit(policy, env, data, epochs=1, anchor=anchor, kl_coef=1.0)[0]["train_loss"]
    assert half > plain and whole - plain == pytest.approx(2 * (half - plain), rel=1e-5)
