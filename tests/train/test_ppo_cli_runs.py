"""``python -m train.ppo`` / ``domino-train`` as a real process: every bad flag is refused before
any work (exit status 2, one line naming the flag, no run folder), a corrupt or unloadable start model
is one line, an existing ``--out`` is refused unless resumed into or overwritten; what a run writes
and prints (run files, the recorded command, evaluation lines, warnings) and the ``--time-limit`` values.
"""

import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from ppo_helpers import ROOT, SMALL
from ppo_helpers import run_ppo as _run

from domino_env.train.vec_envs import usable_cores

CORES = usable_cores()


@pytest.mark.parametrize(
    "args, flag",
    [
        (["--eval-opponents", "foo"], "--eval-opponents foo"),
        (["--opponents", "greedy", "nobody"], "--opponents nobody"),
        (["--reward-baseline", "nobody"], "; or none (no baseline)"),
        (["--n-envs", "-1"], "--n-envs"),
        (["--batch-size", "100000", "--n-steps", "16", "--n-envs", "2"],
         "--batch-size 100000: larger than a rollout, --n-steps 16 x 2 envs = 32 samples"),
        (["--n-envs", "0"], "--n-envs"),
        (["--gamma", "2"], "--gamma"),
        (["--gamma", "nan"], "--gamma"),
        (["--clip-range", "-1"], "--clip-range"),
        (["--net-arch", "0"], "--net-arch"),
        (["--net-arch", "64", "-3"], "--net-arch"),
        (["--net-arch", "60000", "60000"],  # torch's allocation traceback (14 GB a layer)
         "--net-arch 60000 60000: the value network would have 3.63e+09 parameters; at most 100,000,000"),
        (["--net-arch", "8000", "8000", "--policy", "mlp"],
         "--net-arch 8000 8000: the policy and value networks would have 1.39e+08 parameters"),
        (["--timesteps", "0"], "--timesteps"),
        (["--batch-size", "1"], "--batch-size"),
        (["--learning-rate", "0"], "--learning-rate"),
        (["--learning-rate", "-1e-3"], "--learning-rate: must be"),  # argparse took it for an option
        (["--learning-rate", "inf"], "--learning-rate: must be a number in (0.0, inf), got inf"),  # not finite
        (["--vf-coef", "1e999"], "--vf-coef: must be a number in [0.0, inf), got 1e999"),
        (["--gae-lambda", "1.5"], "--gae-lambda"),
        (["--ent-coef", "-0.1"], "--ent-coef"),
        (["--self-play", "1.5"], "--self-play"),
        (["--eval-freq", "-5"], "--eval-freq"),
        (["--eval-workers", "0"], "--eval-workers"),
        (["--time-limit", "0"], "--time-limit"),
        (["--seed", "-1"], "--seed"),
        (["--seed", str(2**32)], "--seed: must be from 0 to 4,294,967,295 (2**32 - 1), got 4294967296"),
        (["--torch-threads", "0"], "--torch-threads"),
        (["--torch-threads", "100000"], "--torch-threads: must be from 1 to"),  # segfaulted
        (["--eval-workers", "100000"], "(4 x the CPUs), got 100000"),
        (["--n-envs", "100000"], "--n-envs: must be from 1 to 256, got 100000"),
        # a process each: 244 of them filled a 24 GB machine (4 x the CPUs; dummy envs share one process)
        ([f"--n-envs={4 * CORES + 1}", "--vec-env", "subproc"], f"a process per env (SubprocVecEnv) takes at most 4 x the CPUs ({4 * CORES})"),
        (["--n-steps", "100000000", "--n-envs", "2"], "= 200000000 samples a rollout; give at most 1048576"),  # filled the memory
        (["--times", "64"], "unrecognized arguments: --times 64"),  # an abbreviation, repeated by the resume hint
        (["--snapshot-freq", "512"], "--snapshot-freq is only used with --self-play above 0"),
        (["--eval-rounds", "8", "--eval-freq", "0"], "--eval-rounds is only used with --eval-freq above 0"),
        (["--max-pip", "6"], "--max-pip"),
        (["--players", "1"], "--players"),
        (["--hand-size", "99"], "--hand-size"),
        (["--opponent-mode", "fixed", "--opponents", "greedy"], "--opponents"),
        (["--game", "cuban", "--reward", "mixed"], "--reward"),
        (["--game", "cuban", "--doubles", "chain"], "--doubles"),
        (["--policy", "flat"], "--policy"),
        (["--critic-input", "hands"], "--critic-input"),
        (["--policy", "mlp", "--critic-input", "full-state"], "--critic-input: invalid argument 'critic_input'"),
        (["--resume", "no/such/run"], "--resume no/such/run"),
        (["--init-from", "no/such/run"], "--init-from no/such/run"),
        (["--resume", "a", "--init-from", "b"], "--init-from"),
        (["--game", "cuban", "--players", "2"], "--players: Cuban plays in teams of two (seats 0+2 vs 1+3), which needs 4 players; got 2"),  # teams need 4
        (["--game", "cuban", "--max-pip", "6"],
         "--max-pip 6: too few tiles for the cuban preset's 10-tile hands; give --hand-size too (an integer from 1 to 7)"),
        (["--game", "cuban", "--max-pip", "6", "--hand-size", "9"], "--hand-size: invalid config field 'hand_size': got 9"),
        (["--partner", "learner"], "--partner"),  # Mexican Train has no teams
        (["--game", "block", "--players", "4", "--partner", "learner"], "--partner"),
        (["--game", "cuban", "--partner", "self"], "--partner"),
        (["--game", "cuban", "--partner", "learner", "--opponent-mode", "fixed", "--opponents", "greedy",
          "planner", "greedy"], "2 agents with --opponent-mode fixed, --partner learner"),
    ],
)
def test_a_bad_flag_is_one_line_naming_it_and_nothing_is_written(tmp_path, args, flag):
    out = tmp_path / "run"
    res = _run([*args, "--out", str(out)])
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("domino-train: error: "), res.stderr
    assert flag in lines[0]
    assert "Traceback" not in res.stderr and not out.exists()


def test_a_corrupt_resume_model_or_metadata_is_one_line(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "model.zip").write_bytes(b"not a zip")
    (bad / "metadata.json").write_text("{ truncated")
    res = _run(["--resume", str(bad), "--out", str(tmp_path / "run")])
    assert res.returncode == 2 and "--resume" in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and not (tmp_path / "run").exists()


def test_weights_that_do_not_fit_the_metadatas_network_name_the_first_mismatch(tmp_path):
    """--init-from a release whose metadata.json was edited to another --net-arch: torch's many-line
    state-dict error is one line that names the first layer that does not fit (it ended at
    "Error(s) in loading state_dict for ActionScoringPolicy:")."""
    import shutil

    from domino_env.train.cli import first_line

    start = tmp_path / "edited"
    shutil.copytree(ROOT / "checkpoints" / "mexican_train_4p_d12_action_scores", start)
    meta = json.loads((start / "metadata.json").read_text())
    meta["args"]["net_arch"] = [128, 128]
    (start / "metadata.json").write_text(json.dumps(meta))
    res = _run(["--init-from", str(start), "--timesteps", "64", "--n-steps", "64", "--batch-size", "64",
                "--final-eval-rounds", "0", "--eval-freq", "0", "--no-progress", "--out", str(tmp_path / "run")])  # fmt: skip
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert ("RuntimeError: Error(s) in loading state_dict for ActionScoringPolicy: size mismatch for "
            "mlp_extractor.value_net.0.weight: copying a param with shape torch.Size([256, 466]) from checkpoint, "
            "the shape in current model is torch.Size([128, 466]). (and 4 more)") in res.stderr
    assert first_line(ValueError("one\ntwo")) == "one" and first_line(ValueError("a:\n\tb\n")) == "a: b"
    assert first_line(ValueError("")) == ""


def _model_whose_tensor_file_does_not_unpickle(folder: Path) -> Path:
    """A copy of the Mexican Train release whose policy.pth is a torch file that torch's safe
    loader refuses (a Fraction inside)."""
    import io
    import shutil
    import zipfile
    from fractions import Fraction

    import torch

    release = ROOT / "checkpoints" / "mexican_train_4p_d12"
    shutil.copytree(release, folder)
    buffer = io.BytesIO()
    torch.save({"x": Fraction(1, 3)}, buffer)
    src, tmp = folder / "model.zip", folder / "rebuilt.zip"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for item in zin.infolist():
            zout.writestr(item, buffer.getvalue() if item.filename == "policy.pth" else zin.read(item))
    tmp.replace(src)
    return folder


@pytest.mark.parametrize("command, flag", [("train.ppo", "--resume"), ("train.ppo", "--init-from"),
                                           ("train.bc", "--init-from")])
def test_a_start_model_that_does_not_unpickle_is_one_line_without_torchs_unsafe_advice(tmp_path, capsys, command,
                                                                                       flag):
    """torch's text ("re-running torch.load with weights_only set to False will likely succeed",
    with terminal colour codes) was the message of --resume / --init-from."""
    import importlib

    bad = _model_whose_tensor_file_does_not_unpickle(tmp_path / "bad")
    module = importlib.import_module(f"domino_env.{command}")
    with pytest.raises(SystemExit) as exit_:
        module.run([flag, str(bad), *(["--n-envs", "1"] if command == "train.ppo" else []), "--out",
                    str(tmp_path / "out")])  # fmt: skip
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{flag} {bad}: cannot load {bad / 'model.zip'}: corrupt model (a tensor file inside it cannot be " in err
    assert "weights_only" not in err and "\x1b" not in err


def test_a_run_without_tensorboard_leaves_no_folder_in_the_temp_dir(tmp_path, monkeypatch):
    """Stable-Baselines3's default logger made an empty SB3-<time> folder in the temp dir."""
    import tempfile

    from domino_env.train import ppo

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    out = tmp_path / "run"
    assert ppo.run([*SMALL, "--timesteps", "64", "--n-envs", "1", "--vec-env", "dummy", "--quiet", "--out", str(out)]) == (out, None)
    assert [p.name for p in temp.iterdir() if p.name.startswith("SB3-")] == []
    assert json.loads((out / "metadata.json").read_text())["status"] == "done"


def test_the_saved_line_names_every_file_of_the_run_folder(tmp_path, capsys):
    """It named model.zip, best_model.zip, metadata.json (and the curve), not evaluations.json or
    final_evaluation.md, which the run also writes."""
    from domino_env.train import ppo

    out = tmp_path / "run"
    args = [*SMALL, "--timesteps", "128", "--n-envs", "1", "--vec-env", "dummy", "--eval-freq", "64",
            "--eval-rounds", "2", "--eval-opponents", "random", "--final-eval-rounds", "4", "--plot", "--out", str(out)]  # fmt: skip
    assert ppo.run(args) == (out, None)
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("saved "))
    names = ["model.zip", "best_model.zip", "metadata.json", "evaluations.json", "final_evaluation.md", "learning_curve.png"]
    assert line == "saved " + ", ".join(str(out / n) for n in names)
    assert all((out / n).is_file() for n in names)


def test_a_non_empty_out_is_refused_unless_resumed_into_or_overwritten(tmp_path):
    """An old run's files in ``--out`` would mix with the new run's: refused before any work,
    ``--overwrite`` deletes the run files first (and only those), ``--resume OUT --out OUT``
    continues the run in its folder."""
    out = tmp_path / "old"
    (out / "tb" / "ppo_1").mkdir(parents=True)
    (out / "best_model.zip").write_bytes(b"an old model")
    (out / "evaluations.json").write_text("[]")
    (out / "notes.txt").write_text("mine")
    tiny = [*SMALL, "--timesteps", "64", "--n-envs", "1", "--vec-env", "dummy", "--quiet"]
    res = _run([*tiny, "--out", str(out)])
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.splitlines() == [  # no model.zip: its best model is offered (a plain --resume finds none)
        f"domino-train: error: --out {out}: folder exists and is not empty; give a new folder, --resume "
        f"{out / 'best_model.zip'} (with this --out) to continue that run in it, or --overwrite to replace its run "
        "files (domino-train --help lists every option)"
    ]
    assert (out / "best_model.zip").read_bytes() == b"an old model" and sorted(p.name for p in out.iterdir()) == [
        "best_model.zip", "evaluations.json", "notes.txt", "tb"]  # fmt: skip

    res = _run([*tiny, "--out", str(out), "--overwrite"])
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["best_model.zip", "metadata.json", "model.zip", "notes.txt"]
    assert (out / "best_model.zip").read_bytes() != b"an old model" and (out / "notes.txt").read_text() == "mine"
    res = _run([*tiny, "--out", str(out)])  # a run with its model: --resume is offered
    assert res.returncode == 2 and res.stderr.splitlines() == [
        f"domino-train: error: --out {out}: folder exists and is not empty; give a new folder, --resume {out} "
        "(with this --out) to continue that run in it, or --overwrite to replace its run files (domino-train --help "
        "lists every option)"
    ]  # fmt: skip

    res = _run([*tiny, "--resume", str(out), "--out", str(out)])
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "metadata.json").read_text())["resumed_from"]["path"] == str(out / "model.zip")
    res = _run([*tiny, "--resume", str(out), "--out", str(out), "--overwrite"])
    assert res.returncode == 2 and len(res.stderr.splitlines()) == 1 and "--overwrite would delete" in res.stderr


def test_a_resume_with_too_few_envs_for_the_models_batch_is_refused(tmp_path):
    """A resumed model keeps its --n-steps and --batch-size: with fewer --n-envs its rollout can be
    smaller than one minibatch, which a fresh run refuses; so does the resume, before any work
    (no folder), naming the --n-envs that would do."""
    run = tmp_path / "run"
    base = [*SMALL, "--n-steps", "32", "--batch-size", "64", "--timesteps", "64", "--vec-env", "dummy", "--quiet"]
    res = _run([*base, "--n-envs", "2", "--out", str(run)])
    assert res.returncode == 0, res.stderr
    more = tmp_path / "more"
    res = _run([*base, "--n-envs", "1", "--resume", str(run), "--out", str(more)])
    assert res.returncode == 2 and not more.exists()
    assert res.stderr.splitlines()[-1] == (
        "domino-train: error: --n-envs 1: the resumed model's --batch-size 64 is larger than a rollout of "
        "its --n-steps 32 x 1 envs = 32 samples; give --n-envs 2 or more (domino-train --help lists every option)")
    res = _run([*base, "--n-envs", "2", "--resume", str(run), "--out", str(more)])
    assert res.returncode == 0, res.stderr


def _make(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def test_make_run_passes_run_args_to_domino_train(tmp_path):
    """``make run RUN_ARGS="..."`` (``-o venv``: the interpreter given is already set up)."""
    venv = Path(sys.executable).parent.parent
    dry = _make("-n", "-o", "venv", "run", f"VENV={venv}", "RUN_ARGS=--timesteps 2048 --out runs/try")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines()[-1] == f"{venv}/bin/python -m domino_env.train.ppo --timesteps 2048 --out runs/try"
    # a real run of the recipe: the options reach the command (its usage and a one-line refusal)
    res = _make("-o", "venv", "run", f"VENV={venv}", "RUN_ARGS=--help")
    assert res.returncode == 0 and "usage: domino-train" in res.stdout, res.stderr
    res = _make("-o", "venv", "run", f"VENV={venv}", f"RUN_ARGS=--timesteps 0 --out {tmp_path / 'x'}")
    assert res.returncode != 0 and "domino-train: error: argument --timesteps: must be a positive integer" in res.stderr
    assert not (tmp_path / "x").exists()


def test_periodic_evaluation_lines_show_the_elapsed_time_as_a_clock(tmp_path):
    from domino_env.train.callbacks import clock

    assert [clock(s) for s in (0.4, 9.9, 75.4, 3600, 3725)] == ["0:00", "0:09", "1:15", "1:00:00", "1:02:05"]
    res = _run([*SMALL, "--timesteps", "128", "--n-envs", "1", "--vec-env", "dummy", "--eval-freq", "64",
                "--eval-rounds", "2", "--eval-opponents", "greedy", "--out", str(tmp_path / "run")])  # fmt: skip
    assert res.returncode == 0, res.stderr
    lines = [x for x in res.stderr.splitlines() if x.startswith("[eval @")]
    assert len(lines) == 2, res.stderr
    for line in lines:
        assert re.match(r"\[eval @ \d+ steps, \d+:\d\d into the run, took \d+\.\ds\] win rate vs greedy ", line), line


TINY = [*SMALL, "--timesteps", "64", "--n-envs", "1", "--vec-env", "dummy", "--eval-opponents", "random",
        "--eval-workers", "1", "--out", "run"]  # fmt: skip


@pytest.mark.parametrize(
    "how, players, asked, played",
    [("domino-train", 2, 3, 4), ("python -m domino_env.train.ppo", 3, 20, 21)],
)
def test_a_run_records_the_command_as_started_and_its_summary_the_rounds_played(tmp_path, how, players, asked,
                                                                                 played):  # fmt: skip
    """``metadata.json`` records the command the user ran (the console script, or ``python -m
    domino_env.train.ppo``, which runs from any folder); the final table's title and
    ``final_evaluation.md`` give the rounds played (rounded up to whole deals of every seat rotation)
    and the singular with one opponent."""
    args = [*TINY, "--players", str(players), "--final-eval-rounds", str(asked)]
    start = [str(Path(sys.executable).parent / "domino-train")] if how == "domino-train" else [
        sys.executable, "-m", "domino_env.train.ppo"]  # fmt: skip
    res = subprocess.run([*start, *args], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    meta = json.loads((tmp_path / "run" / "metadata.json").read_text())
    assert meta["command"] == f"{how} {shlex.join(args)}"
    assert meta["final_evaluation"]["random"]["rounds"] == played
    opponents = "1 copy" if players == 2 else f"{players - 1} copies"
    assert f"run/model.zip: {played} duplicate-deal rounds vs {opponents} of each ladder agent | 64 steps" in res.stdout
    assert ("pips (1 opponent) " if players == 2 else f"pips ({players - 1} opponents) ") in res.stdout
    assert re.search(rf"│ {players - 1} x random │ +{played} │", res.stdout), res.stdout
    final = (tmp_path / "run" / "final_evaluation.md").read_text()
    assert final.startswith(
        f"Final evaluation of run/model.zip ({played} duplicate-deal rounds per row, seed 1001):\n")
    their = "opponent's" if players == 2 else "opponents'"
    assert f"| {their} mean pips | {their} win rate |" in final


def test_the_resume_hint_and_the_recorded_command_name_how_the_run_was_started():
    from domino_env.train.run_folder import command_line, launcher, resume_command

    assert launcher("train.ppo", "/venv/bin/domino-train") == "domino-train"
    assert launcher("train.bc", "/venv/bin/domino-bc") == "domino-bc"
    assert launcher("train.rllib", "/venv/bin/domino-rllib") == "domino-rllib"
    assert launcher("train.evaluate", "/venv/bin/domino-evaluate") == "domino-evaluate"
    assert command_line("train.rllib", ["--iterations", "1"], "/repo/train/rllib.py") == (
        "python -m domino_env.train.rllib --iterations 1"
    )
    for argv0 in ("/repo/train/ppo.py", "-c"):
        assert launcher("train.ppo", argv0) == "python -m domino_env.train.ppo"
    # a console script's hints name the console scripts (installed together): domino-bc's fine-tune hint
    assert launcher("train.ppo", "/venv/bin/domino-bc") == "domino-train"
    assert command_line("train.ppo", ["--out", "a b"], "/venv/bin/domino-train") == "domino-train --out 'a b'"
    assert command_line("train.bc", [], "x.py") == "python -m domino_env.train.bc"
    assert resume_command(["--seed", "3"], Path("r"), 10, launcher("train.ppo", "/repo/train/ppo.py")) == (
        "python -m domino_env.train.ppo --resume r --out r --timesteps 10 --seed 3")


def test_a_periodic_evaluation_scores_the_model_trained_on_the_steps_it_names(tmp_path):
    """Evaluations run between rollouts, after PPO's update: the last one (at the final step) scores
    the final model, so it equals the final evaluation on the same rounds and seed (mid-rollout it
    scored the weights of one update earlier, here the untrained network)."""
    out = tmp_path / "run"
    res = _run([*SMALL, "--timesteps", "128", "--n-envs", "1", "--eval-freq", "64", "--eval-rounds", "8",
                "--final-eval-rounds", "8", "--eval-opponents", "random", "--learning-rate", "0.003",
                "--out", str(out), "--quiet"])  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = json.loads((out / "metadata.json").read_text())
    history = meta["evaluations"]
    assert [e["timesteps"] for e in history] == [64, 128]
    last, final = history[-1]["results"]["random"], meta["final_evaluation"]["random"]
    assert (last["win_rate"], last["mean_pips"]) == (final["win_rate"], final["mean_pips"])
    first = history[0]["results"]["random"]
    assert (first["win_rate"], first["mean_pips"]) != (last["win_rate"], last["mean_pips"])  # it trained


def test_a_rules_mismatch_warning_is_one_line_once_with_subprocess_workers(tmp_path):
    """The check before training warns; the SubprocVecEnv workers, which load the same opponent
    model again, printed it twice more in Python's format (a fresh-user check)."""
    proc = subprocess.run(
        [sys.executable, "-m", "train.ppo", "--timesteps", "10", "--doubles", "chain", "--opponents",
         "ppo:checkpoints/mexican_train_4p_d12", "greedy", "--n-envs", "2", "--vec-env", "subproc",
         "--eval-freq", "0", "--final-eval-rounds", "0", "--no-progress", "--no-tensorboard", "--no-plot",
         "--out", str(tmp_path / "run")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if "trained with other rules" in line]
    assert len(lines) == 1 and lines[0].startswith("domino-train: warning: model "), proc.stderr


@pytest.mark.parametrize(
    ("text", "minutes", "seconds"),
    [("15", 15.0, None), ("15m", 15.0, 900.0), ("15min", 15.0, 900.0), ("90s", 1.5, 90.0), ("1.5h", 90.0, 5400.0),
     ("2e1m", 20.0, 1200.0), (".5 h", 30.0, 1800.0)],
)  # fmt: skip
def test_time_limit_takes_a_unit_and_a_bare_number_is_minutes_only_in_domino_train(text, minutes, seconds):
    """domino-train's --time-limit was minutes and domino-rllib's seconds: both take a unit now,
    and domino-rllib refuses the bare number it used to read as seconds."""
    from domino_env.train.arg_types import duration
    from domino_env.train.ppo_args import build_parser
    from domino_env.train.rllib_args import build_parser as rllib_parser

    assert build_parser().parse_args(["--time-limit", text]).time_limit == pytest.approx(minutes)
    if seconds is None:
        with pytest.raises(SystemExit):
            rllib_parser().parse_args(["--time-limit", text])
        with pytest.raises(argparse.ArgumentTypeError, match="give a unit"):
            duration("s", bare=False)(text)
    else:
        assert rllib_parser().parse_args(["--time-limit", text]).time_limit == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["0", "0m", "-5m", "inf", "nan", "5 days", "m", "5mm", "1e999h"])
def test_time_limit_refuses_what_is_not_a_positive_wall_time(text, capsys):
    from domino_env.train.ppo_args import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["--time-limit", text])
    assert "argument --time-limit: " in capsys.readouterr().err


def test_ppo_hyperparameter_flags_reach_the_saved_model(tmp_path):
    """A real run with every PPO coefficient flag off its default: the saved model holds each
    value, and --lr-schedule linear makes the learning rate fall with the progress left (no test
    read --ent-coef, --vf-coef, --max-grad-norm, --target-kl or --lr-schedule back from a model)."""
    from sb3_contrib import MaskablePPO

    out = tmp_path / "run"
    proc = _run([*SMALL, "--policy", "mlp", "--timesteps", "64", "--n-envs", "1", "--vec-env", "dummy",
                 "--ent-coef", "0.05", "--vf-coef", "0.3", "--max-grad-norm", "0.7", "--target-kl", "0.02",
                 "--clip-range", "0.3", "--gae-lambda", "0.9", "--gamma", "0.97", "--learning-rate", "0.001",
                 "--lr-schedule", "linear", "--quiet", "--out", str(out)])  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    model = MaskablePPO.load(out / "model.zip", device="cpu")
    assert (model.ent_coef, model.vf_coef, model.max_grad_norm, model.target_kl) == (0.05, 0.3, 0.7, 0.02)
    assert (model.gae_lambda, model.gamma, model.clip_range(1.0)) == (0.9, 0.97, 0.3)
    assert model.lr_schedule(1.0) == pytest.approx(0.001) and model.lr_schedule(0.25) == pytest.approx(0.00025)


def test_the_progress_bar_goes_to_stderr_and_the_evaluation_lines_above_it(tmp_path):
    """The step bar (``--progress``, the default) is drawn on stderr, as every long command's, with the
    periodic evaluation lines whole above it; stdout keeps only the results (SB3's own bar drew
    there). ``--no-progress`` draws none."""
    args = [*SMALL, "--timesteps", "128", "--n-envs", "1", "--vec-env", "dummy", "--eval-freq", "64",
            "--eval-rounds", "2", "--eval-opponents", "greedy", "--final-eval-rounds", "2"]  # fmt: skip
    env = {**__import__("os").environ, "TQDM_MININTERVAL": "0"}  # draw at every step, not every 30 s
    res = _run([*args, "--progress", "--out", str(tmp_path / "bar")], env=env)
    assert res.returncode == 0, res.stderr
    assert not [b for b in ("step/s", "it/s", "%|", "100% ") if b in res.stdout], res.stdout  # SB3's: "100% ━━ 128/128 [..., 436 it/s]"
    assert "│ 1 x greedy │" in res.stdout
    frames = re.split(r"[\r\n]", res.stderr)
    assert any(re.match(r"training: 100%\|.*\| 128/128 \[", f) for f in frames), res.stderr
    evals = [f for f in frames if "[eval @" in f]
    assert len(evals) == 2 and all(f.startswith("[eval @") for f in evals), res.stderr
    quiet = _run([*args, "--no-progress", "--out", str(tmp_path / "none")], env=env)
    assert quiet.returncode == 0, quiet.stderr
    assert "training:" not in quiet.stderr and "step/s" not in quiet.stderr + quiet.stdout
