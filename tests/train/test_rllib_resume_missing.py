"""``domino-rllib --resume`` of a folder that does not exist said "not a run folder of domino-rllib"
as if it were there: it says that it does not exist (real processes, refused before Ray starts)."""

import subprocess
import sys
from pathlib import Path


def _resume(run, cwd):
    return subprocess.run([str(Path(sys.executable).parent / "domino-rllib"), "--resume", str(run)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_resume_of_a_missing_folder_says_it_does_not_exist(tmp_path):
    res = _resume("runs/nonexist", tmp_path)
    assert res.returncode == 2, res.stderr
    assert res.stderr == ("domino-rllib: error: --resume runs/nonexist: does not exist; give the run folder of a "
                          "domino-rllib run (its --out) (domino-rllib --help lists every option)\n")  # fmt: skip
    assert list(tmp_path.iterdir()) == []  # nothing made (runs/ neither)


def test_resume_of_an_existing_folder_that_is_no_run_still_says_so(tmp_path):
    (tmp_path / "notes").mkdir()
    res = _resume("notes", tmp_path)
    assert res.returncode == 2, res.stderr
    assert res.stderr == ("domino-rllib: error: --resume notes: not a run folder of domino-rllib (no domino_rllib.json "
                          "/ checkpoint/) (domino-rllib --help lists every option)\n")  # fmt: skip
