#!/usr/bin/env python3
"""Random-legal-play throughput of our domino games, side by side with peer implementations.

Run from the repository root in the project's virtual environment::

    .venv/bin/python benchmarks/throughput.py            # every game, 5 s a cell
    .venv/bin/python benchmarks/throughput.py --seconds 2 --games block --json bench.json
    .venv/bin/python benchmarks/throughput.py --seconds 2 --scaling   # plus Mexican Train scaling

Games (``--games``, default all): Mexican Train (preset ``domino_cubano``; ``--players``, default
2 4 8, and ``--max-pip``, default 12, apply to it only) and the line games, in fixed cells: block
double-6 at 2 players (7 tiles each, 14 out of play: OpenSpiel's game) and 4 players (no teams,
all 28 dealt), draw double-6 at 2 players (boneyard 14), Cuban double-9 at 4 players in teams.
For each cell it measures steps per second of random legal play through three layers:

* ``engine``: the rules engine alone (``MexicanTrainState`` / ``LineState``): per step the sorted
  legal action list, a uniform choice, ``apply``; a new game is dealt when the round ends.
* ``raw_env``: ``mexican_train_v0.raw_env`` / ``line_v0.raw_env(preset=...)``; per step
  ``observe(agent_selection)`` (observation and action mask), a uniform choice among the mask's
  non-zero entries, ``step``; ``reset`` when the round ends.
* ``env``: the same through ``env()`` (PettingZoo's wrappers included).

Every action is a step (DRAW, PASS and ANNUL included); ``placements_per_s`` counts only the
steps that put a tile on the table, the unit the peers count as moves.

Each cell warms up first, then plays whole rounds until ``--seconds`` of wall-clock time
(``time.perf_counter``) have passed and divides the steps counted by the time taken (dealing and
resets are inside the timed window, as they are for the peers). The random choice uses Python's
``random.Random(seed)`` everywhere, as ``benchmarks/peers.py`` does. ``--scaling`` adds Mexican
Train ``engine`` and ``raw_env`` vs players (2..8, double-12) and vs set size (double-9/12/15/18,
4 players), reusing the cells already measured in the same run.

The peers (OpenSpiel's Python block dominoes, the ``dominoes`` package) are measured by
``benchmarks/peers.py`` in a separate virtual environment, run as a subprocess in the same run
(``--peers-python``, default ``$PEERS_PYTHON`` or ``.venv-peers/bin/python`` in the clone, which
``make peers`` creates from ``benchmarks/peers-requirements.txt``; ``make bench`` does it first).
If it does not exist, the peers are skipped with one line saying how to create it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))
if str(HERE) not in sys.path:  # the sibling modules below, also when loaded by path (tests)
    sys.path.append(str(HERE))

# Cells, runners and timed windows in throughput_cells.py; the report in throughput_report.py.
from throughput_cells import (  # noqa: E402, F401 (re-exported: throughput.X keeps working)
    GAMES,
    LAYERS,
    LINE_CELLS,
    SCALING_LAYERS,
    SCALING_MAX_PIPS,
    SCALING_PLAYERS,
    Cell,
    Runner,
    engine_runner,
    env_runner,
    summarise,
    warm_up,
    window,
)
from throughput_report import (  # noqa: E402, F401
    RATIOS,
    compute_ratios,
    merge_peer_passes,
    print_report,
    scaling_tables,
)

from domino_env.core.errors import ConfigError  # noqa: E402
from domino_env.train.arg_types import int_at_least, real  # noqa: E402
from domino_env.train.cli import check_output_file  # noqa: E402

#: The peers' interpreter: ``$PEERS_PYTHON``, else the venv ``make peers`` creates in the clone.
DEFAULT_PEERS_PYTHON = os.environ.get("PEERS_PYTHON") or str(ROOT / ".venv-peers" / "bin" / "python")
#: How to create it (what ``make peers`` runs), printed when it is missing.
PEERS_SETUP = (
    "make peers (= python3 -m venv .venv-peers && "
    ".venv-peers/bin/python -m pip install -r benchmarks/peers-requirements.txt)"
)

# --------------------------------------------------------------------------
# Peers (separate venv, subprocess)
# --------------------------------------------------------------------------


def peers_skip_line(python: str) -> str | None:
    """The one line saying why the peers cannot be measured with ``python`` (missing, a folder,
    not executable), or None when it can be run."""
    path = Path(python)
    if not path.exists():
        return f"peers skipped: {python} not found; create it with {PEERS_SETUP}"
    if not path.is_file() or not os.access(path, os.X_OK):
        return f"peers skipped: {python} is not an executable file; give the peers' python, or create it with {PEERS_SETUP}"
    return None


def run_peers(python: str, seconds: float, warmup: float, repeat: int, seed: int) -> list[dict]:
    skip = peers_skip_line(python)
    if skip:
        print(skip, file=sys.stderr)
        return []
    cmd = [
        python,
        str(HERE / "peers.py"),
        "--seconds",
        str(seconds),
        "--warmup",
        str(warmup),
        "--repeat",
        str(repeat),
        "--seed",
        str(seed),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    records = []
    for line in proc.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            records.append(json.loads(line))
    if proc.returncode != 0:
        print(f"peers.py exited {proc.returncode}:\n{proc.stderr[-2000:]}", file=sys.stderr)
    return records


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def cells_for(args: argparse.Namespace) -> list[Cell]:
    cells: list[Cell] = []
    for game in args.games:
        if game == "mexican_train":
            cells += [Cell(game, p, n) for n in args.max_pip for p in args.players]
        else:
            cells += LINE_CELLS[game]
    return cells


def scaling_cells() -> list[Cell]:
    cells = [Cell("mexican_train", p, 12) for p in SCALING_PLAYERS]
    cells += [Cell("mexican_train", 4, n) for n in SCALING_MAX_PIPS if n != 12]
    return cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="--players and --max-pip apply to Mexican Train only; the line games' cells are "
        "fixed (block d6 2p and 4p, draw d6 2p, cuban d9 4p teams).",
    )
    parser.add_argument(
        "--seconds", type=real(0.0, low_open=True), default=5.0, help="measured seconds per cell (default 5)"
    )
    parser.add_argument(
        "--warmup", type=real(0.0), default=0.5, help="warm-up seconds per cell (default 0.5)"
    )
    parser.add_argument(
        "--games", nargs="+", choices=GAMES, default=list(GAMES), help="default: all"
    )
    parser.add_argument(
        "--players", type=int, nargs="+", default=[2, 4, 8], choices=range(2, 9), metavar="P",
        help="Mexican Train players (default: 2 4 8)",
    )  # fmt: skip
    parser.add_argument(
        "--max-pip", type=int, nargs="+", default=[12], choices=(9, 12, 15, 18), metavar="N",
        help="Mexican Train set sizes (default 12)",
    )  # fmt: skip
    parser.add_argument(
        "--layers", nargs="+", choices=list(LAYERS), default=list(LAYERS), help="default: all"
    )
    parser.add_argument(
        "--scaling", action="store_true",
        help="also Mexican Train engine and raw_env vs players (2..8, d12) and vs set size "
        "(d9/12/15/18, 4 players); cells already measured are reused",
    )  # fmt: skip
    parser.add_argument(
        "--repeat", type=int_at_least(1), default=1, help="timed windows per cell; the median is reported"
    )
    parser.add_argument("--seed", type=int_at_least(0), default=0)
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write all results as JSON")
    parser.add_argument(
        "--peers-python", default=DEFAULT_PEERS_PYTHON,
        help="interpreter of the peers' venv (default: $PEERS_PYTHON or .venv-peers/bin/python)",
    )  # fmt: skip
    parser.add_argument("--no-peers", action="store_true", help="skip the peer measurements")
    args = parser.parse_args(argv)
    for cell in cells_for(args):  # every table is a valid game before anything is measured
        try:
            cell.config()
        except ConfigError as exc:
            parser.error(f"--players {cell.players} with --max-pip {cell.max_pip}: {exc}")
    if args.json is not None:
        check_output_file(parser, "--json", args.json, {"ours", "peers", "summary"}, "a throughput result")
    if not args.no_peers:  # said once, before measuring (not once a pass, after it)
        skip = peers_skip_line(args.peers_python)
        if skip:
            print(skip, file=sys.stderr, flush=True)
            args.no_peers = True

    load_before = os.getloadavg()
    # Every (cell, layer) once, main table first, then the scaling cells not already in it.
    jobs: dict[tuple, tuple[Cell, str]] = {}
    for cell in cells_for(args):
        for layer in args.layers:
            jobs[(cell.game, cell.players, cell.max_pip, layer)] = (cell, layer)
    main_keys = list(jobs)
    scaling_keys = []
    if args.scaling:
        for cell in scaling_cells():
            for layer in SCALING_LAYERS:
                key = (cell.game, cell.players, cell.max_pip, layer)
                jobs.setdefault(key, (cell, layer))
                scaling_keys.append(key)

    # --repeat N makes N passes over every cell and the peers, one window per cell a pass, so
    # that a change of load on a shared machine hits ours and the peers' cells alike.
    runners: dict[tuple, Runner] = {}
    windows: dict[tuple, list] = {key: [] for key in jobs}
    peer_passes: list[list[dict]] = []
    for r in range(args.repeat):
        for key, (cell, layer) in jobs.items():
            if key not in runners:
                runners[key] = LAYERS[layer](cell, args.seed)
                warm_up(runners[key], args.warmup)
            w = window(runners[key], args.seconds)
            windows[key].append(w)
            print(
                f"  [{r + 1}/{args.repeat}] {cell.label:18s} {cell.players}p {layer:8s} "
                f"{w[0] / w[3]:>10,.0f} steps/s",
                file=sys.stderr,
                flush=True,
            )
        if not args.no_peers:
            peer_passes.append(
                run_peers(args.peers_python, args.seconds, args.warmup, 1, args.seed + r)
            )
    records = {}
    for key, (cell, layer) in jobs.items():
        records[key] = {
            "game": cell.game,
            "max_pip": cell.max_pip,
            "players": cell.players,
            "layer": layer,
            "rules": cell.note,
            **summarise(windows[key]),
        }
    ours = [records[k] for k in main_keys]
    scaling = [records[k] for k in scaling_keys]
    peers = merge_peer_passes(peer_passes)
    load_after = os.getloadavg()

    summary = print_report(ours, peers, scaling)
    print(f"load average (1, 5, 15 min): before {load_before}, after {load_after}")
    if args.json:
        payload = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "processor": platform.processor(),
            "cpus": os.cpu_count(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "load_before": load_before,
            "load_after": load_after,
            "seconds": args.seconds,
            "warmup": args.warmup,
            "repeat": args.repeat,
            "seed": args.seed,
            "ours": ours,
            "scaling": scaling,
            "peers": peers,
            "summary": summary,
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    from domino_env.train.cli import run_script

    run_script("throughput.py", main)
