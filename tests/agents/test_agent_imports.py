"""Imports inside ``agents/`` flow one way (issue 12 item 14): ``base`` (protocol and registry) <-
the agent modules (they register into it) <- ``agents/__init__.py`` (imports them all). Checked on
the source, function-level imports included; and the registry is full whatever module of
``agents`` a fresh process imports first."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "agents"


def import_graph(package: Path = PACKAGE, installed_as: str = "domino_env.agents") -> dict[str, set[str]]:
    """``module -> modules of the same package it imports`` (anywhere in the file).

    The folder ``package`` is imported as ``installed_as`` (the repository's ``agents/`` installs
    as ``domino_env.agents``). ``from . import x`` / ``from domino_env.agents import x`` import the
    submodule ``domino_env.agents.x`` when there is one, else the package itself (its
    ``__init__``)."""
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package).with_suffix("").parts
        parts = tuple(installed_as.split(".")) + parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: ``from .x import y``, ``from . import x``
                    anchor = here[: len(here) - node.level + 1]
                    target = ".".join(anchor + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    found.add(sub if sub in modules else target)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (``[a, b, ..., a]``), or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_module_of_agents_imports_one_that_imports_it_back():
    graph = import_graph()
    assert "domino_env.agents.base" in graph and "domino_env.agents.line" in graph
    assert find_cycle(graph) is None, f"import cycle in agents/: {' -> '.join(find_cycle(graph))}"


def registering_modules(package: Path = PACKAGE) -> set[str]:
    """Modules that call ``register_agent(...)`` at import time (a top-level statement)."""
    found = set()
    for path in package.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            call = node.value if isinstance(node, ast.Expr) else None
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "register_agent":
                parts = ("domino_env", *path.relative_to(package.parent).with_suffix("").parts)
                found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo += graph.get(node, ())
    return seen


def test_base_imports_no_other_module_of_agents():
    assert import_graph()["domino_env.agents.base"] == set()


def test_the_package_imports_every_module_that_registers_agents():
    """``import domino_env.agents`` (which any ``import domino_env.agents.x`` runs first) fills
    the registry."""
    registering = registering_modules()
    assert {"domino_env.agents.line", "domino_env.agents.mexican_train", "domino_env.agents.ppo"} <= registering
    missing = registering - reachable(import_graph(), "domino_env.agents")
    assert not missing, f"agents/__init__.py does not import {sorted(missing)}: their agents are unknown to make_agent"


def test_the_check_catches_a_cycle(tmp_path):
    """The checker itself: the old ``base`` -> ``line`` -> ``base`` registration import, and
    ``from agents import x`` in a module that ``__init__`` imports, are both found."""
    pkg = tmp_path / "agents"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .base import make_agent\nfrom .line import Line\n")
    (pkg / "base.py").write_text("def make_agent():\n    from . import line  # noqa\n")
    (pkg / "line.py").write_text("from .base import make_agent\nclass Line: ...\n")
    graph = import_graph(pkg, "agents")
    assert graph["agents.base"] == {"agents.line"}
    assert find_cycle(graph) == ["agents.base", "agents.line", "agents.base"]
    (pkg / "base.py").write_text("def make_agent(): ...\n")
    assert find_cycle(import_graph(pkg, "agents")) is None
    (pkg / "line.py").write_text("from agents import make_agent\nclass Line: ...\n")
    assert find_cycle(import_graph(pkg, "agents")) == ["agents", "agents.line", "agents"]


@pytest.mark.parametrize("first", ["base", "line", "mexican_train", "ppo"])
def test_registry_is_full_whatever_is_imported_first(first):
    code = (
        f"import domino_env.agents.{first}\n"
        "from domino_env.agents.base import agent_names, make_agent\n"
        "print(sorted(agent_names('mexican_train')), sorted(agent_names('line')))\n"
        "print(type(make_agent('greedy', {'preset': 'block'})).__name__,"
        " type(make_agent('planner', {'preset': 'cuban'})).__name__,"
        " type(make_agent('greedy')).__name__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    names = ast.literal_eval(out[0].replace("] [", "], ["))
    for family in names:
        assert {"random", "greedy", "planner", "ppo"} <= set(family)
    assert out[1] == "LineGreedyAgent LinePlannerAgent GreedyAgent"
