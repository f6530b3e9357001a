"""domino-rllib: a final save refused after its swap's renames (``RUN/domino_rllib.json`` made
immutable, simulated as in test_rllib_run_folder.py) ends the run before its final evaluation; the
one line that says how to finish the swap (``cp ... && rm -r ...``) now says that the evaluation
was skipped, and how to run it. Real processes (Ray)."""

from __future__ import annotations

import subprocess
import sys

from test_rllib_run_folder import _first_run

RESUME = ["--resume", "run", "--iterations", "1", "--num-cpus", "2", "--no-progress", "--eval-rounds", "4",
          "--eval-opponents", "greedy"]  # fmt: skip


def test_a_refused_final_save_says_the_final_evaluation_was_skipped(tmp_path):
    _first_run(tmp_path)
    out = subprocess.run([sys.executable, "script.py", "domino_rllib.json", *RESUME], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr[-3000:]
    evaluate = "domino-evaluate --game draw --players 2 --agents rllib:run greedy --rounds 4 --seed 3"
    assert [line for line in out.stderr.splitlines() if line.startswith("domino-rllib")] == [
        "domino-rllib: error: --resume run: run/.domino_rllib.json.partial could not be moved to run/domino_rllib.json: "
        "the rename was refused (Operation not permitted: run/domino_rllib.json or run made read-only or immutable?); "
        "the checkpoint of iteration 2 in run/checkpoint is kept whole (run/checkpoint.old, the earlier one, is left "
        "and run/domino_rllib.json is still the earlier one's); make run/domino_rllib.json and run writable, then "
        "finish the swap: cp run/checkpoint/domino_rllib.json run/domino_rllib.json && rm -r run/checkpoint.old; the "
        f"final evaluation (4 rounds against each of greedy) is skipped; run it with: {evaluate}"]  # fmt: skip
    assert "rllib vs greedy" not in out.stdout  # it was skipped indeed
    # the command it prints plays the checkpoint in place (the swap left unfinished)
    played = subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", *evaluate.split()[1:], "--no-progress"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert played.returncode == 0, played.stderr[-2000:]
    assert "rllib:run" in played.stdout and "4 rounds" in played.stdout
