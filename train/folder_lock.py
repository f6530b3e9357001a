"""One training command at a time in a run folder.

Two commands writing one run folder (a ``--resume`` started while the run still trains, the same
``--out`` twice) interleave their progress rows and checkpoints, and the last to finish overwrites
the other's metadata: both exit 0 and the folder no longer says what was trained. Each command
holds an exclusive advisory lock (``fcntl.flock`` on the folder itself, taken without waiting)
from its checks to its exit; a second command is refused in one line before any work. Where
``fcntl`` is missing (Windows) or the file system cannot lock, nothing is locked.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from domino_env.core.errors import DominoError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


class RunFolderBusyError(DominoError):
    """Another process holds the run folder's lock: it is training into that folder."""


#: The descriptors of the folders this process holds, by (device, inode): open until the command
#: that took them returns (:func:`releasing_run_folders`) or the process exits, which releases
#: the locks (they are not inherited across exec: Python's descriptors are not).
_HELD: dict[tuple[int, int], int] = {}

F = TypeVar("F", bound=Callable[..., Any])


def releasing_run_folders(command: F) -> F:
    """Decorate a command's function: the run folders it locked are released when it returns or
    raises, so that a command called from Python (a notebook, a test) does not keep its folder
    from the next command until the interpreter exits."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        before = set(_HELD)
        try:
            return command(*args, **kwargs)
        finally:
            for key in set(_HELD) - before:
                os.close(_HELD.pop(key))  # (closing the descriptor releases its lock)

    return run  # type: ignore[return-value]


def hold_run_folder(path: str | os.PathLike[str], then: str = "or give another --out") -> bool:
    """Lock the run folder ``path`` for this process until it exits (again: nothing to do).
    ``then``: what the refusal tells after "wait for it to end, " (a ``--resume`` of the run:
    ``"then resume it"``; a new run, the default: another ``--out``).

    Returns:
        True when the folder is held now, False when there is nothing to lock: the folder does
        not exist yet (lock it once made), or locks are not available here.

    Raises:
        RunFolderBusyError: another process holds it (the message names the folder).
    """
    if fcntl is None:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # missing, or not a folder: the callers' checks say so
        return False
    stat = os.fstat(fd)
    key = (stat.st_dev, stat.st_ino)
    if key in _HELD:
        os.close(fd)
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise RunFolderBusyError(
            f"{Path(path)} is in use by another training command (it holds the folder's lock): two runs "
            f"writing one folder would mix their checkpoints and records; wait for it to end, {then}"
        ) from None
    except OSError:  # a file system without locks: go on unlocked
        os.close(fd)
        return False
    _HELD[key] = fd
    return True
