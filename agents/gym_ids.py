"""Entry points of the registered Gymnasium ids: opponents given by agent name.

``import domino_env`` registers ``"dominoes/MexicanTrain-v0"``, ``"dominoes/Block-v0"``,
``"dominoes/Draw-v0"`` and ``"dominoes/Cuban-v0"`` with the factories of this module (string entry
points, so the library itself never imports this package). They build the single-agent adapter
(:class:`domino_env.wrappers.SingleAgentEnv`) like :func:`domino_env.wrappers.mexican_train_single_agent`
and :func:`~domino_env.wrappers.line_single_agent`, and also take opponents by name::

    import gymnasium, domino_env
    env = gymnasium.make("dominoes/MexicanTrain-v0", num_players=4, opponents="greedy")
    env = gymnasium.make("dominoes/Cuban-v0", opponents=["planner", "greedy", "random"])

``opponents``: one agent name or callable for every other seat, or a sequence of P-1 of them (entry
k plays the seat k+1 places after the learner). Names are those of ``domino_env.agents.make_agent`` for the
env's rules (``"random"``, ``"greedy"``, ``"planner"``, ``"ppo:PATH"``; the line ids use the
line-game agents); each seat gets its own agent object.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from domino_env.core.errors import ConfigError
from domino_env.envs import line_v0, mexican_train_v0
from domino_env.wrappers import (
    ADAPTER_KWARGS,
    Opponent,
    SingleAgentEnv,
    check_adapter_keywords,
    check_adapter_render_mode,
    random_legal_opponent,
)

from .base import agent_names, game_of, make_agent


def resolve_opponents(opponents: Any, aec_env: Any) -> Any:
    """Agent names in ``opponents`` replaced by agents built for ``aec_env``'s rules (one object
    per seat); callables are kept. Anything else is returned unchanged for
    :class:`SingleAgentEnv` to refuse.

    Raises:
        ConfigError: an unknown agent name (names the allowed ones).
    """
    seats = len(aec_env.possible_agents) - 1
    try:
        if isinstance(opponents, str):
            return [make_agent(opponents, aec_env.config) for _ in range(seats)]
        if isinstance(opponents, Sequence) and not callable(opponents):
            return [make_agent(o, aec_env.config) if isinstance(o, str) else o for o in opponents]
    except ConfigError as err:  # the env kwarg the user gave is ``opponents``, not ``agent``
        if err.field != "agent":
            raise
        raise ConfigError("opponents", err.value, err.allowed) from err
    return opponents


def _adapter(
    aec_env: Any, opponents: Any, learner_seat: Any, illegal_reward: Any, team_play: Any = False
) -> SingleAgentEnv:
    resolved = resolve_opponents(opponents, aec_env)
    try:
        return SingleAgentEnv(aec_env, resolved, learner_seat, illegal_reward, team_play)
    except ConfigError as err:
        if err.field != "opponents":
            raise
        others = len(aec_env.possible_agents) - 1
        names = ", ".join(agent_names(game_of(aec_env.config)))
        raise ConfigError(
            "opponents", opponents, f"an agent name ({names}) or callable, or a sequence of {others} of them"
        ) from err


def mexican_train(
    opponents: Any = random_legal_opponent,
    learner_seat: int | str = 0,
    illegal_reward: float = -1.0,
    **env_kwargs: Any,
) -> SingleAgentEnv:
    """``"dominoes/MexicanTrain-v0"``: ``env_kwargs`` go to ``mexican_train_v0.raw_env``.

    Raises:
        ConfigError: invalid env keyword, unknown agent name, wrong number of opponents.
    """
    check_adapter_keywords(mexican_train_v0.raw_env, env_kwargs)
    check_adapter_render_mode(env_kwargs.get("render_mode"))
    return _adapter(mexican_train_v0.raw_env(**env_kwargs), opponents, learner_seat, illegal_reward)


def _line_game(game: str) -> Callable[..., SingleAgentEnv]:
    def make(
        opponents: Any = random_legal_opponent,
        learner_seat: int | str = 0,
        illegal_reward: float = -1.0,
        team_play: bool = False,
        **env_kwargs: Any,
    ) -> SingleAgentEnv:
        preset = env_kwargs.pop("preset", None)
        if preset not in (None, game):  # None: the id's own, as the AEC ids take it
            raise ConfigError("preset", preset, f"'{game}' for this id (use line_single_agent)")
        check_adapter_keywords(line_v0.raw_env, env_kwargs, (*ADAPTER_KWARGS, "team_play"))
        check_adapter_render_mode(env_kwargs.get("render_mode"))
        aec = line_v0.raw_env(preset=game, **env_kwargs)
        return _adapter(aec, opponents, learner_seat, illegal_reward, team_play)

    make.__name__ = game
    make.__doc__ = (
        f"``\"dominoes/{game.capitalize()}-v0\"``: the {game} game (line agent names; ``team_play``: "
        "see :class:`~domino_env.wrappers.SingleAgentEnv`)."
    )
    return make


block = _line_game("block")
draw = _line_game("draw")
cuban = _line_game("cuban")

__all__ = ["Opponent", "block", "cuban", "draw", "mexican_train", "resolve_opponents"]
