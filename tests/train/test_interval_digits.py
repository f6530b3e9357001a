"""An interval clear of parity whose bound printed as the parity share ("[0.500, 0.825] per deal
... (above parity 0.500)") gets the digits that show it differ, in the one formatter that
``domino-evaluate``'s tables, ``domino-train`` / ``domino-bc``'s final tables and ``domino-rllib``'s
evaluation line all print their intervals with."""

import argparse
import types

from domino_env.train.ladder import print_summary, summary_markdown
from domino_env.train.tournament_results import (
    AgentStats,
    EvaluationResult,
    deal_interval_text,
    interval_text,
)


def test_a_bound_clear_of_parity_shows_the_digits_that_make_it_differ():
    assert interval_text((0.5004, 0.825), 0.5) == "[0.5004, 0.825]"
    assert interval_text((0.50004, 0.825), 0.5) == "[0.50004, 0.825]"
    assert interval_text((0.2, 0.49996), 0.5) == "[0.200, 0.49996]"  # below: the upper bound
    assert interval_text((0.33334, 0.4), 1 / 3) == "[0.33334, 0.400]"  # 0.3333 would still read as 1/3
    # as many digits as it takes: a cap of 12 printed "[0.500000000000, 0.800]" beside "above parity"
    assert interval_text((0.5 + 1e-14, 0.8), 0.5) == "[0.50000000000001, 0.800]"
    assert interval_text((0.2, 0.5 - 1e-14), 0.5) == "[0.200, 0.49999999999999]"
    above = 0.5 + 2**-53  # the next float after parity: 0.5000000000000001110...
    assert interval_text((above, 0.8), 0.5) == "[0.5000000000000001, 0.800]"
    assert interval_text((5e-324, 0.2), 0.0).startswith("[0." + "0" * 323 + "5") and interval_text((5e-324, 0.2), 0.0).endswith(", 0.200]")
    # a bound on parity, or one inside the interval's side of it, keeps three decimals
    assert interval_text((0.5, 0.8), 0.5) == "[0.500, 0.800]"
    assert interval_text((0.49996, 0.8), 0.5) == "[0.500, 0.800]"
    assert interval_text((0.5004, 0.825)) == "[0.500, 0.825]"  # (no parity given: as before)
    assert deal_interval_text((0.5004, 0.825), 5, 0.5) == "[0.5004, 0.825]"
    assert deal_interval_text((0.5004, 0.825), 1, 0.5) == "n/a"


def _stats():
    return AgentStats(name="ppo", seats_per_table=1, seat_episodes=400, wins=300.0, win_rate=0.75,
                      ci95_wilson=(0.50049, 0.8), ci95_deal=(0.5004, 0.825), parity=0.5, verdict="above",
                      seat_rounds=400, round_wins=300.0, round_win_rate=0.75, mean_pips_per_round=3.0, deals=200)  # fmt: skip


def test_domino_evaluate_tables_print_the_digits():
    result = EvaluationResult(agents=["ppo", "random"], env_kwargs={"max_pip": 9, "preset": "domino_cubano"},
                              num_players=2, episode="round", seed=3, deals=200, episodes=400, rounds_played=400,
                              deal_seeds=list(range(200)), blocked_rounds=0, void_rounds=0, truncated_episodes=0,
                              stats=[_stats()])  # fmt: skip
    cells = {str(c.header): [str(x) for x in c.cells] for c in result.table().columns}
    assert cells["95% CI Wilson"] == ["[0.5005, 0.800]"] and cells["95% CI per deal"] == ["[0.5004, 0.825]"]
    assert "| [0.5005, 0.800] | [0.5004, 0.825] | 0.500 |" in result.markdown()


def _ladder_results():
    s = _stats()
    return {"random": {"win_rate": s.win_rate, "ci95_wilson": list(s.ci95_wilson), "ci95_deal": list(s.ci95_deal),
                       "deals": s.deals, "parity": 0.5, "verdict": "above", "mean_pips": 3.0, "seat_rounds": 400,
                       "opponent_win_rate": 0.25, "opponent_mean_pips": 9.0, "opponent_seat_rounds": 400,
                       "opponent_seats": 1, "rounds": 400}}  # fmt: skip


def test_the_training_final_tables_print_the_digits(capsys):
    assert "| [0.5005, 0.800] | [0.5004, 0.825] | 0.500 | above |" in summary_markdown(_ladder_results(), num_players=2)
    print_summary(_ladder_results(), 2, "final")
    out = capsys.readouterr().out
    assert "[0.5005, 0.800]" in out and "[0.5004, 0.825]" in out, out


def test_the_rllib_evaluation_line_prints_the_digits(monkeypatch, tmp_path, capsys):
    import domino_env.train.evaluate as evaluate_module
    from domino_env.train.rllib import evaluate_checkpoint

    stats = _stats()
    monkeypatch.setattr(evaluate_module, "evaluate", lambda agents, **kwargs: types.SimpleNamespace(
        stats_for=lambda label: stats, rounds_played=400))  # fmt: skip
    args = argparse.Namespace(eval_opponents=["greedy"], eval_rounds=400, seed=0, game="draw", progress=False)
    evaluate_checkpoint(tmp_path, args, {"game": "draw", "num_players": 2, "episode": "round", "reward": "outcome"})
    assert ("rllib vs greedy: win rate 0.750, 95% CI [0.5004, 0.825] per deal, [0.5005, 0.800] Wilson (above "
            "parity 0.500) over 400 rounds\n") in capsys.readouterr().out  # fmt: skip
