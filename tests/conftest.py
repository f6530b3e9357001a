"""Test-session set-up shared by every test module."""

import os
import signal

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


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """A command run in this process (``launch`` ignores SIGINT and SIGTERM once interrupted, as
    the process is exiting) must not leave the next test without its signals."""
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, handler in before.items():
        if signal.getsignal(s) is not handler and handler is not None:
            signal.signal(s, handler)
