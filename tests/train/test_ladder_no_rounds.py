"""Ladder evaluations where a seat played no round (every episode truncated at ``max_cycles``,
reachable from Python through the rules): the learner's and the X seats' mean pips were printed
as 0.00, the best possible figure, in the tables, logs and learning curve; they are "n/a" (a gap
in the curve, no TensorBoard point) and the results carry the seat rounds behind each mean."""

import json
import math

from domino_env.agents.base import make_agent
from domino_env.train.callbacks import Schedule, StopSignals, TrainingCallback
from domino_env.train.ladder import evaluate_vs_ladder, pips_text, print_summary, summary_markdown
from domino_env.train.plots import _pips
from domino_env.train.run_folder import RunFolder

RULES = {"num_players": 4, "max_pip": 12}


def _results(max_cycles):
    return evaluate_vs_ladder(make_agent("greedy"), {**RULES, "max_cycles": max_cycles}, ["random"], 8, 0)


def test_a_truncated_ladder_says_no_pips_where_no_round_was_played(capsys):
    r = _results(2)["random"]  # two cycles: no Mexican Train round ends in 8 actions
    assert (r["seat_rounds"], r["opponent_seat_rounds"], r["mean_pips"], r["opponent_mean_pips"]) == (0, 0, 0.0, 0.0)
    row = summary_markdown({"random": r}).splitlines()[2]
    assert row.endswith("| n/a | n/a | n/a | 0.000 |"), row  # none ended: no verdict
    print_summary({"random": r}, 4, "title")
    line = next(x for x in capsys.readouterr().out.splitlines() if "3 x random" in x)
    assert line.replace(" ", "").endswith("│n/a│n/a│n/a│"), line
    assert math.isnan(_pips(r, "")) and math.isnan(_pips(r, "opponent_"))


def test_played_rounds_keep_their_figures_and_older_results_too():
    r = _results(10_000)["random"]
    assert r["seat_rounds"] == 8 and r["opponent_seat_rounds"] == 24  # 8 rounds x 3 random seats
    assert pips_text(r) == f"{r['mean_pips']:.2f}" and r["mean_pips"] > 0
    assert pips_text(r, "opponent", 1) == f"{r['opponent_mean_pips']:.1f}"
    old = {k: v for k, v in r.items() if k not in ("seat_rounds", "opponent_seat_rounds")}  # an older run's
    assert pips_text(old) == f"{r['mean_pips']:.2f}" and _pips(old, "opponent_") == r["opponent_mean_pips"]


class _Logger:
    def __init__(self):
        self.values = {}

    def record(self, key, value):
        self.values[key] = value

    def dump(self, step):
        pass


class _Model:
    def __init__(self):
        self.logger = _Logger()  # (SB3's callbacks log through their model's logger)

    def save(self, file):
        file.write(b"model")


def test_training_logs_no_pips_point_and_says_n_a_for_seats_without_a_round(tmp_path, capsys):
    schedule = Schedule(rules={**RULES, "max_cycles": 2}, game="mexican_train", episode="round", eval_freq=1,
                        eval_rounds=8, eval_opponents=["random"], eval_seed=0, self_play=0.0, snapshot_freq=1,
                        max_snapshots=1, start=0.0, deadline=None, time_limit=None)  # fmt: skip
    cb = TrainingCallback(schedule, RunFolder(tmp_path, {}).create(), None, StopSignals())
    cb.model, cb.agent = _Model(), lambda: make_agent("greedy")
    cb.run_evaluation()
    assert set(cb.logger.values) == {"eval/win_rate_vs_random", "eval/mean_win_rate"}
    assert "random 0.000 (n/a vs n/a pips)" in capsys.readouterr().err
    saved = json.loads((tmp_path / "evaluations.json").read_text())[0]["results"]["random"]
    assert (saved["seat_rounds"], saved["opponent_seat_rounds"]) == (0, 0)


def test_the_curve_draws_a_point_between_gaps_on_the_steps_axis(tmp_path, monkeypatch):
    """A pips point between two evaluations without rounds (NaN gaps) was invisible on the
    dashed, markerless line of the ladder seats, and the pips panel's axis shrank to that point."""
    import matplotlib.pyplot as plt

    from domino_env.train.plots import plot_learning_curve

    def evaluation(step, played):
        return {"timesteps": step, "results": {"random": {
            "win_rate": 0.3, "ci95_deal": [0.2, 0.4], "parity": 0.25, "mean_pips": 10.0 * bool(played),
            "seat_rounds": played, "opponent_mean_pips": 14.0 * bool(played), "opponent_seat_rounds": 3 * played}}}

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)  # keep the figure to look at it
    plot_learning_curve([evaluation(0, 0), evaluation(100, 8), evaluation(200, 0)], tmp_path / "c.png")
    ax_w, ax_p = figures[0].axes
    assert ax_p.get_xlim() == ax_w.get_xlim() and ax_w.get_xlim()[1] >= 200
    for line in ax_p.lines:
        ys = list(line.get_ydata())
        assert math.isnan(ys[0]) and math.isnan(ys[2]) and ys[1] in (10.0, 14.0)
        assert line.get_marker() not in (None, "", "None")
