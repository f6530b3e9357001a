"""PettingZoo's global state: ``env.state()`` / ``env.state_space`` of every env (issue 10), and
the engine under ``env.game_state`` (``env.state.<attr>`` kept as a deprecated alias)."""

from __future__ import annotations

import pickle
import warnings

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
    assert sorted(v["boneyard"][v["boneyard"] > 0]) == list(range(1, len(st.boneyard) + 1))  # ranks 1, 2...
    assert v["scores"].tolist() == list(st.scores)
    assert v["round_index"][0] == st.round_index
    if st.round_over:
        assert not v["current_player"].any()
    else:
        assert np.flatnonzero(v["current_player"]).tolist() == [st.current_player]
    if "train_tiles" in v:
        for train, tiles in enumerate(st.trains):
            assert _ranked(v["train_tiles"][train]) == [canon(a, b) for a, b in tiles]
            assert [v["train_tiles"][train, canon(a, b)] for a, b in tiles] == list(range(1, len(tiles) + 1))
            assert np.flatnonzero(v["train_end"][train]).tolist() == [st.ends[train]]
        assert np.flatnonzero(v["station"]).tolist() == [st.station]
    else:
        assert [v["line"][canon(a, b)] for a, b in st.line] == list(range(1, len(st.line) + 1))  # 1 = leftmost
        assert np.count_nonzero(v["line"]) == len(st.line)
        assert np.flatnonzero(v["leader"]).tolist() == [st.leader]
    # Every tile of the set is in exactly one place (hands, boneyard, out of play, table).
    table = v["train_tiles"].sum(0) if "train_tiles" in v else v["line"]
    where = v["hands"].sum(0) + (v["boneyard"] > 0) + v["out_of_play"] + (table > 0)
    if "station" in v:
        where[index[(st.station, st.station)]] += 1
    assert where.tolist() == [1] * len(index)
    _check_every_other_block(env, v)


def _one_hot(size: int, *at: int) -> list[float]:
    out = [0.0] * size
    for i in at:
        out[i] = 1.0
    return out


def _check_every_other_block(env, v: dict[str, np.ndarray]) -> None:
    """The blocks the checks above leave out, each written from the engine's own attributes (the
    missing pips, the turn and first-turn flags, and each game's bookkeeping were not checked: the
    state could have lost any of them with every test passing)."""
    st, cfg = env.game_state, env.config
    p, t, live = cfg.num_players, cfg.tile_count, not st.round_over
    for seat in range(p):
        assert np.flatnonzero(v["missing_pips"][seat]).tolist() == bits(st.missing[seat])
    assert np.flatnonzero(v["out_of_play"]).tolist() == bits(st.out_of_play)
    assert v["in_first_turn"].tolist() == [float(live and st.in_first_turn)]
    assert v["first_turn_pending"].tolist() == [float(x) for x in st.first_turn_pending]
    assert v["round_over"].tolist() == [float(st.round_over)]
    if "train_tiles" in v:
        assert v["train_in_play"].tolist() == [float(x) for x in st.active] + [float(cfg.use_mexican_train)]
        assert v["seat_active"].tolist() == [float(x) for x in st.active]
        assert v["marker"].tolist() == [float(st.has_marker(seat)) for seat in range(p)]
        order = [0.0] * (p + 1)
        for k, train in enumerate(st.open_doubles, 1):
            order[train] = k
        assert v["open_double_order"].tolist() == order
        turn = [0.0] * (p + 1)
        for k, train in enumerate(st.turn_doubles if live else [], 1):
            turn[train] = k
        assert v["turn_doubles"].tolist() == turn
        assert v["phase"].tolist() == (_one_hot(len(v["phase"]), st.phase) if live else _one_hot(len(v["phase"])))
        drawn = [st.drawn_tile] if live and st.drawn_tile >= 0 else []
        assert v["drawn_tile"].tolist() == _one_hot(t, *drawn)
        assert v["round_first_player"].tolist() == _one_hot(p, st.round_first_player)
        assert v["stations_used"].tolist() == _one_hot(cfg.max_pip + 1, *st._used_stations)
    else:
        assert v["left_end"].tolist() == _one_hot(cfg.max_pip + 1, *([st.left] if st.line else []))
        assert v["right_end"].tolist() == _one_hot(cfg.max_pip + 1, *([st.right] if st.line else []))
        assert v["forced_lead"].tolist() == _one_hot(t, *([st.forced_lead] if st.forced_lead >= 0 else []))
        assert v["doubles_dealt"].tolist() == list(st.doubles_dealt)
        assert v["drew"].tolist() == [float(x) for x in st._drew]
        assert v["round_winner"].tolist() == _one_hot(p, *([st.winner_seat] if st.winner_seat >= 0 else []))
        assert v["annulments"].tolist() == [st.annulments]


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
    with pytest.warns(DeprecationWarning), pytest.raises(DominoError, match=r"^raw_env: call reset\(\) first$"):
        _ = env.state.hands  # before reset: the package's error, not None's AttributeError
    env.reset(seed=2)
    with pytest.warns(DeprecationWarning, match="env.game_state.hands") as caught:
        hands = env.state.hands
    assert hands == env.game_state.hands
    assert [w.filename for w in caught] == [__file__]  # the warning points at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # protocol probes (numpy, copy) are not the engine's: no warning
        assert not hasattr(env.state, "__array_interface__") and not hasattr(env.state, "__deepcopy__")
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


def test_line_state_of_a_hand_built_draw_deal():
    """Exact blocks of a hand-made draw-game round (docs/state.md). 0-0 is the only double, so seat
    1 must lead it: the forced lead is tile 0, the first of the set (a check ``forced_lead > 0``
    would drop it, and random deals almost never lead 0-0). Seat 0, holding no 0, then draws 1-3."""
    env = draw_v0.raw_env()
    env.reset(seed=0, options={"deal": {"hands": [[[1, 2], [3, 4]], [[0, 0], [2, 5]]], "boneyard": [[1, 3], [0, 5]]}})
    index = {tile: i for i, tile in enumerate(tile_table(6))}
    dealt = [index[t] for t in ((1, 2), (3, 4), (0, 0), (2, 5), (1, 3), (0, 5))]
    out = [i for i in range(28) if i not in dealt]
    v = env.state_encoder.decode(env.state())
    assert _one_hot_at(v["forced_lead"]) == [0] and _one_hot_at(v["leader"]) == _one_hot_at(v["current_player"]) == [1]
    assert v["in_first_turn"].tolist() == [1] and v["first_turn_pending"].tolist() == [1, 0]
    assert v["doubles_dealt"].tolist() == [0, 1] and v["drew"].tolist() == [0, 0]
    assert {int(i): float(v["boneyard"][i]) for i in np.flatnonzero(v["boneyard"])} == {index[(1, 3)]: 1, index[(0, 5)]: 2}
    assert _one_hot_at(v["out_of_play"]) == out
    for name in ("line", "left_end", "right_end", "round_winner", "round_over", "annulments"):
        assert not v[name].any(), name
    env.step(0)  # seat 1 leads 0-0 (tile 0, end 0)
    env.step(2 * 28)  # seat 0: DRAW (1-3 does not fit)
    v = env.state_encoder.decode(env.state())
    assert _one_hot_at(v["line"]) == _one_hot_at(v["left_end"]) == _one_hot_at(v["right_end"]) == [0]
    assert not v["forced_lead"].any() and _one_hot_at(v["current_player"]) == [0]
    assert v["in_first_turn"].tolist() == [1] and v["first_turn_pending"].tolist() == [0, 0]
    assert v["drew"].tolist() == [1, 0] and _one_hot_at(v["hands"][0]) == sorted(index[t] for t in ((1, 2), (3, 4), (1, 3)))
    assert {int(i): float(v["boneyard"][i]) for i in np.flatnonzero(v["boneyard"])} == {index[(0, 5)]: 1}


def _one_hot_at(block: np.ndarray) -> list[int]:
    return np.flatnonzero(block).tolist()


def test_state_space_bounds_follow_each_fields_unit():
    """``env.state_space`` (docs/state.md): flags and one-hots are bounded by 1; ranks by the tiles
    of the set (T) or the trains (P + 1); the Cuban doubles count by the pips' count V = N + 1; the
    totals by the observation's bounds. Only the fields' shapes were checked, so any bound could
    change (a flag's to 2) unnoticed."""
    mexican = mexican_train_v0.raw_env(num_players=4)  # T = 91, P + 1 = 5
    cuban = cuban_v0.raw_env()  # double-9: T = 55, V = 10
    expected = {
        mexican: {"boneyard": 91, "train_tiles": 91, "open_double_order": 5, "turn_doubles": 5, "round_index": 1000,
                  "scores": 10000},
        cuban: {"boneyard": 55, "line": 55, "doubles_dealt": 10, "annulments": 1000, "round_index": 1000,
                "scores": 10**7},
    }  # fmt: skip
    for env, others in expected.items():
        spec = env.state_encoder.spec
        assert {f.name: f.high for f in spec.fields if f.unit not in ("flag", "one-hot")} == others
        assert {f.high for f in spec.fields if f.unit in ("flag", "one-hot")} == {1}
        assert env.state_space.high.tolist() == [f.high for f in spec.fields for _ in range(f.size)]


def test_mexican_train_state_of_a_hand_built_double():
    """Exact turn blocks of a hand-made Mexican Train round (docs/state.md; doubles "satisfy",
    docs/rules.md §1.4): seat 0 places 5-5 on its own train (phase cover_own_double, turn double on
    train 0), cannot cover it and draws 0-0, tile 0 of the set (``drawn_tile >= 0`` is the
    check); after its pass the 5-5 obliges everybody (open double 1 on train 0), its marker is down
    and it is known to lack 5."""
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9)
    env.reset(options={"deal": {"hands": [[[9, 5], [5, 5], [1, 2]], [[9, 3], [2, 6]]], "boneyard": [[0, 0], [7, 8]],
                                "station": [9, 9], "first_player": 0}})  # fmt: skip
    st = env.game_state
    for move in ("place 5-9 on own train", "place 3-9 on own train", "place 5-5 on own train", "draw"):
        env.step(next(a for a in st.legal_actions() if st.describe_action(a) == move))
    v = env.state_encoder.decode(env.state())
    assert _one_hot_at(v["phase"]) == [1] and v["turn_doubles"].tolist() == [1, 0, 0]  # cover_own_double
    assert _one_hot_at(v["drawn_tile"]) == [0] and _one_hot_at(v["current_player"]) == [0]
    assert not v["open_double_order"].any() and not v["marker"].any() and not v["in_first_turn"].any()
    assert _one_hot_at(v["round_first_player"]) == [0] and v["train_in_play"].tolist() == [1, 1, 1]
    env.step(next(a for a in st.legal_actions() if st.describe_action(a) == "pass"))
    v = env.state_encoder.decode(env.state())
    assert v["open_double_order"].tolist() == [1, 0, 0] and v["marker"].tolist() == [1, 0]
    assert _one_hot_at(v["phase"]) == [0] and not v["turn_doubles"].any() and not v["drawn_tile"].any()
    assert _one_hot_at(v["current_player"]) == [1] and [_one_hot_at(row) for row in v["missing_pips"]] == [[5], []]
