"""How a domino-rllib run ends (a failed iteration, a signal after the last one), without Ray: the
algorithm is a stand-in (``_start`` replaced), so these tests run in a second and start nothing."""

import json
from pathlib import Path

import pytest

from domino_env.core.errors import DominoError
from domino_env.train import rllib

#: RLlib 2.60's learner on a batch without a step of the trained module (its update loop never ran)
NO_LOSS = "cannot access local variable 'loss_per_module' where it is not associated with a value"


class FakeAlgo:
    """The part of RLlib's ``Algorithm`` that ``_run`` uses after ``_start``."""

    def __init__(self, fail_at=None):
        self.iteration, self.fail_at, self.stopped = 0, fail_at, False

    def train(self):
        self.iteration += 1
        if self.iteration == self.fail_at:
            raise UnboundLocalError(NO_LOSS)
        return {"training_iteration": self.iteration, "num_env_steps_sampled_lifetime": 8 * self.iteration,
                "env_runners": {}, "time_total_s": 0.1 * self.iteration}  # fmt: skip

    def save_to_path(self, path):
        Path(path).mkdir(parents=True)
        (Path(path) / "algorithm_state.pkl").write_bytes(b"state")

    def stop(self):
        self.stopped = True


@pytest.fixture
def fake_start(monkeypatch):
    """Replace ``rllib._start`` with one that makes the run folder and returns ``FakeAlgo(**kwargs)``."""

    def install(**kwargs):
        algo = FakeAlgo(**kwargs)

        def start(args, argv, env_config, out, on_sigterm, made, claimed):
            out.mkdir(parents=True, exist_ok=True)
            return algo, {"args": vars(args)}, [], 0

        monkeypatch.setattr(rllib, "_start", start)
        return algo

    return install


def _argv(out, *extra):
    return ["--game", "block", "--players", "2", "--batch-size", "8", "--minibatch-size", "8",
            "--eval-rounds", "0", "--no-progress", "--out", str(out), *extra]  # fmt: skip


def test_a_batch_without_a_step_of_main_is_one_line_naming_batch_size(fake_start, tmp_path, capsys):
    """Draws in the other seats' turns can keep main's seat out of a batch of the size the flag
    check allows (one action per turn): RLlib's UnboundLocalError was a traceback (exit 1). Now a
    DominoError (one line, exit 2) says what happened and which flag to raise; the iterations
    before it are saved as for any failed iteration."""
    algo = fake_start(fail_at=2)
    out = tmp_path / "run"
    with pytest.raises(DominoError) as exc:
        rllib._run(_argv(out, "--iterations", "3"))
    said = ("iteration 2: the iteration's batch held no finished step of the learner main (its seat's turns were "
            "longer than the batch: draws, or an episode that ended before its seat acted); give a larger "
            "--batch-size (it was 8)")  # fmt: skip
    assert str(exc.value) == said and algo.stopped
    meta = json.loads((out / "domino_rllib.json").read_text())
    assert (meta["iterations_done"], meta["failed"]) == (1, f"DominoError: {said}")
    assert f"training failed (DominoError: {said}): saving a checkpoint" in capsys.readouterr().err


def _never_evaluated(monkeypatch):
    import domino_env.train.evaluate as evaluate_module

    def evaluate(*args, **kwargs):
        raise AssertionError("the final evaluation ran")

    monkeypatch.setattr(evaluate_module, "evaluate", evaluate)


def _skipped_line(out, phase, signal_name="SIGINT", iteration=2):
    return (f"interrupted {phase} ({signal_name}): the checkpoint of iteration {iteration} is saved whole in "
            f"{out}/checkpoint, all iterations trained; the final evaluation (8 rounds against each of random greedy) "
            f"is skipped; run it with: domino-evaluate --game block --players 2 --agents rllib:{out} random --rounds 8 "
            f"--seed 0; domino-evaluate --game block --players 2 --agents rllib:{out} greedy --rounds 8 --seed 0")  # fmt: skip


EVAL = ("--eval-rounds", "8", "--eval-opponents", "random", "greedy")


def test_a_signal_while_ray_stops_after_the_last_iteration_says_what_was_saved_and_skipped(
    fake_start, monkeypatch, tmp_path, capsys
):
    """A Ctrl-C 0.3-2 s after the last iteration's line (RLlib and Ray stopping) printed only
    'domino-rllib: interrupted': the checkpoint was whole but not said to be, the final evaluation
    skipped without a word, and the metadata said interrupted: false. The signal now waits for Ray
    to stop; the line says what was saved, what was skipped and how to run it, and the metadata
    records it."""
    import os
    import signal

    algo = fake_start()
    algo.stop = lambda: os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while RLlib stops
    _never_evaluated(monkeypatch)
    out = tmp_path / "run"
    try:
        _, status = rllib._run(_argv(out, "--iterations", "2", *EVAL))
    except KeyboardInterrupt:
        pytest.fail("the signal while Ray stopped ended the command with a bare 'interrupted'")
    err = capsys.readouterr().err
    assert status == 130 and _skipped_line(out, "after the last iteration") in err
    for meta_file in (out / "domino_rllib.json", out / "checkpoint" / "domino_rllib.json"):
        meta = json.loads(meta_file.read_text())
        assert (meta["iterations_done"], meta["interrupted"]) == (2, True) and "evaluation" not in meta
        assert meta["evaluation_skipped"] == "SIGINT after the last iteration"


def test_a_signal_while_the_last_iteration_is_saved_does_not_ask_for_zero_more(fake_start, monkeypatch, tmp_path, capsys):
    """A signal while the last iteration's periodic checkpoint was written said 'continue with --resume
    RUN --iterations 0' (a command that is refused) and nothing of the skipped evaluation."""
    algo = fake_start()
    real_save, saves = algo.save_to_path, []

    def save_to_path(path):
        saves.append(path)
        if len(saves) == 1:
            raise KeyboardInterrupt
        real_save(path)

    algo.save_to_path = save_to_path
    _never_evaluated(monkeypatch)
    out = tmp_path / "run"
    _, status = rllib._run(_argv(out, "--iterations", "2", "--checkpoint-every", "2", *EVAL))
    err = capsys.readouterr().err
    assert status == 130 and "--iterations 0" not in err
    assert "interrupted: saving a checkpoint (the run's 2 iterations)" in err
    assert _skipped_line(out, "after the last iteration") in err
    meta = json.loads((out / "domino_rllib.json").read_text())
    assert (meta["interrupted"], meta["evaluation_skipped"]) == (True, "SIGINT after the last iteration")


def test_a_signal_during_the_final_evaluation_is_recorded_as_the_one_after_the_last_iteration(
    fake_start, monkeypatch, tmp_path, capsys
):
    """The metadata of a run whose final evaluation a signal stopped said interrupted: false."""
    import domino_env.train.evaluate as evaluate_module

    fake_start()

    def evaluate(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluate_module, "evaluate", evaluate)
    out = tmp_path / "run"
    _, status = rllib._run(_argv(out, "--iterations", "2", *EVAL))
    assert status == 130 and _skipped_line(out, "during the final evaluation") in capsys.readouterr().err
    meta = json.loads((out / "checkpoint" / "domino_rllib.json").read_text())
    assert (meta["interrupted"], meta["evaluation_skipped"]) == (True, "SIGINT during the final evaluation")
    assert "evaluation" not in meta


@pytest.mark.parametrize("how", ["error", "signal"])
@pytest.mark.parametrize("runs_before", [False, True], ids=["runs-made", "runs-there"])
def test_a_failed_start_removes_the_runs_folder_it_made(how, runs_before, monkeypatch, tmp_path, capsys):
    """A failed or interrupted start with the default --out removed runs/rllib_<game>_<date>_<time>
    but left the runs/ it had made for it, empty. A runs/ that was there before stays."""

    def start(args, argv, env_config, out, on_sigterm, made, claimed):
        assert out.parent.name == "runs" and out.is_dir()
        raise RuntimeError("Ray refused an option") if how == "error" else KeyboardInterrupt

    monkeypatch.setattr(rllib, "_start", start)
    monkeypatch.chdir(tmp_path)
    if runs_before:
        (tmp_path / "runs").mkdir()
    argv = ["--game", "block", "--players", "2", "--batch-size", "8", "--minibatch-size", "8", "--no-progress"]
    if how == "error":
        with pytest.raises(RuntimeError):
            rllib._run(argv)
    else:
        assert rllib._run(argv)[1] == 130
        assert "interrupted while starting: nothing was trained\n" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == (["runs"] if runs_before else [])
    assert not runs_before or not any((tmp_path / "runs").iterdir())


def test_sigterm_inside_ray_init_leaves_no_default_folder(tmp_path):
    """Ray's own SIGTERM exit inside ray.init leaves at once (os._exit); with the default --out it
    left runs/rllib_<game>_<date>_<time> (claimed before Ray starts) and runs/ behind."""
    import subprocess
    import sys

    code = ("import signal, sys\n"
            "import ray\n"
            "from domino_env.train import rllib\n"
            "def init(**kwargs):\n"
            "    raise SystemExit(signal.SIGTERM)  # Ray's driver handler, installed inside ray.init\n"
            "ray.init = init\n"
            "rllib._run(['--game', 'block', '--players', '2', '--batch-size', '8', '--minibatch-size', '8'])\n")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 143 and "interrupted while Ray started (SIGTERM)" in proc.stderr, proc.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []


def test_a_signal_while_ray_stops_after_a_time_limit_says_how_many_iterations_were_trained(
    fake_start, monkeypatch, tmp_path, capsys
):
    """--time-limit ended the training before --iterations, then a signal came while Ray stopped:
    the line said 'all iterations trained', which was false."""
    import os
    import signal
    import time

    algo = fake_start()
    real_train = algo.train

    def slow_train():
        time.sleep(0.6)
        return real_train()

    algo.train = slow_train
    algo.stop = lambda: os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while RLlib stops
    _never_evaluated(monkeypatch)
    out = tmp_path / "run"
    _, status = rllib._run(_argv(out, "--iterations", "5", "--time-limit", "1s", *EVAL))
    err = capsys.readouterr().err
    assert status == 130 and "all iterations trained" not in err
    import re  # how many iterations fit in the second depends on the machine: 1 to 4 of the 5

    said = re.search(r"the checkpoint of iteration ([1-4]) is saved whole in (.*)/checkpoint, ([1-4]) of 5 "
                     r"iterations trained \(--time-limit stopped the training\); the final evaluation", err)  # fmt: skip
    assert said and said[1] == said[3] and said[2] == str(out), err
    # a user trial: a run the time limit stopped did not say so in its summary or metadata
    assert f"--time-limit reached: {said[1]} of 5 iterations trained" in err
    meta = json.loads((out / "domino_rllib.json").read_text())
    assert meta["time_limit_reached"] == f"{said[1]} of 5 iterations"


def test_a_write_the_run_folder_refuses_is_one_line_saying_what_is_kept(fake_start, monkeypatch, tmp_path, capsys):
    """A permission refusal (EACCES: a folder made read-only; EPERM: immutable) was not among the
    write failures said in one line: the failed checkpoint was saved again, refused again, and the
    command ended in a traceback. Now: one OutputError (exit 1) naming the file, the checkpoint
    kept and the command that continues; no second save. At the run's end (the metadata after the
    final evaluation) it says that only that record is missing."""
    import errno

    from domino_env.train.outputs import OutputError

    algo = fake_start()
    real_save, saves = algo.save_to_path, []

    def save_to_path(path):
        saves.append(path)
        if len(saves) >= 2:
            raise PermissionError(errno.EACCES, "Permission denied")  # (as pyarrow's: no file name)
        real_save(path)

    algo.save_to_path = save_to_path
    out = tmp_path / "run"
    with pytest.raises(OutputError) as exc:
        rllib._run(_argv(out, "--iterations", "3", "--checkpoint-every", "1"))
    assert str(exc.value) == (
        f"--out {out}: {out}/checkpoint.saving could not be written (Permission denied: the folder refuses writes, "
        f"made read-only or immutable?); the checkpoint of iteration 1 in {out}/checkpoint is kept whole; make the "
        f"folder writable, then continue with: python -m domino_env.train.rllib --resume {out} --iterations 2 "
        f"--game block --players 2 --batch-size 8 --minibatch-size 8 --eval-rounds 0 --no-progress "
        f"--checkpoint-every 1")  # fmt: skip
    assert len(saves) == 2 and algo.stopped and "training failed" not in capsys.readouterr().err
    assert json.loads((out / "domino_rllib.json").read_text())["iterations_done"] == 1
    # refused at the first save: nothing to resume, and the folder (progress.jsonl) must go first,
    # as the next command would say ("start the run again" alone was refused there)
    algo, saves = fake_start(), []
    algo.save_to_path = save_to_path
    saves.append("a first save refused")
    out = tmp_path / "first"
    with pytest.raises(OutputError) as exc:
        rllib._run(_argv(out, "--iterations", "3", "--checkpoint-every", "1"))
    assert str(exc.value) == (
        f"--out {out}: {out}/checkpoint.saving could not be written (Permission denied: the folder refuses writes, "
        f"made read-only or immutable?); no checkpoint was written; make the folder writable, then remove {out} "
        f"(nothing in it can be resumed) and start the run again, or give another --out")  # fmt: skip
    assert sorted(p.name for p in out.iterdir()) == ["progress.jsonl"]
    # a full disk when the final evaluation's result is written: the checkpoint is whole
    fake_start()
    monkeypatch.setattr(rllib, "evaluate_checkpoint", lambda out, args, env_config: {"random": {"win_rate": 0.5}})

    def full(out, metadata):
        raise OSError(errno.ENOSPC, "No space left on device", str(out / "domino_rllib.json"))

    monkeypatch.setattr(rllib, "write_metadata", full)
    out = tmp_path / "end"
    with pytest.raises(OutputError) as exc:
        rllib._run(_argv(out, "--iterations", "2", "--eval-rounds", "8"))
    assert str(exc.value) == (
        f"--out {out}: {out}/domino_rllib.json could not be written (No space left on device); the checkpoint of "
        f"iteration 2 in {out}/checkpoint is kept whole; all iterations are trained; only the run's end said above is "
        f"missing from domino_rllib.json")  # fmt: skip
