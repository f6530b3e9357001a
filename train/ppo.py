"""Train a MaskablePPO agent on Mexican Train against scripted opponents (docs/design.md §6).

Command line (also the ``domino-train`` console script)::

    python -m train.ppo                          # defaults: about 10-15 min on a 2-core CPU
    python -m train.ppo --timesteps 2000000 --opponents greedy planner --out runs/big
    python -m train.ppo --help                   # every option

One seat (drawn at random every episode) is the learner; the other seats are played by agents
from ``--opponents`` (``random``, ``greedy``, ``planner``, ``ppo:PATH``): with
``--opponent-mode mix`` (default) every opponent seat draws its agent from the list at every
episode; with ``--opponent-mode fixed`` the list gives the P-1 opponents in turn order after the
learner. ``--self-play P`` replaces each opponent seat, with probability P, by a frozen snapshot
of the learner (taken every ``--snapshot-freq`` steps, the last ``--max-snapshots`` kept).

``--game`` picks the game: ``mexican_train`` (default) or a line game ``block``, ``draw``,
``cuban`` (the preset of that name, ``dominoes/<game>-v0``; ``--players`` and ``--max-pip``
override it, the preset's set by default: double-6 for block / draw, double-9 for Cuban). A line
game's learner env is :func:`domino_env.wrappers.line_single_agent`'s adapter, its opponents come
from the line-game agent registry (``random``, ``greedy``, ``planner``, ``ppo:PATH``), evaluations
use ``domino_env.train.evaluate.evaluate(..., game=<game>)``, the observation spec is the line spec and the
scaling ``line-unit-v1`` (tiles / 10, rounds / 13, points / 100). With teams (Cuban: seats 0+2
against 1+3) the learner's **partner is an opponent seat**: it draws its agent from
``--opponents`` like the two opponents (with ``--opponent-mode fixed``, the second entry of the
list is the partner), and the learner's reward and win credit are its team's. The evaluation
ladder rows ``[ppo, X, X, X]`` thus put the model with an X partner against an X team. Line games
take ``--reward outcome`` (default there) or ``points``.

Reward (``--reward``): ``outcome`` (the env's zero-sum +1 / -1 shared), ``points`` (the env's
-points/100 at the round's end), or ``mixed`` (default): outcome + ``--pips-coef`` x (-points/100),
both given at the round's end (round episodes only).

Every run writes ``--out``: ``model.zip`` (final), ``best_model.zip`` (best mean win rate over the
evaluation ladder), ``metadata.json`` (env id and version, full rules, observation spec hash,
package version, the command, every argument, seed, timesteps, wall time, every evaluation),
``evaluations.json``, ``learning_curve.png``, ``final_evaluation.md`` and TensorBoard logs under
``tb/`` (``tensorboard --logdir OUT/tb``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

import domino_env
from domino_env.agents.base import make_agent
from domino_env.agents.ppo import (
    METADATA_FILE,
    MODEL_FILE,
    PPOAgent,
    check_compatible,
    observation_scale,
    read_metadata,
    scaling_name,
    spec_for,
)
from domino_env.core.config import PRESETS, from_preset, line_from_preset
from domino_env.core.errors import ConfigError, DominoError
from domino_env.envs import line_v0
from domino_env.envs.mexican_train_v0 import ENV_ID, raw_env
from domino_env.train.evaluate import _RULE_OPTIONS, add_mexican_train_rule_options
from domino_env.wrappers import SingleAgentEnv

REWARDS = ("mixed", "outcome", "points")
LADDER = ("random", "greedy", "planner")
#: Games of ``--game``: Mexican Train and the line games (their presets).
GAMES = ("mexican_train", "block", "draw", "cuban")
BEST_MODEL_FILE = "best_model.zip"


# ---------------------------------------------------------------------------------- environment
class LearnerEnv(gymnasium.Wrapper):
    """The training env: the single-agent adapter with opponents drawn per episode, the learner's
    reward (``outcome`` / ``points`` from the env, or ``mixed``) and scaled observations.

    Args:
        env_kwargs: rules and env options for ``mexican_train_v0.raw_env`` (``reward`` is set here).
        opponents: agent specs (``make_agent``) or agent objects; the pool.
        opponent_mode: ``"mix"`` (each opponent seat draws from the pool every episode) or
            ``"fixed"`` (the pool is the P-1 opponents in turn order after the learner).
        reward: ``"mixed"``, ``"outcome"`` or ``"points"`` (see the module docstring).
        pips_coef: weight of -points/100 in the ``mixed`` reward.
        self_play: probability that an opponent seat is a learner snapshot (when there is one).
        learner_seat: ``"random"`` (training: a new seat every episode) or a fixed seat (tests).
        game: ``"mexican_train"`` (``env_kwargs`` for ``mexican_train_v0.raw_env``) or a line
            game ``"block"`` / ``"draw"`` / ``"cuban"`` (``line_v0.raw_env(preset=game)``; with
            teams the partner is an opponent seat and the reward is the team's).

    Info at the round's end: the adapter's round result plus ``learner_won`` (win credit 1, 1/k
    for a shared win, 0) and ``learner_pips``.

    Raises:
        ConfigError: bad rules, opponent names, mode or reward.
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
    ):
        if game not in GAMES:
            raise ConfigError("game", game, f"one of {GAMES}")
        if reward not in REWARDS:
            raise ConfigError("reward", reward, f"one of {REWARDS}")
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
        self.teams = bool(getattr(cfg, "teams", False))
        self.num_players = p = cfg.num_players
        pool = [make_agent(o, cfg) for o in opponents]
        if not pool:
            raise ConfigError("opponents", list(opponents), "at least one agent")
        if opponent_mode == "fixed" and len(pool) != p - 1:
            raise ConfigError(
                "opponents",
                list(opponents),
                f"{p - 1} agents with --opponent-mode fixed ({p} players)",
            )
        super().__init__(
            SingleAgentEnv(
                aec,
                pool[: p - 1] if opponent_mode == "fixed" else [pool[0]] * (p - 1),
                learner_seat,
            )
        )
        self.pool = pool
        self.opponent_mode = opponent_mode
        self.reward_kind = reward
        self.pips_coef = float(pips_coef)
        self.self_play = float(self_play)
        self.snapshots: list[Any] = []
        self.scale = observation_scale(p, cfg.max_pip, game)
        self.observation_space = gymnasium.spaces.Box(
            -np.inf, np.inf, self.env.observation_space.shape, np.float32
        )
        self._rng = np.random.default_rng()

    def set_snapshots(self, snapshots: list[Any]) -> None:
        """Frozen learner snapshots (agents) that self-play seats draw from."""
        self.snapshots = list(snapshots)

    def _draw_opponents(self) -> None:
        rng = self._rng
        seats = []
        for k in range(self.num_players - 1):
            if self.snapshots and self.self_play > 0 and rng.random() < self.self_play:
                seats.append(self.snapshots[rng.integers(len(self.snapshots))])
            elif self.opponent_mode == "fixed":
                seats.append(self.pool[k])
            else:
                seats.append(self.pool[rng.integers(len(self.pool))])
        self.env.unwrapped.opponents = seats

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._rng = np.random.default_rng([seed, 7])
        self._draw_opponents()
        obs, info = self.env.reset(seed=seed, options=options)
        return obs * self.scale, info

    def step(self, action: int):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if info.get("round_over"):
            seat = info["learner_seat"]
            won = info["won"]  # per-seat flags of the round's winners
            if self.teams:  # team credit: 1 for a team win, 1/2 for a tie between the teams
                mine = bool(won[seat])
                theirs = bool(won[(seat + 1) % self.num_players])
                info["learner_won"] = (0.5 if theirs else 1.0) if mine else 0.0
            else:
                info["learner_won"] = 1.0 / int(won.sum()) if won[seat] else 0.0
            info["learner_pips"] = int(info["pips"][seat])
            if self.reward_kind == "mixed":
                reward = float(reward) - self.pips_coef * float(info["points"][seat]) / 100.0
        return obs * self.scale, float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool), for MaskablePPO."""
        return self.env.unwrapped.action_masks()


def _make_env(args_env: dict[str, Any], rank: int):
    from stable_baselines3.common.monitor import Monitor

    def init():
        env = LearnerEnv(
            args_env["env_kwargs"],
            args_env["opponents"],
            args_env["opponent_mode"],
            args_env["reward"],
            args_env["pips_coef"],
            args_env["self_play"],
            game=args_env.get("game", "mexican_train"),
        )
        return Monitor(env, info_keywords=("learner_won", "learner_pips"))

    return init


def action_masks_of(env: Any) -> np.ndarray:
    """Helper for tests: the mask of an env built by this module (through Monitor)."""
    return env.get_wrapper_attr("action_masks")()


# ---------------------------------------------------------------------------------- evaluation
def evaluate_vs_ladder(
    agent: Any,
    rules: dict[str, Any],
    opponents: Sequence[str],
    rounds: int,
    seed: int,
    workers: int = 1,
    episode: str = "round",
    game: str = "mexican_train",
) -> dict[str, dict[str, Any]]:
    """Duplicate-deal tournaments ``[agent, X, X, ..., X]`` for each X in ``opponents``
    (``domino_env.train.evaluate.evaluate``; the agent applies its mask at every decision).

    Returns:
        ``{X: {"win_rate", "ci95_wilson", "ci95_deal", "parity", "verdict", "mean_pips",
        "opponent_win_rate", "opponent_mean_pips", "rounds", "table"}}`` (``table``: Markdown).
    """
    from domino_env.train.evaluate import evaluate

    p = rules["num_players"]
    kwargs = {k: v for k, v in rules.items() if k != "num_players"}
    label = getattr(agent, "name", "ppo")
    out = {}
    for opp in opponents:
        with (
            warnings.catch_warnings()
        ):  # with teams X sits on both sides by design ([ppo, X, X, X])
            warnings.filterwarnings("ignore", message=r"agent\(s\) .* sit on both teams")
            res = evaluate(
                [agent] + [opp] * (p - 1),
                rounds=rounds,
                num_players=p,
                seed=seed,
                episode=episode,
                workers=workers,
                game=game,
                **kwargs,
            )
        me = res.stats_for(label)
        them = res.stats_for(opp)
        out[opp] = {
            "win_rate": me.win_rate,
            "ci95_wilson": list(me.ci95_wilson),
            "ci95_deal": list(me.ci95_deal),
            "parity": me.parity,
            "verdict": me.verdict,
            "mean_pips": me.mean_pips_per_round,
            "opponent_win_rate": them.win_rate,
            "opponent_mean_pips": them.mean_pips_per_round,
            "rounds": res.episodes,
            "seconds": res.seconds,
            "table": res.markdown(),
        }
    return out


def _make_callbacks(cfg: dict[str, Any], out: Path, vec_env: Any, history: list[dict[str, Any]]):
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainingCallback(BaseCallback):
        """Rolling training win rate / pips to TensorBoard, self-play snapshots, periodic
        evaluation against the ladder (best model saved)."""

        def __init__(self):
            super().__init__()
            self.next_eval = cfg["eval_freq"] if cfg["eval_freq"] > 0 else None
            self.next_snapshot = cfg["snapshot_freq"] if cfg["self_play"] > 0 else None
            self.snapshots: list[PPOAgent] = []
            self.best = -np.inf
            self.won: list[float] = []
            self.pips: list[int] = []

        def _agent(self, deterministic=True, name="ppo") -> PPOAgent:
            return PPOAgent.from_policy(
                self.model.policy,
                cfg["num_players"],
                cfg["max_pip"],
                cfg["game"],
                deterministic=deterministic,
                name=name,
            )

        def _on_training_start(self) -> None:
            if self.next_eval is not None:
                self.next_eval = self.num_timesteps + cfg["eval_freq"]
            if self.next_snapshot is not None:
                self.next_snapshot = self.num_timesteps + cfg["snapshot_freq"]

        def _on_step(self) -> bool:
            if cfg["deadline"] is not None and time.perf_counter() > cfg["deadline"]:
                cfg["stopped"] = (
                    f"time limit of {cfg['time_limit']} min reached at {self.num_timesteps} steps"
                )
                return False
            for info in self.locals.get("infos", []):
                if "learner_won" in info and "episode" in info:
                    self.won.append(info["learner_won"])
                    self.pips.append(info["learner_pips"])
            if len(self.won) >= 200:
                self.logger.record("rollout/win_rate", float(np.mean(self.won)))
                self.logger.record("rollout/learner_pips", float(np.mean(self.pips)))
                self.won, self.pips = [], []
            if self.next_snapshot is not None and self.num_timesteps >= self.next_snapshot:
                self.next_snapshot += cfg["snapshot_freq"]
                self.snapshots = (self.snapshots + [self._agent(deterministic=False, name="self")])[
                    -cfg["max_snapshots"] :
                ]
                vec_env.env_method("set_snapshots", self.snapshots)
            if self.next_eval is not None and self.num_timesteps >= self.next_eval:
                self.next_eval += cfg["eval_freq"]
                self.run_evaluation()
            return True

        def run_evaluation(self) -> None:
            t = time.perf_counter()
            results = evaluate_vs_ladder(
                self._agent(),
                cfg["rules"],
                cfg["eval_opponents"],
                cfg["eval_rounds"],
                cfg["eval_seed"],
                1,
                cfg["episode"],
                cfg["game"],
            )
            entry = {
                "timesteps": int(self.num_timesteps),
                "wall_s": time.perf_counter() - cfg["start"],
                "results": results,
            }
            history.append(entry)
            score = float(np.mean([r["win_rate"] for r in results.values()]))
            for opp, r in results.items():
                self.logger.record(f"eval/win_rate_vs_{opp}", r["win_rate"])
                self.logger.record(f"eval/mean_pips_vs_{opp}", r["mean_pips"])
                self.logger.record(f"eval/opponent_pips_{opp}", r["opponent_mean_pips"])
            self.logger.record("eval/mean_win_rate", score)
            self.logger.dump(self.num_timesteps)
            if score > self.best:
                self.best = score
                entry["best"] = True
                self.model.save(out / BEST_MODEL_FILE)
            (out / "evaluations.json").write_text(json.dumps(_strip_tables(history), indent=1))
            if cfg["verbose"]:
                summary = ", ".join(
                    f"{o} {r['win_rate']:.3f} ({r['mean_pips']:.1f} vs {r['opponent_mean_pips']:.1f} pips)"
                    for o, r in results.items()
                )
                print(
                    f"[eval @ {self.num_timesteps} steps, {time.perf_counter() - t:.0f}s] win rate vs {summary}",
                    file=sys.stderr,
                    flush=True,
                )

    return TrainingCallback()


def _strip_tables(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            **e,
            "results": {
                o: {k: v for k, v in r.items() if k != "table"} for o, r in e["results"].items()
            },
        }
        for e in history
    ]


# ---------------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m train.ppo",
        description="Train a MaskablePPO agent on Mexican Train against scripted opponents, evaluate it "
        "against the ladder on duplicate deals, and save it with metadata, TensorBoard logs and a learning curve.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    g = parser.add_argument_group("game")
    g.add_argument(
        "--game",
        default="mexican_train",
        choices=GAMES,
        help="mexican_train, or a line game (block, draw, cuban: the preset of that name; "
        "--players / --max-pip override it, the Mexican Train rule options do not apply)",
    )
    g.add_argument(
        "--preset",
        default="domino_cubano",
        choices=tuple(PRESETS),
        help="rule preset; rule options below override it",
    )
    g.add_argument(
        "--players",
        type=int,
        default=None,
        help="seats, 2..8 (default: 4 for Mexican Train, the preset's for a line game: block 4, "
        "draw 2, cuban 4)",
    )
    g.add_argument(
        "--max-pip",
        type=int,
        default=None,
        choices=(6, 9, 12, 15, 18),
        help="double-N set (default 12 for Mexican Train: 9, 12, 15, 18; line games: 6, 9, 12, "
        "default the preset's)",
    )
    g.add_argument(
        "--episode",
        default="round",
        choices=("round", "game"),
        help="an episode is one round or a whole game",
    )
    add_mexican_train_rule_options(parser)

    o = parser.add_argument_group("opponents and reward")
    o.add_argument(
        "--opponents",
        nargs="+",
        default=["greedy", "planner"],
        metavar="AGENT",
        help="training opponents: random, greedy, planner, ppo:PATH (a trained model folder)",
    )
    o.add_argument(
        "--opponent-mode",
        default="mix",
        choices=("mix", "fixed"),
        help="mix: every opponent seat draws its agent from --opponents at every episode; "
        "fixed: --opponents lists the P-1 opponents in turn order after the learner",
    )
    o.add_argument(
        "--self-play",
        type=float,
        default=0.0,
        metavar="PROB",
        help="probability that an opponent seat is a frozen snapshot of the learner (0 = off)",
    )
    o.add_argument(
        "--snapshot-freq",
        type=int,
        default=50_000,
        help="steps between learner snapshots (self-play)",
    )
    o.add_argument(
        "--max-snapshots", type=int, default=5, help="snapshots kept for self-play (newest)"
    )
    o.add_argument(
        "--reward",
        default=None,
        choices=REWARDS,
        help="outcome: zero-sum +1/-1 shared; points: -points/100; mixed: outcome + pips-coef x (-points/100) "
        "(default mixed; line games: outcome, and mixed is not available)",
    )
    o.add_argument(
        "--pips-coef", type=float, default=1.0, help="weight of -points/100 in the mixed reward"
    )

    t = parser.add_argument_group("training")
    t.add_argument("--timesteps", type=int, default=200_000, help="learner decisions to train on")
    t.add_argument(
        "--n-envs",
        type=int,
        default=None,
        help="parallel envs (default: CPU cores, at most 8); "
        "SubprocVecEnv when more than one core, else DummyVecEnv",
    )
    t.add_argument(
        "--vec-env",
        default="auto",
        choices=("auto", "subproc", "dummy"),
        help="vectorised env class",
    )
    t.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the envs, the opponents, torch and the evaluations",
    )
    t.add_argument(
        "--net-arch",
        type=int,
        nargs="+",
        default=[256, 256],
        help="hidden layer sizes (policy and value nets)",
    )
    t.add_argument(
        "--activation", default="tanh", choices=("tanh", "relu"), help="hidden activation"
    )
    t.add_argument("--learning-rate", type=float, default=3e-4, help="Adam learning rate")
    t.add_argument(
        "--lr-schedule",
        default="constant",
        choices=("constant", "linear"),
        help="learning rate schedule",
    )
    t.add_argument("--n-steps", type=int, default=1024, help="steps per env per rollout")
    t.add_argument("--batch-size", type=int, default=256, help="minibatch size")
    t.add_argument("--n-epochs", type=int, default=5, help="passes over each rollout")
    t.add_argument("--gamma", type=float, default=0.995, help="discount factor")
    t.add_argument("--gae-lambda", type=float, default=0.95, help="GAE lambda")
    t.add_argument("--clip-range", type=float, default=0.2, help="PPO clip range")
    t.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus")
    t.add_argument("--vf-coef", type=float, default=0.5, help="value loss weight")
    t.add_argument("--max-grad-norm", type=float, default=0.5, help="gradient clipping")
    t.add_argument(
        "--target-kl",
        type=float,
        default=None,
        help="stop an update early past this KL (default off)",
    )
    t.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="torch threads in the learner process (1 is fastest for these small nets: more threads "
        "spin against the env workers; measured 22 ms vs 198 ms per minibatch on a busy 2-core machine)",
    )
    t.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="MINUTES",
        help="stop training after this many minutes of wall time (then save and evaluate as usual)",
    )
    t.add_argument(
        "--resume",
        default=None,
        metavar="PATH",
        help="continue training a saved model (a run folder or .zip); its hyperparameters are kept, "
        "--timesteps more steps are trained",
    )

    e = parser.add_argument_group("evaluation and output")
    e.add_argument("--out", default=None, help="output folder (default: runs/ppo_<date>_<time>)")
    e.add_argument(
        "--eval-freq",
        type=int,
        default=40_000,
        help="steps between evaluations (0: only the final one)",
    )
    e.add_argument(
        "--eval-rounds",
        type=int,
        default=200,
        help="duplicate-deal rounds per ladder opponent per periodic evaluation",
    )
    e.add_argument(
        "--eval-opponents",
        nargs="+",
        default=list(LADDER),
        metavar="AGENT",
        help="evaluation ladder",
    )
    e.add_argument(
        "--final-eval-rounds",
        type=int,
        default=800,
        help="rounds per ladder opponent in the final evaluation (0: skip)",
    )
    e.add_argument(
        "--eval-workers",
        type=int,
        default=None,
        help="processes for the final evaluation (default: CPU cores, at most 4)",
    )
    e.add_argument(
        "--eval-seed",
        type=int,
        default=None,
        help="tournament seed of the evaluations (default: --seed + 1000)",
    )
    e.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=True, help="progress bar"
    )
    e.add_argument(
        "--tensorboard",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="TensorBoard logs in OUT/tb",
    )
    e.add_argument(
        "--plot",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="learning-curve PNG at the end",
    )
    e.add_argument("--quiet", action="store_true", help="no evaluation lines, no summary table")
    return parser  # fmt: skip


def rules_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """Full rules dict (``MexicanTrainConfig.to_dict()``, with ``preset``) from the parsed options.

    Raises:
        ConfigError: invalid rule values.
    """
    game = getattr(args, "game", "mexican_train")
    if game != "mexican_train":
        kwargs: dict[str, Any] = {}
        if args.players is not None:
            kwargs["num_players"] = args.players
        if args.max_pip is not None:
            kwargs["max_pip"] = args.max_pip
        return line_from_preset(game, **kwargs).to_dict()
    kwargs = {"num_players": args.players or 4, "max_pip": args.max_pip or 12}
    if kwargs["max_pip"] not in (9, 12, 15, 18):
        raise ConfigError("max_pip", kwargs["max_pip"], "9, 12, 15 or 18 for Mexican Train")
    for name in (
        "hand_size",
        *_RULE_OPTIONS,
        "use_boneyard",
        "use_mexican_train",
        "double_blank_points",
        "elimination_limit",
    ):
        value = getattr(args, name)
        if value is not None:
            kwargs[name] = value
    return from_preset(args.preset, **kwargs).to_dict()


def _versions() -> dict[str, str]:
    import gymnasium as gym
    import pettingzoo
    import sb3_contrib
    import stable_baselines3
    import torch

    return {
        "domino_env": domino_env.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "gymnasium": gym.__version__,
        "pettingzoo": pettingzoo.__version__,
        "torch": torch.__version__,
        "stable_baselines3": stable_baselines3.__version__,
        "sb3_contrib": sb3_contrib.__version__,
    }


def summary_markdown(results: dict[str, dict[str, Any]], label: str = "ppo") -> str:
    """One Markdown row per ladder opponent: the learner's win rate, CIs and pips against 3 of it."""
    rows = [
        f"| opponents | rounds | {label} win rate | 95% CI (Wilson) | 95% CI (per deal) | parity | verdict | {label} mean pips | opponents' mean pips | opponents' win rate |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for opp, r in results.items():
        rows.append(
            f"| {opp} | {r['rounds']} | {r['win_rate']:.3f} | [{r['ci95_wilson'][0]:.3f}, {r['ci95_wilson'][1]:.3f}] | "
            f"[{r['ci95_deal'][0]:.3f}, {r['ci95_deal'][1]:.3f}] | {r['parity']:.3f} | {r['verdict']} | "
            f"{r['mean_pips']:.2f} | {r['opponent_mean_pips']:.2f} | {r['opponent_win_rate']:.3f} |"
        )
    return "\n".join(rows)


def _print_summary(results: dict[str, dict[str, Any]], p: int, title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=title)
    for col in (
        "opponents",
        "rounds",
        "win rate",
        "95% CI Wilson",
        "95% CI per deal",
        "parity",
        "verdict",
        "pips (learner)",
        f"pips ({p - 1} opponents)",
    ):
        t.add_column(col, justify="left" if col == "opponents" else "right")
    for opp, r in results.items():
        verdict = {"above": "[green]above[/]", "below": "[red]below[/]"}.get(r["verdict"], "parity")
        t.add_row(
            f"{p - 1} x {opp}", str(r["rounds"]), f"{r['win_rate']:.3f}", f"[{r['ci95_wilson'][0]:.3f}, {r['ci95_wilson'][1]:.3f}]",
            f"[{r['ci95_deal'][0]:.3f}, {r['ci95_deal'][1]:.3f}]", f"{r['parity']:.3f}", verdict, f"{r['mean_pips']:.2f}",
            f"{r['opponent_mean_pips']:.2f}",
        )  # fmt: skip
    Console(width=None if sys.stdout.isatty() else 150).print(t)


def train(argv: Sequence[str] | None = None) -> Path:
    """Parse ``argv``, train, evaluate, save; return the output folder.

    Raises:
        SystemExit: invalid options (argparse's message).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    argv_list = list(sys.argv[1:] if argv is None else argv)
    game = args.game
    if args.reward is None:
        args.reward = "mixed" if game == "mexican_train" else "outcome"
    if game != "mexican_train":
        given = [n for n in ("hand_size", *_RULE_OPTIONS, "use_boneyard", "use_mexican_train",
                             "double_blank_points", "elimination_limit") if getattr(args, n, None) is not None]  # fmt: skip
        if given or args.preset != "domino_cubano":
            parser.error(f"--preset and the Mexican Train rule options are not rules of --game {game} "
                         f"(given: {given or ['--preset']})")  # fmt: skip
    try:
        rules = rules_from_args(args)
    except DominoError as exc:
        parser.error(str(exc))
    for name in ("timesteps", "n_steps", "batch_size", "n_epochs", "eval_rounds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    if not 0.0 <= args.self_play <= 1.0:
        parser.error("--self-play is a probability in [0, 1]")

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    cores = os.cpu_count() or 1
    n_envs = args.n_envs or max(1, min(cores, 8))
    if args.torch_threads and args.torch_threads > 0:
        torch.set_num_threads(args.torch_threads)
    out = Path(args.out or time.strftime("runs/ppo_%Y%m%d_%H%M%S"))
    out.mkdir(parents=True, exist_ok=True)
    eval_seed = args.eval_seed if args.eval_seed is not None else args.seed + 1000
    env_kwargs = {**rules, "episode": args.episode}
    p, n = rules["num_players"], rules["max_pip"]
    env_cfg = {
        "env_kwargs": env_kwargs,
        "opponents": list(args.opponents),
        "opponent_mode": args.opponent_mode,
        "reward": args.reward,
        "pips_coef": args.pips_coef,
        "self_play": args.self_play,
        "game": game,
    }
    try:  # fail fast (in this process) on bad opponents / rules / reward
        probe = LearnerEnv(**env_cfg)
    except (DominoError, FileNotFoundError) as exc:
        parser.error(str(exc))
    aec_kwargs = probe.env.unwrapped.aec.env_kwargs
    probe.close()

    set_random_seed(args.seed)
    use_subproc = args.vec_env == "subproc" or (args.vec_env == "auto" and cores > 1 and n_envs > 1)
    fns = [_make_env(env_cfg, i) for i in range(n_envs)]
    vec_env = SubprocVecEnv(fns) if use_subproc else DummyVecEnv(fns)
    vec_env.seed(args.seed)

    tb = str(out / "tb") if args.tensorboard else None
    resumed_from = None
    if args.resume:
        zip_path, meta = read_metadata(args.resume)
        check_compatible(meta, _config(rules, game), where=f"model {zip_path}")
        model = MaskablePPO.load(
            zip_path, env=vec_env, device="cpu", tensorboard_log=tb, seed=args.seed
        )
        resumed_from = {
            "path": str(zip_path),
            "timesteps": int(model.num_timesteps),
            "command": meta.get("command"),
        }
    else:
        act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[args.activation]
        lr: Any = args.learning_rate
        if args.lr_schedule == "linear":
            lr0 = args.learning_rate
            lr = lambda progress: lr0 * progress  # noqa: E731
        model = MaskablePPO(
            "MlpPolicy",
            vec_env,
            learning_rate=lr,
            n_steps=args.n_steps,
            batch_size=args.batch_size,
            n_epochs=args.n_epochs,
            gamma=args.gamma,
            gae_lambda=args.gae_lambda,
            clip_range=args.clip_range,
            ent_coef=args.ent_coef,
            vf_coef=args.vf_coef,
            max_grad_norm=args.max_grad_norm,
            target_kl=args.target_kl,
            policy_kwargs={
                "net_arch": {"pi": list(args.net_arch), "vf": list(args.net_arch)},
                "activation_fn": act,
            },
            tensorboard_log=tb,
            seed=args.seed,
            device="cpu",
            verbose=0,
        )

    history: list[dict[str, Any]] = []
    start = time.perf_counter()
    cfg = {
        "eval_freq": args.eval_freq,
        "eval_rounds": args.eval_rounds,
        "eval_opponents": list(args.eval_opponents),
        "eval_seed": eval_seed,
        "rules": rules,
        "episode": args.episode,
        "game": game,
        "num_players": p,
        "max_pip": n,
        "self_play": args.self_play,
        "snapshot_freq": max(1, args.snapshot_freq),
        "max_snapshots": max(1, args.max_snapshots),
        "start": start,
        "verbose": not args.quiet,
        "time_limit": args.time_limit,
        "deadline": start + 60 * args.time_limit if args.time_limit else None,
        "stopped": None,
    }
    callback = _make_callbacks(cfg, out, vec_env, history)
    command = "python -m train.ppo " + shlex.join(argv_list) if argv_list else "python -m train.ppo"
    env_id = ENV_ID if game == "mexican_train" else line_v0.ENV_IDS[game]
    spec = spec_for(p, n, game)
    meta: dict[str, Any] = {
        "env_id": env_id,
        "env_version": env_id.rsplit("-v", 1)[1],
        "game": game,
        "env_kwargs": aec_kwargs,
        "rules": rules,
        "observation_spec_hash": spec.hash(),
        "observation_size": spec.size,
        "observation_scaling": scaling_name(game),
        "num_actions": int(vec_env.action_space.n),
        "package_version": domino_env.__version__,
        "versions": _versions(),
        "algorithm": "sb3_contrib.MaskablePPO",
        "command": command,
        "argv": argv_list,
        "args": vars(args),
        "seed": args.seed,
        "n_envs": n_envs,
        "vec_env": type(vec_env).__name__,
        "cpu_count": cores,
        "resumed_from": resumed_from,
        "status": "training",
    }
    (out / METADATA_FILE).write_text(json.dumps(meta, indent=1, default=str))
    # A copy next to best_model.zip's folder is the same file: both models share metadata.json.

    if not args.quiet:
        print(f"training {args.timesteps} steps, {n_envs} x {type(vec_env).__name__}, opponents {args.opponents} "
              f"({args.opponent_mode}), reward {args.reward} -> {out}", file=sys.stderr, flush=True)  # fmt: skip
    model.learn(
        total_timesteps=args.timesteps,
        callback=callback,
        progress_bar=args.progress,
        reset_num_timesteps=resumed_from is None,
        tb_log_name="ppo",
    )
    train_seconds = time.perf_counter() - start
    model.save(out / MODEL_FILE)
    vec_env.close()
    if not (out / BEST_MODEL_FILE).exists():
        model.save(out / BEST_MODEL_FILE)

    final = None
    if args.final_eval_rounds > 0:
        workers = args.eval_workers or max(1, min(cores, 4))
        agent = PPOAgent.from_policy(model.policy, p, n, game, name="ppo")
        final = evaluate_vs_ladder(
            agent,
            rules,
            args.eval_opponents,
            args.final_eval_rounds,
            eval_seed,
            workers,
            args.episode,
            game,
        )
        (out / "final_evaluation.md").write_text(
            f"Final evaluation of {out / MODEL_FILE} ({args.final_eval_rounds} duplicate-deal rounds per row, seed {eval_seed}):\n\n"
            + summary_markdown(final) + "\n\n" + "\n\n".join(f"vs {o}:\n\n{r['table']}" for o, r in final.items()) + "\n"
        )  # fmt: skip
    meta.update(
        status="done",
        timesteps=int(model.num_timesteps),
        timesteps_this_run=int(model.num_timesteps) - (resumed_from or {}).get("timesteps", 0),
        stopped_early=cfg["stopped"],
        train_wall_seconds=round(train_seconds, 1),
        wall_seconds=round(time.perf_counter() - start, 1),
        steps_per_second=round((int(model.num_timesteps) - (resumed_from or {}).get("timesteps", 0)) / train_seconds, 1),
        evaluations=_strip_tables(history),
        best_model={"timesteps": next((e["timesteps"] for e in reversed(history) if e.get("best")), int(model.num_timesteps)),
                    "file": BEST_MODEL_FILE},
        final_evaluation=_strip_tables([{"results": final}])[0]["results"] if final else None,
        final_evaluation_rounds=args.final_eval_rounds,
        eval_seed=eval_seed,
    )  # fmt: skip
    (out / METADATA_FILE).write_text(json.dumps(meta, indent=1, default=str))
    if args.plot and history:
        from domino_env.train.plots import plot_learning_curve

        plot_learning_curve(
            history,
            out / "learning_curve.png",
            title=f"MaskablePPO, {p} players, double-{n}, {args.preset if game == 'mexican_train' else game}",
        )
    if final and not args.quiet:
        _print_summary(final, p, f"{out / MODEL_FILE}: {args.final_eval_rounds} duplicate-deal rounds vs {p - 1} copies of each "
                       f"ladder agent | {int(model.num_timesteps)} steps in {train_seconds / 60:.1f} min")  # fmt: skip
    if not args.quiet:
        print(f"saved {out / MODEL_FILE}, {out / BEST_MODEL_FILE}, {out / METADATA_FILE}"
              + (f", {out / 'learning_curve.png'}" if args.plot and history else "") + f"; tensorboard --logdir {out / 'tb'}")  # fmt: skip
    return out


def _config(rules: dict[str, Any], game: str = "mexican_train"):
    kwargs = dict(rules)
    if game != "mexican_train":
        kwargs.pop("preset", None)
        return line_from_preset(game, **kwargs)
    return from_preset(kwargs.pop("preset", "domino_cubano"), **kwargs)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``python -m train.ppo`` / ``domino-train``."""
    train(argv)


if __name__ == "__main__":  # through train.cli: a missing extra or a bad file is one line
    from domino_env.train.cli import launch

    launch("domino-train", main)
