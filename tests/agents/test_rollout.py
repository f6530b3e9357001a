"""The rollout policies of agents.rollout, move for move: each playout equals its policy (as the
module docstring states it) played one engine step at a time, and hand-built positions pin the
moves where the policies differ."""

import numpy as np
import pytest
from episode import start_line

from domino_env.agents.rollout import BLOCK_BONUS, block_move, playout, quick_chain
from domino_env.core.config import MexicanTrainConfig, line_from_preset
from domino_env.core.line import LineState
from domino_env.core.mexican_train import MexicanTrainState
from domino_env.core.tiles import set_tables, tile_index

MEXICAN_RULES = [
    {},
    {"num_players": 3, "max_pip": 9, "drawn_tile": "may_play"},
    {"num_players": 2, "max_pip": 9, "doubles": "chain", "double_blank_points": 10},
]
LINE_PRESETS = [("block", {}), ("block", {"num_players": 2}), ("draw", {}), ("cuban", {})]


def _tile_of(state, action):
    """The tile index of a placement (actions below ``draw_action``)."""
    return action >> 1 if isinstance(state, LineState) else action // (state.num_players + 1)


def greedy_reference(state):
    """The docstring's ``"greedy"``: the heaviest placement (ties: the lowest action), else the
    first legal action (DRAW or PASS); ANNUL never while a placement exists."""
    legal = state.legal_actions()
    places = [a for a in legal if a < state.draw_action]
    if not places:
        return legal[0]
    values = state._t.values
    return max(places, key=lambda a: (values[_tile_of(state, a)], -a))


def block_reference(state):
    """The docstring's ``"block"``: greedy plus ``BLOCK_BONUS`` for a placement after which the
    next seat holds no tile fitting the ends, the ends read from the engine after the move."""
    legal = state.legal_actions()
    places = [a for a in legal if a < state.draw_action]
    if not places:
        return legal[0]
    t = state._t
    nxt = state.hands[(state.current_player + 1) % state.num_players]

    def score(a):
        after = state.copy()
        after.apply(a)
        left, right = after.ends
        blocked = not nxt & (t.pip_masks[left] | t.pip_masks[right])
        return (t.values[a >> 1] + (BLOCK_BONUS if blocked else 0), -a)

    return max(places, key=score)


def step_through(state, choose):
    """Play ``state`` to the end of its round, ``choose(state)`` at every decision; its actions."""
    while not state.round_over:
        state.apply(choose(state))
    return state.actions


def uniform_from(rng):
    """The docstring's ``"random"``: a uniform legal action from ``rng``, ANNUL excluded."""

    def choose(state):
        legal = [a for a in state.legal_actions() if a != getattr(state, "annul_action", -1)]
        return legal[int(rng.integers(len(legal)))]

    return choose


def new_mexican(rules, seed):
    return MexicanTrainState.new_game(MexicanTrainConfig(**rules), np.random.default_rng(seed))


def new_line(preset, rules, seed):
    return LineState.new_game(line_from_preset(preset, **rules), np.random.default_rng(seed))


@pytest.mark.parametrize("rules", MEXICAN_RULES)
def test_the_greedy_mexican_playout_plays_the_heaviest_placement_at_every_step(rules):
    for seed in range(4):
        start = new_mexican(rules, seed)
        want = step_through(start.copy(), greedy_reference)
        state = start.copy()
        result = playout(state, "greedy")
        assert state.actions == want and len(want) > 10
        assert result is state.round_result and result.termination in ("went_out", "blocked")


@pytest.mark.parametrize(("preset", "rules"), LINE_PRESETS)
def test_the_greedy_and_block_line_playouts_play_their_policy_at_every_step(preset, rules):
    differ = 0
    for seed in range(6):
        start = new_line(preset, rules, seed)
        for policy, reference in (("greedy", greedy_reference), ("block", block_reference)):
            want = step_through(start.copy(), reference)
            state = start.copy()
            assert playout(state, policy).termination in ("went_out", "blocked", "annulled")
            assert state.actions == want
        # block_move itself, at every decision of a greedy round
        state = start.copy()
        while not state.round_over:
            assert block_move(state) == block_reference(state)
            differ += block_move(state) != greedy_reference(state)
            state.apply(greedy_reference(state))
    assert differ > 0  # the bonus changed some moves: the two policies were told apart


@pytest.mark.parametrize(
    ("state_of", "arg"),
    [(new_mexican, ({},)), (new_mexican, (MEXICAN_RULES[1],)), (new_line, ("cuban", {})), (new_line, ("draw", {}))],
)
def test_the_random_playout_draws_each_move_uniformly_from_the_rng_without_annul(state_of, arg):
    for seed in range(4):
        start = state_of(*arg, seed)
        want = step_through(start.copy(), uniform_from(np.random.default_rng(100 + seed)))
        state = start.copy()
        playout(state, "random", np.random.default_rng(100 + seed))
        assert state.actions == want
    with pytest.raises(ValueError, match="policy 'random' needs an rng"):
        playout(start.copy(), "random")


def _cuban_five_doubles(seat):
    """A Cuban round whose ``seat`` (0 or 1) was dealt five doubles, at that seat's first turn:
    seat 0 leads (any tile, or ANNUL); seat 1 holds no 8 or 9 after seat 0 leads the 8-9 (PASS
    or ANNUL)."""
    doubles = [(i, i) for i in range(5)]
    rest = [(a, b) for a in range(10) for b in range(a, 10) if a != b]
    if seat == 0:
        hands = [doubles + rest[:5], rest[5:15], rest[15:25], rest[25:35]]
    else:
        low = [(0, b) for b in range(1, 6)]
        others = [t for t in rest if t not in low and t != (8, 9)]
        hands = [[(8, 9)] + others[:9], doubles + low, others[9:19], others[19:29]]
    deal = {"hands": [[list(t) for t in h] for h in hands], "first_player": 0}
    state = LineState.new_game(line_from_preset("cuban"), None, deal)
    if seat == 1:
        state.apply(2 * tile_index(8, 9, 9))
        assert state.legal_actions() == [state.pass_action, state.annul_action]
    else:
        assert len(state.legal_actions()) == 11 and state.legal_actions()[-1] == state.annul_action
    return state


@pytest.mark.parametrize("seat", [0, 1])
def test_no_rollout_annuls_and_each_plays_its_policy_beside_an_annul(seat):
    """ANNUL (the last legal action) is never chosen: greedy and block play their placement (or
    PASS), random draws uniformly from the other legal actions."""
    start = _cuban_five_doubles(seat)
    for policy, reference in (("greedy", greedy_reference), ("block", block_reference)):
        state = start.copy()
        assert playout(state, policy).termination != "annulled"
        assert state.actions == step_through(start.copy(), reference)
    first = set()
    for seed in range(12):
        state = start.copy()
        assert playout(state, "random", np.random.default_rng(seed)).termination != "annulled"
        assert state.actions == step_through(start.copy(), uniform_from(np.random.default_rng(seed)))
        first.add(state.actions[start.round_start + (seat == 1)])
    assert len(first) > (seat == 0)  # seat 0 led several different tiles


def test_block_plays_to_the_ends_the_next_seat_lacks_and_greedy_the_heaviest_tile():
    """Seat 0 leads (any tile) from 5-5, 1-5 and 2-3; seat 1 holds a 5 but no 2 or 3: greedy
    leads the 5-5, block the 2-3 (5 pips + the bonus 10 beat the 5-5's 10)."""
    env = start_line({"hands": [[[5, 5], [1, 5], [2, 3]], [[4, 5], [1, 1]]], "first_player": 0},
                     num_players=2)  # fmt: skip
    state = env.game_state
    assert block_move(state) == 2 * tile_index(2, 3, 6)
    assert greedy_reference(state) == 2 * tile_index(5, 5, 6)
    played = state.copy()
    playout(played, "block")
    assert played.actions[0] == 2 * tile_index(2, 3, 6)
    played = state.copy()
    playout(played, "greedy")
    assert played.actions[0] == 2 * tile_index(5, 5, 6)


def test_the_block_bonus_is_ten_pips_and_a_tie_goes_to_the_lower_action():
    """Leading 5-6 (11 pips) leaves seat 1 a 5; the 0-0 (0 pips) blocks it: 0 + 10 < 11, so block
    leads the 5-6. With a 1-0 instead of the 0-0 (1 + 10 = 11, a tie) it leads the lower action,
    the 1-0."""
    for blocker, want in (([0, 0], (5, 6)), ([0, 1], (0, 1))):
        deal = {"hands": [[[5, 6], blocker], [[5, 5], [2, 2]]], "first_player": 0}
        state = start_line(deal, num_players=2).game_state
        assert block_move(state) == 2 * tile_index(*want, 6)


def test_block_reads_the_end_the_placement_opens_on_either_side():
    """Line 3-4 after the lead; seat 0 holds 3-6 and 4-1 (and 0-0 to keep the round running);
    seat 1 holds 6-6 and 2-2... Placing 3-6 on the left opens a 6 (seat 1 plays the 6-6), placing
    4-1 on the right opens a 1 (seat 1 blocked): block plays the 4-1 on the right though the 3-6
    is heavier."""
    deal = {
        "hands": [[[3, 4], [3, 6], [1, 4], [0, 0]], [[6, 6], [2, 2], [2, 5]]],
        "first_player": 0,
    }
    state = start_line(deal, num_players=2).game_state
    state.apply(2 * tile_index(3, 4, 6))  # seat 0 leads 3-4
    state.apply(state.pass_action)  # seat 1 holds no 3 or 4
    assert state.ends == (3, 4) and state.current_player == 0
    assert block_move(state) == 2 * tile_index(1, 4, 6) + 1
    assert greedy_reference(state) == 2 * tile_index(3, 6, 6)


def test_quick_chain_takes_the_best_stocked_pip_and_breaks_ties_by_the_lower_tile():
    """From 9 with 1-9, 2-9, 2-3, 2-4: the 2-9 (two tiles carry a 2; none a 1, so not the lower
    1-9), then from 2 the 2-3 and the 2-4 tie (nothing carries a 3 or a 4): the lower, 2-3."""
    t = set_tables(9)
    hand = sum(1 << tile_index(a, b, 9) for a, b in [(9, 1), (9, 2), (2, 3), (2, 4)])
    assert [t.tiles[i] for i in quick_chain(9, hand, t)] == [(2, 9), (2, 3)]
    assert quick_chain(5, hand, t) == []  # nothing fits the end
    lone = 1 << tile_index(3, 9, 9)
    assert quick_chain(9, lone, t) == [tile_index(3, 9, 9)]  # a tile nothing follows still chains


def plan_reference(state, plans):
    """One move of the docstring's ``"plan"`` on ``state``, the chains memoised in ``plans``."""
    legal = state.legal_actions()
    seat, draw, slots = state.current_player, state.draw_action, state.num_players + 1
    key = (state.ends[seat], state.hands[seat])
    if len(legal) == 1 or legal[0] >= draw:  # no choice: only a draw carries the plan forward
        chain = plans.get(key) if legal[0] == draw else None
        state.apply(legal[0])
        if chain is not None:
            plans.setdefault((state.ends[seat], state.hands[seat]), chain)
        return
    if key not in plans:
        plans[key] = quick_chain(*key, state._t)
    chain = plans[key]
    values = state._t.values
    places = [a for a in legal if a < draw]
    spares = [a for a in places if a % slots != 0 and a // slots not in chain]
    follow = [a for a in places if a % slots == 0 and chain and a // slots == chain[0]]
    if spares:
        choice, rest = max(spares, key=lambda a: (values[a // slots], -a)), chain
    elif follow:
        choice, rest = follow[0], chain[1:]
    else:
        choice, rest = max(places, key=lambda a: (values[a // slots], -a)), None
    state.apply(choice)
    if rest is not None and not state.round_over:
        plans.setdefault((state.ends[seat], state.hands[seat]), rest)


@pytest.mark.parametrize("rules", MEXICAN_RULES + [{"num_players": 2, "first_turn": "any"}])
def test_the_plan_playout_plays_its_policy_at_every_step_and_keeps_the_same_memo(rules):
    shed = followed = 0
    for seed in range(5):
        start = new_mexican(rules, seed)
        want_plans = {}
        want = start.copy()
        while not want.round_over:
            plan_reference(want, want_plans)
        state, plans = start.copy(), {}
        result = playout(state, "plan", plans=plans)
        assert state.actions == want.actions and result is state.round_result
        assert plans == want_plans
        slots = start.num_players + 1
        shed += sum(a < start.draw_action and a % slots != 0 for a in want.actions)
        followed += sum(a < start.draw_action and a % slots == 0 for a in want.actions)
    assert shed > 5 and followed > 5


def _two_seats(hand0, boneyard=(), first_player=0, hand1=([4, 4], [5, 5], [6, 6])):
    """A 2-seat double-9 round (station 9-9, any train on the first turn)."""
    cfg = MexicanTrainConfig(num_players=2, max_pip=9, first_turn="any")
    deal = {"hands": [hand0, list(hand1)], "boneyard": [list(b) for b in boneyard],
            "station": [9, 9], "first_player": first_player}  # fmt: skip
    return MexicanTrainState.new_game(cfg, None, deal)


def test_plan_sheds_the_spare_then_follows_its_chain_where_greedy_plays_the_heaviest():
    """Seat 0 holds 1-9, 1-2, 2-3 (its chain from 9) and 8-9 (a spare): it sheds the 8-9 on the
    Mexican train, then plays the chain on its own train; greedy plays the 8-9 on its own train."""
    state = _two_seats([[9, 1], [1, 2], [2, 3], [9, 8]], boneyard=[(7, 7), (0, 0)])
    own, mexican = 0, 2
    tile = {pair: tile_index(*pair, 9) for pair in [(1, 9), (1, 2), (2, 3), (8, 9)]}
    played = state.copy()
    playout(played, "plan")
    mine = [a for a, s in zip(played.actions, played.actors, strict=True) if s == 0]
    assert mine == [
        3 * tile[8, 9] + mexican, 3 * tile[1, 9] + own, 3 * tile[1, 2] + own, 3 * tile[2, 3] + own
    ]
    assert played.round_result.winners == (0,)
    greedy = state.copy()
    playout(greedy, "greedy")
    assert greedy.actions[0] == 3 * tile[8, 9] + own


def test_plan_reads_a_chain_the_caller_memoised_for_the_seats_end_and_hand():
    """A memo entry ``(end, hand) -> chain`` is used as the chain: told the 8-9 alone is its chain,
    seat 0 sheds its heaviest spare, the 1-9, on the Mexican train."""
    state = _two_seats([[9, 1], [1, 2], [2, 3], [9, 8]], boneyard=[(7, 7), (0, 0)])
    plans = {(9, state.hands[0]): [tile_index(8, 9, 9)]}
    played = state.copy()
    playout(played, "plan", plans=plans)
    assert played.actions[0] == 3 * tile_index(1, 9, 9) + 2


def test_a_draw_carries_the_plan_forward_so_the_drawn_tile_is_a_spare():
    """Seat 0 (3-4 only, own end 9) draws the 5-9. With its memoised (empty) chain carried over
    the draw, the 5-9 is a spare and goes on the Mexican train; with no memo it is a new chain and
    goes on the own train."""
    state = _two_seats([[3, 4]], boneyard=[(5, 9), (0, 0)])
    assert state.legal_actions() == [state.draw_action]
    five_nine = tile_index(5, 9, 9)
    for plans, slot in (({(9, state.hands[0]): []}, 2), ({}, 0)):
        played = state.copy()
        playout(played, "plan", plans=plans)
        assert played.actions[:2] == [state.draw_action, 3 * five_nine + slot]


def test_plan_sheds_a_double_blank_spare_worth_no_pips():
    """Seat 1 opens the Mexican train with 9-0; seat 0 (chain 1-9, 1-2 from its own end 9) sheds
    its spare 0-0 there, though it is worth 0 pips, before following its chain."""
    state = _two_seats([[9, 1], [1, 2], [0, 0]], first_player=1, hand1=[[9, 0], [5, 5], [6, 6]])
    state.apply(3 * tile_index(0, 9, 9) + 2)  # seat 1: 9-0 on the Mexican train
    assert state.current_player == 0 and state.ends[2] == 0
    played = state.copy()
    playout(played, "plan")
    assert played.actions[1] == 3 * tile_index(0, 0, 9) + 2


def test_random_keeps_every_action_of_a_game_without_annul():
    """Mexican Train has no ANNUL (its states have no ``annul_action``): ``"random"`` drops only an
    ANNUL, so with the legal actions [0, 1] it plays each (a sentinel of 1 in place of -1 dropped
    action 1). A one-decision stand-in for the state, since [0, 1] needs the 0-0 on two trains."""

    class OneDecision:
        round_over, round_result = False, "result"

        def legal_actions(self):
            return [0, 1]

        def apply(self, action):
            self.played, self.round_over = action, True

    chosen = set()
    for seed in range(16):
        state = OneDecision()
        assert playout(state, "random", np.random.default_rng(seed)) == "result"
        chosen.add(state.played)
    assert chosen == {0, 1}
