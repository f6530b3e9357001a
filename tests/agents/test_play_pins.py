"""The play of every built-in agent and released model, pinned on seeded episodes.

Every published figure (docs/agents.md, docs/search.md, docs/training.md, the README) is a
tournament between these agents. A change to an agent's tie-break, a rule engine's move order,
an encoder's field or a loader's arithmetic can leave every other test green and every figure
stale. Each pin below plays a few seeded round episodes with fixed seats and compares what
happened with ``play_pins.json``: the number of moves, a SHA-256 of the actions in order, and
each seat's summed reward.

A pin that fails means the agents now play differently. If that is the intent, say so in
CHANGELOG.md (its section on the scripted agents' play, or the rules engines), re-measure the
figures it touches, and write the pins anew::

    python tests/agents/test_play_pins.py --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from domino_env.agents import make_agent
from domino_env.envs import block_v0, cuban_v0, draw_v0, mexican_train_v0
from domino_env.wrappers import info_state_kwargs

PINS_FILE = Path(__file__).with_name("play_pins.json")
CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"
MT, CUBAN = CHECKPOINTS / "mexican_train_4p_d12_action_scores", CHECKPOINTS / "cuban_4p_teams_action_scores"

#: name: (env factory, its kwargs, one agent spec per seat, seeds of the episodes)
PINS = {
    "mexican_train random": (mexican_train_v0.raw_env, {}, ["random"] * 4, range(10)),
    "mexican_train greedy vs planners": (mexican_train_v0.raw_env, {}, ["greedy", "planner", "planner", "planner"], range(10)),
    "mexican_train tren_mexicano 3p d9": (mexican_train_v0.raw_env, {"preset": "tren_mexicano", "num_players": 3, "max_pip": 9},
                                          ["planner", "greedy", "random"], range(10)),  # fmt: skip
    "mexican_train search:8": (mexican_train_v0.raw_env, {}, ["search:8", "planner", "planner", "planner"], range(3)),
    "mexican_train action-scores release": (mexican_train_v0.raw_env, {}, [f"ppo:{MT}", "planner", "planner", "planner"], range(10)),
    # a whole game: the scores and the round index the models read are not 0 (their scaling is pinned)
    "mexican_train action-scores release, a game": (mexican_train_v0.raw_env, {"episode": "game", "num_players": 4},
                                                    [f"ppo:{MT}", "planner", "greedy", "planner"], range(1)),
    "cuban action-scores release, a game": (cuban_v0.raw_env, {"episode": "game"},
                                            [f"ppo:{CUBAN}", "planner", f"ppo:{CUBAN}", "planner"], range(2)),
    "mexican_train flat release": (mexican_train_v0.raw_env, {}, [f"ppo:{CHECKPOINTS / 'mexican_train_4p_d12'}", "greedy", "greedy", "greedy"], range(10)),
    "block 2p": (block_v0.raw_env, {"num_players": 2}, ["planner", "greedy"], range(20)),
    "block search:8": (block_v0.raw_env, {"num_players": 2}, ["search:8", "planner"], range(6)),
    "draw 4p": (draw_v0.raw_env, {}, ["planner", "greedy", "random", "planner"], range(10)),
    "cuban planner team vs greedy team": (cuban_v0.raw_env, {}, ["planner", "greedy", "planner", "greedy"], range(10)),
    # the line planner's search option (docs/agents.md's search table): rollouts, seeded by the agents' generator
    "cuban planner:search team vs greedy team": (cuban_v0.raw_env, {}, ["planner:search", "greedy", "planner:search", "greedy"], range(5)),
    "cuban action-scores release": (cuban_v0.raw_env, {}, [f"ppo:{CUBAN}", "planner", f"ppo:{CUBAN}", "planner"], range(10)),
    "cuban flat release": (cuban_v0.raw_env, {}, [f"ppo:{CHECKPOINTS / 'cuban_4p_teams'}", "greedy", f"ppo:{CHECKPOINTS / 'cuban_4p_teams'}", "greedy"], range(10)),
}  # fmt: skip


def play(make, kwargs: dict, specs: list[str], seeds: range) -> dict:
    """Play one episode per seed with ``make(episode="round", **kwargs)`` (``kwargs`` may name another) and one agent
    per seat: ``{"moves": int, "sha256": str (of the actions in order), "returns": [float per seat]}``."""
    env = make(**{"episode": "round", **kwargs})
    agents = [make_agent(spec, env) for spec in specs]
    digest, moves, returns = hashlib.sha256(), 0, np.zeros(len(specs))
    for seed in seeds:
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)  # the agents' generator, as a tournament's per episode
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            seat = env.possible_agents.index(agent)
            returns[seat] += reward
            if terminated or truncated:
                env.step(None)
                continue
            extra = info_state_kwargs(agents[seat], env.game_state, seat)
            action = int(agents[seat](obs["observation"], obs["action_mask"], rng, **extra))
            digest.update(f"{action},".encode())
            moves += 1
            env.step(action)
        digest.update(b";")
    return {"moves": moves, "sha256": digest.hexdigest(), "returns": [round(float(r), 9) for r in returns]}


@pytest.mark.parametrize("name", sorted(PINS))
def test_the_agents_play_as_pinned(name):
    pinned = json.loads(PINS_FILE.read_text())
    assert set(pinned) == set(PINS), "play_pins.json and PINS name different pins: write the pins anew"
    assert play(*PINS[name]) == pinned[name], (
        f"{name}: the agents play differently from play_pins.json; if intended, add a CHANGELOG.md entry, re-measure "
        "the figures it touches and run: python tests/agents/test_play_pins.py --write"
    )  # fmt: skip


def test_a_release_pin_sees_the_observation_scale_of_tile_counts_change(monkeypatch):
    """The released models' pins play enough rounds (10 each) for a loader's arithmetic to show:
    tile counts scaled by 1/25 instead of 1/20 changed no move in the 2 or 3 rounds they played."""
    from domino_env.agents import observation_scaling

    pinned = json.loads(PINS_FILE.read_text())
    names = [name for name in sorted(PINS) if name.endswith("release")]  # (the 10-round pins; not the games)
    monkeypatch.setitem(observation_scaling._UNIT_DIVISORS, "tiles", 25.0)
    monkeypatch.setitem(observation_scaling._LINE_UNIT_DIVISORS, "tiles", 12.5)
    assert [play(*PINS[name]) != pinned[name] for name in names] == [True] * 4, names


def test_a_pin_tells_apart_agents_that_differ_in_one_move():
    """The digest is of every action in order: the same agents with one seat changed differ."""
    base = play(block_v0.raw_env, {"num_players": 2}, ["planner", "greedy"], range(2))
    swapped = play(block_v0.raw_env, {"num_players": 2}, ["greedy", "planner"], range(2))
    assert swapped["sha256"] != base["sha256"] and sum(base["returns"]) == pytest.approx(0)
    assert play(block_v0.raw_env, {"num_players": 2}, ["planner", "greedy"], range(2)) == base  # and it is seeded


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/agents/test_play_pins.py --write  (plays every pin and rewrites play_pins.json)")
    PINS_FILE.write_text(json.dumps({name: play(*PINS[name]) for name in sorted(PINS)}, indent=1) + "\n")
    print(f"wrote {PINS_FILE} ({len(PINS)} pins)")
