"""An interrupted tournament continues where it stopped: ``evaluate(..., journal=PATH)`` keeps
every finished deal, ``domino-evaluate --json PATH`` keeps them in PATH.partial.jsonl and
``--resume`` continues them, with the result of a run straight through."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from domino_env.train.evaluate import evaluate
from domino_env.train.tournament_journal import JournalError, journal_path

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ["planner", "greedy", "greedy", "greedy"]


RUN_KEYS = ("seconds", "workers", "resumed_deals")  # the run's, not the tournament's


def _same(result) -> dict:
    """A result without what depends on the run rather than the tournament."""
    return {k: v for k, v in result.to_dict(records=True).items() if k not in RUN_KEYS}


def test_a_journal_changes_nothing_and_keeps_every_deal(tmp_path):
    journal = tmp_path / "t.jsonl"
    straight = evaluate(AGENTS, rounds=40, seed=3, keep_records=True)
    kept = evaluate(AGENTS, rounds=40, seed=3, keep_records=True, journal=journal)
    assert _same(kept) == _same(straight)
    lines = journal.read_text().splitlines()
    assert json.loads(lines[0])["seed"] == 3 and len(lines) == 1 + 10  # the header, 10 deals
    assert sorted(json.loads(line)["deal"] for line in lines[1:]) == list(range(10))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_cut_journal_continues_to_the_straight_result(tmp_path, workers):
    """Three deals kept and a fourth line cut short (the process killed while writing it): the
    three are not played again, the cut line is overwritten, the result is the straight one."""
    journal = tmp_path / "t.jsonl"
    straight = evaluate(AGENTS, rounds=40, seed=3, keep_records=True, journal=journal)
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text("".join(lines[:4]) + lines[4][:40])
    continued = evaluate(AGENTS, rounds=40, seed=3, keep_records=True, journal=journal, workers=workers)
    assert _same(continued) == _same(straight)
    assert (straight.resumed_deals, continued.resumed_deals) == (0, 3)
    assert journal.read_text().splitlines(keepends=True)[:4] == lines[:4]
    assert sorted(json.loads(line)["deal"] for line in journal.read_text().splitlines()[1:]) == list(range(10))


def test_deals_that_are_kept_are_not_played_again(tmp_path, monkeypatch):
    import domino_env.train.tournament as tournament

    journal = tmp_path / "t.jsonl"
    evaluate(AGENTS, rounds=40, seed=3, journal=journal)
    played = []
    real = tournament._play_deals
    monkeypatch.setattr(tournament, "_play_deals", lambda deals: played.extend(deals) or real(deals))
    evaluate(AGENTS, rounds=40, seed=3, journal=journal)
    assert played == []
    evaluate(AGENTS, rounds=48, seed=3, journal=journal)  # a longer tournament: two more deals
    assert played == [10, 11]


def test_a_longer_tournament_reuses_the_deals_it_shares(tmp_path):
    journal = tmp_path / "t.jsonl"
    evaluate(AGENTS, rounds=20, seed=5, journal=journal)
    longer = evaluate(AGENTS, rounds=40, seed=5, keep_records=True, journal=journal)
    assert _same(longer) == _same(evaluate(AGENTS, rounds=40, seed=5, keep_records=True))


@pytest.mark.parametrize(
    "change, words",
    [
        ({"seed": 4}, "seed 3 there, 4 here"),
        ({"doubles": "chain"}, "doubles 'satisfy' there, 'chain' here"),
        ({"agents": ["greedy", "planner", "greedy", "greedy"]}, "agents ['planner', 'greedy', 'greedy', 'greedy'] there"),
        ({"episode": "game"}, "episode 'round' there, 'game' here"),
    ],
)  # fmt: skip
def test_the_journal_of_another_tournament_is_refused_naming_what_differs(tmp_path, change, words):
    journal = tmp_path / "t.jsonl"
    evaluate(AGENTS, rounds=8, seed=3, journal=journal)
    before = journal.read_text()
    kwargs = {"agents": AGENTS, "rounds": 8, "seed": 3, **change}
    with pytest.raises(JournalError, match="is the journal of another tournament") as err:
        evaluate(kwargs.pop("agents"), journal=journal, **kwargs)
    assert words in str(err.value) and str(journal) in str(err.value)
    assert journal.read_text() == before  # untouched


def test_a_file_that_is_not_a_journal_is_refused(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    with pytest.raises(JournalError, match="is not a domino-evaluate journal"):
        evaluate(AGENTS, rounds=8, journal=notes)
    assert notes.read_text() == "my notes\n"


# ---------------------------------------------------------------------------- the command


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def test_an_interrupted_command_continues_with_resume_to_the_straight_result(tmp_path):
    """SIGTERM after a few deals: the line says what is kept and how to go on; ``--resume`` plays
    the rest, writes the result of a straight run and removes the journal."""
    out = tmp_path / "out.json"
    journal = journal_path(out)
    args = ["--agents", *AGENTS, "--rounds", "800", "--seed", "9", "--json", str(out), "--no-progress"]
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.evaluate", *args], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not (journal.exists() and journal.read_text().count("\n") >= 4):  # 3 deals finished
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else ""
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    played = journal.read_text().count("\n") - 1
    assert proc.returncode == 143 and 3 <= played < 200, err
    assert err.strip().splitlines()[-1] == (
        f"domino-evaluate: interrupted (the tournament did not finish: {played} of 200 deals played, kept in "
        f"{journal}: the same command with --resume continues it; {out} not written)")  # fmt: skip
    refused = _cli(*args, cwd=tmp_path)  # the same command without --resume would lose them
    assert refused.returncode == 2 and f"{journal} holds the finished deals of an interrupted tournament; give " \
        "--resume to continue it, or delete it" in refused.stderr  # fmt: skip
    resumed = _cli(*args, "--resume", "--workers", "2", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert f"continuing the tournament of {journal}: {played} of 200 deals played before" in resumed.stderr
    assert f"with 2 worker(s) ({200 - played} deals in this run, {played} from the interrupted run's journal)" \
        in resumed.stdout  # fmt: skip
    assert not journal.exists()
    written = json.loads(out.read_text())
    assert written["resumed_deals"] == played
    straight = evaluate(AGENTS, rounds=800, seed=9).to_dict()
    assert {k: v for k, v in written.items() if k not in RUN_KEYS} == json.loads(
        json.dumps({k: v for k, v in straight.items() if k not in RUN_KEYS}))


def test_resume_refusals_are_one_line_before_any_play(tmp_path):
    out = tmp_path / "out.json"
    base = ["--agents", *AGENTS, "--rounds", "8", "--no-progress"]
    res = _cli(*base, "--resume", cwd=tmp_path)
    assert res.returncode == 2 and "--resume continues the tournament that an interrupted run left in " \
        "PATH.partial.jsonl of its --json PATH: give that --json PATH" in res.stderr  # fmt: skip
    res = _cli(*base, "--resume", "--json", "-", cwd=tmp_path)
    assert res.returncode == 2 and "give that --json PATH" in res.stderr and res.stdout == ""
    res = _cli(*base, "--resume", "--json", str(out), cwd=tmp_path)
    assert res.returncode == 2 and f"--resume: {out}.partial.jsonl not found: no interrupted tournament of " \
        f"--json {out} to continue" in res.stderr  # fmt: skip
    evaluate(AGENTS, rounds=8, seed=0, journal=journal_path(out))
    res = _cli(*base, "--resume", "--json", str(out), "--seed", "1", cwd=tmp_path)
    assert res.returncode == 2 and f"--resume: {out}.partial.jsonl is the journal of another tournament: seed 0 " \
        "there, 1 here; give the flags of that tournament, or delete the file" in res.stderr  # fmt: skip
    journal_path(out).unlink()
    journal_path(out).mkdir()
    res = _cli(*base, "--json", str(out), cwd=tmp_path)
    assert res.returncode == 2 and f"{out}.partial.jsonl, where this command keeps the finished deals, is not a " \
        "file" in res.stderr  # fmt: skip
    assert not out.exists()
