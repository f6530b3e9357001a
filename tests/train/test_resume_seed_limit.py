"""``domino-train --resume`` and the seed limit: the training envs of a resumed model with steps
are seeded from ``continued_seed`` (below 2**31), not ``--seed`` + i, so a ``--seed`` whose
``--seed + i`` would pass 2**32 - 1 is not refused for them (it was, after the limit came in,
for runs that had trained). Real processes; each command is stopped by a later check (a
``--self-play`` that takes no snapshot) before any training."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RELEASE = "checkpoints/mexican_train_4p_d12_action_scores"  # 100,000 steps
NO_SNAPSHOT = ["--self-play", "0.5", "--snapshot-freq", "100000000", "--timesteps", "64", "--vec-env", "dummy"]


def _error(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "1000"}
    env.pop("DOMINO_TRACEBACK", None)
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.ppo", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    return line


def test_a_resumed_model_with_steps_is_not_held_to_seed_plus_i(tmp_path):
    line = _error("--resume", RELEASE, "--out", str(tmp_path / "r"), "--seed", "4294967295", "--eval-seed", "0",
                  "--n-envs", "2", *NO_SNAPSHOT)  # fmt: skip
    assert line.startswith("domino-train: error: --self-play 0.5: the first snapshot"), line  # past the seed check
    assert not (tmp_path / "r").exists()


def test_a_new_run_with_that_seed_is_refused_by_the_seed_check(tmp_path):
    line = _error("--out", str(tmp_path / "n"), "--seed", "4294967295", "--eval-seed", "0", "--n-envs", "2", *NO_SNAPSHOT)
    assert "--seed 4294967295: env i of the 2 training envs (--n-envs 2) is seeded --seed + i" in line, line
    assert not (tmp_path / "n").exists()
