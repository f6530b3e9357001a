"""Reading exact deals (``reset(options={"deal": ...})``): tiles as ``[a, b]`` pairs, checked
against the set and for duplicates. Shared by every engine."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import DealError, DominoError
from .tiles import tile_index, tile_pair, tile_table


def bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, ascending (hands are int bitmasks over tile indices)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class TileReader:
    """Turns ``[a, b]`` pairs into tile indices of the double-``max_pip`` set, refusing tiles
    outside the set and any tile given twice (across everything read by this reader)."""

    def __init__(self, max_pip: int):
        self.max_pip = max_pip
        self.seen: dict[int, str] = {}
        self.station = -1  # the index of the Mexican Train station double, once read

    def tile(self, raw: Any, where: str, station: bool = False) -> int:
        """Index of one tile (``station``: the round's station double, which no hand or boneyard
        may hold). Raises DealError naming ``where``."""
        n = self.max_pip
        try:
            a, b = tile_pair(raw)
        except DominoError:
            raise DealError(f"{where}: a tile must be a pair of integers [a, b], got {plain(raw)!r}") from None
        if not (0 <= a <= n and 0 <= b <= n):
            raise DealError(f"{where}: tile {[a, b]} is not in the double-{n} set")
        index = tile_index(a, b, n)
        if index == self.station:
            raise DealError(f"{where}: tile {[a, b]} is {self.seen[index]}: no hand or boneyard "
                            "holds the station double")  # fmt: skip
        if index in self.seen:
            raise DealError(f"{where}: tile {[a, b]} appears twice (also in {self.seen[index]})")
        self.seen[index] = where
        if station:
            self.station = index
        return index

    def hand(self, raw: Any, where: str) -> int:
        """A list of tiles as a bitmask."""
        raw = plain(raw)
        if not isinstance(raw, (list, tuple)):
            raise DealError(f"{where} must be a list of [a, b] tiles, got {raw!r}")
        mask = 0
        for item in raw:
            mask |= 1 << self.tile(item, where)
        return mask

    def hands(self, deal: dict[str, Any], seats: int) -> list[int]:
        """``deal["hands"]``: one list per seat."""
        raw = plain(deal.get("hands"))
        if not isinstance(raw, (list, tuple)):
            raise DealError(f"deal['hands'] must be a list with one list of [a, b] tiles per seat ({seats} seats), "
                            f"got {type(raw).__name__}")  # fmt: skip
        if len(raw) != seats:
            raise DealError(f"deal['hands'] must list one hand per seat ({seats} seats), got {len(raw)}")
        return [self.hand(h, f"hand of seat {s}") for s, h in enumerate(raw)]

    def boneyard(self, deal: dict[str, Any]) -> list[int]:
        """``deal["boneyard"]`` in drawing order (first element drawn first); absent or None: empty."""
        raw = deal.get("boneyard")
        raw = [] if raw is None else plain(raw)
        if not isinstance(raw, (list, tuple)):
            raise DealError(f"deal['boneyard'] must be a list of [a, b] tiles, got {raw!r}")
        return [self.tile(item, "boneyard") for item in raw]


def deals_of_options(options: dict[str, Any]) -> list[Any]:
    """The deals of ``reset``'s options, first round first: ``[options["deal"]]``, the list
    ``options["deals"]``, or ``[]`` (docs/envs.md, "Starting from a given position").

    Raises:
        DealError: both options given, or ``deals`` not a non-empty list or tuple."""
    if "deal" in options and "deals" in options:
        raise DealError("give either options['deal'] or options['deals'], not both")
    if "deals" not in options:
        return [options["deal"]] if "deal" in options else []
    deals = options["deals"]
    if not isinstance(deals, (list, tuple)) or not deals:  # an iterator could be endless: not read
        got = "an empty one" if isinstance(deals, (list, tuple)) else "None" if deals is None else type(deals).__name__
        raise DealError(f"options['deals'] must be a non-empty list or tuple of deals, got {got}")
    return list(deals)


def plain(raw: Any) -> Any:
    """A numpy array as nested lists of Python numbers (``tolist``): a deal may give its hands,
    tiles and boneyard as arrays (the record keeps JSON lists, made from the tile indices)."""
    return raw.tolist() if isinstance(raw, np.ndarray) else raw


def check_keys(deal: Any, allowed: tuple[str, ...]) -> None:
    """Raise DealError if ``deal`` is not a dict or has keys outside ``allowed``."""
    if not isinstance(deal, dict):
        raise DealError(f"a deal must be a dict (keys {', '.join(allowed)}), got {type(deal).__name__}")
    unknown = set(deal) - set(allowed)
    if unknown:
        raise DealError(f"unknown deal keys {sorted(unknown)}; allowed: {', '.join(allowed)}")


def check_seat(value: Any, seats: int, name: str) -> int:
    """A seat number 0..seats-1 (numpy ints accepted). Raises DealError."""
    if isinstance(value, bool) or not hasattr(value, "__index__") or not 0 <= int(value) < seats:
        raise DealError(f"{name} must be a seat 0..{seats - 1}, got {value!r}")
    return int(value)


def tiles_as_pairs(indices: list[int], max_pip: int) -> list[list[int]]:
    """Tile indices as JSON-ready ``[a, b]`` pairs (records)."""
    table = tile_table(max_pip)
    return [list(table[i]) for i in indices]
