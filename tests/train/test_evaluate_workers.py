"""Tournaments in worker processes: a script without the ``__main__`` guard gets a clear error
instead of a hang, and Ctrl-C stops workers that are in the middle of a long chunk at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from process_helpers import running, wait_for_worker_cpu

ROOT = Path(__file__).resolve().parents[2]


def test_a_script_without_the_main_guard_gets_an_error_not_a_hang(tmp_path):
    """Each spawned worker imports the script, which calls evaluate() again and dies; the pool
    used to start a new worker for ever (the caller hung, printing tracebacks)."""
    script = tmp_path / "no_guard.py"
    script.write_text(
        "from domino_env.train.evaluate import evaluate\n"
        "evaluate(['planner', 'greedy'], rounds=8, seed=0, workers=2, game='block')\n"
        "print('finished')\n"
    )
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 1 and "finished" not in proc.stdout
    # the error's line; multiprocessing's resource_tracker may print a leak warning after it
    lines = [line for line in proc.stderr.splitlines() if line.startswith("concurrent.futures.process.BrokenProcessPool")]
    assert len(lines) == 1, proc.stderr[-3000:]
    last = lines[0]
    assert last.startswith("concurrent.futures.process.BrokenProcessPool: an evaluation worker process died"), last
    assert 'outside `if __name__ == "__main__":`' in last and "workers=1" in last


def test_an_agent_that_cannot_be_pickled_is_refused_before_the_workers_start(tmp_path):
    """A lambda in a script: with one deal it ran in the caller; with more, the workers got a
    PicklingError traceback. Now one ConfigError naming the agent, before any play."""
    script = tmp_path / "lam.py"
    script.write_text(
        "import numpy as np\n"
        "from domino_env.core.errors import ConfigError\n"
        "from domino_env.train.evaluate import evaluate\n"
        "if __name__ == '__main__':\n"
        "    first = lambda o, m, r: int(np.flatnonzero(m)[0])\n"
        "    first.__name__ = 'first'\n"
        "    print(evaluate([first, 'greedy'], rounds=2, workers=2, game='block', progress=False).rounds_played)\n"
        "    try:\n"
        "        evaluate([first, 'greedy'], rounds=40, workers=2, game='block', progress=False)\n"
        "    except ConfigError as err:\n"
        "        print(err)\n"
    )
    proc = _run_script(script)
    one, refused = proc.stdout.strip().splitlines()
    assert one == "2"
    assert refused.startswith("invalid argument 'agents': got 'first'; allowed: a picklable agent when workers > 1")
    assert "PicklingError" in refused and "or workers=1" in refused


def test_a_config_error_inside_a_worker_reaches_the_caller_as_itself(tmp_path):
    """ConfigError and AgentSpecError did not survive pickling (their __init__ takes three and two
    arguments), so one raised by an agent in a worker was reported as a dead worker."""
    import pickle

    from domino_env import AgentSpecError, ConfigError

    for err in (ConfigError("rng", None, "a Generator"), AgentSpecError("foo", "one of ['greedy']")):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)
        assert (back.field, back.value, back.allowed) == (err.field, err.value, err.allowed)
    script = tmp_path / "bad_rng.py"
    script.write_text(
        "from domino_env.core.errors import ConfigError\n"
        "from domino_env.train.evaluate import evaluate\n"
        "from domino_env.wrappers import random_legal_opponent\n"
        "class SeedNotRng:\n"
        "    name = 'seeded'\n"
        "    def __call__(self, o, m, r):\n"
        "        return random_legal_opponent(o, m, 0)\n"
        "if __name__ == '__main__':\n"
        "    try:\n"
        "        evaluate([SeedNotRng(), 'greedy'], rounds=8, num_players=2, max_pip=9, workers=2, progress=False)\n"
        "    except ConfigError as err:\n"
        "        print(type(err).__name__, err)\n"
    )
    proc = _run_script(script)
    assert proc.stdout.startswith("ConfigError invalid argument 'rng': got 0; allowed: a numpy.random.Generator")


def _run_script(script: Path) -> subprocess.CompletedProcess:
    """``python SCRIPT`` in its folder; it must exit 0."""
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=script.parent)
    assert proc.returncode == 0, proc.stderr
    return proc


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_ctrl_c_stops_workers_in_the_middle_of_a_chunk(tmp_path):
    """A chunk of search rounds takes minutes (search:1000: several CPU minutes a chunk here);
    SIGINT never reaches the workers (so that they print no tracebacks), so the caller must end
    them itself: the command exits at once and leaves no process of its group behind."""
    out = tmp_path / "never.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "domino_env.train.evaluate", "--agents", "search:1000", "planner", "planner", "planner",
         "--rounds", "4000", "--workers", "2", "--json", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=ROOT,
    )  # fmt: skip
    try:
        seen = ""
        while "0/4000" not in seen:  # the bar is up: the workers are being started
            seen += proc.stderr.read(1)
            assert proc.poll() is None, seen
        wait_for_worker_cpu(proc, 4)  # they import and start their first chunk (no fixed sleep: load-proof)
        assert proc.poll() is None
        os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C: the whole process group
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "/4000" not in line]
    assert proc.returncode == -signal.SIGINT and lines == [
        f"domino-evaluate: interrupted (the tournament did not finish: no results; {out} not written)"], err[-2000:]
    assert not Path(f"{out}.partial.jsonl").exists()  # no deal finished: no journal left to refuse the next run
    deadline = time.monotonic() + 30
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _group_alive(proc.pid), "a worker process outlived the command"
    assert not out.exists()


def test_a_killed_worker_is_one_line_not_advice_about_the_main_guard():
    """kill -9 of a worker (as the OOM killer does) gave two chained 30-line tracebacks that blamed
    a missing __main__ guard."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "domino_env.train.evaluate", "--agents", "search", "planner", "planner", "planner",
         "--rounds", "4000", "--workers", "2", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=ROOT,
    )  # fmt: skip
    try:
        workers: list[int] = []
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:  # the two pool workers (and no others)
            time.sleep(0.5)
            found = subprocess.run(["pgrep", "-P", str(proc.pid), "-f", "spawn_main"], capture_output=True, text=True)
            workers = [int(p) for p in found.stdout.split()]
        assert len(workers) == 2, workers
        time.sleep(3)
        os.kill(workers[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1 and err.count("\n") == 1, err[-3000:]
    assert err.startswith("domino-evaluate: error: an evaluation worker process died (killed, e.g. out of memory;")


def test_an_agent_defined_inside_the_main_guard_is_refused_before_the_workers_start(tmp_path):
    """The function pickles in the caller, but the spawned workers do not run the guarded block and
    cannot find it: each printed a traceback of its own before the pool broke. Now one
    ConfigError names the agent and the block, before any worker starts, also where the agent only
    holds it (a top-level class holding it, as a search agent holds its prior); a class beside it at
    the script's top level (in a try) is accepted and plays."""
    script = tmp_path / "inner.py"
    script.write_text(
        "from domino_env.core.errors import ConfigError\n"
        "from domino_env.train.evaluate import evaluate\n"
        "try:\n"
        "    class Last:\n"
        "        name = 'last'\n"
        "        def __init__(self, prior=None):\n"
        "            self.prior = prior\n"
        "        def __call__(self, o, m, r):\n"
        "            return int(m.nonzero()[0][-1])\n"
        "except ImportError:\n"
        "    pass\n"
        "if __name__ == '__main__':\n"
        "    def inner(o, m, r):\n"
        "        return int(m.nonzero()[0][-1])\n"
        "    print(evaluate([Last(), 'greedy'], rounds=4, seed=0, workers=2, game='block').rounds_played)\n"
        "    try:\n"
        "        evaluate([Last(prior=inner), 'greedy'], rounds=4, seed=0, workers=2, game='block')\n"
        "    except ConfigError as err:\n"
        "        print(err)\n"
        "    evaluate([inner, 'greedy'], rounds=40, seed=0, workers=2, game='block', progress=False)\n"
    )
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    played, held = proc.stdout.splitlines()
    assert proc.returncode == 1 and played == "4", proc.stderr[-3000:]
    assert held.startswith("invalid argument 'agents': got 'last'; allowed: an agent the worker processes can "
                           "import (inner is defined inside")  # fmt: skip
    assert proc.stderr.count("Traceback") == 1 and "AttributeError" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stderr.splitlines()[-1] == (
        "domino_env.core.errors.ConfigError: invalid argument 'agents': got 'inner'; allowed: an agent the "
        f"worker processes can import (inner is defined inside `if __name__ == \"__main__\":` of {script}, a block "
        "the workers' import of the script skips: define it at the script's top level), or workers=1"
    )


def test_the_names_a_script_binds_when_imported(tmp_path):
    """What the workers' import of a script (``__name__ == "__mp_main__"``) binds, and what it
    skips: the guard in its spellings (``==`` either way round, ``!=`` with its else, ``in``,
    ``not``, ``and`` / ``or`` with other tests), inside a try too; other blocks count as run."""
    from domino_env.train.tournament_checks import _script_names

    script = tmp_path / "s.py"
    script.write_text(
        "import numpy as np, os.path\n"
        "from x import y as z\n"
        "A = B = 1\n"
        "def f(): pass\n"
        "if '__main__' == __name__:\n"
        "    class Hidden: pass\n"
        "    hidden = 2\n"
        "else:\n"
        "    shown = 3\n"
        "if __name__ == '__main__' and len(sys.argv) > 1:\n"
        "    class H2: pass\n"
        "if __name__ in ('__main__',):\n"
        "    class H3: pass\n"
        "if __name__ != '__main__':\n"
        "    class Other: pass\n"
        "else:\n"
        "    class H4: pass\n"
        "if not __name__ == '__main__' or flag:\n"
        "    class Shown2: pass\n"
        "if flag:\n"
        "    class Maybe: pass\n"
        "try:\n"
        "    if __name__ == '__main__':\n"
        "        class H5: pass\n"
        "except ImportError as err:\n"
        "    pass\n"
        "for i in range(2):\n"
        "    class InLoop: pass\n"
        "with open(__file__) as fh:\n"
        "    C: int = 4\n"
        "class A: pass\n"
        "if __name__ == '__main__':\n"
        "    class A: pass\n"
    )
    bound, skipped = _script_names(str(script))
    assert bound == {"np", "os", "z", "A", "B", "f", "shown", "Other", "Shown2", "Maybe", "err", "i", "InLoop", "fh", "C"}
    assert skipped == {"Hidden", "hidden", "H2", "H3", "H4", "H5", "A"}
    (tmp_path / "bad.py").write_text("def (:\n")
    assert _script_names(str(tmp_path / "bad.py")) is None  # unread: the workers' own error says
    assert _script_names(str(tmp_path / "missing.py")) is None
    for run_time in ("def g():\n    global K\n", "exec('class K: pass')\n", "globals()['K'] = 1\n"):
        (tmp_path / "rt.py").write_text(run_time)
        assert _script_names(str(tmp_path / "rt.py")) is None  # names made at run time: not refused


def test_the_names_a_match_statement_binds_when_imported(tmp_path):
    """A top-level ``match``: its cases' captures and bodies run on import like any other block
    (a guard inside a case is followed too). Unread, an agent class defined in a case would be
    refused as one "defined inside `if __name__ == "__main__":`", though the workers import it
    (a mutant that skipped the cases passed every test)."""
    from domino_env.train.tournament_checks import _script_names

    script = tmp_path / "m.py"
    script.write_text(
        "import sys\n"
        "match sys.argv[1:]:\n"
        "    case [first, *rest] if first:\n"
        "        class Args: pass\n"
        "    case (str() as text) | (bytes() as text):\n"
        "        pass\n"
        "    case {'k': value, **others}:\n"
        "        pass\n"
        "    case _:\n"
        "        if __name__ == '__main__':\n"
        "            class Hidden: pass\n"
        "        else:\n"
        "            class Shown: pass\n"
    )
    assert _script_names(str(script)) == ({"sys", "first", "rest", "Args", "text", "value", "others", "Shown"}, {"Hidden"})


def test_an_agent_of_a_package_main_or_defined_twice_is_refused(tmp_path):
    """``python -m pkg`` (its __main__.py): the workers do not import it at all, so even a
    top-level agent there killed them; a class defined at the top level and again inside the
    guard was played in its top-level form by the workers (another agent than the caller's)."""
    agent = ("class First:\n    name = 'first'\n    def __call__(self, o, m, r):\n"
             "        return int(m.nonzero()[0][0])\n")  # fmt: skip
    call = "evaluate([First(), 'greedy'], rounds=8, seed=0, workers=2, game='block')\n"
    pkg = tmp_path / "mpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text("from domino_env.train.evaluate import evaluate\n" + agent
                                     + "if __name__ == '__main__':\n    " + call)  # fmt: skip
    proc = subprocess.run([sys.executable, "-m", "mpkg"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 1 and "AttributeError" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stderr.splitlines()[-1].endswith(
        f"(First is defined in {pkg / '__main__.py'}, a package's __main__ module, which the workers do not import: "
        "define it in another module of the package), or workers=1"
    )
    script = tmp_path / "twice.py"
    script.write_text("from domino_env.train.evaluate import evaluate\n" + agent + "if __name__ == '__main__':\n"
                      + "".join("    " + line + "\n" for line in agent.replace("[0][0]", "[0][-1]").splitlines())
                      + "    " + call)  # fmt: skip
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 1 and "AttributeError" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stderr.splitlines()[-1].endswith(
        f"(First is defined both at the top level of {script} and inside `if __name__ == \"__main__\":`, which the "
        "workers' import of the script skips: they would play the top-level one; give the two different names), "
        "or workers=1"
    )


def test_workers_end_themselves_when_the_tournament_process_is_killed(tmp_path):
    """SIGKILL (the out-of-memory killer) gives the tournament's process no chance to stop its
    workers: they lived on, idle, for minutes, holding its output pipes open (a caller waiting for
    EOF hung). Each worker now watches its parent and ends within a second of it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "domino_env.train.evaluate", "--agents", "search", "planner", "planner", "planner",
         "--rounds", "4000", "--workers", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=ROOT,
    )  # fmt: skip
    workers: list[int] = []
    try:
        seen = ""
        while "0/4000" not in seen:  # the bar is up: the workers are being started
            seen += proc.stderr.read(1)
            assert proc.poll() is None, seen
        deadline = time.monotonic() + 60
        while len(workers) < 2:
            assert time.monotonic() < deadline, "the workers did not start"
            children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
            workers = [int(c) for c in children if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text()]
            time.sleep(0.1)
        time.sleep(3)  # they have run their initializer
        proc.kill()
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(running(w) for w in workers):
            assert time.monotonic() < deadline, "the workers outlived the killed tournament process"
            time.sleep(0.1)
    finally:
        for pid in [proc.pid, *workers]:
            if running(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_ctrl_c_while_the_workers_start_is_not_lost(monkeypatch):
    """SIGINT was ignored while the worker processes were spawned (so that they inherit the
    ignoring): a Ctrl-C in that window was lost and the tournament played on to its end. It is now
    held, and stops the tournament as soon as the workers are up; they are stopped too."""
    import multiprocessing

    import pytest

    import domino_env.train.tournament as tournament

    class CtrlCOnStart(tournament.ProcessPoolExecutor):
        def submit(self, *args, **kwargs):
            if not getattr(self, "pressed", False):
                self.pressed = True
                os.kill(os.getpid(), signal.SIGINT)  # inside the spawning window
            return super().submit(*args, **kwargs)

    monkeypatch.setattr(tournament, "ProcessPoolExecutor", CtrlCOnStart)
    before = set(multiprocessing.active_children())
    with pytest.raises(KeyboardInterrupt):  # (lost, the tournament played on for about a minute)
        tournament.evaluate(["search", "greedy"], rounds=400, workers=2, game="block")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    deadline = time.monotonic() + 30
    while set(multiprocessing.active_children()) - before:
        assert time.monotonic() < deadline, "the workers outlived the interrupted tournament"
        time.sleep(0.1)


def test_a_sigint_this_process_ignores_stays_ignored_while_the_workers_start(monkeypatch):
    """A background job ignores SIGINT (the terminal's Ctrl-C is not for it): holding the Ctrl-C
    of the workers' start must not turn one into a KeyboardInterrupt."""
    import domino_env.train.tournament as tournament

    class SigintOnStart(tournament.ProcessPoolExecutor):
        def submit(self, *args, **kwargs):
            if not getattr(self, "sent", False):
                self.sent = True
                assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # the workers inherit it
                os.kill(os.getpid(), signal.SIGINT)
            return super().submit(*args, **kwargs)

    monkeypatch.setattr(tournament, "ProcessPoolExecutor", SigintOnStart)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        result = tournament.evaluate(["planner", "greedy"], rounds=8, workers=2, game="block")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert result.episodes == 8


@pytest.mark.parametrize(
    "test, value",
    [('__name__ == "__main__"', False), ('__name__ != "__main__"', True), ('__name__ == "__mp_main__"', True),
     ('__name__ in ("__main__",)', False), ('not __name__ == "__main__"', True), ("not flag", None),
     ('__name__ == "__main__" and flag', False), ('__name__ != "__main__" and flag', None),
     ('__name__ != "__main__" and __name__ != "x"', True), ('__name__ == "__main__" or flag', None),
     ('__name__ != "__main__" or flag', True), ('__name__ == "__main__" or __name__ == "x"', False),
     ('flag == "__main__"', None), ("__name__ == f()", None), ("__name__", None), ("__name__ < 3", None),
     ('not (__name__ == "__main__" and flag)', True), ('not (__name__ != "__main__" and flag)', None),
     ('__name__ == "__ma" + "in__"', None)],  # only constants, names and comparisons are evaluated
)  # fmt: skip
def test_the_truth_of_an_if_test_as_the_workers_import_the_script(test, value):
    """``__name__`` is ``"__mp_main__"`` there; None where the test depends on anything else."""
    import ast

    from domino_env.train.tournament_checks import _value_on_import

    assert _value_on_import(ast.parse(test, mode="eval").body) is value
