"""A stop whose messages meet a closed output pipe: Ctrl-C in a terminal reaches the whole process
group, so it also kills the reader of ``domino-train ... 2>&1 | tee run.log``. The ``SIGINT
received`` line then hit the closed pipe and the command ended with 141 before it saved
(``metadata.json`` left ``"training"``, no continue line). Real processes, a real pipe (read by a
real ``tee``), real signals."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from ppo_helpers import ROOT, SMALL
from process_helpers import stopped_status


def _start_piped(cmd: list[str], log) -> tuple[subprocess.Popen, subprocess.Popen]:
    """``cmd 2>&1 | tee LOG`` as a shell starts a job: ``tee`` and ``cmd`` in one process group of
    their own (``tee``'s), which a terminal's Ctrl-C reaches whole."""
    tee = subprocess.Popen(["tee", str(log)], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                           preexec_fn=os.setpgrp)  # fmt: skip
    try:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=tee.stdin, stderr=subprocess.STDOUT,
                                preexec_fn=lambda: os.setpgid(0, tee.pid))  # fmt: skip
    except BaseException:
        tee.kill()
        raise
    tee.stdin.close()  # the command holds the only write end
    return tee, proc


def _wait_for(log, text: str, procs, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while text not in (log.read_text() if log.exists() else ""):
        assert all(p.poll() is None for p in procs) and time.monotonic() < deadline, [p.poll() for p in procs]
        time.sleep(0.02)


def _reap(*procs: subprocess.Popen) -> None:
    """Kill and wait for what is still running of ``procs`` (a test that failed midway)."""
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


@pytest.mark.parametrize(
    "signum, send",
    [(signal.SIGINT, "group"), (signal.SIGINT, "reader-gone-first"), (signal.SIGTERM, "group")],
    ids=["ctrl-c-to-the-group-kills-tee-too", "ctrl-c-after-the-reader-died", "sigterm-to-the-group"],
)
def test_a_stop_whose_output_pipe_is_closed_still_saves_the_run(tmp_path, signum, send):
    out, log = tmp_path / "run", tmp_path / "run.log"
    cmd = [sys.executable, "-m", "domino_env.train.ppo", *SMALL, "--timesteps", "1000000", "--n-envs", "1",
           "--eval-freq", "512", "--eval-rounds", "2", "--eval-opponents", "greedy", "--out", str(out)]  # fmt: skip
    tee, proc = _start_piped(cmd, log)
    try:
        _wait_for(log, "[eval @ 512 steps", (tee, proc))  # trained, an evaluation saved: a long way to the next
        if send == "group":  # as the terminal sends Ctrl-C: tee dies of it at once, the command then writes its line
            os.killpg(tee.pid, signum)
        else:
            tee.kill()
            tee.wait(timeout=30)
            os.kill(proc.pid, signum)
        rc = proc.wait(timeout=120)
    finally:
        _reap(proc, tee)
    assert tee.returncode == (-signum if send == "group" else -signal.SIGKILL)
    assert rc == stopped_status(signum), rc  # was 141: the closed pipe ended it before the save
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["status"] == "interrupted", meta["status"]  # was "training"
    assert meta["stopped_early"].startswith(f"{signal.Signals(signum).name} at ")
    assert (out / "model.zip").is_file() and (out / "best_model.zip").is_file()
    assert 512 <= meta["timesteps"] < 1_000_000
    assert "Traceback" not in log.read_text()


def test_domino_evaluate_stopped_with_its_output_pipe_closed_keeps_its_journal_and_exits_as_ctrl_c(tmp_path):
    """The same for a tournament (its progress bar on): the bar's last draw, or the ``interrupted``
    line, met the closed pipe and the command ended with 141 (or 1, a traceback), not as Ctrl-C."""
    result, log = tmp_path / "result.json", tmp_path / "run.log"
    journal = tmp_path / "result.json.partial.jsonl"
    cmd = [sys.executable, "-m", "domino_env.train.evaluate", "--agents", "greedy", "random", "--players", "2",
           "--max-pip", "9", "--rounds", "200000", "--json", str(result)]  # fmt: skip
    tee, proc = _start_piped(cmd, log)
    try:
        deadline = time.monotonic() + 120
        while not (journal.exists() and journal.read_text().count("\n") > 10):  # deals finished and kept
            assert proc.poll() is None and time.monotonic() < deadline, proc.poll()
            time.sleep(0.02)
        os.killpg(tee.pid, signal.SIGINT)
        rc = proc.wait(timeout=120)
    finally:
        _reap(proc, tee)
    assert tee.returncode == -signal.SIGINT
    assert rc == -signal.SIGINT, rc  # killed by SIGINT after its (dropped) line: a shell's 130
    assert journal.read_text().count("\n") > 10 and not result.exists()  # --resume continues it
    assert "Traceback" not in log.read_text()
