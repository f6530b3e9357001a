"""``domino_rllib.json`` did not record the final evaluation's seed: it records ``eval_seed`` (the
name domino-train's metadata uses), and ``domino-evaluate --seed`` from it plays the same
evaluation (a real, one-iteration run and a real ``domino-evaluate``)."""

import json
import subprocess
import sys

SMALL = ["--game", "draw", "--players", "2", "--batch-size", "128", "--minibatch-size", "64", "--epochs", "1",
         "--hidden", "16", "--num-env-runners", "0", "--num-cpus", "1", "--seed", "7", "--no-progress"]  # fmt: skip


def test_the_recorded_eval_seed_reproduces_the_final_evaluation_with_domino_evaluate(tmp_path):
    run = tmp_path / "run"
    res = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--iterations", "1", "--eval-rounds", "8",
                          "--eval-opponents", "random", "--out", str(run), *SMALL],
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    meta = json.loads((run / "domino_rllib.json").read_text())
    assert meta["eval_seed"] == 7 == meta["args"]["seed"]
    printed = next(line for line in res.stdout.splitlines() if line.startswith("rllib vs random: "))
    again = subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", "--game", "draw", "--players", "2",
                            "--agents", f"rllib:{run}", "random", "--rounds", "8", "--seed", str(meta["eval_seed"]),
                            "--json", str(tmp_path / "again.json")],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    stats = next(s for s in json.loads((tmp_path / "again.json").read_text())["stats"] if s["name"] == f"rllib:{run}")
    recorded = meta["evaluation"]["random"]
    assert (stats["win_rate"], stats["ci95_deal"], stats["ci95_wilson"]) == (
        recorded["win_rate"], recorded["ci95_deal"], recorded["ci95_wilson"])
    assert printed.startswith(f"rllib vs random: win rate {stats['win_rate']:.3f}, ")
