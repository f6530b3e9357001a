"""What ``domino-evaluate`` keeps beside ``--json PATH``, checked in process (no subprocess, no
tournament longer than a few deals): :func:`check_journal`'s answers before any play, the
:class:`Journal`'s counts and lines, and the provenance of the ``--json`` file."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from domino_env import __version__
from domino_env.train.evaluate import build_parser, evaluate
from domino_env.train.evaluate_files import Journal, check_journal, with_provenance
from domino_env.train.tournament_journal import journal_path

AGENTS = ["planner", "greedy", "greedy", "greedy"]
EVALUATE_PY = Path(__file__).resolve().parents[2] / "train" / "evaluate.py"


def _check(*flags: str, rounds: int = 8, players: int = 4) -> Journal | None:
    parser = build_parser()
    args = parser.parse_args(["--agents", *AGENTS, "--rounds", str(rounds), "--no-progress", *flags])
    return check_journal(parser, args, players, {})


def _refused(capsys, *flags: str, **kw) -> str:
    with pytest.raises(SystemExit) as exc:
        _check(*flags, **kw)
    assert exc.value.code == 2
    return capsys.readouterr().err


# --- check_journal -------------------------------------------------------------------------------


@pytest.mark.parametrize("flags", [(), ("--json", "-")])
def test_no_json_path_keeps_no_journal(flags):
    assert _check(*flags) is None


def test_a_new_journal_counts_the_deals_of_the_tournament(tmp_path, capsys):
    out = tmp_path / "out.json"
    journal = _check("--json", str(out), rounds=10)
    try:
        assert (journal.path, journal.deals) == (journal_path(out), 3)  # ceil(10 / 4)
        assert journal.header["seed"] == 0 and journal.header["agents"] == AGENTS
        assert journal.lock.held and journal_path(out).read_text() == ""  # locked from the checks on
    finally:
        journal.release()
    assert not journal.lock.held and not journal_path(out).exists()  # let go of; nothing played, no file left
    assert capsys.readouterr().err == ""


def test_a_journal_with_deals_is_refused_without_resume_and_kept(tmp_path, capsys):
    out = tmp_path / "out.json"
    evaluate(AGENTS, rounds=8, seed=0, journal=journal_path(out))
    before = journal_path(out).read_text()
    err = _refused(capsys, "--json", str(out))
    assert f"--json {out}: {journal_path(out)} holds the finished deals of an interrupted tournament; give " \
        "--resume to continue it, or delete it" in err  # fmt: skip
    assert journal_path(out).read_text() == before


def test_resume_continues_this_tournament_and_says_how_far_it_got(tmp_path, capsys):
    out = tmp_path / "out.json"
    evaluate(AGENTS, rounds=12, seed=0, journal=journal_path(out))  # deals 0, 1, 2
    journal = _check("--json", str(out), "--resume", rounds=8)  # deals 0, 1: deal 2 is not counted
    try:
        assert journal.deals == 2 and journal.kept() == 2
        assert journal.kept_line() == (f"2 of 2 deals played, kept in {journal_path(out)}: the same command "
                                       "with --resume continues it")  # fmt: skip
    finally:
        journal.release()
    assert capsys.readouterr().err == f"continuing the tournament of {journal_path(out)}: 2 of 2 deals played before\n"


def test_a_header_without_a_deal_is_started_over_without_resume(tmp_path, capsys):
    out = tmp_path / "out.json"
    evaluate(AGENTS, rounds=8, seed=0, journal=journal_path(out))
    header = journal_path(out).read_text().splitlines(keepends=True)[0]
    journal_path(out).write_text("\n" + header + "\n  \n")  # blank lines are not deals
    journal = _check("--json", str(out))
    journal.release()
    assert journal_path(out).read_text() == ""


def test_resume_refusals_name_what_is_wrong(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.json"
    err = _refused(capsys, "--json", str(out), "--resume")
    assert f"--resume: {journal_path(out)} not found (or empty): no interrupted tournament of --json {out} to " \
        "continue" in err  # fmt: skip
    journal_path(out).write_text("")
    err = _refused(capsys, "--json", str(out), "--resume")
    assert f"--resume: {journal_path(out)} not found (or empty)" in err
    evaluate(AGENTS, rounds=8, seed=0, journal=journal_path(out))
    err = _refused(capsys, "--json", str(out), "--resume", "--seed", "1")
    assert f"--resume: {journal_path(out)} is the journal of another tournament: seed 0 there, 1 here; give the " \
        "flags of that tournament, or delete the file" in err  # fmt: skip
    real = os.access  # (any user, root included: os.access, which the command asks, says no)
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != journal_path(out) and real(path, mode))
    err = _refused(capsys, "--json", str(out), "--resume")
    assert f"--resume: {journal_path(out)} is not writable (this run adds its deals to it)" in err


def test_a_journal_that_cannot_be_read_is_refused_with_the_reason(tmp_path, capsys, monkeypatch):
    import domino_env.train.evaluate_files as files

    out = tmp_path / "out.json"
    evaluate(AGENTS, rounds=8, seed=0, journal=journal_path(out))

    def unreadable(path, header):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files, "read_journal", unreadable)
    err = _refused(capsys, "--json", str(out), "--resume")
    assert f"error: --resume: {journal_path(out)} could not be read (Permission denied) (" in err


def test_a_folder_in_place_of_the_journal_is_refused(tmp_path, capsys):
    out = tmp_path / "out.json"
    journal_path(out).mkdir()
    err = _refused(capsys, "--json", str(out))
    assert f"--json {out}: {journal_path(out)}, where this command keeps the finished deals, is not a file" in err


def test_a_folder_that_cannot_be_written_is_refused(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    out = folder / "out.json"
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != folder and real(path, mode))
    err = _refused(capsys, "--json", str(out))
    assert f"--json {out}: the folder {folder} is not writable (the result and {journal_path(out)}, where the " \
        "finished deals are kept, are written there)" in err  # fmt: skip


# --- Journal -------------------------------------------------------------------------------------


def test_kept_counts_the_deals_of_this_tournament_only(tmp_path):
    path = tmp_path / "t.jsonl"
    evaluate(AGENTS, rounds=12, seed=0, journal=path)  # deals 0, 1, 2
    header = json.loads(path.read_text().splitlines()[0])
    assert Journal(path, header, 2).kept() == 2
    assert Journal(path, header, 3).kept() == 3
    assert Journal(tmp_path / "missing.jsonl", header, 3).kept() == 0
    assert Journal(path, {**header, "seed": 1}, 3).kept() == 0  # another tournament's
    Journal(path, header, 3).release()  # no lock: nothing to let go of


@pytest.mark.parametrize("deals, kept, words", [(1, 1, "1 of 1 deal played"), (2, 0, "0 of 2 deals played")])
def test_kept_line_says_what_is_kept(tmp_path, deals, kept, words):
    path = tmp_path / "t.jsonl"
    assert Journal(path, {}, deals).kept_line(kept) == (f"{words}, kept in {path}: the same command with "
                                                        "--resume continues it")  # fmt: skip


# --- with_provenance -----------------------------------------------------------------------------


def test_provenance_of_a_call_from_python_drops_resume():
    got = with_provenance({"seed": 3}, ["--agents", "a b", "--resume", "--seed", "3"])
    assert got == {"seed": 3, "command": "python -m domino_env.train.evaluate --agents 'a b' --seed 3",
                   "package_version": __version__}  # fmt: skip
    assert with_provenance({}, ["--resume"])["command"] == "python -m domino_env.train.evaluate"


@pytest.mark.parametrize("script", ["/usr/local/bin/domino-evaluate", str(EVALUATE_PY)])
def test_provenance_names_the_console_script_or_the_module(script):
    prog = "domino-evaluate" if script.endswith("domino-evaluate") else "python -m domino_env.train.evaluate"
    assert with_provenance({}, ["--seed", "3"], script)["command"] == f"{prog} --seed 3"


def test_provenance_names_the_users_script(tmp_path):
    script = tmp_path / "my agents.py"
    script.write_text("")
    quoted = shlex.join(["python", str(script)])
    assert with_provenance({}, ["--seed", "3", "--resume"], str(script))["command"] == f"{quoted} --seed 3"
    assert with_provenance({}, ["--resume"], str(script))["command"] == quoted
