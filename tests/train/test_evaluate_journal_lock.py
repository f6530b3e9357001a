"""One run at a time per journal: two runs of one ``domino-evaluate --json PATH`` (the original
and a ``--resume``, or two ``--resume``) both appended their deals to PATH.partial.jsonl. The run
that holds the journal's lock plays; a second one is refused before it plays."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from process_helpers import running, wait_for_deals

import domino_env.train.tournament_journal as tournament_journal
from domino_env.train.evaluate import evaluate
from domino_env.train.tournament_journal import JournalBusyError, JournalLock, journal_path

AGENTS = ["planner", "greedy", "greedy", "greedy"]


def _args(out: Path, rounds: int) -> list[str]:
    return ["--agents", *AGENTS, "--rounds", str(rounds), "--seed", "9", "--json", str(out), "--no-progress"]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def test_a_second_run_of_one_journal_is_refused_while_the_first_plays(tmp_path):
    out = tmp_path / "out.json"
    journal = journal_path(out)
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.evaluate", *_args(out, 8000)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        wait_for_deals(proc, journal, 2)
        busy = (f"domino-evaluate: error: --json {out}: another domino-evaluate is writing {journal}, this "
                f"tournament's journal (two runs would mix their deals in it); once that one stops, {out} holds "
                "its result, or, if it was interrupted, the same command with --resume continues it "
                "(domino-evaluate --help lists every option)")  # fmt: skip
        for extra in ([], ["--resume"]):  # a second start, and a --resume of the running one
            second = _cli(*_args(out, 8000), *extra, cwd=tmp_path)
            assert (second.returncode, second.stdout, second.stderr.strip()) == (2, "", busy), second.stderr
        with pytest.raises(JournalBusyError, match=f"{journal} is being written by another process"):
            evaluate(AGENTS, rounds=8000, seed=9, journal=journal)  # from Python too
        assert proc.poll() is None  # the first plays on
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if running(proc.pid):
            proc.kill()
    assert proc.returncode == 143, err
    deals = [json.loads(line)["deal"] for line in journal.read_text().splitlines()[1:]]
    assert deals == list(range(len(deals))) and len(deals) >= 2  # the first run's deals alone, in order
    resumed = _cli(*_args(out, 4 * len(deals) + 8), "--resume", cwd=tmp_path)  # the lock went with the first
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(out.read_text())["resumed_deals"] == len(deals) and not journal.exists()


def test_the_lock_is_shared_within_a_process_and_released(tmp_path):
    journal = tmp_path / "t.jsonl"
    outer = JournalLock(journal)  # as domino-evaluate holds it around evaluate()
    assert outer.held and outer.created and journal.read_text() == ""
    kept = evaluate(AGENTS, rounds=8, seed=3, journal=journal)
    assert kept.deals == 2 and journal.read_text().count("\n") == 3 and outer.held
    outer.release()
    again = JournalLock(journal)  # a file with deals is kept when the lock goes
    assert again.held and not again.created and journal.read_text().count("\n") == 3
    again.release()
    empty = JournalLock(tmp_path / "new.jsonl")
    empty.release()  # created and nothing written: removed
    assert not (tmp_path / "new.jsonl").exists()


def test_without_fcntl_nothing_is_locked(tmp_path, monkeypatch):
    monkeypatch.setattr(tournament_journal, "fcntl", None)
    lock = JournalLock(tmp_path / "t.jsonl")
    assert not lock.held and not (tmp_path / "t.jsonl").exists()
    lock.release()
    assert evaluate(AGENTS, rounds=8, seed=3, journal=tmp_path / "t.jsonl").deals == 2



def test_a_stopped_tournament_leaves_no_descriptor_open_on_its_journal(tmp_path, monkeypatch):
    """The journal's writer and lock are closed when the tournament stops, though the exception's
    traceback (kept by a script or a notebook) holds evaluate's frame and so the writer: each
    stopped tournament of a session held one more open file."""
    import os

    journal = tmp_path / "t.partial.jsonl"
    added = []

    def add(self, records):
        added.append(records)
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament_journal.JournalWriter, "add", add)
    with pytest.raises(KeyboardInterrupt) as info:
        evaluate(["greedy", "random"], rounds=4, game="block", num_players=2, journal=journal)
    fds = Path(f"/proc/{os.getpid()}/fd")
    held = [fd for fd in fds.iterdir() if os.path.realpath(fd) == str(journal.resolve())]
    assert len(added) == 1 and journal.stat().st_size > 0 and held == []
    assert info.value.__traceback__ is not None  # still held here, as a script's would be
