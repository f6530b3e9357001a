"""domino-rllib and signals: a SIGTERM before training starts, a second signal while the
checkpoint is written (real processes; the Ray runs are the smallest the command allows)."""

import json
import shlex
import subprocess
import sys

import pytest

SMALL = ["--batch-size", "128", "--minibatch-size", "64", "--epochs", "1", "--hidden", "16",
         "--num-env-runners", "0", "--num-cpus", "2", "--seed", "3", "--no-progress", "--eval-rounds", "0"]  # fmt: skip



def _run_draw_2p(script: str, out, iterations: int, *extra: str) -> subprocess.CompletedProcess:
    """``script`` (domino-rllib's main with a patch) on a small 2-player draw run into ``out``."""
    return subprocess.run([sys.executable, "-c", script, "--game", "draw", "--players", "2", "--iterations",
                           str(iterations), "--out", str(out), *extra, *SMALL],
                          capture_output=True, text=True, timeout=300)  # fmt: skip

def test_a_sigterm_while_the_flags_are_checked_is_one_line(tmp_path):
    """domino-rllib took SIGTERM over only after its flag checks (about 1.5 s in: the opponents
    loaded, ray found): a SIGTERM before that killed it silently (-15). Here the signal arrives
    while validate runs, in a real process."""
    code = ("import os, signal\n"
            "from domino_env.train import rllib\n"
            "real = rllib.validate\n"
            "def validate(*a, **k):\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return real(*a, **k)\n"
            "rllib.validate = validate\n"
            "from domino_env.train.cli import launch\n"
            "launch('domino-rllib', rllib.main)\n")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code, "--game", "draw", "--iterations", "1", *SMALL],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert (proc.returncode, proc.stderr) == (143, "domino-rllib: interrupted\n")
    assert not (tmp_path / "runs").exists()


_SAVE_INTERRUPTED = """
import sys
from pathlib import Path
from ray.rllib.algorithms.algorithm import Algorithm
from domino_env.train import rllib

real_save, calls = Algorithm.save_to_path, []
def save_to_path(self, path, *args, **kwargs):
    calls.append(path)
    real_save(self, path, *args, **kwargs)
    if len(calls) >= 2:  # a signal while RLlib writes: the module's weights are still empty
        (Path(path) / "learner_group/learner/rl_module/main/module_state.pkl").write_bytes(b"")
        raise KeyboardInterrupt
Algorithm.save_to_path = save_to_path
try:
    rllib._run(sys.argv[1:])
except KeyboardInterrupt as exc:
    print(len(calls), *exc.args, sep="|")
"""


def test_a_second_signal_while_the_checkpoint_is_written_keeps_the_earlier_one(tmp_path):
    """The checkpoint was written in place: a second Ctrl-C (or SIGTERM) while RLlib wrote it
    left an empty module_state.pkl, and the run could neither be played nor resumed. Here the
    first signal comes while iteration 2's checkpoint is written, the second while the
    interrupted run's is: the checkpoint of iteration 1 stays whole, with its metadata."""
    from domino_env.agents import make_agent
    from domino_env.agents.ppo import PPOAgent

    out = tmp_path / "run"
    proc = _run_draw_2p(_SAVE_INTERRUPTED, out, 2, "--checkpoint-every", "1")
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint", "domino_rllib.json", "progress.jsonl"]
    assert isinstance(make_agent(f"rllib:{out}", {"preset": "draw", "num_players": 2}), PPOAgent)
    for meta in (out / "domino_rllib.json", out / "checkpoint" / "domino_rllib.json"):
        data = json.loads(meta.read_text())
        assert (data["iterations_done"], len(data["history"]), data["interrupted"]) == (1, 1, False)
    assert proc.stdout.strip().splitlines()[-1] == (
        f"3|SIGINT|a second signal while the checkpoint was written; {out}/checkpoint is the one of iteration 1")


def test_a_resume_drops_the_progress_rows_after_the_checkpoint(tmp_path):
    """A run killed between checkpoints (SIGKILL, out of memory, a preempted node) has rows in
    progress.jsonl for iterations its checkpoint does not hold; --resume appended the iterations
    it trained again after them (iterations 1 2 3 3). Now progress.jsonl is the checkpoint's
    history, then the resumed rows."""
    out = tmp_path / "run"
    first = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--game", "draw", "--players", "2",
                            "--iterations", "2", "--checkpoint-every", "1", "--out", str(out), *SMALL],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert first.returncode == 0, first.stderr[-2000:]
    progress = out / "progress.jsonl"
    lost = {**json.loads(progress.read_text().splitlines()[-1]), "iteration": 3}
    with open(progress, "a") as f:  # iteration 3 trained, then the process was killed
        f.write(json.dumps(lost) + "\n")
    meta = json.loads((out / "domino_rllib.json").read_text())
    meta["history"][-1]["time_s"] = 1000.0  # as if the first command had trained 1000 s
    (out / "domino_rllib.json").write_text(json.dumps(meta))
    # while another command holds the run (a user trial: both trained into it at once), refused
    hold = "import sys, time; from domino_env.train.folder_lock import hold_run_folder as h; h(sys.argv[1]); print(1, flush=True); time.sleep(99)"
    holder = subprocess.Popen([sys.executable, "-c", hold, str(out)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "1\n"
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    busy = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--resume", str(out), "--iterations", "1",
                           "--num-cpus", "2", "--no-progress", "--eval-rounds", "0"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    holder.kill()
    holder.wait()
    assert busy.returncode == 2 and busy.stderr.count("\n") == 1, busy.stderr[-2000:]
    assert f"{out} is in use by another training command" in busy.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    again = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--resume", str(out), "--iterations", "1",
                            "--num-cpus", "2", "--no-progress", "--eval-rounds", "0"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    rows = [json.loads(line) for line in progress.read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [1, 2, 3]
    assert rows[1]["time_s"] == 1000.0 and rows[2]["time_s"] > 1000.0  # the run's time, not this command's
    assert rows == json.loads((out / "domino_rllib.json").read_text())["history"]


_SEEDS = """
import json, sys
from domino_env.agents.rllib.env import DominoMultiAgentEnv
from domino_env.train import rllib
from domino_env.train.rllib_config import SeatMapping

seeds, real_reset, real_init = [], DominoMultiAgentEnv.reset, SeatMapping.__init__
def reset(self, *, seed=None, options=None):
    if seed is not None:
        seeds.append(("env", seed))
    return real_reset(self, seed=seed, options=options)
def init(self, mode, num_players, pool=(), seed=0):
    seeds.append(("seating", seed))
    real_init(self, mode, num_players, pool, seed)
DominoMultiAgentEnv.reset, SeatMapping.__init__ = reset, init
out, status = rllib._run(sys.argv[1:])
print(json.dumps(seeds))
"""


def test_a_resumed_run_does_not_replay_the_deals_and_seatings_of_its_first_part(tmp_path):
    """--resume seeded the envs and the seat draws with --seed again, as at iteration 0: every
    resumed part of a run replayed the deals and seatings of its first part (domino-train draws a
    seed from --seed and the model's steps). Now a resumed part's seed comes from --seed and the
    iterations done: its own stream, the same for the same run and --seed."""
    out = tmp_path / "run"
    first = ["--game", "draw", "--players", "2", "--mode", "opponents", "--opponents", "random",
             "--iterations", "1", "--out", str(out), *SMALL]  # fmt: skip

    def seeds(argv):
        proc = subprocess.run([sys.executable, "-c", _SEEDS, *argv], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return {kind: seed for kind, seed in json.loads(proc.stdout.strip().splitlines()[-1])}

    assert seeds(first) == {"env": 3, "seating": 3}
    began = json.loads((out / "domino_rllib.json").read_text())["command"]
    resume = ["--resume", str(out), "--iterations", "1", "--num-cpus", "2", "--no-progress", "--eval-rounds", "0"]
    resumed = seeds(resume)
    assert resumed["env"] != 3 and resumed["seating"] == resumed["env"]
    meta = json.loads((out / "domino_rllib.json").read_text())
    assert (meta["args"]["seed"], meta["train_seed"]) == (3, resumed["env"])
    # the command that began the run stays in the metadata (it was replaced by the --resume one)
    assert meta["resumed_from"] == {"command": began, "iterations_done": 1, "interrupted": False, "failed": None,
                                    "resumed_from": None}
    assert "--resume" in meta["command"] and "--resume" not in began


def test_help_says_what_each_mode_does(capsys):
    """--mode's help said 'see the module docstring', which `domino-rllib --help` does not show."""
    import pytest

    from domino_env.train.rllib import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "docstring" not in text
    assert "self-play: every seat is the learner main; opponents: one seat is main, the others draw from --opponents" in text
    assert "league: one seat is main, the others draw from --league-size frozen snapshots of main" in text
    # and which sets each game takes (6 was listed for Mexican Train, then refused)
    assert "double-N set (default 12 for Mexican Train: 9, 12, 15, 18; line games: 6, 9, 12, default the preset's)" in text


_FIRST_SAVE_INTERRUPTED = """
import sys
from ray.rllib.algorithms.algorithm import Algorithm
from domino_env.train import rllib

real_save, calls = Algorithm.save_to_path, []
def save_to_path(self, path, *args, **kwargs):
    calls.append(path)
    real_save(self, path, *args, **kwargs)
    if len(calls) == 1:  # a first Ctrl-C while the run's final (and first) checkpoint is written
        raise KeyboardInterrupt
Algorithm.save_to_path = save_to_path
out, status = rllib._run(sys.argv[1:])
print(len(calls), status, sep="|")
"""


def test_a_first_signal_while_the_final_checkpoint_is_written_still_saves_it(tmp_path):
    """A first Ctrl-C while the final checkpoint was written (after the last iteration) aborted
    that save: a run with no earlier checkpoint kept only progress.jsonl ('no checkpoint was
    written'), neither playable nor resumable. Now it is saved again, as a Ctrl-C during training."""
    out = tmp_path / "run"
    proc = _run_draw_2p(_FIRST_SAVE_INTERRUPTED, out, 1)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "2|130"
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint", "domino_rllib.json", "progress.jsonl"]
    data = json.loads((out / "checkpoint" / "domino_rllib.json").read_text())
    assert (data["iterations_done"], len(data["history"]), data["interrupted"]) == (1, 1, True)
    assert "interrupted: saving a checkpoint (the run's 1 iterations)" in proc.stderr


_IGNORED = """
import os, signal, sys
from domino_env.train import rllib

from ray.rllib.algorithms.algorithm import Algorithm
real_train = Algorithm.train
def train(self):
    os.kill(os.getpid(), signal.SIGTERM)  # a SIGTERM the parent (nohup) told us to ignore
    return real_train(self)
Algorithm.train = train
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print(rllib.main(sys.argv[1:]))
"""


def test_a_sigterm_is_still_ignored_under_nohup(tmp_path):
    """With SIGTERM ignored by its parent (nohup), domino-rllib took it over anyway: a SIGTERM
    stopped the run (143, 'interrupted: saving a checkpoint'). Now it trains to the end."""
    out = tmp_path / "run"
    proc = _run_draw_2p(_IGNORED, out, 2)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "0"
    assert "interrupted" not in proc.stderr
    assert json.loads((out / "domino_rllib.json").read_text())["iterations_done"] == 2


def test_resume_finishes_a_checkpoint_swap_that_a_crash_cut_short(tmp_path):
    """A SIGKILL between save_checkpoint's two renames left checkpoint.old/ (whole) and no
    checkpoint/: --resume said "not a run folder". It now puts the earlier checkpoint back, or the
    new one when it was written whole."""
    import argparse

    from domino_env.train.rllib_resume import finish_checkpoint_swap, read_run

    parser = argparse.ArgumentParser(prog="domino-rllib")
    run = tmp_path / "run"
    (run / "checkpoint.old").mkdir(parents=True)
    (run / "checkpoint.old" / "domino_rllib.json").write_text('{"iterations": 4}')
    (run / "checkpoint.old" / "module_state.pkl").write_bytes(b"weights")
    (run / "checkpoint.saving").mkdir()  # the new one, never swapped in
    (run / "domino_rllib.json").write_text('{"iterations": 4}')
    assert read_run(parser, run) == {"iterations": 4}
    assert sorted(p.name for p in run.iterdir()) == ["checkpoint", "checkpoint.saving", "domino_rllib.json"]
    assert (run / "checkpoint" / "module_state.pkl").read_bytes() == b"weights"
    (run / "checkpoint.old").mkdir()  # both renames done, the old one not yet removed
    assert finish_checkpoint_swap(run) == "checkpoint.old/ removed"
    assert (run / "checkpoint" / "module_state.pkl").read_bytes() == b"weights"
    assert finish_checkpoint_swap(run) is None  # a whole run folder is left as it is
    # a user trial: the new checkpoint was written whole (its domino_rllib.json, written last, is
    # there) and was thrown away for the earlier one: now it is put in place, as the swap would have
    (run / "checkpoint").rename(run / "checkpoint.old")
    (run / "checkpoint.saving" / "module_state.pkl").write_bytes(b"newer weights")
    (run / "checkpoint.saving" / "domino_rllib.json").write_text('{"iterations": 6}')
    assert finish_checkpoint_swap(run).startswith("the new checkpoint, written whole, put in place")
    assert sorted(p.name for p in run.iterdir()) == ["checkpoint", "domino_rllib.json"]
    assert (run / "checkpoint" / "module_state.pkl").read_bytes() == b"newer weights"
    assert json.loads((run / "domino_rllib.json").read_text()) == {"iterations": 6}
    # an attacker: a crash after both renames, before the run's own copy was rewritten
    (run / "checkpoint.old").mkdir()
    (run / "domino_rllib.json").write_text('{"iterations": 4}')
    assert finish_checkpoint_swap(run) == "checkpoint.old/ removed, domino_rllib.json taken from checkpoint/"
    assert json.loads((run / "domino_rllib.json").read_text()) == {"iterations": 6}


def test_resume_puts_a_whole_first_checkpoint_left_in_checkpoint_saving_in_place(tmp_path):
    """The first save has no checkpoint/ to move aside: a crash after checkpoint.saving/ was
    written whole, before its rename, left progress.jsonl and checkpoint.saving/ only, and
    --resume said "nothing in it can be resumed". A checkpoint.saving/ not written whole is still
    nothing to resume."""
    import argparse

    from domino_env.train.rllib_resume import (
        finish_checkpoint_swap,
        holds_checkpoint,
        not_resumable,
        read_run,
    )

    run = tmp_path / "run"
    (run / "checkpoint.saving").mkdir(parents=True)
    (run / "progress.jsonl").write_text("{}\n")
    (run / "checkpoint.saving" / "module_state.pkl").write_bytes(b"weights")
    assert not holds_checkpoint(run) and finish_checkpoint_swap(run) is None  # not written whole
    assert not_resumable(run).startswith("holds progress.jsonl and checkpoint.saving but no checkpoint/")
    (run / "checkpoint.saving" / "domino_rllib.json").write_text('{"iterations": 1}')  # written last
    assert holds_checkpoint(run) and not_resumable(run) is None
    assert read_run(argparse.ArgumentParser(prog="domino-rllib"), run) == {"iterations": 1}
    assert sorted(p.name for p in run.iterdir()) == ["checkpoint", "domino_rllib.json", "progress.jsonl"]
    assert (run / "checkpoint" / "module_state.pkl").read_bytes() == b"weights"
    assert finish_checkpoint_swap(run) is None


def test_a_swap_in_a_run_another_command_holds_is_left_to_it(tmp_path):
    """An attacker: --resume finished a checkpoint swap in a run folder that another command held
    (perhaps making that very swap), then was refused as the folder was in use."""
    import argparse

    from domino_env.train.folder_lock import RunFolderBusyError
    from domino_env.train.rllib_resume import read_run

    run = tmp_path / "run"
    (run / "checkpoint.old").mkdir(parents=True)
    (run / "checkpoint.saving").mkdir()
    (run / "checkpoint.saving" / "domino_rllib.json").write_text("{}")
    hold = "import sys, time; from domino_env.train.folder_lock import hold_run_folder as h; h(sys.argv[1]); print(1, flush=True); time.sleep(99)"
    holder = subprocess.Popen([sys.executable, "-c", hold, str(run)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "1\n"
        with pytest.raises(RunFolderBusyError, match="is in use by another training command"):
            read_run(argparse.ArgumentParser(prog="domino-rllib"), run)
        assert sorted(p.name for p in run.iterdir()) == ["checkpoint.old", "checkpoint.saving"]
    finally:
        holder.kill()
        holder.wait()


_CRASH = """
import sys
from ray.rllib.algorithms.algorithm import Algorithm
from domino_env.train import rllib

real_train, calls = Algorithm.train, []
def train(self):
    calls.append(1)
    if len(calls) == 2:  # as RLlib re-raises an env's error: a bare RuntimeError from it
        raise RuntimeError from ValueError("an error inside the env")
    return real_train(self)
Algorithm.train = train
rllib._run(sys.argv[1:])
"""


def test_a_crash_during_training_keeps_the_iterations_trained_for_resume(tmp_path):
    """An error in an iteration (RLlib's own, say) left a run folder with only progress.jsonl:
    --resume called it "not a run folder" and --out refused it as not empty, so the run was
    lost. Now the iterations trained are saved (the metadata names the error), the error
    propagates, and --resume continues the run."""
    out = tmp_path / "run"
    proc = _run_draw_2p(_CRASH, out, 3)
    assert proc.returncode == 1 and proc.stderr.rstrip().endswith("RuntimeError")
    assert (f"training failed (ValueError: an error inside the env): saving a checkpoint (continue with: "
            f"python -m domino_env.train.rllib --resume {out} --iterations 2 --game draw --players 2 {shlex.join(SMALL)})"
            ) in proc.stderr  # fmt: skip
    meta = json.loads((out / "domino_rllib.json").read_text())
    assert (meta["iterations_done"], meta["interrupted"], meta["failed"]) == (1, True, "ValueError: an error inside the env")
    again = subprocess.run([sys.executable, "-m", "domino_env.train.rllib", "--resume", str(out), "--iterations", "2",
                            "--num-cpus", "2", "--no-progress", "--eval-rounds", "0"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    meta = json.loads((out / "domino_rllib.json").read_text())
    assert [r["iteration"] for r in meta["history"]] == [1, 2, 3] and "failed" not in meta
    assert meta["resumed_from"]["failed"] == "ValueError: an error inside the env"


_SWALLOWED = """
import os, signal, sys
from ray.rllib.algorithms.ppo import PPOConfig
from domino_env.train import rllib

real_build, where = PPOConfig.build_algo, sys.argv.pop(1)
def build_algo(self, *args, **kwargs):
    algo = real_build(self, *args, **kwargs)
    if where == "start":
        try:  # as a finalizer or callback that the signal's KeyboardInterrupt happens to run in
            os.kill(os.getpid(), signal.SIGTERM)
        except KeyboardInterrupt:
            pass
    else:
        real_train = algo.train
        def train():
            result = real_train()
            try:
                os.kill(os.getpid(), signal.SIGTERM)
            except KeyboardInterrupt:
                pass
            return result
        algo.train = train
    return algo
PPOConfig.build_algo = build_algo
sys.exit(rllib._run(sys.argv[1:])[1])
"""


def test_a_sigterm_whose_exception_is_swallowed_still_stops_the_run(tmp_path):
    """SIGTERM's handler raises KeyboardInterrupt wherever the main thread is; inside a finalizer
    or a library's ``except`` it was lost and the run trained on to exit 0 (a rare failure of
    the start-up signal test). The handler's note is checked after start-up and each iteration."""
    out = tmp_path / "start"
    proc = _run_draw_2p(_SWALLOWED.replace("sys.argv.pop(1)", '"start"'), out, 3)
    assert proc.returncode == 143 and "interrupted while starting: nothing was trained" in proc.stderr
    assert not out.exists()
    out = tmp_path / "train"
    proc = _run_draw_2p(_SWALLOWED.replace("sys.argv.pop(1)", '"train"'), out, 3)
    assert proc.returncode == 143 and f"interrupted: saving a checkpoint (continue with: python -m domino_env.train.rllib --resume {out} --iterations 2 --game draw" in proc.stderr
    assert json.loads((out / "domino_rllib.json").read_text())["iterations_done"] == 1


def test_resume_of_a_folder_missing_one_of_its_two_parts_says_which(tmp_path, capsys):
    """A run folder with domino_rllib.json but no checkpoint/ (or the other way round, with no copy
    to restore from) was called "not a run folder of domino-rllib (no domino_rllib.json /
    checkpoint/)"; it now says which part is there and which is missing."""
    import argparse

    from domino_env.train.rllib_resume import read_run

    said = {}
    for name, part in (("meta", "domino_rllib.json"), ("ck", "checkpoint"), ("empty", None)):
        run = tmp_path / name
        run.mkdir()
        if part == "checkpoint":
            (run / part).mkdir()
        elif part:
            (run / part).write_text("{}")
        with pytest.raises(SystemExit):
            read_run(argparse.ArgumentParser(prog="domino-rllib"), run)
        said[name] = capsys.readouterr().err.strip().splitlines()[-1]
    # (it said "with another --out": --resume has no --out of its own; a new run's command is meant)
    again = ("start the run again with --out NEW_FOLDER, or move out the files you keep, remove {0} and start it again "
             "with --out {0}")  # fmt: skip
    assert said == {
        "meta": f"domino-rllib: error: --resume {tmp_path / 'meta'}: domino_rllib.json is there but no checkpoint/ "
                f"(removed?): nothing to resume from; {again.format(tmp_path / 'meta')}",
        "ck": f"domino-rllib: error: --resume {tmp_path / 'ck'}: checkpoint/ is there but no domino_rllib.json, here "
              f"or in checkpoint/ (removed?): the run's options are lost, so it cannot be resumed; "
              f"{again.format(tmp_path / 'ck')}",
        "empty": f"domino-rllib: error: --resume {tmp_path / 'empty'}: not a run folder of domino-rllib (no "
                 "domino_rllib.json / checkpoint/)",
    }  # fmt: skip
