"""Hand-built scenario tests for the line games (block, draw, Cuban), written from the rules.

Source of truth: ``docs/rules.md`` sections 0 and 2 (seeds 001 "Domino Cubano", 003 "Dominó
6-9-12", 004 "Dominó Exprés"), plus the lead's decisions in ``docs/rules.md``.  Only the
public contract is used: ``raw_env``, the action mask, ``step``, ``infos``, rewards, the
observation (decoded with ``decode_line_observation``) and the read-only ``env.unwrapped.game_state``.
Tile indices and action ints are computed by the helpers below, independently of the library:
action = tile_index * 2 + end (end 0 = left, the only end for the lead; end 1 = right),
DRAW = 2T, PASS = 2T + 1, ANNUL = 2T + 2.
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.core.errors import ConfigError, DealError
from domino_env.encoding.line import decode_line_observation
from domino_env.envs import block_v0, cuban_v0, draw_v0, line_v0
from domino_env.envs.infos import Termination, seats_of

# ---------------------------------------------------------------------------
# Independent helpers (docs/rules.md §0 and the contract's action layout)
# ---------------------------------------------------------------------------


def all_tiles(n: int) -> list[tuple[int, int]]:
    """Canonical order (0,0), (0,1), ..., (0,N), (1,1), ..., (N,N) (docs/rules.md §0)."""
    return [(a, b) for a in range(n + 1) for b in range(a, n + 1)]


def tile_count(n: int) -> int:
    return (n + 1) * (n + 2) // 2


def tidx(tile, n: int) -> int:
    """Closed-form canonical index of a tile."""
    a, b = min(tile), max(tile)
    return a * (n + 1) - a * (a - 1) // 2 + (b - a)


def test_helper_index_matches_canonical_order():
    for n in (6, 9, 12):
        tiles = all_tiles(n)
        assert len(tiles) == tile_count(n)
        assert [tidx(t, n) for t in tiles] == list(range(len(tiles)))
        assert all(tidx((b, a), n) == tidx((a, b), n) for a, b in tiles)


def N(env) -> int:
    return env.unwrapped.game_state.config.max_pip


def place(env, tile, end: int) -> int:
    return 2 * tidx(tile, N(env)) + end


def DRAW(env) -> int:
    return 2 * tile_count(N(env))


def PASS(env) -> int:
    return DRAW(env) + 1


def ANNUL(env) -> int:
    return DRAW(env) + 2


def legal(env) -> list[int]:
    mask = np.asarray(env.observe(env.agent_selection)["action_mask"])
    return sorted(int(i) for i in np.flatnonzero(mask))


def seat(env) -> int:
    return int(env.agent_selection.rsplit("_", 1)[1])


def expect(env, *items) -> list[int]:
    """Sorted action ints of items: (tile, end), "DRAW", "PASS" or "ANNUL"."""
    out = []
    for it in items:
        if it == "DRAW":
            out.append(DRAW(env))
        elif it == "PASS":
            out.append(PASS(env))
        elif it == "ANNUL":
            out.append(ANNUL(env))
        else:
            out.append(place(env, *it))
    return sorted(out)


def step(env, item) -> None:
    a = expect(env, item)[0]
    assert a in legal(env), f"{item} not legal for {env.agent_selection}; legal={legal(env)}"
    env.step(a)


def canon(t):
    return [min(t), max(t)]


def deal(hands, boneyard=(), first=None) -> dict:
    d = {"hands": [[canon(t) for t in h] for h in hands], "boneyard": [canon(t) for t in boneyard]}
    if first is not None:
        d["first_player"] = first
    return d


def make(kind="block", deal_=None, deals=None, **kw):
    mod = {"block": block_v0, "draw": draw_v0, "cuban": cuban_v0}[kind]
    env = mod.raw_env(**kw)
    if deals is not None:
        env.reset(seed=0, options={"deals": deals})
    else:
        env.reset(seed=0, options={"deal": deal_})
    return env


def pips(hand) -> int:
    return sum(a + b for a, b in hand)


def obs_of(env, observer: int) -> dict:
    st = env.unwrapped.game_state
    o = env.observe(f"player_{observer}")["observation"]
    return decode_line_observation(o, st.num_players, st.config.max_pip)


def missing_row(env, observer: int, other: int) -> set[int]:
    """Pips the observer's observation says seat `other` is known to lack."""
    st = env.unwrapped.game_state
    k = (other - observer) % st.num_players
    row = np.asarray(obs_of(env, observer)["missing_pips"]).reshape(st.num_players - 1, -1)[k - 1]
    return {int(i) for i in np.flatnonzero(row)}


def info(env):
    return env.infos["player_0"]


# A full 4 x 7 double-6 deal with 6-6 in seat 2's hand.
FULL4 = [
    [(0, 0), (0, 1), (1, 1), (2, 5), (3, 4), (1, 6), (4, 4)],
    [(0, 2), (0, 3), (1, 2), (2, 2), (3, 5), (4, 6), (5, 5)],
    [(6, 6), (0, 4), (1, 3), (2, 3), (2, 6), (3, 6), (4, 5)],
    [(0, 5), (0, 6), (1, 4), (1, 5), (2, 4), (3, 3), (5, 6)],
]


# ---------------------------------------------------------------------------
# Leads (docs/rules.md §2.1)
# ---------------------------------------------------------------------------


def test_full_deal_covers_the_set():
    assert sorted(tidx(t, 6) for h in FULL4 for t in h) == list(range(28))


def test_first_round_lead_is_the_highest_double_and_it_must_be_led():
    """docs/rules.md §2.1 (seeds 003, 004): the holder of the highest double leads it; with 4 players
    and double-6 that is always 6-6. The mask holds exactly that one action."""
    env = make("block", deal(FULL4))
    assert env.agent_selection == "player_2"
    assert env.unwrapped.game_state.leader == 2
    assert legal(env) == expect(env, ((6, 6), 0))
    for other in (0, 1, 3):
        assert not env.observe(f"player_{other}")["action_mask"].any()
    step(env, ((6, 6), 0))
    assert env.unwrapped.game_state.line == [(6, 6)]
    assert env.unwrapped.game_state.ends == (6, 6)
    assert env.agent_selection == "player_3"


def test_highest_double_beats_a_heavier_non_double():
    """docs/rules.md §2.1: the highest *double* leads even when another tile is heavier (6-5 > 4-4)."""
    hands = [[(5, 6), (1, 2)], [(4, 4), (0, 1)], [(3, 3), (2, 6)]]
    env = make("block", deal(hands), num_players=3)
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, ((4, 4), 0))


def test_no_double_dealt_heaviest_tile_is_led_tie_to_higher_pip():
    """docs/rules.md §2.1 (seeds 003, 004): no double dealt -> the holder of the heaviest tile leads it;
    tie: the higher of its two pips (3-4, 2-5 and 1-6 all weigh 7: 1-6 leads)."""
    hands = [[(3, 4), (0, 1)], [(2, 5), (0, 2)], [(1, 6), (0, 3)], [(2, 4), (1, 2)]]
    env = make("block", deal(hands))
    assert env.agent_selection == "player_2"
    assert legal(env) == expect(env, ((1, 6), 0))
    # and the same deal rotated: the holder changes, the tile does not
    env = make("block", deal(hands[2:] + hands[:2]))
    assert env.agent_selection == "player_0"
    assert legal(env) == expect(env, ((1, 6), 0))


def test_first_player_in_deal_leads_any_tile_on_end_0_only():
    """Contract: a deal with "first_player" makes that seat lead with any tile; the lead uses
    end 0 only (docs/rules.md §2.1: the lead starts the line)."""
    env = make("block", deal(FULL4, first=1))
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, *[(t, 0) for t in FULL4[1]])
    step(env, ((3, 5), 0))
    st = env.unwrapped.game_state
    assert canon(st.line[0]) == [3, 5] and len(st.line) == 1
    assert sorted(st.ends) == [3, 5]
    assert env.agent_selection == "player_2"


# ---------------------------------------------------------------------------
# Placements (docs/rules.md §2.1)
# ---------------------------------------------------------------------------


def test_both_ends_same_pip_only_end_0_and_orientation():
    """docs/rules.md §2.1: if both ends show the same pip, a tile's two placements are the same move:
    only end 0 is legal (contract). The tile is oriented so its right pip meets the left end."""
    hands = [[(3, 3), (1, 1)], [(3, 5), (6, 6), (0, 2)], [(3, 4), (2, 2)]]
    env = make("block", deal(hands, first=0), num_players=3)
    step(env, ((3, 3), 0))
    assert env.unwrapped.game_state.ends == (3, 3)
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, ((3, 5), 0))
    step(env, ((3, 5), 0))
    st = env.unwrapped.game_state
    assert st.line == [(5, 3), (3, 3)]
    assert (st.left, st.right) == (5, 3) and st.ends == (5, 3)
    # Seat 2: 3-4 fits the right end only.
    assert legal(env) == expect(env, ((3, 4), 1))
    step(env, ((3, 4), 1))
    assert env.unwrapped.game_state.line == [(5, 3), (3, 3), (3, 4)]
    assert env.unwrapped.game_state.ends == (5, 4)


def test_tile_matching_both_ends_has_two_distinct_actions():
    """docs/rules.md §2.1: a tile matching the left and the right end has two placements (two actions);
    a tile matching one end only has one."""
    hands = [[(2, 4), (0, 0)], [(4, 5), (1, 1)], [(2, 5), (2, 2), (5, 6), (0, 1)]]
    env = make("block", deal(hands, first=0), num_players=3)
    st = env.unwrapped.game_state
    step(env, ((2, 4), 0))
    four = 0 if st.left == 4 else 1  # the lead's orientation is not part of the contract
    step(env, ((4, 5), four))
    assert sorted(st.ends) == [2, 5]
    two, five = (0, 1) if st.left == 2 else (1, 0)
    assert legal(env) == expect(env, ((2, 5), 0), ((2, 5), 1), ((2, 2), two), ((5, 6), five))
    # 2-5 on the left end: oriented so its right pip meets the left end
    old = list(st.line)
    left = st.left
    step(env, ((2, 5), 0))
    other = 7 - left
    assert st.line == [(other, left)] + old
    assert st.ends == (other, other)


def test_tile_matching_both_ends_right_placement():
    hands = [[(2, 4), (0, 0)], [(4, 5), (1, 1)], [(2, 5), (0, 1)]]
    env = make("block", deal(hands, first=0), num_players=3)
    st = env.unwrapped.game_state
    step(env, ((2, 4), 0))
    step(env, ((4, 5), 0 if st.left == 4 else 1))
    old, right = list(st.line), st.right
    step(env, ((2, 5), 1))
    assert st.line == old + [(right, 7 - right)]
    assert st.ends == (7 - right, 7 - right)


def test_must_play_if_able_no_pass_or_draw():
    """docs/rules.md §2.1: a player must play if able; passing (and drawing, 2.2) only without a
    playable tile. Block and draw games alike."""
    hands = [[(6, 6), (0, 0)], [(6, 1), (2, 3), (4, 4)]]
    for kind, extra in (("block", {}), ("draw", {})):
        bone = [(5, 5), (1, 2)] if kind == "draw" else []
        env = make(kind, deal(hands, bone), num_players=2, **extra)
        assert legal(env) == expect(env, ((6, 6), 0))
        step(env, ((6, 6), 0))
        assert env.agent_selection == "player_1"
        assert legal(env) == expect(env, ((1, 6), 0))
        assert PASS(env) not in legal(env) and DRAW(env) not in legal(env)


def test_block_game_pass_when_nothing_fits():
    """docs/rules.md §2.1 / 2.2 block (seed 004): a player who cannot play passes; the turn moves on."""
    hands = [[(6, 6), (1, 1)], [(0, 1), (2, 3)], [(6, 2), (5, 5)]]
    env = make("block", deal(hands), num_players=3)
    step(env, ((6, 6), 0))
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, "PASS")
    step(env, "PASS")
    assert env.agent_selection == "player_2"
    assert legal(env) == expect(env, ((2, 6), 0))
    assert not env.unwrapped.game_state.round_over


def test_draw_game_draws_one_at_a_time_until_a_tile_fits_then_must_play():
    """docs/rules.md §2.2 draw (seed 003): no playable tile -> draw one tile per action (same player
    keeps acting) until one fits, then must play it (no more DRAW)."""
    hands = [[(6, 6), (6, 0), (1, 1)], [(2, 3), (4, 5)]]
    bone = [(1, 2), (3, 3), (5, 6), (0, 2), (4, 4)]
    env = make("draw", deal(hands, bone), num_players=2)
    st = env.unwrapped.game_state
    step(env, ((6, 6), 0))
    assert env.agent_selection == "player_1"
    for k, expected_size in ((0, 5), (1, 4), (2, 3)):
        assert legal(env) == expect(env, "DRAW")
        assert st.boneyard_size == expected_size
        step(env, "DRAW")
        assert env.agent_selection == "player_1"
        assert st.hand_size(1) == 3 + k
    # 5-6 drawn: it fits; DRAW is gone although the boneyard still has 2 tiles
    assert sorted(map(canon, st.hand_tiles(1))) == [[1, 2], [2, 3], [3, 3], [4, 5], [5, 6]]
    assert st.boneyard_size == 2
    assert legal(env) == expect(env, ((5, 6), 0))
    step(env, ((5, 6), 0))
    assert env.agent_selection == "player_0"
    assert st.ends == (5, 6)


def test_draw_game_pass_when_boneyard_empty():
    """docs/rules.md §2.2 draw: with an empty boneyard a player who cannot play passes."""
    hands = [[(6, 6), (6, 1), (3, 3)], [(2, 3)]]
    env = make("draw", deal(hands, [(4, 4)]), num_players=2)
    step(env, ((6, 6), 0))
    assert legal(env) == expect(env, "DRAW")
    step(env, "DRAW")
    assert env.unwrapped.game_state.boneyard_size == 0
    assert env.agent_selection == "player_1"
    assert legal(env) == expect(env, "PASS")
    step(env, "PASS")
    assert env.agent_selection == "player_0"
    assert legal(env) == expect(env, ((1, 6), 0))


# ---------------------------------------------------------------------------
# Domino (went out) scoring and rewards (docs/rules.md §2.1, seeds 003 / 004)
# ---------------------------------------------------------------------------

DOMINO3 = [[(6, 6), (1, 4)], [(5, 6), (3, 3)], [(4, 5), (2, 2)]]


def _play_domino3(env):
    step(env, ((6, 6), 0))
    step(env, ((5, 6), 0))
    step(env, ((4, 5), 0))
    assert env.unwrapped.game_state.ends == (4, 6)
    step(env, ((1, 4), 0))


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


DOMINO4 = [[(6, 6), (1, 4)], [(5, 6), (3, 3)], [(4, 5), (2, 2)], [(0, 0), (0, 1)]]


def _play_domino4(env):
    step(env, ((6, 6), 0))
    step(env, ((5, 6), 0))
    step(env, ((4, 5), 0))
    assert legal(env) == expect(env, "PASS")  # seat 3 holds no 4 or 6; seat 0 still can play
    step(env, "PASS")
    step(env, ((1, 4), 0))


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


def _blocked_deal(hands_rest, leader):
    """Leader holds 0-0 and leads it; no other 0-tile is dealt: blocked right after the lead."""
    hands = [list(h) for h in hands_rest]
    hands[leader] = [(0, 0)] + hands[leader]
    for h in hands:
        assert all(0 not in t for t in h if t != (0, 0))
    return deal(hands, first=leader)


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


# ---------------------------------------------------------------------------
# Configs, deals, presets
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"teams": True, "num_players": 3},
        {"teams": True, "num_players": 2},
        {"max_pip": 7},
        {"max_pip": 15},
        {"num_players": 5},
        {"num_players": 1},
        {"hand_size": 8},  # 4 x 8 = 32 > 28
        {"hand_size": 0},
        {"preset": "cuban", "num_players": 3},  # teams from the preset
        {"preset": "cuban", "max_pip": 6},  # 4 x 10 > 28
        {"next_lead": "loser"},
        {"target_score": 0},
        {"preset": "nope"},
        {"bogus": 1},
    ],
)
def test_bad_configs_raise_config_error(kwargs):
    with pytest.raises(ConfigError):
        line_v0.raw_env(**kwargs)


def test_largest_hands_are_accepted():
    line_v0.raw_env(hand_size=7, num_players=4)
    line_v0.raw_env(preset="draw", num_players=4, hand_size=7)
    line_v0.raw_env(preset="cuban", max_pip=12)


@pytest.mark.parametrize(
    "bad",
    [
        {"hands": [[[6, 6]], [[6, 6]], [], []]},  # duplicate
        {"hands": [[[7, 7]], [], [], []]},  # not in the double-6 set
        {"hands": [[[6, 6]], [], []]},  # 3 hands for 4 seats
        {"hands": [[[6, 6]], [[1, 1]], [], []], "boneyard": [[2, 2]]},  # boneyard in block game
        {"hands": [[[6, 6]], [[1, 1]], [], []], "first_player": 4},
        {"hands": [[[6, 6]], [[1, 1]], [], []], "first_player": -1},
        {"hands": [[[6, 6]], [[1, 1]], [], []], "station": [6, 6]},  # unknown key
        {"hands": [[[6]], [[1, 1]], [], []]},  # not a pair
        "not a dict",
    ],
)
def test_bad_deals_raise_deal_error(bad):
    env = block_v0.raw_env()
    with pytest.raises(DealError):
        env.reset(options={"deal": bad})


def test_bad_draw_deal_duplicate_between_hand_and_boneyard():
    env = draw_v0.raw_env()
    with pytest.raises(DealError):
        env.reset(options={"deal": {"hands": [[[6, 6]], [[1, 1]]], "boneyard": [[1, 1]]}})


def test_presets_fields():
    """docs/rules.md §2.2 presets; contract: draw keeps seed 003's 5,000-point target."""
    common = {
        "max_pip": 6,
        "hand_size": 7,
        "teams": False,
        "next_lead": "next_seat",
        "annul_doubles": None,
        "target_score": 100,
        "num_players": 4,
        "use_boneyard": False,
    }
    block = dict(common)
    draw = dict(common, num_players=2, use_boneyard=True, target_score=5000)
    cuban = dict(common, max_pip=9, hand_size=10, teams=True, next_lead="winner", annul_doubles=5)
    for mod, name, fields in (
        (block_v0, "block", block),
        (draw_v0, "draw", draw),
        (cuban_v0, "cuban", cuban),
    ):
        for cfg in (mod.raw_env().config, line_v0.raw_env(preset=name).config):
            assert cfg.preset == name
            for k, v in fields.items():
                assert getattr(cfg, k) == v, (name, k)
    e = cuban_v0.raw_env()
    e.reset(seed=3)
    st = e.unwrapped.game_state
    assert [st.hand_size(s) for s in range(4)] == [10] * 4  # 15 of 55 out of play
    assert st.boneyard_size == 0
    e = draw_v0.raw_env()
    e.reset(seed=3)
    assert e.unwrapped.game_state.boneyard_size == 28 - 14
    assert line_v0.raw_env().config.preset == "block"


# ---------------------------------------------------------------------------
# Observation: partner, known-missing pips (contract; docs/design.md)
# ---------------------------------------------------------------------------


def test_partner_field_with_and_without_teams():
    for teams, expected in ((True, [0, 0, 1, 0]), (False, [0, 0, 0, 0])):
        env = make("block", deal(FULL4), teams=teams)
        for s in range(4):
            assert obs_of(env, s)["partner"].tolist() == expected


def test_known_missing_pips_after_passes_accumulate_in_block_game():
    """A pass shows publicly that the passer holds no tile with either end's pip; in the block
    game hands never grow, so the knowledge accumulates."""
    hands = [[(6, 6), (6, 1), (1, 2), (2, 5)], [(3, 4), (4, 4), (3, 3)], [(6, 5), (1, 3), (0, 0)]]
    env = make("block", deal(hands), num_players=3)
    step(env, ((6, 6), 0))
    assert missing_row(env, 0, 1) == set()
    step(env, "PASS")  # seat 1 lacks 6
    for obs in (0, 2):
        assert missing_row(env, obs, 1) == {6}
    step(env, ((5, 6), 0))  # seat 2: ends (5, 6)
    step(env, ((1, 6), 1))  # seat 0: ends (5, 1)
    assert env.unwrapped.game_state.ends == (5, 1)
    step(env, "PASS")  # seat 1 lacks 5, 1
    assert missing_row(env, 0, 1) == {1, 5, 6}
    assert missing_row(env, 2, 1) == {1, 5, 6}
    assert missing_row(env, 1, 0) == set() and missing_row(env, 1, 2) == set()


def test_known_missing_pips_after_draws():
    """Draw game: a seat that draws shows it had no tile with either end's pip. After drawing and
    playing the drawn tile (the only tile that can fit), its hand still lacks those pips."""
    hands = [[(6, 6), (6, 0), (1, 1), (2, 2)], [(2, 3), (4, 5), (0, 3)]]
    bone = [(1, 2), (5, 6), (3, 3)]
    env = make("draw", deal(hands, bone), num_players=2)
    step(env, ((6, 6), 0))
    step(env, "DRAW")  # 1-2: no fit
    step(env, "DRAW")  # 5-6: fits
    step(env, ((5, 6), 0))  # ends (5, 6)
    assert missing_row(env, 0, 1) == {6}
    step(env, ((0, 6), 1))  # seat 0: ends (5, 0)
    assert env.unwrapped.game_state.ends == (5, 0)
    # seat 1 holds 4-5 and 0-3: plays 4-5; no new knowledge
    step(env, ((4, 5), 0))
    assert missing_row(env, 0, 1) == {6}
    # seat 0 holds 1-1, 2-2: no 4 or 0 -> draws 3-3 (no fit), boneyard empty -> passes
    step(env, "DRAW")
    assert legal(env) == expect(env, "PASS")
    step(env, "PASS")
    assert missing_row(env, 1, 0) == {0, 4}


@pytest.mark.parametrize("draws", [1, 2])
def test_known_missing_pips_after_one_or_more_draws(draws):
    """Draw game, exact public knowledge. Seat 1 is known to lack 6 (it drew at ends 6|6, then
    played the drawn tile). Later, at ends 5|0, it draws again:
    - mid-draw (an unseen tile just joined its hand) nothing is certain any more;
    - one draw then a play: the played tile is the drawn one, the hand is the old one: it lacks
      6, 5 and 0;
    - two draws then a play: the first drawn tile (2-6 here) stays in the hand, so only 5 and 0
      are certain; claiming 6 would be false."""
    hands = [[(6, 6), (0, 6), (4, 4)], [(2, 3)]]
    bone = [(5, 6)] + ([(2, 6)] if draws == 2 else []) + [(0, 1), (1, 5)]
    env = make("draw", deal(hands, bone), num_players=2)
    st = env.unwrapped.game_state
    step(env, ((6, 6), 0))
    step(env, "DRAW")
    step(env, ((5, 6), 0))
    assert missing_row(env, 0, 1) == {6}
    step(env, ((0, 6), 1))
    assert st.ends == (5, 0)
    step(env, "DRAW")
    assert env.agent_selection == "player_1"
    assert missing_row(env, 0, 1) == set()
    if draws == 2:
        step(env, "DRAW")
        assert missing_row(env, 0, 1) == set()
    assert legal(env) == expect(env, ((0, 1), 1))
    step(env, ((0, 1), 1))
    assert missing_row(env, 0, 1) == ({5, 0, 6} if draws == 1 else {5, 0})


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


def test_observation_public_fields_egocentric():
    """Contract / docs/design.md: the observation shows the observer's hand, the placed tiles, both
    ends, hand sizes, current player and leader (observer first), scores; nothing else."""
    env = make("block", deal(DOMINO4), teams=True)
    step(env, ((6, 6), 0))
    step(env, ((5, 6), 0))  # ends (5, 6)
    for observer in range(4):
        o = obs_of(env, observer)
        st = env.unwrapped.game_state
        own = np.zeros(28)
        own[[tidx(t, 6) for t in st.hand_tiles(observer)]] = 1
        assert o["hand"].tolist() == own.tolist()
        placed = np.zeros(28)
        placed[[tidx((6, 6), 6), tidx((5, 6), 6)]] = 1
        assert o["placed"].tolist() == placed.tolist()
        assert np.flatnonzero(o["left_end"]).tolist() == [5]
        assert np.flatnonzero(o["right_end"]).tolist() == [6]
        assert o["line_length"].tolist() == [2]
        sizes = [1, 1, 2, 2]  # seats 0..3
        assert o["hand_sizes"].tolist() == [sizes[(observer + k) % 4] for k in range(4)]
        assert np.flatnonzero(o["current_player"]).tolist() == [(2 - observer) % 4]
        assert np.flatnonzero(o["leader"]).tolist() == [(0 - observer) % 4]
        assert o["boneyard_size"].tolist() == [0]
        assert o["may_annul"].tolist() == [0]


def test_illegal_action_raises_and_changes_nothing():
    from domino_env.core.errors import IllegalActionError

    env = make("block", deal(FULL4))
    before = legal(env)
    for bad in (place(env, (5, 5), 0), place(env, (6, 6), 1), PASS(env), DRAW(env), ANNUL(env)):
        with pytest.raises(IllegalActionError):
            env.step(bad)
        assert env.agent_selection == "player_2" and legal(env) == before
        assert env.unwrapped.game_state.line == []


def test_line_ids_refuse_another_preset_and_empty_hands():
    """cuban_v0 / dominoes/Cuban-v0 play the Cuban preset only; a deal with an empty hand is
    refused (every seat needs a tile)."""
    import gymnasium

    import domino_env  # noqa: F401
    from domino_env import ConfigError, DealError
    from domino_env.envs import block_v0, cuban_v0

    with pytest.raises(ConfigError, match="preset"):
        cuban_v0.raw_env(preset="draw")
    with pytest.raises(ConfigError, match="preset"):
        gymnasium.make("dominoes/Cuban-v0", preset="block")
    e = block_v0.raw_env(num_players=2)
    with pytest.raises(DealError, match="empty"):
        e.reset(options={"deal": {"hands": [[], [[3, 4], [5, 5]]]}})
