"""``make bench`` installs and measures the peers on a fresh clone (issue 12 item 13).

The peers' venv is ``.venv-peers`` in the clone, created by ``make peers`` from the pinned
``benchmarks/peers-requirements.txt``; ``make bench`` makes it first and passes it to
``benchmarks/throughput.py``, whose default is that same venv. Checked through make itself (dry
runs and a run whose interpreters are stand-ins) and through ``throughput.py``'s functions; the
real install and a short run are in benchmarks/README.md (not a test: it downloads the peers).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _throughput(monkeypatch, peers_python: str | None = None):
    if peers_python is None:
        monkeypatch.delenv("PEERS_PYTHON", raising=False)
    else:
        monkeypatch.setenv("PEERS_PYTHON", peers_python)
    spec = importlib.util.spec_from_file_location("throughput_under_test", ROOT / "benchmarks" / "throughput.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _make(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_peers_are_pinned():
    lines = [x.strip() for x in (ROOT / "benchmarks" / "peers-requirements.txt").read_text().splitlines()]
    reqs = {x.split("==")[0]: x for x in lines if x and not x.startswith("#")}
    assert reqs["open_spiel"].startswith("open_spiel==") and reqs["dominoes"].startswith("dominoes==")


def test_throughput_defaults_to_the_clone_s_peers_venv(monkeypatch):
    assert _throughput(monkeypatch).DEFAULT_PEERS_PYTHON == str(ROOT / ".venv-peers" / "bin" / "python")
    assert _throughput(monkeypatch, "/opt/peers/bin/python").DEFAULT_PEERS_PYTHON == "/opt/peers/bin/python"


def test_missing_peers_venv_is_one_line_saying_how(monkeypatch, capsys, tmp_path):
    throughput = _throughput(monkeypatch)
    missing = tmp_path / "nowhere" / "bin" / "python"
    assert throughput.run_peers(str(missing), 0.1, 0.0, 1, 0) == []
    err = capsys.readouterr().err.splitlines()
    assert err == [f"peers skipped: {missing} not found; create it with {throughput.PEERS_SETUP}"]
    assert "make peers" in err[0] and "benchmarks/peers-requirements.txt" in err[0]


def test_make_bench_creates_the_peers_venv_then_measures_with_it(tmp_path):
    venv = tmp_path / "peers"
    dry = _make("-n", "-o", "venv", "bench", f"PEERS_VENV={venv}", "BENCH_ARGS=--seconds 0.5")
    assert dry.returncode == 0, dry.stderr
    lines = dry.stdout.splitlines()
    create = next(i for i, x in enumerate(lines) if f"-m venv {venv}" in x)
    install = next(i for i, x in enumerate(lines) if f"{venv}/bin/python -m pip install -r benchmarks/peers-requirements.txt" in x)
    measure = next(
        i for i, x in enumerate(lines)
        if x.endswith(f"benchmarks/throughput.py --peers-python {venv}/bin/python --seconds 0.5")
    )  # fmt: skip
    assert create < install < measure


def test_make_bench_measures_ours_when_the_peers_cannot_be_installed(tmp_path):
    # PYTHON=false: creating the peers' venv fails; PY=echo stands in for the project's python
    run = _make("-o", "venv", "bench", f"PEERS_VENV={tmp_path / 'peers'}", "PYTHON=false", "PY=echo")
    assert run.returncode == 0, run.stderr
    assert "bench: installing the peers failed; measuring ours only (retry: make peers)" in run.stderr.splitlines()
    assert f"benchmarks/throughput.py --peers-python {tmp_path / 'peers'}/bin/python" in run.stdout


def test_make_peers_skips_an_installed_venv(tmp_path):
    venv = tmp_path / "peers"
    (venv / "bin").mkdir(parents=True)
    (venv / ".installed").touch()
    dry = _make("-n", "peers", f"PEERS_VENV={venv}")
    assert dry.returncode == 0 and "pip install" not in dry.stdout, dry.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seconds", "0"], "argument --seconds: must be a number in (0.0, inf), got 0"),
        (["--repeat", "0"], "argument --repeat: must be a positive integer, got 0"),
        (["--games", "mexican_train", "--players", "9"], "argument --players: invalid choice: 9"),
        (["--max-pip", "7"], "argument --max-pip: invalid choice: 7"),
        (["--json", "{tmp}"], "--json {tmp}: is a folder"),
        (["--json", "{tmp}/no/x.json"], "folder {tmp}/no does not exist"),
    ],
)
def test_throughput_refuses_bad_arguments_before_measuring(args, message, monkeypatch, capsys, tmp_path):
    """These were tracebacks (ZeroDivisionError, StatisticsError, ConfigError), the --json ones
    after every cell had been measured."""
    throughput = _throughput(monkeypatch)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    with pytest.raises(SystemExit) as exc:
        throughput.main([*args, "--no-peers"])
    assert exc.value.code == 2 and message.replace("{tmp}", str(tmp_path)) in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seconds", "0"], "argument --seconds: must be a number in (0.0, inf), got 0"),
        (["--warmup", "-1"], "argument --warmup: must be a number in [0.0, inf), got -1"),
        (["--repeat", "0"], "argument --repeat: must be a positive integer, got 0"),
        (["--seed", "-1"], "argument --seed: must be an integer >= 0, got -1"),
        (["--only", "openspiel"], "argument --only: unknown measurement 'openspiel'; allowed: "
         "openspiel_block_dominoes[:engine|obs_tensor|py_observer] dominoes_pkg[:engine]"),
        (["--only", "dominoes_pkg:obs_tensor"], "unknown measurement 'dominoes_pkg:obs_tensor'"),
    ],
)  # fmt: skip
def test_peers_script_refuses_bad_arguments_before_measuring(args, message):
    """peers.py (standalone: it runs in the peers' venv) took these as they came: --seconds 0 and
    --repeat 0 were tracebacks (ZeroDivisionError, StatisticsError) after the imports, and an
    unknown --only measured nothing and exited 0. Refused before any peer is imported, so the
    project's interpreter serves."""
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "peers.py"), *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert run.returncode == 2 and run.stdout == "", run.stderr
    assert run.stderr.splitlines()[-1] == f"peers.py: error: {message}" or message in run.stderr, run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("where", ["missing", "folder"])
def test_an_unusable_peers_python_is_one_line_before_measuring(where, tmp_path):
    """With --repeat 2 the skip line came once a pass, each after that pass's cells; a folder
    given as --peers-python was a PermissionError traceback after every cell was measured."""
    python = tmp_path / "nowhere" / "python" if where == "missing" else tmp_path
    cmd = [sys.executable, "benchmarks/throughput.py", "--peers-python", str(python), "--repeat", "2",
           "--games", "block", "--layers", "engine", "--seconds", "0.01", "--warmup", "0"]  # fmt: skip
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    err = run.stderr.splitlines()
    skips = [line for line in err if line.startswith("peers skipped: ")]
    assert len(skips) == 1 and err[0] == skips[0], run.stderr
    assert f"peers skipped: {python} " in skips[0] and "make peers" in skips[0]
    assert sum("block d6" in line for line in err) == 4  # 2 cells x 2 passes, measured all the same


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "9"], "--players 9 with --max-pip 12: invalid config field 'num_players': got 9"),
        (["--hidden", "0"], "argument --hidden: must be a positive integer, got 0"),
        (["--seed", "-1"], "argument --seed: must be an integer >= 0, got -1"),
        (["--steps", "50"], "argument --steps: must be an integer >= 100, got 50"),
        (["--json", "{tmp}/no/x.json"], "--json {tmp}/no/x.json: folder {tmp}/no does not exist"),
    ],
)
def test_rllib_throughput_refuses_bad_arguments_before_starting_ray(args, message, tmp_path):
    """--players 9 was a ConfigError traceback from inside the first env runner, after Ray had
    started; a --json in a missing folder failed after the whole run."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    run = subprocess.run([sys.executable, "benchmarks/rllib_throughput.py", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert run.returncode == 2 and run.stdout == "" and "Traceback" not in run.stderr, run.stderr
    want = f"rllib_throughput.py: error: {message.replace('{tmp}', str(tmp_path))}"
    assert run.stderr.splitlines()[-1].startswith(want), run.stderr


@pytest.mark.parametrize("ladder", ["line_ladder.sh", "mexican_train_ladder.sh"])
def test_ladder_scripts_answer_help_and_refuse_arguments_without_playing(ladder, tmp_path):
    """They took no arguments but ignored any: `--help` started the whole ladder (minutes of
    tournaments writing into ladder_results/)."""
    out = tmp_path / "out"
    env = {"PATH": "/usr/bin:/bin", "OUT": str(out)}
    script = str(ROOT / "benchmarks" / "ladders" / ladder)
    helped = subprocess.run(["bash", script, "--help"], capture_output=True, text=True, timeout=30, env=env)
    assert helped.returncode == 0 and helped.stdout.startswith(f"usage: OUT=DIR benchmarks/ladders/{ladder}")
    bad = subprocess.run(["bash", script, "--rounds", "10"], capture_output=True, text=True, timeout=30, env=env)
    assert bad.returncode == 2 and bad.stderr == f"{ladder}: takes no arguments, got: --rounds 10; set OUT=DIR for the results folder (--help)\n"
    assert not out.exists()  # nothing played


def test_a_ratio_next_to_its_target_is_not_printed_as_the_target(monkeypatch):
    """A wrapper ratio of 35,279 / 70,605 = 0.4997 printed "0.50x (below 0.5x)"."""
    _throughput(monkeypatch)  # puts benchmarks/ on sys.path
    from throughput_report import _ratio

    assert _ratio(35_279 / 70_605, 0.5) == "0.4997x (below 0.5x)"
    assert _ratio(0.5003, 0.5) == "0.5003x (meets 0.5x)"
    assert _ratio(0.5, 0.5) == "0.50x (meets 0.5x)"
    assert _ratio(6.4546, 4.0) == "6.45x (meets 4x)"
    assert _ratio(0.4997, None) == "0.50x"


def test_wrapper_ratios_are_printed_per_cpu_second_too(monkeypatch):
    """The env() / raw_env lines gave the wall-clock ratio only: under load one slow raw_env window
    printed Cuban at 0.45x where the CPU-second rates gave 0.60x."""
    _throughput(monkeypatch)  # puts benchmarks/ on sys.path
    from throughput_report import wrapper_ratios

    def rec(layer, wall, cpu):
        return {"game": "cuban", "players": 4, "max_pip": 9, "layer": layer,
                "steps_per_s": wall, "steps_per_cpu_s": cpu}  # fmt: skip

    summary, lines = wrapper_ratios([rec("raw_env", 62_983, 79_006), rec("env", 28_554, 47_234)])
    assert lines == ["env() / raw_env, steps per second:\n    cuban 4p d9 wall 0.45x, CPU 0.60x"]
    assert round(summary["env_over_raw_env_cuban_4p_d9_cpu"], 2) == 0.60
