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
from dataclasses import fields
from pathlib import Path
from typing import IO, Any

from domino_env.core.errors import DominoError
from domino_env.train.tournament_results import GameRecord, is_count, seat_values

try:
    import fcntl
except ImportError:  # Windows: no advisory locks (JournalLock locks nothing)
    fcntl = None  # type: ignore[assignment]

#: The ``format`` of a journal's header line.
JOURNAL_FORMAT = "domino-evaluate journal"
#: What ``domino-evaluate --json PATH`` adds to ``PATH`` for its journal.
JOURNAL_SUFFIX = ".partial.jsonl"


class JournalError(DominoError):
    """A journal file that is not one, is the journal of another tournament (the message names
    the file and what differs), or could not be written (a full disk)."""


class JournalBusyError(JournalError):
    """Another process holds the journal's lock: it is playing a tournament into that file."""


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
            the fields that differ), or a line holds what this tournament could not have written
            (not P records of the deal's seed and seat rotations, wrong types) or repeats a deal
            with other records (the message names the line).
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
    if differ:  # (the episode kind is in the header and in env_kwargs: named once)
        raise JournalError(f"{path} is the journal of another tournament: {'; '.join(dict.fromkeys(differ))}")
    p, seed = int(want["env_kwargs"]["num_players"]), int(want["seed"])
    # elimination games: a journal from before seat_rounds were kept cannot say which rounds a
    # knocked-out seat sat out, and counting them all would not give the result of a run straight through
    eliminates = want.get("episode") == "game" and want["env_kwargs"].get("game_end") == "elimination"
    deals: dict[int, list[GameRecord]] = {}
    for number, line in enumerate(whole[1:], start=2):
        try:
            deal, records = _finished_deal(json.loads(line), p, seed, bool(want["env_kwargs"].get("teams")),
                                           str(want.get("episode")))  # fmt: skip
        except (ValueError, UnicodeDecodeError, KeyError, TypeError) as exc:
            raise JournalError(f"{path}: line {number} is not a finished deal of this tournament ({exc})") from None
        if eliminates and any(r.seat_rounds is None for r in records):
            raise JournalError(f"{path}: line {number} was written before the journal kept each seat's rounds "
                               "played (seat_rounds, 2026-12-05), which elimination games count pips and round "
                               "wins by: delete the journal and run the tournament again without --resume")  # fmt: skip
        if deals.setdefault(deal, records) != records:
            raise JournalError(f"{path}: line {number} repeats deal {deal} with other records")
    return deals, len(data) - len(lines[-1])


_INT_FIELDS = ("rounds", "blocked", "void", "steps", "annulled")


def _finished_deal(entry: Any, p: int, seed: int, teams: bool = False, episode: str = "round") -> tuple[int, list[GameRecord]]:
    """A journal line's deal number and its P records, checked against what the tournament
    itself fixes (the deal's env seed, the seat rotations, one record per rotation, the types,
    the win credits a round or game can give: :func:`_credit_problem`).

    Raises:
        ValueError / TypeError / KeyError: what is wrong."""
    from domino_env.train.tournament import deal_seed, rotation_seats  # (it imports this module)

    if not isinstance(entry, dict) or set(entry) != {"deal", "records"}:
        raise ValueError('expected {"deal": number, "records": [...]}')
    deal = entry["deal"]
    if not is_count(deal):
        raise ValueError(f"deal {deal!r} is not a deal number")
    raw = entry["records"]
    if not isinstance(raw, list) or len(raw) != p:
        raise ValueError(f"deal {deal}: {p} records expected, one per seat rotation")
    records = []
    for rotation, r in enumerate(sorted(raw, key=lambda r: r.get("rotation", -1) if isinstance(r, dict) else -1)):
        if not isinstance(r, dict) or set(r) not in (_FIELDS, _FIELDS - {"seat_rounds"}):  # (an older journal's)
            raise ValueError(f"deal {deal}: a record needs exactly the fields {sorted(_FIELDS)}")
        record = GameRecord(**r)
        if (record.deal, record.rotation, record.seed) != (deal, rotation, deal_seed(seed, deal)):
            raise ValueError(f"deal {deal}: a record of deal {record.deal!r}, rotation {record.rotation!r}, seed "
                             f"{record.seed!r} (expected rotation {rotation}, seed {deal_seed(seed, deal)})")  # fmt: skip
        if record.seats != rotation_seats(p, rotation):
            raise ValueError(f"deal {deal}, rotation {rotation}: seats {record.seats!r}")
        if not all(is_count(getattr(record, f)) for f in _INT_FIELDS) or not isinstance(record.truncated, bool):
            raise ValueError(f"deal {deal}, rotation {rotation}: counts must be integers >= 0")
        if not (seat_values(record.round_credit, p) and seat_values(record.pips, p, integers=True, low=None)
                and (record.game_credit is None or seat_values(record.game_credit, p))
                and (record.scores is None or seat_values(record.scores, p, integers=True, low=None))
                and (record.seat_rounds is None
                     or seat_values(record.seat_rounds, p, integers=True, high=record.rounds))):  # fmt: skip
            raise ValueError(f"deal {deal}, rotation {rotation}: per-seat values must be {p} numbers")
        if problem := _credit_problem(record, p, teams, episode):
            raise ValueError(f"deal {deal}, rotation {rotation}: {problem}")
        records.append(record)
    return deal, records


_FIELDS = {f.name for f in fields(GameRecord)}


def _credit_problem(record: GameRecord, p: int, teams: bool, episode: str) -> str | None:
    """Why ``record``'s win credits are none that its rounds or game could give, or None. A seat
    gets at most 1 a round it played (a k-way tie: 1/k each), and all seats together at most 1 a
    round; with ``teams`` (seats 0+2 against 1+3) partners share one result, so they get the same
    credit and a round gives at most 2 in all. A finished game gives exactly that share (a
    truncated one none); a round episode has no game credit."""
    share = p // 2 if teams else 1
    played = record.seat_rounds or [record.rounds] * p
    credit, game = record.round_credit, record.game_credit
    if any(c > n for c, n in zip(credit, played, strict=True)) or sum(credit) > share * record.rounds + 1e-6:
        return f"round win credits {credit} above 1 a round per seat (rounds played {played}) or {share} a round in all"
    if episode != "game" and game is not None:
        return f"game win credits {game} in a tournament of single rounds"
    if episode == "game" and not record.truncated and (game is None or max(game) > 1 or abs(sum(game) - share) > 1e-6):
        return f"game win credits {game}: a finished game gives at most 1 a seat and {share} in all"
    for values in (credit, game or []) if teams else ():
        if any(abs(values[s] - values[s + 2]) > 1e-6 for s in range(len(values) // 2)):
            return f"win credits {values} differ between partners (seats 0 and 2, 1 and 3)"
    return None


class JournalWriter:
    """Appends finished deals to a journal (a new one gets the header first)."""

    def __init__(self, path: Path, header: dict[str, Any], keep_bytes: int | None = None):
        """``keep_bytes``: continue an existing journal, dropping anything after that many bytes
        (a cut-short last line); None: start a new journal (an existing file is replaced)."""
        self.path = path
        self._file: IO[str]
        try:
            if keep_bytes is None:
                self._file = open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed in close())
                self._write(header)
            else:
                with open(path, "r+b") as f:
                    f.truncate(keep_bytes)
                self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise self._error(exc) from exc

    def _error(self, exc: OSError) -> JournalError:
        return JournalError(f"{self.path} could not be written ({exc.strerror or exc})")

    def _write(self, entry: dict[str, Any]) -> None:
        try:
            self._file.write(json.dumps(entry, separators=(",", ":")) + "\n")
            self._file.flush()
        except OSError as exc:
            raise self._error(exc) from exc

    def add(self, records: list[GameRecord]) -> None:
        """Record finished deals (``records``: whole deals, all rotations of each)."""
        by_deal: dict[int, list[dict[str, Any]]] = {}
        for r in records:  # (its fields, as asdict gives them without the deep copy: a quarter of the cost)
            by_deal.setdefault(r.deal, []).append(vars(r))
        for deal, recs in by_deal.items():
            self._write({"deal": deal, "records": recs})

    def close(self) -> None:
        """Close the file. Every line was flushed when written, so a failure here (a full disk)
        loses nothing that was kept, and must not hide the error or interrupt that ended the play."""
        try:
            self._file.close()
        except OSError:
            pass


#: (device, inode) of each journal this process holds the lock of, and how many holders it has.
_HELD: dict[tuple[int, int], list[int]] = {}


class JournalLock:
    """An exclusive advisory lock (``fcntl.flock``, taken without waiting) on a journal, held until
    :meth:`release`: two runs appending to one journal would mix their deals. Holders in one
    process share it (``domino-evaluate`` takes it before its checks, then ``evaluate`` inside it).
    Where ``fcntl`` is missing (Windows), or the file system cannot lock, nothing is locked.

    Args:
        path: the journal; created, empty (a new journal), when missing and ``create``.

    Raises:
        JournalBusyError: another process holds the lock (the message names the file).
    """

    def __init__(self, path: str | os.PathLike[str], create: bool = True):
        self.path = Path(path)
        self.created = False
        self.held = False
        self._key: tuple[int, int] | None = None
        if fcntl is None:
            return
        for _ in range(5):  # the holder may remove the file as we open it: open the new one
            existed = self.path.exists()
            try:  # (read-only is enough to lock; a journal this user may not write is refused later)
                fd = os.open(self.path, os.O_RDONLY | (os.O_CREAT if create else 0), 0o666)
            except OSError:
                return  # missing (not create), unreadable: the callers' checks say so
            stat = os.fstat(fd)
            key = (stat.st_dev, stat.st_ino)
            if key in _HELD:  # this process holds it already
                os.close(fd)
                _HELD[key][1] += 1
                self._key, self.held, self.created = key, True, False
                return
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise JournalBusyError(f"{self.path} is being written by another process (it holds the file's "
                                       "lock): two runs of one tournament would mix their deals in it") from None  # fmt: skip
            except OSError:  # a file system without locks: go on unlocked
                os.close(fd)
                return
            try:
                same = os.stat(self.path).st_ino == stat.st_ino
            except OSError:
                same = False
            if same:
                _HELD[key] = [fd, 1]
                self._key, self.held, self.created = key, True, not existed
                return
            os.close(fd)  # removed or replaced meanwhile: lock the file now at the path

    def release(self) -> None:
        """Let go of the lock (the last holder of this process unlocks the file), removing the file
        if this lock created it and it is still empty (nothing was played); idempotent."""
        if not self.held or self._key is None:
            return
        self.held = False
        entry = _HELD[self._key]
        entry[1] -= 1
        if entry[1] == 0:
            try:
                if self.created and os.fstat(entry[0]).st_size == 0 and os.stat(self.path).st_ino == self._key[1]:
                    self.path.unlink()
            except OSError:
                pass
            del _HELD[self._key]
            os.close(entry[0])  # (closing the only descriptor of the lock releases it)
