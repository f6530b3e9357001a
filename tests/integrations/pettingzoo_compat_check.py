"""Run by tests/integrations/test_pettingzoo_versions.py inside a venv holding an older
PettingZoo (plus numpy and gymnasium only): PettingZoo's own api_test and seed_test on all four
envs, the global state, the turn-based parallel view, and an illegal move under ``env()``
(PettingZoo 1.24.3's TerminateIllegalWrapper broke the next step). Prints one "ok" line per env."""

from __future__ import annotations

import sys
import warnings

import gymnasium
import numpy as np
import pettingzoo
from pettingzoo.test import api_test, seed_test

from domino_env.envs import block_v0, cuban_v0, draw_v0, mexican_train_v0

ENVS = {
    "mexican_train_v0": (mexican_train_v0, {"num_players": 3, "max_pip": 9}),
    "block_v0": (block_v0, {}),
    "draw_v0": (draw_v0, {}),
    "cuban_v0": (cuban_v0, {}),
}


def check_illegal_move(module, kwargs) -> None:
    """An illegal move ends the episode: -1 for the offender, each agent is then selected once and
    stepped with None, and the next episode plays to its end (docs/envs.md)."""
    env = module.env(**kwargs)
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0]))
    seen = []
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        assert terminated and truncated, (agent, terminated, truncated)
        seen.append((agent, reward))
        env.step(None)
    assert sorted(seen) == sorted((a, -1.0 if a == offender else 0.0) for a in env.possible_agents), seen
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in env.agent_iter(100_000):
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not env.agents


def main() -> int:
    warnings.simplefilter("ignore")
    print("pettingzoo", pettingzoo.__version__, "registry", hasattr(pettingzoo, "register"),
          "numpy", np.__version__, "gymnasium", gymnasium.__version__)
    for name, (module, kwargs) in ENVS.items():
        api_test(module.env(**kwargs), num_cycles=300)
        seed_test(lambda module=module, kwargs=kwargs: module.env(**kwargs), num_cycles=300)
        env = module.env(**kwargs)
        env.reset(seed=0)
        assert env.state_space.contains(env.state())
        par = module.parallel_env(**kwargs)
        obs, _ = par.reset(seed=0)
        actor = env.agent_selection
        par.step({actor: int(np.flatnonzero(obs[actor]["action_mask"])[0])})
        check_illegal_move(module, kwargs)
        print("ok", name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
