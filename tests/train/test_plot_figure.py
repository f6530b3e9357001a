"""What the learning curve's figure shows beyond its lines' data (found by mutation testing of
``train.plots.plot_learning_curve``): one colour an opponent, the parity line of the latest
evaluation, the axes' labels, range and step ticks, the title, the two panels side by side, their
height kept as the legends grow, a path given as text (its folders made), and the figure closed once
saved."""

from __future__ import annotations

import pytest
from matplotlib.colors import to_rgba

from domino_env.train.plots import plot_learning_curve


def _entry(step: int, opponents, parity: float = 0.25, rounds: int = 200) -> dict:
    return {"timesteps": step, "ladder": {"opponents": list(opponents), "rounds": rounds, "seed": 1, "partner": "opponents"},
            "results": {o: {"win_rate": 0.3 + 0.1 * k, "ci95_deal": [0.2 + 0.1 * k, 0.4 + 0.1 * k], "parity": parity,
                            "mean_pips": 8.0 + k, "opponent_mean_pips": 30.0 + k, "rounds": rounds}
                        for k, o in enumerate(opponents)}}  # fmt: skip


@pytest.fixture
def drawn(monkeypatch, tmp_path):
    """``drawn(history, title="")``: the figure of ``history``'s curve, drawn and kept open."""
    import matplotlib.pyplot as plt

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)

    def draw(history, title=""):
        plot_learning_curve(history, tmp_path / "curve.png", title=title)
        figures[-1].canvas.draw()
        return figures[-1]

    return draw


def test_each_opponent_keeps_one_colour_in_both_panels_and_across_a_change(drawn):
    history = [_entry(s, ["random", "greedy"]) for s in (1000, 2000)] + [_entry(3000, ["random", "greedy"], rounds=400)]
    ax_w, ax_p = drawn(history).axes
    lines = [line for ax in (ax_w, ax_p) for line in ax.lines if line.get_linestyle() not in ("-.", ":")]
    assert len(lines) == 12  # 2 opponents x 2 settings x (win rate, learner pips, opponents' pips)
    for line in lines:
        opponent = 0 if line.get_xydata()[0][1] in (0.3, 8.0, 30.0) else 1
        assert to_rgba(line.get_color())[:3] == to_rgba(f"C{opponent}")[:3], line.get_label()
    bands = [band.get_facecolor()[0][:3] for band in ax_w.collections]
    assert [tuple(b) for b in bands] == [to_rgba(c)[:3] for c in ("C0", "C0", "C1", "C1")]
    marks = [line for ax in (ax_w, ax_p) for line in ax.lines if line.get_linestyle() == "-."]
    assert len(marks) == 2 and all(to_rgba(m.get_color()) == to_rgba("black") for m in marks)  # no opponent's colour


def test_the_win_rate_band_spans_each_evaluations_95_ci(drawn):
    history = [_entry(1000, ["greedy"]), _entry(2000, ["greedy"])]
    history[1]["results"]["greedy"]["ci95_deal"] = [0.15, 0.55]
    ax_w, _ = drawn(history).axes
    (band,) = ax_w.collections
    corners = {(round(float(x), 6), round(float(y), 6)) for x, y in band.get_paths()[0].vertices}
    assert corners == {(1000.0, 0.2), (2000.0, 0.15), (2000.0, 0.55), (1000.0, 0.4)}


def test_the_parity_line_is_the_latest_evaluations(drawn):
    history = [_entry(1000, ["greedy"], parity=0.5), _entry(2000, ["greedy"], parity=0.4),
               _entry(3000, ["greedy", "random"], parity=1 / 3)]  # fmt: skip
    ax_w, ax_p = drawn(history).axes
    parity = [line for line in ax_w.lines if line.get_linestyle() == ":"]
    assert [(list(line.get_ydata()), line.get_label()) for line in parity] == [([1 / 3, 1 / 3], "parity 0.33")]
    assert to_rgba(parity[0].get_color()) == to_rgba("grey")  # no opponent's colour
    assert "parity 0.33" in [t.get_text() for t in ax_w.get_legend().get_texts()]
    assert [line for line in ax_p.lines if line.get_linestyle() == ":"] == []


def test_the_axes_are_labelled_the_win_rate_spans_0_to_1_and_steps_read_k_and_m(drawn):
    fig = drawn([_entry(250_000, ["greedy"]), _entry(1_500_000, ["greedy"])], title="MaskablePPO, 4 players")
    ax_w, ax_p = fig.axes
    assert ax_w.get_ylabel() == "win rate (band: 95% CI per deal)"
    assert ax_p.get_ylabel() == "mean pips left per round (lower is better)"
    assert ax_w.get_xlabel() == ax_p.get_xlabel() == "training steps (learner decisions)"
    assert ax_w.get_ylim() == (0, 1)
    for ax in (ax_w, ax_p):
        formatter = ax.xaxis.get_major_formatter()
        assert [formatter(x, 0) for x in (250_000, 1_500_000)] == ["250k", "1.5M"]
    assert fig._suptitle is not None and fig._suptitle.get_text() == "MaskablePPO, 4 players"
    assert drawn([_entry(1000, ["greedy"])])._suptitle is None  # no title: none drawn


def test_the_panels_sit_side_by_side_on_one_steps_axis(drawn):
    ax_w, ax_p = drawn([_entry(1000, ["greedy"]), _entry(2000, ["greedy"])]).axes
    w, p = ax_w.get_position(), ax_p.get_position()
    assert w.x1 < p.x0 and w.y0 == pytest.approx(p.y0) and w.y1 == pytest.approx(p.y1)
    ax_w.set_xlim(0, 5000)
    assert ax_p.get_xlim() == (0, 5000)


def test_the_panels_keep_their_height_as_the_legends_grow(drawn):
    """The legends' rows below the panels make the figure taller: a curve of six opponents and two
    changes of setting (14 entries in the pips legend, 7 rows) has panels as high as a curve of
    one opponent (2 entries, 1 row)."""
    def panel_height(fig):
        return fig.axes[0].get_position().height * fig.get_size_inches()[1]

    single = drawn([_entry(1000, ["greedy"]), _entry(2000, ["greedy"])])
    one = panel_height(single)
    many = ["random", "greedy", "planner", "search", "ppo:a", "ppo:b"]
    six = drawn([_entry(1000, many), _entry(2000, many, rounds=400), _entry(3000, many[:5])])
    # a row for two entries of the longer legend (the pips legend: two an opponent, one a change)
    assert single.get_size_inches()[1] == pytest.approx(4.2 + 0.2 * 1)
    assert six.get_size_inches()[1] == pytest.approx(4.2 + 0.2 * 7)
    assert panel_height(six) == pytest.approx(one, rel=0.05)


def test_a_path_given_as_text_in_new_folders_is_written_and_returned_as_a_path(tmp_path):
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    out = plot_learning_curve([_entry(1000, ["greedy"])], str(tmp_path / "new" / "runs" / "curve.png"))
    assert out == tmp_path / "new" / "runs" / "curve.png" and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plt.get_fignums() == before  # the figure is closed once saved (a long run draws one an evaluation)


def test_the_legends_sit_centred_below_their_panels(drawn):
    fig = drawn([_entry(1000, ["random", "greedy"]), _entry(2000, ["random", "greedy"], rounds=400)])
    for ax in fig.axes:
        box, panel = ax.get_legend().get_window_extent(), ax.get_window_extent()
        assert box.y1 < panel.y0  # under the panel (its tick labels and axis label between)
        assert (box.x0 + box.x1) / 2 == pytest.approx((panel.x0 + panel.x1) / 2, abs=1)
