"""The infos of the parallel view (``parallel_env()``, PettingZoo's ``turn_based_aec_to_parallel``):
what a step returns is the caller's to keep, and the AEC env's own infos keep their fixed layout
(docs/infos.md)."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.envs import block_v0, cuban_v0, draw_v0, mexican_train_v0

MODULES = {"mexican_train": mexican_train_v0, "block": block_v0, "draw": draw_v0, "cuban": cuban_v0}
SMALL = {"mexican_train": {"num_players": 3, "max_pip": 9}}


def _play(par, steps: int, seed: int = 0):
    """Reset, then ``steps`` parallel steps of masked random actions; every infos dict returned,
    with the ``active_agent`` of each agent as it was when that step returned."""
    obs, infos = par.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returned = [(infos, {a: i.get("active_agent") for a, i in infos.items()}, {a: sorted(i) for a, i in infos.items()})]
    for _ in range(steps):
        actor = par.aec_env.agent_selection
        obs, _, _, _, infos = par.step({actor: int(rng.choice(np.flatnonzero(obs[actor]["action_mask"])))})
        returned.append((infos, {a: i.get("active_agent") for a, i in infos.items()}, {a: sorted(i) for a, i in infos.items()}))
        assert par.agents
    return returned


@pytest.mark.parametrize("name", list(MODULES))
def test_the_infos_a_parallel_step_returned_are_not_changed_by_later_steps(name):
    """PettingZoo's wrapper wrote ``active_agent`` into the AEC env's own info dicts and returned
    those: every infos dict a collector had stored then named the latest active agent (and the
    reset's gained the key), not the one of its step."""
    par = MODULES[name].parallel_env(episode="game", **SMALL.get(name, {}))
    returned = _play(par, 12)
    actors = [active["player_0"] for _, active, _ in returned[1:]]
    assert len(set(actors)) > 1  # the turn passed: a stale value would show
    for infos, active, keys in returned:
        assert {a: i.get("active_agent") for a, i in infos.items()} == active
        assert {a: sorted(i) for a, i in infos.items()} == keys


@pytest.mark.parametrize("name", list(MODULES))
def test_the_parallel_view_leaves_the_aec_envs_infos_in_their_fixed_layout(name):
    par = MODULES[name].parallel_env(episode="game", **SMALL.get(name, {}))
    raw = MODULES[name].raw_env(**SMALL.get(name, {}))
    raw.reset(seed=0)
    layout = sorted(raw.infos["player_0"])
    _play(par, 5)
    assert "active_agent" not in layout
    assert {a: sorted(i) for a, i in par.aec_env.infos.items()} == dict.fromkeys(par.agents, layout)
