"""What the real-process tests of the commands share (and a game record to give them)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path


def stopped_status(signum: int) -> int:
    """The return code of a command stopped by ``signum`` after its one line: Ctrl-C's SIGINT kills
    it, as Python's own uncaught KeyboardInterrupt does (-2 here, 130 in a shell, which then stops
    a loop of commands); SIGTERM / SIGHUP exit with 128 + the signal."""
    return -signal.SIGINT if signum == signal.SIGINT else 128 + signum


def running(pid: int) -> bool:
    """The process exists and is not a zombie (a container's init may never reap an orphan)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def wait_for_deals(proc: subprocess.Popen, journal: Path, deals: int, timeout: float = 120) -> None:
    """Until ``proc`` (a ``domino-evaluate --json``) has journaled ``deals`` finished deals (the
    header line, then one line a deal); fails if it exits or the time runs out first."""
    deadline = time.monotonic() + timeout
    while not (journal.exists() and journal.read_text().count("\n") >= deals + 1):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else ""
        time.sleep(0.02)


def group_cpu_seconds(pgid: int, but: int) -> float:
    """CPU seconds (user + system) used so far by the processes of group ``pgid`` other than ``but``
    (a command's worker processes, when ``but`` is the command itself), read from /proc."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended meanwhile
        if int(fields[2]) == pgid and int(stat.parent.name) != but:  # fields[2]: pgrp
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def session_running(sid: int) -> list[int]:
    """The running (not zombie) processes of session ``sid``, read from /proc."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended meanwhile
        if int(fields[3]) == sid and fields[0] != "Z":  # fields[3]: session
            pids.append(int(stat.parent.name))
    return pids


def block_record(path: Path, seed: int = 1) -> Path:
    """A whole block round of two greedy seats, its record written to ``path`` (JSON)."""
    import json

    import numpy as np

    from domino_env.agents import make_agent
    from domino_env.envs import block_v0

    env = block_v0.raw_env()
    env.reset(seed=seed)
    rng, bot = np.random.default_rng(seed), make_agent("greedy", env.config)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else bot(obs["observation"], obs["action_mask"], rng))
    path.write_text(json.dumps(env.to_record()))
    return path


def wait_for_worker_cpu(proc: subprocess.Popen, seconds: float, timeout: float = 300) -> None:
    """Until the worker processes of ``proc`` (started with ``start_new_session=True``) have used
    ``seconds`` of CPU between them: work done, however loaded or fast the machine (a fixed sleep
    was either too short on a loaded machine or too long on a fast one). Fails if ``proc`` exits
    or ``timeout`` wall seconds pass first."""
    deadline = time.monotonic() + timeout
    while group_cpu_seconds(proc.pid, but=proc.pid) < seconds:
        assert proc.poll() is None and time.monotonic() < deadline, proc.poll()
        time.sleep(0.2)


def wait_for_first_prompt(proc: subprocess.Popen, timeout: float = 60) -> None:
    """Until ``proc`` (a ``domino-play`` with piped text stdout) has printed its ``seats:`` line:
    the game has started and waits for the first move; fails if it exits or the time runs out."""
    line, deadline = "", time.monotonic() + timeout
    while "seats:" not in line:
        line = proc.stdout.readline()
        assert line and time.monotonic() < deadline, proc.stderr.read()
    time.sleep(0.5)  # (at the prompt's read)
