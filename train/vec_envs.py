"""The training envs of a ``domino-train`` run as one vectorised env: how many cores the process
may use (:func:`usable_cores`), the ``SubprocVecEnv`` / ``DummyVecEnv`` of ``--n-envs`` learner
envs (:func:`make_vec_env`) and closing it, also after an abort in the middle of a step
(:func:`close_vec_env`). Re-exported by :mod:`domino_env.train.ppo`.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from domino_env.train.interrupts import children_born_blocked, stop_signals_held
from domino_env.train.learner_env import make_env_fn


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity, e.g. under ``taskset``), else the count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # no affinity on this platform (macOS, Windows)
        return os.cpu_count() or 1


def uses_subproc(n_envs: int, vec_env: str, cores: int) -> bool:
    """Whether the envs get a process each (``SubprocVecEnv``): ``vec_env="subproc"``, or
    ``"auto"`` with several envs and cores."""
    return vec_env == "subproc" or (vec_env == "auto" and cores > 1 and n_envs > 1)


def process_count_problem(n_envs: int, vec_env: str, cores: int) -> str | None:
    """Why ``n_envs`` envs cannot each get a process (None: they can). A ``SubprocVecEnv`` worker
    is a Python process of about 130 MB: 244 of them (``--n-envs`` took up to 256) filled a 24 GB
    machine and the kernel killed processes at random; more than 4 per CPU only wait for each other."""
    if uses_subproc(n_envs, vec_env, cores) and n_envs > 4 * cores:
        return (f"--n-envs {n_envs}: a process per env (SubprocVecEnv) takes at most 4 x the CPUs ({4 * cores}); "
                "give fewer, or --vec-env dummy to step them all in one process")  # fmt: skip
    return None


def make_vec_env(env_cfg: dict[str, Any], n_envs: int, vec_env: str = "auto", seed: int = 0):
    """``n_envs`` training envs (:func:`~train.learner_env.make_env_fn`), seeded ``seed + i``:
    a ``SubprocVecEnv`` for ``vec_env="subproc"`` (``"auto"``: when there are several envs and
    cores), else a ``DummyVecEnv``. SIGINT and SIGTERM wait until the workers have started (a
    second or two), then act as they came; workers started before an exception are killed, not
    left waiting."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    fns = [make_env_fn(env_cfg) for _ in range(n_envs)]
    if not uses_subproc(n_envs, vec_env, usable_cores()):
        venv = DummyVecEnv(fns)
    else:
        import multiprocessing

        before = set(multiprocessing.active_children())
        # a Ctrl-C while a worker was being started cut the pipe it reads its start-up data
        # from, and that worker printed an EOFError traceback under the one-line "interrupted"
        # born with SIGINT / SIGTERM blocked until make_env_fn ignores them: a worker still starting
        # died of a terminal's Ctrl-C (a ConnectionResetError / EOFError traceback here, exit 1)
        with stop_signals_held() as noted, children_born_blocked():
            try:
                venv = SubprocVecEnv(fns)
            except BaseException:  # the workers ignore SIGINT / SIGTERM: kill those that started
                for proc in set(multiprocessing.active_children()) - before:
                    proc.kill()
                raise
        if noted:  # a stop while they started: now that none is half-started, as it came
            close_vec_env(venv, aborted=True)
            signal.raise_signal(noted[0])
    venv.seed(seed)
    return venv


def close_vec_env(vec_env, aborted: bool) -> None:
    """Close the training envs. After an abort (a ``KeyboardInterrupt``, or any error, raised
    anywhere in a step) a ``SubprocVecEnv`` may have read some workers' replies and not others, so
    its graceful ``close()`` would wait forever for replies that never come: its worker processes
    are killed instead (SIGKILL: they ignore the stop signals, :func:`make_env_fn`)."""
    processes = getattr(vec_env, "processes", None)
    if not aborted or processes is None:
        vec_env.close()
        return
    for proc in processes:
        proc.kill()
    for proc in processes:
        proc.join(5)
    vec_env.closed = True
