"""Demo: one Mexican Train round between random legal players, printed move by move.

Run: ``python -m train.demo [--players 4] [--max-pip 12] [--preset domino_cubano] [--seed 0]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from domino_env.envs.infos import Termination
from domino_env.envs.mexican_train_v0 import raw_env


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, help="seats, 2..8 (default 4)")
    parser.add_argument("--max-pip", type=int, default=12, help="double-N set: 9, 12, 15, 18")
    parser.add_argument("--preset", default="domino_cubano", help="domino_cubano | tren_mexicano | novelty")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and of the players")
    args = parser.parse_args(argv)
    env = raw_env(preset=args.preset, num_players=args.players, max_pip=args.max_pip, render_mode="ansi")
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    print(env.render(), "\n")
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        print(f"{agent}: {env.game_state.describe_action(action)}")
        env.step(action)
    print("\n" + env.render())
    info = env.infos["player_0"] if "player_0" in env.infos else info
    winners = np.flatnonzero(info["won"]).tolist()
    print(f"\nround ended: {Termination(info['termination_code'])}; winners {winners}; pips left {info['pips'].tolist()}")


if __name__ == "__main__":
    main()
