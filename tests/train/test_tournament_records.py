"""Every field of a tournament's records, against the same deals replayed here with the env, one
step at a time (the seats of each rotation, each seat's generator, the win credit of shared and team
wins, pips, blocked and void rounds, annulled re-deals, whole games and truncation), and the deal
seeds and records of small tournaments pinned by value: the numbers every published table sums."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from domino_env.agents import make_agent
from domino_env.envs.games import make_raw_env
from domino_env.train.intervals import wilson_interval
from domino_env.train.tournament import deal_seed, evaluate


def replay(game: str, names: list[str], seed: int, deal: int, rotation: int, episode: str = "round",
           **rules) -> dict:  # fmt: skip
    """The record of deal ``deal`` in rotation ``rotation``, counted here from the env's infos."""
    p = len(names)
    env = make_raw_env(game, num_players=p, episode=episode, **rules)
    agents = [make_agent(a, env.config) for a in names]
    seats = [0] * p
    for i in range(p):  # docs/evaluation.md: rotation r puts agent i at seat (i + r) % P
        seats[(i + rotation) % p] = i
    teams = bool(getattr(env.config, "teams", False))
    env.reset(seed=deal_seed(seed, deal))
    rngs = [np.random.default_rng([seed, deal, rotation, s]) for s in range(p)]
    out = {"deal": deal, "rotation": rotation, "seed": deal_seed(seed, deal), "seats": seats, "rounds": 0,
           "round_credit": [0.0] * p, "pips": [0] * p, "game_credit": None, "scores": None, "blocked": 0,
           "void": 0, "steps": 0, "truncated": False, "annulled": 0, "seat_rounds": [0] * p}  # fmt: skip
    while env.agents:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            env.step(None)
            continue
        s = env.possible_agents.index(name)
        obs = env.observe(name)
        active = list(getattr(env.game_state, "active", [True] * p))
        env.step(int(agents[seats[s]](obs["observation"], obs["action_mask"], rngs[s])))
        out["steps"] += 1
        info = env.infos[name]
        if info.get("round_over") and str(info["termination_code"]) == "annulled":
            out["annulled"] += 1
        elif info.get("round_over"):
            winners = [int(w) for w in np.flatnonzero(info["won"])]
            out["rounds"] += 1
            for i in range(p):
                out["seat_rounds"][i] += active[i]
                out["pips"][i] += int(info["pips"][i])
                if i in winners:  # teams: a winning team's partners each get 1 / (winning teams)
                    out["round_credit"][i] += 1 / (len({w % 2 for w in winners}) if teams else len(winners))
            out["blocked"] += str(info["termination_code"]) == "blocked"
            out["void"] += str(info["termination_code"]) == "blocked" and not winners
            if episode == "game" and info["game_over"]:
                won = [int(w) for w in np.flatnonzero(info["game_won"])]
                out["game_credit"] = [(i in won) / (len({w % 2 for w in won}) if teams else len(won))
                                      for i in range(p)]  # fmt: skip
                out["scores"] = [int(x) for x in info["scores"]]
        if any(env.truncations.values()):
            out["truncated"] = True
            break
    return out


CASES = {  # id: (game, agents, seed, rounds, episode, rules)
    "shared-wins": ("mexican_train", ["greedy", "random", "random"], 0, 33, "round", {"max_pip": 9}),
    "mexican-train-rounds": ("mexican_train", ["greedy", "random", "random"], 5, 9, "round", {"max_pip": 9}),
    "blocked-void-rounds": ("mexican_train", ["random", "random", "greedy"], 2, 12, "round",
                            {"max_pip": 9, "blocked_round": "void"}),  # fmt: skip
    "whole-games": ("mexican_train", ["greedy", "random"], 1, 2, "game", {"max_pip": 9}),
    "truncated": ("mexican_train", ["greedy", "random"], 0, 4, "round", {"max_pip": 9, "max_cycles": 3}),
    "cuban-teams": ("cuban", ["greedy", "random", "greedy", "random"], 3, 8, "round", {}),
    "cuban-annulled": ("cuban", ["random", "greedy", "random", "greedy"], 0, 16, "round", {"annul_doubles": 2}),
    "draw-games": ("draw", ["greedy", "random"], 4, 2, "game", {"target_score": 40}),
    "preset": ("mexican_train", ["greedy", "random", "random"], 2, 6, "round", {"max_pip": 9, "preset": "tren_mexicano"}),
}
TOTALS = {  # id: (deals, episodes, rounds, blocked, void, annulled, truncated), {agent: (wins, seat-episodes)}
    "shared-wins": ((11, 33, 33, 21, 0, 0, 0), {"greedy": (11.5, 33), "random": (21.5, 66)}),  # deal 10: a tie
    "mexican-train-rounds": ((3, 9, 9, 5, 0, 0, 0), {"greedy": (5.0, 9), "random": (4.0, 18)}),
    "blocked-void-rounds": ((4, 12, 12, 10, 10, 0, 0), {"random": (1.0, 24), "greedy": (1.0, 12)}),
    "whole-games": ((1, 2, 20, 20, 0, 0, 0), {"greedy": (2.0, 2), "random": (0.0, 2)}),
    "truncated": ((2, 4, 0, 0, 0, 0, 4), {"greedy": (0.0, 4), "random": (0.0, 4)}),
    "cuban-teams": ((2, 8, 8, 4, 0, 2, 0), {"greedy": (8.0, 16), "random": (8.0, 16)}),  # 2 per round: teams
    "cuban-annulled": ((4, 16, 16, 10, 0, 10, 0), {"random": (14.0, 32), "greedy": (18.0, 32)}),
    "draw-games": ((1, 2, 4, 1, 0, 0, 0), {"greedy": (2.0, 2), "random": (0.0, 2)}),
    "preset": ((2, 6, 6, 1, 1, 0, 0), {"greedy": (0.0, 6), "random": (5.0, 12)}),  # its rules, not the default's
}


@pytest.mark.parametrize("case", CASES)
def test_every_record_is_the_deal_replayed_in_its_rotation(case):
    game, names, seed, rounds, episode, rules = CASES[case]
    res = evaluate(names, rounds=rounds, seed=seed, episode=episode, game=game, keep_records=True, **rules)
    p = len(names)
    assert [(r.deal, r.rotation) for r in res.records] == [(d, r) for d in range(-(-rounds // p)) for r in range(p)]
    for rec in res.records:
        assert dataclasses.asdict(rec) == replay(game, names, seed, rec.deal, rec.rotation, episode, **rules)


@pytest.mark.parametrize("case", CASES)
def test_the_totals_of_small_tournaments(case):
    """Pinned by value: a change here changes published tables (rerun them, then update these)."""
    game, names, seed, rounds, episode, rules = CASES[case]
    res = evaluate(names, rounds=rounds, seed=seed, episode=episode, game=game, **rules)
    counts, wins = TOTALS[case]
    assert (res.deals, res.episodes, res.rounds_played, res.blocked_rounds, res.void_rounds,
            res.annulled_rounds, res.truncated_episodes) == counts  # fmt: skip
    assert {s.name: (s.wins, s.seat_episodes) for s in res.stats} == wins
    assert res.deal_seeds == [deal_seed(seed, d) for d in range(counts[0])] and res.resumed_deals == 0
    assert res.records == []  # kept only when asked
    assert res.teams == (game == "cuban") and 0 <= res.seconds < 60
    for st in res.stats:  # the Wilson interval's trials: seat-rounds, or (round, team) pairs with teams
        n = 2 if res.teams else 1
        assert st.ci95_wilson == pytest.approx(wilson_interval(st.wins / n, st.seat_episodes / n))


def test_deal_seeds_are_pinned():
    """The env seed of every deal of every published tournament (31 bits: SeedSequence([seed, deal]))."""
    assert [deal_seed(0, d) for d in range(3)] == [1484405855, 1982462498, 1570558271]
    assert deal_seed(7, 1) == 184785996
    assert deal_seed(5, 0) == 8411699
    assert all(0 <= deal_seed(s, d) < 2**31 for s in range(4) for d in range(50))


def record(case: str, deal: int, rotation: int):
    game, names, seed, rounds, episode, rules = CASES[case]
    res = evaluate(names, rounds=rounds, seed=seed, episode=episode, game=game, keep_records=True, **rules)
    return next(r for r in res.records if (r.deal, r.rotation) == (deal, rotation))


def test_records_checked_by_hand():
    tie = record("shared-wins", 10, 0)  # blocked; seats 0 and 2 hold the fewest pips, 12 each: 1/2 each
    assert (tie.seed, tie.seats, tie.blocked, tie.void) == (1793958483, [0, 1, 2], 1, 0)
    assert (tie.pips, tie.round_credit, tie.rounds, tie.seat_rounds) == ([12, 14, 12], [0.5, 0.0, 0.5], 1, [1, 1, 1])
    void = record("blocked-void-rounds", 0, 0)  # blocked_round="void": blocked, nobody wins
    assert (void.blocked, void.void, void.round_credit, void.pips) == (1, 1, [0.0, 0.0, 0.0], [8, 22, 16])
    # Cuban, teams 0+2 and 1+3: rotation 0 is annulled once (re-dealt), then blocked with team pips
    # 16 + 8 = 24 against 12 + 11 = 23: team 1+3 wins, 1 to each partner (not 1/2)
    team = record("cuban-teams", 0, 0)
    assert (team.annulled, team.rounds, team.blocked, team.pips) == (1, 1, 1, [16, 12, 8, 11])
    assert team.round_credit == [0.0, 1.0, 0.0, 1.0]
    assert [record("cuban-teams", 0, r).seats for r in range(4)] == [[0, 1, 2, 3], [3, 0, 1, 2], [2, 3, 0, 1], [1, 2, 3, 0]]
    went_out = record("cuban-teams", 0, 3)  # seat 2 went out (0 pips): its team 0+2 wins
    assert (went_out.blocked, went_out.pips, went_out.round_credit) == (0, [24, 2, 0, 16], [1.0, 0.0, 1.0, 0.0])
    # a whole game of 10 rounds: greedy (agent 0) at seat 1 ends on 213 against 408 (the round
    # pips summed: each round scores its pips) and wins the game: 8 of the 10 rounds
    game = record("whole-games", 0, 1)
    assert (game.seats, game.rounds, game.blocked, game.steps) == ([1, 0], 10, 10, 512)
    assert (game.pips, game.scores, game.round_credit, game.game_credit) == ([408, 213], [408, 213], [2.0, 8.0], [0.0, 1.0])
    cut = record("truncated", 0, 1)  # max_cycles=3: cut before any round ends
    assert (cut.truncated, cut.rounds, cut.steps, cut.round_credit, cut.game_credit) == (True, 0, 7, [0.0, 0.0], None)


def test_the_warning_of_an_agent_on_both_teams():
    """Only a team game warns of an agent on both teams (seats 0+2 against 1+3): seats 0 and 1 of
    a Mexican Train table, or of a line game without teams, are no partners."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(["greedy", "greedy", "random"], rounds=3, max_pip=9)
        evaluate(["greedy", "greedy", "random", "random"], rounds=4, game="cuban", teams=False)
        evaluate(["greedy", "random", "greedy", "random"], rounds=4, game="cuban")  # one agent per team
    with pytest.warns(UserWarning, match=r"\['greedy', 'random'\] sit on both teams") as told:
        evaluate(["greedy", "greedy", "random", "random"], rounds=4, game="cuban")  # teams 0+2 and 1+3
    assert told[0].filename == __file__  # the caller's line
