"""Play a domino game in the terminal against any agents.

Run: ``domino-play --game mexican_train --seat 0 --opponents greedy planner random``
(console script ``domino-play``). Each turn of yours shows the table as your seat sees it (your
hand face up, the others' hand sizes only) and your legal moves numbered and described in words;
type a number. What each opponent does is printed as it happens. Type ``t`` to see the table
again, ``q`` (or end the input, or press Ctrl-C) to stop. The game record (the env's
``to_record()`` JSON, plus who sat where) is written to ``--record`` whenever the program ends,
finished or not; view it move by move with ``domino-replay-html RECORD``, and go on with a stopped
game with ``domino-play --resume RECORD`` (docs/play.md).

Opponents are agent specs as :func:`domino_env.agents.make_agent` takes them: ``random``, ``greedy``,
``planner``, ``ppo:PATH`` (a folder written by ``domino-train``) or any registered name.
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import shutil
import signal
import sys
import textwrap
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from domino_env.agents.base import agent_label, make_agent
from domino_env.core.config import PRESETS
from domino_env.core.errors import ConfigError, DominoError
from domino_env.envs.infos import Termination, seats_of
from domino_env.render import seat_counts_text, seats_out_before
from domino_env.train.arg_types import SEED, count
from domino_env.train.cli import ArgumentParser, OutputError, unwritable
from domino_env.train.evaluate import (
    GAMES,
    add_line_rule_options,
    add_mexican_train_rule_options,
    agent_choices,
    flag_error_line,
    make_env,
    preset_hand_line,
    rule_kwargs,
    seats_error_line,
)
from domino_env.train.interrupts import raising_is_dropped, signals_wake_main_thread
from domino_env.train.play_records import RecordWriter, checked_record_path, record_hints, resumed
from domino_env.wrappers import info_state_kwargs

#: Exit status of an interrupted game (Ctrl-C), as shells report SIGINT.
EXIT_INTERRUPTED = 130
QUIT_WORDS = ("q", "quit", "exit")
TABLE_WORDS = ("t", "table")
HELP_WORDS = ("h", "help", "?")


class Stop(Exception):
    """The player stopped the game (``q`` or end of input); ``reason`` says which."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="domino-play",
        description="Play a domino game in the terminal against agents (Mexican Train, or the "
        "line games block, draw, cuban). Your legal moves are numbered each turn; type one.",
    )
    parser.add_argument(
        "--game", default="mexican_train", choices=GAMES,
        help="mexican_train (default; --preset picks its rule set) or a line game: block, draw, cuban",
    )  # fmt: skip
    parser.add_argument(
        "--preset", default=None, choices=tuple(PRESETS),
        help="Mexican Train rule preset (default domino_cubano); the line games are their own preset",
    )  # fmt: skip
    parser.add_argument("--players", type=count, default=None, help="seats (default: the preset's: 4 for Mexican Train, block, cuban; 2 for draw)")
    parser.add_argument(
        "--max-pip", type=int, default=None,
        help="double-N set (Mexican Train: 9, 12, 15, 18; line games: 6, 9, 12; default: the preset's)",
    )  # fmt: skip
    parser.add_argument("--seat", type=count, default=0, help="your seat, 0..players-1 (default 0)")
    parser.add_argument(
        "--opponents", nargs="+", default=["greedy"], metavar="AGENT",
        help="one agent for every other seat, or one per other seat in seat order after yours: "
        f"{agent_choices()} (default greedy)",
    )  # fmt: skip
    parser.add_argument(
        "--episode", default="round", choices=("round", "game"),
        help="play one round (default) or a whole game of rounds",
    )  # fmt: skip
    parser.add_argument("--seed", type=SEED, default=None,
                        help="seed of the deals and the agents, 0 to 2**32 - 1 (default: a fresh one, printed)")  # fmt: skip
    parser.add_argument(
        "--record", default=None, metavar="PATH",
        help="where to write the game record (default: domino-play-GAME-SEED.json here)",
    )  # fmt: skip
    parser.add_argument(
        "--resume", default=None, metavar="RECORD",
        help="go on with the game of a record domino-play wrote (a stopped game): its rules, seats, "
        "agents and seed come from the record, which is written again as the game goes on (or to --record)",
    )  # fmt: skip
    add_mexican_train_rule_options(parser)
    add_line_rule_options(parser)
    return parser


def _env_kwargs(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"episode": args.episode, **rule_kwargs(parser, args)}
    if args.players is not None:
        kwargs["num_players"] = args.players
    return kwargs


def setup(argv: Sequence[str] | None) -> tuple[Any, int, dict[int, Any], dict[int, str], int, str, list[int], bool]:
    """Parse and check every flag, build the env and the agents: ``(env, seat, agents by seat,
    agent names by seat, seed, record path, the recorded moves to play again first, keep)``; the
    moves are those of ``--resume``'s record, else none; ``keep``: the record path holds another
    game's record, kept (``checked_record_path``). Any bad flag exits (status 2) with one clear
    line, before any play."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.record is not None and not args.record.strip():  # it fell back to the default name
        parser.error("--record: give a file name (got an empty name)")
    if args.resume is not None:
        env, seat, agents, labels, seed, moves = resumed(parser, build_parser(), args, argv)
        if args.record is None and (problem := unwritable(args.resume)):  # not "--record X", which was not given
            parser.error(f"--resume {args.resume}: the game goes on in this record, and {problem}; give --record "
                         "PATH to write it elsewhere")  # fmt: skip
        record, keep = checked_record_path(parser, args.record or args.resume, args.record is not None, args.resume)
        return env, seat, agents, labels, seed, record, moves, keep
    kwargs = _env_kwargs(args, parser)
    try:
        env = make_env(args.game, **kwargs)
    except ConfigError as exc:  # name the flag, not the config field
        parser.error(seats_error_line(exc, args.game, args.players)
                     or preset_hand_line(exc, args.game, args.max_pip, args.hand_size)
                     or flag_error_line(parser, exc))  # fmt: skip
    except DominoError as exc:
        parser.error(str(exc))
    p = env.config.num_players
    if not 0 <= args.seat < p:
        parser.error(f"--seat must be a seat 0..{p - 1} of this {p}-seat game, got {args.seat}")
    specs = args.opponents
    if len(specs) == 1:
        specs = specs * (p - 1)
    if len(specs) != p - 1:
        want = "one agent (for the other seat)" if p == 2 else f"one agent, or {p - 1} (one per other seat)"
        parser.error(f"--opponents: give {want}; got {len(args.opponents)}")
    agents: dict[int, Any] = {}
    labels: dict[int, str] = {}
    for k, spec in enumerate(specs):
        seat = (args.seat + 1 + k) % p
        try:
            agents[seat] = make_agent(spec, env.config)
        except (DominoError, OSError) as exc:
            parser.error(f"--opponents {spec}: {exc}")
        labels[seat] = agent_label(spec)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
    record, keep = checked_record_path(parser, args.record or f"domino-play-{args.game}-{seed}.json",
                                       args.record is not None)  # fmt: skip
    return env, args.seat, agents, labels, seed, record, [], keep


def describe(state: Any, action: int, you: int) -> str:
    """``state.describe_action(action)`` with "you" for your seat (call before applying it)."""
    text = state.describe_action(action)
    return text.replace(f"the train of seat {you}", "your train")


def read_move(legal: list[int], show: Callable[[], None], read: Callable[[str], str] = input) -> int:
    """Ask until a valid move number is typed; return its action.

    Raises:
        Stop: ``q`` typed, or the input ended.
    """
    n = len(legal)
    numbers = "1 (the only legal move)" if n == 1 else f"a number from 1 to {n}"
    hint = f"type {numbers}, t to show the table again, h for help, q to quit"
    prompt = "your move (1): " if n == 1 else f"your move (1-{n}): "
    while True:
        try:
            text = read(prompt).strip()
        except EOFError:
            print()
            raise Stop("end of input") from None
        word = text.lower()
        if not word:
            print(f"  no move typed: {hint}", flush=True)
        elif word in QUIT_WORDS:
            raise Stop("you quit")
        elif word in TABLE_WORDS:
            show()
        elif word in HELP_WORDS:  # the table again, then what can be typed
            show()
            print(f"  commands: {numbers} plays that move, t (table) shows the table again, q (quit, "
                  "exit) stops the game and writes its record; Ctrl-D stops too; h (help, ?) shows this", flush=True)
        elif not re.fullmatch(r"-?[0-9]+", word):  # not str.isdigit: int("²") fails
            shown = text if len(text) <= 40 else text[:40] + chr(0x2026)  # a pasted page is not echoed whole
            print(f"  {shown!r} is not a move number: {hint}", flush=True)
        elif len(digits := word.lstrip("-").lstrip("0")) > 9:  # int() refuses past 4,300 digits; no move is this high
            print(f"  there is no move {text if len(text) <= 12 else text[:12] + chr(0x2026)}: {hint}", flush=True)
        else:
            number = -int(digits or 0) if word.startswith("-") else int(digits or 0)
            if 1 <= number <= n:
                return legal[number - 1]
            print(f"  there is no move {number}: {hint}", flush=True)


def fit_to_terminal(text: str) -> str:
    """``text`` with each line longer than the terminal wrapped between tiles (a long hand or train
    was cut by the terminal in the middle of a tile, ``[5|1`` / ``2]``), the rest indented; as it is
    when the output is not a terminal (a pipe or a file keeps one line per row)."""
    if not sys.stdout.isatty():
        return text
    try:  # the terminal's own size: a COLUMNS exported earlier (tmux sets 80) is stale after a resize
        columns = os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        columns = shutil.get_terminal_size().columns
    width = max(columns - 1, 20)
    wrap = textwrap.TextWrapper(width, subsequent_indent=" " * 6, break_long_words=False, break_on_hyphens=False)

    def glue(match: re.Match[str]) -> str:
        return match.group().replace(" ", "\0")

    def fill(line: str) -> str:  # an end marker's words stay on one line: "(ends 6 | 7)", "-> open end 4";
        glued = _MARKER.sub(glue, line)  # so does a note that fits on a continuation line: "(hand 12, score 0)"
        glued = _NOTE.sub(lambda m: glue(m) if len(m.group()) <= width - 6 else m.group(), glued)
        return wrap.fill(glued).replace("\0", " ")

    return "\n".join(fill(line) if len(line) > width else line for line in text.splitlines())


_MARKER = re.compile(r"\(ends [^)]*\)|-> open end \S+")
_NOTE = re.compile(r"\([^()]*\)")


def _show_turn(env: Any, you: int, legal: list[int]) -> None:
    print("\n" + fit_to_terminal(env.render_text(you)), flush=True)
    print("your legal moves:")
    for k, action in enumerate(legal, 1):
        print(f"  {k:>2}. {describe(env.game_state, action, you)}")
    sys.stdout.flush()


def _eliminated(state: Any, seat: int) -> bool:
    """``seat`` is out of a Mexican Train elimination game (line games have no eliminations)."""
    return getattr(state, "eliminated_at", [None] * (seat + 1))[seat] is not None


def _knocked_out(state: Any, round_index: int) -> list[int]:
    """The seats that the round ``round_index`` knocked out of an elimination game."""
    return [s for s, at in enumerate(getattr(state, "eliminated_at", ())) if at == round_index]


def _round_summary(info: dict[str, Any], you: int, seat: int, out: Collection[int] = ()) -> str:
    """The round result of ``info`` (the env's fixed layout, docs/infos.md) in words; the ``out``
    seats (knocked out before this round) read "out" in place of their pips."""
    how = str(Termination(int(info["termination_code"])))
    if how == "annulled":
        who = "you" if seat == you else f"seat {seat}"
        return f"round annulled ({who} had too many doubles): the round is dealt again"
    winners = seats_of(info["winners"])
    who = ", ".join("you" if s == you else f"seat {s}" for s in winners) or "nobody (a void round: it scores nothing)"
    lines = [
        f"round {info['round_index'] + 1} over ({how.replace('_', ' ')}): won by {who}",
        f"  pips left in each hand: {seat_counts_text(info['pips'], out)}; scores now: {info['scores'].tolist()}",
    ]
    return "\n".join(lines)


def _game_over_line(info: dict[str, Any], you: int) -> str:
    """"game over: won by ...", after the round's summary and the seats it knocked out (as the replay page)."""
    return "game over: won by " + ", ".join("you" if s == you else f"seat {s}" for s in seats_of(info["game_winners"]))


def play(
    env: Any, you: int, agents: dict[int, Any], labels: dict[int, str], seed: int,
    read: Callable[[str], str] = input, moves: Sequence[int] = (),
) -> None:
    """Play one episode of ``env`` with you at seat ``you``; prints as it goes. ``moves``: the
    recorded moves of a resumed game (``--resume``), played again first without a word; each
    agent is still asked for its recorded moves, so that its randomness goes on as in the game
    it resumes.

    Raises:
        Stop: you stopped the game.
    """
    rng = np.random.default_rng([seed, 1])  # the agents' randomness, apart from the deals
    env.reset(seed=seed)
    names = ["you" if s == you else labels[s] for s in range(env.config.num_players)]
    print("seats: " + ", ".join(f"{s} {n}" for s, n in enumerate(names)), flush=True)
    told = out = False
    again = list(moves)[::-1]  # popped from the end
    if again:
        differ: set[int] = set()
        out = _replay_quietly(env, agents, rng, again, you, differ)
        state = env.game_state
        print(f"resumed after {len(moves)} recorded move{'s' * (len(moves) != 1)} (round "
              f"{state.round_index + 1}; scores now: {list(state.scores)})" + ("; you are out of the game, the "
              "other seats play on to the end" if out else ""), flush=True)  # fmt: skip
        if differ:  # the recorded move was played, but the game will not go on as it would have
            print(f"note: {', '.join(f'seat {s} ({labels[s]})' for s in sorted(differ))} now chose other moves than "
                  "the recorded ones (a model or code changed since?): the game goes on from the record, not as "
                  "it would have without the stop", flush=True)  # fmt: skip
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            if truncated and not terminated and not told:
                print(f"stopped: the env's limit of {env.max_cycles} cycles was reached", flush=True)
                told = True
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        state = env.game_state
        legal = list(state.legal_actions())
        if seat == you:
            _show_turn(env, you, legal)
            action = read_move(legal, lambda legal=legal: _show_turn(env, you, legal), read)
            print(f"you: {describe(state, action, you)}", flush=True)
        else:
            obs = env.observe(agent)
            extra = info_state_kwargs(agents[seat], state, seat)  # search needs the public history
            action = int(agents[seat](obs["observation"], obs["action_mask"], rng, **extra))
            print(f"seat {seat} ({names[seat]}): {describe(state, action, you)}", flush=True)
        deals = len(state.deals)
        env.step(action)
        if env.game_state.round_over or len(env.game_state.deals) > deals:
            ended = env.infos[agent]["round_index"]
            print("\n" + _round_summary(env.infos[agent], you, seat, seats_out_before(env.game_state, ended)), flush=True)
            winners = env.game_state.game_winners  # (a knocked-out winner: every seat left crossed the limit)
            limit = getattr(env.config, "elimination_limit", None)  # (line games: no eliminations)
            for other in (s for s in _knocked_out(env.game_state, ended) if s not in winners):  # (in seat order, as the page)
                if other == you:  # the others play on only if the episode goes on: its next round is dealt
                    out, on = True, "" if env.game_state.round_over else (
                        "; the other seats play on to the end (Ctrl-C stops it; the record is written)")
                    print(f"you are out of the game (your score {env.game_state.scores[you]} reached the limit of "
                          f"{limit}){on}", flush=True)  # fmt: skip
                else:
                    print(f"seat {other} is out of the game (score {env.game_state.scores[other]} reached the limit "
                          f"of {limit})", flush=True)  # fmt: skip
            at = getattr(env.game_state, "eliminated_at", None)  # (line games: none)
            if at is not None and any(at[s] == ended for s in winners):  # (the replay page's words)
                print(f"every seat left reached the limit of {limit}: the lowest total wins", flush=True)
            if env.infos[agent]["game_over"]:
                print(_game_over_line(env.infos[agent], you), flush=True)
            if not env.game_state.round_over:
                print(f"round {env.game_state.round_index + 1} dealt", flush=True)


def _replay_quietly(env: Any, agents: dict[int, Any], rng: np.random.Generator, moves: list[int], you: int,
                    differ: set[int] | None = None) -> bool:  # fmt: skip
    """Play the recorded ``moves`` (last first: popped) on ``env``; every agent is asked for
    its own, to draw from ``rng`` as it did, and the recorded move is played whatever it answers
    (the seats whose answer differed are added to ``differ``). Returns whether you are out of
    the game by then."""
    while moves:
        agent = env.agent_selection
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        if seat != you:
            obs = env.observe(agent)
            answer = agents[seat](obs["observation"], obs["action_mask"], rng, **info_state_kwargs(agents[seat], env.game_state, seat))
            if differ is not None and int(answer) != moves[-1]:
                differ.add(seat)
        env.step(moves.pop())
    return _eliminated(env.game_state, you)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``domino-play`` (``python -m domino_env.train.play``). Returns the exit status: 0 when
    the game ended or you stopped it, 128 + the signal number after Ctrl-C (130), SIGTERM (143) or
    a closed terminal (SIGHUP, 129); the record is written in every case.

    Raises:
        OutputError: the record cannot be written (its folder removed, a full disk): one line, exit 1.
    """
    env, you, agents, labels, seed, record, moves, keep = setup(argv)
    print(
        f"{env.ENV_ID} (preset {env.config.preset}, {env.episode}), seed {seed}; you are seat "
        f"{you}. Type a move number, t for the table, q to quit.",
        flush=True,
    )
    stopped_by = signal.SIGINT
    stopping = False

    noted = False  # a stop came where its KeyboardInterrupt would be dropped (raising_is_dropped)

    def stop(signum: int, frame: Any) -> None:  # Ctrl-C, a closed terminal or a kill
        nonlocal stopped_by, stopping, noted
        if stopping:  # a closed terminal sends SIGHUP more than once: the record is being written
            return
        if not noted:
            stopped_by = signal.Signals(signum)
        noted = True
        if not raising_is_dropped(frame):  # there it waits for the next prompt or the next signal
            stopping = True
            raise KeyboardInterrupt

    writer = RecordWriter(record, _say, keep)  # another game's record there: kept, this one's beside it
    saved_at, save_failed = -1, False

    def read(prompt: str) -> str:
        nonlocal stopping, saved_at, save_failed
        if noted and not stopping:  # a stop whose KeyboardInterrupt could not be raised where it came
            stopping = True
            raise KeyboardInterrupt
        if len(env.game_state.actions) != saved_at and not save_failed:  # the game so far, at each of your
            try:  # turns: a kill (SIGKILL, a crash, a power cut) loses only the moves since
                writer.save(_record_of(env, you, labels))
                saved_at = len(env.game_state.actions)
            except OSError as exc:  # (a full disk): the game goes on; the end tries again
                save_failed = True
                _say(f"the game so far could not be saved to {writer.path} ({exc.strerror or exc}); "
                     "it is tried again when the game stops")  # fmt: skip
        text = input(prompt)
        if not sys.stdin.isatty():  # no terminal echoed it: the next line would follow the prompt
            print(text if len(text) <= 40 else text[:40] + chr(0x2026), flush=True)
        return text

    caught = [sig for sig in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if sig is not None]
    previous = {sig: signal.signal(sig, stop) for sig in caught}
    if sys.stdin.isatty():  # line editing, and input() then prompts on stdout rather than stderr
        try:
            import readline  # noqa: F401
        except ImportError:  # not on every platform
            pass
    status = 0
    try:
        with signals_wake_main_thread(caught):  # a signal taken by numpy's threads still stops the prompt
            play(env, you, agents, labels, seed, read=read, moves=moves)
    except Stop as reason:
        _say(f"game stopped ({reason.reason}) before its end")
    except KeyboardInterrupt:
        name = "Ctrl-C" if stopped_by == signal.SIGINT else stopped_by.name
        _say(f"\ninterrupted ({name})")
        status = EXIT_INTERRUPTED - signal.SIGINT + stopped_by
    except OSError as exc:  # reading or writing a terminal that has closed (its SIGHUP may follow)
        if exc.errno != errno.EIO:
            raise
        _say("\ninterrupted (the terminal closed)")
        status = EXIT_INTERRUPTED - signal.SIGINT + getattr(signal, "SIGHUP", signal.SIGINT)
    finally:
        stopping = True  # from here on a signal waits for the record
        try:
            replayed = env.game_state is not None and len(env.game_state.actions) >= len(moves)
            if moves and not replayed:  # stopped before the resumed game was back where it was
                writer.give_back()
                _say(f"stopped while playing the recorded moves again: no record written ({record} is as it was)")
            elif env.game_state is None:  # stopped before the deal
                writer.give_back()
            else:
                data = _record_of(env, you, labels)
                try:
                    writer.save(data)
                except OSError as exc:
                    raise OutputError(f"the game record could not be written to {writer.path} ({exc.strerror or exc}); "
                                      + writer.kept()) from None  # fmt: skip
                k = len(data["actions"])
                _say(f"record of {k} move{'' if k == 1 else 's'} written to {writer.path} "
                     f"({record_hints(writer.path, game_over=not env.agents)})")  # fmt: skip
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    return status


def _record_of(env: Any, you: int, labels: dict[int, str]) -> dict[str, Any]:
    """The game so far as a record (``env.to_record()``), with who sat where and when it was saved."""
    data = env.to_record()
    data["seats"] = ["human" if s == you else labels[s] for s in range(env.config.num_players)]
    data["saved"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    return data


def _say(line: str) -> None:
    """Print to the terminal; when it is gone (SIGHUP) or the output pipe is closed, the record
    still gets written."""
    try:
        print(line, flush=True)
    except OSError:
        pass


if __name__ == "__main__":  # through train.cli: a missing module or typed error is one line
    from domino_env.train.cli import launch

    launch("domino-play", main)
