"""What the real-process tests of the commands share."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path


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
