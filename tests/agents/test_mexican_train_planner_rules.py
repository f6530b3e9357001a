"""The Mexican Train planner's numbered rules (``PlannerAgent``'s docstring), each on a
hand-built position: a deal through ``reset(options={"deal": ...})`` where the engine matters
(may_play, the last tile), else a :class:`SeatView` built by hand and the planner's ``choose``
(the move of ``__call__`` when there is a choice to make)."""

from __future__ import annotations

import pickle

import numpy as np

from domino_env.agents import GreedyAgent, PlannerAgent
from domino_env.agents.seat_view import SeatView
from domino_env.core.tiles import tile_index
from domino_env.envs.mexican_train_v0 import raw_env

N = 9  # double-9 set in every position here


def t(a, b):
    return tile_index(a, b, N)


def act(tile, slot, p):
    return t(*tile) * (p + 1) + slot


def decide(agent, env):
    obs = env.observe(env.agent_selection)
    return agent(obs["observation"], obs["action_mask"], np.random.default_rng(0))


def legal_of(env):
    return np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()


def test_may_play_keeps_an_uncoverable_drawn_double_and_passes():
    # Rule 3, first turn anywhere: seat 0 plays 9-4 on its own train, seat 1 starts the Mexican
    # train with 9-3, seat 0 plays 3-4 on it, seat 1 plays 9-5 on its own train. Seat 0 (no 4,
    # no 9) draws 4-4 under drawn_tile="may_play": it fits its own train and the Mexican train
    # (both end in 4), and PASS is legal too. No other 4 in hand: greedy places the double, the
    # planner keeps it and passes.
    deal = {
        "hands": [[[9, 4], [3, 4], [1, 2], [3, 5]], [[9, 3], [9, 5], [0, 0], [0, 2]]],
        "boneyard": [[4, 4], [6, 6]],
        "station": [9, 9],
        "first_player": 0,
    }
    env = raw_env(num_players=2, max_pip=N, drawn_tile="may_play", first_turn="any")
    env.reset(seed=0, options={"deal": deal})
    for move in (act((4, 9), 0, 2), act((3, 9), 2, 2), act((3, 4), 2, 2), act((5, 9), 0, 2)):
        env.step(move)
    (draw,) = legal_of(env)
    env.step(draw)
    assert env.agent_selection == "player_0"
    planner = PlannerAgent(env.config)
    assert legal_of(env) == [act((4, 4), 0, 2), act((4, 4), 2, 2), planner.pass_action]
    assert decide(GreedyAgent(env.config), env) == act((4, 4), 0, 2)
    assert decide(planner, env) == planner.pass_action


def test_greedy_breaks_a_weight_tie_between_two_tiles_by_the_slot():
    # Own end 4, Mexican train 9: 4-8 (own train only) and 3-9 (Mexican train only) weigh 12
    # each. The own train wins the tie although 3-9 has the lower tile index.
    deal = {
        "hands": [[[9, 4], [4, 8], [3, 9], [1, 1]], [[9, 5], [0, 0], [0, 2]]],
        "boneyard": [],
        "station": [9, 9],
        "first_player": 0,
    }
    env = raw_env(num_players=2, max_pip=N)
    env.reset(seed=0, options={"deal": deal})
    env.step(act((4, 9), 0, 2))
    env.step(act((5, 9), 0, 2))
    assert legal_of(env) == sorted([act((4, 8), 0, 2), act((3, 9), 2, 2)])
    assert t(3, 9) < t(4, 8)
    assert decide(GreedyAgent(env.config), env) == act((4, 8), 0, 2)


# ------------------------------------------------------------------ seat views built by hand
def view(hand, ends, marker=(False, True, True), in_play=(True, True, True), open_doubles=()):
    """A 2-player seat view: slot 0 = own train, 1 = seat 1's train, 2 = the Mexican train."""
    idx = sorted(t(a, b) for a, b in hand)
    return SeatView(
        hand=idx,
        hand_mask=sum(1 << i for i in idx),
        ends=list(ends),
        in_play=list(in_play),
        marker=list(marker),
        open_doubles=list(open_doubles),
        hand_sizes=[len(hand), 5],
        boneyard=0,
        drawn_tile=-1,
    )


def choice(planner, v, moves):
    """The planner's action among the placements ``moves`` ((tile, slot) pairs)."""
    places = sorted((t(*tile), slot) for tile, slot in moves)
    return planner.choose(v, places)[1]


def planner2(**rules):
    return PlannerAgent(raw_env(num_players=2, max_pip=N, **rules).config)


def test_double_rule_an_uncoverable_double_costs_one_tile():
    # Own end 2 (chain 2-3, 3-4), seat 1's public train ends in 7, the Mexican train in 5. The
    # spare double 5-5 (10 pips) outweighs the spare 7-1 (8), but no other 5 covers it: 7-1
    # goes on seat 1's train. Under doubles="no_cover" (no double to cover) the rule is off.
    moves = [((2, 3), 0), ((5, 5), 2), ((1, 7), 1)]
    v = view([(2, 3), (3, 4), (5, 5), (1, 7)], ends=(2, 7, 5))
    planner = planner2()
    assert choice(planner, v, moves) == act((1, 7), 1, 2)
    key, action, double_ok = planner.choose(v, [(t(5, 5), 2)])
    assert (action, double_ok) == (act((5, 5), 2, 2), 0)
    assert choice(planner2(doubles="no_cover"), v, moves) == act((5, 5), 2, 2)
    # with 5-1 in hand to cover it, the double is the heaviest spare and goes first
    covered = view([(2, 3), (3, 4), (5, 5), (1, 7), (1, 5)], ends=(2, 7, 5))
    assert choice(planner, covered, [*moves, ((1, 5), 2)]) == act((5, 5), 2, 2)


def test_lift_the_marker_plays_the_plan_on_the_public_own_train():
    # The same table with the own train public (marker down): the chain's next tile 2-3 on the
    # own train loses nothing of the plan and comes before the spare 7-1 (the spare first while
    # the own train is private).
    moves = [((2, 3), 0), ((1, 7), 1)]
    hand = [(2, 3), (3, 4), (1, 7)]
    planner = planner2()
    assert choice(planner, view(hand, (2, 7, 5), marker=(True, True, True)), moves) == act(
        (2, 3), 0, 2
    )
    assert choice(planner, view(hand, (2, 7, 5)), moves) == act((1, 7), 1, 2)
    # A play on the own train that breaks the plan does not lift the marker: 2-9 on the own
    # train would leave no chain (end 9); the spare 7-1 goes first.
    hand2 = [(2, 3), (3, 4), (2, 9), (1, 7)]
    moves2 = [((2, 3), 0), ((2, 9), 0), ((1, 7), 1)]
    marked = view(hand2, (2, 7, 5), marker=(True, True, True))
    assert choice(planner, marked, [((2, 9), 0), ((1, 7), 1)]) == act((1, 7), 1, 2)
    assert choice(planner, marked, moves2) == act((2, 3), 0, 2)


def test_flexibility_then_an_opponents_train_before_the_mexican_train():
    # Spare 6-7 fits seat 1's public train (end 7) and the Mexican train (end 6). On seat 1's
    # train both public ends become 6 (one spare left fits: 0-6), on the Mexican train both are 7
    # (two fit: 1-7 and 0-7): flexibility sends it to the Mexican train.
    planner = planner2()
    hand = [(2, 3), (3, 4), (6, 7), (0, 6), (1, 7), (0, 7)]
    moves = [((2, 3), 0), ((6, 7), 1), ((6, 7), 2), ((0, 6), 2), ((1, 7), 1), ((0, 7), 1)]
    assert choice(planner, view(hand, (2, 7, 6)), moves) == act((6, 7), 2, 2)
    # The same with the 0-0 as the spare left: 0-7 on the Mexican train (end 7) makes both public
    # ends 0, where the 0-0 fits; on seat 1's train (end 0) both would be 7.
    hand = [(2, 3), (3, 4), (0, 7), (0, 0)]
    moves = [((2, 3), 0), ((0, 7), 1), ((0, 7), 2), ((0, 0), 1)]
    assert choice(planner, view(hand, (2, 0, 7)), moves) == act((0, 7), 2, 2)
    # Both public trains end in 7: the spare 5-7 leaves the same ends either way; seat 1's train
    # wins.
    # (Counted over both public ends, the Mexican train's too: the sevens 1-7 and 0-7 fit
    # either way.)
    hand = [(2, 3), (3, 4), (5, 7), (1, 7), (0, 7)]
    moves = [((2, 3), 0), *((tile, k) for tile in ((5, 7), (1, 7), (0, 7)) for k in (1, 2))]
    assert choice(planner, view(hand, (2, 7, 7)), moves) == act((5, 7), 1, 2)
    # and seat 1's: with the fives 1-5 and 0-5 as the other spares, the same.
    hand = [(2, 3), (3, 4), (5, 7), (1, 5), (0, 5)]
    moves = [((2, 3), 0), ((5, 7), 1), ((5, 7), 2)]
    assert choice(planner, view(hand, (2, 7, 7)), moves) == act((5, 7), 1, 2)


def test_chain_search_edges_go_towards_well_stocked_pips_first():
    # Hand 0-2, 2-3, 2-4 (three tiles with a 2), 0-8 (the only 8) and 5-5 (a double: not an
    # edge). From pip 0 the edge to 2 comes first although 0-8 is heavier; from pip 2 the edge
    # to 0 (two tiles with a 0) comes first, then those to 4 and 3 (one tile each) by weight.
    planner = planner2()
    hand = [(0, 2), (2, 3), (2, 4), (0, 8), (5, 5)]
    mask = sum(1 << t(a, b) for a, b in hand)
    adj = planner.adjacency(mask)
    assert adj[0] == [(t(0, 2), 2), (t(0, 8), 8)]
    assert adj[2] == [(t(0, 2), 0), (t(2, 4), 4), (t(2, 3), 3)]
    assert adj[5] == [] and adj[9] == []
    # A budget of two nodes: the first edge's chain is the best found (0-2, not the heavier 0-8).
    assert planner.longest_chain(0, mask, budget=2) == ([t(0, 2)], 1002)
    # Unbounded: the longest chain 0-2, 2-4 (2-3 would weigh one pip less).
    assert planner.longest_chain(0, mask)[0] == [t(0, 2), t(2, 4)]
    # Equally stocked pips: the heavier tile first, 1-9 before 1-2 (tile index order is the
    # other way), and 2-5 before 0-2 when the 0-0 is worth 10 points (0-2 still weighs 2 pips).
    assert planner.adjacency(1 << t(1, 2) | 1 << t(1, 9))[1] == [(t(1, 9), 9), (t(1, 2), 2)]
    ten = planner2(double_blank_points=10)
    assert ten.adjacency(1 << t(0, 2) | 1 << t(2, 5))[2] == [(t(2, 5), 5), (t(0, 2), 0)]


def dfs_calls(planner, end, mask, **kw):
    """``(longest_chain(end, mask, **kw), number of search nodes it visited)``."""
    import sys

    nodes = 0

    def count(frame, event, arg):
        nonlocal nodes
        nodes += event == "call" and frame.f_code.co_name == "dfs"

    sys.setprofile(count)
    try:
        result = planner.longest_chain(end, mask, **kw)
    finally:
        sys.setprofile(None)
    return result, nodes


def test_chain_search_stops_once_every_tile_is_chained():
    # 0-1, 1-2, 0-2 from end 0: the first path (0-2, the heavier edge, then 2-1, 1-0) chains all
    # three tiles; the search stops there (4 nodes: the start and one per tile) instead of also
    # trying the other direction round the cycle.
    planner = planner2()
    mask = 1 << t(0, 1) | 1 << t(1, 2) | 1 << t(0, 2)
    (chain, weight), nodes = dfs_calls(planner, 0, mask)
    assert chain == [t(0, 2), t(1, 2), t(0, 1)] and weight == 3006
    assert nodes == 4
    # With the double 2-2 too: it is taken as soon as pip 2 is reached, and the search still
    # stops at the fourth tile.
    (chain, weight), nodes = dfs_calls(planner, 0, mask | 1 << t(2, 2))
    assert chain == [t(0, 2), t(2, 2), t(1, 2), t(0, 1)] and weight == 4010
    assert nodes == 4


def test_chain_search_takes_a_double_as_soon_as_its_pip_is_reached():
    # Doubles are not edges of the search: the plan lays them on reaching their pip, at the
    # open end itself or in the middle of the chain.
    planner = planner2()
    mask = 1 << t(4, 4) | 1 << t(1, 4) | 1 << t(1, 6)
    assert planner.longest_chain(4, mask) == ([t(4, 4), t(1, 4), t(1, 6)], 3020)
    mask = 1 << t(2, 4) | 1 << t(4, 4) | 1 << t(1, 4)
    assert planner.longest_chain(2, mask) == ([t(2, 4), t(4, 4), t(1, 4)], 3019)


def test_chain_search_does_not_expand_a_table_reached_again():
    # From end 0 with the cycle 0-2, 2-1, 1-0, then 0-5, and 7-8 that never fits: the first path
    # 0-2, 1-2, 0-1, 0-5 is the best (5 nodes). Round the cycle the other way (0-1, 1-2, 0-2: 3
    # nodes) it is back at pip 0 with the same tiles left and the same weight: that node is not
    # expanded again; then 0-5 from the start (1 node): 9 in all.
    planner = planner2()
    mask = sum(1 << t(a, b) for a, b in [(0, 1), (1, 2), (0, 2), (0, 5), (7, 8)])
    (chain, weight), nodes = dfs_calls(planner, 0, mask)
    assert chain == [t(0, 2), t(1, 2), t(0, 1), t(0, 5)] and weight == 4011
    assert nodes == 9


def test_chain_search_keeps_the_first_of_equal_chains():
    # From end 0: 0-2, 2-3 and 0-1, 1-5 are two chains of two tiles and 7 pips each. The edge
    # to 2 is tried first (the heavier tile, both pips hold two tiles), and an equal chain found
    # later does not replace it.
    planner = planner2()
    mask = sum(1 << t(a, b) for a, b in [(0, 1), (1, 5), (0, 2), (2, 3)])
    assert planner.longest_chain(0, mask) == ([t(0, 2), t(2, 3)], 2007)


def test_the_last_tile_goes_out_on_the_first_legal_train():
    # First turn anywhere: seat 0 plays 9-3 on its own train, seat 1 starts the Mexican train
    # with 9-6. Seat 0's last tile 3-6 fits its own train (3) and the Mexican train (6): it goes
    # out on the own train (the first legal placement; the plan has nothing left to weigh).
    deal = {
        "hands": [[[9, 3], [3, 6]], [[9, 6], [0, 0], [1, 1]]],
        "boneyard": [],
        "station": [9, 9],
        "first_player": 0,
    }
    env = raw_env(num_players=2, max_pip=N, first_turn="any")
    env.reset(seed=0, options={"deal": deal})
    env.step(act((3, 9), 0, 2))
    env.step(act((6, 9), 2, 2))
    assert legal_of(env) == [act((3, 6), 0, 2), act((3, 6), 2, 2)]
    assert decide(PlannerAgent(env.config), env) == act((3, 6), 0, 2)


def test_plan_breaking_moves_cost_only_what_the_re_plan_loses():
    # Own end 0 with 0-6 and 0-1: the plan is the heavier 0-6, 0-1 is a spare. Seat 1's public
    # train ends in 6, the Mexican train in 1. The spare 0-1 on the Mexican train keeps the plan
    # (1001 + 1006); 0-6 on seat 1's train breaks it, but the re-plan chains 0-1 instead: the
    # same value (1006 + 1001), and it leaves the spare 0-1 fitting both public ends (0 and 1):
    # flexibility picks it. It is found only by re-planning the plan-breaking moves whose
    # optimistic key beats the best exact one, best bound first.
    planner = planner2()
    v = view([(0, 1), (0, 6)], ends=(0, 6, 1))
    moves = [((0, 1), 0), ((0, 1), 2), ((0, 6), 0), ((0, 6), 1)]
    assert choice(planner, v, moves) == act((0, 6), 1, 2)
    # planner:8: the re-plans get 8 // 8 = 1 search node (the open end alone), which finds no
    # chain after 0-6 elsewhere: then the spare 0-1 on the Mexican train is worth more.
    small = PlannerAgent(planner.config, budget=8)
    assert choice(small, v, moves) == act((0, 1), 2, 2)
    # planner:16: two nodes (16 // 8) are enough to re-plan 0-1, as with the default budget.
    assert choice(PlannerAgent(planner.config, budget=16), v, moves) == act((0, 6), 1, 2)
    # Own train public (own end 1), plan 1-6, 6-2; spares 1-2 and 3-4. The spare 1-2 on the own
    # train re-plans to 2-6, 6-1 (as long): it loses nothing, so it lifts the marker, and it
    # sheds a tile more than the plan's first tile 1-6 (which lifts the marker too).
    v = view([(1, 2), (1, 6), (2, 6), (3, 4)], ends=(1, 2, 0), marker=(True, True, True))
    moves = [((1, 2), 0), ((1, 2), 1), ((1, 6), 0), ((2, 6), 1)]
    assert choice(planner, v, moves) == act((1, 2), 0, 2)
    # The same with seat 1's train private: the marker of the seat's own train is what counts.
    v = view([(1, 2), (1, 6), (2, 6), (3, 4)], ends=(1, 2, 0), marker=(True, False, True))
    assert choice(planner, v, [((1, 2), 0), ((1, 6), 0)]) == act((1, 2), 0, 2)


def test_equal_own_train_moves_go_to_the_lowest_tile():
    # Own train public (end 3), seat 1's train private, the Mexican train ends in 5. The plan is
    # 3-3, 3-4, 4-2, 2-2, 2-3 (five tiles, 28 pips). The plan's first tile 3-3, and 3-4 or 2-3 on
    # the own train (re-plans 4-2, 2-2, 2-3, 3-3 and 2-2, 2-4, 4-3, 3-3) all keep five tiles and
    # 28 pips and lift the marker. The spare 1-4 fits no public end after any of them (the own
    # train, public or not, is not counted by flexibility): the lowest tile, 2-3, goes.
    planner = planner2()
    hand = [(1, 4), (2, 2), (2, 3), (2, 4), (3, 3), (3, 4)]
    v = view(hand, ends=(3, 1, 5), marker=(True, False, True))
    moves = [((2, 3), 0), ((3, 3), 0), ((3, 4), 0)]
    assert choice(planner, v, moves) == act((2, 3), 0, 2)
    keys = [k[0] for k in planner.placement_keys(v, sorted((t(*m), s) for m, s in moves))]
    assert [k[:4] for k in keys] == [(1, 5000 + 28, 0, 0)] * 3


def test_flexibility_ignores_a_private_train():
    # 3 players: seat 1's train public (end 7), seat 2's private (end 7), the Mexican train ends
    # in 6. The spare 6-7 on the Mexican train leaves the public ends 7 / 7 (1-7 and 0-7 fit), on
    # seat 1's train 6 / 6 (0-6 fits): the Mexican train, as seat 2's 7 does not count.
    planner = PlannerAgent(raw_env(num_players=3, max_pip=N).config)
    hand = [(2, 3), (3, 4), (6, 7), (1, 7), (0, 7), (0, 6)]
    idx = sorted(t(a, b) for a, b in hand)
    v = SeatView(
        hand=idx, hand_mask=sum(1 << i for i in idx), ends=[2, 7, 7, 6],
        in_play=[True] * 4, marker=[False, True, False, True], open_doubles=[],
        hand_sizes=[6, 5, 5], boneyard=0, drawn_tile=-1,
    )  # fmt: skip
    moves = [((2, 3), 0), ((6, 7), 1), ((6, 7), 3), ((1, 7), 1), ((0, 7), 1), ((0, 6), 3)]
    assert choice(planner, v, moves) == act((6, 7), 3, 3)


def test_without_the_plan_the_heaviest_tile_goes():
    # The ablation switch plan=False (docs/agents.md): no chain, a move is worth its tile alone.
    # Own end 2 with the chain 2-3, 3-4; 2-8 would break it, 1-7 is a spare for seat 1's train.
    v = view([(2, 3), (3, 4), (2, 8), (1, 7)], ends=(2, 7, 5))
    moves = [((2, 3), 0), ((2, 8), 0), ((1, 7), 1)]
    planner = planner2()
    assert choice(planner, v, moves) == act((1, 7), 1, 2)
    planner.plan = False
    assert choice(planner, v, moves) == act((2, 8), 0, 2)


def test_one_tile_tying_on_two_trains_goes_to_the_higher_action():
    """Rule 2e's last tie (agents/mexican_train.py): 1-5 on the own train (end 5) and on the
    Mexican train (end 1) tie on every term, and the planner takes the higher action, the Mexican
    train's (its docstring said "the lowest action" until 2026-12-06; the code, which every
    published planner result played, was kept). Played through the env: 2 players, double-9."""
    env = raw_env(num_players=2, max_pip=N, first_turn="any")
    deal = {"hands": [[[9, 5], [1, 5], [3, 3]], [[9, 1], [0, 0], [0, 2]]], "boneyard": [], "station": [9, 9],
            "first_player": 0}  # fmt: skip
    env.reset(seed=0, options={"deal": deal})
    env.step(act((5, 9), 0, 2))
    env.step(act((1, 9), 2, 2))  # seat 1 starts the Mexican train
    obs = env.observe("player_0")
    planner = PlannerAgent(env.config)
    own, mexican = act((1, 5), 0, 2), act((1, 5), 2, 2)
    assert np.flatnonzero(obs["action_mask"]).tolist() == [own, mexican]
    v = planner.view(obs["observation"])
    first, second = planner.placement_keys(v, planner.placements([own, mexican]))
    assert first[0] == second[0]  # the whole sort key ties
    assert planner(obs["observation"], obs["action_mask"], np.random.default_rng(0)) == mexican
    assert planner.state_move(env.game_state) == mexican
    assert planner.rank_actions(obs["observation"], obs["action_mask"]) == [mexican, own]


def test_the_chain_memo_answers_repeats_and_stays_bounded(monkeypatch):
    # ``_chain``: longest_chain through a memo keyed by (end, hand, budget); a repeat is answered
    # from the memo, and a memo holding 4096 chains is emptied before the next new one is stored.
    planner = planner2()
    mask = sum(1 << t(a, b) for a, b in [(0, 2), (2, 3), (2, 4), (0, 8)])
    adj = planner.adjacency(mask)
    calls, real = [], planner.longest_chain
    monkeypatch.setattr(planner, "longest_chain", lambda *a: calls.append(a[:3]) or real(*a))
    first = planner._chain(0, mask, 400, adj)
    assert first == ([t(0, 2), t(2, 4)], 2008)
    assert planner._chain(0, mask, 400, adj) is first and calls == [(0, mask, 400)]
    assert planner._chain(0, mask, 1, adj) == ([], 0)  # the budget is part of the key
    assert planner._chain(8, mask, 400, adj) == ([t(0, 8), t(0, 2), t(2, 4)], 3016)
    assert len(calls) == 3 and len(planner._memo) == 3
    memo = planner._memo
    memo.clear()
    memo.update({(-1, i, 0): ([], 0) for i in range(4095)})
    planner._chain(0, mask, 400, adj)  # the 4096th chain: kept with the others
    assert len(memo) == 4096 and memo[(0, mask, 400)] == first
    planner._chain(2, mask, 400, adj)  # one more: the memo starts over
    assert list(memo) == [(2, mask, 400)]
    fresh = planner2()  # the memo is a cache, not part of the agent: a pickle leaves it out
    fresh._chain(0, mask, 400, adj)
    assert "_memo" in fresh.__dict__ and "_memo" not in pickle.loads(pickle.dumps(fresh)).__dict__
