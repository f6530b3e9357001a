"""Reading a trained model's files before anything loads them: the model archive and its
``metadata.json`` (used by :mod:`domino_env.agents.ppo`, which re-exports these names).

A missing or corrupt checkpoint (empty, truncated, random bytes, a damaged member, missing or
garbled ``metadata.json``) is refused with a :class:`~domino_env.core.errors.CheckpointError`
that names the file and what is wrong; the command lines print it as one line.
"""

from __future__ import annotations

import json
import os
import stat
import zipfile
import zlib
from pathlib import Path
from typing import Any

from domino_env.core.errors import CheckpointError, CheckpointNotFoundError, ConfigError
from domino_env.core.files import read_at_most

#: File names inside a model folder written by ``domino-train``.
MODEL_FILE = "model.zip"
METADATA_FILE = "metadata.json"
#: Members of every Stable-Baselines3 model archive (``model.save``) that loading needs.
SB3_MEMBERS = ("data", "policy.pth")
#: ``metadata.json`` keys the loader checks a model against (written by ``domino_env.train.ppo``).
METADATA_KEYS = ("observation_spec_hash", "observation_scaling")
_ZIP_MAGIC = b"PK\x03\x04"
#: The largest ``metadata.json`` read (the released ones are a few kB): a huge file, or one linked
#: to ``/dev/zero``, is refused rather than read whole into memory.
MAX_METADATA_BYTES = 16 * 2**20


def _not_regular(path: Path, mode: int) -> CheckpointError | None:
    """The error for a model file that is not a regular file: opening a FIFO waits for a writer
    forever, and a device (``/dev/zero``) never ends."""
    if stat.S_ISREG(mode):
        return None
    return CheckpointError(f"{path}: not a regular file (a {'folder' if stat.S_ISDIR(mode) else 'FIFO, device or socket'}); "
                           "give the model's own file")  # fmt: skip


#: What a model whose tensor file does not unpickle is called (torch's own text advises loading
#: it with weights_only=False, which runs the file's code: not advice for a damaged file).
UNPICKLING_FAILED = "corrupt model (a tensor file inside it cannot be unpickled): copy or download the model again"


def check_numpy_reads_it(model: str | Path, exc: ImportError) -> None:
    """Raise a :class:`CheckpointError` when loading ``model`` failed for want of ``numpy._core``:
    Stable-Baselines3 pickles a model's spaces, and one saved with numpy 2 (every released model)
    names numpy 2's modules, which numpy 1 lacks. Any other missing module is left to the caller."""
    if (exc.name or "").startswith("numpy._core"):
        import numpy as np

        raise CheckpointError(f"{model}: saved with numpy 2, which this numpy {np.__version__} cannot read: "
                              "pip install 'numpy>=2'") from exc  # fmt: skip


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (torch's state-dict errors run to many lines); a
    first line that only announces the lines below (ends with ``:``) gets the first of them, and
    how many more there are."""
    lines = [x.strip() for x in str(exc).strip().splitlines() if x.strip()] or [""]
    if len(lines) > 1 and lines[0].endswith(":"):
        more = f" (and {len(lines) - 2} more)" if len(lines) > 2 else ""
        return f"{lines[0]} {lines[1]}{more}"
    return lines[0]


def check_model_file(model: str | Path) -> None:
    """Refuse a model archive that cannot be a Stable-Baselines3 model, before loading it.

    Reads the whole file once (CRC of every member), so a damaged archive is named here rather
    than deep inside ``torch.load``.

    Raises:
        CheckpointNotFoundError: ``model`` does not exist.
        CheckpointError: it is not a regular file (a FIFO, a device), empty, not a zip archive
            (random bytes, another format), truncated (a zip whose end is missing), corrupt (a
            member fails its CRC), not a Stable-Baselines3 model (no ``data`` / ``policy.pth``) or
            its ``data`` member is not JSON. The message names the file.
    """
    model = Path(model)
    try:
        info = model.stat()
        if problem := _not_regular(model, info.st_mode):
            raise problem
        size = info.st_size
        with model.open("rb") as f:
            head = f.read(4)
    except FileNotFoundError:
        raise CheckpointNotFoundError(f"{model}: no such model file") from None
    except OSError as exc:
        raise CheckpointError(f"{model}: cannot be read ({exc.strerror or exc})") from None
    if size == 0:
        raise CheckpointError(f"{model}: empty file (0 bytes), not a trained model")
    truncated = CheckpointError(
        f"{model}: truncated zip archive ({size:,} bytes, its end is missing): copy or download the model again"
    )
    if not zipfile.is_zipfile(model):
        if head == _ZIP_MAGIC:
            raise truncated
        raise CheckpointError(
            f"{model}: not a zip archive ({size:,} bytes starting with {head!r}); a model written "
            "by domino-train is a Stable-Baselines3 .zip"
        )
    try:
        with zipfile.ZipFile(model) as zf:
            # A cut shortly after one of the stored (uncompressed) .pth members, themselves zip
            # archives, leaves that inner archive's directory as the last one in the file: zipfile
            # then lists the inner members, placed after the file's start. The file's own first
            # member starts at byte 0.
            if head == _ZIP_MAGIC and min((i.header_offset for i in zf.infolist()), default=0) > 0:
                raise truncated
            names = set(zf.namelist())
            missing = [m for m in SB3_MEMBERS if m not in names]
            if missing:
                raise CheckpointError(
                    f"{model}: a zip archive but not a Stable-Baselines3 model (no "
                    f"{', '.join(missing)} inside)"
                )
            bad = zf.testzip()
            if bad is not None:
                raise CheckpointError(f"{model}: corrupt zip archive (member {bad!r} fails its CRC check)")
            data = zf.read("data")
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise CheckpointError(f"{model}: corrupt zip archive ({exc})") from None
    try:
        json.loads(data)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError
        raise CheckpointError(
            f"{model}: corrupt Stable-Baselines3 model (its 'data' member is not JSON)"
        ) from None


def load_metadata(meta: str | Path) -> dict[str, Any]:
    """The ``metadata.json`` of a model, checked for what loading needs.

    Raises:
        CheckpointNotFoundError: the file does not exist.
        CheckpointError: it is not a regular file (a FIFO, a device), holds more than
            :data:`MAX_METADATA_BYTES`, is empty, not UTF-8 text, not valid JSON (the message gives line and
            column), not a JSON object, lacks ``observation_spec_hash`` / ``observation_scaling``
            (strings) or has an ``env_kwargs`` that is not an object. The message names the file.
    """
    meta = Path(meta)
    try:
        if problem := _not_regular(meta, meta.stat().st_mode):
            raise problem
        raw = read_at_most(meta, MAX_METADATA_BYTES)
    except FileNotFoundError:
        raise CheckpointNotFoundError(f"{meta}: no such file") from None
    except OSError as exc:
        raise CheckpointError(f"{meta}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_METADATA_BYTES:
        raise CheckpointError(f"{meta}: holds more than {MAX_METADATA_BYTES // 2**20} MiB, not a model's metadata")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CheckpointError(f"{meta}: not UTF-8 text (byte {exc.start} is {raw[exc.start:exc.start + 1]!r})") from None
    if not text.strip():
        raise CheckpointError(f"{meta}: empty file, not a model's metadata")
    try:
        metadata = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CheckpointError(
            f"{meta}: not valid JSON ({exc.msg}; line {exc.lineno}, column {exc.colno})"
        ) from None
    if not isinstance(metadata, dict):
        kind = {type(None): "null", bool: "true/false", int: "a number", float: "a number", str: "a string"}
        raise CheckpointError(f"{meta}: a JSON object expected, got {kind.get(type(metadata), 'a list')}")
    missing = [k for k in METADATA_KEYS if not isinstance(metadata.get(k), str)]
    if missing:
        raise CheckpointError(
            f"{meta}: no {' / '.join(missing)} (a string): not the metadata domino-train writes, so "
            "the model's observation layout cannot be checked"
        )
    if not isinstance(metadata.get("env_kwargs", {}), dict):
        raise CheckpointError(f"{meta}: 'env_kwargs' must be a JSON object")
    return metadata


def _refuse_a_folder(path: Path) -> None:
    if path.is_dir():
        raise CheckpointNotFoundError(f"{path} is a folder, not a file: a model folder holds the files "
                                      f"{MODEL_FILE} and {METADATA_FILE}")


def read_metadata(path: str | Path) -> tuple[Path, dict[str, Any]]:
    """``(model zip path, metadata dict)`` for a model folder or a model ``.zip`` file, both
    checked (:func:`check_model_file`, :func:`load_metadata`) before anything loads them.

    Raises:
        CheckpointNotFoundError: no model or no ``metadata.json`` found (also a
            ``FileNotFoundError``).
        CheckpointError: the model archive or the metadata is corrupt (the message names the
            file and what is wrong).
        ConfigError: ``path`` is not a non-empty str or ``os.PathLike`` (None was pathlib's
            TypeError; "" read the current folder).
    """
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise ConfigError("path", path, "a model folder written by domino-train or domino-bc, or its .zip (str or os.PathLike)")
    path = Path(path).expanduser()  # "ppo:~/..." reaches here unexpanded by the shell
    if path.suffix in (".zip", ".json"):  # a model.zip / metadata.json made a folder
        _refuse_a_folder(path)
    if path.is_dir():
        model, meta = path / MODEL_FILE, path / METADATA_FILE
    elif path.is_file() and path.suffix != ".zip":  # e.g. the run's metadata.json itself
        raise CheckpointNotFoundError(
            f"{path} is not a model .zip: give the folder written by domino-train (it holds "
            f"{MODEL_FILE} and {METADATA_FILE}) or its .zip"
        )
    else:
        model = path if path.suffix == ".zip" else path.with_suffix(".zip")
        meta = model.parent / METADATA_FILE
    for found in (model, meta):
        _refuse_a_folder(found)
        if found.exists() and (problem := _not_regular(found, found.stat().st_mode)):  # not "does not exist"
            raise problem
    if not model.is_file():
        where = f"{path}" if model == path else f"{path} ({model} does not exist)"
        hint = ""
        if not path.is_absolute() and path.parts[:1] == ("checkpoints",):  # a release, outside the clone?
            hint = (" (the released models are in the checkpoints/ folder of the repository's clone, "
                        "not in the installed package: give their full path)")  # fmt: skip
        if path.is_dir() and meta.is_file() and (path / "best_model.zip").is_file():  # stopped before model.zip
            hint = (f" (its run stopped before its model.zip was saved; its best model is {path / 'best_model.zip'}: "
                    "give that path to go on from it)")  # fmt: skip
        elif path.is_dir() and meta.is_file():  # a run stopped hard (SIGKILL) before its first save
            hint = " (its run stopped before its first model was saved: domino-train --overwrite starts it again)"
        elif path.is_dir() and (path / "domino_rllib.json").is_file():
            hint = " (it is a run of domino-rllib: load it with rllib:PATH)"
        raise CheckpointNotFoundError(
            f"no trained model at {where}: give a folder written by domino-train or its .zip{hint}"
        )
    if not meta.is_file():
        raise CheckpointNotFoundError(
            f"no {METADATA_FILE} next to {model}: cannot check the model's observation spec (ppo: loads the "
            "folders domino-train and domino-bc write; for a model of your own, pass an agent function "
            "to domino_env.train.evaluate.evaluate: docs/evaluation.md#a-model-trained-in-your-own-script)"
        )
    check_model_file(model)
    return model, load_metadata(meta)


def model_game(metadata: dict[str, Any]) -> str | None:
    """The game a model was trained on (``"mexican_train"``, ``"block"``, ``"draw"``,
    ``"cuban"``): ``metadata["game"]``, else read from ``metadata["env_id"]`` (older Mexican Train
    runs record ``game: null``); None when neither says."""
    game = metadata.get("game")
    if isinstance(game, str):
        return game
    env_id = metadata.get("env_id")
    if isinstance(env_id, str) and env_id.startswith("dominoes/"):
        return env_id.removeprefix("dominoes/").rsplit("-v", 1)[0].lower()
    return None


def agent_label(name: Any, default: str) -> str:
    """The label of a loaded model in tournament tables: ``name``, or ``default`` when None.

    Raises:
        ConfigError: ``name`` is neither None nor a non-empty string (checked before any loading).
    """
    if name is None:
        return default
    if not isinstance(name, str) or not name:
        raise ConfigError("name", name, f"None (the label {default!r}) or a non-empty string: the label in tournament tables")
    return name
