"""``python -m domino_env.train.result_chart``: a chart of tournament results (one row per
``domino-evaluate --json`` file); its rows carry the files' figures, and bad input is one line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from domino_env.core.errors import ConfigError
from domino_env.train.paired import load_result
from domino_env.train.result_chart import chart_row, short_label

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"
MT = CHECKPOINTS / "mexican_train_4p_d12_action_scores" / "release_eval_vs_planner.json"
CUBAN = CHECKPOINTS / "cuban_4p_teams_action_scores" / "release_eval_vs_greedy.json"
OLD = CHECKPOINTS / "mexican_train_4p_d12" / "release_eval_vs_planner.json"  # written before stats kept "deals"


def chart(*args):
    return subprocess.run([sys.executable, "-m", "domino_env.train.result_chart", *map(str, args)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_a_row_holds_the_files_figures():
    row = chart_row(load_result(MT))
    assert row["label"] == "ppo:mexican_train_4p_d12_action_scores vs 3 x planner (mexican train, 4p)"
    assert row["win_rate"] == 0.279 and row["parity"] == 0.25 and row["verdict"] == "above"
    assert row["ci95"] == pytest.approx((0.2617, 0.2963), abs=1e-4) and (row["episodes"], row["unit"]) == (2000, "rounds")
    planner = chart_row(load_result(MT), "planner")
    assert planner["label"] == "planner vs ppo:mexican_train_4p_d12_action_scores (mexican train, 4p)"
    assert planner["verdict"] == "parity" and planner["win_rate"] == pytest.approx(0.2403, abs=1e-4)


def test_a_team_row_names_the_partner_and_the_rivals():
    row = chart_row(load_result(CUBAN))
    assert row["label"] == "ppo:cuban_4p_teams_action_scores and itself vs 2 x greedy (cuban, 4p)"
    assert (row["win_rate"], row["parity"]) == (0.568, 0.5)
    mixed = {"agents": ["a", "b", "c", "d"], "teams": True, "game": "cuban",
             "stats": [{"name": n, "win_rate": 0.5, "ci95_deal": [0.4, 0.6], "deals": 9, "parity": 0.5,
                        "verdict": "parity"} for n in "abcd"]}  # fmt: skip
    assert chart_row(mixed, "b")["label"] == "b and d vs c, a (cuban, 4p)"


def test_older_files_keep_their_interval_and_one_deal_has_none():
    assert chart_row(load_result(OLD))["ci95"] == pytest.approx((0.0432, 0.0618), abs=1e-4)
    one_deal = {"agents": ["x", "y"], "deals": 1, "stats": [{"name": "x", "win_rate": 1.0, "ci95_deal": [0, 1],
                                                             "deals": 1, "parity": 0.5, "verdict": "parity"}]}  # fmt: skip
    assert chart_row(one_deal)["ci95"] is None


def test_an_agent_that_did_not_play_is_refused_naming_the_agents():
    with pytest.raises(ConfigError, match="its agents: ppo:checkpoints/mexican_train_4p_d12_action_scores, planner"):
        chart_row(load_result(MT), "greedy")


@pytest.mark.parametrize(
    ("agent", "short"),
    [("ppo:checkpoints/m", "ppo:m"), ("ppo:/a/b/best_model.zip", "ppo:best_model.zip"), ("planner", "planner"),
     ("search:100", "search:100"), ("search:100,prior=ppo:a/x", "search:100,prior=ppo:a/x"),
     ("rllib:runs/r/checkpoint", "rllib:checkpoint")],
)  # fmt: skip
def test_short_labels_drop_a_models_folders(agent, short):
    assert short_label(agent) == short


def test_the_command_draws_every_file_and_a_fresh_tournament(tmp_path):
    fresh = tmp_path / "fresh.json"
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", "--agents", "greedy", "random",
                           "--players", "2", "--rounds", "20", "--no-progress", "--json", str(fresh)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "chart.png"
    proc = chart(MT, CUBAN, fresh, "--out", out, "--title", "t", "--labels", "A", "B", "C")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


@pytest.mark.parametrize(
    ("files", "extra", "message"),
    [({"a.json": "{"}, [], "a.json: not a tournament JSON file"),
     ({"a.json": json.dumps({"agents": ["x"], "stats": []})}, [], "a.json: no stats row for 'x'"),
     ({"a.json": json.dumps({"agents": []})}, [], "a.json: field 'agents' is not a list of agent labels"),
     ({"a.json": json.dumps({"agents": ["x"], "stats": [{"name": "x", "win_rate": True}]})}, [],
      "a.json: stats of 'x': field 'win_rate' is True, expected a number from 0 to 1"),
     ({"a.json": json.dumps({"agents": ["x"], "stats": [{"name": "x", "win_rate": 5}]})}, [], "field 'win_rate' is 5"),
     ({"a.json": '{"agents": ["x"], "stats": [{"name": "x", "win_rate": NaN}]}'}, [], "field 'win_rate' is nan"),
     ({"a.json": json.dumps({"agents": ["x", "y"], "stats": [{"name": "x", "win_rate": 0.5, "ci95_deal": [0.1],
                                                              "deals": 5}]})}, [], "field 'ci95_deal' is [0.1]"),
     ({"a.json": json.dumps({"agents": ["x", "y"], "stats": [{"name": "x", "win_rate": 0.5, "ci95_deal": [0.6, 0.7],
                                                              "deals": 5}]})}, [], "around the win rate 0.5"),
     ({}, ["--agent", "greedy"], "--agent 'greedy': not an agent of"),
     ({}, ["--labels", "one", "two"], "--labels: give one per result file (1), got 2"),
     ({}, ["--out", "chart.svg"], "give a .png file name"),
     ({}, ["--out", "missing/chart.png"], "folder missing does not exist")],
)  # fmt: skip
def test_bad_input_is_one_line_and_draws_nothing(tmp_path, files, extra, message):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    inputs = [tmp_path / name for name in files] or [MT]
    out = ["--out", "chart.png"] if "--out" not in extra else []
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.result_chart", *map(str, inputs), *out, *extra],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "chart.png").exists()


def test_without_matplotlib_it_names_the_extra(tmp_path):
    """sys.modules["matplotlib"] = None: the import fails as when the train extra is missing."""
    code = ("import sys; sys.modules['matplotlib'] = None; from domino_env.train.result_chart import main; "
            f"main([{str(MT)!r}, '--out', 'chart.png'])")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2 and not (tmp_path / "chart.png").exists()
    assert proc.stderr.strip() == ("python -m domino_env.train.result_chart needs the 'train' extra (missing: "
                                   "matplotlib): pip install 'domino-env[train]' (in a clone: pip install -e '.[train]')")  # fmt: skip


def test_a_clean_sweep_whole_games_and_dollars_draw(tmp_path):
    """An agent that wins every deal (its stored interval's top may sit 1e-16 under 1.0: it was a
    traceback), whole games counted as games, and a title with $...$ (matplotlib's mathematics:
    a traceback) all draw."""
    res = tmp_path / "sweep.json"
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", "--game", "draw", "--players", "2",
                           "--agents", "planner", "random", "--episode", "game", "--rounds", "20", "--seed", "0",
                           "--no-progress", "--json", str(res)], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    row = chart_row(load_result(res))
    assert row["win_rate"] == 1.0 and row["ci95"][1] == 1.0 and (row["episodes"], row["unit"]) == (20, "games")
    assert row["label"].endswith("(draw, 2p, whole games)")
    out = tmp_path / "sweep.png"
    proc = chart(res, "--out", out, "--title", r"win $\x$ rate", "--labels", "cost: $5 and $6")
    assert proc.returncode == 0 and out.stat().st_size > 5_000, proc.stderr


def test_an_evaluation_result_from_python_makes_a_row():
    from domino_env.train.evaluate import evaluate

    row = chart_row(evaluate(["greedy", "random"], rounds=20, num_players=2, seed=0, progress=False))
    assert row["label"] == "greedy vs random (mexican train, 2p)" and row["episodes"] == 20


def test_the_help_says_95_percent():
    """The description said "95%% interval": argparse formats only %(prog)s in a description."""
    out = chart("--help")
    assert out.returncode == 0 and "per-deal 95% interval" in out.stdout and "%%" not in out.stdout
