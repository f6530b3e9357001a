"""The engines' entry points refuse a wrong config or random generator with a ConfigError naming
it (they failed deep inside with an AttributeError or TypeError: ``'int' object has no attribute
'integers'``)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from domino_env.core.config import LineConfig, MexicanTrainConfig, line_from_preset
from domino_env.core.errors import ConfigError, DealError, DominoError
from domino_env.core.line import LineState
from domino_env.core.mexican_train import MexicanTrainState

ENGINES = [(MexicanTrainState, MexicanTrainConfig(), LineConfig()), (LineState, LineConfig(), MexicanTrainConfig())]


@pytest.mark.parametrize("engine,config,other", ENGINES, ids=["mexican_train", "line"])
def test_new_game_names_a_wrong_config(engine, config, other):
    for bad in (None, {"num_players": 4}, other):
        with pytest.raises(ConfigError) as info:
            engine.new_game(bad, np.random.default_rng(0))
        assert info.value.field == "config"


@pytest.mark.parametrize("engine,config,other", ENGINES, ids=["mexican_train", "line"])
def test_new_game_and_the_next_round_name_a_wrong_generator(engine, config, other):
    for bad in (0, np.random.RandomState(0), "seed"):
        with pytest.raises(ConfigError) as info:
            engine.new_game(config, bad)
        assert info.value.field == "rng"
    with pytest.raises(DealError, match="random generator or an explicit deal"):  # None: a replay's
        engine.new_game(config, None)
    rng = np.random.default_rng(1)
    state = engine.new_game(config, rng)
    while not state.round_over:
        state.apply(state.legal_actions()[0])
    with pytest.raises(ConfigError) as info:
        state.start_next_round(7)
    assert info.value.field == "rng"
    if not state.game_over:
        state.start_next_round(rng)  # the refusal changed nothing
        assert not state.round_over


def test_a_replay_without_a_generator_still_deals_from_the_record():
    config = line_from_preset("block", num_players=2)
    deal = {"hands": [[[0, 0], [0, 1]], [[1, 1], [1, 2]]], "first_player": 0}
    assert LineState.new_game(config, None, deal).current_player == 0


def test_the_seat_views_refuse_a_seat_outside_the_table():
    """``hand_tiles(-1)`` read seat 3's hand and ``open_end(-1)`` the Mexican train's end;
    ``hand_tiles(9)`` and the line engine's ``hand_tiles(4)`` / ``missing_pips(7)`` were
    IndexErrors: a DominoError naming the argument and the valid numbers."""
    mexican = MexicanTrainState.new_game(MexicanTrainConfig(), np.random.default_rng(0))
    line = LineState.new_game(LineConfig(), np.random.default_rng(0))
    views = [
        (mexican, ("hand_tiles", "hand_size", "has_marker", "missing_pips"), "seat", 4),
        (mexican, ("open_end", "train_tiles"), "train", 5),
        (line, ("hand_tiles", "hand_size", "missing_pips"), "seat", 4),
    ]
    for state, names, arg, count in views:
        for name in names:
            view = getattr(state, name)
            for bad in (-1, count, 9, True, 1.0, "0", None):
                with pytest.raises(DominoError, match=rf"{arg} must be an integer 0\.\.{count - 1}.*got {bad!r}"):
                    view(bad)
            assert view(np.int64(count - 1)) == view(count - 1)  # numpy seats are taken
    assert mexican.open_end(4) == mexican.ends[4] and len(line.hand_tiles(3)) == 7


@pytest.mark.parametrize("engine,config,other", ENGINES, ids=["mexican_train", "line"])
def test_describe_action_refuses_a_seat_outside_the_table(engine, config, other):
    """The line engine's ``describe_action(action, seat)`` took any ``seat`` (it names an action
    the same for every seat), where Mexican Train's, and the line engine's other views, refuse one
    outside 0..P-1."""
    state = engine.new_game(config, np.random.default_rng(0))
    action = state.legal_actions()[0]
    for bad in (-1, 4, 9, True, 1.0, "0"):
        with pytest.raises(DominoError, match=rf"seat must be an integer 0\.\.3, got {bad!r}"):
            state.describe_action(action, bad)
    said = state.describe_action(action)
    assert said.startswith(("place ", "lead ")) and state.describe_action(action, np.int64(state.current_player)) == said


@pytest.mark.parametrize("engine,config,other", ENGINES, ids=["mexican_train", "line"])
def test_describe_action_refuses_an_action_that_is_not_an_integer(engine, config, other):
    """``describe_action(1.5)`` was a bare TypeError from a tuple index (and ``True`` named action
    1): a non-integer action is refused as ``step`` refuses it, numpy integers are taken."""
    from domino_env.core.errors import IllegalActionError

    state = engine.new_game(config, np.random.default_rng(0))
    action = state.legal_actions()[0]
    for bad in (1.5, None, "3", True, np.float64(2.0)):
        with pytest.raises(IllegalActionError, match=rf"an action must be an integer, got {re.escape(repr(bad))}"):
            state.describe_action(bad)
    assert state.describe_action(np.int64(action)) == state.describe_action(action)
    assert state.describe_action(np.array(action)) == state.describe_action(action)
    assert state.describe_action(10**9) == "out-of-range action 1000000000"

def test_the_unread_view_and_parameters_are_gone():
    """``pips_in_hand`` had no caller; ``_update_game``'s ``pips`` and ``check_no_deals_left``'s
    ``state`` were never read (both callers of the latter are updated)."""
    import inspect

    from domino_env.core.records import check_no_deals_left

    assert not hasattr(MexicanTrainState, "pips_in_hand")
    assert list(inspect.signature(MexicanTrainState._update_game).parameters) == ["self"]
    assert list(inspect.signature(check_no_deals_left).parameters) == ["deals"]
