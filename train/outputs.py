"""Where a command writes: the checks of an output file or run folder made before any work (so a
command does not fail once its results are in), and stdout written whole (``--json -``, ``-o -``).
Re-exported by :mod:`domino_env.train.cli`."""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

from domino_env.core.errors import DominoError

#: The errors of a write that the disk refused, which :func:`~domino_env.train.cli.launch` reports in one line.
WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})


def write_failure(exc: OSError) -> str:
    """The one line (after ``CMD: error: ``) of a write the disk refused."""
    if not exc.filename:  # (stdout redirected to a full disk, say)
        return f"a write failed ({exc.strerror or exc}): the disk of a file or of a redirected output is full"
    return f"{exc.filename} could not be written ({exc.strerror or exc}); what was written before it is kept"


#: The write failures already said in one line (compared by identity: a library raises its
#: thread's error object again in the main thread).
_SAID: list[OSError] = []


def say_write_failure(command: str, exc: OSError) -> None:
    """Print ``CMD: error:`` and :func:`write_failure`'s line on stderr, once per error object. A
    write's own error names no file: when it was raised in TensorBoard's file writer, the
    ``filename`` that writer was given names it."""
    if any(exc is said for said in _SAID):
        return
    _SAID.append(exc)
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if not exc.filename and tb is not None and str(tb.tb_frame.f_globals.get("__name__")).startswith("tensorboard."):
        name = tb.tb_frame.f_locals.get("filename")
        if isinstance(name, (str, bytes, os.PathLike)):  # (bytes there)
            exc.filename = os.fsdecode(name)
    print(f"{command}: error: {write_failure(exc)}", file=sys.stderr, flush=True)


def write_failures_said() -> int:
    """How many write failures :func:`say_write_failure` has said in this process."""
    return len(_SAID)


#: The command that names a thread's write failure (:func:`report_thread_write_failures`).
_THREAD_COMMAND = ""


def report_thread_write_failures(command: str) -> None:
    """From now on, a write the disk refused in another thread of this process (TensorBoard's event
    writer, which then raises the same error in the main thread) is said in the one line of
    :func:`say_write_failure` instead of the thread's traceback; other errors keep Python's
    report. Installed once per process; the latest ``command`` names the line."""
    global _THREAD_COMMAND
    _THREAD_COMMAND = command
    if getattr(threading.excepthook, "says_write_failures", False):
        return
    previous = threading.excepthook

    def hook(args: Any) -> None:
        exc = args.exc_value
        if isinstance(exc, OSError) and exc.errno in WRITE_FAILURES:
            say_write_failure(_THREAD_COMMAND, exc)
        else:
            previous(args)

    hook.says_write_failures = True  # type: ignore[attr-defined]
    threading.excepthook = hook


class OutputError(DominoError):
    """A command's result could not be written (a full disk, a folder removed since its check): its
    message names the file and what is kept. :func:`~domino_env.train.cli.launch` prints it in one
    line and exits 1, as for the other write failures; 2 is for what the command was given."""


def not_a_folder(folder: str | os.PathLike[str]) -> str:
    """Why ``folder``, where an output file should go, is none: ``"is a file, not a folder"`` or
    ``"does not exist"`` (the messages of every command's output checks)."""
    return "is a file, not a folder" if os.path.exists(folder) else "does not exist"


def check_output_file(
    parser: argparse.ArgumentParser, flag: str, path: str | os.PathLike[str], keys: set[str], what: str
) -> None:
    """Refuse (``parser.error``, before any work) an output file the command could not write, or
    whose writing would lose something: an empty name, a folder, a missing parent folder (or a
    file in its place), something that is not a regular file (a FIFO), an existing file that is not
    an earlier output of this command (a JSON object with all of ``keys``; ``what`` names it in the
    message) nor empty (only whitespace: no output yet), a file or a folder this user may not write."""
    text = os.fspath(path)
    if not text.strip():
        parser.error(f"{flag}: give a file name (got an empty one)")
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):  # fail now, not after the whole run
        parser.error(f"{flag} {text}: folder {folder} {not_a_folder(folder)}")
    if os.path.isdir(text):
        parser.error(f"{flag} {text}: is a folder; give a file name such as results.json")
    if text.endswith(tuple(filter(None, (os.sep, os.altsep)))):  # out/ was written as the file out
        parser.error(f"{flag} {text}: names a folder (it ends in {text[-1]}), and there is none; give a file "
                     "name such as results.json")  # fmt: skip
    if os.path.exists(text) and not os.path.isfile(text):  # reading a FIFO or a pipe would block
        parser.error(f"{flag} {text}: exists and is not a regular file; give a file name")
    if os.path.islink(text) and not os.path.exists(text):  # "exists and is not a result" said the check below
        parser.error(f"{flag} {text}: is a link to {os.readlink(text)}, which does not exist; give a file name")
    if os.path.lexists(text) and not _replaceable(text, keys):
        parser.error(f"{flag} {text}: the file exists and is not {what} (it would be overwritten); give another name")
    problem = unwritable(text)
    if problem:
        parser.error(f"{flag} {text}: {problem}")


def check_image_file(parser: argparse.ArgumentParser, flag: str, path: Path, example: str | os.PathLike[str]) -> None:
    """Refuse (``parser.error``, before any work) a picture the command could not write: a name
    without ``.png`` (``example`` shows one), a folder, a missing parent folder, something that is
    not a regular file (matplotlib writing into a FIFO waited for a reader forever), a file or a
    folder this user may not write."""
    if path.suffix.lower() != ".png" or path.is_dir():
        parser.error(f"{flag} {path}: give a .png file name (e.g. {example})")
    if not path.parent.is_dir():
        parser.error(f"{flag} {path}: folder {path.parent} {not_a_folder(path.parent)}")
    if path.exists() and not path.is_file():
        parser.error(f"{flag} {path}: exists and is not a regular file; give a file name")
    problem = unwritable(path)
    if problem:
        parser.error(f"{flag} {path}: {problem}")


def unwritable(path: str | os.PathLike[str]) -> str | None:
    """Why this user could not write the output file ``path`` (its folder exists; None: it can):
    an existing file it may not write, or a new file in a folder it may not write (a real try: a
    file made in the folder and removed, as ``os.access`` says yes to root everywhere, /proc and
    /sys included). Checked before any work, so that a command does not fail once its results
    are in."""
    text = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(text))
    too_long = _name_too_long(text, folder)
    if too_long:
        return too_long
    if os.path.exists(text):
        return None if os.access(text, os.W_OK) else "the file is not writable by this user"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"folder {folder} is not writable by this user"
    return _cannot_write_in(folder)


#: The most a file written beside an output adds to its name: ``.NAME.PID.partial`` (a file written
#: whole, then renamed over NAME), and a tournament's journal ``NAME.partial.jsonl`` written so.
BESIDE_NAME = 32


def _name_too_long(text: str, folder: str) -> str | None:
    """Why the output's name is too long for the files written beside it (a 250-character
    ``--record`` name played the game, then its ``.NAME.PID.partial`` could not be made), or None."""
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):  # (no such folder: said by the checks after)
        return None
    size = len(os.fsencode(os.path.basename(text)))
    if size + BESIDE_NAME <= limit:
        return None
    return (f"the file name is too long: {size} bytes, and the files written beside it (a partial copy, a "
            f"journal) add up to {BESIDE_NAME}; this folder takes names of up to {limit} bytes, so give one of "
            f"at most {limit - BESIDE_NAME}")


def _cannot_write_in(folder: str) -> str | None:
    """Why no file can be made in ``folder`` (a real try), or None."""
    import tempfile

    try:
        fd, name = tempfile.mkstemp(prefix=".domino-check-", dir=folder)
    except OSError as exc:
        return f"no file can be made in folder {folder} ({exc.strerror or exc})"
    try:
        os.close(fd)
    finally:  # (a Ctrl-C here would leave the empty file)
        os.unlink(name)
    return None


def output_folder_problem(path: str | os.PathLike[str]) -> str | None:
    """Why a run folder could not be made or written at ``path`` (None: it can): a file in its
    place, a file where a folder above it should be, or a read-only folder above it. Checked
    before any work, so that a run does not fail once started (an unwritable ``--out`` was a
    traceback after Ray or training had started). An empty name is refused: it is the current
    folder (``--out "$OUT"`` with ``OUT`` unset), whose run files ``--overwrite`` would delete."""
    if not os.fspath(path).strip():
        return "is empty: give a folder name (an empty one would be the current folder)"
    target = Path(os.path.abspath(os.fspath(path)))
    if target.exists():
        if not target.is_dir():
            return "exists and is not a folder"
        if not os.access(target, os.W_OK | os.X_OK):
            return "is a folder this user cannot write"
        return _cannot_make_in(target, "cannot write the run folder")
    parent = target.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is a file, not a folder"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"folder {parent} is not writable by this user"
    return _cannot_make_in(parent, "cannot make the run folder")


def _cannot_make_in(folder: Path, what: str) -> str | None:
    """Why no folder can be made in ``folder`` (a real try: ``os.access`` says yes to root
    everywhere, /proc included), or None."""
    import tempfile

    try:
        os.rmdir(tempfile.mkdtemp(prefix=".domino-check-", dir=folder))
    except OSError as exc:
        return f"{what} ({exc.strerror or exc})"
    return None


def _replaceable(path: str, keys: set[str]) -> bool:
    """``path`` holds a JSON object with all of ``keys``, or nothing yet (0 bytes or only
    whitespace: a name made beforehand with ``mktemp`` or ``touch``)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        data = json.loads(text) if text.strip() else None
    except (OSError, ValueError):
        return False
    return data is None or (isinstance(data, dict) and keys <= data.keys())


def write_stdout(text: str) -> None:
    """Write ``text`` to stdout whole (``--json -``, ``-o -``): every ``os.write``'s count is
    checked, where Python's buffered stdout dropped the rest of a short write (a full disk) without
    an error and the command exited 0 with half a file.

    Raises:
        BrokenPipeError: whoever read the output went away (``| head``).
        OSError: it could not be written whole (``ENOSPC``: a full disk), ``filename`` ``<stdout>``.
    """
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture): its own write
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    view = memoryview(text.encode(sys.stdout.encoding or "utf-8", sys.stdout.errors or "strict"))
    while view:
        try:
            n = os.write(fd, view)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, "<stdout>") from None
        if n <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "<stdout>")
        view = view[n:]
