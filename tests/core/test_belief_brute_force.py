"""Belief sampler against the engine itself: every deal of the hidden tiles under which the round's
public actions replay legally is in the sampler's support (it is uniform over a superset of the
consistent deals, never a smaller set), and the sampler is uniform over the deals that meet the
documented constraints (computed here from the public action list, not from the sampler), in
Mexican Train (with and without a boneyard) and the line games (draws, tiles out of play)."""

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from domino_env.core.belief import InformationState
from domino_env.core.config import MexicanTrainConfig, line_from_preset
from domino_env.core.deal import bits, tiles_as_pairs
from domino_env.core.errors import DominoError
from domino_env.core.line import LineState
from domino_env.core.mexican_train import MexicanTrainState
from domino_env.core.tiles import double_index

CASES = {
    "mexican_train_2p_d9_boneyard": MexicanTrainConfig(num_players=2, max_pip=9, hand_size=25),
    "mexican_train_3p_d9_no_boneyard": MexicanTrainConfig(num_players=3, max_pip=9, hand_size=16, use_boneyard=False),
    "draw_3p_hand_8": line_from_preset("draw", num_players=3, hand_size=8),
    "block_3p_hand_4": line_from_preset("block", num_players=3, hand_size=4),
}


def _rank(tile):
    a, b = tile
    return (1, a, 0) if a == b else (0, a + b, b)


def _tile_of(state, action):
    return action // 2 if isinstance(state, LineState) else action // (state.num_players + 1)


def _history(state):
    """(actor, action) of every action of the first round, replayed from its deal record."""
    replay = type(state).new_game(state.config, None, state.deals[0])
    out = []
    for a in state.actions:
        out.append((replay.current_player, a))
        replay.apply(a)
    return out


def _hidden(state, seat):
    seen = state.hands[seat] | state.placed
    if isinstance(state, MexicanTrainState):
        seen |= 1 << double_index(state.station, state.config.max_pip)
    return ((1 << state.num_tiles) - 1) & ~seen


def _completions(state, seat):
    """Every (hands of the other seats, boneyard list) with the public sizes."""
    others = [s for s in range(state.num_players) if s != seat]
    out = []

    def rec(k, left, hands):
        if k == len(others):
            out.extend((tuple(hands), order) for order in itertools.permutations(left, len(state.boneyard)))
            return
        for combo in itertools.combinations(left, state.hands[others[k]].bit_count()):
            rest = [x for x in left if x not in combo]
            rec(k + 1, rest, [*hands, sum(1 << x for x in combo)])

    rec(0, bits(_hidden(state, seat)), [])
    return others, out


def _replays(state, others, comp, history):
    """Some choice of the tiles the DRAWs took makes the public actions legal from a deal that
    ends in ``comp``: replayed through the engine."""
    p, cfg = state.num_players, state.config
    hands = list(state.hands)
    for s, h in zip(others, comp[0], strict=True):
        hands[s] = h
    placed_by = [0] * p
    for s, a in history:
        if a < state.draw_action:
            placed_by[s] |= 1 << _tile_of(state, a)
    choices = []  # per DRAW: the tiles it may have taken (held now or placed by the seat later)
    for i, (s, a) in enumerate(history):
        if a == state.draw_action:
            nxt = history[i + 1][1] if i + 1 < len(history) else state.draw_action
            if nxt < state.draw_action:  # placed at once: nothing in the hand fitted before the draw
                choices.append((s, [_tile_of(state, nxt)]))
                continue
            later = sum(1 << _tile_of(state, b) for t, b in history[i + 1 :] if t == s and b < state.draw_action)
            choices.append((s, bits(hands[s] | later)))
    for drawn in itertools.product(*(c for _, c in choices)):
        if len(set(drawn)) < len(drawn):
            continue
        dealt = [hands[s] | placed_by[s] for s in range(p)]
        for (s, _), tile in zip(choices, drawn, strict=True):
            dealt[s] &= ~(1 << tile)
        deal = {"hands": [tiles_as_pairs(bits(h), cfg.max_pip) for h in dealt],
                "boneyard": tiles_as_pairs([*drawn, *comp[1][::-1]], cfg.max_pip)}  # fmt: skip
        if isinstance(state, MexicanTrainState):
            deal.update(station=[state.station] * 2, first_player=state.round_first_player)
        try:
            replay = type(state).new_game(cfg, None, deal)
            for _, a in history:
                if replay.round_over:
                    break
                replay.apply(a)
        except DominoError:  # an action the deal makes illegal (a lead, a draw, a pass)
            continue
        if not replay.round_over:
            return True
    return False


def _documented(state, seat, history):
    """The docstring's constraints 2-4 from the public history: (forbidden tiles per seat, per
    placement the tiles fitting the ends it left and the tiles placed by then)."""
    t, p = state._t, state.num_players
    forbidden = {}
    for s in range(p):
        forbidden[s] = 0
        for v in state.missing_pips(s):
            forbidden[s] |= t.pip_masks[v]
    blocks = []
    if isinstance(state, LineState):
        lead = _tile_of(state, history[0][1])
        above = sum(1 << i for i, tl in enumerate(t.tiles) if _rank(tl) > _rank(t.tiles[lead]))
        for s in range(p):
            if not any(w == s and a == state.draw_action for w, a in history):
                forbidden[s] |= above
        replay = LineState.new_game(state.config, None, state.deals[0])
        for _, a in history:
            replay.apply(a)
            if a < state.draw_action:
                blocks.append((t.pip_masks[replay.left] | t.pip_masks[replay.right], replay.placed))
    return {s: f for s, f in forbidden.items() if s != seat}, blocks


def _count(state, seat):
    left, n = _hidden(state, seat).bit_count(), 1
    for s in range(state.num_players):
        if s != seat:
            n *= math.comb(left, state.hands[s].bit_count())
            left -= state.hands[s].bit_count()
    return n * math.perm(left, len(state.boneyard))


def _position(config):
    """The first decision (deterministic) with a seat publicly known to lack a pip and few enough
    completions to enumerate; line games: after the lead."""
    cls = LineState if isinstance(config, type(line_from_preset("block"))) else MexicanTrainState
    for seed in range(100):
        rng = np.random.default_rng(seed)
        state = cls.new_game(config, rng)
        while not state.round_over:
            seat = state.current_player
            lacks = any(state.missing[s] for s in range(state.num_players) if s != seat)
            acts = [*state.actions, state.draw_action]
            kept = sum(1 for a, b in itertools.pairwise(acts) if a == state.draw_action <= b)  # not placed at once
            if cls is LineState and state.placed:  # constraint 3 binds: an unseen tile above the lead
                lead = state._t.tiles[state.actions[0] // 2]
                lacks &= any(_rank(tl) > _rank(lead) and _hidden(state, seat) >> i & 1
                             for i, tl in enumerate(state._t.tiles))  # fmt: skip
            if lacks and state.placed and getattr(state, "drawn_tile", -1) < 0 and kept <= (3 if cls is LineState else 1):
                others, comps = _completions(state, seat) if _count(state, seat) <= 1500 else (None, [])
                if len(comps) >= 30:
                    return state, seat, others, comps
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    raise AssertionError("no position found")


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_consistent_deal_is_sampled_and_the_documented_set_uniformly(case):
    state, seat, others, comps = _position(CASES[case])
    history = _history(state)
    forbidden, blocks = _documented(state, seat, history)

    def documented(comp):
        out = _hidden(state, seat) & ~sum(comp[0]) & ~sum(1 << b for b in comp[1])
        return (not any(h & forbidden[s] for s, h in zip(others, comp[0], strict=True))
                and all(fits & ~(out | placed) for fits, placed in blocks))  # fmt: skip

    allowed = [c for c in comps if documented(c)]
    consistent = [c for c in comps if _replays(state, others, c, history)]
    real = (tuple(state.hands[s] for s in others), tuple(state.boneyard))
    assert real in consistent  # the replay itself is right
    assert set(consistent) <= set(allowed), "a deal the public history allows is outside the sampler's set"
    assert len(allowed) < len(comps)  # the constraints bind
    info = InformationState.from_state(state, seat)
    rng = np.random.default_rng(0)
    counts = Counter()
    index = set(allowed)
    for _ in range(30 * len(allowed)):
        x = info.sample(rng)
        key = (tuple(x.hands[s] for s in others), tuple(x.boneyard))
        assert key in index, "a sample outside the documented constraints"
        counts[key] += 1
    assert chisquare([counts[c] for c in allowed]).pvalue > 1e-3
