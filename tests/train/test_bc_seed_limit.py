"""``domino-bc --dagger-iters`` and the seed limit: DAgger round k (1 to --dagger-iters) collects
and fits with seed ``--seed + k``, a seed too, at most 2**32 - 1 (above it, ``SeedSequence`` splits
it into 32-bit words, so the round's stream was another seed's: the command ran with no word).

Real processes. The commands are small (a few decisions, one epoch, no final evaluation), so that
a command the check lets through ends quickly instead of hanging the test; the largest allowed
seeds are stopped by the next check (``--expert``) before any work.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from bc_helpers import ROOT

from domino_env.train.arg_types import MAX_SEED
from domino_env.train.bc_data import dagger_seed_problem

TINY = ["--players", "2", "--max-pip", "9", "--opponents", "greedy", "--net-arch", "8", "--samples", "20",
        "--val-fraction", "0", "--epochs", "1", "--final-eval-rounds", "0", "--eval-opponents", "greedy",
        "--eval-workers", "1", "--no-progress", "--quiet"]  # fmt: skip
EXPERT_REFUSED = ("domino-bc: error: --expert nosuch: invalid agent 'nosuch'; allowed: one of ['greedy', 'planner', "
                  "'ppo', 'random', 'rllib', 'search'] (optionally 'name:arg') for mexican_train rules, or one of "
                  "your own given a name with domino_env.agents.register_agent (domino-bc --help lists every option)")  # fmt: skip


def _refused(tmp_path, *args: str) -> str:
    """The one stderr line of ``domino-bc TINY args --out tmp/run``, refused (status 2, nothing written)."""
    env = {**os.environ, "COLUMNS": "1000"}
    env.pop("DOMINO_TRACEBACK", None)
    out = tmp_path / "run"
    rounds = ["--dagger-samples", "20"] if "--dagger-iters" in args else []
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.bc", *TINY, *rounds, *args, "--out", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == "", (proc.returncode, proc.stderr[-2000:])
    assert not out.exists()
    (line,) = proc.stderr.strip().splitlines()
    return line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seed", "4294967295", "--eval-seed", "0", "--dagger-iters", "1"],
         "--seed 4294967295: DAgger round k (1 to 1, --dagger-iters 1) is seeded --seed + k, up to 4,294,967,296, "
         "above 2**32 - 1; give a --seed up to 4,294,967,294 with --dagger-iters 1"),
        (["--seed", "4294966000", "--eval-seed", "0", "--dagger-iters", "2000"],
         "--seed 4294966000: DAgger round k (1 to 2000, --dagger-iters 2000) is seeded --seed + k, up to "
         "4,294,968,000, above 2**32 - 1; give a --seed up to 4,294,965,295 with --dagger-iters 2000"),
        # the evaluations' default seed, --seed + 1000, is fine here: the DAgger rounds are not
        (["--seed", "4294964000", "--dagger-iters", "5000"],
         "--seed 4294964000: DAgger round k (1 to 5000, --dagger-iters 5000) is seeded --seed + k, up to "
         "4,294,969,000, above 2**32 - 1; give a --seed up to 4,294,962,295 with --dagger-iters 5000"),
        (["--seed", "4294967000", "--eval-seed", "0", "--dagger-iters", "5e9"],  # no --seed would do
         "--seed 4294967000: DAgger round k (1 to 5000000000, --dagger-iters 5000000000) is seeded --seed + k, "
         "up to 9,294,967,000, above 2**32 - 1; give --dagger-iters up to 295 with --seed 4294967000"),
    ],
)
def test_a_dagger_seed_above_the_limit_is_refused_before_any_work(tmp_path, args, message):
    assert _refused(tmp_path, *args) == f"domino-bc: error: {message} (domino-bc --help lists every option)"


@pytest.mark.parametrize(
    "args",
    [
        ["--seed", "4294967294", "--eval-seed", "0", "--dagger-iters", "1"],  # the largest with one round
        ["--seed", "4294962295", "--dagger-iters", "5000"],
        ["--seed", "4294966295", "--dagger-iters", "1000"],  # the largest for both --seed + 1000 and the rounds
        ["--seed", "4294967295", "--eval-seed", "0"],  # no rounds: --seed itself is the limit
    ],
)
def test_the_largest_allowed_seed_passes_the_seed_checks(tmp_path, args):
    assert _refused(tmp_path, *args, "--expert", "nosuch") == EXPERT_REFUSED


def test_the_limit_is_the_largest_seed_numpy_takes_word_for_word():
    assert dagger_seed_problem(MAX_SEED - 3, 3) is None
    assert dagger_seed_problem(MAX_SEED - 3, 4).startswith(f"--seed {MAX_SEED - 3}: DAgger round k (1 to 4,")
    assert dagger_seed_problem(0, MAX_SEED) is None
    assert dagger_seed_problem(0, 0) is None
    # the reason: a seed past the limit is split into 32-bit words, another seed's stream
    past = np.random.default_rng([MAX_SEED + 1, 11]).integers(2**31, size=4)
    assert list(past) == list(np.random.default_rng([0, 1, 11]).integers(2**31, size=4))
    assert list(np.random.default_rng([MAX_SEED, 11]).integers(2**31, size=4)) != list(past)
