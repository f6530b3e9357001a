"""Stop signals (Ctrl-C's SIGINT, SIGTERM, and SIGHUP: a closed terminal) in the commands: handlers
that stop work as Ctrl-C does, holding them over a step that must not be cut in two, and ending a
command that Ctrl-C stopped as a shell expects (:func:`exit_interrupted`), and standard streams that
drop a stop's messages when the reader of the output died with the same Ctrl-C
(:func:`output_dropped_once_stopping`: ``CMD 2>&1 | tee LOG``).
:func:`~domino_env.train.cli.launch` prints the one-line message; the commands install these
around their work.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterable, Iterator
from typing import Any, NoReturn


def in_import_machinery(frame: Any) -> bool:
    """Whether a signal arrived in Python's import machinery (``<frozen importlib._bootstrap>``,
    e.g. a module lock's weakref callback), where an exception a handler raises is printed as
    "Exception ignored in ..." with its traceback and then dropped: a handler should only note the
    signal there, for a later check to act on."""
    return frame is not None and frame.f_code.co_filename.startswith("<frozen importlib")


def raising_is_dropped(frame: Any) -> bool:
    """Whether an exception a signal handler raises in ``frame`` is printed as "Exception ignored
    in ..." and dropped: Python's import machinery (:func:`in_import_machinery`) or a weakref
    callback of the standard library (a ``WeakSet``'s, as when a finished thread's object is freed:
    ``threading`` keeps every thread in one)."""
    name = frame.f_code.co_filename if frame is not None else ""
    return in_import_machinery(frame) or name.endswith(("_weakrefset.py", f"{os.sep}weakref.py"))


#: SIGHUP where the platform has one (not Windows): a closed terminal, which a shell passes on to
#: every process of its jobs, the workers of a command included.
SIGHUP: int | None = getattr(signal, "SIGHUP", None)


#: The stop signals a command's worker processes are born with blocked (:func:`children_born_blocked`)
#: and then ignore: the command handles them and stops its workers.
WORKER_STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM} | ({SIGHUP} if SIGHUP is not None else set()))


#: seconds after which :func:`redeliver_later` sends a signal again
REDELIVERY_DELAY = 0.05


def redeliver_later(signum: int, delay: float = REDELIVERY_DELAY) -> None:
    """Send ``signum`` to the main thread again after ``delay`` seconds (a daemon timer thread),
    for a handler that found itself in Python's import machinery (:func:`in_import_machinery`),
    where the exception it would raise is dropped: by then the import's callback has returned,
    and whichever handler is installed then acts on the signal."""
    import threading

    main = threading.main_thread().ident
    timer = threading.Timer(delay, signal.pthread_kill, (main, signum))
    timer.daemon = True
    timer.start()


#: Whether a stop signal has begun this command's stop (:func:`stop_began`).
_STOP_BEGAN = [False]


def stop_began() -> None:
    """Note that a stop signal (Ctrl-C, SIGTERM, a closed terminal) has begun the command's stop:
    from now on a standard stream whose reader has gone drops what it is given
    (:class:`StopSafeStream`) instead of ending the command before it saves. The stop handlers call
    it (:func:`terminate_as_interrupt`, :class:`~domino_env.train.callbacks.StopSignals`,
    ``domino-rllib``'s), and :func:`~domino_env.train.cli.launch` for a ``KeyboardInterrupt`` or a
    ``main`` that returns 128 + a stop signal."""
    _STOP_BEGAN[0] = True


def stopping() -> bool:
    """Whether a stop has begun (:func:`stop_began`) or a ``KeyboardInterrupt`` is being handled
    (an ``except`` or ``finally`` that it passes through: a stop too), also as the context of the
    exception handled now (a ``BrokenPipeError`` raised in that ``finally``)."""
    exc, seen = sys.exc_info()[1], 0
    while exc is not None and seen < 8 and not _STOP_BEGAN[0]:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc, seen = exc.__context__, seen + 1
    return _STOP_BEGAN[0]


class StopSafeStream:
    """``stream`` (``sys.stdout`` or ``sys.stderr``) whose ``write`` / ``flush``, once a stop has
    begun (:func:`stopping`), drop the text when its reader has gone (EPIPE) instead of raising
    ``BrokenPipeError``: Ctrl-C in a terminal reaches the whole process group, so it also kills a
    reader of the command's output (``domino-train ... 2>&1 | tee run.log``), and the stop's own
    message (``SIGINT received: ...``) then ended the command with 141 before it saved. The stream's
    file is pointed at ``/dev/null`` (what it still holds, and what comes later, even the exit's
    flush, go there) and the stop goes on. Before a stop a closed pipe still raises: the command
    ends quietly with 141 (``CMD | head``). Every other attribute is the stream's."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            if not stopping():
                raise
            self._drop()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            if not stopping():
                raise
            self._drop()

    def _drop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, self._stream.fileno())
            finally:
                os.close(devnull)
            self._stream.flush()  # what it held goes to /dev/null: the exit's flush has nothing left

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def output_dropped_once_stopping() -> Iterator[None]:
    """While it lasts, ``sys.stdout`` and ``sys.stderr`` (those on a file: not a test's capture)
    are :class:`StopSafeStream`: a stop saves and ends with its signal's status (130 / 143) also when
    the reader of the output has gone. Afterwards the streams come back, flushed first if a stop
    began (a failed flush at the exit printed "Exception ignored ... BrokenPipeError")."""
    _STOP_BEGAN[0] = False
    wrapped = {}
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            stream.fileno()
        except (AttributeError, OSError, ValueError):  # not a file (a test's capture)
            continue
        wrapped[name] = StopSafeStream(stream)
        setattr(sys, name, wrapped[name])
    try:
        yield
    finally:
        for name, stream in wrapped.items():
            if stopping():
                with contextlib.suppress(OSError, ValueError):
                    stream.flush()
            if getattr(sys, name) is stream:
                setattr(sys, name, stream._stream)


def terminate_as_interrupt(signum: int, frame: Any) -> None:
    """A SIGTERM handler that stops work as Ctrl-C does: :func:`~domino_env.train.cli.launch` then prints
    ``CMD: interrupted`` and exits 143 (SIGTERM's default ended the command silently with -15).
    In Python's import machinery, where the exception would be dropped and the signal lost, it
    has the signal sent again shortly (:func:`redeliver_later`) instead of raising."""
    stop_began()
    if raising_is_dropped(frame):
        redeliver_later(signum)
        return
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While it lasts, SIGTERM raises ``KeyboardInterrupt("SIGTERM")`` (:func:`terminate_as_interrupt`),
    unless SIGTERM is ignored (``nohup``-like parents) or this is not the main thread (where
    ``signal.signal`` cannot be called); the previous handler comes back afterwards."""
    import threading

    previous = signal.getsignal(signal.SIGTERM)
    if previous is signal.SIG_IGN or threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.signal(signal.SIGTERM, terminate_as_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def stop_signals_held(signals: Iterable[int] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[list[int]]:
    """While it lasts, ``signals`` (default SIGINT and SIGTERM) are only noted (the list it yields,
    in arrival order), so that a step that must not be cut in two finishes; the previous handlers
    come back afterwards and the caller acts on what was noted. An ignored signal stays ignored;
    outside the main thread (no ``signal.signal`` there) nothing is held."""
    import threading

    noted: list[int] = []
    held: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in signals:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                held[signum] = signal.signal(signum, lambda n, frame: noted.append(n))
    try:
        yield noted
    finally:
        for signum, handler in held.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def aborts_also_say(note: str) -> Iterator[None]:
    """While it lasts, an abort that passes through (a ``KeyboardInterrupt``: the second signal of
    :class:`~domino_env.train.callbacks.StopSignals`, or a signal before its handlers are in place)
    also says ``note``, what the work had already changed and how to make it again: it is raised
    again as ``KeyboardInterrupt(name, "detail; note")``, whose detail
    :func:`~domino_env.train.cli.launch` adds to its ``CMD: interrupted (...)`` line. Nothing when
    ``note`` is empty."""
    try:
        yield
    except KeyboardInterrupt as exc:
        if not note:
            raise
        name = exc.args[0] if exc.args and exc.args[0] in ("SIGTERM", "SIGHUP") else "SIGINT"
        detail = exc.args[1] if len(exc.args) == 2 and isinstance(exc.args[1], str) else ""
        raise KeyboardInterrupt(name, f"{detail}; {note}" if detail else note) from None


def exit_interrupted() -> NoReturn:
    """End a command that Ctrl-C stopped (its message printed) as Python ends on an uncaught
    ``KeyboardInterrupt``, silently: the interpreter finishes (atexit hooks, flushes), then kills
    itself with SIGINT. A shell reports 130 either way, but it stops a ``for ...; do cmd; done``
    loop only when its command died of the signal; one that exited 130 let the loop go on (Python's
    ``subprocess`` sees -2). SIGINT is ignored until that kill: a second Ctrl-C while exiting
    raised inside an atexit hook (torch's), a traceback after the message."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    previous = sys.excepthook

    def quiet(kind, value, tb):  # the message is printed: no traceback for this one
        if not issubclass(kind, KeyboardInterrupt):
            previous(kind, value, tb)

    sys.excepthook = quiet
    raise KeyboardInterrupt


@contextlib.contextmanager
def children_born_blocked(signals: frozenset[int] = WORKER_STOP_SIGNALS) -> Iterator[None]:
    """While it lasts, ``signals`` (default :data:`WORKER_STOP_SIGNALS`) are blocked in this thread,
    so that the processes started meanwhile are born with them blocked (a spawned or forked child inherits the mask, exec keeps it) until
    they set their own handling: a terminal's Ctrl-C reaches the whole process group, and a child
    still importing died of it, or printed a traceback. A signal sent here meanwhile reaches this
    process's handler once every child has started, when the block ends: it is also held at
    Python's level (:func:`stop_signals_held`), since another thread of this process (torch's,
    tqdm's) may take it, and Python then raised it here in the middle of a start, cutting that
    child's start-up data (its EOFError traceback). Multiprocessing's resource tracker is started
    first: its start unblocks SIGINT and SIGTERM in the starting thread
    (``resource_tracker.ensure_running``), and the children started after it were born with
    neither blocked. Nothing on platforms without signal masks (Windows)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    noted: list[int] = []
    try:
        with stop_signals_held(signals) as noted:
            old = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
            try:
                yield
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)  # a pending one is noted now
    finally:
        for signum in noted:  # every child whole: the handlers restored act on it now
            signal.raise_signal(signum)


@contextlib.contextmanager
def signals_wake_main_thread(signals: Iterable[int]) -> Iterator[None]:
    """While it lasts, each of ``signals`` interrupts what the main thread is waiting on (a read
    of the terminal in ``input()``), whichever thread of the process the kernel gave it to. Python
    runs signal handlers only in the main thread, and a signal taken by another thread (the
    threads numpy's OpenBLAS starts at import block none) does not interrupt the main thread's
    system call: ``domino-play`` waited at its prompt, its handler not run, until a line was
    typed. Python's wakeup fd sees every signal; a watcher thread then sends the main thread a
    real-time signal whose handler does nothing, so the read returns and the pending handlers run.
    Call it in the main thread, with the handlers of ``signals`` installed; nothing on platforms
    without real-time signals or ``pthread_kill``."""
    import threading

    wake = getattr(signal, "SIGRTMIN", None)
    if wake is None or not hasattr(signal, "pthread_kill") or threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted, main = set(signals), threading.main_thread().ident
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)  # the C-level handler must never block on a full pipe
    previous_fd: int | None = None

    def watch() -> None:
        try:
            while data := os.read(read_end, 64):  # b"" once the write end is closed
                if wanted.intersection(data):
                    with contextlib.suppress(OSError):  # EAGAIN: the queue of real-time signals is full
                        signal.pthread_kill(main, wake)
                if previous_fd not in (None, -1):  # the caller's own wakeup fd (an asyncio loop's) gets them too
                    with contextlib.suppress(OSError):
                        os.write(previous_fd, data)
        finally:
            os.close(read_end)

    # Set up and torn down with the stop signals held (noted, then acted on once it is whole): a
    # stop in the middle left the pipe, the thread or the wake handler behind, or restored SIGRTMIN's
    # default (killing the process) while the watcher could still send it. Each step of the
    # teardown also runs in a finally of its own, for any other error.
    watcher = threading.Thread(target=watch, name="signals_wake_main_thread", daemon=True)
    previous_wake: Any = None
    try:
        with stop_signals_held(wanted) as noted:
            previous_wake = signal.signal(wake, lambda signum, frame: None)
            previous_fd = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
            watcher.start()
        for signum in noted:
            signal.raise_signal(signum)
        yield
    finally:
        with stop_signals_held(wanted) as noted:
            try:  # (an error right after set_wakeup_fd left previous_fd unknown: then ours if set)
                current = signal.set_wakeup_fd(-1 if previous_fd is None else previous_fd)
                if previous_fd is None and current != write_end:  # never ours: put the caller's back
                    signal.set_wakeup_fd(current)
            finally:
                try:
                    os.close(write_end)
                    if watcher.ident is not None:  # started: it closes its end
                        watcher.join()
                    else:
                        os.close(read_end)
                finally:
                    if previous_wake is not None and not watcher.is_alive():
                        signal.signal(wake, previous_wake)
        for signum in noted:
            signal.raise_signal(signum)
