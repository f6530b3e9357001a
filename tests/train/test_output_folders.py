"""An output file whose folder is a file: every command says so in the same words, before any work
(domino-play, domino-replay-html, the learning curve and the result chart said "does not exist"
of a folder that exists as a file, where domino-evaluate said "is a file, not a folder")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from process_helpers import block_record

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / "checkpoints" / "mexican_train_4p_d12_action_scores"


@pytest.mark.parametrize("command", ["evaluate", "play", "replay_html", "plots", "result_chart"])
def test_a_file_in_place_of_the_output_folder_is_named_as_such(tmp_path, command):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a folder")
    out = notes / f"out.{'png' if command in ('plots', 'result_chart') else 'json'}"
    argv = {
        "evaluate": ["--agents", "greedy", "random", "--json", str(out)],
        "play": ["--record", str(out)],
        "replay_html": [str(block_record(tmp_path / "game.json")), "-o", str(out.with_suffix(".html"))],
        "plots": [str(RELEASE), "--out", str(out)],
        "result_chart": [str(RELEASE / "release_eval_vs_planner.json"), "--out", str(out)],
    }[command]
    proc = subprocess.run([sys.executable, "-m", f"domino_env.train.{command}", *argv], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr.count("\n") == 1 and f": folder {notes} is a file, not a folder" in proc.stderr, proc.stderr
    assert notes.read_text() == "not a folder"
