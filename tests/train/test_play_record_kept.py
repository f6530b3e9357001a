"""``domino-play --record`` over another game's record (a user trial: ``--record tm3.json`` replaced
a finished 695-move game's record with a new game's without a word, and the default name
``domino-play-GAME-SEED.json`` did the same to a seed played again). Such a record is kept byte
for byte; the new game's goes to a name beside it, said in one line. Real processes, input piped."""

from __future__ import annotations

import gzip
import subprocess
import sys

import pytest

from domino_env.core.records import load_record, save_record
from domino_env.envs import block_v0
from domino_env.train import play_records
from domino_env.train.play_records import RecordWriter


def _play(args: list[str], typed: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "domino_env.train.play", "--game", "block", *args], input=typed,
                          capture_output=True, text=True, cwd=cwd, timeout=120)  # fmt: skip


def _finished(path, cwd, seed: str = "3") -> bytes:
    """A block game played out to ``path`` (its moves typed: the first legal one each turn)."""
    out = _play(["--seed", seed, "--record", str(path)], "1\n" * 400, cwd)
    assert out.returncode == 0 and "game stopped" not in out.stdout, out.stdout + out.stderr
    assert "go on with it" not in out.stdout  # over: nothing to resume
    return path.read_bytes()


def _kept_line(old, new) -> str:
    return f"{old} holds another game's record, which is kept: this game's record goes to {new}"


def test_a_finished_record_is_kept_and_the_new_game_written_beside_it(tmp_path):
    old = tmp_path / "tm3.json"
    before = _finished(old, tmp_path)
    out = _play(["--seed", "4", "--record", str(old)], "1\nq\n", tmp_path)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    new = tmp_path / "tm3-2.json"
    assert old.read_bytes() == before
    assert out.stdout.splitlines()[1] == _kept_line(old, new)  # at the start, after the game's first line
    assert f"written to {new} (view it: domino-replay-html {new}; go on with it: domino-play --resume {new})" in out.stdout
    assert load_record(new)["seed"] == 4 and load_record(old)["seed"] == 3
    out = _play(["--seed", "5", "--record", str(old)], "q\n", tmp_path)  # again: the next free name
    assert out.returncode == 0 and _kept_line(old, tmp_path / "tm3-3.json") in out.stdout, out.stdout
    assert old.read_bytes() == before and load_record(new)["seed"] == 4 and load_record(tmp_path / "tm3-3.json")["seed"] == 5


def test_the_default_name_of_a_seed_played_again_keeps_the_finished_game(tmp_path):
    default = tmp_path / "domino-play-block-3.json"
    before = _finished(default, tmp_path)
    out = _play(["--seed", "3"], "q\n", tmp_path)  # no --record: the default name, the same seed
    assert out.returncode == 0 and default.read_bytes() == before, out.stderr
    assert _kept_line("domino-play-block-3.json", "domino-play-block-3-2.json") in out.stdout
    assert "written to domino-play-block-3-2.json " in out.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["domino-play-block-3-2.json", "domino-play-block-3.json"]


def test_a_gzip_record_keeps_its_suffix_beside(tmp_path):
    old = tmp_path / "game.json.gz"
    before = _finished(old, tmp_path)
    assert before[:2] == b"\x1f\x8b"
    out = _play(["--seed", "6", "--record", str(old)], "q\n", tmp_path)
    new = tmp_path / "game-2.json.gz"
    assert out.returncode == 0 and _kept_line(old, new) in out.stdout, out.stdout + out.stderr
    assert old.read_bytes() == before and new.read_bytes()[:2] == b"\x1f\x8b"
    assert b'"seed": 6' in gzip.decompress(new.read_bytes()) and load_record(new)["seed"] == 6


def _env_record(path, seats: bool, **kwargs) -> bytes:
    """A block game of seed 3 stepped (first legal move) until the env stops it, saved as a record."""
    env = block_v0.raw_env(**kwargs)
    env.reset(seed=3)
    while env.agents:
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][0]))
    data = env.to_record()
    if seats:  # as domino-play writes it
        data.update(seats=["human", "greedy", "greedy", "greedy"], seed=3)
    save_record(data, path)
    return path.read_bytes()


def test_a_record_the_envs_limit_stopped_and_another_programs_record_are_kept(tmp_path):
    stopped, other = tmp_path / "cut.json", tmp_path / "script.json"
    kept = {stopped: _env_record(stopped, True, max_cycles=2), other: _env_record(other, False)}
    assert load_record(stopped)["actions"] and "seats" not in load_record(other)
    for path, data in kept.items():
        out = _play(["--seed", "8", "--record", str(path)], "q\n", tmp_path)
        new = path.with_name(path.stem + "-2.json")
        assert out.returncode == 0 and _kept_line(path, new) in out.stdout, out.stdout + out.stderr
        assert path.read_bytes() == data and load_record(new)["seed"] == 8


def test_the_record_resumed_is_still_written_in_place(tmp_path):
    rec = tmp_path / "r.json"
    out = _play(["--seed", "5", "--record", str(rec)], "1\nq\n", tmp_path)
    assert out.returncode == 0 and "go on with it" in out.stdout, out.stderr
    moves = len(load_record(rec)["actions"])
    for args in (["--resume", str(rec)], ["--resume", str(rec), "--record", str(rec)]):
        out = subprocess.run([sys.executable, "-m", "domino_env.train.play", *args], input="1\nq\n",
                             capture_output=True, text=True, cwd=tmp_path, timeout=120)  # fmt: skip
        assert out.returncode == 0 and "holds another game's record" not in out.stdout, out.stdout + out.stderr
        assert f"written to {rec} " in out.stdout and len(load_record(rec)["actions"]) > moves
        moves = len(load_record(rec)["actions"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]
    fin = tmp_path / "fin.json"
    before = _finished(fin, tmp_path, seed="9")  # resumed into a finished record's name: kept, beside
    out = subprocess.run([sys.executable, "-m", "domino_env.train.play", "--resume", str(rec), "--record", str(fin)],
                         input="q\n", capture_output=True, text=True, cwd=tmp_path, timeout=120)  # fmt: skip
    assert out.returncode == 0 and _kept_line(fin, tmp_path / "fin-2.json") in out.stdout, out.stdout + out.stderr
    assert fin.read_bytes() == before and load_record(tmp_path / "fin-2.json")["actions"] == load_record(rec)["actions"]


def test_the_name_taken_beside_is_given_back_when_no_record_is_written_there(tmp_path, monkeypatch):
    """A --resume stopped while its moves are played again writes nothing; a first save that
    fails (a full disk) leaves no empty file either."""
    (tmp_path / "g.json").write_text("{}")
    said: list[str] = []
    writer = RecordWriter(str(tmp_path / "g.json"), said.append, keep=True)
    assert said == [_kept_line(tmp_path / "g.json", tmp_path / "g-2.json")] and writer.path == str(tmp_path / "g-2.json")
    assert (tmp_path / "g-2.json").read_bytes() == b""  # taken at the start: a second game picks g-3.json
    writer.give_back()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json"]

    def full(data, path):
        raise OSError(28, "No space left on device")

    writer = RecordWriter(str(tmp_path / "g.json"), said.append, keep=True)
    monkeypatch.setattr(play_records, "save_record", full)
    with pytest.raises(OSError) as info:
        writer.save({"actions": [1]})
    assert info.value.errno == 28
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json"] and writer.kept() == "no record is there"
    writer = RecordWriter(str(tmp_path / "g.json"), said.append, keep=True)
    monkeypatch.undo()
    writer.save({"actions": [1, 2]})
    writer.give_back()  # a record is there: kept
    assert (tmp_path / "g-2.json").exists() and (tmp_path / "g.json").read_text() == "{}"
