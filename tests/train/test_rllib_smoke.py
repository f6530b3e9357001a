"""RLlib smoke runs (issue 10, item 4): a few iterations of masked PPO through the real command
(``python -m train.rllib`` in a subprocess, a local Ray instance of 2 CPUs, no env runner actors,
small batches) on Mexican Train (2 players, double-9, against scripted opponents) and on the draw
game (a league of frozen snapshots plus a scripted opponent). Every iteration must sample with no
illegal action and finish episodes; the checkpoint must load as an agent (``rllib:PATH``) and play
a duplicate-deal tournament through ``python -m train.evaluate`` with 2 worker processes.
"""

import json
import pickle
import shlex
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from domino_env.agents import make_agent
from domino_env.agents.ppo import PPOAgent, SpecMismatchError
from domino_env.agents.rllib.agent import METADATA_FILE
from domino_env.encoding.mexican_train import observation_spec

SMALL = ["--batch-size", "256", "--minibatch-size", "128", "--epochs", "1", "--hidden", "32",
         "--num-env-runners", "0", "--num-cpus", "2", "--seed", "3", "--no-progress"]  # fmt: skip


def run(args, timeout=300):
    out = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=timeout
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def mt_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("rllib") / "mt"
    run(["-m", "train.rllib", "--game", "mexican_train", "--players", "2", "--max-pip", "9",
         "--mode", "opponents", "--opponents", "random", "greedy", "--iterations", "3",
         "--eval-rounds", "0", "--out", str(out), *SMALL])  # fmt: skip
    return out


@pytest.fixture(scope="module")
def draw_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("rllib") / "draw"
    proc = run(["-m", "train.rllib", "--game", "draw", "--mode", "league", "--league-size", "2",
                "--snapshot-every", "1", "--opponents", "greedy", "--iterations", "2",
                "--eval-rounds", "8", "--eval-opponents", "random", "--out", str(out), *SMALL])  # fmt: skip
    return out, proc.stdout


def _history(out):
    rows = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    meta = json.loads((out / METADATA_FILE).read_text())
    return rows, meta


def test_mexican_train_smoke_run(mt_run):
    rows, meta = _history(mt_run)
    assert [r["iteration"] for r in rows] == [1, 2, 3] and meta["iterations_done"] == 3
    assert all(r["illegal_actions"] == 0 for r in rows)
    assert rows[-1]["episodes"] >= 1 and rows[-1]["env_steps"] >= 3 * 256
    assert 0.0 <= rows[-1]["main_win_rate"] <= 1.0
    assert meta["observation_spec_hash"] == observation_spec(2, 9).hash()
    assert meta["env_config"]["num_players"] == 2 and meta["mode"] == "opponents"
    assert set(meta["opponents"].values()) == {"random", "greedy"}
    assert meta["versions"]["ray"].startswith("2.") and not meta["interrupted"]
    # the command that reproduces the run, runnable from any folder (not the interpreter's path)
    assert meta["command"].startswith("python -m domino_env.train.rllib --game mexican_train ")
    assert (mt_run / "checkpoint" / METADATA_FILE).is_file()


def test_checkpoint_plays_a_tournament_through_train_evaluate(mt_run, tmp_path):
    report = tmp_path / "eval.json"
    proc = run(["-m", "train.evaluate", "--agents", f"rllib:{mt_run}", "greedy", "--players", "2",
                "--max-pip", "9", "--rounds", "12", "--workers", "2", "--no-progress",
                "--json", str(report)])  # fmt: skip
    result = json.loads(report.read_text())
    labels = {s["name"]: s for s in result["stats"]}
    assert f"rllib:{mt_run}" in labels and labels[f"rllib:{mt_run}"]["seat_episodes"] == 12
    assert result["rounds_played"] == 12 and "rllib" in proc.stdout


def test_checkpoint_agent_is_legal_and_refuses_other_rules(mt_run):
    agent = make_agent(f"rllib:{mt_run}", {"num_players": 2, "max_pip": 9})
    assert isinstance(agent, PPOAgent)
    agent = pickle.loads(pickle.dumps(agent))  # tournament workers get a copy
    mask = np.zeros(167, np.int8)
    mask[[5, 40, 166]] = 1
    rng = np.random.default_rng(0)
    obs = np.zeros(observation_spec(2, 9).size, np.float32)
    assert all(agent(obs, mask, rng) in (5, 40, 166) for _ in range(5))
    with pytest.raises(SpecMismatchError, match="4 players"):
        make_agent(f"rllib:{mt_run}", {"num_players": 4, "max_pip": 12})


def test_line_game_league_smoke_run(draw_run):
    out, stdout = draw_run
    rows, meta = _history(out)
    assert len(rows) == 2 and all(r["illegal_actions"] == 0 for r in rows)
    assert rows[-1]["episodes"] >= 1 and meta["game"] == "draw"
    assert meta["league"]["slots"] == ["snapshot_0", "snapshot_1"]
    assert meta["evaluation"]["random"]["rounds"] == 8 and "rllib vs random" in stdout
    # Snapshot refresh: after iteration 2 the slot snapshot_1 got main's weights, snapshot_0
    # holds main after iteration 1 (different: it has trained since).
    modules = out / "checkpoint" / "learner_group" / "learner" / "rl_module"
    state = {m: pickle.loads((modules / m / "module_state.pkl").read_bytes()) for m in
             ("main", "snapshot_0", "snapshot_1")}  # fmt: skip
    key = "pi.net.mlp.0.weight"
    np.testing.assert_array_equal(state["snapshot_1"][key], state["main"][key])
    assert not np.array_equal(state["snapshot_0"][key], state["main"][key])
    agent = make_agent(f"rllib:{modules / 'snapshot_0'}", {"preset": "draw"})  # a league member
    assert isinstance(agent, PPOAgent)


def test_resume_continues_a_run(draw_run, tmp_path):
    """``--resume RUN --iterations N`` alone continues the run as it was: its rules, mode, league,
    opponents, network and training settings come from the run (the interrupt hint's command)."""
    out = tmp_path / "resumed"
    shutil.copytree(draw_run[0], out)
    run(["-m", "train.rllib", "--resume", str(out), "--iterations", "1", "--eval-rounds", "0",
         "--num-cpus", "2", "--no-progress"])  # fmt: skip
    rows, meta = _history(out)
    assert [r["iteration"] for r in rows] == [1, 2, 3] and meta["iterations_done"] == 3
    assert len(meta["history"]) == 3
    assert meta["game"] == "draw" and meta["mode"] == "league" and meta["league"]["slots"] == ["snapshot_0", "snapshot_1"]
    assert meta["args"]["batch_size"] == 256 and meta["args"]["hidden"] == [32] and meta["args"]["opponents"] == ["greedy"]


def test_resume_refuses_another_mode_naming_the_flag(draw_run, capsys):
    from domino_env.train.rllib import build_parser, resume_options

    argv = ["--resume", str(draw_run[0]), "--mode", "self-play"]
    parser = build_parser()
    with pytest.raises(SystemExit) as exc:
        resume_options(parser, parser.parse_args(argv), argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert "the run has --mode league, this command self-play; leave --mode out" in err
    argv = ["--resume", str(draw_run[0]), "--players", "4"]
    with pytest.raises(SystemExit):
        resume_options(parser, parser.parse_args(argv), argv)
    assert "the run has --players 2, this command 4" in capsys.readouterr().err  # the preset's, not None
    for same in (["--players", "2"], ["--max-pip", "6"], ["--game", "draw"]):  # what the run played with
        argv = ["--resume", str(draw_run[0]), *same]
        args = parser.parse_args(argv)
        resume_options(parser, args, argv)
        assert args.mode == "league" and args.hidden == [32]


def test_resume_of_a_damaged_checkpoint_is_one_line(draw_run, tmp_path):
    out = tmp_path / "damaged"
    shutil.copytree(draw_run[0], out)
    state = out / "checkpoint" / "learner_group" / "learner" / "rl_module" / "main" / "module_state.pkl"
    state.write_bytes(state.read_bytes()[:500])  # truncated
    proc = subprocess.run([sys.executable, "-m", "train.rllib", "--resume", str(out), "--iterations", "1",
                           "--num-cpus", "2", "--no-progress"], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "module_state.pkl: not a readable module state" in proc.stderr


def test_resume_of_a_cut_learner_state_names_the_file_before_ray_starts(draw_run, tmp_path, capsys):
    """A truncated learner/state.pkl passed the flag checks (the module's weights load) and RLlib's
    restore failed about 10 s after Ray started, naming no file: 'the checkpoint cannot be restored
    (UnpicklingError: pickle data was truncated)'. The checkpoint's pickle streams are now checked
    (parsed, not unpickled) with the flags."""
    from domino_env.train.rllib import build_parser, resume_options, validate

    out = tmp_path / "cut"
    shutil.copytree(draw_run[0], out)
    state = out / "checkpoint" / "learner_group" / "learner" / "state.pkl"
    state.write_bytes(state.read_bytes()[:-100])
    parser, argv = build_parser(), ["--resume", str(out), "--iterations", "1", "--num-cpus", "1"]
    args = parser.parse_args(argv)
    resume_options(parser, args, argv)
    with pytest.raises(SystemExit) as exc:
        validate(parser, args)
    assert exc.value.code == 2
    assert (f"--resume {out}: the checkpoint cannot be restored: {state}: cut short or damaged, not a whole "
            "pickle (") in capsys.readouterr().err  # fmt: skip


def test_interrupted_run_saves_a_resumable_checkpoint(tmp_path):
    out = tmp_path / "stopped"
    proc = subprocess.Popen(
        [sys.executable, "-m", "train.rllib", "--players", "2", "--max-pip", "9", "--iterations",
         "500", "--checkpoint-every", "1000", "--eval-rounds", "0", "--out", str(out), *SMALL],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    progress = out / "progress.jsonl"
    deadline = time.time() + 240
    while not (progress.is_file() and len(progress.read_text().splitlines()) >= 2):
        assert proc.poll() is None and time.time() < deadline, "training did not start"
        time.sleep(0.5)
    proc.send_signal(signal.SIGINT)  # Ctrl-C
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGINT and "interrupted: saving a checkpoint" in err  # a shell: 130
    rows, meta = _history(out)
    assert meta["interrupted"] is True and meta["iterations_done"] == len(rows) < 500
    assert isinstance(make_agent(f"rllib:{out}", {"num_players": 2, "max_pip": 9}), PPOAgent)
    # the hint's command continues it (the run's rules and settings), and SIGTERM stops it as well
    done = meta["iterations_done"]
    # the whole command: the iterations left, and the options a resumed run does not keep (--eval-rounds 0,
    # --num-cpus 2, --no-progress) given again; run as the hint says
    hint = (f"continue with: python -m domino_env.train.rllib --resume {out} --iterations {500 - done} --players 2 "
            f"--max-pip 9 --checkpoint-every 1000 --eval-rounds 0 {shlex.join(SMALL)})")  # fmt: skip
    assert hint in err, err
    command = shlex.split(hint.removeprefix("continue with: ").removesuffix(")"))
    proc = subprocess.Popen([sys.executable, *command[1:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 240
    while len(progress.read_text().splitlines()) < done + 1:
        assert proc.poll() is None and time.time() < deadline, proc.stderr.read() if proc.poll() is not None else "stalled"
        time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)  # a scheduler's stop
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143 and "interrupted: saving a checkpoint" in err  # 128 + SIGTERM
    rows, meta = _history(out)
    assert meta["iterations_done"] == len(rows) > done and meta["env_config"]["max_pip"] == 9


def test_resume_takes_the_runs_opponents_in_any_order(mt_run, capsys):
    from domino_env.train.rllib import build_parser, resume_options

    parser = build_parser()
    argv = ["--resume", str(mt_run), "--opponents", "greedy", "random"]
    args = parser.parse_args(argv)
    resume_options(parser, args, argv)
    assert args.opponents == ["random", "greedy"] and args.mode == "opponents"  # the run's order
    argv = ["--resume", str(mt_run), "--opponents", "greedy"]
    with pytest.raises(SystemExit):
        resume_options(parser, parser.parse_args(argv), argv)
    assert "the run has --opponents random greedy, this command greedy" in capsys.readouterr().err


def test_a_signal_while_starting_stops_cleanly_and_leaves_no_folder(tmp_path):
    """SIGTERM while the algorithm was being built exited -15 / -6 with Ray's stack dump and left
    an empty --out folder; now 143, one line, no folder."""
    out = tmp_path / "never"
    proc = subprocess.Popen([sys.executable, "-m", "train.rllib", "--iterations", "5", "--eval-rounds", "0",
                             "--out", str(out), *SMALL], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.time() + 120
    while not out.exists():  # made once Ray runs, before the algorithm is built (seconds)
        assert proc.poll() is None and time.time() < deadline, "Ray did not start"
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143 and "interrupted while starting: nothing was trained" in err
    assert "Traceback" not in err and "logging.cc" not in err and not out.exists()


_IN_RAY_INIT = """
import os, signal, sys
import ray
from domino_env.train import rllib

real_init = ray.init
def init(**kwargs):
    if sys.argv[1] == "ray-exit":  # Ray's own driver handler, installed inside ray.init
        raise SystemExit(signal.SIGTERM)
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))  # a signal while Ray starts
    return real_init(**kwargs)

ray.init = init
before = signal.getsignal(signal.SIGTERM)
out, status = rllib._run(["--out", sys.argv[2], "--no-progress", "--num-cpus", "2"])
assert signal.getsignal(signal.SIGTERM) is before  # the handler it replaced is back
sys.exit(status)
"""


@pytest.mark.parametrize(("case", "status"), [("ray-exit", 143), ("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_inside_ray_init_waits_for_it_or_leaves_at_once(case, status, tmp_path):
    """A signal raised inside ray.init left a half-started Ray that crashed the process on its
    way out (-11 / -6): a signal is now noted until ray.init returns, then Ray is shut down; Ray's
    own SIGTERM exit inside ray.init leaves at once (143)."""
    out = tmp_path / "never"
    proc = subprocess.run([sys.executable, "-c", _IN_RAY_INIT, case, str(out)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == status, proc.stderr[-2000:]
    assert "interrupted while" in proc.stderr and "Traceback" not in proc.stderr and not out.exists()


def test_a_signal_during_the_final_evaluation_keeps_the_checkpoint(tmp_path):
    """SIGTERM during the final evaluation was a raw -15; now 143 and one line, the saved run
    loads and its metadata has no evaluation: it says the run was interrupted and the evaluation skipped."""
    out = tmp_path / "evaluating"
    proc = subprocess.Popen([sys.executable, "-m", "train.rllib", "--players", "2", "--max-pip", "9", "--iterations",
                             "1", "--eval-rounds", "100000", "--out", str(out), *SMALL],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    meta_file, deadline = out / METADATA_FILE, time.time() + 240

    def iterations_done():
        try:
            return json.loads(meta_file.read_text()).get("iterations_done")
        except (OSError, ValueError):  # not written yet, or being written
            return None

    while iterations_done() != 1:
        assert proc.poll() is None and time.time() < deadline, "training did not finish its iteration"
        time.sleep(0.2)
    time.sleep(3)  # Ray stopped, the evaluation running
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143 and (f"interrupted during the final evaluation (SIGTERM): the checkpoint of "
                                       f"iteration 1 is saved whole in {out}/checkpoint") in err  # fmt: skip
    assert "Traceback" not in err and "is skipped; run it with: domino-evaluate" in err
    _, meta = _history(out)
    assert "evaluation" not in meta and meta["iterations_done"] == 1
    assert (meta["interrupted"], meta["evaluation_skipped"]) == (True, "SIGTERM during the final evaluation")
    assert isinstance(make_agent(f"rllib:{out}", {"num_players": 2, "max_pip": 9}), PPOAgent)


def _strict(text):
    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_an_iteration_that_finishes_no_episode_after_one_that_did(tmp_path):
    """Batches shorter than an episode: RLlib reports the summed ``illegal_actions`` as NaN in an
    iteration without a finished episode once it was logged, and ``int(NaN)`` killed the run with
    a traceback and no checkpoint (so with ``--episode game`` or many envs per runner). Such an
    iteration's row has null means, and every file is strict JSON."""
    out = tmp_path / "short"
    run(["-m", "train.rllib", "--game", "mexican_train", "--players", "2", "--max-pip", "9",
         "--iterations", "3", "--eval-rounds", "0", "--out", str(out),
         *SMALL, "--batch-size", "32", "--minibatch-size", "32"])  # fmt: skip (the last one counts)
    rows = [_strict(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert [r["episodes"] for r in rows] == [0, 1, 1]  # the third iteration finished none
    assert rows[2]["episode_len_mean"] is None and rows[2]["main_win_rate"] is None
    assert rows[1]["episode_len_mean"] > 0 and 0 <= rows[1]["main_win_rate"] <= 1
    assert all(r["illegal_actions"] == 0 for r in rows)
    assert _strict((out / METADATA_FILE).read_text())["iterations_done"] == 3
