"""Hand-built scenario tests for the line games (block, draw, Cuban): configs, deals, presets and
illegal actions, written from the rules.

Source of truth, contract and notation: the docstring of ``line_rules_helpers``.
"""

from __future__ import annotations

import pytest
from line_rules_helpers import ANNUL, DRAW, FULL4, PASS, deal, legal, make, place

from domino_env.core.errors import ConfigError, DealError
from domino_env.envs import block_v0, cuban_v0, draw_v0, line_v0

# ---------------------------------------------------------------------------
# Configs, deals, presets
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"teams": True, "num_players": 3},
        {"teams": True, "num_players": 2},
        {"max_pip": 7},
        {"max_pip": 15},
        {"num_players": 5},
        {"num_players": 1},
        {"hand_size": 8},  # 4 x 8 = 32 > 28
        {"hand_size": 0},
        {"preset": "cuban", "num_players": 3},  # teams from the preset
        {"preset": "cuban", "max_pip": 6},  # 4 x 10 > 28
        {"next_lead": "loser"},
        {"target_score": 0},
        {"preset": "nope"},
        {"bogus": 1},
    ],
)
def test_bad_configs_raise_config_error(kwargs):
    with pytest.raises(ConfigError):
        line_v0.raw_env(**kwargs)


def test_largest_hands_are_accepted():
    """The largest hands each set allows are dealt in full: 4 x 7 = all 28 tiles of double-6 (no
    boneyard left in the draw game), and Cuban's 10-tile hands from the 91 tiles of double-12."""
    for kwargs, size, boneyard in (({"hand_size": 7, "num_players": 4}, 7, 0),
                                   ({"preset": "draw", "num_players": 4, "hand_size": 7}, 7, 0),
                                   ({"preset": "cuban", "max_pip": 12}, 10, 0)):  # fmt: skip
        env = line_v0.raw_env(**kwargs)
        env.reset(seed=0)
        state = env.game_state
        assert [len(state.hand_tiles(s)) for s in range(4)] == [size] * 4, kwargs
        assert len(state.boneyard) == boneyard, kwargs


@pytest.mark.parametrize(
    "bad",
    [
        {"hands": [[[6, 6]], [[6, 6]], [], []]},  # duplicate
        {"hands": [[[7, 7]], [], [], []]},  # not in the double-6 set
        {"hands": [[[6, 6]], [], []]},  # 3 hands for 4 seats
        {"hands": [[[6, 6]], [[1, 1]], [], []], "boneyard": [[2, 2]]},  # boneyard in block game
        {"hands": [[[6, 6]], [[1, 1]], [], []], "first_player": 4},
        {"hands": [[[6, 6]], [[1, 1]], [], []], "first_player": -1},
        {"hands": [[[6, 6]], [[1, 1]], [], []], "station": [6, 6]},  # unknown key
        {"hands": [[[6]], [[1, 1]], [], []]},  # not a pair
        "not a dict",
    ],
)
def test_bad_deals_raise_deal_error(bad):
    env = block_v0.raw_env()
    with pytest.raises(DealError):
        env.reset(options={"deal": bad})


def test_a_line_deal_may_give_numpy_arrays():
    """Hands and boneyard as numpy integer arrays, as in Mexican Train; the record keeps lists."""
    import numpy as np

    env = draw_v0.raw_env()
    env.reset(seed=0, options={"deal": {"hands": np.array([[[6, 6], [1, 2]], [[1, 1], [3, 4]]]),
                                        "boneyard": np.array([[0, 5]])}})  # fmt: skip
    deal = env.to_record()["deals"][0]
    assert deal["hands"] == [[[1, 2], [6, 6]], [[1, 1], [3, 4]]] and deal["boneyard"] == [[0, 5]]
    assert env.agent_selection == "player_0"  # the 6-6 leads


def test_bad_draw_deal_duplicate_between_hand_and_boneyard():
    env = draw_v0.raw_env()
    with pytest.raises(DealError):
        env.reset(options={"deal": {"hands": [[[6, 6]], [[1, 1]]], "boneyard": [[1, 1]]}})


def test_presets_fields():
    """docs/rules.md §2.2 presets; contract: draw keeps seed 003's 5,000-point target."""
    common = {
        "max_pip": 6,
        "hand_size": 7,
        "teams": False,
        "next_lead": "next_seat",
        "annul_doubles": None,
        "target_score": 100,
        "num_players": 4,
        "use_boneyard": False,
    }
    block = dict(common)
    draw = dict(common, num_players=2, use_boneyard=True, target_score=5000)
    cuban = dict(common, max_pip=9, hand_size=10, teams=True, next_lead="winner", annul_doubles=5)
    for mod, name, fields in (
        (block_v0, "block", block),
        (draw_v0, "draw", draw),
        (cuban_v0, "cuban", cuban),
    ):
        for cfg in (mod.raw_env().config, line_v0.raw_env(preset=name).config):
            assert cfg.preset == name
            for k, v in fields.items():
                assert getattr(cfg, k) == v, (name, k)
    e = cuban_v0.raw_env()
    e.reset(seed=3)
    st = e.unwrapped.game_state
    assert [st.hand_size(s) for s in range(4)] == [10] * 4  # 15 of 55 out of play
    assert st.boneyard_size == 0
    e = draw_v0.raw_env()
    e.reset(seed=3)
    assert e.unwrapped.game_state.boneyard_size == 28 - 14
    assert line_v0.raw_env().config.preset == "block"


def test_illegal_action_raises_and_changes_nothing():
    from domino_env.core.errors import IllegalActionError

    env = make("block", deal(FULL4))
    before = legal(env)
    for bad in (place(env, (5, 5), 0), place(env, (6, 6), 1), PASS(env), DRAW(env), ANNUL(env)):
        with pytest.raises(IllegalActionError):
            env.step(bad)
        assert env.agent_selection == "player_2" and legal(env) == before
        assert env.unwrapped.game_state.line == []


def test_line_ids_refuse_another_preset_and_empty_hands():
    """cuban_v0 / dominoes/Cuban-v0 play the Cuban preset only; a deal with an empty hand is
    refused (every seat needs a tile)."""
    import gymnasium

    import domino_env  # noqa: F401
    from domino_env import ConfigError, DealError
    from domino_env.envs import block_v0, cuban_v0

    with pytest.raises(ConfigError, match="preset"):
        cuban_v0.raw_env(preset="draw")
    with pytest.raises(ConfigError, match="preset"):
        gymnasium.make("dominoes/Cuban-v0", preset="block")
    e = block_v0.raw_env(num_players=2)
    with pytest.raises(DealError, match="empty"):
        e.reset(options={"deal": {"hands": [[], [[3, 4], [5, 5]]]}})
