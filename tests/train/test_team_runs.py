"""A small ``domino-train --game cuban --partner learner`` run (net 16, action-scores) continued
and reused: ``--resume`` keeps the model's network (another one given is refused), ``--init-from``
and ``domino-bc --init-from`` inherit it (also from the model file when the metadata lacks it),
and the learner env's ``learner_pips`` is its team's mean with the learner as its own partner."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from domino_env.core.config import line_from_preset
from domino_env.train.learner_env import LearnerEnv

ROOT = Path(__file__).resolve().parents[2]
QUICK = ["--game", "cuban", "--timesteps", "256", "--n-envs", "1", "--n-steps", "256", "--batch-size", "128",
         "--n-epochs", "1", "--opponents", "greedy", "--eval-freq", "0", "--eval-opponents", "greedy",
         "--seed", "2", "--no-progress", "--no-tensorboard", "--no-plot", "--quiet"]  # fmt: skip


def _run(module, args):
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


@pytest.fixture(scope="module")
def team_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("team") / "run"
    res = _run("domino_env.train.ppo", [*QUICK, "--partner", "learner", "--net-arch", "16", "--activation", "relu",
                                        "--final-eval-rounds", "0", "--out", str(out)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    return out


def _args(folder):
    return json.loads((folder / "metadata.json").read_text())["args"]


def test_resume_refuses_another_network_and_records_the_models(team_run, tmp_path):
    # (an action-scores model's --activation is not compared: its networks are ReLU whatever it says)
    for flag, value, had in (("--net-arch", "64", "[16]"),):
        res = _run("domino_env.train.ppo", [*QUICK, "--partner", "learner", "--resume", str(team_run), flag, value,
                                            "--final-eval-rounds", "0", "--out", str(tmp_path / "no")])  # fmt: skip
        assert res.returncode == 2 and not (tmp_path / "no").exists()
        assert res.stderr.strip().splitlines() == [
            f"domino-train: error: --resume {team_run}: the model has {flag} {had}, this command "
            f"{[int(value)] if flag == '--net-arch' else value}; --resume continues the model's network "
            f"(leave {flag} out) (domino-train --help lists every option)"
        ]
    more = tmp_path / "more"
    res = _run("domino_env.train.ppo", [*QUICK, "--partner", "learner", "--resume", str(team_run),
                                        "--final-eval-rounds", "0", "--out", str(more)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    args = _args(more)
    assert args["net_arch"] == [16] and args["activation"] == "relu" and args["partner"] == "learner"


def test_init_from_a_model_whose_metadata_lacks_the_network_reads_it_from_the_model(team_run, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(team_run, old)
    meta = json.loads((old / "metadata.json").read_text())
    del meta["args"]["net_arch"], meta["args"]["activation"]
    (old / "metadata.json").write_text(json.dumps(meta))
    tuned = tmp_path / "tuned"
    res = _run("domino_env.train.ppo", [*QUICK, "--partner", "learner", "--init-from", str(old),
                                        "--final-eval-rounds", "0", "--out", str(tuned)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert _args(tuned)["net_arch"] == [16]
    res = _run("domino_env.train.ppo", [*QUICK, "--partner", "learner", "--resume", str(old), "--net-arch", "64",
                                        "--final-eval-rounds", "0", "--out", str(tmp_path / "no")])  # fmt: skip
    assert res.returncode == 2 and "the model has --net-arch [16], this command [64]" in res.stderr
    # and another network given is refused in one line, not a multi-line state_dict error
    res = _run("domino_env.train.ppo", [*QUICK, "--partner", "learner", "--init-from", str(old), "--net-arch", "64",
                                        "--final-eval-rounds", "0", "--out", str(tmp_path / "no")])  # fmt: skip
    assert res.returncode == 2 and not (tmp_path / "no").exists()
    assert res.stderr.strip().splitlines() == [
        f"domino-train: error: --init-from {old}: the model has --net-arch [16], this command [64]; give the "
        "model's (domino-train --help lists every option)"
    ]
    # an mlp model's policy_kwargs give its activation too (a released checkpoint)
    from domino_env.train.start_model import _network_of_model

    mlp = _network_of_model(ROOT / "checkpoints" / "cuban_4p_teams" / "model.zip")
    assert mlp == {"net_arch": [256, 256], "activation": "tanh"}
    assert _network_of_model(tmp_path / "none.zip") == {}


def test_bc_init_from_an_action_scores_cuban_model_evaluates_it(team_run, tmp_path):
    # the clone's final evaluation builds an action-scores agent of a line game: it needs the rules
    out = tmp_path / "bc"
    res = _run("domino_env.train.bc", ["--game", "cuban", "--opponents", "greedy", "--eval-opponents", "greedy",
                                       "--eval-workers", "1", "--seed", "2", "--no-progress", "--quiet",
                                       "--init-from", str(team_run), "--samples", "200", "--epochs", "1",
                                       "--final-eval-rounds", "4", "--out", str(out)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["status"] == "done" and (out / "final_evaluation.md").is_file()
    assert meta["args"]["policy"] == "action-scores" and meta["args"]["net_arch"] == [16]
    assert meta["args"]["activation"] == "relu"


def test_learner_pips_with_the_learner_as_partner_is_its_teams_mean():
    cuban = line_from_preset("cuban").to_dict()
    env = LearnerEnv(cuban, ["greedy"], reward="outcome", game="cuban", partner="learner")
    rng = np.random.default_rng(0)
    ended_on_a_team_move_out = 0
    for seed in range(30):
        env.reset(seed=seed)
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
            done = term or trunc
        seat = info["learner_seat"]
        team = [int(info["pips"][seat]), int(info["pips"][(seat + 2) % 4])]
        assert info["learner_pips"] == sum(team) / 2
        ended_on_a_team_move_out += team[0] == 0 and team[1] > 0  # the seat that went out
    assert ended_on_a_team_move_out >= 3  # rounds where the acting seat alone would give 0


def test_resume_names_the_training_setup_it_changes(team_run, tmp_path):
    # a resume typed without --partner learner trains with scripted partners: one line says so,
    # naming what the model's run used; the same setup says nothing
    loud = [a for a in QUICK if a != "--quiet"]
    res = _run("domino_env.train.ppo", [*loud, "--resume", str(team_run), "--opponents", "planner",
                                        "--final-eval-rounds", "0", "--out", str(tmp_path / "a")])  # fmt: skip
    assert res.returncode == 0, res.stderr
    notes = [line for line in res.stderr.splitlines() if line.startswith("--resume trains with")]
    assert notes == ["--resume trains with this command's --partner opponents (the model's run: --partner "
                     "learner), --opponents planner (the model's run: --opponents greedy)"]  # fmt: skip
    res = _run("domino_env.train.ppo", [*loud, "--partner", "learner", "--resume", str(team_run),
                                        "--final-eval-rounds", "0", "--out", str(tmp_path / "b")])  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "--resume trains with" not in res.stderr
