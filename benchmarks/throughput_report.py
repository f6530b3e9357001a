"""The report of ``benchmarks/throughput.py``: the peers' passes merged, the tables printed (rich,
or plain text without it), the ratios to the peers and the Mexican Train scaling tables.
"""

from __future__ import annotations

import statistics

from throughput_cells import SCALING_MAX_PIPS, SCALING_PLAYERS


def merge_peer_passes(passes: list[list[dict]]) -> list[dict]:
    """One record per (peer, variant) from several passes of ``peers.py --repeat 1``: rates are
    the median of the passes' windows, counts are summed."""
    merged: dict[tuple, dict] = {}
    for records in passes:
        for rec in records:
            key = (rec["peer"], rec.get("variant"))
            if key not in merged:
                merged[key] = {**rec, "seeds": [rec.get("seed")], "_with": [], "_with_cpu": []}
                if "error" not in rec:
                    merged[key]["_with"] = [rec.get("moves_with_passes_per_s")]
                    merged[key]["_with_cpu"] = [rec.get("moves_with_passes_per_cpu_s")]
                continue
            m = merged[key]
            if "error" in rec or "error" in m:
                continue
            m["seeds"].append(rec.get("seed"))
            m["samples"] = m["samples"] + rec["samples"]
            m["cpu_samples"] = m["cpu_samples"] + rec["cpu_samples"]
            m["_with"].append(rec.get("moves_with_passes_per_s"))
            m["_with_cpu"].append(rec.get("moves_with_passes_per_cpu_s"))
            for k in ("moves", "chance_actions", "games", "passes", "seconds", "cpu_seconds"):
                if k in m:
                    m[k] += rec[k]
    out = []
    for m in merged.values():
        with_passes = m.pop("_with")
        with_passes_cpu = m.pop("_with_cpu")
        if "error" not in m:
            m["repeat"] = len(m["samples"])
            m["moves_per_s"] = statistics.median(m["samples"])
            m["moves_per_cpu_s"] = statistics.median(m["cpu_samples"])
            if "moves_with_passes_per_s" in m:
                m["moves_with_passes_per_s"] = statistics.median(with_passes)
                m["moves_with_passes_per_cpu_s"] = statistics.median(with_passes_cpu)
                m["passes_per_game"] = m["passes"] / m["games"]
            m["moves_per_game"] = m["moves"] / m["games"]
        out.append(m)
    return out


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _fmt1(x: float | None) -> str:
    return "-" if not x else f"{x:.1f}"


def _find(records: list[dict], **keys) -> dict | None:
    return next((r for r in records if all(r.get(k) == v for k, v in keys.items())), None)


# (summary key, description, ours: record keys, peer, peer variant, target)
RATIOS = (
    (
        "raw_env_4p_over_openspiel",
        "mexican_train raw_env 4p d12",
        {"game": "mexican_train", "players": 4, "max_pip": 12, "layer": "raw_env"},
        "openspiel_block_dominoes",
        ("obs_tensor", "py_observer"),
        4.0,
    ),
    (
        "block_raw_env_2p_over_openspiel",
        "block raw_env 2p d6",
        {"game": "block", "players": 2, "max_pip": 6, "layer": "raw_env"},
        "openspiel_block_dominoes",
        ("obs_tensor", "py_observer"),
        4.0,
    ),
    (
        "block_engine_4p_over_dominoes_pkg",
        "block engine 4p d6",
        {"game": "block", "players": 4, "max_pip": 6, "layer": "engine"},
        "dominoes_pkg",
        ("engine",),
        1.0,
    ),
)


def _ratio(x: float, target: float | None) -> str:
    if target is None:
        return f"{x:.2f}x"
    # Enough digits that a ratio next to its target never prints as the target itself: 0.4997
    # against 0.5 printed "0.50x (below 0.5x)".
    digits = 2
    while digits < 6 and x != target and f"{x:.{digits}f}" == f"{target:.{digits}f}":
        digits += 1
    return f"{x:.{digits}f}x ({'meets' if x >= target else 'below'} {target:g}x)"


def compute_ratios(ours: list[dict], peers: list[dict]) -> tuple[dict, list[str]]:
    """Summary ratios (for the JSON) and the lines that print them.

    Two units: ``steps`` (every action: ours count DRAW / PASS / ANNUL, the ``dominoes`` package
    its recorded passes, OpenSpiel has no pass action) and ``placements`` (tiles put on the
    table: the unit every peer counts as a move). Keys without a suffix are the steps ratio
    against the ``obs_tensor`` / ``engine`` variant's moves, as before; ``_placements`` keys are
    the like-for-like placements ratio.
    """
    summary: dict = {}
    lines: list[str] = []
    for key, label, where, peer_name, variants, target in RATIOS:
        mine = _find(ours, **where)
        if mine is None:
            continue
        for variant in variants:
            peer = _find(peers, peer=peer_name, variant=variant)
            if peer is None or "error" in peer:
                continue
            checked = variant in ("obs_tensor", "engine")
            peer_unit = "moves+passes" if "moves_with_passes_per_s" in peer else "moves"
            parts = []
            for clock, tag in (("s", ""), ("cpu_s", "_cpu")):
                peer_steps = peer.get(f"moves_with_passes_per_{clock}", peer[f"moves_per_{clock}"])
                by_steps = mine[f"steps_per_{clock}"] / peer_steps
                by_placed = mine[f"placements_per_{clock}"] / peer[f"moves_per_{clock}"]
                suffix = f"_{variant}" if peer_name == "openspiel_block_dominoes" else ""
                summary[f"{key}{suffix}{tag}"] = by_steps
                summary[f"{key}{suffix}_placements{tag}"] = by_placed

                parts.append(
                    f"{'wall' if clock == 's' else 'CPU'}: steps/{peer_unit} "
                    f"{_ratio(by_steps, target if checked else None)}, "
                    f"placements/moves {_ratio(by_placed, target if checked else None)}"
                )
            lines.append(f"{label} / {peer_name} {variant}:\n    " + "\n    ".join(parts))
    return summary, lines


#: env() (PettingZoo's wrappers) / raw_env per step, same cell: what the wrappers cost. Target
#: for Mexican Train 4p d12; the other cells are printed without one.
WRAPPER_TARGET = 0.5


def wrapper_ratios(ours: list[dict]) -> tuple[dict, list[str]]:
    """``env()`` / ``raw_env`` steps per second (wall and CPU) for every cell measured in both
    layers: summary keys ``env_over_raw_env_<game>_<players>p_d<max_pip>[_cpu]`` and the lines
    that print them, wall and CPU (the Mexican Train 4p d12 cell against :data:`WRAPPER_TARGET`)."""
    summary: dict = {}
    parts: list[str] = []
    for raw in (r for r in ours if r["layer"] == "raw_env"):
        cell = {k: raw[k] for k in ("game", "players", "max_pip")}
        wrapped = _find(ours, layer="env", **cell)
        if wrapped is None:
            continue
        name = f"{cell['game']}_{cell['players']}p_d{cell['max_pip']}"
        for clock, tag in (("s", ""), ("cpu_s", "_cpu")):
            summary[f"env_over_raw_env_{name}{tag}"] = wrapped[f"steps_per_{clock}"] / raw[f"steps_per_{clock}"]
        main = cell == {"game": "mexican_train", "players": 4, "max_pip": 12}
        wall, cpu = (
            _ratio(summary[f"env_over_raw_env_{name}{tag}"], WRAPPER_TARGET if main else None)
            for tag in ("", "_cpu")
        )  # CPU too: on a loaded machine one wall-clock window can move the ratio by a third
        parts.append(f"{cell['game']} {cell['players']}p d{cell['max_pip']} wall {wall}, CPU {cpu}")
    lines = ["env() / raw_env, steps per second:\n    " + "\n    ".join(parts)] if parts else []
    return summary, lines


def scaling_tables(ours: list[dict]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, headers, rows) of Mexican Train engine and raw_env vs players and vs set size."""
    headers = ["", "engine steps/s", "raw_env steps/s", "engine steps/cpu-s",
               "raw_env steps/cpu-s", "raw_env / engine", "steps/round"]  # fmt: skip
    tables = []
    for title, axis, fixed, values in (
        ("Mexican Train d12: steps/s vs players", "players", {"max_pip": 12}, SCALING_PLAYERS),
        ("Mexican Train 4 players: steps/s vs set", "max_pip", {"players": 4}, SCALING_MAX_PIPS),
    ):
        rows = []
        for v in values:
            keys = {"game": "mexican_train", axis: v, **fixed}
            eng = _find(ours, layer="engine", **keys)
            raw = _find(ours, layer="raw_env", **keys)
            if eng is None and raw is None:
                continue
            ratio = raw["steps_per_s"] / eng["steps_per_s"] if eng and raw else None
            rows.append(
                [
                    f"{v}p" if axis == "players" else f"d{v}",
                    _fmt(eng and eng["steps_per_s"]),
                    _fmt(raw and raw["steps_per_s"]),
                    _fmt(eng and eng["steps_per_cpu_s"]),
                    _fmt(raw and raw["steps_per_cpu_s"]),
                    "-" if ratio is None else f"{ratio:.2f}",
                    _fmt1((eng or raw)["steps_per_round"]),
                ]
            )
        if rows:
            tables.append((title, headers, rows))
    return tables


def _print_table(title: str, headers: list[str], rows: list[list[str]], left: int) -> None:
    try:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title)
        for i, h in enumerate(headers):
            table.add_column(h, justify="left" if i < left else "right")
        for row in rows:
            table.add_row(*row)
        console = Console()
        if not console.is_terminal:  # a pipe or file: don't squeeze the table into 80 columns
            console = Console(width=170)
        console.print(table)
    except ImportError:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        print(title)
        print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
        for row in rows:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
        print()


def print_report(ours: list[dict], peers: list[dict], scaling: list[dict] | None = None) -> dict:
    """Print the tables; return the summary ratios."""
    rows = [
        [
            f"{r['game']} d{r['max_pip']}",
            str(r["players"]),
            r["layer"],
            _fmt(r["steps_per_s"]),
            _fmt(r["placements_per_s"]),
            _fmt(r["steps_per_cpu_s"]),
            _fmt(r["placements_per_cpu_s"]),
            _fmt1(r["steps_per_round"]),
            _fmt1(r["placements_per_round"]),
        ]
        for r in ours
    ]
    for p in peers:
        if "error" in p:
            rows.append([p["peer"], "-", "not installed", *["-"] * 6])
            continue
        players = "4" if p["peer"] == "dominoes_pkg" else "2"
        passes = "moves_with_passes_per_s" in p
        rows.append(
            [
                p["peer"] + ("" if passes else " *"),
                players,
                p["variant"],
                _fmt(p["moves_with_passes_per_s"] if passes else p["moves_per_s"]),
                _fmt(p["moves_per_s"]),
                _fmt(p["moves_with_passes_per_cpu_s"] if passes else p["moves_per_cpu_s"]),
                _fmt(p["moves_per_cpu_s"]),
                _fmt1(
                    p["moves_per_game"] + p["passes_per_game"] if passes else p["moves_per_game"]
                ),
                _fmt1(p["moves_per_game"]),
            ]
        )
    headers = ["game", "players", "layer / variant", "steps/s", "placements/s", "steps/cpu-s",
               "placements/cpu-s", "steps/round", "placements/round"]  # fmt: skip
    _print_table("Random legal play, per second", headers, rows, left=1)
    if any("error" not in p and p["peer"] == "openspiel_block_dominoes" for p in peers):
        print("* no pass action (a player who cannot place is skipped): steps = moves = placements")
    summary, lines = compute_ratios(ours, peers)
    wrappers, wrapper_lines = wrapper_ratios(ours)
    summary.update(wrappers)
    for line in lines + wrapper_lines:
        print(line)
    for title, headers, rows in scaling_tables(scaling or []):
        print()
        _print_table(title, headers, rows, left=1)
    return summary
