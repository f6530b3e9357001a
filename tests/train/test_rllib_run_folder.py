"""``domino-rllib`` makes its run folder once Ray runs; when that fails (a full disk, or a folder
changed since the checks), the folders it made for it are removed again and the user's are kept
(``run_folder.make_folders``), as ``domino-train`` and ``domino-bc`` do; a folder another run made
meanwhile is left to it. Also: a folder of a run killed before its first checkpoint, and a Ctrl-C
while ray.rllib is imported."""

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
    (run / "notes.txt").write_text("mine")  # any other folder: as before
    out = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--iterations", "1", "--out", str(run)],
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode == 2 and f"--out {run} exists and is not empty (use --resume {run} to continue it)" in out.stderr


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
