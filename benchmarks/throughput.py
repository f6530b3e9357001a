#!/usr/bin/env python3
"""Random-legal-play throughput of Mexican Train, side by side with peer implementations.

Run from the repository root in the project's virtual environment::

    .venv/bin/python benchmarks/throughput.py            # 2, 4 and 8 players, double-12, 5 s a cell
    .venv/bin/python benchmarks/throughput.py --seconds 2 --players 4 --json bench.json

For each number of players and set size it measures steps per second of random legal play:

* ``engine``: the rules engine alone (``domino_env.core.mexican_train``): per step the sorted
  legal action list, a uniform choice, ``apply``; a new round is dealt when one ends.
* ``raw_env``: ``mexican_train_v0.raw_env``; per step ``observe(agent_selection)`` (observation
  and action mask), a uniform choice among the mask's non-zero entries, ``step``; ``reset`` when
  the round ends.
* ``env``: the same through ``mexican_train_v0.env()`` (PettingZoo's wrappers included).

Each cell warms up first, then plays whole rounds until ``--seconds`` of wall-clock time
(``time.perf_counter``) have passed and divides the steps counted by the time taken (dealing and
resets are inside the timed window, as they are for the peers). The random choice uses Python's
``random.Random(seed)`` everywhere, as ``benchmarks/peers.py`` does.

The peers (OpenSpiel's Python block dominoes, the ``dominoes`` package) are measured by
``benchmarks/peers.py`` in a separate virtual environment, run as a subprocess in the same run
(``--peers-python``, default ``/work/peers-venv/bin/python`` or ``$PEERS_PYTHON``). If it does
not exist, the command to create it is printed.
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
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

DEFAULT_PEERS_PYTHON = os.environ.get("PEERS_PYTHON", "/work/peers-venv/bin/python")
PEERS_SETUP = (
    "python3 -m venv /work/peers-venv && /work/peers-venv/bin/pip install open_spiel dominoes numpy"
)

# A runner plays one whole round and returns the number of steps it took.
Runner = Callable[[], int]


def measure(run_round: Runner, seconds: float, warmup: float, repeat: int = 1) -> dict:
    """Warm up, then `repeat` windows of whole rounds, each until `seconds` have passed.

    ``steps_per_s`` is the median of the windows' rates; ``samples`` lists them all.
    """
    deadline = time.perf_counter() + warmup
    while time.perf_counter() < deadline:
        run_round()
    steps = rounds = 0
    elapsed = 0.0
    samples = []
    for _ in range(repeat):
        window = 0
        start = now = time.perf_counter()
        deadline = start + seconds
        while now < deadline:
            window += run_round()
            rounds += 1
            now = time.perf_counter()
        steps += window
        elapsed += now - start
        samples.append(window / (now - start))
    return {
        "steps_per_s": statistics.median(samples),
        "samples": samples,
        "steps": steps,
        "rounds": rounds,
        "steps_per_round": steps / rounds if rounds else None,
        "seconds": elapsed,
    }


# --------------------------------------------------------------------------
# Our three layers
# --------------------------------------------------------------------------


def engine_runner(players: int, max_pip: int, seed: int) -> Runner:
    from domino_env.core.config import from_preset
    from domino_env.core.mexican_train import MexicanTrainState

    config = from_preset("domino_cubano", num_players=players, max_pip=max_pip)
    gen = np.random.default_rng(seed)
    rnd = random.Random(seed)
    choice = rnd.choice
    new_round = MexicanTrainState.new_game  # deals the game's first round

    def run_round() -> int:
        state = new_round(config, gen)
        legal_actions = state.legal_actions
        apply = state.apply
        steps = 0
        while not state.round_over:
            apply(choice(legal_actions()))
            steps += 1
        return steps

    return run_round


def env_runner(players: int, max_pip: int, seed: int, wrapped: bool) -> Runner:
    from domino_env.envs import mexican_train_v0

    make = mexican_train_v0.env if wrapped else mexican_train_v0.raw_env
    env = make(num_players=players, max_pip=max_pip)
    rnd = random.Random(seed)
    randrange = rnd.randrange
    flatnonzero = np.flatnonzero
    env.reset(seed=seed)  # seeded once; later rounds continue the env's own RNG
    first = [True]

    def run_round() -> int:
        if first[0]:
            first[0] = False
        else:
            env.reset()
        observe = env.observe
        step = env.step
        steps = 0
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                return steps
            legal = flatnonzero(observe(agent)["action_mask"])
            step(int(legal[randrange(len(legal))]))
            steps += 1

    return run_round


LAYERS: dict[str, Callable[[int, int, int], Runner]] = {
    "engine": engine_runner,
    "raw_env": lambda p, n, s: env_runner(p, n, s, wrapped=False),
    "env": lambda p, n, s: env_runner(p, n, s, wrapped=True),
}


# --------------------------------------------------------------------------
# Peers (separate venv, subprocess)
# --------------------------------------------------------------------------


def run_peers(python: str, seconds: float, warmup: float, repeat: int, seed: int) -> list[dict]:
    if not Path(python).exists():
        print(
            f"peers skipped: {python} not found. Create it with:\n  {PEERS_SETUP}", file=sys.stderr
        )
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
# Report
# --------------------------------------------------------------------------


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def print_report(ours: list[dict], peers: list[dict]) -> dict:
    """Print the tables; return the summary ratios."""
    rows = [
        [
            f"mexican_train d{r['max_pip']}",
            str(r["players"]),
            r["layer"],
            _fmt(r["steps_per_s"]),
            f"{r['steps_per_round']:.1f}" if r["steps_per_round"] else "-",
        ]
        for r in ours
    ]
    for p in peers:
        if "error" in p:
            rows.append([p["peer"], "-", "not installed", "-", "-"])
            continue
        players = "4" if p["peer"] == "dominoes_pkg" else "2"
        rows.append(
            [
                p["peer"],
                players,
                p["variant"],
                _fmt(p["moves_per_s"]),
                f"{p['moves_per_game']:.1f}" if p.get("moves_per_game") else "-",
            ]
        )
    headers = ["game", "players", "layer / variant", "steps/s", "steps/round"]

    summary: dict = {}
    raw4 = next(
        (r for r in ours if r["layer"] == "raw_env" and r["players"] == 4 and r["max_pip"] == 12),
        None,
    )
    lines = []
    for variant in ("obs_tensor", "py_observer"):
        peer = next(
            (
                p
                for p in peers
                if p.get("peer") == "openspiel_block_dominoes" and p.get("variant") == variant
            ),
            None,
        )
        if raw4 and peer:
            ratio = raw4["steps_per_s"] / peer["moves_per_s"]
            summary[f"raw_env_4p_over_openspiel_{variant}"] = ratio
            verdict = "meets" if ratio >= 4 else "below"
            lines.append(
                f"raw_env (4 players, double-12) / OpenSpiel python_block_dominoes ({variant}): "
                f"{ratio:.2f}x  ({verdict} the 4x target)"
            )

    try:
        from rich.console import Console
        from rich.table import Table

        table = Table(title="Random legal play, steps per second")
        for i, h in enumerate(headers):
            table.add_column(h, justify="right" if i in (1, 3, 4) else "left")
        for row in rows:
            table.add_row(*row)
        console = Console()
        console.print(table)
        for line in lines:
            console.print(line)
    except ImportError:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        print("Random legal play, steps per second")
        print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
        for row in rows:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
        for line in lines:
            print(line)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=5.0, help="measured seconds per cell (default 5)"
    )
    parser.add_argument(
        "--warmup", type=float, default=0.5, help="warm-up seconds per cell (default 0.5)"
    )
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 8], help="default: 2 4 8")
    parser.add_argument(
        "--max-pip", type=int, nargs="+", default=[12], help="set sizes (default 12)"
    )
    parser.add_argument(
        "--layers", nargs="+", choices=list(LAYERS), default=list(LAYERS), help="default: all"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="timed windows per cell; the median is reported"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write all results as JSON")
    parser.add_argument("--peers-python", default=DEFAULT_PEERS_PYTHON)
    parser.add_argument("--no-peers", action="store_true", help="skip the peer measurements")
    args = parser.parse_args(argv)

    ours: list[dict] = []
    for max_pip in args.max_pip:
        for players in args.players:
            for layer in args.layers:
                run_round = LAYERS[layer](players, max_pip, args.seed)
                result = measure(run_round, args.seconds, args.warmup, args.repeat)
                record = {
                    "game": "mexican_train",
                    "max_pip": max_pip,
                    "players": players,
                    "layer": layer,
                    **result,
                }
                ours.append(record)
                print(
                    f"  mexican_train d{max_pip} {players}p {layer:8s} {result['steps_per_s']:>10,.0f} steps/s",
                    file=sys.stderr,
                    flush=True,
                )

    peers: list[dict] = []
    if not args.no_peers:
        peers = run_peers(args.peers_python, args.seconds, args.warmup, args.repeat, args.seed)

    summary = print_report(ours, peers)
    if args.json:
        payload = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "processor": platform.processor(),
            "seconds": args.seconds,
            "warmup": args.warmup,
            "repeat": args.repeat,
            "seed": args.seed,
            "ours": ours,
            "peers": peers,
            "summary": summary,
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
