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
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if os.fspath(p) == str(tmp_path) else real_access(p, mode, **kw))
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
