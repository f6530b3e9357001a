"""Hand-built scenario tests for the line games (block, draw, Cuban): the Cuban annulment
(docs/rules.md §2.2, seed 001), written from the rules.

Source of truth, contract and notation: the docstring of ``line_rules_helpers``.
"""

from __future__ import annotations

import pytest
from line_rules_helpers import ANNUL, deal, expect, info, legal, make, obs_of, place, step

from domino_env.envs.infos import Termination

# ---------------------------------------------------------------------------
# Cuban annulment (docs/rules.md §2.2, seed 001)
# ---------------------------------------------------------------------------

FIVE = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]


def cuban_hands():
    """Seat 0 (leader, 4 doubles), seat 1 (5 doubles), seat 2 (set by each test), seat 3 (none)."""
    return [
        [(9, 9), (6, 6), (7, 7), (8, 8), (0, 9), (1, 2)],
        FIVE + [(9, 8)],
        [],
        [(0, 2), (8, 7), (0, 3)],
    ]


def test_cuban_annul_only_on_first_turn_of_a_player_with_enough_doubles():
    """docs/rules.md §2.2 Cuban (seed 001): a player dealt 5 or more doubles may, on its first turn of
    the round and before placing any tile, ask for the annulment (ANNUL). Absent for the leader
    with 4 doubles; present for seat 1 (5 doubles, not the leader) on its first turn; absent on
    its second turn."""
    hands = cuban_hands()
    hands[2] = [(0, 0), (5, 6), (4, 6), (3, 6)]  # 1 double
    env = make("cuban", deal(hands))
    st = env.unwrapped.game_state
    assert env.agent_selection == "player_0"
    assert legal(env) == expect(env, ((9, 9), 0))  # 4 doubles: no ANNUL
    step(env, ((9, 9), 0))
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, ((8, 9), 0), "ANNUL")
    assert obs_of(env, 1)["may_annul"][0] == 1
    step(env, ((8, 9), 0))
    assert obs_of(env, 1)["may_annul"][0] == 0
    assert env.agent_selection == "player_2"
    assert ANNUL(env) not in legal(env)
    step(env, "PASS")  # seat 2 holds no 8 or 9
    step(env, ((7, 8), 0))  # seat 3
    step(env, ((7, 7), 0))  # seat 0
    assert env.agent_selection == "player_1"
    assert st.ends == (7, 9)
    assert legal(env) == expect(env, "PASS")  # second turn: no ANNUL any more


def test_cuban_annul_for_the_leader_on_the_lead():
    """The leader with 5 doubles may annul instead of leading (its first turn)."""
    hands = cuban_hands()
    hands[0] = [(9, 9), (6, 6), (7, 7), (8, 8), (0, 0), (1, 2)]
    hands[2] = [(5, 6), (4, 6), (3, 6)]
    env = make("cuban", deal(hands))
    assert legal(env) == expect(env, ((9, 9), 0), "ANNUL")


@pytest.mark.parametrize("reward", ["outcome", "points"])
def test_cuban_annul_redeals_same_leader_same_round_index(reward):
    """docs/rules.md §2.2: after ANNUL the tiles are dealt again and the same seat leads again (contract:
    with any tile; round index unchanged; infos termination "annulled"; no points; the episode
    continues)."""
    hands = cuban_hands()
    hands[2] = [(5, 6), (4, 6), (3, 6)]
    round2 = [
        [(0, 1), (0, 2), (5, 5)],
        [(9, 9), (1, 2), (3, 3)],  # highest double elsewhere: lead is NOT forced after annulment
        [(8, 8), (4, 5)],
        [(6, 7), (2, 3)],
    ]
    env = make("cuban", deals=[deal(hands), deal(round2)], reward=reward)
    step(env, ((9, 9), 0))
    assert env.agent_selection == "player_1"
    step(env, "ANNUL")
    i = info(env)
    assert i["termination_code"] == Termination.ANNULLED
    assert i["points"].tolist() == [0, 0, 0, 0]
    assert i["scores"].tolist() == [0, 0, 0, 0]
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    assert all(r == 0 for r in env.rewards.values())
    st = env.unwrapped.game_state
    assert st.round_index == 0
    assert not st.round_over
    assert st.leader == 0 and env.agent_selection == "player_0"
    assert st.line == []
    assert legal(env) == expect(env, *[(t, 0) for t in round2[0]])
    # and the new round plays on
    step(env, ((5, 5), 0))
    assert env.agent_selection == "player_1"
    assert not env.infos["player_0"]["round_over"]
    assert env.infos["player_0"]["termination_code"] == Termination.NONE


def test_cuban_annul_then_a_given_deal_naming_its_first_player():
    """docs/envs.md (given positions): a queued deal that names ``first_player`` is led by that
    seat even when it follows an annulled round, whose leader would otherwise lead again."""
    hands = cuban_hands()
    hands[2] = [(5, 6), (4, 6), (3, 6)]
    round2 = [[(0, 1), (0, 2)], [(9, 9), (1, 2)], [(8, 8), (4, 5)], [(6, 7), (2, 3)]]
    env = make("cuban", deals=[deal(hands), deal(round2, first=3)])
    step(env, ((9, 9), 0))
    step(env, "ANNUL")  # seat 1; seat 0 led the annulled round
    assert env.unwrapped.game_state.leader == 3 and env.agent_selection == "player_3"
    assert legal(env) == expect(env, *[(t, 0) for t in round2[3]])  # any tile, as a named leader


def test_cuban_annul_random_redeal():
    """Without a queued deal the re-deal comes from the generator: 10 tiles each, 15 out of play,
    same leader, nothing played."""
    hands = cuban_hands()
    hands[2] = [(5, 6), (4, 6), (3, 6)]
    env = make("cuban", deal(hands))
    step(env, ((9, 9), 0))
    step(env, "ANNUL")
    st = env.unwrapped.game_state
    assert info(env)["termination_code"] == Termination.ANNULLED
    assert st.round_index == 0 and st.leader == 0 and env.agent_selection == "player_0"
    assert [st.hand_size(s) for s in range(4)] == [10, 10, 10, 10]
    assert st.boneyard_size == 0
    assert legal(env) == sorted(place(env, t, 0) for t in st.hand_tiles(0)) + (
        [ANNUL(env)] if sum(a == b for a, b in st.hand_tiles(0)) >= 5 else []
    )


def test_no_annul_without_annul_doubles():
    """Block preset (annul_doubles None): never ANNUL even with 5 doubles."""
    hands = [FIVE + [(6, 6)], [(0, 6)]]
    env = make("block", deal(hands), num_players=2)
    assert legal(env) == expect(env, ((6, 6), 0))


def test_annul_still_legal_after_drawing_on_first_turn():
    """Contract: ANNUL is legal during the first turn, before the player places or passes; a
    draw does not end the turn (docs/rules.md §2.2: "before placing any tile")."""
    hands = [[(6, 6), (0, 6)], [(1, 1), (2, 2), (3, 4)]]
    env = make("draw", deal(hands, [(3, 5), (4, 6), (0, 0)]), num_players=2, annul_doubles=2)
    step(env, ((6, 6), 0))
    assert legal(env) == expect(env, "DRAW", "ANNUL")
    step(env, "DRAW")
    assert legal(env) == expect(env, "DRAW", "ANNUL")
    step(env, "DRAW")
    assert legal(env) == expect(env, ((4, 6), 0), "ANNUL")
    step(env, ((4, 6), 0))
    step(env, ((0, 6), 1))
    assert ANNUL(env) not in legal(env)


def test_the_engines_round_result_of_an_annulled_round():
    """LineRoundResult's docstring: termination "annulled", no winners, no points (it listed only
    "went_out" and "blocked", with a winning seat)."""
    from domino_env.core.line import LineState

    hands = cuban_hands()
    hands[2] = [(5, 6), (4, 6), (3, 6)]
    env = make("cuban", deal(hands))
    step(env, ((9, 9), 0))
    state = env.unwrapped.game_state.copy()
    state.apply(state.annul_action)
    result = state.round_result
    assert isinstance(state, LineState) and state.round_over
    assert (result.termination, result.winners, result.points) == ("annulled", (), (0, 0, 0, 0))
