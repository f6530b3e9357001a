"""What the belief sampler's public copy (``InformationState.public``, domino_env/core/belief.py)
keeps of a line position with tiles out of play: no hidden field, and no cached answer computed
from the real hands."""

from __future__ import annotations

import numpy as np

from domino_env.core.belief import InformationState
from domino_env.core.config import line_from_preset
from domino_env.core.line import LineState


def _block_position():
    """Block, 3 seats, 3 tiles each (19 tiles out of play): seat 0 must lead 6-6, seat 1 (no 6)
    passes, seat 2 plays 6-3; seat 0 is to move. Doubles dealt: 2, 1 and 2."""
    cfg = line_from_preset("block", num_players=3, hand_size=3)
    hands = [[[6, 6], [6, 5], [1, 1]], [[5, 5], [5, 4], [0, 1]], [[4, 4], [2, 2], [6, 3]]]
    state = LineState.new_game(cfg, None, {"hands": hands})
    tiles = state._t.tiles
    state.apply(2 * tiles.index((6, 6)))
    state.apply(state.pass_action)
    state.apply(next(a for a in state.legal_actions() if a // 2 == tiles.index((3, 6))))
    assert state.current_player == 0 and state.doubles_dealt == [2, 1, 2]
    assert state.out_of_play.bit_count() == 19 and not any(state.first_turn_pending)
    return state


def test_the_public_copy_erases_the_tiles_out_of_play_and_the_doubles_dealt_to_the_others():
    """The class docstring: other hands empty, boneyard empty, nothing out of play; the doubles
    dealt to another seat are its hidden hand's too (0 kept for them, the observer's own 2 kept),
    and a sample of seats past their first turn keeps those zeros. Kills: ``out_of_play`` or
    ``doubles_dealt`` left as the real state's, the others' doubles set to 1."""
    state = _block_position()
    info = InformationState.from_state(state, 0)
    pub = info.public
    assert pub.out_of_play == 0 and pub.boneyard == [] and pub.hands[1:] == [0, 0]
    assert pub.doubles_dealt == [2, 0, 0]
    sample = info.sample(np.random.default_rng(0))
    assert sample.doubles_dealt == [2, 0, 0]
    assert sample.out_of_play.bit_count() == 19 and sample.out_of_play != state.out_of_play


def test_samples_list_the_legal_actions_of_the_sampled_hands_not_the_real_ones():
    """Seat 1 observes while seat 0 is to move and the real state has cached seat 0's legal actions
    (6-5 on the 6): each sample's legal actions are computed from seat 0's sampled hand (the 6
    or 3 tiles it holds there, else a pass). Kills: the real state's cached legal list kept in the
    public copy."""
    state = _block_position()
    tiles = state._t.tiles
    assert [a // 2 for a in state.legal_actions()] == [tiles.index((5, 6))]
    info = InformationState.from_state(state, 1)
    rng = np.random.default_rng(3)
    passes = 0
    for _ in range(30):
        sample = info.sample(rng)
        hand = sample.hands[0]
        fit = [i for i in range(len(tiles)) if hand >> i & 1 and {3, 6} & set(tiles[i])]
        legal = sample.legal_actions()
        if fit:
            assert sorted({a // 2 for a in legal}) == fit
        else:
            assert legal == [sample.pass_action]
            passes += 1
    assert 0 < passes < 30
