"""Resuming a finished ``--lr-schedule linear`` run with more ``--timesteps``: SB3 stretches the
schedule over the new total, so the learning rate jumps from 0 back up; the resume says from
where (a real ``domino-train`` run and its resume)."""

from tests.train.ppo_helpers import SMALL, run_ppo


def test_a_resumed_linear_schedule_says_where_it_restarts(tmp_path):
    out = tmp_path / "run"
    first = run_ppo([*SMALL, "--n-envs", "1", "--lr-schedule", "linear", "--timesteps", "1024", "--out", str(out)])
    assert first.returncode == 0, first.stderr
    assert "--lr-schedule linear" not in first.stderr  # (a fresh run: nothing to say)
    again = run_ppo([*SMALL, "--timesteps", "3072", "--resume", str(out), "--out", str(out)])
    assert again.returncode == 0, again.stderr
    # the schedule over 1,024 + 3,072 steps: at the model's 1,024 it is at 3/4 of --learning-rate 3e-4; SB3
    # sets the rate after each rollout, so the first update's is 3e-4 x (1 - 1,088 / 4,096) = 0.00022
    assert ("--resume: --lr-schedule linear runs over the new total of 4096 steps: the learning rate restarts from "
            "0.000225 (75.0% of --learning-rate 0.0003) at the model's 1024 steps (its first update, after a rollout "
            "of 64 steps, uses 0.00022) and decays to 0 at step 4096\n"
            in again.stderr)  # fmt: skip
