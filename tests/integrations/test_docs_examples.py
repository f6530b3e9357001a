"""The Python examples of docs/integrations.md and docs/state.md run as written."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.S)


@pytest.mark.parametrize(("page", "count"), [("integrations.md", 3), ("state.md", 1), ("infos.md", 1)])
def test_examples_run(page, count):
    blocks = _blocks(page)
    assert len(blocks) == count
    for block in blocks:
        namespace: dict = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(block, namespace)
        if "td" in namespace:
            assert namespace["td"]["next", "state"].shape == (150, 677)
        if "stats" in namespace:
            assert namespace["stats"].n_collected_episodes == 3
        if "info" in namespace:
            assert namespace["info"]["round_over"]
