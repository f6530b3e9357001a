"""Tournaments of the line games (issue 5 section 2): duplicate deals for the line envs, team win
credit (parity 1/2), annulled rounds, and tiny tournaments from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from domino_env.agents import LineGreedyAgent
from domino_env.core.config import line_from_preset
from domino_env.core.errors import ConfigError
from domino_env.envs import line_v0
from domino_env.train.evaluate import _credit, deal_seed, evaluate, make_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("preset", ["block", "draw", "cuban"])
def test_same_seed_same_deal_and_leader(preset):
    env = line_v0.raw_env(preset=preset)
    s = deal_seed(0, 3)
    env.reset(seed=s)
    first = (
        env.game_state.deals[0],
        env.game_state.current_player,
        env.game_state.leader,
        list(env.game_state.boneyard),
    )
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    env.reset(seed=s)
    assert (
        env.game_state.deals[0],
        env.game_state.current_player,
        env.game_state.leader,
        list(env.game_state.boneyard),
    ) == first
    env.reset(seed=deal_seed(0, 4))
    assert env.game_state.deals[0] != first[0]


def test_make_env_and_team_credit():
    assert make_env("cuban").config == line_from_preset("cuban")
    assert make_env("block", preset="block", num_players=3).config.num_players == 3
    with pytest.raises(ConfigError):
        make_env("block", preset="cuban")
    with pytest.raises(ConfigError):
        make_env("dominoes")
    assert _credit([1], 4) == [0, 1, 0, 0]
    assert _credit([0, 2], 4) == [0.5, 0, 0.5, 0]  # without teams: a shared win
    assert _credit([0, 2], 4, teams=True) == [1, 0, 1, 0]  # a team win: both partners
    assert _credit([0, 1, 2, 3], 4, teams=True) == [0.5] * 4  # both teams tie a game


def test_evaluate_line_game_rotations_and_parity():
    result = evaluate(
        ["greedy", "random", "random"], rounds=7, seed=3, game="block", keep_records=True
    )
    assert result.game == "block" and not result.teams
    assert result.env_kwargs["preset"] == "block" and result.env_kwargs["num_players"] == 3
    assert result.deals == 3 and result.episodes == 9 == result.rounds_played
    for d in range(3):
        recs = [r for r in result.records if r.deal == d]
        assert {r.seed for r in recs} == {deal_seed(3, d)}
        assert sorted(r.seats.index(0) for r in recs) == [0, 1, 2]
    g, r = result.stats
    assert g.wins + r.wins == pytest.approx(9)
    assert g.parity == pytest.approx(1 / 3)


def test_evaluate_teams_give_team_win_rates():
    result = evaluate(["planner", "greedy", "planner", "greedy"], rounds=8, seed=1, game="cuban")
    assert result.teams and result.env_kwargs["teams"] and result.env_kwargs["max_pip"] == 9
    p, g = result.stats
    assert p.seats_per_table == 2 and p.seat_episodes == 16
    assert p.parity == pytest.approx(0.5)
    # every round has one winning team: the two team win rates sum to 1
    assert p.win_rate + g.win_rate == pytest.approx(1.0)
    again = evaluate(
        ["planner", "greedy", "planner", "greedy"], rounds=8, seed=1, game="cuban", workers=2
    )
    assert again.to_dict()["stats"] == result.to_dict()["stats"]


def test_team_wilson_interval_counts_each_team_result_once():
    """Partners share one result: counted once per seat, the Wilson interval was too narrow (the
    per-deal one of the Cuban greedy-and-random ladder table was 1.37 times as wide)."""
    from domino_env.train.intervals import wilson_interval

    result = evaluate(["planner", "greedy", "planner", "greedy"], rounds=40, seed=3, game="cuban")
    for s in result.stats:  # each agent is one team: 40 (round, team) trials, not 80 seat-rounds
        assert s.seat_episodes == 80 and s.ci95_wilson == pytest.approx(wilson_interval(s.wins / 2, 40))
    with pytest.warns(UserWarning, match="both teams"):
        mixed = evaluate(["planner", "greedy", "greedy", "greedy"], rounds=40, seed=3, game="cuban")
    p, g = mixed.stats  # greedy sits in both teams: a trial for each, and one of the two wins a round
    assert p.ci95_wilson == pytest.approx(wilson_interval(p.wins, 40))
    assert g.seat_episodes == 120 and g.ci95_wilson == pytest.approx(wilson_interval(40, 80))
    solo = evaluate(["planner", "greedy", "planner", "greedy"], rounds=40, seed=3, game="cuban", teams=False)
    assert solo.stats[0].ci95_wilson == pytest.approx(wilson_interval(solo.stats[0].wins, 80))  # seats: trials


def test_annulled_rounds_are_redealt_not_counted():
    # annul_doubles=2: random seats annul often; every episode still counts exactly one round.
    with pytest.warns(UserWarning, match="both teams"):  # random on both teams: told so
        result = evaluate(["random"] * 4, rounds=40, seed=0, game="cuban", annul_doubles=2)
    assert result.annulled_rounds > 0
    assert result.rounds_played == result.episodes == 40
    assert sum(s.wins for s in result.stats) == pytest.approx(2 * 40)  # team credit: 2 per round


def test_whole_line_games_and_agent_objects():
    cfg = line_from_preset("draw", target_score=60)
    res = evaluate(
        [LineGreedyAgent(cfg), "random"], rounds=4, game="draw", episode="game", target_score=60
    )
    assert res.episodes == 4 and res.rounds_played > 4
    assert sum(s.wins for s in res.stats) == pytest.approx(4)
    assert all(s.mean_game_score is not None for s in res.stats)


def test_evaluate_defaults_to_mexican_train():
    res = evaluate(["greedy", "random"], rounds=2, max_pip=9)
    assert res.game == "mexican_train" and res.env_kwargs["preset"] == "domino_cubano"
    with pytest.raises(ConfigError):
        evaluate(["greedy", "random"], rounds=2, game="block", doubles="chain")


def test_tiny_line_tournament_from_the_command_line(tmp_path):
    out = tmp_path / "out.json"
    cmd = [
        sys.executable, "-m", "train.evaluate", "--game", "cuban", "--agents", "planner", "greedy",
        "planner", "greedy", "--rounds", "8", "--next-lead", "next_seat", "--seed", "2",
        "--json", str(out), "--no-progress", "--workers", "2",
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (
        "cuban game" in proc.stdout and "team win rate" in proc.stdout and "95% CI" in proc.stdout
    )
    data = json.loads(out.read_text())
    assert data["game"] == "cuban" and data["teams"] is True
    assert (
        data["env_kwargs"]["preset"] == "cuban" and data["env_kwargs"]["next_lead"] == "next_seat"
    )
    assert data["episodes"] == 8 and data["deal_seeds"] == [deal_seed(2, 0), deal_seed(2, 1)]
    assert [s["name"] for s in data["stats"]] == ["planner", "greedy"]
    assert all(s["parity"] == pytest.approx(0.5) for s in data["stats"])
    # block game, 3 players, double-9 with an option override
    proc = subprocess.run(
        [sys.executable, "-m", "train.evaluate", "--game", "draw", "--agents", "greedy", "random", "random",
         "--rounds", "3", "--max-pip", "9", "--hand-size", "6", "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "draw game, 3 players" in proc.stdout and "double-9" in proc.stdout
    help_text = subprocess.run(
        [sys.executable, "-m", "train.evaluate", "--help"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    for option in ("--game", "--teams", "--next-lead", "--annul-doubles", "--target-score"):
        assert option in help_text
    for bad_args, message in (
        (["--game", "block", "--preset", "novelty"], "--preset"),
        (["--game", "block", "--doubles", "chain"], "--doubles"),
        (["--teams"], "--teams"),
        (["--game", "block", "--max-pip", "15"], "max_pip"),
    ):
        bad = subprocess.run(
            [sys.executable, "-m", "train.evaluate", "--agents", "greedy", "random", "--rounds", "2",
             "--no-progress", *bad_args],
            cwd=ROOT, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert bad.returncode == 2 and message in bad.stderr, (bad_args, bad.stderr)


@pytest.mark.parametrize(
    "args,message",
    [
        (["--game", "cuban", "--agents", "planner", "greedy"], "teams of two"),
        (["--agents", "greedy", "random", "--json", "/nonexistent-dir/x.json"], "does not exist"),
        (["--agents", "greedy", "random", "--json", "/tmp"], "--json /tmp: is a folder"),
        (["--agents", "greedy", "random", "--seed", "-1"], "seed"),
        (["--agents", "greedy", "random", "--workers", "0"], "workers"),
        (["--game", "draw", "--agents", "greedy:x", "random"], "agent"),
    ],
)
def test_command_line_refuses_bad_arguments_before_playing(args, message):
    from domino_env.train.evaluate import run

    with pytest.raises(SystemExit):
        run([*args, "--rounds", "4", "--no-progress"])
    # argparse printed the reason; run again capturing it
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit):
        run([*args, "--rounds", "4", "--no-progress"])
    assert message in err.getvalue()


def test_agent_objects_for_the_other_game_are_refused():
    from domino_env import ConfigError
    from domino_env.agents import make_agent

    with pytest.raises(ConfigError, match="built for block"):
        evaluate([make_agent("greedy"), "random"], rounds=2, game="block", num_players=2)


def test_mean_game_score_is_over_the_games_that_finished():
    """A game truncated at max_cycles has no final total: it counted as a score of 0 and pulled
    the mean down (here 30 for seat 0's agent instead of 60)."""
    from domino_env.train.tournament_results import GameRecord, summarize

    done = GameRecord(0, 0, 1, [0, 1], rounds=3, round_credit=[2.0, 1.0], pips=[5, 9],
                      game_credit=[1.0, 0.0], scores=[60, 140])  # fmt: skip
    cut = GameRecord(1, 0, 2, [0, 1], rounds=40, round_credit=[20.0, 20.0], pips=[0, 0], truncated=True)
    a, b = summarize([done, cut], ["a", "b"], 2, episode="game")
    assert (a.mean_game_score, b.mean_game_score) == (60.0, 140.0)
    assert (a.seat_episodes, a.wins) == (2, 1.0)  # the truncated game still counts, with no credit
    assert [s.mean_game_score for s in summarize([cut], ["a", "b"], 2, episode="game")] == [None, None]
