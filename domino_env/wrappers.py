"""Single-agent adapter: one seat learns, the other seats are played by callables (docs/design.md §4).

:class:`SingleAgentEnv` is a ``gymnasium.Env`` over any of the package's AEC environments. The
opponents act inside :meth:`~SingleAgentEnv.step`; the reward returned is always the learner's,
summed since its previous decision, including the final reward when an opponent ends the round.
``action_masks()`` gives MaskablePPO the learner's legal actions.

An opponent is any callable ``(observation, action_mask, rng) -> action`` where ``observation`` is
the seat's float32 observation vector, ``action_mask`` its int8 mask and ``rng`` a
``numpy.random.Generator`` owned by the adapter (so a seeded adapter replays exactly). An
opponent whose ``wants_info_state`` attribute is true also gets ``info_state=`` (the seat's
:class:`~domino_env.core.belief.InformationState`; see :func:`info_state_kwargs`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

import gymnasium
import numpy as np

from .core.config import NO_RENDER_MODE, NOT_RESET, installed_render_modes
from .core.errors import (
    ActionLike,
    ConfigError,
    DominoError,
    IllegalActionError,
    as_int,
    check_action,
    check_rng,
    check_seed,
    is_finite_number,
)

if TYPE_CHECKING:
    from .core.belief import InformationState

#: An agent: an action index out (a Python or numpy integer, as ``np.flatnonzero(mask)[0]`` gives).
Opponent = Callable[[np.ndarray, np.ndarray, np.random.Generator], "int | np.integer[Any]"]


class InfoStateAgent(Protocol):
    """An agent whose ``wants_info_state`` is true: called ``agent(observation, action_mask, rng,
    info_state=...)`` with its seat's public history (:func:`info_state_kwargs`)."""

    @property
    def wants_info_state(self) -> bool: ...

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator, /, *,
                 info_state: InformationState) -> int | np.integer[Any]: ...


#: What ``opponents`` takes: one callable for every other seat, or a sequence of them.
Opponents: TypeAlias = "Opponent | InfoStateAgent | Sequence[Opponent | InfoStateAgent]"


def random_legal_opponent(observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
    """Uniform choice among the legal actions of ``action_mask`` (int8 ``(n,)``): an int (the adapter's default opponent).

    Raises:
        ConfigError: ``rng`` is not a ``numpy.random.Generator``, or no action is legal."""
    if not len(legal := np.flatnonzero(action_mask)):  # numpy's own words were "high <= 0"
        raise ConfigError("action_mask", "all zero", "a mask with a legal action (the seat to act's)")
    return int(legal[check_rng(rng).integers(len(legal))])


def info_state_kwargs(agent: Any, state: Any, seat: int) -> dict[str, Any]:
    """Extra keyword arguments for calling ``agent`` at ``seat``: ``{"info_state":
    InformationState.from_state(state, seat)}`` for an agent whose ``wants_info_state`` attribute
    is true (search agents: the seat's public history, see docs/search.md), else ``{}`` (every
    other agent keeps the plain ``(observation, action_mask, rng)`` protocol)."""
    if not getattr(agent, "wants_info_state", False):
        return {}
    from .core.belief import InformationState

    return {"info_state": InformationState.from_state(state, seat)}


class SingleAgentEnv(gymnasium.Env):
    """One learner seat against opponent callables, as a Gymnasium environment.

    Args:
        aec_env: an unwrapped AEC env of this package (e.g. ``mexican_train_v0.raw_env(...)``).
        opponents: one callable for every other seat, or a sequence of P-1 callables; entry k
            plays the seat k+1 places after the learner in turn order.
        learner_seat: a seat number, or ``"random"`` to draw one per episode.
        illegal_reward: reward of an illegal (unmasked) learner action, which ends the episode
            (``terminated=True``, ``info["illegal_action"]=True``); the AEC env is not changed.
        team_play: with teams (Cuban), the learner plays **every seat of its team** (self-play
            partners, one policy): each step is the decision of whichever of its seats acts,
            :attr:`learner_seat` is that seat (it changes within an episode), and the opponent
            callable of the partner seat is never called. The reward is the team's, counted once
            (the sum of the team's rewards since the learner's previous decision, from either
            seat). ``False`` (default): the partner is an opponent callable.

    Observation: the learner's float32 observation vector (``aec_env``'s ``"observation"``, not
    the dict; the mask comes from :meth:`action_masks`). Action: the AEC env's ``Discrete``
    action. Reward: the learner's AEC reward (float). Entries are raw counts (tiles, points):
    wrap vectorised envs in SB3's ``VecNormalize`` if your learner wants normalised inputs.

    Raises:
        ConfigError: ``aec_env`` not an unwrapped env of this package, wrong number of opponents, an invalid learner seat or illegal reward, a
            ``render_mode`` other than None / ``"ansi"`` / ``"rgb_array"``, or ``team_play``
            not a bool or true without teams.
    """

    metadata = {"render_modes": installed_render_modes(("ansi", "rgb_array")), "render_fps": 2}

    def __init__(
        self,
        aec_env: Any,
        opponents: Opponents = random_legal_opponent,
        learner_seat: int | str = 0,
        illegal_reward: float = -1.0,
        team_play: bool = False,
    ):
        from .envs.base import DominoAECEnv

        if not isinstance(aec_env, DominoAECEnv):  # env()'s wrappers hide the engine the adapter reads
            raise ConfigError("aec_env", aec_env, "an unwrapped env of this package: raw_env(...), or env(...).unwrapped")
        self.aec = aec_env
        self.agents_all = list(aec_env.possible_agents)
        p = len(self.agents_all)
        if callable(opponents):
            opponents = [opponents] * (p - 1)
        if (
            not isinstance(opponents, Sequence)
            or len(opponents) != p - 1
            or not all(callable(o) for o in opponents)
        ):
            names = isinstance(opponents, str) or (isinstance(opponents, Sequence) and any(isinstance(o, str) for o in opponents))
            hint = ("; an agent name is an agent once built: domino_env.agents.make_agent(name, env.config), or "
                    "gymnasium.make(id, opponents=name)") if names else ""  # fmt: skip
            raise ConfigError("opponents", opponents, f"one callable or a sequence of {p - 1} callables{hint}")
        opponents = list(opponents)
        check_adapter_render_mode(getattr(aec_env, "render_mode", None))
        if not is_finite_number(illegal_reward):
            raise ConfigError("illegal_reward", illegal_reward, "a finite number (reward units)")
        if (number := as_int(learner_seat)) is not None:  # numpy integers and 0-d integer arrays too
            learner_seat = number
        if learner_seat != "random" and (
            isinstance(learner_seat, bool) or not isinstance(learner_seat, int) or not 0 <= learner_seat < p
        ):
            raise ConfigError("learner_seat", learner_seat, f"'random' or a seat 0..{p - 1}")
        if not isinstance(team_play, (bool, np.bool_)):
            raise ConfigError("team_play", team_play, "True or False")
        config = getattr(aec_env, "config", None)
        if team_play and not getattr(config, "teams", False):
            raise ConfigError("team_play", team_play, "False: these rules have no teams (team play needs teams=True, e.g. Cuban)")
        self.team_play = bool(team_play)
        self._team_reward = 0.0  # team play: the team's reward since the learner's last decision
        self.opponents = opponents
        self.learner_seat_option = learner_seat
        self.illegal_reward = float(illegal_reward)
        first = self.agents_all[0]
        self.observation_space = aec_env.observation_space(first)["observation"]
        self.action_space = aec_env.action_space(first)
        self.render_mode = getattr(aec_env, "render_mode", None)
        self.learner_seat = self._first_seat = 0 if learner_seat == "random" else learner_seat
        self._mask = np.zeros(self.action_space.n, dtype=np.int8)
        self._done = True
        self._started = False  # a reset has dealt an episode (before it, step and action_masks ask for one)
        self._results_passed = 0  # round results of the episode already given in an info
        self._reset_reward = 0.0  # the learner's reward from rounds that ended inside reset()

    @property
    def config(self) -> Any:
        """The rules (the AEC env's config), as on every env of the package (``make_agent(name, env)``)."""
        return self.aec.config

    @property
    def learner(self) -> str:
        """The learner's agent name this episode (``"player_<seat>"``)."""
        return self.agents_all[self.learner_seat]

    def _opponent_for(self, seat: int) -> Opponent | InfoStateAgent:
        p = len(self.agents_all)
        # counted from the episode's first learner seat: with team play the learner's seat
        # changes within the round, the opponent callable of each seat must not
        return self.opponents[(seat - self._first_seat) % p - 1]

    def _step_aec(self, action: int | None) -> None:
        self.aec.step(action)
        if self.team_play:  # both seats of the team get the same reward: count it once
            self._team_reward += float(self.aec.rewards.get(self.learner, 0.0))

    def _play_opponents(self) -> None:
        """Step the AEC env until the learner must act (team play: either of its seats) or the
        learner's episode is over."""
        aec = self.aec
        learner = self.learner
        team = self.aec.config.team_of if self.team_play else None
        while True:
            agent = aec.agent_selection
            if aec.terminations.get(learner, True) or aec.truncations.get(learner, True):
                return
            if agent == learner:
                return
            seat = self.agents_all.index(agent)
            if team is not None and team(seat) == team(self.learner_seat) and not (
                aec.terminations[agent] or aec.truncations[agent]
            ):
                self.learner_seat = seat  # the partner's turn: the learner plays it
                return
            if aec.terminations[agent] or aec.truncations[agent]:
                self._step_aec(None)
                continue
            obs = aec.observe(agent)
            opponent = self._opponent_for(seat)
            extra = info_state_kwargs(opponent, aec.game_state, seat)
            action = opponent(obs["observation"], obs["action_mask"], self.np_random, **extra)
            try:
                self._step_aec(action)
            except IllegalActionError as err:
                raise IllegalActionError(f"opponent {opponent!r} at seat {seat} chose badly: {err}") from err

    def _learner_view(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        aec = self.aec
        learner = self.learner
        if self.team_play:
            reward, self._team_reward = self._team_reward, 0.0
        else:
            reward = float(aec._cumulative_rewards.get(learner, 0.0))
        terminated = bool(aec.terminations.get(learner, True))
        truncated = bool(aec.truncations.get(learner, False)) and not terminated
        obs = aec.observe(learner)
        self._done = terminated or truncated
        self._mask = np.zeros_like(self._mask) if self._done else obs["action_mask"]
        # Fresh arrays every call: the AEC infos may reuse their neutral arrays between steps, and
        # a caller (or gymnasium's env checker) must never see one object in two infos.
        info = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in aec.infos.get(learner, {}).items()}
        info["learner_seat"] = self.learner_seat
        # Every round that ended since the learner's last decision (several can end on
        # opponents' moves in a game episode; the AEC infos keep only the latest step's).
        results = aec.round_results
        info["round_results"] = [dict(r) for r in results[self._results_passed :]]
        self._results_passed = len(results)
        if info["round_results"] and not info.get("round_over"):
            # The round ended on an opponents' move, inside this adapter step: its result keys go
            # to the top level too, so ``info["round_over"]`` means "a round ended since the
            # learner's previous decision" (several did: the latest one; all in round_results).
            latest = info["round_results"][-1]
            info.update({k: v.copy() if isinstance(v, np.ndarray) else v for k, v in latest.items()})
        return obs["observation"], reward, terminated, truncated, info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode and return ``(observation float32 (obs size,), info)`` at the learner's
        first decision; opponents seated before the learner play their first moves.

        ``options`` go to the AEC env's ``reset`` (e.g. ``{"deal": ...}``).

        A round episode whose round ends before the learner's first decision has no first
        observation to return, so it is dealt again (up to 100 times, from the seeded stream).
        With the default hand sizes this cannot happen; with hands of one or two tiles it can, and
        the episodes are then those in which the learner gets a turn (docs/envs.md). In a game
        episode the next round is dealt instead, and the reward of the rounds that ended inside
        ``reset`` is paid with the first ``step``.

        Raises:
            ConfigError: ``seed`` is not None nor an integer >= 0 (numpy integers are accepted).
            DominoError: an explicit deal whose round ends before the learner's first turn, or
                100 deals in a row that did (the message names ``max_steps`` / ``max_cycles`` when
                the last one was truncated before it).
            DealError: an invalid ``options`` deal (refused by the AEC env's ``reset``).

        An opponent callable's own error propagates and leaves no episode (``step`` asks for
        ``reset``).
        """
        seed = check_seed(seed)
        # what a refused deal must leave as it was: the generator (its seed and stream) and the seat
        rng, rng_seed = self._np_random, self._np_random_seed
        rng_state = None if rng is None else copy.deepcopy(rng.bit_generator.state)
        seats = (self.learner_seat, self._first_seat)
        super().reset(seed=seed)
        try:
            out = self._deal(options)
            self._started = True
            return out
        except DominoError:
            self._np_random, self._np_random_seed = rng, rng_seed
            if rng is not None:
                rng.bit_generator.state = rng_state
            self.learner_seat, self._first_seat = seats
            raise

    def _end_episode(self) -> None:
        """The episode is over without a learner's view: ``step`` asks for ``reset``."""
        self._done = True
        self._mask = np.zeros_like(self._mask)

    def _deal(self, options: dict[str, Any] | None):
        """:meth:`reset`'s deals, until the learner has a decision."""
        truncated = False
        for _ in range(100):
            if self.learner_seat_option == "random":
                self.learner_seat = int(self.np_random.integers(len(self.agents_all)))
            else:  # team play may have left the partner's seat here
                self.learner_seat = self.learner_seat_option
            self._first_seat = self.learner_seat
            self.aec.reset(seed=int(self.np_random.integers(2**31 - 1)), options=options)
            self._results_passed = 0
            self._team_reward = 0.0
            try:
                self._play_opponents()
            except BaseException:  # an opponent's error (its own, or an illegal move): the AEC
                self._end_episode()  # env waits on that seat, no episode to go on with
                raise
            obs, self._reset_reward, terminated, truncated, info = self._learner_view()
            if not (terminated or truncated):
                return obs, info
            if options and (options.get("deal") is not None or (options.get("deals") or [None])[0] is not None):
                break  # a given first deal: dealing again would deal the same (None: the generator's)
        if truncated:
            raise DominoError(
                f"the episode was truncated (max_cycles={self.aec.max_cycles}, max_steps="
                f"{self.aec.max_steps}) before the learner's first turn; raise the limit"
            )
        raise DominoError("the round ended before the learner's first turn; deal differently")

    def step(self, action: ActionLike) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponents until the learner acts again.

        Returns:
            ``(observation float32 (obs size,), reward float, terminated bool, truncated bool, info)``;
            ``info`` carries the round result keys when a round ended on this step, and always
            ``info["round_results"]``: the round-end infos (docs/infos.md layout:
            ``termination_code``, ``winners``, ``pips``, ``points``, ``scores``,
            ``round_index``, ...) of every round that ended since the learner's previous
            decision, oldest first (usually empty; in a game episode several rounds can end on
            the opponents' moves). An action of the action space that is not legal (masked)
            ends the episode: ``illegal_reward``, ``terminated=True`` and
            ``info["illegal_action"]=True``.

        Raises:
            DominoError: ``step`` before the first ``reset``, or after the episode ended (call
                ``reset``).
            IllegalActionError: ``action`` is not an integer (a float, string, bool, or an array
                other than a 0-d integer one; Python and numpy integers are taken), or is an
                integer outside the action space (``0 <= action < action_space.n``: a policy's
                indexing error, not a move). Nothing is played and the episode goes on.
            DealError: the next deal of ``reset``'s ``options["deals"]`` is refused as its round
                starts (the AEC env's episode ends there; so does this one: call ``reset``).

        Any error an opponent callable raises propagates, and the episode is over (``step``
        then asks for ``reset``).
        """
        if not self._started:
            raise DominoError(f"{type(self).__name__}: call reset() first")
        if self._done:
            raise DominoError("the episode is over: call reset() before step()")
        action = check_action(action)
        if not 0 <= action < self.action_space.n:  # (the AEC env() asserts here too)
            raise IllegalActionError(f"action {action} is outside the action space: 0 to {self.action_space.n - 1} "
                                     "(nothing was played; the episode goes on)")  # fmt: skip
        if not self._mask[action]:
            obs = self.aec.observe(self.learner)["observation"]
            self._done = True
            self._mask = np.zeros_like(self._mask)
            # The whole layout (docs/infos.md) for the running round, no round ended here.
            info = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in self.aec._infos()[self.learner].items()}
            info.update(illegal_action=True, learner_seat=self.learner_seat, round_results=[])
            return obs, self.illegal_reward, True, False, info
        try:
            self._step_aec(action)
            self._play_opponents()
        except BaseException:
            # A refused next deal (the AEC env ended the episode) or an opponent's own error: the
            # AEC env waits on another seat, so a later step is refused, never played as that seat
            self._end_episode()
            raise
        obs, reward, terminated, truncated, info = self._learner_view()
        reward, self._reset_reward = reward + self._reset_reward, 0.0
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions, shape ``(action_space.n,)`` (for MaskablePPO); all
        False once the episode is over (terminated or truncated).

        Raises:
            DominoError: before the first ``reset`` (there is no learner's turn yet).
        """
        if not self._started:
            raise DominoError(f"{type(self).__name__}: call reset() first")
        return self._mask.astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The table as the learner sees it: ``"ansi"`` text, ``"rgb_array"`` an ``(H, W, 3)``
        uint8 picture (the aec env's ``render_image(learner_seat)``); before the first ``reset()``
        the text, or a blank picture, says so, as the AEC env's; no render mode: None, with
        Gymnasium's warning."""
        if self.render_mode is None:
            gymnasium.logger.warn(NO_RENDER_MODE)
        if self.render_mode == "rgb_array":
            return self.aec.render_image(self.learner_seat if self.aec.game_state is not None else None)
        if self.render_mode == "ansi":
            return NOT_RESET if self.aec.game_state is None else self.aec.render_text(self.learner_seat)
        return None

    def render_image(self, viewer: int | None = None, all_hands: bool = False) -> np.ndarray:
        """The AEC env's ``render_image`` (``(H, W, 3)`` uint8, any render mode), ``viewer`` the learner's
        seat by default (no seat with ``all_hands=True``, as there). Raises as that does."""
        default = None if all_hands or self.aec.game_state is None else self.learner_seat
        return self.aec.render_image(default if viewer is None else viewer, all_hands)

    def close(self) -> None:
        self.aec.close()


def check_adapter_render_mode(render_mode: Any) -> None:
    """The adapter's render modes, checked before the AEC env (whose own list has 'human').

    Raises:
        ConfigError: ``render_mode`` is not None, ``"ansi"`` or ``"rgb_array"``.
    """
    if render_mode not in (None, "ansi", "rgb_array"):
        raise ConfigError(
            "render_mode",
            render_mode,
            "None, 'ansi' or 'rgb_array' (the adapter renders the learner's view; 'human' "
            "would print the opponents' hands on their turns)",
        )


#: The adapter factories' own keywords, besides the AEC env's (line games: also ``team_play``).
ADAPTER_KWARGS = ("opponents", "learner_seat", "illegal_reward")


def check_adapter_keywords(env_class: Any, env_kwargs: dict[str, Any], own: Sequence[str] = ADAPTER_KWARGS) -> None:
    """Refuse a keyword that neither the adapter nor ``env_class`` takes, listing both kinds: the
    AEC env's own error lists only its keywords, where a misspelt ``opponents`` is not to be found.

    Raises:
        ConfigError: an unknown keyword (names it and every keyword allowed).
    """
    known = env_class.keywords()
    for key, value in env_kwargs.items():
        if key not in known:
            raise ConfigError(key, value, f"a keyword of the single-agent adapter: {sorted([*own, *known])}")


def mexican_train_single_agent(
    opponents: Opponents = random_legal_opponent,
    learner_seat: int | str = 0,
    illegal_reward: float = -1.0,
    **env_kwargs: Any,
) -> SingleAgentEnv:
    """Mexican Train as a single-agent Gymnasium env; ``env_kwargs`` go to
    ``mexican_train_v0.raw_env``. The registered id ``"dominoes/MexicanTrain-v0"`` builds the same
    adapter (through ``domino_env.agents.gym_ids``, which also takes agent names as opponents).
    Raises ConfigError for an unknown keyword, a render mode other than None / "ansi" / "rgb_array", or as :class:`SingleAgentEnv` and ``raw_env`` do."""
    from .envs.mexican_train_v0 import raw_env

    check_adapter_keywords(raw_env, env_kwargs)
    check_adapter_render_mode(env_kwargs.get("render_mode"))
    return SingleAgentEnv(raw_env(**env_kwargs), opponents, learner_seat, illegal_reward)


def line_single_agent(
    preset: str = "block",
    opponents: Opponents = random_legal_opponent,
    learner_seat: int | str = 0,
    illegal_reward: float = -1.0,
    team_play: bool = False,
    **env_kwargs: Any,
) -> SingleAgentEnv:
    """A line game (``preset`` ``"block"``, ``"draw"`` or ``"cuban"``) as a single-agent Gymnasium
    env (the registered ids ``"dominoes/Block-v0"``, ``"dominoes/Draw-v0"``, ``"dominoes/Cuban-v0"``
    build the same adapter through ``domino_env.agents.gym_ids``, which also takes agent names).
    With teams, the learner's partner is one of the ``opponents`` callables (entry 1 of a
    sequence: the seat two places after the learner), or with ``team_play=True`` the learner
    itself (see :class:`SingleAgentEnv`); the learner's reward is its team's. Raises ConfigError as :func:`mexican_train_single_agent` does (an unknown ``preset`` too)."""
    from .envs.line_v0 import raw_env

    check_adapter_keywords(raw_env, env_kwargs, (*ADAPTER_KWARGS, "team_play"))
    check_adapter_render_mode(env_kwargs.get("render_mode"))
    env = raw_env(preset=preset, **env_kwargs)
    return SingleAgentEnv(env, opponents, learner_seat, illegal_reward, team_play)


def _line_game(game: str) -> Callable[..., SingleAgentEnv]:
    def make(**kwargs: Any) -> SingleAgentEnv:
        if kwargs.get("preset") not in (None, game):  # None: the id's own, as the AEC ids take it
            raise ConfigError("preset", kwargs["preset"], f"'{game}' for this id (use line_single_agent)")
        kwargs.pop("preset", None)
        return line_single_agent(game, **kwargs)

    make.__name__ = f"{game}_single_agent"
    make.__doc__ = (
        f"The {game} game as a single-agent env with opponent callables (the registered id "
        f"``dominoes/{game.capitalize()}-v0`` builds it through ``domino_env.agents.gym_ids``)."
    )
    return make


block_single_agent = _line_game("block")
draw_single_agent = _line_game("draw")
cuban_single_agent = _line_game("cuban")
