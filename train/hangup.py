"""A closed terminal in the long commands (``domino-train``, ``domino-bc``, ``domino-rllib``, ``domino-evaluate``;
:func:`~domino_env.train.cli.launch` installs :func:`stop_on_hangup` for them): SIGHUP stops the
command as SIGTERM does, saving what it has (exit 143), and its workers ignore SIGHUP
(:data:`~domino_env.train.interrupts.WORKER_STOP_SIGNALS`). A write to the closed terminal (EIO),
before the shell's SIGHUP or in a job that gets none (``disown``), no longer ends the command:
its output goes to ``/dev/null`` from then on and the work goes on.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

from domino_env.train.interrupts import SIGHUP


class Hangup:
    """The SIGHUP handler of a closed terminal, acting once: :meth:`silence`, then SIGTERM is
    raised, whose handler stops the command and saves. The messages said from then on are lost
    with the terminal."""

    def __init__(self, fds: tuple[int, ...]):
        self.fds = fds  # the standard streams that were terminals (once it closes, isatty says no)
        self.happened = False

    def silence(self) -> None:
        """Point the terminal's standard streams at ``/dev/null``: writes to a closed terminal fail
        (EIO), and a failed write in the middle of the work ended the command."""
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            for fd in self.fds:
                with contextlib.suppress(OSError):
                    os.dup2(devnull, fd)
        finally:
            os.close(devnull)

    def __call__(self, signum: int, frame: Any) -> None:
        if self.happened:  # a second SIGHUP (the kernel's, then the shell's): the same hang-up
            return
        self.happened = True
        self.silence()
        signal.raise_signal(signal.SIGTERM)  # its handler (ours, or the default) acts once this returns


class HangupAwareStream:
    """``stream`` (``sys.stdout`` or ``sys.stderr`` on a terminal), whose ``write`` / ``flush``
    send the output to ``/dev/null`` (:meth:`Hangup.silence`) instead of raising when the terminal
    has closed (EIO); the text is dropped and the work goes on (a SIGHUP, if one comes, stops
    it). Every other attribute is the stream's."""

    def __init__(self, stream: Any, hangup: Hangup):
        self._stream, self._hangup = stream, hangup

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            self._hangup.silence()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            self._hangup.silence()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def stop_on_hangup() -> Iterator[Hangup | None]:
    """While it lasts, SIGHUP stops the command as SIGTERM does (:class:`Hangup`), and
    ``sys.stdout`` / ``sys.stderr`` on a terminal are wrapped in :class:`HangupAwareStream`, so
    that a write to the closed terminal does not end it. Nothing when SIGHUP is ignored
    (``nohup``), outside the main thread, or on a platform without SIGHUP. After a hang-up SIGHUP stays ignored (a shell's late
    SIGHUP must not end the exit it started); else the previous handling comes back. Yields the
    :class:`Hangup` (None when nothing is installed)."""
    if SIGHUP is None or threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(SIGHUP) is signal.SIG_IGN:  # fmt: skip
        yield None
        return
    terminals = []
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            if os.isatty(fd):
                terminals.append(fd)
    hangup = Hangup(tuple(terminals))
    previous = signal.signal(SIGHUP, hangup)
    wrapped = {}
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            on_terminal = stream.fileno() in terminals
        except (AttributeError, OSError, ValueError):  # not a file (a test's capture)
            on_terminal = False
        if on_terminal:
            wrapped[name] = HangupAwareStream(stream, hangup)
            setattr(sys, name, wrapped[name])
    try:
        yield hangup
    finally:
        for name, stream in wrapped.items():
            if getattr(sys, name) is stream:
                setattr(sys, name, stream._stream)
        signal.signal(SIGHUP, signal.SIG_IGN if hangup.happened else previous)
