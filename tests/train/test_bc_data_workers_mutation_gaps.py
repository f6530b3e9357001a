"""``domino_env.train.bc_data``'s collection workers, pinned where no other test did (found by
mutation testing): what :func:`_collect_part` sets up in a worker before it collects (SIGINT and
SIGHUP ignored, SIGTERM sets the shared event, the stop signals unblocked, a thread lock for tqdm),
the progress counter it adds to, where its part or its error goes, and what it does when its
parent is gone; and how :func:`collect_parallel` passes the parent's stop on to the workers.

:func:`_collect_part` runs in a child process of its own here (it changes the process's signal
handlers), with ``collect`` and ``LearnerEnv`` replaced by stand-ins that report what they see."""

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from bc_helpers import SMALL_ENV

from domino_env.train import bc_data
from domino_env.train.bc_data import DATASET_KEYS, collect_parallel

ROOT = Path(__file__).resolve().parents[2]

WORKER = r"""
import json, multiprocessing, os, signal, sys, tempfile, threading
from pathlib import Path

import numpy as np

from domino_env.train import bc_data
from domino_env.train.interrupts import WORKER_STOP_SIGNALS

mode = sys.argv[1]
seen = {}


def collect(env, expert, samples, seed, gamma, policy=None, beta=1.0, stop=None, on_episode=None):
    from tqdm import tqdm

    seen["call"] = [env, expert, samples, seed, gamma, policy, beta]
    seen["sigint_ignored"] = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    seen["sighup_ignored"] = signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    seen["blocked"] = sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, []) & WORKER_STOP_SIGNALS)
    seen["thread_lock"] = type(tqdm.get_lock()) is type(threading.RLock())
    seen["before"] = stop.received
    on_episode(3)
    on_episode(4)
    signal.raise_signal(signal.SIGTERM)  # a SIGTERM sent to this worker alone
    seen["after"] = stop.received
    if mode == "error":
        raise ValueError("no deal")
    return {"actions": np.array([5, 6, 7])}


signal.signal(signal.SIGINT, signal.SIG_DFL)  # (however the tests were started: nohup ignores SIGHUP)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
bc_data.LearnerEnv = lambda **cfg: {"env": cfg}
bc_data.collect = collect
signal.pthread_sigmask(signal.SIG_BLOCK, WORKER_STOP_SIGNALS)  # as a spawned worker starts (_start_blocked)
event, counter = multiprocessing.Event(), multiprocessing.Value("q", 2)
folder = Path(tempfile.mkdtemp(prefix="domino-bc-test-"))
path = str(folder / "part1.npz")
parent = os.getppid() if mode != "orphaned" else os.getpid()  # (any process but its parent)
try:
    bc_data._collect_part(({"seat": 1}, "expert", 9, 4, 0.5, "policy", 0.25), event, counter, path, parent)
    seen["raised"] = None
except BaseException as exc:
    seen["raised"] = repr(exc)
seen["counter"] = counter.value
seen["event"] = event.is_set()
seen["folder"], seen["path"] = folder.exists(), str(folder)
seen["part"] = np.load(path)["actions"].tolist() if Path(path).exists() else None
seen["error"] = Path(path + ".error").read_text() if Path(path + ".error").exists() else None
print(json.dumps(seen))
"""


def _worker(mode):
    res = subprocess.run([sys.executable, "-c", WORKER, mode], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    seen = json.loads(res.stdout.splitlines()[-1])
    shutil.rmtree(seen.pop("path"), ignore_errors=True)
    return seen


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_worker_sets_up_its_signals_collects_its_share_and_saves_its_part():
    seen = _worker("saved")
    assert seen["call"] == [{"env": {"seat": 1}}, "expert", 9, 4, 0.5, "policy", 0.25]
    # Ctrl-C and a closed terminal reach the whole group: the parent acts on them, the worker ignores them
    assert seen["sigint_ignored"] is True and seen["sighup_ignored"] is True
    assert seen["blocked"] == []  # unblocked: the parent blocked them while it started the workers
    assert seen["thread_lock"] is True  # no multiprocessing semaphore for a bar it never draws
    assert seen["before"] is None and seen["after"] == "signal" and seen["event"] is True  # SIGTERM sets the event
    assert seen["counter"] == 2 + 3 + 4  # each episode's decisions added to the shared progress count
    assert seen["raised"] is None and seen["error"] is None
    assert seen["part"] == [5, 6, 7] and seen["folder"] is True  # the parent reads the part, then removes the folder


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_worker_whose_parent_is_gone_saves_nothing_and_removes_the_parts_folder():
    seen = _worker("orphaned")
    assert seen["before"] == "the parent is gone" and seen["after"] == "signal"  # a signal is named first
    assert seen["raised"] is None and seen["part"] is None and seen["error"] is None
    assert seen["folder"] is False  # nobody else would remove it


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_worker_that_fails_writes_its_error_for_the_parent_and_raises_it():
    seen = _worker("error")
    assert seen["raised"] == "ValueError('no deal')"
    assert seen["error"] == "ValueError: no deal"
    assert seen["part"] is None and seen["folder"] is True and seen["counter"] == 9


# ------------------------------------------------------------------- collect_parallel, the parent
class ExitingExpert:
    """An expert whose worker ends at its first decision without a word (as a worker killed from
    outside): it writes neither its part nor an error."""

    def __call__(self, obs, mask, rng):
        os._exit(0)


class FirstFails:
    """An expert that fails in the first worker to ask it (the one that creates ``claim``) and
    plays the first legal action in the others."""

    def __init__(self, claim):
        self.claim = claim

    def __call__(self, obs, mask, rng):
        try:
            os.close(os.open(self.claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return int(np.flatnonzero(mask)[0])
        raise ValueError("the first worker's expert failed")


def _greedy():
    from domino_env.agents import make_agent

    return make_agent("greedy", SMALL_ENV["env_kwargs"])


def test_the_parallel_progress_bar_counts_the_workers_decisions(capsys):
    data = collect_parallel(SMALL_ENV, _greedy(), 61, 5, 0.9, workers=2, progress=True, desc="probe")
    err = capsys.readouterr().err
    n = len(data["actions"])
    assert n > 61  # whole episodes: more than asked
    assert err.startswith("\rprobe:   0%|          | 0/61 ")
    assert err.rsplit("\r", 1)[1].startswith(f"probe: 100%|██████████| {n}/{n} ")  # each worker's count, once


def test_without_beta_the_expert_plays_every_decision():
    from domino_env.agents import make_agent

    randomly = make_agent("random", SMALL_ENV["env_kwargs"])
    default = collect_parallel(SMALL_ENV, _greedy(), 40, 5, 0.9, workers=1, policy=randomly)
    expert_plays = collect_parallel(SMALL_ENV, _greedy(), 40, 5, 0.9, workers=1, policy=randomly, beta=1.0)
    policy_plays = collect_parallel(SMALL_ENV, _greedy(), 40, 5, 0.9, workers=1, policy=randomly, beta=0.0)
    assert all(np.array_equal(default[k], expert_plays[k]) for k in DATASET_KEYS)
    assert not np.array_equal(default["observations"][:40], policy_plays["observations"][:40])  # (the probe tells)


def test_one_worker_collects_in_this_process_with_any_expert():
    asked = []

    def first_legal(obs, mask, rng):  # a local function: no worker process could unpickle it
        asked.append(len(asked))
        return int(np.flatnonzero(mask)[0])

    data = collect_parallel(SMALL_ENV, first_legal, 30, 5, 0.9, workers=1)
    assert len(asked) == len(data["actions"]) >= 30


def test_each_worker_collects_its_share_the_first_ones_one_more():
    from domino_env.train.bc_data import collect, worker_seed
    from domino_env.train.learner_env import LearnerEnv

    def alone(n, k):
        return collect(LearnerEnv(**SMALL_ENV), _greedy(), n, worker_seed(5, k), 0.9)

    one = len(alone(1, 0)["actions"])  # worker 0's first episode
    two = len(alone(one + 1, 0)["actions"])  # and its second: a share of one + 1 to two plays both
    # worker 0's share just past its first episode, exactly its two episodes, exactly its first one
    for samples, shares in ((2 * one + 1, (one + 1, one)), (2 * two - 1, (two, two - 1)), (2 * one, (one, one))):
        both = collect_parallel(SMALL_ENV, _greedy(), samples, 5, 0.9, workers=2)
        parts = [alone(n, k) for k, n in enumerate(shares)]
        assert np.array_equal(both["observations"], np.concatenate([p["observations"] for p in parts])), samples


def test_a_stop_the_parent_receives_ends_every_worker_at_the_end_of_its_episode():
    stop = SimpleNamespace(received="signal")  # a Ctrl-C as the workers start
    data = collect_parallel(SMALL_ENV, _greedy(), 200000, 5, 0.9, workers=2, stop=stop)
    assert len(data["actions"]) < 20000  # each worker's share is 100000 decisions
    ids = data["episodes"]
    assert np.array_equal(ids, np.sort(ids)) and (len(ids) == 0 or len(np.unique(ids)) == ids[-1] + 1)


def test_a_parent_that_fails_while_the_workers_collect_kills_and_reaps_them(monkeypatch):
    started = []
    real = bc_data._start_blocked
    monkeypatch.setattr(bc_data, "_start_blocked", lambda procs: (started.extend(procs), real(procs)))

    class Failing:
        @property
        def received(self):
            raise RuntimeError("the parent failed")

    with pytest.raises(RuntimeError, match="^the parent failed$"):
        collect_parallel(SMALL_ENV, _greedy(), 200000, 5, 0.9, workers=2, stop=Failing())
    assert len(started) == 2 and [p.exitcode for p in started] == [-signal.SIGKILL] * 2


def test_workers_that_wrote_nothing_are_named_in_one_runtime_error():
    with pytest.raises(RuntimeError) as err:
        collect_parallel(SMALL_ENV, ExitingExpert(), 40, 5, 0.9, workers=2)
    assert str(err.value) == "a collection worker failed: worker 0 wrote nothing"


def test_the_error_of_the_one_worker_that_failed_is_the_message(tmp_path):
    with pytest.raises(RuntimeError) as err:
        collect_parallel(SMALL_ENV, FirstFails(str(tmp_path / "claim")), 40, 5, 0.9, workers=2)
    assert str(err.value) == "a collection worker failed: ValueError: the first worker's expert failed"
