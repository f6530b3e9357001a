"""Test-session set-up shared by every test module."""

import os
import signal

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
