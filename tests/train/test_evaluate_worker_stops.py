"""evaluate(..., workers=2) stopped by a signal or an interrupt leaves no worker playing on: a
worker left running made the interpreter's exit wait for its whole share of the tournament."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest

import domino_env.train.tournament as tournament
from domino_env.train.interrupts import sigterm_as_interrupt


def _workers_gone(before: set) -> None:
    deadline = time.monotonic() + 30
    while set(multiprocessing.active_children()) - before:
        assert time.monotonic() < deadline, "the workers outlived the interrupted tournament"
        time.sleep(0.1)


def test_an_interrupt_in_the_callers_loop_stops_the_workers(monkeypatch, tmp_path):
    """A Ctrl-C landing in evaluate's own loop (writing the journal) rather than in the wait for
    the workers: the traceback kept the workers' generator alive, unclosed, and the workers played
    every chunk while a script's exit waited for them."""
    calls = []

    def add(self, records):
        calls.append(len(records))
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(tournament.JournalWriter, "add", add)
    before = set(multiprocessing.active_children())
    with pytest.raises(KeyboardInterrupt) as info:  # its traceback holds evaluate's frame, as a script's
        tournament.evaluate(["search", "greedy"], rounds=400, workers=2, game="block",
                            journal=tmp_path / "j.jsonl")  # fmt: skip
    _workers_gone(before)
    assert info.value.__traceback__ is not None


def test_a_sigterm_while_the_workers_start_stops_them(monkeypatch):
    """SIGTERM (kill, timeout) among the submissions raised there, before the part that stops the
    workers: they played the whole tournament while the exit waited. It is held like Ctrl-C."""

    class TermOnStart(tournament.ProcessPoolExecutor):
        def submit(self, *args, **kwargs):
            future = super().submit(*args, **kwargs)  # the first starts the workers
            if not getattr(self, "sent", False):
                self.sent = True
                os.kill(os.getpid(), signal.SIGTERM)  # inside the spawning window
            return future

    monkeypatch.setattr(tournament, "ProcessPoolExecutor", TermOnStart)
    before = set(multiprocessing.active_children())
    with pytest.raises(KeyboardInterrupt) as info, sigterm_as_interrupt():
        tournament.evaluate(["search", "greedy"], rounds=400, workers=2, game="block")
    assert info.value.args[:1] == ("SIGTERM",)
    _workers_gone(before)


def test_a_second_signal_while_the_workers_are_stopped_does_not_leave_one_running(monkeypatch):
    """timeout signals the command and then its group, and a second Ctrl-C comes fast: a signal
    while the first worker was being stopped cut the loop short, and the second played on."""
    from multiprocessing.context import SpawnProcess

    terminate = SpawnProcess.terminate
    sent = []

    def signal_then_terminate(self):
        if not sent:  # raised at the next call: before the first worker was stopped
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)
        terminate(self)

    monkeypatch.setattr(SpawnProcess, "terminate", signal_then_terminate)

    class CtrlCOnStart(tournament.ProcessPoolExecutor):
        def submit(self, *args, **kwargs):
            if not getattr(self, "pressed", False):
                self.pressed = True
                os.kill(os.getpid(), signal.SIGINT)  # the first Ctrl-C, held until the workers are up
            return super().submit(*args, **kwargs)

    monkeypatch.setattr(tournament, "ProcessPoolExecutor", CtrlCOnStart)
    before = set(multiprocessing.active_children())
    with pytest.raises(KeyboardInterrupt):
        tournament.evaluate(["search", "greedy"], rounds=400, workers=2, game="block")
    assert sent and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    _workers_gone(before)

