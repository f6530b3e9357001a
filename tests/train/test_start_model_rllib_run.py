"""``--init-from`` / ``--resume`` given a ``domino-rllib`` run folder said "load it with rllib:PATH"
(the model loader's hint for an agent spec), which neither flag takes: real processes of
``domino-train`` and ``domino-bc``."""

import subprocess
import sys
from pathlib import Path

import pytest


def _rllib_run(tmp_path):
    run = tmp_path / "rl1"  # what a domino-rllib run folder holds at its top (no model.zip)
    (run / "checkpoint").mkdir(parents=True)
    (run / "domino_rllib.json").write_text("{}")
    return run


@pytest.mark.parametrize(("command", "flag"), [("domino-train", "--init-from"), ("domino-bc", "--init-from"),
                                               ("domino-train", "--resume")])  # fmt: skip
def test_a_domino_rllib_run_is_refused_as_a_start_model_naming_what_the_flag_takes(tmp_path, command, flag):
    run = _rllib_run(tmp_path)
    res = subprocess.run([str(Path(sys.executable).parent / command), flag, str(run), "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert res.returncode == 2, res.stderr
    also = f"; continue it with domino-rllib --resume {run}" if flag == "--resume" else ""
    assert res.stderr == (f"{command}: error: {flag} {run}: a domino-rllib run; {flag} takes only models of domino-train "
                          f"and domino-bc (rllib:PATH plays it as an opponent of domino-evaluate, domino-play or "
                          f"--opponents){also} ({command} --help lists every option)\n")  # fmt: skip
    assert "load it with" not in res.stderr and not (tmp_path / "out").exists()


def test_as_an_opponent_the_loader_still_points_to_rllib_path(tmp_path):
    run = _rllib_run(tmp_path)
    res = subprocess.run([str(Path(sys.executable).parent / "domino-train"), "--opponents", f"ppo:{run}", "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert res.returncode == 2 and "(it is a run of domino-rllib: load it with rllib:PATH)" in res.stderr, res.stderr
