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
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

#: The peers' interpreter: ``$PEERS_PYTHON``, else the venv ``make peers`` creates in the clone.
DEFAULT_PEERS_PYTHON = os.environ.get("PEERS_PYTHON") or str(ROOT / ".venv-peers" / "bin" / "python")
#: How to create it (what ``make peers`` runs), printed when it is missing.
PEERS_SETUP = (
    "make peers (= python3 -m venv .venv-peers && "
    ".venv-peers/bin/python -m pip install -r benchmarks/peers-requirements.txt)"
)

# A runner plays one whole round and returns (steps, placements): every action counts as a step;
# placements are the steps that put a tile on the table (not DRAW, PASS or ANNUL), the unit the
# peers count.
Runner = Callable[[], "tuple[int, int]"]


def warm_up(run_round: Runner, warmup: float) -> None:
    """Play whole rounds for `warmup` seconds (not measured)."""
    deadline = time.perf_counter() + warmup
    while time.perf_counter() < deadline:
        run_round()


def window(run_round: Runner, seconds: float) -> tuple[int, int, int, float, float]:
    """One timed window of whole rounds: (steps, placements, rounds, wall seconds, CPU seconds
    of this process)."""
    steps = placed = rounds = 0
    cpu = time.process_time()
    start = now = time.perf_counter()
    deadline = start + seconds
    while now < deadline:
        s, p = run_round()
        steps += s
        placed += p
        rounds += 1
        now = time.perf_counter()
    return steps, placed, rounds, now - start, time.process_time() - cpu


def summarise(windows: list[tuple[int, int, int, float, float]]) -> dict:
    """``steps_per_s`` (and ``placements_per_s``) is the median of the windows' rates;
    ``samples`` lists every window's steps per second. ``*_per_cpu_s`` divide by the process's
    CPU time instead of the wall-clock time (less sensitive to other work on the machine)."""
    steps = sum(w[0] for w in windows)
    placements = sum(w[1] for w in windows)
    rounds = sum(w[2] for w in windows)
    return {
        "steps_per_s": statistics.median(w[0] / w[3] for w in windows),
        "placements_per_s": statistics.median(w[1] / w[3] for w in windows),
        "steps_per_cpu_s": statistics.median(w[0] / w[4] for w in windows),
        "placements_per_cpu_s": statistics.median(w[1] / w[4] for w in windows),
        "samples": [w[0] / w[3] for w in windows],
        "cpu_samples": [w[0] / w[4] for w in windows],
        "steps": steps,
        "placements": placements,
        "rounds": rounds,
        "steps_per_round": steps / rounds if rounds else None,
        "placements_per_round": placements / rounds if rounds else None,
        "seconds": sum(w[3] for w in windows),
        "cpu_seconds": sum(w[4] for w in windows),
    }


# --------------------------------------------------------------------------
# Games and cells
# --------------------------------------------------------------------------

GAMES = ("mexican_train", "block", "draw", "cuban")


@dataclass(frozen=True)
class Cell:
    """One game configuration to measure."""

    game: str  # "mexican_train" or a line preset ("block", "draw", "cuban")
    players: int
    max_pip: int
    note: str = ""

    @property
    def label(self) -> str:
        return f"{self.game} d{self.max_pip}"

    def config(self):
        if self.game == "mexican_train":
            from domino_env.core.config import from_preset

            return from_preset("domino_cubano", num_players=self.players, max_pip=self.max_pip)
        from domino_env.core.config import line_from_preset

        return line_from_preset(self.game, num_players=self.players, max_pip=self.max_pip)

    def state_class(self):
        if self.game == "mexican_train":
            from domino_env.core.mexican_train import MexicanTrainState

            return MexicanTrainState
        from domino_env.core.line import LineState

        return LineState

    def make_env(self, wrapped: bool):
        if self.game == "mexican_train":
            from domino_env.envs import mexican_train_v0 as module

            kwargs = {}
        else:
            from domino_env.envs import line_v0 as module

            kwargs = {"preset": self.game}
        make = module.env if wrapped else module.raw_env
        return make(num_players=self.players, max_pip=self.max_pip, **kwargs)


#: The line games' cells (fixed): every preset's rules, players and set as stated.
LINE_CELLS: dict[str, list[Cell]] = {
    "block": [
        Cell("block", 2, 6, "7 tiles each, 14 out of play (OpenSpiel's game)"),
        Cell("block", 4, 6, "no teams, 7 tiles each, all 28 dealt"),
    ],
    "draw": [Cell("draw", 2, 6, "7 tiles each, boneyard 14")],
    "cuban": [Cell("cuban", 4, 9, "teams, 10 tiles each, 15 out of play, annul on 5 doubles")],
}

SCALING_PLAYERS = (2, 3, 4, 5, 6, 7, 8)  # Mexican Train, double-12
SCALING_MAX_PIPS = (9, 12, 15, 18)  # Mexican Train, 4 players
SCALING_LAYERS = ("engine", "raw_env")


# --------------------------------------------------------------------------
# Our three layers
# --------------------------------------------------------------------------


def engine_runner(cell: Cell, seed: int) -> Runner:
    config = cell.config()
    new_round = cell.state_class().new_game  # deals the game's first round
    gen = np.random.default_rng(seed)
    rnd = random.Random(seed)
    choice = rnd.choice

    def run_round() -> tuple[int, int]:
        state = new_round(config, gen)
        legal_actions = state.legal_actions
        apply = state.apply
        first_other = state.draw_action  # actions below it place a tile
        steps = placed = 0
        while not state.round_over:
            action = choice(legal_actions())
            apply(action)
            steps += 1
            if action < first_other:
                placed += 1
        return steps, placed

    return run_round


def env_runner(cell: Cell, seed: int, wrapped: bool) -> Runner:
    env = cell.make_env(wrapped)
    rnd = random.Random(seed)
    randrange = rnd.randrange
    flatnonzero = np.flatnonzero
    env.reset(seed=seed)  # seeded once; later rounds continue the env's own RNG
    first_other = env.unwrapped.game_state.draw_action  # fixed by the config
    first = [True]

    def run_round() -> tuple[int, int]:
        if first[0]:
            first[0] = False
        else:
            env.reset()
        observe = env.observe
        step = env.step
        steps = placed = 0
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                return steps, placed
            legal = flatnonzero(observe(agent)["action_mask"])
            action = int(legal[randrange(len(legal))])
            step(action)
            steps += 1
            if action < first_other:
                placed += 1

    return run_round


LAYERS: dict[str, Callable[[Cell, int], Runner]] = {
    "engine": engine_runner,
    "raw_env": lambda c, s: env_runner(c, s, wrapped=False),
    "env": lambda c, s: env_runner(c, s, wrapped=True),
}


# --------------------------------------------------------------------------
# Peers (separate venv, subprocess)
# --------------------------------------------------------------------------


def run_peers(python: str, seconds: float, warmup: float, repeat: int, seed: int) -> list[dict]:
    if not Path(python).exists():
        print(f"peers skipped: {python} not found; create it with {PEERS_SETUP}", file=sys.stderr)
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


def merge_peer_passes(passes: list[list[dict]]) -> list[dict]:
    """One record per (peer, variant) from several passes of ``peers.py --repeat 1``: rates are
    the median of the passes' windows, counts are summed."""
    merged: dict[tuple, dict] = {}
    for records in passes:
        for rec in records:
            key = (rec["peer"], rec.get("variant"))
            if key not in merged:
                merged[key] = {**rec, "seeds": [rec.get("seed")], "_with": [], "_with_cpu": []}
                if "error" not in rec:
                    merged[key]["_with"] = [rec.get("moves_with_passes_per_s")]
                    merged[key]["_with_cpu"] = [rec.get("moves_with_passes_per_cpu_s")]
                continue
            m = merged[key]
            if "error" in rec or "error" in m:
                continue
            m["seeds"].append(rec.get("seed"))
            m["samples"] = m["samples"] + rec["samples"]
            m["cpu_samples"] = m["cpu_samples"] + rec["cpu_samples"]
            m["_with"].append(rec.get("moves_with_passes_per_s"))
            m["_with_cpu"].append(rec.get("moves_with_passes_per_cpu_s"))
            for k in ("moves", "chance_actions", "games", "passes", "seconds", "cpu_seconds"):
                if k in m:
                    m[k] += rec[k]
    out = []
    for m in merged.values():
        with_passes = m.pop("_with")
        with_passes_cpu = m.pop("_with_cpu")
        if "error" not in m:
            m["repeat"] = len(m["samples"])
            m["moves_per_s"] = statistics.median(m["samples"])
            m["moves_per_cpu_s"] = statistics.median(m["cpu_samples"])
            if "moves_with_passes_per_s" in m:
                m["moves_with_passes_per_s"] = statistics.median(with_passes)
                m["moves_with_passes_per_cpu_s"] = statistics.median(with_passes_cpu)
                m["passes_per_game"] = m["passes"] / m["games"]
            m["moves_per_game"] = m["moves"] / m["games"]
        out.append(m)
    return out


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _fmt1(x: float | None) -> str:
    return "-" if not x else f"{x:.1f}"


def _find(records: list[dict], **keys) -> dict | None:
    return next((r for r in records if all(r.get(k) == v for k, v in keys.items())), None)


# (summary key, description, ours: record keys, peer, peer variant, target)
RATIOS = (
    (
        "raw_env_4p_over_openspiel",
        "mexican_train raw_env 4p d12",
        {"game": "mexican_train", "players": 4, "max_pip": 12, "layer": "raw_env"},
        "openspiel_block_dominoes",
        ("obs_tensor", "py_observer"),
        4.0,
    ),
    (
        "block_raw_env_2p_over_openspiel",
        "block raw_env 2p d6",
        {"game": "block", "players": 2, "max_pip": 6, "layer": "raw_env"},
        "openspiel_block_dominoes",
        ("obs_tensor", "py_observer"),
        4.0,
    ),
    (
        "block_engine_4p_over_dominoes_pkg",
        "block engine 4p d6",
        {"game": "block", "players": 4, "max_pip": 6, "layer": "engine"},
        "dominoes_pkg",
        ("engine",),
        1.0,
    ),
)


def _ratio(x: float, target: float | None) -> str:
    if target is None:
        return f"{x:.2f}x"
    return f"{x:.2f}x ({'meets' if x >= target else 'below'} {target:g}x)"


def compute_ratios(ours: list[dict], peers: list[dict]) -> tuple[dict, list[str]]:
    """Summary ratios (for the JSON) and the lines that print them.

    Two units: ``steps`` (every action: ours count DRAW / PASS / ANNUL, the ``dominoes`` package
    its recorded passes, OpenSpiel has no pass action) and ``placements`` (tiles put on the
    table: the unit every peer counts as a move). Keys without a suffix are the steps ratio
    against the ``obs_tensor`` / ``engine`` variant's moves, as before; ``_placements`` keys are
    the like-for-like placements ratio.
    """
    summary: dict = {}
    lines: list[str] = []
    for key, label, where, peer_name, variants, target in RATIOS:
        mine = _find(ours, **where)
        if mine is None:
            continue
        for variant in variants:
            peer = _find(peers, peer=peer_name, variant=variant)
            if peer is None or "error" in peer:
                continue
            checked = variant in ("obs_tensor", "engine")
            peer_unit = "moves+passes" if "moves_with_passes_per_s" in peer else "moves"
            parts = []
            for clock, tag in (("s", ""), ("cpu_s", "_cpu")):
                peer_steps = peer.get(f"moves_with_passes_per_{clock}", peer[f"moves_per_{clock}"])
                by_steps = mine[f"steps_per_{clock}"] / peer_steps
                by_placed = mine[f"placements_per_{clock}"] / peer[f"moves_per_{clock}"]
                suffix = f"_{variant}" if peer_name == "openspiel_block_dominoes" else ""
                summary[f"{key}{suffix}{tag}"] = by_steps
                summary[f"{key}{suffix}_placements{tag}"] = by_placed

                parts.append(
                    f"{'wall' if clock == 's' else 'CPU'}: steps/{peer_unit} "
                    f"{_ratio(by_steps, target if checked else None)}, "
                    f"placements/moves {_ratio(by_placed, target if checked else None)}"
                )
            lines.append(f"{label} / {peer_name} {variant}:\n    " + "\n    ".join(parts))
    return summary, lines


def scaling_tables(ours: list[dict]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, headers, rows) of Mexican Train engine and raw_env vs players and vs set size."""
    headers = ["", "engine steps/s", "raw_env steps/s", "engine steps/cpu-s",
               "raw_env steps/cpu-s", "raw_env / engine", "steps/round"]  # fmt: skip
    tables = []
    for title, axis, fixed, values in (
        ("Mexican Train d12: steps/s vs players", "players", {"max_pip": 12}, SCALING_PLAYERS),
        ("Mexican Train 4 players: steps/s vs set", "max_pip", {"players": 4}, SCALING_MAX_PIPS),
    ):
        rows = []
        for v in values:
            keys = {"game": "mexican_train", axis: v, **fixed}
            eng = _find(ours, layer="engine", **keys)
            raw = _find(ours, layer="raw_env", **keys)
            if eng is None and raw is None:
                continue
            ratio = raw["steps_per_s"] / eng["steps_per_s"] if eng and raw else None
            rows.append(
                [
                    f"{v}p" if axis == "players" else f"d{v}",
                    _fmt(eng and eng["steps_per_s"]),
                    _fmt(raw and raw["steps_per_s"]),
                    _fmt(eng and eng["steps_per_cpu_s"]),
                    _fmt(raw and raw["steps_per_cpu_s"]),
                    "-" if ratio is None else f"{ratio:.2f}",
                    _fmt1((eng or raw)["steps_per_round"]),
                ]
            )
        if rows:
            tables.append((title, headers, rows))
    return tables


def _print_table(title: str, headers: list[str], rows: list[list[str]], left: int) -> None:
    try:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title)
        for i, h in enumerate(headers):
            table.add_column(h, justify="left" if i < left else "right")
        for row in rows:
            table.add_row(*row)
        console = Console()
        if not console.is_terminal:  # a pipe or file: don't squeeze the table into 80 columns
            console = Console(width=170)
        console.print(table)
    except ImportError:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        print(title)
        print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
        for row in rows:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
        print()


def print_report(ours: list[dict], peers: list[dict], scaling: list[dict] | None = None) -> dict:
    """Print the tables; return the summary ratios."""
    rows = [
        [
            f"{r['game']} d{r['max_pip']}",
            str(r["players"]),
            r["layer"],
            _fmt(r["steps_per_s"]),
            _fmt(r["placements_per_s"]),
            _fmt(r["steps_per_cpu_s"]),
            _fmt(r["placements_per_cpu_s"]),
            _fmt1(r["steps_per_round"]),
            _fmt1(r["placements_per_round"]),
        ]
        for r in ours
    ]
    for p in peers:
        if "error" in p:
            rows.append([p["peer"], "-", "not installed", *["-"] * 6])
            continue
        players = "4" if p["peer"] == "dominoes_pkg" else "2"
        passes = "moves_with_passes_per_s" in p
        rows.append(
            [
                p["peer"] + ("" if passes else " *"),
                players,
                p["variant"],
                _fmt(p["moves_with_passes_per_s"] if passes else p["moves_per_s"]),
                _fmt(p["moves_per_s"]),
                _fmt(p["moves_with_passes_per_cpu_s"] if passes else p["moves_per_cpu_s"]),
                _fmt(p["moves_per_cpu_s"]),
                _fmt1(
                    p["moves_per_game"] + p["passes_per_game"] if passes else p["moves_per_game"]
                ),
                _fmt1(p["moves_per_game"]),
            ]
        )
    headers = ["game", "players", "layer / variant", "steps/s", "placements/s", "steps/cpu-s",
               "placements/cpu-s", "steps/round", "placements/round"]  # fmt: skip
    _print_table("Random legal play, per second", headers, rows, left=1)
    if any("error" not in p and p["peer"] == "openspiel_block_dominoes" for p in peers):
        print("* no pass action (a player who cannot place is skipped): steps = moves = placements")
    summary, lines = compute_ratios(ours, peers)
    for line in lines:
        print(line)
    for title, headers, rows in scaling_tables(scaling or []):
        print()
        _print_table(title, headers, rows, left=1)
    return summary


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
        "--seconds", type=float, default=5.0, help="measured seconds per cell (default 5)"
    )
    parser.add_argument(
        "--warmup", type=float, default=0.5, help="warm-up seconds per cell (default 0.5)"
    )
    parser.add_argument(
        "--games", nargs="+", choices=GAMES, default=list(GAMES), help="default: all"
    )
    parser.add_argument(
        "--players", type=int, nargs="+", default=[2, 4, 8],
        help="Mexican Train players (default: 2 4 8)",
    )  # fmt: skip
    parser.add_argument(
        "--max-pip", type=int, nargs="+", default=[12],
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
        "--repeat", type=int, default=1, help="timed windows per cell; the median is reported"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write all results as JSON")
    parser.add_argument(
        "--peers-python", default=DEFAULT_PEERS_PYTHON,
        help="interpreter of the peers' venv (default: $PEERS_PYTHON or .venv-peers/bin/python)",
    )  # fmt: skip
    parser.add_argument("--no-peers", action="store_true", help="skip the peer measurements")
    args = parser.parse_args(argv)

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
    sys.exit(main())
