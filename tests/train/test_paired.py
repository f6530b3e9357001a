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
from domino_env.train.intervals import t_quantile_975, wilson_interval
from domino_env.train.paired import deal_values, load_result, paired_difference


def _rec(seed, seats, credit, pips, rounds=1, truncated=False, game_credit=None):
    # rotation r seats agent i at seat (i + r) % P: agent 0's seat
    return {"deal": seed, "rotation": seats.index(0), "seed": seed, "seats": seats, "rounds": rounds,
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
    assert deal_values(A, "x") == {(10, 10): 1.0, (11, 11): 0.5, (12, 12): 0.75}  # (deal, seed)
    assert deal_values(B, "z") == {(10, 10): 0.5, (11, 11): 1.0, (12, 12): 0.5}
    d = paired_difference(A, B)  # x (A's first agent) against z (x did not play in B)
    diffs = [0.5, -0.5, 0.25]
    mean = sum(diffs) / 3
    sd = math.sqrt(sum((v - mean) ** 2 for v in diffs) / 2)
    half = t_quantile_975(2) * sd / math.sqrt(3)
    assert (d.agent_a, d.agent_b, d.deals) == ("x", "z", 3)
    lo, hi = max(-1.0, mean - half), min(1.0, mean + half)  # a win-credit difference lies in [-1, 1]
    assert d.mean == pytest.approx(mean) and d.ci95 == pytest.approx((lo, hi))
    assert (d.mean_a, d.mean_b) == (pytest.approx(0.75), pytest.approx(2 / 3))
    assert d.text() == f"A - B: +0.083 [{lo:+.3f}, {hi:+.3f}] over 3 deals (win credit)"


def test_pips_within_one_tournament_and_agent_b_defaults():
    assert deal_values(A, "x", "pips") == {(10, 10): 0.0, (11, 11): 1.5, (12, 12): 1.0}
    assert deal_values(A, "y", "pips") == {(10, 10): 6.5, (11, 11): 2.5, (12, 12): 4.0}
    d = paired_difference(A, A, "x", "y", metric="pips")
    assert d.mean == pytest.approx(-3.5)
    assert paired_difference(A, B, "y").agent_b == "y"  # A's label, since it played in B
    assert paired_difference(A, A, "y").agent_b == "x"  # one tournament: its first agent
    with pytest.raises(DominoError, match=r"A and B are the same agent \('y'\) of one tournament"):
        paired_difference(A, A, "y", "y")
    twin = json.loads(json.dumps(A))  # the same tournament loaded twice: a legitimate zero
    same = paired_difference(A, twin, "x")
    assert same.mean == 0.0 and same.ci95 == (pytest.approx(-wilson_interval(0, 3)[1]), pytest.approx(wilson_interval(0, 3)[1]))


def test_truncated_and_game_episodes_count_as_the_win_rate_does():
    t = _result(["x", "y"], [_rec(1, [0, 1], [1.0, 0.0], [0, 3], truncated=True), _rec(1, [1, 0], [0.0, 1.0], [2, 0])])
    assert deal_values(t, "x") == {(1, 1): 0.5}  # a truncated episode gives no credit
    g = _result(["x", "y"], [_rec(1, [0, 1], [2.0, 1.0], [5, 9], rounds=3, game_credit=[1.0, 0.0]),
                             _rec(1, [1, 0], [1.0, 2.0], [9, 5], rounds=3, game_credit=[0.0, 1.0])], episode="game")
    assert deal_values(g, "x") == {(1, 1): 1.0} and deal_values(g, "x", "pips") == {(1, 1): 5 / 3}


def test_pips_skip_deals_without_a_finished_round():
    def tour(pips):  # deal 1: every episode truncated before a round ended (rounds 0)
        return _result(["x", "y"], [
            _rec(1, [0, 1], [0.0, 0.0], [0, 0], rounds=0, truncated=True),
            _rec(1, [1, 0], [0.0, 0.0], [0, 0], rounds=0, truncated=True),
            _rec(2, [0, 1], [1.0, 0.0], [0, pips]), _rec(2, [1, 0], [0.0, 1.0], [pips, 0]),
            _rec(3, [0, 1], [1.0, 0.0], [0, 2 * pips]), _rec(3, [1, 0], [0.0, 1.0], [pips, 0]),
        ])  # fmt: skip

    values = deal_values(tour(4), "y", "pips")
    assert math.isnan(values[(1, 1)]) and values[(2, 2)] == 4.0 and values[(3, 3)] == 6.0
    d = paired_difference(tour(4), tour(8), "y", metric="pips")
    assert (d.deals, d.skipped, d.mean) == (2, 1, pytest.approx(-5.0))
    assert d.text().endswith("over 2 deals (pips left per round; 1 deal without a finished round left out)")
    assert paired_difference(tour(4), tour(8), "y").deals == 3  # win credit: 0 for the truncated deal
    only = _result(["x", "y"], tour(4)["records"][:2])
    with pytest.raises(DominoError, match="no deal has a finished round on both sides"):
        paired_difference(only, json.loads(json.dumps(only)), "x", metric="pips")


def test_win_difference_interval_is_clipped_to_the_credit_range():
    one = _result(["x", "y"], [r for k in range(9) for r in (_rec(k, [0, 1], [1.0, 0.0], [0, 1]),
                                                                _rec(k, [1, 0], [0.0, 1.0], [1, 0]))]
                  + [_rec(9, [0, 1], [0.0, 1.0], [1, 0]), _rec(9, [1, 0], [1.0, 0.0], [0, 1])])  # fmt: skip
    d = paired_difference(one, one, "x", "y")  # per deal nine +1 and one -1: t reaches 1.25
    half = t_quantile_975(9) * math.sqrt(3.6 / 9) / math.sqrt(10)
    assert d.mean == pytest.approx(0.8) and d.ci95 == (pytest.approx(0.8 - half), 1.0)


def test_a_difference_the_same_on_every_deal_has_an_interval_of_some_width():
    """x won every deal and y lost it: the t interval had no width ('+1.000 [+1.000, +1.000] over 4
    deals'); it is Wilson's of (A - B + 1) / 2 with one trial per deal, as the tables' per-deal one."""
    won = _result(["x", "y"], [r for k in range(4) for r in (_rec(k, [0, 1], [1.0, 0.0], [0, 1]),
                                                              _rec(k, [1, 0], [0.0, 1.0], [1, 0]))])  # fmt: skip
    d = paired_difference(won, won, "x", "y")
    lo = 2 * wilson_interval(4, 4)[0] - 1  # 0.020
    assert d.mean == 1.0 and d.ci95 == (pytest.approx(lo), 1.0)
    assert d.text() == "A - B: +1.000 [+0.020, +1.000] over 4 deals (win credit)"
    assert paired_difference(won, won, "y", "x").ci95 == (-1.0, pytest.approx(-lo))


def test_no_deal_differing_gives_wilson_s_bound_of_zero_in_n_not_a_zero_of_no_width():
    """Two agents that played alike on every deal: the t interval was [+0.000, +0.000], a claim of
    no difference on any deal; the share of deals that differ is at most Wilson's upper bound of 0
    in n (1.96²/(n + 1.96²), nearly 4/n), and each differs by at most 1."""
    won = _result(["x", "y"], [r for k in range(4) for r in (_rec(k, [0, 1], [1.0, 0.0], [0, 1]),
                                                              _rec(k, [1, 0], [0.0, 1.0], [1, 0]))])  # fmt: skip
    twin = json.loads(json.dumps(won))
    d = paired_difference(won, twin, "x")
    bound = wilson_interval(0, 4)[1]  # 0.490
    assert d.mean == 0.0 and d.ci95 == (pytest.approx(-bound), pytest.approx(bound))
    assert d.text() == "A - B: +0.000 [-0.490, +0.490] over 4 deals (win credit)"
    many = _result(["x", "y"], [r for k in range(2000) for r in (_rec(k, [0, 1], [1.0, 0.0], [0, 1]),
                                                                  _rec(k, [1, 0], [0.0, 1.0], [1, 0]))])  # fmt: skip
    lo, hi = paired_difference(many, json.loads(json.dumps(many)), "y").ci95
    assert hi == pytest.approx(wilson_interval(0, 2000)[1]) and 0.0018 < hi < 0.0020 and lo == -hi


def test_the_same_pips_difference_on_every_deal_has_no_interval():
    """Pips have no bound from which the count alone gives an interval (win credit has [-1, 1]): the
    t interval of no width, [+0.00, +0.00], claimed the difference for every deal."""
    won = _result(["x", "y"], [r for k in range(4) for r in (_rec(k, [0, 1], [1.0, 0.0], [0, 1]),
                                                              _rec(k, [1, 0], [0.0, 1.0], [1, 0]))])  # fmt: skip
    d = paired_difference(won, json.loads(json.dumps(won)), "x", metric="pips")
    assert d.mean == 0.0 and d.ci95 == (-math.inf, math.inf)
    assert d.text() == "A - B: +0.00 (the same difference on every deal: no interval) over 4 deals (pips left per round)"
    spread = paired_difference(A, A, "x", "y", metric="pips")  # deals that differ: a t interval as before
    assert all(math.isfinite(v) for v in spread.ci95)


def _reseeded(result, offset):
    """The same tournament as if played on other deals (seeds shifted)."""
    return {**result, "records": [{**r, "seed": r["seed"] + offset} for r in result["records"]]}


def test_lists_of_tournaments_pool_their_deals():
    d = paired_difference([A, _reseeded(A, 100)], [B, _reseeded(B, 100)])
    one = paired_difference(A, B)
    assert (d.deals, d.mean, d.mean_a) == (6, pytest.approx(one.mean), pytest.approx(one.mean_a))
    sd = math.sqrt(sum((v - one.mean) ** 2 for v in [0.5, -0.5, 0.25] * 2) / 5)
    assert d.ci95[1] == pytest.approx(one.mean + t_quantile_975(5) * sd / math.sqrt(6))
    with pytest.raises(DominoError, match="tournament 1 of A's list differs from the first in its agents"):
        paired_difference([A, B], [B, B])
    with pytest.raises(DominoError, match=r"differs from the first in rules: max_pip \(6 in the first, 9 in this\)"):
        paired_difference([A, {**A, "env_kwargs": {"max_pip": 9}}], B)
    with pytest.raises(DominoError, match="played different deals"):
        paired_difference([A, _reseeded(A, 100)], B)


def test_damaged_records_name_the_record_the_field_and_what_it_must_be():
    def damaged(i, **fields):
        return [{**r, **fields} if k == i else r for k, r in enumerate(A["records"])]

    no_seed = [{k: v for k, v in r.items() if k != "seed"} for r in A["records"]]
    for records, what in [
        ([1, 2], "records[0] is damaged: it is 1, expected a record (a JSON object"),
        (no_seed, "records[0] (deal 10, rotation 0) is damaged: it has no field 'seed' (an integer >= 0"),
        (damaged(0, deal="abc"), "records[0] is damaged: field 'deal' is 'abc', expected an integer >= 0"),
        (damaged(1, rotation=2), "records[1] is damaged: field 'rotation' is 2, expected an integer 0..1"),
        (damaged(1, seats=[0, 5]), "records[1] (deal 10, rotation 1) is damaged: field 'seats' is [0, 5], "
                                   "expected the agent index at each seat in rotation 1: [1, 0]"),
        (damaged(5, round_credit="abc"), "records[5] (deal 12, rotation 1) is damaged: field 'round_credit' "
                                         "is 'abc', expected a list of 2 win credits in [0, 1], one per seat"),
        (damaged(4, round_credit=[1e308, 0]), "records[4] (deal 12, rotation 0) is damaged: field 'round_credit' "
                                              "is [1e+308, 0], expected a list of 2 win credits in [0, 1]"),
        (damaged(2, pips=[0, 1.5]), "records[2] (deal 11, rotation 0) is damaged: field 'pips' is [0, 1.5], "
                                    "expected a list of 2 integers >= 0, one per seat"),
        (damaged(2, pips=[-3, 1]), "records[2] (deal 11, rotation 0) is damaged: field 'pips' is [-3, 1], "
                                   "expected a list of 2 integers >= 0, one per seat"),
        (damaged(4, round_credit=[-0.5, 1.0]), "field 'round_credit' is [-0.5, 1.0], expected a list of 2 win credits"),
        (damaged(3, truncated="no"), "field 'truncated' is 'no', expected true or false"),
        (A["records"][:5], "deal 12 (seed 12) lacks seat rotation 1 (a deal has one record per rotation 0..1): "
                           "the records are damaged"),
        (A["records"] + A["records"][1:2], "records[6] repeats deal 10 (seed 10) rotation 1 of records[1]"),
    ]:  # fmt: skip
        with pytest.raises(DominoError) as info:
            paired_difference(A, _result(["x", "y"], records))
        assert str(info.value).startswith("tournament B: ") and what in str(info.value), str(info.value)
    with pytest.raises(DominoError, match=r"field 'game_credit' is \[1\], expected a list of 2 win credits in \[0, 1\], one per seat \(or null\)"):
        deal_values({**A, "episode": "game", "records": damaged(0, game_credit=[1])}, "x")
    # a journal's pips and scores have no lower bound (low=None); the default bound is 0
    from domino_env.train.tournament_results import seat_values

    assert seat_values([-2, 3], 2, integers=True, low=None) and not seat_values([-2, 3], 2, integers=True)


def test_a_file_missing_rotations_is_refused_naming_the_deal(tmp_path):
    res = evaluate(["greedy", "random", "greedy", "random"], rounds=12, seed=3, game="block", keep_records=True)
    full = res.to_dict(records=True)
    (tmp_path / "full.json").write_text(json.dumps(full))
    deal = full["records"][4]["deal"]  # keep one of deal 1's four rotations
    short = {**full, "records": [r for r in full["records"] if r["deal"] != deal or r["rotation"] == 2]}
    (tmp_path / "short.json").write_text(json.dumps(short))
    damaged = json.loads(json.dumps(full))
    damaged["records"][5]["round_credit"] = "abc"
    (tmp_path / "damaged.json").write_text(json.dumps(damaged))
    assert _cli("full.json", "full.json", "--agent-b", "random", cwd=tmp_path).returncode == 0
    for file, message in [
        ("short.json", f"tournament B: deal {deal} (seed {full['records'][4]['seed']}) lacks seat rotations 0, 1, 3 "
                       "(a deal has one record per rotation 0..3): the records are damaged"),
        ("damaged.json", "tournament B: records[5] (deal 1, rotation 1) is damaged: field 'round_credit' is 'abc', "
                         "expected a list of 4 win credits in [0, 1], one per seat"),
    ]:  # fmt: skip
        r = _cli("full.json", file, cwd=tmp_path)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_deal_values_match_the_tournament_win_rate():
    res = evaluate(["planner", "greedy"], rounds=40, num_players=2, seed=5, game="block", keep_records=True)
    d = res.to_dict(records=True)
    for s in res.stats:
        values = deal_values(d, s.name)
        assert len(values) == s.deals == 20
        assert sum(values.values()) / len(values) == pytest.approx(s.win_rate)
    other = evaluate(["greedy", "greedy"], rounds=40, num_players=2, seed=5, game="block", keep_records=True)
    diff = paired_difference(res, other, "planner", "greedy")  # EvaluationResult objects too
    assert diff.deals == 20 and diff.mean_a == pytest.approx(res.stats_for("planner").win_rate)
    assert diff.mean_b == pytest.approx(0.5)  # greedy against itself, every seat on every deal


@pytest.mark.parametrize(
    ("a", "b", "kwargs", "message"),
    [
        (A, B, {"agent_a": "w"}, "argument 'agent_a': got 'w'; allowed: an agent of tournament A: x, y"),
        (A, B, {"agent_b": "w"}, "argument 'agent_b': got 'w'; allowed: an agent of tournament B: z, y"),
        (A, B, {"metric": "score"}, "argument 'metric': got 'score'; allowed: win, pips"),
        (A, {**B, "records": []}, {}, "tournament B: the tournament has no episode records: run domino-evaluate"),
        (A, {**B, "env_kwargs": {"max_pip": 9, "void": 1}}, {},
         "differ in rules: max_pip (6 in A, 9 in B), void (None in A, 1 in B)"),
        (A, {**B, "episode": "game"}, {}, "differ in episode ('round' in A, 'game' in B)"),
        ({**A, "seed": 1}, {**B, "records": B["records"][:4], "seed": 1}, {},
         "played different deals (A: seed 1, 3 deals; B: seed 1, 2 deals; 1 of 3 not in both): use the same --seed"),
    ],
)
def test_refusals_name_the_problem(a, b, kwargs, message):
    kind = ConfigError if message.startswith("field") else DominoError
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
    assert r.stdout.splitlines()[2].startswith("A - B: +0.083 [") and len(r.stdout.splitlines()) == 3
    (tmp_path / "c.json").write_text(json.dumps({**B, "agents": ["z", "w"]}))  # z met w, not y: said so
    r = _cli("a.json", "c.json", cwd=tmp_path)
    assert r.stdout.splitlines()[3] == ("note: A and B played at different tables (A's seats: *, y; B's: *, w; "
                                        "* = the agent compared): the difference is also that of their opponents")  # fmt: skip
    (tmp_path / "d.json").write_text(json.dumps({**B, "agents": ["y", "z"]}))  # rotated: every rotation is played
    assert len(_cli("a.json", "d.json", "--agent-b", "z", cwd=tmp_path).stdout.splitlines()) == 3
    r = _cli("a.json", "a.json", "--agent", "x", "--agent-b", "y", "--metric", "pips", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.splitlines()[2].startswith("A - B: -3.50 [")
    (tmp_path / "bad.json").write_text('{"agents": ["x"], "rec')
    (tmp_path / "deep.json").write_text("[" * 200_000)
    for args, message in [
        (("a.json", "bad.json"), "bad.json: not a tournament JSON file"),
        (("a.json", "b.json.partial.jsonl"), "b.json.partial.jsonl: the journal of an interrupted tournament, not "
         "its result: finish it with its domino-evaluate command and --json b.json --resume, then give b.json"),
        (("a.json", "missing.json"), "missing.json: No such file or directory"),
        (("a.json", "b.json", "--agent", "q"), "error: --agent 'q': not an agent of a.json (its agents: x, y)"),
        (("a.json", "b.json", "--agent-b", "q"), "error: --agent-b 'q': not an agent of b.json (its agents: z, y)"),
        (("a.json", "./a.json"), "A and B are the same agent ('x') of one tournament"),
        (("a.json", "deep.json"), "deep.json: not a tournament JSON file (nested too deeply)"),
        (("a.json", "b.json", "--metric", "score"), "invalid choice: 'score'"),
    ]:
        r = _cli(*args, cwd=tmp_path)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)


def test_load_result_refuses_other_json(tmp_path):
    (tmp_path / "x.json").write_text("[1, 2]")
    with pytest.raises(DominoError, match="not a tournament JSON file"):
        load_result(tmp_path / "x.json")


def test_a_path_instead_of_a_result_says_to_load_it(tmp_path):
    """paired_difference(Path("a.json"), ...) was "'PosixPath' object has no attribute 'get'"."""
    from domino_env.core.errors import ConfigError
    from domino_env.train.paired import paired_difference

    for bad in (tmp_path / "a.json", "a.json"):
        with pytest.raises(ConfigError, match=r"'result'.*read a --json file with load_result\(path\) first"):
            paired_difference(bad, bad)
    with pytest.raises(ConfigError, match=r"'result'.*a tournament result \(a dict"):
        paired_difference(5, 5)


def test_a_numpy_seed_leaves_the_result_writable_as_json():
    """evaluate(seed=np.int64(0)) kept the numpy integer, so json.dumps(result.to_dict()) failed."""
    import json

    import numpy as np

    from domino_env.train.evaluate import evaluate

    res = evaluate(["random", "greedy"], num_players=2, rounds=2, seed=np.int64(3), keep_records=True)
    assert json.loads(json.dumps(res.to_dict(records=True)))["seed"] == 3


def test_the_pips_lines_of_the_command_have_two_decimals(tmp_path, capsys):
    """``--metric pips``: x keeps 0, 1.5 and 1 pips a round in the three deals of A (mean 0.83), y
    6.5, 2.5 and 4 (4.33); the differences -6.5, -1, -3: -3.50 +- t(0.975, 2) * 2.78388 / sqrt(3)
    = [-10.42, +3.42]. Every line with two decimals, the win lines with four."""
    from domino_env.train.paired import main

    path = tmp_path / "a.json"
    path.write_text(json.dumps(A))
    assert main([str(path), str(path), "--agent", "x", "--agent-b", "y", "--metric", "pips"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"A: x in {path}: 0.83", f"B: y in {path}: 4.33",
        "A - B: -3.50 [-10.42, +3.42] over 3 deals (pips left per round)"]  # fmt: skip
    assert main([str(path), str(path), "--agent", "x", "--agent-b", "y"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [f"A: x in {path}: 0.7500", f"B: y in {path}: 0.2500"]


def test_missing_rotations_are_counted_over_the_deals_and_named_in_the_plural():
    """The refusal of records lacking seat rotations names the first such deal, its missing
    rotations ("rotation 1", "rotations 1, 2") and how many other deals lack some."""
    two_short = [A["records"][k] for k in (0, 1, 2, 4)]  # deals 11 and 12 lack rotation 1
    with pytest.raises(DominoError) as info:
        deal_values({**A, "records": two_short}, "x")
    assert str(info.value) == ("deal 11 (seed 11) lacks seat rotation 1 (a deal has one record per rotation 0..1); "
                               "1 other deal lacks rotations too: the records are damaged")  # fmt: skip
    three = {"agents": ["x", "y", "w"], "episode": "round", "num_players": 3, "game": "mexican_train",
             "env_kwargs": {}, "records": [{"deal": 0, "rotation": 0, "seed": 0, "seats": [0, 1, 2], "rounds": 1,
                                            "round_credit": [1.0, 0.0, 0.0], "pips": [0, 1, 1], "game_credit": None,
                                            "truncated": False}]}  # fmt: skip
    with pytest.raises(DominoError) as info:
        deal_values(three, "x")
    assert str(info.value) == ("deal 0 (seed 0) lacks seat rotations 1, 2 (a deal has one record per rotation 0..2): "
                               "the records are damaged")  # fmt: skip


def test_deal_values_take_an_evaluation_result_kept_with_its_records():
    """deal_values reads an EvaluationResult as it reads its dict (``to_dict(records=True)``)."""
    res = evaluate(["greedy", "random"], rounds=4, num_players=2, seed=0, game="block", keep_records=True)
    values = deal_values(res, "greedy")
    assert values == deal_values(res.to_dict(records=True), "greedy") and len(values) == 2
    assert sum(values.values()) / 2 == res.stats_for("greedy").win_rate
