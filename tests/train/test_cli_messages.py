"""What the commands print for bad flags and for --help, word for word (a fresh-user trial).

Real processes (``python -m domino_env.train.X`` from the repository root). An error found after
argument parsing (a model of another game, a bad ``--rounds``) is one line on stderr naming the
flag, in the form of argparse's own errors (``train.cli.ArgumentParser``), exit status 2, no
usage block. ``COLUMNS`` is set wide so that argparse does not wrap the help lines.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from process_helpers import running

ROOT = Path(__file__).resolve().parents[2]
CUBAN_MODEL = "checkpoints/cuban_4p_teams_action_scores"
MODULES = {"domino-evaluate": "evaluate", "domino-play": "play", "domino-train": "ppo",
           "domino-bc": "bc", "domino-replay-html": "replay_html", "domino-rllib": "rllib",
           "domino-paired": "paired"}  # fmt: skip
#: Refused by domino-train after its seed checks (any --n-envs up to 256): a command that passes them does not train.
TOO_BIG_BATCH = ["--n-steps", "32", "--batch-size", "16384"]


def _run(command: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "1000"}
    env.pop("DOMINO_TRACEBACK", None)
    return subprocess.run(
        [sys.executable, "-m", f"domino_env.train.{MODULES[command]}", *args], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _one_line_error(command: str, *args: str) -> str:
    """The one stderr line of ``command args`` refused with exit status 2, without its
    ``PROG: error:`` prefix and ``(PROG --help lists every option)`` suffix (both checked)."""
    proc = _run(command, *args)
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and proc.stdout == "", (proc.returncode, proc.stdout[-500:])
    assert len(lines) == 1, proc.stderr  # no usage block, no traceback
    prefix, suffix = f"{command}: error: ", f" ({command} --help lists every option)"
    assert lines[0].startswith(prefix) and lines[0].endswith(suffix), lines[0]
    return lines[0][len(prefix) : -len(suffix)]


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        ("domino-evaluate", ["--agents", f"ppo:{CUBAN_MODEL}", "planner", "planner", "planner", "--rounds", "4"],
         f"--agents ppo:{CUBAN_MODEL}: model {CUBAN_MODEL}/model.zip was trained on cuban (line game), not "
         "mexican_train; use a model trained for mexican_train (domino-train --game mexican_train)"),
        ("domino-evaluate", ["--agents", "ppo:bad", "planner", "--rounds", "4"],
         "--agents ppo:bad: no trained model at bad (bad.zip does not exist): give a folder written by "
         "domino-train or its .zip"),
        ("domino-evaluate", ["--agents", "champion", "greedy"],
         "--agents champion: invalid agent 'champion'; allowed: one of ['greedy', "
         "'planner', 'ppo', 'random', 'rllib', 'search'] (optionally 'name:arg') for mexican_train rules, or "
         "one of your own given a name with domino_env.agents.register_agent"),
        ("domino-evaluate", ["--agents", "random", "random", "--rounds", "0"], "argument --rounds: must be from 1 to 10,000,000, got 0"),
        # every deal's record is kept in memory: a huge count filled it (24 GB, killed) before any deal
        ("domino-evaluate", ["--agents", "random", "random", "--rounds", "10000000000000"],
         "argument --rounds: must be from 1 to 10,000,000, got 10000000000000"),
        ("domino-train", ["--final-eval-rounds", "10000000000000"],
         "argument --final-eval-rounds: must be from 0 to 10,000,000, got 10000000000000"),
        ("domino-train", ["--eval-rounds", "10000000000000"],
         "argument --eval-rounds: must be from 1 to 10,000,000, got 10000000000000"),
        ("domino-bc", ["--final-eval-rounds", "10000000000000"],
         "argument --final-eval-rounds: must be from 0 to 10,000,000, got 10000000000000"),
        ("domino-evaluate", ["--agents", "random", "random", "--workers", "0"],
         f"--workers must be from 1 to {4 * (os.cpu_count() or 1)} (4 x the CPUs), got 0"),
        ("domino-evaluate", ["--agents", "random", "random", "--workers", "1000"],
         f"--workers must be from 1 to {4 * (os.cpu_count() or 1)} (4 x the CPUs), got 1000"),
        ("domino-evaluate", ["--agents", "random", "random", "--seed", "-1"],
         "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got -1"),
        # SeedSequence([seed, deal]) split a larger seed into 32-bit words: seed 2**32's deal 0 was seed 0's deal 1
        ("domino-evaluate", ["--agents", "random", "random", "--seed", "4294967296"],
         "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got 4294967296"),
        ("domino-evaluate", ["--agents", "random", "random", "--seed", "1e30"],
         "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got 1000000000000000000000000000000"),
        ("domino-evaluate", ["--agents", "greedy", "greedy", "--hand-size", "0"],
         "--hand-size: invalid config field 'hand_size': got 0; allowed: an integer from 1 to 91"),
        ("domino-evaluate", ["--agents", "greedy"],
         "--agents needs one agent per seat, 2 to 8 seats for Mexican Train; got 1"),
        ("domino-evaluate", ["--game", "cuban", "--agents", "greedy", "random", "greedy"],
         "--game cuban plays in teams of two: give 4 agents, or --no-teams (3 given)"),
        # 4 agents given: the 2 is --players's (it said "give 4 agents, or --no-teams (2 given)")
        ("domino-evaluate", ["--game", "cuban", "--agents", "greedy", "random", "greedy", "random", "--players", "2"],
         "--game cuban plays in teams of two: give --players 4, or --no-teams (--players 2 given)"),
        # a tournament seed is at most 2**32 - 1: the evaluations' default, --seed + 1000, is refused before training
        ("domino-train", ["--seed", "4294967295"], "--seed 4294967295: the evaluations' seed, --seed + 1000, would be "
         "above 2**32 - 1; give --eval-seed (0 to 2**32 - 1) too, or a --seed up to 4,294,966,295"),
        ("domino-bc", ["--seed", "4294967295"], "--seed 4294967295: the evaluations' seed, --seed + 1000, would be "
         "above 2**32 - 1; give --eval-seed (0 to 2**32 - 1) too, or a --seed up to 4,294,966,295"),
        # env i trains on seed --seed + i (make_vec_env): each of those is a seed too, at most 2**32 - 1 (the
        # too large --batch-size, checked after the seeds, keeps a command that passes them from training)
        ("domino-train", ["--seed", "4294967295", "--eval-seed", "0", "--n-envs", "2", *TOO_BIG_BATCH],
         "--seed 4294967295: env i of the 2 training envs (--n-envs 2) is seeded --seed + i, up to 4,294,967,296, "
         "above 2**32 - 1; give a --seed up to 4,294,967,294 with --n-envs 2"),
        ("domino-train", ["--seed", "4294967100", "--eval-seed", "0", "--n-envs", "256", "--vec-env", "dummy", *TOO_BIG_BATCH],
         "--seed 4294967100: env i of the 256 training envs (--n-envs 256) is seeded --seed + i, up to "
         "4,294,967,355, above 2**32 - 1; give a --seed up to 4,294,967,040 with --n-envs 256"),
        ("domino-train", ["--seed", "4294967294", "--eval-seed", "0", "--n-envs", "2", *TOO_BIG_BATCH],  # the largest
         "--batch-size 16384: larger than a rollout, --n-steps 32 x 2 envs = 64 samples; give at most that (or more "
         "--n-steps / --n-envs)"),
        ("domino-train", ["--eval-seed", "4294967296"],
         "argument --eval-seed: must be from 0 to 4,294,967,295 (2**32 - 1), got 4294967296"),
        ("domino-evaluate", ["--agents", "greedy", "--players", "9"],
         "--players 9 needs 9 --agents (one per seat); got 1"),
        ("domino-play", ["--opponents", f"ppo:{CUBAN_MODEL}"],
         f"--opponents ppo:{CUBAN_MODEL}: model {CUBAN_MODEL}/model.zip was trained on cuban (line game), not "
         "mexican_train; use a model trained for mexican_train (domino-train --game mexican_train)"),
        ("domino-play", ["--game", "draw", "--max-pip", "18"],
         "--max-pip: invalid config field 'max_pip': got 18; allowed: one of (6, 9, 12)"),
        ("domino-play", ["--seed", "-3"], "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got -3"),
        ("domino-play", ["--seed", "4294967296"],  # the agents' generator [seed, 1] was another seed's
         "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got 4294967296"),
        # a preset hand that --max-pip leaves too few tiles for: it blamed --hand-size, never given
        ("domino-play", ["--game", "cuban", "--max-pip", "6"],
         "--max-pip 6: too few tiles for the cuban preset's 10-tile hands; give --hand-size too (an integer from 1 to 7)"),
        ("domino-evaluate", ["--game", "cuban", "--max-pip", "6", "--agents", "greedy", "greedy", "greedy", "greedy"],
         "--max-pip 6: too few tiles for the cuban preset's 10-tile hands; give --hand-size too (an integer from 1 to 7)"),
        # (a missing record has no --help hint: the record is wrong, not an option; test_replay_html_refusals)
        ("domino-replay-html", ["-"], "record -: a record read from stdin names no page; give the page to write with "
                                      "--output (- for stdout)"),
        ("domino-train", ["--reward", "outcome", "--pips-coef", "2"],
         "--pips-coef 2: weighs the pips term of --reward mixed; the reward here is outcome"),
        ("domino-bc", ["--game", "cuban", "--pips-coef", "0.5"],
         "--pips-coef 0.5: weighs the pips term of --reward mixed; the reward here is outcome"),
        ("domino-evaluate", ["--game", "cuban", "--agents", "planner", "greedy", "planner", "greedy", "--annul-doubles", "-1"],
         "--annul-doubles: invalid config field 'annul_doubles': got -1; allowed: an integer from 1 to 10 (or 0: no annulment)"),
        ("domino-evaluate", ["--game", "cuban", "--agents", "planner:search=abc", "greedy", "planner", "greedy"],
         "--agents planner:search=abc: invalid agent 'planner:search=abc'; allowed: planner, "
         "planner:N, planner:search or planner:search=N (N an integer >= 1)"),
        ("domino-evaluate", ["--agents", "planner:search=3", "greedy"],
         "--agents planner:search=3: invalid agent 'planner:search=3'; allowed: planner or "
         "planner:BUDGET (chain-search nodes, an integer >= 1; planner:search is a line-game option)"),
        ("domino-evaluate", ["--agents", "ppo:checkpoints/cuban_4p_teams/metadata.json", "greedy"],
         "--agents ppo:checkpoints/cuban_4p_teams/metadata.json: checkpoints/cuban_4p_teams/metadata.json is not a "
         "model .zip: give the folder written by domino-train (it holds model.zip and metadata.json) or its .zip"),
    ],
)  # fmt: skip
def test_an_error_after_parsing_is_one_line_naming_the_flag(command, args, message):
    assert _one_line_error(command, *args) == message


def test_a_model_of_another_spec_is_one_line_naming_the_agent():
    """``--game block`` with the Cuban model: the spec mismatch (its text comes from the loader,
    so the test asks the loader for it) after ``--agents SPEC:``."""
    from domino_env.agents import make_agent
    from domino_env.agents.ppo import SpecMismatchError
    from domino_env.envs.games import make_raw_env

    with pytest.raises(SpecMismatchError) as info:
        make_agent(f"ppo:{CUBAN_MODEL}", make_raw_env("block", num_players=4).config)
    line = _one_line_error("domino-evaluate", "--game", "block", "--agents", f"ppo:{CUBAN_MODEL}",
                           "planner", "planner", "planner", "--rounds", "4")  # fmt: skip
    assert line == f"--agents ppo:{CUBAN_MODEL}: {info.value}"
    assert "differs in: game cuban vs block, max_pip 9 vs 6" in line


def _help(command: str) -> str:
    """``command --help`` with every run of spaces and newlines as one space."""
    proc = _run(command, "--help")
    assert proc.returncode == 0, proc.stderr
    return " ".join(proc.stdout.split())


def test_evaluate_help_says_95_percent_and_lists_every_agent():
    text = _help("domino-evaluate")
    assert "%%" not in text
    assert (
        "Duplicate-deal tournament (Mexican Train, or the line games block, draw and Cuban): every deal "
        "is played in every seat rotation of the agent list; prints win rates with 95% confidence "
        "intervals (with teams: team win rates, parity 1/2). options:" in text
    )
    assert (
        "--agents AGENT [AGENT ...] one agent per seat, in seat order of the first rotation: random, "
        "greedy, planner (Mexican Train planner:BUDGET; line games planner:N, planner:search[=N]), search (search:N, search:key=value,... with keys budget, candidates, prior, margin, rollout, opponent_model (line games)), ppo:PATH (a domino-train folder), "
        "rllib:PATH (a domino-rllib run); repeated names are aggregated; your own agents: give each a "
        "name with domino_env.agents.register_agent in a script that runs this command through "
        "domino_env.train.cli.launch (docs/agents.md, 'Your own agent') --rounds" in text
    )
    # the rule options' help says what leaving them out means on the command line: the preset's value
    assert "--annul-doubles ANNUL_DOUBLES Doubles dealt that let a player annul the round on its first turn; 0: " \
        "no annulment (default: block none, draw none, cuban 5). --target-score" in text  # fmt: skip


@pytest.mark.parametrize("command", sorted(MODULES))
def test_no_help_text_shows_a_python_none(command):
    """An option left out is the preset's value or no limit, said in words: "None = no annulment"
    and "(default None)" could not be typed, and contradicted "Give 0 for no annulment"."""
    assert "None" not in _help(command)


def test_play_help_lists_every_agent():
    assert (
        "--opponents AGENT [AGENT ...] one agent for every other seat, or one per other seat in seat "
        "order after yours: random, greedy, planner (Mexican Train planner:BUDGET; line games planner:N, planner:search[=N]), search (search:N, search:key=value,... with keys budget, candidates, prior, margin, rollout, opponent_model (line games)), ppo:PATH (a "
        "domino-train folder), rllib:PATH (a domino-rllib run) (default greedy) --episode" in _help("domino-play")
    )  # fmt: skip


@pytest.mark.parametrize("command", ["domino-train", "domino-bc"])
def test_train_help_names_every_game_and_states_each_default_once(command):
    text = _help(command)
    assert "(default: None)" not in text and "%%" not in text
    for option in (
        "--players PLAYERS seats, 2..8 (default: 4 for Mexican Train, the preset's for a line game: "
        "block 4, draw 2, cuban 4) --max-pip",
        "--hand-size HAND_SIZE Tiles dealt to each seat, overriding every hand-size rule (unset: the rules decide). "
        "--hand-size-rule",
        "--hand-size-rule {equal_split,table} 'equal_split' (seed 000: equal hands, boneyard ~2 x players) or 'table' "
        "(seeds 002/003 table). --first-turn",
        "--use-boneyard, --no-use-boneyard False = 'sin monte': leftovers set aside, never drawn (default True). --use-mexican-train",
        "(-points/100) (default mixed; --episode game and line games: outcome, and mixed is not available) --pips-coef",
        "--pips-coef PIPS_COEF weight of -points/100 in the mixed reward (default 1; refused with another reward)",
    ):  # fmt: skip
        assert option in text, option
    if command == "domino-train":
        assert (
            "Train a MaskablePPO agent on Mexican Train or a line game (block, draw, cuban: --game) against "
            "scripted opponents, evaluate it against the ladder on duplicate deals, and save it with "
            "metadata, TensorBoard logs and a learning curve. options:" in text
        )


def test_training_options_table_gives_the_reward_default_of_each_game():
    """docs/training.md's options table states the ``--reward`` default that ``check_args`` fills."""
    from domino_env.train.ppo_args import build_parser, check_args

    row = next(line for line in (ROOT / "docs/training.md").read_text().splitlines()
               if line.startswith("| `--reward` |"))  # fmt: skip
    assert row.split(" | ")[1] == (
        "`mixed` (line games and `--episode game`: `outcome`, where `mixed` is not available)"
    )
    parser = build_parser()
    for args, reward in (([], "mixed"), (["--episode", "game"], "outcome"), (["--game", "block"], "outcome"),
                         (["--game", "cuban"], "outcome")):  # fmt: skip
        parsed = parser.parse_args(args)
        check_args(parser, parsed)
        assert parsed.reward == reward, args


def test_evaluate_json_keeps_a_file_that_is_not_its_result(tmp_path):
    """--json overwrote any file (a tester lost a game record that way); an earlier result is
    still overwritten by a rerun, and --records without --json is refused (it had no effect)."""
    record = tmp_path / "game.json"
    record.write_text('{"format": "domino_env.record/1", "actions": []}')
    assert _one_line_error("domino-evaluate", "--agents", "random", "random", "--rounds", "2", "--json", str(record)) == (
        f"--json {record}: the file exists and is not a domino-evaluate result (it would be overwritten); give another name")
    assert record.read_text() == '{"format": "domino_env.record/1", "actions": []}'
    result = tmp_path / "result.json"
    for _ in range(2):  # the second run overwrites the first's result
        proc = _run("domino-evaluate", "--agents", "random", "random", "--rounds", "2", "--json", str(result), "--no-progress")
        assert proc.returncode == 0, proc.stderr
    assert json.loads(result.read_text())["rounds_played"] == 2
    assert _one_line_error("domino-evaluate", "--agents", "random", "random", "--records") == (
        "--records adds every episode's result row to the --json file: give --json PATH too")


def test_evaluate_json_overwrites_an_empty_file(tmp_path):
    """A path made beforehand (mktemp, touch) was refused as "not a domino-evaluate result": an
    empty file, or one of whitespace only, holds no result yet and is overwritten."""
    for name, content in (("touched.json", ""), ("blank.json", " \n\t\n")):
        path = tmp_path / name
        path.write_text(content)
        proc = _run("domino-evaluate", "--agents", "random", "random", "--rounds", "2", "--json", str(path), "--no-progress")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(path.read_text())["agents"] == ["random", "random"]
        assert not Path(f"{path}.partial.jsonl").exists()


def test_evaluate_json_interrupted_while_written_keeps_the_earlier_result(tmp_path, monkeypatch):
    """--json opened the file (emptying it) and then wrote the result: a Ctrl-C in between left a
    truncated JSON in place of the earlier result. Now it is written beside, then renamed."""
    from domino_env.train import evaluate

    result = tmp_path / "result.json"
    args = ["--agents", "random", "random", "--rounds", "2", "--json", str(result), "--no-progress"]
    evaluate.run(args)
    earlier = result.read_text()

    class InterruptedWhileWritten(dict):  # json reads a dict subclass through items()
        def items(self):
            raise KeyboardInterrupt

    monkeypatch.setattr(evaluate.EvaluationResult, "to_dict",
                        lambda self, records=False: {"rounds_played": 2, "stats": InterruptedWhileWritten(a=1)})  # fmt: skip
    with pytest.raises(KeyboardInterrupt):
        evaluate.run(args)
    assert result.read_text() == earlier
    # the finished tournament's deal stays in the journal until the result is written (for --resume)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json", "result.json.partial.jsonl"]
    assert (tmp_path / "result.json.partial.jsonl").read_text().count("\n") == 2  # the header, the deal


def test_evaluate_json_that_is_a_fifo_is_refused_without_waiting(tmp_path):
    """The check read an existing --json to see if it was an earlier result: on a FIFO (or
    /dev/stdout into a pipe) that open waited for ever."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    assert _one_line_error("domino-evaluate", "--agents", "random", "random", "--rounds", "2", "--json", str(fifo)) == (
        f"--json {fifo}: exists and is not a regular file; give a file name")


def test_evaluate_json_that_is_a_dangling_link_is_named_as_such(tmp_path):
    """A link to a missing file was called 'the file exists and is not a domino-evaluate result'."""
    link = tmp_path / "result.json"
    link.symlink_to(tmp_path / "gone" / "result.json")
    assert _one_line_error("domino-evaluate", "--agents", "random", "random", "--rounds", "2", "--json", str(link)) == (
        f"--json {link}: is a link to {tmp_path / 'gone' / 'result.json'}, which does not exist; give a file name")
    assert link.is_symlink() and not (tmp_path / "gone").exists()


def test_outputs_this_user_cannot_write_are_refused_before_any_work(tmp_path, monkeypatch, capsys):
    """A read-only folder was found only when the results were in (a traceback from evaluate and
    replay-html; domino-play lost the game's record). The test runs as any user: the folder is
    made read-only for this check by os.access, which is what the commands ask."""
    from domino_env.train import evaluate, play, replay_html

    locked = tmp_path / "locked"
    locked.mkdir()
    record = tmp_path / "game.json"
    save = subprocess.run([sys.executable, "-m", "domino_env.train.play", "--seed", "1", "--record", str(record)],
                          input="q\n", capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert save.returncode == 0 and record.is_file(), save.stderr
    real_access = os.access

    def access(path, mode, **kwargs):  # as a user without write permission on locked/
        if mode & os.W_OK and str(locked) in os.path.abspath(os.fspath(path)):
            return False
        return real_access(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", access)
    calls = [
        (evaluate.run, ["--agents", "random", "random", "--rounds", "2", "--json", str(locked / "r.json")], "--json"),
        (replay_html.main, [str(record), "-o", str(locked / "r.html")], "--output"),
        (play.setup, ["--seed", "1", "--record", str(locked / "r.json")], "--record"),
    ]
    for call, args, flag in calls:
        with pytest.raises(SystemExit) as info:
            call(args)
        err = capsys.readouterr().err
        assert info.value.code == 2 and f"{flag} {locked / 'r.'}" in err, err
        assert f"folder {locked} is not writable by this user" in err
    (locked / "r.json").write_text("{}")
    with pytest.raises(SystemExit):
        play.setup(["--seed", "1", "--record", str(locked / "r.json")])
    assert "is not a game record" in capsys.readouterr().err  # that check comes first
    assert sorted(p.name for p in locked.iterdir()) == ["r.json"]


def test_json_output_paths_are_checked_before_any_play(tmp_path):
    """An empty --json name was silently ignored, and a file in place of the folder was called a
    missing folder; both are refused in one line, as a folder or a non-result file are."""
    notes = tmp_path / "notes.txt"
    notes.write_text("keep")
    base = ("domino-evaluate", "--agents", "random", "random", "--rounds", "2", "--json")
    assert _one_line_error(*base, "") == "--json: give a file name (got an empty one)"
    assert _one_line_error(*base, str(notes / "out.json")) == (
        f"--json {notes / 'out.json'}: folder {notes} is a file, not a folder")
    assert _one_line_error(*base, str(tmp_path)) == (
        f"--json {tmp_path}: is a folder; give a file name such as results.json")
    assert _one_line_error(*base, f"{tmp_path / 'results'}/") == (  # was written as the file results
        f"--json {tmp_path / 'results'}/: names a folder (it ends in /), and there is none; give a file name "
        "such as results.json")  # fmt: skip
    assert not (tmp_path / "results").exists()
    assert _one_line_error(*base, str(notes)) == (
        f"--json {notes}: the file exists and is not a domino-evaluate result (it would be overwritten); "
        "give another name")  # fmt: skip
    assert notes.read_text() == "keep"


def test_ctrl_c_with_worker_processes_is_one_line(tmp_path):
    """Each spawned worker printed "Process SpawnPoolWorker-N:" (and a traceback) on Ctrl-C."""
    import signal
    import time

    out = tmp_path / "never.json"
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.evaluate", "--agents", "greedy", "planner",
                             "planner", "planner", "--rounds", "40000", "--workers", "2", "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=ROOT)  # fmt: skip
    deadline = time.monotonic() + 120
    seen = ""
    while not re.search(r"\b[1-9]\d*/40000", seen):  # rounds are coming in: the workers are playing
        seen += proc.stderr.read(1)
        assert proc.poll() is None and time.monotonic() < deadline, seen
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C: the whole process group
    _, err = proc.communicate(timeout=120)
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "/40000" not in line]
    journal = f"{out}.partial.jsonl"
    kept = rf"(\d+) of 10000 deals played, kept in {re.escape(journal)}: the same command with --resume continues it"
    match = re.fullmatch(rf"domino-evaluate: interrupted \(the tournament did not finish: {kept}; "
                         rf"{re.escape(str(out))} not written\)", lines[0]) if len(lines) == 1 else None  # fmt: skip
    assert proc.returncode == -signal.SIGINT and match, err[-2000:]  # died of it: a shell's 130
    assert not out.exists() and Path(journal).read_text().count("\n") == int(match[1]) + 1  # its header, the deals


def test_a_second_ctrl_c_while_the_command_exits_adds_no_traceback():
    """coreutils timeout signals the process and then its group: the second SIGINT reached an
    atexit hook (torch's) and printed "Exception ignored in atexit callback" after our line."""
    import signal

    code = ("import atexit, sys, time\n"
            "from domino_env.train.cli import launch\n"
            "atexit.register(lambda: (print('exiting', file=sys.stderr, flush=True), time.sleep(2)))\n"
            "def main():\n    raise KeyboardInterrupt\n"
            "launch('domino-evaluate', main)\n")  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    first = proc.stderr.readline()
    assert first == "domino-evaluate: interrupted\n" and proc.stderr.readline() == "exiting\n"
    proc.send_signal(signal.SIGINT)  # inside the atexit hook
    rest = proc.stderr.read()
    assert proc.wait(timeout=30) == -signal.SIGINT and rest == "", rest  # died of SIGINT: a shell's 130


def test_ctrl_c_stops_a_shell_loop_of_commands():
    """The commands exited 130 after Ctrl-C, and bash, which stops a loop only when its command died
    of SIGINT, went on to the next one (the README's `for n in ...; do ...; done`): now they end as
    Python does on an uncaught KeyboardInterrupt, killed by SIGINT after their one line."""
    import signal
    import time

    evaluate = f"{sys.executable} -m domino_env.train.evaluate --agents planner greedy --players 2 --rounds 200000"
    loop = f"for seed in 1 2 3; do {evaluate} --seed $seed; echo next; done; echo END"
    proc = subprocess.Popen(["bash", "-c", loop], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=ROOT)  # fmt: skip
    deadline = time.monotonic() + 120
    seen = ""
    while not re.search(r"\b[1-9]\d*/200000", seen):  # the first command's rounds are coming in
        seen += proc.stderr.read(1)
        assert proc.poll() is None and time.monotonic() < deadline, seen
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the shell and its command
    out, err = proc.communicate(timeout=120)
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "/200000" not in line]
    assert (proc.returncode, out) == (-signal.SIGINT, ""), (out, err)  # bash died of it too: no "next", no "END"
    assert lines == ["domino-evaluate: interrupted (the tournament did not finish: no results)"], err


def test_evaluate_output_closed_early_is_141_and_the_json_is_still_written(tmp_path):
    """`domino-evaluate ... --json r.json | head -1`: rich's own broken-pipe handler exited with 1,
    and before the --json file was written, so the whole tournament was lost."""
    out = tmp_path / "r.json"
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.evaluate", "--agents", "greedy", "random",
                             "--rounds", "20", "--no-progress", "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)  # fmt: skip
    proc.stdout.close()  # the reader is gone before the table comes (as `| head` once it has its lines)
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141 and err == "", err
    data = json.loads(out.read_text())
    assert data["rounds_played"] == 20 and [s["name"] for s in data["stats"]] == ["greedy", "random"]


def test_sigterm_stops_the_workers_and_says_what_is_kept(tmp_path):
    """`kill PID` (SIGTERM to domino-evaluate alone) ended it silently (exit -15, the progress bar's
    line unended) and left its --workers processes running for ever, holding its output pipes."""
    import signal
    import time

    out = tmp_path / "earlier.json"
    out.write_text(json.dumps({"agents": [], "stats": [], "rounds_played": 0}))
    earlier = out.read_text()
    proc = subprocess.Popen([sys.executable, "-m", "domino_env.train.evaluate", "--agents", "greedy", "planner",
                             "planner", "planner", "--rounds", "40000", "--workers", "2", "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=ROOT)  # fmt: skip
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 120
        seen = ""
        while not re.search(r"\b[1-9]\d*/40000", seen):  # rounds are coming in: the workers are playing
            seen += proc.stderr.read(1)
            assert proc.poll() is None and time.monotonic() < deadline, seen
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        workers = [int(c) for c in children if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text()]
        assert len(workers) == 2
        proc.send_signal(signal.SIGTERM)  # to the command alone, as `kill PID` does
        _, err = proc.communicate(timeout=120)
        lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "/40000" not in line]
        kept = rf"\d+ of 10000 deals played, kept in {re.escape(str(out))}.partial.jsonl: the same command with --resume"
        assert proc.returncode == 143 and len(lines) == 1 and re.fullmatch(
            rf"domino-evaluate: interrupted \(the tournament did not finish: {kept} continues it; "
            rf"{re.escape(str(out))} keeps its earlier result\)", lines[0]), err[-2000:]  # fmt: skip
        assert out.read_text() == earlier
        while any(running(w) for w in workers):
            assert time.monotonic() < deadline, "the worker processes outlived the command"
            time.sleep(0.1)
    finally:
        for pid in [proc.pid, *workers]:  # only what this test started, should a check fail
            if running(pid):
                os.kill(pid, signal.SIGKILL)
