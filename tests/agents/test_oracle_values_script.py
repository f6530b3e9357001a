"""benchmarks/oracle_values.py, the command of the "oracle action values" rows of
docs/training_experiments.md's lever table: each stored value is the round the engine plays from
that move, ``collect`` is reproducible, ``fit`` writes a model that loads as ``ppo:`` and moves only
when told to, and bad input is one line (real processes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from benchmark_scripts import load_script, script_path

from domino_env.agents.mexican_train import PlannerAgent
from domino_env.agents.ppo import load_ppo_agent
from domino_env.envs.mexican_train_v0 import raw_env
from domino_env.train.tournament import deal_seed

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = script_path("oracle_values")



def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True, timeout=600, cwd=ROOT)


@pytest.mark.parametrize("continuation", ["planner", "model"])
def test_each_value_is_the_round_played_from_that_move(continuation):
    """Replay by hand: apply the move to a copy of the true state, let the planner play the other
    seats and (continuation) the seat itself, and read the seat's credit and pips."""
    ov = load_script("oracle_values")
    env = raw_env()
    model = load_ppo_agent(ov.RELEASE, env.config)
    planner = PlannerAgent(env.config)
    rng = np.random.default_rng(0)
    env.reset(seed=deal_seed(3, 0))
    checked = differ = 0
    while not env.game_state.round_over and checked < 6:
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        obs = env.observe(agent)
        legal = np.flatnonzero(obs["action_mask"])
        if seat == 0 and len(legal) >= 2:
            credit, pips = ov.move_values(env, seat, model, planner, continuation, rng)
            assert np.isnan(credit).sum() == len(credit) - len(legal)  # NaN exactly off the legal moves
            for a in legal:
                st = env.game_state.copy()
                st.apply(int(a))
                while not st.round_over:
                    s = st.current_player
                    if s == seat and continuation == "model":
                        m = env.encoder.mask(st, s)
                        st.apply(int(model(env.encoder.observe(st, s), m, rng)))
                    else:
                        st.apply(planner.state_move(st))
                result = st.round_result
                assert pips[a] == result.pips[seat]
                assert credit[a] == (1.0 / len(result.winners) if seat in result.winners else 0.0)
            differ += len(set(pips[legal].tolist())) > 1
            checked += 1
        env.step(int(planner(obs["observation"], obs["action_mask"], rng)))
    assert checked >= 3 and differ >= 1  # real choices, some of which change the round


def test_collect_is_reproducible_and_fit_writes_a_loadable_model(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    for out in (a, b):
        done = _run("collect", "--rounds", "4", "--seed", "7", "--continuation", "planner", "--out", str(out), "--no-progress")
        assert done.returncode == 0, done.stderr
    assert "decisions of 4 rounds written" in done.stdout
    with np.load(a) as x, np.load(b) as y:
        for key in ("observations", "masks", "actions", "credit", "pips", "rounds"):
            np.testing.assert_array_equal(x[key], y[key])
        assert sorted(set(x["rounds"].tolist())) == [0, 1, 2, 3]
        assert "--continuation planner" in str(x["command"]) and int(x["seed"]) == 7
        credit = x["credit"]
    # two files of one seed hold the same deals: one round each, held out or kept as a whole
    assert sorted(set(load_script("oracle_values").load([a, b], 457)["rounds"].tolist())) == [0, 1, 2, 3]
    assert np.isin(credit[~np.isnan(credit)], [0.0, 0.5, 1 / 3, 0.25, 1.0]).all()
    # lr 0: the written model plays as the start model; its metadata names this command
    out = tmp_path / "model"
    done = _run("fit", str(a), str(b), "--out", str(out), "--epochs", "1", "--lr", "0", "--val-fraction", "0.25", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "epoch 1: held-out gain" in done.stdout
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["command"].startswith("python benchmarks/oracle_values.py fit") and "--lr 0" in meta["command"]
    assert meta["initialized_from"].endswith("mexican_train_4p_d12_action_scores")
    # nothing held out (--val-fraction 0, or too few rounds for 15%) is a run, not a ZeroDivisionError
    done = _run("fit", str(a), "--out", str(tmp_path / "all"), "--epochs", "1", "--val-fraction", "0", "--no-progress")
    assert done.returncode == 0 and "no rounds held out" in done.stdout, done.stderr
    env = raw_env()
    start, fitted = load_ppo_agent(load_script("oracle_values").RELEASE, env.config), load_ppo_agent(out, env.config)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs = env.observe(env.agent_selection)
        move = start(obs["observation"], obs["action_mask"], rng)
        assert fitted(obs["observation"], obs["action_mask"], rng) == move
        env.step(move)
        if env.game_state.round_over:
            break


def test_bad_input_is_one_line(tmp_path):
    (tmp_path / "corrupt.npz").write_bytes(b"not a zip")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    (tmp_path / "notes.npz").write_text("keep me")
    (tmp_path / "file").write_text("")
    for argv, message in (
        (["fit", str(tmp_path / "corrupt.npz"), "--out", str(tmp_path / "m")], "corrupt.npz: not a .npz archive"),
        (["fit", str(tmp_path / "other.npz"), "--out", str(tmp_path / "m")], "not a file of oracle_values.py collect"),
        (["fit", str(tmp_path / "other.npz"), "--out", str(tmp_path / "file")], "--out"),
        (["fit", str(tmp_path / "other.npz"), "--out", str(tmp_path / "m"), "--model", str(ROOT / "checkpoints" / "mexican_train_4p_d12")],
         "not an action-scoring model"),
        (["collect", "--out", str(tmp_path / "notes.npz")], "it would be overwritten"),
        (["collect", "--out", str(tmp_path / "file" / "v.npz")], "--out"),
        (["fit", str(tmp_path / "none.npz"), "--out", str(tmp_path / "m")], "none.npz: no such file"),
        (["collect", "--rounds", "0", "--out", str(tmp_path / "v.npz")], "--rounds"),
        (["collect", "--out", str(tmp_path / "v.npz"), "--model", str(tmp_path)], "--model"),
        (["collect", "--out", str(tmp_path)], "a folder"),
    ):
        done = _run(*argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert message in done.stderr and "Traceback" not in done.stderr
    assert (tmp_path / "notes.npz").read_text() == "keep me" and not (tmp_path / "m").exists()


def test_ctrl_c_is_one_line_and_leaves_no_file_or_worker(tmp_path):
    """A real SIGINT to the whole process group (a terminal's Ctrl-C) during collection."""
    import os
    import signal
    import time

    out = tmp_path / "v.npz"
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "collect", "--rounds", "400", "--out", str(out), "--no-progress"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    time.sleep(6)  # the spawned workers are playing
    assert proc.poll() is None
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGINT  # killed by it after its line: a shell's 130
    assert err.strip() == "oracle_values.py: interrupted"  # no worker's traceback
    assert not out.exists() and list(tmp_path.iterdir()) == []
    left = b""
    for _ in range(50):  # no worker left (multiprocessing's resource tracker ends when it sees its pipe close)
        left = subprocess.run(["pgrep", "-a", "-g", str(proc.pid)], capture_output=True).stdout
        if not left:
            break
        time.sleep(0.2)
    assert left == b""


@pytest.mark.parametrize("attempt", range(3))
def test_ctrl_c_while_the_workers_start_is_one_line(attempt, tmp_path):
    """A Ctrl-C to the process group as the spawned workers start: a worker still importing printed
    its KeyboardInterrupt traceback (the workers now start with SIGINT blocked), and one still
    reading its start-up data from the parent printed EOFError (the parent, interrupted while the
    pool was made, left without stopping it)."""
    import os
    import signal
    import time

    out = tmp_path / "v.npz"
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "collect", "--rounds", "400", "--out", str(out), "--no-progress"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    deadline = time.time() + 60
    while not subprocess.run(["pgrep", "-f", "-g", str(proc.pid), "spawn_main"], capture_output=True).stdout:
        assert proc.poll() is None and time.time() < deadline, "no worker started"
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGINT and err.strip() == "oracle_values.py: interrupted", err
    assert not out.exists()
