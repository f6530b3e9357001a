"""``from_dict`` applies the dict's preset (docs/envs.md "Configuration"): a user trial found that
``MexicanTrainConfig.from_dict({"preset": "tren_mexicano"})`` kept the default rules under the
preset's name (and a line game's env id follows the name), where ``from_preset`` and
``records.record_config`` start from the preset's values."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino_env.core.config import (
    LINE_PRESETS,
    PRESETS,
    LineConfig,
    MexicanTrainConfig,
    from_preset,
    line_from_preset,
)
from domino_env.core.errors import ConfigError

BUILD = {MexicanTrainConfig: (PRESETS, from_preset), LineConfig: (LINE_PRESETS, line_from_preset)}


@pytest.mark.parametrize("cls", [MexicanTrainConfig, LineConfig])
def test_a_dict_naming_only_a_preset_gives_that_presets_rules(cls):
    presets, build = BUILD[cls]
    for name, (_source, values) in presets.items():
        config = cls.from_dict({"preset": name})
        assert config == build(name) and config.preset == name
        for field, value in values.items():
            assert getattr(config, field) == value, (name, field)
    assert MexicanTrainConfig.from_dict({"preset": "tren_mexicano"}).doubles == "chain"  # was 'satisfy'
    assert LineConfig.from_dict({"preset": "cuban"}).max_pip == 9  # was 6 (and hand_size 10 with it: refused)


def test_the_other_keys_override_the_presets_values():
    config = MexicanTrainConfig.from_dict({"preset": "tren_mexicano", "doubles": "satisfy", "num_players": 6})
    assert config == from_preset("tren_mexicano", doubles="satisfy", num_players=6)
    assert (config.doubles, config.game_end, config.num_players) == ("satisfy", "elimination", 6)
    line = LineConfig.from_dict({"preset": "draw", "num_players": 3})
    assert (line.num_players, line.use_boneyard, line.target_score) == (3, True, 5000)
    # without a preset key: the class's default preset, whose values are the defaults
    assert MexicanTrainConfig.from_dict({"max_pip": 9}) == MexicanTrainConfig(max_pip=9)
    assert LineConfig.from_dict({}) == LineConfig()


def test_refusals_name_the_field():
    """An unknown preset (or the other family's), an unknown field, and a preset value that the
    other keys make invalid (named as the preset's, as line_from_preset names it)."""
    for cls, data, field in (
        (MexicanTrainConfig, {"preset": "cuban"}, "preset"),
        (LineConfig, {"preset": "tren_mexicano"}, "preset"),
        (LineConfig, {"preset": None}, "preset"),
        (MexicanTrainConfig, {"preset": ["novelty"]}, "preset"),
        (MexicanTrainConfig, {"preset": "novelty", "colour": "red"}, "colour"),
    ):
        with pytest.raises(ConfigError) as info:
            cls.from_dict(data)
        assert info.value.field == field, data
    with pytest.raises(ConfigError, match=r"'hand_size': got 10; allowed: an integer from 1 to 7 \(the cuban "
                       r"preset's hand_size does not fit the other values given: give hand_size too\)$"):  # fmt: skip
        LineConfig.from_dict({"preset": "cuban", "max_pip": 6})


@pytest.mark.parametrize("cls", [MexicanTrainConfig, LineConfig])
def test_to_dict_round_trips_for_every_preset(cls):
    presets, build = BUILD[cls]
    for name in presets:
        config = build(name)
        assert cls.from_dict(config.to_dict()) == config
        # a config built field by field under a preset's name lists every field too
        spelled = cls(**{**cls().to_dict(), "preset": name})
        assert cls.from_dict(spelled.to_dict()) == spelled


MEXICAN_OVERRIDES = st.fixed_dictionaries(
    {},
    optional={
        "num_players": st.integers(2, 8),
        "max_pip": st.sampled_from([9, 12, 15, 18]),
        "hand_size_rule": st.sampled_from(["equal_split", "table"]),
        "first_turn": st.sampled_from(["own_train", "any"]),
        "doubles": st.sampled_from(["satisfy", "double_double", "chain", "no_cover"]),
        "drawn_tile": st.sampled_from(["must_play", "may_play"]),
        "marker_removal": st.sampled_from(["own_train_play", "next_turn"]),
        "station_source": st.sampled_from(["set_aside", "highest_held"]),
        "use_boneyard": st.booleans(),
        "use_mexican_train": st.booleans(),
        "blocked_round": st.sampled_from(["score", "void"]),
        "double_blank_points": st.integers(0, 1000),
        "game_end": st.sampled_from(["rounds", "elimination"]),
        "elimination_limit": st.integers(1, 10**6),
        "first_player": st.one_of(st.none(), st.integers(0, 1)),
    },
)
LINE_OVERRIDES = st.fixed_dictionaries(
    {},
    optional={
        "num_players": st.integers(2, 4),
        "max_pip": st.sampled_from([6, 9, 12]),
        "hand_size": st.integers(1, 7),
        "use_boneyard": st.booleans(),
        "teams": st.booleans(),
        "next_lead": st.sampled_from(["next_seat", "winner"]),
        "annul_doubles": st.one_of(st.none(), st.integers(1, 7)),
        "target_score": st.integers(1, 10**7),
    },
)


def _built(cls, name, overrides):
    """The config, or None where the drawn values do not fit together (teams with 3 seats)."""
    try:
        return BUILD[cls][1](name, **overrides)
    except ConfigError:
        return None


@settings(max_examples=150, deadline=None)
@given(
    family=st.sampled_from([(MexicanTrainConfig, tuple(PRESETS), MEXICAN_OVERRIDES),
                            (LineConfig, tuple(LINE_PRESETS), LINE_OVERRIDES)]),  # fmt: skip
    data=st.data(),
)
def test_property_overridden_configs_round_trip_and_read_back_as_the_preset_with_overrides(family, data):
    cls, names, overrides_strategy = family
    name = data.draw(st.sampled_from(names))
    overrides = data.draw(overrides_strategy)
    config = _built(cls, name, overrides)
    if config is None:  # from_dict refuses the same dict, naming a field
        with pytest.raises(ConfigError):
            cls.from_dict({"preset": name, **overrides})
        return
    assert cls.from_dict(config.to_dict()) == config
    assert cls.from_dict({"preset": name, **overrides}) == config
    # the plain constructor under the same name (the fields it was not given keep their
    # defaults): its to_dict lists every field, so it reads back unchanged too
    try:
        plain = cls(**{**overrides, "preset": name})
    except ConfigError:
        return
    assert cls.from_dict(plain.to_dict()) == plain


def test_the_constructor_records_the_preset_name_only_and_says_so():
    """The constructor keeps its defaults under a preset's name (it cannot tell a field left out
    from one given its default value, and from_preset builds through it with every field given):
    the field doc said the other fields "started from" the preset, which only the builders do."""
    from pathlib import Path

    from domino_env.core.config import FIELD_DOCS, LINE_FIELD_DOCS

    for cls, name, build in ((MexicanTrainConfig, "tren_mexicano", from_preset), (LineConfig, "cuban", line_from_preset)):
        labelled = cls(preset=name)
        assert {**labelled.to_dict(), "preset": None} == {**cls().to_dict(), "preset": None}
        assert labelled != build(name) and labelled.preset == name
        assert cls.from_dict(labelled.to_dict()) == labelled  # every field listed: read back as it is
        assert cls.from_dict({"preset": name}) == build(name)
        assert "the constructor does not apply" in " ".join(cls.__doc__.split())
    assert FIELD_DOCS["preset"].endswith("MexicanTrainConfig(preset=...) only records the name.")
    assert LINE_FIELD_DOCS["preset"].endswith("LineConfig(preset=...) only records the name.")
    page = " ".join((Path(__file__).resolve().parents[2] / "docs/envs.md").read_text().split())
    assert "The constructor does not apply a preset: `MexicanTrainConfig(preset=\"tren_mexicano\")`" in page
