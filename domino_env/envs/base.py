"""What every domino AEC environment of the package shares (docs/design.md §3).

:class:`DominoAECEnv` wires a rules engine (a state class with ``new_game``, ``legal_actions``,
``apply``, ``round_over``, ``round_result``, ``start_next_round``, ``deals``, ``actions``) and an
observation encoder into PettingZoo's AEC API: seeding, exact deals, rounds and whole-game
episodes, reward bookkeeping through ``_cumulative_rewards``, ``max_cycles`` truncation, records,
rendering and pickling with the game in progress. A game module subclasses it and supplies the
config, the rewards of a finished round and the round-result infos.
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv

from ..core.config import NO_RENDER_MODE, NOT_RESET, check_env_options
from ..core.deal import deals_of_options
from ..core.errors import (
    ActionLike,
    ConfigError,
    DealError,
    DominoError,
    IllegalActionError,
    check_seed,
    done_agent_action,
)
from ..core.records import make_record
from .infos import info_layout
from .wrapping import caller_stacklevel

ENV_KWARGS = ("preset", "episode", "reward", "render_mode", "max_cycles", "max_steps")


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
    state_encoder_class: ClassVar[type]
    default_preset: ClassVar[str]

    def __init__(
        self,
        preset: str | None = None,
        episode: str = "round",
        reward: str = "outcome",
        render_mode: str | None = None,
        max_cycles: int = 100_000,
        max_steps: int | None = None,
        **rules: Any,
    ):
        preset = self.default_preset if preset is None else preset
        EzPickle.__init__(
            self, preset=preset, episode=episode, reward=reward, render_mode=render_mode,
            max_cycles=max_cycles, max_steps=max_steps, **rules,
        )  # fmt: skip
        super().__init__()
        # the instance's own copy: PettingZoo's CaptureStdoutWrapper appends "ansi" to the
        # render modes it finds, which changed the class's list for every later env
        self.metadata = {**type(self).metadata, "render_modes": list(type(self).metadata["render_modes"])}
        known = self.keywords()
        for key in rules:
            if key not in known:
                raise ConfigError(key, rules[key], f"a keyword of {type(self).__name__}: {known}")
        self.config = self.make_config(preset, rules)
        check_env_options(episode, reward, render_mode, max_cycles, max_steps)
        if render_mode == "rgb_array":  # without Pillow: now, not at the first render() hours later
            from domino_env.render_image import require_pillow

            require_pillow()
        self.episode = episode
        self.reward_mode = reward
        self.render_mode = render_mode
        #: PettingZoo's meaning: truncate before any agent starts turn max_cycles + 1 (a cycle is
        #: every agent taking one turn; a turn may hold several actions: draw, then place)
        self.max_cycles = int(max_cycles)
        #: optional cap on actions (AEC steps) in the episode; None: no cap
        self.max_steps = None if max_steps is None else int(max_steps)
        self.encoder = self.encoder_class(self.config)
        p = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(p)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._observation_space = spaces.Dict(
            {
                # a copy: the spec is cached per game, seats and set, and a Box shared by every
                # such env made seeding one env's space seed them all (an API bug battery)
                "observation": copy.deepcopy(self.encoder.spec.space),
                "action_mask": spaces.Box(0, 1, (self.encoder.num_actions,), dtype=np.int8),
            }
        )
        self._action_space = spaces.Discrete(self.encoder.num_actions)
        self.observation_spaces = {a: self._observation_space for a in self.possible_agents}
        self.action_spaces = {a: self._action_space for a in self.possible_agents}
        self.np_random, _ = seeding.np_random(None)
        self._seed: int | None = None
        #: the rules engine's state of the game in progress (None before ``reset``)
        self.game_state: Any = None
        self.state_encoder = self.state_encoder_class(self.config, self.encoder.spec)
        #: PettingZoo's global-state space: float32 Box of ``state_encoder.spec.size`` entries
        self.state_space = copy.deepcopy(self.state_encoder.spec.space)  # (this env's own, as above)
        #: the round-end info (docs/infos.md layout) of every round of the episode so far,
        #: oldest first; the single-agent adapter passes them on.
        self.round_results: list[dict[str, Any]] = []
        self._truncated = False  # truncated by a limit: the masks are empty from then on

    @classmethod
    def keywords(cls) -> list[str]:
        """Every keyword argument the constructor takes (the rules fields and the env's own), sorted."""
        return sorted({f.name for f in dataclasses.fields(cls.config_class)} | set(ENV_KWARGS))

    # ------------------------------------------------------------------ hooks
    def make_config(self, preset: str, rules: dict[str, Any]) -> Any:
        """The rules config of ``preset`` with ``rules`` overriding it."""
        raise NotImplementedError

    def round_rewards(self, seats: list[int]) -> dict[int, float]:
        """Rewards of the seats still playing when the current round has just ended."""
        raise NotImplementedError

    def round_info(self) -> dict[str, int]:
        """Game-specific int keys of every info (the current round's, or the round that just
        ended), besides the common ones of :func:`~domino_env.envs.infos.info_layout`."""
        return {}

    def render_text(self, viewer: int | None = None) -> str:
        """Text picture of the table as ``viewer`` sees it (default: the current player)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ pickling
    _DYNAMIC = (
        "game_state", "np_random", "_seed", "agents", "rewards", "_cumulative_rewards", "terminations",
        "truncations", "infos", "agent_selection", "_steps", "_deal_queue", "_skip_agent_selection",
        "_written", "_turns", "round_results", "_truncated",
    )  # fmt: skip

    def __getstate__(self) -> dict[str, Any]:
        """Constructor arguments (EzPickle) plus the game in progress, so a pickled env resumes
        exactly where it was (SubprocVecEnv workers and checkpoints both work)."""
        data = EzPickle.__getstate__(self)
        data["_dynamic"] = {k: self.__dict__[k] for k in self._DYNAMIC if k in self.__dict__}
        return data

    def __setstate__(self, data: dict[str, Any]) -> None:
        dynamic = data.pop("_dynamic", {})
        if "state" in dynamic:  # pickled before the engine moved to ``game_state``
            dynamic["game_state"] = dynamic.pop("state")
        EzPickle.__setstate__(self, data)
        self.__dict__.update(dynamic)
        if "agents" in dynamic and "_turns" not in dynamic:  # pickled before max_cycles counted turns
            self._turns = [0] * self.config.num_players

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Dict:
        """The (cached) observation space of ``agent``, the same object for every agent: a Dict of
        ``"observation"`` (float32 Box ``(encoder.spec.size,)``) and ``"action_mask"`` (int8 0/1).

        Raises:
            DominoError: ``agent`` is not one of :attr:`possible_agents`."""
        self._check_agent(agent)
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """The (cached) ``Discrete(num_actions)`` action space, the same object for every agent.

        Raises:
            DominoError: ``agent`` is not one of :attr:`possible_agents`."""
        self._check_agent(agent)
        return self._action_space

    def _check_agent(self, agent: Any) -> None:
        if not isinstance(agent, str) or agent not in self._seat:  # (a list was a TypeError: unhashable)
            raise DominoError(f"unknown agent {agent!r}: the agents are {self.possible_agents}")

    # ------------------------------------------------------------------ global state
    @property
    def state(self) -> _StateCall:
        """``env.state()``: the global state, float32 ``(state_encoder.spec.size,)`` in :attr:`state_space`.

        PRIVILEGED: it holds every hand and the boneyard's order (for centralised critics,
        search, debugging; never a policy input). Fields: ``env.state_encoder.spec`` (decode with
        ``env.state_encoder.decode(env.state())``; tables in docs/state.md). The rules engine is
        :attr:`game_state`; ``env.state.<attr>`` still reaches it with a DeprecationWarning.

        Raises:
            DominoError: called before ``reset``.
        """
        return _StateCall(self)

    def _global_state(self) -> np.ndarray:
        self._require_reset()
        return self.state_encoder.encode(self.game_state)

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments that rebuild this environment (rules fully spelled out; not ``render_mode``)."""
        kwargs = self.config.to_dict()
        kwargs.update(episode=self.episode, reward=self.reward_mode, max_cycles=self.max_cycles,
                      max_steps=self.max_steps)
        return kwargs

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game (its first round).

        Args:
            seed: reseeds the env's generator; without it the stream continues.
            options: ``{"deal": {...}}`` an exact first deal (docs/envs.md, "Starting from a given position"), or ``{"deals":
                [deal, ...]}`` exact deals for successive rounds, used in order (records use
                this; rounds beyond the list, and a deal given as None, are dealt by the
                generator). Other keys are ignored with a UserWarning, as Gymnasium's convention
                (and PettingZoo's ``api_test``) expect.

        Raises:
            ConfigError: ``seed`` is not None nor an integer >= 0 (numpy integers are accepted).
            DealError: invalid deal, both ``deal`` and ``deals`` given, ``options`` not a dict, or
                ``deals`` not a non-empty list or tuple (nothing changes). A later deal is checked
                here for what the play cannot change, the rest when its round starts (:meth:`step`).
        """
        seed = check_seed(seed)
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise DealError(f"reset options must be a dict, got {type(options).__name__}")
        unknown = sorted(map(str, set(options) - {"deal", "deals"}))
        if unknown:  # a misspelt "deal" must not pass unnoticed; a warning, not an error, because
            # PettingZoo's api_test resets with options={"options": 1} and expects it accepted
            warnings.warn(
                f"reset ignores the unknown option(s) {unknown}: the options are 'deal' and 'deals'",
                UserWarning, stacklevel=caller_stacklevel(),
            )  # fmt: skip
        deals = deals_of_options(options)
        if seed is not None:
            rng = seeding.np_random(seed)[0]
        else:  # a copy while an explicit deal may still be refused: a failed reset changes nothing
            rng = copy.deepcopy(self.np_random) if deals else self.np_random
        try:
            state = self.state_class.new_game(self.config, rng, deals[0] if deals else None)
        except DealError as err:  # name the deal, as a refused later deal is named
            field = "options['deals'][0]" if "deals" in options else "options['deal']"
            raise DealError(f"{field}: {err}") from None
        for k, later in enumerate(deals[1:], start=1):  # what the play cannot change: refused now
            try:
                if later is not None:
                    self.state_class.check_later_deal(self.config, later, k)
            except DealError as err:  # named as when its round starts
                raise DealError(f"options['deals'][{k}]: {err}") from None
        self.game_state = state  # only once the deal is valid: a failed reset changes nothing
        self.np_random, self._seed = rng, seed
        self._deal_queue = deals[1:]
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = self._infos()
        self._written = False
        self._steps = 0
        self._turns = [0] * self.config.num_players  # turns started per seat (max_cycles)
        self._turns[state.current_player] = 1
        self.round_results = []
        self._truncated = False
        self.agent_selection = self.possible_agents[state.current_player]
        if self.render_mode == "human":
            self.render()

    def _require_reset(self) -> None:
        if self.game_state is None:
            raise DominoError(f"{type(self).__name__}: call reset() first")

    def last(self, observe: bool = True) -> tuple:
        """PettingZoo's ``last`` of the selected agent: its :meth:`observe` dict (None if not
        ``observe``), reward (float, summed since its last action), termination and truncation
        (bools), info (docs/infos.md). Raises DominoError before ``reset``, as ``step`` and
        ``observe`` do, and once every agent is done (the episode is over: call ``reset()``)."""
        self._require_reset()
        if not self.agents:
            raise DominoError("the episode is over (every agent is done): call reset()")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63):
        """PettingZoo's ``agent_iter``. Raises DominoError before ``reset``."""
        self._require_reset()
        return super().agent_iter(max_iter)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """PettingZoo's ``observe``: new ``{"observation": float32 (spec.size,), "action_mask": int8
        (num_actions,)}`` arrays, egocentric, only what ``agent``'s seat may know (docs/rules.md §3);
        the mask is all zeros but for the seat to act in a running round (none once truncated).
        Raises DominoError before ``reset`` or for an unknown agent."""
        self._require_reset()
        try:
            seat = self._seat[agent]
        except (KeyError, TypeError):  # a bare KeyError named no agent; TypeError: unhashable
            raise DominoError(f"unknown agent {agent!r}: the agents are {self.possible_agents}") from None
        if self._truncated:  # truncated: nobody may act, as after a round that ended normally
            mask = np.zeros(self.encoder.num_actions, dtype=np.int8)
        else:
            mask = self.encoder.mask(self.game_state, seat)
        return {"observation": self.encoder.observe(self.game_state, seat), "action_mask": mask}

    def _was_dead_step(self, action: Any) -> None:
        # PettingZoo's (also TerminateIllegalWrapper's, after an illegal move) raises a ValueError
        # naming no agent for an action that is not None
        if action is not None:
            agent = self.agent_selection
            raise done_agent_action(agent, bool(self.terminations.get(agent)), action)
        super()._was_dead_step(None)

    def step(self, action: ActionLike | None) -> None:
        """Apply the selected agent's action.

        Raises:
            IllegalActionError: the action is not legal, or not an integer (nothing changes;
                ``env()`` turns an illegal action into a terminated episode with -1 for the
                offender instead); or not None for a done agent, which PettingZoo steps with None.
            DominoError: ``step`` before ``reset`` or after every agent is done.
            DealError: the next deal of ``reset``'s ``options["deals"]`` is refused as its round
                starts (the action is applied, the finished round's rewards paid, every agent terminated).
        """
        self._require_reset()
        if not self.agents:
            raise DominoError("the episode is over (every agent is done): call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        if action is None:
            raise IllegalActionError(f"{agent} is acting and must give an action, not None")
        state.apply(action)  # raises IllegalActionError before any bookkeeping
        self._cumulative_rewards[agent] = 0.0
        # Rewards and infos are only written at round ends and truncation: clear them lazily
        # (most steps touch neither, and this is the hot path).
        if self._written:
            for a in self.agents:
                self.rewards[a] = 0.0
            self.infos = self._infos()
            self._written = False
        self._steps += 1
        finished = state.round_over
        refused = None
        if finished:
            try:
                self._finish_round()  # may deal the next round of a game episode
            except DealError as err:  # raised once the bookkeeping below is done
                refused = err
            self._written = True
        if not state.round_over:  # play goes on: does a new turn start, and is it allowed?
            nxt = state.current_player
            limit = self.max_steps is not None and self._steps >= self.max_steps
            if finished or nxt != self._seat[agent]:
                if self._turns[nxt] >= self.max_cycles:
                    limit = True
                else:
                    self._turns[nxt] += 1
            if limit:
                self._truncated = True
                # new dicts: those of the steps since the last round end were returned already
                self.infos = {a: {**info, "limit_reached": True} for a, info in self.infos.items()}
                for a in self.agents:
                    self.truncations[a] = True
                self._written = True
        if not state.round_over:
            self.agent_selection = self.possible_agents[state.current_player]
        if self._written:
            self._accumulate_rewards()
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()
        if refused is not None:
            raise refused

    def _finish_round(self) -> None:
        state = self.game_state
        result = state.round_result
        self.infos = self._infos(result, state.game_winners if state.game_over else None)
        seats = [self._seat[a] for a in self.agents]
        for s, r in self.round_rewards(seats).items():
            self.rewards[self.possible_agents[s]] = r
        self.round_results.append(dict(next(iter(self.infos.values()))))
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
        if not self._deal_queue:
            state.start_next_round(self.np_random, None)
            return
        try:
            state.start_next_round(self.np_random, self._deal_queue[0])
        except DealError as err:  # reset checks the first deal only: a later one may fail here
            for a in self.agents:  # the round is over and paid; the episode ends with it
                self.terminations[a] = True
            self._deal_queue = []
            raise DealError(f"options['deals'][{len(state.deals)}]: {err}; the episode ends with the "
                            "round before it: call reset()") from None
        self._deal_queue.pop(0)

    def _infos(self, result: Any = None, game_winners: tuple[int, ...] | None = None) -> dict[str, dict]:
        """Every live agent's info in the fixed layout (docs/infos.md); the per-seat arrays are
        shared between agents (treat them as read-only)."""
        st = self.game_state
        index = st.round_index if result is None else result.round_index
        info = info_layout(self.config.num_players, st.scores, index, self.round_info(), result, game_winners)
        return {a: dict(info) for a in self.agents}

    # ------------------------------------------------------------------ records / render
    def to_record(self) -> dict[str, Any]:
        """The game so far as a JSON-ready dict: env id, kwargs, seed, every deal, every action
        (DominoError before ``reset``). Replay it with :func:`domino_env.core.records.replay`
        (engine states) or by building ``raw_env(**record["env_kwargs"])`` and
        ``reset(options={"deals": record["deals"]})``.
        """
        self._require_reset()
        return make_record(self.ENV_ID, self.env_kwargs, self._seed, self.game_state)

    def render_image(self, viewer: int | None = None, all_hands: bool = False) -> np.ndarray:
        """Picture of the table, ``(H, W, 3)`` uint8 (see :mod:`domino_env.render_image`):
        ``viewer``'s hand face up (default: the seat to play), the others face down;
        ``all_hands=True`` shows every hand (replays, debugging; no seat is labelled "(you)"
        unless ``viewer`` is given). Works in any render mode; before ``reset``, a blank picture saying so.

        Raises:
            DominoError: ``viewer`` is not a seat; ``ConfigError``: ``all_hands`` is not True /
                False (or 1 / 0).
        """
        from ..render_image import blank_image, image_size, table_image

        if self.game_state is None:
            return blank_image(NOT_RESET, image_size(self.config))
        return table_image(self.game_state, viewer, all_hands)

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the text picture (str) as seen by the current player; ``"human"``: printed,
        None; ``"rgb_array"``: :meth:`render_image` ``(H, W, 3)`` uint8 as seen by the current
        player; no render mode: None, with Gymnasium's warning."""
        if self.render_mode is None:
            gymnasium.logger.warn(NO_RENDER_MODE)
            return None
        if self.render_mode == "rgb_array":
            return self.render_image()
        text = NOT_RESET if self.game_state is None else self.render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass


class _StateCall:
    """What ``env.state`` returns: call it for the global state (PettingZoo's ``state()``).
    Attribute access forwards to ``env.game_state``, the engine that ``env.state`` used to be."""

    __slots__ = ("_env",)

    def __init__(self, env: DominoAECEnv):
        self._env = env

    def __call__(self) -> np.ndarray:
        return self._env._global_state()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # protocol probes (numpy, copy, pickle): not the engine's
            raise AttributeError(name)
        warnings.warn(
            f"env.state.{name}: env.state() is now PettingZoo's global state; the rules engine "
            f"moved to env.game_state (use env.game_state.{name})",
            DeprecationWarning,
            stacklevel=2,
        )
        if self._env.game_state is None:
            raise DominoError(f"{type(self._env).__name__}: call reset() first")
        return getattr(self._env.game_state, name)

    def __repr__(self) -> str:
        return f"<state() of {type(self._env).__name__}; engine: env.game_state>"
