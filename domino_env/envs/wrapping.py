"""``env()``: a raw env in PettingZoo's standard wrappers, with the package's own errors for a
non-integer action and for ``last()`` after the episode (docs/envs.md)."""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..core.errors import DominoError, check_action


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` that first refuses a non-integer action (a float,
    bool, string or array) with ``IllegalActionError``, as ``raw_env`` does: the wrappers below
    it would index the action mask with it (``True`` gave numpy's "truth value of an array is
    ambiguous"), and an integer too large for numpy gets the bounds wrapper's ``AssertionError``;
    ``last()`` once every agent is done raises ``DominoError``, as ``raw_env`` (was a KeyError).
    Before ``reset`` its errors are PettingZoo's own."""

    def step(self, action: Any) -> None:
        if action is not None:
            action = check_action(action)
            # Beyond int64 the bounds wrapper's own check overflows in numpy: refuse it as that
            # wrapper refuses every other integer outside the action space.
            assert -(2**63) <= action < 2**63, "action is not in action space"
        super().step(action)

    def last(self, observe: bool = True) -> tuple:
        # AECEnv.last on the wrapper read the rewards of an agent no longer there (KeyError)
        if self._has_reset and not self.agents:
            raise DominoError("the episode is over (every agent is done): call reset()")
        return super().last(observe)


def wrap(raw: AECEnv) -> AECEnv:
    """PettingZoo's standard wrappers: an illegal action ends the episode with -1 for the
    offender (both ``terminations`` and ``truncations`` set for every agent), out-of-bounds
    integer actions assert, call order is enforced; a non-integer action raises
    ``IllegalActionError`` first."""
    e = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return _OrderEnforcing(e)
