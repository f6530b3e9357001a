"""``domino-bc --dataset PATH`` that could not be used is one line before the collection: a FIFO
(reading it waited forever), a folder that cannot take the file (a traceback once the samples were
in), a name ending in ``/`` (written as a file of that name), an empty name (``--dataset "$DS"``
with DS unset: nothing was kept). Real processes."""

import os
import subprocess
import sys

import pytest
from bc_helpers import SMALL


def _bc(tmp_path, dataset):
    return subprocess.run([sys.executable, "-m", "domino_env.train.bc", *SMALL, "--samples", "60", "--epochs", "1",
                           "--final-eval-rounds", "0", "--dataset", dataset, "--out", str(tmp_path / "run")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip


def _refused(res, tmp_path, says):
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert lines[0].startswith("domino-bc: error: --dataset") and says in lines[0], lines[0]
    assert "Traceback" not in res.stderr and not (tmp_path / "run").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_not_read_forever(tmp_path):
    fifo = tmp_path / "data.npz"
    os.mkfifo(fifo)
    _refused(_bc(tmp_path, str(fifo)), tmp_path, "exists and is not a regular file")


def test_a_name_ending_in_a_slash_is_refused_not_written_as_a_file(tmp_path):
    res = _bc(tmp_path, str(tmp_path / "datasets") + os.sep)
    _refused(res, tmp_path, "names a folder (it ends in /), and there is none")
    assert not (tmp_path / "datasets").exists()


@pytest.mark.parametrize("name", ["", "  "])
def test_an_empty_name_is_refused_not_ignored(tmp_path, name):
    _refused(_bc(tmp_path, name), tmp_path, "--dataset: give a file name (got an empty one")


def test_a_folder_is_refused(tmp_path):
    _refused(_bc(tmp_path, str(tmp_path)), tmp_path, "is a folder; give a file name such as data.npz")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc, where no file can be made")
def test_a_folder_that_cannot_take_the_file_is_refused_before_the_collection(tmp_path):
    _refused(_bc(tmp_path, "/proc/domino-bc-test/data.npz"), tmp_path, "folder /proc cannot be written")
