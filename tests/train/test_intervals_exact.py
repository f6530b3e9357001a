"""Exact values of the evaluation statistics (``domino_env.train.intervals``, the paired
difference and the tournament summary), checked against scipy and against hand computation:
written to kill mutants of the statistics that the other tests let live (a mutation-testing pass,
2026-12). Definitions: the docstrings of ``domino_env.train.intervals`` and
``domino_env.train.evaluate``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from domino_env.core.errors import ConfigError
from domino_env.train.intervals import mean_interval, t_quantile_975, wilson_interval


@pytest.mark.parametrize("k,n", [(1, 2), (3, 7), (12, 40), (37, 41), (250, 1000), (1, 1), (4, 5)])
def test_wilson_interval_equals_scipys_wilson_interval(k, n):
    """Wilson score interval at 95% (scipy's ``binomtest(...).proportion_ci(method="wilson")``)."""
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson_interval(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_wilson_interval_of_a_fractional_count_by_hand():
    """Shared wins give fractional successes: 2.5 of 10, z = 1.959964: centre 0.31938, half
    0.23844 (the score formula by hand)."""
    z, n, p = 1.959963984540054, 10, 0.25
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    assert wilson_interval(2.5, 10) == pytest.approx((centre - half, centre + half), abs=1e-12)
    assert round(centre - half, 5) == 0.08095 and round(centre + half, 5) == 0.55782


@pytest.mark.parametrize("n", [2, 3, 5, 30, 31, 32, 100])
def test_mean_interval_equals_scipys_t_interval(n):
    """The t interval of a mean: mean +- t(0.975, n - 1) * sd / sqrt(n), sd with n - 1 (scipy's
    ``t.interval(0.95, n - 1, loc=mean, scale=sem)``)."""
    values = np.random.default_rng(n).normal(0.3, 0.5, size=n)
    expected = stats.t.interval(0.95, n - 1, loc=values.mean(), scale=stats.sem(values))
    assert mean_interval(values.tolist()) == pytest.approx(expected, abs=1e-6)


def test_t_quantile_on_both_sides_of_the_table_edge():
    """df 29 and 30 read the table, 31 on the expansion: each within 1e-6 of scipy."""
    for df in (29, 30, 31, 45):
        assert t_quantile_975(df) == pytest.approx(stats.t.ppf(0.975, df), abs=1e-6)
    assert t_quantile_975(30) == 2.042272  # the table's entry itself


def test_a_million_three_way_shared_wins_summed_in_float_are_taken():
    """wilson_interval takes "sums of shared-win credits a rounding error past trials": 3,000,000
    credits of 1/3 summed in float come to 1,000,000 + 4.3e-5, inside the slack of 1e-9 per trial
    (1e-3 here), and the interval is then that of every trial won. A sum 1e-7 past 10 trials is
    no rounding error and is refused. Kills: the slack ``1e-9 * max(1, trials)`` computed as
    ``1e-9 / ...`` or with ``min``."""
    total = sum([1 / 3] * 3_000_000)
    assert total > 1_000_000
    assert wilson_interval(total, 1_000_000) == pytest.approx(wilson_interval(1_000_000, 1_000_000))
    assert wilson_interval(total, 1_000_000)[1] == 1.0
    with pytest.raises(ConfigError):
        wilson_interval(10 + 1e-7, 10)


def _rec(seed, seats, credit, pips):
    """A round record of a 2-seat tournament (the fields paired_difference reads)."""
    return {"deal": seed, "rotation": seats.index(0), "seed": seed, "seats": seats, "rounds": 1,
            "round_credit": credit, "pips": pips, "game_credit": None, "truncated": False}  # fmt: skip


def test_two_deals_won_by_a_give_wilsons_interval_of_2_in_2_not_a_point():
    """paired_difference (docstring of PairedDifference.ci95): where every deal has the same
    nonzero difference, Wilson's interval of (mean + 1) / 2 with one trial per deal, mapped back,
    from 2 deals on. x wins both deals (both rotations): difference +1 on each; Wilson's 2 of 2 is
    [0.34238, 1] (scipy), so [-0.31524, +1]. Kills: ``n >= 2`` -> ``n > 2`` in that branch (a
    t interval of no width, [+1, +1])."""
    from domino_env.train.paired import paired_difference

    records = [r for k in range(2) for r in (_rec(k, [0, 1], [1.0, 0.0], [0, 1]), _rec(k, [1, 0], [0.0, 1.0], [1, 0]))]
    result = {"agents": ["x", "y"], "episode": "round", "num_players": 2, "game": "block",
              "env_kwargs": {"num_players": 2}, "records": records}  # fmt: skip
    d = paired_difference(result, result, "x", "y")
    low = stats.binomtest(2, 2).proportion_ci(confidence_level=0.95, method="wilson").low
    assert d.deals == 2 and d.mean == 1.0
    assert d.ci95 == (pytest.approx(2 * low - 1, abs=1e-12), 1.0)
    assert round(d.ci95[0], 5) == -0.31524


def _paired(deals, metric="win"):
    """paired_difference of x against y in one 2-seat tournament; ``deals``: per deal, x's round
    credit in rotation 0 (x at seat 0) and rotation 1 (x at seat 1); y has the rest."""
    from domino_env.train.paired import paired_difference

    records = [r for k, (c0, c1) in enumerate(deals)
               for r in (_rec(k, [0, 1], [c0, 1.0 - c0], [0, 1]), _rec(k, [1, 0], [1.0 - c1, c1], [1, 0]))]  # fmt: skip
    result = {"agents": ["x", "y"], "episode": "round", "num_players": 2, "game": "block",
              "env_kwargs": {"num_players": 2}, "records": records}  # fmt: skip
    return paired_difference(result, result, "x", "y", metric=metric)


def test_two_deals_without_a_difference_give_wilsons_bound_of_0_in_2():
    """PairedDifference.ci95: where no deal differs, plus or minus Wilson's upper bound for 0 deals
    of ``deals`` differing, from 2 deals on: 0 of 2 is [0, 0.65762] (scipy). Kills: ``n >= 2`` ->
    ``n > 2`` in that branch."""
    d = _paired([(1.0, 0.0), (0.0, 1.0)])  # x wins one rotation of each deal: 1/2 each, no difference
    high = stats.binomtest(0, 2).proportion_ci(confidence_level=0.95, method="wilson").high
    assert d.deals == 2 and d.mean == 0.0
    assert d.ci95 == (pytest.approx(-high, abs=1e-12), pytest.approx(high, abs=1e-12))
    assert round(high, 5) == 0.65762


def test_one_deal_without_a_difference_among_others_keeps_the_t_interval():
    """Differences 0, +1 and +0.5 (one deal alike, two not): the t interval over the 3 differences,
    0.5 +- t(0.975, 2) * 0.5 / sqrt(3) = [-0.74207, +1.74207], clipped to [-0.74207, +1]; not the
    no-difference branch (that needs every deal alike). Kills: ``max(map(abs, diffs))`` ->
    ``min(...)`` in the no-difference test."""
    d = _paired([(1.0, 0.0), (1.0, 1.0), (1.0, 0.5)])
    assert d.mean == pytest.approx(0.5)
    lo, hi = stats.t.interval(0.95, 2, loc=0.5, scale=0.5 / math.sqrt(3))
    assert d.ci95 == (pytest.approx(lo, abs=1e-5), 1.0)
    assert round(lo, 5) == -0.74207 and hi > 1


def test_two_deals_with_the_same_pips_difference_have_no_interval():
    """PairedDifference.ci95: ``(-inf, inf)`` for pips the same on every deal, from 2 deals on (x
    keeps 0 pips and y 1 in every rotation: -1 on both deals). Kills: ``n >= 2`` -> ``n > 2`` in
    the pips branch (a t interval of no width, [-1, -1])."""
    d = _paired([(1.0, 1.0), (1.0, 1.0)], metric="pips")
    assert d.deals == 2 and d.mean == -1.0
    assert d.ci95 == (-math.inf, math.inf)
