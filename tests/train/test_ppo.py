"""PPO training command, checkpoints and the trained-policy agent (issue 4).

The smoke run trains a tiny network for a couple of thousand steps into a temporary folder (once
per module), then the tests load it, check its metadata, play tournaments with it and refuse it
for another observation layout. The training env's own tests (rewards on scripted deals, opponents,
line-game credit) are in test_learner_env.py, the periodic schedule's in test_training_schedule.py.
"""

import json
import warnings

import numpy as np
import pytest

import domino_env
from domino_env.agents import make_agent
from domino_env.agents.ppo import PPOAgent, SpecMismatchError, load_ppo_agent, observation_scale
from domino_env.encoding.mexican_train import observation_spec
from domino_env.train.evaluate import evaluate
from domino_env.train.ppo import train

SMOKE_ARGS = [  # the flat MLP policy (the default --policy action-scores: test_action_policy.py)
    "--policy", "mlp", "--timesteps", "2048", "--n-envs", "2", "--vec-env", "subproc", "--n-steps", "256",
    "--batch-size", "128", "--n-epochs", "1", "--net-arch", "32", "--opponents", "greedy", "random",
    "--eval-freq", "1024", "--eval-rounds", "8", "--eval-opponents", "random", "greedy",
    "--final-eval-rounds", "8", "--eval-workers", "1", "--self-play", "0.3", "--snapshot-freq", "512",
    "--seed", "3", "--no-progress", "--quiet",
]  # fmt: skip


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("ppo") / "run"
    assert train([*SMOKE_ARGS, "--out", str(out)]) == out
    return out


def test_smoke_run_writes_everything(run_dir):
    for name in (
        "model.zip",
        "best_model.zip",
        "metadata.json",
        "evaluations.json",
        "learning_curve.png",
        "final_evaluation.md",
    ):
        assert (run_dir / name).is_file(), name
    assert any((run_dir / "tb").rglob("events.out.tfevents.*"))
    meta = json.loads((run_dir / "metadata.json").read_text())
    assert meta["env_id"] == "dominoes/mexican_train-v0" and meta["env_version"] == "0"
    assert meta["observation_spec_hash"] == observation_spec(4, 12).hash()
    assert meta["package_version"] == domino_env.__version__
    assert meta["env_kwargs"]["num_players"] == 4 and meta["env_kwargs"]["max_pip"] == 12
    assert (
        meta["env_kwargs"]["doubles"] == "satisfy"
        and meta["env_kwargs"]["preset"] == "domino_cubano"
    )
    assert meta["command"].startswith("python -m domino_env.train.ppo --policy mlp --timesteps 2048")
    assert (
        meta["argv"][:4] == ["--policy", "mlp", "--timesteps", "2048"]
        and meta["args"]["seed"] == 3
        and meta["seed"] == 3
    )
    assert meta["timesteps"] >= 2048 and meta["wall_seconds"] > 0 and meta["status"] == "done"
    assert meta["vec_env"] == "SubprocVecEnv" and meta["n_envs"] == 2
    assert [e["timesteps"] for e in meta["evaluations"]] == [1024, 2048]
    for e in meta["evaluations"]:
        assert set(e["results"]) == {"random", "greedy"}
    final = meta["final_evaluation"]["greedy"]
    assert 0 <= final["win_rate"] <= 1 and final["rounds"] == 8 and final["mean_pips"] >= 0


def test_trained_model_plays_tournaments_by_name(run_dir):
    res = evaluate([f"ppo:{run_dir}", "greedy", "planner", "random"], rounds=8, seed=1)
    assert res.episodes == 8 and res.truncated_episodes == 0
    assert res.stats_for(f"ppo:{run_dir}").seat_episodes == 8
    # the best model too, and in worker processes (the agent pickles without torch)
    best = f"ppo:{run_dir / 'best_model.zip'}"
    res = evaluate([best, "greedy", "greedy", "greedy"], rounds=8, seed=1, workers=2)
    assert res.stats_for(best).seat_episodes == 8


def test_numpy_agent_matches_the_torch_policy(run_dir):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(run_dir / "model.zip", device="cpu")
    agent = load_ppo_agent(run_dir)
    from domino_env.envs.mexican_train_v0 import raw_env

    env = raw_env()
    env.reset(seed=5)
    scale = observation_scale(4, 12)
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs = env.observe(env.agent_selection)
        mine = agent(obs["observation"], obs["action_mask"], rng)
        theirs, _ = model.predict(
            obs["observation"] * scale,
            action_masks=obs["action_mask"].astype(bool),
            deterministic=True,
        )
        assert mine == int(theirs) and obs["action_mask"][mine]
        env.step(mine)
        if not env.agents or any(env.terminations.values()):
            break


def test_stochastic_agent_samples_only_legal_actions(run_dir):
    agent = load_ppo_agent(run_dir, deterministic=False)
    mask = np.zeros(91 * 5 + 2, dtype=np.int8)
    mask[[3, 17, 455]] = 1
    rng = np.random.default_rng(0)
    obs = np.zeros(observation_spec(4, 12).size, dtype=np.float32)
    assert {agent(obs, mask, rng) for _ in range(50)} <= {3, 17, 455}


def test_spec_hash_mismatch_is_a_clear_error(run_dir):
    with pytest.raises(SpecMismatchError, match=r"num_players 4 vs 3.*max_pip 12 vs 9"):
        make_agent(f"ppo:{run_dir}", {"num_players": 3, "max_pip": 9})
    meta = json.loads((run_dir / "metadata.json").read_text())
    with pytest.raises(SpecMismatchError, match="observation spec"):
        evaluate([f"ppo:{run_dir}", "greedy", "greedy", "greedy", "greedy"], rounds=5)
    assert meta["observation_spec_hash"] in str(_error(run_dir, 6))


def _error(run_dir, players):
    try:
        make_agent(f"ppo:{run_dir}", {"num_players": players})
    except SpecMismatchError as exc:
        return exc
    raise AssertionError("no error")


def test_other_rules_with_the_same_layout_only_warn(run_dir):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent = make_agent(f"ppo:{run_dir}", {"doubles": "chain"})
    assert isinstance(agent, PPOAgent)
    assert any("doubles='satisfy' vs 'chain'" in str(w.message) for w in caught)


def test_missing_model_or_metadata(tmp_path):
    with pytest.raises(FileNotFoundError, match="no trained model"):
        make_agent(f"ppo:{tmp_path}")
    (tmp_path / "model.zip").write_bytes(b"")
    with pytest.raises(FileNotFoundError, match="metadata.json"):
        make_agent(f"ppo:{tmp_path}")
    with pytest.raises(domino_env.DominoError, match="ppo:PATH"):
        make_agent("ppo")


def test_resume_continues_the_step_count(run_dir, tmp_path, capsys):
    out = tmp_path / "resumed"
    args = ["--resume", str(run_dir), "--timesteps", "512", "--n-envs", "1", "--eval-freq", "0",
            "--final-eval-rounds", "0", "--no-progress", "--no-plot", "--no-tensorboard", "--out", str(out)]  # fmt: skip
    train(args)
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["resumed_from"]["timesteps"] >= 2048
    # its first line says what it continues (a user's trial: it read as a run from scratch)
    first = next(line for line in capsys.readouterr().err.splitlines() if line.startswith("training "))
    assert first.startswith(f"training 512 steps, resuming {run_dir / 'model.zip'} after its "
                            f"{meta['resumed_from']['timesteps']} steps, 1 x DummyVecEnv, "), first
    assert meta["timesteps"] >= meta["resumed_from"]["timesteps"] + 512
    assert meta["timesteps_this_run"] >= 512


def test_resume_without_out_says_it_trains_into_a_new_folder(run_dir, tmp_path, monkeypatch, capsys):
    """A new user's --resume RUN (no --out) went to runs/ppo_<date>, silently: they expected RUN."""
    monkeypatch.chdir(tmp_path)
    train(["--resume", str(run_dir), "--timesteps", "64", "--n-envs", "1", "--eval-freq", "0", "--final-eval-rounds",
           "0", "--no-progress", "--no-tensorboard", "--no-plot"])  # fmt: skip
    (made,) = (tmp_path / "runs").iterdir()
    assert (made / "model.zip").exists() and made.name.startswith("ppo_")
    line = f"--resume: training continues in a new folder, runs/{made.name} (--out {run_dir} continues in the model's own)"
    assert line in capsys.readouterr().err.splitlines()


def test_resume_of_a_release_without_out_does_not_offer_its_folder(tmp_path, monkeypatch, capsys):
    """The hint's "--out checkpoints/X continues in the model's own" would have trained over the
    repository's released model (fresh-user trial)."""
    from pathlib import Path

    release = Path(domino_env.__file__).resolve().parents[1] / "checkpoints" / "mexican_train_4p_d12_action_scores"
    monkeypatch.chdir(tmp_path)
    train(["--resume", str(release), "--timesteps", "64", "--n-envs", "1", "--vec-env", "dummy", "--eval-freq", "0",
           "--final-eval-rounds", "0", "--no-progress", "--no-tensorboard", "--no-plot"])  # fmt: skip
    (made,) = (tmp_path / "runs").iterdir()
    line = (f"--resume: training continues in a new folder, runs/{made.name} (its folder is one of the clone's "
            "released models, kept as they are)")
    assert line in capsys.readouterr().err.splitlines()


def test_resume_keeps_the_runs_envs_unless_given(run_dir, tmp_path, monkeypatch):
    """A new user's --resume doubled each rollout: --n-envs fell back to the cores, not the run's 2."""
    import domino_env.train.ppo as ppo_module

    monkeypatch.setattr(ppo_module, "usable_cores", lambda: 3)  # the default would be 3 envs
    common = ["--resume", str(run_dir), "--timesteps", "64", "--eval-freq", "0", "--final-eval-rounds", "0",
              "--no-progress", "--quiet", "--no-tensorboard", "--no-plot", "--vec-env", "dummy"]  # fmt: skip
    train([*common, "--out", str(tmp_path / "kept")])
    assert json.loads((tmp_path / "kept" / "metadata.json").read_text())["n_envs"] == 2  # the run's
    train([*common, "--n-envs", "1", "--out", str(tmp_path / "given")])
    assert json.loads((tmp_path / "given" / "metadata.json").read_text())["n_envs"] == 1


def test_a_resumed_runs_summary_says_which_steps_its_wall_time_covers(run_dir, tmp_path, capsys):
    """The header read "2560 steps in 0.1 min": the total steps against this run's time only."""
    out = tmp_path / "resumed"
    train(["--resume", str(run_dir), "--timesteps", "512", "--n-envs", "1", "--eval-freq", "0",
           "--final-eval-rounds", "4", "--eval-opponents", "random", "--no-progress", "--no-tensorboard",
           "--no-plot", "--out", str(out)])  # fmt: skip
    meta = json.loads((out / "metadata.json").read_text())
    header = f"{meta['timesteps']} steps, {meta['timesteps_this_run']} of them in this run, in "
    assert header in capsys.readouterr().out


def test_resume_into_its_own_folder_keeps_the_earlier_evaluations_and_best(run_dir, tmp_path):
    """--resume RUN --out RUN: the run's earlier periodic evaluations stay in evaluations.json,
    metadata.json and the curve, and best_model.zip is replaced only by a model that beats the
    best of them on the same ladder (rounds, opponents, seed)."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    before = json.loads((run / "evaluations.json").read_text())
    assert len(before) >= 2

    def score(e):
        return float(np.mean([r["win_rate"] for r in e["results"].values()]))

    best_before = max(score(e) for e in before)
    ladder = ["--eval-freq", "256", "--eval-rounds", "8", "--eval-opponents", "random", "greedy", "--seed", "3"]
    train(["--resume", str(run), "--out", str(run), "--timesteps", "512", "--n-envs", "1", "--final-eval-rounds", "0",
           "--no-progress", "--quiet", "--no-tensorboard", "--no-plot", *ladder])  # fmt: skip
    after = json.loads((run / "evaluations.json").read_text())
    meta = json.loads((run / "metadata.json").read_text())
    assert [e["timesteps"] for e in after[: len(before)]] == [e["timesteps"] for e in before]
    assert len(after) > len(before) and len(meta["evaluations"]) == len(after)
    new_best = [e for e in after[len(before):] if e.get("best")]
    assert all(score(e) > best_before for e in new_best)  # only a better model replaces it
    # another folder starts a record of its own
    other = tmp_path / "other"
    train(["--resume", str(run), "--out", str(other), "--timesteps", "256", "--n-envs", "1", "--final-eval-rounds", "0",
           "--no-progress", "--quiet", "--no-tensorboard", "--no-plot", *ladder])  # fmt: skip
    assert all(e["timesteps"] > after[-1]["timesteps"] for e in json.loads((other / "evaluations.json").read_text()))


def test_resume_over_a_damaged_evaluations_file_says_so_and_rebuilds_it(run_dir, tmp_path):
    """An evaluations.json that is not JSON (or not a list) was replaced by metadata.json's
    evaluations without a word: now a warning names the file and the count taken instead."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    earlier = [e["timesteps"] for e in json.loads((run / "metadata.json").read_text())["evaluations"]]
    assert earlier
    for damage, why in (("{not json", "unreadable: Expecting property name"), ('{"a": 1}', "not a JSON list")):
        (run / "evaluations.json").write_text(damage)
        want = rf"evaluations.json is {why}.*; the {len(earlier)} earlier evaluations in metadata.json are used"
        with pytest.warns(UserWarning, match=want):
            train(["--resume", str(run), "--out", str(run), "--timesteps", "256", "--n-envs", "1",
                   "--final-eval-rounds", "0", "--eval-freq", "256", "--eval-rounds", "4", "--no-progress",
                   "--quiet", "--no-tensorboard", "--no-plot"])  # fmt: skip
        after = [e["timesteps"] for e in json.loads((run / "evaluations.json").read_text())]
        assert after[: len(earlier)] == earlier and len(after) > len(earlier)
        earlier = after
    with warnings.catch_warnings():  # a missing file is no damage: no evaluation was written yet
        warnings.simplefilter("error")
        (run / "evaluations.json").unlink()
        from domino_env.train.run_folder import earlier_evaluations

        assert earlier_evaluations(run, {"evaluations": [{"timesteps": 1}]}) == [{"timesteps": 1}]


def test_resume_refuses_another_activation_of_an_mlp(run_dir, tmp_path, capsys):
    out = tmp_path / "x"
    with pytest.raises(SystemExit) as exc:
        train(["--resume", str(run_dir), "--activation", "relu", "--quiet", "--no-progress", "--out", str(out)])
    assert exc.value.code == 2 and not out.exists()
    assert "the model has --activation tanh, this command relu" in capsys.readouterr().err


def test_resume_refuses_another_layout(run_dir, tmp_path, capsys):
    out = tmp_path / "x"
    with pytest.raises(SystemExit) as exc:
        train(["--resume", str(run_dir), "--players", "3", "--timesteps", "64", "--n-envs", "1", "--quiet",
               "--no-progress", "--out", str(out)])  # fmt: skip
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("domino-train: error: --resume ") and "num_players 4 vs 3" in err
    assert not out.exists()  # refused before any work: no empty run folder


def test_bad_options_exit_with_a_message(capsys, tmp_path):
    with pytest.raises(SystemExit):
        train(["--opponents", "nobody", "--out", str(tmp_path / "x")])
    assert "nobody" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train(["--opponent-mode", "fixed", "--opponents", "greedy", "--out", str(tmp_path / "x")])
    assert "3 agents" in capsys.readouterr().err


# ---------------------------------------------------------------------------------- line games
CUBAN_ARGS = [
    "--game", "cuban", "--timesteps", "1024", "--n-envs", "1", "--n-steps", "256", "--batch-size", "128",
    "--n-epochs", "1", "--net-arch", "32", "--opponents", "greedy", "random", "--eval-freq", "512",
    "--eval-rounds", "4", "--eval-opponents", "greedy", "--final-eval-rounds", "4", "--eval-workers", "1",
    "--seed", "5", "--no-progress", "--quiet", "--no-tensorboard", "--no-plot",
]  # fmt: skip


@pytest.fixture(scope="module")
def cuban_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("ppo_cuban") / "run"
    assert train([*CUBAN_ARGS, "--out", str(out)]) == out
    return out


def test_cuban_smoke_run_writes_line_metadata(cuban_dir):
    from domino_env.encoding.line import line_observation_spec

    meta = json.loads((cuban_dir / "metadata.json").read_text())
    assert meta["status"] == "done" and meta["game"] == "cuban"
    assert meta["env_id"] == "dominoes/cuban-v0" and meta["env_version"] == "0"
    assert meta["observation_spec_hash"] == line_observation_spec(4, 9).hash()
    assert meta["observation_scaling"] == "line-unit-v1"
    assert meta["rules"]["teams"] is True and meta["rules"]["max_pip"] == 9
    assert meta["args"]["reward"] == "outcome"
    assert set(meta["final_evaluation"]) == {"greedy"} and meta["evaluations"]
    assert (cuban_dir / "model.zip").is_file() and (cuban_dir / "best_model.zip").is_file()


def test_cuban_model_plays_a_cuban_tournament_by_name(cuban_dir, capsys):
    from domino_env.train.evaluate import run

    spec = f"ppo:{cuban_dir}"
    res = run(
        [
            "--game",
            "cuban",
            "--agents",
            spec,
            "greedy",
            spec,
            "greedy",
            "--rounds",
            "8",
            "--seed",
            "0",
        ]
    )
    assert res.episodes == 8 and res.teams and res.stats_for(spec).seat_episodes == 16
    assert spec in capsys.readouterr().out
    # the Mexican Train loader refuses it (another observation spec), and vice versa
    with pytest.raises(SpecMismatchError):
        make_agent(spec)
