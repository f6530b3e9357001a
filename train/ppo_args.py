"""The command line of ``domino-train``: the options (:func:`build_parser`), the rules they
give (:func:`rules_from_args`) and the checks that run before any work starts
(:func:`check_args`): every flag is validated (ranges by argparse types, agents, models and paths
by :func:`check_args`), and a bad one is a one-line message naming it, exit status 2, with
nothing written. The option groups shared with ``domino-bc`` are ``add_*_options``.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from domino_env.agents.base import make_agent
from domino_env.agents.ppo import MODEL_FILE, check_compatible, read_metadata
from domino_env.core.config import PRESETS, from_preset, line_from_preset
from domino_env.core.errors import ConfigError, DominoError
from domino_env.train.arg_types import (
    MAX_PARAMETERS,
    MAX_ROUNDS,
    MAX_SEED,
    NON_NEGATIVE,
    PER_CPU,
    POSITIVE,
    ROUNDS,
    SEED,
    duration,
    int_at_least,
    mlp_parameters,
    real,
)
from domino_env.train.cli import ArgumentParser, DefaultsHelpFormatter, output_folder_problem  # noqa: F401  (re-exported)
from domino_env.train.evaluate import (  # noqa: F401  (MEXICAN_TRAIN_RULE_ARGS re-exported)
    MEXICAN_TRAIN_RULE_ARGS,
    add_mexican_train_rule_options,
    agent_choices,
    preset_hand_line,
    seats_error_line,
)
from domino_env.train.folder_lock import hold_run_folder
from domino_env.train.ladder import LADDER
from domino_env.train.learner_env import CRITIC_INPUTS, GAMES, PARTNERS, REWARDS, LearnerEnv
from domino_env.train.run_folder import RUN_FILES, check_overwrite_keeps, config_of
from domino_env.train.start_model import policy_input_of, resolve_policy, trained_options

#: ``--device`` choices of ``domino-train`` (SB3's ``device``).
DEVICES = ("cpu", "cuda", "auto")


# ---------------------------------------------------------------------------------- option groups
def add_game_options(parser: argparse.ArgumentParser) -> None:
    """``--game``, ``--preset``, ``--players``, ``--max-pip``, ``--episode`` and the Mexican Train
    rule options."""
    g = parser.add_argument_group("game")
    g.add_argument("--game", default="mexican_train", choices=GAMES,
                   help="mexican_train, or a line game (block, draw, cuban: the preset of that name; "
                   "--players / --max-pip / --hand-size override it, the other Mexican Train rule options do not apply)")
    g.add_argument("--preset", default="domino_cubano", choices=tuple(PRESETS),
                   help="rule preset; rule options below override it")
    g.add_argument("--players", type=int_at_least(2), default=None,
                   help="seats, 2..8 (default: 4 for Mexican Train, the preset's for a line game: block 4, "
                   "draw 2, cuban 4)")
    g.add_argument("--max-pip", type=int, default=None, choices=(6, 9, 12, 15, 18),
                   help="double-N set (default 12 for Mexican Train: 9, 12, 15, 18; line games: 6, 9, 12, "
                   "default the preset's)")
    g.add_argument("--episode", default="round", choices=("round", "game"),
                   help="an episode is one round or a whole game")
    add_mexican_train_rule_options(parser)  # fmt: skip


def add_opponent_options(parser: argparse.ArgumentParser, self_play: bool = True) -> None:
    """``--opponents``, ``--opponent-mode``, ``--reward``, ``--pips-coef`` (and the self-play
    options and ``--partner``)."""
    o = parser.add_argument_group("opponents and reward")
    o.add_argument("--opponents", nargs="+", default=["greedy", "planner"], metavar="AGENT",
                   help=f"training opponents: {agent_choices()}")
    o.add_argument("--opponent-mode", default="mix", choices=("mix", "fixed"),
                   help="mix: every opponent seat draws its agent from --opponents at every episode; "
                   "fixed: --opponents lists the P-1 opponents in turn order after the learner")
    if self_play:
        o.add_argument("--self-play", type=real(0.0, 1.0), default=0.0, metavar="PROB",
                       help="probability that an opponent seat is a frozen snapshot of the learner (0 = off)")
        o.add_argument("--snapshot-freq", type=POSITIVE, default=50_000,
                       help="steps between learner snapshots (self-play)")
        o.add_argument("--max-snapshots", type=POSITIVE, default=5,
                       help="snapshots kept for self-play (newest)")
        o.add_argument("--partner", default="opponents", choices=PARTNERS,
                       help="teams (Cuban): opponents: the partner seat draws its agent from --opponents; "
                       "learner: the learner plays both seats of its team (one policy), and the "
                       "evaluations put the model in both (rows [ppo, X, ppo, X])")
        o.add_argument("--reward-baseline", default=None, metavar="AGENT",
                       help="duplicate-deal baseline: every episode is also played by AGENT in the learner's "
                       "seat on the same deal against the same opponents, and its return is subtracted from "
                       f"the learner's (luck of the deal out of the reward; one more episode of play each): "
                       f"{agent_choices()}, or none (the default: no baseline)")
    o.add_argument("--reward", default=None, choices=REWARDS,
                   help="outcome: zero-sum +1/-1 shared; points: -points/100; mixed: outcome + pips-coef x "
                   "(-points/100) (default mixed; --episode game and line games: outcome, and mixed is not available)")
    o.add_argument("--pips-coef", type=real(0.0), default=None,
                   help="weight of -points/100 in the mixed reward (default 1; refused with another reward)")  # fmt: skip


def add_policy_options(parser: argparse.ArgumentParser, group: Any = None, policy: bool = True,
                       start: str = "--resume / --init-from", device: bool = False) -> None:  # fmt: skip
    """``--policy`` (unless ``policy`` is False), ``--net-arch`` and ``--activation`` (the policy
    and value networks), ``--torch-threads`` and (``device``) ``--device``; ``start`` names the
    command's flags that start from a saved model."""
    t = group or parser.add_argument_group("policy network")
    if policy:
        # no default in the namespace: resolve_policy fills it (the start model's, or action-scores)
        t.add_argument("--policy", default=argparse.SUPPRESS, choices=("mlp", "action-scores"),
                       help="action-scores (default; with --resume / --init-from: the model's): one network "
                       "shared by all actions scores each legal action from its features (tile, target train, "
                       "what it does to the planner's plan; docs/training.md); mlp: one MLP from the "
                       "observation to every action's logit")
    # None in the namespace: resolve_policy fills them (the start model's, or 256 256 / tanh)
    t.add_argument("--net-arch", type=POSITIVE, nargs="+", default=None,
                   help="hidden layer sizes (mlp: the policy and value nets; action-scores: the value net; "
                   f"default 256 256, with {start} the model's; at most {MAX_PARAMETERS // 10**6} M parameters)")
    t.add_argument("--activation", default=None, choices=("tanh", "relu"),
                   help=f"hidden activation of an mlp policy (default tanh, with {start} the model's; the "
                   "action-scores networks are ReLU and do not use it)")
    if policy:
        # None in the namespace: resolve_policy fills it (the start model's, or the game's default)
        t.add_argument("--action-features", default=None, choices=("v1", "v2", "v3"),
                       help="the per-action feature rows an action-scores policy reads: v1 (default; with "
                       + start + " the model's): the rows of the releases; v2 adds what the open end a placement "
                       "leaves offers the others (unseen tiles of its pip, seats known to lack it); v3 adds "
                       "a small search's verdict on the planner's two best moves (search:25, about 8 ms a "
                       "decision, in training and play). Mexican Train only for v2 and v3 (docs/training.md)")
        # None in the namespace: resolve_policy fills it (the start model's, or observation)
        t.add_argument("--critic-input", default=None, choices=CRITIC_INPUTS,
                       help="what the value network reads: observation (default; with "
                       f"{start} the model's): the seat's own information, as the actor; full-state: also "
                       "the other hands and the boneyard (an asymmetric actor-critic: the actor, all that "
                       "plays, still reads the observation only; --policy action-scores)")
    t.add_argument("--torch-threads", type=PER_CPU, default=1,
                   help="torch threads in the learner process (1 is fastest for these small nets: more "
                   "threads spin against the env workers; measured 22 ms vs 198 ms per minibatch on a busy "
                   "2-core machine)")  # fmt: skip
    if device:
        t.add_argument("--device", default="cpu", choices=DEVICES,
                       help="torch device of the learner: cpu (fastest for these small nets on a CPU-only "
                       "machine), cuda (a GPU: the env workers still run on the CPUs) or auto (cuda where torch "
                       "sees one). The saved model loads on the CPU and plays in numpy either way")


def add_evaluation_options(parser: argparse.ArgumentParser, group: Any = None) -> None:
    """``--eval-opponents``, ``--final-eval-rounds``, ``--eval-workers``, ``--eval-seed``."""
    e = group or parser.add_argument_group("evaluation")
    e.add_argument("--eval-opponents", nargs="+", default=list(LADDER), metavar="AGENT",
                   help="evaluation ladder")
    e.add_argument("--final-eval-rounds", type=int_at_least(0, MAX_ROUNDS), default=800,
                   help="rounds per ladder opponent in the final evaluation (0: skip)")
    e.add_argument("--eval-workers", type=PER_CPU, default=None,
                   help="processes for the final evaluation (default: CPU cores, at most 4)")
    e.add_argument("--eval-seed", type=SEED, default=None,
                   help="tournament seed of the evaluations, 0 to 2**32 - 1 (default: --seed + 1000)")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="domino-train",
        description="Train a MaskablePPO agent on Mexican Train or a line game (block, draw, cuban: "
        "--game) against scripted opponents, evaluate it against the ladder on duplicate deals, and save "
        "it with metadata, TensorBoard logs and a learning curve.",
        formatter_class=DefaultsHelpFormatter,
    )
    add_game_options(parser)
    add_opponent_options(parser)
    t = parser.add_argument_group("training")
    t.add_argument("--timesteps", type=POSITIVE, default=100_000, help="learner decisions to train on (rounded up to whole rollouts, --n-steps x envs)")
    t.add_argument("--n-envs", type=int_at_least(1, 256), default=None,
                   help="parallel envs (default: with --resume the run's, else the CPU cores this process "
                   "may use, at most 8); "
                   "SubprocVecEnv when more than one core, else DummyVecEnv")
    t.add_argument("--vec-env", default="auto", choices=("auto", "subproc", "dummy"),
                   help="vectorised env class")
    t.add_argument("--seed", type=SEED, default=0,
                   help="seed of the envs, the opponents, torch and the evaluations")
    add_policy_options(parser, t, device=True)
    t.add_argument("--learning-rate", type=real(0.0, low_open=True), default=3e-4, help="Adam learning rate")
    t.add_argument("--lr-schedule", default="constant", choices=("constant", "linear"),
                   help="learning rate schedule")
    t.add_argument("--n-steps", type=int_at_least(2), default=1024, help="steps per env per rollout")
    t.add_argument("--batch-size", type=int_at_least(2), default=256, help="minibatch size")
    t.add_argument("--n-epochs", type=POSITIVE, default=5, help="passes over each rollout")
    t.add_argument("--gamma", type=real(0.0, 1.0, low_open=True), default=0.995, help="discount factor")
    t.add_argument("--gae-lambda", type=real(0.0, 1.0), default=0.95, help="GAE lambda")
    t.add_argument("--clip-range", type=real(0.0, low_open=True), default=0.2, help="PPO clip range")
    t.add_argument("--ent-coef", type=real(0.0), default=0.01, help="entropy bonus")
    t.add_argument("--vf-coef", type=real(0.0), default=0.5, help="value loss weight")
    t.add_argument("--max-grad-norm", type=real(0.0, low_open=True), default=0.5, help="gradient clipping")
    t.add_argument("--target-kl", type=real(0.0, low_open=True), default=None,
                   help="stop an update early past this KL (default off)")
    t.add_argument("--time-limit", type=duration("min"), default=None, metavar="TIME",
                   help="stop training after this wall time (then save and evaluate as usual): minutes, or "
                   "with a unit: 90s, 15m, 1.5h")
    start = t.add_mutually_exclusive_group()
    start.add_argument("--resume", default=None, metavar="PATH",
                       help="continue training a saved model (a run folder or .zip, e.g. an interrupted run); "
                       "its hyperparameters and step count are kept, --timesteps more steps are trained, "
                       "into --out (--out RUN continues in the run's own folder; default: a new one)")
    start.add_argument("--init-from", default=None, metavar="PATH",
                       help="start from a saved model's network weights (e.g. domino-bc's) with this "
                       "command's hyperparameters and a fresh step count; --policy, --net-arch, "
                       "--activation, --action-features and --critic-input default to the model's (others "
                       "are refused)")

    e = parser.add_argument_group("evaluation and output")
    e.add_argument("--out", default=None,
                   help="output folder (default: runs/ppo_<date>_<time>); an existing non-empty one is "
                   "refused unless --resume continues it or --overwrite is given")
    e.add_argument("--overwrite", action="store_true",
                   help="reuse a non-empty --out: delete its run files (models, metadata, evaluations, "
                   "curve, tb/) when the run starts")
    e.add_argument("--eval-freq", type=NON_NEGATIVE, default=40_000,
                   help="steps between evaluations, each at the first rollout boundary (--n-steps x "
                        "--n-envs) past a multiple of it (0: only the final one)")
    e.add_argument("--eval-rounds", type=ROUNDS, default=200,
                   help="duplicate-deal rounds per ladder opponent per periodic evaluation")
    add_evaluation_options(parser, e)
    e.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True, help="progress bar")
    e.add_argument("--tensorboard", action=argparse.BooleanOptionalAction, default=True,
                   help="TensorBoard logs in OUT/tb")
    e.add_argument("--plot", action=argparse.BooleanOptionalAction, default=True,
                   help="learning-curve PNG at the end")
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
        if getattr(args, "hand_size", None) is not None:  # a line-game rule too (the preset's: 7, Cuban 10)
            kwargs["hand_size"] = args.hand_size
        return line_from_preset(game, **kwargs).to_dict()
    # "is None", not "or": --players 0 read as "not given" trained 4 seats (domino-rllib's --players
    # is a plain int; the message of the rules check names the flag and the allowed seats)
    kwargs = {"num_players": 4 if args.players is None else args.players,
              "max_pip": 12 if args.max_pip is None else args.max_pip}  # fmt: skip
    if kwargs["max_pip"] not in (9, 12, 15, 18):
        raise ConfigError("max_pip", kwargs["max_pip"], "9, 12, 15 or 18 for Mexican Train")
    for name in MEXICAN_TRAIN_RULE_ARGS:
        value = getattr(args, name)
        if value is not None:
            kwargs[name] = value
    return from_preset(args.preset, **kwargs).to_dict()


# ---------------------------------------------------------------------------------- checks
_FLAG_OF_FIELD = {"num_players": "--players", "opponent_mode": "--opponent-mode", "teams": "--players"}  # teams: a preset's, set by --players


def flag_of(field: str) -> str:
    """The command-line flag of a rules / env field (``max_pip`` -> ``--max-pip``)."""
    return _FLAG_OF_FIELD.get(field, "--" + field.replace("_", "-"))


@dataclass
class CheckedRun:
    """What :func:`check_args` established: the rules, the training env's settings and the
    metadata of the model to start from (``--resume`` / ``--init-from``)."""

    rules: dict[str, Any]
    env_cfg: dict[str, Any]
    env_kwargs: dict[str, Any]  # the AEC env's full kwargs (for metadata.json)
    start_model: Path | None = None
    start_metadata: dict[str, Any] | None = None


def check_rules(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    """The rules of the options, or a parser error naming the flag."""
    game = args.game
    if game != "mexican_train":
        given = [flag_of(n) for n in MEXICAN_TRAIN_RULE_ARGS if n != "hand_size" and getattr(args, n, None) is not None]
        if given or args.preset != "domino_cubano":
            parser.error(f"--preset and the Mexican Train rule options are not rules of --game {game} "
                         f"(given: {', '.join(given or ['--preset'])})")  # fmt: skip
    try:
        return rules_from_args(args)
    except ConfigError as exc:
        seats = seats_error_line(exc, game, args.players) if args.players is not None else None
        parser.error(seats or preset_hand_line(exc, game, args.max_pip, args.hand_size)
                     or f"{flag_of(exc.field)}: {exc}")  # fmt: skip
    except DominoError as exc:
        parser.error(str(exc))


def check_agents(parser: argparse.ArgumentParser, flag: str, specs: list[str], config: Any,
                 also: str = "") -> None:  # fmt: skip
    """Every agent spec builds for these rules (``ppo:PATH`` models load and fit), else a parser
    error naming ``flag`` (``also``: more allowed values, added to the message)."""
    for spec in specs:
        try:
            make_agent(spec, config)
        except (DominoError, OSError) as exc:
            parser.error(f"{flag} {spec}: {exc}{also}")


def check_start_model(parser: argparse.ArgumentParser, flag: str, path: str, config: Any,
                      args: argparse.Namespace | None = None) -> tuple[Path, dict[str, Any]]:  # fmt: skip
    """The model ``--resume`` / ``--init-from`` names exists, has readable metadata and fits these
    rules (and, for ``--init-from``, the network options ``args``); else a parser error."""
    try:
        zip_path, meta = read_metadata(path)
        check_compatible(meta, config, where=f"model {zip_path}")
    except (OSError, ValueError) as exc:  # missing files, corrupt JSON, another observation spec
        if Path(path).is_dir() and (Path(path) / "domino_rllib.json").is_file():  # the loader's hint, rllib:PATH, is no start model
            also = f"; continue it with domino-rllib --resume {path}" if flag == "--resume" else ""
            parser.error(f"{flag} {path}: a domino-rllib run; {flag} takes only models of domino-train and domino-bc (rllib:PATH "
                         f"plays it as an opponent of domino-evaluate, domino-play or --opponents){also}")  # fmt: skip
        parser.error(f"{flag} {path}: {exc}")
    if args is not None:
        trained = trained_options(zip_path, meta)
        # an action-scores model's networks are ReLU whatever --activation says: only an mlp's counts
        names = ("policy", "net_arch", "action_features") if trained.get("policy", "mlp") == "action-scores" else ("policy", "net_arch", "activation")
        for name in names + ("critic_input",) * hasattr(args, "critic_input"):
            # models from before --policy are mlp, from before --critic-input read the observation
            default = {"policy": "mlp", "critic_input": "observation"}.get(name)
            had, want = trained.get(name, default), getattr(args, name, default)
            if had is not None and had != want:
                parser.error(f"{flag} {path}: the model has {flag_of(name)} {had}, this command "
                             f"{want}; give the model's")  # fmt: skip
    return zip_path, meta


def check_out(parser: argparse.ArgumentParser, out: str | None, overwrite: bool = False,
              resume_folder: Path | None = None, can_resume: bool = True, own: str | None = None) -> None:  # fmt: skip
    """``--out`` is a new or empty folder, the folder ``--resume`` continues (``resume_folder``),
    or ``--overwrite`` is given (its run files are deleted when the run starts): an existing
    non-empty folder would mix two runs (an old ``best_model.zip``, ``evaluations.json``, curve);
    in the folder it continues, a run file that is not a regular file (a FIFO) is refused.
    A folder that holds nothing but the file ``own`` counts as empty (``domino-bc``: its
    ``--dataset``, such as the samples of an interrupted collection the same command continues).
    An existing one is held from here on (:func:`~domino_env.train.folder_lock.hold_run_folder`;
    RunFolderBusyError when another command holds it)."""
    if out is None:
        return
    path = Path(out)
    problem = output_folder_problem(out)
    if problem:
        parser.error(f"--out {out}: {problem}")
    hold_run_folder(path)  # an existing folder: no other command may write it (a new one: once made)
    into_resumed = resume_folder is not None and path.resolve() == Path(resume_folder).resolve()
    if into_resumed and overwrite:
        parser.error(f"--overwrite would delete the model that --resume continues ({out}); give one of them")
    for name in RUN_FILES if into_resumed else ():  # rewritten in place (not a regular file): a FIFO hung the run
        if (path / name).exists() and not (path / name).is_file():
            parser.error(f"--out {out}: {path / name} is not a regular file (a FIFO, a device or a folder), and "
                         "the run rewrites it; remove it, or give another --out")  # fmt: skip
    mine = {Path(own).resolve()} if own else set()
    if path.is_dir() and any(p.resolve() not in mine for p in path.iterdir()) and not (into_resumed or overwrite):
        model = next((path / m for m in (MODEL_FILE, "best_model.zip") if (path / m).is_file()), None)
        resume = ""  # (a run stopped hard before its first save has no model to resume)
        if can_resume and model is not None:
            given = out if model.name == MODEL_FILE else model  # (stopped before model.zip: its best)
            resume = f", --resume {given} (with this --out) to continue that run in it"
        parser.error(f"--out {out}: folder exists and is not empty; give a new folder{resume}, or "
                     "--overwrite to replace its run files")  # fmt: skip


def check_network_size(parser: argparse.ArgumentParser, args: argparse.Namespace, inputs: int, actions: int) -> None:
    """Refuse a ``--net-arch`` whose networks would pass :data:`MAX_PARAMETERS` (``inputs``: the
    training env's observation size, the critic's hidden-tile values included)."""
    arch = [int(h) for h in args.net_arch]
    if args.policy == "action-scores":  # only the critic has these layers: observation + one feature row + extra
        from domino_env.agents.action_features import feature_columns

        n_feat = len(feature_columns(args.game, policy_input_of(args.policy, getattr(args, "action_features", "v1"))))
        count = mlp_parameters([inputs - actions * n_feat + n_feat, *arch, 1])
        what = "the value network"
    else:  # separate policy and value MLPs
        count = mlp_parameters([inputs, *arch, actions]) + mlp_parameters([inputs, *arch, 1])
        what = "the policy and value networks"
    if count > MAX_PARAMETERS:
        parser.error(f"--net-arch {' '.join(map(str, arch))}: {what} would have {count:.3g} parameters; at most "
                     f"{MAX_PARAMETERS:,} ({MAX_PARAMETERS * 4 // 10**6} MB of float32 weights, held several times "
                     "over in training)")  # fmt: skip


def utf8(text: str) -> bool:
    """``text`` (a path as Python reads it from the file system) encodes as UTF-8: a name of
    non-UTF-8 bytes holds surrogates (``\\udcff``), which do not."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace, can_resume: bool = True) -> CheckedRun:
    """Every check of ``domino_env.train.ppo``'s options that argparse's types cannot do, before any work
    (nothing is written): rules, reward, agents of ``--opponents`` / ``--eval-opponents``, the
    ``--resume`` / ``--init-from`` model, ``--out`` (see :func:`check_out`; ``can_resume``: the
    command has ``--resume``). Fills the defaults that depend on the game.

    Raises:
        SystemExit: status 2, with a one-line message naming the flag.
    """
    if getattr(args, "reward_baseline", None) == "none":  # the explicit off switch
        args.reward_baseline = None
    if args.eval_seed is None and args.seed + 1000 > MAX_SEED:  # a tournament's seed (evaluate() refuses more)
        parser.error(f"--seed {args.seed}: the evaluations' seed, --seed + 1000, would be above 2**32 - 1; give "
                     f"--eval-seed (0 to 2**32 - 1) too, or a --seed up to {MAX_SEED - 1000:,}")  # fmt: skip
    if args.reward is None:  # mixed needs round episodes (its pips term is a round's)
        args.reward = "mixed" if args.game == "mexican_train" and args.episode == "round" else "outcome"
    if args.pips_coef is not None and args.reward != "mixed":
        parser.error(f"--pips-coef {args.pips_coef:g}: weighs the pips term of --reward mixed; the reward here "
                     f"is {args.reward}")  # fmt: skip
    args.pips_coef = 1.0 if args.pips_coef is None else args.pips_coef
    from domino_env.train.cli import no_cuda

    if getattr(args, "device", "cpu") == "cuda" and (why := no_cuda()):
        parser.error(f"--device cuda: {why}; give --device cpu (or auto: cuda where there is one)")
    rules = check_rules(parser, args)
    config = config_of(rules, args.game)
    if args.out is not None and (problem := output_folder_problem(args.out)):
        parser.error(f"--out {args.out}: {problem}")
    if getattr(args, "tensorboard", False) and not utf8(os.path.abspath("runs" if args.out is None else args.out)):
        where = f"--out {args.out}: its path" if args.out is not None else "--out (default: under runs/ here): this folder's path"
        parser.error(f"{where} is not UTF-8 text, which TensorBoard's log writer needs (it failed once the run had "
                     "started); give another folder, or --no-tensorboard")  # fmt: skip
    given_features = getattr(args, "action_features", None)
    resolve_policy(args)
    if given_features in ("v2", "v3") and args.game != "mexican_train":
        parser.error(f"--action-features {given_features}: the rows {given_features} adds are Mexican Train's; "
                     f"--game {args.game} has v1 only")  # fmt: skip
    if given_features is not None and args.policy != "action-scores":
        parser.error(f"--action-features {given_features}: only an action-scores policy reads feature rows "
                     f"(the policy here: {args.policy})")  # fmt: skip
    env_cfg = {
        "env_kwargs": {**rules, "episode": args.episode},
        "opponents": list(args.opponents),
        "opponent_mode": args.opponent_mode,
        "reward": args.reward,
        "pips_coef": args.pips_coef,
        "self_play": getattr(args, "self_play", 0.0),
        "partner": getattr(args, "partner", "opponents"),
        "baseline": getattr(args, "reward_baseline", None),
        "game": args.game,
        "policy_input": policy_input_of(args.policy, getattr(args, "action_features", "v1")),
        "critic_input": getattr(args, "critic_input", "observation"),
    }
    check_agents(parser, "--opponents", args.opponents, config)
    if getattr(args, "reward_baseline", None) is not None:
        check_agents(parser, "--reward-baseline", [args.reward_baseline], config, "; or none (no baseline)")
    check_agents(parser, "--eval-opponents", args.eval_opponents, config)
    checked = CheckedRun(rules, env_cfg, {})
    for flag in ("resume", "init_from"):
        path = getattr(args, flag, None)
        if path is not None:
            checked.start_model, checked.start_metadata = check_start_model(
                parser, flag_of(flag), path, config, args if flag == "init_from" else None
            )
            had = checked.start_metadata.get("args", {}).get("policy", "mlp")
            if flag == "resume" and had != args.policy:
                parser.error(f"--resume {path}: the model has --policy {had}, this command {args.policy}; "
                             "--resume continues the model's policy (leave --policy out)")  # fmt: skip
            kept = ("net_arch", "action_features") if had == "action-scores" else ("net_arch", "activation")  # action-scores: ReLU
            for name in kept + ("critic_input",) if flag == "resume" else ():  # the loaded network is kept
                had = {"critic_input": "observation",
                       **trained_options(checked.start_model, checked.start_metadata)}.get(name)  # fmt: skip
                if had is not None and had != getattr(args, name):
                    parser.error(f"--resume {path}: the model has {flag_of(name)} {had}, this command "
                                 f"{getattr(args, name)}; --resume continues the model's network "
                                 f"(leave {flag_of(name)} out)")  # fmt: skip
    try:  # reward / mode / seat-count checks of the training env itself (after the start model's:
        # a critic input taken from a model whose --policy differs is named as that mismatch)
        probe = LearnerEnv(**env_cfg)
    except ConfigError as exc:
        parser.error(f"{flag_of(exc.field)}: {exc}")
    checked.env_kwargs = probe.env.unwrapped.aec.env_kwargs
    inputs, actions = int(probe.observation_space.shape[0]), int(probe.action_space.n)
    probe.close()
    check_network_size(parser, args, inputs, actions)
    resumed = checked.start_model.parent if getattr(args, "resume", None) and checked.start_model else None
    start = getattr(args, "init_from", None)
    if start and args.out and getattr(args, "overwrite", False) and checked.start_model.parent.resolve() == Path(args.out).resolve():
        parser.error(f"--overwrite would delete the model that --init-from starts from ({start}); give another --out")
    check_overwrite_keeps(parser, args, {"--opponents": args.opponents, "--eval-opponents": args.eval_opponents,
                                         "--reward-baseline": getattr(args, "reward_baseline", None)})  # fmt: skip
    check_out(parser, args.out, getattr(args, "overwrite", False), resumed, can_resume, getattr(args, "out_may_hold", None))
    return checked
