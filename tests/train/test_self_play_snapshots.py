"""``--self-play`` with no snapshot before the run's last step did nothing (the opponents all
scripted) yet the start line said "self-play 0.5": it is refused, as other options that would do
nothing are, and ``metadata.json`` records the snapshots a run took (real ``domino-train`` runs)."""

import json

from tests.train.ppo_helpers import SMALL, run_ppo

NO_SNAPSHOT = ("domino-train: error: --self-play 0.5: the first snapshot of the learner (every --snapshot-freq {freq} "
               "steps) would come at step {first}, but the run ends at step {end} (--timesteps {steps}{after}): no "
               "self-play; give a --snapshot-freq below {below} or more --timesteps")  # fmt: skip


def test_self_play_without_a_snapshot_in_the_run_is_refused_before_any_work(tmp_path):
    for freq in ("50000", "2048"):  # the default; and one at the last step, after which nothing is played
        r = run_ppo([*SMALL, "--n-envs", "1", "--self-play", "0.5", "--timesteps", "2048", "--snapshot-freq", freq,
                     "--out", str(tmp_path / "sp")])  # fmt: skip
        assert r.returncode == 2, r.stderr
        assert NO_SNAPSHOT.format(freq=freq, first=freq, end=2048, steps=2048, after="", below=2048) in r.stderr
        assert not (tmp_path / "sp").exists()
    # 3 envs: the step count goes 3 at a time, so the multiple 100 is met at 102, the run's last step
    r = run_ppo([*SMALL, "--n-envs", "3", "--vec-env", "dummy", "--n-steps", "34", "--batch-size", "34",
                 "--self-play", "0.5", "--timesteps", "102", "--snapshot-freq", "100", "--out", str(tmp_path / "sp")])  # fmt: skip
    assert r.returncode == 2, r.stderr
    assert NO_SNAPSHOT.format(freq=100, first=102, end=102, steps=102, after="", below=100) in r.stderr
    assert not (tmp_path / "sp").exists()


def test_the_snapshots_taken_are_recorded_and_a_resume_counts_from_the_model_steps(tmp_path):
    out = tmp_path / "sp"
    r = run_ppo([*SMALL, "--n-envs", "1", "--self-play", "0.5", "--timesteps", "2048", "--snapshot-freq", "1024",
                 "--out", str(out)])  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "metadata.json").read_text())["self_play_snapshots"] == {"taken": 2, "first_step": 1024}
    assert "[self-play @ 1024 steps] snapshot 1 of the learner taken; opponent seats draw from the last 1\n" in r.stderr
    # resumed at 2,048 steps for 1,024 more: a snapshot every 4,096 would first come at 4,096
    resume = [*SMALL, "--self-play", "0.5", "--timesteps", "1024", "--resume", str(out), "--out", str(out)]
    r = run_ppo([*resume, "--snapshot-freq", "4096"])
    assert r.returncode == 2, r.stderr
    assert NO_SNAPSHOT.format(freq=4096, first=4096, end=3072, steps=1024, after=" after the resumed model's 2048",
                              below=1024) in r.stderr  # fmt: skip
    r = run_ppo([*resume, "--snapshot-freq", "3000"])  # its first at 3,000, within the run: this run's only one
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "metadata.json").read_text())["self_play_snapshots"] == {"taken": 1, "first_step": 3000}
