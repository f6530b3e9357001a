"""Console scripts say which extra is missing, in one line (issue 12 item 10).

Real processes: the console-script function (``from domino_env.train.cli import evaluate; evaluate()``, what
pip's wrapper runs) and the ``python -m`` entries, with the extra's modules blocked
(``sys.modules[name] = None``, through a ``sitecustomize`` on ``PYTHONPATH``) as in a library-only
install. Plus: ``[project.scripts]``, :data:`domino_env.train.cli.COMMANDS` and the extras of
``pyproject.toml`` agree, and :func:`domino_env.train.cli.launch` turns typed errors and Ctrl-C into one line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import pytest

import domino_env.train.cli as cli
from domino_env.core.errors import CheckpointError, ConfigError

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SCRIPTS = PYPROJECT["project"]["scripts"]
EXTRAS = PYPROJECT["project"]["optional-dependencies"]
#: Import names whose distribution is spelled otherwise.
DISTRIBUTIONS = {"stable_baselines3": "stable-baselines3", "sb3_contrib": "sb3-contrib", "PIL": "pillow"}


def _requirement_name(req: str) -> str:
    for stop in "[<>=!~;@ ":
        req = req.split(stop)[0]
    return req.strip().lower().replace("_", "-")


def _blocking_env(tmp_path: Path, modules) -> dict[str, str]:
    """Environment whose interpreters cannot import ``modules`` (as if they were not installed)."""
    shim = tmp_path / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(
        "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(shim), str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("DOMINO_TRACEBACK", None)
    return env


def _console_script(name: str, args, env=None) -> subprocess.CompletedProcess:
    """Run console script ``name`` as pip's wrapper does (``sys.argv[0]`` is the script)."""
    module, _, func = SCRIPTS[name].partition(":")
    code = f"import sys\nsys.argv = {[name, *args]!r}\nfrom {module} import {func}\nsys.exit({func}())\n"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_every_console_script_goes_through_train_cli():
    assert set(SCRIPTS) == set(cli.COMMANDS) and {"domino-evaluate", "domino-train"} <= set(SCRIPTS)
    for name, target in SCRIPTS.items():
        module, _, func = target.partition(":")
        assert module == "domino_env.train.cli", f"{name} = {target!r} bypasses the extra check"
        assert getattr(cli, func).command == name


@pytest.mark.parametrize("name", sorted(cli.COMMANDS))
def test_each_command_names_extras_that_install_its_modules(name):
    spec = cli.COMMANDS[name]
    for extra, modules in spec.needs.items():
        assert extra in EXTRAS, f"{name}: no extra {extra!r} in pyproject.toml"
        declared = {_requirement_name(r) for r in EXTRAS[extra]}
        for module in modules:
            dist = DISTRIBUTIONS.get(module, module).replace("_", "-").lower()
            assert dist in declared, f"{name} needs {module}, which the {extra!r} extra does not install"
    module, _, func = spec.target.partition(":")
    assert callable(getattr(__import__(module, fromlist=[func]), func))


@pytest.mark.parametrize(
    ("name", "blocked", "missing"),
    [
        ("domino-evaluate", ["rich"], "rich"),
        ("domino-evaluate", ["rich", "tqdm"], "rich, tqdm"),
        ("domino-train", ["torch"], "torch"),
        ("domino-train", ["sb3_contrib", "matplotlib"], "sb3_contrib, matplotlib"),
    ],
)
def test_console_script_without_its_extra_says_which_in_one_line(tmp_path, name, blocked, missing):
    proc = _console_script(name, ["--help"], env=_blocking_env(tmp_path, blocked))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"{name} needs the 'train' extra (missing: {missing}): pip install 'domino-env[train]' "
        "(in a clone: pip install -e '.[train]')"
    ]


@pytest.mark.parametrize(
    ("module", "name", "blocked"),
    [("domino_env.train.evaluate", "domino-evaluate", "rich"), ("domino_env.train.ppo", "domino-train", "torch")],
)
def test_python_dash_m_without_the_extra_says_which_in_one_line(tmp_path, module, name, blocked):
    proc = subprocess.run(
        [sys.executable, "-m", module, "--help"], cwd=ROOT, env=_blocking_env(tmp_path, [blocked]),
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [cli.extra_hint(name, "train", [blocked])]


def test_console_script_with_its_extra_runs_the_command(tmp_path):
    out = tmp_path / "result.json"
    proc = _console_script(
        "domino-evaluate",
        ["--game", "block", "--agents", "greedy", "random", "--rounds", "4", "--seed", "2",
         "--no-progress", "--json", str(out)],
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "greedy" in proc.stdout and out.is_file()
    assert _console_script("domino-train", ["--help"]).stdout.startswith("usage:")


def test_console_script_bad_model_file_is_one_line(tmp_path):
    (tmp_path / "model.zip").write_bytes(b"")
    (tmp_path / "metadata.json").write_text("{}")
    proc = _console_script("domino-evaluate", ["--agents", f"ppo:{tmp_path}", "greedy", "--rounds", "2"])
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"domino-evaluate: error: --agents ppo:{tmp_path}: {tmp_path / 'model.zip'}: empty file (0 bytes), "
        "not a trained model (domino-evaluate --help lists every option)"
    ]


def test_resume_from_a_corrupt_checkpoint_is_one_line(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "model.zip").write_bytes(os.urandom(2048))
    (bad / "metadata.json").write_text("{}")
    args = ["--resume", str(bad), "--timesteps", "64", "--n-envs", "1", "--vec-env", "dummy",
            "--no-progress", "--quiet", "--out", str(tmp_path / "run")]  # fmt: skip
    for proc in (
        _console_script("domino-train", args),
        subprocess.run([sys.executable, "-m", "train.ppo", *args], cwd=ROOT, capture_output=True,
                       text=True, timeout=300),
    ):  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert ": error: " in lines[0]  # from launch, or from train.ppo's own flag check
        assert f"{bad / 'model.zip'}: not a zip archive (2,048 bytes" in lines[0]


# ------------------------------------------------------------------ launch, in process
@pytest.fixture(autouse=True)
def _sigint_restored():
    """launch ignores SIGINT once interrupted (the process is exiting: a second Ctrl-C must not
    reach atexit hooks); in process, that would pass on to every later subprocess of the test
    worker, which then could not be interrupted."""
    import signal

    handler = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, handler)


def _exit_of(capsys, main, command="domino-evaluate"):
    """launch's exit status as a shell sees it: Ctrl-C's 130 is a KeyboardInterrupt left to
    Python, silent (the message is printed), which then kills itself with SIGINT."""
    hook = sys.excepthook
    try:
        cli.launch(command, main)
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)  # prints nothing
        code = 130
    else:
        raise AssertionError("launch returned")
    finally:
        sys.excepthook = hook
    return code, capsys.readouterr().err.splitlines()


def raises(exc):
    def main():
        raise exc

    return main


def test_launch_returns_the_exit_code_of_main(capsys):
    assert _exit_of(capsys, lambda: None)[0] == 0
    assert _exit_of(capsys, lambda: 3)[0] == 3


def test_launch_prints_typed_errors_and_ctrl_c_as_one_line(capsys):
    assert _exit_of(capsys, raises(CheckpointError("m.zip: empty file"))) == (
        2, ["domino-evaluate: error: m.zip: empty file"]
    )  # fmt: skip
    code, err = _exit_of(capsys, raises(ConfigError("doubles", "x", "chain or satisfy")))
    assert code == 2 and err == ["domino-evaluate: error: invalid config field 'doubles': got 'x'; allowed: chain or satisfy"]
    assert _exit_of(capsys, raises(KeyboardInterrupt())) == (130, ["domino-evaluate: interrupted"])
    assert _exit_of(capsys, raises(KeyboardInterrupt("SIGTERM"))) == (143, ["domino-evaluate: interrupted"])
    # StopSignals' abort: the signal's own exit status and what happened
    abort = KeyboardInterrupt("SIGTERM", "a second signal: aborted without saving")
    assert _exit_of(capsys, raises(abort), "domino-train") == (
        143, ["domino-train: interrupted (a second signal: aborted without saving)"])  # fmt: skip
    abort = KeyboardInterrupt("SIGINT", "a second signal: aborted without saving")
    assert _exit_of(capsys, raises(abort), "domino-train")[0] == 130
    missing = ModuleNotFoundError("No module named 'tqdm.auto'", name="tqdm.auto")
    assert _exit_of(capsys, raises(missing)) == (2, [cli.extra_hint("domino-evaluate", "train", ["tqdm"])])
    other = ModuleNotFoundError("No module named 'scipy'", name="scipy")
    assert _exit_of(capsys, raises(other)) == (
        2, ["domino-evaluate: error: module 'scipy' is not installed (No module named 'scipy')"]
    )  # fmt: skip


def test_a_command_needing_two_extras_names_both(capsys, monkeypatch):
    monkeypatch.setitem(
        cli.COMMANDS, "domino-x", cli.Command("domino_env.train.evaluate:main", {"rllib": ("no_ray_xyz",), "train": ("no_torch_xyz", "numpy")})
    )  # fmt: skip
    assert cli.check_extras("domino-x") == (
        "domino-x needs the 'rllib' and 'train' extras (missing: no_ray_xyz, no_torch_xyz): "
        "pip install 'domino-env[rllib,train]' (in a clone: pip install -e '.[rllib,train]')"
    )
    monkeypatch.setitem(cli.COMMANDS, "domino-y", cli.Command("domino_env.train.evaluate:main", {"train": ("numpy",)}))
    assert cli.check_extras("domino-y") is None
    assert _exit_of(capsys, lambda: 0, command="domino-x") == (2, [cli.check_extras("domino-x")])


def test_launch_keeps_tracebacks_of_bugs_and_on_request(capsys, monkeypatch):
    own = ModuleNotFoundError("No module named 'domino_env.agents.nothing'", name="domino_env.agents.nothing")
    with pytest.raises(ModuleNotFoundError):
        cli.launch("domino-evaluate", raises(own))
    with pytest.raises(RuntimeError):
        cli.launch("domino-evaluate", raises(RuntimeError("bug")))
    monkeypatch.setenv("DOMINO_TRACEBACK", "1")
    for exc in (CheckpointError("x"), KeyboardInterrupt(), ModuleNotFoundError("no", name="scipy")):
        with pytest.raises(type(exc)):
            cli.launch("domino-evaluate", raises(exc))
    assert capsys.readouterr().err == ""


def test_missing_modules_sees_blocked_and_absent_modules(monkeypatch):
    monkeypatch.setitem(sys.modules, "rich", None)
    assert cli.missing_modules(["numpy", "rich", "no_such_module_xyz", "no_such_pkg.sub"]) == [
        "rich", "no_such_module_xyz", "no_such_pkg.sub"
    ]  # fmt: skip


# ------------------------------------------------------------------ the console-script name everywhere
#: The ``python -m`` module of each console script.
MODULES = {"domino-evaluate": "evaluate", "domino-train": "ppo", "domino-bc": "bc", "domino-play": "play",
           "domino-replay-html": "replay_html", "domino-rllib": "rllib", "domino-paired": "paired"}  # fmt: skip


@pytest.mark.parametrize("name", sorted(MODULES))
def test_usage_and_errors_name_the_console_script(name):
    """``python -m domino_env.train.X`` and the console script print the same ``domino-x`` in the
    usage line and in the error prefix (never ``python -m train.X``, which fails outside a clone)."""
    assert set(MODULES) == set(cli.COMMANDS)
    module = f"domino_env.train.{MODULES[name]}"
    for proc in (
        subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=300),
        _console_script(name, ["--help"]),
    ):  # fmt: skip
        assert proc.returncode == 0 and proc.stdout.startswith(f"usage: {name} "), proc.stdout[:200]
        assert "python -m train" not in proc.stdout and "%%" not in proc.stdout  # (a description's "95%%")
        bad = subprocess.run([sys.executable, "-m", module, "--no-such-flag", "x"], cwd=ROOT,
                             capture_output=True, text=True, timeout=300)  # fmt: skip
        assert bad.returncode == 2 and f"{name}: error: " in bad.stderr and "python -m" not in bad.stderr


def test_a_range_error_and_a_model_error_of_train_share_the_prefix(tmp_path):
    """``--timesteps 0`` (argparse) and ``--resume`` of a missing model (our check) both say
    ``domino-train: error:``."""
    for args in (["--timesteps", "0"], ["--resume", str(tmp_path / "none"), "--players", "3"]):
        proc = subprocess.run([sys.executable, "-m", "domino_env.train.ppo", *args, "--out", str(tmp_path / "o")],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
        lines = proc.stderr.splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("domino-train: error: "), proc.stderr
        assert "python -m train" not in lines[0]


def test_every_module_of_the_extra_table_is_installed_by_that_extra():
    assert {"torch", "sb3_contrib", "ray", "PIL", "playwright"} <= set(cli.EXTRA_OF_MODULE)
    for module, extra in cli.EXTRA_OF_MODULE.items():
        declared = {_requirement_name(r) for r in EXTRAS[extra]}
        assert DISTRIBUTIONS.get(module, module).replace("_", "-").lower() in declared, (module, extra)
    for spec in cli.COMMANDS.values():  # every module a command checks has its extra in the table
        for extra, modules in spec.needs.items():
            assert all(m in cli.EXTRA_OF_MODULE for m in modules), (extra, modules)


@pytest.mark.parametrize("how", ["console script", "python -m"])
def test_play_against_a_model_without_the_train_extra_names_the_extra(tmp_path, how):
    """``domino-play`` runs on the library alone, but a ``ppo:PATH`` opponent imports sb3_contrib:
    the one line names the 'train' extra, not just the module."""
    env = _blocking_env(tmp_path, ["sb3_contrib"])
    args = ["--opponents", f"ppo:{ROOT / 'checkpoints' / 'mexican_train_4p_d12'}"]
    if how == "console script":
        proc = _console_script("domino-play", args, env=env)
    else:
        proc = subprocess.run([sys.executable, "-m", "domino_env.train.play", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [cli.extra_hint("domino-play", "train", ["sb3_contrib"])]


def test_a_module_of_another_extra_found_missing_names_that_extra(capsys):
    for module, extra in (("ray", "rllib"), ("PIL", "render"), ("playwright", "browser"), ("torch", "train")):
        missing = ModuleNotFoundError(f"No module named '{module}'", name=f"{module}.sub")
        assert _exit_of(capsys, raises(missing), command="domino-replay-html") == (
            2, [cli.extra_hint("domino-replay-html", extra, [module])]
        )  # fmt: skip


@pytest.mark.parametrize(
    ("module", "args", "line"),
    [
        ("evaluate", ["--agents", "greedy"],
         "--agents needs one agent per seat, 2 to 8 seats for Mexican Train; got 1"),
        ("evaluate", ["--game", "block", "--agents", *["greedy"] * 5],
         "--agents needs one agent per seat, 2 to 4 seats for block; got 5"),
        ("evaluate", ["--agents", "greedy", "--players", "9"], "--players 9 needs 9 --agents (one per seat); got 1"),
        ("evaluate", ["--game", "block", "--teams", "--agents", "greedy", "greedy", "greedy"],
         "--agents: block plays in teams of two (seats 0+2 vs 1+3), which needs 4 agents; got 3 (or give --no-teams)"),
        ("play", ["--game", "cuban", "--players", "3"],
         "--players: Cuban plays in teams of two (seats 0+2 vs 1+3), which needs 4 players; got 3"),
        ("play", ["--players", "9"], "--players 9: Mexican Train takes 2 to 8 players"),
        ("play", ["--game", "draw", "--players", "5"], "--players 5: draw takes 2 to 4 players"),
    ],
)  # fmt: skip
def test_a_bad_seat_count_names_the_flag_not_the_config_field(module, args, line):
    proc = subprocess.run([sys.executable, "-m", f"domino_env.train.{module}", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [f"domino-{module}: error: {line} (domino-{module} --help lists every option)"]
    assert "config field" not in proc.stderr


def test_our_warnings_are_one_line_once_and_others_keep_their_format():
    """A model trained with other rules was warned about twice (the flag check loads it, then the
    tournament), each with Python's source line; now ``CMD: warning: ...`` once (a real process:
    pytest records warnings itself)."""
    code = (
        "import warnings\n"
        "import domino_env.train.cli as cli\n"
        "def main():\n"
        "    from domino_env.agents import make_agent\n"
        "    for _ in range(2):\n"
        "        make_agent('ppo:checkpoints/mexican_train_4p_d12_action_scores', {'doubles': 'chain'})\n"
        "    warnings.warn_explicit('a third-party warning', UserWarning, '/elsewhere/lib.py', 7)\n"
        "cli.launch('domino-evaluate', main)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    err = proc.stderr.splitlines()
    ours = [line for line in err if line.startswith("domino-evaluate: warning: model ")]
    assert proc.returncode == 0 and len(ours) == 1 and "doubles='satisfy' vs 'chain'" in ours[0], proc.stderr
    assert "/elsewhere/lib.py:7: UserWarning: a third-party warning" in err
    assert not any("agents/ppo.py" in line for line in err)  # no source line of ours


def test_domino_bc_a_sigterm_before_the_collection_starts_is_one_line_and_143(monkeypatch, capsys):
    """Until its signal handlers are up (imports, env and model set-up: seconds), a SIGTERM killed
    domino-bc silently with -15; it now ends the command as Ctrl-C does, with 143."""
    import os
    import signal
    import time

    import domino_env.train.bc as bc

    def starting(argv=None):  # the signal arrives while the command sets up
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)  # never reached: the handler raises first
        return None, None

    monkeypatch.setattr(bc, "run", starting)
    before = signal.getsignal(signal.SIGTERM)
    assert _exit_of(capsys, bc.main, "domino-bc") == (143, ["domino-bc: interrupted"])
    assert signal.getsignal(signal.SIGTERM) is before  # restored


@pytest.fixture
def import_frame(tmp_path, monkeypatch):
    """A real frame of Python's import machinery: a module's body runs below importlib's frames,
    so its caller's frame is one of them."""
    import importlib
    import sys

    (tmp_path / "probe_import_frames.py").write_text("import sys\nCALLER = sys._getframe(1)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("probe_import_frames").CALLER
    sys.modules.pop("probe_import_frames")


def test_in_import_machinery_knows_the_frames_of_pythons_import_system(import_frame):
    """domino-rllib's SIGTERM handler raised KeyboardInterrupt in a module lock's weakref callback
    (importlib), where Python prints "Exception ignored in ..." with a traceback and drops it (a
    rare CI failure): there it now only notes the signal."""
    import sys

    from domino_env.train.interrupts import in_import_machinery

    assert import_frame.f_code.co_filename.startswith("<frozen importlib")
    assert in_import_machinery(import_frame)
    assert not in_import_machinery(sys._getframe()) and not in_import_machinery(None)


def _returns_in_import_machinery(handler, signum, frame) -> None:
    try:
        assert handler(signum, frame) is None
    except KeyboardInterrupt:
        pytest.fail("raised in the import machinery, where Python drops the exception")


def _interrupt_within(seconds: float) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt a signal handler raises in the next ``seconds``, or None."""
    import time

    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(0.01)
    except KeyboardInterrupt as exc:
        return exc
    return None


def test_a_sigterm_in_the_import_machinery_is_sent_again_not_lost(import_frame):
    """domino-train's (and domino-bc's) start-up SIGTERM handler raised its KeyboardInterrupt
    wherever the signal arrived; in the import machinery Python drops it, and the run went on as if
    no SIGTERM had come. There the handler now has the signal sent again, which then stops."""
    import signal

    from domino_env.train.interrupts import terminate_as_interrupt

    previous = signal.signal(signal.SIGTERM, terminate_as_interrupt)
    try:
        _returns_in_import_machinery(terminate_as_interrupt, signal.SIGTERM, import_frame)
        stop = _interrupt_within(2.0)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert stop is not None and stop.args == ("SIGTERM",)


def test_a_second_signal_in_the_import_machinery_still_aborts(import_frame, capsys):
    """A second signal during training aborts without saving; arriving in the import machinery,
    its KeyboardInterrupt was dropped and training went on. It is now sent again, and aborts."""
    import signal
    import time

    from domino_env.train.callbacks import StopSignals

    with StopSignals() as stop:
        stop._handle(signal.SIGTERM, None)  # the first: a stop request
        time.sleep(StopSignals.SAME_REQUEST + 0.1)  # a second one, not the same request again
        _returns_in_import_machinery(stop._handle, signal.SIGTERM, import_frame)
        abort = _interrupt_within(2.0)
    assert abort is not None and abort.args == ("SIGTERM", "a second signal: aborted without saving")
    assert "SIGTERM received" in capsys.readouterr().err
