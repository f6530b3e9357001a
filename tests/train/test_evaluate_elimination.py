"""Pips and round wins per round played: a seat knocked out of an elimination game sits out the
later rounds (dealt nothing, 0 pips, no win), and those rounds are not its rounds; with no round
played (every episode truncated first) the tables say n/a, not 0 pips."""

from __future__ import annotations

import numpy as np

from domino_env.agents import make_agent
from domino_env.envs.games import make_raw_env
from domino_env.train.paired import deal_values
from domino_env.train.tournament import evaluate, rotation_seats

RULES = {"max_pip": 9, "game_end": "elimination"}
AGENTS = ["planner", "random", "random"]


def played(seed: int, deal: int, rotation: int, deal_seed: int) -> tuple[list[int], list[int], list[float]]:
    """Rounds played, pips and round credit per seat, counted here from the env's infos."""
    env = make_raw_env("mexican_train", num_players=3, episode="game", **RULES)
    agents = [make_agent(a, env.config) for a in AGENTS]
    seats = rotation_seats(3, rotation)
    env.reset(seed=deal_seed)
    rngs = [np.random.default_rng([seed, deal, rotation, s]) for s in range(3)]
    totals = [0, 0, 0]
    rounds, pips, credit = [0, 0, 0], [0, 0, 0], [0.0, 0.0, 0.0]
    while env.agents:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            env.step(None)
            continue
        s = env.possible_agents.index(name)
        obs = env.observe(name)
        env.step(int(agents[seats[s]](obs["observation"], obs["action_mask"], rngs[s])))
        info = env.infos[name]
        if info.get("round_over"):
            winners = np.flatnonzero(info["won"])
            for i in range(3):
                rounds[i] += totals[i] < env.config.elimination_limit  # still in when the round began
                pips[i] += int(info["pips"][i])
                credit[i] += (i in winners) / len(winners)
            totals = [int(x) for x in info["scores"]]
    return rounds, pips, credit


def test_rounds_a_knocked_out_seat_sits_out_are_not_counted_in_its_pips_and_round_wins():
    res = evaluate(AGENTS, rounds=6, num_players=3, seed=4, episode="game", keep_records=True, **RULES)
    seat_rounds = {"planner": 0, "random": 0}
    pips = {"planner": 0, "random": 0}
    credit = {"planner": 0.0, "random": 0.0}
    sat_out = 0
    for rec in res.records:
        rounds, p, c = played(4, rec.deal, rec.rotation, rec.seed)
        assert rec.seat_rounds == rounds
        sat_out += sum(rec.rounds - r for r in rounds)
        for s in range(3):
            name = AGENTS[rec.seats[s]]
            seat_rounds[name] += rounds[s]
            pips[name] += p[s]
            credit[name] += c[s]
    assert sat_out > 0  # these games knock seats out before their end
    for name in seat_rounds:
        stats = res.stats_for(name)
        assert stats.seat_rounds == seat_rounds[name]
        assert stats.mean_pips_per_round == pips[name] / seat_rounds[name]
        assert stats.round_win_rate == credit[name] / seat_rounds[name]
    # domino-paired's pips: per round the seat played, too
    values = deal_values(res.to_dict(records=True), "random", metric="pips")
    for (deal, _), value in values.items():
        recs = [r for r in res.records if r.deal == deal]
        mine = [(r.pips[s], r.seat_rounds[s]) for r in recs for s in range(3) if AGENTS[r.seats[s]] == "random"]
        assert value == sum(x for x, _ in mine) / sum(n for _, n in mine)


def test_records_without_seat_rounds_count_every_round():
    res = evaluate(AGENTS, rounds=3, num_players=3, seed=4, episode="game", keep_records=True, **RULES)
    old = res.to_dict(records=True)
    for rec in old["records"]:
        del rec["seat_rounds"]  # a file written before they were kept
    values = deal_values(old, "random", metric="pips")
    recs = old["records"]
    total = sum(r["pips"][s] for r in recs for s in range(3) if AGENTS[r["seats"][s]] == "random")
    rounds = sum(r["rounds"] for r in recs for s in range(3) if AGENTS[r["seats"][s]] == "random")
    assert values[(0, recs[0]["seed"])] == total / rounds


def test_with_every_episode_truncated_before_a_round_ends_the_per_round_columns_say_n_a():
    from rich.console import Console

    res = evaluate(["greedy", "random", "random"], rounds=3, num_players=3, seed=0, max_cycles=1, **RULES)
    stats = res.stats_for("greedy")
    assert (stats.seat_rounds, stats.mean_pips_per_round, stats.round_win_rate) == (0, 0.0, 0.0)
    assert res.markdown().splitlines()[2].endswith("| n/a | 0.000 | n/a |")  # per-deal CI, parity, pips
    console = Console(width=250, record=True)
    console.print(res.table())
    row = next(line for line in console.export_text().splitlines() if "greedy" in line and "│" in line)
    assert row.rstrip(" │").endswith("n/a")
    played = evaluate(["greedy", "random", "random"], rounds=3, num_players=3, seed=0, **RULES)
    assert played.markdown().splitlines()[2].split("|")[-2].strip() == f"{played.stats_for('greedy').mean_pips_per_round:.1f}"


def test_domino_paired_notes_a_file_that_counted_sat_out_rounds(tmp_path):
    import json
    import subprocess
    import sys

    res = evaluate(AGENTS, rounds=6, num_players=3, seed=4, episode="game", keep_records=True, **RULES)
    new = res.to_dict(records=True)
    old = json.loads(json.dumps(new))
    for rec in old["records"]:
        del rec["seat_rounds"]  # as written before 2026-12-05
    (tmp_path / "new.json").write_text(json.dumps(new))
    (tmp_path / "old.json").write_text(json.dumps(old))

    def paired(*args):
        r = subprocess.run([sys.executable, "-m", "domino_env.train.paired", *args, "--agent", "random"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip
        assert r.returncode == 0, r.stderr
        return r.stdout.splitlines()

    lines = paired("new.json", "old.json", "--metric", "pips")
    assert lines[2].startswith("A - B: +")  # the same games: fewer rounds counted, more pips per round
    assert lines[3].startswith("note: old.json was written before records kept each seat's rounds played")
    assert len(paired("old.json", "new.json", "--metric", "pips")) == 4
    assert len(paired("new.json", "new.json", "--metric", "pips")) == 3  # (one file: no note)
    assert len(paired("new.json", "old.json")) == 3  # win credit does not count rounds
