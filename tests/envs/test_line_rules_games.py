"""Hand-built scenario tests for the line games (block, draw, Cuban): games, the next round's
lead and the target score (docs/rules.md §2.1), written from the rules.

Source of truth, contract and notation: the docstring of ``line_rules_helpers``.
"""

from __future__ import annotations

import pytest
from line_rules_helpers import (
    ANNUL,
    DOMINO3,
    DOMINO4,
    _blocked_deal,
    _play_domino3,
    _play_domino4,
    deal,
    expect,
    info,
    legal,
    make,
    place,
    step,
)

from domino_env.envs.infos import Termination, seats_of

# ---------------------------------------------------------------------------
# Games: next lead and target score (docs/rules.md §2.1 "Game", contract "Next rounds")
# ---------------------------------------------------------------------------

ROUND2 = [
    [(0, 1), (1, 1), (2, 5), (3, 4), (1, 6), (4, 4), (0, 0)],
    [(6, 6), (0, 2), (0, 3), (1, 2), (2, 2), (3, 5), (4, 6)],  # 6-6 here: not forced in round 2
    [(5, 5), (0, 4), (1, 3), (2, 3), (2, 6), (3, 6), (4, 5)],
    [(0, 5), (0, 6), (1, 4), (1, 5), (2, 4), (3, 3), (5, 6)],
]


def test_next_lead_next_seat_leads_any_tile():
    """docs/rules.md §2.1 next_lead="next_seat" (seeds 003, 004): the seat after the previous round's
    leader leads round 2, with any tile (even though another seat holds 6-6)."""
    rest = [[(1, 1)], [(3, 4)], [(4, 5)], [(1, 4)]]  # 2, 7, 9, 5: seat 0 wins
    env = make("block", deals=[_blocked_deal(rest, 2), deal(ROUND2)], episode="game")
    step(env, ((0, 0), 0))  # blocked; seat 0 wins; leader was 2
    assert info(env)["termination_code"] == Termination.BLOCKED and seats_of(info(env)["winners"]) == [0]
    assert not any(env.terminations.values())
    st = env.unwrapped.game_state
    assert st.round_index == 1 and not st.round_over
    assert st.leader == 3 and env.agent_selection == "player_3"
    assert legal(env) == expect(env, *[(t, 0) for t in ROUND2[3]])


def test_a_later_deal_with_first_player_overrides_next_lead():
    """docs/envs.md "Starting from a given position (line games)": a later entry of
    options["deals"] that names first_player is led by that seat, whatever next_lead says (here
    seat 1, where next_seat gives seat 3), with any tile."""
    rest = [[(1, 1)], [(3, 4)], [(4, 5)], [(1, 4)]]
    env = make("block", deals=[_blocked_deal(rest, 2), deal(ROUND2, first=1)], episode="game")
    step(env, ((0, 0), 0))
    st = env.unwrapped.game_state
    assert st.round_index == 1 and st.leader == 1 and env.agent_selection == "player_1"
    assert legal(env) == expect(env, *[(t, 0) for t in ROUND2[1]])


def test_next_lead_winner_leads_any_tile():
    """docs/rules.md §2.1 next_lead="winner" (seed 001): the previous round's winner leads, any tile."""
    env = make(
        "block",
        deals=[deal(DOMINO3), deal([h[:3] for h in ROUND2[:3]])],
        num_players=3,
        next_lead="winner",
        episode="game",
    )
    _play_domino3(env)  # seat 0 went out; leader was 0
    assert seats_of(info(env)["winners"]) == [0]
    st = env.unwrapped.game_state
    assert st.round_index == 1
    assert st.leader == 0 and env.agent_selection == "player_0"
    assert legal(env) == expect(env, *[(t, 0) for t in ROUND2[0][:3]])


def test_next_lead_winner_blocked_picks_tie_winner():
    """next_lead="winner" after a block: the winning seat chosen by the tie rule leads."""
    rest = [[(1, 4)], [(2, 3)], [(4, 5)], [(5, 6)]]  # seats 0, 1 tie on 5; leader 2 -> seat 0
    env = make(
        "block", deals=[_blocked_deal(rest, 2), deal(ROUND2)], next_lead="winner", episode="game"
    )
    step(env, ((0, 0), 0))
    assert seats_of(info(env)["winners"]) == [0]
    assert env.agent_selection == "player_0"
    assert legal(env) == expect(env, *[(t, 0) for t in ROUND2[0]])


@pytest.mark.parametrize(
    ("rest", "winners", "next_leader"),
    [
        ([[(1, 1)], [(3, 4)], [(1, 2)], [(5, 6)]], [0, 2], 2),  # team 0+2: 5 pips, 1+3: 18
        ([[(5, 6)], [(1, 1)], [(3, 4)], [(1, 2)]], [1, 3], 1),  # team 1+3: 5 pips, 0+2: 18
    ],
)
def test_next_lead_winner_team_block_member_nearest_leader(rest, winners, next_leader):
    """Contract: with teams after a block, the winning team's member nearest the leader (starting
    with the leader) leads next. Leader 1: team 0+2 wins -> seat 2 (not 0); team 1+3 wins ->
    seat 1, the leader itself (not 3)."""
    env = make(
        "block",
        deals=[_blocked_deal(rest, 1), deal(ROUND2)],
        teams=True,
        next_lead="winner",
        episode="game",
    )
    step(env, ((0, 0), 0))
    assert seats_of(info(env)["winners"]) == winners
    assert env.agent_selection == f"player_{next_leader}"
    assert env.unwrapped.game_state.leader == next_leader
    assert legal(env) == expect(env, *[(t, 0) for t in ROUND2[next_leader]])


def test_cuban_next_round_led_by_a_member_of_the_winning_pair():
    """docs/rules.md §2.2 Cuban (seed 001): next_lead="winner"; seat 2 goes out (partner of the leader
    seat 0) -> seat 2, the one that went out, leads round 2 (contract), with any tile."""
    hands = [[(9, 9), (1, 1)], [(9, 8), (3, 3)], [(8, 7)], [(0, 0), (0, 1)]]
    env = make("cuban", deal(hands), episode="game")
    step(env, ((9, 9), 0))
    step(env, ((8, 9), 0))
    step(env, ((7, 8), 0))
    i = info(env)
    assert i["termination_code"] == Termination.WENT_OUT
    assert seats_of(i["winners"]) == [0, 2]
    assert i["pips"].tolist() == [2, 6, 0, 1]
    assert i["points"].tolist() == [9, 0, 9, 0]
    st = env.unwrapped.game_state
    assert st.round_index == 1 and st.leader == 2 and env.agent_selection == "player_2"
    assert len(st.hand_tiles(2)) == 10
    doubles = sum(a == b for a, b in st.hand_tiles(2))
    assert legal(env) == sorted(place(env, t, 0) for t in st.hand_tiles(2)) + (
        [ANNUL(env)] if doubles >= 5 else []
    )


def test_target_score_ends_the_game():
    """docs/rules.md §2.1 Game: rounds until a player reaches target_score (here 10). Round 1 scores 10
    for seat 0: game over, game_winners = [0], outcome rewards at the game's end."""
    env = make("block", deals=[deal(DOMINO3)], num_players=3, episode="game", target_score=10)
    _play_domino3(env)
    i = info(env)
    assert i["game_over"] is True
    assert seats_of(i["game_winners"]) == [0]
    assert all(env.terminations.values())
    assert env.unwrapped.game_state.game_over
    assert env.rewards == pytest.approx({"player_0": 1.0, "player_1": -0.5, "player_2": -0.5})


def test_game_continues_below_target_no_outcome_reward_yet():
    """Below the target the game goes on (round 2 dealt at once); outcome rewards only at the end;
    scores add up over rounds."""
    env = make(
        "block",
        deals=[deal(DOMINO3), deal(DOMINO3, first=0)],
        num_players=3,
        episode="game",
        target_score=20,
    )
    _play_domino3(env)
    assert info(env)["game_over"] is False and not info(env)["game_won"].any()
    assert not any(env.terminations.values())
    assert env.rewards == pytest.approx({"player_0": 0.0, "player_1": 0.0, "player_2": 0.0})
    assert env.unwrapped.game_state.round_index == 1
    _play_domino3(env)
    i = info(env)
    assert i["scores"].tolist() == [20, 0, 0]
    assert i["game_over"] is True and seats_of(i["game_winners"]) == [0]
    assert env.rewards["player_0"] == pytest.approx(1.0)


def test_target_score_with_teams_both_partners_win():
    env = make("block", deals=[deal(DOMINO4)], teams=True, episode="game", target_score=11)
    _play_domino4(env)
    i = info(env)
    assert i["game_over"] is True
    assert seats_of(i["game_winners"]) == [0, 2]
    assert env.rewards == pytest.approx(
        {"player_0": 1.0, "player_1": -1.0, "player_2": 1.0, "player_3": -1.0}
    )


def test_points_rewards_every_round_in_game_episode():
    env = make(
        "block",
        deals=[deal(DOMINO3), deal(DOMINO3, first=0)],
        num_players=3,
        episode="game",
        reward="points",
        target_score=1000,
    )
    _play_domino3(env)
    assert env.rewards == pytest.approx({"player_0": 0.10, "player_1": -0.06, "player_2": -0.04})
    assert not any(env.terminations.values())
