"""``domino-play``'s words when every seat left crosses an elimination game's limit in the same
round: the lowest total wins the game, and is not "out of the game" (the replay page's words)."""

from __future__ import annotations

from test_play import _play

from domino_env.core.records import load_record, replay
from domino_env.render import render_mexican_train


def test_the_winner_of_a_game_every_seat_left_crossed_is_not_told_out(tmp_path):
    """Every seat reaches the limit of 5 in round 1 (blocked, seat 3 with the fewest pips): it said
    "game over: won by seat 3" and then "seat 3 is out of the game (score 55 reached the limit of 5)"."""
    rec = tmp_path / "r.json"
    out = _play(["--episode", "round", "--game-end", "elimination", "--elimination-limit", "5", "--seed", "1",
                 "--record", str(rec)], "1\n" * 300)  # fmt: skip
    assert out.returncode == 0, out.stderr
    state = list(replay(load_record(rec)))[-1]
    assert state.game_winners == (3,) and state.eliminated_at == [0, 0, 0, 0]  # every seat crossed the limit
    # the table's last picture: the winner's train is not tagged "out of the game" (it was), the others' are
    rows = [row for row in render_mexican_train(state).splitlines() if row.startswith("  seat ")]
    assert ["out of the game" in row for row in rows] == [True, True, True, False], rows
    assert "game over: won by seat 3" in out.stdout and "seat 3 is out of the game" not in out.stdout
    assert "seat 1 is out of the game (score " in out.stdout and "seat 2 is out of the game (score " in out.stdout
    assert out.stdout.count("every seat left reached the limit of 5: the lowest total wins\n") == 1
    # in the replay page's order: the round, the seats it knocked out, then the game's end (it
    # said "game over" between the round's summary and the seats it knocked out)
    end = out.stdout[out.stdout.index("round 1 over (blocked)"):].splitlines()
    assert end[:7] == ["round 1 over (blocked): won by seat 3",
                       "  pips left in each hand: [96, 121, 66, 55]; scores now: [96, 121, 66, 55]",
                       "you are out of the game (your score 96 reached the limit of 5)",
                       "seat 1 is out of the game (score 121 reached the limit of 5)",
                       "seat 2 is out of the game (score 66 reached the limit of 5)",
                       "every seat left reached the limit of 5: the lowest total wins",
                       "game over: won by seat 3"], end  # fmt: skip


def test_a_line_game_played_to_its_end_names_no_limit(tmp_path):
    """A line game has no eliminations: its game end says nothing of a limit (and does not fail)."""
    out = _play(["--game", "block", "--players", "2", "--episode", "game", "--seed", "3", "--record",
                 str(tmp_path / "r.json")], "1\n" * 2000)  # fmt: skip
    assert out.returncode == 0 and "game over: won by" in out.stdout, out.stderr
    assert "limit" not in out.stdout and "out of the game" not in out.stdout


def test_your_seat_knocked_out_by_the_last_round_is_told_in_seat_order(tmp_path):
    """The round that ended the game also knocked you out: domino-play named the other seats and not
    you (the replay page names every seat, in seat order); in a one-round episode it said "the other
    seats play on to the end" though the episode ended there."""
    out = _play(["--players", "4", "--max-pip", "9", "--episode", "game", "--game-end", "elimination",
                 "--elimination-limit", "25", "--seed", "4", "--record", str(tmp_path / "g.json")], "1\n" * 3000)  # fmt: skip
    assert out.returncode == 0, out.stderr
    end = out.stdout[out.stdout.index("round 2 over (went out)"):].splitlines()
    assert end[:6] == ["round 2 over (went out): won by seat 2",
                       "  pips left in each hand: [43, 15, 0, 22]; scores now: [43, 29, 10, 46]",
                       "you are out of the game (your score 43 reached the limit of 25)",
                       "seat 1 is out of the game (score 29 reached the limit of 25)",
                       "seat 3 is out of the game (score 46 reached the limit of 25)",
                       "game over: won by seat 2"], end  # fmt: skip
    out = _play(["--players", "4", "--max-pip", "9", "--game-end", "elimination", "--elimination-limit", "25",
                 "--seed", "1", "--record", str(tmp_path / "r.json")], "1\n" * 3000)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "you are out of the game (your score 44 reached the limit of 25)\nseat 3 is out of the game" in out.stdout
    assert "play on" not in out.stdout
