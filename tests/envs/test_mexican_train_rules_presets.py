"""Hand-built scenario tests for Mexican Train presets (docs/rules.md §1.8): tren_mexicano and
novelty, their fields, hand sizes and play, and explicit kwargs over a preset.

Source of truth, contract and notation: the docstring of ``mexican_train_seat_helpers``.
"""

from __future__ import annotations

import pytest
from mexican_train_rules_helpers import hand, tile_count
from mexican_train_seat_helpers import (
    DRAW,
    PASS,
    M,
    act,
    deal,
    draw,
    expect,
    open_doubles,
    pass_,
    st,
)

from domino_env.envs.mexican_train_v0 import raw_env

# --------------------------------------------------------------------------------------------
# Presets
# --------------------------------------------------------------------------------------------


TREN_MEXICANO = dict(
    first_turn="any",
    doubles="chain",
    drawn_tile="may_play",
    blocked_round="void",
    double_blank_points=10,
    game_end="elimination",
    elimination_limit=100,
)


def _check_fields(cfg, fields):
    for k, v in fields.items():
        assert getattr(cfg, k) == v, (k, getattr(cfg, k), v)


def test_preset_tren_mexicano_from_preset_and_env():
    """docs/rules.md §1.8: preset tren_mexicano (seed 002) differs from the default in the hand-size
    table, first_turn="any", doubles="chain", drawn_tile="may_play", blocked_round="void",
    double_blank_points=10, game_end="elimination" (limit 100); nothing else."""
    from domino_env.core.config import from_preset

    cfg = from_preset("tren_mexicano")
    _check_fields(cfg, TREN_MEXICANO)
    _check_fields(
        cfg,
        dict(
            station_source="set_aside",
            marker_removal="own_train_play",
            use_boneyard=True,
            use_mexican_train=True,
        ),
    )
    env = raw_env(preset="tren_mexicano")
    env.reset(seed=0)
    _check_fields(st(env).config, TREN_MEXICANO)
    default = from_preset("domino_cubano")
    _check_fields(
        default,
        dict(
            first_turn="own_train",
            doubles="satisfy",
            drawn_tile="must_play",
            blocked_round="score",
            double_blank_points=0,
            game_end="rounds",
            station_source="set_aside",
        ),
    )


@pytest.mark.parametrize(
    "max_pip,players,size",
    [
        (12, 2, 15),
        (12, 4, 15),
        (12, 5, 12),
        (12, 8, 11),
        (9, 2, 9),
        (9, 5, 7),
        (9, 8, 6),
        (15, 7, 13),
        (18, 8, 15),
    ],
)
def test_preset_tren_mexicano_hand_size_table(max_pip, players, size):
    """docs/rules.md §1.1 hand-size table (presets tren_mexicano / novelty)."""
    env = raw_env(preset="tren_mexicano", num_players=players, max_pip=max_pip)
    env.reset(seed=3)
    state = st(env)
    sizes = [len(state.hand_tiles(s)) for s in range(players)]
    assert sizes == [size] * players
    assert sum(sizes) + state.boneyard_size == tile_count(max_pip) - 1


@pytest.mark.parametrize("players,size", [(4, 15), (5, 12)])
def test_preset_novelty(players, size):
    """docs/rules.md §1.8: preset novelty (seed 003) = hand-size table + station_source="highest_held"
    (the holder of the station double places it, so holds one tile fewer, and moves first)."""
    from domino_env.core.config import from_preset

    cfg = from_preset("novelty")
    assert cfg.station_source == "highest_held"
    _check_fields(
        cfg,
        dict(
            first_turn="own_train",
            doubles="satisfy",
            drawn_tile="must_play",
            blocked_round="score",
            game_end="rounds",
        ),
    )
    for seed in range(3):
        env = raw_env(preset="novelty", num_players=players, max_pip=12)
        env.reset(seed=seed)
        state = st(env)
        assert state.config.station_source == "highest_held"
        sizes = [len(state.hand_tiles(s)) for s in range(players)]
        assert sorted(sizes) == [size - 1] + [size] * (players - 1), sizes
        assert state.current_player == sizes.index(size - 1)
        assert sum(sizes) + state.boneyard_size == tile_count(12) - 1


def test_explicit_kwargs_override_preset():
    """Contract "Constructor kwargs" / docs/rules.md §1.8 ("Every variant flag ... can be combined
    freely with any preset"): explicit kwargs override the preset, other preset fields stay."""
    from domino_env.core.config import from_preset

    cfg = from_preset("tren_mexicano", doubles="satisfy")
    assert cfg.doubles == "satisfy"
    _check_fields(cfg, {k: v for k, v in TREN_MEXICANO.items() if k != "doubles"})
    env = raw_env(preset="tren_mexicano", doubles="satisfy", num_players=3)
    env.reset(seed=0)
    cfg = st(env).config
    assert cfg.doubles == "satisfy"
    assert cfg.num_players == 3
    _check_fields(cfg, {k: v for k, v in TREN_MEXICANO.items() if k != "doubles"})
    env = raw_env(preset="novelty", station_source="set_aside")
    env.reset(seed=0)
    assert st(env).config.station_source == "set_aside"
    assert st(env).station == 12


def test_preset_tren_mexicano_plays_chain_and_may_play_in_a_scenario():
    """docs/rules.md §1.8 (tren_mexicano) + 1.3.1 first_turn="any" + 1.4 chain + 1.3.3 may_play: the
    preset's behaviour, not just its fields: the Mexican train may be started on the first turn;
    a double gives a free extra play; a drawn playable tile may be kept (PASS is legal too)."""
    env = raw_env(preset="tren_mexicano", num_players=2, max_pip=9)
    deal(
        env,
        hands=[[(9, 3), (3, 3), (0, 1)], [(9, 5), (5, 2), (8, 8)]],
        boneyard=[(3, 6), (1, 1), (0, 0)],
    )
    expect(env, 0, [((3, 9), 0), ((3, 9), M)])
    act(env, (9, 3), M)
    expect(env, 1, [((5, 9), 1)])
    act(env, (9, 5), 1)
    act(env, (3, 3), M)
    expect(env, 0, [DRAW])  # extra play after the double: nothing fits
    draw(env)  # (3,6) would cover the double
    expect(env, 0, [((3, 6), M), PASS])  # may_play
    pass_(env)
    assert st(env).has_marker(0)
    assert hand(env, 0) == [(0, 1), (3, 6)]
    assert open_doubles(env) == [2]
    expect(env, 1, [DRAW])  # (5,2) fits its own train, but 3-3 on M must be covered
    draw(env)  # (1,1) cannot cover
    expect(env, 1, [PASS])
