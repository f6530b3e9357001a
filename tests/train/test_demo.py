"""``python -m domino_env.train.demo`` (the README's first command) as a real process: a round is
played and printed, a bad flag is one line naming it before anything is printed (it was a
traceback from the rules engine), and a reader that stops early ends it quietly with 141 (it was
a BrokenPipeError traceback)."""

import subprocess
import sys

import pytest

DEMO = [sys.executable, "-m", "domino_env.train.demo"]
PROG = "python -m domino_env.train.demo"


def test_a_round_is_played_to_its_end(tmp_path):
    res = subprocess.run([*DEMO, "--seed", "3"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == ("One Mexican Train round (domino_cubano, 4 seats, double-12, seed 3): every seat plays a "
                        "random legal move")  # fmt: skip
    assert lines[2].startswith("Mexican Train - round 1") and "\nround ended: " in res.stdout
    moves = [line for line in lines if line.startswith(("seat 0: ", "seat 1: ", "seat 2: ", "seat 3: "))]
    assert moves and not any(line.startswith("player_") for line in lines)  # the table's words: seat N


@pytest.mark.parametrize(
    "args, says",
    [(["--players", "9"], "--players: invalid config field 'num_players': got 9; allowed: an integer from 2 to 8"),
     (["--max-pip", "7"], "--max-pip: invalid config field 'max_pip': got 7; allowed: one of (9, 12, 15, 18)"),
     (["--preset", "foo"], "--preset: invalid config field 'preset': got 'foo'"),
     (["--seed", "-1"], "--seed: invalid argument 'seed': got -1"),
     (["--players", "x"], "argument --players: expected an integer (such as 4000, 4e3 or 4k), got 'x'")],
)  # fmt: skip
def test_a_bad_flag_is_one_line_naming_it(tmp_path, args, says):
    res = subprocess.run([*DEMO, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and res.stdout == "", res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{PROG}: error: {says}"), res.stderr
    assert lines[0].endswith(f"({PROG} --help lists every option)")


def test_a_reader_that_goes_away_ends_it_quietly(tmp_path):
    proc = subprocess.Popen([*DEMO, "--max-pip", "18", "--players", "8"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    proc.stdout.close()  # before the first write reaches it: the write fails as under `| head`
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141 and err == "", err
