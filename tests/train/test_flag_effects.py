"""Flags of the training commands whose effect no test checked (a test audit): each test here
reads the flag's effect back from what the real command (a subprocess) wrote, its saved model,
metadata.json, evaluations, checkpoint or output, so that it fails if the flag were ignored.

``domino-train --eval-seed``, ``domino-bc --eval-seed``: the evaluations in the run folder are
the tournaments of that seed (replayed here with the saved model), not of the default seed.
``domino-bc --dagger-epochs``: the epochs fitted after a DAgger round. ``domino-bc --vf-coef``:
the value head's weight in the loss (0: the value head of the start model is kept bit for bit).
``domino-rllib --num-envs-per-env-runner``: the envs the runner steps together. ``--progress`` /
``--no-progress`` of ``domino-train``, ``domino-bc`` and ``domino-rllib``: a bar or none.
"""

import json
import pickle
import re
import subprocess
import sys

import pytest
from bc_helpers import SMALL as BC_SMALL
from bc_helpers import run_module
from ppo_helpers import SMALL as PPO_SMALL
from ppo_helpers import run_ppo

from domino_env.agents.ppo import load_ppo_agent
from domino_env.train.ladder import evaluate_vs_ladder

RULES = {"num_players": 2, "max_pip": 9}
#: What a replayed tournament must give again (the rows of evaluate_vs_ladder, as saved).
PLAYED = ("rounds", "win_rate", "mean_pips", "opponent_mean_pips", "opponent_win_rate")


def _meta(out):
    return json.loads((out / "metadata.json").read_text())


def _replay(out, meta, rounds, seed):
    """The row of ``rounds`` duplicate-deal rounds of the saved model against random, ``seed``."""
    agent = load_ppo_agent(out, RULES)
    row = evaluate_vs_ladder(agent, meta["rules"], ["random"], rounds, seed)["random"]
    return {k: row[k] for k in PLAYED}


def _played(row):
    return {k: row[k] for k in PLAYED}


def _bc(args, out):
    res = run_module("domino_env.train.bc", [*BC_SMALL, *args, "--out", str(out)])
    assert res.returncode == 0, res.stderr[-3000:]
    return res


# ------------------------------------------------------------------------------------ --eval-seed
def test_train_eval_seed_seeds_the_periodic_and_the_final_evaluation(tmp_path):
    """One rollout of 64 steps, evaluated at its end (6 rounds) and finally (8 rounds), both of
    the saved model: each evaluation is the tournament of --eval-seed 77, not of the default
    seed (--seed 1 + 1000)."""
    out = tmp_path / "run"
    res = run_ppo([*PPO_SMALL, "--timesteps", "64", "--n-envs", "1", "--eval-freq", "64", "--eval-rounds", "6",
                   "--final-eval-rounds", "8", "--eval-opponents", "random", "--eval-workers", "1",
                   "--eval-seed", "77", "--out", str(out)])  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    meta = _meta(out)
    assert meta["eval_seed"] == 77
    assert "(8 duplicate-deal rounds per row, seed 77)" in (out / "final_evaluation.md").read_text()
    [periodic] = meta["evaluations"]
    assert periodic["timesteps"] == 64 == meta["timesteps"]  # the weights of model.zip
    assert _played(periodic["results"]["random"]) == _replay(out, meta, 6, 77)
    final = _played(meta["final_evaluation"]["random"])
    assert final == _replay(out, meta, 8, 77)
    assert final != _replay(out, meta, 8, 1 + 1000)  # the default seed's deals play otherwise


@pytest.fixture(scope="module")
def bc_run(tmp_path_factory):
    """A small clone (200 planner decisions, one epoch) finally evaluated with --eval-seed 77."""
    out = tmp_path_factory.mktemp("bc") / "run"
    _bc(["--samples", "200", "--epochs", "1", "--final-eval-rounds", "8", "--eval-opponents", "random",
         "--eval-seed", "77"], out)  # fmt: skip
    return out


def test_bc_eval_seed_seeds_the_final_evaluation(bc_run):
    meta = _meta(bc_run)
    assert meta["eval_seed"] == 77
    assert "(8 duplicate-deal rounds per row, seed 77)" in (bc_run / "final_evaluation.md").read_text()
    final = _played(meta["final_evaluation"]["random"])
    assert final == _replay(bc_run, meta, 8, 77)
    assert final != _replay(bc_run, meta, 8, 2 + 1000)  # the default seed (--seed 2 + 1000)


# --------------------------------------------------------------------------------- domino-bc fits
def test_bc_dagger_epochs_are_the_epochs_after_each_dagger_round(tmp_path):
    """--epochs 2 for the expert's dataset, --dagger-epochs 3 after the DAgger round (over the
    aggregated dataset)."""
    out = tmp_path / "bc"
    _bc(["--samples", "200", "--epochs", "2", "--dagger-iters", "1", "--dagger-samples", "100",
         "--dagger-epochs", "3", "--final-eval-rounds", "0"], out)  # fmt: skip
    log = _meta(out)["bc_epochs"]
    assert [(e["phase"], e["epoch"]) for e in log] == [
        ("cloning", 1), ("cloning", 2), ("cloning 1/1", 1), ("cloning 1/1", 2), ("cloning 1/1", 3)]  # fmt: skip
    assert log[2]["samples"] > log[0]["samples"]  # the aggregated dataset: the DAgger decisions too


def test_bc_vf_coef_weights_the_value_heads_loss(bc_run, tmp_path):
    """Cloning on from ``bc_run``: with --vf-coef 0 the value head gets no gradient (Adam leaves
    a parameter with zero gradients as it is), so it is the start model's bit for bit while the
    policy moved; with --vf-coef 4 it trains, and each epoch's loss is the policy's negative
    log-likelihood (>= 0) plus 4 x the value loss."""
    import torch
    from sb3_contrib import MaskablePPO

    def weights(path):
        return MaskablePPO.load(path / "model.zip", device="cpu").policy.state_dict()

    start = weights(bc_run)
    value = [k for k in start if k.startswith(("mlp_extractor.value_net.", "value_net."))]
    policy = [k for k in start if k.startswith(("mlp_extractor.policy_net.", "action_net."))]
    assert value and policy and not set(value) & set(policy)
    runs = {}
    for coef in ("0", "4"):
        out = tmp_path / f"vf{coef}"
        _bc(["--init-from", str(bc_run), "--samples", "200", "--epochs", "2", "--vf-coef", coef,
             "--final-eval-rounds", "0"], out)  # fmt: skip
        runs[coef] = (weights(out), _meta(out)["bc_epochs"])
    untouched = runs["0"][0]
    assert all(torch.equal(untouched[k], start[k]) for k in value)
    assert not all(torch.equal(untouched[k], start[k]) for k in policy)
    trained, log = runs["4"]
    assert not any(torch.equal(trained[k], start[k]) for k in value)
    for e in log:  # the value loss term is there with its weight 4 (0.5, the default, fails)
        assert 0 <= e["train_loss"] - 4 * e["train_value_loss"] < e["train_loss"], e


# ------------------------------------------------------------------------------------- progress
def test_train_progress_draws_a_bar_and_no_progress_none(tmp_path):
    """domino-train's bar (tqdm, on stderr, as every long command's): "64/64" steps; none on stdout."""
    outputs = {}
    for flag in ("--progress", "--no-progress"):
        res = run_ppo([*PPO_SMALL, "--timesteps", "64", "--n-envs", "1", flag, "--out", str(tmp_path / flag)])
        assert res.returncode == 0, res.stderr[-3000:]
        assert "64/64" not in res.stdout and "step/s" not in res.stdout
        outputs[flag] = res.stderr
    assert re.search(r"\b64/64\b.*step/s", outputs["--progress"]), outputs["--progress"]
    assert "64/64" not in outputs["--no-progress"] and "step/s" not in outputs["--no-progress"]


def test_bc_progress_draws_its_bars_on_stderr_and_no_progress_none(tmp_path):
    """The collection's and the fitting's bars on stderr; with --no-progress only the summary line."""
    outputs = {}
    for flag in ("--progress", "--no-progress"):
        outputs[flag] = _bc(["--samples", "100", "--epochs", "1", "--final-eval-rounds", "0", flag],
                            tmp_path / flag)  # fmt: skip
    shown, hidden = outputs["--progress"], outputs["--no-progress"]
    # (the collection ends its episodes: the bar may end past its total, as "127dec")
    assert re.search(r"expert decisions: +0%\|.*0/100", shown.stderr), shown.stderr
    assert re.search(r"cloning: 100%.*1/1.*loss=", shown.stderr), shown.stderr
    for res in (shown, hidden):
        assert "%|" not in res.stdout
    assert "%|" not in hidden.stderr and "expert decisions" not in hidden.stderr and "loss=" not in hidden.stderr
    # its summary line alone (the collection ends its episodes: 100 asked, a few more recorded)
    assert re.fullmatch(r"cloned planner: \d+ samples, [^\n]*\n", hidden.stderr), hidden.stderr


# ----------------------------------------------------------------------------------- domino-rllib
RLLIB_SMALL = ["--game", "mexican_train", "--players", "2", "--max-pip", "9", "--mode", "opponents",
               "--opponents", "greedy", "--iterations", "1", "--eval-rounds", "0", "--batch-size", "128",
               "--minibatch-size", "64", "--epochs", "1", "--hidden", "16", "--num-env-runners", "0",
               "--num-cpus", "2", "--seed", "3"]  # fmt: skip


@pytest.fixture(scope="module")
def rllib_runs(tmp_path_factory):
    """One iteration of a 128-step batch: with 5 envs per env runner and the bar, and with the
    default 1 env and --no-progress."""
    base = tmp_path_factory.mktemp("rllib")
    runs = {}
    for name, extra in (("five", ["--num-envs-per-env-runner", "5", "--progress"]), ("one", ["--no-progress"])):
        out = base / name
        proc = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", *RLLIB_SMALL, *extra,
                               "--out", str(out)], capture_output=True, text=True, timeout=300)  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[name] = (out, proc)
    return runs


def _rows(out):
    return [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]


def test_rllib_num_envs_per_env_runner_steps_that_many_envs(rllib_runs):
    """The env runner steps its envs together: a batch of 128 env steps is 26 steps of each of 5
    envs, 130 (with one env: 128); the checkpoint's algorithm config (what a restore builds)
    holds the 5."""
    five, one = rllib_runs["five"][0], rllib_runs["one"][0]
    assert [r["env_steps"] for r in _rows(five)] == [130]
    assert [r["env_steps"] for r in _rows(one)] == [128]
    for out, n in ((five, 5), (one, 1)):
        saved = pickle.loads((out / "checkpoint" / "env_runner" / "class_and_ctor_args.pkl").read_bytes())
        assert saved["ctor_args_and_kwargs"][1]["config"].num_envs_per_env_runner == n


def test_rllib_progress_draws_a_bar_on_stderr_and_no_progress_prints_rows(rllib_runs):
    """With the bar, an iteration is a redraw of it on stderr (its row only in progress.jsonl);
    with --no-progress no bar, and each iteration's row is a line on stdout instead."""
    shown, (one, hidden) = rllib_runs["five"][1], rllib_runs["one"]
    assert re.search(r"rllib mexican_train opponents: 100%.*1/1.*steps=\d+", shown.stderr), shown.stderr[-3000:]
    assert '{"iteration": 1' not in shown.stdout
    assert "rllib mexican_train opponents" not in hidden.stderr + hidden.stdout and "%|" not in hidden.stderr
    printed = [json.loads(line) for line in hidden.stdout.splitlines() if line.startswith('{"iteration"')]
    assert printed == _rows(one)
