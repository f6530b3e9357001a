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
from domino_env.core.errors import ConfigError, as_int
from domino_env.train.arg_types import MAX_SEED


def checked_seed(seed: object) -> int:
    """``seed`` as a plain int (a numpy integer made ``to_dict()`` unwritable as JSON) when it is a
    tournament seed, 0 to 2**32 - 1 (``SeedSequence([seed, deal])`` splits a larger one into 32-bit
    words: seed 2**32's deal 0 was seed 0's deal 1; seeds below derive their deals as they always
    did); else a ConfigError (a ``ValueError``) naming ``seed``."""
    return _seed_word(seed, "seed")


def checked_deal(deal: object) -> int:
    """``deal`` as a plain int when it is a deal number of :func:`~domino_env.train.tournament.deal_seed`,
    0 to 2**32 - 1 (a tournament has at most ``MAX_ROUNDS`` deals; ``SeedSequence([seed, deal])``
    splits a larger one into 32-bit words, as it does a seed); else a ConfigError (a ``ValueError``)
    naming ``deal``. Numpy took a bool, a string of digits, or a deal of 2**32 and more silently."""
    return _seed_word(deal, "deal")


def _seed_word(value: object, field: str) -> int:
    """``value`` as a plain int from 0 to 2**32 - 1 (one word of a ``SeedSequence``), else a
    ConfigError naming ``field``."""
    number = as_int(value)
    if number is None or not 0 <= number <= MAX_SEED:
        raise ConfigError(field, value, f"an integer from 0 to {MAX_SEED:,} (2**32 - 1)")
    return number


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


def check_built_labels(labels: list[str], built: list[Any]) -> None:
    """After building: a spec string and an agent object of one label must be one kind of agent
    (``evaluate([Mine(), "greedy"])`` with ``Mine.name == "greedy"`` made one row of both)."""
    kinds: dict[str, type] = {}
    for label, agent in zip(labels, built, strict=True):
        kind = kinds.setdefault(label, type(agent))
        if kind is not type(agent):
            raise ConfigError(
                "agents", label, f"one label per agent: {label!r} names a {kind.__name__} and a {type(agent).__name__} "
                "(results are counted per name); give your agent another name (agent.name = ...)"
            )  # fmt: skip


def check_for_workers(labels: list[str], built: list[Any]) -> None:
    """The agents go to the worker processes by pickle: a lambda or a local function failed there
    with a PicklingError (only once there was more than one deal to share out). The workers
    unpickle each agent by importing what it refers to, and they import a script without running
    its ``if __name__ == "__main__":`` block (a package's ``__main__`` module not at all): an
    agent (or anything it holds, e.g. a search agent's prior) defined in an interactive session
    or a notebook (a ``__main__`` without a file), inside that block of a script, or in a
    package's ``__main__.py`` killed every worker on start-up, each with a traceback of its own;
    one defined both at a script's top level and inside that block was silently played in its
    top-level form by the workers."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    run_as = getattr(getattr(main, "__spec__", None), "name", None) or ""
    package_main = run_as == "__main__" or run_as.endswith(".__main__")  # python -m pkg, python dir_or.pyz
    if path and not package_main and not os.path.exists(path):  # python - (a program on stdin)
        raise ConfigError("workers", "> 1", f"1 here: worker processes import the main program, and {path} is no file")
    # (names the workers' import binds, names bound only in blocks it skips); None: cannot tell
    names = _script_names(path) if path and not package_main else (set(), set())
    for label, agent in zip(labels, built, strict=True):
        for name in _main_names(label, agent):
            top = name.split(".")[0]
            if names is None or (top in names[0] and top not in names[1]):
                continue
            if package_main:
                where = (f"{name} is defined in {path}, a package's __main__ module, which the workers do not "
                         "import: define it in another module of the package")  # fmt: skip
            elif not path:
                where = f"define it in a module or a script file; {name} is defined interactively"
            elif top in names[0]:
                where = (f"{name} is defined both at the top level of {path} and inside `if __name__ == "
                         "\"__main__\":`, which the workers' import of the script skips: they would play the "
                         "top-level one; give the two different names")  # fmt: skip
            else:
                where = (f"{name} is defined inside `if __name__ == \"__main__\":` of {path}, a block the "
                         "workers' import of the script skips: define it at the script's top level")  # fmt: skip
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


def _script_names(path: str) -> tuple[set[str], set[str]] | None:
    """The top-level names of the script at ``path`` as the workers import it (``__name__`` is
    then ``"__mp_main__"``): ``(names it binds, names bound in blocks it skips)`` (a name in both
    is bound by the import to another object than the caller's, maybe). An ``if``
    whose test depends on ``__name__`` alone (``__name__ == "__main__"``, ``!=``, ``in``, ``not``,
    and ``and`` / ``or`` with other tests) is followed into the branch the import takes; every
    other block counts as run. None when it cannot be told: a file that cannot be read or parsed,
    or names made at run time (``global``, ``exec``, ``globals()``, ``vars()``, ``setattr``)."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Global) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                                            and node.func.id in ("exec", "globals", "vars", "setattr")):  # fmt: skip
            return None
    bound: set[str] = set()
    skipped: set[str] = set()

    def stored(node: ast.AST | None, into: set[str]) -> None:
        for child in ast.walk(node) if node is not None else ():
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                into.add(child.id)
            elif isinstance(child, (ast.MatchAs, ast.MatchStar)) and child.name:
                into.add(child.name)
            elif isinstance(child, ast.MatchMapping) and child.rest:  # case {"k": v, **rest}
                into.add(child.rest)

    def visit(body: list[ast.stmt], into: set[str]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                taken = _value_on_import(node.test)
                visit(node.body, skipped if taken is False else into)
                visit(node.orelse, skipped if taken is True else into)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                into.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                into.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
                for block in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                    visit(block, into)
                into.update(h.name for h in node.handlers if h.name)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                stored(getattr(node, "target", None), into)
                visit(node.body, into)
                visit(node.orelse, into)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    stored(item.optional_vars, into)
                visit(node.body, into)
            elif isinstance(node, ast.Match):
                for case in node.cases:
                    stored(case.pattern, into)
                    visit(case.body, into)
            else:  # assignments (also := inside an expression)
                stored(node, into)

    visit(tree.body, bound)
    return bound, skipped


_GUARD_NODES = (ast.Compare, ast.Name, ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Load, ast.cmpop)


def _value_on_import(test: ast.expr) -> bool | None:
    """The truth of an ``if`` test as the workers import the script (``__name__ ==
    "__mp_main__"``), when it follows from ``__name__`` alone; None when it cannot be told."""
    if isinstance(test, ast.BoolOp):
        values = [_value_on_import(v) for v in test.values]
        decisive, other = (False, True) if isinstance(test.op, ast.And) else (True, False)
        if decisive in values:
            return decisive
        return other if all(v is other for v in values) else None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        value = _value_on_import(test.operand)
        return None if value is None else not value
    nodes = list(ast.walk(test))
    names = {n.id for n in nodes if isinstance(n, ast.Name)}
    if not isinstance(test, ast.Compare) or names != {"__name__"} or not all(isinstance(n, _GUARD_NODES) for n in nodes):
        return None
    try:  # constants and __name__ only: nothing else runs
        return bool(eval(compile(ast.Expression(test), "<if test>", "eval"), {"__builtins__": {}},
                         {"__name__": "__mp_main__"}))  # fmt: skip
    except Exception:  # e.g. a comparison of str with int
        return None
