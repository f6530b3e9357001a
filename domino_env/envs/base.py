"""What every domino AEC environment of the package shares (DESIGN.md section 3).

:class:`DominoAECEnv` wires a rules engine (a state class with ``new_game``, ``legal_actions``,
``apply``, ``round_over``, ``round_result``, ``start_next_round``, ``deals``, ``actions``) and an
observation encoder into PettingZoo's AEC API: seeding, exact deals, rounds and whole-game
episodes, reward bookkeeping through ``_cumulative_rewards``, ``max_cycles`` truncation, records,
rendering and pickling with the game in progress. A game module subclasses it and supplies the
config, the rewards of a finished round and the round-result infos.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..core.errors import ConfigError, DealError, DominoError, IllegalActionError, check_seed
from ..core.records import make_record

EPISODES = ("round", "game")
REWARDS = ("outcome", "points")
RENDER_MODES = ("human", "ansi")
ENV_KWARGS = ("preset", "episode", "reward", "render_mode", "max_cycles")


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


class DominoAECEnv(AECEnv, EzPickle):
    """Base of the package's AEC environments; see the game modules for the public docs.

    Raises:
        ConfigError: invalid keyword argument (names the field and the allowed values).
    """

    #: set by subclasses
    ENV_ID: ClassVar[str]
    config_class: ClassVar[type]
    state_class: ClassVar[type]
    encoder_class: ClassVar[type]
    default_preset: ClassVar[str]

    def __init__(
        self,
        preset: str | None = None,
        episode: str = "round",
        reward: str = "outcome",
        render_mode: str | None = None,
        max_cycles: int = 100_000,
        **rules: Any,
    ):
        preset = self.default_preset if preset is None else preset
        EzPickle.__init__(
            self, preset=preset, episode=episode, reward=reward, render_mode=render_mode,
            max_cycles=max_cycles, **rules,
        )  # fmt: skip
        super().__init__()
        known = {f.name for f in dataclasses.fields(self.config_class)} | set(ENV_KWARGS)
        for key in rules:
            if key not in known:
                raise ConfigError(key, rules[key], f"a keyword of {type(self).__name__}: {sorted(known)}")
        self.config = self.make_config(preset, rules)
        if episode not in EPISODES:
            raise ConfigError("episode", episode, f"one of {EPISODES}")
        if reward not in REWARDS:
            raise ConfigError("reward", reward, f"one of {REWARDS}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ConfigError("render_mode", render_mode, f"None or one of {RENDER_MODES}")
        if isinstance(max_cycles, bool) or not isinstance(max_cycles, (int, np.integer)) or max_cycles < 1:
            raise ConfigError("max_cycles", max_cycles, "a positive integer (steps)")
        self.episode = episode
        self.reward_mode = reward
        self.render_mode = render_mode
        self.max_cycles = int(max_cycles)
        self.encoder = self.encoder_class(self.config)
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
        self.state: Any = None
        #: the round-result dicts (the round-end ``infos`` entry) of every round of the episode
        #: so far, oldest first; the single-agent adapter passes them on.
        self.round_results: list[dict[str, Any]] = []
        self._truncated = False  # max_cycles truncation: the masks are empty from then on

    # ------------------------------------------------------------------ hooks
    def make_config(self, preset: str, rules: dict[str, Any]) -> Any:
        """The rules config of ``preset`` with ``rules`` overriding it."""
        raise NotImplementedError

    def round_rewards(self, seats: list[int]) -> dict[int, float]:
        """Rewards of the seats still playing when the current round has just ended."""
        raise NotImplementedError

    def round_info(self) -> dict[str, Any]:
        """Game-specific keys of the round-result infos (besides the common ones)."""
        return {}

    def render_text(self, viewer: int | None = None) -> str:
        """Text picture of the table as ``viewer`` sees it (default: the current player)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ pickling
    _DYNAMIC = (
        "state", "np_random", "_seed", "agents", "rewards", "_cumulative_rewards", "terminations",
        "truncations", "infos", "agent_selection", "_steps", "_deal_queue", "_skip_agent_selection",
        "_written", "round_results", "_truncated",
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
                [deal, ...]}`` exact deals for successive rounds, used in order (records use
                this; rounds beyond the list are dealt by the generator). Other keys are ignored,
                as Gymnasium's convention (and PettingZoo's ``api_test``) expect.

        Raises:
            ConfigError: ``seed`` is not None nor an integer >= 0 (numpy integers are accepted).
            DealError: invalid deal, or both ``deal`` and ``deals`` given.
        """
        seed = check_seed(seed)
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self._seed = seed
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise DealError(f"reset options must be a dict, got {type(options).__name__}")
        if "deal" in options and "deals" in options:
            raise DealError("give either options['deal'] or options['deals'], not both")
        if "deals" in options:
            deals = options["deals"]
            if not isinstance(deals, (list, tuple)) or not deals:
                raise DealError("options['deals'] must be a non-empty list of deals")
            deals = list(deals)
        else:
            deals = [options["deal"]] if "deal" in options else []
        state = self.state_class.new_game(self.config, self.np_random, deals[0] if deals else None)
        self.state = state  # only once the deal is valid: a failed reset changes nothing
        self._deal_queue = deals[1:]
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._written = False
        self._steps = 0
        self.round_results = []
        self._truncated = False
        self.agent_selection = self.possible_agents[state.current_player]
        if self.render_mode == "human":
            self.render()

    def _require_reset(self) -> None:
        if self.state is None:
            raise DominoError(f"{type(self).__name__}: call reset() first")

    def last(self, observe: bool = True) -> tuple:
        """PettingZoo's ``last`` (observation, reward, termination, truncation, info of the
        selected agent). Raises DominoError before ``reset``, as ``step`` and ``observe`` do."""
        self._require_reset()
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63):
        """PettingZoo's ``agent_iter``. Raises DominoError before ``reset``."""
        self._require_reset()
        return super().agent_iter(max_iter)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._require_reset()
        seat = self._seat[agent]
        if self._truncated:  # truncated: nobody may act, as after a round that ended normally
            mask = np.zeros(self.encoder.num_actions, dtype=np.int8)
        else:
            mask = self.encoder.mask(self.state, seat)
        return {"observation": self.encoder.observe(self.state, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action.

        Raises:
            IllegalActionError: the action is not legal, or not an integer (nothing changes;
                ``env()`` turns an illegal action into a terminated episode with -1 for the
                offender instead).
            DominoError: ``step`` before ``reset`` or after every agent is done.
        """
        self._require_reset()
        if not self.agents:
            raise DominoError("the episode is over (every agent is done): call reset()")
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
            self._truncated = True
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
        }
        info.update(self.round_info())
        seats = [self._seat[a] for a in self.agents]
        for s, r in self.round_rewards(seats).items():
            self.rewards[self.possible_agents[s]] = r
        if state.game_over:
            info["game_over"] = True
            info["game_winners"] = list(state.game_winners)
        for a in self.agents:
            self.infos[a] = dict(info)
        self.round_results.append(info)
        annulled = result.termination == "annulled"
        if not annulled and (self.episode == "round" or state.game_over):
            for a in self.agents:
                self.terminations[a] = True
            return
        # The next deal comes at once: a whole-game episode, or an annulled round re-dealt.
        active = getattr(state, "active", None)
        if active is not None:  # eliminated seats leave the game
            for s in seats:
                if not active[s]:
                    self.terminations[self.possible_agents[s]] = True
        deal = self._deal_queue.pop(0) if self._deal_queue else None
        state.start_next_round(self.np_random, deal)

    # ------------------------------------------------------------------ records / render
    def to_record(self) -> dict[str, Any]:
        """The game so far as a JSON-ready dict: env id, kwargs, seed, every deal, every action.

        Replay it with :func:`domino_env.core.records.replay` (engine states) or by building
        ``raw_env(**record["env_kwargs"])`` and ``reset(options={"deals": record["deals"]})``.
        """
        self._require_reset()
        return make_record(self.ENV_ID, self.env_kwargs, self._seed, self.state)

    def render(self) -> str | None:
        """``"ansi"``: the text picture as seen by the current player; ``"human"``: printed."""
        if self.render_mode is None:
            return None
        text = "(reset() has not been called)" if self.state is None else self.render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass


def wrap(raw: AECEnv) -> AECEnv:
    """PettingZoo's standard wrappers: an illegal action ends the episode with -1 for the
    offender (both ``terminations`` and ``truncations`` set for every agent), out-of-bounds
    actions assert, call order is enforced."""
    e = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
