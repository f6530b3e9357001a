"""Exact rows of the line games' per-action features on hand-built positions.

Each test pins what ``domino_env.agents.line_action_features`` documents for one column (its
module docstring and the line planner's rules 1-8): the DRAW / PASS / ANNUL columns, the planner
score and its going-out value, the three seats' cannot-play estimates, and the closing estimate,
in positions where every sampled deal is the same so the values are exact.
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.agents.line_action_features import LINE_FEATURES, LineActionFeatures
from domino_env.core.tiles import tile_index
from domino_env.envs import line_v0

COL = {name: i for i, name in enumerate(LINE_FEATURES)}


def _env(preset, players, deal, **kw):
    env = line_v0.raw_env(preset=preset, num_players=players, **kw)
    env.reset(seed=0, options={"deal": deal})
    return env


def _action(tile, end, n):
    return 2 * tile_index(min(tile), max(tile), n) + end


def _rows(env):
    obs = env.observe(env.agent_selection)
    feats = LineActionFeatures(env.config)
    return feats, obs["action_mask"], feats(obs["observation"], obs["action_mask"])


def _only(row, **values):
    """``row`` has exactly ``values`` in those columns and 0 elsewhere."""
    want = np.zeros(len(LINE_FEATURES), dtype=np.float32)
    for name, value in values.items():
        want[COL[name]] = value
    np.testing.assert_allclose(row, want, rtol=1e-6)


def test_repr_and_size():
    feats = LineActionFeatures(line_v0.raw_env(preset="block", num_players=2).config)
    assert repr(feats) == "LineActionFeatures(num_actions=59, features=16)"  # 2 x 28 + 3 actions
    assert feats.size == 59 * 16 and feats.num_features == 16 == len(feats.columns)


def test_a_forced_draw_row():
    # draw game: seat 1 leads 6-6, seat 0 holds no 6 and the boneyard is not empty: DRAW only
    deal = {"hands": [[[1, 2], [3, 4]], [[6, 6], [5, 6]]], "boneyard": [[0, 0], [5, 5]], "first_player": 1}
    env = _env("draw", 2, deal)
    env.step(_action((6, 6), 0, 6))
    feats, mask, f = _rows(env)
    assert np.flatnonzero(mask).tolist() == [feats.planner.draw_action]
    _only(f[feats.planner.draw_action], legal=1, draw=1, planner_choice=1)
    assert not np.delete(f, feats.planner.draw_action, axis=0).any()


def test_a_forced_pass_row():
    deal = {"hands": [[[1, 2], [3, 4]], [[6, 6], [5, 6]]], "first_player": 1}
    env = _env("block", 2, deal)
    env.step(_action((6, 6), 0, 6))
    feats, mask, f = _rows(env)
    assert np.flatnonzero(mask).tolist() == [feats.planner.pass_action]
    _only(f[feats.planner.pass_action], **{"legal": 1, "pass": 1, "planner_choice": 1})


def _cuban_deal(hand0, first_player=0):
    n = 9
    tiles = [[a, b] for a in range(n + 1) for b in range(a, n + 1)]
    others = [t for t in tiles if sorted(t) not in [sorted(h) for h in hand0]]
    return {"hands": [hand0, others[0:10], others[10:20], others[20:30]], "first_player": first_player}


UNCOVERED = [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4], [5, 6], [5, 7], [5, 8], [6, 7], [6, 8]]
COVERED = [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4], [0, 1], [2, 3], [4, 5], [6, 7], [8, 8]]


def test_annul_is_1_when_the_planner_annuls_and_marks_its_choice():
    env = _env("cuban", 4, _cuban_deal(UNCOVERED))
    feats, mask, f = _rows(env)
    annul = feats.planner.annul_action
    assert mask[annul] and mask.sum() > 1
    _only(f[annul], legal=1, annul=1.0, planner_choice=1)
    assert f[:, COL["planner_choice"]].sum() == 1


def test_annul_is_half_when_legal_but_the_hand_is_kept():
    # every double of the hand is backed by a tile of its suit (8-8 alone: one uncovered < 2)
    env = _env("cuban", 4, _cuban_deal(COVERED))
    feats, mask, f = _rows(env)
    annul = feats.planner.annul_action
    assert mask[annul]
    _only(f[annul], legal=1, annul=0.5)
    choice = int(np.flatnonzero(f[:, COL["planner_choice"]])[0])
    assert choice < feats.planner.draw_action  # a placement: the planner's best one
    assert f[choice, COL["planner_score"]] == f[:, COL["planner_score"]].max()


def test_pass_or_annul_without_a_placement_the_planner_passes():
    # seat 3 leads 9-9; seat 0 (no 9, its doubles covered) may PASS or ANNUL and keeps its hand
    deal = _cuban_deal(COVERED, first_player=3)
    deal["hands"][3][0] = [9, 9]  # 9-9 is not dealt otherwise (the last tile of the set)
    env = _env("cuban", 4, deal)
    env.step(_action((9, 9), 0, 9))
    assert env.agent_selection == "player_0"
    feats, mask, f = _rows(env)
    pl = feats.planner
    assert np.flatnonzero(mask).tolist() == sorted([pl.pass_action, pl.annul_action])
    _only(f[pl.pass_action], **{"legal": 1, "pass": 1, "planner_choice": 1})
    _only(f[pl.annul_action], legal=1, annul=0.5)


def test_planner_score_is_the_rule_score_over_50():
    # the block deal of test_line_hand_built_values: 25 unseen tiles, 3 in the other hand
    deal = {"hands": [[[6, 6], [1, 6], [2, 3]], [[0, 0], [0, 1], [4, 5]]], "first_player": 0}
    env = _env("block", 2, deal)
    feats, mask, f = _rows(env)
    q = 1 - 3 / 25
    six, two_three = f[_action((6, 6), 0, 6)], f[_action((2, 3), 0, 6)]
    # 6-6: 12 pips + 2 (double) + 3 x 1 fitting tile + 16 x P(seat 1 lacks the 5 unseen sixes)
    assert six[COL["planner_score"]] == pytest.approx((17 + 16 * q**5) / 50, rel=1e-6)
    # 2-3: 5 pips, nothing fits after it, 12 unseen tiles carry a 2 or a 3
    assert two_three[COL["planner_score"]] == pytest.approx((5 + 16 * q**12) / 50, rel=1e-6)
    assert six[COL["planner_choice"]] == 1 and two_three[COL["planner_choice"]] == 0
    assert six[COL["closes"]] == six[COL["close_value"]] == 0


def test_going_out_row():
    deal = {"hands": [[[6, 6]], [[0, 1]]], "first_player": 0}
    env = _env("block", 2, deal)
    feats, mask, f = _rows(env)
    a = _action((6, 6), 0, 6)
    assert np.flatnonzero(mask).tolist() == [a]
    # seat 1 holds 1 of the 27 unseen tiles, 6 of which carry a 6
    _only(f[a], legal=1, pips=1.0, double=1, lead=1, goes_out=1, next_cannot=(1 - 1 / 27) ** 6,
          planner_score=4.0, planner_choice=1)  # fmt: skip


def test_the_three_seats_cannot_play_estimates():
    # 4 seats holding 3, 4, 5, 6 tiles: 25 unseen, 12 of them carry a 2 or a 3
    deal = {"hands": [[[2, 3], [6, 6], [5, 5]], [[0, 0], [0, 1], [0, 2], [0, 3]],
                      [[0, 4], [0, 5], [0, 6], [1, 1], [1, 2]],
                      [[1, 3], [1, 4], [1, 5], [1, 6], [2, 2], [2, 4]]], "first_player": 0}  # fmt: skip
    env = _env("block", 4, deal)
    feats, mask, f = _rows(env)
    row = f[_action((2, 3), 0, 6)]
    for col, size in (("next_cannot", 4), ("second_cannot", 5), ("third_cannot", 6)):
        assert row[COL[col]] == pytest.approx((1 - size / 25) ** 12, rel=1e-6), col


def _play(env, tile, n=6):
    legal = set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())
    env.step(min(legal & {_action(tile, 0, n), _action(tile, 1, n)}))


def _three_seat_close(rest0, extra1, extra2):
    """Seats 0, 1, 2 build 0-0 | 0-1 1-2 2-0 | 0-3 3-4 4-0 | 0-5 5-6 (ends 0, 6); seat 0 then
    holds 0-6: the rows of the placements that leave the ends 0, 0 (every 0 on the table) and
    6, 6, and all rows."""
    deal = {"hands": [[[0, 0], [0, 2], [0, 4], [0, 6], *rest0], [[0, 1], [0, 3], [0, 5], *extra1],
                      [[1, 2], [3, 4], [5, 6], *extra2]], "first_player": 0}  # fmt: skip
    env = _env("block", 3, deal)
    for tile in ((0, 0), (0, 1), (1, 2), (0, 2), (0, 3), (3, 4), (0, 4), (0, 5), (5, 6)):
        _play(env, tile)
    assert env.agent_selection == "player_0"
    feats, mask, f = _rows(env)
    pl = feats.planner
    v = pl.view(env.observe("player_0")["observation"])
    ends = {pl.after(v, tile_index(0, 6, 6), e): _action((0, 6), e, 6) for e in (0, 1)}
    assert mask[ends[(0, 0)]] and mask[ends[(6, 6)]]
    return f[ends[(0, 0)]], f[ends[(6, 6)]], f


def test_a_move_that_surely_closes_and_wins_the_count():
    # all 28 tiles dealt: the unseen tiles are the two other hands, none lighter than 4 pips
    rest = [[1, 3], [1, 4], [1, 5], [1, 6], [2, 2], [2, 3], [2, 4], [2, 5], [2, 6], [3, 3], [3, 5],
            [3, 6], [4, 4], [4, 5], [4, 6], [5, 5], [6, 6]]  # fmt: skip
    right, left, f = _three_seat_close([[1, 1]], rest[:8], rest[8:])
    _only(right, legal=1, pips=0.5, next_cannot=1, second_cannot=1, closes=1, close_value=1,
          planner_score=(6 + 16 * 1.5 + 60) / 50, planner_choice=1)  # fmt: skip
    # ends 6, 6: 5 unseen sixes (1-6 with seat 1's 8 tiles, 4 with seat 2's 9): no closing estimate
    q1, q2 = (1 - 8 / 17) ** 5, (1 - 9 / 17) ** 5
    _only(left, legal=1, pips=0.5, next_cannot=q1, second_cannot=q2,
          planner_score=(6 + 16 * (q1 + q2 / 2)) / 50)  # fmt: skip


def test_a_move_that_surely_closes_and_loses_the_count():
    # seat 0 keeps 50 pips; seats 1 and 2 hold one more tile each (at most 12 pips)
    right, _, f = _three_seat_close([[6, 6], [5, 5], [4, 5], [4, 6], [3, 6]], [[1, 1]], [[2, 2]])
    assert right[COL["closes"]] == 1 and right[COL["close_value"]] == -1
    assert right[COL["planner_score"]] == pytest.approx((6 + 16 * 1.5 - 60) / 50, rel=1e-6)
    assert right[COL["planner_choice"]] == 0


def _after_six_one(hand0, hand1):
    """Block, 2 seats: seat 1 leads 1-6, then the seats play ``hand0[0]``, ``hand1[1]``; seat 0
    is to move with the ends 6, 6 and most tiles out of play (rule 6's sampled deals differ)."""
    env = _env("block", 2, {"hands": [hand0, hand1], "first_player": 1})
    for tile in ([1, 6], hand0[0], hand1[1]):
        obs = env.observe(env.agent_selection)
        legal = set(np.flatnonzero(obs["action_mask"]).tolist())
        env.step(min(legal & {_action(tile, 0, 6), _action(tile, 1, 6)}))
    assert env.agent_selection == "player_0"
    return _rows(env)


def test_the_closing_estimate_runs_with_at_most_four_unseen_fitting_tiles():
    # table 1-6 1-2 2-6; seat 0 plays 6-6 keeping 0-0: 0-6, 3-6, 4-6, 5-6 are unseen (4 <= 4)
    feats, mask, f = _after_six_one([[1, 2], [6, 6], [0, 0]], [[1, 6], [2, 6], [3, 3]])
    row = f[_action((6, 6), 0, 6)] if mask[_action((6, 6), 0, 6)] else f[_action((6, 6), 1, 6)]
    closes = float(row[COL["closes"]])
    assert 0.5 < closes < 1  # it closes unless seat 1's one tile (of 23 unseen) is a six
    assert row[COL["close_value"]] == pytest.approx(closes)  # 0 pips left: it always wins the count
    q = (1 - 1 / 23) ** 4
    # the score's own estimate draws its deals first (48 of them), then the row's: both near c
    samples = (row[COL["planner_score"]] * 50 - 14 - 16 * q) / 60 * 48
    assert samples == pytest.approx(round(samples), abs=1e-3) and abs(samples / 48 - closes) < 0.2


def test_no_closing_estimate_with_five_unseen_fitting_tiles():
    # table 1-6 1-2 2-3; seat 0 plays 3-6 keeping 0-0: 0-6, 2-6, 4-6, 5-6, 6-6 unseen (5 > 4)
    feats, mask, f = _after_six_one([[1, 2], [3, 6], [0, 0]], [[1, 6], [2, 3], [4, 4]])
    rows = f[[a for a in (_action((3, 6), 0, 6), _action((3, 6), 1, 6)) if mask[a]]]
    assert len(rows)
    for row in rows:
        assert row[COL["closes"]] == row[COL["close_value"]] == 0
        q = (1 - 1 / 23) ** 5
        assert row[COL["planner_score"]] == pytest.approx((9 + 16 * q) / 50, rel=1e-5)


def test_a_closing_estimate_of_zero_has_a_zero_value():
    # as above, but seat 1 holds every other tile: the 4 unseen sixes are in its hand, c = 0
    others = [[a, b] for a in range(7) for b in range(a, 7)
              if [a, b] not in ([1, 2], [6, 6], [0, 0], [1, 6], [2, 6])]  # fmt: skip
    feats, mask, f = _after_six_one([[1, 2], [6, 6], [0, 0]], [[1, 6], [2, 6], *others])
    rows = f[[a for a in (_action((6, 6), 0, 6), _action((6, 6), 1, 6)) if mask[a]]]
    assert len(rows) and not rows[:, [COL["closes"], COL["close_value"]]].any()
    q = (1 - 21 / 21) ** 4  # seat 1 holds all 21 unseen tiles: it can play
    assert rows[0, COL["next_cannot"]] == q == 0
    assert rows[0, COL["planner_score"]] == pytest.approx(14 / 50, rel=1e-6)


# ---------------------------------------------------------------- the line planner's spec parser
@pytest.mark.parametrize("spec", ["planner:x", "planner:-3", "planner:searchXYZ", "planner:search:4",
                                  "planner:0", "planner:search=0"])  # fmt: skip
def test_a_planner_argument_it_does_not_take_names_the_planner_specs(spec):
    import re

    from domino_env.agents import make_agent
    from domino_env.core.errors import AgentSpecError

    with pytest.raises(AgentSpecError, match=rf"^invalid agent '{re.escape(spec)}'; allowed: planner, planner:N, "
                                             r"planner:search or planner:search=N \(N an integer >= 1\)$"):  # fmt: skip
        make_agent(spec, {"preset": "block"})
