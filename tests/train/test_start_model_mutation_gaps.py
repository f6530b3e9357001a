"""``domino_env.train.start_model`` behaviour no other test pinned (found by mutation testing):
the options :func:`resolve_policy` fills from a start model (or the defaults), what
:func:`_network_of_model` reads from a model's own ``policy_kwargs``, the precedence of
:func:`trained_options`, :func:`continued_seed`'s formula, :func:`setup_changes`' exact lines, the
networks :func:`new_model` builds, and what :func:`load_start_model` keeps from a ``--resume``d
model and records as its start.

Models are tiny ones made here (``--net-arch 8``); start-model metadata is hand-built."""

import argparse
import json
import zipfile
from types import SimpleNamespace

import numpy as np
import pytest
from bc_helpers import SMALL_ENV

from domino_env.train import start_model
from domino_env.train.start_model import (
    _network_of_model,
    continued_seed,
    load_start_model,
    new_model,
    policy_input_of,
    resolve_policy,
    setup_changes,
    trained_options,
)


def _zip(path, data):
    """A stand-in for SB3's model zip: only its ``data`` member (JSON text, or raw bytes)."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", data if isinstance(data, (str, bytes)) else json.dumps(data))
    return path


@pytest.mark.parametrize(
    "kwargs, network",
    [
        ({"net_arch": {"pi": [64, 32], "vf": [8]}, "activation_fn": "<class 'torch.nn.modules.activation.ReLU'>"},
         {"net_arch": [64, 32], "activation": "relu"}),
        ({"net_arch": [16], "activation_fn": "<class 'torch.nn.modules.activation.Tanh'>"},
         {"net_arch": [16], "activation": "tanh"}),
        ({"vf_arch": [12, 12], "obs_size": 5}, {"net_arch": [12, 12]}),  # an action-scores model: no activation
        ({"net_arch": [], "activation_fn": "<class 'torch.nn.modules.activation.ELU'>"}, {}),
        ({"net_arch": [16, "x"]}, {}),
        ({"net_arch": {"vf": [8]}}, {}),
        ({}, {}),
    ],
    ids=["mlp-dict-relu", "mlp-list-tanh", "action-scores", "empty-elu", "not-ints", "no-pi", "none"],
)  # fmt: skip
def test_the_network_is_read_from_the_models_own_policy_kwargs(tmp_path, kwargs, network):
    assert _network_of_model(_zip(tmp_path / "m.zip", {"policy_kwargs": kwargs})) == network


@pytest.mark.parametrize(
    "data",
    [{"policy_kwargs": [1, 2]}, {"policy_kwargs": "x"}, {}, "{not json", ["policy_kwargs"]],
    ids=["kwargs-list", "kwargs-text", "no-kwargs", "not-json", "data-list"],
)
def test_a_model_that_does_not_say_its_network_gives_nothing(tmp_path, data):
    assert _network_of_model(_zip(tmp_path / "m.zip", data)) == {}


def test_a_zip_without_data_or_no_zip_gives_nothing(tmp_path):
    with zipfile.ZipFile(tmp_path / "empty.zip", "w") as z:
        z.writestr("other", "x")
    assert _network_of_model(tmp_path / "empty.zip") == {}
    (tmp_path / "text.zip").write_text("not a zip")
    assert _network_of_model(tmp_path / "text.zip") == {}


def test_the_metadatas_args_win_over_the_feature_rows_and_the_file(tmp_path):
    model = _zip(tmp_path / "m.zip", {"policy_kwargs": {"vf_arch": [12]}})
    assert trained_options(model, {"policy_input": "action-features-v2"}) == {"net_arch": [12], "action_features": "v2"}
    assert trained_options(model, {"policy_input": "observation"}) == {"net_arch": [12]}
    meta = {"policy_input": "action-features-v3", "args": {"net_arch": [7], "action_features": "v1", "seed": 3}}
    assert trained_options(model, meta) == {"net_arch": [7], "action_features": "v1", "seed": 3}


def _args(**kw):
    return argparse.Namespace(**{"policy": None, "resume": None, "init_from": None, "net_arch": None,
                                 "activation": None, "critic_input": None, **kw})  # fmt: skip


def test_without_a_start_model_the_defaults_are_filled():
    args = _args()
    resolve_policy(args)
    assert vars(args) == {**vars(_args()), "policy": "action-scores", "net_arch": [256, 256], "activation": "tanh",
                          "critic_input": "observation", "action_features": "v1"}  # fmt: skip
    args = _args(policy="mlp", net_arch=[8], activation="relu", critic_input="full-state")
    resolve_policy(args, default_policy="action-scores")
    assert vars(args) == vars(_args(policy="mlp", net_arch=[8], activation="relu", critic_input="full-state"))
    args = argparse.Namespace(policy=None, action_features="v2")  # domino-bc: no critic option
    resolve_policy(args, default_policy="action-scores")
    assert vars(args) == {"policy": "action-scores", "action_features": "v2", "net_arch": [256, 256],
                          "activation": "tanh"}  # fmt: skip
    args = _args()
    resolve_policy(args, default_policy="mlp")
    assert args.policy == "mlp" and not hasattr(args, "action_features")


def test_the_start_models_options_fill_what_the_command_leaves_out(tmp_path, monkeypatch):
    model = _zip(tmp_path / "m.zip", {"policy_kwargs": {"net_arch": [24], "activation_fn": "x.ReLU'>"}})
    read = []

    def metadata(path):
        read.append(path)
        return model, {"policy_input": "action-features-v2",
                       "args": {"policy": "action-scores", "critic_input": "full-state"}}  # fmt: skip

    monkeypatch.setattr(start_model, "read_metadata", metadata)
    args = _args(init_from="old/run")
    resolve_policy(args, default_policy="mlp")
    assert (args.policy, args.net_arch, args.activation, args.critic_input, args.action_features) == (
        "action-scores", [24], "relu", "full-state", "v2")
    args = _args(resume="resumed/run", init_from="old/run", net_arch=[8])  # --resume first; the command's own kept
    resolve_policy(args)
    assert read == ["old/run", "resumed/run"] and args.net_arch == [8]


def test_a_start_model_from_before_the_policy_option_is_an_mlp(tmp_path, monkeypatch):
    model = _zip(tmp_path / "m.zip", {"policy_kwargs": {}})
    monkeypatch.setattr(start_model, "read_metadata", lambda path: (model, {"args": {"seed": 1}}))
    args = _args(resume="old")
    resolve_policy(args)
    assert (args.policy, args.net_arch, args.activation, args.critic_input) == ("mlp", [256, 256], "tanh", "observation")
    assert not hasattr(args, "action_features")


@pytest.mark.parametrize("error", [OSError("gone"), ValueError("corrupt")])
def test_an_unreadable_start_model_leaves_the_defaults(monkeypatch, error):
    def metadata(path):
        raise error

    monkeypatch.setattr(start_model, "read_metadata", metadata)
    args = _args(resume="old")
    resolve_policy(args, default_policy="action-scores")
    assert (args.policy, args.net_arch, args.action_features) == ("action-scores", [256, 256], "v1")


def test_policy_input_of_names_the_rows_an_action_scores_policy_reads():
    assert policy_input_of("mlp") == "observation" and policy_input_of("mlp", "v3") == "observation"
    assert policy_input_of("action-scores") == "action-features-v1"
    assert policy_input_of("action-scores", "v3") == "action-features-v3"


def test_a_resumed_seed_is_drawn_from_the_seed_and_the_models_steps():
    assert continued_seed(9, 0) == 9 and continued_seed(9, -5) == 9
    drawn = int(np.random.SeedSequence([9, 1]).generate_state(1)[0]) % 2**31
    assert continued_seed(9, 1) == drawn and 0 <= drawn < 2**31
    assert continued_seed(9, 2) != continued_seed(9, 1) != continued_seed(8, 1)
    assert max(continued_seed(s, 64) for s in range(200)) >= 2**30  # the whole range below 2**31


def test_setup_changes_names_each_option_set_otherwise_than_the_models_run():
    args = argparse.Namespace(partner="learner", opponents=["greedy", "random"], opponent_mode="mix", reward="mixed",
                              pips_coef=0.5, self_play=0.0, reward_baseline=None)  # fmt: skip
    run = {"partner": "scripted", "opponents": ["greedy"], "opponent_mode": "mix", "reward": "mixed",
           "pips_coef": 1.0, "self_play": 0.0, "reward_baseline": "mean", "seed": 4}  # fmt: skip
    assert setup_changes(args, run) == [
        "--partner learner (the model's run: --partner scripted)",
        "--opponents greedy random (the model's run: --opponents greedy)",
        "--pips-coef 0.5 (the model's run: --pips-coef 1.0)",
        "--reward-baseline none (the model's run: --reward-baseline mean)",
    ]
    assert setup_changes(args, {k: v for k, v in vars(args).items()}) == []
    assert setup_changes(args, {"seed": 5}) == []  # options the model's run did not record: no change said
    assert setup_changes(argparse.Namespace(), run) == []  # options this command lacks (domino-bc)


# ------------------------------------------------------------------------------- new_model / load
def _ppo_args(**kw):
    return argparse.Namespace(**{
        "activation": "tanh", "learning_rate": 0.001, "lr_schedule": "constant", "net_arch": [8], "policy": "mlp",
        "game": "mexican_train", "action_features": "v1", "n_steps": 32, "batch_size": 16, "n_epochs": 2,
        "gamma": 0.9, "gae_lambda": 0.8, "clip_range": 0.3, "ent_coef": 0.01, "vf_coef": 0.4, "max_grad_norm": 0.7,
        "target_kl": None, "seed": 3, "device": "cpu", "resume": None, "init_from": None, "quiet": False, **kw})  # fmt: skip


def _vec_env(**cfg):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from domino_env.train.learner_env import make_env_fn

    return DummyVecEnv([make_env_fn({**SMALL_ENV, **cfg})])


def test_a_new_mlp_model_has_the_commands_network_and_settings(capsys):
    import torch

    model = new_model(_ppo_args(activation="relu", net_arch=[8, 4]), _vec_env())
    assert capsys.readouterr().out == ""  # not verbose: SB3 says nothing ("Using cpu device", rollout tables)
    assert model.verbose == 0
    assert model.policy_kwargs == {"net_arch": {"pi": [8, 4], "vf": [8, 4]}, "activation_fn": torch.nn.ReLU}
    assert (model.n_steps, model.batch_size, model.n_epochs, model.gamma, model.gae_lambda, model.ent_coef,
            model.vf_coef, model.max_grad_norm, model.seed) == (32, 16, 2, 0.9, 0.8, 0.01, 0.4, 0.7, 3)  # fmt: skip
    assert model.learning_rate == 0.001 and model.clip_range(0.5) == 0.3
    linear = new_model(_ppo_args(lr_schedule="linear"), _vec_env())
    assert linear.learning_rate(0.5) == pytest.approx(0.0005) and linear.learning_rate(1.0) == pytest.approx(0.001)


def test_a_new_action_scores_model_takes_the_observation_size_without_the_rows():
    from domino_env.agents.action_features import feature_columns
    from domino_env.train.learner_env import LearnerEnv

    cfg = {"policy_input": "action-features-v2"}
    model = new_model(_ppo_args(policy="action-scores", action_features="v2", net_arch=[6]), _vec_env(**cfg))
    n_feat = len(feature_columns("mexican_train", "action-features-v2"))
    raw = LearnerEnv(**{**SMALL_ENV, "policy_input": "observation"}).observation_space.shape[0]
    assert model.policy_kwargs == {"obs_size": raw, "num_features": n_feat, "vf_arch": [6]}
    cfg["critic_input"] = "full-state"
    vec = _vec_env(**cfg)
    extra = int(vec.get_attr("critic_extra")[0])
    model = new_model(_ppo_args(policy="action-scores", action_features="v2", net_arch=[6]), vec)
    assert extra > 0 and model.policy_kwargs == {"obs_size": raw, "num_features": n_feat, "vf_arch": [6],
                                                 "critic_extra": extra}  # fmt: skip


class Refused(Exception):
    pass


class Parser:
    def error(self, message):
        raise Refused(message)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A tiny mlp model trained for no steps, saved with n_steps 32 and gamma 0.9."""
    path = tmp_path_factory.mktemp("start") / "model.zip"
    model = new_model(_ppo_args(), _vec_env())
    model.num_timesteps = 96
    model.save(path)
    return path


def _checked(path, meta=None):
    return SimpleNamespace(start_model=path, start_metadata=meta)


def test_a_resume_keeps_the_models_settings_and_says_which(saved, capsys):
    args = _ppo_args(resume=str(saved.parent), n_steps=64, gamma=0.9, batch_size=16, learning_rate=0.002,
                     clip_range=0.3, quiet=True)  # fmt: skip
    meta = {"args": {"learning_rate": 0.001, "clip_range": 0.3, "partner": "scripted"}, "command": "domino-train x",
            "status": "finished", "resumed_from": {"path": "a"}, "initialized_from": None}  # fmt: skip
    model, started = load_start_model(Parser(), args, _checked(saved, meta), _vec_env(), None)
    assert (args.n_steps, args.learning_rate) == (32, 0.001) and model.n_steps == 32
    assert capsys.readouterr().err == ("--resume keeps the model's --n-steps 32 (instead of this command's 64, given or "
                                       "default), --learning-rate 0.001 (instead of this command's 0.002, given or "
                                       "default)\n")  # fmt: skip
    assert started == {"flag": "--resume", "path": str(saved), "timesteps": 96, "command": "domino-train x",
                       "status": "finished", "resumed_from": {"path": "a"}}  # fmt: skip


def test_a_resume_prefers_the_ppo_settings_of_a_bc_run_and_names_setup_changes(saved, capsys):
    args = _ppo_args(resume=str(saved.parent), learning_rate=0.001, partner="learner")
    meta = {"args": {"learning_rate": 0.5, "partner": "scripted"}, "ppo_hyperparameters": {"learning_rate": 0.001}}
    load_start_model(Parser(), args, _checked(saved, meta), _vec_env(), None)
    assert args.learning_rate == 0.001
    assert capsys.readouterr().err == ("--resume trains with this command's --partner learner (the model's run: "
                                       "--partner scripted)\n")
    load_start_model(Parser(), _ppo_args(resume="x", partner="learner", quiet=True), _checked(saved, meta), _vec_env(),
                     None)  # fmt: skip
    assert capsys.readouterr().err == ""  # --quiet: the setup changes are not said


def test_an_init_from_copies_the_weights_and_records_the_models_steps(saved, capsys):
    import torch

    args = _ppo_args(init_from=str(saved.parent), n_steps=64, seed=5)
    meta = {"command": "domino-bc y", "status": "interrupted", "resumed_from": {"path": "a"},
            "initialized_from": {"path": "b"}}  # fmt: skip
    model, started = load_start_model(Parser(), args, _checked(saved, meta), _vec_env(), None)
    assert model.n_steps == 64 and args.n_steps == 64 and capsys.readouterr().err == ""
    from sb3_contrib import MaskablePPO

    source = MaskablePPO.load(saved, device="cpu").policy.state_dict()
    assert all(torch.equal(source[k], v) for k, v in model.policy.state_dict().items())
    assert started == {"flag": "--init-from", "path": str(saved), "timesteps": 96, "command": "domino-bc y",
                       "status": "interrupted"}  # fmt: skip


def test_a_fresh_model_has_no_start(capsys):
    model, started = load_start_model(Parser(), _ppo_args(), _checked(None), _vec_env(), None)
    assert started is None and model.num_timesteps == 0 and capsys.readouterr().err == ""


def test_a_start_model_that_does_not_load_is_a_parser_error_naming_the_flag(tmp_path):
    bad = tmp_path / "model.zip"
    bad.write_text("not a zip")
    vec = _vec_env()
    with pytest.raises(Refused) as err:
        load_start_model(Parser(), _ppo_args(init_from="runs/x"), _checked(bad), vec, None)
    assert str(err.value).startswith(f"--init-from runs/x: cannot load {bad}: ")
    with pytest.raises(Refused) as err:
        load_start_model(Parser(), _ppo_args(resume="runs/y"), _checked(bad), _vec_env(), None)
    assert str(err.value).startswith(f"--resume runs/y: cannot load {bad}: ")
    with pytest.raises(KeyError):  # a fresh model's own failure is not a start model's: raised as it is
        load_start_model(Parser(), _ppo_args(activation="elu"), _checked(None), _vec_env(), None)
