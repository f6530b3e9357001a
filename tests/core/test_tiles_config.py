"""Tile indexing (docs/rules.md §0) and config validation / presets (docs/rules.md §1.1, 1.8)."""

import itertools
import re

import numpy as np
import pytest

from domino_env.core.config import PRESETS, LineConfig, MexicanTrainConfig, from_preset
from domino_env.core.errors import ConfigError, DominoError
from domino_env.core.tiles import pip_value, tile_count, tile_from_index, tile_index, tile_table


@pytest.mark.parametrize("n,count", [(6, 28), (9, 55), (12, 91), (15, 136), (18, 190)])
def test_tile_index_round_trip(n, count):
    """Section 0: (N+1)(N+2)/2 tiles, canonical order (0,0),(0,1),...,(0,N),(1,1),...,(N,N)."""
    expected = [(a, b) for a in range(n + 1) for b in range(a, n + 1)]
    assert tile_count(n) == count
    assert list(tile_table(n)) == expected
    for i, (a, b) in enumerate(expected):
        assert tile_index(a, b, n) == i
        assert tile_index(b, a, n) == i
        assert tile_from_index(i, n) == (a, b)


def test_tile_errors():
    with pytest.raises(DominoError):
        tile_index(3, 13, 12)
    with pytest.raises(DominoError):
        tile_from_index(91, 12)


def test_a_pip_or_an_index_one_below_0_is_refused():
    """tile_index(-1, 3) (either orientation) and tile_from_index(-1) are outside the set, as
    one past the top is. Kills: ``a < 0`` read as ``a < -1`` in tile_index, ``0 <= i`` as
    ``-1 <= i`` in tile_from_index (which gave the 6-6 for index -1)."""
    for a, b in ((-1, 3), (3, -1), (-1, -1)):
        with pytest.raises(DominoError, match=re.escape(f"tile ({min(a, b)}, {max(a, b)}) is not in the double-6 set (pips 0..6)")):
            tile_index(a, b, 6)
    with pytest.raises(DominoError, match=re.escape("tile index -1 is not an integer 0..27 (double-6)")):
        tile_from_index(-1, 6)
    assert tile_index(0, 0, 6) == 0 and tile_from_index(0, 6) == (0, 0) and tile_from_index(27, 6) == (6, 6)


def test_tiles_and_the_action_codecs_refuse_what_is_not_an_integer():
    """tile_index(1.5, 2, 6) returned 11.0, decode_action(1.7, ...) read action 1,
    encode_line_action((0, 1), 1.0, 6) returned 3.0 and a three-pip tile was read by its first two;
    None or a bare number were a TypeError or an IndexError deep inside."""
    import numpy as np

    from domino_env.encoding.line import decode_line_action, encode_line_action
    from domino_env.encoding.mexican_train import decode_action, encode_action

    refused = [
        lambda: tile_index(1.5, 2, 6), lambda: tile_index(None, 2, 6), lambda: tile_index(True, 2, 6),
        lambda: tile_from_index(1.5, 6), lambda: tile_from_index(None, 6),
        lambda: encode_action((0,), 0, 4, 12), lambda: encode_action(5, 0, 4, 12),
        lambda: encode_action((0, 1, 5), 0, 4, 12), lambda: encode_action((0, 1), True, 4, 12),
        lambda: encode_line_action((0, 1), 1.0, 6), lambda: encode_line_action((0, 1), True, 6),
        lambda: encode_line_action((0, 1, 5), 0, 6),
        lambda: decode_action(1.7, 4, 12), lambda: decode_action("3", 4, 12), lambda: decode_action(None, 4, 12),
        lambda: decode_line_action(3.0, 6),
    ]  # fmt: skip
    for call in refused:
        with pytest.raises(DominoError, match="integer|slot must be 0..4|end 0 or 1"):
            call()
    # numpy integers and arrays of two pips are integers
    assert tile_index(np.int64(1), np.int32(2), 6) == 8 and tile_from_index(np.int64(8), 6) == (1, 2)
    assert encode_action(np.array([1, 2]), np.int64(0), 4, 12) == encode_action((1, 2), 0, 4, 12)
    assert type(encode_line_action((0, 1), np.int64(1), 6)) is int
    assert decode_line_action(np.array(3), 6) == decode_line_action(3, 6) == ("place", (0, 1), 1)


def test_plain_int_tiles_skip_the_abstract_base_class_check(monkeypatch):
    """tile_index, tile_from_index and tile_pair (every tile of a deal is read through the last
    two) check Python ints without as_int's isinstance(x, numbers.Integral): that check made tile_index
    7x slower and reading a deal 1.5x slower. Numpy integers still go through it."""
    from domino_env.core import tiles
    from domino_env.core.deal import TileReader

    real = tiles.as_int
    monkeypatch.setattr(tiles, "as_int", lambda value: pytest.fail(f"ABC check of {value!r}"))
    assert tiles.tile_index(7, 3, 12) == tiles.tile_index(3, 7, 12) == 40
    assert tiles.tile_from_index(40, 12) == (3, 7)
    assert tiles.tile_pair([3, 7]) == tiles.tile_pair((3, 7)) == (3, 7)
    assert TileReader(12).tile([7, 3], "hand 0") == 40
    monkeypatch.setattr(tiles, "as_int", real)
    assert tiles.tile_index(np.int64(3), 7, 12) == 40 and tiles.tile_pair([np.int8(3), 7]) == (3, 7)
    with pytest.raises(DominoError, match="integers"):
        tiles.tile_pair([True, 7])


def test_0d_integer_arrays_are_integers_as_check_action_takes_them():
    """0-d integer arrays (what SB3's predict returns; check_action takes them) worked as seats,
    pips, indices, ends and player counts before the integer checks of 5777e3d / aa5d2a4 /
    e95b988, which refused them; decode_action kept taking them. A 0-d bool or float array, a
    numpy bool and a 1-d array stay refused."""
    from domino_env.core.config import LineConfig
    from domino_env.core.line import LineState
    from domino_env.core.mexican_train import MexicanTrainState
    from domino_env.core.tiles import tile_pair
    from domino_env.encoding.line import encode_line_action
    from domino_env.encoding.mexican_train import encode_action

    i = np.array
    assert tile_index(i(3), i(7, np.uint8), 12) == 40 and type(tile_index(i(3), 7, 12)) is int
    assert tile_from_index(i(40), 12) == (3, 7) and tile_pair([i(3), np.int16(7)]) == (3, 7)
    assert MexicanTrainConfig().dealt_hand_size(i(3)) == MexicanTrainConfig().dealt_hand_size(3)
    assert encode_line_action((1, 2), i(1), 6) == encode_line_action((1, 2), 1, 6)
    assert encode_action((1, 2), i(4), 4, 12) == encode_action((1, 2), 4, 4, 12)
    mexican = MexicanTrainState.new_game(MexicanTrainConfig(), np.random.default_rng(0))
    line = LineState.new_game(LineConfig(), np.random.default_rng(0))
    assert mexican.hand_tiles(i(2)) == mexican.hand_tiles(2) and mexican.open_end(i(4)) == mexican.open_end(4)
    assert line.hand_size(i(3)) == line.hand_size(3) == 7
    for bad in (i(True), i(1.0), i([1]), np.True_):
        for call, args in ((tile_index, (bad, 7, 12)), (tile_from_index, (bad, 12)), (mexican.hand_tiles, (bad,)),
                           (encode_line_action, ((1, 2), bad, 6)), (encode_action, ((1, 2), bad, 4, 12)),
                           (tile_pair, ([bad, 7],))):  # fmt: skip
            with pytest.raises(DominoError):
                call(*args)
        with pytest.raises(ConfigError, match="'players'"):
            MexicanTrainConfig().dealt_hand_size(bad)


def test_a_tile_whose_second_pip_is_not_an_integer_is_refused_as_a_pair():
    """tile_pair checks both pips: a deal's [3, 7.5], [3, True], [3, None] or [3, "7"] is a DealError
    naming the hand, and a numpy second pip comes back a plain int. An object with ``tolist`` that
    is not an array (array.array) is not a tile. Kills: the fast path's ``type(tile[1]) is int``
    read as ``tile[0]`` (a float second pip got through to tile_index as a DominoError, None or a
    string as a TypeError) and ``hasattr(tile, "shape")`` made optional (core/tiles.py)."""
    import array

    from domino_env.core.deal import TileReader
    from domino_env.core.errors import DealError
    from domino_env.core.tiles import tile_pair

    for bad in (7.5, True, None, "7"):
        with pytest.raises(DominoError, match=re.escape(f"a tile must be a pair of integers (a, b), got [3, {bad!r}]")):
            tile_pair([3, bad])
        with pytest.raises(DealError, match=re.escape(f"hand of seat 0: a tile must be a pair of integers [a, b], got [3, {bad!r}]")):
            TileReader(9).tile([3, bad], "hand of seat 0")
    pair = tile_pair([3, np.int64(7)])
    assert pair == (3, 7) and type(pair[0]) is int and type(pair[1]) is int
    assert tile_pair(np.array([3, 7])) == (3, 7) and TileReader(9).tile((np.int8(7), 3), "boneyard") == 31
    with pytest.raises(DominoError, match="a tile must be a pair of integers"):
        tile_pair(array.array("b", [3, 7]))


def test_pip_value_double_blank():
    assert pip_value((3, 4)) == 7
    assert pip_value((0, 0)) == 0
    assert pip_value((0, 0), double_blank_points=10) == 10


def test_set_tables_of_the_double_2_set_by_hand():
    """SetTables of the double-2 set, tiles 0..5 = 0-0, 0-1, 0-2, 1-1, 1-2, 2-2: one pip mask per
    pip 0..2 (rollout agents size their tables by it), the doubles' mask and the values with the
    0-0 worth double_blank_points. Kills: ``[0] * (max_pip + 1)`` one mask too long (core/tiles.py)."""
    from domino_env.core.tiles import SetTables, set_tables

    t = SetTables(2, double_blank_points=10)
    assert t.tiles == ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)) and t.num_tiles == 6
    assert t.pip_masks == [0b000111, 0b011010, 0b110100]
    assert t.double_mask == 0b101001
    assert t.values == (10, 1, 2, 2, 3, 4) and set_tables(2).values == (0, 1, 2, 2, 3, 4)
    assert set_tables(2, 10).pip_masks == t.pip_masks and set_tables(2, 10) is set_tables(2, 10)


def test_default_hand_size_formula():
    """1.1 seed 000: hand = floor((tiles - 1 - 2 x players) / players)."""
    cfg = MexicanTrainConfig()
    assert cfg.dealt_hand_size(4) == 20
    for n, p in itertools.product((9, 12, 15, 18), range(2, 9)):
        cfg = MexicanTrainConfig(max_pip=n, num_players=p)
        assert cfg.dealt_hand_size(p) == (tile_count(n) - 1 - 2 * p) // p


def test_sin_monte_hand_size_formula():
    """1.1 with use_boneyard=False (1.7): floor((tiles - 1) / players) with either station_source
    (double-12, 4 players: 22 each), for the seats still in the game too. Only the equal-split
    formula was checked exactly; one tile more or less went unnoticed."""
    assert MexicanTrainConfig(use_boneyard=False).dealt_hand_size(4) == 22
    for n, p, source in itertools.product((9, 12, 15, 18), range(2, 9), ("set_aside", "highest_held")):
        cfg = MexicanTrainConfig(max_pip=n, num_players=p, use_boneyard=False, station_source=source)
        assert [cfg.dealt_hand_size(k) for k in range(2, p + 1)] == [(tile_count(n) - 1) // k for k in range(2, p + 1)]


@pytest.mark.parametrize(
    "field,value",
    [
        ("num_players", 1),
        ("num_players", 9),
        ("max_pip", 6),
        ("doubles", "bogus"),
        ("first_turn", "never"),
        ("drawn_tile", "keep"),
        ("marker_removal", "x"),
        ("station_source", "lowest"),
        ("blocked_round", "replay"),
        ("game_end", "forever"),
        ("use_boneyard", "yes"),
        ("double_blank_points", -1),
        ("elimination_limit", 0),
        ("first_player", 4),
        ("hand_size", 0),
        ("hand_size", 23),
    ],
)
def test_config_errors_name_the_field(field, value):
    with pytest.raises(ConfigError) as err:
        from_preset(**{field: value})
    assert err.value.field == field
    assert repr(value) in str(err.value) and field in str(err.value)
    assert isinstance(err.value, ValueError)


def test_unknown_field_and_preset():
    with pytest.raises(ConfigError, match="colour"):
        from_preset(colour="red")
    with pytest.raises(ConfigError, match="preset"):
        from_preset("klondike")


def test_presets_and_round_trip():
    """1.8: presets differ from the default exactly in their listed fields; to/from dict."""
    for name, (_source, fields) in PRESETS.items():
        cfg = from_preset(name)
        default = MexicanTrainConfig()
        for key, value in fields.items():
            assert getattr(cfg, key) == value
        assert cfg.preset == name
        differing = {k for k in cfg.to_dict() if getattr(cfg, k) != getattr(default, k)} - {"preset"}
        assert differing == {k for k, v in fields.items() if getattr(default, k) != v}
        assert MexicanTrainConfig.from_dict(cfg.to_dict()) == cfg
    assert from_preset("tren_mexicano", doubles="satisfy").doubles == "satisfy"


def test_highest_held_needs_two_tiles_a_hand():
    """The station comes out of its holder's hand (docs/rules.md §1.7): with one tile a hand that
    hand would be empty (the round then ran from an empty hand and its record could not replay)."""
    with pytest.raises(ConfigError, match="at least 2 with station_source='highest_held'") as err:
        MexicanTrainConfig(num_players=2, max_pip=9, station_source="highest_held", hand_size=1)
    assert err.value.field == "hand_size"
    assert MexicanTrainConfig(num_players=2, max_pip=9, station_source="highest_held", hand_size=2).hand_size == 2
    MexicanTrainConfig(num_players=2, max_pip=9, hand_size=1)  # set aside: the station is not dealt


@pytest.mark.parametrize("preset", [["x"], {"a": 1}, 3])
def test_a_preset_that_is_not_a_name_is_a_config_error(preset):
    from domino_env.core.config import line_from_preset
    from domino_env.envs import cuban_v0, line_v0, mexican_train_v0

    for make in (
        lambda: MexicanTrainConfig(preset=preset),
        lambda: from_preset(preset),
        lambda: line_from_preset(preset),
        lambda: mexican_train_v0.raw_env(preset=preset),
        lambda: line_v0.raw_env(preset=preset),
        lambda: cuban_v0.raw_env(preset=preset),
    ):
        with pytest.raises(ConfigError) as err:  # was TypeError (unhashable) for a list or dict
            make()
        assert err.value.field == "preset"


def test_the_game_ids_take_preset_none_as_their_own_preset():
    from domino_env.envs import block_v0, cuban_v0, draw_v0

    for module, name in ((block_v0, "block"), (draw_v0, "draw"), (cuban_v0, "cuban")):
        assert module.raw_env(preset=None).config.preset == name  # as line_v0 and mexican_train_v0 do
    import gymnasium

    from domino_env.wrappers import block_single_agent

    for name in ("Block", "Draw", "Cuban"):  # the single-agent gymnasium ids too
        assert gymnasium.make(f"dominoes/{name}-v0", preset=None).unwrapped.aec.config.preset == name.lower()
    assert block_single_agent(preset=None).aec.config.preset == "block"


def test_a_preset_value_the_overrides_make_invalid_is_named_as_the_presets():
    """gymnasium.make("dominoes/Cuban-v0", max_pip=6) blamed a hand_size of 10 the user never gave."""
    from domino_env.core.config import line_from_preset

    with pytest.raises(ConfigError, match=r"'hand_size': got 10; allowed: an integer from 1 to 7 \(the cuban "
                       r"preset's hand_size does not fit the other values given: give hand_size too\)") as info:  # fmt: skip
        line_from_preset("cuban", max_pip=6)
    assert info.value.field == "hand_size" and info.value.value == 10
    assert line_from_preset("cuban", max_pip=6, hand_size=7).hand_size == 7
    with pytest.raises(ConfigError, match=r"allowed: an integer from 1 to 7$"):  # given by the user: no preset note
        line_from_preset("cuban", max_pip=6, hand_size=8)
    with pytest.raises(ConfigError, match=r"'hand_size': got 0; allowed: an integer from 1 to 91$"):
        from_preset("tren_mexicano", hand_size=0)


def test_a_preset_keyword_other_than_the_preset_named_is_refused():
    """from_preset(preset="novelty") built the default preset, silently ignoring the keyword (the
    property tests' from_preset(**kwargs) never played the presets they drew)."""
    from domino_env.core.config import line_from_preset

    for build, wrong in ((from_preset, "novelty"), (line_from_preset, "cuban")):
        with pytest.raises(ConfigError, match="give the preset first") as info:
            build(preset=wrong)
        assert info.value.field == "preset" and info.value.value == wrong
    assert from_preset("novelty", preset="novelty").station_source == "highest_held"  # the same name: fine
    assert line_from_preset("draw", preset="draw").use_boneyard


def test_from_dict_refuses_what_is_not_a_dict():
    """from_dict(None) was a TypeError, from_dict("abc") another, and from_dict([]) the default rules."""
    from domino_env.core.config import LineConfig

    for cls in (MexicanTrainConfig, LineConfig):
        for bad in (None, [], "abc", [("max_pip", 9)]):
            with pytest.raises(ConfigError) as info:
                cls.from_dict(bad)
            assert info.value.field == "data"
        assert cls.from_dict(cls().to_dict()) == cls()


def test_dealt_hand_size_refuses_a_player_count_no_round_deals_to():
    """(0) was a ZeroDivisionError, (1) a hand of 88, and with the table rule a KeyError: a round
    deals to 2 .. num_players seats (fewer after eliminations)."""
    for cfg in (MexicanTrainConfig(), MexicanTrainConfig(hand_size_rule="table"), MexicanTrainConfig(use_boneyard=False)):
        for bad in (0, 1, -2, 5, 9, 2.0, True, None, "3"):
            with pytest.raises(ConfigError, match=r"'players'.*an integer from 2 to num_players \(4\)") as info:
                cfg.dealt_hand_size(bad)
            assert info.value.field == "players" and info.value.value == bad
        assert [cfg.dealt_hand_size(p) for p in (2, 3, 4)] == [cfg.dealt_hand_size(np.int64(p)) for p in (2, 3, 4)]
    assert MexicanTrainConfig(hand_size_rule="table", num_players=8).dealt_hand_size(8) == 11


@pytest.mark.parametrize("config", [MexicanTrainConfig(num_players=4, hand_size=12, first_player=1),
                                    LineConfig(num_players=4, annul_doubles=5)])  # fmt: skip
def test_every_integer_and_true_false_field_takes_numpy_values_as_plain_ones(config):
    """Read from the dataclass: a new int field was refused as a numpy integer until it was added
    to a hand-kept list of names (a contributor's trial found it)."""
    import dataclasses

    checked = 0
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if isinstance(value, bool):
            numpy_value = np.bool_(value)
        elif isinstance(value, int):
            numpy_value = np.int64(value)
        else:
            continue
        rebuilt = dataclasses.replace(config, **{field.name: numpy_value})
        assert type(getattr(rebuilt, field.name)) is type(value) and rebuilt == config, field.name
        checked += 1
    assert checked >= 6


@pytest.mark.parametrize(
    ("cls", "fits", "one_past", "allowed"),
    [
        (MexicanTrainConfig, {"num_players": 8}, {"num_players": 9}, "an integer from 2 to 8"),
        (MexicanTrainConfig, {"double_blank_points": 1000}, {"double_blank_points": 1001}, "an integer from 0 to 1000"),
        (MexicanTrainConfig, {"elimination_limit": 10**6}, {"elimination_limit": 10**6 + 1}, "an integer from 1 to 1000000"),
        (MexicanTrainConfig, {"first_player": 3}, {"first_player": 4}, "an integer from 0 to 3"),
        (MexicanTrainConfig, {"num_players": 2, "max_pip": 9, "hand_size": 27}, {"num_players": 2, "max_pip": 9, "hand_size": 28},
         "at most 27 tiles per hand: 2 players x 28 tiles + 1 station = 57 > 55 tiles in the double-9 set"),
        (LineConfig, {"num_players": 4}, {"num_players": 5}, "an integer from 2 to 4"),
        (LineConfig, {"num_players": 3, "hand_size": 9}, {"num_players": 3, "hand_size": 10}, "an integer from 1 to 9"),
        (LineConfig, {"max_pip": 9, "annul_doubles": 10}, {"max_pip": 9, "annul_doubles": 11}, "an integer from 1 to 10"),
        (LineConfig, {"target_score": 10**7}, {"target_score": 10**7 + 1}, "an integer from 1 to 10000000"),
        # and the lower ends
        (MexicanTrainConfig, {"double_blank_points": 0}, {"double_blank_points": -1}, "an integer from 0 to 1000"),
        (MexicanTrainConfig, {"elimination_limit": 1}, {"elimination_limit": 0}, "an integer from 1 to 1000000"),
        (MexicanTrainConfig, {"first_player": 0}, {"first_player": -1}, "an integer from 0 to 3"),
        (LineConfig, {"annul_doubles": 1}, {"annul_doubles": 0}, "an integer from 1 to 7"),
        (LineConfig, {"target_score": 1}, {"target_score": 0}, "an integer from 1 to 10000000"),
    ],
)  # fmt: skip
def test_integer_fields_take_their_bounds_and_name_them_one_past(cls, fits, one_past, allowed):
    """docs/envs.md's ranges at their ends: each bound is accepted, and one past it is refused
    naming the field and the range (the tests tried values far outside, or only checked that some
    ConfigError came: num_players=5 in a line game fails on its 7-tile hands even with a bound of 5)."""
    assert all(getattr(cls(**fits), k) == v for k, v in fits.items())
    field, value = next((k, v) for k, v in one_past.items() if fits.get(k) != v)
    with pytest.raises(ConfigError) as info:
        cls(**one_past)
    assert (info.value.field, info.value.value) == (field, value) and str(info.value).endswith(f"allowed: {allowed}")


def test_a_set_size_given_as_a_float_is_refused():
    """max_pip=12.0 equals a supported size (12.0 in (9, 12, 15, 18)): only the integer check
    refuses it, and no test gave one."""
    for cls, value, allowed in ((MexicanTrainConfig, 12.0, "one of (9, 12, 15, 18)"), (LineConfig, 6.0, "one of (6, 9, 12)"),
                                (LineConfig, np.float64(9), "one of (6, 9, 12)")):  # fmt: skip
        with pytest.raises(ConfigError) as info:
            cls(max_pip=value)
        assert info.value.field == "max_pip" and str(info.value).endswith(f"got {value!r}; allowed: {allowed}")


@pytest.mark.parametrize("field", ["use_boneyard", "teams"])
def test_line_true_false_fields_refuse_other_values(field):
    """LineConfig(teams=1) or use_boneyard="yes" (a truthy value, not a bool): refused as the
    Mexican Train config's use_boneyard is; only the latter was tested."""
    for value in (1, "yes", None):
        with pytest.raises(ConfigError) as info:
            LineConfig(**{field: value})
        assert (info.value.field, info.value.value) == (field, value) and str(info.value).endswith("allowed: True or False")
