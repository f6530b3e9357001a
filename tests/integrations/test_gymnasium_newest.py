"""The newest Gymnasium release (``NEWEST``) passes the env and adapter tests and trains. The
project's own venv runs the gymnasium that ``ray[rllib]`` 2.60 pins (1.2.2), but a user who installs
``domino-env[train]`` without RLlib gets the newest release (Stable-Baselines3 allows
``gymnasium<2.0``): 1.4.0 on 2026-12-06. Installed into a folder put first on ``sys.path``, in front
of the venv's, it runs the API test files below, less their slow soaks (PettingZoo's api_test / seed_test, Gymnasium's and
SB3's check_env on the single-agent adapter and the registered ids, ``make_vec``, the pictures) and
train_minimums_check.py (the released models play, MaskablePPO trains, saves and loads)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium

ROOT = Path(__file__).resolve().parents[2]
NEWEST = "1.4.0"
TEST_FILES = [
    "tests/envs/test_mexican_train_api.py",
    "tests/envs/test_line_api.py",
    "tests/envs/test_pettingzoo_conventions.py",
    "tests/envs/test_env_misuse.py",
    "tests/envs/test_render_image.py",
    "tests/agents/test_gym_ids.py",
]


def as_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def test_newest_is_not_older_than_the_venvs_gymnasium():
    """When the venv's gymnasium passes NEWEST (ray unpins it), NEWEST must move up with it."""
    assert as_tuple(NEWEST) >= as_tuple(gymnasium.__version__), (NEWEST, gymnasium.__version__)


def test_the_newest_gymnasium_passes_the_api_tests_and_trains(tmp_path):
    target = tmp_path / "newest"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
         "--target", str(target), f"gymnasium=={NEWEST}"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-2000:]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT)])}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=900, cwd=ROOT, env=env)

    version = run("-c", "import gymnasium; print(gymnasium.__version__, gymnasium.__file__)")
    assert version.returncode == 0, version.stderr[-2000:]
    assert version.stdout.split()[0] == NEWEST and str(target) in version.stdout, version.stdout
    # the engine's random-round soaks (marked slow) run in the main suite: here they add minutes
    # and check nothing of Gymnasium's that the API tests do not
    tests = run("-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-m", "not slow", *TEST_FILES)
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    assert re.search(r"\b\d{2,} passed\b", tests.stdout) and " failed" not in tests.stdout, tests.stdout[-2000:]
    check = run(str(Path(__file__).with_name("train_minimums_check.py")))
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-3000:]
    assert check.stdout.splitlines()[1:] == [
        "ok load mexican_train_4p_d12", "ok load mexican_train_4p_d12_action_scores",
        "ok load cuban_4p_teams", "ok load cuban_4p_teams_action_scores", "ok train", "ok corrupt",
    ]  # fmt: skip
