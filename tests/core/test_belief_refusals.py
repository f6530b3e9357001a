"""The information states :meth:`InformationState.from_state` refuses to build, because the seat
cannot tell what is hidden yet or nothing is hidden any more (hand-built positions; the other
refusals, of a seat outside the table or a Mexican Train draw another seat cannot see, are in
``test_belief.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.core.belief import BeliefError, InformationState
from domino_env.core.config import MexicanTrainConfig, line_from_preset
from domino_env.core.line import LineState
from domino_env.core.mexican_train import MexicanTrainState


def test_refuses_a_round_that_is_over():
    """Once a round ends every hand is shown: there is nothing to sample, for any seat. Kills:
    deleting the ``state.round_over`` check of from_state (it built an information state)."""
    cfg = MexicanTrainConfig(num_players=2, first_player=0)
    state = MexicanTrainState.new_game(cfg, None, {"hands": [[[1, 12]], [[2, 3]]], "boneyard": [], "station": [12, 12]})
    state.apply(state.legal_actions()[0])  # seat 0 places its only tile: the round is over
    assert state.round_over
    for seat in (0, 1):
        with pytest.raises(BeliefError, match=r"^the round is over: nothing is hidden any more$"):
            InformationState.from_state(state, seat)


def test_a_forced_lead_not_yet_led_is_refused_to_every_seat_but_the_leader():
    """docs/rules.md §2.1: the first round's lead is forced on the holder of the highest double
    (seat 0's 6-6 here); until it is on the table the other seats have nothing to sample from
    (the leader's decision is not theirs), the leader does, and once it is led so does everyone.
    Kills: deleting the ``forced_lead`` check of from_state."""
    cfg = line_from_preset("block", num_players=2)
    state = LineState.new_game(cfg, None, {"hands": [[[6, 6], [1, 2]], [[3, 6], [0, 5]]], "boneyard": []})
    assert state.current_player == 0 and state.forced_lead >= 0
    with pytest.raises(BeliefError, match=r"^seat 0 has not led its forced lead yet; nothing to sample for seat 1$"):
        InformationState.from_state(state, 1)
    assert InformationState.from_state(state, 0).sample(np.random.default_rng(0)).hands[0] == state.hands[0]
    state.apply(state.legal_actions()[0])  # 6-6 is led; seat 1 (3-6) is to move
    assert InformationState.from_state(state, 1).sample(np.random.default_rng(0)).hands[1] == state.hands[1]


def test_one_try_is_the_smallest_max_tries_and_is_taken():
    """``max_tries`` is refused below 1 only: with no constraint to redraw for (no known lacks, no
    forced lead, nothing placed), one draw always gives a sample, for a Python or numpy 1.
    Kills: ``max_tries < 1`` read as ``<= 1`` or ``< 2`` (one try was refused)."""
    cfg = MexicanTrainConfig(num_players=2, first_player=0)
    deal = {"hands": [[[0, 1]], [[2, 3]]], "boneyard": [[5, 6], [7, 8]], "station": [12, 12]}
    state = MexicanTrainState.new_game(cfg, None, deal)
    info = InformationState.from_state(state, 0)
    assert info.forbidden == [0, 0] and info.needs == []
    for tries in (1, np.int64(1)):
        sample = info.sample(np.random.default_rng(3), max_tries=tries)
        assert sample.hands[0] == state.hands[0] and sample.hands[1].bit_count() == 1
        assert len(sample.boneyard) == 2 and not sample.hands[1] & state.hands[0]


def test_a_hidden_draw_or_forced_lead_of_tile_0_is_refused_too():
    """Tile 0 (0-0) is a tile like the others: a Mexican Train seat that has just drawn 0-0, and a
    line-game leader that must still lead 0-0, hide it from the other seat as any tile. Kills:
    ``drawn_tile >= 0`` or ``forced_lead >= 0`` read as ``> 0`` or ``>= 1``."""
    cfg = MexicanTrainConfig(num_players=2, first_player=0)
    deal = {"hands": [[[1, 2]], [[2, 12]]], "boneyard": [[0, 0]], "station": [12, 12]}  # seat 1 can still place
    state = MexicanTrainState.new_game(cfg, None, deal)
    state.apply(state.draw_action)  # seat 0 draws 0-0 and still acts
    assert state.drawn_tile == 0 and state.current_player == 0
    with pytest.raises(BeliefError, match=r"^seat 0 has just drawn a tile seat 1 cannot see"):
        InformationState.from_state(state, 1)
    line = LineState.new_game(line_from_preset("block", num_players=2, hand_size=2), None,
                              {"hands": [[[0, 0], [1, 2]], [[0, 3], [2, 4]]]})  # fmt: skip
    assert line.current_player == 0 and line.forced_lead == 0
    with pytest.raises(BeliefError, match=r"^seat 0 has not led its forced lead yet; nothing to sample for seat 1$"):
        InformationState.from_state(line, 1)
