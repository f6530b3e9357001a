"""What a fresh checker of ``domino-train`` / ``domino-bc`` found beyond the flag checks: the run
folder (claimed by one run only, never a model it loads deleted by ``--overwrite``, no stale final
evaluation, no half-written file after an abort), the recorded command, ``--resume``'s kept
schedules, a load error in one line, env workers that an error after their start left running (the
process hung), and the second signal's abort."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import subprocess
import sys

import pytest
from ppo_helpers import ROOT, SMALL
from ppo_helpers import run_ppo as _run

from domino_env.train.run_folder import (
    claim_run_folder,
    missing_folders,
    remove_if_empty,
    source_commit,
)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "tiny"
    res = _run([*SMALL, "--timesteps", "64", "--n-envs", "1", "--final-eval-rounds", "2", "--eval-opponents",
                "random", "--eval-workers", "1", "--out", str(out)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    return out


def test_default_run_folders_are_claimed_by_one_run(tmp_path):
    """Two runs started in the same second wrote into one runs/ppo_DATE_TIME folder."""
    name = str(tmp_path / "runs" / "ppo_20261203_124027")
    first, second, third = (claim_run_folder(name) for _ in range(3))
    assert [p.name for p in (first, second, third)] == ["ppo_20261203_124027", "ppo_20261203_124027_2",
                                                         "ppo_20261203_124027_3"]  # fmt: skip
    assert all(p.is_dir() and not any(p.iterdir()) for p in (first, second, third))


def test_a_failed_start_removes_the_folders_it_made_and_no_other(tmp_path):
    """A failed start removed its claimed run folder but not the runs/ it had made for it."""
    made = missing_folders(tmp_path / "a" / "runs")
    assert made == [tmp_path / "a" / "runs", tmp_path / "a"]
    run = claim_run_folder(str(tmp_path / "a" / "runs" / "x"))
    remove_if_empty(run, made)
    assert list(tmp_path.iterdir()) == []  # tmp_path was there before: it stays
    made = missing_folders(tmp_path / "runs")
    run, other = (claim_run_folder(str(tmp_path / "runs" / "x")) for _ in range(2))  # a parallel run's: x_2
    remove_if_empty(run, made)
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["x_2"]  # runs/ holds another run: it stays
    remove_if_empty(other, missing_folders(tmp_path / "runs"))  # runs/ existed before this one: it stays
    assert (tmp_path / "runs").is_dir() and not any((tmp_path / "runs").iterdir())


def test_the_default_n_envs_is_in_the_recorded_command(tmp_path):
    """--n-envs defaults to the cores: without it in the command, another machine trained another model."""
    args = [*SMALL, "--timesteps", "64", "--vec-env", "dummy", "--out", str(tmp_path / "run")]
    res = _run(args)
    assert res.returncode == 0, res.stderr
    meta = json.loads((tmp_path / "run" / "metadata.json").read_text())
    assert meta["command"].endswith(f"--n-envs {meta['n_envs']}") and meta["argv"][-2:] == ["--n-envs", str(meta["n_envs"])]
    assert meta["timesteps_trained"] == meta["timesteps"]  # a whole run: every rollout trained on


def test_overwrite_never_deletes_a_model_the_run_loads(tiny_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(tiny_run, out)
    for flags in (["--opponents", "greedy", f"ppo:{out}"],
                  ["--eval-freq", "64", "--eval-rounds", "2", "--eval-opponents", f"ppo:{out}/best_model.zip"],
                  ["--eval-freq", "64", "--eval-rounds", "2", "--eval-opponents", f"search:5,prior=ppo:{out}"]):  # fmt: skip
        res = _run([*SMALL, *flags, "--timesteps", "64", "--n-envs", "1", "--out", str(out), "--overwrite"])
        assert res.returncode == 2 and "--overwrite would delete the model" in res.stderr, res.stderr
    assert (out / "model.zip").is_file() and (out / "best_model.zip").is_file()
    comma = tmp_path / "a,b"  # ppo:PATH takes the whole rest of the spec, commas too
    shutil.copytree(tiny_run, comma)
    res = _run([*SMALL, "--opponents", "greedy", f"ppo:{comma}", "--timesteps", "64", "--n-envs", "1",
                "--out", str(comma), "--overwrite"])  # fmt: skip
    assert res.returncode == 2 and "--overwrite would delete the model" in res.stderr, res.stderr
    res = subprocess.run([sys.executable, "-m", "domino_env.train.bc", "--players", "2", "--max-pip", "9",
                          "--expert", f"search:5,prior=ppo:{out}", "--out", str(out), "--overwrite"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert res.returncode == 2 and "--expert search:5,prior=ppo:" in res.stderr, res.stderr
    assert (out / "model.zip").is_file()


def test_a_resume_without_a_final_evaluation_leaves_no_stale_one(tiny_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(tiny_run, out)
    meta = json.loads((out / "metadata.json").read_text())
    assert (out / "final_evaluation.md").is_file() and meta["final_evaluation_rounds"] == 2
    res = _run([*SMALL, "--timesteps", "64", "--n-envs", "1", "--resume", str(out), "--out", str(out),
                "--learning-rate", "0.05", "--clip-range", "0.9"])  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert not (out / "final_evaluation.md").exists()  # it was the earlier model's
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["final_evaluation_rounds"] == 0
    # the resumed model keeps its learning rate and clip range: said, and recorded as used
    assert "--learning-rate 0.0003 (instead of this command's 0.05" in res.stderr
    assert "--clip-range 0.2 (instead of this command's 0.9" in res.stderr
    assert meta["args"]["learning_rate"] == 0.0003 and meta["args"]["clip_range"] == 0.2


def test_a_final_evaluation_records_the_rounds_played(tiny_run):
    meta = json.loads((tiny_run / "metadata.json").read_text())
    assert meta["final_evaluation_rounds"] == meta["final_evaluation"]["random"]["rounds"] == 2
    assert meta["source"] == source_commit()  # the code's commit, or None outside a git clone


def test_the_source_commit_is_the_clone_s_own_and_says_when_files_differ(tmp_path):
    """The command alone does not re-make a model once the code has changed: the metadata keeps the
    commit of the clone the package runs from, and whether tracked files differed from it."""
    if shutil.which("git") is None:
        assert source_commit(tmp_path) is None
        return
    clone = tmp_path / "clone"
    clone.mkdir()

    def git(*args):
        return subprocess.run(["git", "-C", str(clone), *args], check=True, capture_output=True,
                              text=True).stdout.strip()  # fmt: skip

    git("init", "-q")
    (clone / "rules.py").write_text("x = 1\n")
    git("add", "rules.py")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    head = git("rev-parse", "HEAD")
    assert source_commit(clone) == {"commit": head, "dirty": False}
    (clone / "notes.txt").write_text("untracked\n")  # an untracked file changes no code
    assert source_commit(clone) == {"commit": head, "dirty": False}
    (clone / "rules.py").write_text("x = 2\n")
    assert source_commit(clone) == {"commit": head, "dirty": True}
    (clone / "site-packages").mkdir()  # an installed copy inside someone's repository: not its commit
    assert source_commit(clone / "site-packages") is None
    assert source_commit(tmp_path / "elsewhere") is None  # no repository at all


def test_a_model_whose_weights_do_not_fit_is_one_line(tmp_path):
    """torch's state-dict error runs to many lines: only its first is shown."""
    model = tmp_path / "model"
    model.mkdir()
    shutil.copy(ROOT / "checkpoints/cuban_4p_teams_action_scores/model.zip", model / "model.zip")
    shutil.copy(ROOT / "checkpoints/mexican_train_4p_d12_action_scores/metadata.json", model / "metadata.json")
    res = _run(["--init-from", str(model), "--timesteps", "64", "--n-envs", "1", "--eval-freq", "0",
                "--final-eval-rounds", "0", "--no-progress", "--out", str(tmp_path / "run")])  # fmt: skip
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert f"--init-from {model}: cannot load" in lines[0] and "RuntimeError" in lines[0]
    assert not (tmp_path / "run").exists()


def test_an_error_after_the_env_workers_start_stops_them(tmp_path, monkeypatch):
    """The subprocess env workers ignore SIGINT and SIGTERM: an error between their start and
    training (the run folder could not be written) printed a traceback and then hung for ever."""
    from domino_env.train import ppo
    from domino_env.train.run_folder import RunFolder

    def refuse(self):
        raise OSError("the disk is full")

    monkeypatch.setattr(RunFolder, "create", refuse)
    with pytest.raises(OSError, match="the disk is full"):
        ppo.run([*SMALL, "--timesteps", "64", "--n-envs", "2", "--vec-env", "subproc", "--out", str(tmp_path / "run")])
    assert multiprocessing.active_children() == []  # the two workers are gone


@pytest.mark.parametrize("module", ["domino_env.train.ppo", "domino_env.train.bc"])
def test_an_out_below_a_file_is_refused_before_any_work(module):
    """It failed (domino-train: and then hung) only once the run folder was made."""
    res = subprocess.run([sys.executable, "-m", module, "--out", "README.md/run"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert f"--out README.md/run: {ROOT / 'README.md'} is a file, not a folder" in lines[0]


def test_a_run_folder_that_cannot_be_written_is_a_typed_error(tmp_path, monkeypatch):
    """What the checks before the run cannot see (a full disk) was an OSError traceback."""
    from pathlib import Path

    from domino_env.core.errors import DominoError
    from domino_env.train.run_folder import RunFolder

    def full(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "mkdir", full)
    with pytest.raises(DominoError, match=r"--out .*run: the run folder could not be written \(No space left on device\)"):
        RunFolder(tmp_path / "run", {}).create()


def test_a_run_folder_left_empty_by_a_full_disk_is_removed_with_the_folders_made_for_it(tmp_path, monkeypatch):
    """A disk full by blocks let the folders be made and then refused metadata.json: the refusal
    was one line, but an empty --out (and its new parents) stayed behind. A folder that was there
    before stays."""
    from domino_env.core.errors import DominoError
    from domino_env.train.run_folder import RunFolder

    def full(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(RunFolder, "write_metadata", full)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    # "new/../runs": the command made new/, not runs/ (an attacker's: runs/ was removed, new/ left)
    for out in (tmp_path / "runs" / "a" / "b", tmp_path / "runs", "new/../runs", "new/../fresh", "runs/x/../../y"):
        with pytest.raises(DominoError, match="No space left on device"):
            RunFolder(out, {}).create()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"] and not any((tmp_path / "runs").iterdir()), out


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.geteuid() != 0,
                    reason="/proc passes the checks for root on Linux only")  # fmt: skip
@pytest.mark.parametrize("module", ["domino_env.train.ppo", "domino_env.train.bc"])
def test_an_out_the_checks_cannot_see_as_unwritable_is_one_line(module):
    """Root may write every folder, so /proc passed the permission checks before the run and making
    the folder failed (domino-train and domino-bc ended in a traceback, exit 1; then one line once
    the run had started). The checks now try making a folder there: one line before any work."""
    res = subprocess.run([sys.executable, "-m", module, *SMALL[:4], "--final-eval-rounds", "0", "--out", "/proc/x",
                          *(["--timesteps", "64", "--n-steps", "64", "--batch-size", "64"] if module.endswith("ppo")
                            else ["--samples", "40", "--epochs", "1", "--no-progress"])],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    prog = "domino-train" if module.endswith("ppo") else "domino-bc"
    assert lines == [f"{prog}: error: --out /proc/x: cannot make the run folder (No such file or directory) "
                     f"({prog} --help lists every option)"], lines


def test_a_refused_init_from_leaves_no_default_folder(tmp_path):
    """domino-bc claimed its default runs/bc_DATE_TIME folder before loading --init-from."""
    model = tmp_path / "model"
    model.mkdir()
    shutil.copy(ROOT / "checkpoints/cuban_4p_teams_action_scores/model.zip", model / "model.zip")
    shutil.copy(ROOT / "checkpoints/mexican_train_4p_d12_action_scores/metadata.json", model / "metadata.json")
    res = subprocess.run([sys.executable, "-m", "domino_env.train.bc", "--init-from", str(model), "--samples", "100",
                          "--epochs", "1", "--final-eval-rounds", "0", "--no-progress"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert res.returncode == 2 and "cannot load" in res.stderr, res.stderr
    assert not (tmp_path / "runs").exists()


def test_a_second_signal_inside_a_model_save_is_the_abort_and_leaves_no_partial_file(tmp_path):
    """A second signal raised inside torch's zip writer came out as torch's clean-up error
    (``RuntimeError: ... unexpected pos``, exit 1, metadata stuck at ``training``) with a
    ``.model.zip.partial`` left: the run folder re-raises the interrupt and drops the partial file."""
    import torch

    from domino_env.train.run_folder import RunFolder

    folder = RunFolder(tmp_path, {"status": "training"}).create()
    (tmp_path / "model.zip").write_bytes(b"the earlier model")

    class SecondSignalAtThirdWrite:  # the file torch writes into, hit by the abort mid-way
        def __init__(self, f):
            self.f, self.writes = f, 0

        def write(self, data):
            self.writes += 1
            if self.writes == 3:
                raise KeyboardInterrupt("SIGTERM", "a second signal: aborted without saving")
            return self.f.write(data)

        def flush(self):
            self.f.flush()

    class Model:
        def save(self, f):
            torch.save({"w": torch.zeros(1000)}, SecondSignalAtThirdWrite(f))

    with pytest.raises(KeyboardInterrupt) as info:
        folder.save_model(Model())
    assert info.value.args == ("SIGTERM", "a second signal: aborted without saving")
    assert (tmp_path / "model.zip").read_bytes() == b"the earlier model"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metadata.json", "model.zip"]
    class DiskFull:
        def save(self, f):
            f.write(b"half")
            raise OSError("the disk is full")

    with pytest.raises(OSError, match="the disk is full"):  # other errors pass unchanged, also without a partial
        folder.save_model(DiskFull())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metadata.json", "model.zip"]


def test_a_second_signal_after_half_a_second_aborts_with_its_own_name():
    """StopSignals: the first signal is a stop request; the same signal again within
    SAME_REQUEST seconds is the same request; later, it aborts (KeyboardInterrupt(name, detail),
    which train.cli.launch turns into 128 + that signal and one line)."""
    import signal

    from domino_env.train.callbacks import StopSignals

    stop = StopSignals()
    stop._handle(signal.SIGTERM, None)
    assert stop.received == "SIGTERM"
    stop._handle(signal.SIGTERM, None)  # process and group at once: nothing raised
    stop._first -= StopSignals.SAME_REQUEST + 0.1
    with pytest.raises(KeyboardInterrupt) as info:
        stop._handle(signal.SIGTERM, None)
    assert info.value.args == ("SIGTERM", "a second signal: aborted without saving")


def test_a_signal_ignored_at_the_start_stays_ignored():
    """A background job of a script (``domino-train ... &``) starts with SIGINT ignored: training
    stopped on it, while the start-up and the final evaluation ignored it."""
    import signal

    from domino_env.train.callbacks import StopSignals

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with StopSignals() as stop:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) == stop._handle
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_the_source_commit_is_not_another_repository_s_named_by_git_variables(tmp_path, monkeypatch):
    """GIT_DIR / GIT_INDEX_FILE (set in a git hook, or by a user) pointed ``git -C`` at another
    repository: the metadata named its commit, not the code's."""
    if shutil.which("git") is None:
        pytest.skip("no git")
    heads = {}
    for name in ("code", "other"):
        repo = tmp_path / name
        repo.mkdir()
        (repo / "f.py").write_text(f"x = {name!r}\n")
        for args in (["init", "-q"], ["add", "f.py"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", name]):
            subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
        heads[name] = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True,
                                     text=True).stdout.strip()  # fmt: skip
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "other" / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "other" / ".git" / "index"))
    assert source_commit(tmp_path / "code") == {"commit": heads["code"], "dirty": False}


def test_the_source_commit_of_a_clone_in_a_folder_not_named_in_utf8(tmp_path):
    """git's answer was decoded as UTF-8: a clone under a folder named with the byte 0xfb made
    every training run fail with a UnicodeDecodeError traceback as its metadata was written."""
    if shutil.which("git") is None or sys.getfilesystemencoding() != "utf-8":
        pytest.skip("no git, or file names that are not UTF-8 bytes")
    clone = tmp_path / os.fsdecode(b"code\xfb")
    clone.mkdir()
    (clone / "f.py").write_text("x = 1\n")
    for args in (["init", "-q"], ["add", "f.py"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(clone), *args], check=True, capture_output=True)
    head = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    assert source_commit(clone) == {"commit": head.stdout.strip(), "dirty": False}
