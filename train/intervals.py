"""95% confidence intervals of the evaluation tables: Wilson score intervals of win rates and t
intervals of per-deal means (how they are used: the docstring of ``domino_env.train.evaluate``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054
#: t(0.975, df) for df = 1..30 (beyond: the normal quantile).
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional).

    Returns ``(0.0, 1.0)`` for zero trials.
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def t_quantile_975(df: int) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom (table, then normal)."""
    if df < 1:
        return math.inf
    return _T975[df - 1] if df <= len(_T975) else Z95


def mean_interval(values: Sequence[float]) -> tuple[float, float]:
    """95% interval of the mean of ``values`` (t interval; ``(-inf, inf)`` for fewer than 2)."""
    n = len(values)
    if n < 2:
        return (-math.inf, math.inf)
    arr = np.asarray(values, dtype=float)
    half = t_quantile_975(n - 1) * float(arr.std(ddof=1)) / math.sqrt(n)
    m = float(arr.mean())
    return (m - half, m + half)
