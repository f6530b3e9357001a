"""Unpickling engine states pickled before ``round_history()`` existed (2026-12-05): they lack
``actors`` (and Mexican Train states ``round_start``), which every later ``copy()``, ``apply()``
and ``round_history()`` reads. The seats are rebuilt by replaying the state's own deals and
actions on a fresh engine, as a record replays."""

from __future__ import annotations

from typing import Any

#: the fields added with ``round_history()``, rebuilt by :func:`restore_history`
HISTORY_FIELDS = ("actors", "round_start")


def set_slots(state: Any, pickled: Any) -> None:
    """Restore ``state`` from the default pickle state of a slotted object (a ``(dict, slots)``
    pair or a dict), then :func:`restore_history` if it was pickled without the history fields."""
    parts = pickled if isinstance(pickled, tuple) else (pickled, None)
    for part in parts:
        for name, value in (part or {}).items():
            object.__setattr__(state, name, value)
    if any(not hasattr(state, name) for name in HISTORY_FIELDS):
        restore_history(state)


def restore_history(state: Any) -> None:
    """Rebuild ``actors`` (the seat of each action) and ``round_start`` of ``state`` by replaying
    its deals and actions from the first deal."""
    deals = list(state.deals)
    fresh = type(state).new_game(state.config, None, deals.pop(0))
    actors = []
    for action in state.actions:
        if fresh.round_over and deals:  # the round after this one was dealt (or re-dealt)
            fresh.start_next_round(None, deals.pop(0))
        actors.append(fresh.current_player)
        fresh.apply(action)
    if fresh.round_over and deals:
        fresh.start_next_round(None, deals.pop(0))
    state.actors, state.round_start = actors, fresh.round_start
