"""What the envs return, pinned on seeded random episodes: every observation (each agent's, at
every step), action mask, reward, termination and the info arrays.

The spec hash (saved with trained models) covers the observation's layout: names, shapes and
bounds. A change to the values inside that layout (a scale, an egocentric rotation, a field
filled a step late), to a reward or to an info keeps the hash and every test of hand-built
positions that does not look at that value, and changes what a trained model sees. The pins
compare a SHA-256 of all of it with ``episode_pins.json``; two pins do the same for the
single-agent adapter (``gymnasium.make``, its default random opponents).

A pin that fails means the env returns something else. If that is the intent, it is a new env
version or a CHANGELOG.md entry (see its versioning paragraph), and the pins are written anew::

    python tests/envs/test_episode_pins.py --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

from domino_env.envs import block_v0, cuban_v0, draw_v0, mexican_train_v0

PINS_FILE = Path(__file__).with_name("episode_pins.json")

#: name: (env factory, its kwargs, seeds of the episodes)
PINS = {
    "mexican_train default round": (mexican_train_v0.raw_env, {}, range(3)),
    "mexican_train tren_mexicano 3p d9 game": (mexican_train_v0.raw_env, {"preset": "tren_mexicano", "num_players": 3,
                                               "max_pip": 9, "episode": "game"}, range(1)),
    "mexican_train 8p d15 highest_held": (mexican_train_v0.raw_env, {"num_players": 8, "max_pip": 15,
                                          "station_source": "highest_held"}, range(2)),
    "mexican_train no boneyard, no Mexican train": (mexican_train_v0.raw_env, {"num_players": 2, "max_pip": 9,
                                                    "use_boneyard": False, "use_mexican_train": False}, range(3)),
    "block 2p game": (block_v0.raw_env, {"num_players": 2, "episode": "game"}, range(2)),
    "draw 3p round": (draw_v0.raw_env, {"num_players": 3}, range(4)),
    "cuban teams game": (cuban_v0.raw_env, {"episode": "game"}, range(1)),
    # reward="points" (the default pays the outcome): each round's points, in both families
    "mexican_train 3p d9 points reward": (mexican_train_v0.raw_env, {"num_players": 3, "max_pip": 9, "reward": "points"}, range(2)),
    "block 3p points reward game": (block_v0.raw_env, {"num_players": 3, "reward": "points", "episode": "game"}, range(1)),
    # the single-agent adapter: its observations, rewards and infos, with its default opponents
    "gymnasium MexicanTrain-v0 3p d9": (gymnasium.make, {"id": "dominoes/MexicanTrain-v0", "num_players": 3,
                                        "max_pip": 9}, range(3)),
    "gymnasium Cuban-v0 teams game": (gymnasium.make, {"id": "dominoes/Cuban-v0", "episode": "game"}, range(2)),
}  # fmt: skip

#: The info keys of every game whose values are pinned (the game's own keys too: station, leader).
INFO_KEYS = ("round_over", "termination_code", "winners", "won", "pips", "points", "scores", "round_index",
             "game_over", "game_winners", "game_won", "limit_reached")  # fmt: skip


def play(make, kwargs: dict, seeds: range) -> dict:
    """Random legal play, one episode per seed: ``{"steps": int, "sha256": str}`` of everything
    every agent is shown (``observe`` of each agent at each step, ``last()``'s reward, flags and
    info values)."""
    env = make(**kwargs)
    digest, steps = hashlib.sha256(), 0
    if make is gymnasium.make:
        return _play_adapter(env, seeds)
    for seed in seeds:
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            for other in env.possible_agents:
                seen = env.observe(other)
                digest.update(np.ascontiguousarray(seen["observation"]).tobytes())
                digest.update(np.ascontiguousarray(seen["action_mask"]).tobytes())
            keys = [*INFO_KEYS, *(k for k in ("station", "leader") if k in info)]
            digest.update(repr((agent, float(reward), terminated, truncated,
                                [np.asarray(info[k]).tolist() for k in keys])).encode())  # fmt: skip
            steps += 1
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return {"steps": steps, "sha256": digest.hexdigest()}


def _play_adapter(env, seeds: range) -> dict:
    """As :func:`play`, for a Gymnasium env: what ``reset`` and ``step`` return, the mask too."""
    digest, steps = hashlib.sha256(), 0
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        rng, done = np.random.default_rng(seed), False
        while not done:
            mask = env.unwrapped.action_masks()
            digest.update(np.ascontiguousarray(obs).tobytes() + np.ascontiguousarray(mask).tobytes())
            digest.update(repr(sorted((k, np.asarray(v).tolist()) for k, v in info.items())).encode())
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            digest.update(repr((float(reward), terminated, truncated)).encode())
            steps, done = steps + 1, terminated or truncated
        digest.update(np.ascontiguousarray(obs).tobytes() + repr(sorted((k, np.asarray(v).tolist()) for k, v in info.items())).encode())
    return {"steps": steps, "sha256": digest.hexdigest()}


@pytest.mark.parametrize("name", sorted(PINS))
def test_the_envs_return_what_is_pinned(name):
    pinned = json.loads(PINS_FILE.read_text())
    assert set(pinned) == set(PINS), "episode_pins.json and PINS name different pins: write the pins anew"
    assert play(*PINS[name]) == pinned[name], (
        f"{name}: the env returns other observations, rewards or infos than episode_pins.json; if intended, it is "
        "a new env version or a CHANGELOG.md entry; then run: python tests/envs/test_episode_pins.py --write"
    )  # fmt: skip


def test_a_pin_sees_one_observation_value_change(monkeypatch):
    """The digest covers the observations' values: one field of one agent's observation at one
    step, changed by a ten-thousandth, changes it."""
    make, kwargs, seeds = PINS["draw 3p round"]
    base = play(make, kwargs, seeds)
    env_class = type(make(**kwargs))
    observe, calls = env_class.observe, []

    def nudged(self, agent):
        obs = observe(self, agent)
        calls.append(1)
        if len(calls) == 50:
            obs = dict(obs, observation=obs["observation"] + np.float32(1e-4) * (np.arange(obs["observation"].size) == 7))
        return obs

    monkeypatch.setattr(env_class, "observe", nudged)
    assert play(make, kwargs, seeds) != base


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/envs/test_episode_pins.py --write  (plays every pin and rewrites episode_pins.json)")
    PINS_FILE.write_text(json.dumps({name: play(*PINS[name]) for name in sorted(PINS)}, indent=1) + "\n")
    print(f"wrote {PINS_FILE} ({len(PINS)} pins)")
