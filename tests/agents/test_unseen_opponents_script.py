"""benchmarks/unseen_opponents.py, the command of docs/training.md's table of the release against
playing styles it never met: each style plays by its stated rule in real positions, the seat
measured is counted apart from the same agent among the opponents, and the script runs as a real
process (one clear line for a bad agent)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from benchmark_scripts import load_script, script_path

from domino_env.core.config import MexicanTrainConfig
from domino_env.encoding.mexican_train import decode_action
from domino_env.envs.mexican_train_v0 import raw_env

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = script_path("unseen_opponents")



def _positions(count: int = 300):
    """(observation, mask) of the seat to act along random rounds, with their legal actions."""
    out, rng = [], np.random.default_rng(3)
    for seed in range(40):
        env = raw_env()
        env.reset(seed=seed)
        while not env.game_state.round_over and len(out) < count:
            obs = env.observe(env.agent_selection)
            out.append((obs["observation"], obs["action_mask"]))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def test_each_style_plays_by_its_rule():
    styles = {s: load_script("unseen_opponents").Style(s, MexicanTrainConfig()) for s in ("lightest", "mexican_first", "doubles_first", "placer")}
    pips = sum  # (the default rules: the 0-0 counts 0, double_blank_points)
    rng, checked = np.random.default_rng(0), 0
    for obs, mask in _positions():
        legal = [int(a) for a in np.flatnonzero(mask)]
        places = {a: decode_action(a, 4, 12) for a in legal if decode_action(a, 4, 12)[0] == "place"}
        chosen = {name: style(obs, mask, rng) for name, style in styles.items()}
        if not places:  # draw or pass, the only legal action
            assert set(chosen.values()) == {legal[0]} and len(legal) == 1
            continue
        checked += 1
        assert all(c in places for c in chosen.values())
        tile = {a: places[a][1] for a in places}
        assert pips(tile[chosen["lightest"]]) == min(pips(t) for t in tile.values())
        mexican = [a for a in places if places[a][2] == 4]  # slot 4 of 4 players: the Mexican train
        if mexican:
            assert chosen["mexican_first"] in mexican
            assert pips(tile[chosen["mexican_first"]]) == max(pips(tile[a]) for a in mexican)
        doubles = [a for a in places if tile[a][0] == tile[a][1]]
        if doubles:
            assert chosen["doubles_first"] in doubles
        else:
            assert pips(tile[chosen["doubles_first"]]) == max(pips(t) for t in tile.values())
    assert checked >= 100


def test_the_seat_measured_is_counted_apart():
    module = load_script("unseen_opponents")
    from domino_env.agents.base import make_agent
    from domino_env.train.evaluate import evaluate

    planner = make_agent("planner", MexicanTrainConfig())
    hero = module.InSeat(planner, "planner (measured)")
    result = evaluate([hero, "planner", "greedy", "planner"], rounds=8, seed=1)
    assert [s.name for s in result.stats] == ["planner (measured)", "planner", "greedy"]
    assert result.stats_for("planner (measured)").seats_per_table == 1 and result.stats_for("planner").seats_per_table == 2
    search = make_agent("search:5", MexicanTrainConfig())
    assert module.InSeat(search, "s").wants_info_state is True and module.InSeat(planner, "p").wants_info_state is False


def test_the_script_runs_and_refuses_in_one_line():
    run = [sys.executable, str(SCRIPT), "--workers", "1", "--no-progress"]
    out = subprocess.run([*run, "--agent", "greedy", "--rounds", "8", "--tables", "3 x placer", "greedy, planner, placer"],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[0] == "| opponents | greedy | planner | paired difference | pips (the two) |"
    number = r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]"
    assert [r.split(" | ")[0] for r in rows[1:]] == ["| 3 x placer", "| greedy, planner, placer"]
    assert all(re.search(rf"\| {number} \| {number} \| [+-]\d\.\d{{3}} \[", r) for r in rows[1:]), rows
    for args, message in [(["--agent", "ppo:/no/such/model"], "/no/such/model"),
                          (["--agent", "planner"], "--agent and --compare are the same agent (planner)"),
                          # two models in folders of one name are two agents (not "the same agent")
                          (["--agent", "ppo:/no/a/m", "--compare", "ppo:/no/b/m"], "/no/a/m"),
                          (["--rounds", "0"], "--rounds")]:  # fmt: skip
        out = subprocess.run([*run, *args], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_cuban_tables_seat_the_agent_as_a_team_and_refuse_the_other_games_tables():
    run = [sys.executable, str(SCRIPT), "--game", "cuban", "--workers", "1", "--no-progress"]
    out = subprocess.run([*run, "--agent", "greedy", "--rounds", "8", "--tables", "2 x placer"],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "in its seats (0 and 2, a team)" in out.stdout and "parity 0.5" in out.stdout
    assert re.search(r"^\| 2 x placer \| \d\.\d{3} \[", out.stdout, re.M), out.stdout
    out = subprocess.run([*run, "--tables", "3 x placer"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 2 and "--tables '3 x placer' is not a table of --game cuban" in out.stderr, out.stderr


def test_a_line_style_reads_the_line_action_layout():
    from domino_env.core.config import line_from_preset
    from domino_env.encoding.line import decode_line_action
    from domino_env.envs import cuban_v0

    config = line_from_preset("cuban")
    lightest = load_script("unseen_opponents").Style("lightest", config)
    doubles = load_script("unseen_opponents").Style("doubles_first", config)
    env, rng, checked = cuban_v0.raw_env(), np.random.default_rng(1), 0
    for seed in range(30):
        env.reset(seed=seed)
        while env.agents and not env.game_state.round_over:
            obs = env.observe(env.agent_selection)
            legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
            places = {a: decode_line_action(a, 9)[1] for a in legal if decode_line_action(a, 9)[0] == "place"}
            if places:
                checked += 1
                assert sum(places[lightest(obs["observation"], obs["action_mask"], rng)]) == min(map(sum, places.values()))
                tile = places[doubles(obs["observation"], obs["action_mask"], rng)]
                assert (tile[0] == tile[1]) == any(a == b for a, b in places.values())
            env.step(int(rng.choice(legal)))
    assert checked >= 100

