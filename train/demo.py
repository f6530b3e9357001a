"""Demo: one Mexican Train round between random legal players, printed move by move.

Run: ``python -m domino_env.train.demo [--players 4] [--max-pip 12] [--preset domino_cubano] [--seed 0]``.
A bad flag is one line naming it (exit status 2, nothing played), Ctrl-C one line, and a reader
that stops early (``| head``) ends it quietly with 141, as the console scripts do.
"""

from __future__ import annotations

import numpy as np

from domino_env.core.errors import ConfigError
from domino_env.envs.infos import Termination
from domino_env.envs.mexican_train_v0 import raw_env
from domino_env.train.arg_types import count
from domino_env.train.cli import ArgumentParser, run_script

PROG = "python -m domino_env.train.demo"
#: The flag of each field a bad value is reported for.
FLAGS = {"num_players": "--players", "max_pip": "--max-pip", "preset": "--preset", "seed": "--seed"}


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=count, default=4, help="seats, 2..8 (default 4)")
    parser.add_argument("--max-pip", type=int, default=12, help="double-N set: 9, 12, 15, 18")
    parser.add_argument("--preset", default="domino_cubano", help="domino_cubano | tren_mexicano | novelty")
    parser.add_argument("--seed", type=count, default=0, help="seed of the deal and of the players")
    args = parser.parse_args(argv)
    try:  # every flag is checked before the round starts
        env = raw_env(preset=args.preset, num_players=args.players, max_pip=args.max_pip, render_mode="ansi")
        env.reset(seed=args.seed)
    except ConfigError as exc:
        parser.error(f"{FLAGS.get(exc.field, exc.field)}: {exc}")
    rng = np.random.default_rng(args.seed)
    print(f"One Mexican Train round ({args.preset}, {args.players} seats, double-{args.max_pip}, seed {args.seed}): "
          "every seat plays a random legal move\n")  # fmt: skip
    print(env.render(), "\n")
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        print(f"seat {env.possible_agents.index(agent)}: {env.game_state.describe_action(action)}")  # (agent player_N)
        env.step(action)
    print("\n" + env.render())
    info = env.infos["player_0"] if "player_0" in env.infos else info
    winners = np.flatnonzero(info["won"]).tolist()
    print(f"\nround ended: {Termination(info['termination_code'])}; winners {winners}; pips left {info['pips'].tolist()}")


if __name__ == "__main__":
    run_script(PROG, main)
