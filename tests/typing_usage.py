"""A user's script, type-checked: tests/test_typing.py runs mypy on it (no error allowed) and runs
it. It uses the public API as README.md and docs/ show it; keep it short and runnable."""

from __future__ import annotations

from typing import Any

import numpy as np

from domino_env.agents import make_agent, register_agent
from domino_env.core.records import replay
from domino_env.encoding.mexican_train import decode_action
from domino_env.envs.mexican_train_v0 import raw_env
from domino_env.train.evaluate import evaluate
from domino_env.wrappers import mexican_train_single_agent

RULES: dict[str, Any] = {"num_players": 2, "max_pip": 9}


def first_legal(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
    """An agent: its parameters need not have the protocol's names."""
    return int(np.flatnonzero(mask)[0])


def first_legal_numpy(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.intp:
    """An agent returning a numpy integer, as np.flatnonzero gives it (taken as an action)."""
    return np.flatnonzero(mask)[0]


def play(seed: int) -> dict[str, Any]:
    env = raw_env(**RULES)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    greedy = make_agent("greedy", env.config)
    while env.agents:
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        kinds = {decode_action(a, 2, 9)[0] for a in np.flatnonzero(obs["action_mask"])}  # numpy ints
        assert kinds <= {"place", "draw", "pass"}
        env.step(greedy(obs["observation"], obs["action_mask"], rng))
    return env.to_record()


record = play(0)
assert len(list(replay(record))) == len(record["actions"]) + 1

register_agent("first-legal", lambda config, arg: first_legal, replace=True)
result = evaluate([first_legal, "first-legal"], rounds=2, seed=0, **RULES)
assert evaluate([first_legal_numpy, "random"], rounds=2, seed=0, **RULES).stats_for("first_legal_numpy").seat_episodes == 2
win_rate: float = result.stats_for("first_legal").win_rate

adapter = mexican_train_single_agent(opponents=[first_legal_numpy], **RULES)
observation, info = adapter.reset(seed=0)
action = np.asarray(np.flatnonzero(adapter.action_masks())[0])  # 0-d, as SB3's model.predict gives
observation, reward, terminated, truncated, info = adapter.step(action)
total: float = reward
print("ok", win_rate, total, observation.shape)
