"""A declared dependency is used (issue 12 item 15: ``tyro`` was declared and never imported).

Every requirement of ``pyproject.toml`` (the library's and every extra's) is imported by some
Python file of the repository, or is a tool / plugin listed in :data:`USED_WITHOUT_IMPORT` with
where it is used."""

from __future__ import annotations

import ast
import os
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
#: Distributions imported under another name.
IMPORT_NAMES = {
    "stable-baselines3": "stable_baselines3",
    "sb3-contrib": "sb3_contrib",
    "pillow": "PIL",
    "pyyaml": "yaml",
    "scikit-learn": "sklearn",
    "open-spiel": "pyspiel",
}
#: Distributions used without an import: where they are used.
USED_WITHOUT_IMPORT = {
    "tensorboard": "Stable-Baselines3's tensorboard_log (python -m train.ppo --tensorboard)",
    "pytest-xdist": "pytest -n (make test)",
    "pytest-timeout": "timeout in pyproject.toml's [tool.pytest.ini_options] (a hung test fails)",
    "ruff": "make lint",
    "mypy": "python -m mypy in tests/test_typing.py (the package's type hints, PEP 561)",
}
#: Folders never scanned (environments and caches).
SKIP = {"venv", "build", "dist", "runs", "__pycache__", "node_modules"}


def requirement_name(req: str) -> str:
    """The normalised distribution name of a requirement string (``"ray[rllib]>=2"`` -> ``ray``)."""
    for stop in "[<>=!~;@ ":
        req = req.split(stop)[0]
    return req.strip().lower().replace("_", "-")


def declared() -> dict[str, str]:
    """``distribution -> where it is declared`` (the library or an extra)."""
    out = {requirement_name(r): "dependencies" for r in PROJECT.get("dependencies", [])}
    for extra, reqs in PROJECT.get("optional-dependencies", {}).items():
        for r in reqs:
            out.setdefault(requirement_name(r), f"the {extra!r} extra")
    return out


def python_files() -> list[Path]:
    """The repository's Python files (environments, caches and hidden folders pruned)."""
    files = []
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP and not d.startswith(".")]
        files += [Path(folder) / n for n in names if n.endswith(".py")]
    return files


def imported_top_level_names() -> set[str]:
    names: set[str] = set()
    for path in python_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def test_requirement_names_are_normalised():
    assert requirement_name("ray[rllib]>=2.9") == "ray"
    assert requirement_name("stable_baselines3>=2.3") == "stable-baselines3"
    assert requirement_name("numpy>=1.24; python_version>'3.9'") == "numpy"


def test_every_declared_dependency_is_used():
    imported = imported_top_level_names()
    assert {"numpy", "gymnasium", "pettingzoo"} <= imported
    unused = [
        f"{dist} ({where})"
        for dist, where in sorted(declared().items())
        if dist not in USED_WITHOUT_IMPORT and IMPORT_NAMES.get(dist, dist.replace("-", "_")) not in imported
    ]
    assert not unused, (
        f"declared but never imported: {unused}; drop them from pyproject.toml, or add them to "
        "IMPORT_NAMES (another import name) / USED_WITHOUT_IMPORT (a tool) in this test"
    )


def test_the_tools_listed_as_used_without_import_are_declared():
    assert set(USED_WITHOUT_IMPORT) <= set(declared())


def test_importing_the_package_without_its_dependencies_says_what_to_do():
    """A resume hint pasted into a shell without the venv ran the clone's domino_env/ with the
    system Python: a traceback ending in "No module named 'gymnasium'" (fresh-user trial)."""
    import subprocess
    import sys

    for missing in ("gymnasium", "numpy", "pettingzoo"):
        code = f"import sys; sys.modules[{missing!r}] = None; import domino_env"
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
        last = proc.stderr.strip().splitlines()[-1]
        assert proc.returncode == 1 and last.startswith(f"ModuleNotFoundError: import of {missing} halted"), proc.stderr
        assert last.endswith("domino_env needs numpy, gymnasium and pettingzoo; run it in the environment it is "
                             "installed in (in a clone after make run or make test: . .venv/bin/activate) or "
                             "install it (pip install -e . in the clone)"), last
