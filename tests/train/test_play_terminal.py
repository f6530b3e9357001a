"""``domino-play`` on a terminal narrower than the table: rows wrapped between tiles (tmux), and
one line per row when the output is not a terminal."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["--players", "8", "--max-pip", "18", "--seed", "1"]  # hands of 21 tiles: about 170 columns
TILE = re.compile(r"\[\d+\|\d+\]")


def test_a_narrow_terminal_wraps_the_hand_between_tiles(tmp_path):
    """The terminal cut a long hand or train in the middle of a tile (``[5|1`` / ``2]``)."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is missing: apt-get install -y tmux (make test installs it)")
    session = f"domino-play-{uuid.uuid4().hex[:8]}"
    command = f"cd {ROOT} && {sys.executable} -m train.play {' '.join(ARGS)} --record {tmp_path / 'r.json'}; sleep 120"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "70", "-y", "60", command], check=True)
    try:
        end, screen = time.monotonic() + 60, ""
        while "your move (" not in screen and time.monotonic() < end:  # a bound, not a timing assertion
            time.sleep(0.2)
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session, "-S", "-200"],
                                    capture_output=True, text=True, check=True).stdout  # fmt: skip
        assert "your move (" in screen, screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    lines = screen.splitlines()
    assert all(len(line) <= 70 and line.count("[") == line.count("]") for line in lines), screen
    start = next(k for k, line in enumerate(lines) if line.startswith("hand of seat 0"))
    hand = lines[start : start + 4]  # the hand's line, then its indented continuation lines
    assert hand[1].startswith(" " * 6 + "[")
    assert len(TILE.findall(" ".join(hand))) == 21


def test_piped_output_keeps_one_line_per_row(tmp_path):
    out = subprocess.run([sys.executable, "-m", "train.play", *ARGS, "--record", str(tmp_path / "r.json")],
                         input="q\n", capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    hand = next(line for line in out.stdout.splitlines() if line.startswith("hand of seat 0"))
    assert len(TILE.findall(hand)) == 21


@pytest.mark.parametrize("columns", range(21, 90))
def test_an_end_marker_is_never_split(monkeypatch, columns):
    """Rows were wrapped at any space, so ``(ends 6 |`` / ``7)`` or ``-> open`` / ``end 4`` could
    fall on two lines; the tiles and the rest of the words wrap as before."""
    import os

    from domino_env.train.play import fit_to_terminal

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=None: os.terminal_size((columns, 24)))
    rows = ["  line: " + " ".join(f"[{k}|{k + 1}]" for k in range(9)) + "  (ends 10 | 0)",
            "  seat 3 : " + " ".join(f"[{k}|{k + 2}]" for k in range(7)) + " -> open end 12  (hand 13, score 0)"]  # fmt: skip
    out = fit_to_terminal("\n".join(rows)).splitlines()
    assert all(len(line) <= max(columns - 1, 20) or line.strip() in ("(ends 10 | 0)", "-> open end 12") for line in out)
    assert sum("(ends 10 | 0)" in line for line in out) == 1 and sum("-> open end 12" in line for line in out) == 1
    assert " ".join(out).split() == " ".join(rows).split()  # nothing lost


@pytest.mark.parametrize("columns", range(21, 90))
def test_a_note_that_fits_a_line_is_never_split(monkeypatch, columns):
    """``(hand 13, score 0, MARKER)`` fell on two lines at some widths; a note longer than a
    continuation line (6 columns of indent) still wraps between its words, never past the width."""
    import os

    from domino_env.train.play import fit_to_terminal

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=None: os.terminal_size((columns, 24)))
    note = "(hand 13, score 0, MARKER)"
    long_note = "(hand 13, score 120, MARKER, OPEN DOUBLE 12)"
    rows = ["  seat 1 : " + " ".join(f"[{k}|{k + 2}]" for k in range(7)) + f" -> open end 12  {note}",
            "  seat 2 : " + " ".join(f"[{k}|{k + 1}]" for k in range(5)) + f" -> open end 5  {long_note}"]  # fmt: skip
    width = max(columns - 1, 20)
    out = fit_to_terminal("\n".join(rows)).splitlines()
    for text in (note, long_note):  # whole wherever it fits on a continuation line
        assert sum(text in line for line in out) == 1 or len(text) > width - 6
    assert all(len(line) <= width or line.strip() == "-> open end 12" for line in out), out
    assert " ".join(out).split() == " ".join(rows).split()  # nothing lost


def test_a_void_round_is_said_to_score_nothing():
    """A user trial read "won by nobody" for a void blocked round (docs/rules.md §1.5) and
    wondered; the line now says why nobody won. The tren_mexicano preset voids a blocked round."""
    from domino_env.envs import mexican_train_v0
    from domino_env.train.play import _round_summary

    env = mexican_train_v0.raw_env(preset="tren_mexicano", num_players=2, max_pip=9, use_boneyard=False)
    env.reset(seed=0, options={"deal": {"hands": [[[1, 2]], [[3, 4]]], "station": [9, 9], "first_player": 0}})
    env.step(env.unwrapped.game_state.draw_action + 1)  # nobody holds a 9: the PASS blocks the round
    assert _round_summary(env.infos["player_0"], 0, 0) == (
        "round 1 over (blocked): won by nobody (a void round: it scores nothing)\n"
        "  pips left in each hand: [3, 7]; scores now: [0, 0]"
    )
