"""``domino_env.train.evaluate_files``: what a mutation-testing pass (2026-12) found no test for: a
journal of a single byte is a file with something in it (only an empty one is "not found (or
empty)"): ``--resume`` reads it and refuses it as no journal, a run without ``--resume`` empties it
as a journal without a deal.
"""

from __future__ import annotations

import pytest

from domino_env.train.evaluate import build_parser
from domino_env.train.evaluate_files import Journal, check_journal
from domino_env.train.tournament_journal import journal_path

AGENTS = ["planner", "greedy", "greedy", "greedy"]


def _check(*flags: str) -> Journal | None:
    parser = build_parser()
    args = parser.parse_args(["--agents", *AGENTS, "--rounds", "8", "--no-progress", *flags])
    return check_journal(parser, args, 4, {})


@pytest.mark.parametrize("content", ["x", "\n"])
def test_a_one_byte_journal_is_read_not_taken_for_an_empty_one(tmp_path, capsys, content):
    """Kills: ``path.stat().st_size > 0`` -> ``> 1`` (a one-byte file taken for an empty one: "not
    found (or empty)" with --resume, left as it was without)."""
    out = tmp_path / "out.json"
    journal_path(out).write_text(content)
    with pytest.raises(SystemExit) as exc:
        _check("--json", str(out), "--resume")
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"--resume: {journal_path(out)} is not a domino-evaluate journal (its first line is not one's header)" in err
    assert "not found (or empty)" not in err
    assert journal_path(out).read_text() == content  # refused: left alone
    journal = _check("--json", str(out))  # without --resume: no deal in it, started over
    try:
        assert journal_path(out).read_text() == ""
    finally:
        journal.release()
    assert capsys.readouterr().err == ""
