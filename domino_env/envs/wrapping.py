"""``env()``: a raw env in PettingZoo's standard wrappers, with the package's own errors for a
non-integer action and for ``last()`` after the episode (docs/envs.md).

Each wrapper reads the per-step attributes (``agent_selection``, ``agents``, ``rewards``,
``terminations``, ``truncations``, ``infos``, ``_cumulative_rewards``) straight from the raw env:
PettingZoo's ``BaseWrapper.__getattr__`` forwards them one wrapper at a time, about 24 calls a
step through three wrappers, which made ``env()`` about 2.5 times slower than ``raw_env``
(benchmarks/throughput.py). The raw env holds these attributes, so the values are the same; a
value a user sets on a wrapper stays on that wrapper, as with PettingZoo's own."""

from __future__ import annotations

import sys
from typing import Any

import gymnasium
import pettingzoo
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..core.errors import DominoError, check_action

#: The top-level packages whose frames :func:`caller_stacklevel` skips: this package's envs and
#: adapters (also ``domino_env.agents``, the RLlib env), and the PettingZoo and Gymnasium wrappers
#: around them. By module name, not folder: an editable install maps ``domino_env.agents`` and
#: ``domino_env.train`` to folders beside ``domino_env/``, and the RLlib env's warning named its
#: own ``reset`` line (agents/rllib/env.py) where an installed package named the caller's.
_LIBRARIES = frozenset({__name__.split(".")[0], pettingzoo.__name__, gymnasium.__name__})


def caller_stacklevel() -> int:
    """The ``stacklevel`` for a warning issued by the function that calls this one, so that it
    names the user's line: the first frame outside the package and the PettingZoo / Gymnasium
    wrappers (``env()``, ``pettingzoo.make``, the parallel view, the single-agent adapter,
    ``gymnasium.make``), not a wrapper's ``reset``, which Python's default filter would then
    report once for every caller together."""
    frame = sys._getframe(2)  # (0: this function, 1: the warning's issuer, 2: its caller)
    level = 2
    while frame.f_back is not None and str(frame.f_globals.get("__name__")).split(".")[0] in _LIBRARIES:
        frame = frame.f_back
        level += 1
    return level


#: Attributes read on every step, which the raw env holds (and the wrappers only forward).
LIVE_ATTRIBUTES = (
    "agent_selection", "agents", "rewards", "terminations", "truncations", "infos",
    "_cumulative_rewards",
)  # fmt: skip


def _live(name: str) -> property:
    def get(self: Any) -> Any:
        shadow = self.__dict__.get(name, _NONE)  # a value set on this wrapper, as PettingZoo keeps it
        return getattr(self._raw, name) if shadow is _NONE else shadow

    def set_(self: Any, value: Any) -> None:
        # PettingZoo < 1.24's BaseWrapper copies these from the env below after each call: that
        # value is the raw env's own object, read live already. Any other value stays on this
        # wrapper (it shadows the raw env's), as with PettingZoo's own wrappers.
        if value is not getattr(self._raw, name, _NONE):
            self.__dict__[name] = value
        else:
            self.__dict__.pop(name, None)

    def delete(self: Any) -> None:
        if self.__dict__.pop(name, _NONE) is _NONE:
            raise AttributeError(name)

    return property(get, set_, delete, doc=f"The raw env's ``{name}``.")


_NONE = object()


class _Live:
    """Mixin: the :data:`LIVE_ATTRIBUTES` of the raw env, read directly. ``_raw`` is set before
    the wrapper's own ``__init__``, which on PettingZoo < 1.24 already assigns some of them."""

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        self._raw = env.unwrapped
        super().__init__(env, *args, **kwargs)  # type: ignore[call-arg]

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_raw" not in state:  # pickled by a release whose wrappers had no _raw
            self._raw = self.env.unwrapped


for _name in LIVE_ATTRIBUTES:
    setattr(_Live, _name, _live(_name))


class _TerminateIllegal(_Live, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper``. Its 1.24.3 release ends the episode in the raw
    env's dicts but calls ``_deads_step_first`` / ``_was_dead_step`` on the wrapper, which kept
    the next dead agent's selection on the wrapper, unseen by the wrappers above (they read the
    raw env): a ``KeyError`` on the next step. Where the episode's state is the raw env's (1.24.3
    on), these helpers act on the raw env, as 1.25 on calls them; before 1.24.3 the wrapper sets
    its own copies (``terminations`` on the wrapper) and they act on those, as PettingZoo's."""

    def _holds_episode(self) -> bool:
        return "terminations" in self.__dict__  # (PettingZoo < 1.24.3 set its own dicts)

    def _deads_step_first(self) -> Any:
        return super()._deads_step_first() if self._holds_episode() else self._raw._deads_step_first()

    def _was_dead_step(self, action: Any) -> None:
        if self._holds_episode():
            super()._was_dead_step(action)
        else:
            self._raw._was_dead_step(action)


class _AssertOutOfBounds(_Live, wrappers.AssertOutOfBoundsWrapper):
    pass


class _OrderEnforcing(_Live, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` that first refuses a non-integer action (a float,
    bool, string or array) with ``IllegalActionError``, as ``raw_env`` does: the wrappers below
    it would index the action mask with it (``True`` gave numpy's "truth value of an array is
    ambiguous"), and an integer too large for numpy gets the bounds wrapper's ``AssertionError``;
    ``last()`` once every agent is done raises ``DominoError``, as ``raw_env`` (was a KeyError).
    Before ``reset`` its errors are PettingZoo's own."""

    def step(self, action: Any) -> None:
        if action is None and self._has_reset and self.agents:
            agent = self.agent_selection  # (this wrapper's view: PettingZoo < 1.24 keeps copies)
            done = self.terminations.get(agent) or self.truncations.get(agent)
            # the bounds wrapper's assertion, saying why (None is the action of a done agent only)
            assert done, f"action None is not in action space: {agent} is to act (None is for a done agent)"
        if action is not None:
            action = check_action(action)
            # The bounds wrapper's own assertion, with the space's range (its message has none;
            # beyond int64 its check overflowed in numpy). Before reset: PettingZoo's own error.
            if self._has_reset and self.agents:  # (after the episode: PettingZoo's warning)
                n = self._raw._action_space.n  # one space for every agent
                assert 0 <= action < n, f"action {action} is not in action space: 0 to {n - 1}"
        super().step(action)

    def last(self, observe: bool = True) -> tuple:
        # AECEnv.last on the wrapper read the rewards of an agent no longer there (KeyError)
        if self._has_reset and not self.agents:
            raise DominoError("the episode is over (every agent is done): call reset()")
        return super().last(observe)


def _checked(name: str) -> property:
    live = _live(name)

    def get(self: Any) -> Any:
        # OrderEnforcingWrapper's rule, which its __getattr__ holds (a value set on it is found first)
        if not self._has_reset and name not in self.__dict__:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return live.fget(self)

    return property(get, live.fset, live.fdel, doc=live.__doc__)


for _name in LIVE_ATTRIBUTES[:-1]:
    setattr(_OrderEnforcing, _name, _checked(_name))


def wrap(raw: AECEnv) -> AECEnv:
    """PettingZoo's standard wrappers: an illegal action ends the episode with -1 for the
    offender (both ``terminations`` and ``truncations`` set for every agent), out-of-bounds
    integer actions assert, call order is enforced; a non-integer action raises
    ``IllegalActionError`` first."""
    e = _TerminateIllegal(raw, illegal_reward=-1)
    e = _AssertOutOfBounds(e)
    return _OrderEnforcing(e)
