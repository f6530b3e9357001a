"""Belief sampler (domino_env.core.belief): consistency, exact uniformity, plays on, hides nothing."""

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from domino_env.core.belief import BeliefError, InformationState
from domino_env.core.config import MexicanTrainConfig, from_preset, line_from_preset
from domino_env.core.deal import bits
from domino_env.core.errors import ConfigError
from domino_env.core.line import LineState
from domino_env.core.mexican_train import MexicanTrainState
from domino_env.core.tiles import double_index
from domino_env.encoding.line import LineEncoder
from domino_env.encoding.mexican_train import MexicanTrainEncoder
from domino_env.envs import line_v0, mexican_train_v0

GAMES = {
    "mexican_train": (MexicanTrainState, MexicanTrainConfig()),
    "tren_mexicano_5p": (MexicanTrainState, from_preset("tren_mexicano", num_players=5)),
    "mexican_train_no_boneyard": (MexicanTrainState, MexicanTrainConfig(num_players=3, use_boneyard=False)),
    "block_2p": (LineState, line_from_preset("block", num_players=2)),
    "block_4p": (LineState, line_from_preset("block")),
    "draw_2p": (LineState, line_from_preset("draw", num_players=2)),
    "cuban": (LineState, line_from_preset("cuban")),
}


def encoder_for(config):
    return LineEncoder(config) if isinstance(config, type(line_from_preset("block"))) else MexicanTrainEncoder(config)


def positions(cls, config, seeds, stops=(4, 12, 24, 40)):
    """Real mid-round positions: random legal play from each seed, stopped after each count of
    actions (the acting seat observes)."""
    out = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = cls.new_game(config, rng)
        done = 0
        for stop in stops:
            while done < stop and not state.round_over:
                legal = state.legal_actions()
                if getattr(state, "annul_action", -1) in legal and len(legal) > 1:
                    legal = legal[:-1]
                state.apply(legal[int(rng.integers(len(legal)))])
                done += 1
            if state.round_over:
                break
            out.append(state.copy())
    return out


def lead_key(tile):
    a, b = tile
    return (1, a, 0) if a == b else (0, a + b, b)


def check_sample(real, sample, seat, encoder):
    """Every observable fact of ``seat`` holds in ``sample``, and every hidden tile is somewhere."""
    t = real._t
    p = real.num_players
    np.testing.assert_array_equal(encoder.observe(sample, seat), encoder.observe(real, seat))
    np.testing.assert_array_equal(encoder.mask(sample, seat), encoder.mask(real, seat))
    assert sample.hands[seat] == real.hands[seat]
    assert sample.placed == real.placed
    assert len(sample.boneyard) == len(real.boneyard)
    parts = [*sample.hands, sample.placed, sample.out_of_play, *(1 << b for b in sample.boneyard)]
    if isinstance(real, MexicanTrainState):
        parts.append(1 << double_index(real.station, real.config.max_pip))
    union = 0
    for part in parts:
        assert not union & part, "a tile is in two places"
        union |= part
    assert union == (1 << t.num_tiles) - 1
    for s in range(p):
        assert sample.hands[s].bit_count() == real.hands[s].bit_count()
        for v in real.missing_pips(s):
            assert not sample.hands[s] & t.pip_masks[v], f"seat {s} holds pip {v} it is known to lack"
    if isinstance(real, LineState):
        if real.line:
            assert not sample._nobody_can_place(), "the sample is blocked but the round went on"
        if real.deals[-1]["first_player"] is None and real.line:
            lead = real.actions[real.round_start] // 2
            above = [i for i, tl in enumerate(t.tiles) if lead_key(tl) > lead_key(t.tiles[lead])]
            for s in range(p):
                drew = real.draw_action in real.actions[real.round_start :]  # conservative
                if s != seat and not drew:
                    assert not any(sample.hands[s] >> i & 1 for i in above)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_samples_never_contradict_the_observer(game):
    cls, config = GAMES[game]
    encoder = encoder_for(config)
    checked = 0
    for real in positions(cls, config, seeds=range(10)):
        seat = real.current_player
        info = InformationState.from_state(real, seat)
        rng = np.random.default_rng(7)
        for _ in range(120):
            check_sample(real, info.sample(rng), seat, encoder)
            checked += 1
    assert checked >= 1000


@pytest.mark.parametrize("game", sorted(GAMES))
def test_samples_play_on_through_engine_and_env(game):
    cls, config = GAMES[game]
    for real in positions(cls, config, seeds=range(2), stops=(10,)):
        info = InformationState.from_state(real, real.current_player)
        rng = np.random.default_rng(3)
        for _ in range(20):
            sample = info.sample(rng)
            while not sample.round_over:
                legal = sample.legal_actions()
                sample.apply(legal[int(rng.integers(len(legal)))])
            assert sample.round_result.termination in ("went_out", "blocked", "annulled")
    # through an env: the sampled state replaces env.game_state and the env plays it to the end
    if cls is MexicanTrainState:
        env = mexican_train_v0.raw_env(**config.to_dict())
    else:
        kwargs = config.to_dict()
        env = line_v0.raw_env(**kwargs)
    rng = np.random.default_rng(5)
    for seed in range(50):  # the first seed whose round lasts 6 moves
        env.reset(seed=seed)
        for _ in range(6):
            legal = env.game_state.legal_actions()
            env.step(legal[0] if legal[0] != getattr(env.game_state, "annul_action", -2) else legal[1])
            if env.game_state.round_over:
                break
        if not env.game_state.round_over:
            break
    assert not env.game_state.round_over
    seat = env.game_state.current_player
    env.game_state = InformationState.from_state(env.game_state, seat).sample(rng)
    steps = 0
    while env.agents and steps < 2000:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    assert not env.agents


@pytest.mark.parametrize("game", ["mexican_train", "draw_2p", "cuban"])
def test_samples_depend_only_on_public_information(game):
    """A state with the same public information but other hidden tiles (itself a sample) gives the
    same information state and, from the same seed, the same samples."""
    cls, config = GAMES[game]
    for real in positions(cls, config, seeds=range(3), stops=(14,)):
        seat = real.current_player
        info = InformationState.from_state(real, seat)
        other = info.sample(np.random.default_rng(99))
        assert other.hands != real.hands or other.boneyard != real.boneyard  # hidden tiles differ
        info2 = InformationState.from_state(other, seat)
        a, b = np.random.default_rng(1), np.random.default_rng(1)
        for _ in range(30):
            x, y = info.sample(a), info2.sample(b)
            assert x.hands == y.hands and x.boneyard == y.boneyard and x.out_of_play == y.out_of_play


def test_information_state_hides_the_hidden_fields():
    real = positions(MexicanTrainState, MexicanTrainConfig(), seeds=[0], stops=(12,))[0]
    seat = real.current_player
    pub = InformationState.from_state(real, seat).public
    assert pub.deals == [{"first_player": real.deals[0]["first_player"]}]
    assert pub.boneyard == [] and pub.out_of_play == 0
    assert all(h == 0 for s, h in enumerate(pub.hands) if s != seat)
    assert pub.hands[seat] == real.hands[seat]


def test_refuses_what_the_seat_cannot_see():
    cfg = MexicanTrainConfig(num_players=2, first_player=0)
    deal = {"hands": [[[0, 1]], [[2, 3]]], "boneyard": [[5, 6], [7, 8]], "station": [12, 12]}
    state = MexicanTrainState.new_game(cfg, np.random.default_rng(0), deal)
    state.apply(state.draw_action)  # seat 0 drew a tile seat 1 cannot see, and still acts
    with pytest.raises(BeliefError, match="just drawn"):
        InformationState.from_state(state, 1)
    with pytest.raises(BeliefError, match="seat must be"):
        InformationState.from_state(state, 2)
    for bad in (True, 0.0, "0"):
        with pytest.raises(BeliefError, match="seat must be"):
            InformationState.from_state(state, bad)
    assert InformationState.from_state(state, np.int64(0)).seat == 0  # numpy integers, as elsewhere
    assert type(InformationState.from_state(state, np.int64(0)).seat) is int
    info = InformationState.from_state(state, 0)
    for bad in (0, None, np.random.RandomState(0)):  # a seed gave AttributeError deep inside
        with pytest.raises(ConfigError, match="'rng'.*numpy.random.Generator"):
            info.sample(bad)
    assert info.sample(np.random.default_rng(0)).hands[0] == state.hands[0]
    assert repr(info) == (f"InformationState(seat=0, game={info.game!r}, hand_sizes={info.hand_sizes}, "
                          f"boneyard_size={info.boneyard_size}, unseen={bin(info.unseen).count('1')} tiles)")
    for bad in (0, -5, 2.0, True):  # 0 and -5 read "no deal consistent with seat 0's information"
        with pytest.raises(ConfigError, match="'max_tries': got .*; allowed: an integer >= 1"):
            info.sample(np.random.default_rng(0), max_tries=bad)
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9)
    env.reset(seed=0)
    with pytest.raises(ConfigError, match="'state': got 'raw_env'.*env.unwrapped.game_state"):
        InformationState.from_state(env, 0)  # the env, not its engine state: was an AttributeError


# ---------------------------------------------------------------------------- exact uniformity
def _late_position(cls, config, max_unseen, seed_range=range(400)):
    """First position (deterministic) where the acting seat sees all but a few tiles and some other
    seat is known to lack a pip."""
    for seed in seed_range:
        rng = np.random.default_rng(seed)
        state = cls.new_game(config, rng)
        while not state.round_over:
            seat = state.current_player
            info = InformationState.from_state(state, seat)
            hidden_hands = sum(state.hands[s].bit_count() for s in range(state.num_players) if s != seat)
            if (
                info.unseen.bit_count() <= max_unseen
                and any(info.forbidden)
                and hidden_hands >= 3
            ):
                return state, info
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    raise AssertionError("no late position found")


def _completions(state, info):
    """Every completion (hands of the other seats, boneyard order) consistent with the public
    constraints, enumerated by brute force from the public API (missing_pips, sizes)."""
    seat, p, t = info.seat, state.num_players, state._t
    others = [s for s in range(p) if s != seat]
    unseen = bits(info.unseen)
    sizes = [state.hands[s].bit_count() for s in others]
    out = []

    def rec(k, left, hands):
        if k == len(others):
            for order in itertools.permutations(left, len(state.boneyard)):
                rest = [x for x in left if x not in order]
                out_mask = sum(1 << x for x in rest)
                if all(need & ~out_mask for need in info.needs):
                    out.append((tuple(hands), order))
            return
        s = others[k]
        banned = 0
        for v in state.missing_pips(s):
            banned |= t.pip_masks[v]
        banned |= info.forbidden[s]
        for combo in itertools.combinations(left, sizes[k]):
            h = sum(1 << x for x in combo)
            if h & banned:
                continue
            rec(k + 1, [x for x in left if x not in combo], [*hands, h])

    rec(0, unseen, [])
    return others, out


@pytest.mark.parametrize(
    "game,max_unseen",
    [("block_4p", 9), ("draw_2p", 7), ("block_2p", 17)],
)
def test_frequencies_match_the_exact_uniform_distribution(game, max_unseen):
    cls, config = GAMES[game]
    state, info = _late_position(cls, config, max_unseen)
    others, completions = _completions(state, info)
    assert 2 <= len(completions) <= 3000
    rng = np.random.default_rng(2024)
    n = 30 * len(completions)
    counts = Counter()
    index = {c: i for i, c in enumerate(completions)}
    for _ in range(n):
        x = info.sample(rng)
        # the engine keeps the boneyard with the next draw last: compare in the same order
        key = (tuple(x.hands[s] for s in others), tuple(x.boneyard[: len(state.boneyard)]))
        assert key in index, "a sample outside the consistent completions"
        counts[key] += 1
    observed = [counts[c] for c in completions]
    result = chisquare(observed)
    assert result.pvalue > 1e-3, (len(completions), result)


# ---------------------------------------------------------------------------- found by a bug battery
@pytest.mark.parametrize("game", ["block_2p", "block_4p", "draw_2p", "cuban"])
def test_the_leaders_forced_lead_decision_keeps_constraint_3(game):
    """At the leader's own decision before its forced lead (in Cuban it may also annul), the tile
    it must lead is the highest dealt: no other seat holds a tile above it in any sample (before
    2026-12-03 the constraint started only once the lead was on the table)."""
    cls, config = GAMES[game]
    checked = 0
    for seed in range(30):
        state = cls.new_game(config, np.random.default_rng(seed))
        if state.forced_lead < 0:
            continue
        seat, t = state.current_player, state._t
        above = 0
        for i, tile in enumerate(t.tiles):
            if lead_key(tile) > lead_key(t.tiles[state.forced_lead]):
                above |= 1 << i
        info = InformationState.from_state(state, seat)
        rng = np.random.default_rng(seed)
        for _ in range(40):
            sample = info.sample(rng)
            assert not any(sample.hands[s] & above for s in range(state.num_players) if s != seat)
            checked += 1
    assert checked >= 400


def _two_constrained(info):
    return sum(1 for s, f in enumerate(info.forbidden) if f and s != info.seat and info.hand_sizes[s]) >= 2


def test_seats_left_out_of_the_class_table_keep_it_exactly_uniform(monkeypatch):
    """With MAX_TABLE so small that only one constrained seat fits the class table, the others are
    dealt with the free tiles and checked by rejection: the frequencies still match brute-force
    enumeration (what happens at 6-8 players, where the whole table would pass 4M cells)."""
    import domino_env.core.belief as belief

    cls, config = GAMES["block_4p"]
    found = None
    for seed in range(400):
        rng = np.random.default_rng(seed)
        state = cls.new_game(config, rng)
        while not state.round_over and found is None:
            info = InformationState.from_state(state, state.current_player)
            if info.unseen.bit_count() <= 10 and _two_constrained(info):
                found = state.copy(), info
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        if found:
            break
    assert found, "no position with two constrained seats"
    state, info = found
    singles = [belief._table_cells(info.unseen, [info.forbidden[s]], [info.hand_sizes[s]])
               for s in range(state.num_players) if s != info.seat and info.forbidden[s]]  # fmt: skip
    monkeypatch.setattr(belief, "MAX_TABLE", max(singles))
    info = InformationState.from_state(state, info.seat)
    chosen, checked = info._table()
    assert len(chosen) == 1 and len(checked) >= 1
    others, completions = _completions(state, info)
    assert 2 <= len(completions) <= 3000
    _assert_uniform_over(info, state, others, completions, seed=5)


def test_eight_players_double_15_samples_where_plain_rejection_failed():
    """A real decision of 8 players on double-15 (seven constrained seats): plain rejection from
    uniform deals found no consistent deal in 100,000 draws here; the partial table does."""
    config = MexicanTrainConfig(num_players=8, max_pip=15)
    env = mexican_train_v0.raw_env(num_players=8, max_pip=15)
    env.reset(seed=15)
    rng = np.random.default_rng(15)
    for _ in range(102):
        env.step(int(rng.choice(env.game_state.legal_actions())))
    real = env.game_state
    seat = real.current_player
    info = InformationState.from_state(real, seat)
    assert sum(1 for s in range(8) if s != seat and info.forbidden[s]) == 7
    encoder = encoder_for(config)
    sample_rng = np.random.default_rng(0)
    for _ in range(20):
        check_sample(real, info.sample(sample_rng), seat, encoder)


def _draw_game_position(num_players):
    """First position (deterministic) of a first round of the draw game (forced lead) where a seat
    other than the observer has drawn, an unseen tile ranks above the lead and (with more than two
    seats) another one has not drawn; with few enough completions to enumerate. Returns the state,
    the seats that drew (tracked here, not by the sampler) and per placement the mask of tiles
    fitting the ends it left and the tiles placed by then."""
    config = line_from_preset("draw", num_players=num_players)
    for seed in range(400):
        rng = np.random.default_rng(seed)
        state = LineState.new_game(config, rng)
        drew, placements = set(), []
        while not state.round_over:
            seat, t = state.current_player, state._t
            if state.line and state.deals[-1]["first_player"] is None:
                lead = state.actions[state.round_start] // 2
                above = sum(1 << i for i, tl in enumerate(t.tiles) if lead_key(tl) > lead_key(t.tiles[lead]))
                unseen = ((1 << t.num_tiles) - 1) & ~(state.hands[seat] | state.placed)
                others = {s for s in range(num_players) if s != seat}
                sizes = [state.hands[s].bit_count() for s in sorted(others)]
                bound, left = 1, unseen.bit_count()
                for n in sizes:
                    bound *= math.comb(left, n)
                    left -= n
                bound *= math.perm(left, len(state.boneyard))
                if (above & unseen and drew & others and (num_players == 2 or others - drew)
                        and bound <= 3000):  # fmt: skip
                    return state.copy(), set(drew), list(placements), above
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            if action == state.draw_action:
                drew.add(seat)
            state.apply(action)
            if state.line and not state.round_over and action < state.draw_action:
                placements.append((t.pip_masks[state.left] | t.pip_masks[state.right], state.placed))
    raise AssertionError("no position found")


@pytest.mark.parametrize("num_players", [2, 3])
def test_a_seat_that_drew_may_hold_a_tile_above_the_lead_and_the_others_may_not(num_players):
    """Constraint 3 binds only the seats that have not drawn this round: the frequencies match a
    brute-force enumeration whose constraints (missing pips, above-the-lead tiles for the seats
    that did not draw, the round not blocked after any placement) come from the public history,
    never from the sampler's own ``forbidden`` / ``needs``."""
    state, drew, placements, above = _draw_game_position(num_players)
    seat, p, t = state.current_player, state.num_players, state._t
    others = [s for s in range(p) if s != seat]
    unseen = bits(((1 << t.num_tiles) - 1) & ~(state.hands[seat] | state.placed))
    banned = {s: 0 if s in drew else above for s in others}
    for s in others:
        for v in state.missing_pips(s):
            banned[s] |= t.pip_masks[v]
    completions = []

    def rec(k, left, hands):
        if k == len(others):
            for order in itertools.permutations(left, len(state.boneyard)):
                out = sum(1 << x for x in left if x not in order)
                if all(fits & ~(out | placed) for fits, placed in placements):
                    completions.append((tuple(hands), order))
            return
        s = others[k]
        for combo in itertools.combinations(left, state.hands[s].bit_count()):
            h = sum(1 << x for x in combo)
            if not h & banned[s]:
                rec(k + 1, [x for x in left if x not in combo], [*hands, h])

    rec(0, unseen, [])
    assert 2 <= len(completions) <= 3000
    # not vacuous: a seat that drew holds a tile above the lead in some completion
    assert any(h & above for hands, _ in completions for s, h in zip(others, hands, strict=True) if s in drew)
    _assert_uniform_over(InformationState.from_state(state, seat), state, others, completions, seed=11)


def test_cuban_samples_count_the_doubles_dealt_to_seats_yet_to_play():
    """Cuban's annulment reads ``doubles_dealt`` (5 doubles dealt): a sampled hand not yet played
    this round is the dealt hand, so the sample counts its doubles (the public copy holds 0 for
    the other seats)."""
    cls, config = GAMES["cuban"]
    checked = annul = 0
    for seed in range(20):
        state = cls.new_game(config, np.random.default_rng(seed))
        state.apply(state.legal_actions()[0])  # the forced lead: the next seat decides
        if state.round_over:
            continue
        seat, dbl = state.current_player, state._t.double_mask
        info = InformationState.from_state(state, seat)
        rng = np.random.default_rng(seed)
        for _ in range(50):
            sample = info.sample(rng)
            for s in range(state.num_players):
                if s == seat:
                    assert sample.doubles_dealt[s] == state.doubles_dealt[s]
                elif state.first_turn_pending[s]:
                    assert sample.doubles_dealt[s] == (sample.hands[s] & dbl).bit_count()
                    annul += sample.doubles_dealt[s] >= config.annul_doubles
            checked += 1
    assert checked >= 500 and annul > 0  # some sampled seat may annul on its first turn


def _assert_uniform_over(info, state, others, completions, seed):
    """``info.sample`` draws only from ``completions`` (the other seats' hands and the boneyard
    order, each a key of the brute force) and each about equally often (chi-square)."""
    rng = np.random.default_rng(seed)
    index, counts = set(completions), Counter()
    for _ in range(30 * len(completions)):
        x = info.sample(rng)
        key = (tuple(x.hands[s] for s in others), tuple(x.boneyard[: len(state.boneyard)]))
        assert key in index, "a sample outside the consistent completions"
        counts[key] += 1
    assert chisquare([counts[c] for c in completions]).pvalue > 1e-3
