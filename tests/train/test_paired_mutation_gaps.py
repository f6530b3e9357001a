"""``domino_env.train.paired``: what a mutation-testing pass (2026-12) found no test for: a list of
one tournament is that tournament (pooling starts from the first of the list), and a result file
of exactly the size limit is read (only a larger one is refused). Figures by hand and with scipy.
"""

from __future__ import annotations

import json
import math

import pytest
from scipy import stats

import domino_env.train.paired as paired
from domino_env.core.errors import DominoError
from domino_env.train.paired import deal_values, load_result, paired_difference


def _rec(seed, seats, credit, pips):
    return {"deal": seed, "rotation": seats.index(0), "seed": seed, "seats": seats, "rounds": 1,
            "round_credit": credit, "pips": pips, "game_credit": None, "truncated": False}  # fmt: skip


def _result(agents, records, seed):
    return {"agents": agents, "episode": "round", "num_players": 2, "game": "mexican_train",
            "env_kwargs": {"max_pip": 6}, "seed": seed, "records": records}  # fmt: skip


# x's deal values 1, 1/2, 3/4; z's (in B) 1/2, 1, 1/2: differences +1/2, -1/2, +1/4; z's pips a round
# (5 + 0) / 2, (0 + 0) / 2, (8 + 0) / 2
A = _result(["x", "y"], [
    _rec(10, [0, 1], [1.0, 0.0], [0, 9]), _rec(10, [1, 0], [0.0, 1.0], [4, 0]),
    _rec(11, [0, 1], [1.0, 0.0], [0, 5]), _rec(11, [1, 0], [1.0, 0.0], [0, 3]),
    _rec(12, [0, 1], [0.5, 0.5], [2, 2]), _rec(12, [1, 0], [0.0, 1.0], [6, 0]),
], seed=7)  # fmt: skip
B = _result(["z", "y"], [
    _rec(10, [0, 1], [0.0, 1.0], [5, 0]), _rec(10, [1, 0], [0.0, 1.0], [3, 0]),
    _rec(11, [0, 1], [1.0, 0.0], [0, 5]), _rec(11, [1, 0], [0.0, 1.0], [7, 0]),
    _rec(12, [0, 1], [0.0, 1.0], [8, 0]), _rec(12, [1, 0], [0.0, 1.0], [6, 0]),
], seed=7)  # fmt: skip


def test_a_list_of_one_tournament_is_that_tournament():
    """``[A]`` against ``[B]`` pools one tournament each: the same deals, difference and t interval
    as A against B (scipy's, to the 6 decimals of the t table). Kills: the pooled result built on
    ``parts[1]`` (an IndexError for a list of one)."""
    diffs = [0.5, -0.5, 0.25]
    mean = sum(diffs) / 3
    lo, hi = stats.t.interval(0.95, 2, loc=mean, scale=stats.sem(diffs))
    for a, b in (([A], [B]), ((A,), B), (A, [B])):
        d = paired_difference(a, b)
        assert (d.agent_a, d.agent_b, d.deals, d.skipped) == ("x", "z", 3, 0)
        assert d.mean == pytest.approx(mean, abs=1e-12)
        assert d.ci95 == pytest.approx((max(-1.0, lo), min(1.0, hi)), abs=1e-5)
        assert (d.mean_a, d.mean_b) == (pytest.approx(0.75), pytest.approx(2 / 3))
    assert deal_values([A], "x") == {(10, 10): 1.0, (11, 11): 0.5, (12, 12): 0.75}
    assert deal_values([B], "z", "pips") == {(10, 10): 2.5, (11, 11): 0.0, (12, 12): 4.0} == deal_values(B, "z", "pips")
    assert not math.isnan(paired_difference([A], [A], "x", "y", "pips").mean)


def test_a_result_file_of_exactly_the_size_limit_is_read(tmp_path, monkeypatch):
    """The limit is the most bytes a result may have: a file of exactly that many is read, one byte
    more is refused (the limit lowered here to the size of a small file). Kills: ``len(raw) >
    MAX_RESULT_BYTES`` -> ``>=``."""
    path = tmp_path / "a.json"
    path.write_text(json.dumps(A))
    size = path.stat().st_size
    monkeypatch.setattr(paired, "MAX_RESULT_BYTES", size)
    assert load_result(path) == A
    monkeypatch.setattr(paired, "MAX_RESULT_BYTES", size - 1)
    with pytest.raises(DominoError, match=r"holds more than 0 GiB: not a tournament JSON file"):
        load_result(path)
