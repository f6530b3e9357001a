"""Writing a file so that an error, a signal or a crash in the middle never leaves half of it: game
records, run folders (``model.zip``, ``metadata.json``, ...), ``domino-evaluate --json``, replay
pages."""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

#: Windows syncs a file only through a descriptor open for writing (EBADF on a read-only one).
_SYNC_NEEDS_WRITE = os.name == "nt"


def replace_file(target: Path, write: Callable[[BinaryIO], Any]) -> Path:
    """Write ``target`` with ``write(f)`` (``f`` a binary file) into ``.NAME.partial`` beside it, then
    rename it over ``target``: an error or a signal in the middle leaves the earlier file whole and
    no partial file. The new content reaches the disk (``fsync``) before the rename, and the rename
    before the call returns, so a crash of the machine leaves the earlier file or the new one, never
    an empty one (a signal after the rename, while the folder is synced, leaves the new one). The
    writer may close ``f`` (a ``TextIOWrapper`` around it does). A KeyboardInterrupt that a library's clean-up turned into its own error (torch's
    zip writer: ``RuntimeError: ... unexpected pos``) is raised as the KeyboardInterrupt.

    The new file keeps the earlier one's permission bits (and owner and group where this user may
    set them); a hard link to the earlier file keeps the earlier content. A symbolic link
    (``/dev/stdout``), a target that is not a regular file (a FIFO), or an existing file in a
    folder this user cannot write is written in place, as ``open(target, "wb")`` would; if that
    fails, a regular file's earlier content (up to 256 MiB) is written back. Two processes writing
    one target at once each use their own partial file (the second ``.NAME.PID.partial``).

    Raises:
        OSError: the file cannot be written (a new file in a read-only folder, a full disk)."""
    target = Path(target)
    in_place = target.is_symlink() or (target.exists() and not target.is_file())
    if not in_place and target.exists() and not os.access(target.parent, os.W_OK | os.X_OK):
        in_place = True  # no temporary file can be made beside it
    if in_place:
        _write_in_place(target, write)
        return target
    tmp = target.with_name(f".{target.name}.partial")
    try:
        try:  # another process writing the same file at once has its own (two domino-play of one record)
            f = open(tmp, "xb")
        except FileExistsError:
            if not _fresh(tmp):  # left by a killed process: taken over, so it goes with the rename
                f = open(tmp, "wb")
            else:
                tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
                f = open(tmp, "wb")
        with f:
            write(f)
            synced = not f.closed  # (a writer may close it: a TextIOWrapper around it, say)
            if synced:
                f.flush()
                _fsync(f.fileno())
        if not synced:
            sync_file(tmp)
        _keep_mode_and_owner(target, tmp)
        os.replace(tmp, target)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        interrupt = _interrupt_behind(exc)
        if interrupt is not None:
            raise interrupt from None
        raise_naming(exc, target)
    sync_folder(target.parent)  # the new file is in place: a signal here leaves it so
    return target


def _fresh(path: Path, seconds: float = 60.0) -> bool:
    """``path`` was written in the last ``seconds``: another process may be writing it now."""
    try:
        return time.time() - path.stat().st_mtime < seconds
    except OSError:
        return False


#: The largest earlier file kept in memory to be written back when writing it in place fails.
_RESTORE_BYTES = 256 * 2**20


def _write_in_place(target: Path, write: Callable[[BinaryIO], Any]) -> None:
    """``open(target, "wb")`` and ``write``; when that fails, the earlier content of a regular file
    is written back (best effort: a full disk had room for it before), so a failure does not
    leave it cut short."""
    earlier = None
    try:
        if target.is_file() and target.stat().st_size <= _RESTORE_BYTES:
            earlier = target.read_bytes()
    except OSError:
        pass
    try:
        with open(target, "wb") as f:
            write(f)
    except BaseException:
        if earlier is not None:
            try:
                with open(target, "wb") as f:
                    f.write(earlier)
            except OSError:
                pass
        raise


def read_at_most(path: str | os.PathLike[str], limit: int) -> bytes:
    """The file's first ``limit + 1`` bytes: enough to tell it is larger than ``limit`` without
    reading an endless one (``/dev/zero``, a pipe) whole; the size guard of the files the commands
    read (game records, tournament results).

    Raises:
        OSError: the file cannot be read."""
    with open(path, "rb") as f:
        return f.read(limit + 1)


def raise_naming(exc: BaseException, path: str | os.PathLike[str]) -> NoReturn:
    """Raise ``exc`` (being handled), as an OSError naming ``path`` when it is an OSError that names
    no file: a write's own error (``f.write``, numpy's, an fsync) does not, and the command's
    one line would not say which file failed."""
    if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from exc
    raise exc


def sync_file(path: str | os.PathLike[str]) -> None:
    """``fsync`` a file written by a library that keeps its file object to itself (``np.savez``),
    before it is renamed into place."""
    fd = os.open(path, os.O_RDWR if _SYNC_NEEDS_WRITE else os.O_RDONLY)
    try:
        _fsync(fd)
    finally:
        os.close(fd)


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """``fsync`` a folder, so that a rename in it survives a crash of the machine. Best effort: a
    system or file system that cannot sync a folder (Windows, some network mounts) is left as is."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def sync_tree(folder: str | os.PathLike[str]) -> None:
    """``fsync`` every file and folder under ``folder`` (a checkpoint a library wrote), before it is
    renamed into place."""
    for root, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            if os.path.isfile(path) and not os.path.islink(path):
                sync_file(path)
        sync_folder(root)


def replace_text(target: str | os.PathLike[str], text: str) -> Path:
    """:func:`replace_file` with ``text`` as UTF-8."""
    data = text.encode("utf-8")
    return replace_file(Path(target), lambda f: f.write(data))


def _fsync(fd: int) -> None:
    """``os.fsync``; a file system that has no fsync (EINVAL, ENOTSUP, ENOSYS) is left as is, while
    the errors of a real write (EIO, ENOSPC, EDQUOT) are raised."""
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.ENOSYS):
            raise


def _interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt that another exception was raised while handling (``exc.__context__``
    chain), or None: a library's clean-up can replace the interrupt with its own error."""
    seen: set[int] = set()
    cause = exc.__context__
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        seen.add(id(cause))
        cause = cause.__context__
    return None


def _keep_mode_and_owner(earlier: Path, new: Path) -> None:
    try:
        st = os.stat(earlier)
    except FileNotFoundError:
        return
    os.chmod(new, stat.S_IMODE(st.st_mode))
    try:
        os.chown(new, st.st_uid, st.st_gid)
    except (OSError, AttributeError):  # not this user's to give (or no chown: Windows)
        pass
