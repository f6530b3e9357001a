"""How the result tables read on a terminal (``domino_env.train.tables``): labels as written
(rich read ``[...]`` as markup: ``ppo:exp[/]y`` crashed ``domino-evaluate`` after its games, and
``own[v2]`` printed as ``own``), every figure whole at any width (on 80 columns the intervals read
``[0.1…``), and the verdict when every episode was truncated."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from test_result_tables import _result, _stats

from domino_env.train.evaluate import evaluate, print_result
from domino_env.train.ladder import print_summary
from domino_env.train.tables import fitted_table, transposed_tables, verdict_cell, wide_table

ROOT = Path(__file__).resolve().parents[2]
LABELS = ["ppo:exp[/]y", "own[v2]", "ppo:a:b", "[bold]x"]


def _printed(result, width):
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    print_result(console, result)
    return console.export_text()


def _four(names=LABELS):
    return _result([_stats(n, ci95_wilson=(0.1 * i + 0.0123, 0.5 + 0.1 * i), ci95_deal=(0.0456 * i, 0.61 + 0.1 * i),
                           mean_pips_per_round=10.0 + i) for i, n in enumerate(names)], num_players=4)  # fmt: skip


def test_labels_and_title_are_shown_as_written():
    text = _printed(_four(), 250)
    for label in LABELS:
        assert f"│ {label} " in text  # a row of its own, brackets and colons kept
    assert text.splitlines()[0].strip().startswith("ppo:exp[/]y own[v2] ppo:a:b [bold]x | 4 players")
    assert "🅰" not in text


EIGHT = ["planner", "greedy", "random", "search:25", "search:budget=6", "planner:30", "own[v2]",
         "ppo:checkpoints/mexican_train_4p_d12_action_scores"]  # fmt: skip


def _tables(renderable):
    """The tables of what ``table(width=...)`` returns (one, or a Group of several)."""
    return list(getattr(renderable, "renderables", [renderable]))


def _by_agent(renderable, figure):
    """{agent label: its cell under ``figure``}, read from a wide table or from transposed ones."""
    found = {}
    for t in _tables(renderable):
        headers = [c.header.plain for c in t.columns]
        if headers[0] == "agent" and figure in headers:  # one row an agent
            rows = zip(*([x.plain for x in c.cells] for c in t.columns), strict=True)
            found.update({r[0]: r[headers.index(figure)] for r in rows})
        else:  # one row a figure
            row = [x.plain for x in t.columns[0].cells].index(figure)
            found.update({c.header.plain: list(c.cells)[row].plain for c in t.columns[1:]})
    return found


@pytest.mark.parametrize("width", [30, 40, 60, 80, 100, 120, 160, 250])
@pytest.mark.parametrize("agents", [1, 2, 4, 8])
def test_no_figure_is_cut_no_line_passes_the_width_and_each_figure_is_its_agents(width, agents):
    """The tester's sweep: on 80 columns 8 agents' intervals read "[0.07" / "1," / "0.591" / "]"."""
    result = _four(EIGHT[:agents])
    text = _printed(result, width)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()[:-1]) <= width  # (the summary line is soft-wrapped)
    words = text.split()
    for s in result.stats:
        for low, high in (s.ci95_wilson, s.ci95_deal):
            assert f"[{low:.3f}," in words and f"{high:.3f}]" in words  # an interval may take two lines
        assert f"{s.mean_pips_per_round:.2f}" in words
    for figure in ("seat-rounds", "parity"):
        assert figure in words  # a label of a row or column is not split either
    table = result.table(width=width)
    assert _by_agent(table, "mean pips/round") == {s.name: f"{s.mean_pips_per_round:.2f}" for s in result.stats}
    assert _by_agent(table, "95% CI Wilson") == {
        s.name: f"[{s.ci95_wilson[0]:.3f}, {s.ci95_wilson[1]:.3f}]" for s in result.stats}


def test_the_layout_follows_the_width():
    result = _four(["planner", "greedy"])
    assert len(result.table(width=250).columns) == 10 and result.table().columns[0].width is None  # one row an agent
    tight = result.table(width=120)  # headers wrapped, figures whole, the room left to the cheapest
    assert len(tight.columns) == 10 and [c.width for c in tight.columns] == [7, 5, 11, 4, 8, 14, 15, 6, 9, 10]
    flipped = result.table(width=80)
    assert [str(c.header) for c in flipped.columns] == ["agent", "planner", "greedy"]
    assert [str(x) for x in flipped.columns[0].cells] == [
        "seats", "seat-rounds", "wins", "win rate", "95% CI Wilson", "95% CI per deal", "parity 1/P", "vs parity",
        "mean pips/round"]  # fmt: skip
    assert [str(x) for x in flipped.columns[2].cells][4:6] == ["[0.112, 0.600]", "[0.046, 0.710]"]
    groups = _tables(_four(EIGHT).table(width=80))
    assert [[c.header.plain for c in t.columns[1:]] for t in groups] == [EIGHT[:4], EIGHT[4:]]
    assert groups[0].title.plain.startswith("planner greedy") and groups[1].title is None


def test_the_helpers_keep_cells_and_styles():
    columns = [("who", "left"), ("rate", "right")]
    rows = [["a[b]", "0.500"], ["c", verdict_cell("above")]]
    wide = wide_table("t[x]", columns, rows)
    assert str(wide.title) == "t[x]" and [str(c) for c in wide.columns[0].cells] == ["a[b]", "c"]
    assert [c.width for c in wide.columns] == [None, None]
    assert [c.width for c in wide_table("t", columns, rows, 16).columns] == [4, 5]  # "│ a[b] │ above │"
    assert wide_table("t", columns, rows, 15) is None
    (flipped,) = transposed_tables("t", columns, rows)
    assert [str(c.header) for c in flipped.columns] == ["who", "a[b]", "c"]
    assert [c.style for c in flipped.columns[2].cells] == ["green"]
    assert verdict_cell("below").style == "red" and verdict_cell("parity").style == ""
    assert len(fitted_table("t", columns, rows, 16).columns) == 2
    (flipped,) = transposed_tables("t", columns, rows, 24)  # "│ rate │ a[b] │ above │" is 24
    assert [c.width for c in flipped.columns] == [4, 5, 5] and flipped.title.plain == "t"
    one_each = transposed_tables("t", columns, rows, 23)  # one agent a table: "│ rate │ above │" is 16
    assert [[c.header.plain for c in t.columns] for t in one_each] == [["who", "a[b]"], ["who", "c"]]
    assert [c.width for c in one_each[1].columns] == [4, 5] and one_each[1].title is None
    narrow = _tables(fitted_table("t", columns, rows, 15))  # too narrow for one: rich's own shrinking
    assert [[c.width for c in t.columns] for t in narrow] == [[None, None], [None, None]]


def test_the_training_summary_keeps_its_labels_and_figures(capsys):
    r = {"rounds": 40, "win_rate": 0.275, "ci95_wilson": [0.16, 0.43], "ci95_deal": [0.12, 0.431], "deals": 10,
         "parity": 0.25, "verdict": "above", "mean_pips": 12.5, "opponent_mean_pips": 20.25, "seat_rounds": 40,
         "opponent_seat_rounds": 120}  # fmt: skip
    print_summary({"ppo:r[/]x": r, "planner": r}, 4, "model[v2] vs the ladder")
    out = capsys.readouterr().out
    assert "model[v2] vs the ladder" in out and "3 x ppo:r[/]x" in out and "3 x planner" in out
    assert "[0.160, 0.430]" in out and "12.50" in out and "20.25" in out and "…" not in out


@pytest.mark.parametrize("width", [40, 60, 80, 150])
def test_the_training_summary_of_eight_opponents_keeps_every_figure_whole(width, monkeypatch):
    """domino-train's final table at 60 columns read "[0.40" / "9," / "0.929" / "]" (a tester's run)."""
    import domino_env.train.cli as cli

    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    monkeypatch.setattr(cli, "rich_console", lambda **kwargs: console)
    results = {name: {"rounds": 40, "win_rate": 0.275 + i / 100, "ci95_wilson": [0.16, 0.43 + i / 100],
                      "ci95_deal": [0.12, 0.431], "deals": 10, "parity": 0.25, "verdict": "above",
                      "mean_pips": 12.5 + i, "opponent_mean_pips": 20.25, "seat_rounds": 40,
                      "opponent_seat_rounds": 120} for i, name in enumerate(EIGHT)}  # fmt: skip
    print_summary(results, 4, "model[v2] vs the ladder")
    text = console.export_text()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= width
    words = text.split()
    for i in range(len(EIGHT)):
        assert f"{0.275 + i / 100:.3f}" in words and f"{0.43 + i / 100:.3f}]" in words and f"{12.5 + i:.2f}" in words


def test_no_verdict_when_every_episode_was_truncated():
    """None ended: the parity share is 0, and a win rate of 0 is not "parity" with it (a void
    round, which ended with no winner, still is: tests/train/test_tournament_summary.py)."""
    res = evaluate(["greedy", "random", "random"], rounds=6, num_players=3, seed=0, max_cycles=1, max_pip=9)
    assert [s.verdict for s in res.stats] == ["n/a", "n/a"] and res.stats[0].parity == 0.0
    played = evaluate(["greedy", "random", "random"], rounds=6, num_players=3, seed=0, max_pip=9)
    assert played.stats[0].parity > 0 and all(s.verdict != "n/a" for s in played.stats)


def test_a_model_folder_with_brackets_is_evaluated_and_written(tmp_path):
    """The tester's case, end to end: the table printed with the label as written, the JSON written."""
    model = tmp_path / "exp[" / "]y"
    shutil.copytree(ROOT / "checkpoints" / "mexican_train_4p_d12_action_scores", model)
    out = tmp_path / "r[v2].json"
    spec = f"ppo:{model}"
    proc = subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", "--agents", spec, "greedy", "greedy",
                           "greedy", "--rounds", "4", "--no-progress", "--json", str(out)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["agents"][0] == spec
    assert spec in proc.stdout and f"wrote {out}" in proc.stdout
