"""Game records: (env id, config, seed, deals, actions) as JSON, and exact replay.

A record holds every deal of the game as it was dealt, so replaying needs no random generator:
``replay(record)`` rebuilds every engine state (docs/design.md §2).
"""

from __future__ import annotations

import gzip
import io
import json
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .config import LineConfig, MexicanTrainConfig, check_env_options, from_preset, line_from_preset
from .errors import ConfigError, RecordError
from .files import read_at_most, replace_file
from .line import LineState
from .mexican_train import MexicanTrainState

RECORD_FORMAT = "domino_env.record/1"
#: The most bytes :func:`load_record` reads (after decompression): a whole 8-seat double-18 game of
#: random play is about 150 KB; anything this large is not a record (``/dev/zero``).
MAX_RECORD_BYTES = 64 * 2**20
_GZIP_MAGIC = b"\x1f\x8b"
ENV_ONLY_KWARGS = ("episode", "reward", "max_cycles", "max_steps", "render_mode")

#: env id -> (config class, engine state class) of every game a record can hold.
GAMES = {
    "dominoes/mexican_train-v0": (MexicanTrainConfig, MexicanTrainState),
    "dominoes/block-v0": (LineConfig, LineState),
    "dominoes/draw-v0": (LineConfig, LineState),
    "dominoes/cuban-v0": (LineConfig, LineState),
}
#: The line games' env ids each play one preset, their name (a record whose id and preset
#: disagree was edited: which game it is cannot be told).
LINE_PRESET_OF = {"dominoes/block-v0": "block", "dominoes/draw-v0": "draw", "dominoes/cuban-v0": "cuban"}


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
    """Write ``record`` as JSON to ``path`` (standard JSON: no NaN or Infinity; gzip-compressed
    when the name ends in ``.gz``), through a temporary file beside it: an interruption keeps an
    earlier file at ``path`` whole.

    Raises:
        ValueError: ``record`` holds a NaN or infinite float; TypeError: a value JSON cannot hold.
        OSError: ``path`` cannot be written (see :func:`domino_env.core.files.replace_file`).
    """
    data = json.dumps(record, indent=1, allow_nan=False).encode("utf-8")
    if Path(path).suffix.lower() == ".gz":
        data = gzip.compress(data, mtime=0)  # (mtime 0: the same record gives the same bytes)
    replace_file(Path(path), lambda f: f.write(data))


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def load_record(path: str | Path, data: bytes | None = None) -> dict[str, Any]:
    """Read a record written by :func:`save_record` (plain or gzip-compressed JSON, told by its
    content, whatever the file's name); with ``data``, the record is those bytes, already read
    (from a pipe, which cannot be read twice), and ``path`` only names it in messages.

    Raises:
        RecordError: not a record of a known format (also a file that is not UTF-8 JSON, e.g.
            truncated, or one of more than :data:`MAX_RECORD_BYTES`), or a field of the wrong type
            (a ``seed`` not null nor an integer >= 0...; the message names the file and the field).
        OSError: the file cannot be read (FileNotFoundError, ...).
    """
    if data is None:
        data = read_at_most(path, MAX_RECORD_BYTES)
    packed = data.startswith(_GZIP_MAGIC)
    if packed:
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
                data = f.read(MAX_RECORD_BYTES + 1)
        except (OSError, EOFError, zlib.error) as err:  # a truncated or damaged .gz
            raise RecordError(f"record {path} is a damaged gzip file ({err})") from err
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"record {path} holds more than {MAX_RECORD_BYTES // 2**20} MiB: not a game record")
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark (Windows Notepad) is dropped
    except UnicodeDecodeError as err:
        raise RecordError(f"record {path} is not a text (JSON) file") from err
    if not text.strip():  # (the file's own size: a byte-order mark or "\r\n" counts whole)
        raise RecordError(f"record {path} is an empty {'gzip ' if packed else ''}file ({len(data)} byte{'s' * (len(data) != 1)}"
                          f"{' once decompressed' if packed else ''})")
    try:
        record = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as err:
        raise RecordError(f"record {path} is not valid JSON: {err.msg} (line {err.lineno})") from err
    except ValueError as err:  # NaN / Infinity: Python's extension of JSON, which no record holds
        if "integer string conversion" in str(err):  # Python's advice to raise its limit: not for a record
            raise RecordError(f"record {path} holds a number of more than {sys.get_int_max_str_digits():,} digits, "
                              "which no record field takes") from err  # fmt: skip
        raise RecordError(f"record {path} is not valid JSON: {err}") from err
    except RecursionError as err:  # JSON nested deeper than the parser goes: not a record
        raise RecordError(f"record {path} is not a game record (JSON nested too deep)") from err
    try:
        _check(record)
    except RecordError as err:  # name the file in every message
        raise RecordError(naming_file(path, str(err))) from err
    return record


def naming_file(path: str | Path, message: str) -> str:
    """``message`` (of a record's check) with the record's file named in it, once: "record lacks
    'deals'" becomes "record PATH lacks 'deals'", "record field 'seed' ..." "record PATH: field
    'seed' ...", any other message "record PATH: MESSAGE"."""
    if message.startswith("record field "):
        return f"record {path}: {message.removeprefix('record ')}"
    if message.startswith(("record lacks ", "record has ")):  # (the checks' and first_state's words)
        return f"record {path} {message.removeprefix('record ')}"
    return f"record {path}: {message}"


#: The record's fields that replay reads, and their JSON types.
_FIELD_TYPES = {"env_kwargs": dict, "deals": list, "actions": list}


def _check(record: Any) -> None:
    if not isinstance(record, dict):
        kind = "null" if record is None else type(record).__name__
        raise RecordError(f"not a game record of format {RECORD_FORMAT!r} (a JSON {kind}, not an object)")
    if record.get("format") != RECORD_FORMAT:
        found = f"its format is {record['format']!r}" if "format" in record else "it has no 'format' field"
        if "format" not in record and {"stats", "agents", "episodes"} <= set(record):  # a domino-evaluate result
            found += ("; it is a tournament result: give a game record, as domino-play --record or "
                      "env.to_record() writes it")  # fmt: skip
        raise RecordError(f"not a game record of format {RECORD_FORMAT!r} ({found})")
    for key, kind in _FIELD_TYPES.items():
        if key not in record:
            raise RecordError(f"record lacks {key!r}")
        if not isinstance(record[key], kind):
            raise RecordError(f"record field {key!r} must be a JSON {'object' if kind is dict else 'list'}, "
                              f"got {type(record[key]).__name__}")  # fmt: skip
    seed = record.get("seed")  # (absent: null) what env.reset(seed=...) took; a bool is not a seed
    if seed is not None and (type(seed) is not int or seed < 0):
        raise RecordError(f"record field 'seed' must be null or an integer >= 0 (the seed env.reset took), "
                          f"got {seed!r} ({type(seed).__name__})")  # fmt: skip
    _classes_of(record)
    try:  # as raw_env(**env_kwargs) checks them, so that the record rebuilds its env
        check_env_options(**{k: v for k, v in record["env_kwargs"].items() if k in ENV_ONLY_KWARGS})
    except ConfigError as err:
        raise RecordError(f"record field 'env_kwargs': {err}") from err
    max_steps = record["env_kwargs"].get("max_steps")
    if isinstance(max_steps, int) and not isinstance(max_steps, bool) and len(record["actions"]) > max_steps:
        raise RecordError(f"record has {len(record['actions'])} actions; its env_kwargs' max_steps={max_steps} "
                          "ends the episode before")  # fmt: skip
    for k, deal in enumerate(record["deals"]):
        if not isinstance(deal, dict):
            raise RecordError(f"record field 'deals' item {k} must be a JSON object (a deal), got {type(deal).__name__}")


def _classes_of(record: dict[str, Any]) -> tuple[Any, Any]:
    """(config class, state class) of the record's env id, or a RecordError."""
    env_id = record.get("env_id")
    if not isinstance(env_id, str) or env_id not in GAMES:
        raise RecordError(f"unknown env id {env_id!r}; known: {sorted(GAMES)}")
    preset = record["env_kwargs"].get("preset") if isinstance(record.get("env_kwargs"), dict) else None
    if env_id in LINE_PRESET_OF and preset not in (None, LINE_PRESET_OF[env_id]):
        raise RecordError(f"env id {env_id!r} plays preset {LINE_PRESET_OF[env_id]!r}, the record's "
                          f"env_kwargs say {preset!r}")  # fmt: skip
    return GAMES[env_id]


def record_config(record: dict[str, Any]) -> Any:
    """The rules ``raw_env(**record["env_kwargs"])`` plays: the record's preset (the env id's for a
    line game, ``domino_cubano`` for Mexican Train when the record names none) with the recorded
    fields over it, as the config class's ``from_dict`` reads a rules dict (this also drops the
    env-only keys and takes a line game's preset from its env id). Records the envs write list
    every field, so only a trimmed record relies on the preset.

    Raises:
        RecordError: unknown env id, an env id and preset that disagree.
        ConfigError: an unknown or invalid rule field.
    """
    _classes_of(record)
    rules = {k: v for k, v in record["env_kwargs"].items() if k not in ENV_ONLY_KWARGS}
    preset = rules.pop("preset", None)  # None only: raw_env(preset="") is refused, so is the record
    if record["env_id"] in LINE_PRESET_OF:
        return line_from_preset(LINE_PRESET_OF[record["env_id"]] if preset is None else preset, **rules)
    return from_preset("domino_cubano" if preset is None else preset, **rules)


def first_state(record: dict[str, Any]) -> tuple[Any, list[Any]]:
    """The engine state of the record's first deal, and the recorded deals still to come.

    Raises:
        RecordError: a malformed record (fields missing or of the wrong type), unknown env id, a
            record without deals, or invalid rules or first deal (the ``ConfigError`` /
            ``DealError`` message inside).
    """
    _check(record)  # the replay page calls this directly: a KeyError or TypeError otherwise
    _, state_class = _classes_of(record)
    deals = list(record["deals"])
    if not deals:
        raise RecordError("record has no deal")
    try:
        config = record_config(record)
        return state_class.new_game(config, None, deals.pop(0)), deals
    except RecordError:
        raise
    except ValueError as err:  # ConfigError, DealError
        raise RecordError(f"record has invalid rules or an invalid first deal: {err}") from err


def move_name(index: int) -> str:
    """How every message names the record's action at 0-based ``index``: the move number the
    replay page and ``domino-play`` show (1-based) and its place in ``actions``, e.g.
    ``move 4 (actions[3], 0-based)``."""
    return f"move {index + 1} (actions[{index}], 0-based)"


def replay(record: dict[str, Any]) -> Iterator[Any]:
    """Yield the engine state at the start and after every action of a recorded game.

    Each yielded state is an independent copy. Rounds are dealt from the recorded deals; when
    an action ends a round and the episode goes on (``episode="game"``, or an annulled Cuban
    round re-dealt), the state yielded for that action is already the next round's start, as
    in the env.

    Raises:
        RecordError: malformed record, an action that is illegal where the record puts it, or
            actions or deals beyond the end of the record's episode (a round episode goes on only
            after an annulled round). An action is named by ``move_name``: ``move 6 (actions[5],
            0-based)``.
    """
    for state, _ in _replayed(record):
        yield state.copy()


def replay_end(record: dict[str, Any]) -> tuple[Any, bool]:
    """``(state, truncated)``: the engine state after the record's last action, checked as
    :func:`replay` checks it but without a copy per action (a long record's check stays linear in
    time and memory), and whether the env's ``max_cycles`` or ``max_steps`` ended the episode
    there (the env truncated it: nothing can follow).

    Raises:
        RecordError: as :func:`replay`.
    """
    *_, last = _replayed(record)  # each item is the one live state: no copies kept
    return last


def _replayed(record: dict[str, Any]) -> Iterator[tuple[Any, bool]]:
    """The live state (not a copy) at the start and after every action, with whether the env's
    limits truncate the episode after it; :func:`replay`'s checks."""
    state, deals = first_state(record)  # checks the record first
    actions = record["actions"]
    # max_cycles as the env counts it (envs/base.py): a seat may start at most max_cycles turns;
    # the action that would start one more truncates the episode (max_steps: checked by _check)
    max_cycles = record["env_kwargs"].get("max_cycles", 100_000)
    max_steps = record["env_kwargs"].get("max_steps")
    turns = [0] * state.config.num_players
    turns[state.current_player] = 1
    yield state, False
    for k, action in enumerate(actions):
        actor = state.current_player
        try:
            state.apply(action)
        except ValueError as err:
            later = " (or a deal before it is missing or altered)" if len(deals) < len(record["deals"]) - 1 else ""
            raise RecordError(f"{move_name(k)} does not replay: {err}{later}") from err
        finished = state.round_over
        if state.round_over and deals and episode_goes_on(record, state):
            n = len(record["deals"]) - len(deals)  # the 0-based index of this deal in the record
            try:
                state.start_next_round(None, deals.pop(0))  # as the env does, in the same step
            except ValueError as err:  # DealError: a deal removed, reordered or edited
                raise RecordError(f"deals[{n}], the deal after {move_name(k)}, does not fit the game "
                                  f"so far: {err} (a deal missing or altered?)") from err  # fmt: skip
        elif state.round_over and k + 1 < len(actions):
            raise RecordError(f"{move_name(k + 1)} {past_the_end(record, state)} (move {k + 1} ended round {state.round_index + 1})")
        cut = max_steps is not None and k + 1 >= max_steps
        if not state.round_over and (finished or state.current_player != actor):  # a new turn starts
            if turns[state.current_player] >= max_cycles:
                if k + 1 < len(actions):
                    raise RecordError(f"record has {len(actions)} actions; its env_kwargs' max_cycles={max_cycles} "
                                      f"ends the episode after {move_name(k)}")  # fmt: skip
                cut = True
            turns[state.current_player] += 1
        yield state, cut and not state.round_over
    check_no_deals_left(deals)
    if actions and state.round_over and episode_goes_on(record, state):  # the env deals on in the same step
        raise RecordError(f"{move_name(len(actions) - 1)} ended round {state.round_index + 1} and the episode goes "
                          f"on, but the record has no deal for the next round: one is missing")  # fmt: skip


def episode_goes_on(record: dict[str, Any], state: Any) -> bool:
    """Whether the record's episode continues after the round ``state`` just ended, with the next
    deal: a whole-game episode until the game is over, and an annulled Cuban round (re-dealt in
    a round episode too), as the env does."""
    if state.game_over:
        return False
    return record["env_kwargs"].get("episode", "round") == "game" or state.round_result.termination == "annulled"


def past_the_end(record: dict[str, Any], state: Any) -> str:
    """Why an action cannot follow the round ``state`` has just ended when no recorded deal is
    left: the episode is over, or it goes on and the record lacks the next deal."""
    if episode_goes_on(record, state):
        return (f"needs a deal for the round after round {state.round_index + 1}, and the record has only "
                f"{len(record['deals'])} deal(s): one is missing")
    return "comes after the end of the record's episode"


def check_no_deals_left(deals: list[Any]) -> None:
    """A RecordError when deals are left once every action is replayed: a record holds only the
    deals its episode dealt (ended, truncated or stopped part-way), so an extra one was added."""
    if deals:
        raise RecordError(f"{len(deals)} deal(s) beyond the end of the record's episode: its actions never reach "
                          "them (a record cut short must drop the deals of the rounds it no longer plays)")
