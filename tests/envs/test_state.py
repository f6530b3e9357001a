"""PettingZoo's global state: ``env.state()`` / ``env.state_space`` of every env (issue 10), and
the engine under ``env.game_state`` (``env.state.<attr>`` kept as a deprecated alias)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino_env import DominoError
from domino_env.core.deal import bits
from domino_env.core.tiles import tile_table
from domino_env.envs import block_v0, cuban_v0, draw_v0, line_v0, mexican_train_v0

FACTORIES = {
    "mexican_train_2p_d9": lambda **k: mexican_train_v0.raw_env(num_players=2, max_pip=9, **k),
    "mexican_train_4p": lambda **k: mexican_train_v0.raw_env(num_players=4, **k),
    "mexican_train_3p_game": lambda **k: mexican_train_v0.raw_env(num_players=3, max_pip=9, episode="game", **k),
    "block": lambda **k: block_v0.raw_env(**k),
    "draw": lambda **k: draw_v0.raw_env(**k),
    "cuban_game": lambda **k: cuban_v0.raw_env(episode="game", **k),
}  # fmt: skip


def _ranked(ranks: np.ndarray) -> list[int]:
    """Tile indices with a non-zero rank, in rank order."""
    idx = np.flatnonzero(ranks)
    return [int(i) for i in idx[np.argsort(ranks[idx])]]


def _check_against_engine(env, s: np.ndarray) -> None:
    """The decoded state equals the engine's hidden and public facts."""
    st = env.game_state
    v = env.state_encoder.decode(s)
    index = {tile: i for i, tile in enumerate(tile_table(env.config.max_pip))}
    canon = lambda a, b: index[(min(a, b), max(a, b))]  # noqa: E731
    for seat, hand in enumerate(st.hands):
        assert np.flatnonzero(v["hands"][seat]).tolist() == bits(hand)
    assert _ranked(v["boneyard"]) == st.boneyard[::-1]  # next draw first
    assert v["scores"].tolist() == list(st.scores)
    assert v["round_index"][0] == st.round_index
    if st.round_over:
        assert not v["current_player"].any()
    else:
        assert np.flatnonzero(v["current_player"]).tolist() == [st.current_player]
    if "train_tiles" in v:
        for train, tiles in enumerate(st.trains):
            assert _ranked(v["train_tiles"][train]) == [canon(a, b) for a, b in tiles]
            assert np.flatnonzero(v["train_end"][train]).tolist() == [st.ends[train]]
        assert np.flatnonzero(v["station"]).tolist() == [st.station]
    else:
        assert _ranked(v["line"]) == [canon(a, b) for a, b in st.line]
        assert np.flatnonzero(v["leader"]).tolist() == [st.leader]
    # Every tile of the set is in exactly one place (hands, boneyard, out of play, table).
    table = v["train_tiles"].sum(0) if "train_tiles" in v else v["line"]
    where = v["hands"].sum(0) + (v["boneyard"] > 0) + v["out_of_play"] + (table > 0)
    if "station" in v:
        where[index[(st.station, st.station)]] += 1
    assert where.tolist() == [1] * len(index)


@pytest.mark.parametrize("name", list(FACTORIES))
def test_state_in_state_space_every_step_and_decodes_to_the_engine(name):
    env = FACTORIES[name]()
    rng = np.random.default_rng(3)
    for episode in range(2):
        env.reset(seed=10 + episode)
        previous = env.state()
        steps = 0
        while env.agents:
            s = env.state()
            assert s.dtype == np.float32 and s.shape == env.state_space.shape
            assert env.state_space.contains(s), name
            _check_against_engine(env, s)
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            env.step(int(rng.choice(legal)))
            steps += 1
            after = env.state()
            assert not np.array_equal(after, previous), f"state unchanged after step {steps}"
            previous = after
        assert steps > 5


@pytest.mark.parametrize("name", list(FACTORIES))
def test_state_reveals_what_observers_cannot_see(name):
    env = FACTORIES[name]()
    env.reset(seed=5)
    v = env.state_encoder.decode(env.state())
    st = env.game_state
    for seat in range(env.config.num_players):
        obs = env.encoder.spec.decode(env.observe(env.possible_agents[seat])["observation"])
        own = np.flatnonzero(obs["hand"]).tolist()
        assert own == bits(st.hands[seat])
        # The observation holds only its own hand; the state holds every seat's.
        other = (seat + 1) % env.config.num_players
        assert np.flatnonzero(v["hands"][other]).tolist() == bits(st.hands[other])
        assert set(bits(st.hands[other])).isdisjoint(own)
    assert (v["boneyard"] > 0).sum() == len(st.boneyard)


@pytest.mark.parametrize("name", ["mexican_train_4p", "cuban_game"])
def test_state_works_through_the_standard_wrappers(name):
    wrapped = {"mexican_train_4p": mexican_train_v0.env, "cuban_game": cuban_v0.env}[name]()
    wrapped.reset(seed=1)
    assert wrapped.state_space.contains(wrapped.state())
    assert np.array_equal(wrapped.state(), wrapped.unwrapped.state())


def test_state_before_reset_is_a_clear_error():
    env = block_v0.raw_env()
    with pytest.raises(DominoError, match="reset"):
        env.state()


def test_state_attribute_access_is_a_deprecated_alias_of_game_state():
    env = draw_v0.raw_env()
    env.reset(seed=2)
    with pytest.warns(DeprecationWarning, match="env.game_state.hands"):
        hands = env.state.hands
    assert hands == env.game_state.hands
    with pytest.raises(AttributeError):
        env.state = None  # the engine lives in env.game_state now


def test_old_pickles_with_the_engine_under_state_still_load():
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9)
    env.reset(seed=4)
    data = env.__getstate__()
    data["_dynamic"]["state"] = data["_dynamic"].pop("game_state")
    del data["_dynamic"]["_turns"]  # nor did max_cycles count turns then
    old = pickle.loads(pickle.dumps(data))
    restored = mexican_train_v0.raw_env.__new__(mexican_train_v0.raw_env)
    restored.__setstate__(old)
    assert restored.game_state.hands == env.game_state.hands
    assert np.array_equal(restored.state(), env.state())
    legal = restored.game_state.legal_actions()[0]
    restored.step(legal)  # and play goes on
    assert restored.game_state.actions == [legal]


def test_state_spec_table_documents_every_field():
    env = mexican_train_v0.raw_env(num_players=4)
    table = env.state_encoder.spec.markdown_table()
    for f in env.state_encoder.spec.fields:
        assert f"`{f.name}`" in table
    assert env.state_encoder.spec.size == env.state_space.shape[0]


def test_docs_state_tables_are_current():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs/state.md").read_text()
    assert mexican_train_v0.raw_env(num_players=4).state_encoder.spec.markdown_table() in text
    assert block_v0.raw_env().state_encoder.spec.markdown_table() in text
    shapes = [m.raw_env().state_space.shape[0] for m in (mexican_train_v0, block_v0, draw_v0, cuban_v0)]
    assert shapes == [1281, 298, 214, 532]
    for figure in ("1281", "298", "214", "532"):
        assert figure in text


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    players=st.integers(2, 8),
    max_pip=st.sampled_from([9, 12, 15]),
    preset=st.sampled_from(["domino_cubano", "tren_mexicano", "novelty"]),
    stop=st.integers(0, 400),
)
def test_property_mexican_train_state_decodes_to_the_engine(seed, players, max_pip, preset, stop):
    """Any Mexican Train config, any point of a random game: the state is in its space and every
    tile is in exactly one place."""
    env = mexican_train_v0.raw_env(preset=preset, num_players=players, max_pip=max_pip, episode="game")
    _play_and_check(env, seed, stop)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    preset=st.sampled_from(["block", "draw", "cuban"]),
    players=st.sampled_from([2, 3, 4]),
    stop=st.integers(0, 200),
)
def test_property_line_state_decodes_to_the_engine(seed, preset, players, stop):
    kwargs = {} if preset == "cuban" else {"num_players": players}
    env = line_v0.raw_env(preset=preset, episode="game", **kwargs)
    _play_and_check(env, seed, stop)


def _play_and_check(env, seed: int, stop: int) -> None:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(stop):
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    s = env.state()
    assert env.state_space.contains(s)
    _check_against_engine(env, s)
