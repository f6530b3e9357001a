"""The oldest PettingZoo the package declares (pyproject's ``pettingzoo>=X``) really works, with the
oldest numpy and gymnasium it declares (``numpy>=1.24``, ``gymnasium>=1.0``: their first minor
releases' last patches), and so does 1.24.3 (a release others pin, TorchRL for one, whose TerminateIllegalWrapper broke ``env()``
after an illegal move): a separate venv with that release plus numpy and gymnasium runs
PettingZoo's api_test and seed_test and an illegal move on all four envs
(pettingzoo_compat_check.py, in a subprocess). AgileRL, for one, pins ``pettingzoo<1.27``, the
release that brought the registry (registration is guarded)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = Path(__file__).with_name("pettingzoo_compat_check.py")


def declared_minimum(package: str = "pettingzoo") -> str:
    """The lower bound pyproject.toml declares for ``package`` (the library's own requirement)."""
    text = (ROOT / "pyproject.toml").read_text()
    match = re.search(rf'"{package}>=([0-9.]+)"', text)
    assert match, f"pyproject.toml declares {package}>=X"
    return match.group(1)


@pytest.mark.parametrize("version", ["declared minimum", "1.24.3"])
def test_older_pettingzoos_pass_api_and_seed_tests(tmp_path, version):
    others = ["numpy", "gymnasium"]
    if version == "declared minimum":
        version = declared_minimum()
        # "numpy>=1.24" -> numpy==1.24.* (the newest patch of the oldest minor release allowed)
        others = [f"{name}=={declared_minimum(name)}.*" for name in others]
    venv = tmp_path / f"pettingzoo-{version}"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
         f"pettingzoo=={version}", *others],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-2000:]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [str(python), str(CHECK)], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert f"pettingzoo {version} registry False" in lines[0]
    for pin in others:  # the check ran on the pinned releases
        name, _, minor = pin.partition("==")
        assert re.search(rf"\b{name} {re.escape(minor.rstrip('*'))}", lines[0]), lines[0]
    assert [ln for ln in lines if ln.startswith("ok ")] == [
        "ok mexican_train_v0", "ok block_v0", "ok draw_v0", "ok cuban_v0",
    ]  # fmt: skip
