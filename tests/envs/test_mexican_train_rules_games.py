"""Hand-built scenario tests for Mexican Train games of several rounds (docs/rules.md §1.1 /
1.6), written from the rules.

Source of truth, contract and notation: the docstring of ``mexican_train_slot_helpers``.
"""

from __future__ import annotations

import numpy as np
import pytest
from mexican_train_rules_helpers import hand
from mexican_train_slot_helpers import (
    act,
    all_done,
    assert_round,
    cumulative_of,
    legal_moves,
    pass_,
    pass_until_over,
    random_step,
    rewards_of,
    start,
    state,
)

from domino_env.envs.infos import Termination, seats_of
from domino_env.envs.mexican_train_v0 import raw_env

# ---------------------------------------------------------------------------
# 1.1 / 1.6 games of several rounds
# ---------------------------------------------------------------------------


def test_game_episode_next_round_after_going_out():
    """docs/rules.md §1.1 / 1.6 + contract (episode="game"): after round 0 (station 9) the next
    round has station 8, round_index 1, scores carry over, the round's winner acts first,
    no agent terminates; points rewards arrive mid-episode via _cumulative_rewards / last()."""
    e = start(
        [[(5, 9), (1, 2)], [(4, 9)], [(0, 1), (3, 3)]],
        [(6, 7)],
        episode="game",
        reward="points",
        max_cycles=100000,
    )
    act(e, (5, 9), 0)
    act(e, (4, 9), 0)  # seat 1 goes out
    assert_round(e, "went_out", [1], [3, 0, 7], [3, 0, 7])
    st = state(e)
    assert not any(e.terminations.values())
    assert not any(e.truncations.values())
    assert sorted(e.agents) == sorted(e.possible_agents)
    assert st.round_index == 1
    assert st.station == 8
    assert list(st.scores) == [3, 0, 7]
    assert st.current_player == 1
    assert e.agent_selection == "player_1"
    # fresh deal for round 1: domino_cubano double-9, 3 players: floor((55-1-6)/3) = 16
    assert [len(hand(e, s)) for s in range(3)] == [16, 16, 16]
    assert st.boneyard_size == 55 - 1 - 48
    assert all((8, 8) not in hand(e, s) for s in range(3))
    assert rewards_of(e) == pytest.approx([-0.03, 0.0, -0.07])
    assert cumulative_of(e) == pytest.approx([-0.03, 0.0, -0.07])
    rng = np.random.default_rng(0)

    def first_turn(agent):
        # first turn of each seat in round 1: only own-train starts from the new station 8
        # (DRAW / PASS when none): the first-turn restriction applies again (1.3.1)
        while e.agent_selection == agent:
            for m in legal_moves(e):
                assert m in ("DRAW", "PASS") or (m[1] == 0 and 8 in m[0]), legal_moves(e)
            random_step(e, rng)

    first_turn("player_1")
    assert e.agent_selection == "player_2"
    _obs, r, term, trunc, _info = e.last()
    assert r == pytest.approx(-0.07)
    assert not term and not trunc
    first_turn("player_2")
    assert e.agent_selection == "player_0"
    _obs, r, _term, _trunc, _info = e.last()
    assert r == pytest.approx(-0.03)
    first_turn("player_0")


def test_game_episode_after_blocked_round_fewest_pips_starts():
    """docs/rules.md §1.1: after a blocked round the player with the fewest pips starts; tie ->
    the earliest of them in turn order after the previous round's first player (seat 1 ->
    seat 2 before seat 0)."""
    e = start(
        [[(1, 2), (0, 0)], [(5, 9), (3, 4)], [(0, 1), (0, 2)]],
        [],
        first=1,
        episode="game",
        max_cycles=100000,
    )
    assert e.agent_selection == "player_1"
    act(e, (5, 9), 0)
    n = 0
    while state(e).round_index == 0:
        assert legal_moves(e) == ["PASS"]
        pass_(e)
        n += 1
        assert n <= 3
    assert not any(e.terminations.values())
    assert e.infos["player_0"]["termination_code"] == Termination.BLOCKED
    assert seats_of(e.infos["player_0"]["winners"]) == [0, 2]
    assert state(e).station == 8
    assert list(state(e).scores) == [3, 7, 3]
    assert state(e).current_player == 2
    assert e.agent_selection == "player_2"


def test_after_a_blocked_round_a_tied_previous_first_player_comes_last():
    """docs/rules.md §1.1: the tie search starts from the seat after the previous round's first
    player, so seat 1 (first, tied with seat 2 at 3 pips) does not start: seat 2 does."""
    e = start(
        [[(1, 2), (0, 4)], [(5, 9), (0, 3)], [(0, 1), (0, 2)]],
        [],
        first=1,
        episode="game",
        max_cycles=100000,
    )
    act(e, (5, 9), 0)
    while state(e).round_index == 0:
        assert legal_moves(e) == ["PASS"]
        pass_(e)
    assert e.infos["player_0"]["termination_code"] == Termination.BLOCKED
    assert seats_of(e.infos["player_0"]["winners"]) == [1, 2] and list(state(e).scores) == [7, 3, 3]
    assert state(e).current_player == 2 and e.agent_selection == "player_2"


def test_game_episode_full_random_game():
    """docs/rules.md §1.6 (default game): stations 9, 8, ..., 0 (N+1 rounds), scores add up round
    by round, the episode ends after the 0-0 round; the points rewards summed over the
    episode equal -(final total)/100 per seat."""
    p = 2
    e = raw_env(num_players=p, max_pip=9, episode="game", reward="points", max_cycles=1_000_000)
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    stations = [state(e).station]
    totals = [0] * p
    reward_sum = [0.0] * p
    rounds = 0
    steps = 0
    while not all_done(e):
        ri = state(e).round_index
        random_step(e, rng)
        steps += 1
        assert steps < 100000
        reward_sum = [
            r + float(e.rewards.get(a, 0.0))
            for r, a in zip(reward_sum, e.possible_agents, strict=True)
        ]
        if all_done(e) or state(e).round_index != ri:
            rounds += 1
            info = e.infos["player_0"]
            totals = [t + q for t, q in zip(totals, info["pips"], strict=True)]
            assert list(info["scores"]) == totals
            if not all_done(e):
                assert state(e).round_index == rounds
                stations.append(state(e).station)
    assert not any(e.truncations.values())
    assert stations == list(range(9, -1, -1))
    assert rounds == 10
    assert list(state(e).scores) == totals
    assert reward_sum == pytest.approx([-t / 100 for t in totals])


def test_game_episode_outcome_reward_only_at_game_end():
    """Contract rewards + docs/rules.md §1.6: with episode="game" and reward="outcome", rounds give
    no reward; at the end the lowest total wins: winner +1, the other -1 (2 players)."""
    e = raw_env(num_players=2, max_pip=9, episode="game", max_cycles=1_000_000)
    e.reset(seed=11)
    rng = np.random.default_rng(11)
    steps = 0
    while not all_done(e):
        random_step(e, rng)
        steps += 1
        assert steps < 100000
        if not all_done(e):
            assert rewards_of(e) == [0.0, 0.0], (steps, state(e).round_index)
    totals = list(state(e).scores)
    assert state(e).round_index == 9 and state(e).station == 0
    assert totals[0] != totals[1], "pick another seed: tie"
    winner = 0 if totals[0] < totals[1] else 1
    expected = [-1.0, -1.0]
    expected[winner] = 1.0
    assert rewards_of(e) == pytest.approx(expected)
    assert cumulative_of(e) == pytest.approx(expected)


def test_game_elimination():
    """docs/rules.md §1.6 variant game_end="elimination": after a round, a seat whose total reached
    the limit is out (never acts again); the game ends when one player is left (or all
    remaining cross together: lowest total wins)."""
    limit = 5
    e = start(
        [[(4, 9)], [(3, 4), (5, 6)], [(0, 1), (0, 2)]],
        [(7, 8)],
        episode="game",
        game_end="elimination",
        elimination_limit=limit,
        max_cycles=1_000_000,
    )
    act(e, (4, 9), 0)
    assert_round(e, "went_out", [0], [0, 18, 3], [0, 18, 3])
    assert not all_done(e)  # seats 0 and 2 remain
    assert not e.terminations["player_0"] and not e.terminations["player_2"]
    assert state(e).station == 8
    reward_sum = cumulative_of(e)
    # the eliminated seat may be terminated now (AEC dead step), the others never are
    while e.terminations.get(e.agent_selection) or e.truncations.get(e.agent_selection):
        assert e.agent_selection == "player_1"
        e.step(None)
    assert e.agent_selection == "player_0"  # round winner starts
    rng = np.random.default_rng(1)
    steps = 0
    while not all_done(e):
        ri = state(e).round_index
        ag = e.agent_selection
        if ag == "player_1":
            assert e.terminations.get(ag) or e.truncations.get(ag), "eliminated seat 1 acts"
        random_step(e, rng)
        steps += 1
        assert steps < 100000
        reward_sum = [
            r + float(e.rewards.get(a, 0.0))
            for r, a in zip(reward_sum, e.possible_agents, strict=True)
        ]
        if not all_done(e) and state(e).round_index != ri:
            below = [s for s in range(3) if state(e).scores[s] < limit]
            assert len(below) >= 2, f"game should have ended: scores {list(state(e).scores)}"
    final = list(state(e).scores)
    below = [s for s in range(3) if final[s] < limit]
    assert len(below) <= 1, final
    assert not any(e.truncations.values())
    if below:
        winner = below[0]
    else:
        winner = min((0, 2), key=lambda s: final[s])
    # contract (reward="outcome"): the game winner gets +1, the others (the eliminated seat 1
    # included: it lost the game) share -1 equally
    expected = [-0.5, -0.5, -0.5]
    expected[winner] = 1.0
    assert reward_sum == pytest.approx(expected)


def test_elimination_stations_wrap_around():
    """docs/rules.md §1.6 elimination: the stations continue N..0 and then again from N (seed 002:
    "La 13a ronda comienza con el 0 doble y la 14a de nuevo con el 12 doble")."""
    e = raw_env(
        num_players=2,
        max_pip=9,
        episode="game",
        game_end="elimination",
        elimination_limit=2000,
        max_cycles=10_000_000,
    )
    e.reset(seed=7)
    rng = np.random.default_rng(7)
    stations = [state(e).station]
    steps = 0
    while not all_done(e):
        ri = state(e).round_index
        random_step(e, rng)
        steps += 1
        assert steps < 1_000_000
        if not all_done(e) and state(e).round_index != ri:
            stations.append(state(e).station)
    assert len(stations) > 10, "limit too low for this check"
    assert stations == [9 - (r % 10) for r in range(len(stations))]


def test_a_knocked_out_fewest_pips_seat_does_not_start_the_next_round():
    """docs/rules.md §1.1 (later rounds) with §1.6 elimination: after a blocked round the seat with
    the fewest pips starts, counting only the seats still in. Here seat 0 has the fewest pips of
    the blocked round (4) and its total reaches the limit: it is out, and seat 1 (5 pips, fewer
    than seat 2's 6) starts the third round."""
    e = raw_env(num_players=3, max_pip=9, episode="game", game_end="elimination", elimination_limit=10)
    rounds = [
        {"hands": [[[0, 9], [2, 4]], [[1, 9]], [[0, 1]]], "boneyard": [], "station": [9, 9], "first_player": 0},
        {"hands": [[[0, 4]], [[2, 3]], [[1, 5]]], "boneyard": [], "station": [8, 8], "first_player": 1},
        None,  # the third round: dealt by the env
    ]
    e.reset(seed=0, options={"deals": rounds})
    act(e, (0, 9), 0)
    act(e, (1, 9), 0)  # seat 1 goes out: totals 6, 0, 1
    assert list(state(e).scores) == [6, 0, 1] and state(e).station == 8
    steps = 0
    while state(e).round_index == 1:  # nobody holds an 8 and the boneyard is empty: blocked
        assert legal_moves(e) == ["PASS"] or e.terminations.get(e.agent_selection)
        pass_(e)
        steps += 1
        assert steps < 10
    assert list(state(e).scores) == [10, 5, 7]
    assert not state(e).active[0] and state(e).active[1] and state(e).active[2]
    while e.terminations.get(e.agent_selection):  # the knocked-out seat's dead step
        e.step(None)
    assert state(e).round_index == 2 and state(e).current_player == 1 and e.agent_selection == "player_1"


def test_elimination_game_won_by_a_tie_shares_the_losers_reward():
    """docs/rules.md §1.6 elimination: a blocked round puts every seat over the limit at once, so
    the lowest totals win together (seats 0 and 1, 6 pips each). Outcome rewards stay zero-sum:
    the loser gets -1/(P-1) = -0.5 and the two winners share +0.5, 0.25 each (not +1/2 each)."""
    e = start([[(1, 5)], [(2, 4)], [(3, 4)]], [], episode="game", game_end="elimination", elimination_limit=5)
    pass_until_over(e, limit=3)
    assert_round(e, "blocked", [0, 1], [6, 6, 7], [6, 6, 7])
    assert state(e).game_over and state(e).game_winners == (0, 1)
    assert cumulative_of(e) == pytest.approx([0.25, 0.25, -0.5])


def test_the_seat_that_went_out_starts_next_even_beside_a_knocked_out_seat():
    """docs/rules.md §1.1 (later rounds: the winner of the previous round starts): seat 1 goes out
    with its last tile while seat 0 is knocked out (elimination limit 1) and seat 2 also ends
    with 0 pips (the 0-0): seat 1, the winner, starts round 1, not the other 0-pip seat."""
    s = state(start([[(5, 6)], [(9, 1)], [(0, 0)]], first=1, game_end="elimination", elimination_limit=1))
    s.apply(s.legal_actions()[0])  # (the engine) seat 1 places 9-1 on its own train: its hand is empty
    assert s.round_over and s.round_result.winners == (1,)
    assert s.active == [False, True, True] and s.round_result.pips == (11, 0, 0)
    assert s.next_first_player() == 1
