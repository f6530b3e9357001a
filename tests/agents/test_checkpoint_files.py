"""The checkpoint file checks of ``domino_env.agents.checkpoint_files`` on hand-made inputs (found
by mutation testing): str paths, the hints of a missing model, the game a model names, the first
line of a long error, and the numpy-2 check."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from domino_env.agents.checkpoint_files import (
    agent_label,
    check_model_file,
    check_numpy_reads_it,
    first_line,
    load_metadata,
    model_game,
    read_metadata,
)
from domino_env.core.errors import CheckpointError, CheckpointNotFoundError, ConfigError

ROOT = Path(__file__).resolve().parents[2]
RELEASED = ROOT / "checkpoints" / "cuban_4p_teams"


@pytest.mark.parametrize(
    "text, line",
    [
        ("one\ntwo", "one"),
        ("", ""),
        ("a:", "a:"),
        ("a:\n\tb\n", "a: b"),
        ("Error(s) in loading:\n\n  size mismatch x\n  size mismatch y\n", "Error(s) in loading: size mismatch x (and 1 more)"),
        ("  \n head:\n b\n c\n d\n", "head: b (and 2 more)"),
        ("no colon\nb\nc", "no colon"),
    ],
)
def test_first_line_of_an_error(text, line):
    assert first_line(ValueError(text)) == line


def test_a_missing_numpy_core_module_is_a_checkpoint_error_naming_numpy_2():
    with pytest.raises(CheckpointError) as info:
        check_numpy_reads_it("m/model.zip", ImportError("no numpy._core", name="numpy._core.multiarray"))
    assert str(info.value) == (f"m/model.zip: saved with numpy 2, which this numpy {np.__version__} cannot "
                               "read: pip install 'numpy>=2'")  # fmt: skip
    for other in (ImportError("no torch", name="torch"), ImportError("no name"), ImportError("np", name="numpy")):
        assert check_numpy_reads_it("m/model.zip", other) is None  # left to the caller


def test_the_checks_take_str_paths():
    model, meta = read_metadata(str(RELEASED))
    assert model == RELEASED / "model.zip" and meta["game"] == "cuban"
    assert check_model_file(str(RELEASED / "model.zip")) is None
    assert load_metadata(str(RELEASED / "metadata.json"))["observation_scaling"] == "line-unit-v1"
    # a model path without its .zip
    assert read_metadata(str(RELEASED / "model"))[0] == RELEASED / "model.zip"


def test_metadata_whose_scaling_is_not_a_string_is_refused(tmp_path):
    meta = tmp_path / "metadata.json"
    meta.write_text(json.dumps({"observation_spec_hash": "x", "observation_scaling": 1}))
    with pytest.raises(CheckpointError, match=r"no observation_scaling \(a string\)"):
        load_metadata(meta)
    meta.write_text(json.dumps({"observation_spec_hash": None}))
    with pytest.raises(CheckpointError, match=r"no observation_spec_hash / observation_scaling \(a string\)"):
        load_metadata(meta)


def test_a_missing_zip_beside_a_run_folders_files_gets_no_run_hint(tmp_path):
    """The hints about a run stopped before its save are for the run's folder given, not for a
    missing .zip next to metadata.json and best_model.zip."""
    shutil.copy(RELEASED / "metadata.json", tmp_path / "metadata.json")
    (tmp_path / "best_model.zip").write_bytes(b"a model")
    for given in (tmp_path / "other.zip", tmp_path / "other"):
        with pytest.raises(CheckpointNotFoundError) as info:
            read_metadata(given)
        assert str(info.value) == (f"no trained model at {given}{'' if given.suffix else f' ({given}.zip does not exist)'}: "
                                   "give a folder written by domino-train or its .zip")  # fmt: skip


def test_a_relative_path_outside_checkpoints_gets_no_release_hint(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CheckpointNotFoundError) as info:
        read_metadata("runs/mine.zip")
    assert str(info.value) == "no trained model at runs/mine.zip: give a folder written by domino-train or its .zip"


def test_model_game_reads_the_game_or_the_env_id():
    assert model_game({"game": "cuban", "env_id": "dominoes/block-v0"}) == "cuban"
    assert model_game({"game": None, "env_id": "dominoes/mexican_train-v0"}) == "mexican_train"
    assert model_game({"env_id": "dominoes/Draw-v12"}) == "draw"
    for meta in ({}, {"game": None, "env_id": None}, {"env_id": "other/cuban-v0"}, {"game": 3, "env_id": 5}):
        assert model_game(meta) is None, meta


def test_agent_label():
    assert agent_label(None, "ppo") == "ppo" and agent_label("mine", "ppo") == "mine"
    for bad in ("", 5, b"x"):
        with pytest.raises(ConfigError, match=r"'name'.*None \(the label 'ppo'\) or a non-empty string"):
            agent_label(bad, "ppo")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("which", ["model.zip", "metadata.json"])
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_model_file_that_is_a_fifo_or_a_device_is_refused_without_reading_it(tmp_path, which, kind):
    """Opening a FIFO waited for a writer forever (``load_metadata``, ``check_model_file``) and
    ``read_metadata`` called one "does not exist"; ``/dev/zero`` never ends."""
    import os

    folder = tmp_path / "run"
    shutil.copytree(RELEASED, folder)
    (folder / which).unlink()
    if kind == "fifo":
        os.mkfifo(folder / which)
    else:
        (folder / which).symlink_to("/dev/zero")
    want = rf"{folder / which}: not a regular file \(a FIFO, device or socket\); give the model's own file"
    with pytest.raises(CheckpointError, match=want):
        read_metadata(folder)
    check, other = (check_model_file, load_metadata) if which == "model.zip" else (load_metadata, check_model_file)
    with pytest.raises(CheckpointError, match=want):
        check(folder / which)
    other(folder / ("metadata.json" if which == "model.zip" else "model.zip"))  # the other file is fine


def test_a_metadata_file_past_the_size_limit_is_refused(tmp_path, monkeypatch):
    from domino_env.agents import checkpoint_files

    monkeypatch.setattr(checkpoint_files, "MAX_METADATA_BYTES", 2**20)  # (16 MiB: written in a test, slow)
    meta = tmp_path / "metadata.json"
    head = '{"observation_spec_hash": "x", "observation_scaling": "y", "pad": "'
    meta.write_text(head + "z" * (2**20 - len(head) - 2) + '"}')  # 1 MiB exactly: read
    assert len(load_metadata(meta)["pad"]) == 2**20 - len(head) - 2
    meta.write_text(head + "z" * (2**20 - len(head) - 1) + '"}')
    with pytest.raises(CheckpointError, match=rf"^{meta}: holds more than 1 MiB, not a model's metadata$"):
        load_metadata(meta)
    meta.write_text(head + "z" * (2**20 - len(head) - 1) + 'é"}')  # the limit cuts the é in two: still the size
    with pytest.raises(CheckpointError, match=rf"^{meta}: holds more than 1 MiB, not a model's metadata$"):
        load_metadata(meta)
