"""Counts and seeds on the command lines (docs/cli.md "Counts, seeds and wall times"): ``1e5``,
``100k``, ``2M`` and ``100_000`` read as the integers people mean; anything not exactly an
integer is refused naming the flag, before any work starts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from domino_env.train.arg_types import parse_count


@pytest.mark.parametrize(
    ("text", "value"),
    [("100000", 100_000), ("100_000", 100_000), ("1e5", 100_000), ("1E5", 100_000), ("2.5e5", 250_000),
     ("100k", 100_000), ("100K", 100_000), ("2M", 2_000_000), ("2.5k", 2_500), ("1.0", 1), (" 7 ", 7),
     ("-1e3", -1_000), ("+4k", 4_000), ("0", 0), ("1e99", 10**99),
     ("1234567890123456789012345678901e0", 1234567890123456789012345678901),  # 31 digits, not rounded to 28
     ("1_0", 10), ("+3", 3), ("3.0", 3), ("3e0", 3), ("1_0e1", 100), ("1_0k", 10_000), ("\t3\n", 3), ("03", 3)],
)  # fmt: skip
def test_a_count_reads_as_people_write_it(text, value):
    assert parse_count(text) == value and type(parse_count(text)) is int


@pytest.mark.parametrize(
    "text", ["1.5", "1e-3", "2.5e5x", "k", "e5", "1m", "4 kk", "nan", "inf", "Infinity", "0x10", "", "1e100",
             "1e100000000", "1e-999999999k",
             # not integers, though the default decimal context (28 digits) rounded them to one
             "1.99999999999999999999999999999", "1.00000000000000000000000000001", "12345678901234567890123456789.5",
             # spellings no doc promises, which Decimal (or int) took: _ not between two digits, other
             # scripts' digits (Arabic-Indic, full-width), other bases
             "3_", "_3", "1__0", "1_e5", "1e5_", "3_k", "\u0663", "\u0663k", "\uff13", "0x3", "0b1", "0o3", "\u22123"],
)  # fmt: skip
def test_what_is_not_exactly_an_integer_is_refused(text):
    with pytest.raises(ValueError):
        parse_count(text)


#: Flags a command cannot parse without.
REQUIRED = {"evaluate": ["--agents", "greedy", "random"]}


def _parsers():
    from domino_env.train.bc import build_parser as bc
    from domino_env.train.evaluate import build_parser as evaluate
    from domino_env.train.play import build_parser as play
    from domino_env.train.ppo_args import build_parser as ppo
    from domino_env.train.rllib_args import build_parser as rllib

    return {"ppo": ppo, "bc": bc, "rllib": rllib, "evaluate": evaluate, "play": play}


@pytest.mark.parametrize("command", ["ppo", "bc", "rllib", "evaluate", "play"])
def test_every_command_takes_a_seed_written_with_an_exponent_or_a_suffix(command):
    parser, required = _parsers()[command](), REQUIRED.get(command, [])
    assert parser.parse_args([*required, "--seed", "1e3"]).seed == 1000
    assert parser.parse_args([*required, "--seed", "2k"]).seed == 2000


@pytest.mark.parametrize(
    ("command", "argv", "dest", "value"),
    [("ppo", ["--timesteps", "1e6"], "timesteps", 1_000_000), ("ppo", ["--eval-freq", "50k"], "eval_freq", 50_000),
     ("ppo", ["--n-steps", "1_024"], "n_steps", 1_024), ("bc", ["--samples", "3e5"], "samples", 300_000),
     ("rllib", ["--batch-size", "4k"], "batch_size", 4_000), ("rllib", ["--iterations", "2e1"], "iterations", 20),
     ("evaluate", ["--rounds", "2k"], "rounds", 2_000), ("evaluate", ["--workers", "2e0"], "workers", 2)],
)  # fmt: skip
def test_count_flags_take_the_written_forms(command, argv, dest, value):
    assert getattr(_parsers()[command]().parse_args([*REQUIRED.get(command, []), *argv]), dest) == value


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--timesteps", "1.5e0"], "argument --timesteps: expected an integer (such as 4000, 4e3 or 4k), got '1.5e0'"),
     (["--timesteps", "0k"], "argument --timesteps: must be a positive integer, got 0"),
     (["--seed", "1e10"], "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got 10000000000")],
)  # fmt: skip
def test_a_bad_count_names_its_flag(argv, message, capsys):
    from domino_env.train.ppo_args import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(argv)
    assert message in capsys.readouterr().err


def test_a_real_tournament_with_written_counts_is_the_one_with_plain_integers():
    """The console script in a real process: --rounds 1e1 --seed 2k plays the tournament of
    --rounds 10 --seed 2000, figure for figure."""
    common = ["--agents", "greedy", "random", "--players", "2", "--no-progress", "--json", "-"]
    runs = []
    for counts in (["--rounds", "1e1", "--seed", "2k"], ["--rounds", "10", "--seed", "2000"]):
        proc = subprocess.run(
            [sys.executable, "-m", "domino_env.train.evaluate", *common, *counts],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-2000:]
        runs.append(json.loads(proc.stdout))
    assert runs[0]["seed"] == 2000 and runs[0]["episodes"] == 10
    assert runs[0]["stats"] == runs[1]["stats"]


def test_the_demo_takes_a_seed_written_with_an_exponent():
    out = [
        subprocess.run([sys.executable, "-m", "domino_env.train.demo", "--seed", seed],
                       capture_output=True, text=True, timeout=120)
        for seed in ("3e0", "3")
    ]  # fmt: skip
    assert out[0].returncode == 0 and "round ended" in out[0].stdout, out[0].stderr[-2000:]
    assert out[0].stdout == out[1].stdout
