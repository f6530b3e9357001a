"""Progress bars of the long commands (tournaments, imitation data and fitting, RLlib runs)."""

from __future__ import annotations

import os
import sys
from typing import Any

from domino_env.core.errors import DominoError

#: Seconds between redraws when stderr is not a terminal (a log file, a pipe): tqdm's default of
#: ten a second wrote about 400 KB of ``\r``-separated bars into the log of a 7-minute tournament.
LOG_INTERVAL_S = 30.0


def progress_bar(**kwargs: Any) -> Any:
    """A ``tqdm`` bar on stderr (``kwargs`` are tqdm's own). When stderr is not a terminal it
    redraws at most every :data:`LOG_INTERVAL_S` seconds, unless ``mininterval`` is given or the
    environment sets ``TQDM_MININTERVAL`` (tqdm's own override, e.g. ``TQDM_MININTERVAL=1``).

    Raises:
        DominoError: ``TQDM_MININTERVAL`` is not a number.
    """
    own = os.environ.get("TQDM_MININTERVAL")
    if own is not None:  # tqdm reads it once, at import (a typo was a traceback from there): here too
        try:
            seconds = float(own)
        except ValueError:
            raise DominoError(f"TQDM_MININTERVAL={own!r}: not a number (tqdm's own variable: the seconds "
                              "between redraws of the progress bars)") from None
        kwargs.setdefault("mininterval", seconds)
    elif not _is_terminal(sys.stderr):
        kwargs.setdefault("mininterval", LOG_INTERVAL_S)
    # tqdm's monitor thread forces a redraw once a bar has not drawn for `maxinterval` (10 s):
    # below the interval asked for, a log got a bar every 10-20 s instead of every 30 s; equal to
    # it, the forced redraw and the update's own came together, two lines at each mark (the first
    # with a stale rate). Twice the interval: the monitor only draws a bar that stalled. tqdm's
    # own TQDM_MAXINTERVAL, like TQDM_MININTERVAL, still wins (an explicit keyword hid it)
    if "TQDM_MAXINTERVAL" not in os.environ:
        kwargs.setdefault("maxinterval", max(10.0, 2 * float(kwargs.get("mininterval", 0.1))))
    from tqdm import tqdm

    return tqdm(**kwargs)


def advance(bar: Any, n: int, **postfix: Any) -> None:
    """``bar.update(n)`` showing ``postfix``: set without tqdm's default refresh, which is a
    forced redraw at every call (into a log, once per unit of work instead of every
    :data:`LOG_INTERVAL_S` seconds); the update draws it when the bar's rate allows."""
    bar.set_postfix(postfix, refresh=False)
    bar.update(n)


def close_bar(bar: Any) -> None:
    """``bar.close()``, the total first raised to the count when the work ran past it (imitation
    data is collected in whole episodes: 309 decisions for 300 read "309dec", with no total)."""
    if bar.total is not None and bar.n > bar.total:
        bar.total = bar.n
    bar.close()


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # replaced by an object without isatty, or closed
        return False
