"""Test-session set-up shared by every test module."""

import signal

# A shell without job control starts background jobs with SIGINT ignored, and an ignored signal
# stays ignored in every child process: then the real-process tests that press Ctrl-C (SIGINT)
# would test nothing but a hang. A handler here (in the pytest process and in each xdist worker)
# makes the commands the tests start see SIGINT's default disposition, as in a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
