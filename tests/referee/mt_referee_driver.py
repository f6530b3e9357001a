"""Drives the Mexican Train env with random legal players and checks every step against the
referee (``mt_referee``): the action mask, the public state after each action, and at each round
end the infos (termination, winners, pips, points, scores, game end) and the rewards.

Only the env's public API is used: ``raw_env``, ``observe``, ``step``, ``infos``, ``rewards``,
``to_record()`` (the deals) and ``state()`` decoded by its documented ``state_encoder``
(docs/state.md).
"""

from __future__ import annotations

import numpy as np
from mt_referee import COVER_EITHER, COVER_OWN, DRAW, EXTRA, FREE, PASS, SECOND_OR_COVER, set_size
from mt_referee_game import GameRef, Mismatch, expect, resolve

from domino_env.encoding.mexican_train import decode_observation
from domino_env.envs.mexican_train_v0 import raw_env

TERM = {1: "went_out", 2: "blocked"}
# docs/state.md "phase": free, cover_own_double, second_double_or_cover, extra_play_after_double
# (the referee's cover_either, after a second double, has no name of its own there: the env
# shows it as cover_own_double)
PHASES = {FREE: 0, COVER_OWN: 1, COVER_EITHER: 1, SECOND_OR_COVER: 2, EXTRA: 3}


def tile_table(n: int) -> list[tuple[int, int]]:
    """docs/envs.md: canonical order (0,0), (0,1), ..., (0,N), (1,1), ..., (N,N)."""
    return [(a, b) for a in range(n + 1) for b in range(a, n + 1)]


class Codec:
    """docs/envs.md "Actions": tile_index * (P + 1) + slot; then DRAW, PASS."""

    def __init__(self, P: int, N: int):
        self.P, self.N, self.tiles = P, N, tile_table(N)
        self.index = {t: i for i, t in enumerate(self.tiles)}
        self.draw = len(self.tiles) * (P + 1)
        self.pass_ = self.draw + 1

    def encode(self, seat: int, action) -> int:
        if action == DRAW:
            return self.draw
        if action == PASS:
            return self.pass_
        tile, train = action
        slot = self.P if train == self.P else (train - seat) % self.P
        return self.index[tile] * (self.P + 1) + slot

    def decode(self, seat: int, a: int):
        if a == self.draw:
            return DRAW
        if a == self.pass_:
            return PASS
        ti, slot = divmod(a, self.P + 1)
        train = self.P if slot == self.P else (seat + slot) % self.P
        return (self.tiles[ti], train)


def check_state(env, rr, codec: Codec, where: str) -> None:
    """The public state after an action: trains (tiles in order, open ends), markers, open doubles
    and their order, hand sizes, boneyard size, the seat to act."""
    f = env.state_encoder.decode(env.state())
    P = rr.P
    got_ends = [int(np.argmax(row)) for row in f["train_end"]]
    expect(got_ends == rr.ends, f"{where}: train ends env {got_ends} referee {rr.ends}")
    expect([bool(x) for x in f["train_in_play"]] == rr.in_play, f"{where}: trains in play")
    for k in range(P + 1):
        pos = f["train_tiles"][k]
        order = [codec.tiles[i] for i in sorted(np.flatnonzero(pos), key=lambda i: pos[i])]
        expect(order == rr.trains[k], f"{where}: train {k} env {order} referee {rr.trains[k]}")
    expect([bool(x) for x in f["marker"]] == rr.marker,
           f"{where}: markers env {f['marker'].tolist()} referee {rr.marker}")
    od = f["open_double_order"]
    got = [k for k in sorted(np.flatnonzero(od), key=lambda k: od[k])]
    expect(got == rr.obliging, f"{where}: open doubles env {got} referee {rr.obliging}")
    sizes = [int(x) for x in f["hands"].sum(axis=1)]
    expect(sizes == [len(h) for h in rr.hands], f"{where}: hand sizes env {sizes}")
    for q in range(P):
        held = {codec.tiles[i] for i in np.flatnonzero(f["hands"][q])}
        expect(held == rr.hands[q], f"{where}: seat {q} hand")
    bone = int((f["boneyard"] > 0).sum())
    expect(bone == len(rr.boneyard), f"{where}: boneyard env {bone} referee {len(rr.boneyard)}")
    expect(int(np.argmax(f["current_player"])) == rr.cur, f"{where}: current player")
    for q in range(P):
        lack = set(np.flatnonzero(f["missing_pips"][q]).tolist())
        expect(lack == rr.missing[q], f"{where}: seat {q} known to lack env {sorted(lack)} referee {sorted(rr.missing[q])}")
    phase = PHASES[rr.phase]
    expect(int(np.argmax(f["phase"])) == phase, f"{where}: phase env {f['phase'].tolist()} referee {rr.phase}")


def check_observation(env, rr, codec: Codec, observer: int, where: str) -> None:
    """The same public facts in one seat's egocentric observation (docs/envs.md): train blocks are
    the observer's own, the others in turn order, then the Mexican train; seat blocks start with
    the observer."""
    P = rr.P
    o = decode_observation(env.observe(f"player_{observer}")["observation"], P, codec.N)
    seats = [(observer + j) % P for j in range(P)]
    trains = seats + [P]
    ends = [int(np.argmax(row)) for row in o["train_end"]]
    expect(ends == [rr.ends[k] for k in trains], f"{where}: obs of {observer}: train ends {ends}")
    marks = [bool(x) for x in o["train_marker"]]
    want = [rr.marker[q] for q in seats] + [rr.in_play[P]]
    expect(marks == want, f"{where}: obs of {observer}: markers {marks} referee {want}")
    ranks = {k: i + 1 for i, k in enumerate(rr.obliging)}
    got = [int(x) for x in o["train_open_double_order"]]
    expect(got == [ranks.get(k, 0) for k in trains], f"{where}: obs of {observer}: open doubles {got}")
    dbl = [bool(x) for x in o["train_ends_in_double"]]
    expect(dbl == [rr.ends_in_double(k) for k in trains], f"{where}: obs of {observer}: ends in double")
    sizes = [int(x) for x in o["hand_sizes"]]
    expect(sizes == [len(rr.hands[q]) for q in seats], f"{where}: obs of {observer}: hand sizes")
    expect(int(o["boneyard_size"][0]) == len(rr.boneyard), f"{where}: obs of {observer}: boneyard")
    hand = {codec.tiles[i] for i in np.flatnonzero(o["hand"])}
    expect(hand == rr.hands[observer], f"{where}: obs of {observer}: hand")
    acting = observer == rr.cur
    first = rr.in_first_turn if acting else rr.first_pending[observer]
    expect(bool(o["first_turn"][0]) == first, f"{where}: obs of {observer}: first_turn")
    if acting:
        cover = set(rr.cover_targets())
        got = [bool(x) for x in o["train_coverable"]]
        expect(got == [k in cover for k in trains], f"{where}: coverable {got} referee {sorted(cover)}")
        expect(bool(o["just_drew"][0]) == rr.just_drew, f"{where}: just_drew")
        drawn = [codec.tiles[i] for i in np.flatnonzero(o["drawn_tile"])]
        expect(drawn == ([rr.drawn] if rr.drawn else []), f"{where}: drawn tile {drawn} referee {rr.drawn}")


def check_round_end(info, exp: dict, where: str) -> None:
    expect(TERM.get(int(info["termination_code"])) == exp["termination"],
           f"{where}: termination env {info['termination_code']!s} referee {exp['termination']}")
    got_w = [int(x) for x in info["winners"] if x >= 0]
    expect(got_w == exp["winners"], f"{where}: winners env {got_w} referee {exp['winners']}")
    for key in ("pips", "points", "scores"):
        got = [int(x) for x in info[key]]
        expect(got == exp[key], f"{where}: {key} env {got} referee {exp[key]}")
    expect(bool(info["game_over"]) == exp["game_over"], f"{where}: game_over")
    got_gw = [int(x) for x in info["game_winners"] if x >= 0]
    expect(got_gw == exp["game_winners"], f"{where}: game winners env {got_gw} referee {exp['game_winners']}")


def play(kwargs: dict, seed: int, max_steps: int = 20000, state_every: int = 1,
         deal: dict | None = None) -> dict:
    """Plays one episode of ``raw_env(**kwargs)`` from ``seed`` (and the given first ``deal``, if
    any) with uniform random legal moves, checking everything against the referee. Raises
    ``Mismatch`` (with the move list) on a discrepancy; returns counts."""
    env = raw_env(**kwargs)
    env.reset(seed=seed, options=None if deal is None else {"deal": deal})
    rec = env.to_record()
    for key, value in resolve(kwargs).items():
        expect(rec["env_kwargs"][key] == value, f"config {key}: env {rec['env_kwargs'][key]} referee {value}")
    cfg = resolve(kwargs)
    P, N = cfg["num_players"], cfg["max_pip"]
    codec = Codec(P, N)
    assert env.action_space("player_0").n == set_size(N) * (P + 1) + 2
    game = GameRef(cfg, kwargs.get("episode", "round"), kwargs.get("reward", "outcome"))
    rng = np.random.default_rng(seed)
    deals_seen = 0
    rr = None
    rewards = np.zeros(P)
    want_rewards = np.zeros(P)
    steps = rounds = 0
    moves: list[int] = []
    try:
        while env.agents:
            sel = env.agent_selection
            if env.terminations[sel] or env.truncations[sel]:
                env.step(None)
                rewards += [env.rewards.get(f"player_{q}", 0.0) for q in range(P)]
                continue
            if rr is None:
                deals = env.to_record()["deals"]
                expect(len(deals) == deals_seen + 1, "a new round without a new deal")
                rr = game.start_round(deals[-1], deal if deals_seen == 0 else None)
                deals_seen += 1
                expect(not rr.over, "a round over before its first move")
            seat = int(sel.split("_")[1])
            where = f"seed {seed} round {game.r} move {len(moves)} seat {seat}"
            expect(seat == rr.cur, f"{where}: env seat {seat} referee {rr.cur}")
            mask = env.observe(sel)["action_mask"]
            got = sorted(int(a) for a in np.flatnonzero(mask))
            legal = rr.legal()
            want = sorted(codec.encode(seat, a) for a in legal)
            if got != want:
                only_env = [codec.decode(seat, a) for a in sorted(set(got) - set(want))]
                only_ref = [codec.decode(seat, a) for a in sorted(set(want) - set(got))]
                raise Mismatch(f"{where}: mask; env only {only_env}, referee only {only_ref}; "
                               f"phase {rr.phase} drew {rr.just_drew}")
            a = int(rng.choice(got))
            moves.append(a)
            env.step(a)
            rr.step(codec.decode(seat, a))
            rewards += [env.rewards.get(f"player_{q}", 0.0) for q in range(P)]
            steps += 1
            info = env.infos[sel]
            expect(bool(info["round_over"]) == rr.over,
                   f"{where}: round over env {bool(info['round_over'])} referee {rr.over}")
            if rr.over:
                exp = game.finish_round(rr)
                want_rewards += exp["rewards"]
                check_round_end(info, exp, where)
                rounds += 1
                rr = None
            elif steps % state_every == 0:
                check_state(env, rr, codec, where)
                check_observation(env, rr, codec, rr.cur, where)
                check_observation(env, rr, codec, (rr.cur + 1) % P, where)
            if steps > max_steps:
                break
        if not any(env.truncations.values()):
            expect(np.allclose(rewards, want_rewards),
                   f"seed {seed}: rewards env {rewards.round(4).tolist()} referee {want_rewards.round(4).tolist()}")
    except Mismatch as e:
        raise Mismatch(f"{e}\n  kwargs={kwargs!r} seed={seed} moves={moves!r}") from None
    return {"steps": steps, "rounds": rounds}


# every rules field of docs/envs.md's config table with its documented values
FIELD_VALUES = {
    "preset": ["domino_cubano", "tren_mexicano", "novelty"],
    "hand_size_rule": ["equal_split", "table"],
    "first_turn": ["own_train", "any"],
    "doubles": ["satisfy", "double_double", "chain", "no_cover"],
    "drawn_tile": ["must_play", "may_play"],
    "marker_removal": ["own_train_play", "next_turn"],
    "station_source": ["set_aside", "highest_held"],
    "use_boneyard": [True, False],
    "use_mexican_train": [True, False],
    "blocked_round": ["score", "void"],
    "double_blank_points": [0, 10, 50],
    "game_end": ["rounds", "elimination"],
}


def random_config(r, max_pips=(9, 12, 15, 18)) -> dict:
    """A random env config over every field (``r``: a ``random.Random``); some are refused by
    the env (hands that do not fit the set), which the caller skips."""
    kw = {"preset": r.choice(FIELD_VALUES["preset"]), "num_players": r.randint(2, 8),
          "max_pip": r.choice(max_pips)}
    if r.random() < 0.3:
        kw["hand_size"] = r.choice([1, 2, 3, 4, 5, 7, 10])
    for field, values in FIELD_VALUES.items():
        if field != "preset" and r.random() < 0.6:
            kw[field] = r.choice(values)
    if r.random() < 0.4:
        kw["elimination_limit"] = r.choice([1, 20, 50, 100])
    if r.random() < 0.3:
        kw["first_player"] = r.randrange(kw["num_players"])
    kw["episode"] = r.choice(["round", "game"])
    kw["reward"] = r.choice(["outcome", "points"])
    if kw["episode"] == "game":
        kw["max_steps"] = 4000
    return kw


def random_deal(r, kw: dict) -> dict:
    """A random position for ``reset(options={"deal": ...})``: hands of 1 to 6 tiles (sizes may
    differ), a short boneyard, any station double, a first player or none (docs/envs.md)."""
    cfg = resolve(kw)
    P, N = cfg["num_players"], cfg["max_pip"]
    tiles = tile_table(N)
    r.shuffle(tiles)
    deal: dict = {}
    held = cfg["station_source"] == "highest_held" and r.random() < 0.5
    if not held:
        station = r.randint(0, N)
        tiles.remove((station, station))
        deal["station"] = [station, station]
        if r.random() < 0.7:
            deal["first_player"] = r.randrange(P)
    hands = [[tiles.pop() for _ in range(r.randint(1, 6))] for _ in range(P)]
    if held and not any(a == b for h in hands for a, b in h):
        double = next(t for t in tiles if t[0] == t[1])
        tiles.remove(double)
        hands[r.randrange(P)].append(double)
    deal["hands"] = [[list(t) for t in h] for h in hands]
    if cfg["use_boneyard"]:
        deal["boneyard"] = [list(tiles.pop()) for _ in range(r.randint(0, 6))]
    return deal
