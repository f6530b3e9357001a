"""Learning curves of ``domino_env.train.ppo`` runs: win rate and mean pips against each ladder opponent.

``python -m domino_env.train.plots RUN_FOLDER [--out PNG]`` redraws a run's curve from its
``evaluations.json`` (or ``metadata.json``).
"""

from __future__ import annotations

import json
import math
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from domino_env.core.files import read_at_most, replace_file

#: The largest ``evaluations.json`` / ``metadata.json`` read (an evaluation is about 1 kB): a huge
#: file, or ``/dev/zero``, would be read whole into memory before the JSON parser saw it.
MAX_RUN_FILE_BYTES = 64 * 2**20


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only, no display), imported with the Agg
    canvas, which a figure would import later: every compiled module the drawing needs is loaded
    here, so that a caller can hold the stop signals over this import
    (:func:`domino_env.train.ppo.run` does: a ``KeyboardInterrupt`` raised inside the
    initialisation of one of them crashed Python, "ImportError: initialization failed" then "Fatal
    Python error")."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends import backend_agg  # noqa: F401  (the figure's canvas: its compiled module)

    return plt


def plot_learning_curve(
    history: Sequence[dict[str, Any]], path: str | Path, title: str = ""
) -> Path:
    """Draw win rate (with its per-deal 95% CI band and the parity line) and mean pips per round
    (the learner's, solid; the opponents', dashed) against training steps, one colour per ladder
    opponent, and save a PNG. Where the evaluation setting changes (a ``--resume`` with other
    ``--eval-opponents``, ``--eval-rounds``, ``--eval-seed`` or ``--partner``: :func:`setting_changes`)
    every line breaks, and a vertical line marks the first evaluation of the new setting, its
    legend entry saying what changed. The legends sit below the panels, never over a point.

    Args:
        history: evaluations as written by ``domino_env.train.ppo`` (``[{"timesteps", "results": {opp: {...}}}]``).
        path: PNG file to write.

    Returns:
        ``path``.
    """
    plt = pyplot()
    path = Path(path)
    steps = [e["timesteps"] for e in history]
    opponents = list(dict.fromkeys(o for e in history for o in e["results"]))
    changes = setting_changes(history)
    bounds = [0, *(i for i, _ in changes), len(history)]
    # one x-axis: a pips panel whose points are gaps (NaN: no round played) keeps the steps' range;
    # the legends' rows below the panels (two columns) make the figure taller
    legend_rows = -(-max(len(opponents) + 1 + len(changes), 2 * len(opponents) + len(changes)) // 2)
    fig, (ax_w, ax_p) = plt.subplots(1, 2, figsize=(11, 4.2 + 0.2 * legend_rows), sharex=True)
    for i, opp in enumerate(opponents):
        colour = f"C{i}"
        labelled = False
        for lo, hi in zip(bounds, bounds[1:], strict=False):  # one line a setting: never joined across a change
            points = [(s, e["results"][opp]) for s, e in zip(steps[lo:hi], history[lo:hi], strict=True)
                     if opp in e["results"]]  # fmt: skip
            if not points:
                continue
            xs = [s for s, _ in points]
            name = _literal(opp)
            names = (f"vs {name}", f"learner vs {name}", f"{name} seats") if not labelled else ("_", "_", "_")
            labelled = True
            ax_w.plot(xs, [r["win_rate"] for _, r in points], "o-", color=colour, label=names[0])
            ax_w.fill_between(xs, [r["ci95_deal"][0] for _, r in points], [r["ci95_deal"][1] for _, r in points],
                              color=colour, alpha=0.15)  # fmt: skip
            ax_p.plot(xs, [_pips(r, "") for _, r in points], "o-", color=colour, label=names[1])
            ax_p.plot(xs, [_pips(r, "opponent_") for _, r in points], "x--",  # a marker: a point between two gaps is drawn too
                      color=colour, alpha=0.7, label=names[2])  # fmt: skip
    for index, what in changes:
        for ax in (ax_w, ax_p):
            ax.axvline(steps[index], color="black", lw=1.2, ls="-.",
                       label=f"evaluations from {_steps_text(steps[index])}: {_literal(what)}")  # fmt: skip
    from matplotlib.ticker import FuncFormatter

    steps_fmt = FuncFormatter(lambda x, _: _steps_text(x))
    for ax in (ax_w, ax_p):
        ax.xaxis.set_major_formatter(steps_fmt)
    if history:
        parity = next(iter(history[-1]["results"].values()))["parity"]
        ax_w.axhline(parity, color="grey", lw=1, ls=":", label=f"parity {parity:.2f}")
    ax_w.set_ylabel("win rate (band: 95% CI per deal)")
    ax_w.set_ylim(0, 1)
    ax_p.set_ylabel("mean pips left per round (lower is better)")
    for ax in (ax_w, ax_p):
        ax.set_xlabel("training steps (learner decisions)")
        # below the panel, outside it: inside, a legend of several opponents covered points
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
        ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fmt = path.suffix[1:].lower() or None  # (a file object tells matplotlib no name)
    replace_file(path, lambda f: fig.savefig(f, dpi=110, format=fmt, bbox_inches="tight"))  # an error keeps the earlier picture whole
    plt.close(fig)
    return path


def _literal(text: str) -> str:
    """``text`` (an agent's name: ``ppo:PATH`` may hold ``$``) as a legend shows it as written:
    between two ``$`` matplotlib reads math, and a name it could not parse crashed the drawing."""
    return text.replace("$", r"\$")


def _steps_text(x: float) -> str:
    """A step count as the axis shows it: ``250k``, ``1.5M``."""
    return f"{x / 1e6:g}M" if x >= 1e6 else f"{x / 1e3:g}k"


def evaluation_setting(entry: dict[str, Any]) -> dict[str, Any]:
    """What an evaluation measured on, as far as its entry says: the opponents of its results,
    and its ``ladder``'s rounds, seed and seating (``partner``); an entry written before the
    ladder was kept gives the rounds its results played and no seed or seating (None)."""
    ladder = _ladder(entry)
    return {"opponents": list(entry["results"]), "rounds": ladder.get("rounds", _played_rounds(entry)),
            "seed": ladder.get("seed"), "seating": ladder.get("partner")}  # fmt: skip


def _ladder(entry: dict[str, Any]) -> dict[str, Any]:
    return entry.get("ladder") if isinstance(entry.get("ladder"), dict) else {}


def _played_rounds(entry: dict[str, Any]) -> int | None:
    """The rounds the entry's results played (``--eval-rounds`` rounded up to whole deals)."""
    return max((r["rounds"] for r in entry["results"].values() if isinstance(r.get("rounds"), int)), default=None)


def setting_changes(history: Sequence[dict[str, Any]]) -> list[tuple[int, str]]:
    """Where the evaluation setting changes: ``[(index of the first evaluation of the new
    setting, what changed)]``, e.g. ``(3, "rounds 200 -> 400, opponents + planner")``. Only the
    fields both evaluations record are compared (:func:`evaluation_setting`); where one of the two
    has no ``ladder`` rounds, the rounds both results played are (an older entry shows 204 for
    ``--eval-rounds 201`` with 4 seats, its whole deals, and so does the ladder's 201)."""
    out = []
    for i in range(1, len(history)):
        a, b = evaluation_setting(history[i - 1]), evaluation_setting(history[i])
        said = []
        new = [o for o in b["opponents"] if o not in a["opponents"]]
        gone = [o for o in a["opponents"] if o not in b["opponents"]]
        if new or gone:  # (the same opponents in another order: the same measurements)
            said.append("opponents " + " ".join([*(f"+ {o}" for o in new), *(f"- {o}" for o in gone)]))
        if "rounds" not in _ladder(history[i - 1]) or "rounds" not in _ladder(history[i]):
            # one entry without its ladder: compare the rounds both played (a ladder's 201 rounds
            # of 4 seats play 204, what an older entry of the same --eval-rounds shows)
            a["rounds"], b["rounds"] = _played_rounds(history[i - 1]), _played_rounds(history[i])
        for key in ("rounds", "seed", "seating"):
            if a[key] is not None and b[key] is not None and a[key] != b[key]:
                said.append(f"{key} {a[key]} -> {b[key]}")
        if said:
            out.append((i, ", ".join(said)))
    return out


def _pips(result: dict[str, Any], prefix: str) -> float:
    """``mean_pips`` (``prefix`` "") or ``opponent_mean_pips`` ("opponent_"); NaN, a gap in the
    line, when those seats played no round (``seat_rounds`` 0: every episode truncated)."""
    played = result.get(f"{prefix}seat_rounds", 1)  # (older runs' results lack the count)
    return float(result[f"{prefix}mean_pips"]) if played else float("nan")


def read_history(run: Path) -> tuple[list[dict[str, Any]], str]:
    """A ``domino-train`` run folder's periodic evaluations (``evaluations.json``, else
    ``metadata.json``'s ``evaluations``) and the plot's title.

    Raises:
        ValueError: no such folder (or a file instead of one), a run file that is not a regular file or holds more
            than :data:`MAX_RUN_FILE_BYTES`, unreadable JSON, or no evaluation to draw (the message names the file);
            an evaluation holding a number the curve cannot draw (:func:`_out_of_range`: the message names the file,
            the evaluation and the field).
    """
    want = "give a domino-train run folder (it holds evaluations.json or metadata.json)"
    if run.exists() and not run.is_dir():
        inside = run.name in ("evaluations.json", "metadata.json")  # a run's own file: its folder is the run
        raise ValueError(f"{run}: is a file, not a run folder; " + (f"give its folder, {run.parent}" if inside else want))
    if not run.is_dir():
        raise ValueError(f"{run}: no such folder; {want}")
    meta: dict[str, Any] = {}
    source = run / "metadata.json"  # the file the evaluations come from (evaluations.json where it is read)
    for name in ("metadata.json", "evaluations.json"):
        path = run / name
        try:
            mode = path.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):  # (also a link to nothing)
            continue
        except OSError as exc:  # a folder that cannot be searched: exists() raised it, a traceback
            raise ValueError(f"{path}: cannot be read ({exc.strerror or exc}); {want}") from None
        if not stat.S_ISREG(mode):  # a FIFO would wait for a writer, a device (/dev/zero) never ends
            raise ValueError(f"{path}: not a regular file (a run's {name} is one); {want}")
        try:
            raw = read_at_most(path, MAX_RUN_FILE_BYTES)
        except OSError as exc:
            raise ValueError(f"{path}: not readable JSON ({exc})") from exc
        if len(raw) > MAX_RUN_FILE_BYTES:
            raise ValueError(f"{path}: holds more than {MAX_RUN_FILE_BYTES // 2**20} MiB, not a run's {name}; {want}")
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError) as exc:  # (RecursionError: nested too deeply, a traceback before)
            raise ValueError(f"{path}: not readable JSON ({exc})") from exc
        if name == "metadata.json":
            meta = data if isinstance(data, dict) else {}
        else:
            meta = {**meta, "evaluations": data}
            source = path
    history = meta.get("evaluations")
    if not meta:
        raise ValueError(f"{run}: neither evaluations.json nor metadata.json (not a domino-train run folder)")
    ok = isinstance(history, list) and all(_is_evaluation(h) for h in history)
    if not history or not ok:
        args = meta.get("args") if isinstance(meta.get("args"), dict) else {}
        why = ("the run was trained with --eval-freq 0" if args.get("eval_freq") == 0 else
               "a domino-bc model folder, or a run stopped before its first evaluation")  # fmt: skip
        raise ValueError(f"{run}: no periodic evaluations to draw ({why})")
    fault = _out_of_range(history)
    if fault:
        raise ValueError(f"{source}: {fault}")
    kw = meta.get("env_kwargs", {}) if isinstance(meta.get("env_kwargs"), dict) else {}
    title = (f"MaskablePPO, {kw.get('num_players')} players, double-{kw.get('max_pip')}, {kw.get('preset')}"
             if kw else "")  # fmt: skip
    return history, title


def _is_evaluation(row: Any) -> bool:
    """A periodic evaluation as ``domino-train`` writes it: steps, and per opponent every number
    the curve reads (win rate, its per-deal interval, parity, both mean pips): a row missing one
    was a ``KeyError`` traceback while drawing."""
    if not isinstance(row, dict) or not isinstance(row.get("timesteps"), int) or isinstance(row["timesteps"], bool):
        return False
    results = row.get("results")
    if not isinstance(results, dict) or not results:
        return False
    return all(_is_result(r) for r in results.values())


#: The numbers the curve can draw: numpy takes a larger int as an object, and matplotlib's drawing
#: of it was a ``TypeError`` traceback (``timesteps`` 10**30 in a hand-made file); a float near the
#: largest one overflowed its axis limits.
MAX_CURVE_INT = 2**63 - 1


def curve_fault(history: Sequence[Any]) -> str | None:
    """Why :func:`plot_learning_curve` cannot draw ``history`` (a row that is no evaluation
    ``domino-train`` writes, or :func:`_out_of_range`), naming the evaluation; None if it can. A
    resumed run's own curve checks its evaluations with it (a hand-made ``timesteps`` 10**30 in the
    run's evaluations.json was a matplotlib traceback at the end of the training)."""
    for i, row in enumerate(history, 1):
        if not _is_evaluation(row):
            return f"evaluation {i} is not one domino-train writes"
    return _out_of_range(history)


def _out_of_range(history: Sequence[dict[str, Any]]) -> str | None:
    """What the first evaluation (of rows :func:`_is_evaluation` accepts) holds that the curve cannot
    draw, naming the evaluation and the field: ``timesteps`` outside 0 to :data:`MAX_CURVE_INT`, or a
    result's number (a whole number, or a finite float: 9e307 was a matplotlib ``LinAlgError`` or
    ``ValueError`` traceback) outside -(MAX_CURVE_INT + 1) to MAX_CURVE_INT; None if nothing. Infinite
    and NaN floats are drawn (off the panel, a gap)."""
    for i, row in enumerate(history, 1):
        if not 0 <= row["timesteps"] <= MAX_CURVE_INT:
            return f"evaluation {i}'s timesteps is not a step count from 0 to 2**63 - 1"
        for opp, r in row["results"].items():
            for key in ("win_rate", "ci95_deal", "parity", "mean_pips", "opponent_mean_pips"):
                values = r[key] if key == "ci95_deal" else [r[key]]
                if any((isinstance(x, int) or math.isfinite(x)) and not -MAX_CURVE_INT - 1 <= x <= MAX_CURVE_INT
                       for x in values):  # fmt: skip
                    return (f"evaluation {i}'s results[{json.dumps(opp)}][\"{key}\"] holds a number "
                            "outside -2**63 to 2**63 - 1")
    return None


def _is_result(r: Any) -> bool:
    def number(x: Any) -> bool:
        return isinstance(x, int | float) and not isinstance(x, bool)

    ci = r.get("ci95_deal") if isinstance(r, dict) else None
    return (isinstance(r, dict) and all(number(r.get(k)) for k in ("win_rate", "parity", "mean_pips", "opponent_mean_pips"))
            and isinstance(ci, list) and len(ci) == 2 and all(number(x) for x in ci))  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    from domino_env.train.cli import ArgumentParser, check_image_file

    parser = ArgumentParser(
        prog="python -m domino_env.train.plots", description="Redraw a domino-train run's learning curve."
    )
    parser.add_argument("run", help="run folder (holds evaluations.json or metadata.json)")
    parser.add_argument("--out", default=None, help="PNG path (default: RUN/learning_curve.png)")
    args = parser.parse_args(argv)
    run = Path(args.run)
    try:
        history, title = read_history(run)
    except ValueError as exc:
        parser.error(str(exc))
    out = Path(args.out) if args.out else run / "learning_curve.png"
    check_image_file(parser, "--out", out, run / "learning_curve.png")  # a released model's folder may be read-only
    try:
        print(plot_learning_curve(history, out, title=title))
    except OSError as exc:  # a full disk, a file system that takes no files (/proc): not a traceback
        parser.error(f"--out {out}: could not be written ({exc.strerror or exc})")


if __name__ == "__main__":
    main()
