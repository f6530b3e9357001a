"""Hand-built scenario tests for the line games (block, draw, Cuban): the end of a round, going
out (domino) or blocked, its scoring and rewards (docs/rules.md §0 and 2.1), written from the
rules.

Source of truth, contract and notation: the docstring of ``line_rules_helpers``.
"""

from __future__ import annotations

import pytest
from line_rules_helpers import (
    DOMINO3,
    DOMINO4,
    _blocked_deal,
    _play_domino3,
    _play_domino4,
    all_tiles,
    deal,
    expect,
    info,
    legal,
    make,
    pips,
    step,
)

from domino_env.envs.infos import Termination, seats_of

# ---------------------------------------------------------------------------
# Domino (went out) scoring and rewards (docs/rules.md §2.1, seeds 003 / 004)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("reward", ["outcome", "points"])
def test_domino_scoring_without_teams(reward):
    """docs/rules.md §2.1: a round ends when a hand is empty; without teams the winner scores the pips
    left in every other hand (6 + 4 = 10). Rewards (contract): outcome winner +1, others share -1;
    points winner +points/100, others -(own pips)/100."""
    env = make("block", deal(DOMINO3), num_players=3, reward=reward)
    _play_domino3(env)
    i = info(env)
    assert i["termination_code"] == Termination.WENT_OUT
    assert seats_of(i["winners"]) == [0]
    assert i["pips"].tolist() == [0, 6, 4]
    assert i["points"].tolist() == [10, 0, 0]
    assert i["scores"].tolist() == [10, 0, 0]
    assert i["leader"] == 0 and i["round_index"] == 0
    assert all(env.terminations.values())
    assert env.unwrapped.game_state.round_result.termination == "went_out"
    if reward == "outcome":
        assert env.rewards == pytest.approx({"player_0": 1.0, "player_1": -0.5, "player_2": -0.5})
    else:
        assert env.rewards == pytest.approx(
            {"player_0": 0.10, "player_1": -0.06, "player_2": -0.04}
        )


@pytest.mark.parametrize("reward", ["outcome", "points"])
def test_domino_scoring_with_teams_counts_all_four_hands(reward):
    """docs/rules.md §2.1 (seeds 003, 004 "incluso los del compañero"): with teams the winning team
    scores the pips of all four hands, the partner's included: 6 + 4 + 1 = 11 (partner seat 2
    holds 4 of them). Both partners carry the score. Rewards: each winner +1 / each loser -1;
    points mode +-points/100."""
    env = make("block", deal(DOMINO4), teams=True, reward=reward)
    _play_domino4(env)
    i = info(env)
    assert i["termination_code"] == Termination.WENT_OUT
    assert seats_of(i["winners"]) == [0, 2]
    assert i["pips"].tolist() == [0, 6, 4, 1]
    assert i["points"].tolist() == [11, 0, 11, 0]
    assert i["scores"].tolist() == [11, 0, 11, 0]
    assert list(env.unwrapped.game_state.scores) == [11, 0, 11, 0]
    if reward == "outcome":
        expected = {"player_0": 1.0, "player_1": -1.0, "player_2": 1.0, "player_3": -1.0}
    else:
        expected = {"player_0": 0.11, "player_1": -0.11, "player_2": 0.11, "player_3": -0.11}
    assert env.rewards == pytest.approx(expected)


def test_domino_without_teams_four_players():
    """Same deal without teams: the winner alone scores the other three hands (11)."""
    env = make("block", deal(DOMINO4))
    _play_domino4(env)
    i = info(env)
    assert seats_of(i["winners"]) == [0]
    assert i["points"].tolist() == [11, 0, 0, 0]
    assert env.rewards == pytest.approx(
        {"player_0": 1.0, "player_1": -1 / 3, "player_2": -1 / 3, "player_3": -1 / 3}
    )


def test_round_ends_when_last_tile_is_a_double():
    """docs/rules.md §0: a round ends the moment a hand is empty, a double included."""
    hands = [[(6, 6), (1, 2)], [(5, 6), (5, 5)], [(3, 4)]]
    env = make("block", deal(hands), num_players=3)
    step(env, ((6, 6), 0))
    step(env, ((5, 6), 0))
    step(env, "PASS")
    step(env, "PASS")
    step(env, ((5, 5), 0))
    i = info(env)
    assert i["termination_code"] == Termination.WENT_OUT and seats_of(i["winners"]) == [1]
    assert i["points"].tolist() == [0, 10, 0]


# ---------------------------------------------------------------------------
# Blocked rounds (docs/rules.md §2.1 "cierre" / "tranque")
# ---------------------------------------------------------------------------


def test_blocked_three_player_block_game_by_tiles_out_of_play():
    """docs/rules.md §2.1 / 2.2: blocked = nobody can ever place again; detected at once. Three players
    with 7 tiles each leave 7 tiles out of play: here every 0-tile but 0-0 is out of play, so the
    lead 0-0 blocks the round immediately."""
    rest = [t for t in all_tiles(6) if 0 not in t and t != (1, 1)]
    assert len(rest) == 20
    hands = [[(0, 0)] + rest[0:6], rest[6:13], rest[13:20]]
    env = make("block", deal(hands, first=0), num_players=3)
    step(env, ((0, 0), 0))
    i = info(env)
    assert i["termination_code"] == Termination.BLOCKED
    p = [pips(h) for h in hands]
    best = min(p)
    winner = [s for s in (0, 1, 2) if p[s] == best][0]
    assert i["pips"].tolist() == p
    assert seats_of(i["winners"]) == [winner]
    assert i["points"][winner] == sum(p) - p[winner]
    assert all(env.terminations.values())


def test_blocked_after_play_two_players_tie_goes_to_leader():
    """docs/rules.md §2.1: after 6-6 and 5-6 nobody holds a 5 or 6 and the rest are out of play:
    blocked at once. Both hands hold 7 pips: the tie goes to the leader ("mano"), who scores the
    other's 7 pips."""
    hands = [[(6, 6), (1, 2), (2, 2)], [(5, 6), (3, 4)]]
    env = make("block", deal(hands, first=0), num_players=2)
    step(env, ((6, 6), 0))
    assert not env.unwrapped.game_state.round_over
    step(env, ((5, 6), 0))
    i = info(env)
    assert i["termination_code"] == Termination.BLOCKED
    assert i["pips"].tolist() == [7, 7]
    assert seats_of(i["winners"]) == [0]
    assert i["points"].tolist() == [7, 0]
    assert i["leader"] == 0


def test_not_blocked_while_a_fitting_tile_is_in_the_boneyard():
    """docs/rules.md §2.1: blocked means nobody can ever place again. After the lead nobody holds a 6
    but 0-6 is in the boneyard: the round goes on (DRAW). Once 0-6 is placed, no 0 or 6 is left
    anywhere (hands or boneyard): blocked at once although the boneyard is not empty."""
    hands = [[(6, 6), (1, 1)], [(2, 3)]]
    bone = [(4, 4), (0, 6), (2, 2)]
    env = make("draw", deal(hands, bone), num_players=2)
    step(env, ((6, 6), 0))
    assert not env.unwrapped.game_state.round_over
    assert legal(env) == expect(env, "DRAW")
    step(env, "DRAW")
    assert legal(env) == expect(env, "DRAW")
    step(env, "DRAW")
    assert legal(env) == expect(env, ((0, 6), 0))
    step(env, ((0, 6), 0))
    i = info(env)
    assert i["termination_code"] == Termination.BLOCKED
    assert i["pips"].tolist() == [2, 13]
    assert seats_of(i["winners"]) == [0]
    assert i["points"].tolist() == [13, 0]


def test_blocked_fewest_pips_wins_without_teams():
    """docs/rules.md §2.1: blocked, no teams: the fewest pips wins and scores the others' pips."""
    rest = [[(1, 4)], [(3, 4)], [(4, 5)], [(1, 1)]]  # 5, 7, 9, 2
    env = make("block", _blocked_deal(rest, 0))
    step(env, ((0, 0), 0))
    i = info(env)
    assert i["termination_code"] == Termination.BLOCKED
    assert i["pips"].tolist() == [5, 7, 9, 2]
    assert seats_of(i["winners"]) == [3]
    assert i["points"].tolist() == [0, 0, 0, 21]
    assert i["scores"].tolist() == [0, 0, 0, 21]


@pytest.mark.parametrize(
    ("rest", "leader", "winner"),
    [
        # seats 0 and 3 tie on 5; from leader 2 the order is 2, 3, 0, 1 -> seat 3
        ([[(1, 4)], [(3, 4)], [(4, 5)], [(2, 3)]], 2, 3),
        # leader 2 ties with seat 0 on 5 -> the leader
        ([[(2, 3)], [(3, 4)], [(1, 4)], [(5, 6)]], 2, 2),
        # seats 1 and 3 tie on 6; leader 0: order 0, 1, 2, 3 -> seat 1
        ([[(5, 6)], [(2, 4)], [(4, 5)], [(3, 3)]], 0, 1),
        # seats 0 and 2 tie on 5; leader 3: order 3, 0, 1, 2 -> seat 0
        ([[(1, 4)], [(5, 6)], [(2, 3)], [(4, 4)]], 3, 0),
    ],
)
def test_blocked_tie_goes_to_seat_nearest_leader(rest, leader, winner):
    """docs/rules.md §2.1: tie -> the tied player nearest in turn order to the leader, starting with the
    leader ("mano")."""
    env = make("block", _blocked_deal(rest, leader))
    step(env, ((0, 0), 0))
    i = info(env)
    p = i["pips"]
    assert i["termination_code"] == Termination.BLOCKED
    assert seats_of(i["winners"]) == [winner]
    assert i["points"][winner] == sum(p) - p[winner]


def test_blocked_team_sums_all_four_hands_scored():
    """docs/rules.md §2.1: blocked with teams: the team with fewer summed pips wins; it scores all four
    hands (its own included). Team 0+2: 3 + 11 = 14, team 1+3: 7 + 2 = 9 -> team 1+3 scores 23."""
    rest = [[(1, 2)], [(3, 4)], [(5, 6)], [(1, 1)]]
    env = make("block", _blocked_deal(rest, 0), teams=True)
    step(env, ((0, 0), 0))
    i = info(env)
    assert i["termination_code"] == Termination.BLOCKED
    assert i["pips"].tolist() == [3, 7, 11, 2]
    assert seats_of(i["winners"]) == [1, 3]
    assert i["points"].tolist() == [0, 23, 0, 23]
    assert i["scores"].tolist() == [0, 23, 0, 23]


@pytest.mark.parametrize(
    ("leader", "winners"), [(1, [1, 3]), (0, [0, 2]), (3, [1, 3]), (2, [0, 2])]
)
def test_blocked_team_tie_goes_to_the_team_nearest_the_leader(leader, winners):
    """docs/rules.md §2.1: team sums tie (10 vs 10) -> the leader's team (the nearest, starting with
    the leader) wins."""
    rest = [[(2, 6)], [(1, 2)], [(1, 1)], [(3, 4)]]  # 8, 3, 2, 7 -> teams 10 / 10
    env = make("block", _blocked_deal(rest, leader), teams=True)
    step(env, ((0, 0), 0))
    i = info(env)
    assert i["termination_code"] == Termination.BLOCKED
    assert sum(i["pips"][0::2]) == sum(i["pips"][1::2])
    assert seats_of(i["winners"]) == winners
    assert i["points"][winners[0]] == sum(i["pips"])
