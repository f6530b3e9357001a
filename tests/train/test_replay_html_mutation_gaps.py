"""``domino_env.train.replay_html`` behaviour no fast test pinned (found by mutation testing; the
browser tests of the page cover some of it, in minutes): the limit :func:`stop_limit` names,
the move number, actor and words of every frame, the episode a quit record stops short of,
:func:`seed_deals` without a seed and in an elimination game (a seat out while the game goes on),
the page's title and data (its episode and teams too), and a Mexican Train frame's open doubles'
ranks and doubles to cover."""

from __future__ import annotations

import pytest
from test_replay_html import _expected, _game_record
from test_replay_html_ends import _random_record

from domino_env.envs import line_v0, mexican_train_v0
from domino_env.train.replay_html import (
    frames_from_record,
    page_data,
    render_html,
    seed_deals,
    stop_limit,
)


@pytest.mark.parametrize(
    ("env_kwargs", "moves", "limit"),
    [({"max_steps": 5, "max_cycles": 3}, 5, "max_steps=5"),  # its last move was the max_steps-th
     ({"max_steps": 5, "max_cycles": 3}, 4, "max_cycles=3"),  # a move short of max_steps: the cycles did it
     ({"max_steps": 5}, 6, "max_steps=5"),
     ({"max_cycles": 2}, 9, "max_cycles=2"),
     ({}, 9, "max_cycles=100000")],  # records.replay_end's default
)  # fmt: skip
def test_the_stop_names_max_steps_only_when_the_moves_reached_it(env_kwargs, moves, limit):
    assert stop_limit({"env_kwargs": env_kwargs, "actions": [0] * moves}) == limit


@pytest.fixture(scope="module")
def cuban_game() -> dict:
    """A whole game of Cuban dominoes, 4 seats, seed 2."""
    return _game_record(line_v0.raw_env(preset="cuban", episode="game"), 2)


def test_frames_number_the_moves_name_the_actor_and_say_each_deal(cuban_game):
    record = cuban_game
    frames = frames_from_record(dict(record, seats=["ann", "", "bo", "cy"]))
    assert {k: frames[0][k] for k in ("kind", "move", "actor", "text")} == {
        "kind": "deal", "move": 0, "actor": None, "text": "round 1 dealt"}  # fmt: skip
    moves = [f for f in frames if f["kind"] == "move"]
    assert [f["move"] for f in moves] == list(range(1, len(record["actions"]) + 1))
    names = {0: " (\u2068ann\u2069)", 1: "", 2: " (\u2068bo\u2069)", 3: " (\u2068cy\u2069)"}
    for before, frame in zip(frames, frames[1:], strict=False):
        if frame["kind"] == "move":  # the seat that was to play made the move, and it is named
            assert frame["actor"] == before["to_play"]
            assert frame["text"].startswith(f"seat {frame['actor']}{names[frame['actor']]}: ")
    deals = [f for f in frames if f["kind"] == "deal"]
    assert len(deals) == len(record["deals"]) > 2
    assert [(f["text"], f["actor"]) for f in deals] == [(f"round {i} dealt", None) for i in range(1, len(deals) + 1)]
    for i, frame in enumerate(frames[1:], 1):  # a next deal comes in the step of the move that ended the round
        if frame["kind"] == "deal":
            assert frame["move"] == frames[i - 1]["move"] and frames[i - 1]["result"] is not None


def test_only_the_last_frame_of_a_record_the_env_cut_names_the_limit():
    env = mexican_train_v0.raw_env(max_cycles=3)
    env.reset(seed=1)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(obs["action_mask"].nonzero()[0][0]))
    frames = frames_from_record(env.to_record())
    assert (frames[-1]["stopped"], frames[-1]["to_play"], frames[-1]["unfinished"]) == ("max_cycles=3", None, None)
    assert [f["stopped"] for f in frames[:-1]] == [None] * (len(frames) - 1)
    assert all(f["to_play"] is not None for f in frames[:-1])


def test_only_the_last_frame_of_a_record_quit_early_says_which_episode_it_stops_short_of(cuban_game):
    assert [f["unfinished"] for f in frames_from_record(cuban_game)] == [None] * (len(cuban_game["actions"]) + len(cuban_game["deals"]))
    cut = dict(cuban_game, actions=cuban_game["actions"][:3], deals=cuban_game["deals"][:1])  # quit in round 1 of a game
    assert [f["unfinished"] for f in frames_from_record(cut)] == [None] * 3 + ["game"]
    one_round = _game_record(line_v0.raw_env(preset="block"), 5)
    assert frames_from_record(one_round)[-1]["unfinished"] is None
    assert [f["unfinished"] for f in frames_from_record(dict(one_round, actions=one_round["actions"][:2]))] == [None, None, "round"]


def test_seed_deals_is_none_without_a_seed_and_true_for_the_seed_that_dealt(cuban_game):
    assert seed_deals(cuban_game) is True
    assert seed_deals(dict(cuban_game, seed=None)) is None
    assert page_data(dict(cuban_game, seed=None))["seed_deals"] is None


def test_page_data_tells_a_mexican_train_game_from_a_line_game(cuban_game):
    mexican = _game_record(mexican_train_v0.raw_env(num_players=2, max_pip=9), 3)
    assert (page_data(mexican)["game"], page_data(cuban_game)["game"]) == ("mexican_train", "line")


def test_the_page_is_titled_with_the_escaped_title_and_carries_its_data(cuban_game):
    page = render_html(dict(cuban_game, seats=["<b>", "", "", ""]))
    assert "<title>Cuban dominoes (double-9) replay</title>" in page and "__TITLE__" not in page
    assert "__DATA__" not in page and '"seats":["\\u003cb>","","",""]' in page


def test_open_doubles_are_ranked_and_own_doubles_to_cover_marked_as_the_engine_has_them():
    record = _game_record(mexican_train_v0.raw_env(num_players=3, max_pip=9, episode="game"), 1)
    ranked = covered = 0
    for frame, state in zip(frames_from_record(record), _expected(record), strict=True):
        if state is None:  # (a round-ending move whose next deal came in the same step)
            continue
        ranks = {t: rank for t, rank in enumerate(tr["open_rank"] for tr in frame["trains"]) if rank}
        assert sorted(ranks.values()) == list(range(1, len(state.open_doubles) + 1))
        assert [t for t, _ in sorted(ranks.items(), key=lambda kv: kv[1])] == list(state.open_doubles)
        cover = [t for t, tr in enumerate(frame["trains"]) if tr["cover"]]
        assert cover == ([] if state.round_over else sorted(state.own_doubles_to_cover()))
        ranked, covered = ranked + bool(ranks), covered + bool(cover)
    assert ranked > 0 and covered > 0  # (not vacuous: open doubles and doubles to cover were shown)


def test_page_data_says_the_episode_and_whether_seats_play_in_teams(cuban_game):
    mexican = _game_record(mexican_train_v0.raw_env(num_players=2, max_pip=9), 3)  # (a Mexican Train config has no teams)
    block = _game_record(line_v0.raw_env(preset="block", num_players=4), 5)
    assert [(page_data(r)["episode"], page_data(r)["teams"]) for r in (cuban_game, mexican, block)] == [
        ("game", True), ("round", False), ("round", False)]  # fmt: skip
    assert page_data(dict(block, env_kwargs={k: v for k, v in block["env_kwargs"].items() if k != "episode"}))["episode"] == "round"


def test_seed_deals_steps_past_the_seats_an_elimination_game_knocked_out():
    """A seat knocked out of a Tren Mexicano game is terminated while the game goes on: the env
    steps it with None before the next move (as a player's loop does), which the check did not."""
    env = mexican_train_v0.raw_env(preset="tren_mexicano", episode="game", num_players=3, max_pip=9)
    record = _random_record(env, 6)  # seat 0 out after move 168 of 217
    assert [f["active"] for f in frames_from_record(record)][-1] == [False, True, True]
    assert seed_deals(record) is True and page_data(record)["seed_deals"] is True
    assert seed_deals(dict(record, seed=7)) is False
