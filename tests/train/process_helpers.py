"""What the real-process tests of the commands share."""

from __future__ import annotations

from pathlib import Path


def running(pid: int) -> bool:
    """The process exists and is not a zombie (a container's init may never reap an orphan)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False
