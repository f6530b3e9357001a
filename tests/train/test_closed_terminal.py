"""A closed terminal (an ssh session that drops: the kernel sends SIGHUP to the session's leader,
which passes it on to every process of its jobs) stops domino-train, domino-bc,
domino-rllib and domino-evaluate as SIGTERM does: what is done is saved, status 143, no worker left. Before, the
workers died of the signal, the command with them, and domino-train lost everything since its
last periodic evaluation. A job that gets no SIGHUP (``disown``) goes on to its end, its output
dropped, where its first write to the closed terminal (EIO) crashed it."""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import struct
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from process_helpers import session_running

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not hasattr(os, "forkpty") or not Path("/proc/self/stat").exists(),
                                reason="runs the command in a pseudo-terminal and reads /proc")  # fmt: skip


#: A session leader that gets the terminal's SIGHUP (and ignores it) and runs the command in a
#: process group of its own, which no SIGHUP reaches: a shell's disowned job.
DISOWNING_LEADER = """
import signal, subprocess, sys
signal.signal(signal.SIGHUP, signal.SIG_IGN)
code = subprocess.Popen(sys.argv[1:], process_group=0, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL)).wait()
sys.exit(code if code >= 0 else 128 - code)
"""


def _close_terminal_when(argv: list[str], ready: Callable[[], bool], disowned: bool = False, timeout: float = 240) -> int:
    """Run ``python -m argv`` in a new pseudo-terminal (its session's controlling terminal, as a
    shell's), close the terminal once ``ready()`` and send SIGHUP to the command's process group
    as a shell does to its job (``disowned``: the command runs under :data:`DISOWNING_LEADER`, and
    gets no SIGHUP); return the exit status. Fails if the command ends first, outlives the
    timeout, or leaves a process of its session behind."""
    command = [sys.executable, "-m", *argv]
    if disowned:
        command = [sys.executable, "-c", DISOWNING_LEADER, *command]
    pid, master = os.forkpty()
    if pid == 0:  # the child: the command (or its leader), in the terminal
        try:
            os.chdir(ROOT)
            os.execv(command[0], command)
        finally:
            os._exit(127)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a new one is 0 x 0: no bar drawn
    output, deadline = b"", time.monotonic() + timeout
    try:
        while not ready():  # read its output meanwhile: a full terminal buffer would stop it
            assert time.monotonic() < deadline and os.waitpid(pid, os.WNOHANG) == (0, 0), output[-2000:]
            if select.select([master], [], [], 0.1)[0]:
                try:
                    output += os.read(master, 65536)
                except OSError:  # (EIO: it ended)
                    pass
        os.close(master)  # the hang-up: the kernel's SIGHUP goes to the session's leader
        master = -1
        if not disowned:
            os.killpg(pid, signal.SIGHUP)  # what the leader, a shell, sends to its job: the workers too
        while (done := os.waitpid(pid, os.WNOHANG)) == (0, 0):
            assert time.monotonic() < deadline, "still running after its terminal closed"
            time.sleep(0.05)
        grace = time.monotonic() + 10  # the workers it stopped end right after it
        while session_running(pid) and time.monotonic() < grace:
            time.sleep(0.1)
        assert session_running(pid) == [], "a worker outlived its command"
        return os.waitstatus_to_exitcode(done[1])
    finally:
        if master != -1:
            os.close(master)
        for left in session_running(pid):
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


def test_a_disowned_domino_train_trains_on_after_its_terminal_closes(tmp_path):
    """Its progress bar and evaluation lines meet a closed terminal (EIO): the run goes on to its end."""
    run = tmp_path / "run"
    status = _close_terminal_when(
        ["domino_env.train.ppo", "--timesteps", "6144", "--eval-freq", "2048", "--eval-rounds", "4",
         "--final-eval-rounds", "0", "--n-envs", "2", "--vec-env", "subproc", "--out", str(run)],
        ready=lambda: any((run / "tb").glob("*/events.*")), disowned=True)  # fmt: skip
    metadata = json.loads((run / "metadata.json").read_text())
    assert (status, metadata["status"], metadata["timesteps"]) == (0, "done", 6144)
    assert len(json.loads((run / "evaluations.json").read_text())) == 3  # its lines went nowhere, and it went on


def test_domino_evaluate_keeps_its_finished_deals_when_the_terminal_closes(tmp_path):
    out = tmp_path / "result.json"
    journal = Path(f"{out}.partial.jsonl")
    status = _close_terminal_when(
        ["domino_env.train.evaluate", "--agents", "planner", "planner", "greedy", "greedy", "--rounds", "40000",
         "--workers", "2", "--json", str(out)],
        ready=lambda: journal.exists() and journal.read_text().count("\n") >= 3)  # fmt: skip
    assert status == 128 + signal.SIGTERM and not out.exists()
    assert journal.read_text().count("\n") >= 3  # the header and the deals played: --resume goes on from them



def _rllib_draw_2p(run: Path, iterations: int, env_runners: int = 0) -> list[str]:
    """The smallest domino-rllib run the command allows, into ``run``."""
    return ["domino_env.train.rllib", "--game", "draw", "--players", "2", "--iterations", str(iterations),
            "--batch-size", "128", "--minibatch-size", "64", "--epochs", "1", "--hidden", "16",
            "--num-env-runners", str(env_runners), "--num-cpus", "2", "--seed", "3", "--eval-rounds", "0",
            "--out", str(run)]  # fmt: skip


def test_domino_rllib_saves_a_checkpoint_when_the_terminal_closes(tmp_path):
    """domino-rllib died of the SIGHUP with nothing saved: no checkpoint, no domino_rllib.json,
    although it had trained iterations (its checkpoint comes every --checkpoint-every 10). Ray's
    GCS server and raylet run in the command's process group, so the shell's SIGHUP reaches them
    too; with a remote env runner the run still saves."""
    run = tmp_path / "run"
    progress = run / "progress.jsonl"
    status = _close_terminal_when(_rllib_draw_2p(run, 500, env_runners=1),
                                  ready=lambda: progress.exists() and progress.read_text().count("\n") >= 2)  # fmt: skip
    assert status == 128 + signal.SIGTERM
    meta = json.loads((run / "domino_rllib.json").read_text())
    saved = json.loads((run / "checkpoint" / "domino_rllib.json").read_text())
    assert meta["interrupted"] is True and meta["iterations_done"] >= 2
    assert saved["iterations_done"] == meta["iterations_done"] == progress.read_text().count("\n")


def test_a_disowned_domino_rllib_trains_on_after_its_terminal_closes(tmp_path):
    """Its progress bar meets the closed terminal (EIO): the run goes on to its last iteration."""
    run = tmp_path / "run"
    progress = run / "progress.jsonl"
    status = _close_terminal_when(_rllib_draw_2p(run, 6), ready=progress.exists, disowned=True)
    meta = json.loads((run / "domino_rllib.json").read_text())
    assert (status, meta["interrupted"], meta["iterations_done"]) == (0, False, 6)
    assert progress.read_text().count("\n") == 6
