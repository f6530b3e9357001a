"""Turn a game record into one self-contained HTML page that replays it move by move.

Run: ``domino-replay-html RECORD.json -o replay.html`` (console script
``domino-replay-html``). The page has no external resource (inline CSS, JavaScript and SVG: it
works offline, opened straight from the disk) and steps through the game with buttons, a slider
and the keys (left / right arrow: one move, Home / End, Page Up / Page Down: one round, space:
play / pause). It shows the table, every hand face up (it is a replay), the move just made in
words, the hand sizes, the scores and each round's result.

Every state the page shows is computed here by replaying the record through the rules engine and
embedded as JSON, so the page draws exactly what the engine had; the JavaScript only draws.
A record is what ``env.to_record()`` returns (``domino-play`` writes one; a ``"seats"``
list of player names, when present, labels the seats).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import html
import io
import json
import os
import re
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from domino_env.core.errors import RecordError
from domino_env.core.files import replace_text
from domino_env.core.line import LineState
from domino_env.core.mexican_train import MexicanTrainState
from domino_env.core.records import (
    MAX_RECORD_BYTES,
    episode_goes_on,
    first_state,
    load_record,
    naming_file,
    record_config,
    replay_end,
)
from domino_env.render import phase_text, seats_knocked_out
from domino_env.render_image import PIP_COLOURS, pip_layout
from domino_env.train.cli import ArgumentParser, OutputError, not_a_folder, unwritable, write_stdout

from .replay_page import PAGE

#: Bidi controls removed from seat names, which are then isolates (FSI .. PDI): a right-to-left
#: override in a name reversed the move text after it (the page's seatName() does the same).
_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

def _common(state: Any) -> dict[str, Any]:
    p = state.num_players
    frame: dict[str, Any] = {
        "round": state.round_index,
        "to_play": None if state.round_over else state.current_player,
        "boneyard": state.boneyard_size,
        "hands": [[list(t) for t in state.hand_tiles(s)] for s in range(p)],
        "hand_sizes": [state.hand_size(s) for s in range(p)],
        "scores": list(state.scores),
        "result": None,
        "game_over": bool(state.game_over),
        "game_winners": list(state.game_winners),
    }
    if state.round_over:
        r = state.round_result
        frame["result"] = {
            "termination": r.termination,
            "winners": list(r.winners),
            "pips": list(r.pips),
            "points": list(r.points),
        }
    return frame


def mexican_train_frame(state: MexicanTrainState) -> dict[str, Any]:
    """What the page shows of a Mexican Train state (JSON-ready)."""
    frame = _common(state)
    p = state.num_players
    own = [] if state.round_over else state.own_doubles_to_cover()
    trains = []
    for train in range(p + (1 if state.config.use_mexican_train else 0)):
        trains.append(
            {
                "owner": None if train == p else train,
                "tiles": [list(t) for t in state.train_tiles(train)],
                "end": state.open_end(train),
                "marker": train < p and state.has_marker(train),
                "open_rank": state.open_doubles.index(train) + 1 if train in state.open_doubles else 0,
                "cover": train in own,
            }
        )
    # the seats a round-ending move knocked out of an elimination game played that round: its end
    # frame shows their trains (the table as it was) and names them; the next round's, as out
    knocked = sorted(seats_knocked_out(state))
    frame.update(
        station=state.station,
        trains=trains,
        active=[a or s in knocked for s, a in enumerate(state.active)],  # the seats in this frame's round
        knocked_out=knocked,
        phase=None if state.round_over else phase_text(state),  # the text render's words
    )
    return frame


def line_frame(state: LineState) -> dict[str, Any]:
    """What the page shows of a line-game state (JSON-ready)."""
    frame = _common(state)
    frame.update(line=[list(t) for t in state.line], ends=list(state.ends) if state.line else None, leader=state.leader)
    return frame


def _frame(state: Any) -> dict[str, Any]:
    return mexican_train_frame(state) if isinstance(state, MexicanTrainState) else line_frame(state)


def stop_limit(record: dict[str, Any]) -> str:
    """The env limit that truncated a record's episode, e.g. ``"max_cycles=3"`` (as
    ``domino-play --resume`` names it); for a record :func:`replay_end` says was truncated."""
    kwargs, moves = record["env_kwargs"], len(record["actions"])
    max_steps = kwargs.get("max_steps")
    if max_steps is not None and moves >= max_steps:
        return f"max_steps={max_steps}"
    return f"max_cycles={kwargs.get('max_cycles', 100_000)}"  # (records.replay_end's default)


def frames_from_record(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Every state of a recorded game, as the page shows it: the first deal, then one frame per
    action (``"move"``: 1-based action number, ``"text"``: the move in words, ``"actor"``), and
    after a round that ends with a further deal in the record, a ``"deal"`` frame of the next
    round (same move number). A round-ending move's frame carries the round's ``"result"`` (and a
    Mexican Train frame the seats it knocked out, ``"knocked_out"``). When the env's ``max_cycles``
    or ``max_steps`` truncated the episode, the last frame's ``"stopped"`` names the limit (e.g.
    ``"max_cycles=3"``) and it has nobody to play; every other frame's ``"stopped"`` is None. A
    record that ends before its episode does (a game quit) has ``"unfinished"`` on its last frame:
    ``"round"`` or ``"game"``, the episode it stops short of (None on every other frame).

    Raises:
        RecordError: the record does not replay (:func:`~domino_env.core.records.replay`'s checks
            and words, e.g. ``move 4 (actions[3], 0-based) does not replay: ...``), or its ``seats``
            are not one name per seat.
    """
    _, truncated = replay_end(record)  # every check of records.replay (max_cycles too), in its words: the
    # loop below plays a record known to replay
    state, deals = first_state(record)
    names = record.get("seats")
    if names is None:
        names = [None] * state.num_players
    elif not (isinstance(names, list) and len(names) == state.num_players and all(isinstance(n, str) for n in names)):
        raise RecordError(f"record field 'seats' must be a list of {state.num_players} names (strings), "
                          f"got {json.dumps(names)[:80]}")  # fmt: skip
    frames = [dict(_frame(state), kind="deal", move=0, actor=None, text="round 1 dealt")]
    for k, action in enumerate(record["actions"], 1):
        seat = state.current_player
        who = f"seat {seat}" + (f" (\u2068{_BIDI_CONTROLS.sub('', names[seat])}\u2069)"
                                if seat < len(names) and names[seat] else "")  # as the page's seatName()
        text = f"{who}: {state.describe_action(action)}"
        state.apply(action)
        frames.append(dict(_frame(state), kind="move", move=k, actor=seat, text=text))
        if state.round_over and deals and episode_goes_on(record, state):
            state.start_next_round(None, deals.pop(0))  # as the env does, in the same step
            again = " again" if frames[-1]["result"]["termination"] == "annulled" else ""
            frames.append(dict(_frame(state), kind="deal", move=k, actor=None, text=f"round {state.round_index + 1} dealt{again}"))
    for frame in frames:
        frame["stopped"] = frame["unfinished"] = None
    if truncated:  # nobody plays on: the env ended the episode here
        frames[-1].update(stopped=stop_limit(record), to_play=None)
    elif not (state.round_over and not episode_goes_on(record, state)):  # quit mid-episode (domino-play's q)
        frames[-1]["unfinished"] = "game" if record["env_kwargs"].get("episode", "round") == "game" else "round"
    return frames


def seed_deals(record: dict[str, Any]) -> bool | None:
    """Whether the record's seed deals its deals: its env reset with the seed, playing the
    record's actions, deals each of them (the check ``domino-play --resume`` makes); None for a
    record without a seed. False for an edited seed or deal, and for a record of deals given to
    ``env.reset(seed=..., options={"deals": ...})``, whose seed ``to_record`` keeps too: the
    replay reads only the deals (:mod:`domino_env.core.records`), so such a record is shown, its
    seed marked. Call it on a record that replays (:func:`frames_from_record`)."""
    from domino_env.envs.games import make_raw_env

    seed = record.get("seed")
    if seed is None:
        return None
    env = make_raw_env(record["env_id"].partition("/")[2].rpartition("-v")[0], **record["env_kwargs"])
    env.reset(seed=seed)
    checked = 0  # the env's deals compared so far: each new one once (all of them at every move was quadratic)
    try:
        for action in record["actions"]:  # the same deals play the same moves: the env's later deals differ or not
            deals = env.game_state.deals
            if len(deals) != checked:
                if list(deals[checked:]) != record["deals"][checked : len(deals)]:
                    return False
                checked = len(deals)
            while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
                env.step(None)
            env.step(action)
    except ValueError:  # a move the env's own later deal does not allow (a DominoError)
        return False
    finally:
        env.close()
    return list(env.game_state.deals) == record["deals"]


def page_data(record: dict[str, Any]) -> dict[str, Any]:
    """Everything the page needs: the rules, seat names, pip drawings and every frame (and
    ``seed_deals``, :func:`seed_deals`: the header marks a seed that did not deal the game)."""
    frames = frames_from_record(record)
    config = record_config(record)  # (frames_from_record checked the record)
    p = config.num_players
    mexican = record["env_id"] == "dominoes/mexican_train-v0"
    seed = record.get("seed")
    return {
        "env_id": record["env_id"],
        "game": "mexican_train" if mexican else "line",
        "rules": config.to_dict(),
        "episode": record["env_kwargs"].get("episode", "round"),
        "seed": None if seed is None else str(seed),  # a string: JavaScript's numbers lose digits past 2**53
        "seed_deals": seed_deals(record),
        "num_players": p,
        "teams": bool(getattr(config, "teams", False)),
        "seats": [str(s) if s else "" for s in (record.get("seats") or [""] * p)],
        "num_moves": len(record["actions"]),
        "boneyard": bool(config.use_boneyard),  # block and Cuban have none (docs/rules.md §2)
        "longest_hand": max(max(f["hand_sizes"]) for f in frames),
        "pip_layouts": [pip_layout(v) for v in range(config.max_pip + 1)],
        "pip_colours": ["#{:02x}{:02x}{:02x}".format(*c) for c in PIP_COLOURS],
        "frames": frames,
    }


def title_of(record: dict[str, Any]) -> str:
    """The page title, e.g. ``"Mexican Train (domino_cubano, double-12) replay"``."""
    # the rules the record plays, defaults filled in: a record without max_pip or preset in its
    # env_kwargs was titled "Mexican Train (, double-?) replay"
    config = record_config(record)
    n = config.max_pip
    if record["env_id"] == "dominoes/mexican_train-v0":
        return f"Mexican Train ({config.preset}, double-{n}) replay"
    game = record["env_id"].split("/")[-1].removesuffix("-v0")
    return f"{game.capitalize()} dominoes (double-{n}) replay"


def render_html(record: dict[str, Any], data: dict[str, Any] | None = None) -> str:
    """The replay page of ``record`` as one HTML string (no external resource); ``data`` is
    its :func:`page_data` when already computed.

    Raises:
        RecordError: the record does not replay.
    """
    text = json.dumps(page_data(record) if data is None else data, separators=(",", ":"))
    text = text.replace("<", "\\u003c")  # nothing in the JSON can close the <script> element
    return PAGE.replace("__TITLE__", html.escape(title_of(record))).replace("__DATA__", text)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="domino-replay-html",
        description="Write a game record (the JSON of env.to_record() or train.play) as one "
        "self-contained HTML page that replays the game move by move in any browser.",
    )
    parser.add_argument("record", help="the game record (JSON; - reads it from stdin, with --output)")
    parser.add_argument("-o", "--output", default=None,
                        help="the HTML file to write (default: the record's name without .gz, with .html for its .json or else added: game.json.gz gives game.html, seed.7 seed.7.html; - writes the page to stdout)")
    return parser


def is_replay_page(path: Path | BinaryIO, compressed: bool = False) -> bool:
    """An earlier page of this command (which a new one may replace), not any other file; with
    ``compressed``, also one compressed with gzip (a page given as the record reads as a page, not
    as "not valid JSON"; as an output it is no page to replace: plain HTML would take its place).
    ``path`` may also be an open binary file that can seek (stdin's bytes, already read)."""
    mark = PAGE_MARK.encode()
    try:  # a piece at a time: a file of gigabytes given as the record is not held whole in memory
        with open(path, "rb") if isinstance(path, (str, os.PathLike)) else contextlib.nullcontext(path) as raw:
            packed = raw.read(2) == b"\x1f\x8b"
            if packed and not compressed:
                return False
            raw.seek(0)
            f = gzip.GzipFile(fileobj=raw) if packed else raw
            seen, left = b"", 2**30 if packed else None  # (up to 1 GiB of a gzip file: a gzip bomb is no page)
            while piece := f.read(2**20 if left is None else min(2**20, left)):
                if mark in seen[-len(mark) :] + piece:  # (a mark across two pieces too)
                    return True
                seen, left = piece, None if left is None else left - len(piece)
    except (OSError, EOFError, zlib.error):  # (a damaged .gz: no page)
        return False
    return False


#: The refusal of a replay page given as the record (by name or through a pipe).
PAGE_GIVEN = "record {} is a replay page, not a game record; give the record (JSON) it was made from"
#: A line of every page's footer (replay_page.PAGE), by which an earlier page is known.
PAGE_MARK = "computed by the domino_env rules engine from the game record"


def default_page(record: Path) -> Path:
    """The page written without ``-o``: the record's name without ``.gz``, its ``.json`` replaced by
    ``.html`` or else ``.html`` added (``game.json.gz`` gives ``game.html``, ``seed.7.gz``
    ``seed.7.html``, never the page of ``seed.8.gz``)."""
    plain = record.with_suffix("") if record.suffix.lower() == ".gz" else record
    if plain.suffix.lower() == ".json":
        return plain.with_suffix(".html")
    return plain.with_name(plain.name + ".html")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``domino-replay-html`` (``python -m domino_env.train.replay_html``). A missing,
    unreadable or corrupt record, or a bad output path, is one line on stderr and status 2."""
    parser = build_parser()
    args = parser.parse_args(argv)

    def refuse(message: str) -> NoReturn:  # the record is wrong, not an option: no --help hint
        parser.exit(2, f"{parser.prog}: error: {message}\n")

    if args.output is not None and not args.output.strip():  # it fell back to RECORD.html
        parser.error("--output: give the HTML file to write (got an empty name)")
    to_stdout = args.output == "-"
    if args.record == "-" and not args.output:
        parser.error("record -: a record read from stdin names no page; give the page to write with --output "
                     "(- for stdout)")  # fmt: skip
    src = Path("/dev/stdin") if args.record == "-" else Path(args.record)
    out = Path(args.output) if args.output and not to_stdout else default_page(src)
    if src.is_dir():
        refuse(f"record {src} is a folder; give a record file (JSON, e.g. what domino-play writes)")
    if not src.exists():
        refuse("record -: stdin is closed (nothing to read)" if args.record == "-" else f"record {src}: no such file")
    if not src.is_file() and not args.output:  # a pipe (<(zcat rec.json.gz)) reads, but names no page
        parser.error(f"record {src} is not a regular file (a pipe?); give the page to write with --output")
    where = f"--output {out}" if args.output else f"the page {out}"  # (without -o: the record's default page)
    if to_stdout:
        pass  # the page goes to stdout: no file to check
    elif not os.path.isdir(out.parent.resolve()):
        parser.error(f"{where}: folder {os.path.abspath(out.parent)} {not_a_folder(out.parent)}")  # (as every command)
    elif out.is_dir():
        parser.error(f"{where} is a folder; give the HTML file to write with --output (e.g. {out}/replay.html)")
    elif out.resolve() == src.resolve() and is_replay_page(src, compressed=True):  # (stdin redirected from -o's page)
        refuse(PAGE_GIVEN.format("-" if args.record == "-" else src))
    elif out.resolve() == src.resolve():
        parser.error(f"{where} would overwrite the record; give the page to write with --output")
    elif out.is_symlink() and not out.exists():  # (as domino-evaluate --json and domino-play --record)
        parser.error(f"{where}: is a link to {os.readlink(out)}, which does not exist; give a file name with --output")
    elif out.exists() and not out.is_file():  # a FIFO: reading or writing it would wait
        parser.error(f"{where}: exists and is not a regular file; give a file name with --output")
    elif out.exists() and not is_replay_page(out):
        parser.error(f"{where}: the file exists and is not a replay page (it would be overwritten); "
                     "give another name with --output")  # fmt: skip
    elif problem := unwritable(out):
        parser.error(f"{where}: {problem}")

    name = "-" if args.record == "-" else str(src)  # as typed: "-", not the /dev/stdin read for it
    piped = None  # a pipe's bytes (stdin, <(...)), read once: it cannot be read again to find a page's mark
    try:
        if not src.is_file():
            with open(src, "rb") as f:
                piped = f.read(MAX_RECORD_BYTES + 1)  # (load_record's own limit: /dev/zero ends)
        record = load_record(src, data=piped)
    except RecordError as err:  # not JSON, not text, not a record: the message names the file
        if is_replay_page(src if piped is None else io.BytesIO(piped), compressed=True):
            refuse(PAGE_GIVEN.format(name))
        message = str(err).replace(f"record {src}", f"record {name}", 1)
        gave = "nothing" if message.endswith("(0 bytes)") else "only white space"  # ("\n" is not nothing)
        refuse(message.replace("record - is an empty file (", f"record - is empty: stdin gave {gave} (", 1))
    except OSError as err:
        refuse(f"record {name}: {err.strerror}")
    try:
        data = page_data(record)
        page = render_html(record, data)
    except OSError as err:
        refuse(f"record {name}: {err.strerror}")
    except RecordError as err:  # its message says what does not replay, and where
        refuse(naming_file(name, str(err)))
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        refuse(f"record {name} does not replay: {err}")
    try:
        if to_stdout:
            write_stdout(page)
        else:
            replace_text(out, page)
    except BrokenPipeError:
        raise
    except OSError as err:  # checked before; a full disk, a folder removed since
        raise OutputError(f"{'-o -: stdout' if to_stdout else where}: could not be written{' whole' if to_stdout else ''} "
                          f"({err.strerror or err})") from None
    if data["seed_deals"] is False:  # shown, as the record replays from its deals; said here too
        seed = data["seed"] if len(data["seed"]) <= 40 else data["seed"][:40] + chr(0x2026)  # (an edit of 4,000 digits)
        print(f"{parser.prog}: note: record {name}: its deals are not the ones seed {seed} deals (an edited "
              "record, or deals given to env.reset); the page's header says so", file=sys.stderr)  # fmt: skip
    deals = sum(f["kind"] == "deal" for f in data["frames"])
    moves, frames = data["num_moves"], len(data["frames"])
    print(f"wrote {'the page to stdout' if to_stdout else out}: {moves} move{'s' * (moves != 1)}, "
          f"{deals} deal{'s' * (deals != 1)}, {frames} frame{'s' * (frames != 1)}",
          file=sys.stderr if to_stdout else sys.stdout)  # fmt: skip
    return 0


if __name__ == "__main__":  # through train.cli: a missing module or typed error is one line
    from domino_env.train.cli import launch

    launch("domino-replay-html", main)
