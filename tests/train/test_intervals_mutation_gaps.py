"""``domino_env.train.intervals``: what a mutation-testing pass (2026-12) found no test for: the
rounding slack that ``wilson_interval`` takes on its successes, a whole-float trials count named as
the integer it is, low-precision float arrays computed in double precision, and the fourth term of
the Cornish-Fisher expansion of t beyond the table. Every expected value is scipy's or written out.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from domino_env.core.errors import ConfigError
from domino_env.train.intervals import mean_interval, t_quantile_975, wilson_interval


def _scipy_wilson(k, n):
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return (ci.low, ci.high)


def test_the_successes_may_be_past_their_range_by_1e_9_a_trial_and_no_more():
    """Credits of 1/k summed in float may land a rounding error outside [0, trials]: the slack is
    1e-9 per trial, at least 1e-9 (also with no trials), edges included. Kills: ``max(1, trials)``
    -> ``max(0, ...)`` / ``max(2, ...)``, and either ``<=`` of the range check -> ``<``."""
    # on the edges: taken, and the interval is that of 0 (or all) of the trials, to the slack
    assert wilson_interval(-1e-9, 1) == pytest.approx(_scipy_wilson(0, 1), abs=1e-8)
    assert wilson_interval(-1e-9, 1)[0] == 0.0
    assert wilson_interval(1 + 1e-9, 1) == pytest.approx(_scipy_wilson(1, 1), abs=1e-8)
    assert wilson_interval(1 + 1e-9, 1)[1] == 1.0
    assert wilson_interval(1e-9, 0) == (0.0, 1.0)  # no trials: slack 1e-9 still
    assert wilson_interval(10 + 1e-8, 10) == pytest.approx(_scipy_wilson(10, 10), abs=1e-8)
    # past them: refused, the message naming the range
    for successes, trials in ((-1.5e-9, 1), (1 + 1.5e-9, 1), (1.5e-9, 0), (10 + 2e-8, 10), (-2e-8, 10)):
        with pytest.raises(ConfigError, match=rf"allowed: a number from 0 to trials \({trials}\)") as info:
            wilson_interval(successes, trials)
        assert info.value.field == "successes"


def test_a_whole_float_count_of_trials_is_named_as_an_integer():
    """``trials`` given as 10.0 (as counts often arrive) is the count 10 throughout: the refusal of
    11 successes names "trials (10)", not 10.0. Kills: ``trials = count`` deleted."""
    for trials in (10.0, np.float64(10.0), np.array(10.0)):
        with pytest.raises(ConfigError) as info:
            wilson_interval(11, trials)
        assert str(info.value).endswith("allowed: a number from 0 to trials (10)")
        assert wilson_interval(3, trials) == pytest.approx(_scipy_wilson(3, 10), abs=1e-12)


def test_a_float16_or_float32_array_is_computed_in_double_precision():
    """The t interval of a low-precision array is that of its values in double precision (scipy's t
    interval, to the 6 decimals of the t table): a float16 standard deviation is off in the 4th
    digit. Kills: ``arr = arr.astype(float, copy=False)`` deleted."""
    for dtype in (np.float16, np.float32):
        values = np.array([0.1, 0.2, 0.7, 0.3], dtype=dtype)
        x = values.astype(np.float64)
        lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
        assert mean_interval(values) == pytest.approx((lo, hi), abs=1e-6)
        assert all(type(b) is float for b in mean_interval(values))


@pytest.mark.parametrize("df", [31, 50, 100, 200, 400])
def test_the_expansion_beyond_the_table_errs_by_its_fifth_order_term_only(df):
    """Abramowitz and Stegun 26.7.5 taken to four terms errs by the fifth, which falls as 1/df**5:
    scipy's quantile less ours is 0.753 / 31**5, 0.745 / 50**5 ... 0.732 / 400**5. A wrong
    coefficient or operator in the fourth term (``g4``) errs by c / df**4 instead, which grows
    against that bound with df. Kills: the operators of ``g4``, and its coefficients 79, 776, 1482
    and 1920 each one more (945 one more moves the quantile by 8e-9 / 400**4: left alone)."""
    error = t_quantile_975(df) - stats.t.ppf(0.975, df)
    assert -0.76 < error * df**5 < -0.72
    assert math.isfinite(t_quantile_975(df))


def test_successes_within_the_slack_of_a_billion_trials_are_the_edge_interval():
    """Found by the mutation run: successes taken within the 1e-9-a-trial slack past ``trials`` (or
    below 0) made p(1 - p) negative, and from about 1e9 trials it outweighed z^2 / 4n^2: a "math
    domain error". They are now the interval of the edge."""
    n = 2_000_000_000
    assert wilson_interval(n + 1.5, n) == wilson_interval(n, n)
    assert wilson_interval(-1.5, n) == wilson_interval(0, n)
    assert wilson_interval(10**10 + 5, 10**10) == wilson_interval(10**10, 10**10)
    low, high = wilson_interval(n, n)
    assert high == 1.0 and 1 - 1e-8 < low < 1.0
