"""A ``checkpoint.old/`` that ``domino-rllib``'s checkpoint swap cannot remove (a file in it made
immutable, ``chattr +i``; simulated here by refusing ``os.unlink``: chattr needs root): the run
says so at once, a later save of the run refuses in one line naming the file, and ``--resume``
does not call it a crash; a crash-cut swap whose ``checkpoint.old/`` is partly removed says so."""

import argparse
import errno
import json
import os
from pathlib import Path

import pytest

from domino_env.train.rllib_output import WriteRefused, refusal_error, save_checkpoint
from domino_env.train.rllib_resume import read_run


class Algo:  # writes a checkpoint as RLlib does: files in a folder
    def save_to_path(self, path):
        Path(path).mkdir(parents=True)
        (Path(path) / "rllib_checkpoint.json").write_text("{}")
        (Path(path) / "algorithm_state.pkl").write_bytes(b"state")


def _refuse_unlink(monkeypatch, name: str) -> None:
    """``name`` (in any folder) made immutable: its removal is refused, as rmtree meets it."""
    real = os.unlink

    def unlink(path, *args, **kwargs):
        if os.path.basename(os.fspath(path)) == name:
            raise PermissionError(errno.EPERM, "Operation not permitted", path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)


def test_a_checkpoint_old_the_swap_cannot_remove_is_a_warning_naming_the_file(tmp_path, monkeypatch):
    """It was rmtree(ignore_errors=True): exit 0 and nothing said, checkpoint.old/ left behind."""
    out = tmp_path / "run"
    out.mkdir()
    save_checkpoint(Algo(), out, {"iterations_done": 1})
    _refuse_unlink(monkeypatch, "domino_rllib.json")
    with pytest.warns(UserWarning) as record:
        save_checkpoint(Algo(), out, {"iterations_done": 2})
    monkeypatch.undo()
    left = out / "checkpoint.old" / "domino_rllib.json"
    assert [str(w.message) for w in record] == [
        f"{out}/checkpoint.old/ (the earlier checkpoint) could not be removed: {left} (Operation not permitted: it or "
        f"{out}/checkpoint.old made read-only or immutable?); the new checkpoint in {out}/checkpoint is in place and "
        f"whole; make {left} and {out}/checkpoint.old writable, then rm -r {out}/checkpoint.old (or the next --resume "
        "removes it)"]  # fmt: skip
    assert json.loads((out / "checkpoint" / "domino_rllib.json").read_text())["iterations_done"] == 2
    assert json.loads((out / "domino_rllib.json").read_text())["iterations_done"] == 2
    assert [p.name for p in (out / "checkpoint.old").iterdir()] == ["domino_rllib.json"]


def test_a_later_save_beside_a_leftover_it_cannot_remove_refuses_in_one_line(tmp_path, monkeypatch):
    """The swap renames checkpoint/ to checkpoint.old: a leftover that cannot be removed made that
    rename fail with ENOTEMPTY (a crash of the run, not a refusal naming the file)."""
    out = tmp_path / "run"
    out.mkdir()
    save_checkpoint(Algo(), out, {"iterations_done": 1})
    (out / "checkpoint.old").mkdir()
    (out / "checkpoint.old" / "domino_rllib.json").write_text("{}")
    _refuse_unlink(monkeypatch, "domino_rllib.json")
    with pytest.raises(WriteRefused) as refused:
        save_checkpoint(Algo(), out, {"iterations_done": 2})
    monkeypatch.undo()
    left = out / "checkpoint.old" / "domino_rllib.json"
    assert str(refusal_error(refused.value, out, 1, "continue with: domino-rllib --resume run", "--resume")) == (
        f"--resume {out}: {left} could not be removed (Operation not permitted: {left} or {out}/checkpoint.old made "
        f"read-only or immutable?); the checkpoint of iteration 1 in {out}/checkpoint is kept whole; make {left} and "
        f"{out}/checkpoint.old writable, then continue with: domino-rllib --resume run")  # fmt: skip
    assert json.loads((out / "checkpoint" / "domino_rllib.json").read_text())["iterations_done"] == 1
    assert not (out / "checkpoint.saving").exists()


def _leftover_run(tmp_path) -> Path:
    """A run folder whose last save could not remove checkpoint.old/: the swap is otherwise done."""
    out = tmp_path / "run"
    out.mkdir()
    save_checkpoint(Algo(), out, {"iterations_done": 1})
    (out / "checkpoint.old").mkdir()
    (out / "checkpoint.old" / "domino_rllib.json").write_text('{"iterations_done": 0}')
    return out


def test_a_resume_beside_a_leftover_it_cannot_remove_does_not_call_it_a_crash(tmp_path, monkeypatch, capsys):
    """It said "a checkpoint swap that a crash interrupted could not be finished ... make RUN and the
    checkpoint folders in it writable": no crash happened, and the file itself is immutable."""
    run = _leftover_run(tmp_path)
    _refuse_unlink(monkeypatch, "domino_rllib.json")
    with pytest.raises(SystemExit):
        read_run(argparse.ArgumentParser(prog="domino-rllib"), run)
    monkeypatch.undo()
    left = run / "checkpoint.old" / "domino_rllib.json"
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"domino-rllib: error: --resume {run}: {run}/checkpoint.old/, the earlier checkpoint left behind (its removal "
        f"refused or cut short), is still there beside the whole {run}/checkpoint/ and its saves need the name: {left} could not be "
        f"removed (Operation not permitted); make {left} and {run}/checkpoint.old writable (read-only or "
        "immutable?), then resume again")  # fmt: skip


def test_a_resume_that_removes_a_leftover_does_not_call_it_a_crash(tmp_path, capsys):
    run = _leftover_run(tmp_path)
    assert read_run(argparse.ArgumentParser(prog="domino-rllib"), run)["iterations_done"] == 1
    assert capsys.readouterr().err.splitlines() == [
        f"--resume {run}: removed {run}/checkpoint.old/, the earlier checkpoint left behind (its removal refused or "
        "cut short)"]
    assert sorted(p.name for p in run.iterdir()) == ["checkpoint", "domino_rllib.json"]


def test_a_cut_short_swap_whose_old_checkpoint_is_partly_removed_says_so(tmp_path, monkeypatch, capsys):
    """checkpoint.old/rllib_checkpoint.json made immutable in a swap a crash cut short: rmtree had
    removed checkpoint.old/'s other files, where the line said only that checkpoint.saving/ was put
    in place, and told to make RUN and the checkpoint folders writable, not the file."""
    run = tmp_path / "run"
    for name in ("checkpoint.old", "checkpoint.saving"):
        Algo().save_to_path(run / name)
        (run / name / "domino_rllib.json").write_text("{}")  # the new one (checkpoint.saving/), whole
    _refuse_unlink(monkeypatch, "rllib_checkpoint.json")
    with pytest.raises(SystemExit):
        read_run(argparse.ArgumentParser(prog="domino-rllib"), run)
    monkeypatch.undo()
    left = run / "checkpoint.old" / "rllib_checkpoint.json"
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"domino-rllib: error: --resume {run}: a checkpoint swap that a crash interrupted could not be finished: "
        f"{left} could not be removed (Operation not permitted); done before the refusal: checkpoint.saving/ (the "
        "new checkpoint, whole) was put in place as checkpoint/, checkpoint.old/ was partly removed (2 of the 3 "
        f"files and folders in it); make {left} and {run}/checkpoint.old writable (read-only or immutable?), then "
        "resume again")  # fmt: skip
    assert [p.name for p in (run / "checkpoint.old").iterdir()] == ["rllib_checkpoint.json"]
