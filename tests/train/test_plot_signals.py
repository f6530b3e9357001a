"""A second Ctrl-C while ``domino-train`` draws its learning curve, after an interrupted run's save
and its ``continue with:`` line: the ``KeyboardInterrupt`` landed inside the import of matplotlib,
in the initialisation of one of its compiled modules (1 try in 6 for a user's Ctrl-C 0.7 s after
the first), and crashed Python: a traceback, ``ImportError: initialization failed``, then ``Fatal
Python error: PyThreadState_Get: ... the GIL is released``, exit 134, no ``learning_curve.png``.
Now the plot holds the stop signals: one line, exit 130. Real processes, real SIGINTs."""

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from ppo_helpers import ROOT, SMALL

#: Runs ``domino-train`` (its console script's ``launch``) after setting up, in that process, a real
#: SIGINT sent to itself at the one moment that crashed: when the initialisation of
#: ``matplotlib.ft2font`` (compiled, pybind11; the plot is the first to import matplotlib) runs
#: Python code. The command's own code is not changed: only the import of that module is watched.
HARNESS = """
import importlib.util, os, signal, sys

class _Loader:
    def __init__(self, real):
        self.real = real
    def create_module(self, spec):
        return self.real.create_module(spec)
    def exec_module(self, module):
        def fire(frame, event, arg):
            if event == "call" and not frame.f_code.co_filename.startswith("<frozen"):
                sys.setprofile(None)
                os.kill(os.getpid(), signal.SIGINT)
        sys.setprofile(fire)  # only during this module's initialisation
        try:
            self.real.exec_module(module)
        finally:
            sys.setprofile(None)

class _Finder:
    def find_spec(self, name, path=None, target=None):
        if name != "matplotlib.ft2font":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        spec.loader = _Loader(spec.loader)
        return spec

sys.meta_path.insert(0, _Finder())
from domino_env.train.cli import launch
from domino_env.train.ppo import main
sys.argv = ["domino-train", *ARGS]
launch("domino-train", main)
"""


def _args(out) -> list[str]:
    return [*(a for a in SMALL if a != "--no-plot"), "--timesteps", "1000000", "--n-envs", "1", "--eval-freq", "512",
            "--eval-rounds", "2", "--eval-opponents", "greedy", "--out", str(out)]  # fmt: skip


def _stopped_while_drawing(cmd: list[str], second_after: float | None) -> tuple[int, str, str]:
    """Start ``cmd`` (a ``domino-train``), Ctrl-C (SIGINT) after its first evaluation, and, when
    ``second_after`` is a number, again that many seconds after its ``continue with:`` line (the
    plot is drawn then): ``(exit code, stderr up to that line, stderr after it)``."""
    proc = subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        head = ""
        while "[eval @ 512 steps" not in head:
            line = proc.stderr.readline()
            assert line, (proc.wait(), head)
            head += line
        os.kill(proc.pid, signal.SIGINT)
        while "continue with:" not in line:
            line = proc.stderr.readline()
            assert line, (proc.wait(), head)
            head += line
        if second_after is not None:
            time.sleep(second_after)
            os.kill(proc.pid, signal.SIGINT)
        rest = proc.stderr.read()
        return proc.wait(timeout=120), head, rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_second_ctrl_c_inside_the_plots_compiled_module_import_is_one_line(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-c", HARNESS.replace("ARGS", repr(_args(out)))]
    rc, head, rest = _stopped_while_drawing(cmd, None)  # the second SIGINT: sent inside ft2font's initialisation
    assert "Traceback" not in rest and "Fatal Python error" not in rest, rest  # was both, and exit 134
    assert rc == -signal.SIGINT, rest  # killed by SIGINT after its line: a shell's 130
    assert rest == (f"domino-train: interrupted (a signal while the learning curve was drawn: {out}/learning_curve.png "
                    f"not drawn; draw it with: python -m domino_env.train.plots {out})\n")  # fmt: skip
    assert "SIGINT received" in head and json.loads((out / "metadata.json").read_text())["status"] == "interrupted"
    assert (out / "model.zip").is_file() and not (out / "learning_curve.png").exists()


@pytest.mark.parametrize("second_after", [0.0, 0.1, 0.2, 0.3, 0.5])
def test_a_second_ctrl_c_while_the_curve_is_drawn_is_one_line_whenever_it_comes(tmp_path, second_after):
    """A user's second Ctrl-C at moments of the plot (matplotlib's import, about 0.3 s; the drawing;
    after it, when the command already exits as the first Ctrl-C asked, silently): each ends with
    at most one line and a shell's 130, the run saved."""
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "domino_env.train.ppo", *_args(out)]
    rc, head, rest = _stopped_while_drawing(cmd, second_after)
    assert "Traceback" not in rest and "Fatal Python error" not in rest, rest
    assert rc == -signal.SIGINT, rest
    assert re.fullmatch(r"(domino-train: interrupted( \(.*\))?\n)?", rest), rest
    assert json.loads((out / "metadata.json").read_text())["status"] == "interrupted"
