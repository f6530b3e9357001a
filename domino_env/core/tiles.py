"""Double-N domino sets: tile index <-> (a, b) and pip totals (docs/rules.md §0).

Canonical order: (0,0), (0,1), ..., (0,N), (1,1), (1,2), ..., (N,N). The tile index is the position
in that order; it is the index used in every observation and action of the package.
"""

from __future__ import annotations

from functools import cache, lru_cache

from .errors import DominoError, as_int

Tile = tuple[int, int]


def tile_count(max_pip: int) -> int:
    """Number of tiles in a double-``max_pip`` set: (N+1)(N+2)/2 (28, 55, 91, 136, 190 for N = 6, 9,
    12, 15, 18; docs/rules.md §0). ``max_pip`` is not checked here: the rules configs check it."""
    return (max_pip + 1) * (max_pip + 2) // 2


@cache
def tile_table(max_pip: int) -> tuple[Tile, ...]:
    """All tiles of the double-``max_pip`` set in canonical order (docs/rules.md §0), each as
    ``(a, b)`` with a <= b. ``max_pip`` is not checked here (a negative one gives ``()``)."""
    return tuple((a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1))


def tile_index(a: int, b: int, max_pip: int) -> int:
    """Canonical index of tile (a, b) (either orientation) in the double-``max_pip`` set.

    Raises:
        DominoError: if a pip is not an integer (Python or numpy, or a 0-d integer array; a
            bool, float or None is refused, not rounded) or is outside 0..max_pip.
    """
    if not (type(a) is int and type(b) is int):  # plain ints skip as_int's abstract-base-class check
        pa, pb = as_int(a), as_int(b)
        if pa is None or pb is None:
            raise DominoError(f"a tile's pips must be integers, got ({a!r}, {b!r})")
        a, b = pa, pb
    if a > b:
        a, b = b, a
    if a < 0 or b > max_pip:
        raise DominoError(f"tile ({a}, {b}) is not in the double-{max_pip} set (pips 0..{max_pip})")
    # Rows 0..a-1 hold (N+1) + N + ... + (N+2-a) tiles.
    return a * (max_pip + 1) - a * (a - 1) // 2 + (b - a)


def tile_from_index(index: int, max_pip: int) -> Tile:
    """The tile ``(a, b)`` (a <= b) at canonical ``index``.

    Raises:
        DominoError: if the index is not an integer or is outside 0..tile_count(max_pip)-1.
    """
    table = tile_table(max_pip)
    i = index if type(index) is int else as_int(index)
    if i is None or not 0 <= i < len(table):
        raise DominoError(f"tile index {index!r} is not an integer 0..{len(table) - 1} (double-{max_pip})")
    return table[i]


def tile_pair(tile: object) -> Tile:
    """``tile`` as an ``(a, b)`` pair of plain ints (a list, tuple or numpy array of two integers,
    :func:`~domino_env.core.errors.as_int`).

    Raises:
        DominoError: ``tile`` is not two integers (None, a single number, three pips...).
    """
    if type(tile) in (list, tuple) and len(tile) == 2 and type(tile[0]) is int and type(tile[1]) is int:
        return tile[0], tile[1]  # a deal's [a, b] entry: no attribute look-ups, no ABC checks
    pips = tile.tolist() if hasattr(tile, "tolist") and hasattr(tile, "shape") else tile
    pair = [as_int(x) for x in pips] if isinstance(pips, (list, tuple)) and len(pips) == 2 else [None]
    if None in pair:
        raise DominoError(f"a tile must be a pair of integers (a, b), got {tile!r}")
    return pair[0], pair[1]


def double_index(pip: int, max_pip: int) -> int:
    """Canonical index of the double ``(pip, pip)``.

    Raises:
        DominoError: as :func:`tile_index` (``pip`` not an integer 0..max_pip).
    """
    return tile_index(pip, pip, max_pip)


def pip_value(tile: Tile, double_blank_points: int = 0) -> int:
    """Value of a tile in pips: its pip total, or ``double_blank_points`` for the 0-0
    (docs/rules.md §0, §1.5)."""
    a, b = tile
    if a == 0 and b == 0:
        return double_blank_points
    return a + b


class SetTables:
    """Constant tables of a double-N set, shared by every state of every engine: the tiles, their
    values in pips, and per-pip / double bitmasks over tile indices (hands are int bitmasks)."""

    def __init__(self, max_pip: int, double_blank_points: int = 0):
        self.tiles: tuple[Tile, ...] = tile_table(max_pip)
        self.num_tiles = len(self.tiles)
        self.values = tuple(pip_value(t, double_blank_points) for t in self.tiles)
        self.pip_masks = [0] * (max_pip + 1)
        self.double_mask = 0
        for i, (a, b) in enumerate(self.tiles):
            self.pip_masks[a] |= 1 << i
            self.pip_masks[b] |= 1 << i
            if a == b:
                self.double_mask |= 1 << i


@lru_cache(maxsize=64)
def set_tables(max_pip: int, double_blank_points: int = 0) -> SetTables:
    """The (cached) :class:`SetTables` of a double-``max_pip`` set."""
    return SetTables(max_pip, double_blank_points)
