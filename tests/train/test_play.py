"""``python -m train.play`` end to end: real processes fed through a pipe, and once through tmux
as a person would type (including a Ctrl-C)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from process_helpers import wait_for_first_prompt

from domino_env.core.records import load_record, replay

ROOT = Path(__file__).resolve().parents[2]
#: A reported move: "you: ..." or "seat 2 (greedy): ..." on a line of its own.
MOVE = re.compile(r"^(you|seat \d+ \([^)]*\)): (?:place|lead|draw|pass|annul)", re.M)


def _play(args: list[str], stdin: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "train.play", *args],
        input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=timeout,
    )  # fmt: skip


def _states(path: Path) -> list:
    record = load_record(path)
    return list(replay(record))


def test_bad_input_gets_a_message_and_a_new_prompt_then_end_of_input_saves_the_record(tmp_path):
    rec = tmp_path / "game.json"
    out = _play(
        ["--players", "3", "--max-pip", "9", "--seed", "3", "--record", str(rec)],
        "abc\n\n99\n0\n-1\nt\n1\n",
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    text = out.stdout
    # this first turn has one legal move (4-9 on the own train): the prompt offers it alone
    assert "your move (1): " in text and "your move (1-" not in text.split("you: place")[0]
    # piped input is echoed after its prompt (no terminal echoes it): the transcript reads as typed
    assert "\nyour move (1): abc\n  'abc' is not a move number" in text and "\nyour move (1): 1\nyou: place" in text
    assert "'abc' is not a move number: type 1 (the only legal move)" in text
    assert "no move typed: type 1 (the only legal move)" in text
    assert "there is no move 99" in text and "there is no move 0" in text
    assert "there is no move -1" in text
    # "t" shows the table again: the same turn's table is printed twice before the move is made
    first_turn = text.split("your legal moves:")[0].rsplit("Mexican Train - round 1", 1)[1]
    assert text.count(first_turn) == 2
    assert "game stopped (end of input) before its end" in text
    record = json.loads(rec.read_text())
    assert record["seats"] == ["human", "greedy", "greedy"]
    k = len(record["actions"])
    assert f"record of {k} move{'' if k == 1 else 's'} written to {rec}" in text
    # the human made exactly one move; every move, the opponents' too, is reported
    moves = MOVE.findall(text)
    assert moves.count("you") == 1
    assert len(moves) == len(record["actions"])
    states = _states(rec)
    assert len(states) == len(record["actions"]) + 1
    assert not states[-1].round_over and states[-1].current_player == 0


@pytest.mark.parametrize(
    "args",
    [
        ["--game", "block"],
        ["--game", "draw", "--seat", "1", "--opponents", "planner"],
        ["--game", "cuban", "--seat", "2", "--opponents", "random", "planner", "greedy"],
        ["--players", "2", "--max-pip", "9", "--preset", "tren_mexicano", "--seat", "1"],
        # search needs the seat's public history: play must pass it (info_state)
        ["--game", "draw", "--opponents", "search:20"],
        ["--players", "3", "--opponents", "search:10", "planner"],
    ],
)
def test_a_whole_round_through_a_pipe_ends_with_its_result_and_a_replayable_record(args, tmp_path):
    rec = tmp_path / "r.json"
    out = _play([*args, "--seed", "5", "--record", str(rec)], "1\n" * 400)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr
    assert "round 1 over (" in out.stdout or "round annulled" in out.stdout
    assert "game stopped" not in out.stdout
    states = _states(rec)
    assert states[-1].round_over
    seat = int(args[args.index("--seat") + 1]) if "--seat" in args else 0
    assert json.loads(rec.read_text())["seats"][seat] == "human"
    moves = MOVE.findall(out.stdout)  # every move is reported, the human's among them
    assert len(moves) == len(json.loads(rec.read_text())["actions"]) and "you" in moves


def test_a_whole_game_of_several_rounds(tmp_path):
    rec = tmp_path / "g.json"
    out = _play(["--game", "block", "--episode", "game", "--seed", "1", "--record", str(rec)], "1\n" * 3000)
    assert out.returncode == 0, out.stderr
    assert "round 2 dealt" in out.stdout and "game over: won by" in out.stdout
    record = load_record(rec)
    assert len(record["deals"]) >= 2
    assert _states(rec)[-1].game_over


def test_q_quits_and_saves(tmp_path):
    rec = tmp_path / "q.json"
    out = _play(["--game", "draw", "--seed", "2", "--record", str(rec)], "q\n")
    assert out.returncode == 0
    assert "game stopped (you quit) before its end" in out.stdout
    assert load_record(rec)["env_id"] == "dominoes/draw-v0"


def test_ppo_opponent_from_a_released_checkpoint(tmp_path):
    rec = tmp_path / "ppo.json"
    ckpt = ROOT / "checkpoints" / "mexican_train_4p_d12"
    out = _play(["--opponents", f"ppo:{ckpt}", "--seed", "0", "--record", str(rec)], "")
    assert out.returncode == 0, out.stderr
    assert f"1 ppo:{ckpt}" in out.stdout
    assert load_record(rec)["seats"][1] == f"ppo:{ckpt}"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seat", "4"], "--seat must be a seat 0..3 of this 4-seat game, got 4"),
        (["--opponents", "greedy", "random"], "--opponents: give one agent, or 3 (one per other seat); got 2"),
        (["--game", "draw", "--opponents", "greedy", "random"], "--opponents: give one agent (for the other seat); got 2"),
        (["--opponents", "champion"], "--opponents champion: invalid agent"),
        (["--opponents", "ppo:/no/such/model"], "--opponents ppo:/no/such/model: no trained model"),
        (["--game", "block", "--preset", "novelty"], "--preset is for --game mexican_train"),
        (["--game", "cuban", "--players", "3"], "--players: Cuban plays in teams of two"),
        (["--game", "draw", "--max-pip", "18"], "invalid config field 'max_pip'"),
        (["--seed", "-3"], "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got -3"),
        (["--record", "/no/such/folder/x.json"], "--record /no/such/folder/x.json: folder /no/such/folder does not exist"),
        (["--record", ""], "--record: give a file name (got an empty name)"),
        (["--game", "chess"], "invalid choice: 'chess'"),
        (["--teams"], "--teams is not a rule of --game mexican_train"),
        (["--game", "draw", "--doubles", "chain"], "--doubles is not a rule of --game draw"),
        (["--hand-size", "0"], "--hand-size: invalid config field 'hand_size': got 0"),
    ],
)
def test_bad_flags_are_refused_before_any_play(args, message, tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "train.play", *args], input="1\n", capture_output=True, text=True,
        cwd=tmp_path, timeout=60, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
    assert list(tmp_path.iterdir()) == []  # no record written


def _pane(session: str) -> str:
    return subprocess.run(
        ["tmux", "capture-pane", "-p", "-t", session, "-S", "-200"], capture_output=True, text=True, check=True
    ).stdout


def _wait_for(session: str, text: str, count: int = 1, limit: float = 60) -> str:
    """Poll the pane until ``text`` shows ``count`` times (a bound, not a timing assertion)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        screen = _pane(session)
        if screen.count(text) >= count:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; screen:\n{_pane(session)}")


def test_typed_in_tmux_with_a_typo_a_move_and_ctrl_c(tmp_path):
    if shutil.which("tmux") is None:
        pytest.fail("tmux is missing: apt-get install -y tmux (make test installs it)")
    session = f"domino-play-{uuid.uuid4().hex[:8]}"
    rec, status = tmp_path / "t.json", tmp_path / "status"
    command = (  # the trap: the shell goes on to write the status after its command died of Ctrl-C's SIGINT
        f"trap true INT; cd {ROOT} && {sys.executable} -m train.play --game block --seed 7 --record {rec}; "
        f"echo $? > {status}; sleep 120"  # the pane stays readable after the exit (killed below)
    )
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "50", command], check=True)
    try:
        _wait_for(session, "your move (1")
        subprocess.run(["tmux", "send-keys", "-t", session, "x7", "Enter"], check=True)
        _wait_for(session, "'x7' is not a move number")
        subprocess.run(["tmux", "send-keys", "-t", session, "1", "Enter"], check=True)
        # the re-prompt after the typo is the 2nd prompt: wait for the move and the 3rd prompt
        # (Ctrl-C sent before the move is made lost the race under load)
        _wait_for(session, "you: ")
        _wait_for(session, "your move (1", count=3)
        subprocess.run(["tmux", "send-keys", "-t", session, "C-c"], check=True)
        screen = _wait_for(session, "interrupted (Ctrl-C)")
        end = time.monotonic() + 30
        while not status.exists() and time.monotonic() < end:
            time.sleep(0.2)
        assert status.read_text().strip() == "130"
        assert "Traceback" not in screen
        record = load_record(rec)
        assert record["seats"][0] == "human"
        states = list(replay(record))
        assert not states[-1].round_over and states[-1].current_player == 0
        assert "you: " in screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_console_script_runs_through_train_cli(tmp_path):
    """``domino-play`` is ``domino_env.train.cli:play`` (the pip wrapper calls it with sys.argv set)."""
    rec = tmp_path / "cs.json"
    code = (
        "import sys\n"
        f"sys.argv = ['domino-play', '--game', 'draw', '--seed', '2', '--record', {str(rec)!r}]\n"
        "from domino_env.train.cli import play\nplay()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input="q\n", capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "game stopped (you quit)" in out.stdout and load_record(rec)["env_id"] == "dominoes/draw-v0"


def test_the_prompt_for_a_single_legal_move_offers_that_move_alone(capsys):
    from domino_env.train.play import read_move

    prompts: list[str] = []
    typed = iter(["2", "1"])

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(typed)

    assert read_move([457], show=lambda: None, read=read) == 457
    assert prompts == ["your move (1): "] * 2
    assert "there is no move 2: type 1 (the only legal move), t to show" in capsys.readouterr().out
    prompts.clear()
    typed = iter(["3"])
    assert read_move([4, 9, 11], show=lambda: None, read=read) == 11
    assert prompts == ["your move (1-3): "]


def test_record_refuses_to_overwrite_a_file_that_is_not_a_record_and_keeps_an_old_record(tmp_path):
    keep = tmp_path / "notes.json"
    keep.write_text("precious data")
    out = _play(["--seed", "1", "--record", str(keep)], "q\n")
    assert out.returncode == 2 and keep.read_text() == "precious data" and out.stdout == ""
    assert f"--record {keep}: the file exists and is not a game record (it would be overwritten)" in out.stderr
    old = tmp_path / "old.json"
    assert "game stopped" not in _play(["--seed", "1", "--record", str(old)], "1\n" * 400).stdout  # played out
    assert _play(["--seed", "2", "--game", "draw", "--record", str(old)], "q\n").returncode == 0
    assert load_record(tmp_path / "old-2.json")["env_id"] == "dominoes/draw-v0" != load_record(old)["env_id"]  # kept


def test_the_record_of_a_game_not_over_is_kept_unless_it_is_the_one_resumed(tmp_path, monkeypatch):
    """A user trial: `domino-play --seed 7` again (the seed a stopped game printed) replaced that
    game's record, default name and --record alike, with a new game of one move."""
    monkeypatch.chdir(tmp_path)
    default = tmp_path / "domino-play-mexican_train-7.json"
    assert _play(["--seed", "7", "--record", str(default)], "1\n1\nq\n").returncode == 0
    kept = default.read_bytes()
    moves = len(load_record(default)["actions"])
    for args, name in ((["--seed", "7"], f"the record {default.name}"), (["--seed", "9", "--record", str(default)],
                       f"--record {default}")):  # fmt: skip
        out = subprocess.run([sys.executable, "-m", "domino_env.train.play", *args], input="q\n",
                             capture_output=True, text=True, cwd=tmp_path, timeout=120)  # fmt: skip
        assert out.returncode == 2 and out.stdout == "" and default.read_bytes() == kept, out.stderr
        assert (f"{name} holds a game not over ({moves} moves), which this game's record would replace: go on "
                f"with it (--resume {default.name if name.startswith('the') else default}) or give another name "
                "with --record") in out.stderr  # fmt: skip
    other = tmp_path / "other.json"
    assert _play(["--seed", "8", "--record", str(other)], "q\n").returncode == 0
    out = _play(["--resume", str(other), "--record", str(default)], "q\n")
    assert out.returncode == 2 and f"--record {default} holds a game not over" in out.stderr
    out = _play(["--resume", str(default)], "1\nq\n")  # the record resumed is written again
    assert out.returncode == 0 and len(load_record(default)["actions"]) > moves, out.stderr


@pytest.mark.parametrize(("sig", "status"), [("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_kill_or_a_closed_terminal_saves_the_record(sig, status, tmp_path):
    """SIGTERM / SIGHUP (the terminal closed) ended the game silently and lost its record."""
    import signal

    rec = tmp_path / "killed.json"
    proc = subprocess.Popen([sys.executable, "-m", "train.play", "--seed", "4", "--record", str(rec)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)  # fmt: skip
    wait_for_first_prompt(proc)
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == status and f"interrupted ({sig})" in out and "Traceback" not in err
    assert load_record(rec)["env_id"] == "dominoes/mexican_train-v0"


def test_a_signal_taken_by_another_thread_still_stops_the_prompt(tmp_path):
    """numpy's OpenBLAS threads block no signal, and a kill the kernel gave one of them (a user's
    `kill -HUP; kill -INT`, 2 of 5 tries) left the prompt waiting for a typed line, the handler
    not run. Here a thread of the game's process sends SIGHUP to itself once the prompt waits."""
    import os

    rec, (go, tell) = tmp_path / "other_thread.json", os.pipe()
    code = (f"import os, signal, sys, threading\nfrom domino_env.train.play import main\n"
            f"def hang_up():\n    os.read({go}, 1)\n    signal.pthread_kill(threading.get_ident(), signal.SIGHUP)\n"
            f"threading.Thread(target=hang_up, daemon=True).start()\nsys.exit(main(sys.argv[1:]))")  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-c", code, "--seed", "4", "--record", str(rec)], pass_fds=(go,),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)  # fmt: skip
    try:
        wait_for_first_prompt(proc)
        os.write(tell, b"x")
        assert proc.wait(timeout=20) == 129  # stdin stays open: before, it waited for a line
    finally:
        proc.kill()
        os.close(go), os.close(tell)
    out, err = proc.communicate(timeout=10)
    assert "interrupted (SIGHUP)" in out and err == "", err
    assert load_record(rec)["env_id"] == "dominoes/mexican_train-v0"


def test_a_closed_output_pipe_stops_quietly_and_keeps_the_record(tmp_path):
    rec = tmp_path / "piped.json"
    proc = subprocess.Popen([sys.executable, "-m", "train.play", "--seed", "1", "--record", str(rec)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)  # fmt: skip
    proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    try:
        proc.stdin.write(b"1\n" * 500)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == ""  # was a BrokenPipeError traceback
    assert load_record(rec)["env_id"] == "dominoes/mexican_train-v0"


def test_a_record_that_cannot_be_written_is_one_line(tmp_path):
    """The record's folder removed during the game was a FileNotFoundError traceback."""
    folder = tmp_path / "gone"
    folder.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "train.play", "--seed", "1", "--record", str(folder / "x.json")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)  # fmt: skip
    assert "seats:" in proc.stdout.readline() + proc.stdout.readline()
    deadline = time.monotonic() + 60
    while not (folder / "x.json").exists():  # the game so far, saved before the first prompt
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    shutil.rmtree(folder)  # (removing it at "seats:" raced that save on a loaded machine)
    out, err = proc.communicate("q\n", timeout=60)
    assert proc.returncode == 1 and "Traceback" not in err and err.count("\n") == 1
    assert err == f"domino-play: error: the game record could not be written to {folder / 'x.json'} (No such file or directory); no record is there\n"


def test_the_docs_own_agent_script_plays_a_registered_agent(tmp_path):
    """The script of the play page (docs/play.md), run as written: the registered name works as
    --opponents."""
    page = (ROOT / "docs/play.md").read_text()
    script = re.search(r"```python\n(# play_mine\.py.*?)```", page, re.S).group(1)
    (tmp_path / "play_mine.py").write_text(script)
    rec = tmp_path / "mine.json"
    out = subprocess.run([sys.executable, "play_mine.py", "--opponents", "mine", "--seed", "3", "--record", str(rec)],
                         input="1\n" * 400, capture_output=True, text=True, cwd=tmp_path, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "seat 1 (mine): " in out.stdout and load_record(rec)["seats"] == ["human", "mine", "mine", "mine"]


def test_record_path_that_is_not_a_regular_file_is_refused(tmp_path):
    """A FIFO as --record hung the flag check (it read the 'file' to see if it was a record)."""
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    out = _play(["--seed", "1", "--record", str(fifo)], "q\n", timeout=60)
    assert out.returncode == 2 and f"--record {fifo}: exists and is not a regular file" in out.stderr


@pytest.mark.parametrize("attempt", range(3))  # the hang-up races the game's own reads and writes
def test_closing_the_terminal_window_keeps_the_record(attempt, tmp_path):
    """A user trial: killing the tmux session running domino-play (an interactive shell that
    forwards SIGHUP, then a terminal that fails every read and write with EIO) lost the record
    in 4 of 4 tries, with an OSError traceback or a second SIGHUP during the clean-up."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is missing: apt-get install -y tmux (make test installs it)")
    session = f"domino-hup-{uuid.uuid4().hex[:8]}"
    rec, err = tmp_path / "h.json", tmp_path / "h.err"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "50", "bash --norc --noprofile"],
                   check=True)  # fmt: skip
    try:
        command = f"cd {ROOT} && {sys.executable} -m train.play --game draw --seed 6 --record {rec} 2>{err}"
        subprocess.run(["tmux", "send-keys", "-t", session, command, "Enter"], check=True)
        _wait_for(session, "your legal moves:")  # stdout (the prompt's stream is the next test's)
        time.sleep(0.3)
        subprocess.run(["tmux", "send-keys", "-t", session, "1", "Enter"], check=True)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    deadline = time.monotonic() + 60
    while not rec.exists() and time.monotonic() < deadline:  # a bound, not a timing assertion
        time.sleep(0.2)
    time.sleep(0.5)  # the process may still be writing its last line to stderr
    assert "Traceback" not in err.read_text(), err.read_text()
    record = load_record(rec)
    assert record["seats"][0] == "human" and record["env_id"] == "dominoes/draw-v0"


def test_in_a_terminal_the_prompt_is_on_stdout_with_line_editing(tmp_path):
    """With stderr redirected (`2>err`) the prompt went there, unseen (input() without readline
    prompts on stderr), and the arrow keys typed escape codes into the move ('2\\x1b[')."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is missing: apt-get install -y tmux (make test installs it)")
    session = f"domino-rl-{uuid.uuid4().hex[:8]}"
    rec, err = tmp_path / "r.json", tmp_path / "r.err"
    command = f"cd {ROOT} && {sys.executable} -m train.play --game block --seed 3 --record {rec} 2>{err}; sleep 120"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "50", command], check=True)
    try:
        _wait_for(session, "your move (1")
        subprocess.run(["tmux", "send-keys", "-t", session, "9", "Left", "BSpace", "Right", "Enter"], check=True)
        screen = _wait_for(session, "there is no move")  # "9" kept, its left neighbour (none) deleted
        assert "there is no move 9:" in screen and "\\x1b" not in screen
        subprocess.run(["tmux", "send-keys", "-t", session, "q", "Enter"], check=True)
        _wait_for(session, "record of 0 moves written")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert "your move" not in err.read_text()


@pytest.mark.parametrize("typed", ["²", "٣", "1.5", "+1", "1e0"])
def test_only_ascii_digits_are_move_numbers(typed, capsys):
    """'²' passed str.isdigit() and crashed int() with a traceback; '٣' was taken as move 3."""
    from domino_env.train.play import read_move

    answers = iter([typed, "2"])
    assert read_move([10, 20, 30], show=lambda: None, read=lambda prompt: next(answers)) == 20
    assert f"{typed!r} is not a move number" in capsys.readouterr().out


def test_a_seat_knocked_out_of_an_elimination_game_is_told(tmp_path):
    """`yes 1 | domino-play --episode game --game-end elimination ...`: the human's seat went out
    after a round and ~1,400 lines of other seats' moves scrolled by without a word."""
    rec = tmp_path / "out.json"
    args = ["--players", "6", "--max-pip", "12", "--episode", "game", "--game-end", "elimination",
            "--elimination-limit", "40", "--opponents", "greedy", "--seed", "4", "--record", str(rec)]  # fmt: skip
    out = _play(args, "1\n" * 3000)
    assert out.returncode == 0, out.stderr
    state = list(replay(load_record(rec)))[-1]
    assert state.game_over and state.eliminated_at[0] is not None  # the human (always move 1) lost
    told = f"you are out of the game (your score {state.scores[0]} reached the limit of 40)"
    assert out.stdout.count("you are out of the game") == 1 and told in out.stdout
    assert out.stdout.index(told) < out.stdout.rindex("game over: won by")
    # the other seats knocked out: one line each, after the summary of the round that did it (a
    # user trial: only the table's row said so, from the next deal on; the replay page names them)
    for seat in (1, 2, 3, 4, 5):
        if state.eliminated_at[seat] is not None:
            line = f"seat {seat} is out of the game (score "
            assert out.stdout.count(line) == 1, seat
            ended = out.stdout.index(f"round {state.eliminated_at[seat] + 1} over (")
            assert any(x.startswith(line) for x in out.stdout[ended:].splitlines()[2:8]), seat
    assert sum(at is not None for at in state.eliminated_at[1:]) >= 1
    # a seat out before a round holds no hand in it: "out", not 0 pips (which read as "went out")
    rounds = re.findall(r"round (\d+) over \(.*\n  pips left in each hand: \[([^]]*)\]", out.stdout)
    assert len(rounds) == state.round_index + 1 and any("out" in pips for _, pips in rounds)
    for n, pips in rounds:
        gone = [at is not None and at < int(n) - 1 for at in state.eliminated_at]
        assert [x == "out" for x in pips.split(", ")] == gone and all(x.isdigit() for x in pips.split(", ") if x != "out")


@pytest.mark.parametrize("typed", ["h", "help", "?"])
def test_help_shows_the_table_and_lists_the_commands(typed, capsys):
    """'h', 'help' and '?' only showed the table again, without a word of what can be typed."""
    from domino_env.train.play import read_move

    shown = []
    answers = iter([typed, "3"])
    assert read_move([10, 20, 30], show=lambda: shown.append(1), read=lambda prompt: next(answers)) == 30
    assert shown == [1]
    assert ("commands: a number from 1 to 3 plays that move, t (table) shows the table again, q (quit, exit) "
            "stops the game and writes its record; Ctrl-D stops too; h (help, ?) shows this") in capsys.readouterr().out


@pytest.mark.parametrize("typed", ["9" * 5000, "-" + "1" * 5000, "0" * 5000 + "2", "1234567890"])
def test_a_pasted_number_of_thousands_of_digits_is_no_move(typed, capsys):
    """int() refuses more than 4,300 digits: a pasted run of digits ended the game with a
    ValueError traceback (exit status 1) instead of a message and a new prompt."""
    from domino_env.train.play import read_move

    answers = iter([typed, "2"])
    assert read_move([10, 20, 30], show=lambda: None, read=lambda prompt: next(answers)) == 20
    out = capsys.readouterr().out
    assert out.count("there is no move") == (0 if typed.lstrip("0") == "2" else 1)
    if len(typed) <= 12:  # shown whole; a longer one cut with an ellipsis
        assert f"there is no move {typed}:" in out
    elif typed.lstrip("0") != "2":
        assert f"there is no move {typed[:12]}\u2026:" in out


def test_a_pasted_page_of_text_is_not_echoed_whole(capsys):
    """A user trial: a 100,000-character typo was printed back in full."""
    from domino_env.train.play import read_move

    answers = iter(["abc" * 33_334, "x" * 40, "1"])
    assert read_move([10, 20, 30], show=lambda: None, read=lambda prompt: next(answers)) == 10
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("  '" + "abc" * 13 + "a\u2026' is not a move number") and len(lines[0]) < 200
    assert lines[1].startswith("  '" + "x" * 40 + "' is not a move number")
