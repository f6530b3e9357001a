#!/usr/bin/env python3
"""Playouts per second from mid-round states (what determinized search spends its time on).

Run from the repository root in the project's virtual environment::

    .venv/bin/python benchmarks/playouts.py                 # 3 s a cell
    .venv/bin/python benchmarks/playouts.py --seconds 1 --json playouts.json
    .venv/bin/python benchmarks/playouts.py --decisions search:50 search:200   # time per decision

Cells: Mexican Train (preset ``domino_cubano``, 4 players, double-12) and Cuban (double-9, 4
players in teams). Mid-round states: 64 positions reached by random legal play (Mexican Train: 20
actions into the round; Cuban: 8), fixed seeds. A playout = ``state.copy()`` plus play to the end
of the round with a rollout policy of :mod:`domino_env.agents.rollout` (``random``, ``greedy``; ``plan``
and ``planner`` for Mexican Train), cycling over the positions until ``--seconds`` of CPU time
(``time.process_time``, so other processes on a shared machine do not count against us) have
passed. The ``plan`` rollout's chain memo is new for each pass over the positions (search keeps one
per decision); the ``planner`` rollout keeps one planner, memo included, for the whole cell, as a
search agent keeps one for its life. It also reports the belief sampler's cost (:meth:`InformationState.sample` per second)
and the mean engine steps per playout, and the line games' endgame solver (:class:`LineSolver`,
what search uses near a round's end): CPU time per solve, a fresh transposition table each, nodes
visited and the share solved within its node budget, on 64 positions of block 2p at the first
decision after the lead and of Cuban (teams) with 24 tiles left in the hands.

``--decisions SPEC ...`` adds the search agent's CPU time per decision and its mean number of
determinizations K (decisions with more than
one legal action, seat 0 against planners in every other seat, ``--decision-rounds`` (3) rounds a
spec) in the game ``--decision-game``: ``mexican_train_4p_d12`` (default), ``block_2p``, ``draw_2p`` or
``cuban_4p_teams``; ``--decision-rollout POLICY`` times them with another rollout policy (e.g.
``planner`` in Mexican Train), ``--decision-candidates K`` with another number of moves searched
(0: every legal move).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from domino_env.agents import make_agent  # noqa: E402
from domino_env.agents.line_solver import LineSolver  # noqa: E402
from domino_env.agents.mexican_train import PlannerAgent  # noqa: E402
from domino_env.agents.rollout import playout  # noqa: E402
from domino_env.agents.search import ROLLOUTS_LINE, ROLLOUTS_MEXICAN, SearchAgent  # noqa: E402
from domino_env.core.belief import InformationState  # noqa: E402
from domino_env.core.config import MexicanTrainConfig, line_from_preset  # noqa: E402
from domino_env.core.errors import DominoError  # noqa: E402
from domino_env.core.line import LineState  # noqa: E402
from domino_env.core.mexican_train import MexicanTrainState  # noqa: E402
from domino_env.envs.games import make_raw_env as make_env  # noqa: E402
from domino_env.train.arg_types import count  # noqa: E402
from domino_env.train.cli import check_output_file  # noqa: E402

CELLS = {
    "mexican_train_4p_d12": (
        MexicanTrainState,
        MexicanTrainConfig(),
        20,
        ("random", "greedy", "plan", "planner"),
    ),
    "cuban_4p_d9_teams": (LineState, line_from_preset("cuban"), 8, ("random", "greedy", "block")),
}


def mid_round_states(cls, config, depth: int, count: int = 64) -> list:
    states, seed = [], 0
    while len(states) < count:
        rng = np.random.default_rng(seed)
        seed += 1
        state = cls.new_game(config, rng)
        for _ in range(depth):
            if state.round_over:
                break
            legal = state.legal_actions()
            if getattr(state, "annul_action", -1) in legal and len(legal) > 1:
                legal = legal[:-1]
            state.apply(legal[int(rng.integers(len(legal)))])
        if not state.round_over:
            states.append(state)
    return states


def measure(states, policy: str, seconds: float) -> dict:
    rng = np.random.default_rng(0)
    n = steps = 0
    planner = PlannerAgent(states[0].config) if policy == "planner" else None
    start = time.process_time()
    while time.process_time() - start < seconds:
        # a new "plan" memo each pass: search shares one within a decision only, and a memo kept
        # over the passes would replay the same 64 positions' plans (about 20% faster)
        plans: dict = {}
        for state in states:
            s = state.copy()
            before = len(s.actions)
            playout(s, policy, rng, plans, planner)
            steps += len(s.actions) - before
            n += 1
    dt = time.process_time() - start
    return {"playouts_per_s": n / dt, "steps_per_playout": steps / n}


def sampler_rate(states, seconds: float) -> float:
    rng = np.random.default_rng(0)
    infos = [InformationState.from_state(s, s.current_player) for s in states]
    n = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for info in infos:
            info.sample(rng)
            n += 1
    return n / (time.process_time() - start)


#: Endgame solver cells: name -> (line config, tiles left in the hands at the position, or None:
#: the first decision after the lead).
SOLVER_CELLS = {
    "block_2p_first_decision": (line_from_preset("block", num_players=2), None),
    "cuban_4p_teams_24_tiles": (line_from_preset("cuban"), 24),
}


def solver_positions(config, tiles: int | None, count: int = 64) -> list:
    """``count`` positions reached by random legal play (fixed seeds): the first decision after
    the lead (``tiles`` None), or the first with at most ``tiles`` tiles in the hands."""
    states, seed = [], 0
    while len(states) < count:
        rng = np.random.default_rng(seed)
        seed += 1
        state = LineState.new_game(config, rng)
        while not state.round_over and not (
            LineSolver.solvable(state) and (tiles is None or sum(h.bit_count() for h in state.hands) <= tiles)
        ):
            legal = [a for a in state.legal_actions() if a != getattr(state, "annul_action", -1)] or state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        if not state.round_over:
            states.append(state)
    return states


def solver_cost(config, tiles: int | None) -> dict:
    """CPU time per solve of the side to move (a fresh transposition table each), mean nodes and
    the share solved within the default node budget, over :func:`solver_positions`."""
    positions = solver_positions(config, tiles)
    solver = LineSolver(positions[0])
    nodes, solved = [], 0
    start = time.process_time()
    for state in positions:
        solver.reset()
        won = solver.wins(state, state.current_player % 2)
        nodes.append(solver.nodes)
        solved += won is not None
    dt = time.process_time() - start
    return {"ms_per_solve": 1e3 * dt / len(positions), "mean_nodes": float(np.mean(nodes)),
            "solved_share": solved / len(positions), "positions": len(positions)}  # fmt: skip


#: ``--decision-game`` choices: name -> (game, env kwargs). The seat timed is 0; the others are planners.
DECISION_GAMES = {
    "mexican_train_4p_d12": ("mexican_train", {}),
    "block_2p": ("block", {"num_players": 2}),
    "draw_2p": ("draw", {"num_players": 2}),
    "cuban_4p_teams": ("cuban", {}),
}


def search_agent(spec: str, config, rollout: str | None = None, candidates: int | None = None):
    """The agent of ``spec`` (``search`` / ``search:N``), with rollout policy ``rollout`` and
    ``candidates`` (moves searched, 0: every legal move) instead of its defaults when given
    (``SearchAgent``'s ``ConfigError`` names a rollout the game lacks)."""
    agent = make_agent(spec, config)
    if (rollout, candidates) != (None, None) and getattr(agent, "wants_info_state", False):
        agent = SearchAgent(config, budget=agent.budget, rollout=rollout, candidates=candidates)
    return agent


def decision_times(
    spec: str,
    rounds: int = 3,
    game: str = "mexican_train_4p_d12",
    rollout: str | None = None,
    candidates: int | None = None,
) -> dict:
    name, kwargs = DECISION_GAMES[game]
    env = make_env(name, **kwargs)
    agent = search_agent(spec, env.config, rollout, candidates)
    planner = make_agent("planner", env.config)
    rng = np.random.default_rng(0)
    times, worlds = [], []
    for seed in range(rounds):
        env.reset(seed=seed)
        while env.agents:
            a = env.agent_selection
            if env.terminations[a] or env.truncations[a]:
                env.step(None)
                continue
            seat = env.possible_agents.index(a)
            obs = env.observe(a)
            if seat == 0 and obs["action_mask"].sum() > 1:
                t0 = time.process_time()
                info = InformationState.from_state(env.game_state, seat)
                action = agent(obs["observation"], obs["action_mask"], rng, info_state=info)
                times.append(time.process_time() - t0)
                moves = int(obs["action_mask"].sum())  # searched: the prior's top candidates
                if agent.candidates:
                    moves = min(moves, agent.candidates)
                worlds.append(max(agent.min_worlds, agent.budget // moves))
            else:
                action = planner(obs["observation"], obs["action_mask"], rng)
            env.step(int(action))
    t = np.array(times) * 1e3
    return {
        "game": game,
        "rollout": agent.rollout,
        "candidates": agent.candidates,
        "decisions": len(t),
        "mean_ms": float(t.mean()),
        "p90_ms": float(np.percentile(t, 90)),
        "max_ms": float(t.max()),
        "mean_worlds": float(np.mean(worlds)),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="CPU seconds per cell (default 3)"
    )
    parser.add_argument("--json", default=None, help="also write the figures as JSON")
    parser.add_argument(
        "--decisions",
        nargs="*",
        default=None,
        metavar="SPEC",
        help="search agent specs to time per decision",
    )
    parser.add_argument(
        "--decision-game",
        choices=tuple(DECISION_GAMES),
        default=None,
        help="game of --decisions (default: mexican_train_4p_d12)",
    )
    parser.add_argument(
        "--decision-rounds",
        type=count,
        default=None,
        help="rounds of --decisions per spec (default 3)",
    )
    parser.add_argument(
        "--decision-rollout",
        default=None,
        metavar="POLICY",
        help="rollout policy of the --decisions agents instead of their default (e.g. planner "
        "in Mexican Train: the planner itself at every seat)",
    )
    parser.add_argument(
        "--decision-candidates",
        type=count,
        default=None,
        metavar="K",
        help="moves the --decisions agents search instead of their default (0: every legal move)",
    )
    args = parser.parse_args(argv)
    # every flag is checked before any measuring starts
    if not (0.01 <= args.seconds <= 600):  # also refuses nan and inf
        parser.error(f"--seconds must be between 0.01 and 600, got {args.seconds}")
    if args.decision_rounds is not None and args.decision_rounds < 1:
        parser.error(f"--decision-rounds must be >= 1, got {args.decision_rounds}")
    if args.decision_candidates is not None and args.decision_candidates < 0:
        parser.error(f"--decision-candidates must be >= 0, got {args.decision_candidates}")
    given = (args.decision_game, args.decision_rounds, args.decision_rollout, args.decision_candidates)
    # "is not None": an empty value (--decision-rollout "") counts as given
    if not args.decisions and any(v is not None for v in given):
        parser.error(
            "--decision-game, --decision-rounds, --decision-rollout and --decision-candidates "
            "need --decisions SPEC ..."
        )
    args.decision_game = args.decision_game or "mexican_train_4p_d12"
    args.decision_rounds = args.decision_rounds or 3
    game, kwargs = DECISION_GAMES[args.decision_game]
    if args.decisions == []:
        parser.error("--decisions needs at least one search agent spec (search, search:N)")
    rollouts = ROLLOUTS_MEXICAN if game == "mexican_train" else ROLLOUTS_LINE
    if args.decision_rollout is not None and args.decision_rollout not in rollouts:
        parser.error(
            f"--decision-rollout must be one of {rollouts} for --decision-game "
            f"{args.decision_game}, got {args.decision_rollout!r}"
        )
    for spec in args.decisions or []:
        try:
            agent = search_agent(
                spec, make_env(game, **kwargs).config, args.decision_rollout, args.decision_candidates
            )
        except DominoError as err:
            parser.error(f"--decisions {spec}: {err}")
        if not getattr(agent, "wants_info_state", False):
            parser.error(f"--decisions takes search agent specs (search, search:N), got {spec!r}")
    if args.json is not None:  # also refuses a file that is not an earlier playouts result
        check_output_file(parser, "--json", args.json, {"cells", "decisions"}, "a playouts result")
    out: dict = {"cells": {}, "decisions": {}}
    for name, (cls, config, depth, policies) in CELLS.items():
        states = mid_round_states(cls, config, depth)
        cell = {p: measure(states, p, args.seconds) for p in policies}
        cell["sampler_per_s"] = sampler_rate(states, args.seconds)
        out["cells"][name] = cell
        for p in policies:
            print(
                f"{name:22s} {p:7s} {cell[p]['playouts_per_s']:8.0f} playouts/s "
                f"({cell[p]['steps_per_playout']:.1f} steps each)"
            )
        print(f"{name:22s} sampler {cell['sampler_per_s']:8.0f} samples/s")
    out["solver"] = {}
    for name, (config, tiles) in SOLVER_CELLS.items():
        c = out["solver"][name] = solver_cost(config, tiles)
        print(f"{name:24s} solver {c['ms_per_solve']:6.2f} ms a solve (CPU), {c['mean_nodes']:.0f} nodes on "
              f"average, {c['solved_share']:.0%} solved within the node budget")  # fmt: skip
    for spec in args.decisions or []:
        d = out["decisions"][spec] = decision_times(
            spec, args.decision_rounds, args.decision_game, args.decision_rollout,
            args.decision_candidates,
        )  # fmt: skip
        print(
            f"{spec:14s} rollout {d['rollout']}, candidates {d['candidates']}: {d['decisions']} decisions: mean {d['mean_ms']:.1f} ms, "
            f"p90 {d['p90_ms']:.1f} ms, max {d['max_ms']:.1f} ms (CPU), "
            f"{d['mean_worlds']:.1f} determinizations on average"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    from domino_env.train.cli import run_script

    run_script("playouts.py", main)
