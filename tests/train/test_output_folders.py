"""An output file whose folder is a file: every command says so in the same words, before any work
(domino-play, domino-replay-html, the learning curve and the result chart said "does not exist"
of a folder that exists as a file, where domino-evaluate said "is a file, not a folder")."""

from __future__ import annotations

import os
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


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
@pytest.mark.parametrize("command", ["evaluate", "play", "replay_html", "plots", "result_chart"])
@pytest.mark.parametrize("folder, why", [("/proc", "No such file or directory"), ("/sys/kernel", "Permission denied")])
def test_a_folder_no_file_can_be_made_in_is_refused_before_any_work(tmp_path, command, folder, why):
    """A user trial: ``domino-evaluate --json /proc/x.json`` played, then failed (exit 1, "0 of 2
    deals kept"), and ``domino-play --record /proc/x.json`` played the game and kept no record:
    ``os.access`` says yes to root for /proc and /sys. A file is now made in the folder and removed
    before any work; a user other than root is refused by ``os.access`` as before."""
    if not Path(folder).is_dir():
        pytest.skip(f"no {folder} here")
    out = Path(folder) / f"x.{'png' if command in ('plots', 'result_chart') else 'json'}"
    flag = {"evaluate": "--json", "play": "--record", "plots": "--out", "result_chart": "--out"}.get(command)
    argv = {
        "evaluate": ["--agents", "greedy", "random", "--rounds", "2", "--json", str(out)],
        "play": ["--record", str(out), "--seed", "1"],
        "replay_html": [str(block_record(tmp_path / "game.json")), "-o", str(out.with_suffix(".html"))],
        "plots": [str(RELEASE), "--out", str(out)],
        "result_chart": [str(RELEASE / "release_eval_vs_planner.json"), "--out", str(out)],
    }[command]
    proc = subprocess.run([sys.executable, "-m", f"domino_env.train.{command}", *argv], capture_output=True,
                          text=True, input="1\n" * 50, timeout=120, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    said = (f"no file can be made in folder {folder} ({why})" if os.access(folder, os.W_OK | os.X_OK)
            else f"folder {folder} is not writable by this user")  # fmt: skip
    assert proc.stderr.count("\n") == 1 and said in proc.stderr, proc.stderr
    if flag:
        assert f"{flag} {out}: {said}" in proc.stderr


@pytest.mark.parametrize("command", ["plots", "result_chart"])
def test_a_fifo_as_the_picture_is_refused_before_any_work(tmp_path, command):
    """A tester: ``--out fifo.png`` (``mkfifo``) made matplotlib wait for a reader forever; the
    JSON and record outputs already refused what is not a regular file."""
    fifo = tmp_path / "fifo.png"
    os.mkfifo(fifo)
    source = RELEASE if command == "plots" else RELEASE / "release_eval_vs_planner.json"
    proc = subprocess.run([sys.executable, "-m", f"domino_env.train.{command}", str(source), "--out", "fifo.png"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr == (f"python -m domino_env.train.{command}: error: --out fifo.png: exists and is not a regular "
                           f"file; give a file name (python -m domino_env.train.{command} --help lists every option)\n")


def test_the_write_check_leaves_no_file_behind(tmp_path):
    from domino_env.train.outputs import unwritable

    assert unwritable(tmp_path / "x.json") is None and unwritable(tmp_path / "sub" / "x.json") is not None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["evaluate", "play"])
def test_a_name_too_long_for_the_files_beside_it_is_refused_before_any_work(tmp_path, command):
    """A tester: ``--json`` of 250 bytes was an ``OSError: File name too long`` traceback (its
    journal's name is 14 bytes longer), and ``--record`` of 250 bytes played the game, then kept no
    record (its partial copy's name is longer)."""
    name = "a" * 245 + ".json"
    flag, argv = {"evaluate": ("--json", ["--agents", "greedy", "random", "--rounds", "2", "--game", "block"]),
                  "play": ("--record", ["--seed", "1"])}[command]  # fmt: skip
    proc = subprocess.run([sys.executable, "-m", f"domino_env.train.{command}", *argv, flag, name],
                          capture_output=True, text=True, input="1\n" * 50, timeout=120, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == "" and list(tmp_path.iterdir()) == [], proc.stderr
    assert proc.stderr == (
        f"domino-{command}: error: {flag} {name}: the file name is too long: 250 bytes, and the files written beside it "
        "(a partial copy, a journal) add up to 32; this folder takes names of up to 255 bytes, so give one of at most "
        f"223 (domino-{command} --help lists every option)\n")  # fmt: skip


def test_the_longest_name_the_check_takes_is_written_with_its_journal(tmp_path):
    from domino_env.core.files import replace_text
    from domino_env.train.outputs import unwritable

    longest = tmp_path / ("a" * 218 + ".json")  # 223 bytes
    assert unwritable(longest) is None and unwritable(tmp_path / ("a" * 219 + ".json")).startswith("the file name is")
    replace_text(str(longest) + ".partial.jsonl", "{}")  # the journal, written whole then renamed, as it is
    replace_text(longest, "{}")
    assert sorted(len(p.name) for p in tmp_path.iterdir()) == [223, 237]
