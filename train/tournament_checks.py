"""Checks :func:`domino_env.train.evaluate.evaluate` makes on its agents before any play: one
label per agent, and, with worker processes, agents those processes can import and unpickle.
Each failure is a :class:`~domino_env.core.errors.ConfigError` naming the agent.
"""

from __future__ import annotations

import ast
import io
import os
import pickle
import sys
import types
from collections.abc import Sequence
from typing import Any

from domino_env.agents.base import agent_label
from domino_env.core.errors import ConfigError


def check_labels(agents: Sequence[Any]) -> None:
    """Results are aggregated by label: two different agent objects under one label (two
    SearchAgents, two PPO models, both named "ppo") would be one row of win rate 1/2 by
    construction."""
    seen: dict[str, Any] = {}
    for agent in agents:
        if isinstance(agent, str):  # a spec names its agent (an object beside it may be built from it)
            continue
        label = agent_label(agent)
        if label in seen and not (seen[label] is agent or seen[label] == agent):  # a bound method: ==, not is
            raise ConfigError(
                "agents", label, "one label per agent: these are different agents with the same name "
                "(results are counted per name); give each a name (agent.name = ...) or use one object"
            )  # fmt: skip
        seen.setdefault(label, agent)


def check_for_workers(labels: list[str], built: list[Any]) -> None:
    """The agents go to the worker processes by pickle: a lambda or a local function failed there
    with a PicklingError (only once there was more than one deal to share out). The workers
    unpickle each agent by importing what it refers to, and they import a script without running
    its ``if __name__ == "__main__":`` block: an agent (or anything it holds, e.g. a search
    agent's prior) defined in an interactive session or a notebook (a ``__main__`` without a
    file), or inside that block of a script, killed every worker on start-up, each with a
    traceback of its own."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path and not os.path.exists(path):  # python - (a program on stdin): spawn cannot re-import it
        raise ConfigError("workers", "> 1", f"1 here: worker processes import the main program, and {path} is no file")
    importable = _names_an_import_binds(path) if path else set()  # None: unread, the workers' error will say
    for label, agent in zip(labels, built, strict=True):
        for name in _main_names(label, agent):
            if importable is None or name.split(".")[0] in importable:
                continue
            where = (
                f"{name} is defined inside `if __name__ == \"__main__\":` of {path}, a block the workers' "
                "import of the script skips: define it at the script's top level"
                if path
                else f"define it in a module or a script file; {name} is defined interactively"
            )
            raise ConfigError("agents", label, f"an agent the worker processes can import ({where}), or workers=1")


class _MainReferences(pickle.Pickler):
    """Pickles into nothing, noting the qualified names of the ``__main__`` classes and functions
    that the pickle refers to (what a worker must find by importing the main program)."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO())
        self.names: list[str] = []

    def persistent_id(self, obj: Any) -> None:
        if isinstance(obj, (type, types.FunctionType)) and obj.__module__ == "__main__":
            if obj.__qualname__ not in self.names:
                self.names.append(obj.__qualname__)
        return None  # pickled as usual


def _main_names(label: str, agent: Any) -> list[str]:
    """The qualified names of the ``__main__`` classes and functions in ``agent``'s pickle.

    Raises:
        ConfigError: ``agent`` cannot be pickled.
    """
    refs = _MainReferences()
    try:
        refs.dump(agent)
    except Exception as exc:  # PicklingError, AttributeError, TypeError: whatever pickle raises
        raise ConfigError("agents", label, "a picklable agent when workers > 1 (a lambda, a local "
                          "function or an object holding one cannot go to worker processes: define "
                          f"it at module level), or workers=1 ({type(exc).__name__}: {exc})") from None  # fmt: skip
    return refs.names


def _names_an_import_binds(path: str) -> set[str] | None:
    """The names bound at the top level of the script at ``path`` when it is imported, not run:
    every statement but the body of an ``if __name__ == "__main__":`` (both branches of any other
    ``if``, every ``try``, ``with`` and loop body, as they might bind). None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return None
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                if not _is_main_guard(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            else:
                for child in ast.walk(node):  # assignments, and the bodies of try, with and loops
                    if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                        names.add(child.id)
                    elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        names.add(child.name)
                    elif isinstance(child, (ast.Import, ast.ImportFrom)):
                        names.update((a.asname or a.name).split(".")[0] for a in child.names)

    visit(tree.body)
    return names


def _is_main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    return sides == {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}
