"""The replay page of a record whose seed does not deal its deals (a seed edited by hand, or
deals given to ``env.reset``): shown, its seed marked, and said in one line; ``domino-play
--resume``, which deals the later rounds from the seed, refuses such a record. Real processes."""

from __future__ import annotations

import json
import subprocess
import sys

from test_replay_html import _game_record

from domino_env.core.records import save_record
from domino_env.envs import line_v0
from domino_env.train.replay_html import page_data, seed_deals

NOTE = ("domino-replay-html: note: record {name}: its deals are not the ones seed {seed} deals (an edited record, "
        "or deals given to env.reset); the page's header says so\n")  # fmt: skip


def _run(module: str, *args: str, cwd, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", f"domino_env.train.{module}", *args], input=stdin,
                          capture_output=True, text=True, cwd=cwd, timeout=120)  # fmt: skip


def test_an_edited_seed_is_marked_on_the_page_and_refused_by_resume(tmp_path):
    """A user trial: the header said "seed 6" for a record whose seed was edited from 5, whose
    deals seed 6 does not deal; ``domino-play --resume`` of it is refused."""
    played = _run("play", "--game", "block", "--seed", "5", "--record", "game.json", cwd=tmp_path, stdin="q\n")
    assert played.returncode == 0, played.stderr
    record = json.loads((tmp_path / "game.json").read_text())
    (tmp_path / "edited.json").write_text(json.dumps(dict(record, seed=6)))
    page = _run("replay_html", "edited.json", cwd=tmp_path)
    assert (page.returncode, page.stderr) == (0, NOTE.format(name="edited.json", seed=6))
    assert page.stdout.startswith("wrote edited.html: ")
    assert '"seed":"6","seed_deals":false' in (tmp_path / "edited.html").read_text()
    resumed = _run("play", "--resume", "edited.json", cwd=tmp_path)
    assert (resumed.returncode, resumed.stdout) == (2, "")
    assert resumed.stderr == ("domino-play: error: --resume edited.json: the first deal is not the one seed 6 deals "
                              "(an edited record?) (domino-play --help lists every option)\n")  # fmt: skip
    page = _run("replay_html", "game.json", cwd=tmp_path)  # the record as played: no note
    assert (page.returncode, page.stderr) == (0, "")
    assert '"seed":"5","seed_deals":true' in (tmp_path / "game.html").read_text()


def test_deals_given_to_reset_and_a_record_without_a_seed(tmp_path):
    """``env.reset(seed=4, options={"deals": ...})`` records seed 4 beside deals it did not deal:
    the page is made (the replay reads the deals), its seed marked; a record without a seed has
    nothing to mark. A whole game's later deals are checked too (here dealt by its seed)."""
    game = _game_record(line_v0.raw_env(preset="cuban", episode="game"), 2)
    assert len(game["deals"]) > 1 and seed_deals(game) is True
    env = line_v0.raw_env(preset="cuban", episode="game")
    env.reset(seed=4, options={"deals": game["deals"]})
    for action in game["actions"]:
        while env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.step(None)
        env.step(action)
    given = env.to_record()
    assert (given["seed"], given["deals"]) == (4, game["deals"])
    assert seed_deals(given) is False and page_data(given)["seed_deals"] is False
    save_record(given, tmp_path / "given.json")
    page = _run("replay_html", "given.json", cwd=tmp_path)
    assert (page.returncode, page.stderr) == (0, NOTE.format(name="given.json", seed=4))
    later = dict(game, deals=[*game["deals"][:-1], game["deals"][0]])  # the last round dealt as the first
    assert seed_deals(later) is False
    assert seed_deals(dict(game, seed=None)) is None
    save_record(dict(game, seed=None), tmp_path / "unseeded.json")
    page = _run("replay_html", "unseeded.json", cwd=tmp_path)
    assert (page.returncode, page.stderr) == (0, "")
    assert '"seed":null,"seed_deals":null' in (tmp_path / "unseeded.html").read_text()


def test_each_deal_is_compared_once_not_at_every_move():
    """The check compared every deal so far at every move (moves x deals: 67 s for a 2,121-deal
    draw game whose replay took 3.6 s); each deal is now compared once, when the env deals it, and
    an edit of any one of them, first, middle or last, is still found."""
    game = _game_record(line_v0.raw_env(preset="draw", episode="game", target_score=300), 3)
    n = len(game["deals"])
    assert n >= 4 and len(game["actions"]) > 10 * n

    class Counted(list):
        slices = 0

        def __getitem__(self, key):
            Counted.slices += isinstance(key, slice)
            return super().__getitem__(key)

    assert seed_deals(dict(game, deals=Counted(game["deals"]))) is True
    assert 1 <= Counted.slices <= n  # one slice a new deal (before: one a move)
    for k in (0, n // 2, n - 1):
        edited = json.loads(json.dumps(game))
        hand = edited["deals"][k]["hands"][0]
        hand[0], hand[-1] = hand[-1], hand[0]  # the same tiles in another order: another deal all the same
        assert seed_deals(edited) is False, k


def test_a_long_edited_seed_is_cut_in_the_note_line(tmp_path):
    """An edited seed of 4,001 digits was printed whole: a 4 kB note line. The line shows its
    first 40 digits; the page's header keeps the seed whole."""
    game = _game_record(line_v0.raw_env(preset="block"), 5)
    save_record(dict(game, seed=10**4000), tmp_path / "long.json")
    page = _run("replay_html", "long.json", cwd=tmp_path)
    assert (page.returncode, page.stderr) == (0, NOTE.format(name="long.json", seed="1" + "0" * 39 + "\u2026"))
    assert f'"seed":"{10**4000}","seed_deals":false' in (tmp_path / "long.html").read_text()
