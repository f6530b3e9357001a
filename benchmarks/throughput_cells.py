"""Cells and layers of ``benchmarks/throughput.py``: the game configurations measured
(:class:`Cell`), a runner per layer (``engine``, ``raw_env``, ``env``: one whole round of random
legal play each call) and the timed windows (what the numbers mean: ``throughput.py``'s docstring).

Imported by ``throughput.py`` (which puts the repository root on ``sys.path`` first).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

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
