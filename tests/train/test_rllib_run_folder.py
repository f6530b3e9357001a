"""``domino-rllib`` makes its run folder once Ray runs; when that fails (a full disk, or a folder
changed since the checks), the folders it made for it are removed again and the user's are kept
(``run_folder.make_folders``), as ``domino-train`` and ``domino-bc`` do."""

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


def test_a_run_folder_that_cannot_be_made_once_ray_runs_leaves_only_the_users_folders(tmp_path):
    (tmp_path / "wrap.py").write_text(WRAP)
    (tmp_path / "old").mkdir()
    out = subprocess.run(
        [sys.executable, "wrap.py", "--iterations", "1", "--batch-size", "256", "--minibatch-size", "128",
         "--epochs", "1", "--hidden", "32", "--num-env-runners", "0", "--num-cpus", "2", "--no-progress",
         "--out", "new/../old/a/run"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 2, out.stderr[-2000:]
    assert out.stderr.strip().splitlines()[-1] == ("domino-rllib: error: --out new/../old/a/run: cannot make the run "
                                                   "folder (No space left on device)")  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old", "wrap.py"] and not any((tmp_path / "old").iterdir())
