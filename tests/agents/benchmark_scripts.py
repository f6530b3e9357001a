"""The benchmarks are scripts (``python benchmarks/NAME.py``), not a package: their tests load
them as modules from the file."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def script_path(name: str) -> Path:
    """``benchmarks/NAME.py`` of the repository."""
    return ROOT / "benchmarks" / f"{name}.py"


def load_script(name: str) -> ModuleType:
    """``benchmarks/NAME.py`` imported as the module ``NAME`` (its ``__main__`` block not run)."""
    spec = importlib.util.spec_from_file_location(name, script_path(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
