"""``domino_env.train.replay_html`` behaviour no fast test pinned (found by mutation testing; the
browser tests of the page cover some of it, in minutes): the limit :func:`stop_limit` names, and
the move number, actor and words of every frame."""

from __future__ import annotations

import pytest
from test_replay_html import _game_record

from domino_env.envs import line_v0, mexican_train_v0
from domino_env.train.replay_html import frames_from_record, stop_limit


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


def test_frames_number_the_moves_name_the_actor_and_say_each_deal():
    record = _game_record(line_v0.raw_env(preset="cuban", episode="game"), 2)
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
