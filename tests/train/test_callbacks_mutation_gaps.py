"""``train/callbacks.py`` behaviour no other test pinned (found by mutation testing): the rolling
training win rate (a point every 200 finished episodes), one periodic evaluation however many
``--eval-freq`` steps passed, what each evaluation logs and writes (a tie keeps the earlier
best), the ladder an evaluation is measured on, and :class:`StopSignals`' half second and the
handlers it gives back."""

import json
import signal
from types import SimpleNamespace

import pytest

from domino_env.train import callbacks
from domino_env.train.callbacks import Schedule, StopSignals, TrainingCallback, TrainingInterrupted
from domino_env.train.run_folder import RunFolder


def _schedule(**changes):
    values = dict(rules={"num_players": 4, "max_pip": 12}, game="mexican_train", episode="round", eval_freq=0,
                  eval_rounds=8, eval_opponents=["greedy", "random"], eval_seed=5, self_play=0.0, snapshot_freq=100,
                  max_snapshots=2, start=0.0, deadline=None, time_limit=None)  # fmt: skip
    return Schedule(**{**values, **changes})


class _Logger:
    def __init__(self):
        self.records: list[tuple[str, float]] = []
        self.dumps: list[int] = []

    def record(self, key, value):
        self.records.append((key, value))

    def dump(self, step):
        self.dumps.append(step)


class _Model:
    """What the callback reads of a model: its logger, and ``save`` (the step it was saved at)."""

    def __init__(self, cb):
        self.logger, self.cb = _Logger(), cb

    def save(self, file):
        file.write(f"model at {self.cb.num_timesteps}".encode())


def _callback(schedule, folder=None, stop=None):
    cb = TrainingCallback(schedule, folder, None, stop or SimpleNamespace(received=None, interruptible=False))
    cb.model = _Model(cb)
    cb.locals = {}
    cb.num_timesteps = 0
    cb._on_training_start()
    return cb


def test_the_ladder_is_the_opponents_rounds_seed_and_seating():
    assert _schedule(partner="learner").ladder() == {
        "opponents": ["greedy", "random"], "rounds": 8, "seed": 5, "partner": "learner"}


def test_the_rolling_win_rate_is_logged_every_200_finished_episodes():
    """Only an episode's end counts (``episode`` in its info: a round that ends inside a game
    episode does not); the means are logged at the 200th, and the count starts again."""
    cb = _callback(_schedule())
    won = {"learner_won": 1.0, "learner_pips": 3, "episode": {"r": 1.0}}
    lost = {"learner_won": 0.0, "learner_pips": 9, "episode": {"r": -1.0}}
    round_only = {"learner_won": 1.0, "learner_pips": 100}
    cb.locals = {"infos": [won, lost, round_only, {}]}
    for step in range(1, 100):
        cb.num_timesteps = step
        assert cb._on_step()
    assert cb.model.logger.records == [] and len(cb.won) == 198
    cb.num_timesteps = 100
    assert cb._on_step()
    assert cb.model.logger.records == [("rollout/win_rate", 0.5), ("rollout/learner_pips", 6.0)]
    assert (cb.won, cb.pips) == ([], [])


def test_one_evaluation_however_many_eval_freqs_passed(tmp_path):
    cb = _callback(_schedule(eval_freq=100))
    done = []
    cb.run_evaluation = lambda: done.append(cb.num_timesteps)
    for steps in (99, 100, 150, 450, 499):
        cb.num_timesteps = steps
        cb._on_rollout_start()
    assert done == [100, 450] and cb.next_eval == 500
    cb.num_timesteps = 500
    cb.stop = SimpleNamespace(received="SIGTERM", interruptible=False)
    cb._on_rollout_start()  # a signal during the update: the evaluation is skipped, training stops
    assert done == [100, 450] and cb.skipped_eval == 500
    assert cb.stopped == "SIGTERM at 500 steps (before an evaluation)"
    cb._on_training_end()  # after a stop, no final evaluation either
    assert done == [100, 450]


def test_a_run_ending_past_an_evaluation_step_evaluates_its_last_model():
    cb = _callback(_schedule(eval_freq=100))
    done = []
    cb.run_evaluation = lambda: done.append(cb.num_timesteps)
    cb.num_timesteps = 130
    cb._on_training_end()
    cb.num_timesteps = 170
    cb._on_training_end()
    assert done == [130]


def test_each_evaluation_logs_and_writes_its_files_and_a_tie_keeps_the_earlier_best(tmp_path, monkeypatch, capsys):
    scores = iter([0.5, 0.5, 0.75, 0.25])

    def ladder(agent, rules, opponents, rounds, seed, workers, episode, game, partner):
        assert (opponents, rounds, seed, workers, episode, game, partner) == (
            ["greedy", "random"], 8, 5, 1, "round", "mexican_train", "opponents")
        s = next(scores)
        return {o: {"win_rate": s + d, "mean_pips": 5.0, "seat_rounds": 8, "opponent_mean_pips": 7.3,
                    "opponent_seat_rounds": 24} for o, d in (("greedy", 0.125), ("random", -0.125))}  # fmt: skip

    clock = iter([60.0, 85.4, 62.5, 3700.0, 3735.0, 3711.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0])  # the run began at 10.0
    monkeypatch.setattr(callbacks, "evaluate_vs_ladder", ladder)
    monkeypatch.setattr(callbacks, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    folder = RunFolder(tmp_path, {"timesteps": 0}).create()
    cb = _callback(_schedule(eval_freq=100, start=10.0), folder, StopSignals())
    cb.agent = lambda: "agent"
    best_at = []
    for steps in (100, 200, 300, 400):
        cb.num_timesteps = steps
        cb.run_evaluation()
        best_at.append((tmp_path / "best_model.zip").read_text())
        assert (tmp_path / "model.zip").read_text() == f"model at {steps}"
        assert json.loads((tmp_path / "metadata.json").read_text())["timesteps"] == steps
        assert cb.stop.interruptible is False
    assert best_at == ["model at 100", "model at 100", "model at 300", "model at 300"]
    assert cb.best == 0.75 and [e.get("best", False) for e in cb.history] == [True, False, True, False]
    saved = json.loads((tmp_path / "evaluations.json").read_text())
    assert [(e["timesteps"], e.get("best", False)) for e in saved] == [(100, True), (200, False), (300, True), (400, False)]
    assert saved[0]["wall_s"] == pytest.approx(75.4) and saved[0]["ladder"] == cb.s.ladder()
    assert cb.model.logger.dumps == [100, 200, 300, 400]
    assert cb.model.logger.records[:7] == [
        ("eval/win_rate_vs_greedy", 0.625), ("eval/mean_pips_vs_greedy", 5.0), ("eval/opponent_pips_greedy", 7.3),
        ("eval/win_rate_vs_random", 0.375), ("eval/mean_pips_vs_random", 5.0), ("eval/opponent_pips_random", 7.3),
        ("eval/mean_win_rate", 0.5)]  # fmt: skip
    lines = capsys.readouterr().err.splitlines()
    assert lines[:2] == [
        "[eval @ 100 steps, 1:15 into the run, took 2.5s] win rate vs greedy 0.625 (5.0 vs 7.3 pips), "
        "random 0.375 (5.0 vs 7.3 pips)",
        "[eval @ 200 steps, 1:02:05 into the run, took 11.0s] win rate vs greedy 0.625 (5.0 vs 7.3 pips), "
        "random 0.375 (5.0 vs 7.3 pips)",
    ]


def test_a_second_signal_within_half_a_second_is_the_same_request(monkeypatch, capsys):
    now = iter([10.0, 10.4, 10.6])
    monkeypatch.setattr(callbacks, "time", SimpleNamespace(monotonic=lambda: next(now)))
    stop = StopSignals()
    stop._handle(signal.SIGTERM, None)  # t=10.0: the stop request
    stop._handle(signal.SIGINT, None)  # t=10.4: the same request again (process and group)
    assert stop.received == "SIGTERM"
    with pytest.raises(KeyboardInterrupt) as abort:  # t=10.6: a second request
        stop._handle(signal.SIGINT, None)
    assert abort.value.args == ("SIGINT", "a second signal: aborted without saving")
    assert capsys.readouterr().err == "SIGTERM received: saving the model at this step (send it again to abort)\n"


def test_a_signal_during_the_games_of_an_evaluation_interrupts_them(capsys):
    stop = StopSignals("saving the model first")
    stop.interruptible = True
    with pytest.raises(TrainingInterrupted) as raised:
        stop._handle(signal.SIGINT, None)
    assert raised.value.args == ("SIGINT",) and stop.received == "SIGINT"
    assert capsys.readouterr().err == "SIGINT received: saving the model first (send it again to abort)\n"


def test_leaving_gives_back_the_handlers_it_found():
    def mine(signum, frame):
        pass

    before = {s: signal.signal(s, mine) for s in StopSignals.SIGNALS}
    try:
        with StopSignals() as stop:
            assert all(signal.getsignal(s) == stop._handle for s in StopSignals.SIGNALS)
        assert all(signal.getsignal(s) is mine for s in StopSignals.SIGNALS)
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def test_a_stop_request_or_the_time_limit_ends_training_at_this_step():
    cb = _callback(_schedule())
    cb.num_timesteps = 300
    cb.stop = SimpleNamespace(received="SIGINT", interruptible=False)
    assert cb._on_step() is False and cb.stopped == "SIGINT at 300 steps"
    for minutes, said in ((2.0, "2 min"), (1.0, "1 min"), (0.05, "3 s"), (2.5, "150 s")):
        cb = _callback(_schedule(deadline=-1.0, time_limit=minutes))  # (perf_counter() is past it)
        cb.num_timesteps = 70
        cb.locals = {"infos": [{"learner_won": 1.0, "learner_pips": 0, "episode": {}}]}
        assert cb._on_step() is False and cb.stopped == f"time limit of {said} reached at 70 steps"
        assert cb.won == []  # nothing of the step is counted after the stop


def test_no_self_play_takes_no_snapshots_and_an_eval_freq_of_one_evaluates_every_step():
    cb = _callback(_schedule(eval_freq=1, self_play=0.0, snapshot_freq=1))
    assert (cb.next_eval, cb.next_snapshot) == (1, None)
    cb.agent = lambda **kwargs: pytest.fail("a snapshot without self-play")
    cb.num_timesteps = 5
    assert cb._on_step() and cb.snapshots == []


def test_the_progress_bar_counts_the_steps_and_the_end_of_training_closes_it(capsys):
    cb = _callback(_schedule(progress=False))
    cb.s.progress = True
    cb.locals, cb.num_timesteps = {"total_timesteps": 500}, 100  # a run resumed at 100 steps
    cb._on_training_start()
    bar = cb.bar
    assert (bar.total, bar.n) == (500, 100)
    cb.num_timesteps = 250
    cb._on_step()
    assert bar.n == 250
    cb._on_training_end()
    assert cb.bar is None and bar.disable  # (tqdm disables a bar it closed)
    assert "250/500" in capsys.readouterr().err


def test_a_snapshot_is_taken_at_each_multiple_of_the_snapshot_freq(tmp_path, capsys):
    folder = RunFolder(tmp_path, {}).create()
    cb = _callback(_schedule(self_play=0.5, snapshot_freq=100), folder)
    assert folder.metadata["self_play_snapshots"] == {"taken": 0, "first_step": None}
    cb.vec_env = SimpleNamespace(env_method=lambda name, pool: None)
    cb.agent = lambda deterministic=True, name="ppo": cb.num_timesteps
    for steps in (99, 100, 101, 199, 200, 350):
        cb.num_timesteps = steps
        cb._on_step()
    assert cb.snapshots == [200, 350] and cb.next_snapshot == 400  # (max_snapshots 2: 100 dropped)
    # every snapshot this run took, and the first one's step (metadata.json had no trace of them)
    assert folder.metadata["self_play_snapshots"] == {"taken": 3, "first_step": 100}
    assert "[self-play @ 350 steps] snapshot 3 of the learner taken; opponent seats draw from the last 2\n" in capsys.readouterr().err


def test_a_resumed_run_counts_its_trained_steps_from_where_it_resumed():
    """A stop inside the first rollout of a run resumed at 5,122 steps keeps those steps (ppo.py
    sets the model's count back to :attr:`trained_steps`), not 0."""
    cb = _callback(_schedule())
    cb.num_timesteps = 5122
    cb._on_training_start()
    assert cb.trained_steps == 5122
    cb.num_timesteps = 5200
    cb._on_step()
    assert cb.trained_steps == 5122
    cb._on_rollout_end()
    assert cb.trained_steps == 5200
