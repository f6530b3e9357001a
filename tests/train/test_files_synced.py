"""Files this package does not write through ``replace_file`` (numpy's dataset, RLlib's checkpoint)
are synced to the disk before they are renamed into place, as ``replace_file``'s are
(tests/core/test_files.py): a crash of the machine leaves the earlier one or the new one whole."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from domino_env.train.bc_data import save_dataset
from domino_env.train.rllib_output import save_checkpoint


def test_a_dataset_is_on_the_disk_before_its_rename(tmp_path, sync_log):
    path = tmp_path / "data.npz"
    log = sync_log()
    save_dataset(path, {"actions": np.arange(3)}, {"rules": 1})
    partial = str(tmp_path / f"data.npz.{os.getpid()}.partial.npz")  # (this process's own)
    assert [e[:2] for e in log.events] == [("sync file", partial), ("rename", partial), ("sync folder", str(tmp_path))]
    assert log.events[0][2] == path.read_bytes() and np.load(path)["actions"].tolist() == [0, 1, 2]


def test_an_rllib_checkpoint_is_on_the_disk_before_the_swap(tmp_path, sync_log):
    """domino-rllib's checkpoint is written by RLlib (files this package never opens): every file
    and folder of it is synced before the first rename of the swap, the run folder after the last."""
    class Algo:  # writes a checkpoint as RLlib does: nested folders of files
        def save_to_path(self, path):
            (Path(path) / "learner" / "module").mkdir(parents=True)
            (Path(path) / "learner" / "module" / "state.pkl").write_bytes(b"weights")
            (Path(path) / "algorithm_state.pkl").write_bytes(b"state")

    out = tmp_path / "run"
    out.mkdir()
    save_checkpoint(Algo(), out, {"iterations_done": 1})
    log = sync_log()
    save_checkpoint(Algo(), out, {"iterations_done": 2})
    saving = str((out / "checkpoint.saving").resolve())
    renames = [i for i, e in enumerate(log.events) if e[0] == "rename" and e[1].endswith(("/checkpoint", ".saving"))]
    assert [log.events[i][1] for i in renames] == [saving[: -len(".saving")], saving]  # the swap
    synced = {e[1] for e in log.events[: renames[0]]}
    assert {saving, f"{saving}/learner", f"{saving}/learner/module", f"{saving}/learner/module/state.pkl",
            f"{saving}/algorithm_state.pkl", f"{saving}/.domino_rllib.json.partial"} <= synced  # fmt: skip
    assert ("sync folder", str(out.resolve())) in log.events[renames[-1]:]
    assert json.loads((out / "checkpoint" / "domino_rllib.json").read_text())["iterations_done"] == 2


def test_a_failed_dataset_write_keeps_the_earlier_one_and_leaves_no_partial(tmp_path, sync_log):
    path = tmp_path / "data.npz"
    save_dataset(path, {"actions": np.arange(3)}, {"rules": 1})
    sync_log(fail_with=28)  # ENOSPC: the disk filled while numpy wrote
    with pytest.raises(OSError, match="No space left"):
        save_dataset(path, {"actions": np.arange(5)}, {"rules": 1})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.npz"] and np.load(path)["actions"].tolist() == [0, 1, 2]


def test_a_failed_dataset_write_names_the_dataset(tmp_path, sync_log):
    """numpy's own write error names no file: domino-bc said "a file could not be written"."""
    sync_log(fail_with=28)
    with pytest.raises(OSError) as info:
        save_dataset(tmp_path / "data.npz", {"actions": np.arange(5)}, {"rules": 1})
    assert info.value.filename == str(tmp_path / "data.npz")
