"""Result tables for a terminal (``domino-evaluate``, ``domino-train``'s final evaluation): every
label shown as written, every figure whole, at any width.

rich reads ``[...]`` in a string as markup and ``:name:`` as an emoji: an agent's label such as
``ppo:runs/ppo[lr=3e-4]`` lost its brackets, and ``ppo:exp[/]y`` raised ``MarkupError`` after the
tournament had been played. Cells and titles are therefore ``rich.text.Text``, which rich shows
as it is. When a table is wider than the terminal, rich shrinks its widest columns, then all of
them, until the figures read ``[0.1…`` or ``0.62`` / ``5``: here the column widths are set
(:func:`_allocate`) so that no word is split, and a table that cannot fit so is printed
transposed (one row a figure, one column an agent), in as many tables as the agents need.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

#: A cell: a plain string (shown as written) or a styled ``rich.text.Text``.
Cell = Union[str, "Text"]


def verdict_cell(verdict: str) -> Text:
    """A verdict against parity as a cell: ``above`` green, ``below`` red, any other as it is."""
    from rich.text import Text

    return Text(verdict, style={"above": "green", "below": "red"}.get(verdict, ""))


def _text(cell: Cell) -> Text:
    from rich.text import Text

    return cell if isinstance(cell, Text) else Text(cell)


def _span(texts: Sequence[Cell], whole: bool) -> tuple[int, int]:
    """(narrowest, natural) width of a column of ``texts``: the narrowest keeps every word whole
    (``whole``: every text whole), the natural keeps every line whole."""
    from rich.cells import cell_len

    plain = [_text(t).plain for t in texts]
    lines = [line for p in plain for line in p.splitlines()] or [""]
    natural = max(cell_len(line) for line in lines)
    words = lines if whole else [w for line in lines for w in line.split()] or [""]
    return max(1, max(cell_len(w) for w in words)), max(1, natural)


def _allocate(spans: Sequence[tuple[int, int]], width: int) -> list[int] | None:
    """Column widths (without padding) for a table of ``width`` characters in rich's default box
    (2 of padding a column, n + 1 rules): every column at least its narrowest, the spare room
    given to the columns it lets show whole, the cheapest first, the rest to the first still
    short; None when even the narrowest do not fit."""
    room = width - 3 * len(spans) - 1
    widths = [low for low, _ in spans]
    spare = room - sum(widths)
    if spare < 0:
        return None
    order = sorted(range(len(spans)), key=lambda i: spans[i][1] - spans[i][0])
    for i in order:
        need = spans[i][1] - widths[i]
        if need <= spare:
            widths[i], spare = spans[i][1], spare - need
    for i in order:  # what is left goes to the first column still short of whole (fewer lines)
        more = min(spare, spans[i][1] - widths[i])
        widths[i], spare = widths[i] + more, spare - more
    return widths


def _table(title: str | None, headers: Sequence[tuple[Cell, str]], rows: Sequence[Sequence[Cell]],
           widths: Sequence[int] | None) -> Table:  # fmt: skip
    from rich.table import Table

    t = Table(title=None if title is None else _text(title))
    for i, (header, justify) in enumerate(headers):
        t.add_column(_text(header), justify=justify, overflow="fold",  # type: ignore[arg-type]
                     width=None if widths is None else widths[i])  # fmt: skip
    for row in rows:
        t.add_row(*(_text(c) for c in row))
    return t


def wide_table(title: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Cell]],
               width: int | None = None) -> Table | None:  # fmt: skip
    """One row a labelled item (an agent), one column a figure.

    Args:
        title: shown as written above the table.
        columns: ``(header, justify)`` per column, the first the label column.
        rows: one cell per column.
        width: the characters the table may take; None: as wide as its cells.

    Returns:
        The table, or None when it cannot fit ``width`` with every figure and label whole (a
        header may wrap at its spaces)."""
    if width is None:
        return _table(title, columns, rows, None)
    spans = []
    for i, (header, _) in enumerate(columns):
        cells = _span([row[i] for row in rows], whole=i > 0)  # a label may wrap at a space, a figure never
        head = _span([header], whole=False)
        spans.append((max(cells[0], head[0]), max(cells[1], head[1])))
    widths = _allocate(spans, width)
    return None if widths is None else _table(title, columns, rows, widths)


def transposed_tables(title: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Cell]],
                      width: int | None = None) -> list[Table]:  # fmt: skip
    """The cells of :func:`wide_table`, one row a figure and one column an item (its label the
    header, folded when longer than the figures), in as few tables of ``width`` characters as
    hold every item with its figures' words whole (an interval may take two lines); the title
    above the first. With ``width`` too narrow for one item a table, one a table all the same."""
    names = [(header, "left") for header, _ in columns[:1]]
    figures = [[header for header, _ in columns[1:]]] + [list(row[1:]) for row in rows]

    def table(group: Sequence[int], first: bool, fit: bool = True) -> Table | None:
        headers = names + [(rows[i][0], "right") for i in group]
        cells = [list(r) for r in zip(figures[0], *(figures[1 + i] for i in group), strict=True)]
        if width is None or not fit:
            return _table(title if first else None, headers, cells, None)
        spans = [_span([columns[0][0], *figures[0]], whole=False)]
        for i in group:
            low, high = _span(figures[1 + i], whole=False)
            spans.append((low, max(high, _span([rows[i][0]], whole=True)[1])))
        widths = _allocate(spans, width)
        return None if widths is None else _table(title if first else None, headers, cells, widths)

    for count in range(1, len(rows) + 1):  # as few tables as fit, their items shared evenly
        size = -(-len(rows) // count)
        groups = [list(range(start, min(start + size, len(rows)))) for start in range(0, len(rows), size)]
        tables = [table(g, k == 0) for k, g in enumerate(groups)]
        if all(t is not None for t in tables):
            return tables  # type: ignore[return-value]
    # narrower than one item's words: rich's own shrinking, one item a table
    return [table([i], i == 0) or table([i], i == 0, fit=False) for i in range(len(rows))]  # type: ignore[misc]


def fitted_table(title: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Cell]],
                 width: int) -> Any:  # fmt: skip
    """:func:`wide_table` when it fits ``width`` characters, else :func:`transposed_tables` (one
    ``rich.console.Group`` when they are several): a renderable for ``Console.print``."""
    from rich.console import Group

    wide = wide_table(title, columns, rows, width)
    if wide is not None:
        return wide
    tables = transposed_tables(title, columns, rows, width)
    return tables[0] if len(tables) == 1 else Group(*tables)
