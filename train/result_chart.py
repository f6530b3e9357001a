"""A chart of tournament results: one row per ``domino-evaluate --json`` file, the chosen agent's
win rate with its per-deal 95% interval beside the table's parity share.

``python -m domino_env.train.result_chart A.json B.json ... --out chart.png [--agent NAME]``
(docs/evaluation.md, "A chart of several tournaments"). Needs matplotlib (the ``train`` extra).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from domino_env.core.errors import ConfigError, DominoError
from domino_env.core.files import replace_file
from domino_env.train.paired import load_result
from domino_env.train.tournament_results import interval_text

#: Colour of a row by its table verdict (both intervals clear of parity, or not).
VERDICT_COLOURS = {"above": "tab:green", "parity": "tab:grey", "below": "tab:red", "n/a": "tab:grey"}


def chart_row(result: Any, agent: str | None = None) -> dict[str, Any]:
    """One row of the chart from a tournament result.

    Args:
        result: what ``domino-evaluate --json`` writes (``agents``, ``stats``, ``game``, ...), or an
            ``EvaluationResult`` from ``evaluate()``.
        agent: the agent's label in it (default: the first agent of ``agents``).

    Returns:
        ``{"agent", "opponents", "label", "win_rate", "ci95" (per deal, or None with fewer than 2
        deals), "parity", "verdict", "episodes", "unit"}``: ``unit`` is ``"rounds"``, or
        ``"games"`` for whole-game tournaments; ``opponents`` names the other seats' agents with
        their counts (``"vs 3 x planner"``; with teams ``"and PARTNER vs RIVALS"``, from the seats).

    Raises:
        ConfigError: (field ``agent``) the agent did not play in this tournament.
        DominoError: the result lacks what the row needs, or holds a value of the wrong kind (the
            message names the field).
    """
    result = result.to_dict() if hasattr(result, "to_dict") else result
    if not isinstance(result, dict):
        raise DominoError("not a tournament result (domino-evaluate --json writes one)")
    agents = result.get("agents")
    if not isinstance(agents, list) or not agents or not all(isinstance(a, str) for a in agents):
        raise DominoError("field 'agents' is not a list of agent labels (not a domino-evaluate --json file)")
    name = agent if agent is not None else agents[0]
    if name not in agents:
        raise ConfigError("agent", name, "its agents: " + ", ".join(dict.fromkeys(agents)))
    stats = next((s for s in result.get("stats") or [] if isinstance(s, dict) and s.get("name") == name), None)
    if stats is None:
        raise DominoError(f"no stats row for {name!r} (not a complete domino-evaluate --json file)")
    win_rate, parity = stats.get("win_rate"), stats.get("parity", 1 / len(agents))
    for field, value in (("win_rate", win_rate), ("parity", parity)):
        if not _share(value):
            raise DominoError(f"stats of {name!r}: field {field!r} is {value!r}, expected a number from 0 to 1")
    deals = stats.get("deals", result.get("deals", 0))  # (files before 2026-12-03 keep it on top only)
    ci = stats.get("ci95_deal") if isinstance(deals, int) and deals >= 2 else None
    if ci is not None and not (isinstance(ci, list) and len(ci) == 2 and all(_share(x) for x in ci)
                               and ci[0] - 1e-9 <= win_rate <= ci[1] + 1e-9):  # fmt: skip
        raise DominoError(f"stats of {name!r}: field 'ci95_deal' is {ci!r}, expected [low, high] from 0 to 1 "
                          f"around the win rate {win_rate!r}")  # fmt: skip
    seat = agents.index(name)
    players = len(agents)
    if result.get("teams") and players == 4:
        partner, rivals = agents[(seat + 2) % 4], [agents[(seat + 1) % 4], agents[(seat + 3) % 4]]
        opponents = f"and {'itself' if partner == name else short_label(partner)} vs {_counted(rivals)}"
    else:
        opponents = "vs " + _counted([a for a in agents if a != name])
    game = str(result.get("game", "mexican_train")).replace("_", " ")
    unit = "games" if result.get("episode") == "game" else "rounds"
    episodes = result.get("episodes", stats.get("seat_episodes", 0))
    return {
        "agent": name,
        "opponents": opponents,
        "label": f"{short_label(name)} {opponents} ({game}, {players}p{', whole games' if unit == 'games' else ''})",
        "win_rate": float(win_rate),
        # the point inside its bar (an interval from a file may sit 1e-16 off it)
        "ci95": (min(float(ci[0]), float(win_rate)), max(float(ci[1]), float(win_rate))) if ci else None,
        "parity": float(parity),
        "verdict": str(stats.get("verdict", "parity")),
        "episodes": int(episodes) if isinstance(episodes, int | float) else 0,
        "unit": unit,
    }


def _share(value: Any) -> bool:
    """A real number from 0 to 1 (not a bool, not NaN)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1


def short_label(agent: str) -> str:
    """An agent's label without the folders of a model path: ``ppo:checkpoints/m`` -> ``ppo:m``."""
    kind, sep, path = agent.partition(":")
    if kind in ("ppo", "rllib") and sep and path:  # (a search spec's prior=ppo:PATH stays whole)
        return f"{kind}:{Path(path).name}"
    return agent


def _counted(names: Sequence[str]) -> str:
    """``["planner", "planner", "greedy"]`` -> ``"2 x planner, greedy"`` (first seen first)."""
    counts = Counter(short_label(n) for n in names)
    return ", ".join(f"{n} x {a}" if n > 1 else a for a, n in counts.items()) or "nobody"


def plot_results(rows: Sequence[dict[str, Any]], path: str | Path, title: str = "",
                 labels: Sequence[str] | None = None) -> Path:
    """Draw the rows (from :func:`chart_row`) top to bottom as points with horizontal 95% interval
    bars, each with a dotted mark at its own parity share and its figures on the right, coloured
    by verdict (green above parity, grey at it, red below); save a PNG at ``path`` and return it.
    ``labels`` replace the rows' own (one per row).

    Raises:
        ModuleNotFoundError: matplotlib (the ``[train]`` extra) is not installed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    fig, ax = plt.subplots(figsize=(9, 0.9 + 0.55 * len(rows)))
    for i, row in enumerate(rows):
        y = len(rows) - 1 - i
        colour = VERDICT_COLOURS.get(row["verdict"], "tab:blue")
        if row["ci95"] is not None:
            lo, hi = row["ci95"]
            ax.errorbar(row["win_rate"], y, xerr=[[row["win_rate"] - lo], [hi - row["win_rate"]]],
                        fmt="o", color=colour, capsize=4)  # fmt: skip
            figures = f"{row['win_rate']:.3f} {interval_text((lo, hi), row['parity'])}"
        else:
            ax.plot(row["win_rate"], y, "o", color=colour)
            figures = f"{row['win_rate']:.3f} (no interval: < 2 deals)"
        ax.plot([row["parity"]] * 2, [y - 0.35, y + 0.35], ":", color="black", lw=1.2)
        ax.annotate(f"{figures}, {row['episodes']:,} {row['unit']}", (1.01, y), xycoords=("axes fraction", "data"),
                    va="center", fontsize=8)  # fmt: skip
    names = [_plain(n) for n in (labels if labels is not None else [r["label"] for r in rows])]
    ax.set_yticks(range(len(rows)), names[::-1], fontsize=8)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlim(-0.02, 1.02)  # a point at 0 or 1 shows whole
    ax.set_xlabel("win rate (team win rate with teams); bar: 95% CI per deal; dotted: parity share")
    ax.grid(axis="x", alpha=0.3)
    if title:
        ax.set_title(_plain(title))
    path.parent.mkdir(parents=True, exist_ok=True)
    fmt = path.suffix[1:].lower() or None  # (a file object tells matplotlib no name)
    replace_file(path, lambda f: fig.savefig(f, dpi=110, bbox_inches="tight", format=fmt))  # an error keeps the earlier one
    plt.close(fig)
    return path


def _plain(text: str) -> str:
    """``text`` as written: matplotlib reads ``$...$`` as mathematics (``$\\x$`` was a traceback)."""
    return str(text).replace("$", r"\$")


def main(argv: Sequence[str] | None = None) -> None:
    from domino_env.train.cli import (
        ArgumentParser,
        check_image_file,
        extra_hint,
        missing_modules,
    )

    parser = ArgumentParser(
        prog="python -m domino_env.train.result_chart",
        description="Chart tournament results: one row per domino-evaluate --json file, the agent's "
        "win rate with its per-deal 95% interval and the parity share.",
    )
    parser.add_argument("results", nargs="+", metavar="RESULT.json", help="domino-evaluate --json files, top to bottom")
    parser.add_argument("--out", required=True, help="PNG file to write")
    parser.add_argument("--agent", default=None,
                        help="the agent's label in every file (default: each file's first agent)")  # fmt: skip
    parser.add_argument("--title", default="", help="the chart's title")
    parser.add_argument("--labels", nargs="+", default=None, metavar="LABEL",
                        help="one label per file, in order (default: agent, opponents, game)")  # fmt: skip
    args = parser.parse_args(argv)
    if missing_modules(["matplotlib"]):
        parser.exit(2, f"{extra_hint(parser.prog, 'train', ['matplotlib'])}\n")
    out = Path(args.out)
    check_image_file(parser, "--out", out, "chart.png")
    if args.labels is not None and len(args.labels) != len(args.results):
        parser.error(f"--labels: give one per result file ({len(args.results)}), got {len(args.labels)}")
    rows = []
    for path in args.results:  # every file is checked before anything is drawn
        try:
            rows.append(chart_row(load_result(path), args.agent))
        except ConfigError as exc:
            parser.error(f"--agent {exc.value!r}: not an agent of {path} ({exc.allowed})")
        except DominoError as exc:
            parser.error(str(exc) if str(exc).startswith(f"{path}:") else f"{path}: {exc}")
    try:
        print(plot_results(rows, out, title=args.title, labels=args.labels))
    except OSError as exc:
        parser.error(f"--out {out}: could not be written ({exc.strerror or exc})")


if __name__ == "__main__":
    main()
