"""Write the env-card tables of ``docs/envs.md`` from the code's own tables.

The observation tables come from the observation specs (``ObservationSpec.markdown_table``, with
each field's bound), the
configuration tables from the config dataclasses and their field docs (``FIELD_DOCS``,
``LINE_FIELD_DOCS``). In the page each table sits between two markers::

    <!-- generated: NAME (python docs/generate_tables.py) -->
    ...
    <!-- end generated -->

Run ``python docs/generate_tables.py`` after changing a spec or a field doc; ``--check`` changes
nothing and exits 1 when the page is stale (``tests/test_docs.py`` runs the same check).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENVS_PAGE = ROOT / "docs" / "envs.md"
BLOCK = re.compile(
    r"(<!-- generated: (?P<name>[a-z_]+) \(python docs/generate_tables.py\) -->\n)(?P<body>.*?)"
    r"(<!-- end generated -->)",
    flags=re.S,
)


def config_table(config_cls: type, docs: dict[str, str]) -> str:
    """``| field | default | meaning |`` rows, one per dataclass field, in field order."""
    rows = ["| field | default | meaning |", "|---|---|---|"]
    for f in dataclasses.fields(config_cls):
        rows.append(f"| `{f.name}` | `{f.default!r}` | {docs[f.name]} |")
    return "\n".join(rows)


def tables() -> dict[str, Callable[[], str]]:
    """Table name (as in the page's markers) -> function building its Markdown."""
    from domino_env.core.config import FIELD_DOCS, LINE_FIELD_DOCS, LineConfig, MexicanTrainConfig
    from domino_env.encoding.line import line_observation_spec
    from domino_env.encoding.mexican_train import observation_spec

    return {
        "mexican_train_observation": lambda: observation_spec(4, 12).markdown_table(high=True),
        "mexican_train_config": lambda: config_table(MexicanTrainConfig, FIELD_DOCS),
        "line_observation": lambda: line_observation_spec(4, 9).markdown_table(high=True),
        "line_config": lambda: config_table(LineConfig, LINE_FIELD_DOCS),
    }


def render(text: str) -> str:
    """``text`` with every generated block rewritten from the code.

    Raises:
        ValueError: a marker names an unknown table, or a table has no block in ``text``.
    """
    builders = tables()
    seen = set()

    def fill(m: re.Match) -> str:
        name = m["name"]
        if name not in builders:
            raise ValueError(f"unknown generated table {name!r}; known: {sorted(builders)}")
        seen.add(name)
        return f"{m.group(1)}{builders[name]()}\n{m.group(4)}"

    out = BLOCK.sub(fill, text)
    missing = sorted(set(builders) - seen)
    if missing:
        raise ValueError(f"{ENVS_PAGE.name} has no generated block for {missing}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args(argv)
    text = ENVS_PAGE.read_text()
    new = render(text)
    if args.check:
        if new != text:
            print(f"{ENVS_PAGE} is stale: run python docs/generate_tables.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        ENVS_PAGE.write_text(new)
        print(f"rewrote {ENVS_PAGE}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # this checkout's code, not another installed copy
    sys.exit(main())
