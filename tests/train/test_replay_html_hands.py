"""The replay page's hands in a real browser (``test_replay_html.py``'s Chromium and helpers): a
long hand wraps onto more rows in the window's width, its seat name and every tile in view.

A user trial: a 2-seat double-12 round (the default rules deal 43 tiles a hand) showed about 20
tiles of each hand in a 1,280 px window and cut the next one in half; the rest lay past the
window's right edge with nothing saying so, and scrolling the hands to them scrolled the seat
names away."""

from __future__ import annotations

import pytest
from test_replay_html import _open, _random_record, launched_browser

from domino_env.envs import line_v0, mexican_train_v0


@pytest.fixture(scope="module")
def browser():
    yield from launched_browser()


#: Per seat: its tiles as drawn (data-tile, in drawing order), their boxes and its name's box.
_HANDS = """() => {
    const box = document.querySelector('#hands').parentNode.getBoundingClientRect();
    return [...document.querySelectorAll('#hands [data-hand]')].map(g => ({
        tiles: [...g.querySelectorAll('.tile')].map(t => t.dataset.tile),
        boxes: [...g.querySelectorAll('.tile')].map(t => { const r = t.getBoundingClientRect();
                                                           return [r.left, r.top, r.right, r.bottom]; }),
        name: (r => [r.left, r.right])(g.querySelector('text').getBoundingClientRect()),
        left: box.left, right: box.right,
    }));
}"""


def _check_hands(page) -> int:
    """Every hand drawn whole, in view inside the hands' box, tiles apart, seats apart; returns
    the number of tiles of the longest hand drawn."""
    frame = int(page.locator("body").get_attribute("data-frame"))
    hands = page.evaluate(f"() => D.frames[{frame}].hands.map(h => h.map(t => t[0] + '-' + t[1]))")
    drawn = page.evaluate(_HANDS)
    assert [h["tiles"] for h in drawn] == hands, frame
    bottom = 0.0
    for h in drawn:
        assert h["left"] <= h["name"][0] and h["name"][1] <= h["right"], (frame, h["name"])
        for left, top, right, _low in h["boxes"]:
            assert h["left"] <= left and right <= h["right"], (frame, left, right, h["right"])
            assert top >= bottom - 0.5, (frame, "a seat's tiles overlap the seat above")
        for a, b in zip(h["boxes"], h["boxes"][1:], strict=False):  # reading order, no overlap
            assert b[0] >= a[2] or b[1] >= a[3], (frame, a, b)
        bottom = max([bottom, *(b[3] for b in h["boxes"])])
    return max(len(h) for h in hands)


@pytest.mark.parametrize("width", [1280, 700])
def test_a_long_hand_wraps_in_the_window(browser, tmp_path, width):
    record = _random_record(mexican_train_v0.raw_env(num_players=2, max_pip=12), 3)
    page, errors, _ = _open(browser, record, tmp_path)
    page.set_viewport_size({"width": width, "height": 900})
    assert _check_hands(page) == 43  # the default deal: 43 tiles a hand, > 2 x 20 in view before
    for index in (5, page.evaluate("() => D.frames.length") - 1):
        page.locator("#slider").fill(str(index))
        _check_hands(page)
    page.set_viewport_size({"width": 1400, "height": 900})  # a resize lays the rows out again
    _check_hands(page)
    assert errors == []


def test_short_hands_stay_on_one_row(browser, tmp_path):
    """A Cuban deal (10 tiles a hand): one row a seat, as before."""
    record = _random_record(line_v0.raw_env(preset="cuban"), 2)
    page, errors, _ = _open(browser, record, tmp_path)
    _check_hands(page)
    tops = page.evaluate("() => [...document.querySelectorAll('#hands [data-hand]')]"
                         ".map(g => new Set([...g.querySelectorAll('.tile')].map(t => t.getBoundingClientRect().top)).size)")
    assert tops == [1, 1, 1, 1]
    assert errors == []
