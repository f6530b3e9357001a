"""argparse value types of the training command lines (``domino-train``, ``domino-bc``,
``domino-rllib``) and the benchmarks: each refuses a bad value with a message naming the allowed
range (argparse adds the flag), before any work starts.
"""

from __future__ import annotations

import argparse
import math
import os
import re
from collections.abc import Callable
from decimal import Decimal, DecimalException, Inexact, Rounded, localcontext
from itertools import pairwise

#: Suffixes a count may carry (``--timesteps 200k``, ``2M``): powers of ten only, so a value is exact.
COUNT_SUFFIXES = {"k": 10**3, "K": 10**3, "M": 10**6}

_DIGITS = r"[0-9]+(?:_[0-9]+)*"  # ASCII digits, a single _ only between two of them (100_000)
#: The spellings of a count: an optional sign, digits, a fraction, an exponent, a suffix, spaces
#: around. ``Decimal`` alone also took ``3_``, ``_3``, ``1__0`` and other scripts' digits (``٣``).
_COUNT = re.compile(rf"\s*[+-]?(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?[kKM]?\s*", re.ASCII)


def parse_count(text: str) -> int:
    """An integer as people write step counts: ``100000``, ``100_000``, ``1e5``, ``2.5e5``, ``100k``
    or ``2M`` (``k`` / ``K`` = 1,000, ``M`` = 1,000,000). Raises ``ValueError`` for anything that is
    not exactly an integer (``1.5``, ``2.5k5``, ``nan``), and for other spellings: digits other
    than ASCII ones (``٣``), ``_`` other than between two digits (``3_``, ``1__0``), ``0x3``."""
    if not _COUNT.fullmatch(text):
        raise ValueError(text)
    try:
        return int(text)
    except ValueError:
        pass
    body = text.strip()
    scale = COUNT_SUFFIXES.get(body[-1:], 1)
    with localcontext() as exact:  # any rounding (the default keeps 28 digits) is an error, not a value
        exact.prec = 200
        exact.traps[Inexact] = exact.traps[Rounded] = True
        try:
            value = Decimal(body[:-1] if scale != 1 else body) * scale
            # A large exponent would build a huge int: no count here has 100 digits.
            if not value.is_finite() or value.adjusted() >= 100 or value != value.to_integral_value():
                raise ValueError(text)
        except DecimalException:  # not a number, too many digits, an exponent beyond the context's
            raise ValueError(text) from None
    return int(value)


def count(text: str) -> int:
    """argparse type: an integer, as :func:`parse_count` reads it (a range is checked later)."""
    try:
        return parse_count(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer (such as 4000, 4e3 or 4k), got {text!r}") from None


count.__name__ = "int"  # argparse names the type in its messages


def int_at_least(low: int, high: int | None = None, why: str = "") -> Callable[[str], int]:
    """argparse type: an integer >= ``low`` (and <= ``high``, when given; ``why`` says where the
    bound comes from, e.g. ``" (4 x the CPUs)"``), written as :func:`parse_count` reads it
    (``100000``, ``1e5``, ``100k``)."""

    def parse(text: str) -> int:
        value = count(text)
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:,} to {high:,}{why}, got {value}")
        if value < low:
            what = "a positive integer" if low == 1 else f"an integer >= {low}"
            raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
        return value

    parse.__name__ = "int"  # argparse names the type in its messages
    return parse


def real(low: float | None = None, high: float | None = None, low_open: bool = False,
         high_open: bool = False) -> Callable[[str], float]:  # fmt: skip
    """argparse type: a finite float in the interval given (``None``: unbounded on that side)."""
    left = "(" if low_open or low is None else "["
    right = ")" if high_open or high is None else "]"
    interval = f"{left}{'-inf' if low is None else low}, {'inf' if high is None else high}{right}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        ok = math.isfinite(value)
        if low is not None:
            ok = ok and (value > low if low_open else value >= low)
        if high is not None:
            ok = ok and (value < high if high_open else value <= high)
        if not ok:
            raise argparse.ArgumentTypeError(f"must be a number in {interval}, got {text}")
        return value

    parse.__name__ = "float"
    return parse


#: Unit suffixes a wall time may carry (``--time-limit``), and their length in seconds.
DURATION_UNITS = {"s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}


def duration(unit: str, bare: bool = True) -> Callable[[str], float]:
    """argparse type: a finite wall time > 0 written with a unit (``90s``, ``15m`` / ``15min``,
    ``1.5h``), returned in ``unit`` (``"min"`` or ``"s"``). A bare number is in ``unit`` when
    ``bare``; otherwise it is refused (a command whose bare number once meant another unit)."""

    def parse(text: str) -> float:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-z]*)\s*", text)
        if m is None or (m.group(2) and m.group(2) not in DURATION_UNITS):
            raise argparse.ArgumentTypeError(f"expected a wall time such as 90s, 15m or 1.5h, got {text!r}")
        if not m.group(2) and not bare:
            raise argparse.ArgumentTypeError(f"give a unit: {text}s, {text}m or {text}h (a bare number is ambiguous here)")
        value = float(m.group(1)) * DURATION_UNITS[m.group(2) or unit] / DURATION_UNITS[unit]
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"must be a finite wall time > 0, got {text}")
        return value

    parse.__name__ = "duration"
    return parse


POSITIVE = int_at_least(1)
NON_NEGATIVE = int_at_least(0)
#: The largest --seed: numpy and torch take seeds below 2**32 (a larger one was a traceback), and
#: ``SeedSequence([seed, n])`` splits a larger one into 32-bit words, so that tournament seed 2**32's
#: deal 0 was seed 0's deal 1 (:func:`~domino_env.train.tournament_checks.checked_seed`).
MAX_SEED = 2**32 - 1
SEED = int_at_least(0, MAX_SEED, " (2**32 - 1)")
#: Processes and threads: more than 4 per CPU only wait for each other (a huge count crashed).
MOST_PER_CPU = 4 * (os.cpu_count() or 1)
PER_CPU = int_at_least(1, MOST_PER_CPU, " (4 x the CPUs)")
#: Largest rollout, --n-steps x envs samples (more filled the memory before training started).
MAX_ROLLOUT = 2**20
#: Most parameters of a command's networks (400 MB of float32 weights; training holds several copies:
#: gradients, Adam's moments, RLlib's env runners). --net-arch 60000 60000 was torch's allocation traceback.
MAX_PARAMETERS = 100_000_000


def mlp_parameters(sizes: list[int]) -> int:
    """Weights and biases of a chain of linear layers of these sizes (input first)."""
    return sum(a * b + b for a, b in pairwise(sizes))


#: Rounds of one tournament (--rounds, --eval-rounds, --final-eval-rounds): every deal's record is
#: kept in memory (a huge count filled the memory before the first deal was played).
MAX_ROUNDS = 10_000_000
ROUNDS = int_at_least(1, MAX_ROUNDS)
