"""``domino-train`` and stop signals: a real SIGINT / SIGTERM (to the process, its group, or
both at once as ``timeout`` sends them) leaves a resumable run (``model.zip``, ``metadata.json`` with
status ``"interrupted"``) that ``--resume`` continues; a signal while the env workers start, while an
evaluation saves, during the last update or the final evaluation, and a second signal (abort), each
end the run cleanly with one line.
"""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from ppo_helpers import ROOT, SMALL
from ppo_helpers import run_ppo as _run
from process_helpers import stopped_status


@pytest.mark.parametrize(
    "signum, send, vec",
    [(signal.SIGINT, "group", "subproc"), (signal.SIGTERM, "process", "dummy"),
     (signal.SIGTERM, "process-and-group", "subproc")],
    ids=["ctrl-c-to-the-process-group-subproc", "sigterm-to-the-process-dummy",
         "sigterm-twice-at-once-as-timeout-sends-it-subproc"],
)  # fmt: skip
def test_a_signal_leaves_a_resumable_run(tmp_path, signum, send, vec):
    # coreutils timeout signals the process and then its process group: the main process gets the
    # signal twice at once, which is one stop request (a clean save), not a second "abort" signal
    out = tmp_path / "run"
    args = [*SMALL, "--timesteps", "10000000", "--n-envs", "2", "--vec-env", vec, "--eval-freq", "128",
            "--eval-rounds", "2", "--eval-opponents", "greedy", "--out", str(out)]
    proc = subprocess.Popen([sys.executable, "-m", "train.ppo", *args], cwd=ROOT, stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True, start_new_session=True)  # fmt: skip
    try:
        line = proc.stderr.readline()  # printed once the signal handlers are in place
        assert line.startswith("training 10000000 steps"), line
        meta_file = out / "metadata.json"
        for _ in range(1200):  # until the first periodic evaluation has been written (it has trained)
            if (out / "evaluations.json").exists() or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert proc.poll() is None and (out / "evaluations.json").exists()
        if send in ("process", "process-and-group"):
            os.kill(proc.pid, signum)
        if send in ("group", "process-and-group"):
            os.killpg(os.getpgid(proc.pid), signum)
        rest = proc.stderr.read()
        rc = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert rc == stopped_status(signum), rest
    assert "Traceback" not in rest and f"{signal.Signals(signum).name} received" in rest
    meta = json.loads(meta_file.read_text())
    assert meta["status"] == "interrupted" and meta["stopped_early"].startswith(signal.Signals(signum).name)
    assert (out / "model.zip").is_file() and (out / "best_model.zip").is_file()
    assert 128 <= meta["timesteps"] < 10_000_000
    # started as python -m: the hint continues it the same way (from any folder)
    assert f"continue with: python -m domino_env.train.ppo --resume {out} --out {out} --timesteps " in rest

    more = tmp_path / "more"
    res = _run(["--resume", str(out), *SMALL, "--timesteps", "128", "--n-envs", "1", "--out", str(more),
                "--quiet"])  # fmt: skip
    assert res.returncode == 0, res.stderr
    resumed = json.loads((more / "metadata.json").read_text())
    assert resumed["status"] == "done" and resumed["resumed_from"]["timesteps"] == meta["timesteps"]
    assert resumed["resumed_from"]["status"] == "interrupted"
    assert resumed["timesteps"] >= meta["timesteps"] + 128


def _signal_when(proc, ready, signum, poll_s, polls, settle_s):
    """Wait (``polls`` x ``poll_s`` at most) until ``ready()``, then ``settle_s`` more, then send
    ``signum`` to the command: its ``(exit code, stderr)``. The command must still be running."""
    try:
        for _ in range(polls):
            if proc.poll() is not None or ready():
                break
            time.sleep(poll_s)
        assert proc.poll() is None
        time.sleep(settle_s)
        os.kill(proc.pid, signum)
        err = proc.stderr.read()
        return proc.wait(timeout=120), err
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_a_signal_while_the_env_workers_start_is_one_line_and_leaves_no_empty_run_folder(tmp_path, signum):
    """Before the stop handlers were in place (while the env workers start and the model is
    built), SIGTERM killed the command at once: exit -15, no line, the workers' BrokenPipeError
    tracebacks, and the claimed default folder runs/ppo_<date>_<time> left empty (later its
    parent runs/, made for it)."""
    args = [*SMALL, "--timesteps", "256", "--n-envs", "4", "--vec-env", "subproc"]
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.ppo", *args], cwd=tmp_path,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)  # fmt: skip
    runs = tmp_path / "runs"  # the default run folder is claimed just before the workers start
    rc, err = _signal_when(proc, lambda: runs.is_dir() and any(runs.iterdir()), signum, 0.01, 3000, 0.1)
    assert (rc, err) == (stopped_status(signum), "domino-train: interrupted\n")
    assert not runs.exists()  # runs/ too, which the command made for it (it was left behind empty)



@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task"), reason="reads a process's children in /proc")
def test_ctrl_c_to_the_process_group_while_the_env_workers_start_is_one_line(tmp_path):
    """Ctrl-C in a terminal reaches the whole process group, the env workers being started too:
    a worker still starting (before it ignores SIGINT) died of a KeyboardInterrupt, and the
    command ended in a ConnectionResetError / EOFError traceback with exit status 1."""
    args = [*SMALL, "--timesteps", "256", "--n-envs", "2", "--vec-env", "subproc", "--out", str(tmp_path / "run")]
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.ppo", *args], cwd=tmp_path,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            start_new_session=True)  # fmt: skip
    children = f"/proc/{proc.pid}/task/{proc.pid}/children"
    try:
        for _ in range(6000):  # until its first child process (the workers' start) exists
            if proc.poll() is not None or (os.path.exists(children) and open(children).read().split()):
                break
            time.sleep(0.005)
        assert proc.poll() is None
        os.killpg(proc.pid, signal.SIGINT)
        err = proc.stderr.read()
        rc = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (rc, err) == (-signal.SIGINT, "domino-train: interrupted\n")  # killed by it after its line: a shell's 130


def test_a_signal_while_an_evaluation_saves_its_files_lets_the_save_finish(tmp_path, monkeypatch):
    """A stop signal while a periodic evaluation writes ``model.zip`` waits for the write to end
    (raised inside ``model.save`` it left a torch zip error in place of the clean stop): the run
    stops at the next step with the evaluation kept and a loadable model."""
    from sb3_contrib import MaskablePPO

    from domino_env.train import ppo
    from domino_env.train.run_folder import RunFolder

    real_save = RunFolder.save_model
    finished: list[str] = []

    def save_with_a_signal(folder, model, name="model.zip"):
        if finished == ["best_model.zip"]:  # the first periodic evaluation's resumable model.zip
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)  # the handler runs here, inside the save
        path = real_save(folder, model, name)
        finished.append(name)
        return path

    monkeypatch.setattr(RunFolder, "save_model", save_with_a_signal)
    out = tmp_path / "run"
    args = [*SMALL, "--timesteps", "100000", "--n-envs", "1", "--vec-env", "dummy", "--eval-freq", "64",
            "--eval-rounds", "2", "--eval-opponents", "greedy", "--quiet", "--out", str(out)]  # fmt: skip
    assert ppo.run(args) == (out, "SIGTERM")
    meta = json.loads((out / "metadata.json").read_text())
    assert finished == ["best_model.zip", "model.zip", "model.zip"]  # the evaluation's, then the stop's
    assert meta["status"] == "interrupted" and "during an evaluation" not in meta["stopped_early"]
    assert meta["stopped_early"].startswith("SIGTERM at ") and len(meta["evaluations"]) == 1
    assert MaskablePPO.load(out / "model.zip").num_timesteps == meta["timesteps"]
    assert not list(out.glob(".*.partial"))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_during_the_final_evaluation_keeps_the_trained_model_and_says_how_to_evaluate_it(tmp_path, signum):
    out = tmp_path / "run"
    args = [*SMALL, "--timesteps", "64", "--n-envs", "1", "--final-eval-rounds", "200000", "--eval-workers", "1",
            "--eval-opponents", "greedy", "--out", str(out)]  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-m", "train.ppo", *args], cwd=ROOT, stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True)  # fmt: skip
    meta_file = out / "metadata.json"  # training is over once it says "trained"; 1 s later, into the evaluation
    trained = lambda: meta_file.exists() and '"status": "trained"' in meta_file.read_text()  # noqa: E731
    rc, rest = _signal_when(proc, trained, signum, 0.1, 1200, 1.0)
    assert rc == stopped_status(signum) and "Traceback" not in rest, rest
    assert f"final evaluation interrupted; the trained model is saved: {out / 'model.zip'}" in rest
    # the rules flags too: without --players / --max-pip the hint met a spec mismatch
    assert f"evaluate it with domino-evaluate --game mexican_train --players 2 --max-pip 9 --agents ppo:{out} ..." in rest
    assert json.loads((out / "metadata.json").read_text())["status"] == "trained"
    assert (out / "model.zip").is_file()


def _signal_after_the_last_update(monkeypatch):
    from sb3_contrib import MaskablePPO

    real_train = MaskablePPO.train

    def train_then_signal(self):
        real_train(self)
        if self.num_timesteps >= self._total_timesteps:  # the last update
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)  # the handler runs here

    monkeypatch.setattr(MaskablePPO, "train", train_then_signal)


@pytest.mark.parametrize("evaluation", [[], ["--eval-freq", "64", "--eval-rounds", "2", "--eval-opponents", "random"]],
                         ids=["no-evaluation-due", "evaluation-due-at-the-last-step"])
def test_a_signal_during_the_last_update_leaves_a_trained_run_not_an_interrupted_one(tmp_path, monkeypatch, capsys,
                                                                                     evaluation):
    """A signal during PPO's last update stops nothing (no step follows), but the run was saved
    "interrupted" with a resume hint of "--timesteps 1", which trained a whole extra rollout and,
    interrupted again at its end, printed the same hint. Now it is a trained run whose final
    evaluation is skipped, as for a signal during that evaluation; also when a periodic
    evaluation was due at the last step (it is dropped), and an earlier model's
    final_evaluation.md (a resume into its folder) is removed, as finish_run does."""
    from sb3_contrib import MaskablePPO

    from domino_env.train import ppo

    out = tmp_path / "run"
    first = [*SMALL, "--timesteps", "64", "--n-envs", "1", "--vec-env", "dummy", "--final-eval-rounds", "8",
             "--quiet", "--out", str(out)]  # fmt: skip
    assert ppo.run(first) == (out, None) and (out / "final_evaluation.md").is_file()
    _signal_after_the_last_update(monkeypatch)
    args = [*SMALL, "--resume", str(out), "--timesteps", "128", "--n-envs", "1", "--vec-env", "dummy",
            *evaluation, "--final-eval-rounds", "8", "--out", str(out)]  # fmt: skip
    assert ppo.run(args) == (out, "SIGTERM")
    meta = json.loads((out / "metadata.json").read_text())
    assert (meta["status"], meta["stopped_early"], meta.get("final_evaluation")) == ("trained", None, None)
    assert meta["timesteps_trained"] == MaskablePPO.load(out / "model.zip").num_timesteps == 64 + 128
    assert not (out / "final_evaluation.md").exists()  # the 64-step model's
    err = capsys.readouterr().err
    assert "SIGTERM after the last training step: the final evaluation is skipped" in err
    assert f"evaluate it with domino-evaluate --game mexican_train --players 2 --max-pip 9 --agents ppo:{out}" in err
    assert "--timesteps 1" not in err and "continue with" not in err


def test_a_signal_during_the_last_update_of_a_run_without_final_evaluation_ends_it_as_done(tmp_path, monkeypatch,
                                                                                          capsys):
    """With --final-eval-rounds 0 nothing is left to skip: the run ends as without the signal."""
    from domino_env.train import ppo

    _signal_after_the_last_update(monkeypatch)
    out = tmp_path / "run"
    args = [*SMALL, "--timesteps", "64", "--n-envs", "1", "--vec-env", "dummy", "--out", str(out)]
    assert ppo.run(args) == (out, None)
    meta = json.loads((out / "metadata.json").read_text())
    assert (meta["status"], meta["stopped_early"]) == ("done", None)
    assert "skipped" not in capsys.readouterr().err


def test_a_second_signal_aborts_and_the_metadata_says_so(tmp_path, monkeypatch):
    """A second Ctrl-C raises KeyboardInterrupt inside training (StopSignals): the run stops
    without saving and ``metadata.json`` says ``aborted`` instead of staying ``training``."""
    from sb3_contrib import MaskablePPO

    from domino_env.train import ppo

    def second_signal(self, *args, **kwargs):
        raise KeyboardInterrupt("second signal (SIGINT): aborted without saving")

    monkeypatch.setattr(MaskablePPO, "learn", second_signal)
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        ppo.run([*SMALL, "--timesteps", "128", "--n-envs", "1", "--vec-env", "dummy", "--quiet", "--out", str(out)])
    assert json.loads((out / "metadata.json").read_text())["status"] == "aborted"


def test_an_aborted_step_does_not_hang_closing_the_subprocess_envs():
    """An abort can cut a SubprocVecEnv step after some workers' replies were read: a graceful
    close() would then wait forever on the others; close_vec_env terminates the workers."""
    import threading

    from domino_env.train.ppo import close_vec_env, make_vec_env

    # the training env's own workers, which ignore SIGINT and SIGTERM
    cfg = {"env_kwargs": {"num_players": 2, "max_pip": 9}, "opponents": ["greedy"], "opponent_mode": "mix",
           "reward": "mixed", "pips_coef": 1.0, "self_play": 0.0}  # fmt: skip
    vec = make_vec_env(cfg, 2, "subproc", 0)
    vec.reset()
    masks = vec.env_method("action_masks")
    vec.step_async(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    vec.remotes[0].recv()  # one worker's reply read, the other's left: a step cut in the middle
    done = threading.Event()
    closer = threading.Thread(target=lambda: (close_vec_env(vec, aborted=True), done.set()), daemon=True)
    closer.start()
    assert done.wait(30), "close_vec_env hung on a half-read step"
    assert vec.closed and not any(p.is_alive() for p in vec.processes)


def test_an_error_in_the_middle_of_a_step_does_not_hang_closing_the_subprocess_envs(tmp_path):
    """Any error, not only an abort, can cut a SubprocVecEnv step (a write to a terminal that has
    closed failed in a signal handler): the graceful close() waited forever on the replies the
    step left unread; the workers are now killed and the error goes on."""
    code = f"""
from stable_baselines3.common.vec_env import SubprocVecEnv
from domino_env.train import ppo
real_wait, calls = SubprocVecEnv.step_wait, []
def step_wait(self):
    calls.append(1)
    if len(calls) == 20:
        self.remotes[0].recv()  # one reply read, the other's left
        raise OSError(5, "Input/output error")
    return real_wait(self)
SubprocVecEnv.step_wait = step_wait
try:
    ppo.run({[*SMALL, "--timesteps", "2048", "--n-envs", "2", "--vec-env", "subproc", "--quiet",
              "--out", str(tmp_path / "run")]!r})
except OSError as exc:
    print("raised", exc.errno)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          start_new_session=True)  # fmt: skip
    assert proc.stdout.split() == ["raised", "5"], proc.stderr[-3000:]


def test_a_signal_while_the_subprocess_envs_start_waits_for_them_then_stops(monkeypatch):
    """A Ctrl-C while a worker process was being started cut the pipe it reads its start-up data
    from: that worker printed an EOFError traceback under "domino-train: interrupted" (a rare CI
    failure). SIGINT / SIGTERM now wait until every worker has started, then act as they came;
    the workers are killed and the handlers restored."""
    import signal

    from stable_baselines3.common.vec_env import SubprocVecEnv

    from domino_env.train.ppo import make_vec_env

    built = []
    real_init = SubprocVecEnv.__init__

    def init(self, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C as the workers start
        real_init(self, *args, **kwargs)
        built.append(self)

    monkeypatch.setattr(SubprocVecEnv, "__init__", init)
    cfg = {"env_kwargs": {"num_players": 2, "max_pip": 9}, "opponents": ["greedy"], "opponent_mode": "mix",
           "reward": "mixed", "pips_coef": 1.0, "self_play": 0.0}  # fmt: skip
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        make_vec_env(cfg, 3, "subproc", 0)
    assert len(built) == 1 and len(built[0].processes) == 3  # all started, then stopped
    assert built[0].closed and not any(p.is_alive() for p in built[0].processes)
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == handlers
