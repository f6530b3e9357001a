"""Tournaments (issue 3 sections 2 and 4): duplicate-deal arithmetic with known values, seat
rotations over identical deals, the importable function and a tiny tournament from the command
line with its JSON. The intervals' known values: tests/train/test_intervals_exact.py."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from domino_env.agents import GreedyAgent, PlannerAgent
from domino_env.core.errors import ConfigError
from domino_env.envs.mexican_train_v0 import raw_env
from domino_env.train.evaluate import (
    GameRecord,
    deal_seed,
    evaluate,
    mean_interval,
    rotation_seats,
    summarize,
    wilson_interval,
)

ROOT = Path(__file__).resolve().parents[2]


def test_rotations_put_every_agent_in_every_seat():
    assert rotation_seats(4, 0) == [0, 1, 2, 3]
    assert rotation_seats(4, 1) == [3, 0, 1, 2]  # agent 0 now sits at seat 1
    for p in range(2, 9):
        table = np.array([rotation_seats(p, r) for r in range(p)])
        for col in table.T:
            assert sorted(col) == list(range(p))
        for row in table:
            assert sorted(row) == list(range(p))
    assert deal_seed(0, 1) == deal_seed(0, 1) != deal_seed(0, 2)
    assert deal_seed(1, 1) != deal_seed(0, 1)


def rec(deal, rotation, winners, p=2, pips=None):
    credit = [0.0] * p
    for w in winners:
        credit[w] = 1.0 / len(winners)
    return GameRecord(
        deal, rotation, 0, rotation_seats(p, rotation), rounds=1, round_credit=credit,
        pips=pips or [0] * p, void=int(not winners), blocked=int(len(winners) != 1),
    )  # fmt: skip


def test_duplicate_deal_arithmetic_two_players():
    # agents a (index 0) and b (index 1). Deal 0: seat 0 wins both rotations (a, then b sits
    # there); deal 1: a wins both rotations (seat 0, then seat 1).
    records = [rec(0, 0, [0]), rec(0, 1, [0]), rec(1, 0, [0]), rec(1, 1, [1])]
    a, b = summarize(records, ["a", "b"], 2)
    assert (a.name, a.seat_episodes, a.wins, a.win_rate) == ("a", 4, 3.0, 0.75)
    assert (b.seat_episodes, b.wins, b.win_rate) == (4, 1.0, 0.25)
    assert a.parity == b.parity == 0.5
    assert a.ci95_wilson == pytest.approx(wilson_interval(3, 4))
    # per-deal averages of a: 0.5 and 1.0 -> mean 0.75, sd 0.353553, se 0.25, t1 = 12.706
    lo, hi = mean_interval([0.5, 1.0])
    assert a.ci95_deal == (max(0.0, lo), min(1.0, hi))
    assert a.verdict == "parity"  # two deals prove nothing


def test_one_deal_has_no_verdict_however_lopsided():
    """One deal (here 40 rotations of it, every one won by a): no per-deal interval, so no
    verdict, although Wilson's interval alone lies far above parity; six such deals give one."""
    records = [rec(0, r % 2, [r % 2]) for r in range(40)]
    a, b = summarize(records, ["a", "b"], 2)
    assert (a.win_rate, a.deals, a.ci95_deal) == (1.0, 1, (0.0, 1.0)) and a.ci95_wilson[0] > 0.9
    assert (a.verdict, b.verdict) == ("n/a", "n/a")
    records += [rec(d, r % 2, [r % 2]) for d in range(1, 6) for r in range(40)]
    a, b = summarize(records, ["a", "b"], 2)  # deal averages all 1: Wilson's over 6 deals, [0.61, 1]
    assert (a.verdict, b.verdict) == ("above", "below")


def test_shared_wins_void_rounds_and_aggregated_seats():
    # P=3, agents ["x", "y", "y"]: y is aggregated over its two seats.
    p = 3
    records = [
        rec(0, 0, [0], p, pips=[0, 10, 20]),  # x (seat 0) wins
        rec(0, 1, [0, 1], p, pips=[5, 5, 9]),  # blocked tie: seat 0 (y) and seat 1 (x) get 1/2
        rec(0, 2, [], p, pips=[1, 2, 3]),  # void round: nobody
    ]
    x, y = summarize(records, ["x", "y", "y"], p)
    assert x.seats_per_table == 1 and y.seats_per_table == 2
    assert x.seat_episodes == 3 and y.seat_episodes == 6
    assert x.wins == pytest.approx(1.5) and y.wins == pytest.approx(0.5)
    assert x.win_rate == pytest.approx(0.5) and y.win_rate == pytest.approx(0.5 / 6)
    # credits per episode sum to 1, 1, 0 -> parity = (2/3) / 3
    assert x.parity == pytest.approx(2 / 9)
    # pips: x sat at seats 0, 1, 2 of rotations 0, 1, 2 -> 0 + 5 + 3
    assert x.mean_pips_per_round == pytest.approx(8 / 3)
    assert y.mean_pips_per_round == pytest.approx((10 + 20 + 5 + 9 + 1 + 2) / 6)
    # total credit is conserved: sum over agents of wins = decided episodes
    assert x.wins + y.wins == pytest.approx(2.0)


def test_same_seed_same_deal_and_first_player():
    env = raw_env(num_players=4)
    s = deal_seed(0, 3)
    env.reset(seed=s)
    first = (env.game_state.deals[0], env.game_state.current_player)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    env.reset(seed=s)
    assert (env.game_state.deals[0], env.game_state.current_player) == first


def test_evaluate_plays_every_rotation_of_every_deal():
    result = evaluate(
        ["greedy", "random", "random"], rounds=7, seed=3, max_pip=9, keep_records=True
    )
    assert result.deals == 3 and result.episodes == 9 == len(result.records)
    assert result.rounds_played == 9
    by_deal = {}
    for r in result.records:
        by_deal.setdefault(r.deal, []).append(r)
    for d, recs in by_deal.items():
        assert {r.seed for r in recs} == {deal_seed(3, d)}
        assert sorted(r.rotation for r in recs) == [0, 1, 2]
        seat_of_greedy = sorted(r.seats.index(0) for r in recs)
        assert seat_of_greedy == [0, 1, 2]
    g, r = result.stats
    assert (g.name, g.seat_episodes, r.name, r.seat_episodes) == ("greedy", 9, "random", 18)
    assert g.wins + r.wins == pytest.approx(9 - result.void_rounds)
    assert result.deal_seeds == [deal_seed(3, d) for d in range(3)]
    again = evaluate(["greedy", "random", "random"], rounds=7, seed=3, max_pip=9)
    assert again.to_dict()["stats"] == result.to_dict()["stats"]


def test_evaluate_accepts_agent_objects_whole_games_and_workers():
    cfg = raw_env(num_players=2, max_pip=9).config
    planner = PlannerAgent(cfg, budget=100)
    one = evaluate([planner, GreedyAgent(cfg)], rounds=4, max_pip=9, episode="game")
    assert [s.name for s in one.stats] == ["planner", "greedy"]
    assert one.episodes == 4 and one.rounds_played >= 4 * 10
    assert all(s.mean_game_score is not None for s in one.stats)
    assert sum(s.wins for s in one.stats) == pytest.approx(4)
    two = evaluate([planner, GreedyAgent(cfg)], rounds=4, max_pip=9, episode="game", workers=2)
    assert two.to_dict()["stats"] == one.to_dict()["stats"]
    assert (one.workers, two.workers) == (1, 2)  # 2 deals: one worker process each


def test_evaluate_rejects_bad_arguments():
    with pytest.raises(ConfigError):
        evaluate(["greedy", "random"], rounds=2, num_players=3)
    with pytest.raises(ConfigError):
        evaluate(["greedy", "nonsense"], rounds=2)
    with pytest.raises(ConfigError):
        evaluate(["greedy", "random"], rounds=0)
    with pytest.raises(ConfigError, match="up to 10,000,000"):  # it filled the memory before any deal
        evaluate(["greedy", "random"], rounds=10**13)
    with pytest.raises(ConfigError):
        evaluate(["greedy", "random"], rounds=2, doubles="sometimes")


def test_tiny_tournament_from_the_command_line(tmp_path):
    out = tmp_path / "out.json"
    cmd = [
        sys.executable, "-m", "train.evaluate", "--agents", "planner", "greedy", "random",
        "--rounds", "6", "--players", "3", "--max-pip", "9", "--preset", "tren_mexicano",
        "--doubles", "satisfy", "--seed", "1", "--json", str(out), "--no-progress",
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "planner" in proc.stdout and "95% CI" in proc.stdout
    footer = [ln for ln in proc.stdout.splitlines() if ln.startswith("6 rounds (")]
    assert len(footer) == 1 and footer[0].endswith("(n/a with fewer than 2; Wilson over the deals if all equal).")
    data = json.loads(out.read_text())
    assert data["agents"] == ["planner", "greedy", "random"]
    assert data["env_kwargs"]["preset"] == "tren_mexicano"
    assert data["env_kwargs"]["doubles"] == "satisfy" and data["env_kwargs"]["max_pip"] == 9
    assert data["seed"] == 1 and data["deals"] == 2 and data["episodes"] == 6
    assert data["deal_seeds"] == [deal_seed(1, 0), deal_seed(1, 1)]
    names = [s["name"] for s in data["stats"]]
    assert names == ["planner", "greedy", "random"]
    for s in data["stats"]:
        assert s["seat_episodes"] == 6 and len(s["ci95_wilson"]) == 2 and len(s["ci95_deal"]) == 2
    help_text = subprocess.run(
        [sys.executable, "-m", "train.evaluate", "--help"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    for option in ("--agents", "--rounds", "--players", "--max-pip", "--preset", "--episode",
                   "--seed", "--json", "--workers", "--doubles", "--drawn-tile"):  # fmt: skip
        assert option in help_text
    bad = subprocess.run(
        [sys.executable, "-m", "train.evaluate", "--agents", "greedy", "--rounds", "2"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert bad.returncode == 2 and "--agents needs one agent per seat" in bad.stderr


def test_json_dash_writes_the_result_to_stdout_and_the_table_to_stderr(tmp_path):
    """``--json -`` (``| jq``): stdout is the JSON alone, the same as a ``--json FILE``; no file
    named ``-`` is written (it was)."""
    base = [sys.executable, "-m", "domino_env.train.evaluate", "--agents", "planner", "greedy", "--rounds", "4",
            "--max-pip", "9", "--seed", "3", "--no-progress", "--records"]  # fmt: skip
    piped = subprocess.run([*base, "--json", "-"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert "95% CI" in piped.stderr and "wrote" not in piped.stderr + piped.stdout
    filed = subprocess.run([*base, "--json", "r.json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert filed.returncode == 0, filed.stderr
    from_stdout, from_file = json.loads(piped.stdout), json.loads((tmp_path / "r.json").read_text())
    for data, where in ((from_stdout, "-"), (from_file, "r.json")):
        data.pop("seconds")
        data.pop("workers", None)
        # the command that made it, as it was started
        assert data.pop("command") == " ".join(["python -m domino_env.train.evaluate", *base[3:], "--json", where])
    assert from_stdout == from_file and len(from_stdout["records"]) == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_ctrl_c_ends_the_progress_bar_line_before_its_message():
    """A real SIGINT during a tournament with its progress bar: the bar is closed (its line
    ended) before ``domino-evaluate: interrupted (...)`` is printed, on a line of its own."""
    import os
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "domino_env.train.evaluate", "--game", "block", "--agents", "greedy", "random",
         "--rounds", "10000000"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        os.set_blocking(proc.stderr.fileno(), False)
        seen = b""
        for _ in range(600):  # until the bar has counted some rounds (it is playing)
            seen += proc.stderr.read() or b""
            if b"round/s" in seen and b" 0/" not in seen.rsplit(b"\r", 1)[-1]:
                break
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
        time.sleep(0.1)
        seen += proc.stderr.read() or b""
    finally:
        if proc.poll() is None:
            proc.kill()
    err = seen.decode()
    assert proc.returncode == -signal.SIGINT, err  # killed by it after its line: a shell's 130
    assert err.endswith("\ndomino-evaluate: interrupted (the tournament did not finish: no results)\n"), err[-300:]
    assert "round/s" in err.rsplit("\n", 2)[-3]  # the line before it is the bar's


def test_the_per_deal_interval_is_n_a_below_two_deals(tmp_path):
    from domino_env.train.evaluate import deal_interval_text

    one = evaluate(["greedy", "random"], rounds=2, seed=0, game="block")  # 1 deal x 2 rotations
    assert one.deals == 1 and all(s.deals == 1 for s in one.stats)
    assert "| n/a |" in one.markdown() and one.markdown().startswith("| agent | seats | seat-rounds |")
    two = evaluate(["greedy", "random"], rounds=4, seed=0, game="block")
    assert all(s.deals == 2 for s in two.stats) and "| n/a |" not in two.markdown()
    assert deal_interval_text((0.25, 0.75), 2) == "[0.250, 0.750]" and deal_interval_text((0.0, 1.0), 1) == "n/a"
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", "--game", "block", "--agents", "greedy",
                           "random", "--rounds", "2", "--no-progress"], cwd=ROOT, capture_output=True, text=True)  # fmt: skip
    rows = [line for line in proc.stdout.splitlines() if "greedy" in line and "│" in line]
    assert proc.returncode == 0 and len(rows) == 1 and " n/a " in rows[0] and "[0.000, 1.000]" not in proc.stdout


def test_deal_averages_without_spread_give_wilsons_interval_over_the_deals_not_a_point():
    """Two whole games, both won by the planner: every deal average is 1 (or 0), and the t
    interval was [1.000, 1.000], a claim of certainty from 2 deals. With no spread the per-deal
    interval is Wilson's with one trial per deal (wider than the seat-episode one), so a clean
    sweep over many deals is still "above" (a [0, 1] fallback made it "parity" at any count).
    Deal averages equal but for the last bit (credits summed in another order) count as equal;
    averages that vary keep their t interval."""
    from domino_env.train.tournament_results import deal_interval

    res = evaluate(["planner", "greedy", "greedy", "greedy"], rounds=8, episode="game", seed=0)
    planner, greedy = res.stats
    assert (planner.win_rate, greedy.win_rate, planner.deals) == (1.0, 0.0, 2)
    assert planner.ci95_deal == pytest.approx(wilson_interval(2, 2)) and round(planner.ci95_deal[0], 4) == 0.3424
    assert greedy.ci95_deal == pytest.approx(wilson_interval(0, 2))
    assert (planner.verdict, greedy.verdict) == ("above", "parity")  # greedy's deal interval reaches 0.658
    assert "| [0.342, 1.000] |" in res.markdown() and "[1.000, 1.000]" not in res.markdown()
    assert res.markdown().startswith("| agent | seats | seat-games |")  # the terminal table's name for the column
    assert deal_interval([1.0] * 30) == pytest.approx(wilson_interval(30, 30))  # [0.886, 1]: above 1/2
    assert deal_interval([0.4642857142857143, 0.46428571428571436]) == pytest.approx(wilson_interval(0.9285714, 2))
    assert deal_interval([1.0]) == (-math.inf, math.inf)  # fewer than 2 deals: none (the tables: n/a)
    lo, hi = evaluate(["greedy", "random"], rounds=40, seed=0, game="block").stats_for("greedy").ci95_deal
    assert 0 < lo < hi < 1 and hi - lo < 0.35  # the t interval (20 deals)


def test_the_few_deals_figures_of_the_evaluation_page():
    """docs/evaluation.md's "every deal alike": no win over 10 deals is [0, 0.278] (parity against
    1/4) while one win is the t interval [-0.032, 0.082]; the distribution-free bound it cites,
    (1 - p)**10 = 0.025 at p = 0.308; no win over 50 deals, [0, 0.071]."""
    from domino_env.train.tournament_results import deal_interval

    assert [round(b, 3) for b in deal_interval([0.0] * 10)] == [0.0, 0.278]
    assert [round(b, 3) for b in deal_interval([0.25] + [0.0] * 9)] == [-0.032, 0.082]
    assert [round(b, 3) for b in deal_interval([0.0] * 50)] == [0.0, 0.071]
    assert round(1 - 0.025 ** (1 / 10), 2) == 0.31
    text = (Path(__file__).resolve().parents[2] / "docs/evaluation.md").read_text()
    for shown in ("`[0.000, 0.278]`", "`[-0.032, 0.082]`", "p up to 0.31", "`[0.000, 0.071]`"):
        assert shown in " ".join(text.split()), shown


@pytest.mark.parametrize(
    "kwargs, shown",
    [({"doubles": "chain"}, "4 players, double-12, domino_cubano + doubles=chain |"),
     ({"num_players": 3}, "3 players, double-12, domino_cubano |"),  # the preset's rules at 3 seats
     ({"game": "cuban", "teams": False}, "cuban game, 4 players, double-9, cuban + teams=False |"),
     ({"game": "cuban", "max_pip": 6, "hand_size": 5}, "double-6, cuban + hand_size=5 |"),
     # the preset cannot be made at these seats (teams need 4): compared at its own
     ({"game": "cuban", "num_players": 3, "teams": False, "annul_doubles": 4},
      "3 players, double-9, cuban + teams=False + annul_doubles=4 |"),
     ({"game": "cuban", "num_players": 2, "max_pip": 6, "hand_size": 7, "teams": False},
      "2 players, double-6, cuban + hand_size=7 + teams=False |")],
)  # fmt: skip
def test_the_table_title_names_the_rules_that_differ_from_the_preset(kwargs, shown):
    """With --doubles chain the title still read "domino_cubano": the table of other rules looked
    like the preset's."""
    seats = kwargs.get("num_players", 4)
    agents = ["planner", "greedy"] * (seats // 2) + ["greedy"] * (seats % 2)  # one agent a team in Cuban
    res = evaluate(agents, rounds=seats, seed=0, **kwargs)
    assert shown in str(res.table().title)


def test_stats_for_names_the_labels_it_has():
    """A wrong label was a bare KeyError('Greedy')."""
    res = evaluate(["planner", "greedy"], rounds=2, num_players=2, max_pip=9, progress=False)
    assert res.stats_for("greedy").name == "greedy"
    with pytest.raises(KeyError, match="'Greedy' is not an agent of this result; its agents: planner, greedy"):
        res.stats_for("Greedy")


@pytest.mark.parametrize(
    "argv",
    [
        ["--players", "3", "--max-pip", "9", "--preset", "tren_mexicano", "--hand-size", "10",
         "--doubles", "chain", "--no-use-mexican-train", "--double-blank-points", "25"],
        ["--episode", "game", "--game-end", "elimination", "--elimination-limit", "30", "--no-use-boneyard"],
        ["--players", "6", "--hand-size-rule", "table"],  # seeds 002/003's 12 tiles, not seed 000's 13
        ["--game", "cuban", "--max-pip", "9"],
        ["--game", "cuban", "--max-pip", "6", "--hand-size", "5"],  # the line games' hand: was refused in training
    ],
)  # fmt: skip
def test_the_evaluate_hint_of_a_training_command_plays_its_rules(argv):
    """domino-bc / domino-rllib print `evaluate it with domino-evaluate ...`: that command, run with
    random agents for the `...`, plays exactly the rules the training run was given."""
    from domino_env.train.evaluate import evaluate_command, run
    from domino_env.train.ppo_args import build_parser, rules_from_args

    args = build_parser().parse_args(argv)
    rules = rules_from_args(args)
    hint = evaluate_command(args, "random").split()
    assert hint[0] == "domino-evaluate" and hint[-2:] == ["random", "..."]
    agents = [("greedy", "random")[i % 2] for i in range(rules["num_players"] - 1)]  # Cuban: one agent a team
    result = run([*hint[1:-1], *agents, "--rounds", str(rules["num_players"]), "--no-progress"])
    assert {k: result.env_kwargs[k] for k in rules if k != "preset"} == {k: v for k, v in rules.items() if k != "preset"}
    assert result.episode == args.episode


def two_args(observation, action_mask):  # a wrong agent signature (no rng)
    return int(np.flatnonzero(action_mask)[0])


def test_an_agents_own_error_names_the_agent_and_the_seat():
    """A wrong signature was a bare TypeError from deep in the tournament, naming nothing."""
    with pytest.raises(TypeError) as err:
        evaluate(["greedy", two_args], rounds=2, game="block")
    assert "raised by agent two_args (seat 1, deal 0, rotation 0), called as agent(observation, action_mask, " \
        "rng)" in err.value.__notes__  # fmt: skip


def test_one_agent_is_refused_as_too_few_seats():
    with pytest.raises(ConfigError, match=r"'agents': got \['greedy'\]; allowed: one agent per seat, 2 to 8 seats"):
        evaluate(["greedy"], rounds=2)


def test_agents_that_are_neither_names_nor_callables_are_named_as_such():
    """evaluate(None) was a bare TypeError; evaluate([5, 6]) blamed "different agents with the same
    name" (5 and 6 are no agents at all)."""
    from domino_env.core.errors import AgentSpecError

    with pytest.raises(ConfigError, match="a sequence of agents"):
        evaluate(None, rounds=2)
    with pytest.raises(AgentSpecError, match="neither|an agent name") as info:
        evaluate([5, 6], rounds=2)
    assert info.value.field == "agent" and info.value.value == 5


def test_json_of_a_call_from_python_names_the_module_command(tmp_path):
    """run(argv) from Python (a notebook, a test): the command is the python -m one, not whatever
    script the interpreter runs (sys.argv[0]: the notebook kernel, pytest)."""
    from domino_env.train.evaluate import run

    out = tmp_path / "r.json"
    argv = ["--agents", "greedy", "random", "--rounds", "2", "--game", "block", "--no-progress", "--json", str(out)]
    run(argv)
    assert json.loads(out.read_text())["command"] == "python -m domino_env.train.evaluate " + " ".join(argv)


def test_the_wins_column_has_one_format_per_table():
    """Shared wins (a tie in a blocked round) make fractions: the column printed 1345.33 beside
    654.667 (``:g``); now every row has two decimals then, and whole counts stay whole."""
    from rich.console import Console

    def wins_column(res):
        console = Console(width=250, record=True, file=io.StringIO())
        console.print(res.table())
        rows = [line.split("│") for line in console.export_text().splitlines() if line.startswith("│ ")]
        return [r[4].strip() for r in rows if r[1].strip() in {s.name for s in res.stats}]

    shared = evaluate(["greedy", "random", "random", "random"], rounds=40, seed=0)
    assert [s.wins for s in shared.stats] == [8.5, 31.5] and wins_column(shared) == ["8.50", "31.50"]
    whole = evaluate(["greedy", "random"], rounds=20, seed=0, game="block")
    assert [s.wins for s in whole.stats] == [11.0, 9.0] and wins_column(whole) == ["11", "9"]


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["--first-turn", "any", "--drawn-tile", "may_play", "--marker-removal", "next_turn",
          "--station-source", "highest_held", "--blocked-round", "void", "--game-end", "elimination",
          "--episode", "game", "--elimination-limit", "40", "--no-use-boneyard", "--no-use-mexican-train",
          "--double-blank-points", "50", "--doubles", "no_cover", "--hand-size", "8",
          "--hand-size-rule", "table"],
         {"first_turn": "any", "drawn_tile": "may_play", "marker_removal": "next_turn",
          "station_source": "highest_held", "blocked_round": "void", "game_end": "elimination",
          "elimination_limit": 40, "use_boneyard": False, "use_mexican_train": False,
          "double_blank_points": 50, "doubles": "no_cover", "hand_size": 8,
          "hand_size_rule": "table"}),
        (["--game", "draw", "--players", "4", "--teams", "--next-lead", "winner", "--annul-doubles", "5",
          "--target-score", "77"],
         {"teams": True, "next_lead": "winner", "annul_doubles": 5, "target_score": 77}),
    ],
)  # fmt: skip
def test_every_rule_flag_of_domino_evaluate_reaches_the_env(tmp_path, argv, expected):
    """A real ``domino-evaluate`` process: each rule flag, given a value other than the preset's,
    is the value the tournament's env was made with (its JSON's env_kwargs). The flags come from
    one generic table (train/rule_options.py); dropping one in rule_kwargs failed no test."""
    out = tmp_path / "t.json"
    players = 4
    agents = [("greedy", "random")[i % 2] for i in range(players)]
    proc = subprocess.run(
        [sys.executable, "-m", "domino_env.train.evaluate", *argv, "--agents", *agents, "--rounds", str(players),
         "--no-progress", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    env_kwargs = json.loads(out.read_text())["env_kwargs"]
    assert {k: env_kwargs[k] for k in expected} == expected
