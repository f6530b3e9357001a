"""benchmarks/learner_split.py, the command of docs/training.md's table of where a training step
goes: a real process on a tiny run prints both actors' phases and ratios that match them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--players", "2", "--max-pip", "9", "--opponents", "greedy", "--n-envs", "1", "--vec-env", "dummy",
        "--n-steps", "64", "--batch-size", "32", "--n-epochs", "2", "--net-arch", "16", "--repeat", "1"]  # fmt: skip


def test_the_script_times_both_actors_and_prints_their_ratios(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "SB3_LOGDIR"} | {"TMPDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "benchmarks/learner_split.py", *TINY], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert not list(tmp_path.glob("SB3-*"))  # SB3's default logger made an empty SB3-<time> folder there
    assert proc.stderr == "timing 1 rollout(s) and update(s) per actor ...\n"  # a sign of life, on stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == ("64 samples a rollout (1 envs x 64), minibatch 32, 2 epochs, opponents greedy, torch "
                        "threads 1, best of 1")  # fmt: skip
    rows = {}
    for name in ("legal rows", "every row"):
        (line,) = [ln for ln in lines if ln.startswith(name)]
        rows[name] = [float(v) for v in line[len(name):].split()]
        assert len(rows[name]) == 3 and min(rows[name]) > 0
        assert rows[name][2] == pytest.approx(rows[name][0] + rows[name][1], abs=0.002)
    ratio = re.fullmatch(r"ratio\s+([\d.]+)x\s+([\d.]+)x\s+([\d.]+)x\s+\(every row / legal rows\)",
                         [ln for ln in lines if ln.startswith("ratio")][0])  # fmt: skip
    assert ratio, lines
    for i, text in enumerate(ratio.groups()):
        assert float(text) == pytest.approx(rows["every row"][i] / rows["legal rows"][i], abs=0.06)


def test_bad_options_are_refused_in_one_line_naming_the_script():
    proc = subprocess.run([sys.executable, "benchmarks/learner_split.py", *TINY, "--policy", "mlp"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        "learner_split.py: error: --policy action-scores: the split compares the action-scoring actor's two forms "
        "(learner_split.py --help lists every option)"]  # fmt: skip
    for bad, line in ((["--repeat", "0"], "argument --repeat: must be a positive integer, got 0"),
                      (["--device", "cuda"], "--device cuda: ")):  # fmt: skip
        proc = subprocess.run([sys.executable, "benchmarks/learner_split.py", *TINY, *bad], cwd=ROOT,
                              capture_output=True, text=True, timeout=120, env={**__import__("os").environ,
                              "CUDA_VISIBLE_DEVICES": ""})  # fmt: skip
        assert proc.returncode == 2 and proc.stderr.startswith(f"learner_split.py: error: {line}"), proc.stderr


@pytest.mark.parametrize("bad, flag", [(["--out", "/nonexistent/x"], "--out"), (["--timesteps", "5"], "--timesteps"),
                                       (["--no-plot"], "--plot/--no-plot"), (["--eval-rounds", "8"], "--eval-rounds")])  # fmt: skip
def test_options_that_change_nothing_here_are_refused(bad, flag):
    """domino-train's options that this script ignores were accepted silently (`--out /nonexistent/x`
    exited 0 and wrote nothing)."""
    proc = subprocess.run([sys.executable, "benchmarks/learner_split.py", *TINY, *bad], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"learner_split.py: error: {flag}: has no effect here"), proc.stderr
