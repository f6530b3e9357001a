"""Paired comparisons on duplicate deals: is agent A better than agent B *on the same deals*?

Two tournaments played with the same ``--seed`` and ``--rounds`` deal the same hands, so the
difference between two agents can be measured deal by deal, which removes the luck of the deal
from the comparison: the interval of a paired difference is usually much narrower than the two
agents' own intervals suggest. Both tournaments need their episode records (``domino-evaluate
--records --json FILE``, or ``EvaluationResult.to_dict(records=True)``).

For each deal, an agent's value is the mean over its seat-episodes of that deal (every seat
rotation) of its win credit, counted exactly as the tournament's win rate counts it (round or game
credit, 1/k for a k-way shared win, 0 for a truncated episode), or, with ``metric="pips"``, its
pips left per round. The paired difference is the mean over deals of ``A's value - B's value`` with
a 95% t interval over the per-deal differences (``domino_env.train.intervals.mean_interval``).
B may be another agent of the same tournament (``a`` and ``b`` the same file): the model's pips
minus its opponents' pips, deal by deal.

Command line::

    python -m domino_env.train.paired A.json B.json [--agent NAME] [--agent-b NAME] [--metric win|pips]

prints A's and B's means over the deals, then ``A - B: +0.043 [+0.013, +0.072] over 250 deals
(win credit)``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from domino_env.core.errors import ConfigError, DominoError
from domino_env.train.intervals import mean_interval

METRICS = ("win", "pips")


@dataclass(frozen=True)
class PairedDifference:
    """The result of :func:`paired_difference`.

    Attributes:
        mean: mean over deals of A's per-deal value minus B's (win credit in [-1, 1], or pips).
        ci95: 95% t interval of ``mean`` over the per-deal differences (``(-inf, inf)`` with one deal).
        deals: deals compared (every deal of the two tournaments).
        mean_a, mean_b: A's and B's means over those deals (their win rates with ``metric="win"``).
        metric: ``"win"`` or ``"pips"``.
        agent_a, agent_b: the labels compared.
    """

    mean: float
    ci95: tuple[float, float]
    deals: int
    mean_a: float
    mean_b: float
    metric: str
    agent_a: str
    agent_b: str

    def text(self) -> str:
        """``A - B: +0.043 [0.013, 0.072] over 250 deals (win credit)``; "no interval" with one deal."""
        dec = 3 if self.metric == "win" else 2
        lo, hi = self.ci95
        ci = f"[{lo:+.{dec}f}, {hi:+.{dec}f}]" if math.isfinite(lo) else "(one deal: no interval)"
        what = "win credit" if self.metric == "win" else "pips left per round"
        return f"A - B: {self.mean:+.{dec}f} {ci} over {self.deals} deals ({what})"


def deal_values(result: Mapping[str, Any], agent: str, metric: str = "win") -> dict[int, float]:
    """Per deal, ``agent``'s mean value in a tournament result with records.

    Args:
        result: a tournament as ``--json`` writes it with ``--records`` (keys ``agents``,
            ``episode`` and ``records``: each record's ``seed``, ``seats``, ``rounds``,
            ``round_credit``, ``game_credit``, ``pips``, ``truncated``).
        agent: an agent label of ``result["agents"]``.
        metric: ``"win"`` (win credit per seat-episode, as the win rate counts it) or ``"pips"``
            (pips left per round).

    Returns:
        ``{deal seed: value}`` (the env seed of the deal, which two tournaments with the same
        ``seed`` and ``rounds`` share).

    Raises:
        ConfigError: ``metric`` unknown or ``agent`` not in the tournament.
        DominoError: the result has no records.
    """
    if metric not in METRICS:
        raise ConfigError("metric", metric, ", ".join(METRICS))
    names = list(result.get("agents") or [])
    if agent not in names:
        raise ConfigError("agent", agent, "an agent of the tournament: " + ", ".join(dict.fromkeys(names)))
    records = result.get("records")
    if not records:
        raise DominoError("the tournament has no episode records: run domino-evaluate with --records --json FILE")
    idx = {i for i, n in enumerate(names) if n == agent}
    game_mode = result.get("episode") == "game"
    sums: dict[int, list[float]] = {}
    for rec in records:
        for s, who in enumerate(rec["seats"]):
            if who not in idx:
                continue
            acc = sums.setdefault(int(rec["seed"]), [0.0, 0.0])
            if metric == "pips":
                acc[0] += rec["pips"][s]
                acc[1] += rec["rounds"]
            else:
                credit = rec["game_credit"] if game_mode else rec["round_credit"]
                acc[0] += 0.0 if rec.get("truncated") or credit is None else credit[s]
                acc[1] += 1
    return {seed: total / n for seed, (total, n) in sums.items() if n}


def paired_difference(a: Mapping[str, Any], b: Mapping[str, Any], agent_a: str | None = None,
                      agent_b: str | None = None, metric: str = "win") -> PairedDifference:  # fmt: skip
    """A's per-deal value in tournament ``a`` minus B's in tournament ``b``, over their common deals.

    Args:
        a, b: tournament results with records (:func:`deal_values`); they may be the same one.
        agent_a: A's label in ``a`` (default: the first agent listed in ``a``).
        agent_b: B's label in ``b`` (default: ``agent_a``'s label when it played in ``b``, else
            the first agent listed in ``b``).
        metric: ``"win"`` or ``"pips"``.

    Raises:
        DominoError: the two tournaments differ in rules, number of players, episode type or
            deals (pair only tournaments played with the same rules, ``--seed`` and ``--rounds``),
            or a :func:`deal_values` error.
    """
    for key in ("env_kwargs", "num_players", "episode", "game"):
        if a.get(key) != b.get(key):
            raise DominoError(f"the two tournaments differ in {key} ({a.get(key)!r} and {b.get(key)!r}): "
                              "pair only tournaments of the same game and rules")  # fmt: skip
    agents_a, agents_b = list(a.get("agents") or []), list(b.get("agents") or [])
    agent_a = agent_a if agent_a is not None else (agents_a[0] if agents_a else "")
    if agent_b is None:
        agent_b = agent_a if agent_a in agents_b else (agents_b[0] if agents_b else "")
    va, vb = deal_values(a, agent_a, metric), deal_values(b, agent_b, metric)
    if set(va) != set(vb):
        raise DominoError(f"the two tournaments played different deals ({len(set(va) ^ set(vb))} of "
                          f"{len(set(va) | set(vb))} not in both): use the same --seed and --rounds")  # fmt: skip
    seeds = sorted(va)
    diffs = [va[s] - vb[s] for s in seeds]
    lo, hi = mean_interval(diffs)
    n = len(seeds)
    return PairedDifference(mean=sum(diffs) / n, ci95=(lo, hi), deals=n, mean_a=sum(va.values()) / n,
                            mean_b=sum(vb.values()) / n, metric=metric, agent_a=agent_a, agent_b=agent_b)  # fmt: skip


def load_result(path: str | Path) -> dict[str, Any]:
    """A ``--json`` tournament file. Raises DominoError (one line) for a missing or damaged file."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise DominoError(f"{path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DominoError(f"{path}: not a tournament JSON file ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
        raise DominoError(f"{path}: not a tournament JSON file (domino-evaluate --json writes one)")
    return data


def main(argv: Sequence[str] | None = None) -> int:
    from domino_env.train.cli import ArgumentParser

    parser = ArgumentParser(
        prog="python -m domino_env.train.paired",
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
        b = a if Path(args.b) == Path(args.a) else load_result(args.b)
        result = paired_difference(a, b, args.agent, args.agent_b, args.metric)
    except DominoError as exc:
        parser.error(str(exc))
    dec = 4 if args.metric == "win" else 2
    print(f"A: {result.agent_a} in {args.a}: {result.mean_a:.{dec}f}")
    print(f"B: {result.agent_b} in {args.b}: {result.mean_b:.{dec}f}")
    print(result.text())
    return 0


if __name__ == "__main__":
    from domino_env.train.cli import run_script

    run_script("paired", main)
