"""``python -m train.bc``: the expert dataset holds the planner's own decisions, the smoke run (a
real process into a temporary folder) writes a model folder that loads as ``ppo:PATH``, imitates
the planner better than chance, reuses its dataset, and is fine-tuned by ``domino_env.train.ppo
--init-from`` / ``--resume``; bad flags and bad datasets are one-line refusals.
"""

import json
import shlex
import subprocess
import sys

import numpy as np
import pytest
from bc_helpers import SMALL
from bc_helpers import run_module as _run

from domino_env.agents import make_agent
from domino_env.agents.ppo import load_ppo_agent
from domino_env.train.bc import collect, load_dataset
from domino_env.train.evaluate import evaluate
from domino_env.train.learner_env import LearnerEnv


@pytest.fixture(scope="module")
def bc_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("bc")
    out, data = base / "run", base / "datasets" / "data.npz"  # its missing folder is created
    res = _run("domino_env.train.bc", [*SMALL, "--samples", "3000", "--epochs", "4", "--dagger-iters", "1",
                            "--dagger-samples", "500", "--final-eval-rounds", "8", "--dataset", str(data),
                            "--out", str(out)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    return out, data, res


def test_the_dataset_holds_the_experts_decisions_and_the_returns():
    env = LearnerEnv({"num_players": 3, "max_pip": 9}, ["greedy"], reward="mixed")
    planner = make_agent("planner", {"num_players": 3, "max_pip": 9})
    data = collect(env, planner, 300, seed=4, gamma=0.9)
    n = len(data["actions"])
    assert n >= 300 and data["observations"].shape == (n, env.observation_space.shape[0])
    assert data["observations"].dtype == np.int16 and data["masks"].dtype == np.uint8
    rng = np.random.default_rng(0)
    for i in range(0, n, 7):  # the label is the planner's choice on that raw observation and mask
        mask = np.unpackbits(data["masks"][i], count=env.action_space.n).astype(bool)
        assert mask[data["actions"][i]]
        assert planner(data["observations"][i].astype(np.float32), mask, rng) == data["actions"][i]
    # returns to go: the round's reward at its last decision, discounted by 0.9 per decision before
    ends = np.flatnonzero(np.diff(data["episodes"], append=data["episodes"][-1] + 1))
    last = data["returns"][ends]
    assert np.all(np.abs(last) <= 1.0 + 3.0) and np.any(last > 0.5) and np.any(last < 0)
    for e in ends[:5]:
        if e > 0 and data["episodes"][e - 1] == data["episodes"][e]:
            assert data["returns"][e - 1] == pytest.approx(0.9 * data["returns"][e])
    assert collect(env, planner, 300, seed=4, gamma=0.9)["actions"].tolist() == data["actions"].tolist()


def test_an_expert_that_wants_the_public_history_gets_the_learner_seats():
    """``search`` as the expert (``domino-bc --expert search:N``): collect passes it the learner
    seat's InformationState, whose own hand is the hand of the observation it labels."""
    from domino_env.agents.seat_view import observation_view

    rules = {"num_players": 3, "max_pip": 9}
    env = LearnerEnv(rules, ["greedy"], reward="mixed")
    seen = []

    class Spy:
        wants_info_state = True

        def __call__(self, obs, mask, rng, info_state=None):
            seat = info_state.seat
            seen.append(info_state.public.hands[seat] == observation_view(obs, 3, 9).hand_mask)
            return int(np.flatnonzero(mask)[0])

    collect(env, Spy(), 60, seed=4, gamma=0.9)
    assert len(seen) >= 60 and all(seen)
    data = collect(env, make_agent("search:4", rules), 30, seed=4, gamma=0.9)
    for i in range(len(data["actions"])):
        mask = np.unpackbits(data["masks"][i], count=env.action_space.n).astype(bool)
        assert mask[data["actions"][i]]


def test_smoke_run_writes_a_loadable_model_folder(bc_run):
    out, data, res = bc_run
    # two players: one opponent per tournament, named in the singular
    assert f"{out / 'model.zip'}: 8 duplicate-deal rounds vs 1 copy of each ladder agent" in " ".join(res.stdout.split())
    assert "pips (1 opponent) " in res.stdout
    for name in ("model.zip", "best_model.zip", "metadata.json", "final_evaluation.md"):
        assert (out / name).is_file(), name
    assert data.is_file() and not (out / "data.npz").exists()
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["status"] == "done" and meta["trained_by"].startswith("behaviour cloning")
    assert meta["command"] == "python -m domino_env.train.bc " + shlex.join(meta["argv"])
    assert meta["argv"][:2] == ["--players", "2"]
    assert meta["env_kwargs"]["num_players"] == 2 and meta["args"]["net_arch"] == [32]
    phases = [p["phase"] for p in meta["dataset"]["phases"]]
    assert phases == ["expert", "dagger 1"] and meta["dataset"]["samples"] >= 3500
    assert 0 <= meta["dataset"]["phases"][1]["on_policy_agreement"] <= 1
    assert [e["epoch"] for e in meta["bc_epochs"]] == [1, 2, 3, 4, 1, 2, 3, 4]
    assert [e["phase"] for e in meta["bc_epochs"]] == ["cloning"] * 4 + ["cloning 1/1"] * 4
    # it imitates: the held-out agreement with the planner is far above a uniform legal choice
    assert meta["bc_epochs"][-1]["val_agreement"] > 0.45
    assert meta["final_evaluation"]["greedy"]["rounds"] == 8
    res = evaluate([f"ppo:{out}", "planner"], rounds=8, num_players=2, max_pip=9, seed=3)
    assert res.stats_for(f"ppo:{out}").seat_episodes == 8
    agent = load_ppo_agent(out, {"num_players": 2, "max_pip": 9})
    assert agent.metadata["trained_by"].startswith("behaviour cloning")


def test_the_dataset_is_reused_and_a_mismatched_one_refused(bc_run, tmp_path):
    out, data, _ = bc_run
    again = tmp_path / "again"
    res = _run("domino_env.train.bc", [*SMALL, "--epochs", "1", "--final-eval-rounds", "0", "--dataset", str(data),
                            "--out", str(again)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = json.loads((again / "metadata.json").read_text())
    assert meta["dataset"]["phases"][0]["phase"] == "expert (loaded)"
    assert f"--dataset {data}: loaded its " in res.stderr  # not the default --samples 100000
    first = json.loads((out / "metadata.json").read_text())["dataset"]["phases"][0]["samples"]
    assert meta["dataset"]["samples"] == first
    with pytest.raises(ValueError, match="max_pip|rules"):
        load_dataset(data, {"rules": {"max_pip": 12}})
    res = _run("domino_env.train.bc", ["--players", "3", "--dataset", str(data), "--out", str(tmp_path / "x")])
    assert res.returncode == 2 and "--dataset" in res.stderr and "differs in" in res.stderr
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"nonsense")
    res = _run("domino_env.train.bc", ["--dataset", str(junk), "--out", str(tmp_path / "y")])
    assert res.returncode == 2 and "not a domino-bc dataset (ValueError); give a .npz file that domino-bc --dataset wrote" in res.stderr
    assert "pickle" not in res.stderr  # numpy's hint (allow_pickle=True) is no advice for a wrong file
    assert "Traceback" not in res.stderr and not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


@pytest.mark.parametrize(
    "args, flag",
    [(["--expert", "nobody"], "--expert nobody"), (["--samples", "0"], "--samples"),
     (["--val-fraction", "1"], "--val-fraction"), (["--dagger-beta", "2"], "--dagger-beta"),
     (["--eval-opponents", "foo"], "--eval-opponents foo"), (["--net-arch", "0"], "--net-arch"),
     (["--policy", "flat"], "--policy"), (["--workers", "0"], "--workers"),
     (["--dagger-samples", "100"], "--dagger-samples: has no effect without --dagger-iters"),
     (["--dagger-beta", "0.5"], "--dagger-beta: has no effect without --dagger-iters"),
     (["--samples", "0", "--dagger-iters", "1"], "--samples 0: needs --init-from"),
     (["--kl-coef", "1"], "--kl-coef: needs --init-from"), (["--kl-coef", "-1"], "--kl-coef"),
     (["--init-from", "/nonexistent/model"], "--init-from /nonexistent/model"),
     (["--dataset", "README.md/x.npz"], "README.md is a file, not a folder"),  # (run in the repository)
     (["--init-from", "checkpoints/mexican_train_4p_d12_action_scores", "--samples", "0"], "--samples 0: needs --dagger-iters"),
     (["--init-from", "checkpoints/mexican_train_4p_d12_action_scores", "--policy", "mlp"], "the model has --policy action-scores"),
     (["--seed", str(2**32)], "--seed: must be from 0 to 4,294,967,295"), (["--workers", "100000"], "(4 x the CPUs)")],
)  # fmt: skip
def test_bad_flags_are_refused_before_any_work(tmp_path, args, flag):
    res = _run("domino_env.train.bc", [*args, "--out", str(tmp_path / "run")])
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and flag in lines[0], res.stderr
    assert not (tmp_path / "run").exists()


def test_ppo_fine_tunes_the_clone(bc_run, tmp_path):
    out, _, _ = bc_run
    common = ["--players", "2", "--max-pip", "9", "--opponents", "greedy", "--timesteps", "128", "--n-envs", "1",
              "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--eval-freq", "0",
              "--final-eval-rounds", "0", "--no-progress", "--no-tensorboard", "--quiet"]  # fmt: skip
    tuned = tmp_path / "tuned"
    # --net-arch / --activation left out: the clone's (32, tanh), not the defaults (256 256)
    res = _run("domino_env.train.ppo", [*common, "--init-from", str(out), "--out", str(tuned)])
    assert res.returncode == 0, res.stderr
    meta = json.loads((tuned / "metadata.json").read_text())
    assert meta["args"]["net_arch"] == [32] and meta["args"]["activation"] == "tanh"
    assert meta["initialized_from"]["path"] == str(out / "model.zip") and meta["resumed_from"] is None
    assert meta["status"] == "done" and meta["timesteps"] >= 128
    from sb3_contrib import MaskablePPO

    clone, fine = (MaskablePPO.load(p / "model.zip", device="cpu").policy.state_dict() for p in (out, tuned))
    # it started from the clone's weights: two small PPO updates later they are still close
    assert max(float((clone[k] - fine[k]).abs().max()) for k in clone) < 0.05
    # another architecture than the clone's is refused, naming the flag
    res = _run("domino_env.train.ppo", [*common, "--net-arch", "64", "--init-from", str(out), "--out", str(tmp_path / "no")])
    assert res.returncode == 2 and "the model has --net-arch [32], this command [64]" in res.stderr
    assert not (tmp_path / "no").exists()
    res = _run("domino_env.train.ppo", [*common, "--activation", "relu", "--init-from", str(out), "--out", str(tmp_path / "no")])
    assert res.returncode == 2 and "--activation" in res.stderr and not (tmp_path / "no").exists()
    resumed = tmp_path / "resumed"
    res = _run("domino_env.train.ppo", [*common, "--resume", str(out), "--out", str(resumed)])
    assert res.returncode == 0, res.stderr
    assert json.loads((resumed / "metadata.json").read_text())["resumed_from"]["timesteps"] == 0


def test_the_held_out_episodes_stay_held_out_as_the_dataset_grows():
    from domino_env.train.bc import held_out

    episodes = np.repeat(np.arange(4000), 3)
    split = held_out(episodes, 0.05)
    assert 0.03 < split.mean() < 0.07
    assert np.array_equal(held_out(episodes[:3000], 0.05), split[:3000])
    assert not held_out(episodes, 0.0).any()


def test_a_line_game_clone_plays_its_game(tmp_path):
    out = tmp_path / "cuban"
    res = _run("domino_env.train.bc", ["--game", "cuban", "--samples", "400", "--epochs", "1", "--net-arch", "16",
                            "--final-eval-rounds", "0", "--no-progress", "--quiet", "--out", str(out)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["game"] == "cuban" and meta["observation_scaling"] == "line-unit-v1"
    assert meta["args"]["reward"] == "outcome"  # the line games' default
    spec = f"ppo:{out}"
    res = evaluate([spec, "greedy", spec, "greedy"], rounds=4, seed=1, game="cuban")
    assert res.teams and res.stats_for(spec).seat_episodes == 8


def test_a_non_empty_out_is_refused_unless_overwritten(tmp_path):
    out = tmp_path / "old"
    out.mkdir()
    (out / "best_model.zip").write_bytes(b"an old model")
    (out / "final_evaluation.md").write_text("old")
    tiny = ["--samples", "200", "--epochs", "1", "--net-arch", "16", "--final-eval-rounds", "0", "--no-progress",
            "--quiet", "--out", str(out)]  # fmt: skip
    res = _run("domino_env.train.bc", tiny)
    assert res.returncode == 2 and res.stderr.splitlines() == [
        f"domino-bc: error: --out {out}: folder exists and is not empty; give a new folder, or --overwrite to "
        "replace its run files (domino-bc --help lists every option)"
    ]  # domino-bc has no --resume: not offered
    assert (out / "best_model.zip").read_bytes() == b"an old model"
    res = _run("domino_env.train.bc", [*tiny, "--overwrite"])
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["best_model.zip", "metadata.json", "model.zip"]
    assert load_ppo_agent(out).name


def test_overwrite_of_the_init_from_folder_is_refused_and_deletes_nothing(bc_run, tmp_path):
    """``--init-from X --out X --overwrite`` would delete X's model before loading it: refused."""
    import shutil

    start = tmp_path / "start"
    shutil.copytree(bc_run[0], start)
    before = sorted(p.name for p in start.iterdir())
    res = _run("domino_env.train.bc", [*SMALL, "--init-from", str(start), "--out", str(start), "--overwrite",
                                       "--samples", "100", "--epochs", "1", "--final-eval-rounds", "0"])  # fmt: skip
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "--overwrite would delete the model that --init-from starts from" in lines[0]
    assert sorted(p.name for p in start.iterdir()) == before
    assert load_ppo_agent(start, {"num_players": 2, "max_pip": 9}).name


def test_an_interrupted_collection_is_continued_not_cloned_as_complete(bc_run, tmp_path):
    """The samples an interrupted collection saved are marked. The same command continues it: the
    missing decisions come from deals of their own (none of the first part's is played again),
    join the file, which is then complete, and the clone is fitted on them all; the same file and
    command give the same dataset. (A later run that asked for more was refused: the decisions
    were kept, but the collection could only start over.)"""
    import shutil

    from domino_env.train.bc_data import interrupted_of, save_dataset

    _, data, _ = bc_run
    with np.load(data) as f:
        arrays = {k: f[k] for k in f.files if k not in ("fingerprint", "interrupted_of")}
        fingerprint = json.loads(str(f["fingerprint"]))
    cut = int(np.searchsorted(arrays["episodes"], arrays["episodes"][800]))  # whole episodes only
    first = {k: v[:cut] for k, v in arrays.items()}
    part = tmp_path / "part.npz"
    save_dataset(part, first, fingerprint, interrupted_of=2000)
    assert interrupted_of(part) == 2000 and interrupted_of(data) is None
    twin, as_is = tmp_path / "twin.npz", tmp_path / "as_is.npz"
    shutil.copy(part, twin)
    shutil.copy(part, as_is)
    res = _run("domino_env.train.bc", [*SMALL, "--samples", "500", "--epochs", "1", "--final-eval-rounds", "0",
                                       "--dataset", str(as_is), "--out", str(tmp_path / "as_is")])  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert (f"--dataset {as_is}: loaded its {cut} decisions, part of an interrupted collection of 2000 (a --samples "
            f"above {cut} continues it)") in res.stderr  # fmt: skip
    phase = json.loads((tmp_path / "as_is" / "metadata.json").read_text())["dataset"]["phases"][0]
    assert {k: v for k, v in phase.items() if k != "fit_seconds"} == {
        "phase": "expert (loaded)", "samples": cut, "file": str(as_is), "interrupted_of": 2000}
    assert interrupted_of(as_is) == 2000  # cloned as it is, still marked
    common = [*SMALL, "--samples", "2000", "--epochs", "1", "--final-eval-rounds", "0"]
    res = _run("domino_env.train.bc", [*common, "--dataset", str(part), "--out", str(tmp_path / "ok")])
    assert res.returncode == 0, res.stderr
    assert (f"--dataset {part}: continuing its interrupted collection, {cut} of 2000 decisions; collecting "
            f"{2000 - cut} more") in res.stderr  # fmt: skip
    assert interrupted_of(part) is None  # complete now
    with np.load(part) as f:
        grown = {k: f[k] for k in arrays}
    n = len(grown["actions"])
    assert n >= 2000 and all(np.array_equal(grown[k][:cut], first[k]) for k in arrays)
    episodes = grown["episodes"]
    assert np.array_equal(np.unique(episodes), np.arange(episodes[-1] + 1))  # ids go on, none repeated
    starts = np.flatnonzero(np.diff(episodes, prepend=-1))
    old = {grown["observations"][i].tobytes() for i in starts if i < cut}
    assert not any(grown["observations"][i].tobytes() in old for i in starts if i >= cut)  # other deals
    meta = json.loads((tmp_path / "ok" / "metadata.json").read_text())
    phase = meta["dataset"]["phases"][0]
    assert (phase["phase"], phase["loaded"], phase["samples"], meta["dataset"]["samples"]) == ("expert (continued)", cut, n, n)
    again = _run("domino_env.train.bc", [*common, "--dataset", str(twin), "--out", str(tmp_path / "again")])
    assert again.returncode == 0, again.stderr
    with np.load(twin) as f:
        assert all(np.array_equal(f[k], grown[k]) for k in arrays)  # the same file and command: the same dataset


def test_a_dataset_that_the_run_would_replace_is_refused(tmp_path):
    """``--dataset OUT/dagger_samples.npz --out OUT``: ``--overwrite`` would delete the labels
    being reused and a DAgger round would rewrite the file with its own samples only; refused in
    one line before any work, the file untouched (the old folder's or the new one's)."""
    out = tmp_path / "run"
    small = [*SMALL, "--samples", "300", "--epochs", "1", "--final-eval-rounds", "0"]
    res = _run("domino_env.train.bc", [*small, "--dagger-iters", "1", "--dagger-samples", "100", "--out", str(out)])
    assert res.returncode == 0, res.stderr
    kept = out / "dagger_samples.npz"
    labels, files = kept.read_bytes(), sorted(p.name for p in out.iterdir())
    for more in ([], ["--dagger-iters", "1", "--dagger-samples", "100"]):
        res = _run("domino_env.train.bc", [*small, *more, "--dataset", str(kept), "--out", str(out), "--overwrite"])
        assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
        assert f"--dataset {kept}: is the run file dagger_samples.npz of --out {out}" in res.stderr
        assert kept.read_bytes() == labels and sorted(p.name for p in out.iterdir()) == files
    new = tmp_path / "new"
    res = _run("domino_env.train.bc", [*SMALL, "--dataset", str(new / "dagger_samples.npz"), "--out", str(new),
                                       "--dagger-iters", "1"])  # fmt: skip
    assert res.returncode == 2 and "is the run file dagger_samples.npz" in res.stderr and not new.exists()


def test_a_truncated_dataset_file_is_one_line(tmp_path):
    """A dataset cut short (a copy or a disk that filled up) is a zip without its directory:
    one line naming the file, not a zipfile traceback."""
    whole = tmp_path / "whole.npz"
    np.savez_compressed(whole, actions=np.arange(1000))
    cut = tmp_path / "cut.npz"
    cut.write_bytes(whole.read_bytes()[:100])
    res = _run("domino_env.train.bc", [*SMALL, "--dataset", str(cut), "--out", str(tmp_path / "y")])
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert f"--dataset {cut}: not a domino-bc dataset (BadZipFile" in res.stderr and not (tmp_path / "y").exists()


def test_the_overwrite_help_names_the_dagger_samples_it_deletes():
    res = _run("domino_env.train.bc", ["--help"])
    assert res.returncode == 0
    assert "delete its run files (models, metadata, evaluations, dagger_samples.npz) before collecting" in " ".join(
        res.stdout.split()
    )


def test_overwrite_clears_run_files_and_half_written_ones_only(tmp_path):
    from domino_env.train.run_folder import clear_run_files

    names = ["model.zip", "metadata.json", ".model.zip.partial", "dagger_samples.npz",
             "dagger_samples.npz.partial.npz", "dagger_samples.npz.4242.partial.npz", "notes.txt", "my_data.partial.npz",
             "notes.txt.4242.partial.npz"]  # fmt: skip
    for name in names:
        (tmp_path / name).write_text("x")
    (tmp_path / "tb").mkdir()
    gone = clear_run_files(tmp_path)
    kept = ["my_data.partial.npz", "notes.txt", "notes.txt.4242.partial.npz"]
    assert sorted(p.name for p in tmp_path.iterdir()) == kept
    assert set(gone) == set(names) - set(kept) | {"tb"}


def test_without_a_held_out_split_the_summary_says_so(tmp_path):
    """``--val-fraction 0`` printed "held-out agreement nan"."""
    shown = [a for a in SMALL if a != "--no-progress"]  # the bars too: their agree= said nan
    res = _run("domino_env.train.bc", [*shown, "--samples", "200", "--epochs", "1", "--val-fraction", "0",
                                       "--final-eval-rounds", "0", "--out", str(tmp_path / "bc")])  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "loss=" in res.stderr  # the fitting bar was drawn
    summary = [line for line in res.stderr.splitlines() if line.startswith("cloned ")]
    assert len(summary) == 1 and "200 samples, no held-out split, " in summary[0] and "nan" not in summary[0]
    assert "nan" not in res.stderr  # nor in the progress bar's agree= (it showed agree=nan)


def test_a_dataset_whose_episodes_are_all_held_out_is_refused(tmp_path):
    """Episode 0 is always held out: ``--samples 10`` (one episode) trained on no sample, said
    "cloned planner: 19 samples, held-out agreement ..." and wrote the untrained network."""
    out = tmp_path / "bc"
    res = _run("domino_env.train.bc", [*SMALL, "--samples", "10", "--epochs", "1", "--final-eval-rounds", "0",
                                       "--out", str(out)])  # fmt: skip
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert lines[0].startswith("domino-bc: error: nothing to clone: the 1 episode(s) of the ")
    assert "are all held out to measure the agreement (--val-fraction 0.05)" in lines[0]
    assert not (out / "model.zip").exists()


@pytest.mark.parametrize("module", ["domino_env.train.ppo", "domino_env.train.bc"])
def test_an_empty_out_is_refused_and_the_current_folders_files_stay(tmp_path, module):
    """``--out ''`` (``--out "$OUT"`` with OUT unset) was the current folder: refused as "folder
    exists and is not empty" with a hint to ``--resume`` an empty name, and with ``--overwrite``
    the run deleted the current folder's model.zip and metadata.json and trained into it."""
    (tmp_path / "model.zip").write_text("mine")
    (tmp_path / "metadata.json").write_text("{}")
    args = ["--players", "2", "--max-pip", "9", "--final-eval-rounds", "0", "--no-progress", "--out", "", "--overwrite"]
    args += (["--timesteps", "64", "--n-steps", "64", "--batch-size", "64", "--eval-freq", "0", "--n-envs", "1"]
             if module.endswith("ppo") else ["--samples", "20", "--epochs", "1"])  # fmt: skip
    res = subprocess.run([sys.executable, "-m", module, *args], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    prog = "domino-train" if module.endswith("ppo") else "domino-bc"
    assert (res.returncode, res.stderr) == (2, f"{prog}: error: --out : is empty: give a folder name (an empty "
                                               f"one would be the current folder) ({prog} --help lists every option)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metadata.json", "model.zip"]
    assert (tmp_path / "model.zip").read_text() == "mine"


@pytest.mark.parametrize("how", ["stop", "abort"])
def test_a_stop_while_collecting_leaves_no_empty_default_folder(tmp_path, monkeypatch, capsys, how):
    """Without --out the run claims runs/bc_<date>_<time> before collecting; a first signal
    (the collection stops, no model is written) or a second one (abort) left it there empty."""
    import domino_env.train.bc as bc

    def interrupted(env_cfg, expert, samples, seed, gamma, workers, progress=True, stop=None, **kwargs):
        if how == "abort":
            raise KeyboardInterrupt("SIGTERM", "a second signal: aborted without saving")
        stop.received = "SIGTERM"
        return {k: np.zeros((0,), np.int32) for k in bc.DATASET_KEYS}

    monkeypatch.setattr(bc, "collect_parallel", interrupted)
    monkeypatch.chdir(tmp_path)
    if how == "abort":
        with pytest.raises(KeyboardInterrupt):
            bc.run([*SMALL, "--samples", "100"])
    else:
        assert bc.run([*SMALL, "--samples", "100"]) == (None, "SIGTERM")
        assert "SIGTERM: interrupted while collecting; no model written" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()  # and the runs/ made for it (it was left empty)


def test_a_stop_while_collecting_after_overwrite_says_the_old_runs_files_are_gone(tmp_path, monkeypatch, capsys):
    """--overwrite deletes the old run's files before collecting (as documented); a stop while
    collecting then writes no model, and the folder was left empty with a line that said only "no
    model written". The line now says what --overwrite removed and the command to run again."""
    import domino_env.train.bc as bc

    def interrupted(env_cfg, expert, samples, seed, gamma, workers, progress=True, stop=None, **kwargs):
        stop.received = "SIGINT"
        return {k: np.zeros((0,), np.int32) for k in bc.DATASET_KEYS}

    monkeypatch.setattr(bc, "collect_parallel", interrupted)
    out = tmp_path / "old"
    out.mkdir()
    for name in ("model.zip", "metadata.json", "notes.txt"):
        (out / name).write_text("the old run's")
    argv = [*SMALL, "--samples", "100", "--out", str(out), "--overwrite"]
    assert bc.run(argv) == (None, "SIGINT")
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line == (f"SIGINT: interrupted while collecting; no model written; --overwrite removed the old run's files "
                    f"from {out} at the start (metadata.json, model.zip): run the command again to make the run there: "
                    f"python -m domino_env.train.bc {shlex.join(argv)}")  # fmt: skip
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_the_commands_an_interrupted_cloning_prints_run_as_printed(tmp_path, monkeypatch, capsys):
    """The line named `domino-bc --init-from OUT --out NEW_FOLDER` and `domino-train --init-from
    OUT` alone: for any rules but the defaults both were refused (the model's spec differs), and the
    first dropped --dataset, so it played the expert again. Both now run as printed."""
    import re

    import domino_env.train.bc as bc
    from domino_env.train import ppo

    real_fit = bc.fit

    def interrupted_fit(*args, **kwargs):  # a signal just before the first minibatch
        args[11].received = "SIGINT"
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(bc, "fit", interrupted_fit)
    out, data = tmp_path / "run", tmp_path / "data.npz"
    common = [*SMALL, "--samples", "200", "--epochs", "1", "--final-eval-rounds", "0", "--dataset", str(data)]
    assert bc.run([*common, "--out", str(out)]) == (out, "SIGINT")
    hint = re.search(r"clone on from it with (.*), or fine-tune it with (.*)", capsys.readouterr().err)
    clone_on, fine_tune = (shlex.split(command) for command in hint.groups())
    assert clone_on[:3] == ["python", "-m", "domino_env.train.bc"] and "--players" in clone_on
    assert fine_tune[:3] == ["python", "-m", "domino_env.train.ppo"] and fine_tune[-2:] == ["--init-from", str(out)]
    monkeypatch.setattr(bc, "fit", real_fit)
    more = tmp_path / "more"
    assert bc.run([str(more) if a == "NEW_FOLDER" else a for a in clone_on[3:]]) == (more, None)
    meta = json.loads((more / "metadata.json").read_text())
    assert meta["initialized_from"]["path"] == str(out / "model.zip")
    assert meta["dataset"]["phases"][0]["phase"] == "expert (loaded)"  # the run's samples, not played again
    tuned = tmp_path / "tuned"
    small = ["--timesteps", "64", "--n-steps", "64", "--batch-size", "64", "--n-envs", "1", "--eval-freq", "0",
             "--final-eval-rounds", "0", "--no-progress", "--no-tensorboard", "--no-plot", "--quiet"]  # fmt: skip
    assert ppo.run([*fine_tune[3:], *small, "--out", str(tuned)]) == (tuned, None)
    assert json.loads((tuned / "metadata.json").read_text())["initialized_from"]["path"] == str(out / "model.zip")
