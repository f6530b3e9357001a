"""Game records: (env id, config, seed, deals, actions) as JSON, and exact replay.

A record holds every deal of the game as it was dealt, so replaying needs no random generator:
``replay(record)`` rebuilds every engine state (docs/design.md §2).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .config import LineConfig, MexicanTrainConfig
from .errors import RecordError
from .line import LineState
from .mexican_train import MexicanTrainState

RECORD_FORMAT = "domino_env.record/1"
ENV_ONLY_KWARGS = ("episode", "reward", "max_cycles", "max_steps", "render_mode")

#: env id -> (config class, engine state class) of every game a record can hold.
GAMES = {
    "dominoes/mexican_train-v0": (MexicanTrainConfig, MexicanTrainState),
    "dominoes/block-v0": (LineConfig, LineState),
    "dominoes/draw-v0": (LineConfig, LineState),
    "dominoes/cuban-v0": (LineConfig, LineState),
}


def make_record(env_id: str, env_kwargs: dict[str, Any], seed: int | None, state: Any) -> dict[str, Any]:
    """JSON-ready record of the game held by ``state`` (deals and actions so far)."""
    return {
        "format": RECORD_FORMAT,
        "env_id": env_id,
        "env_kwargs": dict(env_kwargs),
        "seed": seed,
        "deals": [dict(d) for d in state.deals],
        "actions": list(state.actions),
    }


def save_record(record: dict[str, Any], path: str | Path) -> None:
    """Write ``record`` as JSON to ``path``."""
    Path(path).write_text(json.dumps(record, indent=1))


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record written by :func:`save_record`.

    Raises:
        RecordError: not a record of a known format (also a file that is not UTF-8 JSON, e.g.
            truncated; the message names the file).
        OSError: the file cannot be read (FileNotFoundError, ...).
    """
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise RecordError(f"record {path} is not valid JSON: {err.msg} (line {err.lineno})") from err
    except UnicodeDecodeError as err:
        raise RecordError(f"record {path} is not a text (JSON) file") from err
    except RecursionError as err:  # JSON nested deeper than the parser goes: not a record
        raise RecordError(f"record {path} is not a game record (JSON nested too deep)") from err
    try:
        _check(record)
    except RecordError as err:  # name the file in every message
        raise RecordError(f"record {path}: {err}") from err
    return record


#: The record's fields that replay reads, and their JSON types.
_FIELD_TYPES = {"env_kwargs": dict, "deals": list, "actions": list}


def _check(record: Any) -> None:
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise RecordError(f"not a game record of format {RECORD_FORMAT!r}")
    for key, kind in _FIELD_TYPES.items():
        if key not in record:
            raise RecordError(f"record lacks {key!r}")
        if not isinstance(record[key], kind):
            raise RecordError(f"record field {key!r} must be a JSON {'object' if kind is dict else 'list'}, "
                              f"got {type(record[key]).__name__}")  # fmt: skip
    _classes_of(record)
    for k, deal in enumerate(record["deals"]):
        if not isinstance(deal, dict):
            raise RecordError(f"record field 'deals' item {k} must be a JSON object (a deal), got {type(deal).__name__}")


def _classes_of(record: dict[str, Any]) -> tuple[Any, Any]:
    """(config class, state class) of the record's env id, or a RecordError."""
    env_id = record.get("env_id")
    if not isinstance(env_id, str) or env_id not in GAMES:
        raise RecordError(f"unknown env id {env_id!r}; known: {sorted(GAMES)}")
    return GAMES[env_id]


def first_state(record: dict[str, Any]) -> tuple[Any, list[Any]]:
    """The engine state of the record's first deal, and the recorded deals still to come.

    Raises:
        RecordError: unknown env id, or a record without deals.
        ValueError: the first deal or the rules are invalid (``DealError`` / ``ConfigError``).
    """
    config_class, state_class = _classes_of(record)
    rules = {k: v for k, v in record["env_kwargs"].items() if k not in ENV_ONLY_KWARGS}
    config = config_class.from_dict(rules)
    deals = list(record["deals"])
    if not deals:
        raise RecordError("record has no deal")
    return state_class.new_game(config, None, deals.pop(0)), deals


def replay(record: dict[str, Any]) -> Iterator[Any]:
    """Yield the engine state at the start and after every action of a recorded game.

    Each yielded state is an independent copy. Rounds are dealt from the recorded deals; when
    an action ends a round and the record holds a next deal, the state yielded for that action
    is already the next round's start (as in a ``episode="game"`` env).

    Raises:
        RecordError: malformed record, or an action that is illegal where the record puts it.
    """
    _check(record)
    state, deals = first_state(record)
    yield state.copy()
    for k, action in enumerate(record["actions"]):
        try:
            state.apply(action)
        except ValueError as err:
            raise RecordError(f"action {k} does not replay: {err}") from err
        if state.round_over and deals and not state.game_over:
            state.start_next_round(None, deals.pop(0))  # as the env does, in the same step
        yield state.copy()
