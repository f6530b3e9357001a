"""The oldest numpy, Stable-Baselines3 and sb3-contrib that the ``train`` extra declares
(pyproject's ``numpy>=X``, ``stable-baselines3>=X``, ``sb3-contrib>=X`` in ``train``) really work:
installed into a folder put first on ``sys.path``, in front of the project's newer ones,
train_minimums_check.py loads and plays every released model, trains and reloads a MaskablePPO
model, and refuses a corrupt policy file (each older release fails one of these: numpy 1 cannot
read the released models, SB3 2.7 loaded a corrupt policy file, sb3-contrib 2.3 warned on load)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
CHECK = Path(__file__).with_name("train_minimums_check.py")
PACKAGES = ("numpy", "stable-baselines3", "sb3-contrib")


def train_minimums() -> dict[str, str]:
    """``{package: lower bound}`` of PACKAGES in pyproject's ``train`` extra."""
    train = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["train"]
    bounds = {m.group(1): m.group(2) for r in train if (m := re.fullmatch(r"([\w-]+)>=([0-9.]+)", r))}
    assert set(PACKAGES) <= set(bounds), f"the train extra declares a lower bound for each of {PACKAGES}: {train}"
    return {p: bounds[p] for p in PACKAGES}


def test_the_train_extras_oldest_releases_work(tmp_path):
    pins = [f"{p}=={v}.*" if p == "numpy" else f"{p}=={v}.0" if v.count(".") == 1 else f"{p}=={v}"
            for p, v in train_minimums().items()]  # fmt: skip
    target = tmp_path / "oldest"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
         "--target", str(target), *pins],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-2000:]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT)])}
    run = subprocess.run([sys.executable, str(CHECK)], capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    lines = run.stdout.splitlines()
    bounds = train_minimums()
    for name, key in (("numpy", "numpy"), ("stable_baselines3", "stable-baselines3"), ("sb3_contrib", "sb3-contrib")):
        assert re.search(rf"\b{name} {re.escape(bounds[key])}\b", lines[0]), lines[0]
    assert lines[1:] == ["ok load mexican_train_4p_d12", "ok load mexican_train_4p_d12_action_scores",
                         "ok load cuban_4p_teams", "ok load cuban_4p_teams_action_scores", "ok train", "ok corrupt"]  # fmt: skip
