"""A run folder whose name is not UTF-8 (bytes such as 0xfb, which Python reads as surrogates):
TensorBoard's log writer cannot take it, so ``domino-train`` refuses it in one line before any
work (it was a UnicodeEncodeError traceback once the run had started, the folder left with status
``training``); with ``--no-tensorboard``, and for ``domino-bc``, which writes no TensorBoard logs,
the folder works. Real processes."""

import os
import subprocess
import sys

import pytest

TINY = [b"--players", b"2", b"--max-pip", b"9", b"--final-eval-rounds", b"0", b"--no-progress"]
TRAIN = [*TINY, b"--timesteps", b"64", b"--n-steps", b"64", b"--batch-size", b"64", b"--n-envs", b"1",
         b"--eval-freq", b"0", b"--opponents", b"greedy"]  # fmt: skip
NAME = b"run-\xfb"


@pytest.fixture
def folder(tmp_path):
    probe = os.path.join(os.fsencode(tmp_path), b"probe-\xfb")
    try:
        os.mkdir(probe)
    except OSError:
        pytest.skip("this file system takes only UTF-8 names")
    os.rmdir(probe)
    return os.path.join(os.fsencode(tmp_path), NAME)


def _run(module, args, tmp_path):
    return subprocess.run([sys.executable, "-m", module, *args], cwd=tmp_path, capture_output=True, encoding="utf-8",
                          errors="surrogateescape", timeout=300)  # fmt: skip (it prints the name)


def test_domino_train_refuses_it_before_any_work(folder, tmp_path):
    res = _run("domino_env.train.ppo", [*TRAIN, b"--out", folder], tmp_path)
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and res.stdout == "", res.stderr
    assert lines[0].startswith("domino-train: error: --out ")
    assert "is not UTF-8 text, which TensorBoard's log writer needs" in lines[0] and "--no-tensorboard" in lines[0]
    assert not os.path.exists(folder)


def test_without_tensorboard_and_for_domino_bc_the_folder_works(folder, tmp_path):
    res = _run("domino_env.train.ppo", [*TRAIN, b"--no-tensorboard", b"--out", folder], tmp_path)
    assert res.returncode == 0, res.stderr
    assert os.path.exists(os.path.join(folder, b"model.zip"))
    bc = folder + b"-bc"
    res = _run("domino_env.train.bc", [*TINY, b"--samples", b"60", b"--epochs", b"1", b"--net-arch", b"32",
                                       b"--out", bc], tmp_path)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert os.path.exists(os.path.join(bc, b"model.zip"))
