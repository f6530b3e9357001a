"""Playing a duplicate-deal tournament: the deal seeds and seat rotations, one episode
(:func:`play_episode`), the worker processes and :func:`evaluate` (the rules of the tournament and
its statistics: the docstring of ``domino_env.train.evaluate``, which re-exports these names).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import threading
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import numpy as np

from domino_env.agents.base import Agent, agent_label, make_agent
from domino_env.core.errors import (
    AgentSpecError,
    ConfigError,
    IllegalActionError,
    as_int,
    check_action,
)
from domino_env.envs.games import make_raw_env
from domino_env.envs.infos import Termination
from domino_env.train.arg_types import MAX_ROUNDS, MOST_PER_CPU
from domino_env.train.interrupts import (
    WORKER_STOP_SIGNALS,
    children_born_blocked,
    stop_signals_held,
)
from domino_env.train.tournament_checks import (
    check_built_labels,
    check_for_workers,
    check_labels,
    checked_deal,
    checked_seed,
)
from domino_env.train.tournament_journal import (
    JournalLock,
    JournalWriter,
    journal_header,
    read_journal,
)
from domino_env.train.tournament_results import EvaluationResult, GameRecord, summarize
from domino_env.wrappers import InfoStateAgent, info_state_kwargs

#: Seconds the main thread waits for a finished chunk before it runs Python again (:func:`_next_finished`).
WAIT_SLICE_S = 0.2

#: Chunks submitted a worker ahead of the results (:func:`_play_in_workers`): enough to keep it busy.
CHUNKS_IN_FLIGHT = 4
#: Seconds a stopped tournament waits for its pool's manager thread to end (:func:`_play_in_workers`).
POOL_THREAD_JOIN_S = 10.0


def _next_finished(finished: queue.SimpleQueue) -> Any:
    """The next finished future, waited for in slices of :data:`WAIT_SLICE_S`: a stop signal that
    another thread of this process took (numpy's OpenBLAS threads block none) does not interrupt
    the main thread's wait, and Python runs its handler only once that thread runs Python again;
    a Ctrl-C then waited for the next chunk to finish (47 s in a user's trial)."""
    while True:
        try:
            return finished.get(timeout=WAIT_SLICE_S)
        except queue.Empty:
            pass


def deal_seed(seed: int, deal: int) -> int:
    """Env seed of deal ``deal`` (0..2**32 - 1) of a tournament seeded ``seed`` in 0..2**32 - 1 (31-bit streams)."""
    return int(np.random.SeedSequence([checked_seed(seed), checked_deal(deal)]).generate_state(1)[0] >> 1)


def rotation_seats(num_players: int, rotation: int) -> list[int]:
    """Agent index (position in the agent list) at each seat in ``rotation``: agent ``i`` sits at
    seat ``(i + rotation) % P``."""
    return [(s - rotation) % num_players for s in range(num_players)]


def _credit(winners: Sequence[int], num_players: int, teams: bool = False) -> list[float]:
    """Win credit per seat: ``1/k`` to each of k winners; with ``teams`` (seats 0+2 vs 1+3) each
    winner gets ``1/(winning teams)``: 1 to both partners of a winning team."""
    out = [0.0] * num_players
    share = len({s % 2 for s in winners}) if teams else len(winners)
    for s in winners:
        out[s] = 1.0 / share
    return out


def add_note(exc: BaseException, note: str) -> None:
    """``exc.add_note(note)``; on Python 3.10 (no ``add_note``) the same ``__notes__`` list, which
    3.10's tracebacks do not print but a caller can read."""
    if hasattr(exc, "add_note"):
        exc.add_note(note)
    else:
        exc.__notes__ = [*getattr(exc, "__notes__", []), note]


def play_episode(
    env: Any,
    agents: Sequence[Agent],
    seats: Sequence[int],
    seed: int,
    agent_seed: Sequence[int],
    deal: int = 0,
    rotation: int = 0,
) -> GameRecord:
    """Play one episode of ``env`` (round or game, as the env is configured) from ``seed``.

    Seat ``s`` is played by ``agents[seats[s]]`` with its own generator seeded ``[*agent_seed, s]``.
    """
    p = env.config.num_players
    teams = bool(getattr(env.config, "teams", False))
    env.reset(seed=seed)
    rngs = [np.random.default_rng([*agent_seed, s]) for s in range(p)]
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    rec = GameRecord(deal, rotation, seed, list(seats), round_credit=[0.0] * p, pips=[0] * p, seat_rounds=[0] * p)
    game_mode = env.episode == "game"
    in_play = list(getattr(env.game_state, "active", [True] * p))  # elimination: seats still in the game
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        s = seat_of[agent]
        obs = env.observe(agent)
        actor = agents[seats[s]]
        extra = info_state_kwargs(actor, env.game_state, s)  # the public history, for search agents
        try:
            action = actor(obs["observation"], obs["action_mask"], rngs[s], **extra)
        except Exception as exc:  # the agent's own error (a wrong signature, a bug): say whose it is
            called = "agent(observation, action_mask, rng" + (", info_state=...)" if extra else ")")
            add_note(exc, f"raised by agent {agent_label(actor)} (seat {s}, deal {deal}, rotation {rotation}), "
                          f"called as {called}")  # fmt: skip
            if not extra and isinstance(exc, TypeError) and "info_state" in str(exc):
                add_note(exc, "an agent that takes info_state sets the attribute wants_info_state = True "
                              "(docs/agents.md)")  # fmt: skip
            raise
        try:  # a float or string was rounded or parsed; the seat alone does not say who (rotations)
            env.step(check_action(action))
        except IllegalActionError as err:
            raise IllegalActionError(f"agent {agent_label(actor)} (seat {s}, deal {deal}): {err}") from None
        rec.steps += 1
        info = env.infos.get(agent) or next(iter(env.infos.values()), {})
        if not info.get("round_over"):  # a round result is only in the infos of the step ending it
            pass
        elif info["termination_code"] == Termination.ANNULLED:  # re-dealt at once: not a round
            rec.annulled += 1
        else:
            winners = np.flatnonzero(info["won"]).tolist()
            rec.rounds += 1
            for i in range(p):
                rec.seat_rounds[i] += bool(in_play[i])
            in_play = list(getattr(env.game_state, "active", in_play))
            for i, c in enumerate(_credit(winners, p, teams)):
                rec.round_credit[i] += c
            for i, x in enumerate(info["pips"]):
                rec.pips[i] += int(x)
            if info["termination_code"] == Termination.BLOCKED:
                rec.blocked += 1
                rec.void += not winners
            if game_mode and info["game_over"]:
                rec.game_credit = _credit(np.flatnonzero(info["game_won"]).tolist(), p, teams)
                rec.scores = [int(x) for x in info["scores"]]
        if any(env.truncations.values()):
            rec.truncated = True
            break
    return rec


#: Most deals a worker process plays per task (``evaluate(workers > 1)``): its results come back,
#: and go to the journal, when the whole chunk is done.
CHUNK = 10

# Worker-process state (set once per process by _init_worker).
_WORKER: dict[str, Any] = {}


def _init_worker(
    env_kwargs: dict[str, Any], agents: list[Agent | InfoStateAgent], seed: int, game: str = "mexican_train"
) -> None:
    _WORKER["env"] = make_raw_env(game, **env_kwargs)
    _WORKER["agents"] = agents
    _WORKER["seed"] = seed


def _init_pool_worker(parent: int, *args: Any) -> None:
    """:func:`_init_worker` in a worker process, which also ends itself once ``parent`` (the
    tournament's process) is gone: killed with SIGKILL (the out-of-memory killer), it can stop
    nothing, and its workers lived on, idle, holding its output pipes open."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    _init_worker(*args)


def _play_deals(deals: Sequence[int]) -> list[GameRecord]:
    env, agents, seed = _WORKER["env"], _WORKER["agents"], _WORKER["seed"]
    p = env.config.num_players
    out = []
    for d in deals:
        s = deal_seed(seed, d)
        for r in range(p):
            out.append(play_episode(env, agents, rotation_seats(p, r), s, (seed, d, r), d, r))
    return out


def _positive(field: str, value: Any) -> int:
    """A positive integer (numpy integers too), or ConfigError naming ``field``."""
    number = as_int(value)  # numpy integers and 0-d integer arrays too
    if number is None or number < 1:
        raise ConfigError(field, value, "a positive integer")
    return number


def _play_in_workers(workers: int, todo: list[int], size: int, initargs: tuple) -> Iterator[list[GameRecord]]:
    """Yield :func:`_play_deals` of each chunk of ``size`` deals of ``todo`` as it finishes (in
    any order), from ``workers`` spawned processes. At most :data:`CHUNKS_IN_FLIGHT` chunks a worker are submitted at a time,
    the next as one finishes: a future for each of a long tournament's chunks (500,000 for
    10,000,000 rounds) grew the caller by about 40 MB/s before any round was played.

    A process pool that notices a dead worker (``ProcessPoolExecutor``; ``multiprocessing.Pool``
    silently starts another): a script that calls :func:`evaluate` with ``workers > 1`` outside
    ``if __name__ == "__main__":`` makes every spawned worker re-run it on import and die, which
    used to hang the caller. Ctrl-C reaches the whole process group: the workers are born with
    SIGINT blocked (else each printed "Process SpawnProcess-N:" and a traceback) and the caller
    stops them at once. A Ctrl-C while they start is held and acts right after (it was lost when
    SIGINT was ignored during their start, so that the workers would inherit the ignoring).

    Raises:
        BrokenProcessPool: a worker process died (the message names the ``__main__`` guard).
    """
    # signal.signal works in the main thread only; a stop signal this process ignores (a background
    # job's SIGINT) stays ignored, and the workers inherit that
    main_thread = threading.current_thread() is threading.main_thread()
    masks = hasattr(signal, "pthread_sigmask")  # POSIX; elsewhere the workers inherit SIG_IGN
    stops = [s for s in sorted(WORKER_STOP_SIGNALS) if main_thread and signal.getsignal(s) is not signal.SIG_IGN]
    born_blocked = frozenset(stops) - {signal.SIGTERM}  # SIGINT and SIGHUP (a closed terminal): for life
    noted: list[int] = []
    # SIGTERM is noted too (not blocked: the workers must die of terminate()): raised among the
    # submissions it left the workers playing the whole tournament while the exit waited for them
    handlers = {s: signal.signal(s, (lambda signum, frame: noted.append(signum))
                                 if masks or s != signal.SIGINT else signal.SIG_IGN) for s in stops}  # fmt: skip
    try:  # the workers start on the first submissions, born with SIGINT blocked (a held one is noted)
        with children_born_blocked(born_blocked if masks else frozenset()):
            before = set(multiprocessing.active_children())
            pool = ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("spawn"), initializer=_init_pool_worker,
                initargs=(os.getpid(), *initargs),
            )  # fmt: skip
            # finished futures reach a queue from the pool's thread: as_completed held every future's
            # lock in turn, and a second signal raised there (timeout's group SIGTERM, a second Ctrl-C)
            # left some held, so the pool's thread blocked on them and the exit waited for it forever
            finished: queue.SimpleQueue = queue.SimpleQueue()
            waiting = (todo[i : i + size] for i in range(0, len(todo), size))

            def submit_next() -> None:
                if (chunk := next(waiting, None)) is not None:
                    pool.submit(_play_deals, chunk).add_done_callback(finished.put)

            for _ in range(workers * CHUNKS_IN_FLIGHT):
                submit_next()
            ours = set(multiprocessing.active_children()) - before
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    done = False
    try:
        for signum in noted:  # held while the workers started: the handlers restored act on it now
            signal.raise_signal(signum)
        for _ in range(0, len(todo), size):  # a finished chunk is kept at once (the journal)
            future = _next_finished(finished)
            with stop_signals_held() as noted_now:  # first, whole: the workers go on while this chunk is kept
                submit_next()
            for signum in noted_now:
                signal.raise_signal(signum)
            yield future.result()
        done = True
    except BrokenProcessPool:
        raise BrokenProcessPool(
            "an evaluation worker process died (killed, e.g. out of memory; or, on start-up, in a script "
            'that calls evaluate(..., workers > 1) outside `if __name__ == "__main__":`, which each '
            "spawned worker imports, or that defines an agent inside that block, where the workers "
            "cannot find it: define it at the script's top level; or pass workers=1)"
        ) from None
    finally:
        # Ctrl-C or an error: the workers may be mid-chunk, and SIGINT never reaches them. A further
        # signal must not cut this short: a worker left running made the exit wait for its chunks.
        # No future is cancelled (Executor.map cancels them when stopped early): Python 3.11's pool
        # then marks them broken from its own thread, which raised InvalidStateError there.
        with contextlib.nullcontext() if done else stop_signals_held():
            for process in () if done else ours:
                process.terminate()
            manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() forgets it
            pool.shutdown(wait=done)
            # Python 3.11's exit hook writes to a pipe that this thread closes as it ends: the two
            # raced, and `kill PID` ended with "OSError: [Errno 9] Bad file descriptor". With its
            # workers dead it ends at once; the bound keeps a stuck one from holding the signals.
            if manager is not None and not done:
                manager.join(POOL_THREAD_JOIN_S)


def evaluate(
    agents: Sequence[str | Agent | InfoStateAgent],
    *,
    rounds: int = 2000,
    num_players: int | None = None,
    seed: int = 0,
    episode: str = "round",
    workers: int = 1,
    progress: bool = False,
    keep_records: bool = False,
    game: str = "mexican_train",
    journal: str | os.PathLike[str] | None = None,
    **env_kwargs: Any,
) -> EvaluationResult:
    """Play a duplicate-deal tournament and return its statistics.

    Args:
        agents: one entry per seat: an agent name for :func:`domino_env.agents.make_agent` (``"random"``,
            ``"greedy"``, ``"planner"``, ...) or an agent object (picklable when ``workers > 1``).
            Entries with the same label are aggregated.
        rounds: episodes to play (rounds, or whole games with ``episode="game"``), rounded up to
            a multiple of the number of players (every deal is played in every seat rotation).
        num_players: seats; defaults to ``len(agents)`` and must equal it.
        seed: tournament seed, 0 to 2**32 - 1 (deal ``d`` uses env seed :func:`deal_seed(seed, d) <deal_seed>`).
        episode: ``"round"`` or ``"game"``.
        workers: processes (deals are split between them; the result does not depend on it).
            They are spawned and import the calling script: call this under
            ``if __name__ == "__main__":``.
        progress: show a progress bar (tqdm, on stderr).
        keep_records: keep every :class:`GameRecord` in ``result.records``.
        game: ``"mexican_train"`` (default) or a line game ``"block"``, ``"draw"``, ``"cuban"``
            (:func:`domino_env.envs.games.make_raw_env`; the agents are then the line-game agents
            of :mod:`domino_env.agents.line`).
            With teams the win rates are team win rates (parity 1/2; the docstring of
            ``domino_env.train.evaluate``).
        journal: a file that keeps every finished deal as it finishes (with ``workers > 1``, as
            its chunk of at most :data:`CHUNK` deals finishes;
            :mod:`domino_env.train.tournament_journal`). If it holds deals, they are not played
            again: a tournament interrupted with Ctrl-C continues where it stopped, with the same
            result as one played straight through. It must be the journal of this tournament (the
            same game, rules, agent labels, seed and episode kind; ``rounds`` may differ): agents
            are known by their labels only, so keep what a label names unchanged. An empty file
            is a new journal. The file is left in place (``domino-evaluate`` removes it once its
            ``--json`` is written). While playing, this process holds an exclusive lock on it
            (:class:`~domino_env.train.tournament_journal.JournalLock`): a second run of the
            same journal is refused (``JournalBusyError``) before it plays.
        **env_kwargs: rules and env options for ``mexican_train_v0.raw_env`` (``max_pip``,
            ``preset``, ``doubles``, ...) or, for a line game, ``line_v0.raw_env`` (``max_pip``,
            ``hand_size``, ``teams``, ``next_lead``, ...).

    Raises:
        ConfigError: bad rules, unknown agent name or an entry that is neither a name nor a
            callable (an ``AgentSpecError``), ``agents`` not a sequence, ``num_players != len(agents)``, a bad
            ``rounds`` / ``workers`` / ``seed``, two different agents with one label, or (with
            ``workers > 1``) an agent defined interactively, which the workers cannot import, or
            one that cannot be pickled (a lambda).
        BrokenProcessPool: a worker process died (killed; or without the ``__main__`` guard, on start-up).
        JournalError: ``journal`` is not a journal, or another tournament's, or could not be
            written (the deals written before are kept), or another process is writing it
            (``JournalBusyError``).
        OSError: the journal cannot be read.
    """
    if isinstance(agents, (str, bytes)) or not isinstance(agents, Iterable):  # list("planner"): seven agents
        raise ConfigError("agents", agents, "a sequence of agents, one per seat (e.g. ['planner', 'greedy'])")
    agents = list(agents)
    for agent in agents:  # before the labels: [5, 6] was "different agents with the same name"
        if not isinstance(agent, str) and not callable(agent):
            raise AgentSpecError(agent, "an agent name (for make_agent) or an agent callable, one per seat")
    if num_players is not None and as_int(num_players) is None:
        # a string or a bool was "one agent per seat ('2' seats)": it named the agents, not this argument
        raise ConfigError("num_players", num_players, "an integer, one seat per agent (None: len(agents))")
    if num_players is None:
        if len(agents) < 2:
            raise ConfigError("agents", [agent_label(a) for a in agents], "one agent per seat, 2 to 8 seats")
        num_players = len(agents)
    if num_players != len(agents):
        raise ConfigError(
            "agents", [agent_label(a) for a in agents], f"one agent per seat ({num_players} seats)"
        )
    rounds = _positive("rounds", rounds)
    if rounds > MAX_ROUNDS:  # every record is kept: a huge count filled the memory before any deal
        raise ConfigError("rounds", rounds, f"a positive integer up to {MAX_ROUNDS:,}")
    workers = _positive("workers", workers)
    if workers > MOST_PER_CPU:  # each is a process: thousands were started, to wait for each other
        raise ConfigError("workers", workers, f"a positive integer up to {MOST_PER_CPU} (4 x the CPUs)")
    seed = checked_seed(seed)  # (0 to 2**32 - 1; a plain int: a numpy one made to_dict() unwritable)
    check_labels(agents)
    env_kwargs = {**env_kwargs, "num_players": num_players, "episode": episode}
    env = make_raw_env(game, **env_kwargs)
    if game != "mexican_train":
        env_kwargs.pop("preset", None)
    labels = [agent_label(a) for a in agents]
    built = [make_agent(a, env.config) for a in agents]
    check_built_labels(labels, built)
    for label, agent in zip(labels, built, strict=True):
        cfg = getattr(agent, "config", None)
        if cfg is not None and type(cfg) is not type(env.config):
            raise ConfigError("agents", label, f"an agent built for {game} rules (this one has {cfg!r})")
    if getattr(env.config, "teams", False):
        both = sorted({lab for i, lab in enumerate(labels) if lab in labels[(i + 1) % 2 :: 2]})
        if both:
            warnings.warn(
                f"agent(s) {both} sit on both teams (seats 0+2 vs 1+3): their team win rate is "
                "0.5 by construction; put each agent on one team only",
                stacklevel=2,
            )
    p = num_players
    deals = -(-rounds // p)
    if min(workers, deals) > 1:  # the workers start (one deal is played here)
        check_for_workers(labels, built)
    start = time.perf_counter()
    records: list[GameRecord] = []
    writer = lock = None
    if journal is not None:
        path = Path(journal)
        lock = JournalLock(path)  # before reading: another run may be adding to it
        try:
            header = journal_header(game, env.env_kwargs, labels, seed, episode)
            kept = read_journal(path, header) if path.exists() and path.stat().st_size else None  # (empty: new)
            if kept is not None:
                records = [r for d, recs in kept[0].items() if d < deals for r in recs]
            writer = JournalWriter(path, header, None if kept is None else kept[1])
        except BaseException:
            lock.release()
            raise
    done = {r.deal for r in records}
    todo = [d for d in range(deals) if d not in done]
    resumed = deals - len(todo)
    bar = None
    if progress:
        from domino_env.train.progress import progress_bar

        unit = "game" if episode == "game" else "round"
        bar = progress_bar(total=deals * p, initial=len(records), unit=unit, desc=" ".join(labels),
                           dynamic_ncols=True)  # fmt: skip
    workers = max(1, min(workers, len(todo)))  # more processes than deals would only idle
    batches: Iterator[list[GameRecord]] | None = None
    try:
        if workers == 1:
            _init_worker(env_kwargs, built, seed, game)
            batches = (_play_deals([d]) for d in todo)
        else:
            # chunks of at most CHUNK deals: an interruption loses the chunks being played
            chunk = max(1, min(CHUNK, len(todo) // (workers * 4) or 1))
            batches = _play_in_workers(workers, todo, chunk, (env_kwargs, built, seed, game))
        for recs in batches:
            records.extend(recs)
            if writer is not None:
                writer.add(recs)
            if bar is not None:
                bar.update(len(recs))
    finally:  # also on Ctrl-C: the bar ends its line before any message is printed
        if batches is not None:  # a Ctrl-C in the loop's body left the workers playing (the traceback
            batches.close()  # kept the generator alive) and a script's exit waited for the whole tournament
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
        if lock is not None:
            lock.release()
    records.sort(key=lambda r: (r.deal, r.rotation))  # a continued tournament's: as if straight through
    stats = summarize(records, labels, p, episode, teams=bool(getattr(env.config, "teams", False)))
    return EvaluationResult(
        agents=labels,
        env_kwargs=env.env_kwargs,
        num_players=p,
        episode=episode,
        seed=seed,
        deals=deals,
        episodes=len(records),
        rounds_played=sum(r.rounds for r in records),
        deal_seeds=[deal_seed(seed, d) for d in range(deals)],
        blocked_rounds=sum(r.blocked for r in records),
        void_rounds=sum(r.void for r in records),
        truncated_episodes=sum(r.truncated for r in records),
        stats=stats,
        seconds=time.perf_counter() - start,
        workers=workers,
        records=records if keep_records else [],
        game=game,
        teams=bool(getattr(env.config, "teams", False)),
        annulled_rounds=sum(r.annulled for r in records),
        resumed_deals=resumed,
    )

