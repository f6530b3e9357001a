#!/usr/bin/env python3
"""Long soak of every game through ``raw_env``: random legal rounds, every step checked.

Run from the repository root in the project's virtual environment (see docs/soak.md)::

    .venv/bin/python benchmarks/soak.py                       # 100,000 rounds per preset
    .venv/bin/python benchmarks/soak.py --rounds 200 --json soak.json --workers 2

For each preset of every game (Mexican Train ``domino_cubano``, ``tren_mexicano``, ``novelty``;
line games ``block``, ``draw``, ``cuban``) it plays ``--rounds`` rounds of uniformly random legal
play, spread over player counts and sets (:data:`MT_TABLES`, :data:`LINE_TABLES`) and over
``episode="round"`` and ``episode="game"`` environments (:data:`GAME_SHARE` of the rounds come
from whole games). At every step it observes the acting agent (``observe``: observation and action
mask) and at every round end every agent, and counts:

* ``errors``: any exception raised by the env (the first few are kept with their traceback);
* ``obs_outside_box``: observations not inside ``observation_space(agent)`` (``Box.contains``);
* ``empty_masks``: an acting, live seat whose action mask has no legal action;
* ``rounds_not_ended``: a round still running after :func:`round_step_limit` steps.

The random choices flow from ``--seed`` (one ``numpy.random.SeedSequence`` child per work unit), so
a run replays exactly; the report names the env kwargs and seed of every problem it keeps. Exit
status 0 when every count is 0, 1 otherwise, 2 on bad arguments; Ctrl-C writes the partial report
(``"interrupted": true``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import signal
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from domino_env.core.config import LineConfig, MexicanTrainConfig  # noqa: E402
from domino_env.core.errors import ConfigError  # noqa: E402
from domino_env.envs import line_v0, mexican_train_v0  # noqa: E402
from domino_env.train.arg_types import SEED  # noqa: E402
from domino_env.train.cli import check_output_file  # noqa: E402

MT_PRESETS = ("domino_cubano", "tren_mexicano", "novelty")
LINE_PRESETS = ("block", "draw", "cuban")
PRESETS = MT_PRESETS + LINE_PRESETS

#: (num_players, max_pip) tables played for each Mexican Train preset, in turn (every config that
#: a preset does not accept is skipped).
MT_TABLES = ((2, 9), (3, 9), (4, 9), (4, 12), (6, 12), (8, 12), (2, 15), (5, 15), (3, 18), (8, 18))
#: (num_players, max_pip) tables for the line games (Cuban is always 4 seats in teams).
LINE_TABLES = {
    "block": ((2, 6), (3, 6), (4, 6), (4, 9), (3, 12)),
    "draw": ((2, 6), (3, 6), (4, 6), (2, 9), (4, 12)),
    "cuban": ((4, 9), (4, 12)),
}
#: Share of each preset's rounds played inside ``episode="game"`` environments.
GAME_SHARE = 0.25
#: Rounds a work unit plays (one env, one config, one episode kind).
UNIT_ROUNDS = 250
#: Problems kept per kind in the report (all are counted).
KEEP = 5

COUNTS = ("errors", "obs_outside_box", "empty_masks", "rounds_not_ended")


@dataclass(frozen=True)
class Unit:
    """One work unit: ``rounds`` rounds of ``preset`` with these env kwargs and seed."""

    preset: str
    kwargs: tuple[tuple[str, Any], ...]
    rounds: int
    seed: int

    @property
    def env_kwargs(self) -> dict[str, Any]:
        return dict(self.kwargs)


def valid_tables(preset: str) -> list[tuple[int, int]]:
    """The (players, set) tables of ``preset`` that its config accepts."""
    tables = []
    for p, n in MT_TABLES if preset in MT_PRESETS else LINE_TABLES[preset]:
        try:
            make_env(preset, num_players=p, max_pip=n)
        except ConfigError:
            continue
        tables.append((p, n))
    return tables


def make_env(preset: str, **kwargs: Any) -> Any:
    """``raw_env`` of ``preset`` (never truncated: the soak has its own round step limit)."""
    kwargs.setdefault("max_cycles", 10**9)
    if preset in MT_PRESETS:
        return mexican_train_v0.raw_env(preset=preset, **kwargs)
    return line_v0.raw_env(preset=preset, **kwargs)


def round_step_limit(config: MexicanTrainConfig | LineConfig) -> int:
    """Steps after which a round counts as not ending: every action either places a tile (at most
    T), draws one (at most T) or passes/annuls (a seat passes at most once between two placements
    or draws, so at most P per placement or draw), with a wide margin."""
    t, p = config.tile_count, config.num_players
    return 4 * (2 * t + 2) * (p + 1)


def plan(rounds: int, seed: int, presets: tuple[str, ...]) -> list[Unit]:
    """Work units: for each preset, ``rounds`` rounds split into units that cycle over its tables
    and over round / game episodes (:data:`GAME_SHARE` of the rounds in game episodes). Each
    (preset, episode kind) draws its units' seeds from its own stream, so a preset's units do not
    depend on the other presets run, and a smaller ``rounds`` plays the first of the same units."""
    units = []
    for preset in presets:
        tables = valid_tables(preset)
        game_rounds = int(round(rounds * GAME_SHARE))
        for kind, (episode, total) in enumerate((("round", rounds - game_rounds), ("game", game_rounds))):
            stream = np.random.SeedSequence([seed, PRESETS.index(preset), kind])
            seeds = iter(stream.generate_state(total // UNIT_ROUNDS + 1, dtype=np.uint32))
            k = 0
            while total > 0:
                p, n = tables[k % len(tables)]
                size = min(UNIT_ROUNDS, total)
                kwargs = (("num_players", p), ("max_pip", n), ("episode", episode))
                units.append(Unit(preset, kwargs, size, int(next(seeds))))
                total -= size
                k += 1
    return units


def _problem(kind: str, unit: Unit, detail: str) -> dict[str, Any]:
    return {"kind": kind, "preset": unit.preset, "env_kwargs": unit.env_kwargs, "seed": unit.seed,
            "detail": detail}  # fmt: skip


def run_unit(unit: Unit) -> dict[str, Any]:
    """Play ``unit`` and return its counts: rounds, episodes, steps, the four problem counts and
    up to :data:`KEEP` problems of each kind."""
    out: dict[str, Any] = {"rounds": 0, "episodes": 0, "steps": 0, "problems": []}
    out.update({k: 0 for k in COUNTS})

    def problem(kind: str, detail: str) -> None:
        out[kind] += 1
        if sum(1 for p in out["problems"] if p["kind"] == kind) < KEEP:
            out["problems"].append(_problem(kind, unit, detail))

    rng = np.random.default_rng(unit.seed)
    env = make_env(unit.preset, **unit.env_kwargs)
    space = env.observation_space(env.possible_agents[0])["observation"]
    limit = round_step_limit(env.config)
    while out["rounds"] < unit.rounds and sum(out[k] for k in COUNTS) < 100:  # a broken unit stops
        try:
            env.reset(seed=int(rng.integers(2**31 - 1)))
            out["episodes"] += 1
            seen = 0  # round results already counted in this episode
            round_steps = 0
            while env.agents:
                agent = env.agent_selection
                if env.terminations[agent] or env.truncations[agent]:
                    env.step(None)
                    continue
                obs = env.observe(agent)
                if not space.contains(obs["observation"]):
                    problem("obs_outside_box", _outside(space, obs["observation"], agent))
                legal = np.flatnonzero(obs["action_mask"])
                if legal.size == 0:
                    problem("empty_masks", f"{agent} acting with an empty mask after {round_steps} steps")
                    break
                env.step(int(legal[rng.integers(legal.size)]))
                out["steps"] += 1
                round_steps += 1
                if len(env.round_results) > seen:
                    seen = len(env.round_results)
                    out["rounds"] += 1
                    round_steps = 0
                    for a in env.possible_agents:  # scores and round index right after a round
                        o = env.observe(a)["observation"]
                        if not space.contains(o):
                            problem("obs_outside_box", _outside(space, o, a))
                elif round_steps > limit:
                    problem("rounds_not_ended", f"round still running after {round_steps} steps")
                    break
        except Exception:  # noqa: BLE001 - the soak counts every failure and carries on
            problem("errors", traceback.format_exc(limit=6))
    return out


def _outside(space: Any, obs: np.ndarray, agent: str) -> str:
    obs = np.asarray(obs)
    if obs.shape != space.shape or obs.dtype != space.dtype:
        return f"{agent}: shape {obs.shape} dtype {obs.dtype}, space {space.shape} {space.dtype}"
    bad = np.flatnonzero((obs < space.low) | (obs > space.high) | ~np.isfinite(obs))
    return f"{agent}: entries {bad[:5].tolist()} = {obs[bad[:5]].tolist()} (high {space.high[bad[:5]].tolist()})"


def _merge(total: dict[str, Any], part: dict[str, Any]) -> None:
    for key in ("rounds", "episodes", "steps", *COUNTS):
        total[key] += part[key]
    for p in part["problems"]:
        if sum(1 for q in total["problems"] if q["kind"] == p["kind"]) < KEEP:
            total["problems"].append(p)


def _results(units: list[Unit], workers: int) -> Iterator[tuple[Unit, dict[str, Any]]]:
    if workers == 1:
        for unit in units:
            yield unit, run_unit(unit)
        return
    # The workers are born ignoring Ctrl-C (it reaches the whole process group): the main process
    # alone stops, and leaving the block terminates them at once, dropping the queued units.
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        pool = multiprocessing.Pool(workers)
    finally:
        signal.signal(signal.SIGINT, handler)
    with pool:
        yield from pool.imap_unordered(_unit_and_result, units)


def _unit_and_result(unit: Unit) -> tuple[Unit, dict[str, Any]]:
    return unit, run_unit(unit)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100_000, help="rounds per preset (default 100000)")
    parser.add_argument("--seed", type=SEED, default=0, help="seed of every random choice, 0 to 2**32 - 1 (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), metavar="PRESET",
                        help=f"presets to soak (default all: {' '.join(PRESETS)})")  # fmt: skip
    parser.add_argument("--json", type=Path, default=None, help="write the report to this file")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be a positive integer, got {args.rounds}")
    if not 1 <= args.workers <= (os.cpu_count() or 1) * 4:
        parser.error(f"--workers must be from 1 to {(os.cpu_count() or 1) * 4}, got {args.workers}")
    unknown = [p for p in args.presets if p not in PRESETS]
    if unknown:
        parser.error(f"unknown preset(s) {unknown}; allowed: {' '.join(PRESETS)}")
    if args.json is not None:
        check_output_file(parser, "--json", args.json, {"rounds_per_preset", "presets", "totals"}, "a soak report")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from domino_env.train.progress import advance, progress_bar  # every 30 s into a log (nohup)

    presets = tuple(dict.fromkeys(args.presets))
    units = plan(args.rounds, args.seed, presets)
    blank = {"rounds": 0, "episodes": 0, "steps": 0, "problems": [], **{k: 0 for k in COUNTS}}
    per_preset: dict[str, dict[str, Any]] = {
        p: {**blank, "problems": [], "round_episode_rounds": 0, "game_episode_rounds": 0,
            "tables": [list(t) for t in valid_tables(p)]}
        for p in presets
    }  # fmt: skip
    start = time.perf_counter()
    interrupted = False
    bar = progress_bar(total=len(presets) * args.rounds, unit="round", disable=args.no_progress,
               smoothing=0.05, dynamic_ncols=True)  # fmt: skip
    try:
        for unit, part in _results(units, args.workers):
            summary = per_preset[unit.preset]
            _merge(summary, part)
            summary[f"{unit.env_kwargs['episode']}_episode_rounds"] += part["rounds"]
            problems = sum(sum(s[k] for k in COUNTS) for s in per_preset.values())
            advance(bar, unit.rounds, problems=problems)  # the planned rounds: a game plays on past them
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    totals = {k: sum(s[k] for s in per_preset.values()) for k in ("rounds", "steps", *COUNTS)}
    report = {
        "command": "python benchmarks/soak.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "rounds_per_preset": args.rounds,
        "seed": args.seed,
        "workers": args.workers,
        "game_share": GAME_SHARE,
        "wall_s": round(time.perf_counter() - start, 1),
        "interrupted": interrupted,
        "python": platform.python_version(),
        "presets": per_preset,
        "totals": totals,
        "ok": not interrupted and all(totals[k] == 0 for k in COUNTS),
    }
    text = json.dumps(report, indent=1)
    if args.json is not None:
        args.json.write_text(text + "\n")
    for p, s in per_preset.items():
        print(f"{p:14s} rounds {s['rounds']:>7} (game episodes {s['game_episode_rounds']:>6}) "
              f"steps {s['steps']:>9}  " + "  ".join(f"{k} {s[k]}" for k in COUNTS))  # fmt: skip
    print(f"total: {totals['rounds']} rounds, {totals['steps']} steps in {report['wall_s']} s; "
          + ", ".join(f"{k} {totals[k]}" for k in COUNTS) + (" (interrupted)" if interrupted else ""))
    # Ctrl-C: the partial report is written; 130 ends the script killed by SIGINT (run_script), so a
    # shell loop of soaks stops (it exited 1, and the loop went on)
    return 130 if interrupted else 0 if report["ok"] else 1


if __name__ == "__main__":
    from domino_env.train.cli import run_script

    run_script("soak.py", main)
