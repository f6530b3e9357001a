"""``domino_env.train.plots`` behaviour no other test pinned (found by mutation testing): which rows
:func:`_is_evaluation` accepts, how :func:`read_history` merges the two run files and titles the
curve, its exact refusals, :func:`_pips`' gaps, and ``main``'s default picture path."""

import json
import math

import pytest

from domino_env.train.plots import _is_evaluation, _pips, main, read_history

ROW = {"timesteps": 5, "results": {"greedy": {"win_rate": 0.5, "parity": 0.5, "ci95_deal": [0.4, 0.6],
                                              "mean_pips": 3.0, "opponent_mean_pips": 4.0}}}  # fmt: skip


@pytest.mark.parametrize(
    "row, ok",
    [(ROW, True), ({"timesteps": 5, "results": {"a": {**ROW["results"]["greedy"], "win_rate": 1}}}, True),
     # a row missing a number the curve reads was a KeyError traceback while drawing (a tester's find)
     ({"timesteps": 5, "results": {"a": {"win_rate": 1}}}, False),
     *(({"timesteps": 5, "results": {"a": {k: v for k, v in ROW["results"]["greedy"].items() if k != key}}}, False)
       for key in ("win_rate", "parity", "ci95_deal", "mean_pips", "opponent_mean_pips")),
     ({"timesteps": 5, "results": {"a": {**ROW["results"]["greedy"], "ci95_deal": [0.4]}}}, False),
     ({"timesteps": 5, "results": {"a": {**ROW["results"]["greedy"], "mean_pips": True}}}, False),
     ({"timesteps": True, "results": ROW["results"]}, False),
     ([5], False), ({"timesteps": "5", "results": ROW["results"]}, False),
     ({"timesteps": 5.0, "results": ROW["results"]}, False), ({"results": ROW["results"]}, False),
     ({"timesteps": 5}, False), ({"timesteps": 5, "results": []}, False), ({"timesteps": 5, "results": {}}, False),
     ({"timesteps": 5, "results": {"a": 3}}, False), ({"timesteps": 5, "results": {"a": {"win_rate": "1"}}}, False),
     ({"timesteps": 5, "results": {"a": ROW["results"]["greedy"], "b": {}}}, False)],
)  # fmt: skip
def test_an_evaluation_is_int_steps_and_a_win_rate_per_opponent(row, ok):
    assert _is_evaluation(row) is ok


def _run(tmp_path, **files):
    for name, data in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(data))
    return tmp_path


def test_evaluations_json_wins_over_metadatas_and_the_title_names_the_rules(tmp_path):
    later = {**ROW, "timesteps": 9}
    kw = {"num_players": 2, "max_pip": 9, "preset": "classic"}
    run = _run(tmp_path, metadata={"evaluations": [ROW], "env_kwargs": kw}, evaluations=[ROW, later])
    assert read_history(run) == ([ROW, later], "MaskablePPO, 2 players, double-9, classic")


def test_metadata_alone_gives_the_history_and_a_title_only_with_its_rules(tmp_path):
    assert read_history(_run(tmp_path, metadata={"evaluations": [ROW]})) == ([ROW], "")
    assert read_history(_run(tmp_path, metadata={"evaluations": [ROW], "env_kwargs": [2, 9]})) == ([ROW], "")


def test_a_metadata_that_is_no_object_counts_as_none(tmp_path):
    assert read_history(_run(tmp_path, metadata=[ROW], evaluations=[ROW])) == ([ROW], "")
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "metadata.json").write_text("[1]")
    with pytest.raises(ValueError) as err:
        read_history(alone)
    assert str(err.value) == f"{alone}: neither evaluations.json nor metadata.json (not a domino-train run folder)"


@pytest.mark.parametrize(
    "meta, why",
    [({"args": {"eval_freq": 0}, "evaluations": []}, "the run was trained with --eval-freq 0"),
     ({"args": {"eval_freq": 1}, "evaluations": []}, "a domino-bc model folder, or a run stopped before its first evaluation"),
     ({"args": 0, "evaluations": [ROW, {"timesteps": 5}]}, "a domino-bc model folder, or a run stopped before its first evaluation"),
     ({"args": {"eval_freq": 0}, "evaluations": {"0": ROW}}, "the run was trained with --eval-freq 0")],
)  # fmt: skip
def test_no_evaluation_to_draw_says_why(tmp_path, meta, why):
    with pytest.raises(ValueError) as err:
        read_history(_run(tmp_path, metadata=meta))
    assert str(err.value) == f"{tmp_path}: no periodic evaluations to draw ({why})"


def test_pips_are_a_gap_where_those_seats_played_no_round():
    result = {"mean_pips": 3, "seat_rounds": 2, "opponent_mean_pips": 4.5, "opponent_seat_rounds": 0}
    assert _pips(result, "") == 3.0 and isinstance(_pips(result, ""), float)
    assert math.isnan(_pips(result, "opponent_"))
    assert _pips({"mean_pips": 7}, "") == 7.0  # older runs: no count, a round played


def test_the_curve_goes_into_the_run_folder_unless_told(tmp_path, capsys):
    run = _run(tmp_path, evaluations=[ROW, {**ROW, "timesteps": 2_000_000}])
    main([str(run)])
    out = run / "learning_curve.png"
    assert capsys.readouterr().out == f"{out}\n"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_run_file_of_exactly_the_limit_is_read(tmp_path, monkeypatch):
    from domino_env.train import plots

    text = json.dumps([ROW])
    (tmp_path / "evaluations.json").write_text(text)
    monkeypatch.setattr(plots, "MAX_RUN_FILE_BYTES", len(text))
    assert read_history(tmp_path) == ([ROW], "")
    monkeypatch.setattr(plots, "MAX_RUN_FILE_BYTES", len(text) - 1)
    with pytest.raises(ValueError, match="holds more than 0 MiB, not a run's evaluations.json"):
        read_history(tmp_path)


def test_a_curve_that_cannot_be_written_names_the_systems_reason(tmp_path, monkeypatch, capsys):
    import errno

    from domino_env.train import plots

    def full(history, out, title=""):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(plots, "plot_learning_curve", full)
    run = _run(tmp_path, evaluations=[ROW])
    with pytest.raises(SystemExit) as done:
        main([str(run)])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert f"error: --out {run / 'learning_curve.png'}: could not be written (No space left on device) (" in err


def _with(key, value):
    return {**ROW, "results": {"greedy": {**ROW["results"]["greedy"], key: value}}}


@pytest.mark.parametrize(
    "row, field",
    [({**ROW, "timesteps": 10**30}, "timesteps is not a step count from 0 to 2**63 - 1"),
     ({**ROW, "timesteps": 2**63}, "timesteps is not a step count from 0 to 2**63 - 1"),
     ({**ROW, "timesteps": -1}, "timesteps is not a step count from 0 to 2**63 - 1"),
     (_with("ci95_deal", [0, 10**30]), 'results["greedy"]["ci95_deal"] holds a number outside -2**63 to 2**63 - 1'),
     (_with("mean_pips", 10**400), 'results["greedy"]["mean_pips"] holds a number outside -2**63 to 2**63 - 1'),
     (_with("opponent_mean_pips", -(2**63) - 1), 'results["greedy"]["opponent_mean_pips"] holds a number outside'),
     (_with("win_rate", 2**63), 'results["greedy"]["win_rate"] holds a number outside'),
     (_with("parity", 2**63), 'results["greedy"]["parity"] holds a number outside'),
     # finite floats past the bound: 9e307 was a matplotlib LinAlgError, 8e307 / -8e307 pips a ValueError
     (_with("win_rate", 9e307), 'results["greedy"]["win_rate"] holds a number outside -2**63 to 2**63 - 1'),
     (_with("ci95_deal", [-1.7e308, 0.5]), 'results["greedy"]["ci95_deal"] holds a number outside'),
     (_with("mean_pips", 8e307), 'results["greedy"]["mean_pips"] holds a number outside'),
     (_with("opponent_mean_pips", -(2.0**64)), 'results["greedy"]["opponent_mean_pips"] holds a number outside')],
)  # fmt: skip
def test_a_number_the_curve_cannot_draw_names_the_file_and_the_field(tmp_path, row, field):
    """``timesteps`` 10**30 in a hand-made file was a ``TypeError`` traceback from matplotlib
    (numpy held it as an object), a mean pips of 10**400 an ``OverflowError``."""
    run = _run(tmp_path, evaluations=[ROW, row])
    with pytest.raises(ValueError) as err:
        read_history(run)
    assert str(err.value).startswith(f"{run / 'evaluations.json'}: evaluation 2's {field}")
    (run / "evaluations.json").unlink()
    with pytest.raises(ValueError) as err:
        read_history(_run(tmp_path, metadata={"evaluations": [row]}))
    assert str(err.value).startswith(f"{run / 'metadata.json'}: evaluation 1's {field}")


def test_the_largest_numbers_the_curve_takes_are_drawn(tmp_path, capsys):
    edge = {"timesteps": 2**63 - 1, "results": {"greedy": {"win_rate": 1, "parity": 0, "ci95_deal": [-(2**63), 2**63 - 1],
                                                           "mean_pips": 2**63 - 1, "opponent_mean_pips": -(2**63)}}}
    run = _run(tmp_path, evaluations=[{**ROW, "timesteps": 0}, edge])
    assert read_history(run) == ([{**ROW, "timesteps": 0}, edge], "")
    main([str(run)])
    assert (run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_floats_up_to_the_bound_and_infinite_or_nan_ones_are_drawn(tmp_path, capsys):
    """The float bound refuses no number the curve draws: 9.2e18 either way (below 2**63), inf
    (off the panel) and NaN (a gap)."""
    edge = _with("win_rate", 9.2e18)
    edge["results"]["greedy"].update(ci95_deal=[-9.2e18, float("inf")], mean_pips=float("nan"), opponent_mean_pips=-9.2e18)
    run = _run(tmp_path, evaluations=[ROW, edge])
    assert read_history(run)[0][1]["results"]["greedy"]["ci95_deal"] == [-9.2e18, float("inf")]
    main([str(run)])
    assert (run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
