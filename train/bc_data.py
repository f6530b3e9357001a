"""The imitation dataset of ``domino_env.train.bc``: expert decisions played through the training env
(:func:`collect`), stored as a compact ``.npz`` (:func:`save_dataset` / :func:`load_dataset`, checked
against the run's fingerprint), and the fixed held-out split (:func:`held_out`)."""

from __future__ import annotations

import json
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from domino_env.core.files import raise_naming, sync_file, sync_folder
from domino_env.train.arg_types import MAX_SEED
from domino_env.train.interrupts import SIGHUP, WORKER_STOP_SIGNALS, children_born_blocked
from domino_env.train.learner_env import LearnerEnv
from domino_env.wrappers import info_state_kwargs

#: Arrays of a dataset file (``np.savez``), one row per learner decision.
DATASET_KEYS = ("observations", "masks", "actions", "returns", "episodes")


def collect(
    env: LearnerEnv,
    expert: Any,
    samples: int,
    seed: int,
    gamma: float,
    policy: Any = None,
    beta: float = 1.0,
    first_episode: int = 0,
    progress: bool = False,
    stop: Any = None,
    desc: str = "expert decisions",
    on_episode: Callable[[int], None] | None = None,
) -> dict[str, np.ndarray]:
    """Play whole episodes until ``samples`` learner decisions are recorded.

    Args:
        env: the training env (the learner's seat, opponents and reward).
        expert: the agent whose action labels every decision (an agent with
            ``wants_info_state``, e.g. ``search``, also gets the learner seat's public history).
        samples: decisions to record (the last episode is finished, so a few more come back).
        seed: seeds the env (the first ``reset``) and the choice between expert and ``policy``.
        gamma: discount of the returns to go.
        policy: the agent that plays the learner's seat when not the expert (DAgger), or None.
        beta: probability that the expert's action is played (1 without ``policy``).
        first_episode: number of the first episode (episode ids stay unique across calls).
        stop: a :class:`domino_env.train.callbacks.StopSignals`; collection ends early when it received one.
        on_episode: called with the number of decisions of each finished episode (progress).

    Returns:
        ``{"observations": int16 (S, obs size) raw, "masks": uint8 (S, ceil(A / 8)) packed bits,
        "actions": int16 (S,), "returns": float32 (S,), "episodes": int32 (S,)}``.

    Raises:
        ValueError: an observation entry that int16 cannot hold exactly.
    """
    from domino_env.train.progress import close_bar, progress_bar

    rng = np.random.default_rng([seed, 11])
    single = env.unwrapped  # the learner's SingleAgentEnv: its AEC env and (per episode) seat
    obs_rows, mask_rows, actions, returns, episodes = [], [], [], [], []
    episode = first_episode
    bar = progress_bar(total=samples, desc=desc, unit="dec", disable=not progress, smoothing=0.05)
    env.reset(seed=seed)
    while len(actions) < samples and not (stop is not None and stop.received):
        rewards: list[float] = []
        done = False
        while not done:
            raw = env.raw_observation
            mask = env.action_masks()
            # search experts read the seat's public history (agents.base: info_state)
            extra = info_state_kwargs(expert, single.aec.game_state, single.learner_seat)
            label = int(expert(raw, mask, rng, **extra))
            play = label
            if policy is not None and rng.random() >= beta:
                play = int(policy(raw, mask, rng))
            obs_rows.append(raw.copy())
            mask_rows.append(np.packbits(mask))
            actions.append(label)
            episodes.append(episode)
            _, reward, terminated, truncated, _ = env.step(play)
            rewards.append(reward)
            done = terminated or truncated
        g, back = 0.0, []
        for r in reversed(rewards):
            g = r + gamma * g
            back.append(g)
        returns.extend(reversed(back))
        bar.update(len(rewards))
        if on_episode is not None:
            on_episode(len(rewards))
        episode += 1
        env.reset()
    close_bar(bar)
    obs = np.asarray(obs_rows, dtype=np.float32).reshape(len(actions), len(env.scale))  # 0 rows when stopped at once
    stored = obs.astype(np.int16)
    if not np.array_equal(stored, obs):
        raise ValueError("an observation entry is not an int16 integer; cannot store it compactly")
    return {
        "observations": stored,
        "masks": np.asarray(mask_rows, dtype=np.uint8).reshape(len(actions), -(-int(env.action_space.n) // 8)),
        "actions": np.asarray(actions, dtype=np.int16),
        "returns": np.asarray(returns, dtype=np.float32),
        "episodes": np.asarray(episodes, dtype=np.int32),
    }


def worker_seed(seed: int, worker: int) -> int:
    """The env seed of collection worker ``worker``: ``seed`` itself for worker 0 (so one worker
    collects what :func:`collect` does), else a draw of ``SeedSequence([seed, worker])``, far from
    the small consecutive seeds that DAgger rounds use."""
    if worker == 0:
        return int(seed)
    return int(np.random.SeedSequence([seed, worker]).generate_state(1)[0])


class _SharedStop:
    """``collect``'s ``stop`` in a worker: set when the parent (or this worker) got a signal, or
    when the parent is gone (a SIGKILL: its workers played on to the end of their shares)."""

    def __init__(self, event: Any, parent: int):
        self.event, self.parent = event, parent

    @property
    def orphaned(self) -> bool:
        return os.getppid() != self.parent  # (reparented to init or a subreaper)

    @property
    def received(self) -> str | None:
        return "signal" if self.event.is_set() else "the parent is gone" if self.orphaned else None


def dagger_seed_problem(seed: int, rounds: int) -> str | None:
    """What is wrong with ``--seed seed`` and ``--dagger-iters rounds`` (None: nothing): DAgger
    round ``k`` (1 to ``rounds``) collects and fits with seed ``--seed + k``, a seed too, at most
    2**32 - 1 (above it ``SeedSequence`` splits it into 32-bit words: seed 2**32's stream was
    another seed's)."""
    if seed + rounds <= MAX_SEED:
        return None
    fix = (f"give a --seed up to {MAX_SEED - rounds:,} with --dagger-iters {rounds}" if rounds <= MAX_SEED
           else f"give --dagger-iters up to {MAX_SEED - seed:,} with --seed {seed}")  # fmt: skip
    return (f"--seed {seed}: DAgger round k (1 to {rounds}, --dagger-iters {rounds}) is seeded --seed + k, up to "
            f"{seed + rounds:,}, above 2**32 - 1; {fix}")  # fmt: skip


def _collect_part(job: tuple, event: Any, counter: Any, path: str, parent: int) -> None:
    """One collection worker: its share of the decisions into ``path`` (``.npz``), or its error
    into ``path + ".error"``."""
    # Ctrl-C reaches the whole process group: the parent handles it and sets the event; a SIGTERM
    # sent to a worker alone ends the collection the same way (at the next episode)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if SIGHUP is not None:  # a closed terminal: the parent saves what is collected
        signal.signal(SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: event.set())
    if hasattr(signal, "pthread_sigmask"):  # blocked by the parent since the spawn (_start_blocked)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    import threading

    from tqdm import tqdm

    # collect's (hidden) bar took tqdm's default lock, a multiprocessing semaphore: when an abort
    # kills this worker, the resource tracker printed "There appear to be 2 leaked semaphore objects"
    # after the command's line. A worker draws no bar: a thread lock does
    tqdm.set_lock(threading.RLock())

    def tick(n: int) -> None:
        with counter.get_lock():
            counter.value += n

    env_cfg, expert, samples, seed, gamma, policy, beta = job
    stop = _SharedStop(event, parent)
    try:
        data = collect(LearnerEnv(**env_cfg), expert, samples, seed, gamma, policy=policy, beta=beta,
                       stop=stop, on_episode=tick)  # fmt: skip
        if not stop.orphaned:  # (nobody would read the part)
            np.savez(path, **data)
    except BaseException as exc:  # the parent re-raises it with this text
        Path(path + ".error").write_text(f"{type(exc).__name__}: {exc}")
        raise
    finally:
        if stop.orphaned:  # the parent's TemporaryDirectory will never be removed by it: the workers do
            shutil.rmtree(Path(path).parent, ignore_errors=True)


_STOP_SIGNALS = set(WORKER_STOP_SIGNALS)


def _start_blocked(procs: list) -> None:
    """Start ``procs`` with SIGINT, SIGTERM and SIGHUP blocked, as CPython starts its resource
    tracker: a spawned worker inherits the mask, so a Ctrl-C while it imports (before
    :func:`_collect_part` ignores SIGINT) cannot kill it with a KeyboardInterrupt; this process
    gets the signal once they are started (its StopSignals handler then stops them)."""
    with children_born_blocked(frozenset(_STOP_SIGNALS)):
        for proc in procs:
            proc.start()


def collect_parallel(
    env_cfg: dict[str, Any],
    expert: Any,
    samples: int,
    seed: int,
    gamma: float,
    workers: int,
    policy: Any = None,
    beta: float = 1.0,
    first_episode: int = 0,
    progress: bool = False,
    stop: Any = None,
    desc: str = "expert decisions",
) -> dict[str, np.ndarray]:
    """:func:`collect` in ``workers`` processes: worker ``k`` builds the training env of
    ``env_cfg`` (:func:`domino_env.train.learner_env.make_env_fn`'s keys), seeds it with
    :func:`worker_seed` and records its share of ``samples``; the parts are joined in worker
    order with the episode ids renumbered from ``first_episode``. The same arguments give the same
    dataset; ``workers=1`` runs in this process and gives exactly what :func:`collect` does.
    ``expert`` and ``policy`` must be picklable (every agent of the registry is). A signal that
    ``stop`` receives ends every worker at the end of its episode; what they recorded is returned.

    Returns:
        the arrays of :func:`collect`.

    Raises:
        RuntimeError: a worker failed (its error in the message).
    """
    import tempfile

    from domino_env.train.progress import close_bar, progress_bar

    workers = max(1, min(int(workers), int(samples)))
    if workers == 1:
        return collect(LearnerEnv(**env_cfg), expert, samples, seed, gamma, policy=policy, beta=beta,
                       first_episode=first_episode, progress=progress, stop=stop, desc=desc)  # fmt: skip
    shares = [samples // workers + (1 if k < samples % workers else 0) for k in range(workers)]
    ctx = multiprocessing.get_context("spawn")
    event, counter = ctx.Event(), ctx.Value("q", 0)
    bar = progress_bar(total=samples, desc=desc, unit="dec", disable=not progress, smoothing=0.05)
    with tempfile.TemporaryDirectory(prefix="domino-bc-") as tmp:
        paths = [str(Path(tmp) / f"part{k}.npz") for k in range(workers)]
        procs = [ctx.Process(target=_collect_part, daemon=True,
                             args=((env_cfg, expert, n, worker_seed(seed, k), gamma, policy, beta), event,
                                   counter, paths[k], os.getpid()))  # fmt: skip
                 for k, n in enumerate(shares)]
        try:
            _start_blocked(procs)
            while alive := [proc.sentinel for proc in procs if proc.is_alive()]:
                multiprocessing.connection.wait(alive, timeout=0.5)
                if stop is not None and stop.received:
                    event.set()
                bar.update(counter.value - bar.n)
        finally:  # also when this process is interrupted: no worker outlives it
            close_bar(bar)
            for proc in procs:
                if proc.is_alive():
                    proc.kill()
                proc.join()
        errors = [Path(q + ".error").read_text() for q in paths if Path(q + ".error").exists()]
        missing = [k for k, q in enumerate(paths) if not Path(q).exists()]
        if errors or missing:
            raise RuntimeError(f"a collection worker failed: {errors[0] if errors else f'worker {missing[0]} wrote nothing'}")
        parts = []
        for q in paths:
            with np.load(q) as f:
                parts.append({k: f[k] for k in DATASET_KEYS})
    episode = first_episode
    for part in parts:  # consecutive ids per worker, shifted to follow the previous worker's
        if len(part["episodes"]):
            part["episodes"] = part["episodes"] - part["episodes"][0] + episode
            episode = int(part["episodes"][-1]) + 1
    return {k: np.concatenate([part[k] for part in parts]) for k in DATASET_KEYS}


def concat(a: dict[str, np.ndarray] | None, b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Two datasets as one (``a`` may be None)."""
    if a is None:
        return b
    return {k: np.concatenate([a[k], b[k]]) for k in DATASET_KEYS}


def dataset_problem(text: str) -> str | None:
    """Why ``--dataset PATH`` could not be used (None: it can), checked before the collection:
    an empty name (``--dataset "$DS"`` with DS unset kept nothing), a name ending in ``/`` (it was
    written as a file of that name), a folder, something that is not a regular file (a FIFO:
    reading it waited forever), a file where a folder of the path should be, or a new file whose
    nearest existing folder cannot take it (the collection then ended in a traceback)."""
    if not text.strip():
        return "give a file name (got an empty one; leave --dataset out to keep no dataset)"
    path = Path(text)
    if path.is_dir():
        return "is a folder; give a file name such as data.npz"
    if text.endswith(tuple(filter(None, (os.sep, os.altsep)))):
        return f"names a folder (it ends in {text[-1]}), and there is none; give a file name such as data.npz"
    if path.exists() and not path.is_file():
        return "exists and is not a regular file (a dataset is a .npz file); give a file name"
    folder = next(f for f in path.absolute().parents if f.exists())
    if not folder.is_dir():
        return f"{folder} is a file, not a folder"
    if path.exists():  # loaded (and written again only where it continues an interrupted collection)
        return None
    try:  # the file and its missing folders are made there once the samples are in
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return f"folder {folder} cannot be written ({exc.strerror or exc})"
    return None


def save_dataset(
    path: Path, data: dict[str, np.ndarray], fingerprint: dict[str, Any], interrupted_of: int | None = None
) -> None:
    """``np.savez_compressed`` of the arrays plus the rules fingerprint (JSON text);
    ``interrupted_of``: the decisions a collection stopped early was asked for (read back by
    :func:`interrupted_of`)."""

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.partial.npz")  # (its own: two runs may save one --dataset)
    extra = {} if interrupted_of is None else {"interrupted_of": np.array(int(interrupted_of))}
    try:
        np.savez_compressed(tmp, fingerprint=np.array(json.dumps(fingerprint, sort_keys=True)), **extra, **data)
        sync_file(tmp)  # on the disk before the rename: a crash leaves the earlier dataset or this one
        os.replace(tmp, path)
    except BaseException as exc:  # a full disk, a signal: the earlier dataset stays, no partial file beside it
        tmp.unlink(missing_ok=True)
        raise_naming(exc, path)
    sync_folder(path.parent)


def interrupted_of(path: Path) -> int | None:
    """The ``--samples`` of the interrupted collection a dataset file holds part of, or None for a
    complete one (also every file written before the mark existed)."""
    with np.load(path) as f:
        return int(f["interrupted_of"]) if "interrupted_of" in f.files else None


def load_dataset(
    path: Path, fingerprint: dict[str, Any], obs_size: int | None = None, num_actions: int | None = None
) -> dict[str, np.ndarray]:
    """A dataset written by :func:`save_dataset` for the same rules, expert and opponents; with
    ``obs_size`` and ``num_actions`` (the env's), also one whose arrays make a dataset of that env
    (:func:`arrays_problem`).

    Raises:
        ValueError: not a dataset file, one for other rules / expert / opponents / reward, or one
            whose arrays do not agree.
    """

    try:
        with np.load(path) as f:
            data = {k: f[k] for k in DATASET_KEYS}
            saved = json.loads(str(f["fingerprint"]))
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:  # cut short too
        # numpy's own text for a non-npz file suggests allow_pickle=True: not advice to pass on
        why = "" if "pickle" in str(exc) else f": {exc}"
        raise ValueError(f"not a domino-bc dataset ({type(exc).__name__}{why}); give a .npz file that "
                         "domino-bc --dataset wrote") from None  # fmt: skip
    if saved != json.loads(json.dumps(fingerprint, sort_keys=True)):
        diff = sorted(k for k in set(saved) | set(fingerprint) if saved.get(k) != fingerprint.get(k))
        raise ValueError(f"written for other settings (differs in: {', '.join(diff)}); give another --dataset")
    if obs_size is not None and num_actions is not None and (problem := arrays_problem(data, obs_size, num_actions)):
        raise ValueError(f"{problem}; give a .npz file that domino-bc --dataset wrote")
    return data


def _are(count: int) -> str:
    return "is" if count == 1 else "are"


def arrays_problem(data: dict[str, np.ndarray], obs_size: int, num_actions: int) -> str | None:
    """Why the arrays of a dataset file are not a dataset of an env with ``obs_size`` observation
    entries and ``num_actions`` actions (None: they are), found before any cloning (which failed
    with a traceback on them, or trained on NaN): arrays of other lengths or shapes, non-integer
    observations, masks, actions or episodes, returns that are not finite, a mask that allows no
    action, an action out of range or not legal in its mask."""
    widths = {"observations": obs_size, "masks": -(-num_actions // 8)}
    for k in DATASET_KEYS:
        a, ndim = data[k], 2 if k in widths else 1
        if a.ndim != ndim:
            return f"its {k} array has {a.ndim} dimension(s), not {ndim}"
        if (a.dtype.kind not in "fiu") if k == "returns" else (a.dtype.kind not in "iu"):
            return f"its {k} are {a.dtype}, not {'numbers' if k == 'returns' else 'integers'}"
    lengths = {k: len(data[k]) for k in DATASET_KEYS}
    if len(set(lengths.values())) > 1:
        return f"its arrays are of different lengths ({', '.join(f'{k} {n}' for k, n in lengths.items())}; one row a decision)"
    if not (n := lengths["actions"]):
        return "holds no decisions"
    for k, width in widths.items():
        if data[k].shape[1] != width:
            what = f"{num_actions} actions, {width} bytes of bits" if k == "masks" else f"{width} entries"
            return f"its {k} are {data[k].shape[1]} wide; this env's are {width} ({what})"
    if data["masks"].dtype != np.uint8:
        return f"its masks are {data['masks'].dtype}, not bit-packed uint8"
    if (bad := int(np.count_nonzero(~np.isfinite(data["returns"])))) > 0:
        return f"{bad} of its {n} returns {_are(bad)} not finite (NaN or infinite)"
    actions = data["actions"].astype(np.int64)
    if (bad := int(np.count_nonzero((actions < 0) | (actions >= num_actions)))) > 0:
        return f"{bad} of its {n} actions {_are(bad)} outside 0 .. {num_actions - 1} (this env's {num_actions} actions)"
    empty = illegal = 0
    for i in range(0, len(actions), 1 << 16):  # in parts: a large dataset's unpacked masks are large
        masks = np.unpackbits(data["masks"][i : i + (1 << 16)], axis=1, count=num_actions).astype(bool)
        empty += int(np.count_nonzero(~masks.any(axis=1)))
        illegal += int(np.count_nonzero(~masks[np.arange(len(masks)), actions[i : i + (1 << 16)]]))
    if empty:
        return f"{empty} of its {n} masks allow{'s' * (empty == 1)} no action"
    if illegal:
        return f"{illegal} of its {n} actions {_are(illegal)} not legal in {'its mask' if illegal == 1 else 'their masks'}"
    return None


# ---------------------------------------------------------------------------------- cloning
def held_out(episodes: np.ndarray, fraction: float) -> np.ndarray:
    """bool per sample, shape of ``episodes`` (integer episode ids, one per sample): its episode
    is held out. About ``fraction`` (0 to 1) of the episodes are. A fixed hash of the episode id
    (Knuth's multiplicative hash), so the split never changes as the dataset grows."""
    h = (episodes.astype(np.uint64) * np.uint64(2654435761)) % np.uint64(2**32)
    return h.astype(np.float64) / 2**32 < fraction
