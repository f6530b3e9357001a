"""The fixed infos layout (docs/infos.md): the same keys at every step for every agent, numeric
values of fixed shapes, round results only on the step that ends a round."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from domino_env.core.mexican_train_rounds import RoundResult
from domino_env.envs import block_v0, cuban_v0, draw_v0, mexican_train_v0
from domino_env.envs.infos import Termination, info_layout, seat_flags, seats_of, seats_padded

GAMES = {
    "mexican_train": lambda: mexican_train_v0.env(num_players=3, max_pip=9, episode="game"),
    "block": lambda: block_v0.env(episode="game"),
    "draw": draw_v0.env,
    "cuban": lambda: cuban_v0.env(episode="game"),
}


def _shape(value):
    return np.shape(value), np.asarray(value).dtype.kind


@pytest.mark.parametrize("name", list(GAMES))
def test_same_keys_and_shapes_at_every_step_for_every_agent(name):
    env = GAMES[name]()
    env.reset(seed=1)
    p = env.unwrapped.config.num_players
    layout = {k: _shape(v) for k, v in env.infos["player_0"].items()}
    rng = np.random.default_rng(1)
    rounds = 0
    for agent in env.agent_iter(max_iter=3000):
        for a, info in env.infos.items():
            assert {k: _shape(v) for k, v in info.items()} == layout, (a, info)
        _, _, term, trunc, info = env.last()
        assert all(kind in "biuf" for _, kind in layout.values())  # numbers only: no strings
        if info["round_over"]:
            rounds += 1
            assert info["termination_code"] != Termination.NONE
            winners = seats_of(info["winners"])
            assert np.flatnonzero(info["won"]).tolist() == winners
            assert info["winners"].shape == (p,) and all(s == -1 for s in info["winners"][len(winners):])
        else:
            assert info["termination_code"] == Termination.NONE and not info["won"].any()
            assert not info["pips"].any() and (info["winners"] == -1).all()
        if info["game_over"]:
            assert info["round_over"] and info["game_won"].any()
            assert np.flatnonzero(info["game_won"]).tolist() == seats_of(info["game_winners"])
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    assert rounds >= 1


def test_scores_are_current_at_every_step():
    env = block_v0.env(episode="game", target_score=1000)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(300):
        agent = env.agent_selection
        if not env.agents or env.terminations[agent] or env.truncations[agent]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        assert env.infos["player_0"]["scores"].tolist() == env.unwrapped.game_state.scores
    assert any(env.unwrapped.game_state.scores)


def test_termination_codes_name_the_engine_terminations():
    assert [str(t) for t in Termination] == ["none", "went_out", "blocked", "annulled"]
    assert Termination.of("blocked") is Termination.BLOCKED and int(Termination.ANNULLED) == 3


def test_docs_list_every_key():
    text = (Path(__file__).resolve().parents[2] / "docs/infos.md").read_text()
    for name in ("mexican_train", "block"):
        env = GAMES[name]()
        env.reset(seed=0)
        for key in env.infos["player_0"]:
            assert f"`{key}`" in text, key


def test_an_elimination_round_that_ends_the_game_says_game_over_in_a_round_episode():
    """docs/infos.md: `game_over` also in a round episode when the round ends the game (at most
    one seat left under `elimination_limit`)."""
    ended = 0
    for seed in range(40):
        env = mexican_train_v0.raw_env(preset="tren_mexicano", num_players=3, elimination_limit=20)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                break
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert info["round_over"]
        left = int(np.sum(info["scores"] < 20))
        assert bool(info["game_over"]) == (left <= 1)
        assert (seats_of(info["game_winners"]) != []) == bool(info["game_over"])
        ended += bool(info["game_over"])
    assert 0 < ended < 40  # both cases were seen


def test_info_layout_of_a_hand_built_round_result_and_of_a_running_round():
    """The exact arrays of a 4-seat round that seat 3 and seat 1 won (listed out of order), and the
    neutral values of a step that ended no round: flags are 1 (not just nonzero), the points of a
    running round are zeros, and `limit_reached` is False until the env truncates."""
    result = RoundResult(termination="blocked", winners=(3, 1), pips=(12, 4, 9, 4), points=(12, 0, 9, 0),
                         station=6, round_index=2)
    info = info_layout(4, [30, 5, 18, 7], 2, {"station": 6}, result, game_winners=(1,))
    assert info["round_over"] is True and info["termination_code"] is Termination.BLOCKED
    assert info["winners"].tolist() == [1, 3, -1, -1] and info["winners"].dtype == np.int64
    assert info["won"].tolist() == [0, 1, 0, 1] and info["won"].dtype == np.int8
    assert info["pips"].tolist() == [12, 4, 9, 4] and info["points"].tolist() == [12, 0, 9, 0]
    assert info["scores"].tolist() == [30, 5, 18, 7] and info["round_index"] == 2
    assert info["game_over"] is True and info["game_winners"].tolist() == [1, -1, -1, -1]
    assert info["game_won"].tolist() == [0, 1, 0, 0] and info["game_won"].dtype == np.int8
    assert info["limit_reached"] is False and info["station"] == 6

    running = info_layout(3, [4, 0, 2], 1, {"leader": 2})
    assert running["round_over"] is False and running["termination_code"] is Termination.NONE
    assert running["winners"].tolist() == [-1, -1, -1] and running["won"].tolist() == [0, 0, 0]
    assert running["pips"].tolist() == [0, 0, 0] and running["points"].tolist() == [0, 0, 0]
    assert running["points"].dtype == np.int64 and running["pips"].dtype == np.int64
    assert running["game_over"] is False and running["game_winners"].tolist() == [-1, -1, -1]
    assert running["game_won"].tolist() == [0, 0, 0] and running["limit_reached"] is False
    assert running["scores"].tolist() == [4, 0, 2] and running["leader"] == 2
    assert seat_flags([0, 2], 3).tolist() == [1, 0, 1] and seats_of(seats_padded([2, 0], 3)) == [0, 2]


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("limit", [{"max_steps": 6}, {"max_cycles": 2}])
def test_a_truncation_leaves_the_infos_earlier_steps_returned_as_they_were(name, limit):
    """A truncating step gives every agent new info dicts with ``limit_reached`` set. It once set
    the flag in the dicts kept since the last round end, so every info an earlier ``last()`` had
    returned then said the limit was reached."""
    make = {"mexican_train": mexican_train_v0.env, "block": block_v0.env, "draw": draw_v0.env, "cuban": cuban_v0.env}[name]
    env = make(**limit)
    env.reset(seed=0)
    returned = []
    for _ in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        returned.append((info, bool(info["limit_reached"])))
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    flags = [flag for _, flag in returned]
    assert flags[0] is False and flags[-1] is True  # the episode was truncated, not ended
    assert [bool(info["limit_reached"]) for info, _ in returned] == flags
