"""Run by tests/integrations/test_pettingzoo_versions.py inside a venv holding an older
PettingZoo (plus numpy and gymnasium only): PettingZoo's own api_test and seed_test on all four
envs, the global state, and the turn-based parallel view. Prints one "ok" line per env."""

from __future__ import annotations

import sys
import warnings

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


def main() -> int:
    warnings.simplefilter("ignore")
    print("pettingzoo", pettingzoo.__version__, "registry", hasattr(pettingzoo, "register"))
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
        print("ok", name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
