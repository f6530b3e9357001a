"""``domino-play --resume RECORD``: a stopped game goes on from its record, exactly as the game
would have gone on (the same later deals, the agents' same random draws), and a record that cannot
be resumed is one line before any play, the file left as it was."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from domino_env.core.records import load_record, save_record
from domino_env.envs import block_v0
from domino_env.train import play as play_module

ROOT = Path(__file__).resolve().parents[2]
#: A reported move, as in test_play.py: "you: ..." or "seat 2 (greedy): ..." on a line of its own.
MOVE = re.compile(r"^(you|seat \d+ \([^)]*\)): (?:place|lead|draw|pass|annul)", re.M)


def _play(args: list[str], stdin: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "train.play", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=timeout)  # fmt: skip


@pytest.mark.parametrize("args", [
    # a random opponent: its draws after the stop must be those of the game without the stop
    ["--game", "block", "--episode", "game", "--opponents", "random", "greedy", "random", "--seat", "1"],
    ["--players", "3", "--max-pip", "9", "--episode", "game", "--opponents", "random", "search:5"],
])  # fmt: skip
def test_a_stopped_game_resumed_ends_as_the_game_played_through(args, tmp_path):
    whole, part = tmp_path / "whole.json", tmp_path / "part.json"
    out = _play([*args, "--seed", "4", "--record", str(whole)], "1\n" * 3000)
    assert out.returncode == 0, out.stderr
    straight = load_record(whole)
    assert "game over" in out.stdout and len(straight["deals"]) >= 2  # the stop falls in an early round
    out = _play([*args, "--seed", "4", "--record", str(part)], "1\n" * 3)  # three moves, then end of input
    assert out.returncode == 0 and "game stopped (end of input)" in out.stdout, out.stderr
    assert f"go on with it: domino-play --resume {part}" in out.stdout
    stopped = load_record(part)
    assert 0 < len(stopped["actions"]) < len(straight["actions"])
    out = _play(["--resume", str(part)], "1\n" * 3000)
    assert out.returncode == 0, out.stderr
    k = len(stopped["actions"])
    assert f"resumed after {k} recorded moves" in out.stdout and "game over" in out.stdout
    assert "go on with it" not in out.stdout  # the game is over: nothing to resume
    resumed = load_record(part)  # written again, where it was read
    assert resumed["actions"] == straight["actions"] and resumed["deals"] == straight["deals"]
    assert resumed["seats"] == straight["seats"] and resumed["seed"] == 4
    # the moves played again are not reported again: only those after the resume
    assert len(MOVE.findall(out.stdout)) == len(straight["actions"]) - k


def test_resume_writes_to_record_when_given_and_leaves_the_resumed_file(tmp_path):
    part, moved = tmp_path / "part.json", tmp_path / "moved.json"
    out = _play(["--game", "draw", "--seed", "2", "--record", str(part)], "1\n")
    assert out.returncode == 0, out.stderr
    before = part.read_text()
    out = _play(["--resume", str(part), "--record", str(moved)], "1\nq\n")
    assert out.returncode == 0, out.stderr
    assert part.read_text() == before
    assert len(load_record(moved)["actions"]) > len(json.loads(before)["actions"])


def _record(tmp_path, **changes):
    env = block_v0.raw_env()
    env.reset(seed=3)
    for _ in range(2):
        env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))
    data = {**env.to_record(), "seats": ["human", "greedy", "greedy", "greedy"], **changes}
    path = tmp_path / "r.json"
    save_record(data, path)
    return path


@pytest.mark.parametrize(("extra", "changes", "message"), [
    (["--seed", "3"], {}, "--resume takes the game, rules, seats, agents and seed from the record: give only --record with it, not --seed"),
    (["--game", "draw", "--opponents", "planner"], {}, "not --game, --opponents"),
    ([], {"seats": None}, "not a record of domino-play (its 'seats' must name one 'human' seat"),
    ([], {"seats": ["greedy"] * 4}, "not a record of domino-play"),
    ([], {"seats": ["human", "greedy"]}, "'seats' names 2 seats, the game has 4"),
    ([], {"seed": None}, "the record has no seed, which --resume needs to deal the later rounds as the game would "
                         "have (domino-play's records hold one): got None"),
    ([], {"seed": 2**32}, "the record's seed 4294967296 is above 2**32 - 1 (4,294,967,295), the largest domino-play "
                          "plays (--seed)"),  # the agents' generator, [seed, 1], would be another seed's
    ([], {"seats": ["human", "greedy", "nosuchagent", "greedy"]}, "the agent of seat 2 (nosuchagent)"),
    ([], {"seats": ["human", "greedy", "ppo:checkpoints/nosuch", "greedy"]},  # not "give their full path"
     "(ppo:checkpoints/nosuch): no model at checkpoints/nosuch from this folder: run domino-play --resume from the folder the game was started in"),
    ([], {"actions": [10**6]}, "move 1 (actions[0], 0-based) does not replay: "),
    ([], {"deals": []}, "--resume: record " + "{path} has no deal"),  # was an IndexError traceback; the page's words
    ([], {"deals": None}, "r.json: field 'deals' must be a JSON list, got NoneType"),
])  # fmt: skip
def test_a_record_that_cannot_be_resumed_is_one_line_and_left_as_it_was(extra, changes, message, tmp_path):
    path = _record(tmp_path, **changes)
    before = path.read_text()
    out = _play(["--resume", str(path), *extra], "1\n")
    message = message.replace("{path}", str(path))
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and not out.stdout
    assert out.stderr.count(str(path)) <= 1  # ("--resume r.json: record r.json: ..." named it twice)
    assert path.read_text() == before


def test_a_missing_record_and_a_replay_page_are_refused_in_the_replay_pages_words(tmp_path):
    """A user trial: --resume said "No such file or directory" and "is not valid JSON" where
    domino-replay-html says "no such file" and "a replay page, not a game record"."""
    path = _record(tmp_path)
    page = tmp_path / "r.html"
    out = subprocess.run([sys.executable, "-m", "train.replay_html", str(path), "-o", str(page)], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    for target, words in ((tmp_path / "gone.json", ": no such file"), (tmp_path, " is a folder; give the record of the "
                                                                        "game (a file, as domino-play writes it)"),
                          (page, ": a replay page, not a game record; give the record (JSON) it was made from")):  # fmt: skip
        out = _play(["--resume", str(target)], "1\n")
        assert out.returncode == 2 and out.stderr == f"domino-play: error: --resume {target}{words} (domino-play --help lists every option)\n"


def test_an_edited_first_deal_or_a_game_over_is_refused(tmp_path):
    path = _record(tmp_path)
    data = json.loads(path.read_text())
    other = block_v0.raw_env()
    other.reset(seed=4)
    save_record({**data, "deals": other.to_record()["deals"], "actions": []}, path)
    out = _play(["--resume", str(path)], "")
    assert out.returncode == 2 and "the first deal is not the one seed 3 deals" in out.stderr, out.stderr
    done = tmp_path / "done.json"
    assert _play(["--game", "block", "--seed", "3", "--record", str(done)], "1\n" * 400).returncode == 0
    out = _play(["--resume", str(done)], "")
    assert out.returncode == 2 and "the game is over (" in out.stderr and "nothing to resume" in out.stderr


def test_a_stop_while_the_recorded_moves_are_played_again_keeps_the_record(tmp_path, monkeypatch, capsys):
    """Ctrl-C (or an agent's error) before the resumed game is back where it stopped: writing the
    record then would have replaced it with the shorter game replayed so far."""
    path = _record(tmp_path)
    before = path.read_text()
    real = play_module._replay_quietly

    def interrupted(env, agents, rng, moves, you, differ=None):
        del moves[:-1]  # the first recorded move (popped from the end) played, then Ctrl-C
        real(env, agents, rng, moves, you, differ)
        raise KeyboardInterrupt

    monkeypatch.setattr(play_module, "_replay_quietly", interrupted)
    assert play_module.main(["--resume", str(path)]) == 130
    assert path.read_text() == before
    assert f"no record written ({path} is as it was)" in capsys.readouterr().out


@pytest.mark.parametrize("extra", [["--seat", "0"], ["--game", "mexican_train"], ["--opponents", "greedy"]])
def test_a_flag_given_its_default_value_is_refused_with_resume_too(extra, tmp_path):
    """The record's seat, game and agents are used: --seat 0 with a record whose human sat at
    seat 2 played seat 2 without a word (a flag was missed when its value was the default)."""
    path = _record(tmp_path)
    out = _play(["--resume", str(path), *extra], "1\n")
    assert out.returncode == 2 and f"give only --record with it, not {extra[0]}" in out.stderr, out.stderr


@pytest.mark.parametrize(("limit", "named"), [({"max_cycles": 1}, "max_cycles=1"), ({"max_steps": 3}, "max_steps=3"),
                                              ({"max_cycles": 1, "max_steps": 1000}, "max_cycles=1")])  # fmt: skip
def test_a_game_stopped_by_max_cycles_or_max_steps_is_over_and_names_its_limit(limit, named, tmp_path):
    """A game stopped by max_steps was said to be stopped by max_cycles (100000)."""
    env = block_v0.raw_env(**limit)
    env.reset(seed=3)
    while not env.truncations[env.agent_selection]:
        env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))
    path = tmp_path / "t.json"
    save_record({**env.to_record(), "seats": ["human", "greedy", "greedy", "greedy"]}, path)
    before = path.read_text()
    out = _play(["--resume", str(path)], "1\n")
    moves = len(env.to_record()["actions"])
    assert out.returncode == 2 and f"stopped by the env's limit {named} ({moves} moves); nothing to resume" in out.stderr, out.stderr
    assert path.read_text() == before


def test_a_pipe_or_an_empty_name_is_refused_not_read_forever(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out = _play(["--resume", str(fifo)], "", timeout=60)
    assert out.returncode == 2 and "not a regular file (a pipe?)" in out.stderr, out.stderr
    out = _play(["--resume", ""], "")
    assert out.returncode == 2 and "--resume: give the record of the game (got an empty name)" in out.stderr


def test_the_hint_of_a_record_named_like_a_flag_runs(tmp_path):
    run = [sys.executable, "-m", "domino_env.train.play"]
    out = subprocess.run([*run, "--game", "draw", "--seed", "2", "--record=-r.json"], input="1\n", capture_output=True,
                         text=True, cwd=tmp_path, timeout=180)  # fmt: skip
    hint = out.stdout.rsplit("go on with it: ", 1)[1].rstrip(")\n")
    assert hint == "domino-play --resume ./-r.json" and "domino-replay-html ./-r.json;" in out.stdout
    out = subprocess.run([*run, *shlex.split(hint)[1:]], input="q\n", capture_output=True, text=True, cwd=tmp_path, timeout=180)
    assert out.returncode == 0 and "resumed after" in out.stdout, out.stderr


def test_a_resumed_record_that_cannot_be_written_again_names_resume(tmp_path):
    path = _record(tmp_path)
    path.chmod(0o444)
    locked = os.access(path, os.W_OK) and subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0
    if os.access(path, os.W_OK):
        pytest.skip("this user can write a read-only file")
    try:
        out = _play(["--resume", str(path)], "1\n")
    finally:
        if locked:
            subprocess.run(["chattr", "-i", str(path)])
    assert out.returncode == 2 and f"--resume {path}: the game goes on in this record, and the file is not writable" in out.stderr
    assert "give --record PATH" in out.stderr, out.stderr


def test_a_game_resumed_after_you_are_out_says_so_and_ends_as_played_through(tmp_path):
    """Stopped while the others played on without you (an elimination game): the resumed game
    plays to its end without asking you anything, and said nothing of why."""
    args = ["--game-end", "elimination", "--elimination-limit", "20", "--episode", "game", "--seat", "1",
            "--opponents", "random", "greedy", "random", "--seed", "21"]  # fmt: skip
    whole = tmp_path / "whole.json"
    assert _play([*args, "--record", str(whole)], "1\n" * 999).returncode == 0
    straight = load_record(whole)
    env = play_module.make_env("mexican_train", game_end="elimination", elimination_limit=20, episode="game")
    env.reset(seed=21)
    for action in straight["actions"]:
        while env.terminations[env.agent_selection]:
            env.step(None)
        env.step(action)
        if play_module._eliminated(env.game_state, 1):
            break
    assert env.agents and not env.game_state.game_over  # the others still play
    path = tmp_path / "out.json"
    save_record({**env.to_record(), "seats": straight["seats"]}, path)
    out = _play(["--resume", str(path)], "")
    assert out.returncode == 0 and "you are out of the game, the other seats play on" in out.stdout, out.stderr
    assert "your move" not in out.stdout and "game over" in out.stdout
    assert load_record(path)["actions"] == straight["actions"]


def test_an_agent_that_now_plays_otherwise_is_noted(tmp_path):
    """The recorded moves are played, but an agent that answers otherwise (its model retrained in
    the same folder, its code changed) will not play on as in the game stopped: said, not silent."""
    path = tmp_path / "r.json"
    out = _play(["--game", "block", "--episode", "game", "--seed", "5", "--record", str(path)], "1\n" * 6)
    assert out.returncode == 0, out.stderr
    data = load_record(path)
    out = _play(["--resume", str(path)], "q\n")
    assert out.returncode == 0 and "resumed after" in out.stdout and "note:" not in out.stdout, out.stderr
    save_record({**data, "seats": ["human", "random", "greedy", "random"]}, path)  # seats 1 and 3 changed
    out = _play(["--resume", str(path)], "q\n")
    assert out.returncode == 0, out.stderr
    assert "note: seat 1 (random), seat 3 (random) now chose other moves than the recorded ones" in out.stdout


@pytest.mark.parametrize("name", ["play_mine.py", "playmine"])
def test_the_hints_of_a_users_own_script_name_that_script(name, tmp_path):
    """A user trial: the script of docs/play.md (it registers the agent "mine"), stopped, printed
    "go on with it: domino-play --resume ...", which refuses "mine"; the hint names the script
    (an attacker: also one named without .py)."""
    page = (ROOT / "docs/play.md").read_text()
    (tmp_path / name).write_text(re.search(r"```python\n(# play_mine\.py.*?)```", page, re.S).group(1))
    out = subprocess.run([sys.executable, name, "--opponents", "mine", "--seed", "4", "--record", "m.json"],
                         input="1\nq\n", capture_output=True, text=True, cwd=tmp_path, timeout=120)  # fmt: skip
    hint = out.stdout.rsplit("go on with it: ", 1)[1].rstrip(")\n")
    assert hint == f"python {name} --resume m.json", out.stdout
    out = subprocess.run([sys.executable, *shlex.split(hint)[1:]], input="q\n", capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)  # fmt: skip
    assert out.returncode == 0 and "resumed after" in out.stdout, out.stderr


def test_the_view_hint_of_a_record_named_html_writes_another_page(tmp_path):
    """A user trial: ``--record game.html`` printed "view it: domino-replay-html game.html", which
    refuses to write the page over the record."""
    out = subprocess.run([sys.executable, "-m", "domino_env.train.play", "--game", "draw", "--seed", "2", "--record",
                          "game.html"], input="1\nq\n", capture_output=True, text=True, cwd=tmp_path, timeout=120)  # fmt: skip
    view = re.search(r"view it: (.*?);", out.stdout).group(1)
    assert view == "domino-replay-html game.html -o game.replay.html", out.stdout
    out = subprocess.run([sys.executable, "-m", "domino_env.train.replay_html", *shlex.split(view)[1:]],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert load_record(tmp_path / "game.html")["actions"] and "<html" in (tmp_path / "game.replay.html").read_text()


def test_a_gzip_record_is_written_and_resumed(tmp_path):
    out = _play(["--game", "block", "--seed", "5", "--record", str(tmp_path / "g.json.gz")], "1\nq\n")
    assert (tmp_path / "g.json.gz").read_bytes()[:2] == b"\x1f\x8b", out.stderr
    assert f"go on with it: domino-play --resume {tmp_path / 'g.json.gz'}" in out.stdout
    out = _play(["--resume", str(tmp_path / "g.json.gz")], "q\n")
    assert out.returncode == 0 and "resumed after" in out.stdout, out.stderr


def test_an_illegal_move_is_numbered_alike_by_replay_the_replay_page_and_resume(tmp_path):
    """records.replay, domino-replay-html and --resume name the same move the same way."""
    from domino_env.core.errors import RecordError
    from domino_env.core.records import replay
    from domino_env.train.replay_html import frames_from_record

    path = _record(tmp_path)
    data = load_record(path)
    data["actions"].append(10**6)  # the third action
    save_record(data, path)
    name = "move 3 (actions[2], 0-based) does not replay: "
    with pytest.raises(RecordError, match=re.escape(name)):
        list(replay(data))
    with pytest.raises(RecordError, match=re.escape(name)):
        frames_from_record(data)
    out = _play(["--resume", str(path)], "")
    assert out.returncode == 2 and f"--resume {path}: {name}" in out.stderr, out.stderr


def test_a_move_after_the_episode_or_its_max_cycles_is_named_as_records_replay_names_it(tmp_path):
    """It was 'does not replay: the episode is over (every agent is done): call reset()' (the
    Python API's advice), also for a move after the record's max_cycles, which it did not name."""
    for kwargs in ({}, {"max_cycles": 2}):
        env = block_v0.raw_env(**kwargs)
        env.reset(seed=3)
        while env.agents and not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))
        data = {**env.to_record(), "seats": ["human", "greedy", "greedy", "greedy"]}
        n = len(data["actions"])
        data["actions"].append(data["actions"][-1])
        path = tmp_path / "after.json"
        save_record(data, path)
        out = _play(["--resume", str(path)], "")
        message = (f"--resume: record {path} has {n + 1} actions; its env_kwargs' max_cycles=2 ends the episode after "
                   f"move {n} (actions[{n - 1}], 0-based)") if kwargs else \
            f"--resume {path}: move {n + 1} (actions[{n}], 0-based) comes after the end of the record's episode (move {n} ended round 1)"
        assert out.returncode == 2 and message in out.stderr, out.stderr
        assert "reset()" not in out.stderr


def test_an_os_error_names_the_record_even_when_its_name_is_in_the_errors_words(tmp_path):
    """'--resume dir' on a folder said '--resume: Is a directory': the name was in the words."""
    (tmp_path / "dir").mkdir()
    out = subprocess.run([sys.executable, "-m", "domino_env.train.play", "--resume", "dir"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=120)  # fmt: skip
    assert out.returncode == 2 and "--resume dir is a folder; give the record of the game" in out.stderr, out.stderr


def test_only_a_record_resume_takes_is_kept_and_its_check_copies_no_state(tmp_path, monkeypatch):
    """An attacker's trial of the check that keeps a game not over: it kept every replayed state
    (a 59,006-move record was killed for memory after 2.5 minutes), and it told the user to
    --resume records that --resume refuses (stopped by max_cycles; not domino-play's)."""
    from domino_env.core.line import LineState
    from domino_env.train.play_records import moves_not_over

    def record_after(steps: int, seats: bool = True, **kwargs) -> Path:
        env = block_v0.raw_env(**kwargs)
        env.reset(seed=3)
        for _ in range(steps):
            if not env.agents:
                break
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(next(iter(obs["action_mask"].nonzero()[0]))))
        data = env.to_record()
        if seats:
            data.update(seats=["human", "greedy"], seed=3)
        path = tmp_path / f"r{len(list(tmp_path.iterdir()))}.json"
        save_record(data, path)
        return path

    def no_copy(self):
        raise AssertionError("a state was copied")

    monkeypatch.setattr(LineState, "copy", no_copy)
    assert moves_not_over(str(record_after(3))) == 3  # stopped: --resume goes on with it
    assert moves_not_over(str(record_after(10_000))) is None  # played out
    assert moves_not_over(str(record_after(10_000, max_cycles=2))) is None  # the env's limit ended it
    assert moves_not_over(str(record_after(10_000, max_steps=3))) is None
    assert moves_not_over(str(record_after(3, seats=False))) is None  # not domino-play's: --resume refuses it


def test_a_killed_game_keeps_its_record_up_to_your_last_turn_and_resumes(tmp_path):
    """The record was written only when the game stopped: a SIGKILL (a crash, a power cut) lost
    the whole game. It is now saved at each of your turns, before the prompt."""
    import signal
    import threading
    import time

    args = ["--players", "3", "--max-pip", "9", "--opponents", "random", "greedy", "--seed", "5"]
    whole, killed = tmp_path / "whole.json", tmp_path / "killed.json"
    assert _play([*args, "--record", str(whole)], "1\n" * 3000).returncode == 0
    proc = subprocess.Popen([sys.executable, "-m", "train.play", *args, "--record", str(killed)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    seen = bytearray()
    reader = threading.Thread(target=lambda: [seen.extend(c) for c in iter(lambda: proc.stdout.read1(4096), b"")])
    reader.start()
    try:
        proc.stdin.write(b"1\n1\n1\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while seen.count(b"your move (") < 4:  # the fourth prompt: saved just before it
            assert proc.poll() is None and time.monotonic() < deadline, bytes(seen)
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
        reader.join()
    saved = load_record(killed)
    reported = len(MOVE.findall(seen.decode()))
    assert saved["seats"] == ["human", "random", "greedy"] and len(saved["actions"]) == reported > 3
    out = _play(["--resume", str(killed)], "1\n" * 3000)
    assert out.returncode == 0, out.stderr
    assert load_record(killed)["actions"] == load_record(whole)["actions"]


def test_a_save_at_your_turn_that_fails_is_said_once_and_the_game_goes_on(tmp_path, monkeypatch, capsys):
    import builtins
    import errno

    path = tmp_path / "game.json"
    from domino_env.train import play_records

    real, calls = play_records.save_record, []

    def full_until_the_end(data, where):
        calls.append(len(data["actions"]))
        if len(calls) == 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(data, where)

    typed = iter(["1", "1", "1"])
    monkeypatch.setattr(play_records, "save_record", full_until_the_end)

    def end_of_input(prompt=""):
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", end_of_input)
    assert play_module.main(["--players", "3", "--max-pip", "9", "--seed", "5", "--record", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count(f"the game so far could not be saved to {path} (No space left on device); it is tried again "
                     "when the game stops") == 1  # fmt: skip
    assert len(calls) == 2 and calls[1] == len(load_record(path)["actions"]) > 3  # no save tried after the failure but the last
