"""Shared test helper of tests/agents: play one episode with a list of agents."""

import numpy as np


def drive(env, agents, seed, check=None, max_steps=5000):
    """Play one episode; seat s uses agents[s % len(agents)]; ``check(obs, mask)`` at every decision."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    while env.agents and len(actions) < max_steps:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        obs = env.observe(agent)
        if check is not None:
            check(obs["observation"], obs["action_mask"])
        a = agents[seat_of[agent] % len(agents)](obs["observation"], obs["action_mask"], rng)
        actions.append(int(a))
        env.step(int(a))
    return actions
