"""Agents for the domino environments.

An agent is a picklable callable ``agent(observation, action_mask, rng) -> int`` (the opponent
protocol of :class:`domino_env.wrappers.SingleAgentEnv`). Mexican Train ladder: ``random`` <
``greedy`` < ``planner``, and the same ladder for the line games (block, draw, Cuban) in
:mod:`domino_env.agents.line`; build one by name with :func:`make_agent` (the rules pick the family)::

    from domino_env.agents import make_agent
    agent = make_agent("planner", env.unwrapped.config)
    action = agent(obs["observation"], obs["action_mask"], rng)
"""

from . import base
from .base import Agent, agent_label, agent_names, as_config, make_agent, register_agent
from .line import LineGreedyAgent, LinePlannerAgent, LineRandomAgent, LineSeatView
from .mexican_train import GreedyAgent, PlannerAgent, RandomAgent, SeatView
from .ppo import (  # registers "ppo:PATH" (trained policies)
    PPOAgent,
    SpecMismatchError,
    load_ppo_agent,
)
from .rllib import load_rllib_agent  # registers "rllib:PATH" (RLlib checkpoints; no ray needed)
from .search import SearchAgent  # registers "search" / "search:N" (both game families)

base._mark_built_in()  # the names above are the package's; register_agent refuses to replace them silently

__all__ = [
    "Agent",
    "GreedyAgent",
    "LineGreedyAgent",
    "LinePlannerAgent",
    "LineRandomAgent",
    "LineSeatView",
    "PPOAgent",
    "PlannerAgent",
    "RandomAgent",
    "SearchAgent",
    "SeatView",
    "SpecMismatchError",
    "agent_label",
    "agent_names",
    "as_config",
    "load_ppo_agent",
    "load_rllib_agent",
    "make_agent",
    "register_agent",
]
