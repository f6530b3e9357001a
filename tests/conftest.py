"""Test-session set-up shared by every test module."""

import atexit
import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

# A shell without job control starts background jobs with SIGINT ignored, and an ignored signal
# stays ignored in every child process: then the real-process tests that press Ctrl-C (SIGINT)
# would test nothing but a hang. A handler here (in the pytest process and in each xdist worker)
# makes the commands the tests start see SIGINT's default disposition, as in a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Real-process tests watch a command's progress bar through a pipe to know that it is running;
# off a terminal the bars redraw only every 30 s (train/progress.py) unless tqdm's own override
# says otherwise. tests/train/test_progress.py removes it to test that default.
os.environ.setdefault("TQDM_MININTERVAL", "0.1")

# Stable-Baselines3's default logger makes an empty SB3-<time> folder in the temp dir at every
# learn() on a model without a logger of its own (the README's quick start is one); SB3_LOGDIR
# sends them all into one folder of this session's, removed at its end.
if "SB3_LOGDIR" not in os.environ:
    os.environ["SB3_LOGDIR"] = tempfile.mkdtemp(prefix="domino-tests-sb3-")
    atexit.register(shutil.rmtree, os.environ["SB3_LOGDIR"], ignore_errors=True)


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """A command run in this process (``launch`` ignores SIGINT and SIGTERM once interrupted, as
    the process is exiting) must not leave the next test without its signals."""
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, handler in before.items():
        if signal.getsignal(s) is not handler and handler is not None:
            signal.signal(s, handler)


class _SyncLog:
    """Replaces ``os.fsync``, ``os.replace`` and ``os.rename``/``Path.rename`` with recorders: what
    each fsync'd descriptor was (its path and, for a file, its content then) and the renames, in order."""

    def __init__(self, monkeypatch, fail_with: int | None = None):
        self.events: list[tuple] = []
        real_fsync, real_replace, real_rename = os.fsync, os.replace, os.rename

        def fsync(fd):
            path = os.readlink(f"/proc/self/fd/{fd}")
            if os.path.isdir(path):
                self.events.append(("sync folder", path))
            else:
                self.events.append(("sync file", path, Path(path).read_bytes()))
                if fail_with is not None:
                    raise OSError(fail_with, os.strerror(fail_with))
            real_fsync(fd)

        def replace(src, dst):
            self.events.append(("rename", str(src), str(dst)))
            real_replace(src, dst)

        def rename(src, dst):
            self.events.append(("rename", str(src), str(dst)))
            real_rename(src, dst)

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace)
        monkeypatch.setattr(os, "rename", rename)


@pytest.fixture
def sync_log(monkeypatch):
    """``sync_log(fail_with=None)`` starts recording fsyncs and renames (``.events``); with
    ``fail_with`` an errno, every fsync of a file fails with it. Needs /proc (Linux)."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs /proc/self/fd to name a descriptor")
    return lambda fail_with=None: _SyncLog(monkeypatch, fail_with)
