"""``domino-bc`` with a slow expert and a trained model: collection in worker processes
(reproducible, labelled by the expert), the KL anchor, fine-tuning from a model with ``--samples
0`` (the DAgger rounds are the dataset, kept in the run folder) and real signals during collection.
"""

import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from bc_helpers import ROOT, SMALL, SMALL_ENV
from bc_helpers import run_module as _run
from process_helpers import wait_for_worker_cpu

from domino_env.agents import make_agent
from domino_env.agents.ppo import load_ppo_agent
from domino_env.train.bc import collect
from domino_env.train.learner_env import LearnerEnv


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
    k = min(n0, len(two["actions"]) - n0)  # worker 1's first decisions against worker 0's
    assert not np.array_equal(two["observations"][n0 : n0 + k], alone["observations"][:k])
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
    wait_for_worker_cpu(proc, 8)  # the workers start (spawn) and record some episodes; no fixed sleep
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGINT, err  # killed by it after its line: a shell's 130
    assert "interrupted while collecting" in err and "Traceback" not in err
    # what the signal's first line promises is what happens (it said "saving what is done" of a
    # model that is never written)
    assert (f"SIGINT received: stopping at the end of the episodes being played, then saving the samples so far "
            f"to {data} (no model: nothing is fitted yet)") in err  # fmt: skip
    with np.load(data) as f:
        assert 0 < len(f["actions"]) < 1000000 and len(np.unique(f["episodes"])) == f["episodes"][-1] + 1
        kept = len(f["actions"])
    assert (f"the {kept} samples so far are in {data}: the same command continues the collection, with --samples "
            f"{kept} it clones them") in err  # fmt: skip
    assert not (tmp_path / "run").exists()
    for _ in range(20):  # every process of the group is gone (init reaps the resource tracker)
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.5)
    else:
        pytest.fail("a process of the command's group is still alive 10 s after it exited")


def test_a_second_ctrl_c_while_the_collection_stops_after_overwrite_says_the_old_runs_files_are_gone(tmp_path):
    """A real Ctrl-C while two workers collect with --overwrite, then a second one while they
    finish their episodes (the abort): the first one's line says what --overwrite removed and the
    command that makes the run again; the abort said only "a second signal: aborted without
    saving". It now says the same facts, in the same words, and is the last line."""
    import os
    import signal
    import time

    out = tmp_path / "old"
    out.mkdir()
    for name in ("model.zip", "metadata.json", "notes.txt"):
        (out / name).write_text("the old run's")
    # a slow expert: each worker is still in its episode when the second signal comes
    argv = [*SMALL, "--samples", "1000000", "--workers", "2", "--expert", "search:100000", "--out", str(out),
            "--overwrite"]  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.bc", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    try:
        wait_for_worker_cpu(proc, 2)  # the workers collect
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(1.5)  # more than StopSignals.SAME_REQUEST: a user asking again, not one request twice
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == -signal.SIGINT, err
    # the first signal's line, then the abort's, and nothing after it (the killed workers' semaphores
    # were reported by multiprocessing's resource tracker: "There appear to be 2 leaked semaphore objects")
    assert err.splitlines()[1:] == [
        "domino-bc: interrupted (a second signal: aborted without saving; --overwrite removed the old run's files "
        f"from {out} at the start (metadata.json, model.zip): run the command again to make the run there: "
        f"python -m domino_env.train.bc {shlex.join(argv)})"], err  # fmt: skip
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


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
    assert proc.returncode == -signal.SIGINT, err  # killed by it after its line: a shell's 130
    assert "interrupted while collecting" in err and "Traceback" not in err and "KeyboardInterrupt" not in err
    assert not (tmp_path / "run").exists()
    if data.exists():  # the signal came late enough for some episodes to end
        with np.load(data) as f:
            assert len(f["actions"]) > 0 and int(f["interrupted_of"]) == 1000000


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
def test_the_collection_workers_stop_when_the_command_is_killed(tmp_path):
    """A SIGKILL of the command (no handler runs) left its two workers playing on to the end of
    their shares, reparented to init, their samples thrown away; now they stop at once, and remove
    the temporary folder of their parts (left empty in $TMPDIR before)."""
    import os
    import signal
    import time

    from process_helpers import running

    temp = tmp_path / "tmp"  # the command's $TMPDIR, where its workers' parts go (domino-bc-*)
    temp.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.bc", *SMALL, "--samples", "1000000",
                             "--workers", "2", "--dataset", str(tmp_path / "data.npz"), "--out", str(tmp_path / "run")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, "TMPDIR": str(temp)})  # fmt: skip
    try:
        wait_for_worker_cpu(proc, 4)  # the workers collect
        workers = [pid for pid in _children(proc.pid) if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text()]
        assert len(workers) == 2
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 30  # a bound, not a timing assertion: they stop at their next decision
        while any(running(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(running(pid) for pid in workers)
        assert list(temp.glob("domino-bc-*")) == []  # the workers removed the folder of their parts
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert not (tmp_path / "data.npz").exists()


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
    args = [*SMALL, "--samples", "300", "--epochs", "1", "--dagger-iters", "1", "--dagger-samples", "1000000",
            "--workers", "2", "--final-eval-rounds", "0"]  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.bc", *args, "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    time.sleep(20)  # collection and cloning of the 300 expert decisions take a few seconds
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGINT and "Traceback" not in err, err
    # the first line says what is saved (it said "no model is written (nothing is fitted yet)")
    assert ("SIGINT received: stopping at the end of the episodes being played, then saving the model so far "
            f"and this run's DAgger samples ({out / 'dagger_samples.npz'})") in err  # fmt: skip
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["status"] == "interrupted" and [p["phase"] for p in meta["dataset"]["phases"]] == ["expert", "dagger 1"]
    with np.load(out / "dagger_samples.npz") as f:
        kept = len(f["actions"])
    assert 0 < kept == meta["dataset"]["phases"][1]["samples"] < 1000000
    # the line says where the model is and how to go on from it
    # (with the run's rules and options: tests/train/test_bc.py runs both commands)
    clone_on = shlex.join([*args, "--init-from", str(out), "--out", "NEW_FOLDER"])
    assert (f"SIGINT: interrupted; saved {out / 'model.zip'}, the model so far (status interrupted); it loads as "
            f"ppo:{out}; clone on from it with python -m domino_env.train.bc {clone_on}, or fine-tune it with "
            f"python -m domino_env.train.ppo --game mexican_train --players 2 --max-pip 9 --init-from {shlex.quote(str(out))}"
            ) in err  # fmt: skip




def test_a_signal_while_the_collectors_start_is_acted_on_once_all_have_started():
    """A spawned collector whose start a KeyboardInterrupt cut read half its start-up data (an
    EOFError traceback). The main thread blocks the signal while they start, but another thread of
    the process (torch's, tqdm's) may take it, and Python then raised it in the main thread mid-start;
    it is now held until every collector has started."""
    import os
    import signal
    import threading
    import time

    from domino_env.train.bc_data import _start_blocked

    other = threading.Thread(target=time.sleep, args=(1.0,), daemon=True)  # a thread that takes the signal
    other.start()
    started = []

    class Proc:
        def __init__(self, k):
            self.k = k

        def start(self):
            if self.k == 0:
                os.kill(os.getpid(), signal.SIGINT)  # a terminal's Ctrl-C while the first one starts
                time.sleep(0.2)
            started.append(self.k)

    with pytest.raises(KeyboardInterrupt):
        _start_blocked([Proc(k) for k in range(3)])
    assert started == [0, 1, 2]
