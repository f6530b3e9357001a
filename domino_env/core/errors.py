"""Typed errors raised by the rules engines and environments.

Every error is a ``ValueError`` subclass so callers that only know the standard library can still
catch it; the message always says what was wrong and what is allowed.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

#: What an action argument takes (:func:`check_action`): a Python or numpy integer, or a 0-d integer
#: array (Stable-Baselines3's ``model.predict``); an array of another shape is refused when called.
ActionLike: TypeAlias = int | np.integer[Any] | npt.NDArray[np.integer[Any]]


class DominoError(ValueError):
    """Base class of every error raised by ``domino_env``."""


class ConfigError(DominoError):
    """An invalid rules configuration or argument: names the field, the value given and what is
    allowed. The message says "config field" for a field of the rules configurations
    (``MexicanTrainConfig``, ``LineConfig``) and "argument" for anything else (an env keyword
    such as ``episode``, an agent's ``rng``, ``evaluate``'s ``workers``)."""

    def __init__(self, field: str, value: object, allowed: str):
        self.field = field
        self.value = value
        self.allowed = allowed
        kind = "config field" if field in _config_fields() else "argument"
        super().__init__(f"invalid {kind} {field!r}: got {value!r}; allowed: {allowed}")

    def __reduce__(self):  # pickled back from worker processes with its own arguments
        return type(self), (self.field, self.value, self.allowed)


_CONFIG_FIELDS: frozenset[str] = frozenset()


def _config_fields() -> frozenset[str]:
    """The field names of both rules configurations (read once; config imports this module)."""
    global _CONFIG_FIELDS
    if not _CONFIG_FIELDS:
        from dataclasses import fields

        from .config import LineConfig, MexicanTrainConfig

        _CONFIG_FIELDS = frozenset(f.name for cls in (MexicanTrainConfig, LineConfig) for f in fields(cls))
    return _CONFIG_FIELDS


class AgentSpecError(ConfigError):
    """An agent name or spec that the registry cannot build (an unknown name, a bad ``:argument``,
    an unknown ``search:`` key...): ``field`` is ``"agent"``, ``value`` the spec as given."""

    def __init__(self, spec: object, allowed: str):
        DominoError.__init__(self, f"invalid agent {spec!r}; allowed: {allowed}")
        self.field, self.value, self.allowed = "agent", spec, allowed

    def __reduce__(self):
        return type(self), (self.value, self.allowed)


class DealError(DominoError):
    """An invalid ``options={"deal": ...}`` (duplicates, tiles outside the set, bad station...)."""


class IllegalActionError(DominoError):
    """An action that is not legal in the current state. The state is left unchanged."""


class RecordError(DominoError):
    """A game record that cannot be read or does not replay."""


class CheckpointError(DominoError):
    """A trained model (``model.zip`` and its ``metadata.json``) that cannot be used: empty,
    truncated, not a zip archive, corrupt, or with missing or garbled metadata. The message names
    the file and what is wrong."""


class CheckpointNotFoundError(CheckpointError, FileNotFoundError):
    """A model or its ``metadata.json`` that does not exist (also a ``FileNotFoundError``)."""


def check_action(action: object) -> int:
    """``action`` as a plain int: Python and numpy integers, and 0-d integer numpy arrays (what
    Stable-Baselines3's ``model.predict`` returns for one observation); a float, string, bool or
    array of another shape is refused rather than silently rounded.

    Raises:
        IllegalActionError: ``action`` is not an integer.
    """
    if type(action) is int:  # the hot path: skip the abstract-base-class check
        return action
    if getattr(action, "shape", None) == () and getattr(action, "dtype", None) is not None:
        if action.dtype.kind in "iu":  # a 0-d integer array: its one value
            return int(action)
    if isinstance(action, bool) or not isinstance(action, numbers.Integral):
        raise IllegalActionError(f"an action must be an integer, got {action!r} ({type(action).__name__})")
    return int(action)


def done_agent_action(agent: str, terminated: bool, action: object) -> IllegalActionError:
    """The error for an action given to a done agent, which PettingZoo steps with ``None``
    (PettingZoo's own check raises a plain ``ValueError`` naming no agent)."""
    done = "terminated" if terminated else "truncated"
    return IllegalActionError(f"{agent} is done ({done}): step(None) for it, not {action!r}")


def as_int(value: object) -> int | None:
    """``value`` as a plain int when it is an integer: a Python or numpy integer, or a 0-d integer
    numpy array (as :func:`check_action` takes them: Stable-Baselines3's ``predict`` returns one);
    None for anything else (a bool, float, string, None, an array of another shape)."""
    if type(value) is int:  # the usual case: no abstract-base-class check
        return value
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    if getattr(value, "shape", None) == () and getattr(getattr(value, "dtype", None), "kind", None) in ("i", "u"):
        return int(value)
    return None


def as_flag(value: object) -> bool | None:
    """``value`` as a bool when it is a yes/no flag: True or False (Python or numpy), or the
    integer 0 or 1 (:func:`as_int`); None for anything else ("no", 2, None: ``bool("no")`` is
    True, which is why flags are not read with ``bool()``)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    number = as_int(value)
    return bool(number) if number in (0, 1) else None


def check_index(value: object, count: int, name: str, note: str = "") -> int:
    """``value`` as a plain int when it is an integer from 0 to ``count - 1`` (:func:`as_int`:
    Python or numpy, or a 0-d integer array; not a bool): the seat and train arguments of the
    engines' read-only views. ``note`` (a constant) says what the numbers mean. One range
    comparison on the usual path.

    Raises:
        DominoError: anything else, naming ``name`` and the valid range (``-1`` read the last
            seat's hand, and a seat past the end was an IndexError).
    """
    if type(value) is int and 0 <= value < count:
        return value
    number = as_int(value)
    if number is not None and 0 <= number < count:
        return number
    raise DominoError(f"{name} must be an integer 0..{count - 1}{note}, got {value!r}")


def check_seed(seed: object) -> int | None:
    """``seed`` as ``None`` or a plain int: Python and numpy integers from 0 up (what
    ``numpy.random.SeedSequence`` takes); anything else is refused before it reaches gymnasium.

    Raises:
        ConfigError: ``seed`` is not None nor an integer >= 0 (a bool, float, string or negative).
    """
    if seed is None or type(seed) is int and seed >= 0:
        return seed
    number = as_int(seed)
    if number is None or number < 0:
        raise ConfigError("seed", seed, "None or an integer >= 0 (Python or numpy)")
    return number


def check_optional_rng(rng: object) -> np.random.Generator | None:
    """``rng`` itself when it is None (the engines then deal only from an explicit deal: a replay)
    or a ``numpy.random.Generator``.

    Raises:
        ConfigError: anything else (a seed, a ``RandomState``), which failed deep inside the
            engine with an AttributeError.
    """
    return None if rng is None else check_rng(rng)


def is_finite_number(value: object) -> bool:
    """A real number (Python, numpy, fractions) that is finite as a float; not a bool (reward
    options: ``illegal_reward``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        return False
    try:
        return math.isfinite(float(value))
    except (OverflowError, TypeError, ValueError):  # 10**400 has no float
        return False


def check_rng(rng: object) -> np.random.Generator:
    """``rng`` itself when it is a ``numpy.random.Generator`` (the agent protocol's random source).

    Raises:
        ConfigError: anything else (None, a seed, a ``RandomState``), which failed deep inside
            with an AttributeError.
    """
    if not isinstance(rng, np.random.Generator):
        raise ConfigError("rng", rng, "a numpy.random.Generator, e.g. np.random.default_rng(seed)")
    return rng
