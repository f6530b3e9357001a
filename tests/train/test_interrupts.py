"""train.interrupts.signals_wake_main_thread: a signal another thread takes still interrupts what
the main thread waits on (domino-play's prompt), and the process is left as it was."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from process_helpers import wait_for_first_prompt

from domino_env.train.interrupts import signals_wake_main_thread


class Woken(Exception):
    pass


def _raise(signum, frame):
    raise Woken


def _watchers() -> list[str]:
    """The watcher threads alive (other tests of this process may start and end threads of their own)."""
    return [t.name for t in threading.enumerate() if t.name == "signals_wake_main_thread"]


def _pipes(monkeypatch) -> list[int]:
    """The file descriptors of the pipes made from now on (the watcher's)."""
    import domino_env.train.interrupts as interrupts

    made: list[int] = []
    real = os.pipe

    def pipe():
        fds = real()
        made.extend(fds)
        return fds

    monkeypatch.setattr(interrupts.os, "pipe", pipe)
    return made


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def test_a_signal_another_thread_takes_interrupts_the_main_threads_read():
    """Without it the read below waits for the byte written 10 s later (the handler runs only
    then): a stop signal taken by numpy's OpenBLAS thread left domino-play's prompt waiting."""
    read_end, write_end = os.pipe()
    previous = signal.signal(signal.SIGUSR1, _raise)
    late = threading.Timer(10, os.write, (write_end, b"x"))  # the read's end if nothing interrupts it
    late.start()
    try:
        with signals_wake_main_thread([signal.SIGUSR1]):
            threading.Thread(target=lambda: (time.sleep(0.3), signal.pthread_kill(threading.get_ident(),
                                                                                    signal.SIGUSR1))).start()  # fmt: skip
            started = time.monotonic()
            with pytest.raises(Woken):
                os.read(read_end, 1)
            assert time.monotonic() - started < 8, "the read ended with the late byte, not the signal"
    finally:
        late.cancel()
        signal.signal(signal.SIGUSR1, previous)
        os.close(read_end), os.close(write_end)


def test_the_previous_wakeup_fd_gets_the_signals_and_everything_is_restored(monkeypatch):
    """An asyncio loop's wakeup fd lost the signals that came while domino-play ran; the watcher
    thread, its pipe and the wake signal's handler must not outlive the block."""
    theirs_r, theirs_w = os.pipe()
    os.set_blocking(theirs_w, False)
    os.set_blocking(theirs_r, False)
    wake = signal.SIGRTMIN
    made = _pipes(monkeypatch)
    previous_usr2 = signal.signal(signal.SIGUSR2, lambda signum, frame: None)
    previous_fd = signal.set_wakeup_fd(theirs_w)
    previous_wake = signal.getsignal(wake)
    try:
        with signals_wake_main_thread([signal.SIGINT]):
            assert signal.getsignal(wake) is not previous_wake
            signal.raise_signal(signal.SIGUSR2)
            time.sleep(0.3)  # the watcher forwards the byte
        assert signal.set_wakeup_fd(theirs_w) == theirs_w  # theirs again
        assert os.read(theirs_r, 16) == bytes([signal.SIGUSR2])
        assert signal.getsignal(wake) is previous_wake
        assert _watchers() == [] and len(made) == 2 and all(_closed(fd) for fd in made), made
    finally:
        signal.set_wakeup_fd(previous_fd)
        signal.signal(signal.SIGUSR2, previous_usr2)
        os.close(theirs_r), os.close(theirs_w)


def test_a_stop_raised_while_it_sets_up_or_tears_down_leaves_nothing_behind(monkeypatch):
    """A Ctrl-C in the few lines that set up or tear down the watcher left its pipe, its thread
    and the wake handler behind (an attacker injected it there)."""
    import domino_env.train.interrupts as interrupts

    made, wake = _pipes(monkeypatch), signal.getsignal(signal.SIGRTMIN)
    real = signal.set_wakeup_fd
    for when in (0, 1):  # the KeyboardInterrupt at the first call (setting up) or the second (tearing down)

        def interrupted(fd, *args, calls=[], when=when, **kwargs):  # noqa: B006 (the calls of this round)
            calls.append(fd)
            result = real(fd, *args, **kwargs)
            if len(calls) == when + 1:
                raise KeyboardInterrupt
            return result

        monkeypatch.setattr(interrupts.signal, "set_wakeup_fd", interrupted)
        with pytest.raises(KeyboardInterrupt):
            with signals_wake_main_thread([signal.SIGINT]):
                pass
        monkeypatch.setattr(interrupts.signal, "set_wakeup_fd", real)
        time.sleep(0.2)
        assert real(-1) == -1, when  # the wakeup fd is not left pointing at the closed pipe
        assert _watchers() == [] and len(made) == 2 * (when + 1) and all(_closed(fd) for fd in made), (when, made)
        assert signal.getsignal(signal.SIGRTMIN) is wake, when


def test_a_weakref_callback_or_an_import_is_where_raising_is_dropped():
    """CI caught domino-play's stop handler raising inside a WeakSet callback (the watcher thread's
    object freed): "Exception ignored in ..." with its traceback, and the KeyboardInterrupt lost."""
    import _weakrefset
    import types
    import weakref

    from domino_env.train.interrupts import raising_is_dropped

    def frame_of(path: str):
        return types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename=path))

    assert raising_is_dropped(frame_of(_weakrefset.__file__)) and raising_is_dropped(frame_of(weakref.__file__))
    assert raising_is_dropped(frame_of("<frozen importlib._bootstrap>"))
    assert not raising_is_dropped(frame_of(__file__)) and not raising_is_dropped(None)


def test_a_signal_after_a_stop_that_could_not_raise_stops_at_once(tmp_path):
    """A stop noted where raising is dropped made every later stop return at once, so a game with
    no prompt left (you out of an elimination game) played on to its end."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys\nimport domino_env.train.play as play\n"
            "play.raising_is_dropped = lambda frame, seen=[]: seen.append(frame) or len(seen) == 1\n"
            "sys.exit(play.main(sys.argv[1:]))")  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-c", code, "--seed", "4", "--record", str(tmp_path / "r.json")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    try:
        wait_for_first_prompt(proc)
        proc.send_signal(signal.SIGINT)  # noted (the first counts as dropped)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)  # raised at once: the prompt's read never returns a line
        assert proc.wait(timeout=20) == 130  # the first stop's status (Ctrl-C)
    finally:
        proc.kill()
    out, err = proc.communicate(timeout=10)
    assert "interrupted (Ctrl-C)" in out and err == "", err


def test_a_stop_that_could_not_raise_stops_the_game_at_the_next_prompt(tmp_path):
    """Where raising is dropped the handler only notes the stop: the next prompt raises it (the
    game went on to its end before). Here every frame counts as such a place."""
    import subprocess
    import sys
    from pathlib import Path

    from domino_env.core.records import load_record

    rec = tmp_path / "noted.json"
    code = ("import sys\nimport domino_env.train.play as play\nplay.raising_is_dropped = lambda frame: True\n"
            "sys.exit(play.main(sys.argv[1:]))")  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-c", code, "--seed", "4", "--record", str(rec)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    try:
        wait_for_first_prompt(proc)
        proc.send_signal(signal.SIGINT)  # noted; the prompt's read goes on
        time.sleep(0.5)
        out, err = proc.communicate("1\n" * 50, timeout=60)  # a move, then the next prompt stops
    finally:
        proc.kill()
    assert proc.returncode == 130 and "interrupted (Ctrl-C)" in out and err == "", err
    assert len(load_record(rec)["actions"]) < 40  # stopped at the next prompt, not at the end of the input


def test_an_abort_also_says_what_the_work_had_changed():
    """``aborts_also_say(note)``: the abort keeps its signal (launch's exit status) and detail, and
    adds ``note`` (domino-bc --overwrite: the old run's files it removed, the command to run again);
    an empty note leaves the abort as it was."""
    from domino_env.train.interrupts import aborts_also_say

    for raised, said in [(KeyboardInterrupt("SIGTERM", "a second signal: aborted without saving"),
                          ("SIGTERM", "a second signal: aborted without saving; NOTE")),
                         (KeyboardInterrupt("SIGHUP"), ("SIGHUP", "NOTE")),
                         (KeyboardInterrupt(), ("SIGINT", "NOTE"))]:  # fmt: skip
        with pytest.raises(KeyboardInterrupt) as info, aborts_also_say("NOTE"):
            raise raised
        assert info.value.args == said
    with pytest.raises(KeyboardInterrupt) as info, aborts_also_say(""):
        raise KeyboardInterrupt("SIGTERM", "a second signal: aborted without saving")
    assert info.value.args == ("SIGTERM", "a second signal: aborted without saving")
