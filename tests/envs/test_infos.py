"""The fixed infos layout (docs/infos.md): the same keys at every step for every agent, numeric
values of fixed shapes, round results only on the step that ends a round."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from domino_env.envs import block_v0, cuban_v0, draw_v0, mexican_train_v0
from domino_env.envs.infos import Termination, seats_of

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
