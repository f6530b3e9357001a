"""``domino-rllib`` makes its run folder once Ray runs; when that fails (a full disk, or a folder
changed since the checks), the folders it made for it are removed again and the user's are kept
(``run_folder.make_folders``), as ``domino-train`` and ``domino-bc`` do; a folder another run made
meanwhile is left to it. Also: a folder of a run killed before its first checkpoint, a Ctrl-C
while ray.rllib is imported, a run whose domino_rllib.json was deleted, and a write the run folder
refuses mid-run."""

import json
import subprocess
import sys
import textwrap

WRAP = textwrap.dedent("""
    import errno

    from domino_env.train import rllib, run_folder
    from domino_env.train.cli import launch

    real = run_folder.make_folders


    def full_disk(path):  # the folders are made, then the disk is full
        made = real(path)
        exc = OSError(errno.ENOSPC, "No space left on device")
        exc.made = made
        raise exc


    rllib.make_folders = full_disk
    launch("domino-rllib", rllib.main)
""")


def _small_run(tmp_path, script: str, out: str) -> subprocess.CompletedProcess:
    """``script`` (domino-rllib with a patch) written into ``tmp_path`` and run there, the smallest
    run into ``out``."""
    (tmp_path / "script.py").write_text(script)
    return subprocess.run(
        [sys.executable, "script.py", "--iterations", "1", "--batch-size", "256", "--minibatch-size", "128",
         "--epochs", "1", "--hidden", "32", "--num-env-runners", "0", "--num-cpus", "2", "--no-progress",
         "--out", out],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_a_run_folder_that_cannot_be_made_once_ray_runs_leaves_only_the_users_folders(tmp_path):
    (tmp_path / "old").mkdir()
    out = _small_run(tmp_path, WRAP, "new/../old/a/run")
    assert out.returncode == 2, out.stderr[-2000:]
    assert out.stderr.strip().splitlines()[-1] == ("domino-rllib: error: --out new/../old/a/run: cannot make the run "
                                                   "folder (No space left on device)")  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old", "script.py"] and not any((tmp_path / "old").iterdir())


RACE = textwrap.dedent("""
    from pathlib import Path

    from domino_env.train import rllib, run_folder
    from domino_env.train.cli import launch

    real = run_folder.make_folders


    def made_by_another_run(path):  # another command with this --out made it while Ray started here
        Path(path).mkdir(parents=True)
        return real(path)


    rllib.make_folders = made_by_another_run
    launch("domino-rllib", rllib.main)
""")


def test_a_run_refused_because_another_made_its_folder_leaves_that_folder(tmp_path):
    """Two domino-rllib runs given one new --out: the second was refused by the first's lock, and
    its clean-up removed the folder it had found missing at its start, which the first run had
    made (still empty): the first then failed writing progress.jsonl. The folder is not its own."""
    out = _small_run(tmp_path, RACE, "runs/same")
    assert out.returncode == 2, out.stderr[-2000:]
    assert out.stderr.strip().splitlines()[-1] == ("domino-rllib: error: --out runs/same: another command made this "
                                                   "folder while this one started; give another --out")  # fmt: skip
    assert (tmp_path / "runs" / "same").is_dir() and not any((tmp_path / "runs" / "same").iterdir())


def test_a_folder_of_a_run_killed_before_its_first_checkpoint_says_what_to_do(tmp_path):
    """A run killed (SIGKILL) before its first checkpoint leaves only progress.jsonl: the same
    command was refused as "exists and is not empty (use --resume ...)", and --resume as "not a
    run folder": neither said that nothing there can be resumed."""
    run = tmp_path / "rk"
    run.mkdir()
    (run / "progress.jsonl").write_text('{"iteration": 1}\n')
    said = "holds only progress.jsonl, of a run stopped before its first checkpoint (killed?): nothing in it can be " \
           "resumed; remove the folder and start the run again"  # fmt: skip
    for flag in ("--out", "--resume"):
        out = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--iterations", "1", flag, str(run)],
                             capture_output=True, text=True, timeout=300)  # fmt: skip
        assert out.returncode == 2 and f"domino-rllib: error: {flag} {run}: {said}" in out.stderr, out.stderr
    # a live run has only progress.jsonl until its first checkpoint: it is in use (a tester was told
    # to remove the folder of a run that went on to finish)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from domino_env.train.folder_lock import "
                               "hold_run_folder; hold_run_folder(sys.argv[1]); print('held', flush=True); "
                               "time.sleep(300)", str(run)], stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout.readline() == "held\n"
        out = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--iterations", "1", "--out", str(run)],
                             capture_output=True, text=True, timeout=300)  # fmt: skip
        assert out.returncode == 2 and f"domino-rllib: error: {run} is in use by another training command" in out.stderr
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    # progress.jsonl and any other file, still no checkpoint: --out was told "use --resume", which
    # cannot work there (--resume said "not a run folder"); both now say what the folder holds, and
    # what fits the flag given (--resume was told "give another --out", a flag of a new run)
    (run / "notes.txt").write_text("mine")
    said = ("holds progress.jsonl and notes.txt but no checkpoint/, of a run stopped before its first checkpoint "
            "(killed?): nothing in it can be resumed; ")  # fmt: skip
    then = {"--out": "give another --out, or move out the files you keep, remove the folder and start the run again",
            "--resume": "start the run again with --out NEW_FOLDER, or move out the files you keep, remove rk and "
                        "start it again with --out rk"}  # fmt: skip
    for flag in ("--out", "--resume"):
        out = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--iterations", "1", flag, "rk"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert out.stderr.startswith(f"domino-rllib: error: {flag} rk: {said}{then[flag]} ("), out.stderr
    (run / "progress.jsonl").unlink()  # a folder of other files: nothing of domino-rllib to resume either
    out = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--iterations", "1", "--out", str(run)],
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith(f"domino-rllib: error: --out {run} exists and is not empty and holds no run of "
                                 "domino-rllib to resume (no checkpoint/); give a new or empty --out"), out.stderr


STOP_IN_IMPORT = textwrap.dedent("""
    import importlib.abc
    import sys


    class CtrlC(importlib.abc.MetaPathFinder):  # a Ctrl-C landing in ray.rllib's import of torch
        fired = False

        def find_spec(self, name, path, target=None):
            if name == "torch" and "ray.rllib" in sys.modules and not CtrlC.fired:
                CtrlC.fired = True
                raise KeyboardInterrupt


    sys.meta_path.insert(0, CtrlC())
    from domino_env.train import rllib
    from domino_env.train.cli import launch

    launch("domino-rllib", rllib.main)
""")


def test_a_ctrl_c_while_ray_rllib_is_imported_dies_of_sigint(tmp_path):
    """A Ctrl-C in domino-rllib's first seconds (ray imported, not started) said "interrupted" but
    exited 1, not by SIGINT: a shell loop went on (Ray's exit hook cleared Python's note of it)."""
    (tmp_path / "stop.py").write_text(STOP_IN_IMPORT)
    out = subprocess.run([sys.executable, "stop.py", "--iterations", "1", "--out", "run"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert (out.returncode, out.stderr) == (-2, "domino-rllib: interrupted\n")
    assert not (tmp_path / "run").exists()


SMALL = ["--game", "draw", "--players", "2", "--batch-size", "128", "--minibatch-size", "64", "--epochs", "1",
         "--hidden", "16", "--num-env-runners", "0", "--num-cpus", "2", "--seed", "3", "--no-progress",
         "--eval-rounds", "0"]  # fmt: skip


def test_a_resume_of_a_run_whose_domino_rllib_json_was_deleted_restores_it_from_the_checkpoint(tmp_path):
    """RUN/checkpoint/ holds a copy of the run's domino_rllib.json (the loader's): --resume said
    "not a run folder of domino-rllib (no domino_rllib.json / checkpoint/)" when the run folder's
    own was deleted. It now puts the copy back, says so, and continues the run."""
    run = tmp_path / "run"
    first = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--iterations", "1", "--out", str(run),
                            *SMALL], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert first.returncode == 0, first.stderr[-2000:]
    (run / "domino_rllib.json").unlink()
    again = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--resume", str(run), "--iterations", "1",
                            "--num-cpus", "2", "--no-progress", "--eval-rounds", "0"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    assert (f"--resume {run}: {run}/domino_rllib.json was missing: restored from its copy in {run}/checkpoint/"
            in again.stderr.splitlines())  # fmt: skip
    meta = json.loads((run / "domino_rllib.json").read_text())
    assert meta["iterations_done"] == 2 and meta["resumed_from"]["iterations_done"] == 1
    assert (run / "checkpoint" / "domino_rllib.json").read_bytes() == (run / "domino_rllib.json").read_bytes()


REFUSED = textwrap.dedent("""
    import errno
    import sys

    from ray.rllib.algorithms.algorithm import Algorithm

    from domino_env.train import rllib
    from domino_env.train.cli import launch

    real, calls = Algorithm.save_to_path, []


    def save_to_path(self, path, *args, **kwargs):  # the folder made immutable after the first checkpoint
        calls.append(path)
        if len(calls) >= 2:  # as pyarrow raises it (chattr +i RUN: EPERM, no file name)
            raise PermissionError(errno.EPERM, f"Cannot create directory '{path}'. Detail: [errno 1] Operation "
                                               "not permitted")
        return real(self, path, *args, **kwargs)


    Algorithm.save_to_path = save_to_path
    launch("domino-rllib", rllib.main)
""")


def test_a_write_the_run_folder_refuses_mid_run_is_one_line(tmp_path):
    """A run folder made immutable (chattr +i: EPERM) or read-only mid-run: the checkpoint's
    save failed, "training failed ... saving a checkpoint" tried it again, and that ended in
    pyarrow's PermissionError traceback. Now one line names the folder, what is kept and how to
    continue, and the command exits 1 (as for a full disk). Simulated: chattr needs root."""
    (tmp_path / "script.py").write_text(REFUSED)
    out = subprocess.run([sys.executable, "script.py", "--iterations", "3", "--checkpoint-every", "1", "--out", "run",
                          *SMALL], cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr[-3000:]
    said = [line for line in out.stderr.splitlines() if line and not line.startswith("20")]  # (Ray's log lines)
    assert said == [
        "domino-rllib: error: --out run: run/checkpoint.saving could not be written (Operation not permitted: the "
        "folder refuses writes, made read-only or immutable?); the checkpoint of iteration 1 in run/checkpoint is "
        "kept whole; make the folder writable, then continue with: python -m domino_env.train.rllib --resume run "
        "--iterations 2 --checkpoint-every 1 " + " ".join(SMALL)], out.stderr[-3000:]  # fmt: skip
    meta = json.loads((tmp_path / "run" / "domino_rllib.json").read_text())
    assert meta["iterations_done"] == 1 and not (tmp_path / "run" / "checkpoint.saving").exists()


def test_a_resume_of_a_run_another_command_holds_says_to_resume_it_once_that_ends(tmp_path):
    """--resume RUN while another command holds RUN (it trains there): the refusal told "wait for it
    to end, or give another --out", a flag of a new run; --resume is told to resume it then."""
    import argparse

    import pytest

    from domino_env.train.folder_lock import RunFolderBusyError
    from domino_env.train.rllib_resume import read_run

    run = tmp_path / "run"
    run.mkdir()
    hold = "import sys, time; from domino_env.train.folder_lock import hold_run_folder as h; h(sys.argv[1]); print(1, flush=True); time.sleep(99)"
    holder = subprocess.Popen([sys.executable, "-c", hold, str(run)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "1\n"
        with pytest.raises(RunFolderBusyError) as info:
            read_run(argparse.ArgumentParser(prog="domino-rllib"), run)
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    assert str(info.value) == (f"{run} is in use by another training command (it holds the folder's lock): two runs "
                               "writing one folder would mix their checkpoints and records; wait for it to end, then "
                               "resume it")  # fmt: skip


RENAME_REFUSED = textwrap.dedent("""
    import errno
    from pathlib import Path

    from domino_env.train import rllib
    from domino_env.train.cli import launch

    real = Path.rename


    def rename(self, target):  # RUN/checkpoint made immutable (chattr +i): its rename is refused
        if self.name == "checkpoint":
            raise PermissionError(errno.EPERM, "Operation not permitted", str(self), None, str(target))
        return real(self, target)


    Path.rename = rename
    launch("domino-rllib", rllib.main)
""")


def test_a_checkpoint_folder_that_cannot_be_renamed_says_the_rename_was_refused(tmp_path):
    """RUN/checkpoint made immutable (chattr +i; reproduced for real as root on ext4, simulated
    here: chattr needs root and a file system with the flag): the swap's rename of RUN/checkpoint
    to RUN/checkpoint.old is refused (EPERM). The line said "/abs/RUN/checkpoint could not be
    written", with an absolute path for a relative --resume; it now says which rename was refused,
    with the paths as given, and the command exits 1."""
    first = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--iterations", "1", "--out", "run",
                            *SMALL], cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert first.returncode == 0, first.stderr[-2000:]
    (tmp_path / "script.py").write_text(RENAME_REFUSED)
    out = subprocess.run([sys.executable, "script.py", "--resume", "run", "--iterations", "1", "--num-cpus", "2",
                          "--no-progress", "--eval-rounds", "0"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr[-3000:]
    said = [line for line in out.stderr.splitlines() if line.startswith("domino-rllib")]
    assert said == [
        "domino-rllib: error: --resume run: run/checkpoint could not be moved to run/checkpoint.old: the rename was "
        "refused (Operation not permitted: run/checkpoint or run made read-only or immutable?); the checkpoint of "
        "iteration 1 in run/checkpoint is kept whole; make run/checkpoint and run writable, then continue with: "
        "python -m domino_env.train.rllib --resume run --iterations 1 --num-cpus 2 --no-progress --eval-rounds 0"]
    checkpoint = tmp_path / "run" / "checkpoint"
    assert json.loads((checkpoint / "domino_rllib.json").read_text())["iterations_done"] == 1


def test_a_cut_short_swap_that_cannot_be_finished_is_one_line(tmp_path, capsys, monkeypatch):
    """--resume RUN mends a checkpoint swap a crash cut short by renaming its folders; with RUN made
    immutable (chattr +i; reproduced for real, simulated here) the rename's PermissionError was a
    traceback. Now one line says which rename was refused and what to do, and the folder is left
    as it was."""
    import argparse
    import errno
    from pathlib import Path

    import pytest

    from domino_env.train.rllib_resume import read_run

    run = tmp_path / "run"
    (run / "checkpoint.old").mkdir(parents=True)
    (run / "checkpoint.saving").mkdir()
    (run / "checkpoint.saving" / "domino_rllib.json").write_text("{}")  # the new one, whole

    def refused(self, target):
        raise PermissionError(errno.EPERM, "Operation not permitted", str(self), None, str(target))

    monkeypatch.setattr(Path, "rename", refused)
    with pytest.raises(SystemExit):
        read_run(argparse.ArgumentParser(prog="domino-rllib"), run)
    monkeypatch.undo()
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"domino-rllib: error: --resume {run}: a checkpoint swap that a crash interrupted could not be finished: the "
        f"rename of {run}/checkpoint.saving to {run}/checkpoint was refused (Operation not permitted); the folder is "
        f"left as it was; make {run} and the checkpoint folders in it writable (read-only or immutable?), then resume "
        "again")  # fmt: skip
    assert sorted(p.name for p in run.iterdir()) == ["checkpoint.old", "checkpoint.saving"]


def test_a_deleted_domino_rllib_json_that_cannot_be_put_back_says_how_to(tmp_path, monkeypatch, capsys):
    """The copy cannot be written back (a folder made read-only): one line naming both files and
    the cp that restores it, before Ray starts."""
    import argparse
    import errno

    import pytest

    from domino_env.train import rllib_resume

    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    (run / "checkpoint" / "domino_rllib.json").write_text("{}")

    def refused(path, text):
        raise PermissionError(errno.EPERM, "Operation not permitted", str(path))

    monkeypatch.setattr(rllib_resume, "replace_text", refused)
    with pytest.raises(SystemExit):
        rllib_resume.read_run(argparse.ArgumentParser(prog="domino-rllib"), run)
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"domino-rllib: error: --resume {run}: {run}/domino_rllib.json is missing and could not be restored from "
        f"its copy {run}/checkpoint/domino_rllib.json (Operation not permitted); copy it there (cp "
        f"{run}/checkpoint/domino_rllib.json {run}/domino_rllib.json) and resume again")  # fmt: skip


REPLACE_REFUSED = textwrap.dedent("""
    import errno
    import os
    import sys
    from pathlib import Path

    from domino_env.train import rllib
    from domino_env.train.cli import launch

    real, refused = os.replace, sys.argv.pop(1)  # the run's file made immutable (chattr +i): replacing it is refused


    def replace(source, target):
        if Path(target).name == refused and Path(target).parent.name == "run":
            raise PermissionError(errno.EPERM, "Operation not permitted", str(source), None, str(target))
        return real(source, target)


    os.replace = replace
    launch("domino-rllib", rllib.main)
""")
RESUME = ["--resume", "run", "--iterations", "1", "--num-cpus", "2", "--no-progress", "--eval-rounds", "0"]


def _first_run(tmp_path) -> None:
    first = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--iterations", "1", "--out", "run",
                            *SMALL], cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert first.returncode == 0, first.stderr[-2000:]
    (tmp_path / "script.py").write_text(REPLACE_REFUSED)


def _refused_resume(tmp_path, name: str) -> list[str]:
    out = subprocess.run([sys.executable, "script.py", name, *RESUME], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr[-3000:]
    return [line for line in out.stderr.splitlines() if line.startswith("domino-rllib")]


def test_a_resume_whose_progress_jsonl_cannot_be_replaced_is_one_line(tmp_path):
    """--resume RUN rewrites RUN/progress.jsonl (the rows up to the checkpoint) before training; with
    the file made immutable (chattr +i; simulated) the refused rename of its .partial was a
    traceback. Now one line names the rename, says nothing changed and how to continue (exit 1)."""
    _first_run(tmp_path)
    before = (tmp_path / "run" / "progress.jsonl").read_bytes()
    assert _refused_resume(tmp_path, "progress.jsonl") == [
        "domino-rllib: error: --resume run: run/.progress.jsonl.partial could not be moved to run/progress.jsonl: the "
        "rename was refused (Operation not permitted: run/progress.jsonl or run made read-only or immutable?); nothing "
        "was trained and the run is as it was (the checkpoint of iteration 1 in run/checkpoint); make "
        "run/progress.jsonl and run writable, then continue with: python -m domino_env.train.rllib " + " ".join(RESUME)]
    assert (tmp_path / "run" / "progress.jsonl").read_bytes() == before
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["checkpoint",
                                                                    "domino_rllib.json", "progress.jsonl"]


def test_a_swap_refused_after_its_renames_names_the_checkpoint_in_place(tmp_path):
    """RUN/domino_rllib.json made immutable (chattr +i; simulated): the swap's renames were done,
    then its write was refused. The line said "RUN/.domino_rllib.json.partial could not be written;
    the checkpoint of iteration 1 ... is kept whole", where RUN/checkpoint held iteration 2's. Now
    it names the refused rename, the checkpoint in place and what is left of the swap, and how to
    finish it; the next --resume finishes it too."""
    _first_run(tmp_path)
    run = tmp_path / "run"
    assert _refused_resume(tmp_path, "domino_rllib.json") == [
        "domino-rllib: error: --resume run: run/.domino_rllib.json.partial could not be moved to run/domino_rllib.json: "
        "the rename was refused (Operation not permitted: run/domino_rllib.json or run made read-only or immutable?); "
        "the checkpoint of iteration 2 in run/checkpoint is kept whole (run/checkpoint.old, the earlier one, is left "
        "and run/domino_rllib.json is still the earlier one's); make run/domino_rllib.json and run writable, then "
        "finish the swap: cp run/checkpoint/domino_rllib.json run/domino_rllib.json && rm -r run/checkpoint.old"]
    assert json.loads((run / "checkpoint" / "domino_rllib.json").read_text())["iterations_done"] == 2
    assert json.loads((run / "domino_rllib.json").read_text())["iterations_done"] == 1
    import shutil  # the printed finish, run in a copy: the folder as --resume's own repair leaves it

    shutil.copytree(run, tmp_path / "copy" / "run")
    subprocess.run("cp run/checkpoint/domino_rllib.json run/domino_rllib.json && rm -r run/checkpoint.old", shell=True,
                   cwd=tmp_path / "copy", check=True)  # fmt: skip
    copy = tmp_path / "copy" / "run"
    assert (copy / "domino_rllib.json").read_text() == (copy / "checkpoint" / "domino_rllib.json").read_text()
    assert sorted(p.name for p in copy.iterdir()) == sorted(p.name for p in run.iterdir() if p.name != "checkpoint.old")
    again = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", *RESUME], cwd=tmp_path,
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    assert ("--resume run: finished a checkpoint swap that a crash interrupted (checkpoint.old/ removed, "
            "domino_rllib.json taken from checkpoint/)" in again.stderr.splitlines())  # fmt: skip
    meta = json.loads((run / "domino_rllib.json").read_text())
    assert meta["iterations_done"] == 3 and meta["resumed_from"]["iterations_done"] == 2
    assert not (run / "checkpoint.old").exists()


def test_a_cut_short_swap_whose_old_checkpoint_cannot_be_removed_says_what_was_done(tmp_path, capsys, monkeypatch):
    """RUN/checkpoint.old made immutable (chattr +i; simulated): the line said "domino_rllib.json
    could not be changed", the name rmtree gives a file inside the folder, and the folder was not
    left as it was: checkpoint.saving/ had been put in place. Now it names the file in full, that
    it could not be removed, and what was done before."""
    import argparse
    import errno
    import os

    import pytest

    from domino_env.train.rllib_resume import read_run

    run = tmp_path / "run"
    for name in ("checkpoint.old", "checkpoint.saving"):
        (run / name).mkdir(parents=True)
        (run / name / "domino_rllib.json").write_text("{}")  # the new one (checkpoint.saving/), whole
    real = os.unlink

    def unlink(path, *args, **kwargs):  # as in an immutable folder (rmtree gives the name in it only)
        if kwargs.get("dir_fd") is not None or "checkpoint.old" in str(path):
            raise PermissionError(errno.EPERM, "Operation not permitted", path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    with pytest.raises(SystemExit):
        read_run(argparse.ArgumentParser(prog="domino-rllib"), run)
    monkeypatch.undo()
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"domino-rllib: error: --resume {run}: a checkpoint swap that a crash interrupted could not be finished: "
        f"{run}/checkpoint.old/domino_rllib.json could not be removed (Operation not permitted); done before the "
        "refusal: checkpoint.saving/ (the new checkpoint, whole) was put in place as checkpoint/; make "
        f"{run}/checkpoint.old/domino_rllib.json and {run}/checkpoint.old writable (read-only or immutable?), then "
        "resume again")  # fmt: skip
    assert sorted(p.name for p in run.iterdir()) == ["checkpoint", "checkpoint.old"]
