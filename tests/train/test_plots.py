"""``python -m domino_env.train.plots RUN``: redraws a run's learning curve; bad input is one line."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RELEASE = Path(__file__).resolve().parents[2] / "checkpoints" / "mexican_train_4p_d12_action_scores"


def plots(*args):
    return subprocess.run([sys.executable, "-m", "domino_env.train.plots", *map(str, args)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_redraws_a_released_runs_curve(tmp_path):
    out = tmp_path / "curve.png"
    proc = plots(RELEASE, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


def _folder(tmp_path, files):
    run = tmp_path / "run"
    run.mkdir()
    for name, text in files.items():
        (run / name).write_text(text)
    return run


@pytest.mark.parametrize(
    "files, message",
    [
        (None, "no such folder"),
        ({}, "neither evaluations.json nor metadata.json"),
        ({"metadata.json": "{"}, "metadata.json: not readable JSON"),
        ({"evaluations.json": "[1, 2"}, "evaluations.json: not readable JSON"),
        ({"metadata.json": json.dumps({"policy_input": "action-features-v1"})}, "no periodic evaluations to draw"),
        ({"evaluations.json": "[]"}, "no periodic evaluations to draw"),
        ({"metadata.json": json.dumps({"args": {"eval_freq": 0}})}, "no periodic evaluations to draw (the run was trained with --eval-freq 0)"),
        ({"metadata.json": json.dumps({"args": {"eval_freq": 5}})}, "to draw (a domino-bc model folder, or a run stopped before its first"),
        ({"evaluations.json": json.dumps([{"timesteps": 5}])}, "no periodic evaluations to draw"),
        ({"evaluations.json": json.dumps([{"timesteps": 5, "results": 3}])}, "no periodic evaluations to draw"),
        ({"evaluations.json": json.dumps([{"timesteps": 5, "results": {}}])}, "no periodic evaluations to draw"),
        ({"evaluations.json": json.dumps([{"timesteps": 5, "results": {"greedy": {}}}])}, "no periodic evaluations"),
    ],
)
def test_bad_run_folders_are_one_line(tmp_path, files, message):
    run = tmp_path / "missing" if files is None else _folder(tmp_path, files)
    proc = plots(run)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert not (run / "learning_curve.png").exists()


def test_a_file_instead_of_a_run_folder_says_what_is_wanted(tmp_path):
    """A file was refused as "no such folder", though it exists."""
    want = "give a domino-train run folder (it holds evaluations.json or metadata.json)"
    notes = tmp_path / "notes.txt"
    notes.write_text("x")
    run = _folder(tmp_path, {"evaluations.json": "[]"})
    for path, message in [(notes, f"{notes}: is a file, not a run folder; {want}"),
                          (run / "evaluations.json", f"{run / 'evaluations.json'}: is a file, not a run folder; "
                                                     f"give its folder, {run}"),
                          (tmp_path / "missing", f"{tmp_path / 'missing'}: no such folder; {want}")]:  # fmt: skip
        proc = plots(path)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert proc.stderr.startswith(f"python -m domino_env.train.plots: error: {message} ("), proc.stderr


def test_out_in_a_missing_folder_is_refused(tmp_path):
    run = tmp_path / "copy"
    shutil.copytree(RELEASE, run, ignore=shutil.ignore_patterns("*.zip"))
    proc = plots(run, "--out", tmp_path / "no" / "such" / "c.png")
    assert proc.returncode == 2 and "does not exist" in proc.stderr


@pytest.mark.parametrize("name", ["curve.txt", "curve", "."])
def test_out_must_be_a_png_file(tmp_path, name):
    """--out curve.txt was a matplotlib traceback; a folder or a bare name wrote NAME.png but
    printed NAME."""
    proc = plots(RELEASE, "--out", tmp_path / name if name != "." else tmp_path)
    assert proc.returncode == 2 and "give a .png file name" in proc.stderr
    assert not list(tmp_path.glob("*.png"))


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc, a folder that takes no new files")
def test_an_out_file_that_cannot_be_written_is_one_line():
    """The curve was drawn, then savefig's FileNotFoundError was a traceback (exit 1); then it was
    one line after drawing; now /proc is found before (a file made there and removed)."""
    import os

    proc = plots(RELEASE, "--out", "/proc/curve.png")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    said = ("no file can be made in folder /proc (No such file or directory)" if os.access("/proc", os.W_OK | os.X_OK)
            else "folder /proc is not writable by this user")  # fmt: skip
    assert proc.stderr.startswith(f"python -m domino_env.train.plots: error: --out /proc/curve.png: {said}")


def test_an_out_folder_this_user_cannot_write_is_refused_before_drawing(monkeypatch, capsys, tmp_path):
    import os

    from domino_env.train import plots as plots_module

    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if mode & os.W_OK else real_access(path, mode, **kw))
    monkeypatch.setattr(plots_module, "plot_learning_curve", lambda *a, **k: pytest.fail("drew the curve"))
    with pytest.raises(SystemExit) as info:
        plots_module.main([str(RELEASE), "--out", str(tmp_path / "curve.png")])
    assert info.value.code == 2
    assert f"--out {tmp_path / 'curve.png'}: folder {tmp_path} is not writable by this user" in capsys.readouterr().err


def test_a_failed_write_keeps_the_earlier_curve_whole(tmp_path, sync_log):
    """``fig.savefig(path)`` wrote in place: a full disk left a cut PNG where a whole one was
    (and a 0-byte file in a new run). It goes through a temporary file now."""
    import errno

    from domino_env.train.plots import plot_learning_curve

    history = json.loads((RELEASE / "evaluations.json").read_text())
    out = tmp_path / "learning_curve.png"
    plot_learning_curve(history, out)
    earlier = out.read_bytes()
    assert earlier[:8] == b"\x89PNG\r\n\x1a\n"
    log = sync_log(fail_with=errno.ENOSPC)
    with pytest.raises(OSError) as info:
        plot_learning_curve(history[:2], out)
    assert info.value.filename == str(out) and out.read_bytes() == earlier and [p.name for p in tmp_path.iterdir()] == [out.name]
    assert log.events[0][1] == str(tmp_path / ".learning_curve.png.partial")



def _sparse(path):
    """One byte more than the plots read (sparse: no disk space taken)."""
    from domino_env.train.plots import MAX_RUN_FILE_BYTES

    with path.open("wb") as f:
        f.truncate(MAX_RUN_FILE_BYTES + 1)


@pytest.mark.parametrize(
    "name, make, message",
    [
        ("evaluations.json", _sparse, "holds more than 64 MiB, not a run's evaluations.json; give a domino-train run "
                                      "folder (it holds evaluations.json or metadata.json)"),
        ("metadata.json", _sparse, "holds more than 64 MiB, not a run's metadata.json; give a domino-train run folder"),
        ("metadata.json", lambda p: p.symlink_to("/dev/zero"), "not a regular file (a run's metadata.json is one); "
                                                               "give a domino-train run folder"),
        ("evaluations.json", os.mkfifo, "not a regular file (a run's evaluations.json is one); give a domino-train"),
        ("evaluations.json", lambda p: p.write_text("[" * 100_000), "not readable JSON (maximum recursion depth"),
    ],
)  # fmt: skip
def test_a_run_file_that_is_huge_endless_or_not_a_file_is_one_line(tmp_path, name, make, message):
    """Both run files were read whole (``read_text``) without a size guard: a huge one filled the
    memory (a MemoryError traceback under a memory limit); one that is not a regular file
    (``/dev/zero``, a FIFO) was skipped as if missing ("neither evaluations.json nor
    metadata.json"); a deeply nested one was a RecursionError traceback."""
    run = _folder(tmp_path, {})
    make(run / name)
    proc = plots(run)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith(f"python -m domino_env.train.plots: error: {run / name}: {message}"), proc.stderr
    assert not (run / "learning_curve.png").exists()


def test_a_run_folder_that_cannot_be_searched_is_one_error(tmp_path, monkeypatch):
    """``chmod 000 RUN`` as another user: ``path.exists()`` raised PermissionError (a traceback);
    as root the folder is searchable, so the refusal is simulated at ``Path.stat``."""
    from domino_env.train.plots import read_history

    run = _folder(tmp_path, {})
    real = Path.stat

    def stat(self, *args, **kwargs):
        if self.parent == run:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)
    with pytest.raises(ValueError, match=rf"^{run / 'metadata.json'}: cannot be read \(Permission denied\); give a "
                                         r"domino-train run folder"):  # fmt: skip
        read_history(run)


def test_a_huge_step_count_is_one_line_naming_the_file_and_the_field(tmp_path):
    """``timesteps`` 10**30 in a hand-made evaluations.json ended in a matplotlib ``TypeError``
    traceback ("ufunc 'isfinite' not supported")."""
    row = json.loads((RELEASE / "evaluations.json").read_text())[0]
    run = _folder(tmp_path, {"evaluations.json": json.dumps([{**row, "timesteps": 10**30}])})
    proc = plots(run)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith(f"python -m domino_env.train.plots: error: {run / 'evaluations.json'}: "
                                  "evaluation 1's timesteps is not a step count from 0 to 2**63 - 1 ("), proc.stderr
    assert not (run / "learning_curve.png").exists()
