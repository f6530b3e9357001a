"""``python -m train.replay_html``: the frames it computes, its CLI, and the page in a real
headless browser (Debian's Chromium driven by Playwright; ``make test`` installs both)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from domino_env.agents import make_agent
from domino_env.core.records import replay, save_record
from domino_env.envs import line_v0, mexican_train_v0
from domino_env.train.replay_html import frames_from_record, render_html

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def _game_record(env, seed: int, agent: str = "greedy") -> dict:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    bots = {a: make_agent(agent, env.config) for a in env.possible_agents}
    for a in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(bots[a](obs["observation"], obs["action_mask"], rng))
    return env.to_record()


@pytest.fixture(scope="module")
def mexican_game() -> dict:
    """A whole Mexican Train game: 10 rounds of 3 seats, double-9."""
    return _game_record(mexican_train_v0.raw_env(num_players=3, max_pip=9, episode="game"), 1)


@pytest.fixture(scope="module")
def cuban_game() -> dict:
    return _game_record(line_v0.raw_env(preset="cuban", episode="game"), 2)


def _expected(record: dict) -> list:
    """Engine state of every page frame, from ``records.replay``: None for a round-ending move
    whose next round was dealt in the same step (replay yields the next deal for it)."""
    states = list(replay(record))
    out = [states[0]]
    for prev, state in zip(states, states[1:], strict=False):
        if len(state.deals) > len(prev.deals):
            out += [None, state]
        else:
            out.append(state)
    return out


@pytest.mark.parametrize("game", ["mexican_game", "cuban_game"])
def test_frames_hold_what_the_engine_had(game, request):
    record = request.getfixturevalue(game)
    frames = frames_from_record(record)
    expected = _expected(record)
    assert len(frames) == len(expected) == len(record["actions"]) + len(record["deals"])
    assert sum(f["kind"] == "deal" for f in frames) == len(record["deals"])
    for frame, state in zip(frames, expected, strict=True):
        if state is None:
            assert frame["result"] is not None and frame["kind"] == "move"
            continue
        assert frame["hand_sizes"] == [state.hand_size(s) for s in range(state.num_players)]
        assert frame["hands"] == [[list(t) for t in state.hand_tiles(s)] for s in range(state.num_players)]
        assert frame["scores"] == state.scores and frame["boneyard"] == state.boneyard_size
        if "trains" in frame:
            assert [t["end"] for t in frame["trains"]] == [state.open_end(t) for t in range(state.num_players + 1)]
        else:
            assert frame["ends"] == (list(state.ends) if state.line else None)
    assert frames[-1]["game_over"] and frames[-1]["result"]["winners"]
    assert frames[1]["text"].startswith(f"seat {frames[0]['to_play']}: ")


def test_html_is_one_self_contained_file(mexican_game):
    page = render_html(mexican_game)
    assert page.startswith("<!doctype html>")
    for external in ("<link", "src=", "@import", "url(", "fetch(", "XMLHttpRequest"):
        assert external not in page
    data = page.split('<script id="data" type="application/json">')[1].split("</script>")[0]
    assert json.loads(data)["num_moves"] == len(mexican_game["actions"])


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "train.replay_html", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_cli_writes_the_page(cuban_game, tmp_path):
    src = tmp_path / "game.json"
    save_record(cuban_game, src)
    out = _cli(str(src))
    assert out.returncode == 0, out.stderr
    n = len(cuban_game["actions"])
    deals = len(cuban_game["deals"])
    assert deals > 1 and f"wrote {tmp_path / 'game.html'}: {n} moves, {deals} deals, " in out.stdout
    one = dict(cuban_game, actions=cuban_game["actions"][:1], deals=cuban_game["deals"][:1])
    save_record(one, src)  # one move of one deal: no "1 moves" (the deal frame and the move's)
    out = _cli(str(src), "-o", str(tmp_path / "one.html"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"wrote {tmp_path / 'one.html'}: 1 move, 1 deal, 2 frames", out.stdout
    assert "Cuban dominoes (double-9) replay" in (tmp_path / "game.html").read_text()


def test_cli_reads_a_record_through_a_pipe_and_asks_for_the_page_name(cuban_game, tmp_path):
    """A pipe (``<(zcat game.json.gz)``) is read like a file (it was "no such file"); with no
    ``--output`` there is no page name to derive from it, so that is one line."""
    src = tmp_path / "game.json"
    save_record(cuban_game, src)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    refused = _cli(str(fifo))  # refused before the pipe is opened: no writer is needed
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert f"record {fifo} is not a regular file (a pipe?); give the page to write with --output" in refused.stderr
    page = tmp_path / "piped.html"
    proc = subprocess.Popen(
        [sys.executable, "-m", "train.replay_html", str(fifo), "-o", str(page)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    fifo.write_bytes(src.read_bytes())  # blocks until the command opens the pipe
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert f"wrote {page}: {len(cuban_game['actions'])} moves" in out
    assert page.read_text() == _cli_page(src, tmp_path)


def test_cli_reads_stdin_and_writes_stdout_for_a_dash(cuban_game, tmp_path):
    """``-`` is stdin as the record and stdout as the page (it was a file named "-"); the "wrote"
    line then goes to stderr. A record from stdin without ``--output`` names no page: one line."""
    src = tmp_path / "game.json"
    save_record(cuban_game, src)
    run = lambda *a: subprocess.run([sys.executable, "-m", "domino_env.train.replay_html", *a], input=src.read_text(),  # noqa: E731
                                    capture_output=True, text=True, cwd=tmp_path, timeout=120)  # fmt: skip
    both = run("-", "-o", "-")
    assert both.returncode == 0, both.stderr
    assert both.stdout == _cli_page(src, tmp_path) and not (tmp_path / "-").exists()
    assert both.stderr.startswith(f"wrote the page to stdout: {len(cuban_game['actions'])} moves")
    page = tmp_path / "from_stdin.html"
    assert run("-", "-o", str(page)).returncode == 0 and page.read_text() == both.stdout
    empty = subprocess.run([sys.executable, "-m", "domino_env.train.replay_html", "-", "-o", "-"], input="",
                           capture_output=True, text=True, cwd=tmp_path, timeout=120)  # fmt: skip
    assert empty.returncode == 2 and empty.stderr.strip().endswith("error: record - is empty: stdin gave nothing (0 bytes)"), empty.stderr
    refused = run("-")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "record -: a record read from stdin names no page; give the page to write with --output" in refused.stderr


def _cli_page(src: Path, tmp_path: Path) -> str:
    """The page the command writes for the record file ``src`` (read from the file itself)."""
    out = tmp_path / "from_file.html"
    done = _cli(str(src), "-o", str(out))
    assert done.returncode == 0, done.stderr
    return out.read_text()


def test_a_record_from_train_play_names_the_seats(tmp_path):
    rec = tmp_path / "play.json"
    played = subprocess.run(
        [sys.executable, "-m", "train.play", "--game", "block", "--seed", "5", "--seat", "2", "--record", str(rec)],
        input="1\n" * 100, capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    out = _cli(str(rec), "-o", str(tmp_path / "p.html"))
    assert out.returncode == 0, out.stderr
    data = (tmp_path / "p.html").read_text()
    assert '"seats":["greedy","greedy","human","greedy"]' in data


# ---------------------------------------------------------------------- in a real browser
def launched_browser():
    """Headless Chromium through playwright, closed when the generator ends (the module-scoped
    browser fixtures of this file and test_replay_html_ends.py)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (make test installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail('playwright is missing: pip install -e ".[browser]" (make test installs it)')
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def browser():
    yield from launched_browser()


def _open(browser, record: dict, tmp_path: Path):
    """Load the page of ``record`` from disk; returns (page, JS errors, non-file requests)."""
    path = tmp_path / "replay.html"
    path.write_text(render_html(record), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
    network: list[str] = []

    def route(r):
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            network.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(path.as_uri())
    return page, errors, network


def _press(page, key: str, times: int) -> None:
    for _ in range(times):
        page.keyboard.press(key)


def _check_frame(page, index: int, state) -> None:
    assert page.locator("body").get_attribute("data-frame") == str(index)
    for s in range(state.num_players):
        assert page.locator(f'[data-hand-size="{s}"]').text_content() == str(state.hand_size(s))
    if hasattr(state, "trains"):  # Mexican Train: every train's open end
        for s in range(state.num_players):
            assert page.locator(f'[data-end="train-{s}"]').text_content() == str(state.open_end(s))
        assert page.locator('[data-end="mexican"]').text_content() == str(state.open_end(state.num_players))
    elif state.line:
        assert page.locator('[data-end="left"]').text_content() == str(state.left)
        assert page.locator('[data-end="right"]').text_content() == str(state.right)


def test_mexican_train_game_page_in_chromium(browser, mexican_game, tmp_path):
    page, errors, network = _open(browser, mexican_game, tmp_path)
    expected = _expected(mexican_game)
    _check_frame(page, 0, expected[0])
    assert page.locator("#move").text_content() == "round 1 dealt"
    k = 7
    _press(page, "ArrowRight", k)  # k moves into round 1
    _check_frame(page, k, expected[k])
    assert page.locator("#move").text_content().startswith(f"move {k}: seat ")
    _press(page, "ArrowLeft", 2)
    _check_frame(page, k - 2, expected[k - 2])
    page.click("#next")
    _check_frame(page, k - 1, expected[k - 1])
    # across the first round end: its last move shows the result, the next frame the new deal
    end = expected.index(None)
    _press(page, "ArrowRight", end - (k - 1))
    assert page.locator("body").get_attribute("data-frame") == str(end)
    assert page.locator("#result").text_content().startswith("round 1 over (")
    page.keyboard.press("ArrowRight")
    _check_frame(page, end + 1, expected[end + 1])
    assert page.locator("#move").text_content() == "round 2 dealt"
    assert page.locator("#result").text_content() == ""
    page.keyboard.press("PageDown")  # the start of round 3
    third = [i for i, s in enumerate(expected) if s is None][1] + 1
    _check_frame(page, third, expected[third])
    page.keyboard.press("End")
    last = len(expected) - 1
    assert page.locator("body").get_attribute("data-frame") == str(last)
    assert "game over, won by seat" in page.locator("#result").text_content()
    page.keyboard.press("Home")
    _check_frame(page, 0, expected[0])
    for chord in ("Alt+ArrowRight", "Control+End", "Meta+ArrowRight"):  # the browser's, not the page's
        page.keyboard.press(chord)
        assert page.locator("body").get_attribute("data-frame") == "0", chord
    _press(page, "ArrowRight", 40)
    shot = tmp_path / "mexican_train.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    assert errors == [] and network == []


def test_line_game_page_in_chromium(browser, cuban_game, tmp_path):
    page, errors, network = _open(browser, cuban_game, tmp_path)
    expected = _expected(cuban_game)
    assert page.locator('[data-end="left"]').count() == 0  # nothing led yet
    for k in (1, 5, 12):
        _press(page, "ArrowRight", k - int(page.locator("body").get_attribute("data-frame")))
        _check_frame(page, k, expected[k])
    end = expected.index(None)
    _press(page, "ArrowRight", end - 12)
    assert "won by seat" in page.locator("#result").text_content()
    assert "team" in page.locator("#scores").text_content()
    shot = tmp_path / "cuban.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    assert errors == [] and network == []


def test_browser_check_is_not_vacuous(browser, cuban_game, tmp_path):
    """A page whose script throws is caught by the error listener the tests rely on."""
    page, errors, _ = _open(browser, cuban_game, tmp_path)
    with page.expect_event("pageerror"):
        page.evaluate("setTimeout(() => { throw new Error('boom'); }, 0)")
    assert any("boom" in e for e in errors)


def test_console_script_runs_through_train_cli(cuban_game, tmp_path):
    src = tmp_path / "g.json"
    save_record(cuban_game, src)
    code = f"import sys\nsys.argv = ['domino-replay-html', {str(src)!r}]\nfrom train.cli import replay_html\nreplay_html()\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "g.html").read_text().startswith("<!doctype html>")


def test_long_seat_names_fit_their_room_and_round_buttons_follow_the_ends(browser, mexican_game, tmp_path):
    """A checker's ppo:PATH seat names ran over the marker badges and the first tiles, and the
    previous-round button was enabled (doing nothing) at the first frame."""
    long = "ppo:/home/someone/checkpoints/mexican_train_4p_d12_action_scores"
    page, errors, _ = _open(browser, dict(mexican_game, seats=[long, "greedy", long]), tmp_path)
    assert page.locator("#prevround").is_disabled() and not page.locator("#nextround").is_disabled()
    assert page.evaluate("LABEL") == 360  # the label column widens for long names, up to 360 px
    label_room = 360 - 16  # LABEL - 16: the hands' labels; the trains' stop before the marker badge
    widths = page.evaluate("""() => [...document.querySelectorAll('#hands text, #table text')]
        .filter(t => t.querySelector('title')).map(t => [t.getComputedTextLength(), t.querySelector('title').textContent,
                                                         t.getBBox().x + t.getComputedTextLength()])""")
    assert len(widths) >= 4 and all(long in full for _, full, _ in widths)  # 2 trains + 2 hands
    assert all(0 < width <= label_room and right <= 8 + label_room for width, _, right in widths)
    assert page.locator('[data-hand-size="1"]').text_content() is not None
    page.keyboard.press("End")
    assert page.locator("#nextround").is_disabled() and not page.locator("#prevround").is_disabled()
    assert errors == []


def test_a_right_to_left_override_in_a_seat_name_stays_inside_it(browser, mexican_game, tmp_path):
    """A seat name with U+202E (right-to-left override) reversed the "to play" after it: names
    are bidi isolates, also when shortened to their room (seat 1's)."""
    # seat 2: a PDI of its own closed the isolate early, an isolate initiator left it open
    names = ["\u202eevil", "\u202e" + "x" * 80, "\u2069\u202eevil\u2066"]
    page, errors, _ = _open(browser, dict(mexican_game, seats=names), tmp_path)
    # the "to play" label: its text and the x of its "t" and its "y" (left to right, as written)
    probe = """() => {
        const t = [...document.querySelectorAll('#hands text')].find(t => t.textContent.includes('to play'));
        if (!t) return null;
        const shown = [...t.childNodes].filter(n => n.nodeName !== 'title').map(n => n.textContent).join('');
        const span = t.querySelector('tspan'), n = span.getNumberOfChars();  // "... to play": its "t" is n - 7
        return [shown, span.getStartPositionOfChar(n - 7).x, span.getStartPositionOfChar(n - 1).x];
    }"""
    seen = {}
    for _ in range(12):  # the first frames: seats 0, 1 and 2 take their turns
        label = page.evaluate(probe)
        if label:
            seen[label[0][:6]] = label
        page.keyboard.press("ArrowRight")
    assert set(seen) == {"seat 0", "seat 1", "seat 2"} and "\u2026" in seen["seat 1"][0], seen
    assert all(x_t < x_y for _, x_t, x_y in seen.values()), seen
    # the move lines, written in Python: the same isolates, without the names' own controls
    moves = [t for t in page.evaluate("() => D.frames.map(f => f.text)") if t.startswith("seat 0")]
    assert moves and all(t.startswith("seat 0 (\u2068evil\u2069): ") for t in moves), moves[:2]
    assert errors == []


def _random_record(env, seed: int) -> dict:
    env.reset(seed=seed)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env.to_record()


#: Whether each open end is on screen, inside its row's scroller and not covered (by its centre).
_ENDS_IN_VIEW = """() => [...document.querySelectorAll('#table [data-end]')].map(e => {
    const r = e.getBoundingClientRect(), box = e.closest('.scroll').getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return [e.dataset.end, r.left >= box.left && r.right <= box.right && r.right <= innerWidth && hit === e];
})"""


def test_long_trains_keep_their_open_ends_in_view(browser, tmp_path):
    """A user trial: a double-18 round's trains grew ~4,700 px wide in one scroller left at the
    start, so no open end was on screen. Each train now scrolls to its end at every frame, says how
    many earlier tiles are out of view, and scrolls back to show them."""
    record = _random_record(mexican_train_v0.raw_env(num_players=2, max_pip=18), 1)
    page, errors, _ = _open(browser, record, tmp_path)
    frames = page.evaluate("() => D.frames.length")
    assert max(len(t["tiles"]) for t in frames_from_record(record)[-1]["trains"]) * 48 > 2 * 1400
    for index in [*range(0, frames, 40), frames - 1]:
        page.locator("#slider").fill(str(index))
        assert page.locator("body").get_attribute("data-frame") == str(index)
        ends = page.evaluate(_ENDS_IN_VIEW)
        assert len(ends) == 3 and all(shown for _, shown in ends), (index, ends)
    row = page.locator('.trow[data-train="mexican"]')
    hidden = int(row.get_attribute("data-hidden"))
    assert hidden > 10 and f"+{hidden} earlier" in row.locator("svg.label").text_content()
    row.locator(".scroll").evaluate("s => s.scrollTo(0, 0)")  # the user scrolls back: the whole train
    page.wait_for_function("() => document.querySelector('.trow[data-train=mexican]').dataset.hidden === '0'")
    first = row.locator(".tile").first.bounding_box()
    assert first["x"] >= row.locator(".scroll").bounding_box()["x"] and first["x"] + first["width"] < 1400
    assert "earlier" not in row.locator("svg.label").text_content()
    assert errors == []


def test_labels_of_eliminated_seats_and_unmarked_trains_are_whole(browser, tmp_path):
    """A user trial: "seat 0 (human): out of t\u2026", and "seat 2 (search:\u2026" cut short with no
    marker badge beside it. Names take the room there is (the label column widens to fit them)."""
    env = mexican_train_v0.raw_env(num_players=3, max_pip=9, episode="game", game_end="elimination",
                                   elimination_limit=20)  # fmt: skip
    names = ["human", "search:determinized,200", "greedy"]
    record = dict(_game_record(env, 3), seats=names)
    out = next(i for i, f in enumerate(frames_from_record(record)) if not f["active"][0] and f["to_play"] is not None)
    page, errors, _ = _open(browser, record, tmp_path)
    page.locator("#slider").fill(str(out))
    texts = page.evaluate("""() => [...document.querySelectorAll('#table text, #hands text')]
        .map(t => [t.textContent, t.getBBox().x + t.getComputedTextLength()])""")
    assert not [t for t, _ in texts if "\u2026" in t], texts
    assert "out of the game" in page.locator("#table").text_content()
    assert [t for t, right in texts if "search:determinized,200" in t and right <= page.evaluate("LABEL") - 8]
    label = page.locator('.trow[data-train="0"] svg.label')
    assert label.locator("text").all_text_contents() == ["seat 0 (\u2068human\u2069)", "out of the game"]
    assert label.locator("title").first.text_content() == "seat 0 (\u2068human\u2069): out of the game"
    for s in range(37, 40):  # frames with a marker badge beside a name: no name is cut either
        page.locator("#slider").fill(str(s))
        assert "marker" in page.locator("#table").text_content()
        assert "\u2026" not in page.locator("#table").text_content() + page.locator("#hands").text_content()
    assert errors == []


def test_a_seed_past_2_to_the_53_is_shown_exactly(browser, cuban_game, tmp_path):
    """A user trial: ``domino-play --seed 123456789012345678901234567890`` showed ``seed
    1.2345678901234568e+29`` (a JavaScript number); the page gets the seed as a string. A seed
    that did not deal the record's deals (here: edited in) is marked (test_replay_html_seed.py)."""
    seed = 123456789012345678901234567890
    page, errors, _ = _open(browser, dict(cuban_game, seed=seed), tmp_path)
    assert (f" \u00b7 seed {seed} (the deals are not this seed's: an edited record, or deals given to reset) "
            "\u00b7 ") in page.locator("#rules").text_content() and errors == []  # fmt: skip
    page, errors, _ = _open(browser, cuban_game, tmp_path)  # the seed that dealt it: no mark
    assert " \u00b7 seed 2 \u00b7 " in page.locator("#rules").text_content() and errors == []
    page, errors, _ = _open(browser, dict(cuban_game, seed=None), tmp_path)
    assert " \u00b7 no seed \u00b7 " in page.locator("#rules").text_content() and errors == []


#: Per train row: its label's right edge and whether a whole tile is inside its scroller, right of the label.
_WHOLE_TILES = """() => [...document.querySelectorAll('#table .trow')].map(row => {
    const label = row.querySelector('svg.label').getBoundingClientRect();
    const box = row.querySelector('.scroll').getBoundingClientRect();
    const whole = [...row.querySelectorAll('.tile')].filter(t => { const r = t.getBoundingClientRect();
        return r.left >= box.left && r.left >= label.right && r.right <= box.right && r.right <= innerWidth; });
    return [row.dataset.train, label.width, whole.length];
})"""


def _resize(page, width: int, height: int) -> None:
    """Resize the window and wait for a frame: its resize event (and the page's redraw) runs before it."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(f"() => innerWidth === {width}")
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => done()))")


def test_a_narrow_window_shows_tiles_beside_the_labels(browser, tmp_path):
    """A tester's 420 px window on 8 seats with long names: the 360 px label column (set at load)
    left each train row its open end and "+N earlier", no tile. The column now takes at most 40%
    of the table, recomputed on resize, and widens again in a wide window."""
    names = [f"ppo:/home/someone/checkpoints/mexican_train_8p_d15_seat{s}" for s in range(8)]
    record = dict(_game_record(mexican_train_v0.raw_env(num_players=8, max_pip=15), 5), seats=names)
    page, errors, _ = _open(browser, record, tmp_path)
    last = page.evaluate("() => D.frames.length - 1")
    page.locator("#slider").fill(str(last))
    assert page.evaluate("LABEL") == 360 and all(w == 360 and n > 0 for _, w, n in page.evaluate(_WHOLE_TILES))
    for reload in (False, True):  # narrowed by a resize, and loaded narrow
        _resize(page, 420, 900)
        if reload:
            page.reload()
            page.locator("#slider").fill(str(last))
        table = page.evaluate("document.getElementById('table').clientWidth")
        rows = page.evaluate(_WHOLE_TILES)
        assert len(rows) == 9 and all(130 <= w <= 0.4 * table and n >= 1 for _, w, n in rows), (reload, table, rows)
        assert all(shown for _, shown in page.evaluate(_ENDS_IN_VIEW)), reload
        sub = page.locator('.trow[data-train="mexican"] svg.label text').nth(1)
        assert sub.evaluate("t => t.getBBox().x + t.getComputedTextLength()") <= page.evaluate("LABEL") - 8
        assert names[0] in page.locator('.trow[data-train="0"] svg.label text title').first.text_content()
        _resize(page, 1400, 1000)  # wide again: the whole column
        assert page.evaluate("LABEL") == 360 and all(w == 360 and n > 0 for _, w, n in page.evaluate(_WHOLE_TILES))
    assert errors == []


def test_the_scores_table_shows_a_seat_name_as_the_labels_do(browser, cuban_game, tmp_path):
    """The scores table's player cell took the name raw: a right-to-left override showed "evil"
    as "live", and a 300-character name without spaces widened the page to 3,000 px."""
    names = ["\u202eevil", "x" * 300, "", "greedy"]
    page, errors, _ = _open(browser, dict(cuban_game, seats=names), tmp_path)
    cells = page.evaluate("() => [...document.querySelectorAll('#scores td.player')].map(c => [c.textContent, c.title])")
    assert cells == [["evil", "evil"], ["x" * 300, "x" * 300], ["", ""], ["greedy", "greedy"]]
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    assert page.evaluate("document.querySelector('#scores td.player[title^=x]').getBoundingClientRect().width") <= 360 + 12  # its padding
    assert errors == []
