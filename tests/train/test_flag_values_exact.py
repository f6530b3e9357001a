"""The flag checks of ``domino-train`` and the rule options shared by the commands, word for word:
a bad value is one line naming the flag and the values it takes (the interval's open and closed
ends, the bound), a value on a closed end is taken, and ``--annul-doubles 0`` (documented: no
annulment) plays without annulment. Found by mutation-testing train/arg_types.py,
train/rule_options.py and train/ppo_args.py: the existing checks named the flag only, so a wrong
interval or bound in the message, or a closed end refused, failed no test. In-process parser calls,
as test_arg_types.py does.
"""

from __future__ import annotations

import argparse

import pytest

from domino_env.train import evaluate, ppo_args
from domino_env.train.arg_types import duration, int_at_least, real
from domino_env.train.rule_options import rule_kwargs


def _error(build, argv: list[str], capsys) -> str:
    """The one stderr line of a refused ``argv``, without the ``PROG: error:`` prefix and the
    ``(PROG --help lists every option)`` suffix."""
    parser = build()
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(argv)
    assert exit_.value.code == 2
    line = capsys.readouterr().err.splitlines()[-1]
    prefix, suffix = f"{parser.prog}: error: ", f" ({parser.prog} --help lists every option)"
    assert line.startswith(prefix) and line.endswith(suffix), line
    return line[len(prefix) : -len(suffix)]


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--gamma", "0"], "argument --gamma: must be a number in (0.0, 1.0], got 0"),
     (["--gamma", "1.5"], "argument --gamma: must be a number in (0.0, 1.0], got 1.5"),
     (["--gae-lambda", "-0.5"], "argument --gae-lambda: must be a number in [0.0, 1.0], got -0.5"),
     (["--gae-lambda", "1.01"], "argument --gae-lambda: must be a number in [0.0, 1.0], got 1.01"),
     (["--self-play", "nan"], "argument --self-play: must be a number in [0.0, 1.0], got nan"),
     (["--clip-range", "0"], "argument --clip-range: must be a number in (0.0, inf), got 0"),
     (["--ent-coef=-1e-9"], "argument --ent-coef: must be a number in [0.0, inf), got -1e-9"),
     (["--pips-coef=-inf"], "argument --pips-coef: must be a number in [0.0, inf), got -inf"),
     (["--gamma", "abc"], "argument --gamma: expected a number, got 'abc'"),
     (["--learning-rate", "3e-4x"], "argument --learning-rate: expected a number, got '3e-4x'"),
     (["--players", "1"], "argument --players: must be an integer >= 2, got 1"),
     (["--n-steps", "1"], "argument --n-steps: must be an integer >= 2, got 1"),
     (["--eval-freq=-1k"], "argument --eval-freq: must be an integer >= 0, got -1000"),
     (["--n-envs", "257"], "argument --n-envs: must be from 1 to 256, got 257"),
     (["--final-eval-rounds", "-1"], "argument --final-eval-rounds: must be from 0 to 10,000,000, got -1"),
     (["--time-limit", "15 mins"], "argument --time-limit: expected a wall time such as 90s, 15m or 1.5h, got '15 mins'")],
)  # fmt: skip
def test_a_bad_train_flag_value_is_one_line_with_the_values_it_takes(argv, message, capsys):
    assert _error(ppo_args.build_parser, argv, capsys) == message


@pytest.mark.parametrize(
    ("argv", "dest", "value"),
    [(["--gamma", "1"], "gamma", 1.0), (["--gae-lambda", "0"], "gae_lambda", 0.0),
     (["--gae-lambda", "1"], "gae_lambda", 1.0), (["--self-play", "1.0"], "self_play", 1.0),
     (["--ent-coef", "0"], "ent_coef", 0.0), (["--pips-coef", "0"], "pips_coef", 0.0),
     (["--players", "2"], "players", 2), (["--n-steps", "2"], "n_steps", 2), (["--eval-freq", "0"], "eval_freq", 0),
     (["--n-envs", "256"], "n_envs", 256), (["--batch-size", "2"], "batch_size", 2), (["--final-eval-rounds", "10M"], "final_eval_rounds", 10_000_000),
     (["--seed", str(2**32 - 1)], "seed", 2**32 - 1), (["--time-limit", "90s"], "time_limit", 1.5)],
)  # fmt: skip
def test_a_value_on_a_closed_end_is_taken(argv, dest, value):
    got = getattr(ppo_args.build_parser().parse_args(argv), dest)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [(real(high=1.0), "2", "must be a number in (-inf, 1.0], got 2"),
     (real(), "inf", "must be a number in (-inf, inf), got inf"),
     (real(0.0, 1.0, high_open=True), "1", "must be a number in [0.0, 1.0), got 1"),
     (real(0.0, 1.0, low_open=True, high_open=True), "0", "must be a number in (0.0, 1.0), got 0"),
     (int_at_least(1), "0", "must be a positive integer, got 0"),
     (int_at_least(3, 5, " (why)"), "6", "must be from 3 to 5 (why), got 6"),
     (int_at_least(3, 5, " (why)"), "2", "must be from 3 to 5 (why), got 2"),
     (int_at_least(1000, 2000), "999", "must be from 1,000 to 2,000, got 999"),
     (duration("s", bare=False), "90", "give a unit: 90s, 90m or 90h (a bare number is ambiguous here)"),
     (duration("s"), "1e400h", "must be a finite wall time > 0, got 1e400h")],
)  # fmt: skip
def test_the_argument_types_name_the_interval_they_take(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as err:
        parse(text)
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("parse", "text", "value"),
    [(real(high=1.0), "-1e300", -1e300), (real(0.0, 1.0, high_open=True), "0", 0.0),
     (int_at_least(3, 5), "3", 3), (int_at_least(3, 5), "5", 5), (int_at_least(-2), "-2", -2),
     (duration("min"), "90s", 1.5), (duration("s"), "1.5h", 5400.0), (duration("s"), " 2 ", 2.0),
     (duration("min"), "15min", 15.0), (duration("s"), "2sec", 2.0)],
)  # fmt: skip
def test_the_argument_types_take_the_values_inside(parse, text, value):
    assert parse(text) == value


REQUIRED = ["--agents", "random", "random"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--game", "block", "--preset", "tren_mexicano"],
      "--preset is for --game mexican_train; --game block is its own preset"),
     (["--game", "draw", "--doubles", "chain"], "--doubles is not a rule of --game draw"),
     (["--game", "cuban", "--elimination-limit", "50"], "--elimination-limit is not a rule of --game cuban"),
     (["--next-lead", "winner"], "--next-lead is not a rule of --game mexican_train"),
     (["--teams"], "--teams is not a rule of --game mexican_train")],
)  # fmt: skip
def test_a_rule_option_of_another_game_is_one_line_naming_it(argv, message, capsys):
    parser = evaluate.build_parser()
    with pytest.raises(SystemExit):
        rule_kwargs(parser, parser.parse_args([*REQUIRED, *argv]))
    line = capsys.readouterr().err.splitlines()[-1]
    assert line == f"domino-evaluate: error: {message} (domino-evaluate --help lists every option)"


@pytest.mark.parametrize(
    ("argv", "kwargs"),
    [([], {"preset": "domino_cubano"}),
     (["--game", "cuban", "--annul-doubles", "0"], {"annul_doubles": None}),  # the help's "0: no annulment"
     (["--game", "cuban", "--annul-doubles", "3", "--max-pip", "9"], {"annul_doubles": 3, "max_pip": 9}),
     (["--preset", "tren_mexicano", "--hand-size", "9", "--no-use-boneyard"],
      {"preset": "tren_mexicano", "hand_size": 9, "use_boneyard": False})],
)  # fmt: skip
def test_rule_kwargs_are_the_options_given(argv, kwargs):
    parser = evaluate.build_parser()
    assert rule_kwargs(parser, parser.parse_args([*REQUIRED, *argv])) == kwargs


def test_the_evaluate_hint_of_a_default_run_names_only_the_game():
    """The default preset is left out of the hint (it is domino-evaluate's default too)."""
    args = ppo_args.build_parser().parse_args([])
    assert evaluate.evaluate_command(args, "ppo:runs/r") == "domino-evaluate --game mexican_train --agents ppo:runs/r ..."


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--game", "block", "--preset", "tren_mexicano"],
      "--preset and the Mexican Train rule options are not rules of --game block (given: --preset)"),
     (["--game", "cuban", "--doubles", "chain", "--no-use-mexican-train"],
      "--preset and the Mexican Train rule options are not rules of --game cuban (given: --doubles, --use-mexican-train)"),
     (["--max-pip", "6"], "--max-pip: invalid config field 'max_pip': got 6; allowed: 9, 12, 15 or 18 for Mexican Train")],
)  # fmt: skip
def test_a_rule_flag_domino_train_cannot_play_is_one_line_naming_it(argv, message, capsys):
    parser = ppo_args.build_parser()
    with pytest.raises(SystemExit):
        ppo_args.check_rules(parser, parser.parse_args(argv))
    line = capsys.readouterr().err.splitlines()[-1]
    assert line == f"domino-train: error: {message} (domino-train --help lists every option)"


@pytest.mark.parametrize(
    ("argv", "rules"),
    [(["--game", "block", "--hand-size", "5"], {"preset": "block", "hand_size": 5, "num_players": 4}),
     (["--players", "2", "--max-pip", "9", "--doubles", "chain"],
      {"preset": "domino_cubano", "num_players": 2, "max_pip": 9, "doubles": "chain"})],
)  # fmt: skip
def test_the_rules_of_domino_train_are_the_flags_given(argv, rules):
    parser = ppo_args.build_parser()
    got = ppo_args.check_rules(parser, parser.parse_args(argv))
    assert {k: got[k] for k in rules} == rules


@pytest.mark.parametrize(("given", "baseline"), [("none", None), ("greedy", "greedy")])
def test_reward_baseline_none_is_no_baseline_and_an_agent_is_kept(given, baseline, tmp_path):
    parser = ppo_args.build_parser()
    args = parser.parse_args(["--reward-baseline", given, "--out", str(tmp_path / "run"), "--no-tensorboard"])
    checked = ppo_args.check_args(parser, args)
    assert args.reward_baseline == baseline and checked.env_cfg["baseline"] == baseline


CUBAN_MODEL = "checkpoints/cuban_4p_teams_action_scores"


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--game", "cuban", "--pips-coef", "0.5"],
      "--pips-coef 0.5: weighs the pips term of --reward mixed; the reward here is outcome"),
     (["--reward", "points", "--pips-coef", "2"],
      "--pips-coef 2: weighs the pips term of --reward mixed; the reward here is points"),
     (["--opponents", "nobody"],
      "--opponents nobody: invalid agent 'nobody'; allowed: one of ['greedy', 'planner', 'ppo', 'random', 'rllib', "
      "'search'] (optionally 'name:arg') for mexican_train rules, or one of your own given a name with "
      "domino_env.agents.register_agent"),
     (["--opponent-mode", "fixed", "--opponents", "greedy"],
      "--opponents: invalid argument 'opponents': got ['greedy']; allowed: 3 agents with --opponent-mode fixed "
      "(4 players)"),
     (["--init-from", CUBAN_MODEL],
      f"--init-from {CUBAN_MODEL}: model {CUBAN_MODEL}/model.zip was trained on cuban (line game), not "
      "mexican_train; use a model trained for mexican_train (domino-train --game mexican_train)"),
     (["--net-arch", "60000", "60000"],
      "--net-arch 60000 60000: the value network would have 3.63e+09 parameters; at most 100,000,000 (400 MB of "
      "float32 weights, held several times over in training)")],
)  # fmt: skip
def test_a_flag_refused_after_parsing_is_one_line_word_for_word(argv, message, capsys, tmp_path):
    parser = ppo_args.build_parser()
    args = parser.parse_args([*argv, "--out", str(tmp_path / "run")])
    with pytest.raises(SystemExit):
        ppo_args.check_args(parser, args)
    line = capsys.readouterr().err.splitlines()[-1]
    assert line == f"domino-train: error: {message} (domino-train --help lists every option)"
    assert not (tmp_path / "run").exists()


def test_mixed_reward_takes_a_pips_coef(tmp_path):
    parser = ppo_args.build_parser()
    args = parser.parse_args(["--pips-coef", "0.5", "--out", str(tmp_path / "run")])
    assert ppo_args.check_args(parser, args).env_cfg["pips_coef"] == 0.5 and args.reward == "mixed"


@pytest.mark.parametrize(
    ("files", "can_resume", "hint"),
    [(["notes.txt"], True, ""),  # stopped before its first save: nothing to resume
     (["model.zip", "best_model.zip"], True, ", --resume {out} (with this --out) to continue that run in it"),
     (["best_model.zip"], True, ", --resume {out}/best_model.zip (with this --out) to continue that run in it"),
     (["model.zip"], False, "")],  # a command without --resume
)  # fmt: skip
def test_a_non_empty_out_is_one_line_with_the_resume_it_can_give(files, can_resume, hint, tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    for name in files:
        (out / name).write_bytes(b"")
    with pytest.raises(SystemExit):
        ppo_args.check_out(ppo_args.build_parser(), str(out), can_resume=can_resume)
    line = capsys.readouterr().err.splitlines()[-1]
    assert line == (f"domino-train: error: --out {out}: folder exists and is not empty; give a new folder"
                    f"{hint.format(out=out)}, or --overwrite to replace its run files (domino-train --help lists "
                    "every option)")  # fmt: skip
