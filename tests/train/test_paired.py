"""Paired per-deal differences (train/paired.py): hand-built records with known values, the same
credit as the tournament's win rate, the refusals, and the command line."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from domino_env.core.errors import ConfigError, DominoError
from domino_env.train.evaluate import evaluate
from domino_env.train.intervals import t_quantile_975
from domino_env.train.paired import deal_values, load_result, paired_difference


def _rec(seed, seats, credit, pips, rounds=1, truncated=False, game_credit=None):
    return {"deal": seed, "rotation": 0, "seed": seed, "seats": seats, "rounds": rounds,
            "round_credit": credit, "pips": pips, "game_credit": game_credit, "truncated": truncated}  # fmt: skip


def _result(agents, records, episode="round", env_kwargs=None):
    return {"agents": agents, "episode": episode, "num_players": 2, "game": "mexican_train",
            "env_kwargs": env_kwargs or {"max_pip": 6}, "records": records}  # fmt: skip


# Two seat rotations of three deals (seeds 10, 11, 12) for agent "x" against "y" (seats[i] = the
# agent index at seat i; credit and pips are per seat).
A = _result(["x", "y"], [
    _rec(10, [0, 1], [1.0, 0.0], [0, 9]), _rec(10, [1, 0], [0.0, 1.0], [4, 0]),   # x: 1, pips 0; y: 6.5
    _rec(11, [0, 1], [1.0, 0.0], [0, 5]), _rec(11, [1, 0], [1.0, 0.0], [0, 3]),   # x: 1/2, pips 1.5; y: 2.5
    _rec(12, [0, 1], [0.5, 0.5], [2, 2]), _rec(12, [1, 0], [0.0, 1.0], [6, 0]),   # x: 3/4, pips 1; y: 4
])  # fmt: skip
B = _result(["z", "y"], [
    _rec(10, [0, 1], [0.0, 1.0], [5, 0]), _rec(10, [1, 0], [0.0, 1.0], [3, 0]),   # z: 1/2
    _rec(11, [0, 1], [1.0, 0.0], [0, 5]), _rec(11, [1, 0], [0.0, 1.0], [7, 0]),   # z: 1
    _rec(12, [0, 1], [0.0, 1.0], [8, 0]), _rec(12, [1, 0], [0.0, 1.0], [6, 0]),   # z: 1/2
])  # fmt: skip


def test_known_values_of_a_paired_difference():
    assert deal_values(A, "x") == {10: 1.0, 11: 0.5, 12: 0.75}
    assert deal_values(B, "z") == {10: 0.5, 11: 1.0, 12: 0.5}
    d = paired_difference(A, B)  # x (A's first agent) against z (x did not play in B)
    diffs = [0.5, -0.5, 0.25]
    mean = sum(diffs) / 3
    sd = math.sqrt(sum((v - mean) ** 2 for v in diffs) / 2)
    half = t_quantile_975(2) * sd / math.sqrt(3)
    assert (d.agent_a, d.agent_b, d.deals) == ("x", "z", 3)
    assert d.mean == pytest.approx(mean) and d.ci95 == pytest.approx((mean - half, mean + half))
    assert (d.mean_a, d.mean_b) == (pytest.approx(0.75), pytest.approx(2 / 3))
    assert d.text() == f"A - B: +0.083 [{mean - half:+.3f}, {mean + half:+.3f}] over 3 deals (win credit)"


def test_pips_within_one_tournament_and_agent_b_defaults():
    assert deal_values(A, "x", "pips") == {10: 0.0, 11: 1.5, 12: 1.0}
    assert deal_values(A, "y", "pips") == {10: 6.5, 11: 2.5, 12: 4.0}
    d = paired_difference(A, A, "x", "y", metric="pips")
    assert d.mean == pytest.approx(-3.5)
    assert paired_difference(A, B, "y").agent_b == "y"  # A's label, since it played in B
    same = paired_difference(A, A, "x")
    assert same.mean == 0.0 and same.ci95 == (0.0, 0.0)


def test_truncated_and_game_episodes_count_as_the_win_rate_does():
    t = _result(["x", "y"], [_rec(1, [0, 1], [1.0, 0.0], [0, 3], truncated=True), _rec(1, [1, 0], [0.0, 1.0], [2, 0])])
    assert deal_values(t, "x") == {1: 0.5}  # a truncated episode gives no credit
    g = _result(["x", "y"], [_rec(1, [0, 1], [2.0, 1.0], [5, 9], rounds=3, game_credit=[1.0, 0.0])], episode="game")
    assert deal_values(g, "x") == {1: 1.0} and deal_values(g, "x", "pips") == {1: 5 / 3}


def test_deal_values_match_the_tournament_win_rate():
    res = evaluate(["planner", "greedy"], rounds=40, num_players=2, seed=5, game="block", keep_records=True)
    d = res.to_dict(records=True)
    for s in res.stats:
        values = deal_values(d, s.name)
        assert len(values) == s.deals == 20
        assert sum(values.values()) / len(values) == pytest.approx(s.win_rate)
    other = evaluate(["greedy", "greedy"], rounds=40, num_players=2, seed=5, game="block", keep_records=True)
    diff = paired_difference(d, other.to_dict(records=True), "planner", "greedy")
    assert diff.deals == 20 and diff.mean_a == pytest.approx(res.stats_for("planner").win_rate)
    assert diff.mean_b == pytest.approx(0.5)  # greedy against itself, every seat on every deal


@pytest.mark.parametrize(
    ("a", "b", "kwargs", "message"),
    [
        (A, B, {"agent_a": "w"}, "invalid config field 'agent': got 'w'; allowed: an agent of the tournament: x, y"),
        (A, B, {"metric": "score"}, "invalid config field 'metric': got 'score'; allowed: win, pips"),
        (A, {**B, "records": []}, {}, "no episode records: run domino-evaluate with --records"),
        (A, {**B, "env_kwargs": {"max_pip": 9}}, {}, "differ in env_kwargs"),
        (A, {**B, "episode": "game"}, {}, "differ in episode"),
        (A, {**B, "records": B["records"][:4]}, {}, "played different deals (1 of 3 not in both): use the same --seed"),
    ],
)
def test_refusals_name_the_problem(a, b, kwargs, message):
    kind = ConfigError if message.startswith("invalid config") else DominoError
    with pytest.raises(kind) as info:
        paired_difference(a, b, **kwargs)
    assert message in str(info.value)


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "domino_env.train.paired", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_command_line(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(A))
    (tmp_path / "b.json").write_text(json.dumps(B))
    r = _cli("a.json", "b.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:2] == ["A: x in a.json: 0.7500", "B: z in b.json: 0.6667"]
    assert r.stdout.splitlines()[2].startswith("A - B: +0.083 [")
    r = _cli("a.json", "a.json", "--agent", "x", "--agent-b", "y", "--metric", "pips", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.splitlines()[2].startswith("A - B: -3.50 [")
    (tmp_path / "bad.json").write_text('{"agents": ["x"], "rec')
    for args, message in [
        (("a.json", "bad.json"), "bad.json: not a tournament JSON file"),
        (("a.json", "missing.json"), "missing.json: No such file or directory"),
        (("a.json", "b.json", "--agent", "q"), "got 'q'; allowed: an agent of the tournament: x, y"),
        (("a.json", "b.json", "--metric", "score"), "invalid choice: 'score'"),
    ]:
        r = _cli(*args, cwd=tmp_path)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)


def test_load_result_refuses_other_json(tmp_path):
    (tmp_path / "x.json").write_text("[1, 2]")
    with pytest.raises(DominoError, match="not a tournament JSON file"):
        load_result(tmp_path / "x.json")
