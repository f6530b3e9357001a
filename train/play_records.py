"""domino-play's game records: where a record may be written (``--record``), a stopped game
taken up again (``--resume``), and the hints printed once a record is written (docs/play.md)."""

from __future__ import annotations

import argparse
import os
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from domino_env.agents.base import make_agent
from domino_env.core.errors import CheckpointNotFoundError, DominoError
from domino_env.core.records import load_record, move_name, naming_file, replay_end, save_record
from domino_env.train.arg_types import MAX_SEED
from domino_env.train.cli import not_a_folder, path_word, unwritable, users_script
from domino_env.train.evaluate import make_env
from domino_env.train.replay_html import is_replay_page

#: domino-play's own module (``python -m domino_env.train.play`` runs it as a script).
PLAY_MODULE = Path(__file__).with_name("play.py")


def checked_record_path(parser: argparse.ArgumentParser, record: str, given: bool = True,
                        resuming: str | None = None) -> tuple[str, bool]:
    """``(record, keep)`` when the game's record can be written there (else ``parser.error``): not
    a folder or another kind of file, and not the record of a game not over, which would be lost
    (unless it is ``resuming``, the record this game goes on from, written again in place).
    ``keep``: the file holds another game's record (a game over, one the env's limits stopped,
    one domino-play did not write), which this game's must not replace: it goes to a name beside
    it (:class:`RecordWriter`). ``given``: the name was typed as ``--record`` (else it is the
    default name, which the messages say)."""
    name = f"--record {record}" if given else f"the record {record}"
    folder = os.path.dirname(os.path.abspath(record))
    if not os.path.isdir(folder):
        parser.error(f"{name}: folder {folder} {not_a_folder(folder)}")
    if os.path.isdir(record):
        parser.error(f"{name} is a folder; give a file name with --record")
    if os.path.lexists(record) and not os.path.isfile(record):  # a FIFO would block the check below
        parser.error(f"{name}: exists and is not a regular file; give a file name with --record")
    if os.path.lexists(record) and not is_record_file(record):
        parser.error(f"{name}: the file exists and is not a game record (it would be overwritten); "
                     "give another name with --record")  # fmt: skip
    same = resuming is not None and os.path.exists(record) and os.path.samefile(record, resuming)
    if os.path.lexists(record) and not same and (moves := moves_not_over(record)) is not None:
        word = shlex.quote(path_word(record))
        parser.error(f"{name} holds a game not over ({moves} move{'' if moves == 1 else 's'}), which this game's "
                     f"record would replace: go on with it (--resume {word}) or give another name with --record")  # fmt: skip
    keep = os.path.lexists(record) and not same
    problem = unwritable(_next_name(record) if keep else record)
    if problem:  # found now, not once the game is played
        parser.error(f"{name}: {problem}")
    return record, keep


def moves_not_over(path: str) -> int | None:
    """The number of moves in the record at ``path`` when ``--resume`` could go on with it: a
    record of domino-play (one ``human`` seat, a seed) whose game is not over and was not stopped
    by the env's ``max_cycles`` / ``max_steps``; else None (a game played out, another record, a
    record that does not replay)."""
    try:
        record = load_record(path)
        seats, seed = record.get("seats"), record.get("seed")
        if not isinstance(seats, list) or seats.count("human") != 1 or not isinstance(seed, int):
            return None
        state, truncated = replay_end(record)
    except (DominoError, OSError):
        return None
    return None if state.round_over or truncated else len(record["actions"])


def resumed(parser: argparse.ArgumentParser, probe: argparse.ArgumentParser, args: argparse.Namespace,
            argv: Sequence[str] | None) -> tuple[Any, int, dict[int, Any], dict[int, str], int, list[int]]:  # fmt: skip
    """``--resume RECORD``: the env, your seat, the agents and their names, the seed and the
    recorded moves, from a record that domino-play wrote of a game not over; checked whole
    (every move replays, every deal is the seed's) before any play, in one pass through the env.
    ``probe``: a second parser of the same flags, which tells the flags typed from defaults."""
    for action in probe._actions:
        action.default = argparse.SUPPRESS
    typed = vars(probe.parse_args(argv))
    given = ["/".join(a.option_strings) for a in parser._actions if a.dest in typed and a.dest not in ("resume", "record")]
    if given:
        parser.error(f"--resume takes the game, rules, seats, agents and seed from the record: give only "
                     f"--record with it, not {', '.join(given)}")  # fmt: skip
    path = args.resume
    if not path.strip():
        parser.error("--resume: give the record of the game (got an empty name)")
    if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):  # a FIFO: read forever
        parser.error(f"--resume {path}: not a regular file (a pipe?); copy the record to a file and give that")
    if not os.path.lexists(path):  # the replay page's words (OSError's are "No such file or directory")
        parser.error(f"--resume {path}: no such file")
    if os.path.isdir(path):  # (OSError's "Is a directory")
        parser.error(f"--resume {path} is a folder; give the record of the game (a file, as domino-play writes it)")
    try:
        record = load_record(path)
    except (DominoError, OSError, UnicodeDecodeError) as exc:
        if os.path.isfile(path) and is_replay_page(Path(path), compressed=True):  # (it said "not valid JSON")
            parser.error(f"--resume {path}: a replay page, not a game record; give the record (JSON) it was made from")
        text = str(getattr(exc, "strerror", None) or exc)  # a RecordError names the record: once is enough
        parser.error(f"--resume: {text}" if isinstance(exc, DominoError) and text.startswith(f"record {path}")
                     else f"--resume {path}: {text}")  # fmt: skip
    seats, seed = record.get("seats"), record.get("seed")
    if not isinstance(seats, list) or seats.count("human") != 1 or not all(isinstance(x, str) for x in seats):
        parser.error(f"--resume {path}: not a record of domino-play (its 'seats' must name one 'human' seat "
                     "and the agent of every other)")  # fmt: skip
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        parser.error(f"--resume {path}: the record has no seed, which --resume needs to deal the later rounds as "
                     f"the game would have (domino-play's records hold one): got {seed!r}")  # fmt: skip
    if seed > MAX_SEED:  # the agents' generator, [seed, 1], would be another seed's
        parser.error(f"--resume {path}: the record's seed {seed} is above 2**32 - 1 ({MAX_SEED:,}), the largest "
                     "domino-play plays (--seed)")  # fmt: skip
    game = str(record["env_id"]).partition("/")[2].rpartition("-v")[0]
    try:
        replay_end(record)  # every check and message of records.replay, as the replay page's
    except DominoError as exc:  # "record has no deal": the page's "record r.json has no deal"
        parser.error(f"--resume: {naming_file(path, str(exc))}" if str(exc).startswith("record ")
                     else f"--resume {path}: {exc}")  # fmt: skip
    try:
        env = make_env(game, **record["env_kwargs"])
        env.reset(seed=seed)
    except (DominoError, ValueError, TypeError) as exc:
        parser.error(f"--resume {path}: {exc}")
    if len(seats) != env.config.num_players:
        parser.error(f"--resume {path}: 'seats' names {len(seats)} seats, the game has {env.config.num_players}")
    if env.game_state.deals[0] != record["deals"][0]:
        parser.error(f"--resume {path}: the first deal is not the one seed {seed} deals (an edited record?)")
    for k, action in enumerate(record["actions"]):  # every move checked here, before any play
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)
        try:
            env.step(action)
        except (DominoError, ValueError, TypeError) as exc:
            parser.error(f"--resume {path}: {move_name(k)} does not replay: {exc}")
    if list(env.game_state.deals) != record["deals"]:  # the later deals too
        parser.error(f"--resume {path}: the deals are not the ones seed {seed} deals (an edited record?)")
    if all(env.terminations[a] or env.truncations[a] for a in env.agents):  # no agent left to play
        if any(env.truncations[a] for a in env.agents):
            moves = len(record["actions"])  # (every one a step of the env's episode)
            limit = f"max_steps={env.max_steps}" if env.max_steps is not None and moves >= env.max_steps else \
                f"max_cycles={env.max_cycles}"  # fmt: skip
            parser.error(f"--resume {path}: the game was stopped by the env's limit {limit} ({moves} moves); "
                         "nothing to resume")  # fmt: skip
        parser.error(f"--resume {path}: the game is over ({len(record['actions'])} moves); nothing to resume")
    you = seats.index("human")
    agents, labels = {}, {}
    for seat, spec in enumerate(seats):
        if seat != you:
            try:
                agents[seat], labels[seat] = make_agent(spec, env.config), spec
            except (DominoError, OSError) as exc:
                kind, _, model = spec.partition(":")
                model = model.partition(",")[0]  # (ppo:PATH or rllib:PATH; a search's prior= keeps the loader's line)
                if isinstance(exc, CheckpointNotFoundError) and kind in ("ppo", "rllib") and model and \
                        not Path(model).is_absolute():  # fmt: skip
                    # the loader's "give their full path" cannot be followed: --resume takes no agents
                    exc = f"no model at {model} from this folder: run domino-play --resume from the folder the game was started in"
                parser.error(f"--resume {path}: the agent of seat {seat} ({spec}): {exc}")
    return env, you, agents, labels, seed, list(record["actions"])


class RecordWriter:
    """Writes the record of the game being played to ``path``, but never over a file that another
    program changed since this game read or wrote it: two ``domino-play --resume`` of one record
    each replaced the other's, the last to save winning. Such a game goes on in a new name beside
    it (``game-2.json``), said once through ``say``. ``keep``: ``path`` holds another game's
    record (:func:`checked_record_path`), kept: this game's goes to a name beside it from the
    start, said now."""

    def __init__(self, path: str, say: Callable[[str], None], keep: bool = False):
        self.path, self._say = path, say
        self._reserved = None  # the stamp of an empty name taken beside, until a record is written there
        if keep:
            self.path = _free_name(path)
            self._reserved = _stamp(self.path)
            say(f"{path} holds another game's record, which is kept: this game's record goes to {self.path}")
        self._stamp = _stamp(self.path)  # the file as this game found it (or None: no file yet)
        self.saved_moves: int | None = None  # the moves of the last record written by this game

    def save(self, data: dict[str, Any]) -> None:
        """Write ``data``. Raises OSError when it cannot be written (the file is as it was)."""
        if (now := _stamp(self.path)) is not None and now != self._stamp:  # (a file removed holds nothing to lose)
            old, self.path = self.path, _free_name(self.path)
            self._stamp = self._reserved = _stamp(self.path)
            self._say(f"{old} was changed by another program while this game was played (another domino-play "
                      f"of it?): this game's record goes to {self.path}")  # fmt: skip
        try:
            save_record(data, self.path)
        except OSError:
            self.give_back()  # the empty name it took: no record
            self._stamp = _stamp(self.path)  # this game's own failed write is no other program's change
            raise
        self._stamp = _stamp(self.path)
        self._reserved = None
        self.saved_moves = len(data["actions"])

    def give_back(self) -> None:
        """Remove the empty name this game took (beside another record) when no record was
        written there."""
        if self._reserved is not None and _stamp(self.path) == self._reserved:
            os.unlink(self.path)
        self._reserved = None

    def kept(self) -> str:
        """What the file holds after a failed :meth:`save` (a full disk: docs/cli.md), in words."""
        if not os.path.lexists(self.path):
            return "no record is there"
        if self.saved_moves is not None and _stamp(self.path) == self._stamp:  # saved at one of your turns
            go_on = record_hints(self.path, game_over=False).partition("; ")[2]
            return f"it keeps the game as last saved ({self.saved_moves} moves); {go_on}"
        return "the file is as it was"


def _stamp(path: str) -> tuple[int, int, int] | None:
    """What tells one version of a file from another: written through a new file renamed into
    place (save_record), each version is a new inode."""
    try:
        st = os.stat(path)
    except OSError:  # none there (or none to be seen: the save that follows says why)
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _free_name(path: str) -> str:
    """``game.json`` -> ``game-2.json`` (``-3`` ..., the first name not taken; ``.json.gz`` kept),
    taken by creating it empty: two games moving at once do not pick the same one."""
    k = 2
    while True:
        name = _beside(path, k)
        try:
            os.close(os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
            return name
        except FileExistsError:
            k += 1


def _beside(path: str, k: int) -> str:
    """``game.json`` -> ``game-K.json`` (``game.json.gz`` -> ``game-K.json.gz``)."""
    base = os.path.basename(path)
    gz = ".gz" if base.endswith(".gz") else ""
    stem, ext = os.path.splitext(base.removesuffix(gz))
    return os.path.join(os.path.dirname(path), f"{stem}-{k}{ext}{gz}")


def _next_name(path: str) -> str:
    """The name :func:`_free_name` would take now (not taken: for the check before any play)."""
    k = 2
    while os.path.lexists(name := _beside(path, k)):
        k += 1
    return name


def is_record_file(path: str) -> bool:
    """An earlier game record (which a new one may replace), not any other file."""
    try:
        load_record(path)
    except (DominoError, OSError):
        return False
    return True


def record_hints(record: str, game_over: bool) -> str:
    """How to view a written record and, when the game is not over, go on with it: with the
    command the user ran (a script of theirs that registers its agents, or ``domino-play``)."""
    word = shlex.quote(path_word(record))
    view = f"view it: domino-replay-html {word}"
    if record.endswith(".html"):  # its default page would be game.html.html: name a clearer one
        view += " -o " + shlex.quote(path_word(record.removesuffix(".html") + ".replay.html"))
    if game_over:
        return view
    return f"{view}; go on with it: {users_script(PLAY_MODULE) or 'domino-play'} --resume {word}"
