"""Shared by the ``domino-train`` process tests: a small game's flags and a runner of ``python -m
train.ppo`` as a real process."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: A tiny run: 2 players, double-9, one-update rollouts, no evaluations or outputs besides the run.
SMALL = ["--players", "2", "--max-pip", "9", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
         "--net-arch", "16", "--opponents", "greedy", "--eval-freq", "0", "--final-eval-rounds", "0",
         "--no-progress", "--no-tensorboard", "--no-plot", "--seed", "1"]  # fmt: skip


def run_ppo(args, **kwargs):
    """``python -m train.ppo ARGS`` from the repository root (``kwargs``: for ``subprocess.run``)."""
    return subprocess.run([sys.executable, "-m", "train.ppo", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, **kwargs)  # fmt: skip
