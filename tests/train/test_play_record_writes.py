"""Where ``domino-play``'s record goes when the file is contended or cannot be written (a user
trial: two ``--resume`` of one record each replaced the other's, the last to save winning; a full
disk's line did not say what the file kept, as docs/cli.md says it does)."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

from domino_env.core.records import load_record
from domino_env.train.play_records import RecordWriter, _free_name

ROOT = Path(__file__).resolve().parents[2]


def _start(*args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "train.play", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, **popen)  # fmt: skip


def _wait_for_file_change(path: Path, before: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() or path.stat().st_ino == before:
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.02)


def test_two_resumes_of_one_record_keep_both_games(tmp_path):
    rec = tmp_path / "dup.json"
    out = subprocess.run([sys.executable, "-m", "train.play", "--seed", "5", "--record", str(rec)], input="1\n",
                         capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert out.returncode == 0 and "game stopped (end of input)" in out.stdout, out.stderr
    start = len(load_record(rec)["actions"])
    first = _start("--resume", str(rec))
    _wait_for_file_change(rec, rec.stat().st_ino, first)  # saved at its first prompt
    second = _start("--resume", str(rec))
    _wait_for_file_change(rec, rec.stat().st_ino, second)  # it read the first's save, and saved over it
    out1, err1 = first.communicate("1\nq\n", timeout=120)  # one more move: its next save finds the change
    out2, err2 = second.communicate("q\n", timeout=120)
    assert first.returncode == 0 and second.returncode == 0, err1 + err2
    moved = tmp_path / "dup-2.json"
    assert (f"{rec} was changed by another program while this game was played (another domino-play of it?): "
            f"this game's record goes to {moved}") in out1  # fmt: skip
    assert f"written to {moved} (view it: domino-replay-html {moved}; go on with it: domino-play --resume {moved})" in out1
    assert f"written to {rec} " in out2 and "changed by another program" not in out2
    assert len(load_record(rec)["actions"]) == start  # the second game: no move
    assert len(load_record(moved)["actions"]) > start  # the first: its move is kept


def test_a_record_that_outgrows_the_file_size_limit_says_what_the_file_keeps(tmp_path):
    """RLIMIT_FSIZE stands in for a full disk (EFBIG, 'File too large'): the save at the first
    prompt fits, the next ones do not. The last line names the file and what it keeps."""
    rec, probe = tmp_path / "r.json", tmp_path / "probe.json"
    out = subprocess.run([sys.executable, "-m", "train.play", "--seed", "1", "--record", str(probe)], input="q\n",
                         capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    limit, moves = probe.stat().st_size + 8, len(load_record(probe)["actions"])

    def limited() -> None:  # in the child: writes past `limit` bytes fail instead of killing it
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = _start("--seed", "1", "--record", str(rec), preexec_fn=limited)
    out, err = proc.communicate("1\n1\n1\nq\n", timeout=120)
    assert proc.returncode == 1 and "Traceback" not in err, err
    assert f"the game so far could not be saved to {rec} (File too large)" in out
    assert err == (f"domino-play: error: the game record could not be written to {rec} (File too large); it keeps "
                   f"the game as last saved ({moves} moves); go on with it: domino-play --resume {rec}\n")  # fmt: skip
    assert len(load_record(rec)["actions"]) == moves


def test_the_writer_says_what_is_kept_and_takes_a_free_name(tmp_path):
    said: list[str] = []
    writer = RecordWriter(str(tmp_path / "g.json"), said.append)
    assert writer.kept() == "no record is there"
    writer.save({"actions": [1, 2, 3]})
    assert writer.kept().startswith("it keeps the game as last saved (3 moves); go on with it: ")
    (tmp_path / "g.json").write_text("{}")  # changed by someone else
    assert writer.kept() == "the file is as it was"
    writer.save({"actions": [1, 2, 3, 4]})
    assert writer.path == str(tmp_path / "g-2.json") and len(said) == 1 and (tmp_path / "g.json").read_text() == "{}"
    (tmp_path / "g-3.json.gz").write_text("")
    assert _free_name(str(tmp_path / "g-3.json.gz")) == str(tmp_path / "g-3-2.json.gz")
    assert _free_name(str(tmp_path / "g.json.gz")) == str(tmp_path / "g-2.json.gz")


def test_a_failed_save_of_its_own_is_no_change_by_another_program(tmp_path, monkeypatch):
    """A user trial (a folder that took no new file, a file size limit): the game's own failed
    write in place changed the file, and its next save took that for another program's change and
    moved to g-2.json. A name taken for a save that then fails is given back."""
    from domino_env.train import play_records

    said: list[str] = []
    writer = RecordWriter(str(tmp_path / "g.json"), said.append)
    writer.save({"actions": [1]})
    real = play_records.save_record

    def fails_half_way(data, path):
        Path(path).write_text('{"cut')  # what a failed write in place may leave
        raise OSError(27, "File too large")

    monkeypatch.setattr(play_records, "save_record", fails_half_way)
    try:
        writer.save({"actions": [1, 2]})
    except OSError:
        pass
    monkeypatch.setattr(play_records, "save_record", real)
    writer.save({"actions": [1, 2, 3]})
    assert said == [] and writer.path == str(tmp_path / "g.json")
    (tmp_path / "g.json").write_text("{}")  # another program's change, then a save that fails whole

    def full(data, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(play_records, "save_record", full)
    try:
        writer.save({"actions": [1, 2, 3, 4]})
    except OSError:
        pass
    assert len(said) == 1 and writer.path == str(tmp_path / "g-2.json")
    assert not (tmp_path / "g-2.json").exists() and writer.kept() == "no record is there"
