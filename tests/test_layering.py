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


#: The layers, lowest first: a module may import its own layer and those below, never above.
LAYERS = (
    ("core", ("domino_env.core",)),
    ("encoding", ("domino_env.encoding",)),
    # ``import domino_env`` runs the package's __init__, which registers the environments
    ("envs", ("domino_env.envs", "domino_env.wrappers", "domino_env.render", "domino_env.render_image", "domino_env")),
    ("agents", ("domino_env.agents",)),
    ("train", ("domino_env.train",)),
)


def _module_name(path: Path) -> str:
    """The installed name of a source file: agents/ and train/ install as domino_env.agents and
    domino_env.train (pyproject.toml)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] in ("agents", "train"):
        parts.insert(0, "domino_env")
    return ".".join(parts)


def _resolved_imports(path: Path) -> set[str]:
    """Every module ``path`` imports, relative imports resolved to absolute names (``from ..train
    import cli`` in agents/line.py is domino_env.train.cli); ``from X import a`` counts X.a, which
    is X's own layer unless ``a`` is a module of another one."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found |= {f"{base}.{a.name}" for a in node.names if a.name != "*"} | {base}
    return found


def _layer(module: str) -> int | None:
    """The rank in :data:`LAYERS` of ``module`` (its longest matching prefix); None: not ours."""
    matches = [(len(p), rank) for rank, (_, prefixes) in enumerate(LAYERS) for p in prefixes
               if module == p or module.startswith(p + ".")]  # fmt: skip
    return max(matches)[1] if matches else None


def test_imports_flow_one_way_between_the_layers():
    """core <- encoding <- envs / wrappers <- agents <- train, for relative and absolute imports
    alike, at any depth (an import inside a function too)."""
    wrong = []
    for folder in ("domino_env", "agents", "train"):
        for path in (ROOT / folder).rglob("*.py"):
            own = _layer(_module_name(path))
            for module in sorted(_resolved_imports(path)):
                target = _layer(module)
                if own is not None and target is not None and target > own:
                    wrong.append(f"{path.relative_to(ROOT)} ({LAYERS[own][0]}) imports {module} ({LAYERS[target][0]})")
    assert wrong == [], "imports against the layers:\n" + "\n".join(wrong)


def test_the_layer_check_sees_relative_and_absolute_imports(tmp_path, monkeypatch):
    """The check itself: each of these imports was missed by the name-prefix checks it replaced."""
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    cases = {"agents/line.py": "from ..train import cli", "domino_env/core/deal.py": "import domino_env.envs.base",
             "domino_env/encoding/spec.py": "import domino_env.envs.base", "domino_env/core/tiles.py": "import domino_env",
             "domino_env/envs/base.py": "from .. import agents"}  # fmt: skip
    for rel, line in cases.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(line + "\n")
        own, targets = _layer(_module_name(path)), [_layer(m) for m in _resolved_imports(path)]
        assert own is not None and max(t for t in targets if t is not None) > own, (rel, line)


def test_every_python_file_keeps_under_500_lines():
    """The project's size guide (a file past it is split by what it holds, as
    tests/train/test_ppo_cli.py was into test_ppo_cli_signals.py and test_ppo_cli_runs.py)."""
    folders = ("domino_env", "agents", "train", "tests", "benchmarks", "docs")
    long = {str(p.relative_to(ROOT)): n for folder in folders for p in (ROOT / folder).rglob("*.py")
            if (n := len(p.read_text().splitlines())) >= 500}  # fmt: skip
    assert long == {}, "split these files (lines): " + ", ".join(f"{p} ({n})" for p, n in sorted(long.items()))
