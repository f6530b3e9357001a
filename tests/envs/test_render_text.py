"""The text picture (``ansi`` render mode) names the doubles to cover and their order."""

from __future__ import annotations

import re

import numpy as np
import pytest

from domino_env.core.errors import DominoError
from domino_env.envs import block_v0, line_v0, mexican_train_v0
from domino_env.envs.mexican_train_v0 import raw_env
from domino_env.wrappers import line_single_agent, mexican_train_single_agent


def _play(env, text: str) -> None:
    """Apply the legal action described as ``text``."""
    legal = {env.game_state.describe_action(a): a for a in env.game_state.legal_actions()}
    assert text in legal, (text, sorted(legal))
    env.step(legal[text])


def test_open_doubles_are_numbered_and_the_own_double_to_cover_is_named():
    env = raw_env(render_mode="ansi", num_players=3, max_pip=9)
    deal = {
        "hands": [[[4, 9], [4, 4], [1, 2]], [[8, 9], [0, 0], [1, 1]], [[7, 9], [0, 3], [2, 2]]],
        "boneyard": [[3, 5], [6, 6], [5, 6]],
        "station": [9, 9],
        "first_player": 0,
    }
    env.reset(options={"deal": deal})
    assert "to play: seat 0 (free)" in env.render()
    _play(env, "place 4-9 on own train")
    _play(env, "place 8-9 on own train")
    _play(env, "place 7-9 on own train")
    _play(env, "place 4-4 on own train")  # satisfy: seat 0 must now cover its own double
    text = env.render()
    assert "seat 0 : [9|4] [4|4] -> open end 4  (hand 1, score 0, DOUBLE TO COVER)" in text
    assert "to play: seat 0 (cover own double)" in text
    _play(env, "draw")  # draws 3-5: it does not cover 4-4 either
    _play(env, "pass")  # the double is left open: it obliges the others now
    text = env.render()
    assert "seat 0 : [9|4] [4|4] -> open end 4  (hand 2, score 0, MARKER, OPEN DOUBLE 1)" in text
    assert "DOUBLE TO COVER" not in text
    # seat 1's turn is "free" by phase, but the open double obliges it (it said "(free)")
    assert "to play: seat 1 (open double to cover)" in text
    assert {env.game_state.describe_action(a) for a in env.game_state.legal_actions()} == {"draw"}


@pytest.mark.parametrize("doubles, obliged", [("satisfy", True), ("double_double", True), ("chain", False), ("no_cover", False)])
def test_only_a_double_its_player_must_cover_is_labelled_to_cover(doubles, obliged):
    """docs/rules.md §1.4: under chain and no_cover a double gives one more placement anywhere;
    the text, the picture and the replay page labelled it "DOUBLE TO COVER" / "cover it"
    (a yellow outline) as under satisfy, where the player must cover it."""
    from domino_env.render_image import OWN_DOUBLE
    from domino_env.train.replay_html import mexican_train_frame

    env = raw_env(render_mode="ansi", num_players=3, max_pip=9, doubles=doubles, first_turn="any")
    env.reset(options={"deal": {
        "hands": [[[4, 9], [4, 4], [1, 2], [3, 9]], [[8, 9], [0, 0], [1, 1], [3, 3]],
                  [[7, 9], [0, 3], [2, 2], [6, 6]]],
        "boneyard": [[3, 5], [6, 8], [5, 6]], "station": [9, 9], "first_player": 0,
    }})  # fmt: skip
    for text in ("place 4-9 on own train", "place 8-9 on own train", "place 7-9 on own train",
                 "place 4-4 on own train"):  # fmt: skip
        _play(env, text)
    state = env.game_state
    assert state.current_player == 0 and state.turn_doubles == [0]  # seat 0 just placed 4-4
    legal = {state.describe_action(a) for a in state.legal_actions()}
    assert ("place 3-9 on the Mexican train" in legal) is not obliged, legal  # free to play elsewhere
    assert state.own_doubles_to_cover() == ([0] if obliged else [])
    assert ("DOUBLE TO COVER" in env.render()) is obliged
    assert mexican_train_frame(state)["trains"][0]["cover"] is obliged
    picture = env.render_image(0)
    assert bool((picture == np.array(OWN_DOUBLE, dtype=np.uint8)).all(axis=-1).any()) is obliged


def test_the_replay_page_names_the_phase_as_the_text_does():
    """The browser viewer's frames said "free" where the text says "open double to cover"."""
    from domino_env.train.replay_html import frames_from_record

    env = raw_env(num_players=3, max_pip=9)
    env.reset(options={"deal": {
        "hands": [[[4, 9], [4, 4], [1, 2]], [[8, 9], [0, 0], [1, 1]], [[7, 9], [0, 3], [2, 2]]],
        "boneyard": [[3, 5], [6, 6], [5, 6]], "station": [9, 9], "first_player": 0,
    }})  # fmt: skip
    for text in ("place 4-9 on own train", "place 8-9 on own train", "place 7-9 on own train",
                 "place 4-4 on own train", "draw", "pass"):  # fmt: skip
        _play(env, text)
    phases = [f["phase"] for f in frames_from_record(env.to_record())]
    assert phases[0] == "free" and phases[4] == "cover own double" and phases[-1] == "open double to cover"


@pytest.mark.parametrize("game", ["mexican_train", "cuban"])
def test_a_viewer_that_is_not_a_seat_is_refused_by_both_pictures(game):
    """A checker's trial: ``render_text(-1)`` showed seat 3's hand as "hand of seat -1" (a list
    index), ``render_text(4)`` was an IndexError, and ``render_image(2.5)`` / ``("1")`` drew
    seat 2's / seat 1's view (``int()``)."""
    env = raw_env(num_players=4) if game == "mexican_train" else line_v0.raw_env(preset=game)
    env.reset(seed=3)
    assert env.render_text(np.int64(2)) == env.render_text(2) and "hand of seat 2: [" in env.render_text(2)
    assert env.render_text(np.array(2)) == env.render_text(2)  # a 0-d array (refused for a day)
    assert (env.render_image(np.array(1)) == env.render_image(1)).all()
    for viewer in (-1, 4, 2.5, "1", True):
        with pytest.raises(DominoError, match=re.escape(f"viewer must be a seat 0..3 (an integer) or None (the seat to play), got {viewer!r}")):
            env.render_text(viewer)
        with pytest.raises(DominoError, match="viewer must be a seat 0..3"):
            env.render_image(viewer)


@pytest.mark.parametrize("make", [mexican_train_v0.raw_env, block_v0.env, mexican_train_single_agent, line_single_agent])
def test_render_without_a_render_mode_warns_as_gymnasium_envs_do(make, capsys):
    """``render()`` with no render mode returned None in silence; Gymnasium's and PettingZoo's
    envs warn that no mode was given. Nothing is printed (that is the human mode's)."""
    env = make()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="calling render method without specifying any render mode"):
        assert env.render() is None
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("make", [mexican_train_v0.raw_env, block_v0.raw_env, mexican_train_single_agent, line_single_agent])
def test_render_before_reset_says_so_in_the_raw_envs_and_the_adapter(make):
    """The single-agent adapter's ``ansi`` render returned None in silence before the first reset,
    where the raw AEC env returns this line (and a blank picture saying it in ``rgb_array``).
    (``env()`` and ``gymnasium.make`` refuse it, as PettingZoo's and Gymnasium's order checks do.)"""
    env = make(render_mode="ansi")
    assert env.render() == "(reset() has not been called)"
    env.reset(seed=0)
    assert "hand" in env.render()
