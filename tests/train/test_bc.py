"""``python -m train.bc``: the expert dataset holds the planner's own decisions, the smoke run (a
real process into a temporary folder) writes a model folder that loads as ``ppo:PATH``, imitates
the planner better than chance, reuses its dataset, and is fine-tuned by ``domino_env.train.ppo
--init-from`` / ``--resume``; bad flags and bad datasets are one-line refusals.
"""

import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from domino_env.agents import make_agent  # noqa: E402
from domino_env.agents.ppo import load_ppo_agent  # noqa: E402
from domino_env.train.bc import collect, load_dataset  # noqa: E402
from domino_env.train.evaluate import evaluate  # noqa: E402
from domino_env.train.learner_env import LearnerEnv  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--players", "2", "--max-pip", "9", "--opponents", "greedy", "--net-arch", "32", "--seed", "2",
         "--eval-opponents", "greedy", "--eval-workers", "1", "--no-progress"]  # fmt: skip


def _run(module, args):
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)  # fmt: skip


@pytest.fixture(scope="module")
def bc_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("bc")
    out, data = base / "run", base / "data.npz"
    res = _run("domino_env.train.bc", [*SMALL, "--samples", "3000", "--epochs", "4", "--dagger-iters", "1",
                            "--dagger-samples", "500", "--final-eval-rounds", "8", "--dataset", str(data),
                            "--out", str(out)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    return out, data, res


def test_the_dataset_holds_the_experts_decisions_and_the_returns():
    env = LearnerEnv({"num_players": 3, "max_pip": 9}, ["greedy"], reward="mixed")
    planner = make_agent("planner", {"num_players": 3, "max_pip": 9})
    data = collect(env, planner, 300, seed=4, gamma=0.9)
    n = len(data["actions"])
    assert n >= 300 and data["observations"].shape == (n, env.observation_space.shape[0])
    assert data["observations"].dtype == np.int16 and data["masks"].dtype == np.uint8
    rng = np.random.default_rng(0)
    for i in range(0, n, 7):  # the label is the planner's choice on that raw observation and mask
        mask = np.unpackbits(data["masks"][i], count=env.action_space.n).astype(bool)
        assert mask[data["actions"][i]]
        assert planner(data["observations"][i].astype(np.float32), mask, rng) == data["actions"][i]
    # returns to go: the round's reward at its last decision, discounted by 0.9 per decision before
    ends = np.flatnonzero(np.diff(data["episodes"], append=data["episodes"][-1] + 1))
    last = data["returns"][ends]
    assert np.all(np.abs(last) <= 1.0 + 3.0) and np.any(last > 0.5) and np.any(last < 0)
    for e in ends[:5]:
        if e > 0 and data["episodes"][e - 1] == data["episodes"][e]:
            assert data["returns"][e - 1] == pytest.approx(0.9 * data["returns"][e])
    assert collect(env, planner, 300, seed=4, gamma=0.9)["actions"].tolist() == data["actions"].tolist()


def test_an_expert_that_wants_the_public_history_gets_the_learner_seats():
    """``search`` as the expert (``domino-bc --expert search:N``): collect passes it the learner
    seat's InformationState, whose own hand is the hand of the observation it labels."""
    from domino_env.agents.seat_view import observation_view

    rules = {"num_players": 3, "max_pip": 9}
    env = LearnerEnv(rules, ["greedy"], reward="mixed")
    seen = []

    class Spy:
        wants_info_state = True

        def __call__(self, obs, mask, rng, info_state=None):
            seat = info_state.seat
            seen.append(info_state.public.hands[seat] == observation_view(obs, 3, 9).hand_mask)
            return int(np.flatnonzero(mask)[0])

    collect(env, Spy(), 60, seed=4, gamma=0.9)
    assert len(seen) >= 60 and all(seen)
    data = collect(env, make_agent("search:4", rules), 30, seed=4, gamma=0.9)
    for i in range(len(data["actions"])):
        mask = np.unpackbits(data["masks"][i], count=env.action_space.n).astype(bool)
        assert mask[data["actions"][i]]


def test_smoke_run_writes_a_loadable_model_folder(bc_run):
    out, data, res = bc_run
    # two players: one opponent per tournament, named in the singular
    assert f"{out / 'model.zip'}: 8 duplicate-deal rounds vs 1 copy of each ladder agent" in " ".join(res.stdout.split())
    assert "pips (1 opponent) " in res.stdout
    for name in ("model.zip", "best_model.zip", "metadata.json", "final_evaluation.md"):
        assert (out / name).is_file(), name
    assert data.is_file() and not (out / "data.npz").exists()
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["status"] == "done" and meta["trained_by"].startswith("behaviour cloning")
    assert meta["command"] == "python -m domino_env.train.bc " + shlex.join(meta["argv"])
    assert meta["argv"][:2] == ["--players", "2"]
    assert meta["env_kwargs"]["num_players"] == 2 and meta["args"]["net_arch"] == [32]
    phases = [p["phase"] for p in meta["dataset"]["phases"]]
    assert phases == ["expert", "dagger 1"] and meta["dataset"]["samples"] >= 3500
    assert 0 <= meta["dataset"]["phases"][1]["on_policy_agreement"] <= 1
    assert [e["epoch"] for e in meta["bc_epochs"]] == [1, 2, 3, 4, 1, 2, 3, 4]
    assert [e["phase"] for e in meta["bc_epochs"]] == ["cloning"] * 4 + ["cloning 1/1"] * 4
    # it imitates: the held-out agreement with the planner is far above a uniform legal choice
    assert meta["bc_epochs"][-1]["val_agreement"] > 0.45
    assert meta["final_evaluation"]["greedy"]["rounds"] == 8
    res = evaluate([f"ppo:{out}", "planner"], rounds=8, num_players=2, max_pip=9, seed=3)
    assert res.stats_for(f"ppo:{out}").seat_episodes == 8
    agent = load_ppo_agent(out, {"num_players": 2, "max_pip": 9})
    assert agent.metadata["trained_by"].startswith("behaviour cloning")


def test_the_dataset_is_reused_and_a_mismatched_one_refused(bc_run, tmp_path):
    out, data, _ = bc_run
    again = tmp_path / "again"
    res = _run("domino_env.train.bc", [*SMALL, "--epochs", "1", "--final-eval-rounds", "0", "--dataset", str(data),
                            "--out", str(again)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = json.loads((again / "metadata.json").read_text())
    assert meta["dataset"]["phases"][0]["phase"] == "expert (loaded)"
    assert f"--dataset {data}: loaded its " in res.stderr  # not the default --samples 100000
    first = json.loads((out / "metadata.json").read_text())["dataset"]["phases"][0]["samples"]
    assert meta["dataset"]["samples"] == first
    with pytest.raises(ValueError, match="max_pip|rules"):
        load_dataset(data, {"rules": {"max_pip": 12}})
    res = _run("domino_env.train.bc", ["--players", "3", "--dataset", str(data), "--out", str(tmp_path / "x")])
    assert res.returncode == 2 and "--dataset" in res.stderr and "differs in" in res.stderr
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"nonsense")
    res = _run("domino_env.train.bc", ["--dataset", str(junk), "--out", str(tmp_path / "y")])
    assert res.returncode == 2 and "not a domino-bc dataset" in res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


@pytest.mark.parametrize(
    "args, flag",
    [(["--expert", "nobody"], "--expert nobody"), (["--samples", "0"], "--samples"),
     (["--val-fraction", "1"], "--val-fraction"), (["--dagger-beta", "2"], "--dagger-beta"),
     (["--eval-opponents", "foo"], "--eval-opponents foo"), (["--net-arch", "0"], "--net-arch"),
     (["--policy", "flat"], "--policy"), (["--workers", "0"], "--workers"),
     (["--dagger-samples", "100"], "--dagger-samples: has no effect without --dagger-iters"),
     (["--dagger-beta", "0.5"], "--dagger-beta: has no effect without --dagger-iters"),
     (["--samples", "0", "--dagger-iters", "1"], "--samples 0: needs --init-from"),
     (["--kl-coef", "1"], "--kl-coef: needs --init-from"), (["--kl-coef", "-1"], "--kl-coef"),
     (["--init-from", "/nonexistent/model"], "--init-from /nonexistent/model"),
     (["--init-from", "checkpoints/mexican_train_4p_d12_action_scores", "--samples", "0"], "--samples 0: needs --dagger-iters"),
     (["--init-from", "checkpoints/mexican_train_4p_d12_action_scores", "--policy", "mlp"], "the model has --policy action-scores")],
)  # fmt: skip
def test_bad_flags_are_refused_before_any_work(tmp_path, args, flag):
    res = _run("domino_env.train.bc", [*args, "--out", str(tmp_path / "run")])
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and flag in lines[0], res.stderr
    assert not (tmp_path / "run").exists()


def test_ppo_fine_tunes_the_clone(bc_run, tmp_path):
    out, _, _ = bc_run
    common = ["--players", "2", "--max-pip", "9", "--opponents", "greedy", "--timesteps", "128", "--n-envs", "1",
              "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--eval-freq", "0",
              "--final-eval-rounds", "0", "--no-progress", "--no-tensorboard", "--quiet"]  # fmt: skip
    tuned = tmp_path / "tuned"
    res = _run("domino_env.train.ppo", [*common, "--net-arch", "32", "--init-from", str(out), "--out", str(tuned)])
    assert res.returncode == 0, res.stderr
    meta = json.loads((tuned / "metadata.json").read_text())
    assert meta["initialized_from"]["path"] == str(out / "model.zip") and meta["resumed_from"] is None
    assert meta["status"] == "done" and meta["timesteps"] >= 128
    from sb3_contrib import MaskablePPO

    clone, fine = (MaskablePPO.load(p / "model.zip", device="cpu").policy.state_dict() for p in (out, tuned))
    # it started from the clone's weights: two small PPO updates later they are still close
    assert max(float((clone[k] - fine[k]).abs().max()) for k in clone) < 0.05
    # another architecture than the clone's is refused, naming the flag
    res = _run("domino_env.train.ppo", [*common, "--init-from", str(out), "--out", str(tmp_path / "no")])
    assert res.returncode == 2 and "--net-arch" in res.stderr and not (tmp_path / "no").exists()
    resumed = tmp_path / "resumed"
    res = _run("domino_env.train.ppo", [*common, "--resume", str(out), "--out", str(resumed)])
    assert res.returncode == 0, res.stderr
    assert json.loads((resumed / "metadata.json").read_text())["resumed_from"]["timesteps"] == 0


def test_the_held_out_episodes_stay_held_out_as_the_dataset_grows():
    from domino_env.train.bc import held_out

    episodes = np.repeat(np.arange(4000), 3)
    split = held_out(episodes, 0.05)
    assert 0.03 < split.mean() < 0.07
    assert np.array_equal(held_out(episodes[:3000], 0.05), split[:3000])
    assert not held_out(episodes, 0.0).any()


def test_a_line_game_clone_plays_its_game(tmp_path):
    out = tmp_path / "cuban"
    res = _run("domino_env.train.bc", ["--game", "cuban", "--samples", "400", "--epochs", "1", "--net-arch", "16",
                            "--final-eval-rounds", "0", "--no-progress", "--quiet", "--out", str(out)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["game"] == "cuban" and meta["observation_scaling"] == "line-unit-v1"
    assert meta["args"]["reward"] == "outcome"  # the line games' default
    spec = f"ppo:{out}"
    res = evaluate([spec, "greedy", spec, "greedy"], rounds=4, seed=1, game="cuban")
    assert res.teams and res.stats_for(spec).seat_episodes == 8


def test_a_non_empty_out_is_refused_unless_overwritten(tmp_path):
    out = tmp_path / "old"
    out.mkdir()
    (out / "best_model.zip").write_bytes(b"an old model")
    (out / "final_evaluation.md").write_text("old")
    tiny = ["--samples", "200", "--epochs", "1", "--net-arch", "16", "--final-eval-rounds", "0", "--no-progress",
            "--quiet", "--out", str(out)]  # fmt: skip
    res = _run("domino_env.train.bc", tiny)
    assert res.returncode == 2 and res.stderr.splitlines() == [
        f"domino-bc: error: --out {out}: folder exists and is not empty; give a new folder, or --overwrite to "
        "replace its run files (domino-bc --help lists every option)"
    ]  # domino-bc has no --resume: not offered
    assert (out / "best_model.zip").read_bytes() == b"an old model"
    res = _run("domino_env.train.bc", [*tiny, "--overwrite"])
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["best_model.zip", "metadata.json", "model.zip"]
    assert load_ppo_agent(out).name


SMALL_ENV = {"env_kwargs": {"num_players": 2, "max_pip": 9}, "opponents": ["greedy"], "opponent_mode": "mix",
             "reward": "mixed", "pips_coef": 1.0, "self_play": 0.0, "game": "mexican_train",
             "policy_input": "observation"}  # fmt: skip


def test_parallel_collection_is_reproducible_and_labels_with_the_expert():
    from domino_env.train.bc_data import DATASET_KEYS, collect_parallel

    rules = SMALL_ENV["env_kwargs"]
    planner = make_agent("planner", rules)
    alone = collect(LearnerEnv(**SMALL_ENV), planner, 120, seed=5, gamma=0.9)
    one = collect_parallel(SMALL_ENV, planner, 120, 5, 0.9, workers=1)
    assert all(np.array_equal(one[k], alone[k]) for k in DATASET_KEYS)
    two = collect_parallel(SMALL_ENV, planner, 240, 5, 0.9, workers=2, first_episode=7)
    again = collect_parallel(SMALL_ENV, planner, 240, 5, 0.9, workers=2, first_episode=7)
    assert all(np.array_equal(two[k], again[k]) for k in DATASET_KEYS)
    # worker 0 records what one process does with the same seed (its share: 120 decisions)
    n0 = len(alone["actions"])
    assert np.array_equal(two["observations"][:n0], alone["observations"]) and len(two["actions"]) >= 240
    # worker 1 plays other deals, and the episode ids run on from worker 0's without a gap
    assert not np.array_equal(two["observations"][n0 : 2 * n0], alone["observations"][: len(two["actions"]) - n0][:n0])
    ids = two["episodes"]
    assert ids[0] == 7 and set(np.diff(ids).tolist()) <= {0, 1} and len(np.unique(ids)) == ids[-1] - 6
    num_actions = int(LearnerEnv(**SMALL_ENV).action_space.n)
    rng = np.random.default_rng(0)
    for i in range(n0, len(ids), 5):  # worker 1's labels are the planner's choices too
        mask = np.unpackbits(two["masks"][i], count=num_actions).astype(bool)
        assert planner(two["observations"][i].astype(np.float32), mask, rng) == two["actions"][i]


def test_the_kl_term_keeps_a_fine_tuned_clone_near_its_start():
    """``--kl-coef``: cloning with KL(start || clone) moves the policy far less than without."""
    import copy

    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from domino_env.train.bc import build_parser, fit, ppo_hyperparameters
    from domino_env.train.learner_env import make_env_fn
    from domino_env.train.ppo import new_model

    env = LearnerEnv(**SMALL_ENV)
    data = collect(env, make_agent("planner", SMALL_ENV["env_kwargs"]), 600, seed=1, gamma=0.9)
    args = build_parser().parse_args(["--net-arch", "32", "--players", "2", "--max-pip", "9"])
    args.policy, args.reward = "mlp", "mixed"
    torch.manual_seed(0)
    start = new_model(ppo_hyperparameters(args), DummyVecEnv([make_env_fn(SMALL_ENV)])).policy
    n = int(env.action_space.n)
    obs = torch.as_tensor(data["observations"].astype(np.float32) * env.scale)
    masks = torch.as_tensor(np.unpackbits(data["masks"], axis=1, count=n).astype(bool))
    kl, loss = [], []
    for coef in (0.0, 20.0):
        clone = copy.deepcopy(start)
        log = fit(clone, data, env.scale, n, 4, 64, 3e-3, 0.5, 0.1, 0, anchor=copy.deepcopy(start), kl_coef=coef)
        with torch.no_grad():
            p0 = start.get_distribution(obs, action_masks=masks).distribution.probs
            logp = clone.get_distribution(obs, action_masks=masks).distribution.logits
        kl.append(float(torch.where(p0 > 0, p0 * (torch.log(p0.clamp_min(1e-30)) - logp), 0.0).sum(1).mean()))
        loss.append(log[-1]["val_loss"])
    assert kl[0] > 0.1 and kl[1] < kl[0] / 10, kl
    assert loss[0] < loss[1], loss  # the unanchored clone imitates the planner more closely (held-out loss)


def test_a_clone_fine_tuned_on_search_labels_from_a_model(tmp_path):
    """``--policy action-scores`` from scratch, then ``--init-from`` it with ``--samples 0``: the
    DAgger round (two collection workers) is the whole dataset, the clone starts from the model."""
    start, tuned = tmp_path / "start", tmp_path / "tuned"
    common = ["--players", "2", "--max-pip", "9", "--opponents", "greedy", "--seed", "2", "--final-eval-rounds", "0",
              "--no-progress", "--quiet"]  # fmt: skip
    res = _run("domino_env.train.bc", [*common, "--policy", "action-scores", "--samples", "800", "--epochs", "6",
                                       "--out", str(start)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = json.loads((start / "metadata.json").read_text())
    assert meta["args"]["policy"] == "action-scores" and meta["policy_input"] == "action-features-v1"
    # the planner's move is one of the features: the clone learns to copy it (an MLP clone of these
    # 800 decisions agrees 0.58 on the held-out ones)
    assert meta["bc_epochs"][-1]["val_agreement"] > 0.8
    res = _run("domino_env.train.bc", [*common, "--init-from", str(start), "--samples", "0", "--dagger-iters", "1",
                                       "--dagger-samples", "200", "--expert", "search:4", "--workers", "2",
                                       "--kl-coef", "1", "--epochs", "1", "--learning-rate", "1e-9", "--out", str(tuned)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = json.loads((tuned / "metadata.json").read_text())
    assert meta["args"]["policy"] == "action-scores"  # taken from the model
    assert meta["initialized_from"]["path"] == str(start / "model.zip")
    assert [p["phase"] for p in meta["dataset"]["phases"]] == ["dagger 1"] and meta["dataset"]["samples"] >= 200
    from sb3_contrib import MaskablePPO

    a, b = (MaskablePPO.load(p / "model.zip", device="cpu").policy.state_dict() for p in (start, tuned))
    assert max(float((a[k] - b[k]).abs().max()) for k in a) < 1e-4  # lr 1e-9: still the start model
    agent = load_ppo_agent(tuned, {"num_players": 2, "max_pip": 9})
    assert agent.metadata["policy_input"] == "action-features-v1"
    # the DAgger round's search labels are kept in the run folder, as a dataset file another run reads
    assert meta["dataset"]["dagger_file"] == "dagger_samples.npz"
    with np.load(tuned / "dagger_samples.npz") as f:
        kept = len(f["actions"])
    assert kept == meta["dataset"]["samples"]
    reuse = tmp_path / "reuse"
    res = _run("domino_env.train.bc", [*common, "--dataset", str(tuned / "dagger_samples.npz"), "--expert", "search:4",
                                       "--policy", "action-scores", "--samples", "100", "--epochs", "1",
                                       "--out", str(reuse)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = json.loads((reuse / "metadata.json").read_text())
    assert meta["dataset"]["phases"][0]["phase"] == "expert (loaded)"
    assert meta["dataset"]["samples"] == kept and meta["dataset"]["dagger_file"] is None


def test_ctrl_c_during_parallel_collection_saves_the_samples(tmp_path):
    """A real SIGINT to the process group (as Ctrl-C) while two workers collect: the samples so
    far go to --dataset, the command exits 130 and no worker outlives it."""
    import os
    import signal
    import time

    data = tmp_path / "data.npz"
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.bc", *SMALL, "--samples", "1000000",
                             "--workers", "2", "--dataset", str(data), "--out", str(tmp_path / "run")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    time.sleep(12)  # the workers start (spawn) and record some episodes
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted while collecting" in err and "Traceback" not in err
    with np.load(data) as f:
        assert 0 < len(f["actions"]) < 1000000 and len(np.unique(f["episodes"])) == f["episodes"][-1] + 1
    assert not (tmp_path / "run").exists()
    for _ in range(20):  # every process of the group is gone (init reaps the resource tracker)
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.5)
    else:
        pytest.fail("a process of the command's group is still alive 10 s after it exited")


def test_overwrite_of_the_init_from_folder_is_refused_and_deletes_nothing(bc_run, tmp_path):
    """``--init-from X --out X --overwrite`` would delete X's model before loading it: refused."""
    import shutil

    start = tmp_path / "start"
    shutil.copytree(bc_run[0], start)
    before = sorted(p.name for p in start.iterdir())
    res = _run("domino_env.train.bc", [*SMALL, "--init-from", str(start), "--out", str(start), "--overwrite",
                                       "--samples", "100", "--epochs", "1", "--final-eval-rounds", "0"])  # fmt: skip
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "--overwrite would delete the model that --init-from starts from" in lines[0]
    assert sorted(p.name for p in start.iterdir()) == before
    assert load_ppo_agent(start, {"num_players": 2, "max_pip": 9}).name


def test_a_dataset_of_an_interrupted_collection_is_not_reused_as_complete(bc_run, tmp_path):
    """The samples an interrupted collection saved are marked: a later run that asks for more
    decisions than they hold is refused (one line), not trained silently on fewer; asking for at
    most that many clones them."""
    from domino_env.train.bc_data import interrupted_of, save_dataset

    _, data, _ = bc_run
    with np.load(data) as f:
        arrays = {k: f[k] for k in f.files if k != "fingerprint"}
        fingerprint = json.loads(str(f["fingerprint"]))
    have = len(arrays["actions"])
    part = tmp_path / "part.npz"
    save_dataset(part, arrays, fingerprint, interrupted_of=100_000)
    assert interrupted_of(part) == 100_000 and interrupted_of(data) is None
    common = [*SMALL, "--epochs", "1", "--final-eval-rounds", "0", "--dataset", str(part)]
    res = _run("domino_env.train.bc", [*common, "--out", str(tmp_path / "refused")])
    assert res.returncode == 2 and res.stderr.strip().splitlines() == [
        f"domino-bc: error: --dataset {part}: holds {have} decisions of an interrupted collection of 100000; "
        f"give --samples {have} (or fewer) to clone them, or delete the file to collect again "
        "(domino-bc --help lists every option)"
    ]
    assert not (tmp_path / "refused").exists()
    res = _run("domino_env.train.bc", [*common, "--samples", str(have), "--out", str(tmp_path / "ok")])
    assert res.returncode == 0, res.stderr
    meta = json.loads((tmp_path / "ok" / "metadata.json").read_text())
    assert meta["dataset"]["phases"][0]["phase"] == "expert (loaded)" and meta["dataset"]["samples"] == have


def _children(pid):
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
def test_ctrl_c_while_the_collection_workers_start(tmp_path):
    """A SIGINT to the process group just after the workers are spawned (while they import, before
    they ignore SIGINT themselves) ends the command as any Ctrl-C during collection: exit 130, no
    traceback from a worker or the command, no model, and no empty dataset file."""
    import os
    import signal
    import time

    data = tmp_path / "data.npz"
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.bc", *SMALL, "--samples", "1000000",
                             "--workers", "2", "--dataset", str(data), "--out", str(tmp_path / "run")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 120
    while len(_children(proc.pid)) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)  # the resource tracker and the two workers
    assert proc.poll() is None, proc.communicate()[1]
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted while collecting" in err and "Traceback" not in err and "KeyboardInterrupt" not in err
    assert not (tmp_path / "run").exists()
    if data.exists():  # the signal came late enough for some episodes to end
        with np.load(data) as f:
            assert len(f["actions"]) > 0 and int(f["interrupted_of"]) == 1000000


def test_the_on_policy_agreement_of_an_empty_dagger_round_is_none_not_nan():
    """A DAgger round stopped before its first decision records None (strict JSON, no numpy
    warning), a real round the share of decisions where the clone plays the expert's label."""
    import warnings

    from domino_env.train.bc import on_policy_agreement
    from domino_env.train.bc_data import collect_parallel

    planner = make_agent("planner", SMALL_ENV["env_kwargs"])
    n = int(LearnerEnv(**SMALL_ENV).action_space.n)

    class StopNow:
        received = "SIGINT"

    empty = collect_parallel(SMALL_ENV, planner, 100, 0, 0.9, workers=1, stop=StopNow())
    assert len(empty["actions"]) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert on_policy_agreement(planner, empty, n) is None
    data = collect(LearnerEnv(**SMALL_ENV), planner, 60, seed=3, gamma=0.9)
    assert on_policy_agreement(planner, data, n) == 1.0  # the expert agrees with its own labels
    greedy = make_agent("greedy", SMALL_ENV["env_kwargs"])
    share = on_policy_agreement(greedy, data, n)
    assert 0 < share < 1 and share == round(share, 4)


def test_ctrl_c_during_a_dagger_round_keeps_its_labels(tmp_path):
    """A real SIGINT while two workers collect a DAgger round: the model so far is saved (status
    interrupted) and the round's labelled decisions are in the run folder's dagger_samples.npz."""
    import os
    import signal
    import time

    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.bc", *SMALL, "--samples", "300", "--epochs", "1",
                             "--dagger-iters", "1", "--dagger-samples", "1000000", "--workers", "2",
                             "--final-eval-rounds", "0", "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    time.sleep(20)  # collection and cloning of the 300 expert decisions take a few seconds
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err, err
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["status"] == "interrupted" and [p["phase"] for p in meta["dataset"]["phases"]] == ["expert", "dagger 1"]
    with np.load(out / "dagger_samples.npz") as f:
        kept = len(f["actions"])
    assert 0 < kept == meta["dataset"]["phases"][1]["samples"] < 1000000


def test_a_dataset_that_the_run_would_replace_is_refused(tmp_path):
    """``--dataset OUT/dagger_samples.npz --out OUT``: ``--overwrite`` would delete the labels
    being reused and a DAgger round would rewrite the file with its own samples only; refused in
    one line before any work, the file untouched (the old folder's or the new one's)."""
    out = tmp_path / "run"
    small = [*SMALL, "--samples", "300", "--epochs", "1", "--final-eval-rounds", "0"]
    res = _run("domino_env.train.bc", [*small, "--dagger-iters", "1", "--dagger-samples", "100", "--out", str(out)])
    assert res.returncode == 0, res.stderr
    kept = out / "dagger_samples.npz"
    labels, files = kept.read_bytes(), sorted(p.name for p in out.iterdir())
    for more in ([], ["--dagger-iters", "1", "--dagger-samples", "100"]):
        res = _run("domino_env.train.bc", [*small, *more, "--dataset", str(kept), "--out", str(out), "--overwrite"])
        assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
        assert f"--dataset {kept}: is the run file dagger_samples.npz of --out {out}" in res.stderr
        assert kept.read_bytes() == labels and sorted(p.name for p in out.iterdir()) == files
    new = tmp_path / "new"
    res = _run("domino_env.train.bc", [*SMALL, "--dataset", str(new / "dagger_samples.npz"), "--out", str(new),
                                       "--dagger-iters", "1"])  # fmt: skip
    assert res.returncode == 2 and "is the run file dagger_samples.npz" in res.stderr and not new.exists()


def test_a_truncated_dataset_file_is_one_line(tmp_path):
    """A dataset cut short (a copy or a disk that filled up) is a zip without its directory:
    one line naming the file, not a zipfile traceback."""
    whole = tmp_path / "whole.npz"
    np.savez_compressed(whole, actions=np.arange(1000))
    cut = tmp_path / "cut.npz"
    cut.write_bytes(whole.read_bytes()[:100])
    res = _run("domino_env.train.bc", [*SMALL, "--dataset", str(cut), "--out", str(tmp_path / "y")])
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert f"--dataset {cut}: not a domino-bc dataset (BadZipFile" in res.stderr and not (tmp_path / "y").exists()


def test_the_overwrite_help_names_the_dagger_samples_it_deletes():
    res = _run("domino_env.train.bc", ["--help"])
    assert res.returncode == 0
    assert "delete its run files (models, metadata, evaluations, dagger_samples.npz) before collecting" in " ".join(
        res.stdout.split()
    )
