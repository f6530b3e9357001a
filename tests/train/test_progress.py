"""The progress bars of long commands: on a terminal tqdm's own rate, into a log or a pipe at most
one redraw every 30 s (train/progress.py)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from domino_env.train.evaluate import evaluate
from domino_env.train.progress import LOG_INTERVAL_S, advance, progress_bar

ROOT = Path(__file__).resolve().parents[2]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def no_override(monkeypatch):
    monkeypatch.delenv("TQDM_MININTERVAL", raising=False)


def test_off_a_terminal_the_bar_redraws_every_30_s(monkeypatch, no_override):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with progress_bar(total=10) as bar:
        assert bar.mininterval == LOG_INTERVAL_S == 30.0
        # tqdm's monitor thread redraws a bar silent for `maxinterval` (its default 10 s): a
        # 20-minute oracle run's log had a bar every 10-20 s; at 30 s, the monitor's redraw and
        # the update's came together (two lines at each 30 s mark of make run's log)
        assert bar.maxinterval == 60.0


def test_on_a_terminal_the_bar_keeps_tqdms_rate(monkeypatch, no_override):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    with progress_bar(total=10) as bar:
        assert bar.mininterval == 0.1 and bar.maxinterval == 10.0  # tqdm's defaults


def test_tqdms_own_variable_and_an_explicit_interval_win(monkeypatch, no_override):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with progress_bar(total=10, mininterval=2.0) as bar:
        assert bar.mininterval == 2.0
    monkeypatch.setenv("TQDM_MININTERVAL", "0.5")
    with progress_bar(total=10) as bar:
        assert bar.mininterval == 0.5 and bar.maxinterval == 10.0
    monkeypatch.setenv("TQDM_MININTERVAL", "60")
    with progress_bar(total=10) as bar:
        assert (bar.mininterval, bar.maxinterval) == (60.0, 120.0)


def test_tqdms_own_maxinterval_variable_wins_too():
    """TQDM_MAXINTERVAL (read by tqdm at import) is honoured as TQDM_MININTERVAL is: the default
    maxinterval given as a keyword hid it (a bar into a log then redrew every 30 s regardless)."""
    import os

    code = ("import sys; from domino_env.train.progress import progress_bar; "
            "b = progress_bar(total=1, disable=False); print(b.mininterval, b.maxinterval)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TQDM_")}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                           env={**env, **extra}).stdout.split() for extra in ({}, {"TQDM_MAXINTERVAL": "100"})]
    assert runs == [["30.0", "60.0"], ["30.0", "100.0"]]


def test_a_tournament_written_to_a_log_draws_its_bar_at_the_start_and_the_end(monkeypatch, no_override):
    """Before, a bar into a file redrew ten times a second. tqdm's clock is made to advance 2 s at
    every look, so the 40 deals below span minutes of its time: at tqdm's own rate each deal was a
    redraw (41 draws), every 30 s it is a handful."""
    import itertools

    import tqdm.std

    clock = itertools.count(0.0, 2.0)
    monkeypatch.setattr(tqdm.std, "time", lambda: next(clock))
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    evaluate(["greedy", "random"], game="block", rounds=80, num_players=2, seed=0, progress=True)
    draws = [d for d in log.getvalue().replace("\n", "\r").split("\r") if "/80" in d]
    assert draws[0].startswith("greedy random:   0%") and "80/80" in draws[-1]
    assert 3 <= len(draws) <= 8  # the first, the last, one redraw per 30 s of the clock (about 80 s)


def test_the_command_into_a_file_draws_its_bar_from_start_to_end(tmp_path, no_override):
    """The real command with its stderr a file, as in `domino-evaluate ... 2>log`: the bar is there,
    from its first draw to its last, and not redrawn in between on a run this short."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "TQDM_MININTERVAL"}
    with open(tmp_path / "log", "w") as err:
        subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", "--game", "block", "--agents",
                        "greedy", "random", "--players", "2", "--rounds", "200"],
                       cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err, check=True)  # fmt: skip
    draws = [d for d in (tmp_path / "log").read_text().replace("\n", "\r").split("\r") if "/200" in d]
    assert 2 <= len(draws) <= 3 and "200/200" in draws[-1]


def test_a_postfix_waits_for_the_bars_next_draw(monkeypatch, no_override):
    """domino-rllib and benchmarks/soak.py show a postfix (return, problems) at each step: set with
    tqdm's default refresh it forced a redraw at every iteration, into a log too. With tqdm's
    clock frozen, only the first and the closing draw remain, and the closing one shows it."""
    import tqdm.std

    monkeypatch.setattr(tqdm.std, "time", lambda: 0.0)
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    with progress_bar(total=5, unit="it") as bar:
        for i in range(5):
            advance(bar, 1, ret=f"{i / 10:.3f}")
    draws = [d for d in log.getvalue().replace("\n", "\r").split("\r") if "/5" in d]
    assert len(draws) == 2 and "0/5" in draws[0] and "5/5" in draws[1] and "ret=0.400" in draws[1]


def test_a_tqdm_mininterval_that_is_no_number_is_one_line(tmp_path):
    """tqdm parses its variable when it is imported: `TQDM_MININTERVAL=abc` was a ValueError
    traceback from inside tqdm; the command now names the variable before tqdm is imported."""
    import os

    env = {**os.environ, "TQDM_MININTERVAL": "abc"}
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", "--game", "block", "--agents",
                           "greedy", "random", "--players", "2", "--rounds", "2"],
                          cwd=ROOT, env=env, capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 2 and proc.stderr.startswith(
        "domino-evaluate: error: TQDM_MININTERVAL='abc': not a number (tqdm's own variable: the seconds between "
        "redraws of the progress bars)"
    ) and len(proc.stderr.splitlines()) == 1, proc.stderr


def test_a_bar_run_past_its_total_closes_at_100_percent_and_a_short_one_keeps_its_total(monkeypatch, no_override):
    from domino_env.train.progress import close_bar

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    past, short = progress_bar(total=300, unit="dec"), progress_bar(total=300, unit="dec")
    past.update(309)
    short.update(120)  # an interrupted collection: the bar says how far it got
    close_bar(past)
    close_bar(short)
    assert (past.total, past.n, short.total, short.n) == (309, 309, 300, 120)


def test_domino_bc_into_a_pipe_draws_each_bar_once_at_its_start_and_once_at_its_end(tmp_path, no_override):
    """A fresh user piped `domino-bc`: the decisions bar ended at "309dec" (whole episodes run past
    --samples 300, and tqdm drops the total then), and the cloning bar's 100% line came twice (the
    epoch's postfix forced a redraw just before the close drew it again)."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "TQDM_MININTERVAL"}
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.bc", "--samples", "300", "--epochs", "2",
                           "--final-eval-rounds", "0", "--seed", "0", "--out", str(tmp_path / "bc")],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=True)  # fmt: skip
    draws = [d for d in proc.stderr.replace("\n", "\r").split("\r") if d.strip()]
    decisions = [d for d in draws if d.startswith("expert decisions:")]
    cloning = [d for d in draws if d.startswith("cloning:")]
    assert len(decisions) == 2 and "0/300" in decisions[0], draws
    count = decisions[1].split("|")[2].split()[0]  # "309/309"
    done, total = map(int, count.split("/"))
    assert decisions[1].split(":")[1].strip().startswith("100%") and done == total >= 300, draws
    assert len(cloning) == 2 and "0/2" in cloning[0] and "2/2" in cloning[1] and "agree=" in cloning[1], draws
