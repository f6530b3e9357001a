"""Exact values of the evaluation statistics (``domino_env.train.intervals``, the paired
difference and the tournament summary), checked against scipy, a published example and hand
computation, and the arguments the intervals refuse; many were written to kill mutants of the
statistics that the other tests let live (a mutation-testing pass, 2026-12). Definitions: the
docstrings of ``domino_env.train.intervals`` and ``domino_env.train.evaluate``.
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


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.40383, abs=1e-5) and hi == pytest.approx(0.59617, abs=1e-5)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.27753, abs=1e-5)
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.72247, abs=1e-5) and hi == pytest.approx(1.0)
    lo, hi = wilson_interval(81, 263)  # Newcombe (1998), Stat. Med. 17:857, example: 0.2553-0.3662
    assert lo == pytest.approx(0.2553, abs=1e-4) and hi == pytest.approx(0.3662, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # exactly 0 and 1 at no and every success (floating point left them up to 2e-16 inside)
    assert all(wilson_interval(n, n)[1] == 1.0 and wilson_interval(0, n)[0] == 0.0 for n in range(1, 2001))
    # fractional credit (shared wins) counts as fractional successes
    assert wilson_interval(2.5, 10)[0] < 0.25 < wilson_interval(2.5, 10)[1]


def test_t_interval_known_values():
    assert t_quantile_975(1) == pytest.approx(12.7062, abs=1e-4)
    assert t_quantile_975(10) == pytest.approx(2.2281, abs=1e-4)
    # beyond the table: t, not the normal quantile (1.95996 made 500-deal intervals 0.24% narrow)
    assert t_quantile_975(31) == pytest.approx(2.0395, abs=1e-4)
    assert t_quantile_975(1000) == pytest.approx(1.9623, abs=1e-4)
    assert t_quantile_975(0) == math.inf
    lo, hi = mean_interval([0.0, 1.0, 0.0, 1.0])  # mean 0.5, sd 0.57735, se 0.288675, t3 3.18245
    assert lo == pytest.approx(0.5 - 3.18245 * 0.288675, abs=1e-5)
    assert hi == pytest.approx(0.5 + 3.18245 * 0.288675, abs=1e-5)
    assert mean_interval([1.0]) == (-math.inf, math.inf)


def test_the_intervals_name_an_argument_out_of_range():
    """wilson_interval(5, 3) was "math domain error", mean_interval(None) and t_quantile_975(2.5)
    TypeErrors: a ConfigError naming the argument and what it may be."""
    refused = [
        ("successes", lambda: wilson_interval(5, 3)), ("successes", lambda: wilson_interval(-1, 10)),
        ("successes", lambda: wilson_interval(math.nan, 10)), ("successes", lambda: wilson_interval(None, 10)),
        ("successes", lambda: wilson_interval(True, 10)), ("trials", lambda: wilson_interval(1, 2.5)),
        ("trials", lambda: wilson_interval(0, -1)), ("trials", lambda: wilson_interval(0, None)),
        ("values", lambda: mean_interval(None)), ("values", lambda: mean_interval("0.5")),
        ("values", lambda: mean_interval([1.0, None])), ("values", lambda: mean_interval(np.zeros((2, 2)))),
        ("values", lambda: mean_interval([np.complex128(1 + 1j), 1.0])), ("values", lambda: mean_interval([1.0, math.nan])),
        ("values", lambda: mean_interval([1.0, math.inf])), ("values", lambda: mean_interval([True, 1.0])),
        ("values", lambda: mean_interval({"a": 1.0})), ("values", lambda: mean_interval(["1", 2.0])),
        ("trials", lambda: wilson_interval(3, 10.5)), ("df", lambda: t_quantile_975(np.array(2.5))),
        ("df", lambda: t_quantile_975(2.5)), ("df", lambda: t_quantile_975(None)), ("df", lambda: t_quantile_975(True)),
    ]  # fmt: skip
    for name, call in refused:
        with pytest.raises(ConfigError, match=f"(?s)'{name}'.*allowed: ") as info:
            call()
        assert info.value.field == name
    # what the tournament passes: credits of 1/3 summed in float, numpy numbers and arrays
    assert wilson_interval(sum([1 / 3] * 30), 10) == pytest.approx(wilson_interval(10, 10))
    assert wilson_interval(np.float64(2.5), np.int64(10)) == wilson_interval(2.5, 10)
    assert mean_interval(np.array([0.0, 1.0, 0.0, 1.0])) == mean_interval((0, 1, 0, 1))
    assert mean_interval({"a": 0.0, "b": 1.0}.values()) == mean_interval(x for x in (0.0, 1.0)) == mean_interval([0, 1])
    assert t_quantile_975(np.int64(10)) == t_quantile_975(10) == t_quantile_975(np.array(10)) == t_quantile_975(10.0)
    # what worked before the checks (2026-12-05): whole-number floats and 0-d arrays as counts, and
    # any iterable of finite reals (object arrays, Fractions, Decimals, 0-d arrays, big ints)
    for trials in (10.0, np.float64(10), np.array(10)):
        assert wilson_interval(3, trials) == wilson_interval(np.array(3), 10) == wilson_interval(3, 10)
    from decimal import Decimal
    from fractions import Fraction

    same = mean_interval([0.5, 1.0, 0.0])
    for values in (np.array([0.5, 1.0, 0.0], dtype=object), [Fraction(1, 2), 1, 0], [Decimal("0.5"), 1, 0],
                   [np.array(0.5), np.array(1.0), np.array(0.0)], (v for v in (0.5, 1.0, 0.0))):  # fmt: skip
        assert mean_interval(values) == pytest.approx(same)
    assert mean_interval([10**20, 0])[0] < 0


def test_t_quantile_matches_scipy_at_every_df():
    for df in [*range(1, 400), 499, 999, 1999, 10**5]:
        # the table has 6 decimals; the expansion beyond it is within 1e-7
        assert t_quantile_975(df) == pytest.approx(stats.t.ppf(0.975, df), abs=1e-6 if df <= 30 else 1e-7)


def test_a_0_d_array_of_a_whole_float_is_a_count():
    """The docstrings take a 0-d array of a whole number as a count, a float one too
    (``np.array(10.0)``, as ``np.asarray`` of a float count gives it): Wilson's 3 of 10 is
    [0.10779, 0.60322] (scipy), and t(0.975, 10) = 2.228139. Kills: the 0-d array branch of
    ``_whole`` deleted (the count refused as not whole)."""
    ci = stats.binomtest(3, 10).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson_interval(3, np.array(10.0)) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert t_quantile_975(np.array(10.0)) == t_quantile_975(10) == 2.228139
    with pytest.raises(ConfigError):
        wilson_interval(1, np.array(2.5))



def test_the_line_of_two_deals_with_the_same_pips_difference_says_so():
    """PairedDifference.text: with the same pips difference on both of 2 deals there is no
    interval, and the line says why (not "one deal"). Kills: ``self.deals < 2`` -> ``<= 2``."""
    d = _paired([(1.0, 1.0), (1.0, 1.0)], metric="pips")
    assert d.text() == "A - B: -1.00 (the same difference on every deal: no interval) over 2 deals (pips left per round)"
    one = _paired([(1.0, 1.0)], metric="pips")
    assert one.text() == "A - B: -1.00 (one deal: no interval) over 1 deal (pips left per round)"


def test_a_deal_without_a_finished_round_on_one_side_only_is_left_out():
    """With ``metric="pips"`` a deal in which A finished no round (every episode truncated before
    a round ended) has no value for A; it is left out even though B has one there. Deal 0: x keeps
    2 pips a round in A's file and 5 in B's: -3.00 over the 1 deal compared, 1 left out. Kills:
    ``isnan(a) or isnan(b)`` -> ``and`` (a nan difference, refused as a value of the interval)."""
    from domino_env.train.paired import paired_difference

    def result(truncated_deal_1):
        pips = [0, 0] if truncated_deal_1 else [2, 7]
        records = [_rec(0, [0, 1], [1.0, 0.0], [2 if truncated_deal_1 else 5, 9]),
                   _rec(0, [1, 0], [0.0, 1.0], [9, 2 if truncated_deal_1 else 5]),
                   {**_rec(1, [0, 1], [0.0, 0.0], pips), "rounds": 0 if truncated_deal_1 else 1,
                    "truncated": truncated_deal_1},
                   {**_rec(1, [1, 0], [0.0, 0.0], pips[::-1]), "rounds": 0 if truncated_deal_1 else 1,
                    "truncated": truncated_deal_1}]  # fmt: skip
        return {"agents": ["x", "y"], "episode": "round", "num_players": 2, "game": "block",
                "env_kwargs": {"num_players": 2}, "records": records}  # fmt: skip

    d = paired_difference(result(True), result(False), "x", "x", metric="pips")
    assert (d.deals, d.skipped, d.mean, d.mean_a, d.mean_b) == (1, 1, -3.0, 2.0, 5.0)
    assert d.ci95 == (-math.inf, math.inf)
    assert d.text() == "A - B: -3.00 (one deal: no interval) over 1 deal (pips left per round; 1 deal without a finished round left out)"


def test_pips_differences_that_vary_by_less_than_a_pip_have_a_t_interval():
    """Per-deal pips differences -1 and -1.5 (x keeps 0 and then 0.5 a round on average, y 1 and
    2): not "the same on every deal", so the t interval over the two, -1.25 +- 12.706205 * 0.25
    (scipy). Kills: the 1e-9 of the same-difference test made 1 + 1e-9 (no interval)."""
    from domino_env.train.paired import paired_difference

    records = [_rec(0, [0, 1], [1.0, 0.0], [0, 1]), _rec(0, [1, 0], [0.0, 1.0], [1, 0]),
               _rec(1, [0, 1], [1.0, 0.0], [1, 2]), _rec(1, [1, 0], [0.0, 1.0], [2, 0])]  # fmt: skip
    result = {"agents": ["x", "y"], "episode": "round", "num_players": 2, "game": "block",
              "env_kwargs": {"num_players": 2}, "records": records}  # fmt: skip
    d = paired_difference(result, result, "x", "y", metric="pips")
    lo, hi = stats.t.interval(0.95, 1, loc=-1.25, scale=0.25)
    assert d.mean == -1.25 and d.ci95 == (pytest.approx(lo, abs=1e-5), pytest.approx(hi, abs=1e-5))
    assert d.text() == "A - B: -1.25 [-4.43, +1.93] over 2 deals (pips left per round)"
