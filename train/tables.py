"""Result tables for a terminal (``domino-evaluate``, ``domino-train``'s final evaluation): every
label shown as written, every figure whole, at any width.

rich reads ``[...]`` in a string as markup and ``:name:`` as an emoji: an agent's label such as
``ppo:runs/ppo[lr=3e-4]`` lost its brackets, and ``ppo:exp[/]y`` raised ``MarkupError`` after the
tournament had been played. Cells and titles are therefore ``rich.text.Text``, which rich shows
as it is. When a table is wider than the terminal, rich shrinks its columns until the figures
read ``[0.1…``: a table that does not fit is printed transposed instead (one row a figure, one
column an agent), which holds a 4-agent tournament's figures in 80 columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Union

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


def _widest(texts: Sequence[str]) -> int:
    from rich.cells import cell_len

    return max((cell_len(t) for t in texts), default=1)


def wide_table(title: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Cell]],
               tight: bool = False) -> Table:  # fmt: skip
    """One row a labelled item (an agent), one column a figure.

    Args:
        title: shown as written above the table.
        columns: ``(header, justify)`` per column, the first the label column.
        rows: one cell per column. A figure is never narrower than its widest cell.
        tight: every column as narrow as its longest word (headers wrap at their spaces), which
            rich's own shrinking does not find: it cut figures of a table that fits this way.
    """
    from rich.table import Table

    t = Table(title=_text(title))
    for i, (header, justify) in enumerate(columns):
        cells = [_text(row[i]).plain for row in rows]
        widest = _widest(cells)
        narrowest = max(_widest(header.split()), _widest([w for c in cells for w in c.split()]) if i == 0 else widest)
        t.add_column(_text(header), justify=justify, min_width=None if i == 0 else widest,  # type: ignore[arg-type]
                     width=narrowest if tight else None)  # fmt: skip
    for row in rows:
        t.add_row(*(_text(c) for c in row))
    return t


def transposed_table(title: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Cell]]) -> Table:
    """The same cells as :func:`wide_table`, one row a figure and one column an item (its label
    the header); a two-line header becomes one line."""
    from rich.table import Table

    t = Table(title=_text(title))
    t.add_column(_text(columns[0][0]), overflow="fold")
    for row in rows:
        t.add_column(_text(row[0]), justify="right", overflow="fold")  # type: ignore[arg-type]
    for i, (header, _) in enumerate(columns[1:], start=1):
        t.add_row(_text(header), *(_text(row[i]) for row in rows))
    return t


def fitted_table(title: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Cell]],
                 width: int) -> Table:  # fmt: skip
    """:func:`wide_table` when it fits ``width`` characters (tight when only so: headers
    wrapped, labels whole), else :func:`transposed_table`."""
    from rich.console import Console
    from rich.measure import Measurement

    wide = wide_table(title, columns, rows)
    console = Console(width=10**5)  # unbounded: the table's own measure, not one squeezed to fit
    needs = Measurement.get(console, console.options, wide)
    if needs.maximum <= width:
        return wide
    if needs.minimum <= width:
        return wide_table(title, columns, rows, tight=True)
    return transposed_table(title, columns, rows)
