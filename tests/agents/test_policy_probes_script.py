"""benchmarks/policy_probes.py, the command of the ensemble and planner-top-k rows of
docs/training_experiments.md's lever table: each combined agent reduces to its parts where it must (one
model; k = 1; k above the legal moves), and the script runs as a real process."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from benchmark_scripts import load_script, script_path

from domino_env.agents.base import make_agent
from domino_env.envs.mexican_train_v0 import raw_env

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = script_path("policy_probes")
RELEASE = str(ROOT / "checkpoints" / "mexican_train_4p_d12_action_scores")



def _positions(count: int = 60):
    """(observation, mask) of the seat to act along a random round, where it has a choice."""
    env = raw_env()
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    out = []
    while not env.game_state.round_over and len(out) < count:
        obs = env.observe(env.agent_selection)
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) > 1:
            out.append((obs["observation"], obs["action_mask"]))
        env.step(int(rng.choice(legal)))
    return out


def test_the_combined_agents_reduce_to_their_parts():
    probes = load_script("policy_probes")
    model, planner = make_agent(f"ppo:{RELEASE}", raw_env().config), make_agent("planner", raw_env().config)
    one = probes.Ensemble([RELEASE])
    top1, top_all = probes.PlannerTopK(RELEASE, 1), probes.PlannerTopK(RELEASE, 1000)
    top2 = probes.PlannerTopK(RELEASE, 2)
    rng = np.random.default_rng(0)
    positions = _positions()
    assert len(positions) >= 30
    differs = 0
    for obs, mask in positions:
        own = model(obs, mask, rng)
        assert one(obs, mask, rng) == own  # an ensemble of one model plays that model
        assert top_all(obs, mask, rng) == own  # every legal move kept: the model alone
        assert top1(obs, mask, rng) == planner(obs, mask, rng)  # the planner's best move only
        ranked = planner.rank_actions(obs, mask, rng)
        assert top2(obs, mask, rng) in ranked[:2]
        differs += own != planner(obs, mask, rng)
    assert differs > 0  # the positions tell the two apart


def test_the_script_prints_one_line_and_refuses_two_models_for_topk():
    out = subprocess.run([sys.executable, str(SCRIPT), "ensemble", RELEASE, RELEASE, "--rounds", "8", "--seed", "3",
                          "--workers", "1"], cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert re.fullmatch(r"ensemble of .* against 3 planners, 8 rounds of seed 3: win rate [0-9.]+ "
                        r"\[[0-9.]+, [0-9.]+\], [0-9.]+ pips a round\n", out.stdout), out.stdout  # fmt: skip
    out = subprocess.run([sys.executable, str(SCRIPT), "topk", RELEASE, RELEASE], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)  # fmt: skip
    assert out.returncode == 2 and "topk takes one MODEL and --k >= 1" in out.stderr
    for args in (["ensemble", "/no/such/model"], ["ensemble", RELEASE, "--rounds", "0"],
                 ["ensemble", str(ROOT / "checkpoints" / "cuban_4p_teams_action_scores")]):  # fmt: skip
        out = subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
        last = out.stderr.strip().splitlines()[-1]
        assert out.returncode == 2 and "Traceback" not in out.stderr and last.startswith("policy_probes.py: error: "), out.stderr


def test_a_negative_seed_is_one_line_before_any_model_is_loaded():
    """--seed -1 was a ConfigError traceback from the tournament, after the models were loaded."""
    out = subprocess.run([sys.executable, str(SCRIPT), "ensemble", RELEASE, "--seed", "-1"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.splitlines()[-1] == "policy_probes.py: error: argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got -1"
