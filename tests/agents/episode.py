"""Shared test helpers of tests/agents: play one episode with a list of agents; start a line game on
a hand-built deal and ask an agent for its move; build a line seat view by hand."""

import numpy as np

from domino_env.envs import line_v0


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


def start_line(deal, **rules):
    """A line-game raw env (``line_v0.raw_env(**rules)``) reset on the given ``deal``."""
    env = line_v0.raw_env(**rules)
    env.reset(seed=0, options={"deal": deal})
    return env


def decide(agent, env, seed=0):
    """``agent``'s move for the seat to act, from its observation and action mask."""
    obs = env.observe(env.agent_selection)
    return agent(obs["observation"], obs["action_mask"], np.random.default_rng(seed))


def seat_view(planner, hand, placed, ends, hand_sizes, missing=None, partner=None, leader=0,
              boneyard=0):  # fmt: skip
    """A hand-built :class:`LineSeatView` for ``planner``'s rules: ``hand`` and ``placed`` as
    ``(a, b)`` tiles, the unseen tiles all the others."""
    from domino_env.agents.line import LineSeatView
    from domino_env.core.tiles import tile_index

    n = planner.max_pip
    hand_mask = sum(1 << tile_index(a, b, n) for a, b in hand)
    placed_mask = sum(1 << tile_index(a, b, n) for a, b in placed)
    return LineSeatView(
        hand=sorted(tile_index(a, b, n) for a, b in hand), hand_mask=hand_mask,
        placed_mask=placed_mask, unseen_mask=planner.all_mask & ~hand_mask & ~placed_mask,
        ends=ends, hand_sizes=hand_sizes, boneyard=boneyard, leader=leader, partner=partner,
        missing=missing or [0] * len(hand_sizes), may_annul=False,
    )  # fmt: skip
