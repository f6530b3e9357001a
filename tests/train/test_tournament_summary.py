"""``summarize`` (``domino_env.train.tournament_results``) on records written here by hand, every
figure computed by hand or with scipy: the parity share of whole games (one game credit per
finished game, however many rounds it took) and of no episodes at all. Written to kill mutants
that the other tests let live (a mutation-testing pass, 2026-12).
"""

from __future__ import annotations

import pytest
from scipy import stats

from domino_env.train.tournament_results import GameRecord, summarize


def _game(deal, rotation, game_credit, rounds, round_credit, pips, scores, truncated=False):
    seats = [0, 1] if rotation == 0 else [1, 0]
    return GameRecord(deal=deal, rotation=rotation, seed=100 + deal, seats=seats, rounds=rounds,
                      round_credit=round_credit, pips=pips, game_credit=game_credit, scores=scores,
                      truncated=truncated, seat_rounds=[rounds, rounds])  # fmt: skip


def test_the_parity_share_of_whole_games_counts_finished_games_not_rounds():
    """2 players, 2 deals x 2 rotations of whole games of 5 rounds each; three finish (a wins two
    of them, b one), one is truncated (no game credit): the game credits sum to 3 over 4 games,
    so parity is 3/4 / 2 = 0.375 (not divided by the 5 rounds a game took). a: game wins 2 of 4
    seat-games, win rate 0.5, Wilson 2 of 4; per deal 1.0 and 0.0 (t interval over two deal
    means: 0.5 +- 12.706 * 0.5, clipped to [0, 1]); round wins 11 of 20; pips 30 over 20 rounds;
    mean score over its 3 finished games (a truncated game has no final score)."""
    records = [
        _game(0, 0, [1.0, 0.0], 5, [4.0, 1.0], [5, 20], [10, 60]),  # a at seat 0
        _game(0, 1, [0.0, 1.0], 5, [2.0, 3.0], [25, 5], [70, 20]),  # a at seat 1
        _game(1, 0, [0.0, 1.0], 5, [1.0, 4.0], [10, 0], [90, 15]),
        _game(1, 1, None, 5, [1.0, 3.0], [10, 0], None, truncated=True),
    ]
    a, b = summarize(records, ["a", "b"], 2, episode="game")
    assert a.parity == b.parity == pytest.approx(0.375, abs=1e-12)
    assert (a.wins, a.seat_episodes, a.win_rate) == (2.0, 4, 0.5)
    assert (b.wins, b.win_rate) == (1.0, 0.25)
    ci = stats.binomtest(2, 4).proportion_ci(confidence_level=0.95, method="wilson")
    assert a.ci95_wilson == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert a.ci95_deal == (0.0, 1.0) and a.deals == 2
    assert (a.round_wins, a.seat_rounds, a.round_win_rate) == (11.0, 20, 0.55)
    assert a.mean_pips_per_round == pytest.approx((5 + 5 + 10 + 0) / 20)
    assert a.mean_game_score == pytest.approx((10 + 20 + 90) / 3)
    assert a.verdict == b.verdict == "parity"


def test_a_round_tournament_with_a_void_round_has_its_parity_below_one_over_p():
    """Rounds (2 players, 2 deals x 2 rotations): one void round gives no credit, so the credits
    sum to 3 over 4 rounds and parity is 0.375; a wins every round it can (3 of 4)."""
    def rnd(deal, rotation, credit):
        seats = [0, 1] if rotation == 0 else [1, 0]
        return GameRecord(deal=deal, rotation=rotation, seed=deal, seats=seats, rounds=1, round_credit=credit,
                          pips=[0, 0], blocked=int(credit == [0.0, 0.0]), void=int(credit == [0.0, 0.0]))  # fmt: skip

    records = [rnd(0, 0, [1.0, 0.0]), rnd(0, 1, [0.0, 1.0]), rnd(1, 0, [1.0, 0.0]), rnd(1, 1, [0.0, 0.0])]
    a, b = summarize(records, ["a", "b"], 2)
    assert a.parity == pytest.approx(0.375, abs=1e-12)
    assert (a.wins, a.win_rate, b.wins) == (3.0, 0.75, 0.0)
    # per deal: 1.0 and 0.5; t interval 0.75 +- 12.706205 * 0.25 (sd 0.35355 / sqrt 2), clipped
    assert a.ci95_deal == (0.0, 1.0)


def test_no_episodes_give_the_parity_share_one_over_the_players():
    """Nothing played: parity 1/P (not P), no interval, no verdict."""
    stats_ = summarize([], ["a", "b", "a"], 3)
    assert [s.name for s in stats_] == ["a", "b"]
    assert all(s.parity == pytest.approx(1 / 3, abs=1e-15) for s in stats_)
    assert all(s.verdict == "n/a" and s.ci95_wilson == (0.0, 1.0) and s.seat_episodes == 0 for s in stats_)
    assert all(s.win_rate == 0.0 and s.wins == 0.0 for s in stats_)
    assert all(s.round_win_rate == 0.0 and s.mean_pips_per_round == 0.0 and s.mean_game_score is None for s in stats_)
    assert all(s.mean_game_score is None for s in summarize([], ["a", "b"], 2, episode="game"))
    assert stats_[0].seats_per_table == 2


def test_a_table_where_no_one_won_is_at_parity_not_above_it():
    """Every round of 2 deals void (blocked, no winner): parity is 0 and every interval starts at
    0, which is not above it. Kills: ``min(...) > parity`` -> ``>=`` (every agent "above")."""
    records = [GameRecord(deal=d, rotation=r, seed=d, seats=[0, 1] if r == 0 else [1, 0], rounds=1,
                          round_credit=[0.0, 0.0], pips=[3, 4], blocked=1, void=1)
               for d in range(2) for r in range(2)]  # fmt: skip
    a, b = summarize(records, ["a", "b"], 2)
    assert a.parity == 0.0 and (a.wins, b.wins) == (0.0, 0.0)
    assert a.ci95_wilson[0] == 0.0 and a.ci95_deal[0] == 0.0
    assert a.verdict == b.verdict == "parity"


def _rounds(credits_a):
    """2-player round records, one per (deal, rotation): ``credits_a[d][r]`` is a's round credit in
    rotation r of deal d (a at seat r), b gets the rest (a tie is 0.5 each)."""
    out = []
    for d, pair in enumerate(credits_a):
        for r, c in enumerate(pair):
            credit = [c, 1.0 - c] if r == 0 else [1.0 - c, c]
            out.append(GameRecord(deal=d, rotation=r, seed=d, seats=[0, 1] if r == 0 else [1, 0], rounds=1,
                                  round_credit=credit, pips=[0, 0]))  # fmt: skip
    return out


def test_above_or_below_parity_needs_both_lower_or_both_upper_bounds_past_it():
    """The verdict is "above" only when both intervals' lower bounds clear the parity share
    (0.5), "below" only when both upper bounds do. a wins all 4 rounds of 2 deals: Wilson 4 of 4
    is [0.510, 1] but the per-deal interval, Wilson 2 of 2, [0.342, 1]: at parity; b's [0, 0.490]
    and [0, 0.658]: at parity. In 4 deals a wins one rotation and ties the other (0.75) three
    times and wins both once: Wilson 6.5 of 8 is [0.467, 0.955], the t interval over the deals
    [0.614, 1]: at parity; b: [0.045, 0.533] and [0, 0.386]: at parity. Kills: a lower bound
    read as the upper one (or the reverse) in either test."""
    a, b = summarize(_rounds([(1.0, 1.0), (1.0, 1.0)]), ["a", "b"], 2)
    assert a.ci95_wilson[0] == pytest.approx(0.51011, abs=1e-5) and a.ci95_deal[0] == pytest.approx(0.34238, abs=1e-5)
    assert b.ci95_wilson[1] == pytest.approx(0.48989, abs=1e-5) and b.ci95_deal[1] == pytest.approx(0.65762, abs=1e-5)
    assert a.parity == 0.5 and a.verdict == b.verdict == "parity"
    a, b = summarize(_rounds([(1.0, 0.5)] * 3 + [(1.0, 1.0)]), ["a", "b"], 2)
    assert (a.wins, b.wins) == (6.5, 1.5)
    assert a.ci95_wilson == pytest.approx((0.46679, 0.95546), abs=1e-5)
    assert a.ci95_deal == (pytest.approx(0.613597, abs=1e-6), 1.0)
    assert b.ci95_wilson == pytest.approx((0.04454, 0.53321), abs=1e-5)
    assert b.ci95_deal == (0.0, pytest.approx(0.386403, abs=1e-6))
    assert a.verdict == b.verdict == "parity"
    a, b = summarize(_rounds([(1.0, 1.0)] * 4), ["a", "b"], 2)  # 8 of 8, and 4 deals of 1.0: [0.510, 1]
    assert (a.verdict, b.verdict) == ("above", "below")


def test_wins_of_shared_rounds_are_kept_to_6_decimals():
    """A 3-way shared win gives 1/3 to each seat: the wins and round wins are stored rounded to 6
    decimals (0.333333 in the --json file, not 0.3333333 or 0.33333333333333331)."""
    records = [GameRecord(deal=0, rotation=r, seed=0, seats=[(s - r) % 3 for s in range(3)], rounds=1,
                          round_credit=[1 / 3] * 3, pips=[1, 1, 1], blocked=1) for r in range(3)]  # fmt: skip
    stats_ = summarize(records, ["a", "b", "c"], 3)
    assert [(s.wins, s.round_wins) for s in stats_] == [(1.0, 1.0)] * 3  # 3 x 1/3
    one = summarize(records[:1], ["a", "b", "c"], 3)
    assert [(s.wins, s.round_wins) for s in one] == [(0.333333, 0.333333)] * 3
    assert one[0].parity == pytest.approx(1 / 3)
