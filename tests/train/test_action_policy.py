"""``domino-train --policy action-scores`` (issue 8): the shared per-action scorer trains, saves,
loads through ``ppo:PATH`` and plays without torch with the same logits as the torch policy."""

from __future__ import annotations

import importlib.util
import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from domino_env.agents import make_agent
from domino_env.agents.action_features import (
    ACTION_FEATURES_V1,
    ACTION_FEATURES_VERSION,
    END_FEATURES,
    FEATURES,
)
from domino_env.agents.ppo import SpecMismatchError, load_ppo_agent
from domino_env.envs.mexican_train_v0 import raw_env
from domino_env.train.evaluate import evaluate
from domino_env.train.learner_env import LearnerEnv
from domino_env.train.ppo import train

ROOT = Path(__file__).resolve().parents[2]
SMOKE = [
    "--policy", "action-scores", "--timesteps", "1024", "--n-envs", "2", "--vec-env", "dummy",
    "--n-steps", "256", "--batch-size", "128", "--n-epochs", "1", "--net-arch", "32",
    "--opponents", "greedy", "--eval-freq", "512", "--eval-rounds", "4", "--eval-opponents", "greedy",
    "--final-eval-rounds", "4", "--eval-workers", "1", "--seed", "5", "--no-progress", "--quiet",
    "--no-tensorboard", "--no-plot",
]  # fmt: skip


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("as") / "run"
    assert train([*SMOKE, "--action-features", "v2", "--out", str(out)]) == out
    return out


def test_metadata_names_the_policy_input(run_dir):
    meta = json.loads((run_dir / "metadata.json").read_text())
    assert meta["policy_input"] == "action-features-v2" and meta["args"]["action_features"] == "v2"
    assert meta["args"]["policy"] == "action-scores" and meta["status"] == "done"


def test_numpy_actor_gives_the_torch_policys_logits(run_dir):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(run_dir / "model.zip", device="cpu")
    agent = load_ppo_agent(run_dir)
    env = LearnerEnv({"num_players": 4, "max_pip": 12}, ["planner"], policy_input="action-features-v2")
    x, _ = env.reset(seed=0)
    checked = 0
    for _ in range(40):
        mask = env.action_masks()
        raw = env.raw_observation
        np.testing.assert_allclose(agent.policy_input(raw, mask), x, rtol=0, atol=0)
        with torch.no_grad():
            latent = model.policy.mlp_extractor.forward_actor(torch.as_tensor(x[None]))
            t = model.policy.action_net(latent)[0].numpy()
        legal = np.flatnonzero(mask)
        np.testing.assert_allclose(agent.actor.logits(x)[legal], t[legal], rtol=1e-4, atol=1e-5)
        checked += 1
        x, _, term, trunc, _ = env.step(int(model.predict(x, action_masks=mask, deterministic=True)[0]))
        if term or trunc:
            x, _ = env.reset()
    assert checked == 40


def _dense_actor(net, x):
    """The scorer on every row, legal or not (the actor before it skipped the illegal rows; the
    form benchmarks/learner_split.py times against it)."""
    spec = importlib.util.spec_from_file_location("learner_split", ROOT / "benchmarks" / "learner_split.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.all_rows_actor(net, x)


@pytest.mark.parametrize("game", ["mexican_train", "cuban"])
def test_the_actor_scores_only_legal_rows_with_the_dense_scorers_values_and_gradients(game):
    """forward_actor runs the scorer on the legal rows only (column 0): their logits and every
    parameter's gradient of a masked log-likelihood equal the all-rows scorer's; an illegal
    action's logit is ILLEGAL_LOGIT (so a state without legal actions is uniform, as masked)."""
    from sb3_contrib.common.maskable.distributions import MaskableCategorical

    from domino_env.train.action_policy import ILLEGAL_LOGIT, ActionScoringNet

    rules = {"num_players": 4, "max_pip": 12} if game == "mexican_train" else {}
    env = LearnerEnv(rules, ["planner"], game=game, policy_input="action-features-v1",
                     reward="mixed" if game == "mexican_train" else "outcome")
    rng = np.random.default_rng(3)
    x, _ = env.reset(seed=3)
    xs, masks = [], []
    while len(xs) < 64:
        mask = env.action_masks()
        xs.append(x)
        masks.append(mask)
        x, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            x, _ = env.reset()
    from domino_env.agents.action_features import feature_columns

    n_feat, num_actions = len(feature_columns(game, "action-features-v1")), int(env.action_space.n)
    obs_size = len(xs[0]) - num_actions * n_feat
    X = torch.as_tensor(np.array(xs))
    X = torch.cat([X, torch.cat([X[:1, :obs_size], torch.zeros(1, num_actions * n_feat)], 1)])  # no legal row
    M = torch.as_tensor(np.array([*masks, np.zeros(num_actions, bool)]))
    assert 1 <= M[:-1].sum(1).min() and M.sum(1).max() < num_actions  # every state has illegal rows
    torch.manual_seed(0)
    net = ActionScoringNet(obs_size, num_actions, n_feat)
    with torch.no_grad():  # a random network, not the near-uniform start
        for param in net.parameters():
            param.normal_(0, 0.3)
    actions = torch.as_tensor([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in M.numpy()])
    grads = []
    for actor in (net.forward_actor, lambda x: _dense_actor(net, x)):
        net.zero_grad()
        logits = actor(X)
        dist = MaskableCategorical(logits=logits, masks=M)
        (dist.log_prob(actions)[:-1].sum() + dist.entropy()[:-1].sum()).backward()
        grads.append([p.grad.clone() for p in net.parameters() if p.grad is not None])
        if actor == net.forward_actor:
            sparse = logits.detach()
    dense = _dense_actor(net, X).detach()
    torch.testing.assert_close(sparse[M], dense[M], rtol=1e-5, atol=1e-5)
    assert (sparse[~M] == ILLEGAL_LOGIT).all()
    assert len(grads[0]) == len(grads[1]) == 10  # context, w1, w2, out: weight, bias; u, skip: weight
    for g_sparse, g_dense in zip(*grads, strict=True):
        torch.testing.assert_close(g_sparse, g_dense, rtol=1e-4, atol=1e-5)


def test_the_agent_plays_by_name_pickles_and_refuses_other_seats(run_dir):
    res = evaluate([f"ppo:{run_dir}", "planner", "greedy", "planner"], rounds=4, seed=2, workers=2)
    assert res.episodes == 4 and res.stats_for(f"ppo:{run_dir}").seat_episodes == 4
    env = raw_env(num_players=4)
    agent = make_agent(f"ppo:{run_dir}", env.config)
    clone = pickle.loads(pickle.dumps(agent))
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    rng = np.random.default_rng(0)
    a = agent(obs["observation"], obs["action_mask"], rng)
    assert obs["action_mask"][a] and clone(obs["observation"], obs["action_mask"], rng) == a
    with pytest.raises(SpecMismatchError):
        make_agent(f"ppo:{run_dir}", raw_env(num_players=3).config)


def test_init_from_takes_the_models_policy_and_refuses_another(run_dir, tmp_path):
    import argparse
    import shutil

    from domino_env.train.start_model import resolve_policy

    def resolved(**kw):
        args = argparse.Namespace(**{"policy": None, "resume": None, "init_from": None, **kw})
        resolve_policy(args)
        return args.policy

    assert resolved() == "action-scores" and resolved(init_from=str(run_dir)) == "action-scores"
    old = tmp_path / "old"  # a model folder from before --policy: no args.policy, an mlp
    shutil.copytree(run_dir, old)
    meta = json.loads((old / "metadata.json").read_text())
    del meta["args"]["policy"]
    (old / "metadata.json").write_text(json.dumps(meta))
    assert resolved(resume=str(old)) == "mlp"
    res = subprocess.run(
        [sys.executable, "-m", "train.ppo", "--init-from", str(run_dir), "--policy", "mlp",
         "--net-arch", "32", "--out", str(tmp_path / "x")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        f"domino-train: error: --init-from {run_dir}: the model has --policy action-scores, this "
        "command mlp; give the model's (domino-train --help lists every option)"
    ]


def test_feature_columns_are_stable():
    # a saved model's input layout: changing these columns needs a new policy_input version
    assert len(FEATURES) == 17 and FEATURES[0] == "legal" and FEATURES[-1] == "planner_choice"
    assert END_FEATURES == ("end_unseen", "end_own", "end_lacked", "next_lacks_end")  # v2 = v1 + these


RELEASE = ROOT / "checkpoints" / "mexican_train_4p_d12_action_scores"


def test_a_v1_model_keeps_its_rows_and_a_v2_model_its_own(run_dir):
    from domino_env.agents.ppo import PPOAgent
    from domino_env.train.start_model import resolve_policy

    old = make_agent(f"ppo:{RELEASE}", raw_env(num_players=4).config)
    assert old.policy_input.kind == ACTION_FEATURES_V1 and old.policy_input.features.num_features == 17
    new = load_ppo_agent(run_dir)
    assert new.policy_input.kind == "action-features-v2" and ACTION_FEATURES_VERSION == ACTION_FEATURES_V1
    assert new.policy_input.features.num_features == 21
    from sb3_contrib import MaskablePPO

    snapshot = PPOAgent.from_policy(MaskablePPO.load(run_dir / "model.zip", device="cpu").policy, 4, 12)
    assert snapshot.policy_input.kind == "action-features-v2"  # told by the network's feature count
    res = evaluate([f"ppo:{RELEASE}", f"ppo:{run_dir}", "planner", "greedy"], rounds=4, seed=0)
    assert res.episodes == 4
    import argparse

    def resolved(**kw):
        args = argparse.Namespace(**{"policy": None, "resume": None, "init_from": None, "game": "mexican_train", **kw})
        resolve_policy(args)
        return getattr(args, "action_features", None)

    assert resolved() == "v1" and resolved(game="cuban") == "v1"  # the default: the releases' rows
    assert resolved(init_from=str(RELEASE)) == "v1" and resolved(resume=str(run_dir)) == "v2"
    assert resolved(policy="mlp") is None  # an mlp reads no rows


@pytest.mark.parametrize(
    "args, message",
    [
        (["--game", "cuban", "--action-features", "v2"],
         "--action-features v2: the rows v2 adds are Mexican Train's; --game cuban has v1 only"),
        (["--policy", "mlp", "--action-features", "v1"],
         "--action-features v1: only an action-scores policy reads feature rows (the policy here: mlp)"),
        (["--init-from", str(RELEASE), "--action-features", "v2"],
         f"--init-from {RELEASE}: the model has --action-features v1, this command v2; give the model's"),
        (["--resume", str(RELEASE), "--action-features", "v2"],
         f"--resume {RELEASE}: the model has --action-features v1, this command v2; --resume continues the "
         "model's network (leave --action-features out)"),
    ],
)  # fmt: skip
def test_action_features_flag_is_checked_before_any_work(args, message, tmp_path):
    res = subprocess.run([sys.executable, "-m", "train.ppo", *args, "--out", str(tmp_path / "x")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert res.returncode == 2 and not (tmp_path / "x").exists()
    assert res.stderr.strip().splitlines() == [
        f"domino-train: error: {message} (domino-train --help lists every option)"
    ]


def test_a_line_game_trains_and_plays_with_action_scores(tmp_path):
    out = tmp_path / "cuban"
    args = [a for a in SMOKE if a not in ("--timesteps", "1024")]
    assert train(["--game", "cuban", "--timesteps", "512", *args, "--out", str(out)]) == out
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["policy_input"] == ACTION_FEATURES_V1 and meta["game"] == "cuban"  # line games: v1 rows
    res = evaluate([f"ppo:{out}", "planner", f"ppo:{out}", "planner"], rounds=4, seed=0, game="cuban")
    assert res.episodes == 4


def test_metadata_hash_is_the_envs_own_spec_and_legacy_hashes_load():
    from domino_env.agents.ppo import check_compatible, spec_for
    from domino_env.train.run_folder import config_of, env_metadata

    rules = {"num_players": 4, "max_pip": 18}
    env = raw_env(**rules)
    meta = env_metadata(env.config.to_dict(), "mexican_train", {}, 1)
    # double-18 needs a larger scores bound than the default: the hash follows the env's encoder
    assert meta["observation_spec_hash"] == env.encoder.spec.hash()
    legacy = spec_for(4, 18).hash()
    assert legacy != meta["observation_spec_hash"]
    config = config_of(env.config.to_dict())
    for h in (meta["observation_spec_hash"], legacy):  # both load: same layout
        check_compatible({**meta, "observation_spec_hash": h}, config)
    with pytest.raises(SpecMismatchError):
        check_compatible({**meta, "observation_spec_hash": spec_for(4, 15).hash()}, config)


def test_resume_refuses_another_policy_and_keeps_the_models_settings(run_dir, tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "train.ppo", "--resume", str(run_dir), "--policy", "mlp", "--out", str(tmp_path / "x")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert res.returncode == 2 and not (tmp_path / "x").exists()
    assert res.stderr.strip().splitlines() == [
        f"domino-train: error: --resume {run_dir}: the model has --policy action-scores, this command mlp; "
        "--resume continues the model's policy (leave --policy out) (domino-train --help lists every option)"
    ]
    more = tmp_path / "more"
    res = subprocess.run(
        [sys.executable, "-m", "train.ppo", "--resume", str(run_dir), "--n-steps", "128", "--timesteps", "256",
         "--n-envs", "2", "--vec-env", "dummy", "--eval-freq", "0", "--final-eval-rounds", "0",
         "--no-progress", "--no-tensorboard", "--no-plot", "--quiet", "--out", str(more)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    # said even with --quiet: a flag the user gave is overridden
    assert "--resume keeps the model's --n-steps 256 (instead of this command's 128, given or default)" in res.stderr
    meta = json.loads((more / "metadata.json").read_text())
    assert meta["args"]["n_steps"] == 256 and meta["args"]["policy"] == "action-scores"
    assert "tensorboard" not in res.stderr.splitlines()[-1]  # --no-tensorboard: no tb/ hint


def test_init_from_records_the_start_models_own_steps(run_dir, tmp_path):
    from sb3_contrib import MaskablePPO

    best = run_dir / "best_model.zip"
    out = tmp_path / "ft"
    args = [a for a in SMOKE if a not in ("--timesteps", "1024")]
    # --activation relu (the smoke model's is tanh): an action-scores network is ReLU either way,
    # so it is not a mismatch (an mlp's activation is: test_bc.py)
    assert train(["--init-from", str(best), "--timesteps", "256", *args, "--activation", "relu", "--out", str(out)]) == out
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["initialized_from"]["timesteps"] == MaskablePPO.load(best, device="cpu").num_timesteps


def test_resume_command_continues_the_same_folder():
    from domino_env.train.run_folder import resume_command

    argv = ["--game", "cuban", "--opponents", "greedy", "planner", "--timesteps", "20000", "--out", "r",
            "--overwrite", "--policy=mlp", "--seed", "3"]  # fmt: skip
    assert resume_command(argv, Path("r"), 15904) == (
        "domino-train --resume r --out r --timesteps 15904 --game cuban --opponents greedy planner --seed 3"
    )


def test_continue_hints_give_a_folder_named_like_an_option_as_a_path():
    """A run folder named -odd was given as '--resume -odd', which argparse reads as an option."""
    from domino_env.train.run_folder import clone_on_command, resume_command, rllib_resume_command

    argv = ["--out=-odd", "--seed", "3"]
    assert resume_command(argv, Path("-odd"), 10) == "domino-train --resume ./-odd --out ./-odd --timesteps 10 --seed 3"
    assert rllib_resume_command(argv, Path("-odd"), 2) == "domino-rllib --resume ./-odd --iterations 2 --seed 3"
    assert clone_on_command(argv, Path("-odd")) == "domino-bc --seed 3 --init-from ./-odd --out NEW_FOLDER"
    assert rllib_resume_command(["--out", "a b"], Path("a b"), 2) == "domino-rllib --resume 'a b' --iterations 2"


def test_game_episodes_default_to_the_outcome_reward():
    from domino_env.train.ppo_args import build_parser, check_args

    parser = build_parser()
    for episode, reward in (("game", "outcome"), ("round", "mixed")):
        args = parser.parse_args(["--episode", episode, "--players", "2", "--max-pip", "9"])
        check_args(parser, args)
        assert args.reward == reward


def test_the_model_ranks_its_moves_for_search(run_dir):
    """``rank_actions``: the model's move first, then by decreasing logit; so a search agent with
    the model as its prior searches the model's two best moves by default."""
    from domino_env.agents.search import SearchAgent

    env = raw_env(num_players=4)
    agent = make_agent(f"ppo:{run_dir}", env.config)
    rng = np.random.default_rng(0)
    ranked_some = 0
    for seed in range(6):
        env.reset(seed=seed)
        obs = env.observe(env.agent_selection)
        x, mask = obs["observation"], obs["action_mask"]
        ranked = agent.rank_actions(x, mask, rng)
        assert sorted(ranked) == np.flatnonzero(mask).tolist()
        assert ranked[0] == agent(x, mask, rng)
        z = agent.actor.logits(agent.policy_input(x, mask))[ranked]
        assert list(z) == sorted(z, reverse=True)
        ranked_some += len(ranked) > 2
    assert ranked_some >= 2
    assert SearchAgent(env.config, prior=f"ppo:{run_dir}").candidates == 2
    from domino_env.core.errors import ConfigError

    for size in (5, len(mask) + 1):  # a mask of other rules: one clear error, as the planners
        with pytest.raises(ConfigError, match=f"'action_mask'.*{len(mask)} actions"):
            agent.rank_actions(x, np.ones(size, dtype=np.int8), rng)
        with pytest.raises(ConfigError, match="'action_mask'"):
            agent(x, np.ones(size, dtype=np.int8), rng)


def test_a_v3_model_searches_at_play_time_and_domino_bc_refuses_it(tmp_path):
    out = tmp_path / "v3"
    args = [a for a in SMOKE if a not in ("--timesteps", "1024")]
    assert train(["--action-features", "v3", "--timesteps", "256", *args, "--out", str(out)]) == out
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["policy_input"] == "action-features-v3" and meta["args"]["action_features"] == "v3"
    agent = load_ppo_agent(out)
    assert agent.wants_info_state and agent.policy_input.features.num_features == 24
    env = raw_env(num_players=4)
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)
    while np.count_nonzero(obs["action_mask"]) < 2:
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        obs = env.observe(env.agent_selection)
    from domino_env.core.errors import ConfigError
    from domino_env.wrappers import info_state_kwargs

    with pytest.raises(ConfigError, match="info_state"):  # no public history: refused, not blind
        agent(obs["observation"], obs["action_mask"], np.random.default_rng(0))
    kw = info_state_kwargs(agent, env.game_state, env.game_state.current_player)
    assert obs["action_mask"][agent(obs["observation"], obs["action_mask"], np.random.default_rng(0), **kw)]
    one = evaluate([f"ppo:{out}", "planner", "planner", "planner"], rounds=8, seed=3, workers=1)
    two = evaluate([f"ppo:{out}", "planner", "planner", "planner"], rounds=8, seed=3, workers=2)
    assert one.stats_for(f"ppo:{out}").wins == two.stats_for(f"ppo:{out}").wins  # seeded by its inputs
    with pytest.raises(ConfigError, match="reads action-features-v3 rows"):
        agent(obs["observation"], obs["action_mask"], np.random.default_rng(0))
    probes = importlib.util.module_from_spec(spec := importlib.util.spec_from_file_location(
        "policy_probes", ROOT / "benchmarks" / "policy_probes.py"))  # fmt: skip
    spec.loader.exec_module(probes)  # its agents pass the tournament's info_state on to the model
    for combined in (probes.Ensemble([str(out)]), probes.PlannerTopK(str(out), 1000)):
        got = evaluate([combined, "planner", "planner", "planner"], rounds=8, seed=3, workers=1)
        assert combined.wants_info_state and got.stats_for(combined.name).wins == one.stats_for(f"ppo:{out}").wins
    with pytest.raises(ConfigError, match="nor a model reading action-features-v3"):
        make_agent(f"search:25,prior=ppo:{out}", env.config)
    res = subprocess.run([sys.executable, "-m", "train.rllib", "--mode", "opponents", "--opponents", f"ppo:{out}",
                          "--out", str(tmp_path / "rl")], cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert res.returncode == 2 and not (tmp_path / "rl").exists()
    assert f"--opponents ppo:{out}: it needs the seat's public history" in res.stderr.strip().splitlines()[-1]
    res = subprocess.run([sys.executable, "-m", "train.bc", "--init-from", str(out), "--samples", "0",
                          "--dagger-iters", "1", "--out", str(tmp_path / "bc")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert res.returncode == 2 and not (tmp_path / "bc").exists()
    assert res.stderr.strip().splitlines()[-1].startswith(
        f"domino-bc: error: --init-from {out}: the model reads action features v3"
    )
