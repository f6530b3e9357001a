"""``domino_env.train.tournament_results``: what a mutation-testing pass (2026-12) found no test
for: a truncated episode's credit counted nowhere (neither the win rate nor the parity share) even
when its record carries some, and the defaults of the result dataclasses built by hand. Every
expected figure is worked out by hand or with scipy.
"""

from __future__ import annotations

import pytest
from scipy import stats

from domino_env.train.tournament_results import (
    AgentStats,
    EvaluationResult,
    GameRecord,
    summarize,
    win_credit,
)


def _wilson(k, n):
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return (ci.low, ci.high)


def test_win_credit_is_zero_for_a_truncated_episode_whatever_its_record_holds():
    """The win rate gives a truncated episode no credit, also when its record carries some (a whole
    game cut off at max_cycles keeps its round credit; a hand-made or older record its game
    credit). Kills: ``truncated or credit is None`` -> ``and``."""
    assert win_credit([1.0, 0.0], True, 0) == 0.0
    assert win_credit([0.5, 0.5], True, 1) == 0.0
    assert win_credit(None, False, 0) == 0.0
    assert win_credit([0.25, 0.75], False, 1) == 0.75


def test_a_truncated_episode_with_credit_counts_in_neither_the_wins_nor_the_parity():
    """Whole games, 2 players, 2 deals x 2 rotations. Three games end: a wins the two of deal 0
    (both seats) and b the first of deal 1; the fourth is truncated but its record says a won
    (game_credit [0, 1] with a at seat 1). The parity share counts the 3 finished games: 3/4 / 2 =
    0.375; a has 2 wins in 4 seat-games (Wilson 2 of 4), b 1 of 4; per deal a has 1.0 and 0.0.
    Kills: the truncated episode's credit added to the parity share (``and not rec.truncated`` ->
    ``or``) or to a's wins."""
    def game(deal, rotation, credit, truncated=False):
        seats = [0, 1] if rotation == 0 else [1, 0]
        return GameRecord(deal=deal, rotation=rotation, seed=deal, seats=seats, rounds=3,
                          round_credit=[1.0, 2.0], pips=[4, 6], game_credit=credit,
                          scores=None if truncated else [0, 0], truncated=truncated, seat_rounds=[3, 3])  # fmt: skip

    records = [game(0, 0, [1.0, 0.0]), game(0, 1, [0.0, 1.0]), game(1, 0, [0.0, 1.0]),
               game(1, 1, [0.0, 1.0], truncated=True)]  # fmt: skip
    a, b = summarize(records, ["a", "b"], 2, episode="game")
    assert a.parity == b.parity == pytest.approx(0.375, abs=1e-12)
    assert (a.wins, a.seat_episodes, a.win_rate) == (2.0, 4, 0.5)
    assert (b.wins, b.win_rate) == (1.0, 0.25)
    assert a.ci95_wilson == pytest.approx(_wilson(2, 4), abs=1e-12)
    assert b.ci95_wilson == pytest.approx(_wilson(1, 4), abs=1e-12)
    assert a.ci95_deal == (0.0, 1.0)  # deals 1.0 and 0.0: 0.5 +- 12.7 * 0.5, clipped
    # rounds: a sat at seat 0, 1, 0, 1: round credit 1 + 2 + 1 + 2 over 12 rounds, truncated or not
    assert (a.round_wins, a.seat_rounds) == (6.0, 12)


def test_a_round_tournament_gives_a_truncated_round_no_credit_in_the_parity():
    """Rounds, 2 players, 2 deals x 2 rotations: a wins three rounds; the fourth is truncated, its
    record holding credit [0.5, 0.5] all the same. The credits of the 3 ended rounds sum to 3 over
    4 episodes: parity 0.375; a: 3 wins of 4, b: 0 (the truncated half is no one's)."""
    def rnd(deal, rotation, credit, truncated=False):
        seats = [0, 1] if rotation == 0 else [1, 0]
        return GameRecord(deal=deal, rotation=rotation, seed=deal, seats=seats, rounds=1,
                          round_credit=credit, pips=[0, 0], truncated=truncated)  # fmt: skip

    records = [rnd(0, 0, [1.0, 0.0]), rnd(0, 1, [0.0, 1.0]), rnd(1, 0, [1.0, 0.0]),
               rnd(1, 1, [0.5, 0.5], truncated=True)]  # fmt: skip
    a, b = summarize(records, ["a", "b"], 2)
    assert a.parity == pytest.approx(0.375, abs=1e-12)
    assert (a.wins, b.wins) == (3.0, 0.0)
    assert a.ci95_wilson == pytest.approx(_wilson(3, 4), abs=1e-12)


def _stats(**over):
    base = dict(name="x", seats_per_table=1, seat_episodes=4, wins=2.0, win_rate=0.5, ci95_wilson=(0.15, 0.85),
                ci95_deal=(0.0, 1.0), parity=0.5, verdict="parity", seat_rounds=4, round_wins=2.0,
                round_win_rate=0.5, mean_pips_per_round=3.0)  # fmt: skip
    return AgentStats(**{**base, **over})


def test_the_defaults_of_a_result_built_by_hand():
    """An AgentStats without ``deals`` has played none (its per-deal interval "n/a"); an
    EvaluationResult without the run's figures took 0.0 seconds in 1 process, annulled and resumed
    nothing; what to_dict writes. Kills: each of these defaults changed."""
    s = _stats()
    assert s.deals == 0 and s.mean_game_score is None
    res = EvaluationResult(agents=["x", "y"], env_kwargs={"max_pip": 6, "preset": "block"}, num_players=2,
                           episode="round", seed=0, deals=2, episodes=4, rounds_played=4, deal_seeds=[1, 2],
                           blocked_rounds=0, void_rounds=0, truncated_episodes=0, stats=[s])  # fmt: skip
    d = res.to_dict()
    assert (d["seconds"], d["workers"], d["annulled_rounds"], d["resumed_deals"]) == (0.0, 1, 0, 0)
    assert (d["game"], d["teams"]) == ("mexican_train", False) and "records" not in d
    assert d["stats"][0]["deals"] == 0
    assert res.to_dict(records=True)["records"] == []
    assert "| [0.150, 0.850] | n/a |" in res.markdown()
