"""How the replay page ends a round or a game (split from ``test_replay_html.py``, whose helpers
these tests use): the seats an elimination round knocks out, a record the env's ``max_cycles`` or
``max_steps`` cut short, and the games that have no boneyard. Each page is loaded in headless
Chromium, and the text it shows is checked word for word."""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_replay_html import _open, launched_browser

from domino_env.core.records import replay, replay_end
from domino_env.envs import block_v0, line_v0, mexican_train_v0
from domino_env.render import render_mexican_train
from domino_env.train.replay_html import frames_from_record


@pytest.fixture(scope="module")
def chromium():
    yield from launched_browser()


def _random_record(env, seed: int) -> dict:
    """A record of seeded random legal moves until the env's episode ends."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env.to_record()


def _show(page, index: int) -> None:
    page.locator("#slider").fill(str(index))
    assert page.locator("body").get_attribute("data-frame") == str(index)


def _train_label(page, seat: int) -> list[str]:
    return page.locator(f'.trow[data-train="{seat}"] svg.label > text').all_text_contents()


@pytest.fixture(scope="module")
def elimination_game() -> dict:
    """Tren Mexicano (out at 100), 3 seats, double-9: move 168 ends round 4 and knocks seat 0 out,
    move 217 ends round 5 and the game, seat 1 out and seat 2 the winner."""
    return _random_record(mexican_train_v0.raw_env(preset="tren_mexicano", episode="game", num_players=3, max_pip=9), 6)


def test_a_round_shows_the_seat_it_knocks_out_as_it_played_and_says_it_is_out(chromium, elimination_game, tmp_path):
    """A user trial: the frame of the move that ended a round showed the train of the seat that
    round knocked out as "out of the game" (hidden), though that seat played the round. That frame
    now shows the round's table and a line saying who is out, in domino-play's words; the next
    round shows the seat out."""
    frames = frames_from_record(elimination_game)
    assert [i for i, f in enumerate(frames) if f["result"]] == [28, 57, 100, 171, 221] and len(frames) == 222
    states = list(replay(elimination_game))  # the engine's: seat 0 out after move 168, seat 1 after 217
    assert [s.eliminated_at for s in (states[167], states[168], states[217])] == [[None] * 3, [3, None, None], [3, 4, None]]
    end, last = frames[171], frames[221]
    assert (end["move"], end["round"], end["scores"], end["knocked_out"], end["active"]) == (168, 3, [109, 73, 50], [0], [True] * 3)
    assert [len(t["tiles"]) for t in end["trains"]] == [9, 1, 11, 18] and end["trains"][0]["end"] == 0
    assert frames[172]["active"] == [False, True, True] and frames[172]["knocked_out"] == []
    assert (last["move"], last["knocked_out"], last["active"], last["game_winners"]) == (217, [1], [False, True, True], [2])
    assert [f["knocked_out"] for f in frames[:171] + frames[172:221]] == [[]] * 220
    assert all(f["active"] == [True] * 3 for f in frames[:172]) and all(f["active"] == [False, True, True] for f in frames[172:])

    page, errors, network = _open(chromium, elimination_game, tmp_path)
    _show(page, 171)
    assert _train_label(page, 0) == ["seat 0", "marker", "9 tiles"]  # the table as it was
    assert page.locator('.trow[data-train="0"] .tile').count() == 9
    assert page.locator('[data-end="train-0"]').text_content() == "0"
    assert "out of the game" not in page.locator("#table").text_content()
    assert page.locator("#result").inner_text().split("\n") == [
        "round 4 over (went out): won by seat 2 \u00b7 pips left [36,19,0] \u00b7 points [36,19,0]",
        "seat 0 is out of the game (score 109 reached the limit of 100)",
    ]
    page.keyboard.press("ArrowRight")  # round 5 dealt: seat 0 is out
    assert page.locator("#move").text_content() == "round 5 dealt"
    assert _train_label(page, 0) == ["seat 0", "out of the game"] and page.locator("#result").text_content() == ""
    _show(page, 221)  # the game's end: seat 1 played round 5 and is out after it
    assert _train_label(page, 1) == ["seat 1", "marker", "6 tiles"] and _train_label(page, 0) == ["seat 0", "out of the game"]
    assert page.locator('.trow[data-train="1"] .tile').count() == 6
    assert page.locator("#result").inner_text().split("\n") == [
        "round 5 over (went out): won by seat 2 \u00b7 pips left [out,69,0] \u00b7 points [out,69,0]",  # (was 0: "went out")
        "seat 1 is out of the game (score 142 reached the limit of 100)",
        "game over, won by seat 2",
    ]
    assert errors == [] and network == []
    # the text render says the same (seat 0 out of round 5; seat 1 played it, knocked out by it:
    # its train as the page shows it, tagged; it read "seat 1: out of the game" with no train)
    text = render_mexican_train(list(replay(elimination_game))[217]).splitlines()
    assert text[-2] == "round over: went_out, winners [2], pips [out, 69, 0]"
    assert [line for line in text if "out of the game" in line] == [
        "  seat 0: out of the game",
        "  seat 1 : [5|9] [9|6] [6|6] [6|0] [0|1] [1|9] -> open end 9  (hand 6, score 142, MARKER, out of the game)"]


def test_a_last_round_that_every_seat_left_crosses_names_the_lowest_total(chromium, tmp_path):
    """Both seats reach the limit in the last round: the loser is out, the winner is not called out
    (the lowest total wins, docs/rules.md §1.6)."""
    env = mexican_train_v0.raw_env(preset="tren_mexicano", episode="game", num_players=2, max_pip=9,
                                   elimination_limit=15, blocked_round="score", use_boneyard=False)  # fmt: skip
    record = _random_record(env, 0)
    last = frames_from_record(record)[-1]
    assert (last["knocked_out"], last["game_winners"], last["scores"], last["active"]) == ([0, 1], [0], [30, 54], [True, True])
    page, errors, _ = _open(chromium, record, tmp_path)
    page.keyboard.press("End")
    assert page.locator("#result").inner_text().split("\n")[1:] == [
        "seat 1 is out of the game (score 54 reached the limit of 15)",
        "every seat left reached the limit of 15: the lowest total wins",
        "game over, won by seat 0",
    ]
    assert "out of the game" not in page.locator("#table").text_content() and errors == []


@pytest.mark.parametrize(
    ("make", "limit", "status"),
    [
        (lambda: mexican_train_v0.raw_env(max_cycles=3), "max_cycles=3", "station 12-12 \u00b7 boneyard 10"),
        (lambda: line_v0.raw_env(preset="cuban", max_steps=5), "max_steps=5", "no boneyard \u00b7 leader seat 2"),
    ],
    ids=["mexican_train_max_cycles", "cuban_max_steps"],
)
def test_a_record_cut_by_the_env_limit_says_so_and_has_nobody_to_play(chromium, make, limit, status, tmp_path):
    """A user trial: the last frame of a record that ``max_cycles`` truncated read "to play: seat 3
    (free)", as if the game went on. It now names the limit, as ``domino-play --resume`` does."""
    record = _random_record(make(), 1)
    moves = len(record["actions"])
    assert replay_end(record)[1] and moves == {"max_cycles=3": 12, "max_steps=5": 5}[limit]
    frames = frames_from_record(record)
    assert frames[-1]["stopped"] == limit and frames[-1]["to_play"] is None
    assert all(f["stopped"] is None and f["to_play"] is not None for f in frames[:-1])
    page, errors, _ = _open(chromium, record, tmp_path)
    page.keyboard.press("End")
    assert page.locator("#status").text_content() == (
        f"frame {moves}/{moves} \u00b7 move {moves}/{moves} \u00b7 round 1 \u00b7 {status} \u00b7 stopped ({limit})")
    assert page.locator("#result").text_content() == f"the game was stopped by the env's limit {limit} ({moves} moves)"
    assert "to play" not in page.locator("#hands").text_content() and not page.locator("#scores tr.acting").count()
    page.keyboard.press("ArrowLeft")  # the frame before: still in play
    assert "to play: seat" in page.locator("#status").text_content() and page.locator("#result").text_content() == ""
    assert errors == []


def test_a_record_stopped_without_a_limit_still_has_a_seat_to_play(tmp_path):
    """A game stopped part-way (Ctrl-C in domino-play) was not ended by the env: it can be resumed."""
    record = _random_record(mexican_train_v0.raw_env(max_cycles=3), 1)
    cut = dict(record, actions=record["actions"][:8])
    assert not replay_end(cut)[1]
    assert frames_from_record(cut)[-1]["stopped"] is None and frames_from_record(cut)[-1]["to_play"] is not None


@pytest.mark.parametrize(
    ("make", "status"),
    [
        (lambda: block_v0.raw_env(), "frame 0/{f} \u00b7 move 0/{n} \u00b7 round 1 \u00b7 no boneyard \u00b7 leader seat 1 \u00b7 to play: seat 1"),
        (lambda: line_v0.raw_env(preset="cuban"), "frame 0/{f} \u00b7 move 0/{n} \u00b7 round 1 \u00b7 no boneyard \u00b7 leader seat 3 \u00b7 to play: seat 3"),
        (lambda: mexican_train_v0.raw_env(use_boneyard=False),
         "frame 0/{f} \u00b7 move 0/{n} \u00b7 round 1 \u00b7 station 12-12 \u00b7 no boneyard \u00b7 to play: seat 3 (free)"),
        (lambda: line_v0.raw_env(preset="draw"), "frame 0/{f} \u00b7 move 0/{n} \u00b7 round 1 \u00b7 boneyard 14 \u00b7 leader seat 1 \u00b7 to play: seat 1"),
        (lambda: mexican_train_v0.raw_env(),
         "frame 0/{f} \u00b7 move 0/{n} \u00b7 round 1 \u00b7 station 12-12 \u00b7 boneyard 10 \u00b7 to play: seat 3 (free)"),
    ],
    ids=["block", "cuban", "mexican_train_no_boneyard", "draw", "mexican_train"],
)
def test_games_without_a_boneyard_show_no_boneyard_count(chromium, make, status, tmp_path):
    """A user trial: block and Cuban (no boneyard, docs/rules.md §2) showed "boneyard 0"; games with
    one show its count."""
    record = _random_record(make(), 2)
    page, errors, _ = _open(chromium, record, tmp_path)
    frames, moves = len(frames_from_record(record)) - 1, len(record["actions"])
    assert page.locator("#status").text_content() == status.format(f=frames, n=moves)
    page.keyboard.press("End")  # every frame alike: a count, or none
    counts = re.findall(r"boneyard \d+", page.locator("#status").text_content())
    assert len(counts) == ("no boneyard" not in status) and ("no boneyard" in page.locator("#status").text_content()) == (not counts)
    assert errors == []


def test_a_void_round_says_it_scores_nothing(chromium, tmp_path):
    """As domino-play's line: "won by nobody" alone puzzled a user (docs/rules.md §1.5, void)."""
    env = mexican_train_v0.raw_env(preset="tren_mexicano", num_players=2, max_pip=9, use_boneyard=False)
    env.reset(seed=0, options={"deal": {"hands": [[[1, 2]], [[3, 4]]], "station": [9, 9], "first_player": 0}})
    env.step(env.unwrapped.game_state.draw_action + 1)  # nobody holds a 9: the PASS blocks the round
    page, errors, _ = _open(chromium, env.to_record(), tmp_path)
    page.keyboard.press("End")
    assert page.locator("#result").inner_text() == ("round 1 over (blocked): won by nobody (a void round: it scores "
                                                    "nothing) \u00b7 pips left [3,7] \u00b7 points [0,0]")  # fmt: skip
    assert errors == []


def test_a_record_quit_before_its_end_says_it_ends_there(chromium, elimination_game, tmp_path):
    """A user trial: the page of a game quit with domino-play's q ended on its last move without a
    word. The last frame now says the record ends before the end of its episode; a whole record
    (the elimination game) and the frames before the end say nothing of it."""
    assert [f["unfinished"] for f in frames_from_record(elimination_game)] == [None] * 222
    cut = dict(elimination_game, actions=elimination_game["actions"][:40], deals=elimination_game["deals"][:2])  # round 2
    frames = frames_from_record(cut)
    assert [f["unfinished"] for f in frames] == [None] * (len(frames) - 1) + ["game"]
    assert frames[-1]["stopped"] is None and frames[-1]["to_play"] is not None  # someone would play on
    env = block_v0.raw_env()
    quit_round = dict(_random_record(env, 2), actions=[])  # no move at all: a round episode
    assert frames_from_record(quit_round)[-1]["unfinished"] == "round"
    page, errors, _ = _open(chromium, cut, tmp_path)
    page.keyboard.press("End")
    assert page.locator("#result").inner_text() == "the record ends here, before the end of its game (40 moves)"
    page.keyboard.press("ArrowLeft")
    assert page.locator("#result").inner_text() == "" and errors == []
