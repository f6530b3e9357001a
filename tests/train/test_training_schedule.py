"""domino-train's periodic schedule (``TrainingCallback``): evaluations and self-play snapshots at
multiples of their frequency, also when a run is resumed, and the snapshot pool's cap."""

import pytest


@pytest.mark.parametrize("start, eval_at, snapshot_at", [(0, 2048, 1000), (5122, 6144, 6000), (6144, 8192, 7000)])
def test_periodic_schedules_keep_to_multiples_of_their_frequency_when_resumed(start, eval_at, snapshot_at):
    """A run resumed at 5,122 steps with --eval-freq 2048 evaluated past 7,170 (5,122 + 2,048),
    not past 6,144 as docs/training.md says (the first rollout boundary past each multiple)."""
    from types import SimpleNamespace

    from domino_env.train.callbacks import Schedule, TrainingCallback

    schedule = Schedule(rules={}, game="mexican_train", episode="round", eval_freq=2048, eval_rounds=8,
                        eval_opponents=["greedy"], eval_seed=0, self_play=0.5, snapshot_freq=1000,
                        max_snapshots=2, start=0.0, deadline=None, time_limit=None)  # fmt: skip
    callback = TrainingCallback(schedule, folder=None, vec_env=None, stop=None)
    callback.model = SimpleNamespace(num_timesteps=start)
    callback.num_timesteps = start
    callback._on_training_start()
    assert (callback.next_eval, callback.next_snapshot) == (eval_at, snapshot_at)


def test_self_play_keeps_only_the_last_max_snapshots():
    """--max-snapshots: every --snapshot-freq steps the live policy joins the self-play pool, and
    only the newest --max-snapshots stay (in the callback and in what the envs are sent)."""
    from types import SimpleNamespace

    from domino_env.train.callbacks import Schedule, TrainingCallback

    schedule = Schedule(rules={}, game="mexican_train", episode="round", eval_freq=0, eval_rounds=0,
                        eval_opponents=[], eval_seed=0, self_play=0.5, snapshot_freq=100,
                        max_snapshots=3, start=0.0, deadline=None, time_limit=None)  # fmt: skip
    sent = []
    vec_env = SimpleNamespace(env_method=lambda name, pool: sent.append((name, list(pool))))
    callback = TrainingCallback(schedule, folder=None, vec_env=vec_env, stop=SimpleNamespace(received=None))
    made = iter(range(100))
    callback.agent = lambda deterministic=True, name="ppo": (name, deterministic, next(made))
    callback.locals = {}
    callback.num_timesteps = 0
    callback._on_training_start()
    for steps in range(50, 651, 50):  # snapshots at 100, 200, ..., 600: six of them
        callback.num_timesteps = steps
        assert callback._on_step()
    assert callback.snapshots == [("self", False, k) for k in (3, 4, 5)]
    assert [len(pool) for _, pool in sent] == [1, 2, 3, 3, 3, 3]
    assert sent[-1] == ("set_snapshots", callback.snapshots)
