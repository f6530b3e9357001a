"""One training command at a time in a run folder (a user trial: ``domino-rllib --resume RUN``
started while RUN still trained; both exited 0, their progress rows interleaved and the second
one's iterations vanished from the metadata). A folder held by another process is refused in one
line before any work by ``domino-train`` and ``domino-bc`` (``domino-rllib --resume``:
test_rllib_stops.py), and nothing in it changes; and ``--out`` where no folder can be made (``/proc``, where ``os.access`` says yes to
root) is refused before Ray starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from domino_env.train.cli import output_folder_problem
from domino_env.train.folder_lock import RunFolderBusyError, hold_run_folder

ROOT = Path(__file__).resolve().parents[2]
HOLD = ("import sys, time; from domino_env.train.folder_lock import hold_run_folder; "
        "assert hold_run_folder(sys.argv[1]); print('held', flush=True); time.sleep(120)")  # fmt: skip


@pytest.fixture
def held(tmp_path):
    """A run folder, held by another process for the test's length (its file: a run of another
    command, which --overwrite would delete)."""
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        yield folder
    finally:
        holder.kill()
        holder.wait()


def test_a_held_folder_is_refused_and_free_once_its_holder_ends(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    with pytest.raises(RunFolderBusyError, match=rf"^{folder} is in use by another training command"):
        hold_run_folder(folder)
    holder.kill()
    holder.wait()
    assert hold_run_folder(folder) is True and hold_run_folder(folder) is True  # (again: already held)
    assert hold_run_folder(tmp_path / "missing") is False


@pytest.mark.parametrize("command", [
    ["train.ppo", "--timesteps", "64", "--n-steps", "32", "--batch-size", "32", "--n-envs", "1", "--eval-freq", "0",
     "--final-eval-rounds", "0", "--overwrite"],
    ["train.bc", "--samples", "64", "--epochs", "1", "--final-eval-rounds", "0", "--overwrite"],
])  # fmt: skip
def test_each_training_command_refuses_a_held_folder_before_any_work(command, held):
    before = {p.name: p.read_bytes() for p in held.iterdir()}
    out = subprocess.run([sys.executable, "-m", *command, "--out", str(held), "--no-progress"], capture_output=True,
                         text=True, cwd=ROOT, timeout=300)  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert f"{held} is in use by another training command (it holds the folder's lock)" in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert {p.name: p.read_bytes() for p in held.iterdir()} == before


def test_a_folder_that_cannot_be_made_is_found_by_trying():
    assert output_folder_problem("/proc/domino-run") == "cannot make the run folder (No such file or directory)"
    assert output_folder_problem("/proc").startswith("cannot write the run folder (")


def test_a_command_called_from_python_lets_go_of_its_folder(tmp_path):
    """Held until the interpreter exited, a folder trained into from a notebook refused the next
    command run from a shell."""
    from domino_env.train import bc, ppo, rllib
    from domino_env.train.folder_lock import releasing_run_folders

    folder = tmp_path / "run"
    folder.mkdir()

    @releasing_run_folders
    def command():
        assert hold_run_folder(folder)
        raise KeyboardInterrupt  # (released however the command ends)

    with pytest.raises(KeyboardInterrupt):
        command()
    other = subprocess.run([sys.executable, "-c", HOLD.replace("time.sleep(120)", "pass"), str(folder)],
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert other.stdout == "held\n", other.stderr
    for run in (ppo.run, bc.run, rllib._run):  # the commands' functions are wrapped so
        assert run.__wrapped__ is not None
