"""95% confidence intervals of the evaluation tables: Wilson score intervals of win rates and t
intervals of per-deal means (how they are used: the docstring of ``domino_env.train.evaluate``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from domino_env.core.errors import ConfigError, as_int

Z95 = 1.959963984540054
#: t(0.975, df) for df = 1..30, to 6 decimals (beyond: :func:`t_quantile_975`'s expansion).
_T975 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912,
    2.364624, 2.306004, 2.262157, 2.228139, 2.200985, 2.178813,
    2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922,
    2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
    2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
)  # fmt: skip


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional).

    Returns ``(0.0, 1.0)`` for zero trials.

    Raises:
        ConfigError: ``trials`` is not a whole number >= 0 (an integer, a whole float such as
            10.0, or a 0-d array of one), or ``successes`` not a number from 0 to
            ``trials`` (``wilson_interval(5, 3)`` was a "math domain error"); sums of shared-win
            credits a rounding error past ``trials`` are taken.
    """
    count = _whole(trials)
    if count is None or count < 0:
        raise ConfigError("trials", trials, "a whole number >= 0")
    trials = count
    successes = successes.item() if getattr(successes, "shape", None) == () else successes  # a 0-d array
    slack = 1e-9 * max(1, trials)  # credits of 1/k summed in float
    if not _is_real(successes) or not -slack <= successes <= trials + slack:
        raise ConfigError("successes", successes, f"a number from 0 to trials ({trials})")
    if trials == 0:
        return (0.0, 1.0)
    p = min(1.0, max(0.0, successes / trials))  # (within the slack past 0 or trials: p(1 - p) < 0 broke sqrt at 1e9 trials)
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    # at p = 0 or 1 one bound is exactly 0 or 1 (floating point left it 1e-16 inside: a
    # point estimate of 1.0 above its own interval's upper bound)
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return (low, high)


def t_quantile_975(df: int) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom: ``t(0.975, df)``.

    ``df`` 1..30 read a table (6 decimals); beyond, the Cornish-Fisher expansion of t around the
    normal quantile (Abramowitz and Stegun 26.7.5, four terms), within 1e-7 of the exact quantile
    from df 31 on (tests/train/test_evaluate.py checks both against scipy). ``inf`` for
    ``df < 1``. Computed here so that the core needs no scipy. (Before 2026-12-03 the table had 3
    decimals and df above 30 used the normal quantile 1.96: intervals up to 3.9% too narrow.)

    Raises:
        ConfigError: ``df`` is not a whole number (2.5 was a TypeError).
    """
    if (whole := _whole(df)) is None:
        raise ConfigError("df", df, "a whole number (degrees of freedom; below 1 gives inf)")
    df = whole
    if df < 1:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    z, n = Z95, float(df)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / n + g2 / n**2 + g3 / n**3 + g4 / n**4


_REAL = "finite real numbers in every entry (not bools, complex numbers, strings, None, NaN or infinities)"


def mean_interval(values: Iterable[float]) -> tuple[float, float]:
    """95% interval of the mean of ``values`` (t interval; ``(-inf, inf)`` for fewer than 2).

    Args:
        values: finite real numbers: a list, tuple, 1-d numpy array or any other iterable of them
            (a pandas Series, ``dict.values()``).

    Raises:
        ConfigError: ``values`` is not an iterable of finite real numbers (None was a TypeError;
            a bool, complex, NaN or infinite entry is named alone) or not one-dimensional.
    """
    if values is None or isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise ConfigError("values", values, "an iterable of numbers (a list, tuple or 1-d array)")
    arr = np.asarray(values if isinstance(values, (np.ndarray, Sequence)) or hasattr(values, "__array__")
                     else list(values))  # fmt: skip
    if arr.ndim != 1:
        raise ConfigError("values", f"<{arr.ndim}-d, shape {arr.shape}>", "a one-dimensional sequence of numbers")
    if arr.dtype.kind not in "iuf":  # bools, complex numbers, strings; object: Fraction, Decimal, None, mixed
        floats = []
        for v in arr.tolist():  # named alone: lists can be long
            real = v.item() if getattr(v, "shape", None) == () else v  # 0-d arrays in an object array
            if isinstance(real, (bool, np.bool_, complex, np.complexfloating, str, bytes)) or real is None:
                raise ConfigError("values", v, _REAL)
            try:
                floats.append(float(real))
            except (TypeError, ValueError):
                raise ConfigError("values", v, _REAL) from None
        arr = np.asarray(floats)
    elif isinstance(values, (list, tuple)) and any(isinstance(v, (bool, np.bool_)) for v in values):
        raise ConfigError("values", next(v for v in values if isinstance(v, (bool, np.bool_))), _REAL)
    arr = arr.astype(float, copy=False)
    if not np.isfinite(arr).all():
        raise ConfigError("values", float(arr[~np.isfinite(arr)][0]), _REAL)
    n = len(arr)
    if n < 2:
        return (-math.inf, math.inf)
    half = t_quantile_975(n - 1) * float(arr.std(ddof=1)) / math.sqrt(n)
    m = float(arr.mean())
    return (m - half, m + half)


def _is_real(value: object) -> bool:
    """A real number (Python or numpy), not a bool."""
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (numbers.Real, np.number))


def _whole(value: object) -> int | None:
    """``value`` as an int when it is a whole number: an integer (Python or numpy, or a 0-d array
    of one; :func:`~domino_env.core.errors.as_int`) or a finite float with no fraction (10.0, as
    counts often arrive); None otherwise (bools, 2.5, NaN, strings, None)."""
    number = as_int(value)
    if number is None and _is_real(value) and math.isfinite(value) and float(value).is_integer():
        number = int(value)
    elif number is None and getattr(value, "shape", None) == () and getattr(value, "dtype", None) is not None:
        item = value.item()
        number = _whole(item) if not isinstance(item, bool) else None
    return number
