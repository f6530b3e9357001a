"""Writing a file so that an error or a signal in the middle never leaves half of it: game records,
run folders (``model.zip``, ``metadata.json``, ...), ``domino-evaluate --json``, replay pages."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO


def replace_file(target: Path, write: Callable[[BinaryIO], Any]) -> Path:
    """Write ``target`` with ``write(f)`` (``f`` a binary file) into ``.NAME.partial`` beside it, then
    rename it over ``target``: an error or a signal in the middle leaves the earlier file whole and
    no partial file. A KeyboardInterrupt that a library's clean-up turned into its own error (torch's
    zip writer: ``RuntimeError: ... unexpected pos``) is raised as the KeyboardInterrupt.

    A symbolic link (``/dev/stdout``) or a target that is not a regular file (a FIFO) is written in
    place, as ``open(target, "wb")`` would: renaming over it would replace the link or the device."""
    target = Path(target)
    if target.is_symlink() or (target.exists() and not target.is_file()):
        with open(target, "wb") as f:
            write(f)
        return target
    tmp = target.with_name(f".{target.name}.partial")
    try:
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, target)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        interrupt = _interrupt_behind(exc)
        if interrupt is not None:
            raise interrupt from None
        raise
    return target


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
