"""The learning curve (``train.plots.plot_learning_curve``) and what it is drawn from: a change of
the evaluation setting (a ``--resume`` with other ``--eval-opponents`` / ``--eval-rounds`` /
``--eval-seed`` / ``--partner``) breaks every line and is marked, with a legend entry saying what
changed (the evaluations of two ladders were one line, with no mark); the legends cover no point.

The figure drawn is kept (``plt.close`` replaced) and its artists read: the lines' data, the
vertical marks, the legends' texts and boxes.
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.train.plots import evaluation_setting, plot_learning_curve, setting_changes


def _result(win: float, pips: float, opp_pips: float, rounds: int = 200) -> dict:
    return {"win_rate": win, "ci95_deal": [win - 0.05, win + 0.05], "parity": 0.25, "mean_pips": pips,
            "opponent_mean_pips": opp_pips, "rounds": rounds}  # fmt: skip


def _entry(step: int, opponents, rounds: int = 200, seed: int | None = 1000, partner: str = "opponents") -> dict:
    entry = {"timesteps": step, "results": {o: _result(0.3 + 0.01 * k, 8.0 + k, 30.0 + k, rounds)
                                            for k, o in enumerate(opponents)}}  # fmt: skip
    if seed is not None:  # (None: an entry written before the ladder was kept)
        entry["ladder"] = {"opponents": list(opponents), "rounds": rounds, "seed": seed, "partner": partner}
    return entry


@pytest.fixture
def drawn(monkeypatch, tmp_path):
    """``drawn(history)``: the figure of ``history``'s curve, drawn and kept open."""
    import matplotlib.pyplot as plt

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)

    def draw(history):
        out = plot_learning_curve(history, tmp_path / "curve.png")
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        figures[-1].canvas.draw()
        return figures[-1]

    return draw


def _data_lines(ax):
    """The evaluations' lines of ``ax`` (label, xs) in drawing order, without the marks and the parity line."""
    return [(line.get_label(), [float(x) for x in line.get_xdata()]) for line in ax.lines
            if line.get_linestyle() not in ("-.", ":")]  # fmt: skip


def _marks(ax):
    return [(float(line.get_xdata()[0]), line.get_label()) for line in ax.lines if line.get_linestyle() == "-."]


def test_a_resume_with_other_opponents_and_rounds_breaks_the_lines_and_marks_the_change(drawn):
    history = [_entry(s, ["random", "greedy", "planner"]) for s in (100_000, 200_000, 300_000)]
    history += [_entry(s, ["random", "greedy"], rounds=400) for s in (400_000, 500_000)]
    fig = drawn(history)
    ax_w, ax_p = fig.axes
    first, then = [100_000, 200_000, 300_000], [400_000, 500_000]
    assert _data_lines(ax_w) == [("vs random", first), ("_", then), ("vs greedy", first), ("_", then),
                                 ("vs planner", first)]  # fmt: skip
    assert [ys for ys in (list(line.get_ydata()) for line in ax_w.lines[:2])] == [[0.3] * 3, [0.3] * 2]
    assert _data_lines(ax_p)[:4] == [("learner vs random", first), ("random seats", first), ("_", then), ("_", then)]
    label = "evaluations from 400k: opponents - planner, rounds 200 -> 400"
    assert _marks(ax_w) == [(400_000.0, label)] and _marks(ax_p) == [(400_000.0, label)]
    for ax in (ax_w, ax_p):
        assert label in [t.get_text() for t in ax.get_legend().get_texts()]
    # the CI bands break too: one band a setting for random and greedy, one for planner
    assert len(ax_w.collections) == 5


def test_older_entries_without_a_ladder_compare_the_rounds_their_results_played(drawn):
    history = [_entry(s, ["greedy"], seed=None) for s in (1000, 2000)] + [_entry(3000, ["greedy"], rounds=50, seed=None)]
    ax_w, _ = drawn(history).axes
    assert _data_lines(ax_w) == [("vs greedy", [1000, 2000]), ("_", [3000])]
    assert _marks(ax_w) == [(3000.0, "evaluations from 3k: rounds 200 -> 50")]


def test_the_seed_and_seating_are_changes_too_and_the_same_setting_is_one_line(drawn):
    history = [_entry(1000, ["greedy"]), _entry(2000, ["greedy"], seed=7), _entry(3000, ["greedy"], seed=7),
               _entry(4000, ["greedy"], seed=7, partner="learner")]  # fmt: skip
    assert setting_changes(history) == [(1, "seed 1000 -> 7"), (3, "seating opponents -> learner")]
    ax_w, _ = drawn(history).axes
    assert _data_lines(ax_w) == [("vs greedy", [1000]), ("_", [2000, 3000]), ("_", [4000])]
    # no change: one line an opponent, no mark (an entry with a ladder after one without: the same rounds)
    same = [_entry(1000, ["greedy", "random"], seed=None), _entry(2000, ["random", "greedy"]), _entry(3000, ["greedy", "random"])]
    assert setting_changes(same) == []
    ax_w, _ = drawn(same).axes
    assert _data_lines(ax_w) == [("vs greedy", [1000, 2000, 3000]), ("vs random", [1000, 2000, 3000])]
    assert _marks(ax_w) == []
    assert evaluation_setting(same[0]) == {"opponents": ["greedy", "random"], "rounds": 200, "seed": None, "seating": None}


def test_the_legends_cover_no_point(drawn):
    """Four opponents whose pips fill the panel from top to bottom at every step: the pips legend
    (eight entries, placed "best" inside the panel) covered points."""
    opponents = ["random", "greedy", "planner", "search"]
    history = []
    for k, step in enumerate(range(10_000, 110_000, 10_000)):
        entry = _entry(step, opponents)
        for i, opp in enumerate(opponents):
            r = entry["results"][opp]
            r["mean_pips"], r["opponent_mean_pips"] = 5.0 + 10 * i + k % 3, 10.0 + 10 * i - k % 3
            r["win_rate"] = 0.1 + 0.25 * i + 0.02 * (k % 3)
        history.append(entry)
    fig = drawn(history)
    for ax in fig.axes:
        box = ax.get_legend().get_window_extent()
        points = np.vstack([ax.transData.transform(line.get_xydata()) for line in ax.lines
                            if line.get_linestyle() not in ("-.", ":")])
        inside = [(x, y) for x, y in points if box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1]
        assert len(points) >= 40 and inside == [], (ax.get_ylabel(), len(inside))
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= fig.bbox.x1  # in the figure, not cut off


def test_an_older_entry_and_a_ladder_of_the_same_eval_rounds_not_a_multiple_of_the_seats_are_one_setting():
    """--eval-rounds 201 with 4 seats plays 204 rounds (whole deals): an entry written before the
    ladder was kept shows 204, the resumed run's ladder 201, the same measurements. Compared
    as 204 -> 201 they were marked as a change of rounds."""
    older = [_entry(s, ["greedy"], rounds=204, seed=None) for s in (1000, 2000)]  # (no ladder)
    resumed = _entry(3000, ["greedy"], rounds=204)
    resumed["ladder"]["rounds"] = 201
    assert setting_changes([*older, resumed]) == []
    bigger = _entry(4000, ["greedy"], rounds=404)
    bigger["ladder"]["rounds"] = 401
    assert setting_changes([*older, bigger]) == [(2, "rounds 204 -> 404")]
    assert setting_changes([resumed, bigger]) == [(1, "rounds 201 -> 401")]  # two ladders: as given


def test_an_opponent_named_with_dollar_signs_is_shown_as_written(drawn):
    """An agent's name may hold ``$`` (``ppo:PATH``); between two of them matplotlib read math,
    and ``a$x^$b`` crashed the drawing (ParseSyntaxException) instead of showing the name."""
    fig = drawn([_entry(1000, ["ppo:a$x^$b"]), _entry(2000, ["ppo:a$x^$b", "c$$"])])
    ax_w, ax_p = fig.axes
    assert _data_lines(ax_w)[0][0] == r"vs ppo:a\$x^\$b"
    assert _marks(ax_p) == [(2000.0, r"evaluations from 2k: opponents + c\$\$")]
