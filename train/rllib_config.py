"""The RLlib configuration of ``domino_env.train.rllib``: modules, seat mapping, callbacks, league refresh;
joining a Ray cluster (:func:`join_cluster`).

:func:`ppo_config` builds the whole ``PPOConfig`` of a run (use it in your own scripts too):
the env (:class:`domino_env.agents.rllib.env.DominoMultiAgentEnv`), the learner ``main``
(:class:`domino_env.agents.rllib.modules.MaskedPPOTorchRLModule`), one
:class:`~domino_env.agents.rllib.modules.ScriptedRLModule` per scripted opponent, the frozen league
snapshots, the policy mapping (:class:`SeatMapping`) and the metrics callbacks. Ray is imported
inside the functions that need it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from domino_env.agents.base import make_agent
from domino_env.agents.ppo import observation_scale
from domino_env.core.errors import DominoError
from domino_env.train.arg_types import mlp_parameters

MODES = ("self-play", "opponents", "league")
MAIN = "main"

# ---------------------------------------------------------------------------------- policy mapping
class SeatMapping:
    """``agent_to_module_mapping_fn`` of the three modes (picklable: it travels to every env
    runner). Per episode, the learner's seat and the other seats' modules are drawn from this
    object's own generator (seeded by ``seed``), so a seeded run repeats its seatings.

    Args:
        mode: ``"self-play"``, ``"opponents"`` or ``"league"``.
        num_players: seats.
        pool: module ids the non-learner seats draw from (unused in self-play).
        seed: seeds the generator.
    """

    def __init__(self, mode: str, num_players: int, pool: Sequence[str] = (), seed: int = 0):
        self.mode = mode
        self.num_players = num_players
        self.pool = list(pool)
        self.rng = np.random.default_rng([seed, 11])
        self._seating: dict[Any, list[str]] = {}

    def seating(self) -> list[str]:
        """One fresh seating: the module id of every seat."""
        if self.mode == "self-play":
            return [MAIN] * self.num_players
        seats = [self.pool[i] for i in self.rng.integers(len(self.pool), size=self.num_players)]
        seats[int(self.rng.integers(self.num_players))] = MAIN
        return seats

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        key = getattr(episode, "id_", None)
        if key not in self._seating:
            if len(self._seating) > 256:  # episodes in flight are few; forget old ones
                self._seating.clear()
            self._seating[key] = self.seating()
        return self._seating[key][int(agent_id.rsplit("_", 1)[1])]


# ---------------------------------------------------------------------------------- callbacks
def make_callbacks_class(
    num_players: int, teams: bool, league: dict[str, Any] | None = None, episode_kind: str = "round"
):
    """The RLlib callbacks class: per-episode metrics ``illegal_actions`` (sum), ``main_win_rate``
    (the ``main`` seats' win credit, as ``domino-evaluate`` counts it: 1, 1/k for a k-way shared
    win, a team's win for both partners; of the round, or of the game when ``episode_kind`` is
    ``"game"``; mean over main seats and the episodes that ended in the iteration: the env
    runners' metrics restart every iteration) and ``main_seat_return`` (a main seat's episode
    return, same means); in league mode, the snapshot refresh of
    ``league = {"slots": [...], "every": N}`` after every N-th iteration. In self-play every seat
    is ``main``: the win rate is 1/P (1/2 with teams) and the outcome reward's return 0 by
    construction.

    Both metrics count every seat of the episode that ``main`` plays, from the final infos of
    :class:`~agents.rllib.env.DominoMultiAgentEnv` (``won`` / ``game_won``, ``episode_returns``:
    the whole episode's, also when RLlib cut it between iterations) and the episode's seat
    mapping, not from RLlib's per-agent episodes: RLlib keeps none for a seat that never acted
    (2-player Block can block straight after the lead), and its reward and win would be lost."""
    from ray.rllib.callbacks.callbacks import RLlibCallback

    from domino_env.train.tournament import _credit

    won_key = "game_won" if episode_kind == "game" else "won"
    agents = [f"player_{s}" for s in range(num_players)]

    class DominoCallbacks(RLlibCallback):
        def on_episode_end(self, *, episode, metrics_logger=None, **kwargs):
            infos = episode.get_infos(-1)
            final = next((i for i in infos.values() if i), {})
            illegal = int(any(i.get("illegal_action") for i in infos.values()))
            metrics_logger.log_value("illegal_actions", illegal, reduce="sum")
            # every seat is mapped (module_for) by now: the env reports each seat at least at the end
            seats = [s for s, a in enumerate(agents) if episode.module_for(a) == MAIN]
            if not seats:
                return
            returns = final.get("episode_returns")
            if returns is not None:
                value = float(np.mean([returns[s] for s in seats]))
                metrics_logger.log_value("main_seat_return", value, reduce="mean", window=200)
            won = final.get(won_key)
            if won is None:
                return
            credit = _credit(np.flatnonzero(won).tolist(), num_players, teams)
            metrics_logger.log_value(
                "main_win_rate", float(np.mean([credit[s] for s in seats])), reduce="mean", window=200
            )

        def on_train_result(self, *, algorithm, result, **kwargs):
            if not league or algorithm.iteration % league["every"]:
                return
            slot = league["slots"][(algorithm.iteration // league["every"] - 1) % len(league["slots"])]
            copy_module(algorithm, MAIN, slot)
            result["league_refreshed"] = slot

    return DominoCallbacks


def copy_module(algorithm: Any, source: str, target: str) -> None:
    """Copy module ``source``'s weights into ``target`` on the learner and every env runner."""
    weights = algorithm.learner_group.get_weights(module_ids=[source])[source]
    algorithm.learner_group.set_weights({target: weights})
    algorithm.env_runner_group.sync_weights(
        from_worker_or_learner_group=algorithm.learner_group,
        policies=[target],
        inference_only=True,
        timeout_seconds=60.0,
    )


# ---------------------------------------------------------------------------------- config
def env_config_of(game: str, rules: dict[str, Any], episode: str, reward: str) -> dict[str, Any]:
    """``env_config`` of :class:`~agents.rllib.env.DominoMultiAgentEnv` for ``game`` and rules."""
    rules = dict(rules)
    if game != "mexican_train":
        rules.pop("preset", None)
    return {"game": game, **rules, "episode": episode, "reward": reward}


def model_config_of(env_config: dict[str, Any], hidden: Sequence[int]) -> dict[str, Any]:
    """The learner's model config: PPO's MLP settings written out (the numpy loader reads them)
    plus the observation scaling of the game (:func:`domino_env.agents.ppo.observation_scale`)."""
    game = "mexican_train" if env_config["game"] == "mexican_train" else "line"
    scale = observation_scale(env_config["num_players"], env_config["max_pip"], game)
    return {
        "fcnet_hiddens": [int(h) for h in hidden],
        "fcnet_activation": "tanh",
        "head_fcnet_hiddens": [],
        "head_fcnet_activation": "relu",
        "vf_share_layers": False,
        "observation_scale": [float(x) for x in scale],
    }


def network_parameters(observation_size: int, hidden: Sequence[int], num_actions: int) -> int:
    """Parameters of one :class:`~domino_env.agents.rllib.modules.MaskedPPOTorchRLModule` of
    :func:`model_config_of`: separate policy and value MLPs of ``hidden`` layers (weights and
    biases), the policy head to ``num_actions`` logits, the value head to one value."""
    sizes = [int(observation_size), *map(int, hidden)]
    return mlp_parameters([*sizes, int(num_actions)]) + mlp_parameters([*sizes, 1])


def _count(value: Any) -> int:
    """A count RLlib reports: missing or NaN (a summed metric in an iteration without a finished
    episode, once it was ever logged) is 0."""
    return 0 if value is None or not np.isfinite(value) else int(value)


def _mean(value: Any) -> float | None:
    """A mean over the iteration's finished episodes: None (JSON null) when none finished. Rounded
    to 12 decimals: RLlib's sums leave float noise (a zero-sum mean read 1.7e-17)."""
    return None if value is None or not np.isfinite(value) else round(float(value), 12)


def progress_row(result: dict[str, Any]) -> dict[str, Any]:
    """One ``domino-rllib`` ``progress.jsonl`` row from RLlib's result of an iteration (the metrics
    of :func:`make_callbacks_class` among them): strict JSON, no NaN. ``env_steps`` and
    ``episodes`` are RLlib's lifetime counts (running totals of the run, restored by ``--resume``);
    ``illegal_actions`` and the means are the iteration's."""
    er = result.get("env_runners", {})
    return {
        "iteration": _count(result.get("training_iteration")),
        "env_steps": _count(result.get("num_env_steps_sampled_lifetime", er.get("num_env_steps_sampled_lifetime"))),
        "episodes": _count(er.get("num_episodes_lifetime")),
        "episode_len_mean": _mean(er.get("episode_len_mean")),
        "main_return_mean": _mean(er.get("main_seat_return")),
        "main_win_rate": _mean(er.get("main_win_rate")),
        "illegal_actions": _count(er.get("illegal_actions")),
        "time_s": float(result.get("time_total_s", 0.0)),
    }


#: Why more than one learner is refused (``ppo_config`` and ``domino-rllib --num-learners``).
MANY_LEARNERS = ("with more, RLlib splits each batch's episodes between the learners, and these "
                 "turn-based episodes then fail its batch preparation (a seat's part of an episode "
                 "without an action)")  # fmt: skip


def min_batch_size(num_players: int, mode: str, num_env_runners: int = 0, num_envs_per_env_runner: int = 1) -> int:
    """The smallest ``train_batch_size`` whose every sampling env (``max(num_env_runners, 1) x
    num_envs_per_env_runner`` of them share the batch) holds a finished step of ``main``: an action
    and the observation after it, which in these turn-based envs comes only once the other seats have
    had their turns. A batch without one fails in RLlib's learner (``UnboundLocalError:
    loss_per_module``). In self-play every seat is ``main``: ``num_players`` env steps always hold one
    (some seat acts twice in them, or acts again right after). In the other modes ``main`` holds
    one seat: it acts within a round of turns and sees its next observation within another,
    ``2 x num_players - 1`` env steps when each turn is one action; other seats' draws (and a
    double's cover) lengthen a turn, so there a batch near this size can still miss ``main``
    (:data:`NO_MAIN_STEP`)."""
    per_env = num_players if mode == "self-play" else 2 * num_players - 1
    return per_env * max(num_env_runners, 1) * num_envs_per_env_runner


#: What an iteration whose batch held no step of ``main`` says (RLlib's own error is an
#: ``UnboundLocalError`` about ``loss_per_module``).
NO_MAIN_STEP = ("the iteration's batch held no finished step of the learner main (its seat's turns were "
                "longer than the batch: draws, or an episode that ended before its seat acted); give a "
                "larger --batch-size")  # fmt: skip


def no_main_step(exc: BaseException) -> bool:
    """Whether ``exc`` is RLlib's learner failing on a batch without a step of the trained module."""
    return isinstance(exc, UnboundLocalError) and "loss_per_module" in str(exc)


def ppo_config(
    env_config: dict[str, Any],
    *,
    mode: str = "self-play",
    opponents: Sequence[str] = (),
    league_size: int = 4,
    snapshot_every: int = 5,
    hidden: Sequence[int] = (256, 256),
    num_env_runners: int = 0,
    num_envs_per_env_runner: int = 1,
    num_learners: int = 0,
    train_batch_size: int = 4000,
    minibatch_size: int = 256,
    num_epochs: int = 5,
    lr: float = 3e-4,
    gamma: float = 0.995,
    lambda_: float = 0.95,
    entropy_coeff: float = 0.01,
    seed: int = 0,
) -> Any:
    """The ``PPOConfig`` of a run: env, modules (``main`` + opponents / snapshots), policy
    mapping (:class:`SeatMapping`), callbacks. ``opponents`` are agent specs
    (:func:`domino_env.agents.make_agent`), one :class:`~domino_env.agents.rllib.modules.ScriptedRLModule` each.

    Raises:
        DominoError: ``mode`` is ``"opponents"`` with no opponents, ``"self-play"`` with some,
            ``"league"`` with ``league_size`` or ``snapshot_every`` below 1, or an unknown mode;
            an opponent that :func:`~domino_env.agents.make_agent` refuses (as the command line
            checks them: not at the first ``train()``); ``num_learners`` is not 0 or 1
            (:data:`MANY_LEARNERS` says why).
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from domino_env.agents.rllib.env import DominoMultiAgentEnv, aec_from_env_config
    from domino_env.agents.rllib.modules import MaskedPPOTorchRLModule, ScriptedRLModule

    if isinstance(opponents, str):  # one agent (its letters were read as agents: "invalid agent 'g'")
        opponents = [opponents]
    if mode not in MODES:
        raise DominoError(f"mode {mode!r}: one of {MODES}")
    if mode == "opponents" and not opponents:
        raise DominoError("mode 'opponents' needs at least one opponent agent")
    if mode == "self-play" and opponents:
        raise DominoError("mode 'self-play' takes no opponents (every seat is main): use mode 'opponents' or 'league'")
    if mode == "league" and not (league_size >= 1 and snapshot_every >= 1):
        raise DominoError(f"mode 'league' needs league_size and snapshot_every >= 1, got {league_size} and {snapshot_every}")
    if num_learners not in (0, 1):
        raise DominoError(f"num_learners must be 0 or 1, got {num_learners}: {MANY_LEARNERS}")
    aec = aec_from_env_config(env_config)
    for spec in dict.fromkeys(opponents):  # an unknown name or a bad model: now, not inside build_algo
        make_agent(spec, aec.config)
    p = aec.config.num_players
    teams = bool(getattr(aec.config, "teams", False))
    model_config = model_config_of({**env_config, "num_players": p, "max_pip": aec.config.max_pip}, hidden)
    specs = {MAIN: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model_config)}
    scripted = {}
    for i, spec in enumerate(dict.fromkeys(opponents)):
        module_id = "opponent_" + "".join(c if c.isalnum() else "_" for c in spec)
        scripted[module_id] = spec
        specs[module_id] = RLModuleSpec(
            module_class=ScriptedRLModule,
            model_config={"agent": spec, "env_config": env_config, "seed": seed * 1000 + i},
        )
    league = None
    if mode == "league":
        slots = [f"snapshot_{k}" for k in range(league_size)]
        for slot in slots:
            specs[slot] = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model_config)
        league = {"slots": slots, "every": snapshot_every}
        pool = slots + list(scripted)
    else:
        pool = list(scripted)
    config = (
        PPOConfig()
        .environment(DominoMultiAgentEnv, env_config=env_config)
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=num_envs_per_env_runner,
        )
        .learners(num_learners=num_learners)
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
            gamma=gamma,
            lambda_=lambda_,
            entropy_coeff=entropy_coeff,
        )
        .multi_agent(
            policies=set(specs),
            policy_mapping_fn=SeatMapping(mode, p, pool, seed),
            policies_to_train=[MAIN],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(make_callbacks_class(p, teams, league, env_config.get("episode", "round")))
        .debugging(seed=seed)
        .reporting(metrics_num_episodes_for_smoothing=100)
    )
    config._domino = {"model_config": model_config, "league": league, "opponents": scripted}
    return config


def use_token_if_present() -> None:
    """Ray 2.60 turns token authentication on by default for clusters started with ``ray start``:
    a driver then needs ``RAY_AUTH_MODE=token`` and the head's token (``ray get-auth-token``; in
    ``~/.ray/auth_token``, ``RAY_AUTH_TOKEN`` or ``RAY_AUTH_TOKEN_PATH``). When the mode is unset
    and a token is there, switch token mode on (before ray is imported: it reads this once)."""
    has_token = (Path.home() / ".ray" / "auth_token").is_file() or any(
        k in os.environ for k in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
    )
    if "RAY_AUTH_MODE" not in os.environ and has_token:
        os.environ["RAY_AUTH_MODE"] = "token"


def join_cluster(address: str) -> None:
    """``ray.init(address=...)`` with a one-line error when the head cannot be reached.

    Raises:
        DominoError: the cluster cannot be joined (the message says what to check; the command
            prints it as one line, exit status 2).
    """
    import ray

    try:
        ray.init(address=address, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as err:
        first = (str(err).strip().splitlines() or [""])[0]
        raise DominoError(
            f"--address {address}: cannot join the Ray cluster ({first}). Is `ray start --head` running "
            "there, and its port reachable? With token authentication (ray's default) set "
            "RAY_AUTH_MODE=token and the head's token (ray get-auth-token)."
        ) from None
