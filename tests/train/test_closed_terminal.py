"""A closed terminal (SIGHUP to the command and every process of its job, as when an ssh session
drops) stops domino-train, domino-bc and domino-evaluate as SIGTERM does: what is done is saved,
status 143, no worker left. Before, the workers died of the signal, the command with them, and
domino-train lost everything since its last periodic evaluation."""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from process_helpers import group_running

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not hasattr(os, "forkpty") or not Path("/proc/self/stat").exists(),
                                reason="runs the command in a pseudo-terminal and reads /proc")  # fmt: skip


def _close_terminal_when(argv: list[str], ready: Callable[[], bool], timeout: float = 240) -> int:
    """Run ``python -m argv`` in a new pseudo-terminal (its session's controlling terminal, as a
    shell's), close the terminal once ``ready()``, and return the exit status; fails if the command
    ends first, outlives the timeout, or leaves a process of its job behind."""
    pid, master = os.forkpty()
    if pid == 0:  # the child: the command, in the terminal
        try:
            os.chdir(ROOT)
            os.execv(sys.executable, [sys.executable, "-m", *argv])
        finally:
            os._exit(127)
    output, deadline = b"", time.monotonic() + timeout
    try:
        while not ready():  # read its output meanwhile: a full terminal buffer would stop it
            assert time.monotonic() < deadline and os.waitpid(pid, os.WNOHANG) == (0, 0), output[-2000:]
            if select.select([master], [], [], 0.1)[0]:
                try:
                    output += os.read(master, 65536)
                except OSError:  # (EIO: it ended)
                    pass
        os.close(master)  # the hang-up: SIGHUP to the command and its job
        master = -1
        while (done := os.waitpid(pid, os.WNOHANG)) == (0, 0):
            assert time.monotonic() < deadline, "still running after its terminal closed"
            time.sleep(0.05)
        grace = time.monotonic() + 10  # the workers it stopped end right after it
        while group_running(pid) and time.monotonic() < grace:
            time.sleep(0.1)
        assert group_running(pid) == [], "a worker outlived its command"
        return os.waitstatus_to_exitcode(done[1])
    finally:
        if master != -1:
            os.close(master)
        for left in group_running(pid):
            os.kill(left, signal.SIGKILL)


def test_domino_train_saves_its_model_when_the_terminal_closes(tmp_path):
    run = tmp_path / "run"
    status = _close_terminal_when(
        ["domino_env.train.ppo", "--timesteps", "400000", "--eval-freq", "100000", "--eval-rounds", "4",
         "--final-eval-rounds", "0", "--n-envs", "2", "--vec-env", "subproc", "--out", str(run)],
        ready=lambda: any((run / "tb").glob("*/events.*")))  # fmt: skip  (learning: its stop handler is on)
    assert status == 128 + signal.SIGTERM
    metadata = json.loads((run / "metadata.json").read_text())
    assert metadata["status"] == "interrupted" and (run / "model.zip").is_file()


def test_domino_evaluate_keeps_its_finished_deals_when_the_terminal_closes(tmp_path):
    out = tmp_path / "result.json"
    journal = Path(f"{out}.partial.jsonl")
    status = _close_terminal_when(
        ["domino_env.train.evaluate", "--agents", "planner", "planner", "greedy", "greedy", "--rounds", "40000",
         "--workers", "2", "--json", str(out)],
        ready=lambda: journal.exists() and journal.read_text().count("\n") >= 3)  # fmt: skip
    assert status == 128 + signal.SIGTERM and not out.exists()
    assert journal.read_text().count("\n") >= 3  # the header and the deals played: --resume goes on from them
