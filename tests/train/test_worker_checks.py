"""train/tournament_checks.py in this process, with a stand-in ``__main__`` module: the refusals
word for word, a nested class of a script, a directory or zip run as a program, and what
_script_names reads in blocks the other tests had none of (gaps a mutation run found: a message,
a check or a kind of block could change with every test passing)."""

from __future__ import annotations

import pickle
import sys
import types

import pytest

from domino_env.core.errors import ConfigError
from domino_env.train.tournament_checks import (
    _main_names,
    _script_names,
    check_for_workers,
    check_labels,
)


class Named:
    def __init__(self, name):
        self.name = name

    def __call__(self, obs, mask, rng):
        return int(mask.nonzero()[0][0])


def _fake_main(monkeypatch, path=None, spec_name=None, **attrs):
    """``sys.modules["__main__"]``: a module run from ``path`` (None: interactive) with
    ``__spec__.name`` ``spec_name`` (None: a script), holding ``attrs``."""
    main = types.ModuleType("__main__")
    if path is not None:
        main.__file__ = str(path)
    main.__spec__ = types.SimpleNamespace(name=spec_name) if spec_name else None
    for key, value in attrs.items():
        setattr(main, key, value)
    monkeypatch.setitem(sys.modules, "__main__", main)


def _main_class(name, qualname, **body):
    cls = type(name, (Named,), body)
    cls.__module__, cls.__qualname__ = "__main__", qualname
    return cls


def _refusal(labels, built):
    with pytest.raises(ConfigError) as info:
        check_for_workers(labels, built)
    return str(info.value)


def test_two_agents_under_one_label_word_for_word():
    with pytest.raises(ConfigError) as info:
        check_labels([Named("bot"), Named("bot")])
    assert str(info.value) == (
        "invalid argument 'agents': got 'bot'; allowed: one label per agent: these are different agents with the same "
        "name (results are counted per name); give each a name (agent.name = ...) or use one object")  # fmt: skip


def test_a_nested_class_of_a_script_s_top_level_goes_to_the_workers(tmp_path, monkeypatch):
    """Its qualified name ``Outer.Agent``: the workers' import binds ``Outer``, the first part."""
    script = tmp_path / "run.py"
    script.write_text("class Outer:\n    class Agent:\n        pass\nif __name__ == '__main__':\n    pass\n")
    outer = _main_class("Outer", "Outer")
    outer.Agent = _main_class("Agent", "Outer.Agent")
    _fake_main(monkeypatch, script, Outer=outer)
    assert _main_names("agent", outer.Agent("agent")) == ["Outer.Agent"]
    check_for_workers(["agent"], [outer.Agent("agent")])  # no refusal
    script.write_text("if __name__ == '__main__':\n    class Outer:\n        class Agent:\n            pass\n")
    assert _refusal(["agent"], [outer.Agent("agent")]) == (
        "invalid argument 'agents': got 'agent'; allowed: an agent the worker processes can import (Outer.Agent is "
        f"defined inside `if __name__ == \"__main__\":` of {script}, a block the workers' import of the script skips: "
        "define it at the script's top level), or workers=1")  # fmt: skip


def test_an_agent_defined_interactively_word_for_word(monkeypatch):
    mine = _main_class("Mine", "Mine")
    _fake_main(monkeypatch, Mine=mine)
    assert _refusal(["mine"], [mine("mine")]) == (
        "invalid argument 'agents': got 'mine'; allowed: an agent the worker processes can import (define it in a "
        "module or a script file; Mine is defined interactively), or workers=1")  # fmt: skip


def test_a_directory_or_zip_run_as_a_program_is_a_package_main(tmp_path, monkeypatch):
    """``python dir`` or ``python app.pyz`` runs its __main__.py with ``__spec__.name`` "__main__"
    (``python -m pkg``: "pkg.__main__"): the workers do not import it, even an agent at its top level."""
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "__main__.py").write_text("class Mine:\n    pass\n")
    mine = _main_class("Mine", "Mine")
    _fake_main(monkeypatch, folder / "__main__.py", spec_name="__main__", Mine=mine)
    assert _refusal(["mine"], [mine("mine")]) == (
        "invalid argument 'agents': got 'mine'; allowed: an agent the worker processes can import (Mine is defined "
        f"in {folder / '__main__.py'}, a package's __main__ module, which the workers do not import: define it in "
        "another module of the package), or workers=1")  # fmt: skip


def test_an_agent_that_cannot_be_pickled_word_for_word():
    def local(obs, mask, rng):
        return 0

    try:
        pickle.dumps(local)
    except Exception as exc:  # the message of this Python's pickle
        why = f"{type(exc).__name__}: {exc}"
    with pytest.raises(ConfigError) as info:
        _main_names("local", local)
    assert str(info.value) == (
        "invalid argument 'agents': got 'local'; allowed: a picklable agent when workers > 1 (a lambda, a local "
        "function or an object holding one cannot go to worker processes: define it at module level), or "
        f"workers=1 ({why})")  # fmt: skip


@pytest.mark.parametrize("code", ["vars()['K'] = 1\n", "setattr(sys.modules[__name__], 'K', 1)\n"])
def test_names_made_by_vars_or_setattr_cannot_be_told(tmp_path, code):
    (tmp_path / "rt.py").write_text("import sys\n" + code)
    assert _script_names(str(tmp_path / "rt.py")) is None


def test_the_else_of_a_loop_is_read(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("for i in []:\n    pass\nelse:\n    class AfterFor: pass\n"
                      "while False:\n    pass\nelse:\n    class AfterWhile: pass\n")  # fmt: skip
    assert _script_names(str(script)) == ({"i", "AfterFor", "AfterWhile"}, set())


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is Python 3.11's")
def test_an_except_star_block_is_read(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("try:\n    import json\nexcept* ImportError as group:\n    class Fallback: pass\n")
    assert _script_names(str(script)) == ({"json", "Fallback", "group"}, set())
