"""The training env of ``domino_env.train.ppo`` and ``domino_env.train.bc``: one learner seat of a domino game against
scripted (or trained) opponents drawn per episode, with the learner's reward and scaled
observations (:class:`LearnerEnv`), and the factory the vectorised envs call (:func:`make_env_fn`).
"""

from __future__ import annotations

import multiprocessing
import signal
import warnings
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from domino_env.agents.action_scorer import FLAT_INPUT, POLICY_INPUTS, PolicyInput
from domino_env.agents.base import make_agent
from domino_env.agents.ppo import RulesMismatchWarning, observation_scale
from domino_env.core.belief import InformationState
from domino_env.core.errors import ConfigError
from domino_env.core.tiles import tile_count
from domino_env.envs import line_v0
from domino_env.envs.mexican_train_v0 import raw_env
from domino_env.train.interrupts import WORKER_STOP_SIGNALS
from domino_env.wrappers import SingleAgentEnv, info_state_kwargs

#: Rewards of ``--reward`` (see :class:`LearnerEnv`).
REWARDS = ("mixed", "outcome", "points")
#: Games of ``--game``: Mexican Train and the line games (their presets).
GAMES = ("mexican_train", "block", "draw", "cuban")
#: Partners of ``--partner`` (teams): an opponent-pool agent, or the learner itself.
PARTNERS = ("opponents", "learner")
#: Critic inputs of ``--critic-input``: the seat's own information, or also the hidden tiles.
CRITIC_INPUTS = ("observation", "full-state")


def full_state_size(num_players: int, num_tiles: int) -> int:
    """Length of :func:`full_state_input`: ``num_players x num_tiles``."""
    return num_players * num_tiles


def full_state_input(state: Any, seat: int) -> np.ndarray:
    """What ``seat`` cannot see, for a critic that is trained with it (``--critic-input
    full-state``): float32 ``(P x num_tiles,)``, row ``k - 1`` (k = 1 .. P-1) the 0/1 tiles of
    the hand ``k`` seats after ``seat`` (turn order, egocentric as the observation), row ``P - 1``
    the boneyard's tiles (as a set: its order is not given). Tiles out of play are the rest.
    These are the ``hands`` and ``boneyard`` fields of the env's global state (``env.state()``,
    docs/state.md) turned to the seat, read straight from the engine state (either game) rather
    than through its full encoding, which costs more per step."""
    p, n = len(state.hands), state.num_tiles
    out = np.zeros((p, n), dtype=np.float32)
    for k in range(1, p):
        hand = state.hands[(seat + k) % p]
        out[k - 1] = np.unpackbits(
            np.frombuffer(hand.to_bytes((n + 7) // 8, "little"), dtype=np.uint8), bitorder="little"
        )[:n]
    if state.boneyard:
        out[p - 1, list(state.boneyard)] = 1.0
    return out.ravel()


class LearnerEnv(gymnasium.Wrapper):
    """The training env: the single-agent adapter with opponents drawn per episode, the learner's
    reward (``outcome`` / ``points`` from the env, or ``mixed``) and scaled observations.

    Args:
        env_kwargs: rules and env options for ``mexican_train_v0.raw_env`` (``reward`` is set here).
        opponents: agent specs (``make_agent``) or agent objects; the pool.
        opponent_mode: ``"mix"`` (each opponent seat draws from the pool every episode) or
            ``"fixed"`` (the pool is the P-1 opponents in turn order after the learner; with
            ``partner="learner"`` the P-2 opponents, the partner's seat skipped).
        reward: ``"outcome"`` (the env's zero-sum +1 / -1 shared), ``"points"`` (the env's
            -points/100 at the round's end) or ``"mixed"``: outcome + ``pips_coef`` x
            (-points/100), both at the round's end (round episodes, Mexican Train only).
        pips_coef: weight of -points/100 in the ``mixed`` reward.
        self_play: probability that an opponent seat is a learner snapshot (when there is one).
        learner_seat: ``"random"`` (training: a new seat every episode) or a fixed seat (tests).
        policy_input: ``"observation"`` (the scaled observation) or ``"action-features-v1"``
            (plus the per-action feature rows of
            :func:`~domino_env.agents.action_features.action_features_for`, for ``--policy
            action-scores``).
        game: ``"mexican_train"`` (``env_kwargs`` for ``mexican_train_v0.raw_env``) or a line
            game ``"block"`` / ``"draw"`` / ``"cuban"`` (``line_v0.raw_env(preset=game)``; with
            teams the partner is an opponent seat and the reward is the team's).
        partner: with teams, ``"opponents"`` (the partner seat draws from the pool like the
            opponents) or ``"learner"`` (the learner plays both seats of its team, the
            adapter's ``team_play``: one policy, twice the decisions per round).
        baseline: an agent (spec or object) or None. With one, every episode is also played
            by the baseline agent in the learner's seat(s), on the same deal (the same env
            seed) against the same opponents, and its return (the same reward) is subtracted
            from the learner's at the episode's end: a duplicate-deal baseline that takes the
            luck of the deal out of the reward. It does not depend on the learner's actions, so
            the policy gradient stays unbiased and the best policy is unchanged; it costs one
            more episode of play per episode (:meth:`baseline_return`).
        critic_input: ``"observation"`` (the network input is the seat's own information) or
            ``"full-state"``: :func:`full_state_input` (the other hands and the boneyard, from the
            engine state, for the acting seat) is appended to the network input, for a critic
            that reads it and an actor that does not (an asymmetric actor-critic: ``--policy
            action-scores`` only, :class:`~domino_env.train.action_policy.ActionScoringNet`'s
            ``critic_extra``). The trained actor still plays from the observation alone.

    Observations: float32 ``(spec size,)``, the raw observation times
    :func:`domino_env.agents.ppo.observation_scale` (with ``policy_input="action-features-v1"``:
    followed by ``A x F`` feature values, :class:`~domino_env.agents.action_scorer.PolicyInput`); the raw one of the last ``reset`` / ``step`` is kept in
    :attr:`raw_observation` (scripted experts such as the planner read raw values).
    Info at the round's end: the adapter's round result plus ``learner_won`` (win credit 1, 1/k
    for a shared win, 0; at the end of a whole-game episode the game's) and ``learner_pips`` (with ``partner="learner"``: the mean of its two
    seats', as the evaluations count an agent in two seats).

    Raises:
        ConfigError: bad rules, opponent names, mode, reward or partner (``"learner"`` without
            teams).
    """

    def __init__(
        self,
        env_kwargs: dict[str, Any],
        opponents: Sequence[Any] = ("greedy",),
        opponent_mode: str = "mix",
        reward: str = "mixed",
        pips_coef: float = 1.0,
        self_play: float = 0.0,
        learner_seat: int | str = "random",
        game: str = "mexican_train",
        policy_input: str = FLAT_INPUT,
        partner: str = "opponents",
        baseline: Any = None,
        critic_input: str = "observation",
    ):
        if game not in GAMES:
            raise ConfigError("game", game, f"one of {GAMES}")
        if reward not in REWARDS:
            raise ConfigError("reward", reward, f"one of {REWARDS}")
        if partner not in PARTNERS:
            raise ConfigError("partner", partner, f"one of {PARTNERS}")
        if critic_input not in CRITIC_INPUTS:
            raise ConfigError("critic_input", critic_input, f"one of {CRITIC_INPUTS}")
        if critic_input != "observation" and policy_input == FLAT_INPUT:
            # a flat MLP policy shares its input with the critic: the actor would see the hands
            raise ConfigError("critic_input", critic_input, "'observation' with --policy mlp")
        if opponent_mode not in ("mix", "fixed"):
            raise ConfigError("opponent_mode", opponent_mode, "'mix' or 'fixed'")
        kwargs = dict(env_kwargs)
        kwargs["reward"] = "points" if reward == "points" else "outcome"
        if reward == "mixed" and kwargs.get("episode", "round") != "round":
            raise ConfigError(
                "reward", reward, "'outcome' or 'points' when an episode is a whole game"
            )
        if game != "mexican_train" and reward == "mixed":
            raise ConfigError("reward", reward, "'outcome' or 'points' for a line game")
        if game == "mexican_train":
            aec = raw_env(**kwargs)
        else:
            kwargs.pop("preset", None)
            aec = line_v0.raw_env(preset=game, **kwargs)
        cfg = aec.config
        self.game = game
        self.whole_game = kwargs.get("episode", "round") == "game"
        self.teams = bool(getattr(cfg, "teams", False))
        if partner == "learner" and not self.teams:
            raise ConfigError("partner", partner, "'opponents' (only team rules, e.g. Cuban, have a partner)")
        self.partner = partner
        self.num_players = p = cfg.num_players
        pool = [make_agent(o, cfg) for o in opponents]
        if not pool:
            raise ConfigError("opponents", list(opponents), "at least one agent")
        # the seats the pool plays: P-1 after the learner, or P-2 when the learner is its partner
        self._partner_k = 1 if partner == "learner" else None  # the seat 2 places after the learner
        wanted = p - 1 - (self._partner_k is not None)
        if opponent_mode == "fixed" and len(pool) != wanted:
            extra = ", --partner learner" if self._partner_k is not None else ""
            raise ConfigError(
                "opponents",
                list(opponents),
                f"{wanted} agent{'s' * (wanted != 1)} with --opponent-mode fixed{extra} ({p} players)",
            )
        super().__init__(
            SingleAgentEnv(
                aec,
                [pool[0]] * (p - 1),  # placeholders: _draw_opponents seats them every episode
                learner_seat,
                team_play=partner == "learner",
            )
        )
        self.pool = pool
        self.opponent_mode = opponent_mode
        self.reward_kind = reward
        self.pips_coef = float(pips_coef)
        self.self_play = float(self_play)
        self.snapshots: list[Any] = []
        self.scale = observation_scale(p, cfg.max_pip, game)
        if policy_input not in POLICY_INPUTS:
            raise ConfigError("policy_input", policy_input, f"one of {POLICY_INPUTS}")
        self.policy_input = PolicyInput(self.scale, policy_input, cfg)
        self.critic_input = critic_input
        #: length of the hidden-tile part at the end of the network input (0: none)
        self.critic_extra = full_state_size(p, tile_count(cfg.max_pip)) if critic_input == "full-state" else 0
        self.observation_space = gymnasium.spaces.Box(
            -np.inf, np.inf, (self.policy_input.size + self.critic_extra,), np.float32
        )
        self._rng = np.random.default_rng()
        self.raw_observation = np.zeros(self.observation_space.shape, np.float32)
        self.baseline = None if baseline is None else make_agent(baseline, cfg)
        # the baseline's episodes run on a second env with the same rules (never the learner's)
        self._shadow = None if baseline is None else type(aec)(**aec.env_kwargs)
        self._baseline_return = 0.0

    def set_snapshots(self, snapshots: list[Any]) -> None:
        """Frozen learner snapshots (agents) that self-play seats draw from."""
        self.snapshots = list(snapshots)

    def _draw_opponents(self) -> None:
        rng = self._rng
        seats = []
        for k in range(self.num_players - 1):
            if k == self._partner_k:  # the learner plays its partner's seat: never called
                seats.append(self.pool[0])
            elif self.snapshots and self.self_play > 0 and rng.random() < self.self_play:
                seats.append(self.snapshots[rng.integers(len(self.snapshots))])
            elif self.opponent_mode == "fixed":
                skipped = self._partner_k is not None and k > self._partner_k
                seats.append(self.pool[k - skipped])
            else:
                seats.append(self.pool[rng.integers(len(self.pool))])
        self.env.unwrapped.opponents = seats

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._rng = np.random.default_rng([seed, 7])
        self._draw_opponents()
        obs, info = self.env.reset(seed=seed, options=options)
        self.raw_observation = obs
        if self.baseline is not None:
            self._baseline_return = self.baseline_return()
        return self._network_input(obs), info

    def baseline_return(self) -> float:
        """The return of the current episode's deal with :attr:`baseline` in the learner's seat
        (both seats of its team with ``partner="learner"``) and this episode's opponents in
        theirs: the AEC env's rewards to the learner's seat summed over the episode, plus the
        ``mixed`` pips term. The deal is the same (the learner's AEC env was reset with the seed
        replayed here); the agents draw from their own generator, seeded by that seed."""
        adapter = self.env.unwrapped
        seed, first = adapter.aec._seed, adapter._first_seat
        env = self._shadow
        env.reset(seed=seed)
        p = self.num_players
        team = env.config.team_of if self.partner == "learner" else None
        mine = {s for s in range(p) if team(s) == team(first)} if team else {first}
        learner = env.possible_agents[first]
        rng = np.random.default_rng([seed, 11])
        total = 0.0
        while env.agents and not (env.terminations[learner] or env.truncations[learner]):
            agent = env.agent_selection
            seat = env.possible_agents.index(agent)
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
            else:
                actor = self.baseline if seat in mine else adapter._opponent_for(seat)
                obs = env.observe(agent)
                extra = info_state_kwargs(actor, env.game_state, seat)
                env.step(int(actor(obs["observation"], obs["action_mask"], rng, **extra)))
            total += float(env.rewards.get(learner, 0.0))
        if self.reward_kind == "mixed" and env.round_results:
            total -= self.pips_coef * float(env.round_results[-1]["points"][first]) / 100.0
        return total

    def step(self, action: int):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if info.get("round_over"):
            seat = info["learner_seat"]
            # per-seat flags of the winners: of the round, or of the game when a game episode ends
            won = info["game_won"] if self.whole_game and info.get("game_over") else info["won"]
            if self.teams:  # team credit: 1 for a team win, 1/2 for a tie between the teams
                mine = bool(won[seat])
                theirs = bool(won[(seat + 1) % self.num_players])
                info["learner_won"] = (0.5 if theirs else 1.0) if mine else 0.0
            else:
                info["learner_won"] = 1.0 / int(won.sum()) if won[seat] else 0.0
            info["learner_pips"] = int(info["pips"][seat])
            if self.partner == "learner":  # both seats are the learner's: not the one that acted last
                info["learner_pips"] = (info["learner_pips"] + int(info["pips"][(seat + 2) % 4])) / 2
            if self.reward_kind == "mixed":
                reward = float(reward) - self.pips_coef * float(info["points"][seat]) / 100.0
        if self.baseline is not None and (terminated or truncated):
            info["baseline_return"] = self._baseline_return
            reward = float(reward) - self._baseline_return
        self.raw_observation = obs
        return self._network_input(obs), float(reward), terminated, truncated, info

    def _network_input(self, obs: np.ndarray) -> np.ndarray:
        # only the action features read the mask (the flat input skips building it)
        mask = self.action_masks() if self.policy_input.features is not None else None
        adapter = self.env.unwrapped
        info = None
        if self.policy_input.wants_info_state and mask is not None and mask.sum() > 1:
            # action-features-v3: the learner's public history, for the search columns
            info = InformationState.from_state(adapter.aec.game_state, adapter.learner_seat)
        x = self.policy_input(obs, mask, info)
        if not self.critic_extra:
            return x
        return np.concatenate([x, full_state_input(adapter.aec.game_state, adapter.learner_seat)])

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool), for MaskablePPO."""
        return self.env.unwrapped.action_masks()


def make_env_fn(env_cfg: dict[str, Any]):
    """A no-argument factory of a Monitor-wrapped :class:`LearnerEnv` (``env_cfg``: its keyword
    arguments ``env_kwargs``, ``opponents``, ``opponent_mode``, ``reward``, ``pips_coef``,
    ``self_play``, ``game``, ``policy_input``, ``partner``, ``baseline``, ``critic_input``), for SB3's ``DummyVecEnv`` / ``SubprocVecEnv``.

    In a worker process the env ignores SIGINT, SIGTERM and SIGHUP: the training process handles
    them (saves the model and stops the workers), and a Ctrl-C or a closed terminal that reaches
    the whole process group must not kill a worker in the middle of a rollout.
    """

    def init():
        from stable_baselines3.common.monitor import Monitor

        if multiprocessing.parent_process() is not None:
            for signum in WORKER_STOP_SIGNALS:
                signal.signal(signum, signal.SIG_IGN)
            # the command warned about these models before starting the workers: once is enough
            warnings.simplefilter("ignore", RulesMismatchWarning)
        env = LearnerEnv(
            env_cfg["env_kwargs"],
            env_cfg["opponents"],
            env_cfg["opponent_mode"],
            env_cfg["reward"],
            env_cfg["pips_coef"],
            env_cfg["self_play"],
            game=env_cfg.get("game", "mexican_train"),
            policy_input=env_cfg.get("policy_input", FLAT_INPUT),
            partner=env_cfg.get("partner", "opponents"),
            baseline=env_cfg.get("baseline"),
            critic_input=env_cfg.get("critic_input", "observation"),
        )
        return Monitor(env, info_keywords=("learner_won", "learner_pips"))

    return init


def action_masks_of(env: Any) -> np.ndarray:
    """Helper for tests: the mask of an env built by this module (through Monitor)."""
    return env.get_wrapper_attr("action_masks")()
