"""What a command's ``--help`` states as an option's default is what the command does when the
option is left out, for every game the option applies to, and no help shows a Python value that
cannot be typed (a review found ``--use-boneyard`` "(default True)" where block and Cuban play
without a boneyard, ``--target-score`` 100 where draw plays to 5000, and ``(default: ['greedy',
'planner'])``)."""

from __future__ import annotations

import re

import pytest

from domino_env.core.config import LINE_PRESETS, line_from_preset
from domino_env.train import bc, evaluate, play, ppo_args, rllib_args
from domino_env.train.rule_options import rule_kwargs

PARSERS = {"domino-evaluate": evaluate.build_parser, "domino-play": play.build_parser,
           "domino-train": ppo_args.build_parser, "domino-bc": bc.build_parser,
           "domino-rllib": rllib_args.build_parser}  # fmt: skip
#: The options of the line games' rules whose help gives each game's default, and their fields.
LINE_OPTIONS = {"--use-boneyard": "use_boneyard", "--teams": "teams", "--next-lead": "next_lead",
                "--annul-doubles": "annul_doubles", "--target-score": "target_score"}  # fmt: skip


def _help_of(parser, flag: str) -> str:
    action = parser._option_string_actions[flag]
    return " ".join(parser._get_formatter()._expand_help(action).split())


def _typed(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return "none" if value is None else str(value)


@pytest.mark.parametrize("command", ["domino-evaluate", "domino-play"])
@pytest.mark.parametrize("flag", sorted(LINE_OPTIONS))
def test_each_line_rule_help_states_the_default_each_game_plays(command, flag):
    parser = PARSERS[command]()
    text = _help_of(parser, flag)
    stated = dict(re.findall(r"(\w+) (\w+)", re.search(r"default: ([^)]*)\)", text)[1]))
    assert set(stated) == set(LINE_PRESETS), text
    for game in LINE_PRESETS:
        agents = ["--agents", "random", "random"] if command == "domino-evaluate" else []
        args = parser.parse_args(["--game", game, *agents])
        played = getattr(line_from_preset(game, **rule_kwargs(parser, args)), LINE_OPTIONS[flag])
        assert stated[game] == _typed(played), (game, text)


def test_the_boneyard_help_says_what_it_means_in_each_family():
    text = _help_of(evaluate.build_parser(), "--use-boneyard")
    assert text == ("Mexican Train: False = 'sin monte': leftovers set aside, never drawn (default True). Line "
                    "games: True = draw game (undealt tiles are drawn one at a time); False = undealt tiles are "
                    "out of play (default: block off, draw on, cuban off).")  # fmt: skip
    assert _help_of(ppo_args.build_parser(), "--use-boneyard").startswith("False = 'sin monte'")  # Mexican Train only


@pytest.mark.parametrize("command", sorted(PARSERS))
def test_no_help_shows_a_python_list(command):
    text = " ".join(PARSERS[command]().format_help().split())
    assert "(default: [" not in text, re.findall(r"\(default: \[[^)]*\)", text)


def test_a_list_default_is_shown_as_typed(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # argparse breaks "domino-rllib" at its hyphen at some widths (60, 90)
    train = " ".join(ppo_args.build_parser().format_help().split())
    assert "rllib:PATH (a domino-rllib run) (default: greedy planner)" in train
    assert "evaluation ladder (default: random greedy planner)" in train
    rllib = " ".join(rllib_args.build_parser().format_help().split())
    assert "needed with --mode opponents, optional in a league (default: none)" in rllib
    assert "(default: 256 256)" in rllib
