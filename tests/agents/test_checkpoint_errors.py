"""Corrupt checkpoints are refused with one clear error naming the file (issue 12 item 11).

Every kind of damage is made from a copy of a released model (``checkpoints/cuban_4p_teams``) and
given to the API (``read_metadata``, ``make_agent("ppo:PATH")``) and to the command line
(``python -m train.evaluate --agents ppo:BAD ...`` as a real process: one line on stderr, exit
code 2, no traceback). The intact copy still loads, so the checks refuse only what is broken.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from domino_env.agents import make_agent
from domino_env.agents.ppo import (
    SpecMismatchError,
    check_model_file,
    load_metadata,
    load_ppo_agent,
    read_metadata,
)
from domino_env.core.errors import (
    CheckpointError,
    CheckpointNotFoundError,
    ConfigError,
    DominoError,
)

ROOT = Path(__file__).resolve().parents[2]
RELEASED = ROOT / "checkpoints" / "cuban_4p_teams"
CUBAN = {"preset": "cuban"}


def _flip_byte_inside(member: str):
    def damage(folder: Path) -> None:
        path = folder / "model.zip"
        data = bytearray(path.read_bytes())
        with zipfile.ZipFile(path) as zf:
            info = zf.getinfo(member)
        # a byte in the middle of the member's compressed data (after its local header)
        at = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size // 2
        data[at] ^= 0xFF
        path.write_bytes(bytes(data))

    return damage


def _rewrite_metadata(edit):
    def damage(folder: Path) -> None:
        meta = folder / "metadata.json"
        meta.write_text(edit(meta.read_text()))

    return damage


def _drop_key(key: str):
    def edit(text: str) -> str:
        data = json.loads(text)
        del data[key]
        return json.dumps(data)

    return edit


def _not_sb3(folder: Path) -> None:
    with zipfile.ZipFile(folder / "model.zip", "w") as zf:
        zf.writestr("notes.txt", "not a model")


def _cut_just_after(member: str):
    """Truncate the model 1,000 bytes after ``member`` ends: the stored .pth members are zip
    archives themselves, and zipfile then read that inner archive's directory, so the message
    said "not a Stable-Baselines3 model" (for 32-34 of every 1,000 cuts of each release)."""

    def damage(folder: Path) -> None:
        path = folder / "model.zip"
        with zipfile.ZipFile(path) as zf:
            info = zf.getinfo(member)
        end = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size
        path.write_bytes(path.read_bytes()[: end + 1000])

    return damage


def _garbled_data_member(folder: Path) -> None:
    src = folder / "model.zip"
    tmp = folder / "rebuilt.zip"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for item in zin.infolist():
            payload = b"{not json" if item.filename == "data" else zin.read(item)
            zout.writestr(item, payload)
    tmp.replace(src)


#: kind -> (damage to a copy of the released model folder, file named, words of the message)
KINDS = {
    "empty model": (lambda f: (f / "model.zip").write_bytes(b""), "model.zip", "empty file (0 bytes)"),
    "truncated model": (
        lambda f: (f / "model.zip").write_bytes((f / "model.zip").read_bytes()[:100_000]),
        "model.zip",
        "truncated zip archive (100,000 bytes",
    ),
    "truncated after a tensor file": (_cut_just_after("policy.pth"), "model.zip", "truncated zip archive ("),
    "random bytes": (
        lambda f: (f / "model.zip").write_bytes(bytes(range(256)) * 40),
        "model.zip",
        "not a zip archive (10,240 bytes starting with b'\\x00\\x01\\x02\\x03')",
    ),
    "damaged member": (
        _flip_byte_inside("policy.pth"),
        "model.zip",
        "corrupt zip archive (member 'policy.pth' fails its CRC check)",
    ),
    "zip of something else": (_not_sb3, "model.zip", "not a Stable-Baselines3 model (no data, policy.pth inside)"),
    "garbled data member": (_garbled_data_member, "model.zip", "its 'data' member is not JSON"),
    "missing metadata": (
        lambda f: (f / "metadata.json").unlink(),
        "model.zip",
        "for a model of your own, pass an agent function to domino_env.train.evaluate.evaluate",
    ),
    "empty metadata": (_rewrite_metadata(lambda t: ""), "metadata.json", "empty file"),
    "truncated metadata": (
        _rewrite_metadata(lambda t: t[:300]),
        "metadata.json",
        "not valid JSON (",
    ),
    "binary metadata": (
        lambda f: (f / "metadata.json").write_bytes(b"\x89PNG\r\n\x1a\n"),
        "metadata.json",
        "not UTF-8 text (byte 0",
    ),
    "metadata not an object": (_rewrite_metadata(lambda t: "[1, 2]"), "metadata.json", "a JSON object expected, got a list"),
    "metadata without spec hash": (
        _rewrite_metadata(_drop_key("observation_spec_hash")),
        "metadata.json",
        "no observation_spec_hash (a string)",
    ),
}


@pytest.fixture(scope="module")
def released_copy(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("released") / "cuban"
    folder.mkdir()
    for name in ("model.zip", "metadata.json"):
        shutil.copy(RELEASED / name, folder / name)
    return folder


@pytest.fixture(params=sorted(KINDS))
def damaged(request, released_copy, tmp_path):
    damage, file_name, words = KINDS[request.param]
    folder = tmp_path / "bad"
    shutil.copytree(released_copy, folder)
    damage(folder)
    return folder, folder / file_name, words


def test_intact_copy_passes_the_checks_and_loads(released_copy):
    model, meta = read_metadata(released_copy)
    assert model == released_copy / "model.zip"
    assert meta["observation_scaling"] == "line-unit-v1"
    check_model_file(model)
    agent = make_agent(f"ppo:{released_copy}", CUBAN)
    assert agent.name == f"ppo:{released_copy}"


def test_every_corruption_is_one_typed_error_naming_the_file(damaged):
    folder, named, words = damaged
    for call in (lambda: read_metadata(folder), lambda: make_agent(f"ppo:{folder}", CUBAN)):
        with pytest.raises(CheckpointError) as info:
            call()
        message = str(info.value)
        assert str(named) in message and words in message, message
        assert "\n" not in message
        assert isinstance(info.value, ValueError) and isinstance(info.value, DominoError)


def test_every_corruption_is_one_line_from_the_command_line(damaged):
    folder, named, words = damaged
    proc = subprocess.run(
        [sys.executable, "-m", "train.evaluate", "--game", "cuban", "--agents", f"ppo:{folder}",
         "greedy", "random", "greedy", "--rounds", "4", "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("domino-evaluate: error: ")
    assert str(named) in lines[0] and words in lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_missing_files_are_also_file_not_found_errors(tmp_path):
    with pytest.raises(CheckpointNotFoundError, match=r"no trained model at .*nowhere \(.*nowhere\.zip does not exist\)"):
        read_metadata(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="no such model file"):
        check_model_file(tmp_path / "nowhere.zip")
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_metadata(tmp_path / "metadata.json")
    (tmp_path / "metadata.json").write_text("{}")  # the run's metadata named instead of its folder
    with pytest.raises(CheckpointNotFoundError, match=r"metadata.json is not a model \.zip: give the folder"):
        read_metadata(tmp_path / "metadata.json")  # was "metadata.zip does not exist", a made-up path


@pytest.mark.parametrize("folder_for", ["model.zip", "metadata.json"])
def test_a_model_or_metadata_that_is_a_folder_says_so(released_copy, tmp_path, folder_for):
    """Both files exist, as folders: the messages said the model "does not exist" / there was
    "no metadata.json next to" it."""
    folder = tmp_path / "bad"
    shutil.copytree(released_copy, folder)
    (folder / folder_for).unlink()
    (folder / folder_for).mkdir()
    for given in (folder, folder / folder_for):  # the run folder, or the file's own path
        with pytest.raises(CheckpointNotFoundError, match=re.escape(f"{folder / folder_for} is a folder, not a file")):
            read_metadata(given)


def test_a_home_relative_model_path_is_expanded(released_copy, monkeypatch):
    """``ppo:~/...``: the shell leaves the ``~`` after ``ppo:`` to the program."""
    monkeypatch.setenv("HOME", str(released_copy.parent))
    model, _ = read_metadata(f"~/{released_copy.name}")
    assert model == released_copy / "model.zip"


@pytest.mark.parametrize("bad", ["no", 2, None, 0.5])
def test_deterministic_must_be_a_bool(bad):
    with pytest.raises(ConfigError, match="deterministic"):
        load_ppo_agent(RELEASED, CUBAN, deterministic=bad)  # "no" was accepted as True
    assert load_ppo_agent(RELEASED, CUBAN, deterministic=np.False_).deterministic is False
    # the integers 0 and 1 are flags too (deterministic=0 worked until 2026-12-04)
    assert [load_ppo_agent(RELEASED, CUBAN, deterministic=v).deterministic for v in (0, np.int64(1))] == [False, True]


def test_a_path_or_name_of_the_wrong_kind_is_refused_before_loading():
    """load_ppo_agent(None) was pathlib's TypeError ("" read the current folder) and name=5 was
    taken as the agent's label: a ConfigError naming path or name."""
    from domino_env.agents.ppo import PPOAgent

    for bad in (None, "", 5):
        for call, args in ((load_ppo_agent, (bad, CUBAN)), (read_metadata, (bad,))):
            with pytest.raises(ConfigError, match="'path'.*a model folder") as info:
                call(*args)
            assert info.value.field == "path"
    for bad in (5, ["ppo"], b"ppo", ""):  # "" became "ppo" here where PPOAgent(name="") is refused
        with pytest.raises(ConfigError, match="'name'.*a non-empty string") as info:
            load_ppo_agent(RELEASED, CUBAN, name=bad)
        assert info.value.field == "name"
    for bad in (5, None, ""):
        with pytest.raises(ConfigError, match="'name'.*a non-empty string"):
            PPOAgent(None, np.ones(3), name=bad)
    assert load_ppo_agent(RELEASED, CUBAN).name == "ppo"
    assert load_ppo_agent(str(RELEASED), CUBAN, name="mine").name == "mine"


def test_metadata_with_env_kwargs_not_an_object(tmp_path):
    meta = tmp_path / "metadata.json"
    meta.write_text(json.dumps({"observation_spec_hash": "x", "observation_scaling": "y", "env_kwargs": [1]}))
    with pytest.raises(CheckpointError, match="'env_kwargs' must be a JSON object"):
        load_metadata(meta)
    meta.write_text(json.dumps({"observation_spec_hash": "x", "observation_scaling": "y"}))
    assert load_metadata(meta)["observation_spec_hash"] == "x"


@pytest.mark.parametrize(
    "policy, words",
    [
        (b"not a torch file", "corrupt model (a tensor file inside it cannot be unpickled)"),
        # another model's weights: sound files, wrong shapes for this network; torch's first line
        # ("Error(s) in loading state_dict for ...:") only announces the lines that say what is wrong
        ("mexican_train_4p_d12", "Stable-Baselines3 cannot load it (RuntimeError: Error(s) in loading state_dict for "
                                 "MaskableActorCriticPolicy: size mismatch for "),
    ],
)
def test_what_only_stable_baselines3_can_see_is_a_checkpoint_error_too(released_copy, tmp_path, policy, words):
    """A member that passes its CRC but is not this model's torch file (rewritten inside the zip)."""
    if isinstance(policy, str):
        with zipfile.ZipFile(ROOT / "checkpoints" / policy / "model.zip") as zf:
            policy = zf.read("policy.pth")
    folder = tmp_path / "bad"
    shutil.copytree(released_copy, folder)
    src, tmp = folder / "model.zip", folder / "rebuilt.zip"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for item in zin.infolist():
            zout.writestr(item, policy if item.filename == "policy.pth" else zin.read(item))
    tmp.replace(src)
    read_metadata(folder)  # the archive itself is sound
    with pytest.raises(CheckpointError, match=r"model\.zip: " + re.escape(words)):
        make_agent(f"ppo:{folder}", CUBAN)
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", "--game", "cuban", "--agents",
                           f"ppo:{folder}", "greedy", "random", "greedy", "--rounds", "4", "--no-progress"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and words in lines[0], proc.stderr


def test_a_tensor_file_that_does_not_unpickle_says_corrupt_without_torchs_unsafe_advice(released_copy, tmp_path):
    """A policy.pth that is a torch file whose pickle torch's safe loader refuses: the message
    was torch's, which advises loading with weights_only=False (running the file's code)."""
    import io
    from fractions import Fraction

    import torch

    folder = tmp_path / "bad"
    shutil.copytree(released_copy, folder)
    buffer = io.BytesIO()
    torch.save({"x": Fraction(1, 3)}, buffer)  # not among the types weights_only loads
    src, tmp = folder / "model.zip", folder / "rebuilt.zip"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for item in zin.infolist():
            zout.writestr(item, buffer.getvalue() if item.filename == "policy.pth" else zin.read(item))
    tmp.replace(src)
    with pytest.raises(CheckpointError) as err:
        make_agent(f"ppo:{folder}", CUBAN)
    assert str(err.value).endswith("model.zip: corrupt model (a tensor file inside it cannot be unpickled): "
                                   "copy or download the model again")
    assert "weights_only" not in str(err.value)


@pytest.mark.parametrize(
    "release, config, trained, wanted",
    [
        ("cuban_4p_teams_action_scores", {}, "cuban (line game)", "mexican_train"),
        ("mexican_train_4p_d12", CUBAN, "mexican_train", "cuban (line game)"),
    ],
)
def test_a_model_of_the_other_game_family_is_refused_naming_both_games(release, config, trained, wanted):
    """A line-game model asked to play Mexican Train (or the reverse) says so first, not a
    seats / set difference (the released Mexican Train model records ``game: null``: its env id says)."""
    folder = ROOT / "checkpoints" / release
    with pytest.raises(SpecMismatchError) as info:
        make_agent(f"ppo:{folder}", config)
    assert isinstance(info.value, DominoError)
    assert str(info.value) == (
        f"model {folder / 'model.zip'} was trained on {trained}, not {wanted}; use a model trained for "
        f"{wanted.split()[0]} (domino-train --game {wanted.split()[0]})"
    )


def test_a_line_model_for_another_line_game_names_the_game_among_the_differences():
    with pytest.raises(SpecMismatchError, match=r"differs in: game cuban vs block, max_pip 9 vs 6, "):
        make_agent(f"ppo:{RELEASED}", {"preset": "block"})


def test_a_model_of_the_other_game_is_one_line_from_the_command_line():
    proc = subprocess.run(
        [sys.executable, "-m", "domino_env.train.evaluate", "--agents", f"ppo:{RELEASED}", "greedy", "greedy",
         "greedy", "--rounds", "4", "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.splitlines() == [  # one line naming the flag, no usage block
        f"domino-evaluate: error: --agents ppo:{RELEASED}: model {RELEASED / 'model.zip'} was trained on "
        "cuban (line game), not mexican_train; use a model trained for mexican_train (domino-train --game "
        "mexican_train) (domino-evaluate --help lists every option)"
    ]


def test_an_edited_spec_hash_alone_says_the_layout_differs(released_copy, tmp_path):
    """Same game, seats, set and size but another hash: the message said "differs in: ." (empty)."""
    folder = tmp_path / "edited"
    shutil.copytree(released_copy, folder)
    meta = json.loads((folder / "metadata.json").read_text())
    meta["observation_spec_hash"] = "0123456789abcdef"
    (folder / "metadata.json").write_text(json.dumps(meta))
    with pytest.raises(SpecMismatchError, match=r"differs in: the observation layout only \(same game, seats, set and size\)\. Use"):
        make_agent(f"ppo:{folder}", CUBAN)


def test_without_the_train_extra_a_model_names_the_extra(released_copy, monkeypatch):
    """The library alone (no sb3-contrib): loading a model was a bare ModuleNotFoundError from
    inside agents/ppo.py; the commands already named the extra, the Python API now does too."""
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if not installed
    with pytest.raises(ModuleNotFoundError) as info:  # an ImportError, which the commands name the extra of
        make_agent(f"ppo:{released_copy}", CUBAN)
    assert str(info.value) == (f'a trained model ({released_copy / "model.zip"}) loads with sb3-contrib and torch: '
                               'pip install "domino-env[train]" (missing: sb3_contrib)')  # fmt: skip
    assert info.value.name == "sb3_contrib"


def test_a_released_model_path_outside_the_clone_says_where_the_releases_are(tmp_path, monkeypatch):
    """Installed from a wheel, `ppo:checkpoints/...` (as the docs write it) finds nothing: the
    message says that the releases are files of the clone, not of the package."""
    monkeypatch.chdir(tmp_path)  # a project of the user's: no checkpoints/ folder here
    with pytest.raises(CheckpointNotFoundError) as info:
        read_metadata("checkpoints/mexican_train_4p_d12_action_scores")
    assert str(info.value) == (
        "no trained model at checkpoints/mexican_train_4p_d12_action_scores (checkpoints/mexican_train_4p_d12_"
        "action_scores.zip does not exist): give a folder written by domino-train or its .zip (the released "
        "models are in the checkpoints/ folder of the repository's clone, not in the installed package: give "
        "their full path)"
    )
    with pytest.raises(CheckpointNotFoundError) as info:  # any other path: no word about releases
        read_metadata(tmp_path / "checkpoints" / "mine")
    assert str(info.value).endswith("give a folder written by domino-train or its .zip")


def test_an_unknown_game_name_is_refused_not_read_as_a_line_game():
    """spec_for / observation_scale / scaling_name read any name but "mexican_train" as a line
    game: observation_scale(4, 12, "mexican-train") was the line-game scaling, 271 floats."""
    from domino_env.agents.ppo import observation_scale, scaling_name, spec_for

    for call in (lambda g: spec_for(4, 12, g), lambda g: observation_scale(4, 12, g), scaling_name):
        for bad in ("mexican-train", "Block", None):
            with pytest.raises(ConfigError) as info:
                call(bad)
            assert info.value.field == "game"
    assert observation_scale(4, 12, "cuban").shape == observation_scale(4, 12, "line").shape == (271,)
    assert observation_scale(4, 12).shape == (449,) and scaling_name("draw") == scaling_name("line")


def test_another_observation_scaling_is_refused_naming_both(released_copy, tmp_path):
    """metadata.json naming a scaling this loader does not apply: the network would be fed inputs
    scaled otherwise than in training. Refused before the model loads, naming both scalings."""
    folder = tmp_path / "scaled"
    shutil.copytree(released_copy, folder)
    meta = json.loads((folder / "metadata.json").read_text())
    (folder / "metadata.json").write_text(json.dumps({**meta, "observation_scaling": "line-unit-v0"}))
    with pytest.raises(SpecMismatchError, match=r"uses observation scaling 'line-unit-v0'; this loader applies 'line-unit-v1'$"):
        load_ppo_agent(folder, CUBAN)


def test_metadata_naming_another_policy_input_than_the_model_takes_is_refused(released_copy, tmp_path):
    """The released flat model (184 inputs) with metadata.json claiming the action-features input:
    the two files do not belong together, and the loader says so instead of building an agent."""
    folder = tmp_path / "mixed"
    shutil.copytree(released_copy, folder)
    meta = json.loads((folder / "metadata.json").read_text())
    assert "policy_input" not in meta  # the flat observation input
    (folder / "metadata.json").write_text(json.dumps({**meta, "policy_input": "action-features-v1"}))
    with pytest.raises(SpecMismatchError, match=r"takes network inputs of shape \(184,\), but its metadata's "
                       r"policy_input 'action-features-v1' gives \(\d+,\) here .*do not belong together"):  # fmt: skip
        load_ppo_agent(folder, CUBAN)


def test_a_model_numpy_cannot_read_says_which_numpy_it_needs(released_copy, tmp_path):
    """numpy 1 loading a model saved with numpy 2 (SB3 pickles the spaces, naming numpy._core.*,
    which numpy 1 lacks) was "module 'numpy' is not installed". Made here with a space pickle that
    names a numpy._core module no numpy has: the loader and the command name the numpy needed."""
    import base64

    folder = tmp_path / "numpy2"
    shutil.copytree(released_copy, folder)
    src, tmp = folder / "model.zip", folder / "rebuilt.zip"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "data":
                doc = json.loads(data)
                doc["observation_space"][":serialized:"] = base64.b64encode(b"cnumpy._core.no_such\nX\n.").decode()
                data = json.dumps(doc).encode()
            zout.writestr(item, data)
    tmp.replace(src)
    with pytest.raises(CheckpointError) as err:
        make_agent(f"ppo:{folder}", CUBAN)
    assert str(err.value) == (f"{src}: saved with numpy 2, which this numpy {np.__version__} cannot read: "
                              "pip install 'numpy>=2'")  # fmt: skip
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", "--game", "cuban", "--agents",
                           f"ppo:{folder}", "greedy", "random", "greedy", "--rounds", "4", "--no-progress"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "cannot read: pip install 'numpy>=2'" in lines[0], proc.stderr
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.ppo", "--game", "cuban", "--policy", "mlp",
                           "--init-from", str(folder), "--out", str(tmp_path / "run"), "--no-progress"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "numpy < 2 cannot read: pip install 'numpy>=2'" in lines[0], proc.stderr
    assert not (tmp_path / "run").exists()


def test_a_run_folder_stopped_before_its_first_save_says_so(tmp_path):
    """A run killed (SIGKILL) before its first model leaves only metadata.json: --resume found
    "no trained model" and named no way on."""
    (tmp_path / "metadata.json").write_text('{"status": "training"}')
    with pytest.raises(CheckpointNotFoundError, match=r"its run stopped before its first model was saved: "
                                                      r"domino-train --overwrite starts it again\)$"):  # fmt: skip
        load_ppo_agent(tmp_path)


def test_a_run_folder_stopped_before_its_model_zip_names_its_best_model(tmp_path):
    """A run stopped (a full disk, SIGKILL) after its first best_model.zip, before model.zip: the
    hint said to start again with --overwrite, which deletes that model."""
    (tmp_path / "metadata.json").write_text('{"status": "training"}')
    (tmp_path / "best_model.zip").write_bytes(b"a model")
    with pytest.raises(CheckpointNotFoundError, match=re.escape(
            f"its best model is {tmp_path / 'best_model.zip'}: give that path to go on from it)")):  # fmt: skip
        load_ppo_agent(tmp_path)
