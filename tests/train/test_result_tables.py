"""The tables and the dict of an :class:`EvaluationResult` (``domino_env.train.tournament_results``),
cell by cell, for a result built here by hand: every column's header and every row's figures as
``domino-evaluate`` prints them, for rounds, whole games and teams, and what ``to_dict`` keeps.
Written to kill mutants that the other tests let live (a mutation-testing pass, 2026-12: a
deleted column shifted every figure under the wrong header, and no test read the headers).
"""

from __future__ import annotations

import json

from domino_env.train.tournament_results import (
    AgentStats,
    EvaluationResult,
    GameRecord,
    rule_changes,
)


def _stats(name, **over):
    base = dict(name=name, seats_per_table=1, seat_episodes=40, wins=11.0, win_rate=0.275,
                ci95_wilson=(0.16, 0.43), ci95_deal=(0.12, 0.431), parity=0.25, verdict="parity",
                seat_rounds=40, round_wins=11.0, round_win_rate=0.275, mean_pips_per_round=12.345, deals=10)  # fmt: skip
    return AgentStats(**{**base, **over})


def _result(stats, episode="round", teams=False, **over):
    base = dict(agents=[s.name for s in stats], env_kwargs={"max_pip": 9, "preset": "domino_cubano", "num_players": 2},
                num_players=2, episode=episode, seed=3, deals=10, episodes=20, rounds_played=20,
                deal_seeds=list(range(10)), blocked_rounds=0, void_rounds=0, truncated_episodes=0, stats=stats,
                records=[GameRecord(deal=0, rotation=0, seed=0, seats=[0, 1], rounds=1, round_credit=[1.0, 0.0],
                                    pips=[0, 5])], teams=teams)  # fmt: skip
    return EvaluationResult(**{**base, **over})


def _cells(table):
    """{header: [cell, ...]} of a rich table, in column order."""
    return {str(c.header): [str(x) for x in c.cells] for c in table.columns}


ROUND_HEADERS = ["agent", "seats", "seat-rounds", "wins", "win rate", "95% CI Wilson", "95% CI per deal",
                 "parity 1/P", "vs parity", "mean pips/round"]  # fmt: skip


def test_the_round_table_has_every_column_under_its_header():
    a = _stats("greedy", verdict="above", ci95_wilson=(0.5123, 0.7), ci95_deal=(0.5234, 0.69))
    b = _stats("random", seats_per_table=1, wins=9.0, win_rate=0.225, verdict="below", mean_pips_per_round=20.0)
    res = _result([a, b])
    table = res.table()
    assert [str(c.header) for c in table.columns] == ROUND_HEADERS
    cells = _cells(table)
    assert cells == {
        "agent": ["greedy", "random"], "seats": ["1", "1"], "seat-rounds": ["40", "40"], "wins": ["11", "9"],
        "win rate": ["0.275", "0.225"], "95% CI Wilson": ["[0.512, 0.700]", "[0.160, 0.430]"],
        "95% CI per deal": ["[0.523, 0.690]", "[0.120, 0.431]"], "parity 1/P": ["0.250", "0.250"],
        "vs parity": ["above", "below"], "mean pips/round": ["12.35", "20.00"],
    }  # fmt: skip
    assert [c.style for c in table.columns[8].cells] == ["green", "red"]
    assert str(table.title) == "greedy random | 2 players, double-9, domino_cubano | 20 rounds = 10 deals x 2 seat rotations | seed 3"
    assert [c.justify for c in table.columns] == ["left"] + ["right"] * 7 + ["left", "right"]


def test_a_parity_verdict_and_a_table_without_rounds_played():
    """A verdict other than above/below is printed as it is; an agent with no round played has n/a
    in the per-round columns (its figures are 0.0 there); fewer than 2 deals: n/a per deal; one
    deal is "1 deal"."""
    res = _result([_stats("x", verdict="n/a", seat_rounds=0, deals=1, mean_pips_per_round=0.0)], deals=1)
    cells = _cells(res.table())
    assert cells["vs parity"] == ["n/a"] and cells["mean pips/round"] == ["n/a"]
    assert cells["95% CI per deal"] == ["n/a"]
    assert "= 1 deal x 2 seat rotations" in str(res.table().title)
    res = _result([_stats("x", verdict="parity")])
    assert _cells(res.table())["vs parity"] == ["parity"]
    one = _result([_stats("x", seat_rounds=1, round_win_rate=1.0)], episode="game")  # one round played is some
    assert _cells(one.table())["mean pips/round"] == ["12.35"] and _cells(one.table())["round win rate"] == ["1.000"]
    assert one.markdown().splitlines()[2].endswith("| 12.3 |")


def test_the_game_table_adds_the_round_win_rate_and_the_game_score():
    a = _stats("greedy", round_win_rate=0.3125, mean_game_score=41.26)
    b = _stats("random", mean_game_score=None, seat_rounds=0)
    res = _result([a, b], episode="game", game="draw", teams=True)
    table = res.table()
    headers = ["agent", "seats", "seat-games", "wins", "win rate", "95% CI Wilson", "95% CI per deal", "parity 1/2",
               "vs parity", "round win rate", "mean pips/round", "mean game score"]  # fmt: skip
    assert [str(c.header) for c in table.columns] == headers
    cells = _cells(table)
    assert cells["round win rate"] == ["0.312", "n/a"]
    assert cells["mean pips/round"] == ["12.35", "n/a"]
    assert cells["mean game score"] == ["41.3", "n/a"]
    assert str(table.title).startswith("greedy random | draw game, 2 players, teams 0+2 vs 1+3 (team win rate), double-9")
    assert "| 20 games = 10 deals" in str(table.title)


def test_fractional_wins_give_two_decimals_in_every_row():
    res = _result([_stats("a", wins=10.5), _stats("b", wins=9.0)])
    assert _cells(res.table())["wins"] == ["10.50", "9.00"]


def test_the_markdown_table_row_by_row():
    res = _result([_stats("greedy"), _stats("random", seat_rounds=0, deals=1)])
    assert res.markdown().splitlines() == [
        "| agent | seats | seat-rounds | win rate | 95% CI (Wilson) | 95% CI (per deal) | parity | mean pips/round |",
        "|---|---|---|---|---|---|---|---|",
        "| greedy | 1 | 40 | 0.275 | [0.160, 0.430] | [0.120, 0.431] | 0.250 | 12.3 |",
        "| random | 1 | 40 | 0.275 | [0.160, 0.430] | n/a | 0.250 | n/a |",
    ]
    assert _result([_stats("g")], episode="game").markdown().startswith("| agent | seats | seat-games |")


def test_to_dict_keeps_records_only_when_asked_and_is_what_json_reads_back():
    """``to_dict()`` has no records (``--json`` without ``--records``), ``to_dict(records=True)``
    every one; its intervals are lists, so the dict equals the JSON file read back (a tuple is not
    equal to the list json.load gives)."""
    res = _result([_stats("greedy")])
    plain = res.to_dict()
    assert "records" not in plain
    assert plain == json.loads(json.dumps(plain))
    assert plain["stats"][0]["ci95_wilson"] == [0.16, 0.43] and plain["stats"][0]["ci95_deal"] == [0.12, 0.431]
    full = res.to_dict(records=True)
    assert full["records"] == [{"deal": 0, "rotation": 0, "seed": 0, "seats": [0, 1], "rounds": 1,
                                "round_credit": [1.0, 0.0], "pips": [0, 5], "game_credit": None, "scores": None,
                                "blocked": 0, "void": 0, "steps": 0, "truncated": False, "annulled": 0,
                                "seat_rounds": None}]  # fmt: skip


def test_rule_changes_of_rules_without_a_known_preset_is_empty():
    """The title's rule changes are text ("" when there is no preset to compare with), never None."""
    assert rule_changes({}) == ""
    assert rule_changes({"preset": "no such preset", "max_pip": 9}) == ""
    assert rule_changes({"preset": "domino_cubano", "num_players": 4, "max_pip": 12, "hand_size": 20}) != ""
