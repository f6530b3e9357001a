"""What a training run writes: the run folder (``model.zip``, ``best_model.zip``,
``metadata.json``, ``evaluations.json``, ``final_evaluation.md``) and the metadata that makes a
model loadable and reproducible (env id and version, full rules, observation spec hash and
scaling, library versions, the exact command, status).

``metadata["status"]``: ``"training"`` (written at the start; with a ``model.zip`` after the first
periodic evaluation), ``"interrupted"`` (SIGINT / SIGTERM: the model at that step was saved, the
folder is resumable with ``--resume``), ``"aborted"`` (a second signal stopped it without saving
that step's model: a ``model.zip``, if there is one, is the last periodic save), ``"trained"``
(training over, the final evaluation running), ``"done"``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shlex
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import domino_env
from domino_env.agents.action_scorer import FLAT_INPUT
from domino_env.agents.ppo import METADATA_FILE, MODEL_FILE, scaling_name, spec_for
from domino_env.core.config import from_preset, line_from_preset
from domino_env.core.errors import DominoError
from domino_env.core.files import read_at_most, replace_file, replace_text
from domino_env.envs import line_v0
from domino_env.envs.mexican_train_v0 import ENV_ID
from domino_env.train.cli import path_word
from domino_env.train.folder_lock import hold_run_folder
from domino_env.train.ladder import strip_tables

BEST_MODEL_FILE = "best_model.zip"
EVALUATIONS_FILE = "evaluations.json"
FINAL_EVALUATION_FILE = "final_evaluation.md"
LEARNING_CURVE_FILE = "learning_curve.png"
TENSORBOARD_DIR = "tb"
#: What a run writes into its folder (what ``--overwrite`` deletes; nothing else is touched).
#: ``domino-bc``: every DAgger round's labelled decisions (a dataset file, ``--dataset`` reads it).
DAGGER_SAMPLES_FILE = "dagger_samples.npz"
RUN_FILES = (MODEL_FILE, BEST_MODEL_FILE, METADATA_FILE, EVALUATIONS_FILE, FINAL_EVALUATION_FILE,
             LEARNING_CURVE_FILE, DAGGER_SAMPLES_FILE)  # fmt: skip


def claim_run_folder(name: str) -> Path:
    """Make and return a new, empty run folder ``name`` (a default such as
    ``runs/ppo_20261203_124027``), or ``name_2``, ``name_3``, ... when it exists: made atomically,
    so two runs started in the same second (a sweep) never share a folder."""
    base = Path(name)
    base.parent.mkdir(parents=True, exist_ok=True)
    k = 1
    while True:
        path = base if k == 1 else base.with_name(f"{base.name}_{k}")
        try:
            path.mkdir()
            return path
        except FileExistsError:
            k += 1
        except FileNotFoundError:  # a parent another run made was removed again by its failed start
            base.parent.mkdir(parents=True, exist_ok=True)


def missing_folders(path: str | Path) -> list[Path]:
    """``path`` and the folders above it that do not exist yet, innermost first: the folders that
    making it (``mkdir(parents=True)``, :func:`claim_run_folder`) creates. Taken before they are
    made, so that a failed start removes only folders of its own (:func:`remove_if_empty`)."""
    missing, folder = [], Path(path)
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def make_folders(path: str | Path) -> list[Path]:
    """``mkdir -p path``, returning the folders it made, innermost first (as absolute paths). Made
    one name at a time, so that ``new/../old`` lists ``new``, which it made, and not ``old``, which
    was there (:func:`missing_folders` reads the path as typed).

    Raises:
        OSError: a folder cannot be made (the ones made before it are in ``exc.made``)."""
    made: list[Path] = []
    path = Path(path)
    folder = Path(path.anchor or os.curdir).resolve()
    try:
        for part in path.parts[1 if path.anchor else 0 :]:
            folder = folder / part
            if not folder.exists():
                folder.mkdir()  # (a dangling link: FileExistsError, as mkdir -p)
                made.insert(0, folder)
            folder = folder.resolve()  # where the OS goes: a link's target, a ".." above it
    except OSError as exc:
        exc.made = made  # type: ignore[attr-defined]
        raise
    return made


def make_run_folder(path: str | Path) -> list[Path]:
    """Make the run folder ``path`` (``mkdir -p``) and hold it (:func:`hold_run_folder`) at the
    start of a run that writes it only at its end (``domino-bc``), so that a second command given
    the same new ``--out`` is refused before any work, as a folder that exists is since the checks.
    Returns the folders made, innermost first (:func:`make_folders`; for :func:`removed_if_left_empty`).

    Raises:
        DominoError: the folder cannot be made (the folders made for it are removed again).
        RunFolderBusyError: another command holds it. Nothing is removed: a folder this call made
            a moment ago is the other command's now.
    """
    try:
        made = make_folders(path)
    except OSError as exc:
        remove_made(getattr(exc, "made", []))
        raise DominoError(f"--out {path}: the run folder could not be made ({exc.strerror or exc})") from exc
    hold_run_folder(path)
    return made


def remove_made(made: Sequence[Path]) -> None:
    """Remove the folders :func:`make_folders` made (innermost first) that are left empty."""
    if made:
        remove_if_empty(made[0], made[1:])


def remove_if_empty(path: Path, made: Sequence[Path] = ()) -> None:
    """Remove a claimed run folder that a failed start left empty, then each folder of ``made``
    (innermost first: the folders above it that the command made, :func:`missing_folders`, such as
    ``runs/``) that is left empty. A folder that is not empty (another run's in it) stays, and so
    does every folder above it."""
    try:
        for folder in dict.fromkeys([Path(path), *map(Path, made)]):
            if folder.is_dir():
                if any(folder.iterdir()):
                    return
                folder.rmdir()
    except OSError:  # another run wrote into it meanwhile
        return


@contextlib.contextmanager
def removed_if_left_empty(path: Path, claimed: bool, made: Sequence[Path] = ()) -> Iterator[None]:
    """Around the work of a run whose default folder ``path`` was ``claimed``: remove it, and the
    folders of ``made`` above it (:func:`remove_if_empty`), if the work ends (a stop, an error, an
    abort) without writing anything into it."""
    try:
        yield
    finally:
        if claimed:
            remove_if_empty(path, made)


def check_overwrite_keeps(parser: argparse.ArgumentParser, args: argparse.Namespace, agents: dict[str, Any]) -> None:
    """With ``--overwrite``, refuse a trained model (``ppo:PATH``) inside ``--out`` among the
    ``agents`` (flag -> spec or specs): the run would delete it, then fail to load it."""
    if not (getattr(args, "overwrite", False) and args.out):
        return
    out = Path(args.out).resolve()
    for flag, specs in agents.items():
        for spec in [specs] if isinstance(specs, str) else specs or []:
            # ppo:PATH itself (its path may hold commas), or inside another spec (search:100,prior=ppo:PATH)
            text = str(spec)
            paths = [text[4:]] if text.startswith("ppo:") else re.findall(r"(?:^|[,=:])ppo:([^,]+)", text)
            for path in paths:
                if out == Path(path).resolve() or out in Path(path).resolve().parents:
                    parser.error(f"{flag} {spec}: --overwrite would delete the model {path} (it is in --out "
                                 f"{args.out}); copy it elsewhere or give another --out")  # fmt: skip


def clear_run_files(path: Path) -> list[str]:
    """Delete the files a run writes (:data:`RUN_FILES`, ``tb/``, half-written ``.*.partial`` and
    ``<run file>.partial.npz``) from the folder ``path`` (for ``--overwrite``); other files stay.
    Returns the names deleted."""
    import shutil

    path = Path(path)
    gone = []
    for entry in sorted(path.iterdir()) if path.is_dir() else []:
        name = entry.name
        if name == TENSORBOARD_DIR and entry.is_dir():
            shutil.rmtree(entry)
        elif (
            name in RUN_FILES
            or (name.startswith(".") and name.endswith(".partial"))
            or re.sub(r"(\.\d+)?\.partial\.npz$", "", name) in RUN_FILES  # an interrupted np.savez (datasets; .PID)
        ):
            entry.unlink()
        else:
            continue
        gone.append(name)
    return gone


def overwrite_note(path: Path, removed: Sequence[str], command: str) -> str:
    """What a run that ``--overwrite`` emptied says when it stops before writing its model (a stop
    while collecting, an abort): the old run's files :func:`clear_run_files` ``removed`` from
    ``path``, and ``command``, which makes the run there again; "" when it removed none."""
    if not removed:
        return ""
    return (f"--overwrite removed the old run's files from {path} at the start ({', '.join(removed)}): run the "
            f"command again to make the run there: {command}")  # fmt: skip


def versions() -> dict[str, str]:
    """Versions of the package and of the libraries a model depends on."""
    import gymnasium as gym
    import pettingzoo
    import sb3_contrib
    import stable_baselines3
    import torch

    return {
        "domino_env": domino_env.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "gymnasium": gym.__version__,
        "pettingzoo": pettingzoo.__version__,
        "torch": torch.__version__,
        "stable_baselines3": stable_baselines3.__version__,
        "sb3_contrib": sb3_contrib.__version__,
    }


#: ``git rev-parse --local-env-vars`` but the configuration ones (``-c safe.directory=...``): the
#: variables that point git at a repository.
_GIT_REPO_VARIABLES = frozenset(
    "GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_OBJECT_DIRECTORY GIT_DIR GIT_WORK_TREE GIT_IMPLICIT_WORK_TREE "
    "GIT_GRAFT_FILE GIT_INDEX_FILE GIT_NO_REPLACE_OBJECTS GIT_REPLACE_REF_BASE GIT_PREFIX GIT_INTERNAL_SUPER_PREFIX GIT_SHALLOW_FILE GIT_COMMON_DIR".split()
)


def source_commit(root: str | Path | None = None) -> dict[str, Any] | None:
    """The git commit of the code that runs, when it runs from a git clone (an editable install):
    ``{"commit": 40 hex digits, "dirty": True when tracked files differ from it}``; None when the
    package is not in a clone of its own (an installed copy) or git is missing. With the command,
    this is what re-makes a model: the command alone ran other code after later changes.
    ``root``: the folder to ask about (default: the one holding the ``domino_env`` package)."""
    import subprocess

    root = Path(domino_env.__file__).resolve().parents[1] if root is None else Path(root).resolve()
    # without the variables that name another repository (GIT_DIR, GIT_INDEX_FILE... set in a git
    # hook or by a user), which git -C does not override; no optional lock taken on the user's index
    env = {k: v for k, v in os.environ.items() if k not in _GIT_REPO_VARIABLES}

    def git(*args: str) -> str:  # os.fsdecode: a clone in a folder whose name is not UTF-8 (0xfb)
        return os.fsdecode(subprocess.run(["git", "--no-optional-locks", "-C", str(root), *args], capture_output=True,
                                          timeout=10, check=True, env=env).stdout).strip()  # fmt: skip

    try:
        if Path(git("rev-parse", "--show-toplevel")).resolve() != root:
            return None  # a repository around an installed copy (a venv inside a project)
        return {"commit": git("rev-parse", "HEAD"),
                "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None


#: The console script of each training module (``[project.scripts]`` of ``pyproject.toml``).
SCRIPTS = {"train.ppo": "domino-train", "train.bc": "domino-bc", "train.rllib": "domino-rllib",
           "train.evaluate": "domino-evaluate"}  # fmt: skip


def launcher(module: str, argv0: str | None = None) -> str:
    """How to start ``module`` (``"train.ppo"``) as the user started this command: its console
    script (``"domino-train"``) when ``argv0`` (default ``sys.argv[0]``) is one of the console
    scripts (``domino-bc`` names ``domino-train`` in its hints), else ``"python -m
    domino_env.MODULE"`` (``python -m train.ppo`` only runs from the root of a clone; this form
    runs from any folder)."""
    script = SCRIPTS.get(module)
    if script and Path(sys.argv[0] if argv0 is None else argv0).name in SCRIPTS.values():
        return script
    return f"python -m domino_env.{module}"


def command_line(module: str, argv: Sequence[str], argv0: str | None = None) -> str:
    """The command that reproduces a run, as the user started it (:func:`launcher`) with its
    arguments shell-quoted: ``domino-train ARGS`` or ``python -m domino_env.train.ppo ARGS``."""
    prog = launcher(module, argv0)
    return f"{prog} " + shlex.join(argv) if argv else prog


#: Options a resume command replaces (with their value) or drops (flags).
_RESUME_REPLACED = ("--resume", "--init-from", "--out", "--timesteps", "--policy")
_RESUME_DROPPED = ("--overwrite",)


def _options_but(argv: Sequence[str], replaced: Sequence[str], dropped: Sequence[str] = ("--overwrite",)) -> list[str]:
    """``argv`` without the ``replaced`` options (each with its value) and the ``dropped`` flags."""
    kept: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        name = a.split("=", 1)[0]
        if name in dropped:
            continue
        if name in replaced:
            skip = "=" not in a
            continue
        kept.append(a)
    return kept


def clone_on_command(argv: Sequence[str], out: Path, prog: str = "domino-bc") -> str:
    """The domino-bc command that clones on from the model an interrupted ``domino-bc`` run saved
    in ``out``: the run's options (rules, expert, dataset, cloning...) with ``--init-from OUT
    --out NEW_FOLDER`` instead of its ``--init-from`` / ``--out``, without ``--overwrite``."""
    kept = _options_but(argv, ("--init-from", "--out"))
    return f"{prog} " + shlex.join([*kept, "--init-from", path_word(out), "--out", "NEW_FOLDER"])


def resume_command(argv: Sequence[str], out: Path, remaining: int, prog: str = "domino-train") -> str:
    """The command that continues an interrupted run in its own folder (``prog``: how the run was
    started, :func:`launcher`, ``domino-train`` or ``python -m domino_env.train.ppo``): the
    run's options (game, rules, opponents, evaluation...) with ``--resume OUT --out OUT
    --timesteps REMAINING`` instead of its ``--resume`` / ``--init-from`` / ``--out`` /
    ``--timesteps`` / ``--policy`` (the model's policy is kept) and without ``--overwrite``."""
    kept = _options_but(argv, _RESUME_REPLACED, _RESUME_DROPPED)
    return f"{prog} " + shlex.join(["--resume", path_word(out), "--out", path_word(out),
                                    "--timesteps", str(max(1, remaining)), *kept])  # fmt: skip


def rllib_resume_command(argv: Sequence[str], out: Path, iterations: int, prog: str = "domino-rllib") -> str:
    """The command that continues an interrupted ``domino-rllib`` run: its options with ``--resume
    OUT --iterations ITERATIONS`` instead of its ``--resume`` / ``--out`` / ``--iterations``. The
    options that a resumed run does not take from the run (``--eval-rounds``, ``--time-limit``,
    ``--num-cpus``...) are given again; the ones it keeps are accepted with the run's values."""
    kept = _options_but(argv, ("--resume", "--out", "--iterations"), ())
    return f"{prog} " + shlex.join(["--resume", path_word(out), "--iterations", str(max(1, iterations)), *kept])


def config_of(rules: dict[str, Any], game: str = "mexican_train"):
    """The rules object (``MexicanTrainConfig`` / ``LineConfig``) of a full rules dict."""
    kwargs = dict(rules)
    if game != "mexican_train":
        kwargs.pop("preset", None)
        return line_from_preset(game, **kwargs)
    return from_preset(kwargs.pop("preset", "domino_cubano"), **kwargs)


def env_metadata(
    rules: dict[str, Any],
    game: str,
    env_kwargs: dict[str, Any],
    num_actions: int,
    policy_input: str = FLAT_INPUT,
    critic_input: str = "observation",
) -> dict[str, Any]:
    """The env part of ``metadata.json``: what the loader (``domino_env.agents.ppo``) checks
    (``policy_input``: what the actor reads, ``domino_env.agents.action_scorer.POLICY_INPUTS``;
    ``critic_input``: what the critic also read in training, ``--critic-input``)."""
    env_id = ENV_ID if game == "mexican_train" else line_v0.ENV_IDS[game]
    spec = spec_for(rules["num_players"], rules["max_pip"], game, config_of(rules, game))
    return {
        "env_id": env_id,
        "env_version": env_id.rsplit("-v", 1)[1],
        "game": game,
        "env_kwargs": env_kwargs,
        "rules": rules,
        "observation_spec_hash": spec.hash(),
        "observation_size": spec.size,
        "observation_scaling": scaling_name(game),
        "policy_input": policy_input,
        "critic_input": critic_input,
        "num_actions": int(num_actions),
        "package_version": domino_env.__version__,
        "versions": versions(),
        "source": source_commit(),
        "algorithm": "sb3_contrib.MaskablePPO",
    }


class RunFolder:
    """A run's output folder and its ``metadata.json`` (kept in memory, rewritten on change).

    Files are replaced atomically (written beside, then renamed), so an interruption while saving
    never leaves a truncated ``model.zip`` or ``metadata.json``.
    """

    def __init__(self, path: Path, metadata: dict[str, Any]):
        self.path = Path(path)
        self.metadata = metadata

    def create(self) -> RunFolder:
        """Make the folder and write ``metadata.json``.

        Raises:
            DominoError: the folder cannot be made or written, where the checks before the run
                could not see it (root on /proc, a full disk); the folders it made for it are
                removed again if left empty.
            RunFolderBusyError: another command holds the folder (:mod:`~domino_env.train.folder_lock`).
        """
        made: list[Path] = []
        try:
            made = make_folders(self.path)
            hold_run_folder(self.path)  # (a folder that existed is held since the checks)
            self.write_metadata()
        except OSError as exc:
            remove_made(made or getattr(exc, "made", []))
            raise DominoError(f"--out {self.path}: the run folder could not be written ({exc.strerror or exc})") from exc
        return self

    def _replace(self, name: str, write) -> Path:
        return replace_file(self.path / name, write)

    def write_metadata(self, **updates: Any) -> None:
        self.metadata.update(updates)
        self.write_text(METADATA_FILE, json.dumps(self.metadata, indent=1, default=str))

    def save_model(self, model: Any, name: str = MODEL_FILE) -> Path:
        """``model.save`` into the folder (``name``: ``model.zip`` or ``best_model.zip``)."""
        return self._replace(name, model.save)

    def write_evaluations(self, history: list[dict[str, Any]]) -> None:
        self.write_text(EVALUATIONS_FILE, json.dumps(strip_tables(history), indent=1))

    def write_text(self, name: str, text: str) -> Path:
        """Write ``text`` (UTF-8) to ``name`` in the folder through a temporary file: a signal in the
        middle leaves the earlier file whole, never half of the new one."""
        return replace_text(self.path / name, text)


def earlier_evaluations(path: Path, metadata: dict[str, Any]) -> list[dict[str, Any]]:
    """The periodic evaluations a run folder holds so far: its ``evaluations.json`` (written at
    every evaluation, so also after a hard stop), else ``metadata["evaluations"]``. A damaged
    ``evaluations.json`` (not a JSON list; not a regular file, or larger than the plots' limit, so
    never read whole) gives a warning; a periodic evaluation rewrites it."""
    from domino_env.train.plots import MAX_RUN_FILE_BYTES

    file = Path(path) / EVALUATIONS_FILE
    try:
        if file.exists() and not file.is_file():  # a FIFO waited for a writer forever, /dev/zero filled the memory
            raise ValueError("not a regular file")
        raw = read_at_most(file, MAX_RUN_FILE_BYTES)
        if len(raw) > MAX_RUN_FILE_BYTES:
            raise ValueError(f"larger than {MAX_RUN_FILE_BYTES // 2**20} MiB")
        history = json.loads(raw.decode("utf-8"))
        if isinstance(history, list):
            return history
        why = "not a JSON list"
    except FileNotFoundError:  # no evaluation yet, or a run from before the file existed
        why = ""
    except (OSError, ValueError, RecursionError) as exc:  # (RecursionError: nested too deeply)
        why = f"unreadable: {exc}"
    earlier = list(metadata.get("evaluations") or [])
    if why:
        warnings.warn(f"{file} is {why}; the {len(earlier)} earlier evaluations in metadata.json are used "
                      "instead (a periodic evaluation of this run rewrites the file)", stacklevel=2)  # fmt: skip
    return earlier

