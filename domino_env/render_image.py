"""Pictures of a table (the ``rgb_array`` render mode), drawn with Pillow.

:func:`table_image` draws any engine state (Mexican Train or a line game) as an ``(H, W, 3)``
``uint8`` RGB array. What it shows is public information plus one seat's hand (``viewer``,
default the seat to play): the other hands are drawn face down, so two positions that differ only
in hidden tiles (the other hands, the boneyard) give the same picture. ``all_hands=True`` draws
every hand face up, for replays and debugging.

The picture's size depends only on the rules (seats, set, Mexican train on or off), never on the
position, so a video of an episode has frames of one size. Rows too long for the picture keep
their open end in view: a train shows its last tiles, a hand its first, the line both ends, and a
``+k`` badge counts what was left out.

Pillow is imported when the first picture is drawn (``pip install "domino-env[render]"``).
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

import numpy as np

from .core.config import LineConfig
from .core.errors import ConfigError, as_flag
from .core.line import LineState
from .core.mexican_train import MexicanTrainState
from .render import (
    check_viewer,
    phase_text,
    seat_counts_text,
    seats_knocked_out,
    seats_out_before,
    seats_tagged_out,
)

# Geometry (pixels). A tile is two square halves side by side.
HALF = 24
TILE_W, TILE_H = 2 * HALF, HALF
STEP = TILE_W + 4  #: horizontal distance between two face-up tiles of a row
BACK_W, BACK_STEP = 12, 15  #: a face-down tile is drawn narrow, standing on its end
ROW = TILE_H + 16
MARGIN = 12
LABEL_W = 200  #: left column: seat names, markers, hand sizes
END_W = 96  #: right of a row: the open end
ROW_TILES = 16  #: face-up tiles that fit a row
HEADER = 58
FOOTER = 34

BG = (28, 94, 58)  # table felt
ROW_BG = (36, 108, 68)
ACTING_BG = (52, 128, 84)
OPEN_BG = (150, 112, 30)  # a train whose open double obliges
TEXT = (240, 240, 230)
DIM = (190, 210, 195)
FACE = (250, 248, 238)
EDGE = (40, 40, 40)
BACK = (24, 52, 120)
HIGHLIGHT = (230, 60, 40)
OWN_DOUBLE = (255, 200, 40)
MARKER = (220, 40, 40)
TEAM_COLOURS = ((120, 190, 255), (255, 170, 120))
#: Pip colour of each value, as on coloured double-12 / double-18 sets (0 has no pips).
PIP_COLOURS = (
    (0, 0, 0), (20, 20, 20), (20, 90, 200), (190, 30, 30), (30, 130, 50), (130, 60, 160),
    (200, 110, 0), (0, 130, 140), (120, 80, 40), (200, 40, 140), (60, 60, 160), (20, 120, 90),
    (160, 130, 0), (90, 90, 90), (170, 60, 60), (40, 100, 130), (110, 130, 30), (150, 50, 110),
    (70, 70, 70),
)  # fmt: skip


def require_pillow() -> None:
    """Import Pillow (``render_mode="rgb_array"`` envs call it when they are made).

    Raises:
        ImportError: Pillow is not installed; the message names the ``[render]`` extra.
    """
    _pil()


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as err:
        raise ImportError(
            'render_mode="rgb_array" draws with Pillow: pip install "domino-env[render]"'
        ) from err
    return Image, ImageDraw, ImageFont


@cache
def _font(size: int) -> Any:
    """Pillow's bundled font at ``size`` pixels (the same on every machine)."""
    return _pil()[2].load_default(size=size)


@cache
def pip_layout(value: int) -> tuple[tuple[float, float], ...]:
    """Pip centres of a half showing ``value`` pips, in the unit square: the classic 3x3 faces
    up to 9, then rows of three (the last row centred) up to 18."""
    g = (0.24, 0.5, 0.76)
    tl, tc, tr = (g[0], g[0]), (g[1], g[0]), (g[2], g[0])
    ml, c, mr = (g[0], g[1]), (g[1], g[1]), (g[2], g[1])
    bl, bc, br = (g[0], g[2]), (g[1], g[2]), (g[2], g[2])
    classic = {
        0: (), 1: (c,), 2: (tl, br), 3: (tl, c, br), 4: (tl, tr, bl, br), 5: (tl, tr, c, bl, br),
        6: (tl, tr, ml, mr, bl, br), 7: (tl, tr, ml, c, mr, bl, br),
        8: (tl, tc, tr, ml, mr, bl, bc, br), 9: (tl, tc, tr, ml, c, mr, bl, bc, br),
    }  # fmt: skip
    if value in classic:
        return classic[value]
    rows = -(-value // 3)
    out = []
    for r in range(rows):
        n = min(3, value - 3 * r)
        y = 0.14 + 0.72 * r / (rows - 1)
        xs = [0.2 + 0.3 * k for k in range(3)] if n == 3 else [0.5 + 0.3 * (k - (n - 1) / 2) for k in range(n)]
        out.extend((x, y) for x in xs)
    return tuple(out)


class _Canvas:
    """A Pillow image with the drawing primitives of a table."""

    def __init__(self, width: int, height: int):
        image, draw, _ = _pil()
        self.image = image.new("RGB", (width, height), BG)
        self.draw = draw.Draw(self.image)

    def text(self, xy: tuple[float, float], text: str, size: int = 14, fill=TEXT, anchor: str = "la") -> float:
        """Draw ``text``; returns the x just right of it."""
        font = _font(size)
        self.draw.text(xy, text, fill=fill, font=font, anchor=anchor)
        return self.draw.textbbox(xy, text, font=font, anchor=anchor)[2]

    def badge(self, x: float, y: float, text: str, fill, size: int = 12, colour=TEXT) -> float:
        """A rounded label at (x, y) (top left); returns the x just right of it."""
        font = _font(size)
        w = self.draw.textlength(text, font=font)
        self.draw.rounded_rectangle((x, y, x + w + 10, y + size + 6), radius=5, fill=fill)
        self.draw.text((x + 5, y + 3), text, fill=colour, font=font)
        return x + w + 14

    def half(self, x: float, y: float, value: int) -> None:
        r = max(1.3, HALF * (0.09 if value <= 9 else 0.065))
        colour = PIP_COLOURS[value % len(PIP_COLOURS)]
        for px, py in pip_layout(value):
            cx, cy = x + px * HALF, y + py * HALF
            self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)

    def tile(self, x: float, y: float, a: int, b: int, outline=EDGE, width: int = 1) -> None:
        """A face-up tile, ``a`` on the left half, ``b`` on the right."""
        self.draw.rounded_rectangle((x, y, x + TILE_W, y + TILE_H), radius=4, fill=FACE, outline=outline, width=width)
        self.draw.line((x + HALF, y + 3, x + HALF, y + TILE_H - 3), fill=(120, 120, 120), width=1)
        self.half(x, y, a)
        self.half(x + HALF, y, b)

    def back(self, x: float, y: float) -> None:
        """A face-down tile (standing on its end)."""
        self.draw.rounded_rectangle((x, y, x + BACK_W, y + TILE_H), radius=3, fill=BACK, outline=(10, 20, 60))

    def row_bg(self, y: float, fill) -> None:
        w = self.image.width
        self.draw.rounded_rectangle((MARGIN - 4, y - 6, w - MARGIN + 4, y + TILE_H + 6), radius=6, fill=fill)

    def end_pip(self, x: float, y: float, pip: int, label: str = "") -> None:
        """The open end: a circle holding the pip a tile must match."""
        d = TILE_H
        self.draw.ellipse((x, y, x + d, y + d), fill=FACE, outline=EDGE)
        self.text((x + d / 2, y + d / 2), str(pip), size=13, fill=(20, 20, 20), anchor="mm")
        if label:
            self.text((x + d + 4, y + d / 2), label, size=11, fill=DIM, anchor="lm")

    def hand(self, x: float, y: float, tiles: list[tuple[int, int]], size: int, face_up: bool, room: float) -> None:
        """A hand: ``tiles`` face up, or ``size`` face-down backs, within ``room`` pixels."""
        if face_up:
            fit = int(room // STEP)
            shown = tiles if len(tiles) <= fit else tiles[: fit - 1]
            for k, (a, b) in enumerate(shown):
                self.tile(x + k * STEP, y, a, b)
            if len(shown) < len(tiles):
                self.badge(x + len(shown) * STEP, y + 2, f"+{len(tiles) - len(shown)}", BACK)
            return
        fit = int(room // BACK_STEP)
        n = size if size <= fit else fit - 2
        for k in range(n):
            self.back(x + k * BACK_STEP, y)
        if n < size:
            self.badge(x + n * BACK_STEP, y + 2, f"+{size - n}", BACK)

    def array(self) -> np.ndarray:
        return np.array(self.image, dtype=np.uint8)


def _width() -> int:
    return MARGIN * 2 + LABEL_W + ROW_TILES * STEP + END_W


def _hand_view(state: Any, viewer: int | None, all_hands: bool) -> tuple[int | None, set[int]]:
    """(viewer, seats whose hand is drawn face up). Every hand face up and no viewer given (a
    replay, say): no seat is "(you)", so the viewer is None.

    Raises:
        ConfigError: ``all_hands`` is not a yes/no flag (:func:`as_flag`: the string "False" is
            truthy, and drew every hidden hand face up).
    """
    flag = as_flag(all_hands)
    if flag is None:
        raise ConfigError("all_hands", all_hands, "True (every hand face up) or False (the viewer's only), or 1 / 0")
    all_hands = flag
    if all_hands and viewer is None:
        return None, set(range(state.num_players))
    viewer = check_viewer(state, viewer)
    return viewer, set(range(state.num_players)) if all_hands else {viewer}


def _seat_label(c: _Canvas, y: float, seat: int, acting: bool, viewer: int | None, colour=TEXT) -> float:
    name = f"seat {seat}" + (" (you)" if seat == viewer else "")
    x = c.text((MARGIN + 4, y + 1), name, size=15, fill=colour)
    if acting:
        x = c.badge(x + 6, y + 1, "to play", HIGHLIGHT)
    return x


# ---------------------------------------------------------------------- Mexican Train
def mexican_train_size(config: Any) -> tuple[int, int]:
    """``(height, width)`` in pixels of a Mexican Train picture under ``config``."""
    p = config.num_players
    trains = p + (1 if config.use_mexican_train else 0)
    return HEADER + trains * ROW + 24 + p * ROW + FOOTER + MARGIN, _width()


def mexican_train_image(state: MexicanTrainState, viewer: int | None = None, all_hands: bool = False) -> np.ndarray:
    """Picture of a Mexican Train table (docs/rules.md §1).

    Shows the round, the station, every train as a row of tiles from the station to its open
    end, the markers, the open doubles that oblige (amber rows, numbered in the order they were
    left open; a double the acting seat must still cover itself is outlined yellow), the Mexican
    train, each seat's hand size and score, the boneyard size and who is to play (or how the
    round ended).

    Args:
        state: the engine state.
        viewer: the seat whose hand is face up, labelled "(you)" (default: the seat to play; with
            ``all_hands`` and no viewer, no seat is labelled).
        all_hands: draw every hand face up (replays, debugging: shows hidden information).

    Returns:
        ``(H, W, 3)`` uint8 RGB array, ``(H, W) = mexican_train_size(state.config)``.

    Raises:
        DominoError: ``viewer`` is not a seat.
        ConfigError: ``all_hands`` is not True / False (or 1 / 0).
        ImportError: Pillow (the ``[render]`` extra) is not installed.
    """
    cfg = state.config
    p = state.num_players
    viewer, face_up = _hand_view(state, viewer, all_hands)
    height, width = mexican_train_size(cfg)
    c = _Canvas(width, height)
    acting = None if state.round_over else state.current_player
    # header
    c.text((MARGIN, MARGIN - 2), f"Mexican Train · {cfg.preset} · double-{cfg.max_pip} · round {state.round_index + 1}", size=18)
    x = c.text((MARGIN, MARGIN + 24), "station", size=14, fill=DIM)
    c.tile(x + 8, MARGIN + 20, state.station, state.station)
    x = c.text((x + TILE_W + 20, MARGIN + 24), f"boneyard {state.boneyard_size}" if state.config.use_boneyard else "no boneyard", size=14)
    if acting is not None:
        extra = ", just drew" if state.drawn_tile >= 0 else ""
        c.text((x + 20, MARGIN + 24), f"to play: seat {acting} ({phase_text(state)}{extra})", size=14)
    # trains
    obliging = list(state.open_doubles)
    own = set(state.own_doubles_to_cover()) if acting is not None else set()
    trains = list(range(p)) + ([p] if cfg.use_mexican_train else [])
    knocked = seats_knocked_out(state)  # (the round just ended knocked them out: their trains are shown)
    out_now = seats_tagged_out(state)
    y = HEADER
    for train in trains:
        ty = y + 8
        open_rank = obliging.index(train) + 1 if train in obliging else 0
        c.row_bg(ty, OPEN_BG if open_rank else (ACTING_BG if train == acting else ROW_BG))
        if train == p:
            c.text((MARGIN + 4, ty + 1), "Mexican train", size=15)
        elif not state.active[train] and train not in knocked:
            c.text((MARGIN + 4, ty + 1), f"seat {train}: out of the game", size=15, fill=DIM)
            y += ROW
            continue
        else:
            lx = _seat_label(c, ty, train, train == acting, viewer)
            if state.has_marker(train):
                c.badge(lx + 4, ty + 1, "marker", MARKER)
            c.text((MARGIN + 4, ty + 18), "out of the game" if train in out_now else "train", size=11, fill=DIM)
        tiles = state.train_tiles(train)
        x0 = MARGIN + LABEL_W
        shown = tiles
        if len(tiles) > ROW_TILES:
            shown = tiles[-(ROW_TILES - 1) :]
            c.badge(x0, ty + 2, f"+{len(tiles) - len(shown)}", BACK)
            x0 += STEP
        for k, (a, b) in enumerate(shown):
            last = k == len(shown) - 1
            if last and a == b and (open_rank or train in own):
                c.tile(x0 + k * STEP, ty, a, b, outline=HIGHLIGHT if open_rank else OWN_DOUBLE, width=3)
            else:
                c.tile(x0 + k * STEP, ty, a, b)
        ex = x0 + len(shown) * STEP + 2
        label = ""
        if open_rank:
            label = f"open double {open_rank}"
        elif train in own:
            label = "cover it"
        c.end_pip(ex, ty, state.open_end(train), label)
        y += ROW
    # hands
    c.text((MARGIN, y + 4), "hands (" + ("all face up" if all_hands else f"seat {viewer}'s face up") + ")", size=13, fill=DIM)
    y += 24
    room = width - MARGIN * 2 - LABEL_W - 4
    for seat in range(p):
        ty = y + 8
        c.row_bg(ty, ACTING_BG if seat == acting else ROW_BG)
        if state.active[seat] or seat in knocked:
            _seat_label(c, ty, seat, seat == acting, viewer)
            size = state.hand_size(seat)
            c.text((MARGIN + 4, ty + 18), f"{size} tile{'' if size == 1 else 's'} · score {state.scores[seat]}"
                   + (" · out of the game" if seat in out_now else ""), size=11, fill=DIM)  # fmt: skip
            c.hand(MARGIN + LABEL_W, ty, state.hand_tiles(seat) if seat in face_up else [], size, seat in face_up, room)
        else:
            c.text((MARGIN + 4, ty + 1), f"seat {seat}: out · score {state.scores[seat]}", size=15, fill=DIM)
        y += ROW
    _footer(c, state, height)
    return c.array()


def _footer(c: _Canvas, state: Any, height: int) -> None:
    y = height - FOOTER
    if state.round_over:
        r = state.round_result
        c.row_bg(y + 4, HIGHLIGHT)
        winners = ", ".join(str(s) for s in r.winners) or "none"
        pips = seat_counts_text(r.pips, seats_out_before(state, r.round_index))  # "out": no hand that round
        text = f"round over: {r.termination.replace('_', ' ')} · winners {winners} · pips left {pips}"
        if state.game_over:
            text += f" · game over, won by {', '.join(str(s) for s in state.game_winners)}"
        c.text((MARGIN + 4, y + 7), text, size=14)
    else:
        c.text((MARGIN, y + 7), f"scores {list(state.scores)}", size=13, fill=DIM)


# ---------------------------------------------------------------------- line games
#: Rows of the line in a line-game picture (longer lines lose their middle).
LINE_ROWS = 3


def line_size(config: Any) -> tuple[int, int]:
    """``(height, width)`` in pixels of a line-game picture under ``config``."""
    rows = min(LINE_ROWS, -(-config.tile_count // ROW_TILES))
    return HEADER + rows * ROW + 24 + config.num_players * ROW + FOOTER + MARGIN, _width()


def line_image(state: LineState, viewer: int | None = None, all_hands: bool = False) -> np.ndarray:
    """Picture of a line-game table (block, draw, Cuban; docs/rules.md §2).

    Shows the line of play left to right (wrapped onto rows; the middle of a line too long for
    the picture is left out) with its two open ends, each seat's hand size and score, the
    leader, the teams (seat labels coloured by team), the boneyard size and who is to play (or
    how the round ended).

    Args:
        state: the engine state.
        viewer: the seat whose hand is face up, labelled "(you)" (default: the seat to play; with
            ``all_hands`` and no viewer, no seat is labelled).
        all_hands: draw every hand face up (replays, debugging).

    Returns:
        ``(H, W, 3)`` uint8 RGB array, ``(H, W) = line_size(state.config)``.

    Raises:
        DominoError: ``viewer`` is not a seat.
        ConfigError: ``all_hands`` is not True / False (or 1 / 0).
        ImportError: Pillow (the ``[render]`` extra) is not installed.
    """
    cfg = state.config
    p = state.num_players
    viewer, face_up = _hand_view(state, viewer, all_hands)
    height, width = line_size(cfg)
    c = _Canvas(width, height)
    acting = None if state.round_over else state.current_player
    teams = " · teams 0+2 vs 1+3" if cfg.teams else ""
    c.text((MARGIN, MARGIN - 2), f"{cfg.preset.capitalize()} dominoes · double-{cfg.max_pip} · round {state.round_index + 1}{teams}", size=18)
    x = c.text((MARGIN, MARGIN + 24), f"boneyard {state.boneyard_size}" if cfg.use_boneyard else "no boneyard (block)", size=14)
    x = c.text((x + 20, MARGIN + 24), f"leader seat {state.leader}", size=14)
    x = c.text((x + 20, MARGIN + 24), f"game to {cfg.target_score} points", size=14, fill=DIM)
    if acting is not None:
        c.text((x + 20, MARGIN + 24), f"to play: seat {acting}", size=14)
    rows = min(LINE_ROWS, -(-cfg.tile_count // ROW_TILES))
    y = HEADER
    line = state.line
    for r in range(rows):
        c.row_bg(y + 8 + r * ROW, ROW_BG)
    if not line:
        c.text((MARGIN + 4, y + 9), "line: empty, waiting for the lead", size=15)
    else:
        capacity = rows * ROW_TILES
        if len(line) <= capacity:
            cells: list[Any] = list(line)
        else:
            keep = capacity - 1
            head = keep // 2
            cells = list(line[:head]) + [len(line) - keep] + list(line[len(line) - (keep - head) :])
        x0 = MARGIN + LABEL_W
        c.text((MARGIN + 4, y + 9), "line", size=15)
        c.end_pip(MARGIN + LABEL_W - TILE_H - 60, y + 8, state.left, "left end")
        for k, cell in enumerate(cells):
            cx, cy = x0 + (k % ROW_TILES) * STEP, y + 8 + (k // ROW_TILES) * ROW
            if isinstance(cell, int):
                c.badge(cx, cy + 2, f"+{cell}", BACK)
            else:
                c.tile(cx, cy, *cell)
        k = len(cells) - 1
        ex, ey = x0 + (k % ROW_TILES + 1) * STEP + 2, y + 8 + (k // ROW_TILES) * ROW
        c.end_pip(ex, ey, state.right, "right end")
    y += rows * ROW
    c.text((MARGIN, y + 4), "hands (" + ("all face up" if all_hands else f"seat {viewer}'s face up") + ")", size=13, fill=DIM)
    y += 24
    room = width - MARGIN * 2 - LABEL_W - 4
    for seat in range(p):
        ty = y + 8
        c.row_bg(ty, ACTING_BG if seat == acting else ROW_BG)
        colour = TEAM_COLOURS[seat % 2] if cfg.teams else TEXT
        lx = _seat_label(c, ty, seat, seat == acting, viewer, colour)
        if seat == state.leader:
            c.badge(lx + 4, ty + 1, "leader", BACK)
        size = state.hand_size(seat)
        team = f" · team {seat % 2}+{seat % 2 + 2}" if cfg.teams else ""
        c.text((MARGIN + 4, ty + 18), f"{size} tile{'' if size == 1 else 's'} · score {state.scores[seat]}{team}", size=11, fill=DIM)
        c.hand(MARGIN + LABEL_W, ty, state.hand_tiles(seat) if seat in face_up else [], size, seat in face_up, room)
        y += ROW
    _footer(c, state, height)
    return c.array()


# ---------------------------------------------------------------------- dispatch
def table_image(state: Any, viewer: int | None = None, all_hands: bool = False) -> np.ndarray:
    """Picture of any engine state (:func:`mexican_train_image` or :func:`line_image`, whose
    arguments these are): ``(H, W, 3)`` uint8 RGB, ``(H, W) = image_size(state.config)``.

    Raises:
        TypeError: ``state`` is not a Mexican Train or line-game engine state.
        DominoError, ConfigError, ImportError: as :func:`mexican_train_image` raises them.
    """
    if isinstance(state, MexicanTrainState):
        return mexican_train_image(state, viewer, all_hands)
    if isinstance(state, LineState):
        return line_image(state, viewer, all_hands)
    raise TypeError(f"no picture for {type(state).__name__}")


def image_size(config: Any) -> tuple[int, int]:
    """``(height, width)`` in pixels of every picture of a game under ``config`` (a rules config:
    a :class:`LineConfig`, else Mexican Train rules); needs no Pillow."""
    if isinstance(config, LineConfig):
        return line_size(config)
    return mexican_train_size(config)


def blank_image(text: str, size: tuple[int, int] = (120, 480)) -> np.ndarray:
    """A ``size`` = ``(H, W)`` picture holding one line of ``text`` (e.g. before ``reset``)."""
    c = _Canvas(size[1], size[0])
    c.text((MARGIN, MARGIN), text, size=15)
    return c.array()


def save_png(image: np.ndarray, path: Any) -> None:
    """Write a uint8 image (a rendered frame: ``(H, W, 3)``; also ``(H, W, 4)`` RGBA or ``(H, W)``
    grey, as Pillow takes them) as a PNG file at ``path`` (a PNG whatever the file's extension).

    Raises:
        ConfigError: ``image`` is not such a uint8 array (a float image was Pillow's TypeError),
            or ``path`` is neither a file path (str, bytes or ``os.PathLike``) nor an open binary
            file, or is a folder (Pillow's "unknown file extension").
    """
    array = isinstance(image, np.ndarray)
    shape_ok = array and (image.ndim == 2 or image.ndim == 3 and image.shape[2] in (3, 4)) and 0 not in image.shape
    if not shape_ok or image.dtype != np.uint8:
        got = f"array of shape {image.shape}, dtype {image.dtype}" if array else type(image).__name__
        raise ConfigError("image", got, "an (H, W, 3) uint8 array as render() returns, or (H, W, 4) / (H, W)")
    if isinstance(path, (str, bytes, os.PathLike)):
        if not os.fspath(path) or os.path.isdir(path):
            raise ConfigError("path", path, "the path of a file to write, not a folder or an empty path")
        path = os.fsdecode(path)  # Pillow takes str and PathLike, not bytes
    elif not hasattr(path, "write"):  # (an open binary file, as Pillow takes)
        raise ConfigError("path", path, "a file path (str, bytes or os.PathLike) or an open binary file")
    _pil()[0].fromarray(image).save(path, format="PNG")
