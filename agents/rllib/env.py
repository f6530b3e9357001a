"""The domino AEC environments as RLlib multi-agent environments (needs the ``[rllib]`` extra).

:class:`DominoMultiAgentEnv` is a ``ray.rllib.env.multi_agent_env.MultiAgentEnv`` over the raw
PettingZoo env of any game (``mexican_train``, ``block``, ``draw``, ``cuban``). It follows what
RLlib's ``PettingZooEnv`` does for an AEC game (one observation for the agent about to act, its
reward accumulated since it last acted, every agent dead-stepped at the end with its final
observation and reward), with three differences:

* observations are ``{"observations": float32 (obs size,), "action_mask": int8 (actions,)}``: the
  keys RLlib's action-masking modules read (the PettingZoo env's ``"observation"`` is renamed);
* an illegal action (RLlib's env pre-check steps one unmasked random action) ends the episode
  like PettingZoo's ``TerminateIllegalWrapper``: ``illegal_reward`` for the offender, every agent
  terminated, ``info["illegal_action"] = True``; it is counted in :attr:`illegal_actions`. An
  action that is not one (a float, an out-of-range integer) raises ``IllegalActionError`` as the
  PettingZoo env does;
* the raw env is driven directly (no PettingZoo wrappers: about 30 us per step saved), and
  :attr:`last_record` keeps the record of the last finished episode (deals and actions,
  :func:`domino_env.core.records.make_record`), so an episode can be replayed exactly.

Rewards are exactly the PettingZoo env's: the return RLlib records for an agent that acted is the
sum of ``env.rewards[agent]`` over the episode (tests/train/test_rllib_rewards.py checks it). A seat
that never acts in an episode (2-player Block can block straight after the lead) is reported its
final observation and reward like every seat, but RLlib keeps nothing of an agent without an
action: it has no part in RLlib's episode (nor in training). So the final step's infos carry
``info["episode_returns"]``: float64 ``(P,)``, per seat, the sum of the rewards this env reported to
it over the episode (also for such a seat); ``domino-rllib``'s metrics read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from domino_env.core.errors import (
    ConfigError,
    IllegalActionError,
    as_flag,
    check_action,
    is_finite_number,
)
from domino_env.envs.games import make_raw_env

#: Keys of an ``env_config`` that are options of this wrapper, not of the PettingZoo env.
WRAPPER_KEYS = ("game", "illegal_reward", "keep_records")


make_aec = make_raw_env  # the raw AEC env of a game by name (domino_env.envs.games)


def aec_from_env_config(env_config: dict[str, Any]) -> Any:
    """The raw AEC env an ``env_config`` of :class:`DominoMultiAgentEnv` describes (the
    wrapper's own keys dropped)."""
    kwargs = {k: v for k, v in env_config.items() if k not in WRAPPER_KEYS}
    return make_aec(env_config.get("game", "mexican_train"), **kwargs)


class DominoMultiAgentEnv(MultiAgentEnv):
    """A domino game as an RLlib ``MultiAgentEnv`` (see the module docstring).

    Args:
        config: RLlib's ``env_config``: ``game`` (default ``"mexican_train"``), ``illegal_reward``
            (default ``-1.0``), ``keep_records`` (default False: keep every finished episode's
            record in :attr:`records`, for replays and tests), and every keyword of the game's ``raw_env`` (``num_players``,
            ``max_pip``, ``preset``, ``episode``, ``reward``, rule fields, ...).

    Agents: ``player_0`` .. ``player_{P-1}``. Observation space of each: ``Dict(observations=
    Box(float32, (obs size,)), action_mask=Box(0, 1, (actions,), int8))``; action space: the
    PettingZoo env's ``Discrete(actions)``.

    Raises:
        ConfigError: an invalid ``env_config`` entry (names the field and the allowed values).
    """

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})
        self.env_config = dict(config)
        self.game = config.pop("game", "mexican_train")
        illegal_reward = config.pop("illegal_reward", -1.0)
        if not is_finite_number(illegal_reward):  # (nan and inf were taken, a numpy float refused)
            raise ConfigError("illegal_reward", illegal_reward, "a finite number (reward units)")
        self.illegal_reward = float(illegal_reward)
        keep_records = config.pop("keep_records", False)
        if as_flag(keep_records) is None:  # bool("no") was True
            raise ConfigError("keep_records", keep_records, "True or False (or 1 / 0)")
        self.keep_records = as_flag(keep_records)
        #: records of every finished episode, oldest first (only with ``keep_records``).
        self.records: list[dict[str, Any]] = []
        self.aec = make_aec(self.game, **config)
        self.config = self.aec.config
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        inner = self.aec.observation_space(self.possible_agents[0])
        space = spaces.Dict(
            {"observations": inner["observation"], "action_mask": inner["action_mask"]}
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.possible_agents}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        #: illegal actions in the current episode (0 or 1: the first one ends it).
        self.illegal_actions = 0
        #: per seat, the sum of the rewards reported in the current episode (the final infos'
        #: ``"episode_returns"``).
        self.returns = np.zeros(len(self.possible_agents))
        #: record of the last finished episode (None before the first one ends).
        self.last_record: dict[str, Any] | None = None
        self._done = True

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.aec.observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"]}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Deal a new episode; returns the first actor's observation and an empty info.

        ``options`` go to the PettingZoo env's ``reset`` (``{"deal": ...}`` or ``{"deals": ...}``).
        """
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        self.illegal_actions = 0
        self.returns = np.zeros(len(self.possible_agents))
        self._done = False
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {}

    def step(self, action_dict: dict[str, Any]):
        """Play the acting agent's action (the only key RLlib gives), then report the next actor
        (its observation and the reward it got since it last acted) or, at the end, every agent.

        Only a legal-range integer that the action mask forbids is played as an illegal move
        (the episode ends, ``illegal_reward`` for the actor); anything that is not an action at
        all is the caller's error, raised as the PettingZoo env and the parallel view raise it.

        Raises:
            IllegalActionError: ``step`` after the episode ended; ``action_dict`` not a dict
                holding the acting agent; its action not an integer (a float, bool, string or an
                array of another shape than 0-d), or outside ``0 .. n - 1`` of the action space.
        """
        aec = self.aec
        if self._done:
            raise IllegalActionError("the episode is over: call reset() before step()")
        actor = aec.agent_selection
        if not isinstance(action_dict, Mapping) or actor not in action_dict:
            got = sorted(map(str, action_dict)) if isinstance(action_dict, Mapping) else type(action_dict).__name__
            raise IllegalActionError(f"step: action_dict must be a dict holding the acting agent {actor!r}, got {got}")
        action = check_action(action_dict[actor])  # raised: a float is no move to penalise
        size = int(self.action_spaces[actor].n)
        if not 0 <= action < size:
            raise IllegalActionError(f"step: the action of {actor} must be in 0 .. {size - 1}, got {action}")
        # Agents reported done by the previous step leave now: RLlib checks that every agent of
        # a step's dicts is in ``agents``, the final step's included.
        self.agents = [a for a in self.agents if a in aec.agents]
        try:
            aec.step(action)
        except IllegalActionError as err:
            return self._end_illegal(actor, str(err))
        obs, rew, term, trunc, info = {}, {}, {}, {}, {}
        while aec.agents:
            agent = aec.agent_selection
            rew[agent] = float(aec._cumulative_rewards[agent])
            term[agent] = bool(aec.terminations[agent])
            trunc[agent] = bool(aec.truncations[agent]) and not term[agent]
            obs[agent] = self._observe(agent)
            info[agent] = dict(aec.infos[agent])
            if not (aec.terminations[agent] or aec.truncations[agent]):
                break
            aec.step(None)  # dead step: the agent leaves (its final reward is reported above)
        self._add_returns(rew)
        if not aec.agents:
            self._finish(info)
        term["__all__"] = trunc["__all__"] = False
        if not aec.agents:
            term["__all__"] = all(term[a] for a in term if a != "__all__")
            trunc["__all__"] = not term["__all__"]
        return obs, rew, term, trunc, info

    def _end_illegal(self, actor: str, message: str):
        """End the episode after an illegal action (as ``TerminateIllegalWrapper`` does)."""
        aec = self.aec
        self.illegal_actions += 1
        obs, rew, term, trunc, info = {}, {}, {}, {}, {}
        for agent in aec.agents:
            pending = 0.0 if agent == actor else float(aec._cumulative_rewards[agent])
            rew[agent] = self.illegal_reward if agent == actor else pending
            obs[agent] = self._observe(agent)
            term[agent], trunc[agent] = True, False
            info[agent] = {"illegal_action": True, "illegal_actor": actor, "error": message}
        self._add_returns(rew)
        self._finish(info)
        term["__all__"], trunc["__all__"] = True, False
        return obs, rew, term, trunc, info

    def _add_returns(self, rewards: dict[str, float]) -> None:
        for agent, reward in rewards.items():
            self.returns[self.possible_agents.index(agent)] += reward

    def _finish(self, infos: dict[str, dict[str, Any]]) -> None:
        """End the episode: the final ``infos`` get ``"episode_returns"``; the record is kept."""
        for info in infos.values():
            info["episode_returns"] = self.returns.copy()
        self._done = True
        self.last_record = self.aec.to_record()
        if self.keep_records:
            self.records.append(self.last_record)

    def render(self) -> str | None:
        """The PettingZoo env's ``render()`` (``render_mode`` ``"ansi"`` / ``"human"``)."""
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
