"""Per-action features (``domino_env.agents.action_features``, issue 8): the planner's move, the
mask, hand-built values, the v2 open-end columns against the engine's own state, and that the rows
read only the seat's observation."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from domino_env.agents import PlannerAgent
from domino_env.agents.action_features import (
    ACTION_FEATURES_V1,
    ACTION_FEATURES_V2,
    ACTION_FEATURES_V3,
    ACTION_FEATURES_VERSION,
    END_FEATURES,
    FEATURES,
    SEARCH_FEATURES,
    ActionFeatures,
    action_features_for,
    feature_columns,
)
from domino_env.core.errors import ConfigError
from domino_env.core.tiles import tile_index
from domino_env.envs.mexican_train_v0 import raw_env

COL = {name: i for i, name in enumerate(FEATURES + END_FEATURES)}


def act(tile, slot, p, n=9):
    return tile_index(tile[0], tile[1], n) * (p + 1) + slot


def drive(env, episodes, rng_of, decide):
    """Play ``episodes`` rounds (seeds 0, 1, ...), ``decide(observation, mask, rng) -> action`` at
    every decision (``rng_of(episode)``: the generator of that round)."""
    for episode in range(episodes):
        env.reset(seed=episode)
        rng = rng_of(episode)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else decide(obs["observation"], obs["action_mask"], rng))


@pytest.mark.parametrize(
    "rules",
    [
        {"num_players": 4},
        {"num_players": 2},
        {"num_players": 3, "drawn_tile": "may_play"},
        {"num_players": 5, "max_pip": 9, "doubles": "no_cover"},
        {"num_players": 4, "doubles": "chain", "first_turn": "any"},
    ],
)
def test_rows_match_the_mask_and_mark_the_planners_move(rules):
    env = raw_env(**rules)
    planner, features = PlannerAgent(env.config), ActionFeatures(env.config)
    decisions = 0
    shared = np.random.default_rng(0)

    def decide(o, m, rng):
        nonlocal decisions
        f = features(o, m)
        assert f.shape == (len(m), len(FEATURES)) and f.dtype == np.float32  # v1, the default
        np.testing.assert_array_equal(f[:, COL["legal"]], m.astype(np.float32))
        assert not f[m == 0].any()  # illegal actions: all-zero rows
        move = planner(o, m, rng)
        assert np.flatnonzero(f[:, COL["planner_choice"]]).tolist() == [move]
        decisions += 1
        legal = np.flatnonzero(m)
        return int(legal[rng.integers(len(legal))]) if rng.random() < 0.3 else move

    drive(env, 6, lambda episode: shared, decide)
    assert decisions > 200


def test_hand_built_position_values():
    # Own end 9; chain 9-5, 5-2, 2-7; 9-8 is a spare (the planner sheds it on the Mexican train).
    deal = {
        "hands": [[[9, 5], [5, 2], [2, 7], [9, 8]], [[1, 1], [3, 4], [0, 6]]],
        "boneyard": [],
        "station": [9, 9],
        "first_player": 0,
    }
    env = raw_env(num_players=2, max_pip=9, first_turn="any")
    env.reset(seed=0, options={"deal": deal})
    obs = env.observe("player_0")
    f = ActionFeatures(env.config, ACTION_FEATURES_V2)(obs["observation"], obs["action_mask"])
    spare_mexican, follow, break_own = act((8, 9), 2, 2), act((5, 9), 0, 2), act((8, 9), 0, 2)
    row = dict(zip(FEATURES + END_FEATURES, f[spare_mexican], strict=True))
    assert row["planner_choice"] == 1 and row["mexican_train"] == 1 and row["in_chain"] == 0
    assert row["plan_change"] == pytest.approx(1.017)  # a spare shed: + (1000 + 17) / 1000
    assert row["pips"] == pytest.approx(17 / 18)
    row = dict(zip(FEATURES + END_FEATURES, f[follow], strict=True))
    assert row["follows_chain"] == 1 and row["in_chain"] == 1 and row["own_train"] == 1
    assert row["plan_change"] == 0 and row["planner_choice"] == 0
    # 9-8 on the own train leaves end 8 and no chain from it: the plan loses its 3 tiles
    row = dict(zip(FEATURES + END_FEATURES, f[break_own], strict=True))
    assert row["follows_chain"] == 0 and row["own_train"] == 1
    assert row["plan_change"] == pytest.approx((1017 - (1014 + 1007 + 1009)) / 1000)
    # v2: 9-8 leaves end 8 on either train; the seat holds no other 8; unseen: 8-x for x = 0..8
    # minus nothing (the other hand and the boneyard are hidden), i.e. 9 of the 10 tiles with an 8
    for action in (spare_mexican, break_own):
        row = dict(zip(FEATURES + END_FEATURES, f[action], strict=True))
        assert row["end_unseen"] == pytest.approx(9 / 10) and row["end_own"] == 0
        assert row["end_lacked"] == 0 and row["next_lacks_end"] == 0
    # 9-5 on the own train leaves end 5: the seat keeps 5-2; unseen 5-x: 10 minus 9-5 and 5-2
    row = dict(zip(FEATURES + END_FEATURES, f[follow], strict=True))
    assert row["end_unseen"] == pytest.approx(8 / 10) and row["end_own"] == pytest.approx(1 / 10)


@pytest.mark.parametrize(
    "rules",
    [
        {"num_players": 4},
        {"num_players": 3, "drawn_tile": "may_play"},
        {"num_players": 5, "max_pip": 9, "doubles": "no_cover"},
        {"num_players": 2, "use_mexican_train": False},
    ],
)
def test_v2_end_columns_equal_the_engines_count(rules):
    # An independent count from the engine state: the move applied to a copy gives the new open
    # end; the tiles the seat cannot see are the other hands, the boneyard and the tiles out of
    # play; the lack sets are the engine's own.
    env = raw_env(**rules)
    features, v1 = ActionFeatures(env.config, ACTION_FEATURES_V2), ActionFeatures(env.config)
    checked = lacked = covers = others_trains = 0
    p = env.config.num_players
    pips = [sum(1 << i for i, t in enumerate(features.planner.tiles) if pip in t) for pip in range(env.config.max_pip + 1)]

    def decide(o, m, rng):
        nonlocal checked, lacked, covers, others_trains
        f = features(o, m)
        np.testing.assert_array_equal(f[:, : len(FEATURES)], v1(o, m))  # v2 extends v1
        state = env.game_state
        seat = state.current_player
        hidden = state.out_of_play  # a bitmask, as the hands
        for t in state.boneyard:
            hidden |= 1 << t
        for other in range(p):
            if other != seat:
                hidden |= state.hands[other]
        others = [(seat + k) % p for k in range(1, p) if state.active[(seat + k) % p]]
        for a in np.flatnonzero(m):
            if a >= features.planner.draw_action:
                assert not f[a, len(FEATURES):].any()
                continue
            tile, slot = divmod(int(a), p + 1)
            train = p if slot == p else (seat + slot) % p
            after = state.copy()
            after.apply(int(a))
            end = after.ends[train]
            row = dict(zip(END_FEATURES, f[a, len(FEATURES):], strict=True))
            top = env.config.max_pip + 1
            assert row["end_unseen"] == pytest.approx((pips[end] & hidden).bit_count() / top)
            assert row["end_own"] == pytest.approx((pips[end] & after.hands[seat]).bit_count() / top)
            lacking = [o for o in others if state.missing[o] >> end & 1]
            assert row["end_lacked"] == pytest.approx(len(lacking) / len(others) if others else 0)
            lacked += bool(lacking)
            nxt = (seat + 1) % p
            assert row["next_lacks_end"] == float(slot != 0 and bool(state.missing[nxt] >> end & 1))
            # the v1 columns of the move read from the engine too: the tile, the target train
            # (slot 0 own, P Mexican, else the seat `slot` after), its open double, its owner's hand
            base = dict(zip(FEATURES, f[a, : len(FEATURES)], strict=True))
            x, y = features.planner.tiles[tile]
            assert base["double"] == float(x == y)
            assert [base[c] for c in ("own_train", "mexican_train", "other_train")] == [
                slot == 0, slot == p, 0 < slot < p
            ]
            assert base["covers_double"] == float(train in state.open_doubles)
            owner = state.hands[train].bit_count() if 0 < slot < p else 0
            assert base["target_hand"] == pytest.approx(owner / 20)
            covers += train in state.open_doubles
            others_trains += 0 < slot < p
            checked += 1
        legal = np.flatnonzero(m)
        return int(legal[rng.integers(len(legal))])

    drive(env, 4, np.random.default_rng, decide)
    assert checked > 300 and lacked > 10  # rows with known lacks: a wrong seat order would show
    assert others_trains > 3 and (covers > 3 or env.config.doubles == "no_cover")  # no_cover: none open


def test_v2_is_mexican_train_only_and_versions_are_checked():
    from domino_env.envs import line_v0

    line = line_v0.raw_env(preset="cuban").config
    assert action_features_for(line).num_features == 16  # the line rows (v1)
    with pytest.raises(ConfigError, match="v1 rows only"):
        action_features_for(line, "action-features-v2")
    with pytest.raises(ConfigError, match="version"):
        ActionFeatures(raw_env().config, "action-features-v9")
    with pytest.raises(ConfigError, match="version"):
        feature_columns("mexican_train", "v3")  # the metadata names, not the flag's short ones
    with pytest.raises(ConfigError, match="game"):
        feature_columns("mexican-train")  # was the line columns for any other name
    assert feature_columns("cuban") == feature_columns("line") != feature_columns("mexican_train")
    with pytest.raises(ConfigError, match="Mexican Train rules"):
        ActionFeatures(line)
    assert ActionFeatures(raw_env().config, None).version == ACTION_FEATURES_V1 == ACTION_FEATURES_VERSION


def test_each_game_and_version_gets_its_builder_and_columns():
    from domino_env.agents.line_action_features import LINE_FEATURES, LineActionFeatures
    from domino_env.envs import line_v0

    mexican = raw_env().config
    for version, columns in ((None, FEATURES), (ACTION_FEATURES_V1, FEATURES),
                             (ACTION_FEATURES_V2, FEATURES + END_FEATURES),
                             (ACTION_FEATURES_V3, FEATURES + END_FEATURES + SEARCH_FEATURES)):  # fmt: skip
        built = action_features_for(mexican, version)
        assert isinstance(built, ActionFeatures) and built.columns == columns and built.num_features == len(columns)
        assert feature_columns("mexican_train", version) == columns
    assert isinstance(action_features_for(line_v0.raw_env(preset="draw").config, ACTION_FEATURES_V1), LineActionFeatures)
    for game in ("line", "block", "draw", "cuban"):  # v1 rows whatever the version
        assert feature_columns(game) == feature_columns(game, ACTION_FEATURES_V3) == LINE_FEATURES


def test_features_read_only_the_observation_and_pickle():
    env = raw_env(num_players=4)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    features = ActionFeatures(env.config)
    a = features(obs["observation"], obs["action_mask"])
    clone = pickle.loads(pickle.dumps(features))
    np.testing.assert_array_equal(clone(obs["observation"].copy(), obs["action_mask"].copy()), a)
    empty = features(obs["observation"], np.zeros_like(obs["action_mask"]))
    assert not empty.any()  # an episode that is over: no legal action, no features


@pytest.mark.parametrize("preset,players", [("cuban", 4), ("block", 2), ("block", 4), ("draw", 3)])
def test_line_rows_match_the_mask_and_mark_a_planner_move(preset, players):
    from domino_env.agents import make_agent
    from domino_env.agents.action_features import action_features_for
    from domino_env.agents.line_action_features import LINE_FEATURES
    from domino_env.envs import line_v0

    env = line_v0.raw_env(preset=preset, num_players=players)
    features, planner = action_features_for(env.config), make_agent("planner", env.config)
    col = {name: i for i, name in enumerate(LINE_FEATURES)}
    decisions = agree = 0

    def decide(o, m, rng):
        nonlocal decisions, agree
        f = features(o, m)
        assert f.shape == (len(m), len(LINE_FEATURES))
        np.testing.assert_array_equal(f[:, col["legal"]], m.astype(np.float32))
        assert not f[m == 0].any()
        np.testing.assert_array_equal(features(o.copy(), m.copy()), f)  # deterministic
        choice = np.flatnonzero(f[:, col["planner_choice"]])
        assert len(choice) == 1 and m[choice[0]]
        move = planner(o, m, rng)
        decisions += 1
        agree += move == choice[0]
        return move

    drive(env, 8, np.random.default_rng, decide)
    # the planner's closing estimate samples deals with its own rng: rare disagreements only
    assert decisions > 50 and agree / decisions > 0.98


def test_line_hand_built_values():
    from domino_env.agents.line_action_features import LINE_FEATURES, LineActionFeatures
    from domino_env.envs import line_v0

    # block, 2 players, double-6; seat 0 leads any tile: 6-6, 6-1, 2-3 against three unseen tiles
    deal = {"hands": [[[6, 6], [1, 6], [2, 3]], [[0, 0], [0, 1], [4, 5]]], "boneyard": [],
            "first_player": 0}  # fmt: skip
    env = line_v0.raw_env(preset="block", num_players=2)
    env.reset(seed=0, options={"deal": deal})
    obs = env.observe("player_0")
    f = LineActionFeatures(env.config)(obs["observation"], obs["action_mask"])
    n = 6
    lead = {t: 2 * tile_index(t[0], t[1], n) for t in ((6, 6), (1, 6), (2, 3))}
    assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(lead.values())
    rows = {t: dict(zip(LINE_FEATURES, f[a], strict=True)) for t, a in lead.items()}
    assert rows[(6, 6)]["double"] == 1 and rows[(6, 6)]["pips"] == 1.0 and rows[(6, 6)]["lead"] == 1
    assert rows[(6, 6)]["fit_after"] == pytest.approx(1 / 5)  # 6-1 fits the ends 6, 6
    assert rows[(2, 3)]["fit_after"] == 0 and rows[(2, 3)]["goes_out"] == 0
    # 25 unseen tiles, 3 of them in the other hand; 12 unseen tiles carry a 2 or a 3
    assert rows[(2, 3)]["next_cannot"] == pytest.approx((1 - 3 / 25) ** 12, rel=1e-6)
    assert rows[(2, 3)]["second_cannot"] == 0  # no such seat with 2 players
    assert sum(r["planner_choice"] for r in rows.values()) == 1


def test_v3_search_columns_say_what_search_25_would_play():
    # The search columns are the verdict of the `search` agent at budget 25 with the rows' own
    # generator: the agent, given that generator, leaves the planner's move exactly for a searched
    # move whose paired gain is the best and beats 1.5 standard errors (z / 5 > 0.3).
    import zlib

    from domino_env.agents.action_features import (
        ACTION_FEATURES_V3,
        SEARCH_FEATURES,
        SEARCH_FEATURES_BUDGET,
    )
    from domino_env.agents.search import SearchAgent
    from domino_env.core.belief import InformationState

    env = raw_env(num_players=4)
    features = ActionFeatures(env.config, ACTION_FEATURES_V3)
    assert features.wants_info_state and features.columns[-3:] == SEARCH_FEATURES
    search, planner = SearchAgent(env.config, budget=SEARCH_FEATURES_BUDGET), PlannerAgent(env.config)
    base = len(features.columns) - 3
    checked = deviations = 0

    def decide(o, m, rng):
        nonlocal checked, deviations
        legal = np.flatnonzero(m)
        state, seat = env.game_state, env.game_state.current_player
        if len(legal) < 2 or checked >= 60:
            return planner(o, m, rng)
        info = InformationState.from_state(state, seat)
        f = features(o, m, info)
        np.testing.assert_array_equal(f[:, :base], ActionFeatures(env.config, ACTION_FEATURES_V2)(o, m))  # v3 extends v2
        np.testing.assert_array_equal(features(o.copy(), m.copy(), info), f)  # deterministic
        cand, gain, z = f[:, base], f[:, base + 1], f[:, base + 2]
        move = planner(o, m, rng)
        ranked = planner.rank_actions(o, m)
        assert set(np.flatnonzero(cand)) == set(ranked[:2] if len(legal) > 2 else legal)
        assert gain[move] == 0 and z[move] == 0 and (np.sign(gain) == np.sign(z)).all()
        seeded = np.random.default_rng(zlib.crc32(o.tobytes() + m.astype(np.int8).tobytes()))
        chosen = search(o, m, seeded, info_state=info)
        best = int(np.argmax(np.where(cand > 0, gain, -np.inf)))
        expect = best if gain[best] > 0 and z[best] > 0.3 else move
        assert chosen == expect
        deviations += chosen != move
        checked += 1
        return move

    drive(env, 4, np.random.default_rng, decide)
    assert checked == 60 and deviations >= 1
    with pytest.raises(ConfigError, match="action-features-v3 rows run a search"):
        env.reset(seed=0)
        obs = env.observe(env.agent_selection)
        while np.count_nonzero(obs["action_mask"]) < 2:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
            obs = env.observe(env.agent_selection)
        features(obs["observation"], obs["action_mask"])
    clone = pickle.loads(pickle.dumps(features))
    assert clone.search is not None and clone.columns == features.columns


def test_draw_and_pass_rows_say_so_and_mark_the_only_move():
    """Seat 0 holds 3-4 only (nothing fits the 9s): its one row is DRAW (legal, draw, the planner's
    move); the drawn 5-6 fits nowhere: then PASS. Under may_play a drawn 5-9 may be placed or
    kept: the PASS row is legal and pass, not the planner's move. ``size``: every row's numbers."""
    feats = ActionFeatures(raw_env(num_players=2, max_pip=9).config, ACTION_FEATURES_V2)
    assert feats.size == feats.num_actions * len(FEATURES + END_FEATURES) == (3 * 55 + 2) * 21
    for drawn, rules, want_pass_choice in (([5, 6], {}, 1), ([5, 9], {"drawn_tile": "may_play"}, 0)):
        deal = {"hands": [[[3, 4]], [[9, 1], [0, 6]]], "boneyard": [drawn, [0, 0]], "station": [9, 9],
                "first_player": 0}  # fmt: skip
        env = raw_env(num_players=2, max_pip=9, first_turn="any", **rules)
        env.reset(seed=0, options={"deal": deal})
        draw, pass_ = env.game_state.draw_action, env.game_state.pass_action
        obs = env.observe("player_0")
        f = ActionFeatures(env.config, ACTION_FEATURES_V2)(obs["observation"], obs["action_mask"])
        assert list(np.flatnonzero(obs["action_mask"])) == [draw]
        assert f[draw, COL["legal"]] == f[draw, COL["draw"]] == f[draw, COL["planner_choice"]] == 1
        assert f.sum() == 3  # nothing else in any row
        # v3 searches only a decision with a choice: no info_state needed, no search columns
        v3 = ActionFeatures(env.config, ACTION_FEATURES_V3)(obs["observation"], obs["action_mask"])
        np.testing.assert_array_equal(v3[:, : f.shape[1]], f)
        assert not v3[:, f.shape[1] :].any()
        env.step(draw)
        obs = env.observe("player_0")
        f = ActionFeatures(env.config, ACTION_FEATURES_V2)(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][pass_] == 1 and f[pass_, COL["legal"]] == f[pass_, COL["pass"]] == 1
        assert f[pass_, COL["planner_choice"]] == want_pass_choice
        assert f[:, COL["draw"]].sum() == 0 and f[:, COL["pass"]].sum() == 1
        assert f[pass_].sum() == 2 + want_pass_choice


def test_v3_rows_of_a_single_legal_placement_need_no_search():
    """One legal action (the 9-5, on the own train: no Mexican train) is no decision: v3 runs no
    search, so it needs no info_state, and its rows are v2's plus zero search columns."""
    deal = {"hands": [[[9, 5], [3, 4]], [[9, 1], [0, 6]]], "boneyard": [[0, 0]], "station": [9, 9],
            "first_player": 0}  # fmt: skip
    env = raw_env(num_players=2, max_pip=9, first_turn="any", use_mexican_train=False)
    env.reset(seed=0, options={"deal": deal})
    obs = env.observe("player_0")
    assert list(np.flatnonzero(obs["action_mask"])) == [act((5, 9), 0, 2)]
    v2 = ActionFeatures(env.config, ACTION_FEATURES_V2)(obs["observation"], obs["action_mask"])
    v3 = ActionFeatures(env.config, ACTION_FEATURES_V3)(obs["observation"], obs["action_mask"])
    np.testing.assert_array_equal(v3[:, : v2.shape[1]], v2)
    assert not v3[:, v2.shape[1] :].any() and v2[act((5, 9), 0, 2), COL["planner_choice"]] == 1
