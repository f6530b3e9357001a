"""An interrupted tournament continues where it stopped: ``evaluate(..., journal=PATH)`` keeps
every finished deal, ``domino-evaluate --json PATH`` keeps them in PATH.partial.jsonl and
``--resume`` continues them, with the result of a run straight through."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from process_helpers import wait_for_deals

from domino_env.train.evaluate import evaluate
from domino_env.train.tournament_journal import JournalError, journal_path

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ["planner", "greedy", "greedy", "greedy"]


RUN_KEYS = ("seconds", "workers", "resumed_deals", "command", "package_version")  # the run's, not the tournament's


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
    # and a shorter one keeps only its own deals (found by mutation testing: `d <= deals` kept one more)
    shorter = evaluate(AGENTS, rounds=8, seed=5, keep_records=True, journal=journal)
    assert shorter.resumed_deals == shorter.deals == 2 and len(shorter.records) == 8
    assert _same(shorter) == _same(evaluate(AGENTS, rounds=8, seed=5, keep_records=True))


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
    assert str(err.value).count(words) == 1  # the episode kind was named twice (header and env_kwargs)
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
        wait_for_deals(proc, journal, 3)
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
    import shlex

    from domino_env import __version__

    # the command plays the tournament again (this run's --workers kept, --resume dropped)
    assert written["command"] == "python -m domino_env.train.evaluate " + shlex.join([*args, "--workers", "2"])
    assert written["package_version"] == __version__
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
    assert res.returncode == 2 and f"--resume: {out}.partial.jsonl not found (or empty): no interrupted tournament of " \
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


def _journal_lines(tmp_path, rounds=16, seed=3) -> tuple[Path, list[dict]]:
    journal = tmp_path / "t.jsonl"
    evaluate(AGENTS, rounds=rounds, seed=seed, journal=journal)
    return journal, [json.loads(line) for line in journal.read_text().splitlines()]


def _rewrite(journal: Path, entries: list[dict]) -> None:
    journal.write_text("".join(json.dumps(e) + "\n" for e in entries))


def _edit(entry: dict, how: str) -> dict | list:
    """One deal line of a journal, damaged in one way."""
    e = json.loads(json.dumps(entry))
    r0 = e["records"][0]
    if how == "negative deal":
        e["deal"] = -1
    elif how == "deal as text":
        e["deal"] = str(e["deal"])
    elif how == "record of another deal":
        r0["deal"] += 1
    elif how == "a rotation missing":
        e["records"] = e["records"][1:]
    elif how == "a rotation twice":
        e["records"][1] = e["records"][0]
    elif how == "another seed":
        r0["seed"] += 1
    elif how == "seats of another rotation":
        r0["seats"] = e["records"][1]["seats"]
    elif how == "credit as text":
        r0["round_credit"][0] = "abc"
    elif how == "credit above 1":  # a user trial: 50 made the planner 0.814 (0.689) and parity 0.281
        r0["round_credit"] = [50, 0, 0, 0][: len(r0["round_credit"])]
    elif how == "credits above 1 in all":  # two seats each winning the one round
        r0["round_credit"] = [1, 1, 0, 0]
    elif how == "a field missing":
        del r0["pips"]
    elif how == "negative count":
        r0["steps"] = -3
    elif how == "a list":
        return [e]
    return e


@pytest.mark.parametrize("how", ["negative deal", "deal as text", "record of another deal", "a rotation missing",
                                 "a rotation twice", "another seed", "seats of another rotation", "credit as text",
                                 "credit above 1", "credits above 1 in all", "a field missing", "negative count", "a list"])  # fmt: skip
def test_a_deal_line_that_this_tournament_could_not_have_written_is_refused(tmp_path, how):
    """Each line is checked against what the tournament fixes (its P records, their rotations and
    seats, the deal's env seed, the types): a damaged line was mixed into the result silently."""
    journal, entries = _journal_lines(tmp_path)
    entries[2] = _edit(entries[2], how)
    _rewrite(journal, entries)
    with pytest.raises(JournalError, match=f"{journal}: line 3 is not a finished deal of this tournament"):
        evaluate(AGENTS, rounds=16, seed=3, journal=journal)


def test_team_game_credits_are_checked_per_team(tmp_path):
    """Partners share a result, so a Cuban game gives credit 1 to two seats (a tie 0.5 to all four):
    a real journal resumes as it was written; four winners of one game are refused (they made
    random's win rate 0.375 from 0.25)."""
    agents, kwargs = ["greedy", "random", "greedy", "random"], {"rounds": 8, "seed": 1, "game": "cuban", "episode": "game"}
    journal = tmp_path / "c.jsonl"
    straight = evaluate(agents, keep_records=True, **kwargs)
    assert _same(evaluate(agents, keep_records=True, journal=journal, **kwargs)) == _same(straight)
    assert _same(evaluate(agents, keep_records=True, journal=journal, **kwargs)) == _same(straight)  # read back
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    assert {sum(r["game_credit"]) for e in entries[1:] for r in e["records"]} == {2}
    finished = next(k for k, r in enumerate(entries[1]["records"]) if not r["truncated"])
    rotation = entries[1]["records"][finished]["rotation"]
    for credit, problem in (([1, 1, 1, 1], "game win credits [1, 1, 1, 1]: a finished game gives at most 1 a seat and 2 in all"),
                            (None, "game win credits None: a finished game gives"),  # made a win a loss
                            ([1, 1, 0, 0], "win credits [1, 1, 0, 0] differ between partners (seats 0 and 2, 1 and 3)")):
        edited = json.loads(json.dumps(entries))
        edited[1]["records"][finished]["game_credit"] = credit
        _rewrite(journal, edited)
        with pytest.raises(JournalError, match=re.escape(f"line 2 is not a finished deal of this tournament (deal 0, "
                                                         f"rotation {rotation}: {problem}")):  # fmt: skip
            evaluate(agents, journal=journal, **kwargs)
    round_journal = tmp_path / "r.jsonl"
    evaluate(agents, rounds=8, seed=1, game="cuban", journal=round_journal)
    lines = [json.loads(line) for line in round_journal.read_text().splitlines()]
    lines[1]["records"][0]["game_credit"] = [1, 0, 1, 0]
    _rewrite(round_journal, lines)
    with pytest.raises(JournalError, match=re.escape("game win credits [1, 0, 1, 0] in a tournament of single rounds")):
        evaluate(agents, rounds=8, seed=1, game="cuban", journal=round_journal)


def test_a_deal_repeated_with_other_records_is_refused_and_an_identical_repeat_counts_once(tmp_path):
    journal, entries = _journal_lines(tmp_path)
    straight = evaluate(AGENTS, rounds=16, seed=3, keep_records=True)
    _rewrite(journal, [*entries, entries[1]])  # the same deal written twice: harmless
    assert _same(evaluate(AGENTS, rounds=16, seed=3, keep_records=True, journal=journal)) == _same(straight)
    other = _edit(entries[1], "")
    other["records"][0]["steps"] += 1
    _rewrite(journal, [*entries, other])
    with pytest.raises(JournalError, match=f"{journal}: line 6 repeats deal 0 with other records"):
        evaluate(AGENTS, rounds=16, seed=3, journal=journal)


def test_an_empty_file_is_a_new_journal(tmp_path):
    journal = tmp_path / "t.jsonl"
    journal.write_text("")
    kept = evaluate(AGENTS, rounds=8, seed=3, keep_records=True, journal=journal)
    assert _same(kept) == _same(evaluate(AGENTS, rounds=8, seed=3, keep_records=True))
    assert journal.read_text().count("\n") == 3  # the header, two deals


def _run(argv, capsys) -> tuple[int, str]:
    """``domino-evaluate argv`` in this process, as the console script runs it: (exit, stderr)."""
    from domino_env.train.cli import launch
    from domino_env.train.evaluate import main

    with pytest.raises(SystemExit) as exit_:
        launch("domino-evaluate", lambda: main(argv))
    return exit_.value.code, capsys.readouterr().err


def test_a_journal_that_cannot_be_written_keeps_its_deals_and_says_so(tmp_path, monkeypatch, capsys):
    """A full disk after three deals: one line naming the journal and what it keeps (it was a
    traceback), and --resume then finishes to the straight result."""
    import errno

    from domino_env.train.tournament_journal import JournalWriter

    out = tmp_path / "out.json"
    argv = ["--agents", *AGENTS, "--rounds", "40", "--seed", "2", "--json", str(out), "--no-progress"]
    real = JournalWriter._write
    written = []

    class FullDisk:
        def write(self, *text):
            raise OSError(errno.ENOSPC, "No space left on device")

        flush = close = write

    def full_disk(self, entry):
        if len(written) == 4:  # the header and three deals fit
            self._file = FullDisk()
        written.append(entry)
        real(self, entry)

    monkeypatch.setattr(JournalWriter, "_write", full_disk)
    code, err = _run(argv, capsys)
    journal = journal_path(out)
    assert code == 1 and err.strip() == (
        f"domino-evaluate: error: --json {out}: {journal} could not be written (No space left on device); 3 of 10 "
        f"deals played, kept in {journal}: the same command with --resume continues it once it can be written")  # fmt: skip
    monkeypatch.setattr(JournalWriter, "_write", real)
    assert _run([*argv, "--resume"], capsys)[0] == 0
    written_json = json.loads(out.read_text())
    assert written_json["resumed_deals"] == 3 and not journal.exists()
    straight = json.loads(json.dumps(evaluate(AGENTS, rounds=40, seed=2).to_dict()))
    assert {k: v for k, v in written_json.items() if k not in RUN_KEYS} == {
        k: v for k, v in straight.items() if k not in RUN_KEYS}  # fmt: skip


def test_a_result_that_cannot_be_written_keeps_every_deal_for_resume(tmp_path, monkeypatch, capsys):
    import errno

    import domino_env.train.evaluate as evaluate_module

    out = tmp_path / "out.json"
    argv = ["--agents", *AGENTS, "--rounds", "16", "--json", str(out), "--no-progress"]

    def is_a_folder(path, text):
        raise OSError(errno.EISDIR, "Is a directory")

    monkeypatch.setattr(evaluate_module, "replace_text", is_a_folder)
    code, err = _run(argv, capsys)
    journal = journal_path(out)
    assert code == 1 and err.strip() == (
        f"domino-evaluate: error: --json {out}: could not be written (Is a directory); 4 of 4 deals played, kept "
        f"in {journal}: the same command with --resume continues it, writing the result without playing again")  # fmt: skip
    monkeypatch.undo()
    code, err = _run([*argv, "--resume"], capsys)
    assert code == 0 and "4 of 4 deals played before" in err and out.exists() and not journal.exists()


def test_a_folder_or_journal_this_user_cannot_write_is_refused_before_any_play(tmp_path, monkeypatch, capsys):
    """The journal is written beside --json: a folder that cannot take it (or, for --resume, a
    journal that cannot be added to) was a PermissionError traceback. The test runs as any user:
    os.access, which the command asks, says no for the path under test."""
    import os

    out = tmp_path / "out.json"
    out.write_text(json.dumps({"agents": [], "stats": [], "rounds_played": 0}))  # an earlier result
    journal = journal_path(out)
    argv = ["--agents", *AGENTS, "--rounds", "8", "--json", str(out), "--no-progress"]
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != tmp_path and real(path, mode, **kw))
    code, err = _run(argv, capsys)
    assert code == 2 and f"--json {out}: the folder {tmp_path} is not writable (the result and {journal}, where " \
        "the finished deals are kept, are written there)" in err  # fmt: skip
    evaluate(AGENTS, rounds=8, seed=0, journal=journal)
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != journal and real(path, mode, **kw))
    code, err = _run([*argv, "--resume"], capsys)
    assert code == 2 and f"--resume: {journal} is not writable (this run adds its deals to it)" in err


def test_a_journal_without_a_deal_is_started_over_without_resume(tmp_path, capsys):
    """A run stopped before its first deal finished leaves the header alone: nothing to keep, so
    the same command without --resume starts over (it was refused as "holds the finished deals of
    an interrupted tournament"), even where the header was another tournament's. A journal with a
    deal is still refused."""
    out = tmp_path / "out.json"
    journal = journal_path(out)
    args = ["--agents", *AGENTS, "--rounds", "8", "--seed", "3", "--json", str(out), "--no-progress"]
    evaluate(AGENTS, rounds=4, seed=3, journal=journal)  # the header and one deal
    header, deal = journal.read_text().splitlines()
    journal.write_text(json.dumps({**json.loads(header), "seed": 99}) + "\n")  # another tournament's, no deal
    code, err = _run(args, capsys)
    assert code == 0 and not journal.exists() and json.loads(out.read_text())["rounds_played"] == 8, err
    straight = evaluate(AGENTS, rounds=8, seed=3)
    assert json.loads(out.read_text())["agents"] == json.loads(json.dumps(straight.to_dict()))["agents"]
    out.unlink()
    journal.write_text(header + "\n" + deal + "\n")
    code, err = _run(args, capsys)
    assert code == 2 and "holds the finished deals of an interrupted tournament; give --resume" in err


def test_a_journal_that_could_not_be_written_at_all_is_not_offered_to_resume(tmp_path, capsys, monkeypatch):
    """The disk is full from the journal's header on: nothing is kept, so the message does not point
    at a journal to continue (it said "0 of 10 deals played, kept in PATH: ... --resume")."""
    import errno

    from domino_env.train.tournament_journal import JournalWriter

    def full_disk(self, entry):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(JournalWriter, "_write", full_disk)
    out = tmp_path / "out.json"
    code, err = _run(["--agents", *AGENTS, "--rounds", "40", "--seed", "2", "--json", str(out), "--no-progress"], capsys)
    assert code == 1 and err.strip().endswith("(No space left on device); 0 of 10 deals kept"), err
    assert "--resume" not in err
    code, err = _run(["--agents", *AGENTS, "--rounds", "4", "--seed", "2", "--json", str(out), "--no-progress"], capsys)
    assert code == 1 and err.strip().endswith("; 0 of 1 deal kept"), err  # one deal: "deal", not "deals"


def _without_seat_rounds(journal: Path) -> None:
    """The journal as a release before seat_rounds (2026-12-05) wrote it."""
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    for e in entries[1:]:
        for r in e["records"]:
            del r["seat_rounds"]
    _rewrite(journal, entries)


def test_an_elimination_journal_from_before_seat_rounds_is_refused(tmp_path):
    """Its knocked-out seats' rounds cannot be told: resumed, the kept deals counted every round
    and the result was not the straight one (random pips per round 32.46 instead of 35.87 with
    planner random random, double-9, 240 games, seed 4, after 80 deals in the old journal)."""
    journal, kw = tmp_path / "t.jsonl", dict(max_pip=9, episode="game", game_end="elimination")
    evaluate(["planner", "random", "random"], rounds=6, seed=4, journal=journal, **kw)
    _without_seat_rounds(journal)
    with pytest.raises(JournalError, match="line 2 was written before the journal kept each seat's rounds"):
        evaluate(["planner", "random", "random"], rounds=6, seed=4, journal=journal, **kw)


def test_a_journal_from_before_seat_rounds_still_resumes_where_every_seat_plays_every_round(tmp_path):
    journal = tmp_path / "t.jsonl"
    straight = evaluate(AGENTS, rounds=16, seed=3, journal=journal, episode="game")
    _without_seat_rounds(journal)
    continued = evaluate(AGENTS, rounds=16, seed=3, journal=journal, episode="game")
    assert continued.resumed_deals == 4 and continued.stats == straight.stats
