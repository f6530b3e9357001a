"""What runs inside ``model.learn`` of ``domino_env.train.ppo``: the progress bar, the time limit, SIGINT / SIGTERM handling,
the rolling training win rate, self-play snapshots and the periodic evaluation against the ladder
(with the best model and a resumable ``model.zip`` saved at each one).

Needs the ``[train]`` extra (stable-baselines3).
"""

from __future__ import annotations

import signal
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from domino_env.agents.ppo import PPOAgent
from domino_env.train.interrupts import in_import_machinery, redeliver_later, stop_began
from domino_env.train.ladder import evaluate_vs_ladder, pips_text
from domino_env.train.progress import advance, progress_bar
from domino_env.train.run_folder import BEST_MODEL_FILE, RunFolder, config_of
from domino_env.train.start_model import first_snapshot


def say(text: str) -> None:
    """One line on stderr, above the progress bar when one is drawn (tqdm clears and redraws it)."""
    from tqdm import tqdm

    tqdm.write(text, file=sys.stderr)
    sys.stderr.flush()


class TrainingInterrupted(Exception):
    """Raised by :class:`StopSignals` when a signal arrives during a periodic evaluation."""


def clock(seconds: float) -> str:
    """Elapsed wall time as ``m:ss`` (``h:mm:ss`` from an hour on): ``clock(75.4) == "1:15"``."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class StopSignals:
    """While active (``with StopSignals() as stop:``), the first SIGINT or SIGTERM only records a
    stop request (:attr:`received`, the signal's name), which :class:`TrainingCallback` turns into
    a clean stop: training ends at the next step, the model is saved with status
    ``"interrupted"``. While a periodic evaluation plays its games (:attr:`interruptible`; not
    while it saves files) it raises :class:`TrainingInterrupted` so the evaluation is dropped at
    once. A second signal raises
    ``KeyboardInterrupt`` (abort without saving), unless it comes within :attr:`SAME_REQUEST`
    seconds of the first: that is one request delivered twice (``timeout`` and some process
    managers signal both the process and its process group), not a user asking again. A signal
    the process was started ignoring (SIGINT of a background job) stays ignored. The previous
    handlers come back on exit.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)
    #: seconds after the first signal during which another one counts as the same request
    SAME_REQUEST = 0.5

    def __init__(self, saving: str = "saving the model at this step"):
        self.saving = saving  # what the first signal's message says happens next
        self.received: str | None = None
        self.interruptible = False
        self._first = 0.0  # time.monotonic() of the first signal
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        for s in self.SIGNALS:
            # an ignored signal stays ignored: `cmd &` in a script starts cmd with SIGINT ignored,
            # so that the terminal's Ctrl-C does not reach it (Python then raises no
            # KeyboardInterrupt either)
            if signal.getsignal(s) is not signal.SIG_IGN:
                self._previous[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        for s, handler in self._previous.items():
            signal.signal(s, handler)

    def _handle(self, signum: int, frame: Any) -> None:
        stop_began()  # its line (and the save's) may meet a closed pipe: `| tee` killed by the same Ctrl-C
        name = signal.Signals(signum).name
        if self.received is not None:
            if time.monotonic() - self._first < self.SAME_REQUEST:
                return  # the same request again (process and group), already being handled
            if in_import_machinery(frame):  # the abort raised there would be dropped: send it again
                redeliver_later(signum)
                return
            # (name, what happened): train.cli.launch exits with 128 + that signal and says it
            raise KeyboardInterrupt(name, "a second signal: aborted without saving")
        self.received = name
        self._first = time.monotonic()
        say(f"{name} received: {self.saving} (send it again to abort)")
        if self.interruptible:
            raise TrainingInterrupted(name)


@dataclass
class Schedule:
    """What :class:`TrainingCallback` does and when (steps are learner decisions)."""

    rules: dict[str, Any]
    game: str
    episode: str
    eval_freq: int  # 0: no periodic evaluation
    eval_rounds: int
    eval_opponents: list[str]
    eval_seed: int
    self_play: float
    snapshot_freq: int
    max_snapshots: int
    start: float  # perf_counter() at the start of the run
    deadline: float | None  # perf_counter() time limit
    time_limit: float | None  # minutes (for the message)
    verbose: bool = True
    partner: str = "opponents"  # "learner": evaluations seat the model in both seats of its team
    progress: bool = False  # a bar of the steps on stderr (train/progress.py), as every long command

    def ladder(self) -> dict[str, Any]:
        """What makes two evaluations comparable: opponents, rounds, seed and seating."""
        return {"opponents": list(self.eval_opponents), "rounds": self.eval_rounds, "seed": self.eval_seed,
                "partner": self.partner}  # fmt: skip


class TrainingCallback(BaseCallback):
    """Rolling training win rate / pips to TensorBoard, self-play snapshots, periodic evaluation
    against the ladder (``best_model.zip`` and a resumable ``model.zip`` saved), and the two
    reasons to stop early: the time limit and a stop signal.

    Attributes:
        stopped: why training stopped early (a sentence), or None.
        skipped_eval: the step of the periodic evaluation a signal dropped (during it, or during
            the update before it), or None.
        history: the periodic evaluations (``[{"timesteps", "wall_s", "results", "best"?}]``).
    """

    def __init__(self, schedule: Schedule, folder: RunFolder, vec_env: Any, stop: StopSignals):
        super().__init__()
        self.s = schedule
        self.folder = folder
        self.vec_env = vec_env
        self.stop = stop
        self.history: list[dict[str, Any]] = []
        self.stopped: str | None = None
        self.stopped_at = 0  #: the step of a stop inside a rollout (0: none)
        self.skipped_eval: int | None = None  # the step of a periodic evaluation a signal dropped
        self.next_eval: int | None = None
        self.next_snapshot: int | None = None
        self.snapshots: list[PPOAgent] = []
        self.snapshots_taken: dict[str, Any] = {}  #: with --self-play, this run's: {"taken", "first_step"}
        self.best = -np.inf
        self.won: list[float] = []
        self.pips: list[int] = []
        #: steps of the last whole rollout (the last PPO update the model has): a stop in the
        #: middle of a rollout drops its steps, which ``num_timesteps`` still counts
        self.trained_steps = 0
        self.bar: Any = None  # the progress bar while model.learn runs (Schedule.progress)

    def carry_over(self, history: list[dict[str, Any]], same_ladder: bool) -> bool:
        """Resuming into the run's own folder: its earlier evaluations (``metadata.json``'s) stay
        in :attr:`history` (so ``evaluations.json``, the metadata and the learning curve keep
        them), and the best of those made on this run's ladder (the same evaluation opponents,
        rounds, seed and seating: an entry's ``ladder``, or ``same_ladder`` for entries written
        before it was kept) is the score a new ``best_model.zip`` must beat. Returns whether any
        earlier evaluation counts."""
        self.history = [dict(e) for e in history]
        ladder = self.s.ladder()
        scores = [float(np.mean([r["win_rate"] for r in e["results"].values()])) for e in self.history
                  if (e["ladder"] == ladder if "ladder" in e else same_ladder)]  # fmt: skip
        if scores:
            self.best = max(scores)
        return bool(scores)

    def agent(self, deterministic: bool = True, name: str = "ppo") -> PPOAgent:
        """The live policy as a (numpy) agent."""
        p, n = self.s.rules["num_players"], self.s.rules["max_pip"]
        return PPOAgent.from_policy(
            self.model.policy, p, n, self.s.game, config=config_of(self.s.rules, self.s.game),
            deterministic=deterministic, name=name,
        )

    def _on_rollout_end(self) -> None:
        self.trained_steps = self.num_timesteps  # PPO's update of this rollout follows at once

    def _on_training_start(self) -> None:
        self.trained_steps = self.num_timesteps
        if self.s.progress:  # SB3's own bar (rich) draws on stdout, where the results table goes
            total = int(self.locals["total_timesteps"])  # learn() made it absolute when resuming
            self.bar = progress_bar(total=total, initial=int(self.num_timesteps), unit="step", desc="training",
                                    dynamic_ncols=True, smoothing=0.05)  # fmt: skip
        # the next multiple of the frequency (a resumed run keeps the run's schedule: resumed at
        # 5,122 steps with --eval-freq 2048 it evaluates past 6,144, not past 7,170)
        if self.s.eval_freq > 0:
            self.next_eval = (self.num_timesteps // self.s.eval_freq + 1) * self.s.eval_freq
        if self.s.self_play > 0:
            self.next_snapshot = first_snapshot(self.num_timesteps, self.s.snapshot_freq)
            # this run's snapshots (a resumed run starts with none): metadata.json says whether self-play happened
            self.snapshots_taken = {"taken": 0, "first_step": None}
            if self.folder is not None:  # (None: the schedule driven without a run folder)
                self.folder.metadata["self_play_snapshots"] = self.snapshots_taken

    def _on_step(self) -> bool:
        if self.bar is not None:  # (the bar's count, n, is the steps shown so far)
            advance(self.bar, int(self.num_timesteps) - self.bar.n)
        if self.stopped:  # a signal during the evaluation at this rollout's start
            return False
        if self.stop.received:
            self.stopped, self.stopped_at = f"{self.stop.received} at {self.num_timesteps} steps", self.num_timesteps
            return False
        if self.s.deadline is not None and time.perf_counter() > self.s.deadline:
            minutes = self.s.time_limit
            seconds = round(minutes * 60, 3)  # --time-limit 4s: "4 s"; 200s: "200 s", not "3.33333 min"
            limit = f"{minutes:g} min" if minutes >= 1 and seconds % 60 == 0 else f"{seconds:g} s"
            self.stopped, self.stopped_at = f"time limit of {limit} reached at {self.num_timesteps} steps", self.num_timesteps
            return False
        for info in self.locals.get("infos", []):
            if "learner_won" in info and "episode" in info:
                self.won.append(info["learner_won"])
                self.pips.append(info["learner_pips"])
        if len(self.won) >= 200:
            self.logger.record("rollout/win_rate", float(np.mean(self.won)))
            self.logger.record("rollout/learner_pips", float(np.mean(self.pips)))
            self.won, self.pips = [], []
        if self.next_snapshot is not None and self.num_timesteps >= self.next_snapshot:
            self.next_snapshot += self.s.snapshot_freq
            snapshot = self.agent(deterministic=False, name="self")
            self.snapshots = (self.snapshots + [snapshot])[-self.s.max_snapshots :]
            self.vec_env.env_method("set_snapshots", self.snapshots)
            taken = self.snapshots_taken  # the run folder's metadata: written with the next metadata.json
            taken["taken"] += 1
            taken["first_step"] = taken["first_step"] or int(self.num_timesteps)
            if self.s.verbose:
                say(f"[self-play @ {self.num_timesteps} steps] snapshot {taken['taken']} of the learner taken; "
                    f"opponent seats draw from the last {len(self.snapshots)}")
        return True

    # Evaluations run between rollouts, after PPO's update: the model evaluated (and saved as
    # best_model.zip) has been trained on every one of the steps its row is labelled with. In
    # _on_step, mid-rollout, it would be the weights of the last update, up to a rollout older.
    def _on_rollout_start(self) -> None:
        self._evaluate_if_due()

    def _on_training_end(self) -> None:
        if self.stopped is None:  # the last update's model (after a stop, the final save follows)
            self._evaluate_if_due()
        self.close_bar()

    def close_bar(self) -> None:
        """Close the progress bar (also when ``model.learn`` raised: ``_on_training_end`` is not called then)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def _evaluate_if_due(self) -> None:
        if self.next_eval is None or self.num_timesteps < self.next_eval:
            return
        if self.stop.received:  # a signal during PPO's update: stop now, not after a whole evaluation
            self.stopped = f"{self.stop.received} at {self.num_timesteps} steps (before an evaluation)"
            self.skipped_eval = self.num_timesteps
            return
        while self.next_eval <= self.num_timesteps:  # one evaluation, however many --eval-freq passed
            self.next_eval += self.s.eval_freq
        try:
            self.run_evaluation()
        except TrainingInterrupted:
            self.stopped = f"{self.stop.received} at {self.num_timesteps} steps (during an evaluation)"
            self.skipped_eval = self.num_timesteps
        finally:  # also when the signal came just as the evaluation ended
            self.stop.interruptible = False

    def run_evaluation(self) -> None:
        """Evaluate the live policy against the ladder, log it, save the best model and a
        resumable ``model.zip`` with its metadata."""
        t = time.perf_counter()
        s = self.s
        # A signal drops the games at once (TrainingInterrupted), but never the files written
        # below: raised inside model.save it would leave a half-written zip and a torch error in
        # place of the clean stop, so from there on it waits for the next step (_on_step).
        self.stop.interruptible = True
        try:
            results = evaluate_vs_ladder(
                self.agent(), s.rules, s.eval_opponents, s.eval_rounds, s.eval_seed, 1, s.episode, s.game,
                s.partner,
            )
        finally:
            self.stop.interruptible = False
        entry: dict[str, Any] = {
            "timesteps": int(self.num_timesteps),
            "wall_s": time.perf_counter() - s.start,
            "results": results,
            "ladder": s.ladder(),  # what a resumed run's best must be measured on to count
        }
        self.history.append(entry)
        score = float(np.mean([r["win_rate"] for r in results.values()]))
        for opp, r in results.items():
            self.logger.record(f"eval/win_rate_vs_{opp}", r["win_rate"])
            if r["seat_rounds"]:  # (none when every episode was truncated before a round ended)
                self.logger.record(f"eval/mean_pips_vs_{opp}", r["mean_pips"])
            if r["opponent_seat_rounds"]:
                self.logger.record(f"eval/opponent_pips_{opp}", r["opponent_mean_pips"])
        self.logger.record("eval/mean_win_rate", score)
        self.logger.dump(self.num_timesteps)
        if score > self.best + 1e-9:  # a tie (up to float rounding) keeps the earlier best
            self.best = score
            entry["best"] = True
        # the evaluations first: a stop between the two files then leaves a best_model.zip no
        # better than the best evaluation on record, which a resume must beat (never the reverse)
        self.folder.write_evaluations(self.history)
        if entry.get("best"):
            self.folder.save_model(self.model, BEST_MODEL_FILE)
        self.folder.save_model(self.model)
        self.folder.write_metadata(timesteps=int(self.num_timesteps))
        if s.verbose:
            summary = ", ".join(
                f"{o} {r['win_rate']:.3f} ({pips_text(r, digits=1)} vs {pips_text(r, 'opponent', 1)} pips)"
                for o, r in results.items()
            )
            say(f"[eval @ {self.num_timesteps} steps, {clock(entry['wall_s'])} into the run, took "
                f"{time.perf_counter() - t:.1f}s] win rate vs {summary}")
