"""Plays the line env against the independent referee (``line_referee.py``) and compares every step:
the acting seat, the action mask with the referee's legal set, the public state (observations),
the privileged state (``env.state()``), the step rewards and ``infos``, and the round and game
results. Only the deals are taken from the env (its seeded shuffle, read from ``to_record()``)."""

from __future__ import annotations

import numpy as np
from line_referee import ANNULLED, Referee, Rules, tiles_of

from domino_env.encoding.line import decode_line_observation
from domino_env.envs import line_v0


class Mismatch(AssertionError):
    pass


def _check(cond: bool, what: str, ctx: dict) -> None:
    if not cond:
        raise Mismatch(f"{what} | {ctx}")


def _flags(tiles, index, T):
    out = np.zeros(T, dtype=np.int64)
    for t in tiles:
        out[index[t]] = 1
    return out


def _ranks(tiles, index, T):
    out = np.zeros(T, dtype=np.int64)
    for k, t in enumerate(tiles):
        out[index[t]] = k + 1
    return out


def _onehot(i, n):
    out = np.zeros(n, dtype=np.int64)
    if i is not None:
        out[i] = 1
    return out


def _padded(seats, P):
    return [*sorted(seats), *[-1] * (P - len(seats))]


def compare_state(env, ref: Referee, ctx: dict, round_index: int | None = None) -> None:
    """``round_index``: after the episode's last round the state keeps that round's index."""
    if round_index is None:
        round_index = ref.round_index
    r, P, T, N1 = ref.r, ref.r.num_players, ref.T, ref.r.max_pip + 1
    ix = ref.index
    f = env.unwrapped.state_encoder.decode(env.state())
    exp = {
        "hands": np.stack([_flags(h, ix, T) for h in ref.hands]),
        "boneyard": _ranks(ref.boneyard, ix, T),
        "out_of_play": _flags(ref.out_of_play, ix, T),
        "line": _ranks(ref.line, ix, T),
        "left_end": _onehot(ref.left, N1),
        "right_end": _onehot(ref.right, N1),
        "current_player": _onehot(None if ref.round_over else ref.current, P),
        "leader": _onehot(ref.leader, P),
        "forced_lead": _flags([ref.forced_lead] if ref.forced_lead and not ref.line else [], ix, T),
        "doubles_dealt": np.array(ref.doubles_dealt),
        "drew": np.array(ref.drew, dtype=np.int64),
        "missing_pips": np.stack([_flags(m, {p: p for p in range(N1)}, N1) for m in ref.missing]),
        "scores": np.array(ref.scores),
        "round_index": np.array([min(round_index, 1000)]),
        "in_first_turn": np.array([int(not ref.round_over and not ref.turn_done[ref.current])]),
        "first_turn_pending": np.array([int(not x) for x in ref.started]),
        "round_over": np.array([int(ref.round_over)]),
        "round_winner": _onehot(ref.last_winner, P),
        "annulments": np.array([ref.annulments]),
    }
    for k, v in exp.items():
        _check(np.array_equal(np.asarray(f[k]).astype(np.int64), v), f"state {k}: env "
               f"{np.asarray(f[k]).astype(np.int64).tolist()} referee {v.tolist()}", ctx)
    for s in range(P):
        o = decode_line_observation(env.observe(f"player_{s}")["observation"], P, r.max_pip)
        rot = [(s + k) % P for k in range(P)]
        sizes = [len(ref.hands[q]) for q in rot]
        obs_exp = {
            "hand": _flags(ref.hands[s], ix, T),
            "placed": _flags(ref.line, ix, T),
            "left_end": _onehot(ref.left, N1),
            "right_end": _onehot(ref.right, N1),
            "line_length": np.array([len(ref.line)]),
            "hand_sizes": np.array(sizes),
            "boneyard_size": np.array([len(ref.boneyard)]),
            "current_player": _onehot(None if ref.round_over else rot.index(ref.current), P),
            "leader": _onehot(rot.index(ref.leader), P),
            "partner": _onehot(2 if r.teams else None, P),
            "missing_pips": np.stack([_flags(ref.missing[q], {p: p for p in range(N1)}, N1)
                                      for q in rot[1:]]),
            "may_annul": np.array([int(ref.may_annul(s))]),
            "round_index": np.array([min(round_index, 1000)]),
            "scores": np.array([ref.scores[q] for q in rot]),
        }
        for k, v in obs_exp.items():
            got = np.asarray(o[k]).astype(np.int64).reshape(v.shape)
            _check(np.array_equal(got, v),
                   f"obs of seat {s} {k}: env {got.tolist()} referee {v.tolist()}", ctx)


def compare_infos(env, ref: Referee, res, ended_round: int, ended_leader: int, ctx) -> None:
    P = ref.r.num_players
    info = env.infos["player_0"]
    _check(bool(info["round_over"]) == (res is not None), "infos round_over", ctx)
    _check(list(info["scores"]) == ref.scores, f"infos scores {list(info['scores'])} "
           f"referee {ref.scores}", ctx)
    if res is None:
        _check(int(info["termination_code"]) == 0 and list(info["winners"]) == [-1] * P,
               "infos neutral on a non-ending step", ctx)
        return
    _check(int(info["termination_code"]) == res.code,
           f"termination {int(info['termination_code'])} referee {res.code}", ctx)
    got = {
        "winners": list(info["winners"]), "won": list(info["won"]), "pips": list(info["pips"]),
        "points": list(info["points"]), "round_index": int(info["round_index"]),
        "leader": int(info["leader"]), "game_over": bool(info["game_over"]),
        "game_winners": list(info["game_winners"]), "game_won": list(info["game_won"]),
    }
    exp = {
        "winners": _padded(res.winners, P), "won": [int(s in res.winners) for s in range(P)],
        "pips": res.pips, "points": res.points, "round_index": ended_round,
        "leader": ended_leader, "game_over": res.game_over,
        "game_winners": _padded(res.game_winners, P),
        "game_won": [int(s in res.game_winners) for s in range(P)],
    }
    for k in exp:
        _check(got[k] == exp[k], f"infos {k}: env {got[k]} referee {exp[k]}", ctx)


def make_deals(rules: Rules, rng, count: int) -> list[dict]:
    """Deals shuffled here, for ``reset(options={"deals": ...})``; some name a first player."""
    tiles = [list(t) for t in tiles_of(rules.max_pip)]
    out = []
    for _ in range(count):
        order = rng.permutation(len(tiles))
        shuffled = [tiles[i] for i in order]
        h, P = rules.hand_size, rules.num_players
        deal = {"hands": [shuffled[s * h:(s + 1) * h] for s in range(P)]}
        if rules.use_boneyard:
            deal["boneyard"] = shuffled[P * h:]
        if rng.random() < 0.3:
            deal["first_player"] = int(rng.integers(P))
        out.append(deal)
    return out


def _tally(stats: dict, ref: Referee, res) -> None:
    key = {1: "went_out", 2: "blocked", 3: "annulled"}[res.code]
    stats[key] = stats.get(key, 0) + 1
    if res.code == 2 and ref.boneyard:
        stats["blocked_with_boneyard"] = stats.get("blocked_with_boneyard", 0) + 1
    if res.code == 2:
        side = res.pips
        if ref.r.teams:
            side = [res.pips[s] + res.pips[(s + 2) % 4] for s in range(4)][:2]
        if side.count(min(side)) > 1:
            stats["blocked_ties"] = stats.get("blocked_ties", 0) + 1
    if len(res.game_winners) > (2 if ref.r.teams else 1):
        stats["game_ties"] = stats.get("game_ties", 0) + 1


def _start(ref: Referee, deal: dict, stats: dict) -> None:
    ref.start_round(deal["hands"], deal.get("boneyard") or [], deal.get("first_player"))
    if ref.forced_lead is not None and ref.forced_lead[0] != ref.forced_lead[1]:
        stats["lead_without_double"] = stats.get("lead_without_double", 0) + 1


def play_episode(kwargs: dict, seed: int, stats: dict | None = None, moves=None,
                 given_deals: int = 0, deals: list | None = None) -> list[int]:
    """One seeded episode with uniformly random legal moves (or the given ``moves``), checked
    step by step; returns the moves played. Raises ``Mismatch`` on any disagreement.
    ``given_deals``: pass that many deals shuffled here through ``reset(options=...)``;
    ``deals``: pass these deals."""
    rules_fields = {k: v for k, v in kwargs.items() if k != "preset"}
    rules = Rules.from_preset(kwargs.get("preset", "block"), **rules_fields)
    env = line_v0.raw_env(**kwargs)
    rng = np.random.default_rng(seed + 7919)
    if deals is not None or given_deals:
        deals = deals if deals is not None else make_deals(rules, rng, given_deals)
        env.reset(seed=seed, options={"deals": deals})
    else:
        env.reset(seed=seed)
    ref = Referee(rules)
    played: list[int] = []
    ctx = {"kwargs": kwargs, "seed": seed, "moves": played}
    stats = stats if stats is not None else {}
    _start(ref, env.unwrapped.to_record()["deals"][0], stats)
    compare_state(env, ref, ctx)
    while True:
        agent = env.agent_selection
        _check(agent == f"player_{ref.current}", f"acting {agent} referee {ref.current}", ctx)
        mask = env.observe(agent)["action_mask"]
        got = set(np.flatnonzero(mask).tolist())
        exp = ref.legal()
        _check(got == exp, f"mask {sorted(got)} referee {sorted(exp)}", ctx)
        for other in env.possible_agents:
            if other != agent:
                _check(not env.observe(other)["action_mask"].any(), f"mask of {other}", ctx)
        if moves is not None and len(played) < len(moves):
            action = moves[len(played)]
        elif moves is not None:
            return played
        else:
            action = int(rng.choice(sorted(exp)))
        played.append(action)
        if action == ref.ANNUL and ref.drew[ref.current]:
            stats["annulled_after_draw"] = stats.get("annulled_after_draw", 0) + 1
        kind = {ref.DRAW: "draws", ref.PASS: "passes"}.get(action)
        if kind:
            stats[kind] = stats.get(kind, 0) + 1
        ended_round, ended_leader = ref.round_index, ref.leader
        env.step(action)
        res = ref.play(action)
        stats["steps"] = stats.get("steps", 0) + 1
        rew = ref.rewards(res)
        for s in range(rules.num_players):
            _check(abs(env.rewards[f"player_{s}"] - rew[s]) < 1e-9,
                   f"reward of seat {s}: env {env.rewards[f'player_{s}']} referee {rew[s]}", ctx)
        compare_infos(env, ref, res, ended_round, ended_leader, ctx)
        if res is not None:
            _tally(stats, ref, res)
            ends_episode = res.code != ANNULLED and (rules.episode == "round" or res.game_over)
            for a in env.possible_agents:
                _check(bool(env.terminations[a]) == ends_episode, f"termination of {a}", ctx)
            if ends_episode:
                stats["games_over"] = stats.get("games_over", 0) + int(res.game_over)
                compare_state(env, ref, ctx, ended_round)
                return played
            _start(ref, env.unwrapped.to_record()["deals"][-1], stats)
        compare_state(env, ref, ctx)
