"""What ``domino-evaluate`` writes besides its table: the journal of finished deals it keeps
beside ``--json PATH`` (checked before any play, continued with ``--resume``) and the provenance
in the ``--json`` file (the command and the package version).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from domino_env.core.errors import DominoError
from domino_env.envs.games import make_raw_env
from domino_env.train.tournament_journal import (
    JOURNAL_SUFFIX,
    JournalBusyError,
    JournalError,
    JournalLock,
    journal_header,
    journal_path,
    read_journal,
)


@dataclass
class Journal:
    """The journal a ``domino-evaluate --json PATH`` run keeps: its file, the header of this
    tournament and the number of deals the tournament has."""

    path: Path
    header: dict[str, Any]
    deals: int
    lock: JournalLock | None = None

    def release(self) -> None:
        """Let go of the journal's lock (:class:`JournalLock`: held from the checks to the end)."""
        if self.lock is not None:
            self.lock.release()

    def kept(self) -> int:
        """Deals of this tournament the file holds (0 if it is missing, empty or unreadable)."""
        try:
            deals, _ = read_journal(self.path, self.header)
        except (OSError, DominoError):
            return 0
        return sum(d < self.deals for d in deals)

    def kept_line(self, kept: int | None = None) -> str:
        """What is kept (``kept`` deals: default :meth:`kept`) and how to go on (for the messages of
        an interrupted or failed run)."""
        kept = self.kept() if kept is None else kept
        return (f"{kept} of {self.deals} deal{'s' * (self.deals != 1)} played, kept in {self.path}: the same "
                "command with --resume "
                "continues it")  # fmt: skip


def check_journal(parser: argparse.ArgumentParser, args: argparse.Namespace, players: int,
                  kwargs: dict[str, Any]) -> Journal | None:  # fmt: skip
    """The journal this run keeps (``--json PATH``: PATH + :data:`JOURNAL_SUFFIX`; None without
    one), checked before any play: one left by an interrupted run is continued with ``--resume``
    and only then (it would be lost), must be this tournament's, and its folder (and, continued,
    the file) writable, and no other process may be writing it (this run holds its lock from
    now on: :meth:`Journal.release`). Prints how many deals it holds when continued."""
    path = journal_path(args.json) if args.json not in (None, "-") else None
    if args.resume and path is None:
        parser.error(f"--resume continues the tournament that an interrupted run left in PATH{JOURNAL_SUFFIX} "
                     "of its --json PATH: give that --json PATH")  # fmt: skip
    if path is None:
        return None
    if path.exists() and not path.is_file():
        parser.error(f"--json {args.json}: {path}, where this command keeps the finished deals, is not a file")
    folder = path.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        parser.error(f"--json {args.json}: the folder {folder} is not writable (the result and {path}, where "
                     "the finished deals are kept, are written there)")  # fmt: skip
    env = make_raw_env(args.game, num_players=players, episode=args.episode, **kwargs)
    header = journal_header(args.game, env.env_kwargs, list(args.agents), args.seed, args.episode)
    try:  # first: a run still playing would otherwise look like an interrupted one
        lock = JournalLock(path, create=not args.resume)
    except JournalBusyError:
        parser.error(f"--json {args.json}: another domino-evaluate is writing {path}, this tournament's journal "
                     f"(two runs would mix their deals in it); once that one stops, {args.json} holds its result, "
                     "or, if it was interrupted, the same command with --resume continues it")  # fmt: skip
    journal = Journal(path, header, -(-args.rounds // players), lock)
    try:
        _check_started(parser, args, journal)
    except BaseException:
        journal.release()
        raise
    return journal


def _check_started(parser: argparse.ArgumentParser, args: argparse.Namespace, journal: Journal) -> None:
    """A journal with deals is continued with ``--resume`` and only then; one to continue must be
    this tournament's and writable."""
    path, header = journal.path, journal.header
    started = path.is_file() and path.stat().st_size > 0  # (an empty file is a new journal)
    if not args.resume and started and _lines(path) <= 1:  # a header and no deal: nothing to keep
        path.write_text("")  # emptied, not removed: this run holds the lock on this file
        started = False
    if not args.resume:
        if started:
            parser.error(f"--json {args.json}: {path} holds the finished deals of an interrupted tournament; "
                         "give --resume to continue it, or delete it")  # fmt: skip
        return
    if not started:
        parser.error(f"--resume: {path} not found (or empty): no interrupted tournament of --json {args.json} "
                     "to continue")  # fmt: skip
    try:
        deals, _ = read_journal(path, header)
    except JournalError as exc:
        parser.error(f"--resume: {exc}; give the flags of that tournament, or delete the file")
    except OSError as exc:
        parser.error(f"--resume: {path} could not be read ({exc.strerror or exc})")
    if not os.access(path, os.W_OK):
        parser.error(f"--resume: {path} is not writable (this run adds its deals to it)")
    played = sum(d < journal.deals for d in deals)
    print(f"continuing the tournament of {path}: {played} of {journal.deals} deals played before",
          file=sys.stderr, flush=True)  # fmt: skip


def _lines(path: Path) -> int:
    """Non-blank lines of the journal at ``path`` (its header and one a deal); 2 once a deal is in
    (an unreadable file counts as started: the refusal names it)."""
    try:
        with path.open("rb") as f:
            count = 0
            for line in f:
                count += bool(line.strip())
                if count > 1:
                    break
            return count
    except OSError:
        return 2


def with_provenance(result: dict[str, Any], argv: Sequence[str], script: str | None = None) -> dict[str, Any]:
    """``--json``'s content: the result, the command that plays the tournament again (as it was
    started, ``script`` being ``sys.argv[0]`` of a command-line start: the console script,
    ``python -m``, or a script of the user's that registers its own agents; for a call from Python,
    ``python -m domino_env.train.evaluate`` unless this process is a console script; without
    ``--resume``, which only says how this run began) and the package version."""
    import shlex

    from domino_env import __version__
    from domino_env.train.cli import users_script
    from domino_env.train.run_folder import command_line

    args = [a for a in argv if a != "--resume"]
    own = Path(__file__).with_name("evaluate.py")  # python -m domino_env.train.evaluate
    mine = users_script(own, script) if script is not None else None
    if mine is not None:
        command = " ".join([mine, shlex.join(args)]) if args else mine
    else:
        command = command_line("train.evaluate", args, script)
    return {**result, "command": command, "package_version": __version__}
