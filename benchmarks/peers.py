#!/usr/bin/env python3
"""Throughput of peer domino implementations, for side-by-side comparison.

Standalone: runs in its own virtual environment (never the project's), because
the peers pull in heavy dependencies. ``make peers`` creates it in the clone
(``make bench`` does so first)::

    python3 -m venv .venv-peers
    .venv-peers/bin/python -m pip install -r benchmarks/peers-requirements.txt
    .venv-peers/bin/python benchmarks/peers.py --seconds 5

Prints one JSON object per line and measurement. Each measurement plays random
legal games back to back for a fixed wall-clock duration (after a warm-up) and
counts *player moves* (chance actions, i.e. dealing, are timed but not counted):

``openspiel_block_dominoes`` (OpenSpiel's pure-Python ``python_block_dominoes``,
2 players, double-six, 7 tiles each, no boneyard), in three variants:

* ``engine``: per move ``state.legal_actions()``, a uniform choice,
  ``state.apply_action(a)``. Chance nodes (the deal) are sampled uniformly from
  ``state.chance_outcomes()``.
* ``obs_tensor``: as ``engine`` plus ``state.observation_tensor(player)`` for
  the player to move, before choosing (OpenSpiel's default observation type,
  29 floats, returned as a list; for a Python game the C++ side calls back
  into the game's Python observer). This is the call OpenSpiel's
  ``rl_environment`` makes (it makes it for every player at every step; we
  make it for the player to move only, as our ``raw_env`` cell does).
* ``py_observer``: as ``engine`` plus ``observer.set_from(state, player)``
  with ``open_spiel.python.observation.make_observation(game)``: the same
  29 floats written into a reused numpy array, without the C++ round trip
  (the cheapest way to get that observation).

``dominoes_pkg`` (the ``dominoes`` PyPI package, 4 players in teams,
double-six, 7 tiles each, no boneyard), variant ``engine``: per move read
``game.valid_moves``, a uniform choice, ``game.make_move(*move)``; games start
with ``dominoes.Game.new()`` (player 0 leads, any tile). Passes are automatic in
that package and are not counted as moves; ``moves_with_passes_per_s`` also
counts the passes it records in ``game.moves`` (read after the game, outside the
loop), the unit of a per-action engine that has a PASS action. No observation
exists there.

OpenSpiel's block dominoes has no pass either: a player who cannot place is
skipped (in the 2-player game the other player moves again), unrecorded.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable

# A runner plays one complete game and returns (player_moves, chance_actions, passes); passes
# is None where the peer keeps no record of skipped turns.
Runner = Callable[[], "tuple[int, int, int | None]"]


def _version(dist: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:  # pragma: no cover - metadata missing
        return None


def measure(run_game: Runner, seconds: float, warmup: float, repeat: int = 1) -> dict:
    """Warm up, then `repeat` windows of whole games, each until `seconds` have passed.

    ``moves_per_s`` is the median of the windows' rates; ``samples`` lists them all;
    ``moves_per_cpu_s`` divides by the process's CPU time instead. Where the
    peer records passes, ``moves_with_passes_per_s`` counts moves and passes together (the
    median of the windows' rates).
    """
    deadline = time.perf_counter() + warmup
    while time.perf_counter() < deadline:
        run_game()
    moves = chance = games = passes = 0
    has_passes = True
    elapsed = cpu_elapsed = 0.0
    samples = []
    cpu_samples = []
    with_passes = []
    with_passes_cpu = []
    for _ in range(repeat):
        window = window_passes = 0
        cpu = time.process_time()
        start = now = time.perf_counter()
        deadline = start + seconds
        while now < deadline:
            m, c, p = run_game()
            window += m
            chance += c
            if p is None:
                has_passes = False
            else:
                window_passes += p
            games += 1
            now = time.perf_counter()
        cpu = time.process_time() - cpu
        moves += window
        passes += window_passes
        elapsed += now - start
        cpu_elapsed += cpu
        samples.append(window / (now - start))
        cpu_samples.append(window / cpu)
        with_passes.append((window + window_passes) / (now - start))
        with_passes_cpu.append((window + window_passes) / cpu)
    extra = {}
    if has_passes:
        extra = {
            "moves_with_passes_per_s": statistics.median(with_passes),
            "moves_with_passes_per_cpu_s": statistics.median(with_passes_cpu),
            "passes": passes,
            "passes_per_game": passes / games if games else None,
        }
    return {
        "moves_per_s": statistics.median(samples),
        "moves_per_cpu_s": statistics.median(cpu_samples),
        **extra,
        "samples": samples,
        "cpu_samples": cpu_samples,
        "moves": moves,
        "chance_actions": chance,
        "games": games,
        "moves_per_game": moves / games if games else None,
        "seconds": elapsed,
        "cpu_seconds": cpu_elapsed,
    }


# --------------------------------------------------------------------------
# OpenSpiel: python_block_dominoes
# --------------------------------------------------------------------------


def openspiel_runners(seed: int) -> dict[str, Runner]:
    import open_spiel.python.games  # noqa: F401  registers the Python games
    import pyspiel  # an ImportError here skips the peer
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_block_dominoes")
    rng = random.Random(seed)
    choice = rng.choice

    def deal(state) -> int:
        n = 0
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(choice(outcomes)[0])
            n += 1
        return n

    def engine() -> tuple[int, int, None]:
        state = game.new_initial_state()
        chance = deal(state)
        moves = 0
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            moves += 1
        return moves, chance, None

    def obs_tensor() -> tuple[int, int, None]:
        state = game.new_initial_state()
        chance = deal(state)
        moves = 0
        while not state.is_terminal():
            state.observation_tensor(state.current_player())
            state.apply_action(choice(state.legal_actions()))
            moves += 1
        return moves, chance, None

    observer = make_observation(game)

    def py_observer() -> tuple[int, int, None]:
        state = game.new_initial_state()
        chance = deal(state)
        moves = 0
        while not state.is_terminal():
            observer.set_from(state, state.current_player())
            state.apply_action(choice(state.legal_actions()))
            moves += 1
        return moves, chance, None

    return {"engine": engine, "obs_tensor": obs_tensor, "py_observer": py_observer}


# --------------------------------------------------------------------------
# dominoes (PyPI)
# --------------------------------------------------------------------------


def dominoes_runners(seed: int) -> dict[str, Runner]:
    import dominoes

    # The package deals with the global `random` module; seed it.
    random.seed(seed)
    rng = random.Random(seed + 1)
    choice = rng.choice
    new_game = dominoes.Game.new

    def engine() -> tuple[int, int, int]:
        game = new_game()
        moves = 0
        while game.result is None:
            game.make_move(*choice(game.valid_moves))
            moves += 1
        # game.moves holds the placements and a None per pass (skipped turn) recorded before
        # the next placement; the passes of a blocked game's last lap are not recorded.
        return moves, 0, len(game.moves) - moves

    return {"engine": engine}


PEERS: dict[str, dict] = {
    "openspiel_block_dominoes": {
        "runners": openspiel_runners,
        "dist": "open_spiel",
        "variants": ("engine", "obs_tensor", "py_observer"),
        "game": "python_block_dominoes: 2 players, double-6, 7 tiles each, no boneyard",
    },
    "dominoes_pkg": {
        "runners": dominoes_runners,
        "dist": "dominoes",
        "variants": ("engine",),
        "game": "dominoes.Game: 4 players (2 teams), double-6, 7 tiles each, no boneyard",
    },
}


def _number(low: float, low_open: bool) -> Callable[[str], float]:
    """argparse type: a finite float above ``low`` (or at least ``low``). The project's own
    validators (``domino_env.train.arg_types``) are not importable here: this runs in the peers'
    venv."""
    interval = f"{'(' if low_open else '['}{low}, inf)"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value) or value < low or (low_open and value == low):
            raise argparse.ArgumentTypeError(f"must be a number in {interval}, got {text}")
        return value

    return parse


def _integer(low: int) -> Callable[[str], int]:
    """argparse type: an integer >= ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            what = "a positive integer" if low == 1 else f"an integer >= {low}"
            raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
        return value

    return parse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=_number(0.0, low_open=True), default=5.0,
        help="measured seconds per cell (default 5)",
    )  # fmt: skip
    parser.add_argument(
        "--warmup", type=_number(0.0, low_open=False), default=0.5,
        help="warm-up seconds per cell (default 0.5)",
    )  # fmt: skip
    parser.add_argument(
        "--repeat", type=_integer(1), default=1, help="timed windows per cell; the median is reported"
    )
    parser.add_argument("--seed", type=_integer(0), default=0)
    parser.add_argument(
        "--only",
        action="append",
        metavar="PEER[:VARIANT]",
        help="restrict to these measurements (repeatable), e.g. openspiel_block_dominoes:obs_tensor",
    )
    args = parser.parse_args(argv)
    allowed = [f"{peer}[:{'|'.join(spec['variants'])}]" for peer, spec in PEERS.items()]
    for only in args.only or []:  # an unknown name measured nothing and exited 0
        peer, sep, variant = only.partition(":")
        if peer not in PEERS or (sep and variant not in PEERS[peer]["variants"]):
            parser.error(f"argument --only: unknown measurement {only!r}; allowed: {' '.join(allowed)}")

    wanted = None
    if args.only:
        wanted = [tuple(o.split(":", 1)) if ":" in o else (o, None) for o in args.only]

    status = 0
    for peer, spec in PEERS.items():
        if wanted is not None and not any(p == peer for p, _ in wanted):
            continue
        try:
            runners = spec["runners"](args.seed)
        except ImportError as exc:
            print(json.dumps({"peer": peer, "error": f"not installed: {exc}"}), flush=True)
            status = 1
            continue
        for variant, run_game in runners.items():
            if wanted is not None and not any(
                p == peer and v in (None, variant) for p, v in wanted
            ):
                continue
            result = measure(run_game, args.seconds, args.warmup, args.repeat)
            record = {
                "peer": peer,
                "variant": variant,
                "game": spec["game"],
                "version": _version(spec["dist"]),
                "python": platform.python_version(),
                "seed": args.seed,
                "repeat": args.repeat,
                **result,
            }
            print(json.dumps(record), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
