"""Text pictures of a table (the ``ansi`` and ``human`` render modes)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import SupportsInt

from .core.errors import DominoError, as_int
from .core.line import LineState
from .core.mexican_train import PHASE_NAMES, MexicanTrainState


def _tile(t: tuple[int, int]) -> str:
    return f"[{t[0]}|{t[1]}]"


def _tile_count(n: int) -> str:
    return f"{n} tile" if n == 1 else f"{n} tiles"


def check_viewer(state: MexicanTrainState | LineState, viewer: object) -> int:
    """``viewer`` as a seat of ``state`` (None: the seat to play). Raises DominoError otherwise: a
    list index took -1 as the last seat's hand and 2.5 or "1" as another seat."""
    if viewer is None:
        return state.current_player
    p = state.num_players
    seat = as_int(viewer)  # Python or numpy integers, 0-d integer arrays; not bools
    if seat is None or not 0 <= seat < p:
        raise DominoError(f"viewer must be a seat 0..{p - 1} (an integer) or None (the seat to play), got {viewer!r}")
    return seat


def seats_out_before(state: MexicanTrainState | LineState, round_index: int) -> set[int]:
    """The seats an elimination game knocked out before round ``round_index`` (0-based; none in
    other games). They hold no hand in that round, so its pips left and points are no count of
    theirs: the displays show "out" there (docs/rules.md §1.6)."""
    at = getattr(state, "eliminated_at", ())
    return {s for s, r in enumerate(at) if r is not None and r < round_index}


def seats_knocked_out(state: MexicanTrainState | LineState) -> set[int]:
    """The seats the round just ended knocked out of an elimination game (none while a round runs,
    none in other games). They played that round: its end still shows their trains, tagged "out
    of the game" (as the replay page); from the next deal on they are a row "out of the game"."""
    at = getattr(state, "eliminated_at", ())
    return {s for s, r in enumerate(at) if state.round_over and r == state.round_index}


def seats_tagged_out(state: MexicanTrainState | LineState) -> set[int]:
    """:func:`seats_knocked_out` but the game's winners (every seat left crossed the limit: the
    lowest total wins, docs/rules.md §1.6): the seats the displays tag "out of the game"."""
    return seats_knocked_out(state) - set(getattr(state, "game_winners", ()))


def seat_counts_text(values: Iterable[SupportsInt], out: Collection[int] = ()) -> str:
    """One count per seat as a list, ``"[12, out, 0, 31]"``: ``out`` seats (:func:`seats_out_before`)
    read "out". ``values``: P integers in seat order (a list, a tuple or an int64 array (P,))."""
    return "[" + ", ".join("out" if s in out else str(int(v)) for s, v in enumerate(values)) + "]"


def phase_text(state: MexicanTrainState) -> str:
    """The acting seat's turn phase in words: its ``PHASE_NAMES`` entry, except that a free turn
    that an open double obliges reads "open double to cover" (docs/rules.md §1.4: the turn must
    cover it, or draw and pass); it read "free"."""
    if state.phase == PHASE_NAMES.index("free") and state._coverable():  # noqa: SLF001  (the rule itself)
        return "open double to cover"
    return PHASE_NAMES[state.phase].replace("_", " ")


def render_mexican_train(state: MexicanTrainState, viewer: int | None = None) -> str:
    """A text picture of a Mexican Train table.

    Shows the round, the station, every train with its open end, markers and open doubles
    (``OPEN DOUBLE k``: the k-th obliging double, in the order they were left open; ``DOUBLE TO
    COVER``: one the acting seat placed this turn and must cover itself), each seat's hand size,
    the boneyard count ("no boneyard" without one), and ``viewer``'s hand (default: the current
    player). Nothing else hidden is shown. In an elimination game a seat out of the game is one
    row, ``seat k: out of the game``; the end of the round that knocked it out still shows its
    train, tagged ``out of the game`` (:func:`seats_knocked_out`; docs/rules.md §1.6).
    """
    p = state.num_players
    viewer = check_viewer(state, viewer)
    lines = [
        f"Mexican Train - round {state.round_index + 1}, station [{state.station}|{state.station}], "
        + (f"boneyard {_tile_count(state.boneyard_size)}" if state.config.use_boneyard else "no boneyard"),
    ]
    obliging = list(state.open_doubles)  # in the order they were left open
    own = set() if state.round_over else set(state.own_doubles_to_cover())  # chain, no_cover: none
    trains = list(range(p)) + ([p] if state.config.use_mexican_train else [])
    knocked = seats_knocked_out(state)
    out_now = seats_tagged_out(state)
    for train in trains:
        if train == p:
            name, tags = "Mexican ", []
        else:
            if not state.active[train] and train not in knocked:
                lines.append(f"  seat {train}: out of the game")  # (the picture's and the replay page's words)
                continue
            name = f"seat {train} "
            tags = [f"hand {state.hand_size(train)}", f"score {state.scores[train]}"]
            if state.has_marker(train):
                tags.append("MARKER")
            if train in out_now:
                tags.append("out of the game")
        if train in obliging:
            tags.append(f"OPEN DOUBLE {obliging.index(train) + 1}")
        elif train in own:
            tags.append("DOUBLE TO COVER")
        body = " ".join(_tile(t) for t in state.train_tiles(train)) or "(empty)"
        tail = f"  ({', '.join(tags)})" if tags else ""
        lines.append(f"  {name}: {body} -> open end {state.open_end(train)}{tail}")
    if state.round_over:
        r = state.round_result
        pips = seat_counts_text(r.pips, seats_out_before(state, r.round_index))
        lines.append(f"round over: {r.termination}, winners {list(r.winners)}, pips {pips}")
    else:
        lines.append(
            f"to play: seat {state.current_player} ({phase_text(state)})"
            + (", just drew" if state.drawn_tile >= 0 else "")
        )
    hand = " ".join(_tile(t) for t in state.hand_tiles(viewer)) or "(empty)"
    lines.append(f"hand of seat {viewer}: {hand}")
    return "\n".join(lines)


def render_line(state: LineState, viewer: int | None = None) -> str:
    """A text picture of a line game: the line with its two open ends, hand sizes, the boneyard,
    scores and ``viewer``'s hand (default: the current player). Nothing else hidden is shown."""
    cfg = state.config
    viewer = check_viewer(state, viewer)
    lines = [
        f"{cfg.preset} dominoes - round {state.round_index + 1}, double-{cfg.max_pip}, "
        + (f"boneyard {_tile_count(state.boneyard_size)}" if cfg.use_boneyard else "no boneyard")
        + f", leader seat {state.leader}"
        + (" (teams 0+2 vs 1+3)" if cfg.teams else "")
    ]
    if state.line:
        body = " ".join(_tile(t) for t in state.line)
        lines.append(f"  line: {body}  (ends {state.left} | {state.right})")
    else:
        lines.append("  line: (empty: waiting for the lead)")
    for seat in range(state.num_players):
        lines.append(f"  seat {seat}: hand {state.hand_size(seat)}, score {state.scores[seat]}")
    if state.round_over:
        r = state.round_result
        lines.append(f"round over: {r.termination}, winners {list(r.winners)}, pips {list(r.pips)}")
    else:
        lines.append(f"to play: seat {state.current_player}")
    hand = " ".join(_tile(t) for t in state.hand_tiles(viewer)) or "(empty)"
    lines.append(f"hand of seat {viewer}: {hand}")
    return "\n".join(lines)
