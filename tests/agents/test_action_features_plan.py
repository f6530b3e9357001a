"""The planner columns of the per-action features (``domino_env.agents.action_features``):
``plan_change`` and its clip to [-5, 2], ``double_ok``, ``lift_marker`` and ``flexibility``, on
hand-built positions whose values are worked out by hand from the module docstring and the
planner's rules (weights ``1000 + pips`` a tile, an uncoverable double -1000)."""

from __future__ import annotations

import pytest

from domino_env.agents.action_features import ACTION_FEATURES_V2, FEATURES, ActionFeatures
from domino_env.core.tiles import tile_index
from domino_env.envs.mexican_train_v0 import raw_env


def rows_of(env, seat="player_0"):
    obs = env.observe(seat)
    f = ActionFeatures(env.config, ACTION_FEATURES_V2)(obs["observation"], obs["action_mask"])
    return obs, f


def row(f, tile, slot, p, n):
    return dict(zip(FEATURES, f[tile_index(tile[0], tile[1], n) * (p + 1) + slot], strict=False))


@pytest.mark.parametrize("doubles", ["satisfy", "no_cover"])
def test_marked_own_train_position(doubles):
    """3 players, double-9, station 9. Seat 0 holds no 9: it draws 7-0, which fits nowhere, and
    passes (its marker goes down: its own train is public). Seat 1 plays 9-3 on seat 0's train,
    seat 2 starts the Mexican train with 9-5. Seat 0 then holds
    3-3 3-4 4-6 6-1 1-8 8-7 7-0 3-2 5-5 with its own end 3 (public) and the Mexican end 5.

    Its plan from 3: 3-3 3-4 4-6 6-1 1-8 8-7 7-0 (7 tiles, weight 7061); spares 3-2 and 5-5.
    The legal moves: 3-3, 3-4 and 3-2 on the own train, 5-5 on the Mexican train."""
    n, p = 9, 3
    deal = {
        "hands": [
            [[3, 3], [3, 4], [4, 6], [6, 1], [1, 8], [8, 7], [3, 2], [5, 5]],
            [[9, 3], [0, 1], [2, 4]],
            [[9, 5], [0, 6], [1, 2]],
        ],
        "boneyard": [[7, 0], [2, 2]],
        "station": [9, 9],
        "first_player": 0,
    }
    env = raw_env(num_players=p, max_pip=n, first_turn="any", doubles=doubles)
    env.reset(seed=0, options={"deal": deal})
    state = env.game_state
    env.step(state.draw_action)  # 7-0 fits no 9
    env.step(env.game_state.pass_action)
    env.step(tile_index(3, 9, n) * (p + 1) + 2)  # seat 1: seat 0's train is 2 seats after it
    env.step(tile_index(5, 9, n) * (p + 1) + p)  # seat 2: the Mexican train
    assert env.agent_selection == "player_0" and env.game_state.markers[0]
    obs, f = rows_of(env)
    legal = {(t, s) for t, s in ((divmod(int(a), p + 1)) for a in obs["action_mask"].nonzero()[0])}
    assert legal == {(tile_index(*t, n), s) for t, s in (((3, 3), 0), ((3, 4), 0), ((2, 3), 0), ((5, 5), p))}
    plan_w = 1006 + 1007 + 1010 + 1007 + 1009 + 1015 + 1007

    # 3-3 is the plan's first tile (a double at the open end comes first): following the plan on a
    # public own train loses nothing and lifts the marker; 3-4 covers the double
    follow = row(f, (3, 3), 0, p, n)
    assert follow["follows_chain"] == 1 and follow["plan_change"] == 0
    assert follow["lift_marker"] == 1 and follow["double_ok"] == 1 and follow["planner_choice"] == 1
    # spares left that fit a public end (the Mexican train's 5): 5-5; 3-2 fits no public end
    assert follow["flexibility"] == pytest.approx(1 / 10)

    # 3-4 skips the 3-3: the plan after it is 4-6 ... 7-0, one tile short (the 3-3): no lift
    skip = row(f, (3, 4), 0, p, n)
    assert skip["in_chain"] == 1 and skip["follows_chain"] == 0
    assert skip["plan_change"] == pytest.approx(-1006 / 1000)
    assert skip["lift_marker"] == 0 and skip["double_ok"] == 1
    assert skip["flexibility"] == pytest.approx(1 / 10)

    # 3-2 on the own train leaves end 2 and no chain: 1005 - 7061 = -6.056, clipped to -5
    spoil = row(f, (3, 2), 0, p, n)
    assert (1005 - plan_w) / 1000 < -5 and spoil["plan_change"] == -5.0
    assert spoil["lift_marker"] == 0 and spoil["double_ok"] == 1 and spoil["in_chain"] == 0
    assert spoil["flexibility"] == pytest.approx(1 / 10)

    # 5-5 on the Mexican train: a spare shed elsewhere (+1010), but no other 5 in the hand covers
    # it (-1000), except under no_cover, where a double needs no cover
    shed = row(f, (5, 5), p, p, n)
    assert shed["mexican_train"] == 1 and shed["lift_marker"] == 0  # not on the own train
    if doubles == "no_cover":
        assert shed["double_ok"] == 1 and shed["plan_change"] == pytest.approx(1010 / 1000)
    else:
        assert shed["double_ok"] == 0 and shed["plan_change"] == pytest.approx((1010 - 1000) / 1000)
    # the spares left (3-2) fit no public end (the Mexican train still ends in 5)
    assert shed["flexibility"] == 0


def test_plan_change_is_clipped_at_two():
    """2 players, double-12, station 6. The planner's plan from 6 is what its 400-node chain
    search finds (13 tiles); after 3-6 on the own train the re-plan from 3 (``budget // 8``
    nodes) finds 14 tiles, so the move is worth 15 tiles against a plan of 13: more than +2000,
    clipped to +2 (the clip bounds the planner's budget-limited misses)."""
    n, p = 12, 2
    hand = [[0, 5], [0, 7], [0, 8], [0, 12], [1, 3], [1, 9], [2, 7], [3, 5], [3, 6], [3, 8], [5, 8],
            [5, 9], [5, 10], [6, 12], [8, 12], [9, 10], [11, 11], [12, 12]]  # fmt: skip
    deal = {"hands": [hand, [[1, 1], [2, 2]]], "boneyard": [], "station": [6, 6], "first_player": 0}
    env = raw_env(num_players=p, max_pip=n)
    env.reset(seed=0, options={"deal": deal})
    features = ActionFeatures(env.config)
    obs = env.observe("player_0")
    f = features(obs["observation"], obs["action_mask"])
    planner = features.planner
    mask = sum(1 << tile_index(a, b, n) for a, b in hand)
    now, now_w = planner.longest_chain(6, mask)
    after, after_w = planner.longest_chain(3, mask & ~(1 << tile_index(3, 6, n)), planner.budget // 8)
    assert (len(now), len(after)) == (13, 14)
    # the 15 tiles 3-6 + the re-plan are a real chain from 6 through the hand
    end = 6
    for t in [tile_index(3, 6, n), *after]:
        a, b = planner.tiles[t]
        assert end in (a, b) and mask >> t & 1
        end = b if a == end else a
    assert (1009 + after_w - now_w) / 1000 > 2
    move = row(f, (3, 6), 0, p, n)
    assert move["plan_change"] == 2.0 and move["in_chain"] == 1 and move["follows_chain"] == 0
    assert move["planner_choice"] == 1  # the planner takes it too
    assert row(f, (6, 12), 0, p, n)["follows_chain"] == 1
