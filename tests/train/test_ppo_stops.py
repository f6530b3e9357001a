"""Where a stop lands in training: a signal during PPO's update skips the evaluation due next, a
stop inside a rollout saves the model with the steps it was trained on (so a resume counts from
there), and a time limit says so on the console (fresh-user findings)."""

from __future__ import annotations

import json
import os
import signal

import pytest
from ppo_helpers import SMALL

from domino_env.train import ppo
from domino_env.train.callbacks import TrainingCallback


def test_a_signal_during_the_update_skips_the_evaluation_due_next(tmp_path, monkeypatch, capsys):
    """It played the whole evaluation (18 s of 600 rounds in the report) before stopping."""
    from sb3_contrib import MaskablePPO

    real_train = MaskablePPO.train

    def train_then_signal(self):
        real_train(self)
        if self.num_timesteps >= 128:  # the update of the second rollout; an evaluation is due next
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(MaskablePPO, "train", train_then_signal)
    evaluated: list[int] = []
    real_eval = TrainingCallback.run_evaluation
    monkeypatch.setattr(TrainingCallback, "run_evaluation", lambda cb: (evaluated.append(cb.num_timesteps), real_eval(cb))[1])
    out = tmp_path / "run"
    args = [*SMALL, "--timesteps", "100000", "--n-envs", "1", "--vec-env", "dummy", "--eval-freq", "128",
            "--eval-rounds", "2", "--eval-opponents", "greedy", "--quiet", "--out", str(out)]  # fmt: skip
    assert ppo.run(args) == (out, "SIGTERM")
    meta = json.loads((out / "metadata.json").read_text())
    assert evaluated == []  # the evaluation due at 128 steps was not played
    assert meta["stopped_early"] == "SIGTERM at 128 steps (before an evaluation)"
    assert meta["status"] == "interrupted" and meta["evaluations"] == []
    # SB3 plays the new rollout's first step before the callback can stop it: dropped, not trained
    assert (meta["timesteps"], meta["timesteps_trained"], meta["timesteps_played"]) == (128, 128, 129)
    # the console says it too, as metadata.json does
    assert "training interrupted by SIGTERM at 129 steps (the model has the 128 of its last whole rollout) " \
        "(the evaluation due at 128 steps is not made); saved" in capsys.readouterr().err


def test_a_signal_during_a_periodic_evaluation_drops_it_and_says_so(tmp_path, monkeypatch, capsys):
    """The console said only "interrupted by SIGINT at 2050 steps" where metadata.json said the
    evaluation was dropped (fresh-user trial)."""
    from domino_env.train import callbacks

    def evaluation_with_a_signal(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # the handler raises TrainingInterrupted at once
        raise AssertionError("the signal did not stop the evaluation")

    monkeypatch.setattr(callbacks, "evaluate_vs_ladder", evaluation_with_a_signal)
    out = tmp_path / "run"
    args = [*SMALL, "--timesteps", "100000", "--n-envs", "1", "--vec-env", "dummy", "--eval-freq", "128",
            "--eval-rounds", "2", "--eval-opponents", "greedy", "--quiet", "--out", str(out)]  # fmt: skip
    assert ppo.run(args) == (out, "SIGINT")
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["stopped_early"] == "SIGINT at 128 steps (during an evaluation)" and meta["evaluations"] == []
    err = capsys.readouterr().err
    assert "training interrupted by SIGINT at 129 steps (the model has the 128 of its last whole rollout) " \
        "(the evaluation due at 128 steps is not made); saved" in err, err


def test_a_stop_inside_the_first_rollout_says_the_model_is_untrained(tmp_path, monkeypatch, capsys):
    """It said "(the model has the 0 of its last whole rollout)"."""
    real_on_step = TrainingCallback._on_step

    def on_step_with_a_signal(cb):
        if cb.num_timesteps == 10:
            os.kill(os.getpid(), signal.SIGINT)
        return real_on_step(cb)

    monkeypatch.setattr(TrainingCallback, "_on_step", on_step_with_a_signal)
    out = tmp_path / "run"
    assert ppo.run([*SMALL, "--n-envs", "1", "--vec-env", "dummy", "--timesteps", "256", "--out", str(out)]) == (out, "SIGINT")
    err = capsys.readouterr().err
    assert "training interrupted by SIGINT at 10 steps (before its first whole rollout: the model is untrained); saved" in err


def test_a_stop_inside_a_rollout_saves_the_trained_step_count_and_a_resume_counts_from_it(tmp_path, monkeypatch, capsys):
    """The saved model counted the dropped rollout's steps (3,780 played, 2,048 trained in the
    report), so a resumed run labelled its evaluations 1,732 steps too high."""
    from sb3_contrib import MaskablePPO

    real_on_step = TrainingCallback._on_step

    def on_step_with_a_signal(cb):
        if cb.num_timesteps == 64 + 10:  # 10 steps into the second rollout
            os.kill(os.getpid(), signal.SIGINT)
        return real_on_step(cb)

    monkeypatch.setattr(TrainingCallback, "_on_step", on_step_with_a_signal)
    out = tmp_path / "run"
    base = [*SMALL, "--n-envs", "1", "--vec-env", "dummy", "--eval-freq", "64", "--eval-rounds", "2",
            "--eval-opponents", "greedy"]  # fmt: skip
    assert ppo.run([*base, "--timesteps", "256", "--out", str(out)]) == (out, "SIGINT")
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["stopped_early"] == "SIGINT at 74 steps (the model has the 64 of its last whole rollout)"
    assert (meta["timesteps"], meta["timesteps_trained"], meta["timesteps_played"]) == (64, 64, 74)
    assert MaskablePPO.load(out / "model.zip").num_timesteps == 64
    err = capsys.readouterr().err
    assert "training interrupted by SIGINT at 74 steps (the model has the 64 of its last whole rollout)" in err
    assert f"--resume {out} --out {out} --timesteps 192" in err  # 256 - 64: the dropped steps are redone

    monkeypatch.setattr(TrainingCallback, "_on_step", real_on_step)
    assert ppo.run([*base, "--resume", str(out), "--out", str(out), "--timesteps", "192", "--quiet"]) == (out, None)
    done = json.loads((out / "metadata.json").read_text())
    assert [e["timesteps"] for e in done["evaluations"]] == [64, 128, 192, 256]  # 138, 202, 266 before
    assert done["timesteps"] == done["timesteps_played"] == 256


def _run_on_a_fake_clock(tmp_path, monkeypatch, timesteps: str, limit: str):
    """A run with ``--time-limit LIMIT`` on a clock that moves one second a call: ``(out, metadata)``."""
    import time

    clock = iter(range(10**6))
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(clock)))
    out = tmp_path / "run"
    args = [*SMALL, "--n-envs", "1", "--vec-env", "dummy", "--timesteps", timesteps, "--time-limit", limit,
            "--out", str(out)]  # fmt: skip
    assert ppo.run(args) == (out, None)
    return out, json.loads((out / "metadata.json").read_text())


def test_a_time_limit_stop_says_so_and_how_to_continue(tmp_path, monkeypatch, capsys):
    """The run ended with exit 0 and only the table title hinted at the limit."""
    out, meta = _run_on_a_fake_clock(tmp_path, monkeypatch, "100000", "120s")
    assert meta["stopped_early"].startswith("time limit of 2 min reached at ") and meta["timesteps"] >= 64
    assert meta["stopped_early"] == (f"time limit of 2 min reached at {meta['timesteps_played']} steps (the model "
                                     f"has the {meta['timesteps']} of its last whole rollout)")  # a rollout cut short
    printed = capsys.readouterr().out
    assert f"training stopped early: {meta['stopped_early']}; saved {out / 'model.zip'}; continue with: " in printed
    assert f"--resume {out} --out {out} --timesteps {100000 - meta['timesteps']}" in printed


def test_a_time_limit_before_the_first_whole_rollout_says_nothing_was_trained(tmp_path, monkeypatch, capsys):
    """Its continue command stopped at 0 trained steps again, for ever; now the line says why and
    gives no such command."""
    _, meta = _run_on_a_fake_clock(tmp_path, monkeypatch, "1000", "2s")
    assert meta["timesteps"] == 0 and 0 < meta["timesteps_played"] < 64
    played = meta["timesteps_played"]  # seconds, as given; what the model holds, as the line says
    assert meta["stopped_early"] == (f"time limit of 2 s reached at {played} steps (before its first whole "
                                     "rollout: the model is untrained)")  # fmt: skip
    captured = capsys.readouterr()
    assert (f"training stopped early: time limit of 2 s reached at {played} steps, before its first whole rollout (64 x 1 steps): "
            "nothing was trained; give a longer --time-limit or a smaller --n-steps") in captured.err
    assert "continue with" not in captured.out + captured.err


def test_a_resumed_run_does_not_replay_the_deals_of_the_run_it_continues(tmp_path, monkeypatch):
    """A resume seeded its envs with --seed again, as at step 0: the deals do not depend on the
    play, so every resumed part of a run (a --time-limit chunk, an interrupted run) trained on the
    same deals, opponents and seats as the first part, in the same order."""
    from domino_env.train.learner_env import LearnerEnv
    from domino_env.train.start_model import continued_seed

    seeds: list[int] = []
    firsts: list[bytes] = []
    real_reset = LearnerEnv.reset

    def reset(self, *, seed=None, options=None):
        out = real_reset(self, seed=seed, options=options)
        if seed is not None:  # the envs' seeding reset: the first deal of this part
            seeds.append(seed)
            firsts.append(self.raw_observation.tobytes())
        return out

    monkeypatch.setattr(LearnerEnv, "reset", reset)
    out = tmp_path / "run"
    base = [*SMALL, "--n-envs", "1", "--vec-env", "dummy", "--timesteps", "64", "--quiet"]
    assert ppo.run([*base, "--out", str(out)]) == (out, None)
    assert ppo.run([*base, "--resume", str(out), "--out", str(out)]) == (out, None)
    assert seeds[0] == 1 and seeds[-1] == continued_seed(1, 64) != 1  # not 1 again
    assert firsts[-1] != firsts[0]  # another first deal
    meta = json.loads((out / "metadata.json").read_text())
    assert (meta["seed"], meta["train_seed"]) == (1, continued_seed(1, 64))
    seeds.clear()
    again = tmp_path / "again"  # the same model and --seed give the same stream: reproducible
    assert ppo.run([*base, "--resume", str(out), "--out", str(again)]) == (again, None)
    assert seeds[-1] == continued_seed(1, 128)
    assert continued_seed(1, 0) == 1  # a model with no steps (a domino-bc clone) starts as a fresh run


def test_a_model_resumed_twice_keeps_every_command_that_made_it(tmp_path):
    """``resumed_from`` held the command of the run resumed only: after a second resume the command
    that began the model (its seed, rules, first steps) was in no metadata any more."""
    out = tmp_path / "run"
    base = [*SMALL, "--n-envs", "1", "--vec-env", "dummy", "--timesteps", "64", "--quiet"]
    ppo.run([*base, "--out", str(out)])
    first = json.loads((out / "metadata.json").read_text())["command"]
    ppo.run([*base, "--resume", str(out), "--out", str(out)])
    second = json.loads((out / "metadata.json").read_text())["command"]
    ppo.run([*base, "--resume", str(out), "--out", str(out)])
    meta = json.loads((out / "metadata.json").read_text())
    chain = meta["resumed_from"]
    assert (chain["command"], chain["timesteps"]) == (second, 128)
    assert (chain["resumed_from"]["command"], chain["resumed_from"]["timesteps"]) == (first, 64)
    assert "resumed_from" not in chain["resumed_from"] and meta["timesteps"] == 192


def test_a_sigterm_while_the_flags_are_checked_is_one_line(tmp_path):
    """domino-train took over SIGTERM only after its checks and `import torch` (about a second in):
    a SIGTERM before that killed it silently (-15), where domino-bc says it in one line (143).
    Here the signal arrives while check_args runs, in a real process."""
    import subprocess
    import sys

    code = ("import os, signal, sys\n"
            "from domino_env.train import ppo\n"
            "real = ppo.check_args\n"
            "def check_args(*a, **k):\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return real(*a, **k)\n"
            "ppo.check_args = check_args\n"
            "from domino_env.train.cli import launch\n"
            "launch('domino-train', ppo.main)\n")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code, *SMALL, "--timesteps", "64"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert (proc.returncode, proc.stderr) == (143, "domino-train: interrupted\n")
    assert not (tmp_path / "runs").exists()


def test_a_resume_after_a_hard_stop_keeps_the_best_model(tmp_path):
    """A run killed (SIGKILL, a full disk) leaves the metadata of its start, which had no
    ``eval_seed``: the resume found the ladders different, and its first evaluation replaced
    ``best_model.zip`` whatever it scored. Here every earlier evaluation scored 1.0, so none after
    the resume may be best."""
    run = tmp_path / "run"
    ladder = ["--eval-freq", "64", "--eval-rounds", "4", "--eval-opponents", "random"]
    k = SMALL.index("--eval-freq")
    base = SMALL[:k] + SMALL[k + 2 :]
    ppo.train([*base, *ladder, "--timesteps", "128", "--n-envs", "1", "--vec-env", "dummy", "--quiet", "--out", str(run)])
    history = json.loads((run / "evaluations.json").read_text())
    for e in history:
        for r in e["results"].values():
            r["win_rate"] = 1.0
    (run / "evaluations.json").write_text(json.dumps(history))
    meta = json.loads((run / "metadata.json").read_text())
    meta.pop("eval_seed")  # what a hard stop leaves: the metadata of the start (an older one's), status training
    (run / "metadata.json").write_text(json.dumps({**meta, "status": "training", "evaluations": history}))
    best = (run / "best_model.zip").read_bytes()
    ppo.train([*base, *ladder, "--resume", str(run), "--out", str(run), "--timesteps", "128", "--n-envs", "1",
               "--vec-env", "dummy", "--quiet"])  # fmt: skip
    after = json.loads((run / "evaluations.json").read_text())
    assert len(history) == 2 and len(after) == 4 and not any(e.get("best") for e in after[2:])
    assert (run / "best_model.zip").read_bytes() == best
    assert json.loads((run / "metadata.json").read_text())["eval_seed"] == 1001


def test_the_best_to_beat_counts_only_evaluations_on_this_ladder():
    """A run resumed on another ladder, then again on that one: the best to beat mixed in the
    first ladder's scores (1.0 against random), so no later model replaced best_model.zip."""
    from types import SimpleNamespace

    def entry(score, ladder=None):
        e = {"timesteps": 1, "results": {"x": {"win_rate": score}}}
        return e if ladder is None else {**e, "ladder": ladder}

    a, b = {"opponents": ["random"], "rounds": 4, "seed": 1001, "partner": "opponents"}, {"opponents": ["greedy"]}
    cb = SimpleNamespace(s=SimpleNamespace(ladder=lambda: b), best=float("-inf"))
    assert TrainingCallback.carry_over(cb, [entry(1.0, a), entry(0.5, b), entry(0.25, b)], True) is True
    assert cb.best == 0.5
    cb.best = float("-inf")  # entries from before the ladder was kept: the run's own ladder decides
    assert TrainingCallback.carry_over(cb, [entry(0.75), entry(0.5, b)], same_ladder=True) and cb.best == 0.75
    cb.best = float("-inf")
    assert TrainingCallback.carry_over(cb, [entry(0.75), entry(0.5, a)], same_ladder=False) is False
    assert cb.best == float("-inf")


def test_a_resume_on_another_ladder_says_a_new_best_record_starts(tmp_path, capsys):
    run = tmp_path / "run"
    k = SMALL.index("--eval-freq")
    base = [*SMALL[:k], *SMALL[k + 2 :], "--eval-freq", "64", "--eval-rounds", "4", "--n-envs", "1", "--vec-env", "dummy"]
    ppo.train([*base, "--eval-opponents", "random", "--timesteps", "64", "--quiet", "--out", str(run)])
    capsys.readouterr()
    ppo.train([*base, "--eval-opponents", "greedy", "--timesteps", "64", "--resume", str(run), "--out", str(run)])
    assert ("--resume: the run's earlier evaluations were made on another ladder (opponents, rounds, seed or seating): "
            "they stay in evaluations.json, and this run's first evaluation makes the new best_model.zip"
            in capsys.readouterr().err)  # fmt: skip
    after = json.loads((run / "evaluations.json").read_text())
    assert [e["ladder"]["opponents"] for e in after] == [["random"], ["greedy"]] and after[1]["best"]


def test_best_model_zip_is_written_after_the_evaluations_that_name_it(tmp_path, monkeypatch):
    """A stop between the two files (a full disk at evaluations.json, SIGKILL) left a new
    best_model.zip whose score was in no evaluations.json: a resume then had a lower score to
    beat, and a worse model could replace it."""
    import errno

    from domino_env.train.run_folder import RunFolder

    def full(self, history):
        raise OSError(errno.ENOSPC, "No space left on device", str(self.path / "evaluations.json"))

    monkeypatch.setattr(RunFolder, "write_evaluations", full)
    run = tmp_path / "run"
    k = SMALL.index("--eval-freq")
    args = [*SMALL[:k], *SMALL[k + 2 :], "--eval-freq", "64", "--eval-rounds", "4", "--eval-opponents", "random",
            "--n-envs", "1", "--vec-env", "dummy", "--timesteps", "64", "--quiet", "--out", str(run)]  # fmt: skip
    with pytest.raises(OSError, match="No space left"):
        ppo.train(args)
    assert not (run / "best_model.zip").exists()
