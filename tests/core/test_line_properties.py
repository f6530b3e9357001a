"""Property tests (hypothesis) for the line games (block, draw, Cuban), written from docs/rules.md §0
and 2 and docs/rules.md: tiles conserved; the line is a matching chain whose ends are
state.left / state.right; mask == legal actions == a brute-force check written from the rules;
every round terminates within a bound and is scored as the rules say; records replay exactly; no
hidden information leaks. The API checks, pickling and the soak: tests/envs/test_line_api.py."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domino_env.core.config import line_from_preset
from domino_env.core.line import LineState
from domino_env.core.records import replay
from domino_env.encoding.line import LineEncoder
from domino_env.envs import line_v0

# ---------------------------------------------------------------------------- independent helpers


def all_tiles(n: int) -> list[tuple[int, int]]:
    """Canonical order (docs/rules.md §0)."""
    return [(a, b) for a in range(n + 1) for b in range(a, n + 1)]


def tidx(tile, n: int) -> int:
    a, b = min(tile), max(tile)
    return a * (n + 1) - a * (a - 1) // 2 + (b - a)


def bitlist(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


@st.composite
def line_configs(draw):
    """Random line configs: presets, 2..4 players (Cuban 4), double-6/9/12 where the hands fit,
    teams only with 4 players, both next_lead rules, annulment thresholds."""
    preset = draw(st.sampled_from(["block", "draw", "cuban"]))
    if preset == "cuban":
        players = 4
        max_pip = draw(st.sampled_from([9, 12]))
        hand = 10
    else:
        players = draw(st.integers(2, 4))
        max_pip = draw(st.sampled_from([6, 9, 12]))
        hand = 7
    kw = {
        "preset": preset,
        "num_players": players,
        "max_pip": max_pip,
        "hand_size": hand,
        "teams": draw(st.booleans()) if players == 4 else False,
        "next_lead": draw(st.sampled_from(["next_seat", "winner"])),
        "annul_doubles": draw(st.sampled_from([None, 2, 3, 5])),
    }
    return kw


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def forced_first_lead(hands: list[list[tuple[int, int]]]) -> tuple[int, tuple[int, int]]:
    """docs/rules.md §2.1: highest double held; else the heaviest tile, tie: the higher pip."""
    doubles = [(t[0], s, t) for s, h in enumerate(hands) for t in h if t[0] == t[1]]
    if doubles:
        _, s, t = max(doubles)
        return s, t
    best = max(((a + b, max(a, b)), s, (a, b)) for s, h in enumerate(hands) for a, b in h)
    return best[1], best[2]


class Snapshot:
    """What the referee needs of the state before an action (kept apart from LineState.copy)."""

    def __init__(self, s: LineState):
        self.current_player = s.current_player
        self.boneyard_size = s.boneyard_size
        self._sizes = [s.hand_size(i) for i in range(s.num_players)]

    def hand_size(self, seat: int) -> int:
        return self._sizes[seat]


class Referee:
    """Follows one round from the rules, independently of the engine's bookkeeping."""

    def __init__(self, s: LineState, forced: bool):
        cfg = s.config
        self.cfg = cfg
        self.n = cfg.max_pip
        self.p = s.num_players
        self.t = len(all_tiles(self.n))
        hands = [sorted(tuple(sorted(x)) for x in s.hand_tiles(i)) for i in range(self.p)]
        self.doubles = [sum(a == b for a, b in h) for h in hands]
        self.finished_turn: set[int] = set()
        self.forced = forced_first_lead(hands) if forced else None
        self.leader = s.leader
        if self.forced is not None:
            assert s.leader == self.forced[0]
        self.passes_in_a_row = 0
        self.draw, self.pass_, self.annul = 2 * self.t, 2 * self.t + 1, 2 * self.t + 2

    def legal(self, s: LineState) -> list[int]:
        me = s.current_player
        hand = [tuple(sorted(x)) for x in s.hand_tiles(me)]
        acts: list[int] = []
        if not s.line:
            if self.forced is not None:
                assert self.forced[1] in hand
                acts = [2 * tidx(self.forced[1], self.n)]
            else:
                acts = [2 * tidx(x, self.n) for x in hand]
        else:
            left, right = s.left, s.right
            for x in hand:
                if left in x:
                    acts.append(2 * tidx(x, self.n))
                if right in x and right != left:
                    acts.append(2 * tidx(x, self.n) + 1)
            if not acts:
                acts = [self.draw if self.cfg.use_boneyard and s.boneyard_size > 0 else self.pass_]
        need = self.cfg.annul_doubles
        if need is not None and self.doubles[me] >= need and me not in self.finished_turn:
            acts.append(self.annul)
        return sorted(acts)

    def after(self, before: Snapshot, action: int, s: LineState) -> None:
        me = before.current_player
        if action == self.annul:
            assert s.round_over and s.round_result.termination == "annulled"
            assert all(x == 0 for x in s.round_result.points)
            return
        if action == self.draw:
            assert s.current_player == me and s.boneyard_size == before.boneyard_size - 1
            assert s.hand_size(me) == before.hand_size(me) + 1
            return
        self.finished_turn.add(me)
        self.forced = None
        if action == self.pass_:
            self.passes_in_a_row += 1
            # a whole cycle of passes can never happen: the block is detected at once
            assert self.passes_in_a_row < self.p
        else:
            self.passes_in_a_row = 0
            assert s.hand_size(me) == before.hand_size(me) - 1
        if not s.round_over:
            assert s.current_player == (me + 1) % self.p
            fits = [x for x in all_tiles(self.n) if s.left in x or s.right in x]
            holders = [tidx(x, self.n) for x in fits]
            anywhere = set(s.boneyard)
            for h in s.hands:
                anywhere |= set(bitlist(h))
            assert anywhere & set(holders), "round should have been declared blocked"
        else:
            self.check_result(s, went_out=me if s.hand_size(me) == 0 else None)

    def check_result(self, s: LineState, went_out: int | None) -> None:
        r = s.round_result
        p, cfg = self.p, self.cfg
        pips = [sum(a + b for a, b in s.hand_tiles(i)) for i in range(p)]
        assert list(r.pips) == pips
        order = [(self.leader + k) % p for k in range(p)]
        if went_out is not None:
            assert r.termination == "went_out"
            winner = went_out
        else:
            assert r.termination == "blocked"
            fits = {tidx(x, self.n) for x in all_tiles(self.n) if s.left in x or s.right in x}
            assert not fits & set(s.boneyard)
            assert not any(fits & set(bitlist(h)) for h in s.hands)
            if cfg.teams:
                team = [pips[0] + pips[2], pips[1] + pips[3]]
                winner = next(x for x in order if team[x % 2] == min(team))
            else:
                winner = next(x for x in order if pips[x] == min(pips))
        if cfg.teams:
            winners = sorted({winner, (winner + 2) % 4})
            score = sum(pips)
        else:
            winners = [winner]
            score = sum(pips) - pips[winner]
        assert list(r.winners) == winners
        assert list(r.points) == [score if x in winners else 0 for x in range(p)]
        assert r.leader == self.leader


def check_invariants(s: LineState) -> None:
    n = s.config.max_pip
    seen: list[int] = []
    for seat in range(s.num_players):
        hand = [tidx(x, n) for x in s.hand_tiles(seat)]
        assert sorted(hand) == bitlist(s.hands[seat])
        assert s.hand_size(seat) == len(hand)
        seen += hand
    seen += list(s.boneyard)
    assert s.boneyard_size == len(s.boneyard)
    if not s.config.use_boneyard:
        assert not s.boneyard
    seen += bitlist(s.out_of_play)
    for k, (a, b) in enumerate(s.line):
        if k:
            assert s.line[k - 1][1] == a, "the line is not a matching chain"
        seen.append(tidx((a, b), n))
    if s.line:
        assert (s.left, s.right) == (s.line[0][0], s.line[-1][1])
        assert s.ends == (s.left, s.right)
    else:
        assert s.ends is None
    assert sorted(seen) == list(range(len(all_tiles(n)))), "tiles not conserved"


def play_round(kw: dict, seed: int, check: bool = True) -> LineState:
    cfg = line_from_preset(kw.pop("preset"), **kw)
    rng = np.random.default_rng(seed)
    s = LineState.new_game(cfg, rng)
    # the deal: hand sizes, boneyard / out of play (docs/rules.md §2.2)
    t = len(all_tiles(cfg.max_pip))
    assert [s.hand_size(i) for i in range(cfg.num_players)] == [cfg.hand_size] * cfg.num_players
    rest = t - cfg.num_players * cfg.hand_size
    assert s.boneyard_size == (rest if cfg.use_boneyard else 0)
    assert bin(s.out_of_play).count("1") == (0 if cfg.use_boneyard else rest)
    ref = Referee(s, forced=True)
    enc = LineEncoder(cfg)
    steps = 0
    bound = t * (cfg.num_players + 2) + 2
    while not s.round_over:
        legal = s.legal_actions()
        if check:
            check_invariants(s)
            assert legal == ref.legal(s)
            for seat in range(cfg.num_players):
                mask = enc.mask(s, seat)
                if seat == s.current_player:
                    assert np.flatnonzero(mask).tolist() == legal
                else:
                    assert not mask.any()
        before = Snapshot(s)
        action = legal[rng.integers(len(legal))]
        s.apply(action)
        ref.after(before, action, s)
        steps += 1
        assert steps <= bound, "round did not terminate within the bound"
    check_invariants(s)
    return s


# ---------------------------------------------------------------------------- engine properties


@SETTINGS
@given(line_configs(), st.integers(0, 2**31 - 1))
def test_round_invariants_brute_force_mask_and_scoring(kw, seed):
    s = play_round(dict(kw), seed)
    r = s.round_result
    assert r.termination in ("went_out", "blocked", "annulled")
    if r.termination != "annulled":
        assert list(s.scores) == list(r.points)
    assert r.round_index == 0


@SETTINGS
@given(line_configs(), st.integers(0, 2**31 - 1))
def test_game_rounds_next_lead_and_target(kw, seed):
    """Whole games at the engine level with a small target: next rounds are led by the seat the
    next_lead rule names, with any tile; annulled rounds are re-led by the same seat; scores add
    up; the game ends when a side reaches the target."""
    kw = dict(kw)
    cfg = line_from_preset(kw.pop("preset"), **kw, target_score=60)
    rng = np.random.default_rng(seed)
    s = LineState.new_game(cfg, rng)
    ref = Referee(s, forced=True)
    p = cfg.num_players
    totals = [0] * p
    rounds = 0
    for _ in range(20_000):
        legal = s.legal_actions()
        assert legal == ref.legal(s)
        before = Snapshot(s)
        action = legal[rng.integers(len(legal))]
        s.apply(action)
        ref.after(before, action, s)
        if not s.round_over:
            continue
        r = s.round_result
        totals = [a + b for a, b in zip(totals, r.points, strict=True)]
        assert list(s.scores) == totals
        if r.termination == "annulled":
            expected_leader, expected_index = r.leader, r.round_index
        else:
            rounds += 1
            expected_index = r.round_index + 1
            if cfg.next_lead == "next_seat":
                expected_leader = (r.leader + 1) % p
            else:
                order = [(r.leader + k) % p for k in range(p)]
                if r.termination == "went_out":
                    expected_leader = before.current_player
                else:
                    expected_leader = next(x for x in order if x in r.winners)
        reached = max(totals) >= cfg.target_score
        assert s.game_over == reached
        if reached:
            top = max(totals)
            assert list(s.game_winners) == [x for x in range(p) if totals[x] == top]
            return
        s.start_next_round(rng)
        assert s.round_index == expected_index and s.leader == expected_leader
        assert s.current_player == expected_leader and not s.line
        ref = Referee(s, forced=False)
    pytest.fail("game did not end")


# ---------------------------------------------------------------------------- env properties


def random_env_play(kw: dict, seed: int, max_steps: int = 400):
    env = line_v0.raw_env(episode="game", **kw)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(max_steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        obs = env.observe(agent)
        seen.append((agent, obs["observation"].copy(), obs["action_mask"].copy()))
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return env, seen


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line_configs(), st.integers(0, 2**31 - 1))
def test_env_replay_reproduces_every_observation_and_mask(kw, seed):
    env, seen = random_env_play(kw, seed)
    record = env.unwrapped.to_record()
    assert len(record["actions"]) == len(seen)
    live = env.unwrapped.game_state
    again = line_v0.raw_env(**record["env_kwargs"])
    again.reset(options={"deals": record["deals"]})
    for (agent, obs, mask), action in zip(seen, record["actions"], strict=True):
        assert again.agent_selection == agent
        o = again.observe(agent)
        assert np.array_equal(o["observation"], obs)
        assert np.array_equal(o["action_mask"], mask)
        again.step(action)
    assert again.unwrapped.game_state.hands == live.hands
    assert again.unwrapped.game_state.scores == live.scores


def test_state_copy_in_first_round():
    """The engine state has a cheap, independent copy() (core/line.py docstring) at any time."""
    env = line_v0.raw_env()
    env.reset(seed=1)
    s = env.unwrapped.game_state
    c = s.copy()
    assert c.hands == s.hands and c.hands is not s.hands


REPLAY_CASES = [
    ({"preset": "block"}, 1),
    ({"preset": "block", "num_players": 3, "max_pip": 9, "next_lead": "winner"}, 2),
    ({"preset": "draw"}, 3),
    ({"preset": "draw", "num_players": 4, "teams": True, "max_pip": 12}, 4),
    ({"preset": "cuban", "annul_doubles": 3}, 5),
]


@pytest.mark.parametrize(("kw", "seed"), REPLAY_CASES)
def test_engine_replay_reproduces_every_state(kw, seed):
    """domino_env.core.records.replay rebuilds every engine state of a recorded game (contract)."""
    env = line_v0.raw_env(episode="game", **kw)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    states_live = []
    for _ in range(400):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        states_live.append(copy.deepcopy(env.unwrapped.game_state))
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    states_live.append(copy.deepcopy(env.unwrapped.game_state))
    record = env.unwrapped.to_record()
    states = list(replay(record))
    assert len(states) == len(record["actions"]) + 1 == len(states_live)
    for a, b in zip(states, states_live, strict=True):
        assert a.hands == b.hands and a.line == b.line and a.scores == b.scores
        assert a.boneyard == b.boneyard and a.current_player == b.current_player
        assert a.round_index == b.round_index


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line_configs(), st.integers(0, 2**31 - 1), st.integers(0, 80))
def test_no_hidden_information_in_observations(kw, seed, steps):
    """Permuting every tile the observer cannot see (other hands, boneyard, out of play), keeping
    sizes, leaves its observation unchanged."""
    kw = dict(kw)
    cfg = line_from_preset(kw.pop("preset"), **kw)
    rng = np.random.default_rng(seed)
    s = LineState.new_game(cfg, rng)
    for _ in range(steps):
        if s.round_over:
            break
        legal = s.legal_actions()
        s.apply(legal[rng.integers(len(legal))])
    enc = LineEncoder(cfg)
    for observer in range(cfg.num_players):
        other = copy.deepcopy(s)
        places = [x for x in range(cfg.num_players) if x != observer]
        hidden = [i for x in places for i in bitlist(other.hands[x])]
        hidden += list(other.boneyard)
        hidden += bitlist(other.out_of_play)
        perm = [hidden[i] for i in rng.permutation(len(hidden))]
        k = 0
        for x in places:
            size = bin(other.hands[x]).count("1")
            other.hands[x] = sum(1 << i for i in perm[k : k + size])
            k += size
        other.boneyard = perm[k : k + len(other.boneyard)]
        k += len(other.boneyard)
        other.out_of_play = sum(1 << i for i in perm[k:])
        assert np.array_equal(enc.observe(s, observer), enc.observe(other, observer))
        assert np.array_equal(enc.mask(s, observer), enc.mask(other, observer))
