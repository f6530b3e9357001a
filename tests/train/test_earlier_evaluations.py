"""``run_folder.earlier_evaluations`` (what ``domino-train --resume RUN --out RUN`` keeps of the run's
periodic evaluations) on an ``evaluations.json`` that is not a run's: a FIFO waited for a writer
forever (a SIGTERM did not stop it), a link to ``/dev/zero`` would have filled the memory. Each is
now a warning and the evaluations of ``metadata.json``, as a damaged file was."""

from __future__ import annotations

import os

import pytest

from domino_env.train import plots
from domino_env.train.run_folder import earlier_evaluations

META = {"evaluations": [{"timesteps": 1}]}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_an_evaluations_file_that_is_no_regular_file_is_not_read(tmp_path, kind):
    file = tmp_path / "evaluations.json"
    {"fifo": lambda: os.mkfifo(file), "device": lambda: file.symlink_to("/dev/zero"), "folder": file.mkdir}[kind]()
    with pytest.warns(UserWarning, match=r"evaluations.json is unreadable: not a regular file; the 1 earlier "
                                         r"evaluations in metadata.json are used instead"):  # fmt: skip
        assert earlier_evaluations(tmp_path, META) == [{"timesteps": 1}]


def test_an_evaluations_file_past_the_limit_is_not_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(plots, "MAX_RUN_FILE_BYTES", 2**20)  # (64 MiB: slow to write in a test)
    file = tmp_path / "evaluations.json"
    head = '[{"timesteps": 5, "pad": "'
    file.write_text(head + "z" * (2**20 - len(head) - 3) + '"}]')  # 1 MiB exactly: read
    assert [e["timesteps"] for e in earlier_evaluations(tmp_path, META)] == [5]
    file.write_text(head + "z" * (2**20 - len(head) - 2) + '"}]')
    with pytest.warns(UserWarning, match="evaluations.json is unreadable: larger than 1 MiB; the 1 earlier"):
        assert earlier_evaluations(tmp_path, META) == [{"timesteps": 1}]
    file.write_text("[" * 100_000 + "]" * 100_000)  # nested too deeply for the parser: a traceback before
    with pytest.warns(UserWarning, match="evaluations.json is unreadable: maximum recursion depth"):
        assert earlier_evaluations(tmp_path, META) == [{"timesteps": 1}]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["evaluations.json", "best_model.zip", "learning_curve.png"])
def test_a_resume_into_its_folder_refuses_a_run_file_it_would_hang_on(tmp_path, name):
    """The warning above was not enough: the first periodic evaluation rewrote the FIFO in place,
    ``open(FIFO, "wb")`` waited for a reader, and a single SIGTERM or Ctrl-C did not end it. A run
    file that is not a regular file is refused before any work (a real process)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    run = tmp_path / "run"
    shutil.copytree(root / "checkpoints" / "mexican_train_4p_d12_action_scores", run)
    (run / name).unlink(missing_ok=True)
    os.mkfifo(run / name)
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.ppo", "--resume", str(run), "--out", str(run),
                           "--timesteps", "64", "--eval-freq", "64", "--eval-rounds", "4", "--final-eval-rounds", "0",
                           "--n-envs", "1", "--no-progress"], capture_output=True, text=True, timeout=100,
                          stdin=subprocess.DEVNULL)  # fmt: skip
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    assert proc.stderr == (f"domino-train: error: --out {run}: {run / name} is not a regular file (a FIFO, a device "
                           "or a folder), and the run rewrites it; remove it, or give another --out "
                           "(domino-train --help lists every option)\n")  # fmt: skip


@pytest.mark.timeout(120)
def test_a_resumed_run_whose_evaluations_the_curve_cannot_draw_says_so_in_one_line(tmp_path):
    """A hand-made ``timesteps`` 10**30 in the run's evaluations.json: ``python -m
    domino_env.train.plots`` refused it in one line, but the resumed run trained, saved, and then
    ended in a matplotlib ``TypeError`` traceback (exit status 1) drawing its own curve. Now it
    says the curve is not drawn and why, saves everything else, and exits 0 (a real process)."""
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    run = tmp_path / "run"
    shutil.copytree(root / "checkpoints" / "mexican_train_4p_d12_action_scores", run)
    (run / "learning_curve.png").unlink()
    history = json.loads((run / "evaluations.json").read_text())
    history[1]["timesteps"] = 10**30
    (run / "evaluations.json").write_text(json.dumps(history))
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.ppo", "--resume", str(run), "--out", str(run),
                           "--timesteps", "64", "--n-steps", "64", "--eval-freq", "0", "--final-eval-rounds", "0",
                           "--n-envs", "1", "--no-progress"], capture_output=True, text=True, timeout=100,
                          stdin=subprocess.DEVNULL)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert (f"{run / 'learning_curve.png'} not drawn: the run's evaluations (evaluations.json) cannot be drawn: "
            "evaluation 2's timesteps is not a step count from 0 to 2**63 - 1\n") in proc.stderr
    assert not (run / "learning_curve.png").exists()
    assert proc.stdout.splitlines()[-1].startswith(f"saved {run / 'model.zip'}, {run / 'best_model.zip'}, ")
    assert "learning_curve.png" not in proc.stdout.splitlines()[-1]
    assert json.loads((run / "evaluations.json").read_text())[1]["timesteps"] == 10**30
