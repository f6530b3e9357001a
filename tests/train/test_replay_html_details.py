"""``domino-replay-html``'s details that no other test pinned (found by mutation testing
``train/replay_html.py``): the words of its refusals and of ``--help``, a seat name that holds
``</script>``, the trains of a game without a Mexican train, the frames of an annulled round, an
unreadable record, a page that cannot be written, and a closed stdout (``test_replay_html.py``'s
game helpers are used here)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from test_replay_html import ROOT, _cli, _game_record

from domino_env.core.errors import RecordError
from domino_env.core.records import save_record
from domino_env.envs import line_v0, mexican_train_v0
from domino_env.train.replay_html import frames_from_record, render_html


@pytest.fixture(scope="module")
def block_round() -> dict:
    """One round of block dominoes, 4 seats."""
    return _game_record(line_v0.raw_env(preset="block"), 5)


def test_a_refusal_of_the_record_is_exactly_one_line(tmp_path):
    """The record's refusals (no ``--help`` hint) and the options' start as every error of the
    command does, and say nothing else."""
    missing = tmp_path / "missing.json"
    out = _cli(str(missing))
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"domino-replay-html: error: record {missing}: no such file\n"
    out = _cli(str(missing), "-o", "")  # an option is wrong: the --help hint
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == ("domino-replay-html: error: --output: give the HTML file to write (got an empty name) "
                          "(domino-replay-html --help lists every option)\n")  # fmt: skip


def test_help_says_what_the_command_and_its_arguments_do():
    out = subprocess.run([sys.executable, "-m", "train.replay_html", "--help"], capture_output=True, text=True,
                         cwd=ROOT, env=dict(os.environ, COLUMNS="400"), timeout=120)  # fmt: skip
    assert out.returncode == 0 and out.stderr == ""
    text = " ".join(out.stdout.split())  # (one line an option at this width)
    # each part whole, not argparse's own layout (Python 3.13 writes "-o, --output OUTPUT")
    for part in ("usage: domino-replay-html [-h] [-o OUTPUT] record ",
                 "Write a game record (the JSON of env.to_record() or train.play) as one self-contained HTML page "
                 "that replays the game move by move in any browser. ",
                 " record the game record (JSON; - reads it from stdin, with --output) ",
                 "--output OUTPUT the HTML file to write (default: the record's name without .gz, with .html for "
                 "its .json or else added: game.json.gz gives game.html, seed.7 seed.7.html; - writes the page to "
                 "stdout)"):  # fmt: skip
        assert part in text, (part, text)


def test_seats_that_are_not_one_name_per_seat_are_named_in_the_refusal(block_round):
    """The message says what the record holds (cut to 80 characters)."""
    for seats in (["a", "b"], ["a", "b", "c", 4], ["x" * 100] * 3):
        got = json.dumps(seats)[:80]
        message = f"record field 'seats' must be a list of 4 names (strings), got {got}"
        with pytest.raises(RecordError, match=f"^{re.escape(message)}$"):
            frames_from_record(dict(block_round, seats=seats))
    assert len(got) == 80
    frames = frames_from_record(dict(block_round, seats=["ann", "", "cy", "dee"]))  # "": no name
    who = ["seat 0 (\u2068ann\u2069)", "seat 1", "seat 2 (\u2068cy\u2069)", "seat 3 (\u2068dee\u2069)"]
    assert [f["text"].split(": ")[0] for f in frames[1:]] == [who[f["actor"]] for f in frames[1:]]


def test_a_seat_name_cannot_close_the_pages_script_element(block_round):
    """The page's data is JSON inside ``<script>``: a ``</script>`` in a seat name would end it
    there, and the rest of the name would be read as HTML (a script of its own)."""
    names = ["</script><script>alert(1)</script>", "<b>", "a<!--b", "d"]
    page = render_html(dict(block_round, seats=names))
    data = page.split('<script id="data" type="application/json">')[1].split("</script>")[0]
    assert json.loads(data)["seats"] == names
    assert "<b>" not in page and "alert(1)</script>" not in page


@pytest.mark.parametrize("mexican", [True, False])
def test_a_game_without_the_mexican_train_has_one_train_a_seat(mexican):
    """``use_mexican_train=False`` ('sin tren mexicano'): the page's table has no Mexican train."""
    env = mexican_train_v0.raw_env(num_players=3, max_pip=9, use_mexican_train=mexican)
    frames = frames_from_record(_game_record(env, 4))
    owners = [[t["owner"] for t in f["trains"]] for f in frames]
    assert owners == [[0, 1, 2, None] if mexican else [0, 1, 2]] * len(frames)


def _annulled_record() -> dict:
    """A Cuban round whose first seat annuls it (5 doubles), re-dealt, then played out."""
    for seed in range(200):
        env = line_v0.raw_env(preset="cuban")
        env.reset(seed=seed)
        state = env.unwrapped.game_state
        if state.annul_action in state.legal_actions():
            env.step(state.annul_action)
            return _finish(env)
    raise AssertionError("no deal of seeds 0..199 can be annulled")


def _finish(env) -> dict:
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(obs["action_mask"].nonzero()[0][0]))
    return env.to_record()


def test_an_annulled_round_is_dealt_again_in_its_own_words(tmp_path):
    """An annulled round is dealt again at once, in the same step: its frame says so, and the
    command counts that deal."""
    record = _annulled_record()
    frames = frames_from_record(record)
    assert [f["kind"] for f in frames[:3]] == ["deal", "move", "deal"]
    assert frames[1]["result"]["termination"] == "annulled" and frames[1]["move"] == frames[2]["move"] == 1
    assert [f["text"] for f in (frames[0], frames[2])] == ["round 1 dealt", "round 1 dealt again"]
    assert frames[-1]["unfinished"] is None and frames[-1]["result"]["termination"] != "annulled"
    save_record(record, tmp_path / "annulled.json")
    out = _cli(str(tmp_path / "annulled.json"))
    assert out.returncode == 0, out.stderr
    moves = len(record["actions"])
    assert out.stdout == f"wrote {tmp_path / 'annulled.html'}: {moves} moves, 2 deals, {moves + 2} frames\n"
    assert os.path.getsize(tmp_path / "annulled.html") > 0



def test_a_record_given_as_its_own_page_is_refused_in_exactly_one_line(block_round, tmp_path):
    save_record(block_round, tmp_path / "game.json")
    assert _cli(str(tmp_path / "game.json")).returncode == 0
    page = tmp_path / "game.html"
    out = _cli(str(page), "-o", str(tmp_path / "other.html"))
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (f"domino-replay-html: error: record {page} is a replay page, not a game record; give the "
                          "record (JSON) it was made from\n")  # fmt: skip


def test_a_record_that_cannot_be_read_or_a_page_that_cannot_be_written_is_one_line(block_round, tmp_path,
                                                                                   monkeypatch, capsys):  # fmt: skip
    """The system's words, once the checks passed: an unreadable record (a user without read
    permission; the test runs as any user, so ``load_record`` raises it), a full disk, a page that
    does not replay for a reason of its own (a bare ValueError from the engine)."""
    from domino_env.train import replay_html
    from domino_env.train.cli import OutputError

    src = tmp_path / "game.json"
    save_record(block_round, src)

    def refused(*args: str) -> str:
        with pytest.raises(SystemExit) as info:
            replay_html.main(list(args))
        assert info.value.code == 2
        return capsys.readouterr().err

    def raises(error: Exception):
        def call(*args, **kwargs):
            raise error

        return call

    with monkeypatch.context() as patch:
        patch.setattr(replay_html, "load_record", raises(PermissionError(13, "Permission denied", str(src))))
        assert refused(str(src)) == f"domino-replay-html: error: record {src}: Permission denied\n"
    with monkeypatch.context() as patch:
        patch.setattr(replay_html, "page_data", raises(ValueError("a bad tile")))
        assert refused(str(src)) == f"domino-replay-html: error: record {src} does not replay: a bad tile\n"
    with monkeypatch.context() as patch:
        patch.setattr(replay_html, "page_data", raises(OSError(5, "Input/output error")))
        assert refused(str(src)) == f"domino-replay-html: error: record {src}: Input/output error\n"

    monkeypatch.setattr(replay_html, "replace_text", raises(OSError(28, "No space left on device")))
    with pytest.raises(OutputError) as info:
        replay_html.main([str(src)])
    assert str(info.value) == f"the page {tmp_path / 'game.html'}: could not be written (No space left on device)"
    with pytest.raises(OutputError) as info:
        replay_html.main([str(src), "-o", str(tmp_path / "p.html")])
    assert str(info.value) == f"--output {tmp_path / 'p.html'}: could not be written (No space left on device)"
    assert capsys.readouterr().out == "" and not list(tmp_path.glob("*.html"))


def test_a_page_to_stdout_whose_reader_goes_away_stops_quietly(tmp_path):
    """``domino-replay-html RECORD -o - | head -c 100``: 141 and nothing on stderr, as every command
    (the page's first bytes were read; no "wrote the page" line for a page cut short)."""
    record = _game_record(line_v0.raw_env(preset="cuban", episode="game"), 2)
    save_record(record, tmp_path / "game.json")
    proc = subprocess.Popen([sys.executable, "-m", "train.replay_html", str(tmp_path / "game.json"), "-o", "-"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)  # fmt: skip
    assert proc.stdout.read(100).startswith(b"<!doctype html>")
    proc.stdout.close()  # as `| head -c 100` does: the page is larger than the pipe holds
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141 and err == ""
