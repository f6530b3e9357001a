"""The README's and the docs pages' ``python`` blocks run as they are, copy-pasted.

Every ```` ```python ```` block of README.md and docs/*.md runs in a fresh namespace, unless the
line before it is ``<!-- not run -->``. The env-card tables are checked against the code in
tests/test_docs.py.
"""

import re
from pathlib import Path

import pytest

from domino_env.envs.infos import Termination

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = "<!-- not run -->"


def python_blocks(text: str) -> list[str]:
    """The runnable ``python`` blocks of a Markdown page, in order."""
    blocks = []
    for m in re.finditer(r"```python\n(.*?)^```", text, flags=re.S | re.M):
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if before.strip() != NOT_RUN:
            blocks.append(m.group(1))
    return blocks


def page_blocks() -> list[tuple[str, int, str]]:
    return [
        (str(page.relative_to(ROOT)), i, code)
        for page in PAGES
        for i, code in enumerate(python_blocks(page.read_text()))
    ]


@pytest.fixture(autouse=True)
def agents_registered_by_a_block_are_forgotten():
    """A block's ``register_agent("own-first", ...)`` stayed in this process's registry: a later
    test on the same worker (the command lines' --help lists every registered name) saw it."""
    from domino_env.agents.base import _REGISTRIES

    saved = {game: dict(names) for game, names in _REGISTRIES.items()}
    yield
    for game, names in saved.items():
        _REGISTRIES[game].clear()
        _REGISTRIES[game].update(names)


def test_not_run_marker_skips_only_the_next_block():
    text = "a\n```python\nx = 1\n```\n<!-- not run -->\n```python\nraise SystemExit\n```\n"
    assert python_blocks(text) == ["x = 1\n"]


@pytest.mark.parametrize(("page", "index", "code"), page_blocks(), ids=lambda v: str(v)[:40])
def test_every_python_block_runs(page, index, code):
    exec(compile(code, f"{page}[block {index}]", "exec"), {"__name__": "__docs__"})


def test_readme_quick_start_plays_a_round_and_trains():
    blocks = python_blocks((ROOT / "README.md").read_text())
    assert len(blocks) == 2
    namespace: dict = {}
    exec(blocks[0], namespace)
    assert namespace["info"]["termination_code"] in (Termination.WENT_OUT, Termination.BLOCKED)
    namespace = {}
    exec(blocks[1], namespace)  # the SB3 quick start: one torch thread, a short MaskablePPO run
    import torch

    assert torch.get_num_threads() == 1
    assert namespace["model"].num_timesteps >= 1024
    assert namespace["env"].action_masks()[namespace["action"]]


def test_agent_examples_choose_a_legal_action():
    blocks = [b for b in python_blocks((ROOT / "docs/agents.md").read_text()) if "make_agent(" in b]
    assert len(blocks) >= 2  # one per game family
    for block in blocks:
        namespace: dict = {}
        exec(block, namespace)
        assert namespace["obs"]["action_mask"][namespace["action"]] == 1
