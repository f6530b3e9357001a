"""``domino-train --partner learner`` (teams, Cuban): the learner plays both seats of its team
in training (the adapter's ``team_play``), and its evaluations put the model in both seats of
its team against a scripted team (``[ppo, X, ppo, X]``)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from domino_env.agents import make_agent
from domino_env.core.config import line_from_preset
from domino_env.core.errors import ConfigError
from domino_env.envs.infos import Termination
from domino_env.train.evaluate import evaluate
from domino_env.train.ladder import (
    evaluate_vs_ladder,
    print_summary,
    summary_markdown,
    summary_title,
)
from domino_env.train.learner_env import LearnerEnv

ROOT = Path(__file__).resolve().parents[2]
CUBAN = line_from_preset("cuban").to_dict()


def test_learner_partner_plays_both_team_seats_and_credits_the_team():
    env = LearnerEnv(CUBAN, ["greedy", "planner"], reward="outcome", game="cuban", partner="learner")
    played, credits = set(), set()
    for seed in range(20):
        env.reset(seed=seed)
        adapter, done = env.env.unwrapped, False
        team = adapter.learner_seat % 2
        while not done:
            assert adapter.learner_seat % 2 == team
            played.add(adapter.learner_seat)
            obs, reward, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            assert obs.shape == env.observation_space.shape
            done = term or trunc
        if info["termination_code"] != Termination.ANNULLED:
            won = bool(set(info["winners"]) & {team, team + 2})
            assert info["learner_won"] == (1.0 if won else 0.0) and reward == (1.0 if won else -1.0)
            credits.add(info["learner_won"])
    assert played == {0, 1, 2, 3} and credits == {0.0, 1.0}


def test_fixed_opponents_skip_the_partner_seat():
    env = LearnerEnv(CUBAN, ["greedy", "planner"], opponent_mode="fixed", game="cuban",
                     reward="outcome", partner="learner", learner_seat=0)  # fmt: skip
    env.reset(seed=0)
    seats = env.env.unwrapped.opponents  # entry k plays the seat k+1 places after seat 0
    assert (seats[0].name, seats[2].name) == ("greedy", "planner")
    with pytest.raises(ConfigError, match="2 agents with --opponent-mode fixed, --partner learner"):
        LearnerEnv(CUBAN, ["greedy", "planner", "greedy"], opponent_mode="fixed", game="cuban",
                   reward="outcome", partner="learner")  # fmt: skip
    with pytest.raises(ConfigError, match="partner.*only team rules"):
        LearnerEnv({"num_players": 4}, ["greedy"], partner="learner")
    with pytest.raises(ConfigError, match="partner.*one of"):
        LearnerEnv(CUBAN, ["greedy"], reward="outcome", game="cuban", partner="self")


def test_ladder_evaluation_seats_the_agent_in_both_team_seats(capsys):
    rules = {k: v for k, v in CUBAN.items() if k != "preset"}
    agent = make_agent("greedy", line_from_preset("cuban"))
    out = evaluate_vs_ladder(agent, rules, ["planner"], 16, 3, game="cuban", partner="learner")
    direct = evaluate(["greedy", "planner", "greedy", "planner"], rounds=16, seed=3, game="cuban")
    assert out["planner"]["win_rate"] == direct.stats_for("greedy").win_rate
    assert out["planner"]["opponent_seats"] == 2
    assert "2 copies of each ladder agent, the model in both seats of its team" in summary_title("m", out, 4)
    alone = evaluate_vs_ladder(agent, rules, ["planner"], 16, 3, game="cuban")
    assert alone["planner"]["opponent_seats"] == 3 and "3 copies of each ladder agent" in summary_title("m", alone, 4)
    # [greedy, planner, planner, planner]: the planner seats include the agent's partner, and the
    # tables say so (they said "pips (3 opponents)")
    assert alone["planner"]["partner_is_opponent"] and not out["planner"]["partner_is_opponent"]
    assert "| X seats' (partner + opponents) mean pips |" in summary_markdown(alone)
    assert "| opponents' mean pips |" in summary_markdown(out)
    print_summary(alone, 4, "t")
    print_summary(out, 4, "t")
    printed = capsys.readouterr().out
    assert "pips (3 X seats: partner + 2 opponents)" in printed and "pips (2 opponents)" in printed


def test_cli_trains_with_the_learner_as_partner_and_evaluates_it_in_both_seats(tmp_path):
    out = tmp_path / "run"
    args = ["--game", "cuban", "--partner", "learner", "--timesteps", "512", "--n-envs", "1", "--n-steps", "256",
            "--batch-size", "128", "--n-epochs", "1", "--net-arch", "16", "--opponents", "greedy", "--eval-freq",
            "256", "--eval-rounds", "4", "--eval-opponents", "greedy", "--final-eval-rounds", "8", "--seed", "2",
            "--no-progress", "--no-tensorboard", "--no-plot", "--out", str(out)]  # fmt: skip
    res = subprocess.run([sys.executable, "-m", "train.ppo", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "the learner as its own partner" in res.stderr
    assert "the model in both seats of its team" in res.stdout
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["status"] == "done" and meta["args"]["partner"] == "learner"
    assert meta["evaluations"][0]["results"]["greedy"]["opponent_seats"] == 2
    final = meta["final_evaluation"]["greedy"]
    assert final["opponent_seats"] == 2
    # the same figure as a tournament with the model in seats 0 and 2
    spec = f"ppo:{out}"
    direct = evaluate([spec, "greedy", spec, "greedy"], rounds=8, seed=meta["args"]["seed"] + 1000, game="cuban")
    assert final["win_rate"] == direct.stats_for(spec).win_rate
