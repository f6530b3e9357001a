"""What the ``rgb_array`` picture shows, pixel by pixel: sizes, row colours, tiles, pips, badges
and the words drawn (compared with the same words drawn by Pillow at the same place).

The other picture tests check shapes and that pictures differ; a picture that drew the wrong
seat's row as acting, a wrong pip, a missing marker or "round 2" in round 1 passed them. The
numbers here are the picture's layout (a 52-pixel tile step from x = 212, 40-pixel rows)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from domino_env.core.config import MexicanTrainConfig, line_from_preset
from domino_env.envs import cuban_v0, line_v0, mexican_train_v0
from domino_env.render_image import image_size, pip_layout

FELT, ROW_BG, ACTING_BG, OPEN_BG = (28, 94, 58), (36, 108, 68), (52, 128, 84), (150, 112, 30)
TEXT, DIM, FACE, BACK = (240, 240, 230), (190, 210, 195), (250, 248, 238), (24, 52, 120)
HIGHLIGHT, OWN_DOUBLE, MARKER = (230, 60, 40), (255, 200, 40), (220, 40, 40)
TEAM_COLOURS = ((120, 190, 255), (255, 170, 120))
WIDTH = 1152  # 2 * 12 margin + 200 labels + 16 tiles * 52 + 96 for the open end
PIP_COLOURS = ((0, 0, 0), (20, 20, 20), (20, 90, 200), (190, 30, 30), (30, 130, 50), (130, 60, 160),
               (200, 110, 0), (0, 130, 140), (120, 80, 40), (200, 40, 140), (60, 60, 160), (20, 120, 90),
               (160, 130, 0), (90, 90, 90), (170, 60, 60), (40, 100, 130), (110, 130, 30), (150, 50, 110),
               (70, 70, 70))  # fmt: skip


def _px(img, x: float, y: float) -> tuple[int, ...]:
    return tuple(int(v) for v in img[int(y), int(x)])


def _words(img, xy, text: str, size: int, fill, bg, anchor: str = "la", pad: int = 0) -> None:
    """``text`` is drawn at ``xy`` as the renderer draws words, on ``bg``, and nothing else is in
    its box (widened by ``pad`` pixels to the right: no more words follow)."""
    font = ImageFont.load_default(size=size)
    probe = Image.new("RGB", (img.shape[1], img.shape[0]), bg)
    draw = ImageDraw.Draw(probe)
    draw.text(xy, text, fill=fill, font=font, anchor=anchor)
    left, top, right, bottom = (int(v) for v in draw.textbbox(xy, text, font=font, anchor=anchor))
    want = np.asarray(probe)[top:bottom, left : right + pad]
    got = img[top:bottom, left : right + pad]
    assert got.shape == want.shape and np.array_equal(got, want), f"{text!r} is not what is drawn at {xy}"


def _tile_at(img, x: int, y: int, a: int, b: int, outline=None) -> None:
    """A face-up tile ``a|b`` (pips 0..9) with its top left corner at (x, y)."""
    g = (0.24, 0.5, 0.76)
    classic = {0: [], 1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)],
               4: [(0, 0), (2, 0), (0, 2), (2, 2)], 5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)],
               6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}  # fmt: skip
    pip_colours = {1: (20, 20, 20), 2: (20, 90, 200), 3: (190, 30, 30), 4: (30, 130, 50),
                   5: (130, 60, 160), 6: (200, 110, 0)}  # fmt: skip
    assert _px(img, x + 12, y + 1) == (outline or FACE), (x, y, a, b)
    assert _px(img, x + 36, y + 1) == (outline or FACE)
    for hx, value in ((x, a), (x + 24, b)):
        pips = {(gx, gy) for gx, gy in classic[value]}
        for gx in range(3):
            for gy in range(3):
                colour = pip_colours[value] if (gx, gy) in pips else FACE
                assert _px(img, hx + g[gx] * 24, y + g[gy] * 24) == colour, (x, y, a, b, value, gx, gy)


def _pips_at(img, x: int, y: int, a: int, b: int) -> None:
    """A face-up tile ``a|b`` at (x, y): face-coloured halves, and each pip in its value's colour."""
    assert _px(img, x + 2, y + 12) == FACE and _px(img, x + 26, y + 12) == FACE, (x, y, a, b)
    for hx, value in ((x, a), (x + 24, b)):
        for px, py in pip_layout(value):
            assert _px(img, hx + px * 24, y + py * 24) == PIP_COLOURS[value], (x, y, a, b, value)


def _right(xy, text: str, size: int) -> int:
    """The x just right of ``text`` drawn at ``xy``."""
    font = ImageFont.load_default(size=size)
    return int(ImageDraw.Draw(Image.new("RGB", (1, 1))).textbbox(xy, text, font=font)[2])


def _backs(img, y: int) -> int:
    """How many face-down tiles the hand row at ``y`` shows (from x = 212, one every 15 px; blue,
    outlined dark blue, unlike a blue "+k" badge)."""
    n = 0
    while _px(img, 212 + n * 15 + 6, y + 12) == BACK and _px(img, 212 + n * 15 + 12, y + 12) == (10, 20, 60):
        n += 1
    return n


MT_DEAL = {
    "hands": [[[4, 9], [4, 4], [1, 2]], [[8, 9], [0, 0], [1, 1]], [[7, 9], [0, 3], [2, 2]]],
    "boneyard": [[3, 5], [6, 6], [5, 6]],
    "station": [9, 9],
    "first_player": 0,
}


def _mexican_train():
    env = mexican_train_v0.raw_env(num_players=3, max_pip=9)
    env.reset(options={"deal": MT_DEAL})
    return env


def _play(env, text: str) -> None:
    legal = {env.game_state.describe_action(a): a for a in env.game_state.legal_actions()}
    assert text in legal, (text, sorted(legal))
    env.step(legal[text])


def test_picture_sizes_are_the_documented_pixels():
    """The size of a picture follows the rules only: 52 px per tile of a 16-tile row, 40 px per
    row. A mutated size agreed with image_size (the same function) and passed."""
    assert image_size(MexicanTrainConfig()) == (488, WIDTH)  # 4 seats, 5 trains
    assert image_size(MexicanTrainConfig(num_players=3, max_pip=9)) == (408, WIDTH)
    assert image_size(MexicanTrainConfig(num_players=3, max_pip=9, use_mexican_train=False)) == (368, WIDTH)
    assert image_size(line_from_preset("block")) == (368, WIDTH)  # 28 tiles: 2 line rows
    assert image_size(line_from_preset("draw")) == (288, WIDTH)  # 2 seats
    assert image_size(line_from_preset("cuban")) == (408, WIDTH)  # 55 tiles: 3 line rows at most
    env = _mexican_train()
    assert env.render_image().shape == (408, WIDTH, 3)


def test_the_mexican_train_picture_at_the_deal():
    """Round 1, the 9|9 station, the boneyard, who is to play; seat 0's row (the seat to play)
    lit, its hand face up, the others face down, and the scores in the footer."""
    img = _mexican_train().render_image()
    _words(img, (12, 10), "Mexican Train · domino_cubano · double-9 · round 1", 18, TEXT, FELT, pad=20)
    _words(img, (12, 36), "station", 14, DIM, FELT)
    assert _px(img, 72 + 12, 33) == FACE and _px(img, 72 + 12, 32 + 12) == (200, 40, 140)  # 9|9
    for train in range(4):
        ty = 66 + 40 * train
        assert _px(img, 1130, ty + 12) == (ACTING_BG if train == 0 else ROW_BG), train
        assert _px(img, 214 + 12, ty + 3) == FACE  # the open end's circle, right of the station
    _words(img, (16, 67), "seat 0", 15, TEXT, ACTING_BG)
    _words(img, (16, 107), "seat 1", 15, TEXT, ROW_BG, pad=30)
    _words(img, (16, 84), "train", 11, DIM, ACTING_BG)
    _words(img, (16, 187), "Mexican train", 15, TEXT, ROW_BG)
    _words(img, (226, 78), "9", 13, (20, 20, 20), FACE, anchor="mm")  # every open end is 9
    _words(img, (12, 222), "hands (seat 0's face up)", 13, DIM, FELT)
    for seat in range(3):
        ty = 250 + 40 * seat
        assert _px(img, 1130, ty + 12) == (ACTING_BG if seat == 0 else ROW_BG)
        _words(img, (16, ty + 18), "3 tiles · score 0", 11, DIM, ACTING_BG if seat == 0 else ROW_BG)
        assert _backs(img, ty) == (0 if seat == 0 else 3)
    _tile_at(img, 212, 250, 1, 2)  # the hand in order: 1|2, 4|4, 4|9
    _tile_at(img, 264, 250, 4, 4)
    assert _px(img, 316 + 12, 251) == FACE and _px(img, 368 + 12, 251) == ACTING_BG  # no fourth tile
    _words(img, (12, 381), "scores [0, 0, 0]", 13, DIM, FELT)


def test_the_seat_to_play_and_the_viewer_are_labelled():
    """The "(you)" label names the viewer, the red "to play" badge the seat to play."""
    env = _mexican_train()
    _play(env, "place 4-9 on own train")
    img = env.render_image(2)  # seat 1 to play; seat 2 views
    x = 16 + ImageDraw.Draw(Image.new("RGB", (1, 1))).textlength("seat 1", font=ImageFont.load_default(size=15))
    assert _px(img, 1130, 106 + 12) == ACTING_BG and _px(img, 1130, 66 + 12) == ROW_BG
    assert _px(img, x + 8, 108) == HIGHLIGHT  # the badge right of "seat 1"
    _words(img, (16, 147), "seat 2 (you)", 15, TEXT, ROW_BG, pad=30)
    _words(img, (16, 67), "seat 0", 15, TEXT, ROW_BG, pad=30)
    assert _px(img, 236 + 6, 66 + 6) == (30, 130, 50)  # 9|4 on seat 0's train: a 4 at its end
    _words(img, (212 + 52 + 2 + 12, 66 + 12), "4", 13, (20, 20, 20), FACE, anchor="mm")  # open end 4
    assert (_backs(img, 250), _backs(img, 290), _backs(img, 330)) == (2, 3, 0)  # seat 0 played one
    _words(img, (16, 250 + 18), "2 tiles · score 0", 11, DIM, ROW_BG)


def test_an_open_double_and_a_double_to_cover_are_drawn():
    """Seat 0's own double to cover is outlined yellow and says "cover it"; left open, its row
    turns amber, the double is outlined red, it says "open double 1" and seat 0 has a marker."""
    env = _mexican_train()
    for text in ("place 4-9 on own train", "place 8-9 on own train", "place 7-9 on own train",
                 "place 4-4 on own train"):  # fmt: skip
        _play(env, text)
    img = env.render_image()
    assert _px(img, 1130, 78) == ACTING_BG
    _tile_at(img, 264, 66, 4, 4, outline=OWN_DOUBLE)
    _words(img, (318 + 28, 78), "cover it", 11, DIM, ACTING_BG, anchor="lm")
    _words(img, (12, 222), "hands (seat 0's face up)", 13, DIM, FELT)
    _play(env, "draw")
    _play(env, "pass")
    img = env.render_image()
    assert _px(img, 1130, 78) == OPEN_BG and _px(img, 1130, 118) == ACTING_BG
    _tile_at(img, 264, 66, 4, 4, outline=HIGHLIGHT)
    _words(img, (318 + 28, 78), "open double 1", 11, DIM, OPEN_BG, anchor="lm")
    x = 16 + ImageDraw.Draw(Image.new("RGB", (1, 1))).textlength("seat 0", font=ImageFont.load_default(size=15))
    assert _px(img, x + 8, 68) == MARKER  # the marker badge right of "seat 0"
    _words(img, (16, 250 + 18), "2 tiles · score 0", 11, DIM, ROW_BG)
    assert _backs(img, 250) == 2


def test_just_drew_the_round_end_and_seats_out_of_the_game():
    """A tile just drawn (tile 0, 0|0) says so in the header; at the end of a game whose last round
    knocked seats 1 and 2 out (elimination), their trains and hands are still drawn (they played
    that round, as the replay page shows it; they read "seat 1: out of the game" with no train),
    each says "out of the game", no row is lit, and the footer names the end, the winners, the
    pips left and the game's winner."""
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9)
    env.reset(options={"deal": {"hands": [[[1, 2], [3, 4]], [[5, 6], [9, 1]]], "boneyard": [[0, 0], [7, 8]],
                                "station": [9, 9], "first_player": 0}})  # fmt: skip
    _play(env, "draw")
    img = env.render_image()
    x = _right((_right((12, 36), "station", 14) + 68, 36), "boneyard 1", 14)
    _words(img, (x + 20, 36), "to play: seat 0 (free, just drew)", 14, TEXT, FELT, pad=20)
    env = mexican_train_v0.raw_env(num_players=3, max_pip=9, episode="game", game_end="elimination",
                                   elimination_limit=1)  # fmt: skip
    env.reset(options={"deal": {"hands": [[[9, 1]], [[5, 6]], [[2, 3]]], "boneyard": [[7, 7]],
                                "station": [9, 9], "first_player": 0}})  # fmt: skip
    _play(env, "place 1-9 on own train")
    img = env.render_image(0)
    _words(img, (12, 36), "station", 14, DIM, FELT)
    assert _px(img, 1130, 78) == ROW_BG  # nobody to play
    for seat, ty in ((1, 106), (2, 146)):
        _words(img, (16, ty + 1), f"seat {seat}", 15, TEXT, ROW_BG, pad=20)
        _words(img, (16, ty + 18), "out of the game", 11, DIM, ROW_BG, pad=20)
        assert _px(img, 214 + 12, ty + 3) == FACE  # an empty train: its open end, 9
    _words(img, (16, 187), "Mexican train", 15, TEXT, ROW_BG)
    _words(img, (16, 250 + 18), "0 tiles · score 0", 11, DIM, ROW_BG)
    _words(img, (16, 291), "seat 1", 15, TEXT, ROW_BG, pad=20)
    _words(img, (16, 290 + 18), "1 tile · score 11 · out of the game", 11, DIM, ROW_BG, pad=20)
    _words(img, (16, 331), "seat 2", 15, TEXT, ROW_BG, pad=20)
    _words(img, (16, 330 + 18), "1 tile · score 5 · out of the game", 11, DIM, ROW_BG, pad=20)
    assert (_backs(img, 290), _backs(img, 330)) == (1, 1)
    assert [_px(img, 1130, y) for y in (371, 372, 390, 407)] == [FELT, HIGHLIGHT, HIGHLIGHT, HIGHLIGHT]  # the red band
    _words(img, (16, 381), "round over: went out · winners 0 · pips left [0, 11, 5] · game over, won by 0", 14,
           TEXT, HIGHLIGHT, pad=20)  # fmt: skip


def test_a_seat_out_before_the_round_reads_out_in_the_round_result():
    """Tren Mexicano out at 100, 3 seats, double-9 (seeded random play, as test_replay_html_ends):
    seat 0 is out after round 4, so the end of round 5 has no pips of seat 0 (it read 0, as if
    seat 0 went out); seat 1, knocked out by round 5 itself, played it and shows its 69."""
    env = mexican_train_v0.raw_env(preset="tren_mexicano", episode="game", num_players=3, max_pip=9)
    env.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.game_state.eliminated_at == [3, 4, None] and env.game_state.round_result.round_index == 4
    img = env.render_image(2)
    _words(img, (16, img.shape[0] - 34 + 7), "round over: went out · winners 2 · pips left [out, 69, 0] · game over, "
           "won by 2", 14, TEXT, HIGHLIGHT, pad=20)  # fmt: skip
    # seat 0, out before the round: a row that says so; seat 1, knocked out by it: its train, tagged
    _words(img, (16, 67), "seat 0: out of the game", 15, DIM, ROW_BG, pad=20)
    _words(img, (16, 107), "seat 1", 15, TEXT, ROW_BG)  # (its marker badge follows)
    _words(img, (16, 106 + 18), "out of the game", 11, DIM, ROW_BG, pad=20)
    assert _px(img, 214 + 12, 106 + 1) == FACE  # its first tile
    text = env.render_text(2).splitlines()
    assert text[1] == "  seat 0: out of the game" and text[2].startswith("  seat 1 : [")
    assert text[2].endswith(", out of the game)") and text[5].endswith("pips [out, 69, 0]"), text


def test_a_hand_too_long_for_its_row_shows_its_first_tiles_and_counts_the_rest():
    """20 tiles face up: the first 16 and a "+4" badge (a 17th tile would pass the row's end)."""
    hand = [[0, 1], [0, 2], [0, 9], [1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [2, 4], [3, 3], [3, 4], [3, 5],
            [4, 4], [4, 5], [4, 6], [5, 6], [5, 7], [6, 7], [6, 8], [7, 8]]  # fmt: skip
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9)
    env.reset(options={"deal": {"hands": [hand, [[5, 5], [6, 6]]], "boneyard": [[7, 7]], "station": [9, 9],
                                "first_player": 0}})  # fmt: skip
    img = env.render_image()
    assert img.shape == (328, WIDTH, 3)
    for k in (0, 1, 15):
        _pips_at(img, 212 + 52 * k, 210, *hand[k])
    assert _px(img, 1044 + 2, 212 + 9) == BACK
    _words(img, (1049, 215), "+4", 12, TEXT, BACK)
    _words(img, (16, 210 + 18), "20 tiles · score 0", 11, DIM, ACTING_BG)
    assert _backs(img, 250) == 2
    env.reset(options={"deal": {"hands": [hand[:17], [[5, 5], [6, 6]]], "boneyard": [[7, 7]], "station": [9, 9],
                                "first_player": 0}})  # fmt: skip
    img = env.render_image()  # 17 tiles fit the row: no badge
    _pips_at(img, 1044, 210, *hand[16])
    assert _px(img, 1044 + 52 + 2, 212 + 9) == ACTING_BG


def test_a_face_down_hand_too_long_for_its_row_counts_the_rest():
    """65 tiles face down: 59 backs and a "+6" badge (61 backs fill the row)."""
    tiles = [[a, b] for a in range(19) for b in range(a, 19)]
    env = mexican_train_v0.raw_env(num_players=2, max_pip=18)
    env.reset(options={"deal": {"hands": [tiles[:3], tiles[3:68]], "boneyard": tiles[68:70], "station": [18, 18],
                                "first_player": 0}})  # fmt: skip
    img = env.render_image(0)
    assert _backs(img, 250) == 59
    _words(img, (1102, 255), "+6", 12, TEXT, BACK)
    _words(img, (16, 250 + 18), "65 tiles · score 0", 11, DIM, ROW_BG)


def test_a_line_too_long_for_the_picture_keeps_both_ends_and_counts_the_middle():
    """A line of 48 tiles fills the 3 rows of 16 cells. A double-12 block line of 85 tiles: they
    hold its first 23 tiles, a "+38" badge and its last 24 tiles, with the left end before it and
    the right end after it; the footer says how the round ended."""
    import random

    tiles = [[a, b] for a in range(13) for b in range(a, 13)]
    random.Random(0).shuffle(tiles)
    env = line_v0.raw_env(preset="block", max_pip=12, num_players=2)
    env.reset(options={"deal": {"hands": [tiles[:45], tiles[45:90]], "boneyard": [], "first_player": 0}})
    full = 0
    while not env.game_state.round_over:
        env.step(int(env.game_state.legal_actions()[0]))
        if len(env.game_state.line) == 48:  # 48 tiles fill the 3 rows: all shown, no badge
            full += 1
            img, line = env.render_image(0), env.game_state.line
            for k in (0, 23, 24, 47):
                _pips_at(img, 212 + 52 * (k % 16), 66 + 40 * (k // 16), *line[k])
    line = env.game_state.line
    assert full and len(line) == 85 and (env.game_state.left, env.game_state.right) == (7, 4)
    img = env.render_image(0)
    assert img.shape == (328, WIDTH, 3)
    _words(img, (12, 10), "Block dominoes · double-12 · round 1", 18, TEXT, FELT, pad=20)
    _words(img, (16, 67), "line", 15, TEXT, ROW_BG)
    _words(img, (140, 78), "7", 13, (20, 20, 20), FACE, anchor="mm")  # the left end
    _words(img, (156, 78), "left end", 11, DIM, ROW_BG, anchor="lm")
    for k, (x, y) in {0: (212, 66), 15: (992, 66), 22: (576 - 52, 106)}.items():
        _pips_at(img, x, y, *line[k])
    _words(img, (581, 111), "+38", 12, TEXT, BACK)
    _pips_at(img, 576 + 52, 106, *line[61])
    _pips_at(img, 992, 146, *line[84])
    _words(img, (1058, 158), "4", 13, (20, 20, 20), FACE, anchor="mm")  # the right end
    _words(img, (1074, 158), "right end", 11, DIM, ROW_BG, anchor="lm")
    _words(img, (16, 301), "round over: blocked · winners 0 · pips left [39, 63]", 14, TEXT, HIGHLIGHT, pad=20)


def test_a_cuban_table_at_the_deal_shows_the_teams_the_leader_and_the_empty_line():
    """Cuban: a header naming the teams, no boneyard, the leader and the target; the empty line
    waiting for the lead; seat labels in their team's colour, the leader's badge and each seat's
    team."""
    env = cuban_v0.raw_env()
    env.reset(seed=1)  # the deal of test_render_text_tables.CUBAN_DEAL
    assert env.game_state.hand_tiles(2)[:2] == [(0, 4), (0, 7)]
    img = env.render_image()  # seat 2 leads
    assert img.shape == (408, WIDTH, 3)
    _words(img, (12, 10), "Cuban dominoes · double-9 · round 1 · teams 0+2 vs 1+3", 18, TEXT, FELT, pad=20)
    x = _right((12, 36), "no boneyard (block)", 14)
    _words(img, (12, 36), "no boneyard (block)", 14, TEXT, FELT)
    _words(img, (x + 20, 36), "leader seat 2", 14, TEXT, FELT)
    x = _right((x + 20, 36), "leader seat 2", 14)
    _words(img, (x + 20, 36), "game to 100 points", 14, DIM, FELT)
    x = _right((x + 20, 36), "game to 100 points", 14)
    _words(img, (x + 20, 36), "to play: seat 2", 14, TEXT, FELT, pad=20)
    _words(img, (16, 67), "line: empty, waiting for the lead", 15, TEXT, ROW_BG, pad=20)
    _words(img, (12, 182), "hands (seat 2's face up)", 13, DIM, FELT)
    for seat in range(4):
        ty = 210 + 40 * seat
        bg = ACTING_BG if seat == 2 else ROW_BG
        assert _px(img, 1130, ty + 12) == bg
        _words(img, (16, ty + 1), f"seat {seat}" + (" (you)" if seat == 2 else ""), 15, TEAM_COLOURS[seat % 2], bg)
        _words(img, (16, ty + 18), f"10 tiles · score 0 · team {seat % 2}+{seat % 2 + 2}", 11, DIM, bg)
        assert _backs(img, ty) == (0 if seat == 2 else 10)
    bx = _right((16, 291), "seat 2 (you)", 15) + 6  # the "to play" badge
    assert _px(img, bx + 2, 292 + 9) == HIGHLIGHT
    lx = bx + ImageDraw.Draw(Image.new("RGB", (1, 1))).textlength("to play", font=ImageFont.load_default(size=12)) + 14
    assert _px(img, lx + 6, 292 + 9) == BACK  # the "leader" badge right of it
    _words(img, (lx + 9, 294), "leader", 12, TEXT, BACK)
    _pips_at(img, 212, 290, 0, 4)  # seat 2's hand: 0|4 first
    _words(img, (12, 381), "scores [0, 0, 0, 0]", 13, DIM, FELT)


def test_before_reset_the_picture_says_so_at_the_tables_size():
    """Before ``reset`` the ``rgb_array`` picture is felt of the table's size with one line that
    says why (a blank picture told nothing)."""
    env = mexican_train_v0.raw_env(render_mode="rgb_array", num_players=3, max_pip=9)
    img = env.render()
    assert img.shape == (408, WIDTH, 3) and _px(img, 5, 5) == FELT and _px(img, 1140, 400) == FELT
    _words(img, (12, 12), "(reset() has not been called)", 15, TEXT, FELT, pad=20)


def test_a_train_too_long_for_its_row_shows_its_last_tiles_and_counts_the_rest():
    """A 17-tile train: a "+2" badge, then its last 15 tiles up to the open end (the end a tile
    must match stays in view); a 16-tile train fits its row."""
    own = [(12, 0)] + [(k, k + 1) for k in range(11)] + [(11, 0), (0, 2), (2, 4), (4, 6), (6, 8)]
    other = [(12, 1), (1, 3), (3, 5), (5, 7), (7, 9), (9, 11), (11, 1), (1, 4), (4, 7), (7, 10), (10, 12),
             (12, 2), (2, 5), (5, 8), (8, 11), (11, 2)]  # fmt: skip
    env = mexican_train_v0.raw_env(num_players=2, max_pip=12)
    env.reset(options={"deal": {"hands": [[list(t) for t in own] + [[9, 12]], [list(t) for t in other] + [[3, 12]]],
                                "boneyard": [[6, 6]], "station": [12, 12], "first_player": 0}})  # fmt: skip
    for k in range(17):
        for train in (own, other):  # seat 0, then seat 1
            if k < len(train):
                a, b = sorted(train[k])
                _play(env, f"place {a}-{b} on own train")
    state = env.game_state
    assert state.train_tiles(0) == own and state.train_tiles(1) == other and state.current_player == 1
    img = env.render_image()
    _words(img, (217, 71), "+2", 12, TEXT, BACK)
    for k in range(15):
        _pips_at(img, 264 + 52 * k, 66, *own[2 + k])
    _words(img, (1058, 78), "8", 13, (20, 20, 20), FACE, anchor="mm")
    for k in range(16):
        _pips_at(img, 212 + 52 * k, 106, *other[k])
    _words(img, (1058, 118), "2", 13, (20, 20, 20), FACE, anchor="mm")


def test_double_18_pips_have_their_colours():
    """Values 13..18 appear only in double-15 and double-18 sets (no committed picture has them):
    each pip in its value's colour, as on a coloured set."""
    hand = [[0, 18], [13, 14], [15, 16], [17, 18]]  # (in the order a hand is drawn)
    env = mexican_train_v0.raw_env(num_players=2, max_pip=18)
    env.reset(options={"deal": {"hands": [hand, [[5, 5]]], "boneyard": [[6, 6]], "station": [18, 18],
                                "first_player": 0}})  # fmt: skip
    img = env.render_image()
    for k, (a, b) in enumerate(hand):
        _pips_at(img, 212 + 52 * k, 210, a, b)


def test_line_game_hands_keep_to_their_rows():
    """A line game's hands: 30 tiles face up show the first 16 and "+14"; 61 tiles face down
    fill the row exactly, with no badge; 62 show 59 and "+3" (a 62nd back would pass the row's
    end)."""
    tiles = [[a, b] for a in range(13) for b in range(a, 13)]
    env = line_v0.raw_env(preset="block", max_pip=12, num_players=2)
    env.reset(options={"deal": {"hands": [tiles[:30], tiles[30:]], "boneyard": [], "first_player": 0}})
    img = env.render_image(0)
    hand = env.game_state.hand_tiles(0)
    for k in (0, 15):
        _pips_at(img, 212 + 52 * k, 210, *hand[k])
    _words(img, (1049, 215), "+14", 12, TEXT, BACK)
    assert _backs(img, 250) == 61 and _px(img, 212 + 61 * 15 + 6, 262) == ROW_BG
    _words(img, (16, 250 + 18), "61 tiles · score 0", 11, DIM, ROW_BG)
    env.reset(options={"deal": {"hands": [tiles[:29], tiles[29:]], "boneyard": [], "first_player": 0}})
    img = env.render_image(0)  # 62 face down: 59 backs and "+3"
    assert _backs(img, 250) == 59
    _words(img, (1102, 255), "+3", 12, TEXT, BACK)


def test_a_mexican_train_table_without_a_boneyard_says_so():
    """Sin monte (docs/rules.md §1.7): "no boneyard" where the count was ("boneyard 0")."""
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9, use_boneyard=False)
    env.reset(options={"deal": {"hands": [[[1, 2], [9, 4]], [[5, 6], [9, 1]]], "station": [9, 9], "first_player": 0}})
    img = env.render_image()
    x = _right((_right((12, 36), "station", 14) + 68, 36), "no boneyard", 14)
    _words(img, (x + 20, 36), "to play: seat 0 (free)", 14, TEXT, FELT, pad=20)
