"""PettingZoo AEC environment for Mexican Train (RULES.md section 1; DESIGN.md section 3).

``raw_env(**kwargs)`` raises :class:`~domino_env.core.errors.IllegalActionError` on an illegal
action; ``env(**kwargs)`` wraps it in PettingZoo's standard wrappers (an unmasked action ends the
episode with ``-1`` for the offender). Registered as ``"dominoes/mexican_train-v0"``.

Keyword arguments: ``preset`` plus every field of
:class:`~domino_env.core.config.MexicanTrainConfig` (explicit values override the preset), and
``episode`` (``"round"`` or ``"game"``), ``reward`` (``"outcome"`` or ``"points"``),
``render_mode`` (None, ``"human"``, ``"ansi"``), ``max_cycles`` (steps before truncation).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..core.config import MexicanTrainConfig, from_preset
from ..core.errors import ConfigError, DealError, IllegalActionError
from ..core.mexican_train import MexicanTrainState
from ..core.records import make_record
from ..encoding.mexican_train import MexicanTrainEncoder
from ..render import render_mexican_train

ENV_ID = "dominoes/mexican_train-v0"

#: Scale of ``reward="points"``: a round gives each seat -(points scored) / POINTS_SCALE.
POINTS_SCALE = 100.0

EPISODES = ("round", "game")
REWARDS = ("outcome", "points")
RENDER_MODES = ("human", "ansi")


def outcome_rewards(winners: tuple[int, ...], seats: list[int]) -> dict[int, float]:
    """Zero-sum outcome: winners share +1 equally, the other ``seats`` share -1 equally.

    No winners, or every seat a winner, gives 0 to all.
    """
    losers = [s for s in seats if s not in winners]
    if not winners or not losers:
        return {s: 0.0 for s in seats}
    rewards = {s: -1.0 / len(losers) for s in losers}
    rewards.update({s: 1.0 / len(winners) for s in winners})
    return rewards


class raw_env(AECEnv, EzPickle):
    """Mexican Train, one agent per seat (``player_0`` .. ``player_{P-1}``).

    Observation of each agent: ``{"observation": float32 (spec.size,), "action_mask": int8
    (T*(P+1)+2,)}`` (see :func:`domino_env.encoding.mexican_train.observation_fields`).
    Actions: ``Discrete(T*(P+1)+2)``; ``tile*(P+1)+slot`` places a tile on the train ``slot``
    seats after the actor (P = Mexican train), then DRAW, PASS.

    Rewards (``reward``): ``"outcome"``: at the end of the episode the winners share +1 and the
    others share -1 (a void round gives 0); ``"points"``: at every round end each seat gets
    -(points it scored in that round) / 100.

    Raises:
        ConfigError: invalid keyword argument (names the field and the allowed values).
    """

    metadata = {
        "name": "mexican_train_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        preset: str = "domino_cubano",
        episode: str = "round",
        reward: str = "outcome",
        render_mode: str | None = None,
        max_cycles: int = 100_000,
        **rules: Any,
    ):
        EzPickle.__init__(
            self,
            preset=preset,
            episode=episode,
            reward=reward,
            render_mode=render_mode,
            max_cycles=max_cycles,
            **rules,
        )
        super().__init__()
        self.config: MexicanTrainConfig = from_preset(preset, **rules)
        if episode not in EPISODES:
            raise ConfigError("episode", episode, f"one of {EPISODES}")
        if reward not in REWARDS:
            raise ConfigError("reward", reward, f"one of {REWARDS}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ConfigError("render_mode", render_mode, f"None or one of {RENDER_MODES}")
        if isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1:
            raise ConfigError("max_cycles", max_cycles, "a positive integer (steps)")
        self.episode = episode
        self.reward_mode = reward
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.encoder = MexicanTrainEncoder(self.config)
        p = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(p)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._observation_space = spaces.Dict(
            {
                "observation": self.encoder.spec.space,
                "action_mask": spaces.Box(0, 1, (self.encoder.num_actions,), dtype=np.int8),
            }
        )
        self._action_space = spaces.Discrete(self.encoder.num_actions)
        self.observation_spaces = {a: self._observation_space for a in self.possible_agents}
        self.action_spaces = {a: self._action_space for a in self.possible_agents}
        self.np_random, _ = seeding.np_random(None)
        self._seed: int | None = None
        self.state: MexicanTrainState | None = None

    # ------------------------------------------------------------------ pickling
    _DYNAMIC = (
        "state", "np_random", "_seed", "agents", "rewards", "_cumulative_rewards", "terminations",
        "truncations", "infos", "agent_selection", "_steps", "_deal_queue", "_skip_agent_selection",
        "_written",
    )  # fmt: skip

    def __getstate__(self) -> dict[str, Any]:
        """Constructor arguments (EzPickle) plus the game in progress, so a pickled env resumes
        exactly where it was (SubprocVecEnv workers and checkpoints both work)."""
        data = EzPickle.__getstate__(self)
        data["_dynamic"] = {k: self.__dict__[k] for k in self._DYNAMIC if k in self.__dict__}
        return data

    def __setstate__(self, data: dict[str, Any]) -> None:
        dynamic = data.pop("_dynamic", {})
        EzPickle.__setstate__(self, data)
        self.__dict__.update(dynamic)

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments that rebuild this environment (rules fully spelled out)."""
        kwargs = self.config.to_dict()
        kwargs.update(episode=self.episode, reward=self.reward_mode, max_cycles=self.max_cycles)
        return kwargs

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game (its first round).

        Args:
            seed: reseeds the env's generator; without it the stream continues.
            options: ``{"deal": {...}}`` an exact first deal (see the README), or ``{"deals":
                [deal, ...]}`` exact deals for successive rounds (records use this). Other keys
                are ignored.

        Raises:
            DealError: invalid deal, or both ``deal`` and ``deals`` given.
        """
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self._seed = seed
        options = dict(options or {})
        # Other keys are ignored, as Gymnasium's convention (and PettingZoo's api_test) expect.
        if "deal" in options and "deals" in options:
            raise DealError("give either options['deal'] or options['deals'], not both")
        deals = list(options.get("deals") or ([options["deal"]] if "deal" in options else []))
        self._deal_queue = deals
        first_deal = self._deal_queue.pop(0) if self._deal_queue else None
        self.state = MexicanTrainState.new_game(self.config, self.np_random, first_deal)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._written = False
        self._steps = 0
        self.agent_selection = self.possible_agents[self.state.current_player]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        return {
            "observation": self.encoder.observe(self.state, seat),
            "action_mask": self.encoder.mask(self.state, seat),
        }

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action.

        Raises:
            IllegalActionError: the action is not legal (nothing changes; ``env()`` turns this
                into a terminated episode with -1 for the offender instead).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state
        if action is None:
            raise IllegalActionError(f"{agent} is acting and must give an action, not None")
        state.apply(action)  # raises IllegalActionError before any bookkeeping
        self._cumulative_rewards[agent] = 0.0
        # Rewards and infos are only written at round ends and truncation: clear them lazily
        # (most steps touch neither, and this is the hot path).
        if self._written:
            for a in self.agents:
                self.rewards[a] = 0.0
            self.infos = {a: {} for a in self.agents}
            self._written = False
        self._steps += 1
        if state.round_over:
            self._finish_round()  # may deal the next round of a game episode
            self._written = True
        elif self._steps >= self.max_cycles:
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a]["truncated_reason"] = f"max_cycles={self.max_cycles} steps reached"
            self._written = True
        if not state.round_over:
            self.agent_selection = self.possible_agents[state.current_player]
        if self._written:
            self._accumulate_rewards()
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _finish_round(self) -> None:
        state = self.state
        result = state.round_result
        info = {
            "termination": result.termination,
            "winners": list(result.winners),
            "pips": list(result.pips),
            "points": list(result.points),
            "scores": list(state.scores),
            "round_index": result.round_index,
            "station": result.station,
        }
        seats = [self._seat[a] for a in self.agents]
        episode_ends = self.episode == "round" or state.game_over
        if self.reward_mode == "points":
            for s in seats:
                self.rewards[self.possible_agents[s]] = -result.points[s] / POINTS_SCALE
        elif self.episode == "round":
            for s, r in outcome_rewards(result.winners, seats).items():
                self.rewards[self.possible_agents[s]] = r
        elif self.config.game_end == "elimination":
            # Every seat that loses the game gets -1/(P-1) when it is out (eliminated now or
            # beaten at the end); the game's winners share the sum (+1 for a single winner).
            loss = -1.0 / (self.config.num_players - 1)
            out = [s for s in seats if not state.active[s] and s not in state.game_winners]
            if state.game_over:
                out = [s for s in seats if s not in state.game_winners]
            for s in out:
                self.rewards[self.possible_agents[s]] = loss
            if state.game_over:
                losers = self.config.num_players - len(state.game_winners)
                for s in state.game_winners:
                    self.rewards[self.possible_agents[s]] = -loss * losers / len(state.game_winners)
        elif state.game_over:
            for s, r in outcome_rewards(state.game_winners, seats).items():
                self.rewards[self.possible_agents[s]] = r
        if state.game_over:
            info["game_over"] = True
            info["game_winners"] = list(state.game_winners)
        for a in self.agents:
            self.infos[a] = dict(info)
        if episode_ends:
            for a in self.agents:
                self.terminations[a] = True
            return
        # episode="game": eliminated seats leave, the next round is dealt at once.
        for s in seats:
            if not state.active[s]:
                self.terminations[self.possible_agents[s]] = True
        deal = self._deal_queue.pop(0) if self._deal_queue else None
        state.start_next_round(self.np_random, deal)

    # ------------------------------------------------------------------ records / render
    def to_record(self) -> dict[str, Any]:
        """The game so far as a JSON-ready dict: env id, kwargs, seed, every deal, every action.

        Replay it with :func:`domino_env.core.records.replay` (engine states) or by building
        ``raw_env(**record["env_kwargs"])`` and ``reset(options={"deals": record["deals"]})``.
        """
        return make_record(ENV_ID, self.env_kwargs, self._seed, self.state)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        if self.state is None:
            text = "(reset() has not been called)"
        else:
            text = render_mexican_train(self.state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` wrapped in PettingZoo's standard wrappers (illegal action ends the episode
    with -1 for the offender; out-of-bounds actions assert; call order enforced)."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e
