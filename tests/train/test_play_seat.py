"""``domino-play --seat``: read as the other count flags read their numbers (``2e0``, ``1_0``),
refused outside the game's seats naming them. Real processes, as a person starts them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PREFIX, SUFFIX = "domino-play: error: ", " (domino-play --help lists every option)\n"


def _play(args: list[str], cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "domino_env.train.play", *args], input="q\n", capture_output=True,
                          text=True, cwd=cwd, timeout=120)  # fmt: skip


@pytest.mark.parametrize(
    "args, message",
    [
        # it was "argument --seat: invalid int value: '1e3'", where --players 1e3 read 1000
        (["--seat", "1e3"], "--seat must be a seat 0..3 of this 4-seat game, got 1000"),
        (["--seat", "2k", "--players", "2"], "--seat must be a seat 0..1 of this 2-seat game, got 2000"),
        (["--seat", "-1"], "--seat must be a seat 0..3 of this 4-seat game, got -1"),
        (["--seat", "4"], "--seat must be a seat 0..3 of this 4-seat game, got 4"),
        (["--seat", "1.5"], "argument --seat: expected an integer (such as 4000, 4e3 or 4k), got '1.5'"),
        (["--seat", "one"], "argument --seat: expected an integer (such as 4000, 4e3 or 4k), got 'one'"),
        # read as seat 3 (Decimal takes a trailing _ and other scripts' digits), 0x3 as not an integer
        (["--seat", "3_"], "argument --seat: expected an integer (such as 4000, 4e3 or 4k), got '3_'"),
        (["--seat", "\u0663"], "argument --seat: expected an integer (such as 4000, 4e3 or 4k), got '\u0663'"),
        (["--seat", "0x3"], "argument --seat: expected an integer (such as 4000, 4e3 or 4k), got '0x3'"),
        (["--players", "1__0"], "argument --players: expected an integer (such as 4000, 4e3 or 4k), got '1__0'"),
    ],
)  # fmt: skip
def test_a_seat_outside_the_game_or_not_an_integer_is_one_line(tmp_path, args, message):
    proc = _play(args, tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", PREFIX + message + SUFFIX)
    assert list(tmp_path.iterdir()) == []  # refused before any play: no record


def test_a_seat_written_as_a_count_is_that_seat(tmp_path):
    """``--seat 2e0`` sits you at seat 2, as ``--seat 2`` does."""
    for text in ("2e0", "2"):
        rec = tmp_path / f"{text}.json"
        proc = _play(["--seat", text, "--seed", "4", "--record", str(rec)], tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(rec.read_text())["seats"] == ["greedy", "greedy", "human", "greedy"]
