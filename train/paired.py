"""Paired comparisons on duplicate deals: is agent A better than agent B *on the same deals*?

Two tournaments played with the same ``--seed`` and ``--rounds`` deal the same hands, so the
difference between two agents can be measured deal by deal. Where the luck of a deal moves both
agents' results alike (their per-deal values correlate), that interval is narrower than the two
agents' own intervals combined; where it does not, it is about as wide, and still the right test
for two results on the same deals. Both tournaments need their episode records
(``domino-evaluate --records --json FILE``, or ``evaluate(..., keep_records=True)``).

For each deal, an agent's value is the mean over its seat-episodes of that deal (every seat
rotation) of its win credit, counted exactly as the tournament's win rate counts it (round or game
credit, 1/k for a k-way shared win, 0 for a truncated episode), or, with ``metric="pips"``, its
pips left per round. The paired difference is the mean over deals of ``A's value - B's value`` with
a 95% t interval over the per-deal differences (``domino_env.train.intervals.mean_interval``).
B may be another agent of the same tournament (``a`` and ``b`` the same file): the model's pips
minus its opponents' pips, deal by deal.

Command line::

    domino-paired A.json B.json [--agent NAME] [--agent-b NAME] [--metric win|pips]

(or ``python -m domino_env.train.paired``)

prints A's and B's means over the deals, then ``A - B: +0.043 [+0.013, +0.072] over 250 deals
(win credit)``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from domino_env.core.errors import AgentSpecError, ConfigError, DominoError
from domino_env.core.files import read_at_most
from domino_env.train.intervals import mean_interval, wilson_interval
from domino_env.train.tournament_journal import JOURNAL_SUFFIX
from domino_env.train.tournament_results import is_count, played_rounds, seat_values, win_credit

METRICS = ("win", "pips")
#: The most bytes :func:`load_result` reads: a ``--records`` file takes about 250 bytes an episode
#: (two seats; more with more), so this is some 4 million episodes; anything larger is not a
#: result to hold in memory (``/dev/zero`` was read until the memory ran out).
MAX_RESULT_BYTES = 2**30


@dataclass(frozen=True)
class PairedDifference:
    """The result of :func:`paired_difference`.

    Attributes:
        mean: mean over deals of A's per-deal value minus B's (win credit in [-1, 1], or pips).
        ci95: 95% t interval of ``mean`` over the per-deal differences (win credit: clipped to
            [-1, 1]; where every deal has the same nonzero difference, Wilson's interval of
            ``(mean + 1) / 2`` with one trial per deal, mapped back; where no deal differs,
            plus or minus Wilson's upper bound for 0 deals of ``deals`` differing;
            ``(-inf, inf)`` with one deal, and for pips the same on every deal).
        deals: deals compared.
        mean_a, mean_b: A's and B's means over those deals (their win rates with ``metric="win"``;
            with ``"pips"`` a mean of per-deal ratios, which can differ from the tournament
            table's pooled pips per round when episodes differ in length, as whole games do).
        metric: ``"win"`` or ``"pips"``.
        agent_a, agent_b: the labels compared.
        skipped: deals left out because one side finished no round in them (``"pips"`` only:
            every episode of the deal truncated).
    """

    mean: float
    ci95: tuple[float, float]
    deals: int
    mean_a: float
    mean_b: float
    metric: str
    agent_a: str
    agent_b: str
    skipped: int = 0

    def text(self) -> str:
        """``A - B: +0.043 [+0.013, +0.072] over 250 deals (win credit)``; "no interval" with one deal."""
        dec = 3 if self.metric == "win" else 2
        lo, hi = self.ci95
        ci = (f"[{lo:+.{dec}f}, {hi:+.{dec}f}]" if math.isfinite(lo) else "(one deal: no interval)" if self.deals < 2
              else "(the same difference on every deal: no interval)")  # fmt: skip
        what = "win credit" if self.metric == "win" else "pips left per round"
        skipped = f"; {_deals(self.skipped)} without a finished round left out" if self.skipped else ""
        return f"A - B: {self.mean:+.{dec}f} {ci} over {_deals(self.deals)} ({what}{skipped})"


def _deals(n: int) -> str:
    return f"{n} deal{'' if n == 1 else 's'}"


_RECORDS_HINT = ("run domino-evaluate with --records --json FILE, or keep_records=True and "
                 "to_dict(records=True) in Python")  # fmt: skip


def _as_dict(result: Any, side: str | None = None) -> Mapping[str, Any]:
    """A result dict; an ``EvaluationResult`` becomes ``to_dict(records=True)``; a list or tuple
    of results (same agents, game and rules; other seeds) becomes one with all their records.
    ``side`` ("A" or "B": the argument of :func:`paired_difference`) is named in a list's errors."""
    if isinstance(result, list | tuple):
        where = f"{side}'s list" if side else "the list"
        if not result:
            raise DominoError(f"an empty list of tournaments{f' as {side}' if side else ''}")
        for i, item in enumerate(result):  # (a list in it was pooled too, past the checks below)
            if isinstance(item, list | tuple):
                raise DominoError(f"tournament {i} of {where} is itself a list: give one flat list of the "
                                  "results to pool")  # fmt: skip
        parts = [_as_dict(r) for r in result]

        def named(k: int) -> str:  # "tournament 2 (runs/s3.json)": the file load_result read it from, as given
            path = result[k].path if isinstance(result[k], ResultFile) else None
            return f"{k} ({path})" if path is not None else str(k)

        seeds: dict[str, int] = {}  # a seed's repr -> the first tournament of the list played with it
        for i, part in enumerate(parts):
            problem = _differences(parts[0], part, ("the first", "this"))
            if problem or list(part.get("agents") or []) != list(parts[0].get("agents") or []):
                raise DominoError(f"tournament {named(i)} of {where} differs from the first in "
                                  f"{problem or 'its agents'}: pool only tournaments of one line-up and rules")  # fmt: skip
            same = next((k for k in range(i) if result[k] is result[i]), None)
            if same is not None:  # (its records would repeat every deal: "the records are damaged")
                raise DominoError(f"tournament {named(i)} of {where} is tournament {same} again: the same result "
                                  "given twice; pool results played with other seeds")  # fmt: skip
            if part.get("seed") is not None and seeds.setdefault(repr(part["seed"]), i) != i:
                raise DominoError(f"tournaments {named(seeds[repr(part['seed'])])} and {named(i)} of {where} have the "
                                  f"same seed ({part['seed']!r}), so the same deals: the same result given twice? pool "
                                  "results played with other seeds")  # fmt: skip
        return {**parts[0], "seed": [part.get("seed") for part in parts],
                "records": [rec for part in parts for rec in part.get("records") or []]}  # fmt: skip
    if hasattr(result, "to_dict"):
        return result.to_dict(records=True)
    if not isinstance(result, Mapping):  # a path was "'PosixPath' object has no attribute 'get'"
        hint = "; read a --json file with load_result(path) first" if isinstance(result, str | os.PathLike) else ""
        raise ConfigError("result", result, f"a tournament result (a dict, an EvaluationResult or a list of them){hint}")
    return result


def deal_values(result: Mapping[str, Any], agent: str, metric: str = "win") -> dict[tuple[int, int], float]:
    """Per deal, ``agent``'s mean value in a tournament result with records.

    Args:
        result: a tournament as ``--json`` writes it with ``--records`` (keys ``agents``,
            ``episode`` and ``records``: each record's ``deal``, ``seed``, ``seats``, ``rounds``,
            ``seat_rounds`` (if any), ``round_credit``, ``game_credit``, ``pips``, ``truncated``), or an
            ``EvaluationResult`` kept with its records.
        agent: an agent label of ``result["agents"]``.
        metric: ``"win"`` (win credit per seat-episode, as the win rate counts it: 1, 1/k for a
            k-way shared win, 0 for a truncated episode) or ``"pips"`` (pips left per round
            played: not the rounds a seat knocked out of an elimination game sat out).

    Returns:
        ``{(deal number, deal seed): value}``, which two tournaments with the same ``seed`` and
        ``rounds`` share. With ``"pips"`` a deal in which the agent finished no round (every
        episode truncated) has the value ``nan``.

    Raises:
        ConfigError: ``metric`` unknown or ``agent`` not in the tournament (field ``agent``).
        DominoError: the result has no records, or a record is damaged (the message names the
            record by its index, the field and what it must be), or a deal lacks some of its seat
            rotations or repeats one (the message names the deal and the rotations).
    """
    result = _as_dict(result)
    if metric not in METRICS:
        raise ConfigError("metric", metric, ", ".join(METRICS))
    names = [str(n) for n in (result.get("agents") or [])]
    if agent not in names:
        raise AgentSpecError(agent, "an agent of the tournament: " + ", ".join(dict.fromkeys(names)))
    records = result.get("records")
    if not records:
        raise DominoError(f"the tournament has no episode records: {_RECORDS_HINT}")
    p = len(names)  # one agent per seat
    idx = {i for i, n in enumerate(names) if n == agent}
    game_mode = result.get("episode") == "game"
    sums: dict[tuple[int, int], list[float]] = {}
    seen: dict[tuple[int, int], dict[int, int]] = {}  # deal -> {rotation: index of its record}
    for i, rec in enumerate(records):
        deal, rotation, seed, seats = _checked_record(rec, i, p, game_mode)
        key = (deal, seed)
        rotations = seen.setdefault(key, {})
        if rotation in rotations:
            raise DominoError(f"records[{i}] repeats deal {deal} (seed {seed}) rotation {rotation} "
                              f"of records[{rotations[rotation]}]: the records are damaged")  # fmt: skip
        rotations[rotation] = i
        acc = sums.setdefault(key, [0.0, 0.0])
        for s, who in enumerate(seats):
            if who not in idx:
                continue
            if metric == "pips":
                acc[0] += rec["pips"][s]
                acc[1] += played_rounds(rec, s)  # (rounds a knocked-out seat sat out are not its)
            else:
                credit = rec["game_credit"] if game_mode else rec["round_credit"]
                acc[0] += float(win_credit(credit, bool(rec.get("truncated")), s))
                acc[1] += 1
    short = {key: sorted(set(range(p)) - set(rots)) for key, rots in seen.items() if len(rots) < p}
    if short:
        (deal, seed), missing = next(iter(short.items()))
        others = (f"; {_deals(len(short) - 1).replace(' ', ' other ', 1)} {'lacks' if len(short) == 2 else 'lack'} "
                  "rotations too") if len(short) > 1 else ""  # fmt: skip
        which = f"rotation{'s' * (len(missing) > 1)} {', '.join(map(str, missing))}"
        raise DominoError(f"deal {deal} (seed {seed}) lacks seat {which} "
                          f"(a deal has one record per rotation 0..{p - 1}){others}: the records are damaged")  # fmt: skip
    return {key: (total / n if n else math.nan) for key, (total, n) in sums.items()}


def _checked_record(rec: Any, i: int, p: int, game_mode: bool) -> tuple[int, int, int, list[int]]:
    """A tournament record's deal, rotation, seed and seats, after checking every field that
    :func:`deal_values` reads. Raises DominoError naming the record, the field and what it must be."""
    from domino_env.train.tournament import rotation_seats  # (the envs: only when records are read)

    if not isinstance(rec, dict):
        raise DominoError(f"records[{i}] is damaged: it is {_shown(rec)}, expected a record (a JSON object "
                          "with deal, rotation, seed, seats, rounds, round_credit, pips...)")  # fmt: skip
    seats = rotation_seats(p, rec["rotation"]) if is_count(rec.get("rotation")) else None  # (checked first)
    expected = {
        "deal": (is_count, "an integer >= 0 (the deal number)"),
        "rotation": (lambda v: is_count(v) and v < p, f"an integer 0..{p - 1} (the seat rotation)"),
        "seed": (is_count, "an integer >= 0 (the deal's env seed)"),
        "seats": (lambda v: v == seats, f"the agent index at each seat in rotation {rec.get('rotation')!r}: {seats}"),
        "rounds": (is_count, "an integer >= 0"),
        "game_credit" if game_mode else "round_credit": (
            lambda v: seat_values(v, p, high=1.0) or (game_mode and v is None),
            f"a list of {p} win credits in [0, 1], one per seat" + " (or null)" * game_mode),
        "pips": (lambda v: seat_values(v, p, integers=True), f"a list of {p} integers >= 0, one per seat"),
    }  # fmt: skip
    where = ""
    for name, (ok, what) in expected.items():
        if name not in rec:
            raise DominoError(f"records[{i}]{where} is damaged: it has no field {name!r} ({what})")
        if not ok(rec[name]):
            raise DominoError(f"records[{i}]{where} is damaged: field {name!r} is {_shown(rec[name])}, expected {what}")
        if name == "rotation":
            where = f" (deal {rec['deal']}, rotation {rec['rotation']})"
    if rec.get("seat_rounds") is not None and not seat_values(rec["seat_rounds"], p, integers=True, high=rec["rounds"]):
        raise DominoError(f"records[{i}]{where} is damaged: field 'seat_rounds' is {_shown(rec['seat_rounds'])}, "
                          f"expected a list of {p} integers from 0 to its rounds, one per seat (or null)")  # fmt: skip
    if not isinstance(rec.get("truncated", False), bool):
        raise DominoError(f"records[{i}]{where} is damaged: field 'truncated' is {_shown(rec['truncated'])}, "
                          "expected true or false")  # fmt: skip
    return rec["deal"], rec["rotation"], rec["seed"], rec["seats"]


def _shown(value: Any) -> str:
    """``value`` for a message: its repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _differences(a: Mapping[str, Any], b: Mapping[str, Any], names: tuple[str, str] = ("A", "B")) -> str | None:
    """What makes two tournaments unpairable, or None."""
    na, nb = names
    for key in ("game", "num_players", "episode"):
        if a.get(key) != b.get(key):
            return f"{key} ({a.get(key)!r} in {na}, {b.get(key)!r} in {nb})"
    ka, kb = a.get("env_kwargs") or {}, b.get("env_kwargs") or {}
    keys = sorted(k for k in set(ka) | set(kb) if ka.get(k) != kb.get(k))
    if keys:
        return "rules: " + ", ".join(f"{k} ({ka.get(k)!r} in {na}, {kb.get(k)!r} in {nb})" for k in keys)
    return None


def paired_difference(a: Any, b: Any, agent_a: str | None = None,
                      agent_b: str | None = None, metric: str = "win") -> PairedDifference:  # fmt: skip
    """A's per-deal value in tournament ``a`` minus B's in tournament ``b``, deal by deal.

    Args:
        a, b: tournament results with records (:func:`deal_values`); they may be the same one,
            with two different agents. Either may be a list of results of one line-up and rules
            played with other seeds, whose deals are pooled (``[a_seed0, a_seed1]`` against
            ``[b_seed0, b_seed1]``).
        agent_a: A's label in ``a`` (default: the first agent listed in ``a``).
        agent_b: B's label in ``b`` (default: ``agent_a``'s label when it played in ``b``, else
            the first agent listed in ``b``).
        metric: ``"win"`` or ``"pips"``.

    Raises:
        ConfigError: an agent label that did not play (field ``agent_a`` or ``agent_b``), or an
            unknown ``metric``.
        DominoError: the two tournaments differ in game, players, episode type, rules (naming the
            fields) or deals (pair only tournaments played with the same rules, ``--seed`` and
            ``--rounds``); A and B are one agent of one tournament; a :func:`deal_values` error
            (naming tournament A or B).
    """
    same = a is b
    a = _as_dict(a, "A")
    b = a if same else _as_dict(b, "B")
    problem = _differences(a, b)
    if problem:
        raise DominoError(f"the two tournaments differ in {problem}: "
                          "pair only tournaments of the same game and rules")  # fmt: skip
    agents_a, agents_b = [str(n) for n in a.get("agents") or []], [str(n) for n in b.get("agents") or []]
    agent_a = agent_a if agent_a is not None else (agents_a[0] if agents_a else "")
    if agent_b is None:
        agent_b = agent_a if agent_a in agents_b and not same else (agents_b[0] if agents_b else "")
    if same and agent_a == agent_b:
        raise DominoError(f"A and B are the same agent ({agent_a!r}) of one tournament: "
                          "name another agent as B")  # fmt: skip
    values = []
    for side, result, agent in (("A", a, agent_a), ("B", b, agent_b)):
        try:
            values.append(deal_values(result, agent, metric))
        except ConfigError as exc:
            if exc.field != "agent":
                raise
            agents = ", ".join(dict.fromkeys(str(n) for n in result.get("agents") or []))
            raise ConfigError(f"agent_{side.lower()}", agent, f"an agent of tournament {side}: {agents}") from None
        except DominoError as exc:
            raise DominoError(f"tournament {side}: {exc}") from None
    va, vb = values
    if set(va) != set(vb):
        played = "; ".join(f"{side}: seed {r.get('seed')}, {_deals(len(v))}" for side, r, v in (("A", a, va), ("B", b, vb)))
        raise DominoError(f"the two tournaments played different deals ({played}; {len(set(va) ^ set(vb))} of "
                          f"{len(set(va) | set(vb))} not in both): use the same --seed and --rounds")  # fmt: skip
    keys = [k for k in sorted(va) if not (math.isnan(va[k]) or math.isnan(vb[k]))]
    if not keys:
        raise DominoError("no deal has a finished round on both sides (every episode truncated): "
                          "nothing to compare")  # fmt: skip
    diffs = [va[k] - vb[k] for k in keys]
    lo, hi = mean_interval(diffs)
    n = len(keys)
    if metric == "win":
        if n >= 2 and max(diffs) - min(diffs) < 1e-9 and abs(diffs[0]) >= 1e-9:
            # every deal the same nonzero difference (A won each deal, B lost it): a t interval of no
            # width; as the tables' per-deal interval, Wilson's with one trial per deal, of (A - B + 1) / 2
            w_lo, w_hi = wilson_interval((sum(diffs) / n + 1) / 2 * n, n)
            lo, hi = 2 * w_lo - 1, 2 * w_hi - 1
        elif n >= 2 and max(map(abs, diffs)) < 1e-9:
            # no deal differs (two models that played alike): a t interval of no width; the share of
            # deals that differ is at most Wilson's upper bound of 0 in n, and each differs by at most 1
            share = wilson_interval(0, n)[1]
            lo, hi = -share, share
        lo, hi = max(-1.0, lo), min(1.0, hi)
    elif n >= 2 and max(diffs) - min(diffs) < 1e-9:
        # the same pips difference on every deal: a t interval of no width claims it for every deal;
        # pips have no bound (as win credit has) to give one from the count alone
        lo, hi = -math.inf, math.inf
    return PairedDifference(mean=sum(diffs) / n, ci95=(lo, hi), deals=n, mean_a=sum(va[k] for k in keys) / n,
                            mean_b=sum(vb[k] for k in keys) / n, metric=metric, agent_a=agent_a,
                            agent_b=agent_b, skipped=len(va) - n)  # fmt: skip


class ResultFile(dict):
    """A tournament result dict as :func:`load_result` read it, with the ``path`` it was read from
    (as given): a list of them that gives one file twice names it."""

    path: str | None = None  # (None: made in Python, not by load_result)


def load_result(path: str | Path) -> dict[str, Any]:
    """A ``--json`` tournament file (a :class:`ResultFile`: a dict that knows its path). Raises
    DominoError (one line) for a missing or damaged file, or one of more than
    :data:`MAX_RESULT_BYTES` (1 GiB)."""
    if str(path).endswith(JOURNAL_SUFFIX):  # an interrupted tournament's: its JSON is not written yet
        json_path = str(path)[: -len(JOURNAL_SUFFIX)]
        raise DominoError(f"{path}: the journal of an interrupted tournament, not its result: finish it "
                          f"with its domino-evaluate command and --json {json_path} --resume, then give {json_path}")  # fmt: skip
    try:
        raw = read_at_most(path, MAX_RESULT_BYTES)
        if len(raw) > MAX_RESULT_BYTES:
            raise DominoError(f"{path} holds more than {MAX_RESULT_BYTES // 2**30} GiB: not a tournament JSON file "
                              "(domino-evaluate --json writes one)")  # fmt: skip
        data = json.loads(raw.decode("utf-8"))
    except OSError as exc:
        raise DominoError(f"{path}: {exc.strerror or exc}") from None
    except RecursionError:
        raise DominoError(f"{path}: not a tournament JSON file (nested too deeply)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DominoError(f"{path}: not a tournament JSON file ({exc})") from None
    if _results_list(data):  # (as paired_difference pools them: not what --json writes)
        raise DominoError(f"{path}: a JSON list of tournaments, not a tournament JSON file (domino-evaluate --json "
                          "writes one object): give one tournament per side; to pool several seeds' tournaments, "
                          "pass a list of load_result(FILE) to paired_difference in Python")  # fmt: skip
    if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
        raise DominoError(f"{path}: not a tournament JSON file (domino-evaluate --json writes one)")
    result = ResultFile(data)
    result.path = str(path)
    return result


def _results_list(data: Any) -> bool:
    """``data`` is a non-empty JSON list of tournament results (objects with an ``agents`` list),
    or of such lists."""
    return isinstance(data, list) and bool(data) and all(
        isinstance(d, dict) and isinstance(d.get("agents"), list) or _results_list(d) for d in data)  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    from domino_env.train.cli import ArgumentParser

    parser = ArgumentParser(
        prog="domino-paired",
        description="Paired per-deal difference between two agents on the same duplicate deals "
        "(two domino-evaluate --records --json files with the same rules, --seed and --rounds).",
    )
    parser.add_argument("a", help="tournament JSON of agent A (domino-evaluate --records --json A.json)")
    parser.add_argument("b", help="tournament JSON of agent B (may be A.json: another agent of it)")
    parser.add_argument("--agent", default=None, help="A's label in A.json (default: its first agent)")
    parser.add_argument("--agent-b", default=None,
                        help="B's label in B.json (default: A's label if it played there, else B.json's first agent)")  # fmt: skip
    parser.add_argument("--metric", choices=METRICS, default="win",
                        help="win: win credit (the win rate's); pips: pips left per round (default: win)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        a = load_result(args.a)
        b = a if Path(args.b).resolve() == Path(args.a).resolve() else load_result(args.b)
        result = paired_difference(a, b, args.agent, args.agent_b, args.metric)
    except ConfigError as exc:
        if exc.field not in ("agent_a", "agent_b"):
            raise
        flag, path = ("--agent", args.a) if exc.field == "agent_a" else ("--agent-b", args.b)
        parser.error(f"{flag} {exc.value!r}: not an agent of {path} (its agents: {exc.allowed.split(': ', 1)[1]})")
    except DominoError as exc:
        parser.error(f"{exc} (A: {args.a}, B: {args.b})")
    dec = 4 if args.metric == "win" else 2
    print(f"A: {result.agent_a} in {args.a}: {result.mean_a:.{dec}f}")
    print(f"B: {result.agent_b} in {args.b}: {result.mean_b:.{dec}f}")
    print(result.text())
    if b is not a:  # two tournaments: say when the seats around A and B were not the same agents
        others_a = [x if x != result.agent_a else "*" for x in a["agents"]]
        others_b = [x if x != result.agent_b else "*" for x in b["agents"]]
        # every deal is played at every seat rotation: a rotated list is the same tables
        if not any(others_a == others_b[k:] + others_b[:k] for k in range(len(others_b))):
            print(f"note: A and B played at different tables (A's seats: {', '.join(others_a)}; "
                  f"B's: {', '.join(others_b)}; * = the agent compared): the difference is also that of "
                  "their opponents")  # fmt: skip
        sat_out_a, sat_out_b = _counts_sat_out_rounds(a), _counts_sat_out_rounds(b)
        if args.metric == "pips" and sat_out_a != sat_out_b:
            old = args.a if sat_out_a else args.b
            print(f"note: {old} was written before records kept each seat's rounds played (seat_rounds, "
                  "2026-12-05): its pips per round also count the rounds a seat knocked out of the game sat "
                  "out, the other file's do not; run it again for a like-for-like difference")  # fmt: skip
    return 0


def _counts_sat_out_rounds(result: dict[str, Any]) -> bool:
    """An elimination game's file whose records lack ``seat_rounds`` (written before 2026-12-05):
    its pips per round count the rounds a knocked-out seat sat out."""
    kwargs = result.get("env_kwargs") or {}
    return (result.get("episode") == "game" and kwargs.get("game_end") == "elimination"
            and any(isinstance(r, dict) and r.get("seat_rounds") is None for r in result.get("records") or []))  # fmt: skip


if __name__ == "__main__":  # through train.cli: a typed error is one line
    from domino_env.train.cli import launch

    launch("domino-paired", main)
