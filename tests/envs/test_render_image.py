"""The ``rgb_array`` render mode: table pictures of every env (domino_env.render_image)."""

from __future__ import annotations

import copy
import os
import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import render_test

import domino_env  # noqa: F401  (registers the ids)
from domino_env import DominoError
from domino_env.core.errors import ConfigError
from domino_env.envs import block_v0, cuban_v0, draw_v0, line_v0, mexican_train_v0
from domino_env.render_image import image_size, pip_layout, save_png, table_image
from domino_env.wrappers import SingleAgentEnv

ENV_MODULES = {
    "mexican_train": (mexican_train_v0, {"num_players": 3, "max_pip": 9}),
    "block": (block_v0, {}),
    "draw": (draw_v0, {}),
    "cuban": (cuban_v0, {}),
}
GYM_IDS = ["dominoes/MexicanTrain-v0", "dominoes/Block-v0", "dominoes/Draw-v0", "dominoes/Cuban-v0"]


def _random_step(env, rng) -> None:
    obs = env.observe(env.agent_selection)
    legal = np.flatnonzero(obs["action_mask"])
    env.step(int(legal[rng.integers(len(legal))]))


def _check_picture(img, config) -> None:
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8
    assert img.ndim == 3 and img.shape[2] == 3
    assert img.shape[:2] == image_size(config)


@pytest.mark.parametrize("game", sorted(ENV_MODULES))
def test_rgb_array_shape_changes_after_a_move_and_after_the_round_end(game):
    module, kwargs = ENV_MODULES[game]
    env = module.raw_env(render_mode="rgb_array", **kwargs)
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    _check_picture(env.render(), env.config)  # before reset: a blank picture of the same size
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    before = env.render()
    _check_picture(before, env.config)
    assert len(np.unique(before.reshape(-1, 3), axis=0)) > 20  # tiles, pips and text, not a blank
    _random_step(env, rng)
    after = env.render()
    _check_picture(after, env.config)
    assert not np.array_equal(before, after)
    previous = after
    while not env.game_state.round_over:
        previous = env.render()
        _random_step(env, rng)
    final = env.render()
    _check_picture(final, env.config)
    assert not np.array_equal(previous, final)
    assert all(env.terminations.values())


@pytest.mark.parametrize("game", sorted(ENV_MODULES))
def test_pettingzoo_render_test_covers_rgb_array(game):
    module, kwargs = ENV_MODULES[game]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        render_test(lambda render_mode=None: module.env(render_mode=render_mode, **kwargs))


def _swap_hidden(deal: dict, seats: tuple[int, int]) -> dict:
    """The same deal with one tile swapped between two hands and the boneyard reversed."""
    other = copy.deepcopy(deal)
    a, b = seats
    other["hands"][a][0], other["hands"][b][0] = other["hands"][b][0], other["hands"][a][0]
    other["boneyard"] = other["boneyard"][::-1]
    return other


@pytest.mark.parametrize("game", ["mexican_train", "draw", "cuban"])
def test_positions_differing_only_in_hidden_tiles_give_the_same_observer_picture(game):
    module, kwargs = ENV_MODULES[game]
    env = module.raw_env(render_mode="rgb_array", **kwargs)
    env.reset(seed=11)
    deal = env.to_record()["deals"][0]
    p = env.config.num_players
    viewer = 0
    deal["first_player"] = viewer
    hidden = _swap_hidden(deal, (1, p - 1) if p > 2 else (1, 1))
    if p == 2:  # only one other hand: swap a tile of it with the boneyard instead
        hidden["hands"][1][0], hidden["boneyard"][0] = hidden["boneyard"][0], hidden["hands"][1][0]
    assert hidden != deal
    pictures = []
    for d in (deal, hidden):
        env.reset(options={"deal": d})
        assert env.game_state.current_player == viewer
        first = env.render()
        # the viewer's first move is the same in both positions (its hand is the same)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        pictures.append((first, env.render_image(viewer), env.render_image(viewer, all_hands=True)))
    (a0, a1, a_all), (b0, b1, b_all) = pictures
    assert np.array_equal(a0, b0)
    assert np.array_equal(a1, b1)
    assert not np.array_equal(a_all, b_all)  # the all-hands view does show the hidden tiles


def test_all_hands_and_viewer_change_what_is_face_up():
    env = mexican_train_v0.raw_env(num_players=3, max_pip=9)  # any render mode: render_image works
    env.reset(seed=2)
    seat = env.game_state.current_player
    own = env.render_image()
    assert np.array_equal(own, env.render_image(seat))
    assert not np.array_equal(own, env.render_image((seat + 1) % 3))
    assert not np.array_equal(own, env.render_image(all_hands=True))
    with pytest.raises(DominoError, match="viewer"):
        env.render_image(3)
    with pytest.raises(TypeError):
        table_image(object())


@pytest.mark.parametrize("module", [mexican_train_v0, cuban_v0], ids=["mexican_train", "cuban"])
def test_all_hands_must_be_a_flag_and_a_false_string_shows_no_hidden_hand(module):
    """``all_hands="False"`` (truthy) drew every hidden hand face up; it is refused, naming the field.
    0 / 1 and numpy bools are flags."""
    env = module.raw_env()
    env.reset(seed=2)
    for bad in ("False", "no", 2, None, 0.5):
        with pytest.raises(ConfigError, match=r"all_hands.*True \(every hand face up\) or False"):
            env.render_image(all_hands=bad)
    assert np.array_equal(env.render_image(all_hands=0), env.render_image())
    assert np.array_equal(env.render_image(all_hands=np.bool_(True)), env.render_image(all_hands=True))


@pytest.mark.parametrize("module", [mexican_train_v0, cuban_v0], ids=["mexican_train", "cuban"])
def test_an_all_hands_picture_without_a_viewer_labels_no_seat_you(module):
    """A replay's all-hands picture labelled the seat to play "(you)": it now matches no seat's
    own all-hands picture (each of those labels its viewer)."""
    env = module.raw_env()
    env.reset(seed=2)
    plain = env.render_image(all_hands=True)
    for seat in range(env.config.num_players):
        assert not np.array_equal(plain, env.render_image(seat, all_hands=True))


@pytest.mark.parametrize("value", range(19))
def test_pip_layout_has_value_distinct_pips_inside_the_half(value):
    pips = pip_layout(value)
    assert len(pips) == value and len(set(pips)) == value
    assert all(0.05 < x < 0.95 and 0.05 < y < 0.95 for x, y in pips)


@pytest.mark.parametrize(
    "make, kwargs",
    [
        (mexican_train_v0.raw_env, {"num_players": 2, "max_pip": 12, "episode": "game"}),
        (mexican_train_v0.raw_env, {"num_players": 8, "max_pip": 18, "use_mexican_train": False}),
        (line_v0.raw_env, {"preset": "draw", "max_pip": 12, "num_players": 2}),
        (line_v0.raw_env, {"preset": "block", "max_pip": 9, "num_players": 3}),
    ],
)
def test_pictures_keep_their_size_through_long_games(make, kwargs, tmp_path):
    """Long trains, lines and hands are cut (with a +k badge) instead of growing the picture."""
    env = make(render_mode="rgb_array", **kwargs)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    while env.agents and steps < 600:
        if env.terminations[env.agent_selection]:
            env.step(None)
            continue
        _random_step(env, rng)
        steps += 1
        if steps % 25 == 0:
            _check_picture(env.render(), env.config)
    _check_picture(env.render(), env.config)
    save_png(env.render(), tmp_path / "last.png")
    assert (tmp_path / "last.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_gymnasium_ids_render_rgb_array_as_the_learner_sees_it(gym_id):
    g = gymnasium.make(gym_id, render_mode="rgb_array", learner_seat=1)
    assert "rgb_array" in g.metadata["render_modes"] and g.metadata["render_fps"] > 0
    g.reset(seed=0)
    img = g.render()
    inner = g.unwrapped
    assert isinstance(inner, SingleAgentEnv)
    _check_picture(img, inner.aec.config)
    assert np.array_equal(img, inner.aec.render_image(1))
    legal = np.flatnonzero(g.get_wrapper_attr("action_masks")())
    g.step(int(legal[0]))
    assert not np.array_equal(img, g.render())


@pytest.mark.parametrize("render_mode", [None, "ansi"])
def test_the_gymnasium_ids_draw_all_hands_or_a_seat_as_the_pictures_page_says(render_mode):
    """docs/pictures.md's env.unwrapped.render_image(all_hands=True) / (viewer=2) was an
    AttributeError on the Gymnasium ids (the adapter had no render_image)."""
    g = gymnasium.make("dominoes/MexicanTrain-v0", render_mode=render_mode, learner_seat=1)
    blank = g.unwrapped.render_image()  # before reset: the AEC env's blank picture
    g.reset(seed=0)
    aec = g.unwrapped.aec
    assert not np.array_equal(blank, g.unwrapped.render_image())
    assert np.array_equal(g.unwrapped.render_image(), aec.render_image(1))
    assert np.array_equal(g.unwrapped.render_image(viewer=2), aec.render_image(2))
    assert np.array_equal(g.unwrapped.render_image(all_hands=True), aec.render_image(all_hands=True))
    assert np.array_equal(g.unwrapped.render_image(3, all_hands=True), aec.render_image(3, all_hands=True))
    with pytest.raises(DominoError):
        g.unwrapped.render_image(viewer=4)


def test_the_adapter_draws_the_learners_hand_after_an_episode_that_leaves_another_seat_to_play():
    """Between steps the learner is the seat to play, so the seat to play's picture would pass
    for the learner's; after the last step it may be an opponent's turn, and ``render()`` and
    ``render_image()`` still draw the learner's hand face up (``learner_seat``), not that seat's."""
    g = gymnasium.make("dominoes/Block-v0", render_mode="rgb_array", learner_seat=1)
    for seed in range(30):
        g.reset(seed=seed)
        done = False
        while not done:
            legal = np.flatnonzero(g.get_wrapper_attr("action_masks")())
            *_, terminated, truncated, _ = g.step(int(legal[0]))
            done = terminated or truncated
        aec = g.unwrapped.aec
        if aec.game_state.current_player != 1:
            break
    else:
        pytest.fail("no episode of seeds 0..29 ended with another seat to play")
    assert np.array_equal(g.render(), aec.render_image(1))
    assert np.array_equal(g.unwrapped.render_image(), aec.render_image(1))
    assert not np.array_equal(g.render(), aec.render_image())


@pytest.mark.parametrize("gym_id", ["dominoes/MexicanTrain-v0", "dominoes/Cuban-v0"])
def test_sb3_make_vec_env_accepts_the_ids(gym_id):
    """SB3 passes render_mode="rgb_array" to every env it builds."""
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env(gym_id, n_envs=2, seed=0)
    obs = vec.reset()
    assert obs.shape[0] == 2
    masks = np.stack(vec.env_method("action_masks"))
    obs, rewards, dones, infos = vec.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    images = vec.get_images()
    assert len(images) == 2
    for img in images:
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    vec.close()


@pytest.mark.parametrize("make", [mexican_train_v0.env, cuban_v0.env, lambda **kw: gymnasium.make(
    GYM_IDS[0], **kw)], ids=["mexican_train", "cuban", "gymnasium"])  # fmt: skip
def test_rgb_array_without_pillow_is_refused_when_the_env_is_made(make, monkeypatch):
    """Without Pillow an ``rgb_array`` env failed only at its first render(), which a long run
    may reach hours in; now making it names the extra. The other modes do not need Pillow."""
    monkeypatch.setitem(__import__("sys").modules, "PIL", None)  # import PIL now raises ImportError
    with pytest.raises(ImportError, match=r'^render_mode="rgb_array" draws with Pillow: pip install '
                       r'"domino-env\[render\]"$'):  # fmt: skip
        make(render_mode="rgb_array")
    for mode in (None, "ansi"):
        make(render_mode=mode).reset(seed=0)


def test_without_pillow_the_metadata_lists_only_the_modes_it_can_draw_and_the_checkers_pass():
    """A library-only install (no ``[render]`` extra): Gymnasium's check_env and PettingZoo's
    render_test make an env in every mode of ``metadata["render_modes"]``, and ``rgb_array``
    ended in the ImportError that names the extra. Run in a fresh interpreter whose ``import PIL``
    fails, as without Pillow."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "sys.modules['PIL'] = None\n"
        "import warnings, gymnasium, pettingzoo\n"
        "from gymnasium.utils.env_checker import check_env\n"
        "from pettingzoo.test import render_test\n"
        "import domino_env\n"
        "from domino_env.envs import block_v0, mexican_train_v0\n"
        "from domino_env.wrappers import mexican_train_single_agent\n"
        "warnings.simplefilter('ignore')\n"
        "for gid in ('dominoes/Block-v0', 'dominoes/MexicanTrain-v0'):\n"
        "    env = gymnasium.make(gid)\n"
        "    check_env(env.unwrapped)\n"
        "    print('modes', gid, env.unwrapped.metadata['render_modes'])\n"
        "for env_fn in (block_v0.env, mexican_train_v0.env):\n"
        "    render_test(env_fn)\n"
        "    print('modes', env_fn().metadata['render_modes'])\n"
        "print('modes', mexican_train_single_agent().metadata['render_modes'])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert [line for line in proc.stdout.splitlines() if line.startswith("modes ")] == [  # (human mode prints)
        "modes dominoes/Block-v0 ['ansi']",
        "modes dominoes/MexicanTrain-v0 ['ansi']",
        "modes ['human', 'ansi']",
        "modes ['human', 'ansi']",
        "modes ['ansi']",
    ]


def test_save_png_refuses_what_is_not_a_frame_or_a_file_path(tmp_path):
    """A float image was Pillow's "Cannot handle this data type" TypeError, a folder its
    "unknown file extension" ValueError: a ConfigError naming image or path. What Pillow wrote
    before (RGBA and grey uint8 images, a bytes path) is still written."""
    frame = np.zeros((4, 5, 3), dtype=np.uint8)
    for bad in (frame.astype(float), np.zeros((4, 5, 2), np.uint8), np.zeros((0, 5, 3), np.uint8),
                np.zeros((4, 5, 3, 1), np.uint8), frame.tolist(), None):  # fmt: skip
        with pytest.raises(ConfigError, match="'image'.*an \\(H, W, 3\\) uint8 array") as info:
            save_png(bad, tmp_path / "x.png")
        assert info.value.field == "image"
    for bad in (tmp_path, str(tmp_path), "", b"", None, 5):
        with pytest.raises(ConfigError, match="'path'.*(not a folder|an open binary file)") as info:
            save_png(frame, bad)
        assert info.value.field == "path"
    assert not list(tmp_path.iterdir())  # nothing written
    save_png(frame, tmp_path / "frame")  # a PNG whatever the name
    with open(tmp_path / "open.png", "wb") as f:  # an open file, as Pillow takes
        save_png(frame, f)
    save_png(np.zeros((4, 5, 4), np.uint8), tmp_path / "rgba.png")
    save_png(frame[..., 0], os.fsencode(tmp_path / "grey.png"))  # grey, and a bytes path
    for name in ("frame", "open.png", "rgba.png", "grey.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
