"""The rule options shared by the command lines (``domino-evaluate``, ``domino-train``,
``domino-bc``, ``domino-rllib``, ``domino-play``): the Mexican Train and line-game rule flags
(:func:`add_mexican_train_rule_options`, :func:`add_line_rule_options`), the env keywords they
give (:func:`rule_kwargs`) and the flags that repeat a training command's rules in another
command (:func:`rule_flags`, :func:`evaluate_command`). Each option's help is the config field's
docstring (``domino_env.core.config.FIELD_DOCS``, ``LINE_FIELD_DOCS``).
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from domino_env.core.config import (
    FIELD_DOCS,
    LINE_FIELD_DOCS,
    LINE_PRESETS,
    LINE_RULE_CHOICES,
    RULE_CHOICES,
    line_from_preset,
)

_RULE_OPTIONS = (
    "hand_size_rule",
    "first_turn",
    "doubles",
    "drawn_tile",
    "marker_removal",
    "station_source",
    "blocked_round",
    "game_end",
)
# every option add_mexican_train_rule_options adds, as argparse dests (and config fields)
MEXICAN_TRAIN_RULE_ARGS = (
    "hand_size", *_RULE_OPTIONS, "use_boneyard", "use_mexican_train", "double_blank_points", "elimination_limit",
)


def evaluate_command(args: argparse.Namespace, agent: str) -> str:
    """The start of the ``domino-evaluate`` command that plays ``agent`` under the rules a training
    command was given (``args`` of domino-train, domino-bc or domino-rllib; :func:`rule_flags`), so
    that the model's spec matches. The agent list ends in ``...`` (the user's opponents)."""
    return " ".join(["domino-evaluate", *rule_flags(args), "--agents", shlex.quote(agent), "..."])  # a path with spaces


def rule_flags(args: argparse.Namespace) -> list[str]:
    """``--game``, and each of ``--players``, ``--max-pip``, ``--preset``, ``--episode`` and the
    Mexican Train rule options that differs from its default in ``args`` (of domino-train,
    domino-bc or domino-rllib): the flags that give another command the same rules."""
    flags = ["--game", args.game]
    for name in ("players", "max_pip"):
        if (value := getattr(args, name, None)) is not None:
            flags += [f"--{name.replace('_', '-')}", str(value)]
    if args.game == "mexican_train" and args.preset not in (None, "domino_cubano"):
        flags += ["--preset", args.preset]
    if getattr(args, "episode", "round") != "round":
        flags += ["--episode", args.episode]
    for name in MEXICAN_TRAIN_RULE_ARGS:
        value, flag = getattr(args, name, None), "--" + name.replace("_", "-")
        if isinstance(value, bool):
            flags.append(flag if value else "--no-" + flag[2:])
        elif value is not None:
            flags += [flag, str(value)]
    return flags


def add_mexican_train_rule_options(parser: argparse.ArgumentParser) -> None:
    """The Mexican Train rule options (``--hand-size``, ``--doubles``, ...; default: the
    preset's value), shared by the evaluation and training commands."""
    rules = parser.add_argument_group("rules (default: the preset's value; \"seed 000\" to \"seed 004\" name the "
                                      "rule documents a value comes from, docs/rules.md, not a --seed)")
    rules.add_argument("--hand-size", type=int, default=None, help=FIELD_DOCS["hand_size"])
    for name in _RULE_OPTIONS:
        rules.add_argument(
            "--" + name.replace("_", "-"),
            default=None,
            choices=RULE_CHOICES[name],
            help=FIELD_DOCS[name],
        )
    for name in ("use_boneyard", "use_mexican_train"):
        rules.add_argument(
            "--" + name.replace("_", "-"),
            action=argparse.BooleanOptionalAction,
            default=None,
            help=FIELD_DOCS[name],
        )
    for name in ("double_blank_points", "elimination_limit"):
        rules.add_argument("--" + name.replace("_", "-"), type=int, default=None, help=FIELD_DOCS[name])


def preset_defaults(name: str) -> str:
    """Each line game's value of config field ``name`` when its option is left out, for a help
    text: ``"default: block off, draw on, cuban off"`` (on/off for a flag, none for no value)."""

    def shown(value: Any) -> str:
        if isinstance(value, bool):
            return "on" if value else "off"
        return "none" if value is None else str(value)

    return "default: " + ", ".join(f"{game} {shown(getattr(line_from_preset(game), name))}" for game in LINE_PRESETS)


def add_line_rule_options(parser: argparse.ArgumentParser, teams_note: str = "") -> None:
    """The line-game rule options (``--teams``, ``--next-lead``, ``--annul-doubles``,
    ``--target-score``; default: the preset's value), shared by domino-evaluate and domino-play.
    Each help gives every line game's default; ``--use-boneyard`` (added by
    :func:`add_mexican_train_rule_options`, a rule of both) gets the line games' meaning too."""
    line = parser.add_argument_group(
        "line-game rules (--game block|draw|cuban; default: the preset's value; --hand-size and "
        "--use-boneyard apply too)"
    )
    line.add_argument(
        "--teams", action=argparse.BooleanOptionalAction, default=None,
        help=f"{LINE_FIELD_DOCS['teams']}{teams_note} ({preset_defaults('teams')})",
    )  # fmt: skip
    for name, choices in LINE_RULE_CHOICES.items():
        line.add_argument(
            "--" + name.replace("_", "-"), default=None, choices=choices,
            help=f"{LINE_FIELD_DOCS[name]} ({preset_defaults(name)})",
        )  # fmt: skip
    line.add_argument(
        "--annul-doubles", type=int, default=None,
        help="Doubles dealt that let a player annul the round on its first turn; 0: no annulment "
             f"({preset_defaults('annul_doubles')}).",
    )  # fmt: skip
    line.add_argument("--target-score", type=int, default=None,
                      help=f"Points that end a game of --episode game ({preset_defaults('target_score')}).")  # fmt: skip
    boneyard = parser._option_string_actions["--use-boneyard"]
    boneyard.help = (f"Mexican Train: {boneyard.help} Line games: {LINE_FIELD_DOCS['use_boneyard'].rstrip('.')} "
                     f"({preset_defaults('use_boneyard')}).")  # fmt: skip


def rule_kwargs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    """The env keywords of the rule options given (``--preset`` for Mexican Train, ``--max-pip``,
    the game's own rule options); a rule option of the other kind of game is a parser error."""
    shared = ("hand_size", "use_boneyard")  # rules of every game
    mexican = tuple(n for n in MEXICAN_TRAIN_RULE_ARGS if n not in shared)
    line = ("teams", *LINE_RULE_CHOICES, "annul_doubles", "target_score")
    if args.game == "mexican_train":
        kwargs: dict[str, Any] = {"preset": args.preset or "domino_cubano"}
        own, foreign = mexican, line
    else:
        if args.preset is not None:
            parser.error(f"--preset is for --game mexican_train; --game {args.game} is its own preset")
        kwargs = {}
        own, foreign = line, mexican
    for name in foreign:
        if getattr(args, name) is not None:
            parser.error(f"--{name.replace('_', '-')} is not a rule of --game {args.game}")
    if args.max_pip is not None:
        kwargs["max_pip"] = args.max_pip
    for name in (*shared, *own):
        value = getattr(args, name)
        if value is not None:
            kwargs[name] = value
    if kwargs.get("annul_doubles") == 0:
        kwargs["annul_doubles"] = None
    return kwargs
