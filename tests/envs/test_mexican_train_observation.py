"""The fast observation builder equals a plain reference written field by field from the spec
table (docs/design.md §3), over random positions of many configs; and named views decode it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino_env.core.mexican_train import COVER_OWN, FREE, SECOND_DOUBLE, MexicanTrainState
from domino_env.core.tiles import tile_index
from domino_env.encoding.mexican_train import decode_observation, observation_spec
from domino_env.envs.mexican_train_v0 import raw_env


def reference_observation(s: MexicanTrainState, seat: int) -> np.ndarray:
    cfg = s.config
    p, n = cfg.num_players, cfg.max_pip
    spec = observation_spec(p, n)
    obs = np.zeros(spec.size, dtype=np.float32)
    f = spec.decode(obs)  # views into obs
    for a, b in s.hand_tiles(seat):
        f["hand"][tile_index(a, b, n)] = 1
    for train in range(p + 1):
        for a, b in s.train_tiles(train):
            f["placed"][tile_index(a, b, n)] = 1
    f["station"][s.station] = 1
    live = not s.round_over
    if not live:
        coverable = []
    elif s.phase == COVER_OWN:
        coverable = s.turn_doubles
    elif s.phase == SECOND_DOUBLE:
        coverable = s.turn_doubles[:1]
    elif s.phase == FREE and cfg.doubles != "no_cover" and s.open_doubles:
        coverable = s.open_doubles[-1:] if cfg.doubles == "chain" else s.open_doubles
    else:
        coverable = []
    for k in range(p + 1):
        train = p if k == p else (seat + k) % p
        tiles = s.train_tiles(train)
        f["train_end"][k, s.open_end(train)] = 1
        f["train_in_play"][k] = cfg.use_mexican_train if k == p else s.active[train]
        f["train_marker"][k] = cfg.use_mexican_train if k == p else s.has_marker(train)
        f["train_started"][k] = bool(tiles)
        f["train_length"][k] = len(tiles)
        if tiles and tiles[-1][0] == tiles[-1][1]:
            f["train_ends_in_double"][k] = 1
            if train in s.open_doubles:
                f["train_open_double_order"][k] = s.open_doubles.index(train) + 1
            f["train_coverable"][k] = train in coverable
    for k in range(p):
        other = (seat + k) % p
        f["hand_sizes"][k] = s.hand_size(other)
        f["scores"][k] = s.scores[other]
        f["seat_active"][k] = s.active[other]
        if k:
            for pip in s.missing_pips(other):
                f["missing_pips"][k - 1, pip] = 1
    f["boneyard_size"][0] = s.boneyard_size
    if live:
        f["current_player"][(s.current_player - seat) % p] = 1
        f["phase"][s.phase] = 1
        if s.drawn_tile >= 0:
            f["just_drew"][0] = 1
            if s.current_player == seat:
                f["drawn_tile"][s.drawn_tile] = 1
    f["first_turn"][0] = s.first_turn_pending[seat] or (live and s.current_player == seat and s.in_first_turn)
    f["round_index"][0] = s.round_index
    return obs


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["domino_cubano", "tren_mexicano", "novelty"]),
    st.integers(2, 8),
    st.sampled_from([9, 12, 15, 18]),
    st.sampled_from(["satisfy", "double_double", "chain", "no_cover"]),
    st.booleans(),
    st.integers(0, 10**6),
)
def test_fast_observation_equals_reference(preset, players, max_pip, doubles, mexican, seed):
    e = raw_env(preset=preset, num_players=players, max_pip=max_pip, doubles=doubles,
                use_mexican_train=mexican, episode="game", elimination_limit=60)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(300):
        agent = e.agent_selection
        if e.terminations[agent] or e.truncations[agent]:
            break
        for seat in range(players):
            assert np.array_equal(e.encoder.observe(e.game_state, seat), reference_observation(e.game_state, seat))
        legal = e.game_state.legal_actions()
        e.step(legal[rng.integers(len(legal))])


def test_decode_observation_named_views():
    e = raw_env(num_players=3, max_pip=9)
    e.reset(options={"deal": {"hands": [[[9, 1], [2, 3]], [[9, 4]], [[5, 6]]], "boneyard": [[7, 7]],
                              "station": [9, 9], "first_player": 1}})
    views = decode_observation(e.observe("player_0")["observation"], 3, 9)
    assert np.flatnonzero(views["hand"]).tolist() == [tile_index(1, 9, 9), tile_index(2, 3, 9)]
    assert views["hand_sizes"].tolist() == [2, 1, 1]
    assert views["current_player"].tolist() == [0, 1, 0]  # seat 1 is next after the observer
    assert views["train_end"].argmax(axis=1).tolist() == [9, 9, 9, 9]
    assert views["boneyard_size"].tolist() == [1]
    assert views["first_turn"].tolist() == [1]
    with pytest.raises(ValueError):
        decode_observation(np.zeros(5), 3, 9)


@pytest.mark.parametrize(("doubles", "coverable"), [("satisfy", 1.0), ("double_double", 1.0), ("chain", 0.0),
                                                    ("no_cover", 0.0)])  # fmt: skip
def test_train_coverable_flags_an_obliging_double_only(doubles, coverable):
    """After placing 5-5 the player's only move covers it in every mode, but only `satisfy` and
    `double_double` oblige it: `train_coverable` says "obliges", not "may cover" (a checker read the
    old wording "may cover" and found it 0 in `chain` / `no_cover`)."""
    env = raw_env(num_players=2, max_pip=9, doubles=doubles, use_boneyard=False)
    env.reset(options={"deal": {"hands": [[[9, 5], [5, 5], [5, 1], [2, 3]], [[0, 1], [2, 4]]], "first_player": 0}})
    st = env.game_state
    for move in ("place 5-9 on own train", "pass", "place 5-5 on own train"):
        env.step(next(a for a in st.legal_actions() if st.describe_action(a) == move))
    assert [st.describe_action(a) for a in st.legal_actions()] == ["place 1-5 on own train"]
    view = decode_observation(env.observe("player_0")["observation"], 2, 9)
    assert view["train_ends_in_double"][0] == 1.0 and view["train_coverable"][0] == coverable


def test_decode_refuses_an_observation_of_other_rules_without_blaming_an_agent():
    """``decode_observation(obs, 3, 12)`` on a 4-player observation: the message said "the agent
    was built for other rules", with no agent involved."""
    from domino_env.core.errors import ConfigError

    env = raw_env()
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)["observation"]
    assert decode_observation(obs, 4, 12)["hand"].shape == (91,)
    with pytest.raises(ConfigError, match=r"got 'shape \(449,\)'; allowed: shape \(\d+,\), one seat's observation under these rules"):
        decode_observation(obs, 3, 12)


def test_a_knocked_out_seat_shows_out_to_every_observer():
    """docs/rules.md §1.6 elimination: seat 1 (11 pips, limit 1) is out after round 0, and its
    train is not in play. Every observer's egocentric blocks say so; to seat 2 it is the last
    seat, whose ``seat_active`` entry is the observation's last byte (the random games of the
    reference test knock nobody out within their 300 steps, so that entry went untested)."""
    from domino_env.core.config import from_preset
    from domino_env.encoding.mexican_train import MexicanTrainEncoder

    config = from_preset(num_players=3, max_pip=9, game_end="elimination", elimination_limit=1, first_turn="any")
    round0 = {"hands": [[[9, 1]], [[5, 6]], [[0, 0]]], "boneyard": [], "station": [9, 9], "first_player": 0}
    state = MexicanTrainState.new_game(config, None, round0)
    state.apply(tile_index(9, 1, 9) * 4)  # seat 0 goes out on its own train; seat 1 holds 11 pips
    assert state.active == [True, False, True]
    state.start_next_round(None, {"hands": [[[8, 1], [2, 8]], [], [[8, 3], [6, 6]]], "boneyard": [], "station": [8, 8]})
    encoder = MexicanTrainEncoder(config)
    expected = {  # observer -> (seat_active, train_in_play (own, next seats, Mexican), hand_sizes, scores)
        0: ([1, 0, 1], [1, 0, 1, 1], [2, 0, 2], [0, 11, 0]),
        1: ([0, 1, 1], [0, 1, 1, 1], [0, 2, 2], [11, 0, 0]),
        2: ([1, 1, 0], [1, 1, 0, 1], [2, 2, 0], [0, 0, 11]),
    }
    for seat, (active, in_play, sizes, scores) in expected.items():
        view = decode_observation(encoder.observe(state, seat), 3, 9)
        assert view["seat_active"].tolist() == active and view["train_in_play"].tolist() == in_play
        assert view["hand_sizes"].tolist() == sizes and view["scores"].tolist() == scores
        assert view["round_index"].tolist() == [1]
