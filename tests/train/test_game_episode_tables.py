"""With ``--episode game`` the final tables of ``domino-train`` and ``domino-bc`` (and
``final_evaluation.md``) called the games they played "rounds" ("2 duplicate-deal rounds per
row", column "rounds"), where ``domino-evaluate`` says games: real runs of both commands."""

import re

from tests.train.bc_helpers import run_module
from tests.train.ppo_helpers import SMALL, run_ppo

GAME = ["--game", "block", "--episode", "game", "--eval-opponents", "random", "--final-eval-rounds", "2",
        "--eval-workers", "1"]  # fmt: skip


def _tables_say_games(res, out):
    assert res.returncode == 0, res.stderr
    text = " ".join(res.stdout.split())  # (the title may wrap)
    assert f"{out / 'model.zip'}: 2 duplicate-deal games vs 1 copy of each ladder agent" in text
    assert re.search(r"┃ opponents +┃ +games ┃", res.stdout) and "rounds" not in res.stdout, res.stdout
    final = (out / "final_evaluation.md").read_text()
    assert final.startswith(f"Final evaluation of {out / 'model.zip'} (2 duplicate-deal games per row, seed ")
    assert "| opponents | games | ppo win rate |" in final and "| seat-games |" in final
    assert "rounds |" not in final.split("\n\n")[1]  # the summary table (the tournament table's pips are per round)


def test_domino_train_tables_count_games_with_episode_game(tmp_path):
    small = SMALL[4:SMALL.index("--final-eval-rounds")] + SMALL[SMALL.index("--no-progress"):]  # (no Mexican Train pips)
    res = run_ppo([*small, *GAME, "--players", "2", "--timesteps", "64", "--n-envs", "1", "--out", str(tmp_path / "run")])
    _tables_say_games(res, tmp_path / "run")


def test_domino_bc_final_table_counts_games_with_episode_game(tmp_path):
    res = run_module("domino_env.train.bc", [*GAME, "--players", "2", "--opponents", "greedy", "--net-arch", "16",
                                             "--seed", "2", "--no-progress", "--samples", "200", "--epochs", "1",
                                             "--out", str(tmp_path / "run")])  # fmt: skip
    _tables_say_games(res, tmp_path / "run")
