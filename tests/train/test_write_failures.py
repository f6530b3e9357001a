"""A disk that refuses a write (full, over quota, read-only): one line naming the file and exit
status 1 (a traceback before), and output sent to stdout is written whole or not at all (Python's
buffered stdout dropped the rest of a short write silently: half a page and exit status 0)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

import domino_env.train.cli as cli
from domino_env.core.files import replace_text

ROOT = Path(__file__).resolve().parents[2]


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_is_one_line_naming_the_file_and_the_earlier_file_is_kept(tmp_path, capsys, monkeypatch):
    target = tmp_path / "metadata.json"
    target.write_text("earlier")
    monkeypatch.setattr(os, "fsync", _no_space)  # (where a full disk can show: delayed allocation)
    with pytest.raises(SystemExit) as exit_:
        cli.launch("domino-train", lambda: replace_text(target, "new"))
    assert exit_.value.code == 1 and target.read_text() == "earlier"
    assert capsys.readouterr().err.splitlines() == [
        f"domino-train: error: {target} could not be written (No space left on device); what was written before it is kept"]  # fmt: skip


_WRITER = """
def _write(filename, data):
    with open(filename, "wb") as f:  # (TensorBoard's gfile opens the path it was given as bytes)
        f.write(data)
"""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_in_tensorboards_writer_thread_is_one_line_naming_its_file(capsys, monkeypatch):
    """TensorBoard writes its event file in a thread, which printed its 15-line traceback when the
    disk was full, and raises the same error again in the main thread, which named no file (its
    write's error names none): now one line, naming the file, said once."""
    import threading

    writer = {"__name__": "tensorboard.compat.tensorflow_stub.io.gfile"}  # a frame of TensorBoard's module
    exec(compile(_WRITER, "gfile.py", "exec"), writer)
    monkeypatch.setattr(threading, "excepthook", threading.__excepthook__)  # this test's hook is its own
    failed = []

    def main():
        def run():
            try:
                writer["_write"](b"/dev/full", b"event")  # (ENOSPC)
            except OSError as exc:
                failed.append(exc)
                raise

        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        raise failed[0]  # as TensorBoard's writer does at its next write or flush

    with pytest.raises(SystemExit) as exit_:
        cli.launch("domino-train", main)
    assert exit_.value.code == 1
    assert capsys.readouterr().err.splitlines() == [
        "domino-train: error: /dev/full could not be written (No space left on device); what was written before it is kept"]

    def thread_fails_main_succeeds():  # TensorBoard's close() never raises its thread's error
        thread = threading.Thread(target=lambda: writer["_write"](b"/dev/full", b"event"))
        thread.start()
        thread.join()
        return 0

    with pytest.raises(SystemExit) as exit_:
        cli.launch("domino-train", thread_fails_main_succeeds)
    assert exit_.value.code == 1  # a lost log is not a success (it exited 0 after the error line)
    assert capsys.readouterr().err.splitlines() == [
        "domino-train: error: /dev/full could not be written (No space left on device); what was written before it is kept"]

    def other_failure():  # any other error of a thread keeps Python's report
        raise ValueError("not a full disk")

    thread = threading.Thread(target=other_failure)
    thread.start()
    thread.join()
    err = capsys.readouterr().err
    assert "Traceback" in err and "ValueError: not a full disk" in err


def test_other_os_errors_keep_their_traceback(capsys):
    with pytest.raises(FileNotFoundError):  # not a refused write: a bug or a vanished file, shown whole
        cli.launch("domino-train", lambda: open("/nonexistent/x"))


def test_stdout_is_written_whole_or_the_failure_is_raised(tmp_path, monkeypatch):
    out = open(tmp_path / "stdout", "w", encoding="utf-8")  # noqa: SIM115
    monkeypatch.setattr(sys, "stdout", out)
    real_write, calls = os.write, []

    def short_then_full(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data[:1000]))  # a short write: the disk filled
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", short_then_full)
    with pytest.raises(OSError) as info:
        cli.write_stdout("x" * 5000)
    assert (info.value.errno, info.value.filename, calls) == (errno.ENOSPC, "<stdout>", [5000, 4000])
    monkeypatch.setattr(os, "write", real_write)
    cli.write_stdout("é" * 3000)
    out.close()
    assert (tmp_path / "stdout").read_text(encoding="utf-8") == "x" * 1000 + "é" * 3000


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_evaluate_json_to_a_full_stdout_is_one_line_not_status_0():
    """``domino-evaluate --json - > /dev/full``: a traceback (a full tmpfs: half a result, status 0)."""
    with open("/dev/full", "w") as full:
        res = subprocess.run([sys.executable, "-m", "train.evaluate", "--agents", "random", "random", "--players", "2",
                              "--rounds", "2", "--json", "-"], stdout=full, stderr=subprocess.PIPE, text=True,
                             cwd=ROOT, timeout=120)  # fmt: skip
    assert res.returncode == 1, res.stderr
    assert res.stderr.splitlines()[-1] == (
        "domino-evaluate: error: --json -: the result could not be written whole to stdout (No space left on device)")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_replay_html_page_to_a_full_stdout_is_one_line_with_status_1(tmp_path):
    """``domino-replay-html RECORD -o - > /dev/full``: one line and 1, as every write the disk
    refused (it exited 2, the status of a refused flag)."""
    from process_helpers import block_record

    record = block_record(tmp_path / "game.json", seed=3)
    with open("/dev/full", "w") as full:
        res = subprocess.run([sys.executable, "-m", "train.replay_html", str(record), "-o", "-"], stdout=full,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert res.returncode == 1, res.stderr
    assert res.stderr.splitlines() == [
        "domino-replay-html: error: -o -: stdout: could not be written whole (No space left on device)"]


def test_a_failed_write_without_a_file_name_claims_nothing_of_files(capsys):
    """stdout redirected to a full disk (print's error names no file): the line said "a file
    could not be written ...; what was written before it is kept" of a page written whole."""
    with pytest.raises(SystemExit) as exit_:
        cli.launch("domino-evaluate", _no_space)
    assert exit_.value.code == 1 and capsys.readouterr().err.splitlines() == [
        "domino-evaluate: error: a write failed (No space left on device): the disk of a file or of a redirected "
        "output is full"]  # fmt: skip
