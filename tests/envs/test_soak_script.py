"""benchmarks/soak.py as a real process (a few rounds), and its counters on a broken env."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "soak.py"
COUNTS = ("errors", "obs_outside_box", "empty_masks", "rounds_not_ended")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--no-progress", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_soak_every_preset_a_few_rounds(tmp_path):
    out = tmp_path / "soak.json"
    proc = run("--rounds", "8", "--seed", "3", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    assert report["ok"] is True and report["interrupted"] is False
    assert set(report["presets"]) == {"domino_cubano", "tren_mexicano", "novelty", "block", "draw", "cuban"}
    for name, summary in report["presets"].items():
        assert summary["rounds"] >= 8, name
        assert summary["round_episode_rounds"] >= 6 and summary["game_episode_rounds"] >= 2, name
        assert summary["steps"] > summary["rounds"], name
        assert all(summary[k] == 0 for k in COUNTS), (name, summary["problems"])
    assert report["totals"]["rounds"] == sum(s["rounds"] for s in report["presets"].values())
    assert "total:" in proc.stdout and "errors 0" in proc.stdout


def test_soak_replays_from_its_seed_with_any_worker_count(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run("--rounds", "600", "--presets", "block", "--seed", "9", "--json", str(a)).returncode == 0
    assert run("--rounds", "600", "--presets", "block", "--seed", "9", "--workers", "2",
               "--json", str(b)).returncode == 0  # fmt: skip
    ra, rb = json.loads(a.read_text()), json.loads(b.read_text())
    assert ra["presets"]["block"]["steps"] == rb["presets"]["block"]["steps"]
    assert ra["presets"]["block"]["rounds"] == rb["presets"]["block"]["rounds"] >= 600


def test_bad_arguments_are_one_line_errors():
    for args, message in (
        (("--rounds", "0"), "--rounds must be a positive integer"),
        (("--presets", "mahjong"), "unknown preset(s) ['mahjong']"),
        (("--seed", "-1"), "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got -1"),
        (("--seed", "4294967296"), "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got 4294967296"),  # (SeedSequence's 32-bit words)
    ):
        proc = run(*args)
        assert proc.returncode == 2 and message in proc.stderr
        assert "Traceback" not in proc.stderr


def _soak_module():
    spec = importlib.util.spec_from_file_location("soak", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_counters_catch_a_broken_env(monkeypatch):
    """Observations outside the Box, empty masks and exceptions are counted (not hidden)."""
    soak = _soak_module()
    real = soak.make_env
    unit = soak.Unit("block", (("num_players", 2), ("max_pip", 6), ("episode", "round")), 3, 1)

    def out_of_box(preset, **kwargs):
        env = real(preset, **kwargs)
        observe = env.observe
        env.observe = lambda agent: {**observe(agent), "observation": observe(agent)["observation"] + 2.0}
        return env

    monkeypatch.setattr(soak, "make_env", out_of_box)
    result = soak.run_unit(unit)
    assert result["obs_outside_box"] > 0 and result["problems"][0]["kind"] == "obs_outside_box"

    def empty_mask(preset, **kwargs):
        env = real(preset, **kwargs)
        observe = env.observe
        env.observe = lambda agent: {**observe(agent), "action_mask": np.zeros_like(observe(agent)["action_mask"])}
        return env

    monkeypatch.setattr(soak, "make_env", empty_mask)
    assert soak.run_unit(unit)["empty_masks"] > 0

    def raising(preset, **kwargs):
        env = real(preset, **kwargs)

        def step(action):
            raise RuntimeError("boom")

        env.step = step
        return env

    monkeypatch.setattr(soak, "make_env", raising)
    result = soak.run_unit(unit)
    assert result["errors"] > 0 and "boom" in result["problems"][0]["detail"]


def test_json_is_checked_before_the_run(tmp_path):
    """--json naming a folder ran everything and then crashed (IsADirectoryError); another file
    was overwritten. Both are refused in one line before any round."""
    notes = tmp_path / "notes.txt"
    notes.write_text("keep")
    for target, message in ((tmp_path, "is a folder"), (notes, "the file exists and is not a soak report")):
        proc = run("--presets", "block", "--rounds", "10", "--json", str(target))
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
        assert proc.stdout == ""
    assert notes.read_text() == "keep"


def test_ctrl_c_with_workers_stops_now_and_writes_the_partial_report(tmp_path):
    """With --workers 2, Ctrl-C waited for every queued unit (minutes on a full run)."""
    import os
    import signal
    import time

    out = tmp_path / "partial.json"
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--presets", "domino_cubano", "--rounds", "100000",
                             "--workers", "2", "--json", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    seen, deadline = "", time.monotonic() + 120
    while "250/100000" not in seen:  # the first unit is in: the pool runs
        seen += proc.stderr.read(1)
        assert proc.poll() is None and time.monotonic() < deadline, seen
    os.killpg(proc.pid, signal.SIGINT)
    stdout, err = proc.communicate(timeout=60)  # 100,000 rounds would take many minutes
    report = json.loads(out.read_text())
    assert proc.returncode == -signal.SIGINT and report["interrupted"] is True and "(interrupted)" in stdout
    assert 0 < report["totals"]["rounds"] < 100_000 and "Traceback" not in err


def test_a_presets_row_does_not_depend_on_the_other_presets_run(tmp_path):
    """Each preset draws its units from its own seed stream: `--presets block` reproduces the
    block row of a run of every preset (the published table's rows could not be checked alone)."""
    alone, both = tmp_path / "alone.json", tmp_path / "both.json"
    assert run("--presets", "block", "--rounds", "600", "--json", str(alone)).returncode == 0
    assert run("--presets", "cuban", "block", "--rounds", "600", "--json", str(both)).returncode == 0
    row = json.loads(alone.read_text())["presets"]["block"]
    assert row == json.loads(both.read_text())["presets"]["block"] and row["steps"] > row["rounds"] > 0


def test_the_progress_bar_ends_at_the_planned_rounds(tmp_path):
    """Game episodes play their game to the end, past their share of --rounds: the bar counted the
    rounds played and ran past its total ("83round" with no total); it counts the planned ones."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--rounds", "40", "--presets", "block", "cuban",
                           "--seed", "3", "--json", str(tmp_path / "soak.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "soak.json").read_text())
    assert report["totals"]["rounds"] > 80  # the game episodes went past their planned rounds
    draws = [d for d in proc.stderr.replace("\n", "\r").split("\r") if "round" in d]
    assert "80/80" in draws[-1] and all(re.search(r"\| *\d+/80 \[", d) for d in draws), draws


def test_into_a_log_the_bar_is_not_redrawn_at_every_unit(monkeypatch, capsys):
    """Off a terminal the bar redraws at most every 30 s (train/progress.py), but its problem
    count was set with tqdm's default refresh, a forced redraw at each unit of 250 rounds: a
    100,000-round soak wrote 400 bars a preset into its log. tqdm's clock is frozen here, so
    every draw but the first and the last would be a forced one."""
    import io

    import tqdm.std

    soak = _soak_module()
    monkeypatch.delenv("TQDM_MININTERVAL", raising=False)
    monkeypatch.setattr(tqdm.std, "time", lambda: 0.0)
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    assert soak.main(["--presets", "block", "--rounds", "1000", "--seed", "3"]) == 0
    draws = [d for d in log.getvalue().replace("\n", "\r").split("\r") if "round" in d]
    assert len(draws) == 2 and draws[0].startswith("  0%|") and "0/1000" in draws[0]
    assert "problems=0" in draws[1] and "total: 1001 rounds" in capsys.readouterr().out  # whole games overshoot
