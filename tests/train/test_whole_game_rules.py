"""Rules that only whole games read (``--game-end``, ``--elimination-limit``, ``--target-score``)
given with round episodes: every command played plain rounds, silently (``domino-evaluate
--game-end elimination`` reported round results as if elimination had been played). Each command
now refuses them in one line before any work; a preset holding such a rule is not refused.
Real processes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {"domino-evaluate": "evaluate", "domino-play": "play", "domino-train": "ppo", "domino-bc": "bc",
            "domino-rllib": "rllib"}  # fmt: skip


def _run(command, *args):
    return subprocess.run([sys.executable, "-m", f"domino_env.train.{COMMANDS[command]}", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(
    "flags, named",
    [
        (["--game-end", "elimination"], "--game-end is a rule"),
        (["--elimination-limit", "40", "--game-end", "elimination"], "--game-end and --elimination-limit are rules"),
    ],
)
def test_whole_game_rules_with_round_episodes_are_refused(tmp_path, command, flags, named):
    out = tmp_path / "out"
    needs = {"domino-evaluate": ["--agents", "greedy", "random"], "domino-train": ["--out", str(out)],
             "domino-bc": ["--out", str(out)]}.get(command, [])  # fmt: skip
    proc = _run(command, *flags, "--episode", "round", *needs)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"{command}: error: {named} of whole games: give --episode game (with --episode round "
                           f"each episode is one round, which {'it does' if ' is ' in named else 'they do'} not "
                           f"change) ({command} --help lists every option)\n"), proc.stderr  # fmt: skip
    assert not out.exists()


def test_a_line_games_target_score_needs_whole_games_too():
    proc = _run("domino-evaluate", "--game", "draw", "--target-score", "50", "--agents", "greedy", "random")
    assert proc.returncode == 2 and "error: --target-score is a rule of whole games: give --episode game" in proc.stderr


def test_whole_games_take_them_and_a_preset_holding_one_plays_rounds(tmp_path):
    game, rounds = tmp_path / "game.json", tmp_path / "rounds.json"
    args = ["--agents", "greedy", "random", "--players", "2", "--max-pip", "9", "--no-progress"]
    proc = _run("domino-evaluate", *args, "--rounds", "2", "--episode", "game", "--game-end", "elimination",
                "--elimination-limit", "30", "--json", str(game))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    kwargs = json.loads(game.read_text())["env_kwargs"]
    assert (kwargs["episode"], kwargs["game_end"], kwargs["elimination_limit"]) == ("game", "elimination", 30)
    proc = _run("domino-evaluate", *args, "--rounds", "4", "--preset", "tren_mexicano", "--json", str(rounds))
    assert proc.returncode == 0, proc.stderr
    kwargs = json.loads(rounds.read_text())["env_kwargs"]
    assert (kwargs["episode"], kwargs["game_end"]) == ("round", "elimination")  # the preset's, in rounds
