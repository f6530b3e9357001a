"""``domino_env.core.files.replace_file``: what every written output (records, run folders,
``--json``, replay pages) relies on to never leave half a file."""

from __future__ import annotations

import errno
import os

import pytest

from domino_env.core.files import replace_file
from domino_env.core.records import save_record


def test_an_error_in_the_middle_keeps_the_earlier_file_and_leaves_no_partial(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("earlier")

    def half_then_error(f):
        f.write(b"half of the new")
        raise OSError("the disk is full")

    with pytest.raises(OSError, match="the disk is full"):
        replace_file(target, half_then_error)
    assert target.read_text() == "earlier" and os.listdir(tmp_path) == ["out.json"]
    assert replace_file(target, lambda f: f.write(b"new")) == target and target.read_text() == "new"
    assert os.listdir(tmp_path) == ["out.json"]


def test_an_interrupt_that_a_library_clean_up_replaced_comes_out_as_the_interrupt(tmp_path):
    def interrupted_then_clean_up_error(f):
        try:
            raise KeyboardInterrupt("SIGTERM", "a second signal: aborted without saving")
        finally:
            raise RuntimeError("unexpected pos 46 vs 0")  # what torch's zip writer does

    with pytest.raises(KeyboardInterrupt) as info:
        replace_file(tmp_path / "model.zip", interrupted_then_clean_up_error)
    assert info.value.args == ("SIGTERM", "a second signal: aborted without saving")
    assert os.listdir(tmp_path) == []


def test_a_link_or_a_fifo_is_written_in_place_not_replaced(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    replace_file(link, lambda f: f.write(b"new"))
    assert link.is_symlink() and real.read_text() == "new"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so that opening it to write does not block
    try:
        replace_file(fifo, lambda f: f.write(b"through the pipe"))
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert sorted(os.listdir(tmp_path)) == ["fifo", "link.json", "real.json"]


def test_save_record_goes_through_a_temporary_file(tmp_path, monkeypatch):
    """An interrupt before the rename (the new record complete in ``.game.json.partial``) keeps
    the earlier record whole; ``write_text`` emptied the file first."""
    path = tmp_path / "game.json"
    save_record({"format": "domino_env.record/1", "actions": [1, 2]}, path)
    earlier = path.read_text()

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save_record({"format": "domino_env.record/1", "actions": [3]}, path)
    assert path.read_text() == earlier and os.listdir(tmp_path) == ["game.json"]


def test_the_replaced_file_keeps_its_permission_bits(tmp_path):
    target = tmp_path / "private.json"
    target.write_text("earlier")
    target.chmod(0o600)
    replace_file(target, lambda f: f.write(b"new"))
    assert target.read_text() == "new" and (target.stat().st_mode & 0o777) == 0o600


def test_an_existing_file_in_a_folder_this_user_cannot_write_is_written_in_place(tmp_path, monkeypatch):
    """No temporary file can be made beside it; the file itself is writable (a read-only folder
    of a non-root user, simulated through os.access, which is what replace_file asks)."""
    target = tmp_path / "result.json"
    target.write_text("earlier")
    inode = target.stat().st_ino
    real_access = os.access
    def access(p, mode, **kw):  # the folder may be read and entered, not written
        return False if os.fspath(p) == str(tmp_path) and mode & os.W_OK else real_access(p, mode, **kw)

    monkeypatch.setattr(os, "access", access)
    replace_file(target, lambda f: f.write(b"new"))
    assert target.read_text() == "new" and target.stat().st_ino == inode and os.listdir(tmp_path) == ["result.json"]


def test_the_new_file_is_on_the_disk_before_the_rename_and_the_rename_after(tmp_path, sync_log):
    """A crash of the machine between an unsynced write and its rename can leave an empty file
    where the earlier one was (delayed allocation): the content is synced first, the folder after."""
    target = tmp_path / "metadata.json"
    target.write_text("earlier")
    log = sync_log()
    replace_file(target, lambda f: f.write(b"the new content"))
    partial = str(tmp_path / ".metadata.json.partial")
    assert log.events == [("sync file", partial, b"the new content"), ("rename", partial, str(target)),
                          ("sync folder", str(tmp_path))]  # fmt: skip


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO])
def test_a_failed_sync_is_a_failed_write_and_keeps_the_earlier_file(tmp_path, sync_log, code):
    """A full disk can show only at the sync (delayed allocation, network file systems)."""
    target = tmp_path / "game.json"
    target.write_text("earlier")
    sync_log(fail_with=code)
    with pytest.raises(OSError) as info:
        replace_file(target, lambda f: f.write(b"new"))
    assert info.value.errno == code and target.read_text() == "earlier" and os.listdir(tmp_path) == ["game.json"]


def test_a_file_system_without_fsync_still_gets_the_file(tmp_path, sync_log):
    sync_log(fail_with=errno.EINVAL)
    assert replace_file(tmp_path / "page.html", lambda f: f.write(b"<html>")).read_bytes() == b"<html>"


def test_a_writer_that_closes_its_file_still_gets_it_synced_and_in_place(tmp_path, sync_log):
    """``json.dump`` through a ``TextIOWrapper`` closes the file it wraps: the flush and fsync of
    the closed file object failed ("flush of closed file") and nothing was written."""
    import io
    import json

    target = tmp_path / "result.json"
    log = sync_log()

    def through_text(f):
        with io.TextIOWrapper(f, encoding="utf-8") as text:
            json.dump({"win_rate": 0.25}, text)

    replace_file(target, through_text)
    assert json.loads(target.read_text()) == {"win_rate": 0.25}
    assert ("sync file", str(tmp_path / ".result.json.partial"), target.read_bytes()) in log.events


def test_on_windows_a_file_is_synced_through_a_descriptor_open_for_writing(tmp_path, sync_log, monkeypatch):
    """Windows' fsync refuses a read-only descriptor (EBADF); simulated here on that rule."""
    import fcntl

    from domino_env.core import files

    path = tmp_path / "dataset.npz"
    path.write_bytes(b"data")
    sync_log()
    recording_fsync = os.fsync

    def windows_fsync(fd):
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        recording_fsync(fd)

    monkeypatch.setattr(os, "fsync", windows_fsync)
    monkeypatch.setattr(files, "_SYNC_NEEDS_WRITE", True)
    files.sync_file(path)  # raised EBADF when it opened the file read-only
    assert path.read_bytes() == b"data"


def _record_fsyncs(monkeypatch) -> list[int]:
    """The inode of every descriptor fsync'd from now on, in order."""
    synced, real_fsync = [], os.fsync

    def fsync(fd):
        synced.append(os.fstat(fd).st_ino)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced


def test_a_target_given_as_a_str_is_written_and_returned_as_a_path(tmp_path):
    """Kills: deleting ``target = Path(target)`` (a str had no ``is_symlink``)."""
    from pathlib import Path

    written = replace_file(str(tmp_path / "out.json"), lambda f: f.write(b"{}"))
    assert written == tmp_path / "out.json" and isinstance(written, Path) and written.read_bytes() == b"{}"


def test_a_new_file_in_a_folder_this_user_cannot_write_is_the_open_error(tmp_path, monkeypatch):
    """The temporary file cannot be made (EACCES, simulated: the tests may run as root): that
    PermissionError comes out, naming the file it could not make, and nothing is left. Kills:
    ``tmp.unlink(missing_ok=False)`` (a FileNotFoundError of the clean-up instead)."""
    import builtins

    real_open = builtins.open

    def read_only_folder(path, *args, **kwargs):
        if os.fspath(path).endswith(".partial"):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", read_only_folder)
    with pytest.raises(PermissionError) as info:
        replace_file(tmp_path / "new.json", lambda f: f.write(b"{}"))
    assert info.value.errno == errno.EACCES and info.value.filename == str(tmp_path / ".new.json.partial")
    assert os.listdir(tmp_path) == []


def test_a_folder_that_cannot_be_opened_is_left_unsynced(tmp_path, monkeypatch):
    """Windows opens no folder (PermissionError, simulated): the file is still written and in
    place, and sync_folder of a folder that is gone does nothing. Kills: deleting sync_folder's
    ``return`` after the failed open (an UnboundLocalError)."""
    from domino_env.core.files import sync_folder

    real_open = os.open

    def no_folders(path, flags, *args, **kwargs):
        if os.path.isdir(path):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", no_folders)
    assert replace_file(tmp_path / "page.html", lambda f: f.write(b"<html>")).read_bytes() == b"<html>"
    assert sync_folder(tmp_path) is None and sync_folder(tmp_path / "gone") is None
    assert os.listdir(tmp_path) == ["page.html"]


def test_on_posix_a_read_only_file_is_synced_through_a_read_only_descriptor(tmp_path, monkeypatch):
    """A library may leave a read-only file in a checkpoint: a user other than root cannot open it
    for writing (EACCES, simulated), and POSIX syncs a read-only descriptor. Kills: the Windows
    rule (``_SYNC_NEEDS_WRITE``) taken on POSIX (``os.name != "nt"``)."""
    from domino_env.core.files import sync_file, sync_tree

    path = tmp_path / "state.pkl"
    path.write_bytes(b"weights")
    path.chmod(0o444)
    real_open = os.open

    def as_a_user(p, flags, *args, **kwargs):
        if flags & os.O_ACCMODE != os.O_RDONLY and not os.stat(p).st_mode & 0o222:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(p))
        return real_open(p, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", as_a_user)
    synced = _record_fsyncs(monkeypatch)
    sync_file(path)
    sync_tree(tmp_path)
    assert synced == [path.stat().st_ino, path.stat().st_ino, tmp_path.stat().st_ino]


def test_sync_tree_syncs_the_tree_s_own_files_not_what_a_link_points_to(tmp_path, monkeypatch):
    """A link in a checkpoint to a file elsewhere (or in it) is not synced through. Kills: ``or``
    for ``and`` in ``os.path.isfile(path) and not os.path.islink(path)``."""
    from domino_env.core.files import sync_tree

    tree, outside = tmp_path / "checkpoint", tmp_path / "outside.bin"
    (tree / "module").mkdir(parents=True)
    (tree / "module" / "state.pkl").write_bytes(b"weights")
    outside.write_bytes(b"elsewhere")
    (tree / "link.bin").symlink_to(outside)
    (tree / "module" / "again.pkl").symlink_to(tree / "module" / "state.pkl")
    synced = _record_fsyncs(monkeypatch)
    sync_tree(tree)
    ino = {p.stat().st_ino for p in (tree, tree / "module", tree / "module" / "state.pkl")}
    assert sorted(synced) == sorted(ino) and outside.stat().st_ino not in synced


def test_an_interrupt_two_clean_ups_deep_still_comes_out_as_the_interrupt(tmp_path):
    """The interrupt behind a clean-up error that another clean-up replaced (a chain of two
    ``__context__``). Kills: deleting ``cause = cause.__context__`` (only the first link was read)."""
    def interrupted_then_two_clean_up_errors(f):
        try:
            try:
                raise KeyboardInterrupt("SIGINT")
            finally:
                raise RuntimeError("unexpected pos 46 vs 0")
        finally:
            raise OSError("the writer's own clean-up")

    with pytest.raises(KeyboardInterrupt) as info:
        replace_file(tmp_path / "model.zip", interrupted_then_two_clean_up_errors)
    assert info.value.args == ("SIGINT",) and os.listdir(tmp_path) == []


def test_a_second_writer_at_once_uses_its_own_partial_file(tmp_path):
    """Two domino-play of one record saved at once through one ``.g.json.partial``: one renamed it
    away under the other (ENOENT, its saves stopped), or both wrote into it. A fresh partial file
    is another writer's: this one writes ``.g.json.PID.partial`` and leaves that one alone."""
    target, other = tmp_path / "g.json", tmp_path / ".g.json.partial"
    other.write_bytes(b"the other writer's half")
    replace_file(target, lambda f: f.write(b"mine"))
    assert target.read_bytes() == b"mine" and other.read_bytes() == b"the other writer's half"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".g.json.partial", "g.json"]
    assert not (tmp_path / f".g.json.{os.getpid()}.partial").exists()


def test_a_partial_file_left_by_a_killed_writer_is_taken_over(tmp_path):
    target, stale = tmp_path / "g.json", tmp_path / ".g.json.partial"
    stale.write_bytes(b"left by a kill")
    os.utime(stale, (1_000_000, 1_000_000))  # long ago
    replace_file(target, lambda f: f.write(b"new"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json"] and target.read_bytes() == b"new"


def test_a_failed_write_in_place_puts_the_earlier_content_back(tmp_path):
    """Through a symbolic link (written in place, as open(target, "wb") would) a write that fails
    half-way left the file cut short: a user trial lost a game record so (a full disk)."""
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_bytes(b'{"earlier": "record"}')
    link.symlink_to(real)

    def half_then_full(f):
        f.write(b'{"new": ')
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left on device"):
        replace_file(link, half_then_full)
    assert real.read_bytes() == b'{"earlier": "record"}' and link.is_symlink()
