"""Console scripts, launched only when their optional dependencies are installed.

The library alone (``pip install domino-env``) installs numpy, gymnasium and pettingzoo; the
commands need an extra (``pip install 'domino-env[train]'``). Every console script of
``pyproject.toml`` points here (``domino-evaluate = "domino_env.train.cli:evaluate"``), and so does each
command's ``python -m`` entry (``launch("domino-evaluate", main)``). :func:`launch` checks the
command's modules first; one that is missing ends the command with one line on stderr and exit
code 2, before any work starts::

    domino-evaluate needs the 'train' extra (missing: rich): pip install 'domino-env[train]' (in a clone: pip install -e '.[train]')

It also prints our typed errors that reach it (:class:`~domino_env.core.errors.DominoError`, e.g.
:class:`~domino_env.core.errors.CheckpointError` for a missing or corrupt model given to
``--resume``) as one line with exit code 2 (1 for an :class:`~domino_env.train.outputs.OutputError`,
a result that could not be written, as for every write the disk refused), and Ctrl-C as one line
(then the process dies of SIGINT, which a shell reports as 130), instead of a traceback;
``DOMINO_TRACEBACK=1`` shows the traceback.

Adding a command: one :class:`Command` in :data:`COMMANDS` (its ``module:function``, and for each
extra it needs the modules it imports from it), one function ``name = entry("domino-name")`` below,
and
``domino-name = "domino_env.train.cli:name"`` under ``[project.scripts]`` (``tests/train/test_cli.py`` checks
that the three agree with the extras of ``pyproject.toml``).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import importlib.util
import os
import re
import shlex
import signal
import sys
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from domino_env.agents.checkpoint_files import first_line  # noqa: F401  (re-exported)
from domino_env.train.hangup import stop_on_hangup
from domino_env.train.interrupts import exit_interrupted, output_dropped_once_stopping, stop_began
from domino_env.train.outputs import (  # noqa: F401  (re-exported: the commands' output checks)
    WRITE_FAILURES,
    OutputError,
    check_image_file,
    check_output_file,
    not_a_folder,
    output_folder_problem,
    report_thread_write_failures,
    say_write_failure,
    unwritable,
    write_failure,
    write_failures_said,
    write_stdout,
)

#: Exit code of a command refused before it starts (argparse uses 2 for bad flags too).
EXIT_USAGE = 2
#: Exit code after Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130
#: 128 + SIGPIPE: the exit status of a command whose output pipe was closed.
EXIT_BROKEN_PIPE = 141
#: Our own top-level packages: a ModuleNotFoundError inside them is a bug, not a missing extra.
OWN_PACKAGES = ("domino_env", "agents", "train")


@dataclass(frozen=True)
class Command:
    """A console script: what it runs and what it needs beyond the library.

    Attributes:
        target: ``"module:function"``; the function reads ``sys.argv`` (argparse) and may return
            an int exit code.
        needs: ``{extra: import names}``: for each ``[project.optional-dependencies]`` extra the
            command needs, the modules it imports from it (checked with
            ``importlib.util.find_spec``, which finds a module without importing it). Empty for a
            command that runs on the library alone.
        stops_on_hangup: a closed terminal (SIGHUP) stops the command as SIGTERM does, saving what
            it has (:func:`~domino_env.train.hangup.stop_on_hangup`; its workers ignore
            SIGHUP); else SIGHUP keeps its default, or the command's own handling.
    """

    target: str
    needs: dict[str, tuple[str, ...]]
    stops_on_hangup: bool = False


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a one-line error (``PROG: error: MESSAGE (PROG --help lists every option)``,
    exit status 2) instead of the whole usage block, which is long for these commands; and no
    abbreviated options (``--times`` for ``--timesteps``): a run records its command line, and its
    ``--resume`` hint repeats it, so an option must be spelt as the parser knows it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        # a negative number in exponent form (--learning-rate -1e-3) is a value, not an option:
        # argparse before 3.13 read it as an option ("expected one argument")
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help lists every option)\n")


class DefaultsHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``(default: X)`` after each option's help, except where the default is None: those options
    are off or resolved later (the preset's value, the CPU count), as their help text says. A list
    is shown as it is typed (``greedy planner``, ``none`` when empty), not as a Python list."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None:
            return action.help
        if isinstance(action.default, (list, tuple)) and action.help and "%(default)" not in action.help:
            typed = " ".join(map(str, action.default)) or "none"
            return f"{action.help} (default: {typed.replace('%', '%%')})"
        return super()._get_help_string(action)


#: The ``train`` extra's modules that a Stable-Baselines3 training command imports.
_TRAIN = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib", "tqdm", "rich")

#: The extra that installs each optional module our code imports (``[project.optional-dependencies]``
#: of ``pyproject.toml``; ``tests/train/test_cli.py`` checks each against it). A module missing
#: while a command runs (e.g. ``sb3_contrib`` for ``domino-play --opponents ppo:PATH``) is named
#: with the extra to install, even when the command itself does not need that extra.
EXTRA_OF_MODULE: dict[str, str] = {
    **dict.fromkeys(_TRAIN, "train"),
    "ray": "rllib",
    "PIL": "render",
    "playwright": "browser",
}

#: Every console script, by its name in ``[project.scripts]``.
COMMANDS: dict[str, Command] = {
    "domino-evaluate": Command("domino_env.train.evaluate:main", {"train": ("rich", "tqdm")}, stops_on_hangup=True),
    "domino-train": Command("domino_env.train.ppo:main", {"train": _TRAIN}, stops_on_hangup=True),
    "domino-bc": Command("domino_env.train.bc:main", {"train": _TRAIN}, stops_on_hangup=True),
    # Library only (a ppo:PATH opponent needs the 'train' extra: a missing module is one line).
    "domino-play": Command("domino_env.train.play:main", {}),
    "domino-replay-html": Command("domino_env.train.replay_html:main", {}),
    "domino-paired": Command("domino_env.train.paired:main", {}),
    "domino-rllib": Command(
        "domino_env.train.rllib:main", {"rllib": ("ray", "torch", "tqdm", "rich")}, stops_on_hangup=True
    ),
}


def missing_modules(modules: Sequence[str]) -> list[str]:
    """The names of ``modules`` that cannot be imported (not installed, or blocked with
    ``sys.modules[name] = None``), in the given order."""
    missing = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a parent package missing, or a broken module entry
            found = False
        if not found:
            missing.append(name)
    return missing


def extra_hint(command: str, extras: str | Sequence[str], missing: Sequence[str]) -> str:
    """The one-line message for a command whose extra(s) are not installed."""
    extras = [extras] if isinstance(extras, str) else list(extras)
    names = " and ".join(f"'{e}'" for e in extras)
    joined = ",".join(extras)
    return (
        f"{command} needs the {names} extra{'s' if len(extras) > 1 else ''} (missing: "
        f"{', '.join(missing)}): pip install 'domino-env[{joined}]' (in a clone: pip install -e "
        f"'.[{joined}]')"
    )


def check_extras(command: str) -> str | None:
    """The one-line message if a module ``command`` needs is missing, else None."""
    extras, missing = [], []
    for extra, modules in COMMANDS[command].needs.items():
        absent = missing_modules(modules)
        if absent:
            extras.append(extra)
            missing += absent
    return extra_hint(command, extras, missing) if missing else None


def run_script(name: str, main: Callable[[], object]) -> NoReturn:
    """Run a benchmark script's ``main`` and exit with its status: Ctrl-C is one line
    (``NAME: interrupted``, then killed by SIGINT as :func:`launch`) and a closed output pipe a
    quiet 141, not tracebacks."""
    try:
        result = main()
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # exiting: a second Ctrl-C must not reach atexit hooks
        print(f"{name}: interrupted", file=sys.stderr, flush=True)
        result = EXIT_INTERRUPTED
    except BrokenPipeError:
        _exit_on_closed_pipe()
    except OSError as exc:  # a full disk: one line, as in launch
        if exc.errno not in WRITE_FAILURES:
            raise
        _fail(f"{name}: error: {write_failure(exc)}", 1)
    _exit_with(result)


def _exit_on_closed_pipe() -> NoReturn:
    """Whoever read our output went away (``| head``): stop quietly, as ``cat`` does, with stdout
    pointed at /dev/null so that Python's exit-time flush does not fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError:
        pass
    raise SystemExit(EXIT_BROKEN_PIPE) from None


def rich_console(**kwargs: Any) -> Any:
    """A ``rich.console.Console`` (``kwargs`` are its own) for a command's output: when whoever
    reads it goes away (``CMD | head``) it raises ``BrokenPipeError``, which :func:`launch` ends
    silently with 141 as for every other write; rich's own handler exited with 1 there."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True  # nothing more to write
            raise BrokenPipeError(errno.EPIPE, "the output pipe was closed")

    return _Console(**kwargs)


def _exit_with(result: object) -> NoReturn:
    """Exit with ``main``'s return value when it is an int, else 0 (130, Ctrl-C's status: as
    :func:`~domino_env.train.interrupts.exit_interrupted`)."""
    if result == EXIT_INTERRUPTED and not isinstance(result, bool):
        exit_interrupted()
    raise SystemExit(result if isinstance(result, int) and not isinstance(result, bool) else 0)


def path_word(path: str | os.PathLike[str]) -> str:
    """``path`` as a value in a command line we print: ``./-odd`` for a name that starts with
    ``-``, which argparse would read as an option (quote it with ``shlex`` as well)."""
    text = os.fspath(path)
    return f"./{text}" if text.startswith("-") else text


def users_script(own: str | os.PathLike[str], argv0: str | None = None) -> str | None:
    """``python SCRIPT`` (shell-quoted) when this process was started as a Python file other than
    the command's own module ``own`` and the console scripts: a script of the user's that
    registers its own agents and runs the command's ``main`` (docs/play.md, docs/agents.md), with
    or without ``.py``. A hint that repeats the command must name that script, since the console
    script does not know its agents. None for a console script, ``python -m`` of the command's
    module, ``-c`` or an interactive interpreter (``argv0``: default ``sys.argv[0]``)."""
    script = sys.argv[0] if argv0 is None else argv0
    if script in ("", "-c") or Path(script).stem in COMMANDS or not os.path.isfile(script):
        return None  # an interactive or -c interpreter, a console script
    if Path(script).resolve() != Path(own).resolve():  # (a script named without .py too)
        return shlex.join(["python", script])
    return None


def no_cuda() -> str | None:
    """Why torch cannot train on CUDA here, or None when it can."""
    import torch

    if torch.cuda.is_available():
        return None
    return f"this torch ({torch.__version__}) has no CUDA" if torch.version.cuda is None else "torch sees no CUDA GPU"


def load_failure(exc: BaseException) -> str:
    """Why a model file did not load, in one line: ``type: first line``, except for a tensor file
    that does not unpickle, whose torch text advises ``weights_only=False`` (running its code)."""
    import pickle

    from domino_env.agents.checkpoint_files import UNPICKLING_FAILED

    if isinstance(exc, ImportError) and (exc.name or "").startswith("numpy._core"):  # numpy 1, a numpy 2 model
        return f"saved with numpy 2, which numpy < 2 cannot read: pip install 'numpy>=2' ({exc})"
    return UNPICKLING_FAILED if isinstance(exc, pickle.UnpicklingError) else f"{type(exc).__name__}: {first_line(exc)}"


def _fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    print(message, file=sys.stderr, flush=True)
    raise SystemExit(code)


#: Where the package's own source files are (editable install: the clone; else the package).
_OWN_SOURCES = str(Path(__file__).resolve().parents[1])


def one_line_warnings(command: str) -> None:
    """Show the package's own warnings (e.g. a model trained with other rules) as one line,
    ``CMD: warning: message``, once per message: a command that checks its agents before the
    work and loads them again for it would print each twice, with a source line. Other
    libraries' warnings keep Python's format."""
    import warnings

    default = warnings.showwarning
    shown: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001
        name = str(filename)
        if not name.startswith(_OWN_SOURCES) or "site-packages" in name[len(_OWN_SOURCES):]:
            return default(message, category, filename, lineno, file, line)  # another library's
        text = f"{command}: warning: {message}"
        if text not in shown:
            shown.add(text)
            print(text, file=sys.stderr if file is None else file, flush=True)

    warnings.showwarning = show


def _resolve(target: str) -> Callable[[], object]:
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)


def launch(command: str, main: Callable[[], object] | None = None) -> NoReturn:
    """Run the console script ``command`` (a key of :data:`COMMANDS`) and exit.

    Args:
        command: the script's name, e.g. ``"domino-evaluate"``.
        main: the function to run; default: the command's ``target`` (imported after the check).
            ``python -m`` entries pass their own ``main``.

    Exits with 2 and one line on stderr when a module of the command's extra is missing (before
    ``main`` runs), when a module of any extra (:data:`EXTRA_OF_MODULE`) is found missing while
    it runs (the line names that extra), or on a
    :class:`~domino_env.core.errors.DominoError` (``command: error: message``; 1 for an
    :class:`~domino_env.train.outputs.OutputError`, a result that could not be written); killed by SIGINT
    after one line on Ctrl-C, or when ``main`` returns 130
    (:func:`~domino_env.train.interrupts.exit_interrupted`: a shell reports 130) (143 when a SIGTERM handler raised ``KeyboardInterrupt("SIGTERM")`` or
    ``KeyboardInterrupt("SIGTERM", detail)``, whose detail the line adds; from then on
    SIGINT is ignored, as the process is exiting); silently with 141 when its output pipe is closed (``| head``),
    except in a stop of ``domino-train``, ``domino-bc``, ``domino-rllib`` or ``domino-evaluate`` (the same Ctrl-C
    killed ``| tee``): its messages are dropped and it saves and ends as for the signal
    (:func:`~domino_env.train.interrupts.output_dropped_once_stopping`); with 1 and
    one line naming the file when the disk refused a write (:data:`WRITE_FAILURES`: full, over
    quota, read-only); else with ``main``'s return value (an int) or 0.
    """
    spec = COMMANDS[command]
    hint = check_extras(command)
    if hint:
        _fail(hint)
    from domino_env.core.errors import DominoError

    show_traceback = bool(os.environ.get("DOMINO_TRACEBACK"))
    one_line_warnings(command)
    if not show_traceback:  # TensorBoard's writer thread: one line, not its traceback
        report_thread_write_failures(command)
    failures_said = write_failures_said()
    # a stop's messages may meet a closed pipe (Ctrl-C also killed `| tee`): dropped, the stop goes on
    with output_dropped_once_stopping() if spec.stops_on_hangup else contextlib.nullcontext():
        try:
            with stop_on_hangup() if spec.stops_on_hangup else contextlib.nullcontext():
                result = (main or _resolve(spec.target))()
            if result in (EXIT_INTERRUPTED, 128 + signal.SIGTERM):  # stopped (saved, said): as a KeyboardInterrupt
                stop_began()
        except ModuleNotFoundError as exc:
            top = (exc.name or "").partition(".")[0]
            if show_traceback or not top or top in OWN_PACKAGES:
                raise
            if (exc.name or "").startswith("numpy._core"):  # numpy 1 unpickling numpy 2's names (a model)
                _fail(f"{command}: error: a file saved with numpy 2 cannot be read by numpy < 2: pip install 'numpy>=2' ({exc})")
            owner = next((e for e, mods in spec.needs.items() if top in mods), EXTRA_OF_MODULE.get(top))
            if owner:
                _fail(extra_hint(command, owner, [top]))
            _fail(f"{command}: error: module {top!r} is not installed ({exc})")
        except DominoError as exc:  # bad input (a corrupt model, rules, agents): its message says it
            if show_traceback:
                raise
            _fail(f"{command}: error: {exc}", 1 if isinstance(exc, OutputError) else EXIT_USAGE)
        except BrokenProcessPool as exc:  # a worker was killed (domino-evaluate --workers N): say so
            if show_traceback:
                raise
            _fail(f"{command}: error: {exc}", 1)
        except KeyboardInterrupt as exc:
            stop_began()
            if show_traceback:
                raise
            # A repeated signal while the interpreter exits (coreutils timeout signals the process and
            # then its group) raised inside an atexit hook (torch's): a traceback after our line.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            # a SIGTERM handler that stops work as Ctrl-C does raises KeyboardInterrupt("SIGTERM"): 143;
            # KeyboardInterrupt(name, detail) also says what happened (StopSignals' abort)
            name = exc.args[0] if exc.args and exc.args[0] in ("SIGTERM", "SIGHUP") else "SIGINT"
            detail = f" ({exc.args[1]})" if len(exc.args) == 2 and isinstance(exc.args[1], str) else ""
            if name != "SIGINT":
                _fail(f"{command}: interrupted{detail}", 128 + signal.Signals[name].value)
            print(f"{command}: interrupted{detail}", file=sys.stderr, flush=True)
            result = EXIT_INTERRUPTED  # (exit_interrupted here would chain this exception, and the
            # interpreter would keep its frames, a process pool's among them, alive while it exits)
        except BrokenPipeError:
            _exit_on_closed_pipe()
        except OSError as exc:  # a full disk (or quota, or a file system gone read-only) met while writing
            if show_traceback or exc.errno not in WRITE_FAILURES:
                raise
            say_write_failure(command, exc)  # (once: a thread's failure that its library raised here again)
            raise SystemExit(1) from None
    if write_failures_said() > failures_said and not (isinstance(result, int) and result):
        raise SystemExit(1)  # a thread's write failure, said in its line and never raised here: not a success
    _exit_with(result)


def entry(command: str) -> Callable[[], NoReturn]:
    """The console-script function of ``command`` (what ``[project.scripts]`` points to)."""

    def run() -> NoReturn:
        launch(command)

    run.command = command  # type: ignore[attr-defined]  (read by the tests)
    run.__name__ = run.__qualname__ = command.removeprefix("domino-").replace("-", "_")
    run.__doc__ = f"The ``{command}`` console script (runs ``{COMMANDS[command].target}``)."
    return run


evaluate = entry("domino-evaluate")
train = entry("domino-train")
bc = entry("domino-bc")
play = entry("domino-play")
replay_html = entry("domino-replay-html")
paired = entry("domino-paired")
rllib = entry("domino-rllib")
