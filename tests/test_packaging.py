"""Installing the library never shadows a user's own ``agents`` / ``train`` modules (issue 12
item 9): the distribution holds one top-level package, ``domino_env``; the repository's ``agents/``
and ``train/`` folders install as ``domino_env.agents`` and ``domino_env.train``."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_package_list_covers_every_folder_with_an_init():
    setup = _pyproject()["tool"]["setuptools"]
    folders = {"domino_env": "domino_env", **{v: k for k, v in setup["package-dir"].items()}}
    expected = set()
    for folder, name in folders.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            expected.add(".".join((name, *rel)))
    assert set(setup["packages"]) == expected
    assert setup["package-dir"] == {"domino_env.agents": "agents", "domino_env.train": "train"}


def test_wheel_has_one_top_level_package(tmp_path):
    had_build = (ROOT / "build").exists()  # setuptools builds in the source tree: leave it as found
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
         str(tmp_path), str(ROOT)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    if not had_build:
        shutil.rmtree(ROOT / "build", ignore_errors=True)
    (wheel,) = tmp_path.glob("domino_env-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"domino_env"}
    assert "domino_env/agents/mexican_train.py" in names
    assert "domino_env/train/evaluate.py" in names
    assert "domino_env/py.typed" in names  # PEP 561: mypy reads the package's hints (tests/test_typing.py)
    meta = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(meta).decode()
    assert "domino-evaluate = domino_env.train.cli:evaluate" in scripts


def test_a_project_with_its_own_train_and_agents_keeps_them(tmp_path):
    """A user's project with ``train.py`` and an ``agents/`` package, run from its own folder:
    its modules stay its own, and ours (imported and as a console script) still work."""
    (tmp_path / "train.py").write_text("WHO = 'user train'\n")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("WHO = 'user agents'\n")
    code = textwrap.dedent(
        """
        import train, agents
        assert (train.WHO, agents.WHO) == ('user train', 'user agents'), (train, agents)
        import domino_env
        from domino_env.agents import make_agent
        from domino_env.train.evaluate import evaluate
        import train as again
        assert again.WHO == 'user train'
        result = evaluate(['greedy', 'random'], rounds=4, seed=3, num_players=2, max_pip=9,
                          progress=False)
        print('ok', type(make_agent('greedy')).__name__, result.episodes)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ok", "GreedyAgent", "4"]
    script = Path(sys.executable).with_name("domino-evaluate")
    run = subprocess.run(
        [str(script), "--agents", "greedy", "random", "--players", "2", "--max-pip", "9",
         "--rounds", "4", "--no-progress"],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "greedy" in run.stdout


def test_sdist_holds_the_package_and_no_test_that_could_not_run_there(tmp_path):
    """setuptools put tests/test_*.py in the sdist by default, without the docs/, benchmarks/ and
    checkpoints/ they read (MANIFEST.in prunes tests/)."""
    import tarfile

    src = tmp_path / "src"  # a copy: the wheel test may be building in the tree at the same time
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
        shutil.copy(ROOT / name, src / name)
    for folder in ("domino_env", "agents", "train", "tests"):
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    subprocess.run([sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_sdist({str(tmp_path)!r})"],
                   cwd=src, check=True, capture_output=True, text=True)  # fmt: skip
    (sdist,) = tmp_path.glob("domino_env-*.tar.gz")
    names = {n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n}
    assert {"README.md", "LICENSE", "pyproject.toml", "agents/search.py", "train/evaluate.py",
            "domino_env/core/mexican_train.py", "domino_env/py.typed"} <= names  # fmt: skip
    assert not [n for n in names if n.startswith("tests/")]
