"""The package ships its type hints (PEP 561: ``domino_env/py.typed``), so a user's code that mypy
checks gets our annotations. mypy runs on tests/typing_usage.py (the public API as README.md and
docs/ use it) against the package laid out as pip installs it, and must report nothing there; a
wrong use must be reported (without the marker mypy skips the package and would report neither)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
USAGE = Path(__file__).with_name("typing_usage.py")
#: Each line marked ``# error: [code]`` must give that mypy error, and no other line any.
WRONG_USE = """\
from domino_env.envs.mexican_train_v0 import raw_env
from domino_env.train.evaluate import evaluate
from domino_env.wrappers import mexican_train_single_agent

raw_env().render_image(viewer="player_1")  # error: [arg-type] (a seat is an int)
mexican_train_single_agent().action_mask()  # error: [attr-defined] (it is action_masks)
evaluate(["greedy", "random"]).stats_for(0)  # error: [arg-type] (an agent's label is a str)
"""


def installed_layout(site: Path) -> None:
    """The package as pip installs it: ``domino_env/`` with the folders of pyproject.toml's
    package-dir (``agents/``, ``train/``) inside it, ``py.typed`` included."""
    package_dir = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "domino_env", site / "domino_env", ignore=skip)
    for name, folder in package_dir.items():
        shutil.copytree(ROOT / folder, site.joinpath(*name.split(".")), ignore=skip)


def test_the_package_has_the_pep_561_marker():
    assert (ROOT / "domino_env" / "py.typed").is_file()


def test_mypy_checks_user_code_against_our_hints(tmp_path):
    installed_layout(tmp_path / "site")
    shutil.copy(USAGE, tmp_path / USAGE.name)
    (tmp_path / "wrong_use.py").write_text(WRONG_USE)
    (tmp_path / "mypy.ini").write_text("[mypy]\n")  # mypy's defaults, whatever the machine's config
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    # on sys.path, so mypy treats it as an installed package (read only with its py.typed)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tmp_path / "site"), env.get("PYTHONPATH")) if p)
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", str(tmp_path / "cache"),
         USAGE.name, "wrong_use.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    found = set(re.findall(r"^([\w.]+):(\d+): error: .*\[([\w-]+)\]$", out.stdout, re.M))
    expected = {("wrong_use.py", str(n), m.group(1))
                for n, line in enumerate(WRONG_USE.splitlines(), 1) if (m := re.search(r"# error: \[([\w-]+)\]", line))}  # fmt: skip
    assert out.returncode == 1 and found == expected, out.stdout + out.stderr


def test_the_usage_snippet_runs(tmp_path):
    out = subprocess.run([sys.executable, str(USAGE)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok ")
