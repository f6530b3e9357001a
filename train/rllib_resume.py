"""The run folder ``domino-rllib --resume RUN`` continues (:func:`read_run`): what it repairs
before reading it (a checkpoint swap a crash cut short, :func:`finish_checkpoint_swap`; a deleted
``RUN/domino_rllib.json``, put back from its copy in ``RUN/checkpoint/``), the checkpoint's pickles
checked before Ray starts (:func:`damaged_pickle`), and what a folder that holds no checkpoint is
told (:func:`not_resumable`, also for ``--out``). Re-exported by :mod:`domino_env.train.rllib_args`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import pickletools
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from domino_env.agents.rllib.agent import CHECKPOINT_DIR, METADATA_FILE, swap_copy
from domino_env.core.files import replace_text
from domino_env.train.cli import first_line, path_word
from domino_env.train.folder_lock import hold_run_folder

PROGRESS_FILE = "progress.jsonl"


def finish_checkpoint_swap(run: Path) -> str | None:
    """Finish what a crash (SIGKILL, an out-of-memory kill) cut short in ``save_checkpoint``'s
    swap. Between its renames ``checkpoint.old/`` (the earlier checkpoint) and ``checkpoint.saving/`` are left:
    the new one, whole when its ``domino_rllib.json`` (written last) is there, becomes
    ``checkpoint/`` and the run's ``domino_rllib.json`` its copy, as the swap would have done;
    else the earlier one is put back. After the renames a leftover ``checkpoint.old/`` is
    removed and the run's ``domino_rllib.json`` made the checkpoint's. Returns what was done, or
    None. (``save_checkpoint`` syncs the new checkpoint to the disk before the first rename, so
    this holds after a crash of the machine too.)"""
    final, old = run / CHECKPOINT_DIR, run / f"{CHECKPOINT_DIR}.old"
    whole = swap_copy(run)
    if whole is None and not (final.exists() and old.is_dir()):
        return None
    if whole == old:  # the new one was not written whole
        old.rename(final)
        return f"the earlier checkpoint put back ({old.name}/ as {final.name}/; the new one was not written whole)"
    if whole is None:  # both renames done, the old one not yet removed
        done = f"{old.name}/ removed"
    elif old.is_dir():  # the new one is whole: the swap's second rename
        done = f"the new checkpoint, written whole, put in place ({whole.name}/ as {final.name}/; {old.name}/ removed)"
    else:  # the first checkpoint (no earlier one to move aside), whole but not renamed
        done = f"the first checkpoint, written whole, put in place ({whole.name}/ as {final.name}/)"
    steps = []  # what was done, said when a later step is refused
    try:
        if whole is not None:
            whole.rename(final)
            steps.append(f"{whole.name}/ (the new checkpoint, whole) was put in place as {final.name}/")
        if old.is_dir():
            entries = sum(1 for _ in old.rglob("*"))
            try:
                shutil.rmtree(old, onerror=_removal_refused)
            except OSError:  # rmtree removed what came before the refused file: say so
                with contextlib.suppress(OSError):
                    if (left := sum(1 for _ in old.rglob("*"))) < entries:
                        steps.append(f"{old.name}/ was partly removed ({entries - left} of the {entries} files "
                                     "and folders in it)")  # fmt: skip
                raise
            steps.append(f"{old.name}/ was removed")
        own, copy = final / METADATA_FILE, run / METADATA_FILE  # the run's copy may predate the swap
        if own.is_file() and (not copy.is_file() or copy.read_bytes() != own.read_bytes()):
            replace_text(copy, own.read_text(encoding="utf-8"))
            done += f", {METADATA_FILE} taken from {final.name}/"
    except OSError as exc:
        exc.done = steps  # type: ignore[attr-defined]
        raise
    return done


def leftover_old(run: Path) -> bool:
    """``checkpoint.old/`` left beside a whole ``checkpoint/`` by a swap finished but for its removal
    (refused: a file in it made immutable; or cut short): the run's ``domino_rllib.json`` is already
    the checkpoint's copy, so there is nothing to finish but the removal, and no crash to tell of."""
    final, old = run / CHECKPOINT_DIR, run / f"{CHECKPOINT_DIR}.old"
    with contextlib.suppress(OSError):
        own, copy = final / METADATA_FILE, run / METADATA_FILE
        return (swap_copy(run) is None and old.is_dir() and own.is_file() and copy.is_file()
                and own.read_bytes() == copy.read_bytes())  # fmt: skip
    return False


def _removal_refused(function: Any, path: str, exc_info: Any) -> None:
    """``shutil.rmtree``'s onerror: its error raised naming ``path`` in full (its own names a file
    inside the folder only by its name), and that it was a removal."""
    exc = exc_info[1]
    if isinstance(exc, OSError) and exc.errno is not None:
        named = OSError(exc.errno, exc.strerror, path)
        named.removing = True  # type: ignore[attr-defined]
        raise named from exc
    raise exc


def damaged_pickle(folder: Path) -> str | None:
    """The first ``*.pkl`` file under ``folder`` (an RLlib checkpoint: the learner's and optimizer's
    state, the env runner's, the connectors', ...) whose pickle stream is cut short or garbled, as
    ``"PATH: why"``; None when every one is whole. Its opcodes are only parsed
    (``pickletools.genops``: nothing is unpickled, no code runs), so a damage inside a whole stream
    is left to RLlib's restore."""
    for path in sorted(folder.rglob("*.pkl")):
        try:
            with open(path, "rb") as f:
                for _ in pickletools.genops(f):
                    pass
        except OSError as exc:
            return f"{path}: cannot be read ({exc.strerror or exc})"
        except Exception as exc:  # ValueError: cut short (no STOP), an unknown opcode, ...
            return f"{path}: cut short or damaged, not a whole pickle ({first_line(exc)[:80]})"
    return None


def holds_checkpoint(folder: Path) -> bool:
    """``folder`` holds a checkpoint that ``--resume`` can continue from (``checkpoint/``, or the
    ``checkpoint.old/`` or whole ``checkpoint.saving/`` of a swap a crash cut short, which
    :func:`finish_checkpoint_swap` mends)."""
    return (folder / CHECKPOINT_DIR).is_dir() or swap_copy(folder) is not None


def start_again(run: Path) -> str:
    """What ``--resume RUN`` tells of a run folder nothing can be resumed from: a new run, given
    ``--out`` (a flag of a new run, not of ``--resume``), in a new folder or in this one emptied."""
    word = shlex.quote(path_word(run))
    return (f"start the run again with --out NEW_FOLDER, or move out the files you keep, remove {run} and start it "
            f"again with --out {word}")  # fmt: skip


def not_resumable(folder: Path, resume: bool = False) -> str | None:
    """What to do with a run folder that holds ``progress.jsonl`` but no checkpoint: a run killed
    (SIGKILL, a crash) before its first checkpoint, which nothing can resume (the other files
    named: a user's, or what is left of the run); None for any other folder. ``resume``: it was
    given as ``--resume`` (told :func:`start_again`), else as ``--out``."""
    with contextlib.suppress(OSError):
        names = sorted(entry.name for entry in folder.iterdir())
        if PROGRESS_FILE not in names or holds_checkpoint(folder):
            return None
        if names == [PROGRESS_FILE]:
            return ("holds only progress.jsonl, of a run stopped before its first checkpoint (killed?): nothing "
                    "in it can be resumed; remove the folder and start the run again")  # fmt: skip
        others = [name for name in names if name != PROGRESS_FILE]
        listed = [PROGRESS_FILE, *others[:3]] + ([f"{len(others) - 3} more"] if len(others) > 3 else [])
        shown = ", ".join(listed[:-1]) + f" and {listed[-1]}"
        why = (f" (removed? {METADATA_FILE} is written with it)" if METADATA_FILE in names else
               ", of a run stopped before its first checkpoint (killed?)")  # fmt: skip
        then = (start_again(folder) if resume else
                "give another --out, or move out the files you keep, remove the folder and start the run again")  # fmt: skip
        return f"holds {shown} but no {CHECKPOINT_DIR}/{why}: nothing in it can be resumed; {then}"
    return None


def _restore_metadata(parser: argparse.ArgumentParser, run: Path) -> None:
    """Put back a run's deleted ``domino_rllib.json`` from its copy in ``checkpoint/`` (written with
    it at every save: the same text), saying so on stderr; a parser error when it cannot be written."""
    copy, own = run / CHECKPOINT_DIR / METADATA_FILE, run / METADATA_FILE
    try:
        replace_text(own, copy.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        parser.error(f"--resume {run}: {own} is missing and could not be restored from its copy {copy} "
                     f"({getattr(exc, 'strerror', None) or exc}); copy it there ({shlex.join(['cp', str(copy), str(own)])}) and "
                     "resume again")  # fmt: skip
    print(f"--resume {run}: {own} was missing: restored from its copy in {run / CHECKPOINT_DIR}/", file=sys.stderr)


def read_run(parser: argparse.ArgumentParser, run: Path) -> dict[str, Any]:
    """The ``domino_rllib.json`` of the run folder ``--resume`` names (after
    :func:`finish_checkpoint_swap`, which says on stderr what it did, and with a deleted
    ``domino_rllib.json`` put back from ``checkpoint/``), or a parser error."""
    hold_run_folder(run, "then resume it")  # first: a swap being made by the command that trains it is not one to finish
    leftover = run.is_dir() and leftover_old(run)  # not a crash: only checkpoint.old/ is left to remove
    old = run / f"{CHECKPOINT_DIR}.old"
    try:
        repaired = finish_checkpoint_swap(run) if run.is_dir() else None
    except OSError as exc:  # a folder made immutable or read-only: one line (it was a traceback)
        removing = getattr(exc, "removing", False)
        what = (f"the rename of {exc.filename} to {exc.filename2} was refused" if exc.filename2 else
                f"{exc.filename} could not be {'removed' if removing else 'changed'}")  # fmt: skip
        fix = (f"make {exc.filename} and {Path(exc.filename).parent} writable" if removing and exc.filename else
               f"make {run} and the checkpoint folders in it writable")  # fmt: skip
        if leftover:  # its resumed run could not save: the swap renames checkpoint/ to checkpoint.old
            parser.error(f"--resume {run}: {old}/, the earlier checkpoint left behind (its removal refused or cut "
                         f"short), is still there beside the whole {run / CHECKPOINT_DIR}/ and its saves need the name: {what} "
                         f"({exc.strerror or exc}); {fix} (read-only or immutable?), then resume again")  # fmt: skip
        done = getattr(exc, "done", [])
        before = f"; done before the refusal: {', '.join(done)}" if done else "; the folder is left as it was"
        parser.error(f"--resume {run}: a checkpoint swap that a crash interrupted could not be finished: {what} "
                     f"({exc.strerror or exc}){before}; {fix} (read-only or immutable?), then resume again")  # fmt: skip
    if repaired and leftover:
        print(f"--resume {run}: removed {old}/, the earlier checkpoint left behind (its removal refused or cut short)",
              file=sys.stderr)  # fmt: skip
    elif repaired:
        print(f"--resume {run}: finished a checkpoint swap that a crash interrupted ({repaired})", file=sys.stderr)
    if not (run / METADATA_FILE).exists() and (run / CHECKPOINT_DIR / METADATA_FILE).is_file():  # deleted by hand
        _restore_metadata(parser, run)
    if not (run / METADATA_FILE).is_file() or not (run / CHECKPOINT_DIR).is_dir():
        if (run / METADATA_FILE).is_file() and run.name == CHECKPOINT_DIR:  # RUN/checkpoint: the loader's folder
            parser.error(f"--resume {run}: this is the run's checkpoint; give its run folder, --resume {run.parent}")
        if why := not_resumable(run, resume=True):
            parser.error(f"--resume {run}: {why}")
        again = start_again(run)
        if (run / METADATA_FILE).is_file():  # one of the pair removed by hand: say which
            parser.error(f"--resume {run}: {METADATA_FILE} is there but no {CHECKPOINT_DIR}/ (removed?): "
                         f"nothing to resume from; {again}")  # fmt: skip
        if (run / CHECKPOINT_DIR).is_dir():
            parser.error(f"--resume {run}: {CHECKPOINT_DIR}/ is there but no {METADATA_FILE}, here or in "
                         f"{CHECKPOINT_DIR}/ (removed?): the run's options are lost, so it cannot be resumed; {again}")  # fmt: skip
        if not run.exists():  # (a typo: "not a run folder" read as if the folder were there)
            parser.error(f"--resume {run}: does not exist; give the run folder of a domino-rllib run (its --out)")
        parser.error(f"--resume {run}: not a run folder of domino-rllib (no {METADATA_FILE} / {CHECKPOINT_DIR}/)")
    try:
        previous = json.loads((run / METADATA_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        parser.error(f"--resume {run}: {METADATA_FILE} is not readable JSON ({exc})")
    if not isinstance(previous, dict):
        parser.error(f"--resume {run}: {METADATA_FILE} is not a domino-rllib metadata object")
    return previous
