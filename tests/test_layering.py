"""One-way imports (DESIGN.md 1): core <- encoding <- envs / wrappers <- agents <- train.

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
    banned = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "agents", "train")
    for path, names in _imports(ROOT / "domino_env" / "core").items():
        for name in names:
            assert not name.startswith(banned), f"{path} imports {name}"
            assert not name.startswith(("..encoding", "..envs", "..wrappers", "..render")), (path, name)


def test_library_never_imports_agents_or_train():
    for path, names in _imports(ROOT / "domino_env").items():
        for name in names:
            assert name.split(".")[0] not in {"agents", "train", "torch"}, f"{path} imports {name}"


def test_encoding_does_not_import_envs():
    for path, names in _imports(ROOT / "domino_env" / "encoding").items():
        assert not any(n.startswith(("..envs", "..wrappers")) for n in names), path
