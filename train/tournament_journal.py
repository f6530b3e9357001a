"""The journal of a tournament: its finished deals, kept on disk as they finish, so that an
interrupted tournament continues where it stopped (``evaluate(..., journal=PATH)``;
``domino-evaluate --json PATH`` keeps it beside the result, ``--resume`` continues it).

A JSON-lines file: the first line is the tournament's header (:func:`journal_header`: game,
rules, agents, seed, episode kind, package version), each further line one finished deal,
``{"deal": d, "records": [GameRecord, ...]}`` with its P episodes. A deal's line is written and
flushed when the deal finishes, so an interruption loses only the deals being played; a last line
cut short (the process killed while writing it) is dropped and overwritten. Deals are played
from independent seeds (:func:`~domino_env.train.tournament.deal_seed`), so a continued
tournament gives exactly the records, and so the statistics, of one played straight through.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from domino_env.core.errors import DominoError
from domino_env.train.tournament_results import GameRecord

#: The ``format`` of a journal's header line.
JOURNAL_FORMAT = "domino-evaluate journal"
#: What ``domino-evaluate --json PATH`` adds to ``PATH`` for its journal.
JOURNAL_SUFFIX = ".partial.jsonl"


class JournalError(DominoError):
    """A journal file that is not one, or is the journal of another tournament (the message names
    the file and what differs)."""


def journal_path(json_path: str | os.PathLike[str]) -> Path:
    """The journal ``domino-evaluate --json json_path`` keeps: ``json_path + ".partial.jsonl"``."""
    return Path(str(json_path) + JOURNAL_SUFFIX)


def journal_header(
    game: str, env_kwargs: dict[str, Any], agents: list[str], seed: int, episode: str
) -> dict[str, Any]:
    """What must be equal for two runs to share deals: the game and its full rules (the env's
    ``env_kwargs``, seats included), the agent labels in seat order, the tournament seed and the
    episode kind (the number of deals is not: deal ``d`` is the same deal in a longer or shorter
    tournament), and the package version (another engine might play a deal otherwise)."""
    from domino_env import __version__

    return {
        "format": JOURNAL_FORMAT,
        "game": game,
        "env_kwargs": env_kwargs,
        "agents": list(agents),
        "seed": int(seed),
        "episode": episode,
        "package_version": __version__,
    }


def _normal(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists), for comparing headers."""
    return json.loads(json.dumps(value))


def read_journal(path: Path, header: dict[str, Any]) -> tuple[dict[int, list[GameRecord]], int]:
    """The finished deals of the journal at ``path`` (``{deal: its records}``) and the byte length
    of its whole lines (a cut-short last line is not counted: it is overwritten).

    Raises:
        JournalError: ``path`` is not a journal, or one of another tournament (the message names
            the fields that differ).
    """
    data = path.read_bytes()
    lines = data.split(b"\n")
    whole = lines[:-1]  # the part after the last newline is empty, or a line cut short
    try:
        found = json.loads(whole[0]) if whole else None
    except (ValueError, UnicodeDecodeError):
        found = None
    if not isinstance(found, dict) or found.get("format") != JOURNAL_FORMAT:
        raise JournalError(f"{path} is not a {JOURNAL_FORMAT} (its first line is not one's header)")
    want = _normal(header)
    differ = []
    for key, value in want.items():
        had = found.get(key)
        if isinstance(value, dict) and isinstance(had, dict):  # the rules: name the fields that differ
            differ += [f"{k} {had.get(k)!r} there, {value.get(k)!r} here" for k in {**had, **value}
                       if had.get(k) != value.get(k)]  # fmt: skip
        elif had != value:
            differ.append(f"{key} {had!r} there, {value!r} here")
    if differ:
        raise JournalError(f"{path} is the journal of another tournament: {'; '.join(differ)}")
    deals: dict[int, list[GameRecord]] = {}
    for number, line in enumerate(whole[1:], start=2):
        try:
            entry = json.loads(line)
            deals[int(entry["deal"])] = [GameRecord(**r) for r in entry["records"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise JournalError(f"{path}: line {number} is not a finished deal ({exc})") from None
    return deals, len(data) - len(lines[-1])


class JournalWriter:
    """Appends finished deals to a journal (a new one gets the header first)."""

    def __init__(self, path: Path, header: dict[str, Any], keep_bytes: int | None = None):
        """``keep_bytes``: continue an existing journal, dropping anything after that many bytes
        (a cut-short last line); None: start a new journal (an existing file is replaced)."""
        self.path = path
        self._file: IO[str]
        if keep_bytes is None:
            self._file = open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed in close())
            self._write(header)
        else:
            with open(path, "r+b") as f:
                f.truncate(keep_bytes)
            self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115

    def _write(self, entry: dict[str, Any]) -> None:
        self._file.write(json.dumps(entry, separators=(",", ":")) + "\n")
        self._file.flush()

    def add(self, records: list[GameRecord]) -> None:
        """Record finished deals (``records``: whole deals, all rotations of each)."""
        by_deal: dict[int, list[dict[str, Any]]] = {}
        for r in records:
            by_deal.setdefault(r.deal, []).append(asdict(r))
        for deal, recs in by_deal.items():
            self._write({"deal": deal, "records": recs})

    def close(self) -> None:
        self._file.close()
