"""``domino-rllib``'s flag checks (issue 10): every bad flag, address or ``--out`` is refused in one
line before Ray starts or any work is done. Split from test_rllib.py."""

import os
import re
import socket
import subprocess
import sys
import time

import pytest

from domino_env.train.rllib import build_parser, validate


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--iterations", "0"], "--iterations must be >= 1"),
        (["--num-env-runners", "-1"], "--num-env-runners must be >= 0"),
        (["--num-learners", "-1"], "--num-learners must be >= 0"),
        (["--address", "not an address"], "give HOST:PORT"),
        (["--address", "127.0.0.1:99999"], "port 99999 is not a port (1 to 65535)"),
        (["--time-limit", "0s"], "argument --time-limit: must be a finite wall time > 0, got 0s"),
        (["--time-limit", "3600"], "argument --time-limit: give a unit: 3600s, 3600m or 3600h"),
        (["--time-limit", "5 days"], "argument --time-limit: expected a wall time such as 90s, 15m or 1.5h"),
        (["--minibatch-size", "512", "--batch-size", "256"], "exceeds --batch-size"),
        (["--mode", "opponents"], "--mode opponents needs --opponents"),
        (["--opponents", "greedy"], "--opponents is for --mode opponents or league"),
        (["--mode", "opponents", "--opponents", "wizard"], "wizard"),
        (["--eval-opponents", "rllib:/nonexistent/run"], "no RLlib module"),
        (["--address", "h:1", "--num-cpus", "2"], "--num-cpus sizes a local Ray instance"),
        # a user trial: Ray started with CPU 100 and prestarted 100 Python workers on 2 cores
        (["--num-cpus", str(4 * (os.cpu_count() or 1) + 1)], f"--num-cpus must be from 1 to {4 * (os.cpu_count() or 1)} (4 x the CPUs of this machine), got"),
        (["--game", "cuban", "--doubles", "chain"], "--doubles is a Mexican Train rule"),
        (["--max-pip", "6"], "max_pip"),
        (["--resume", "/nonexistent"], "--resume /nonexistent: does not exist"),
        (["--hidden", "0"], "--hidden sizes must be >= 1"),
        (["--seed", "-1"], "--seed must be >= 0"),
        (["--lr", "0"], "--lr must be in (0, 1], got 0.0"),
        (["--lr", "inf"], "--lr must be in (0, 1], got inf"),
        (["--lr", "1e39"], "--lr must be in (0, 1], got 1e+39"),  # passed, then overflowed Adam
        (["--seed", str(2**31)], "--seed must be from 0 to 2147483647 (2**31 - 1), got 2147483648"),
        (["--num-env-runners", "3", "--num-cpus", "2"],
         "--num-env-runners 3 + --num-learners 0 need 3 CPUs (one actor each) and this local Ray has 2 (--num-cpus)"),
        (["--num-learners", "1", "--num-env-runners", "2", "--num-cpus", "2"], "need 3 CPUs"),
        (["--num-learners", "2"], "--num-learners must be 0 or 1, got 2: with more, RLlib splits each batch's"),
        (["--num-env-runners", "100000"], "(the CPUs of this machine); give fewer, or --address for a cluster"),
        (["--entropy-coeff", "nan"], "--entropy-coeff must be a finite number >= 0, got nan"),
        (["--entropy-coeff", "-0.1"], "--entropy-coeff must be a finite number >= 0, got -0.1"),  # was RLlib's traceback
        (["--gamma", "1.5"], "--gamma must be in (0, 1], got 1.5"),
        (["--gae-lambda", "2"], "--gae-lambda must be in [0, 1], got 2.0"),
        (["--eval-opponents", "bogus"], "--eval-opponents bogus: "),
        (["--mode", "opponents", "--opponents", "bogus"], "--opponents bogus: "),
        (["--game", "cuban", "--players", "3"], "--players: "),
        # 0 read as "not given" (the preset's 4 seats): it trained 4 players, its hint said --players 0
        (["--players", "0"], "--players 0: Mexican Train takes 2 to 8 players"),
        (["--address", "127.0.0.1:1"], "--address 127.0.0.1:1: nothing answers at 127.0.0.1:1"),
        # RLlib's learner failed on them after Ray started (UnboundLocalError: loss_per_module): a
        # batch without a finished step of main (its next observation comes after the other seats' turns)
        # a floor above the --batch-size cap: its advice "give --batch-size >= 1228800" was refused in turn
        (["--address", "127.0.0.1:1", "--mode", "opponents", "--opponents", "random", "--players", "8",
          "--num-env-runners", "20", "--num-envs-per-env-runner", "4096"],
         "--num-env-runners 20 x --num-envs-per-env-runner 4096 = 81920 sampling envs need a batch of at least "
         "1228800 env steps (15 each for a finished step of main with 8 seats in --mode opponents), more than "
         "--batch-size may be (1048576); give fewer envs"),
        (["--game", "block", "--batch-size", "2", "--minibatch-size", "2"],
         "--batch-size 2 is too small for 4 seats in --mode self-play: each of the 1 sampling env "
         "(--num-env-runners x --num-envs-per-env-runner) needs a finished step of the learner main (every seat is "
         "main, 4 env steps), or RLlib's learner fails; give --batch-size >= 4"),
        (["--game", "block", "--players", "2", "--mode", "opponents", "--opponents", "random", "--batch-size", "5",
          "--minibatch-size", "2", "--num-envs-per-env-runner", "2"],
         "each of the 2 sampling envs (--num-env-runners x --num-envs-per-env-runner) needs a finished step of the "
         "learner main (main holds one seat: it acts within a round of turns and sees its next observation within "
         "another, 2 x 2 - 1 = 3 env steps), or RLlib's learner fails; give --batch-size >= 6"),
        # absurd sizes: torch's allocation traceback after Ray started; minutes of silence while starting
        (["--hidden", "100000000", "100000000"],
         "--hidden 100000000 100000000: main would have 2e+16 parameters (policy and value MLPs on 449 observation "
         "features, 457 actions); at most 100,000,000 (400 MB of float32 weights), as the learner, every env runner "
         "and each checkpoint hold them all"),
        (["--mode", "league", "--league-size", "100", "--hidden", "2048", "2048"],
         "--hidden 2048 2048 with --league-size 100: main and its 100 league snapshots would have 1.13e+09 parameters"),
        (["--num-envs-per-env-runner", "100000"], "--num-envs-per-env-runner must be at most 4096, got 100000"),
        (["--eval-rounds", "10000001"], "--eval-rounds: must be from 0 to 10,000,000, got 10000001"),  # as domino-train's
        (["--eval-rounds", "-1"], "--eval-rounds: must be from 0 to 10,000,000, got -1"),
        (["--batch-size", "1000000000", "--minibatch-size", "256"], "--batch-size must be at most 1048576, got 1000000000"),
        (["--league-size", "100000"], "--league-size must be at most 100, got 100000: each snapshot is a copy of main "
         "built on the learner and every env runner and written into every checkpoint"),
    ],
)
def test_cli_validates_flags_before_any_work(argv, message, capsys):
    parser = build_parser()
    with pytest.raises(SystemExit) as exc:
        validate(parser, parser.parse_args(argv))
    assert exc.value.code == 2 and message in capsys.readouterr().err



def test_cli_without_ray_says_how_to_install_it(capsys, monkeypatch):
    """Without Ray the command stops before any work with the extra to install, as the other
    commands' missing-extra lines do (the clone form too: the package is not on an index yet)."""
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name.split(".")[0] == "ray"
                        else find_spec(name, *a))  # fmt: skip
    parser = build_parser()
    with pytest.raises(SystemExit) as exc:
        validate(parser, parser.parse_args([]))
    assert exc.value.code == 2 and capsys.readouterr().err.splitlines()[-1] == (
        "domino-rllib: error: Ray RLlib is not installed: pip install 'domino-env[rllib]' "
        "(in a clone: pip install -e '.[rllib]') (domino-rllib --help lists every option)"
    )

def _listener(reply: bytes | None):
    """A local TCP server on a free port that answers each connection with ``reply`` (an HTTP
    server's, a gRPC server's SETTINGS frame) or, with None, reads and never answers."""
    import threading

    server = socket.create_server(("127.0.0.1", 0))

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.recv(64)
            if reply is not None:
                conn.sendall(reply)
            threading.Timer(3, conn.close).start()

    threading.Thread(target=serve, daemon=True).start()
    return server


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (b"HTTP/1.0 400 Bad Request\r\n\r\n", "it replied b'HTTP/1.0 400 Bad Request"),
        (None, "no reply (closed, reset or silent for 1 s)"),
        (b"\x00\x00\x00\x04\x00\x00\x00\x00\x00", None),  # an empty SETTINGS frame: a gRPC server
    ],
)
def test_address_probe_refuses_a_service_that_is_not_a_ray_head(reply, message, capsys):
    """An HTTP server at --address passed the TCP probe and Ray then retried it for minutes."""
    from domino_env.train.rllib_args import check_reachable

    server = _listener(reply)
    address = f"127.0.0.1:{server.getsockname()[1]}"
    try:
        if message is None:
            check_reachable(build_parser(), address, timeout=1.0)  # passes: Ray takes it from here
            check_reachable(build_parser(), f"ray://{address}", timeout=1.0)
        else:
            with pytest.raises(SystemExit) as exc:
                check_reachable(build_parser(), address, timeout=1.0)
            err = capsys.readouterr().err
            assert exc.value.code == 2 and f"--address {address}: something listens at {address} but it is not a " \
                "Ray head" in err and message in err  # fmt: skip
    finally:
        server.close()


def test_cli_refuses_an_out_that_cannot_be_a_folder(tmp_path, capsys):
    """A file at --out, or in place of a folder above it, was a traceback once Ray had started."""
    notes = tmp_path / "notes.txt"
    notes.write_text("keep")
    parser = build_parser()
    for out, message in ((notes, "exists and is not a folder"), (notes / "run", f"{notes} is a file, not a folder")):
        with pytest.raises(SystemExit) as exc:
            validate(parser, parser.parse_args(["--out", str(out)]))
        assert exc.value.code == 2 and f"--out {out}: {message}" in capsys.readouterr().err
    assert notes.read_text() == "keep"


def test_cli_refuses_a_non_empty_out_folder(tmp_path, capsys):
    (tmp_path / "x").write_text("keep me")
    parser = build_parser()
    with pytest.raises(SystemExit):
        validate(parser, parser.parse_args(["--out", str(tmp_path)]))
    assert "exists and is not empty" in capsys.readouterr().err
    assert (tmp_path / "x").read_text() == "keep me"


def test_an_unreachable_head_is_one_line_in_seconds_and_leaves_no_folder(tmp_path):
    """Ray itself retried an unreachable --address for minutes (and the run folder was made)."""
    out = tmp_path / "never"
    start = time.time()
    proc = subprocess.run([sys.executable, "-m", "train.rllib", "--address", "127.0.0.1:1", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 2 and "nothing answers at 127.0.0.1:1" in proc.stderr
    assert proc.stderr.count("\n") == 1 and time.time() - start < 60 and not out.exists()


def test_cli_error_is_one_line_from_a_real_process_and_starts_no_ray():
    out = subprocess.run(
        [sys.executable, "-m", "train.rllib", "--iterations", "0"], capture_output=True, text=True
    )
    assert out.returncode == 2 and "--iterations must be >= 1" in out.stderr
    assert "Traceback" not in out.stderr and "Ray instance" not in out.stderr
    assert out.stderr.count("\n") == 1 and "usage:" not in out.stderr  # one line, no usage block



def test_ppo_config_refuses_what_the_command_line_refuses():
    """A user trial: the config docs/rllib.md says to start from took league_size=0 (numpy's
    "high <= 0" at the first train()), opponents in self-play (ignored) and an unknown opponent
    (an error only inside build_algo)."""
    from domino_env.core.errors import AgentSpecError, DominoError
    from domino_env.train.rllib import ppo_config

    env_config = {"game": "block", "num_players": 2}
    for kwargs, message in [
        ({"mode": "league", "league_size": 0}, "mode 'league' needs league_size and snapshot_every >= 1, got 0 and 5"),
        ({"mode": "league", "snapshot_every": 0}, "got 4 and 0"),
        ({"mode": "self-play", "opponents": ["greedy"]}, "mode 'self-play' takes no opponents"),
    ]:  # fmt: skip
        with pytest.raises(DominoError, match=re.escape(message)):
            ppo_config(env_config, **kwargs)
    with pytest.raises(AgentSpecError, match="nope"):
        ppo_config(env_config, mode="opponents", opponents=["greedy", "nope"])
    assert ppo_config(env_config, mode="league", league_size=1, opponents=["greedy"]) is not None
    config = ppo_config(env_config, mode="opponents", opponents="greedy")  # one agent, not five letters
    assert sorted(config.rl_module_spec.rl_module_specs) == ["main", "opponent_greedy"]


def test_a_resumed_line_game_run_names_a_mexican_train_rule_as_such(tmp_path):
    """A user trial: resuming a block run with --first-turn any said "the run has --first-turn
    None", and --opponents on a self-play run "the run has --opponents , this command greedy"."""
    import json

    from domino_env.train.rllib_args import build_parser

    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    args = vars(build_parser().parse_args(["--game", "block", "--players", "2"]))
    (run / "domino_rllib.json").write_text(json.dumps({"args": args, "env_config": {"game": "block", "num_players": 2}}))
    for extra, message in [(["--first-turn", "any"], "--first-turn is a Mexican Train rule, not of the run's --game block"),
                           (["--opponents", "greedy"], "the run has --opponents none, this command greedy")]:  # fmt: skip
        out = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--resume", str(run), *extra],
                             capture_output=True, text=True, timeout=120)  # fmt: skip
        assert out.returncode == 2 and message in out.stderr, out.stderr
    (run / "checkpoint" / "domino_rllib.json").write_text("{}")  # the loader's copy: RUN/checkpoint was refused as no run
    out = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--resume", str(run / "checkpoint")],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert out.returncode == 2 and f"this is the run's checkpoint; give its run folder, --resume {run}" in out.stderr


def test_a_rule_option_newer_than_the_run_is_compared_with_the_rule_it_played(tmp_path, capsys):
    """A run recorded before --hand-size-rule existed has no such argument: given on --resume, it
    is compared with the rule of the run's env (a review found "the run's rules {...} differ" in
    place of the message naming the flag)."""
    import json

    from domino_env.train.ppo_args import rules_from_args
    from domino_env.train.rllib_args import build_parser, resume_options

    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    old = build_parser().parse_args([])
    args = {k: v for k, v in vars(old).items() if k != "hand_size_rule"}  # as the run recorded them
    (run / "domino_rllib.json").write_text(json.dumps({"args": args, "env_config": rules_from_args(old)}))
    for value in ("equal_split", None):  # the rule it played, or the flag left out: the run goes on
        argv = ["--resume", str(run), *(["--hand-size-rule", value] if value else [])]
        parsed = build_parser().parse_args(argv)
        resume_options(build_parser(), parsed, argv)
        assert parsed.hand_size_rule == value
    argv = ["--resume", str(run), "--hand-size-rule", "table"]
    with pytest.raises(SystemExit):
        resume_options(build_parser(), build_parser().parse_args(argv), argv)
    assert (f"--resume {run}: the run has --hand-size-rule equal_split, this command table; leave "
            "--hand-size-rule out to continue the run's") in capsys.readouterr().err  # fmt: skip


def test_league_options_with_another_mode_are_refused(tmp_path, capsys):
    """--league-size and --snapshot-every did nothing outside --mode league and were accepted; with
    --resume of an opponents run, --league-size 2 was refused as "the run has --league-size 4"."""
    import json

    from domino_env.train.rllib import check_mode_flags, resume_options

    def refusal(argv: list[str]) -> str:
        parser = build_parser()
        args = parser.parse_args(argv)
        with pytest.raises(SystemExit) as exc:
            resume_options(parser, args, argv)
            check_mode_flags(parser, args, argv)
        assert exc.value.code == 2
        return capsys.readouterr().err.strip().splitlines()[-1]

    assert refusal(["--league-size", "3"]) == ("domino-rllib: error: --league-size is for --mode league (its frozen "
                                               "snapshots of main), not self-play (domino-rllib --help lists every option)")  # fmt: skip
    assert refusal(["--mode", "opponents", "--opponents", "greedy", "--snapshot-every", "5"]).startswith(
        "domino-rllib: error: --snapshot-every is for --mode league (its frozen snapshots of main), not opponents")
    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    had = {"game": "mexican_train", "mode": "opponents", "opponents": ["greedy"], "league_size": 4, "snapshot_every": 5}
    (run / "domino_rllib.json").write_text(json.dumps({"args": had}))
    assert refusal(["--resume", str(run), "--league-size", "2"]).startswith(
        "domino-rllib: error: --league-size is for --mode league (its frozen snapshots of main), the run's --mode is opponents")
    parser = build_parser()  # league mode, or neither option: accepted
    for argv in (["--mode", "league", "--league-size", "2", "--snapshot-every", "3"], ["--resume", str(run)]):
        args = parser.parse_args(argv)
        resume_options(parser, args, argv)
        check_mode_flags(parser, args, argv)


def test_a_run_whose_rules_differ_names_the_rules_that_differ(tmp_path, capsys):
    """A run without recorded arguments whose rules differ: the refusal printed both whole rule
    dicts (about 20 keys each) in one line; it names the keys that differ, the run's and this
    command's values."""
    import json

    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    rules = validate(build_parser(), build_parser().parse_args([]))  # the default run's env_config
    (run / "domino_rllib.json").write_text(json.dumps({"env_config": {**rules, "num_players": 2, "max_pip": 9}}))
    parser = build_parser()
    with pytest.raises(SystemExit):
        validate(parser, parser.parse_args(["--resume", str(run)]))
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"domino-rllib: error: --resume {run}: the run's rules differ from these: max_pip 9 (this command's: 12), "
        "num_players 2 (this command's: 4) (domino-rllib --help lists every option)")  # fmt: skip
