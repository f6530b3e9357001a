"""evaluate(..., workers=2) stopped by a signal or an interrupt leaves no worker playing on: a
worker left running made the interpreter's exit wait for its whole share of the tournament."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path

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



def test_a_signal_taken_by_another_thread_stops_the_tournament_without_waiting_for_a_chunk(tmp_path):
    """A user trial: `kill -INT` to a thread other than the main one (numpy's OpenBLAS threads block
    no signal) stopped `evaluate(workers=2)` only when a chunk finished, 47 s later. Here a thread
    of the process sends SIGINT to itself while both workers are deep in a slow search."""
    import subprocess
    import sys

    from process_helpers import running

    go, tell = os.pipe()
    code = (f"import os, signal, sys, threading\nfrom domino_env.train.evaluate import evaluate\n"
            f"def interrupt():\n    os.read({go}, 1)\n    signal.pthread_kill(threading.get_ident(), signal.SIGINT)\n"
            f"threading.Thread(target=interrupt, daemon=True).start()\n"
            f"evaluate(['search:budget=100000', 'greedy'], rounds=4, workers=2, game='block', num_players=2, "
            f"progress=False)")  # fmt: skip
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", code], pass_fds=(go,), cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while len(subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()) < 2:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()  # workers started
            time.sleep(0.1)
        time.sleep(2)  # their first chunk's first decision: a search of 100,000 playouts
        os.write(tell, b"x")
        _, err = proc.communicate(timeout=30)  # before: until a chunk finished (minutes here)
        assert proc.returncode != 0 and "KeyboardInterrupt" in err, err[-2000:]
    finally:
        time.sleep(0.5)  # (a worker being terminated)
        left = [int(pid) for pid in subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True,
                                                   text=True).stdout.split() if running(int(pid))]  # fmt: skip
        if left:
            os.killpg(proc.pid, signal.SIGKILL)
        os.close(go), os.close(tell)
    assert left == [], "a worker outlived the stopped tournament"


def test_a_stopped_tournament_leaves_no_pool_thread_for_the_exit_to_race(monkeypatch, tmp_path):
    """Python 3.11's exit hook wakes each pool's manager thread through a pipe that the thread
    closes as it ends: with the thread still ending after a stop, the write hit the closed pipe and
    `kill PID` printed "OSError: [Errno 9] Bad file descriptor" after domino-evaluate's last line."""
    import threading

    calls = []

    def add(self, records):
        calls.append(len(records))
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament.JournalWriter, "add", add)
    threads = set(threading.enumerate())
    with pytest.raises(KeyboardInterrupt):
        tournament.evaluate(["search", "greedy"], rounds=400, workers=2, game="block",
                            journal=tmp_path / "j.jsonl")  # (not /dev/null: its lock is every process's)
    assert calls == [calls[0]] and calls[0] > 0
    assert [t for t in threading.enumerate() if t not in threads] == []  # at once: nothing left to end


def test_a_ctrl_c_as_a_finished_tournament_shuts_its_workers_down_is_not_lost(monkeypatch):
    """A tournament that played every chunk shuts its idle workers down (they exit 0) with no
    signal held: holding signals there, as a stopped tournament's teardown does, would swallow a
    Ctrl-C pressed while the workers end, and the caller would carry on as if none came (a mutant
    that never marked the tournament finished did that, and no test saw it)."""
    ended = []

    class CtrlCAtShutdown(tournament.ProcessPoolExecutor):
        def shutdown(self, *args, **kwargs):
            workers = list(self._processes.values())
            super().shutdown(*args, **kwargs)
            ended.extend(p.exitcode for p in workers)
            os.kill(os.getpid(), signal.SIGINT)  # as the workers end

    monkeypatch.setattr(tournament, "ProcessPoolExecutor", CtrlCAtShutdown)
    before = set(multiprocessing.active_children())
    with pytest.raises(KeyboardInterrupt):
        tournament.evaluate(["planner", "greedy"], rounds=8, workers=2, game="block")
    assert ended == [0, 0]  # shut down, not terminated (-15)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    _workers_gone(before)


def test_the_workers_live_with_ctrl_c_blocked_and_sigterm_open(monkeypatch):
    """A terminal's Ctrl-C (and SIGHUP, a closed terminal) reaches the whole process group: a
    worker that took it while importing or idle printed "Process SpawnProcess-N:" and a traceback
    of its own (one taken mid-chunk is swallowed by the pool, so the Ctrl-C tests did not see a
    mutant that let the workers be born unblocked). SIGTERM stays open: terminate() ends them."""
    masks = []

    def blocked(pid: int) -> int:  # the signals blocked in every one of 20 reads over 0.2 s: a worker
        # still starting blocks them all for a moment (CPython's vfork of a subprocess), which one
        # read took for its mask (a full run under load: SIGTERM "blocked")
        mask = -1
        for _ in range(20):
            status = Path(f"/proc/{pid}/status").read_text()
            mask &= int(next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1], 16)
            time.sleep(0.01)
        return mask

    class ReadMasks(tournament.ProcessPoolExecutor):
        def shutdown(self, *args, **kwargs):
            masks.extend(blocked(p.pid) for p in self._processes.values())  # idle, alive
            super().shutdown(*args, **kwargs)

    monkeypatch.setattr(tournament, "ProcessPoolExecutor", ReadMasks)
    result = tournament.evaluate(["planner", "greedy"], rounds=8, workers=2, game="block")
    assert result.episodes == 8
    hup = 0 if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN else 1 << (signal.SIGHUP - 1)  # (nohup)
    stops = 1 << (signal.SIGINT - 1) | 1 << (signal.SIGHUP - 1) | 1 << (signal.SIGTERM - 1)
    assert [m & stops for m in masks] == [1 << (signal.SIGINT - 1) | hup] * 2


def test_a_long_tournament_keeps_a_few_chunks_a_worker_submitted(monkeypatch):
    """Every chunk was submitted up front: a future for each of 10,000,000 rounds' 500,000 chunks
    grew domino-evaluate by 40-60 MB/s before the rounds came back, and a Ctrl-C took 18 s to end
    it. At most CHUNKS_IN_FLIGHT chunks a worker wait now, the next submitted as one finishes."""
    ahead, most = [0], [0]

    class Counting(tournament.ProcessPoolExecutor):
        def submit(self, fn, *args, **kwargs):
            future = super().submit(fn, *args, **kwargs)
            ahead[0] += 1
            most[0] = max(most[0], ahead[0])
            future.add_done_callback(lambda _: ahead.__setitem__(0, ahead[0] - 1))
            return future

    monkeypatch.setattr(tournament, "ProcessPoolExecutor", Counting)
    monkeypatch.setattr(tournament, "CHUNK", 2)  # 200 deals: 100 chunks of 2
    result = tournament.evaluate(["random", "random"], game="block", rounds=400, num_players=2, seed=3, workers=2)
    reference = tournament.evaluate(["random", "random"], game="block", rounds=400, num_players=2, seed=3, workers=1)
    assert result.records == reference.records  # every deal played, none twice
    assert 1 <= most[0] <= 2 * tournament.CHUNKS_IN_FLIGHT, most[0]
