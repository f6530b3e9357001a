"""One-way imports (docs/design.md §1): core <- encoding <- envs / wrappers <- agents <- train.

Checked on the source (``import domino_env`` itself registers the environments, so importing the
package always loads gymnasium and pettingzoo; what matters is what each layer imports)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(folder: Path) -> dict[str, set[str]]:
    found = {}
    for path in folder.rglob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                names.add(("." * node.level) + (node.module or ""))
        found[str(path.relative_to(ROOT))] = names
    return found


def test_core_imports_only_stdlib_and_numpy():
    banned = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "agents", "train",
              "domino_env.agents", "domino_env.train")
    for path, names in _imports(ROOT / "domino_env" / "core").items():
        for name in names:
            assert not name.startswith(banned), f"{path} imports {name}"
            assert not name.startswith(("..encoding", "..envs", "..wrappers", "..render")), (path, name)


def test_library_never_imports_agents_or_train():
    """The folders ``agents/`` and ``train/`` install as ``domino_env.agents`` / ``domino_env.train``
    (pyproject.toml); the library proper (the ``domino_env/`` folder) imports neither."""
    for path, names in _imports(ROOT / "domino_env").items():
        for name in names:
            assert name.split(".")[0] not in {"agents", "train", "torch"}, f"{path} imports {name}"
            assert not name.startswith(("domino_env.agents", "domino_env.train")), f"{path} imports {name}"


def test_agents_never_import_train():
    for path, names in _imports(ROOT / "agents").items():
        for name in names:
            assert not name.startswith(("domino_env.train", "train")), f"{path} imports {name}"


def test_nothing_imports_the_uninstalled_top_level_names():
    """``agents`` / ``train`` are only folder names: code imports ``domino_env.agents`` and
    ``domino_env.train`` (the top-level names would load a second copy, or a user's own module)."""
    for folder in ("domino_env", "agents", "train", "tests", "benchmarks"):
        for path, names in _imports(ROOT / folder).items():
            for name in names:
                assert name.split(".")[0] not in {"agents", "train"}, f"{path} imports {name}"


def test_encoding_does_not_import_envs():
    for path, names in _imports(ROOT / "domino_env" / "encoding").items():
        assert not any(n.startswith(("..envs", "..wrappers")) for n in names), path


def test_every_python_file_keeps_under_500_lines():
    """The project's size guide (a file past it is split by what it holds, as
    tests/train/test_ppo_cli.py was into test_ppo_cli_signals.py and test_ppo_cli_runs.py)."""
    folders = ("domino_env", "agents", "train", "tests", "benchmarks", "docs")
    long = {str(p.relative_to(ROOT)): n for folder in folders for p in (ROOT / folder).rglob("*.py")
            if (n := len(p.read_text().splitlines())) >= 500}  # fmt: skip
    assert long == {}
