"""Shared by the ``domino-bc`` tests: the repository root, a small game's flags and a runner of
``python -m MODULE`` as a real process."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--players", "2", "--max-pip", "9", "--opponents", "greedy", "--net-arch", "32", "--seed", "2",
         "--eval-opponents", "greedy", "--eval-workers", "1", "--no-progress"]  # fmt: skip
#: The training env of SMALL (``LearnerEnv`` keyword arguments).
SMALL_ENV = {"env_kwargs": {"num_players": 2, "max_pip": 9}, "opponents": ["greedy"], "opponent_mode": "mix",
             "reward": "mixed", "pips_coef": 1.0, "self_play": 0.0, "game": "mexican_train",
             "policy_input": "observation"}  # fmt: skip


def run_module(module, args):
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)  # fmt: skip
