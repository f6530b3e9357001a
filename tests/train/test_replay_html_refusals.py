"""``python -m train.replay_html``'s refusals: bad records and output paths are one line on stderr
and exit status 2, and the records it refuses are refused by ``records.replay`` too (split from
``test_replay_html.py``, whose game helpers these tests use)."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_replay_html import _cli, _game_record

from domino_env.core.records import replay, save_record
from domino_env.envs import line_v0


@pytest.fixture(scope="module")
def cuban_game() -> dict:
    return _game_record(line_v0.raw_env(preset="cuban", episode="game"), 2)


def _bad_records(tmp_path: Path, record: dict) -> dict[str, Path]:
    paths = {}
    paths["corrupt"] = tmp_path / "corrupt.json"
    paths["corrupt"].write_text('{"format": "domino_env.record/1", "actions": [1, 2')
    paths["not a record"] = tmp_path / "other.json"
    paths["not a record"].write_text('{"hello": 1}')
    bad = dict(record, actions=[*record["actions"][:5], 10_000])
    paths["illegal"] = tmp_path / "illegal.json"
    save_record(bad, paths["illegal"])
    paths["string action"] = tmp_path / "string.json"
    save_record(dict(record, actions=[*record["actions"][:3], "2", *record["actions"][4:]]), paths["string action"])
    paths["binary"] = tmp_path / "binary.json"
    paths["binary"].write_bytes(b"\xff\xfe\x00garbage")
    return paths


def test_cli_refuses_bad_records_and_paths_in_one_line(cuban_game, tmp_path):
    paths = _bad_records(tmp_path, cuban_game)
    notes = tmp_path / "notes.txt"  # not a page: kept (it was overwritten)
    notes.write_text("mine")
    fifo = tmp_path / "pipe.html"  # writing it waited for a reader for ever
    os.mkfifo(fifo)
    dangling = tmp_path / "dangling.page"  # writing it failed after the replay, with exit status 1
    dangling.symlink_to(tmp_path / "gone" / "x.html")
    result = tmp_path / "tournament.json"  # a new user gave domino-evaluate's --json file
    result.write_text(json.dumps({"agents": ["greedy"], "episodes": 2, "stats": []}))
    cases = [
        ((str(result),), "(it has no 'format' field; it is a tournament result: give a game record, as "
                         "domino-play --record or env.to_record() writes it)"),
        ((str(paths["corrupt"]),), "is not valid JSON"),
        ((str(paths["not a record"]),), "not a game record of format"),
        ((str(paths["illegal"]),), f"record {paths['illegal']}: move 6 (actions[5], 0-based) does not replay: "),
        ((str(paths["string action"]),), "move 4 (actions[3], 0-based) does not replay: an action must be an integer, got '2' (str)"),
        ((str(tmp_path),), f"record {tmp_path} is a folder; give a record file"),
        ((str(paths["binary"]),), "is not a text (JSON) file"),
        ((str(tmp_path / "missing.json"),), "no such file"),
        ((str(paths["illegal"]), "-o", str(tmp_path / "no" / "x.html")), "folder"),
        ((str(paths["illegal"]), "-o", str(paths["illegal"])), "would overwrite the record"),
        ((str(paths["corrupt"]), "-o", str(tmp_path)), f"--output {tmp_path} is a folder"),
        ((str(paths["illegal"]), "-o", str(notes)), "the file exists and is not a replay page"),
        ((str(paths["illegal"]), "-o", str(fifo)), "exists and is not a regular file"),
        ((str(paths["string action"]), "-o", ""), "--output: give the HTML file to write (got an empty name)"),
        ((str(paths["illegal"]), "-o", str(dangling)), f"is a link to {tmp_path / 'gone' / 'x.html'}, which does not exist"),
    ]
    for args, message in cases:
        out = _cli(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert message in out.stderr, (args, out.stderr)
        assert "Traceback" not in out.stderr
        # the hint only where an option is wrong (-o); a user trial found it on some record errors
        assert ("(domino-replay-html --help lists every option)" in out.stderr) == ("-o" in args), (args, out.stderr)
    assert not [p for p in tmp_path.glob("*.html") if p != fifo] and notes.read_text() == "mine"


def test_edited_records_are_refused_by_replay_and_the_page(cuban_game, tmp_path):
    """A checker's edited records made pages that contradicted the record (a block page titled
    Cuban, a round episode replayed as 13 rounds, a deal appended after the end) or a broken page
    (NaN, which Python's json reads); each is now one line, exit 2, and replay() refuses it too."""
    from domino_env.core.errors import RecordError
    from domino_env.envs import block_v0

    block = block_v0.raw_env()
    block.reset(seed=5)
    while not block.game_state.round_over:
        block.step(int(block.game_state.legal_actions()[0]))
    round_record = block.to_record()
    other = block_v0.raw_env()
    other.reset(seed=6)
    as_round = dict(cuban_game, env_kwargs=dict(cuban_game["env_kwargs"], episode="round"))
    cases = {
        "nan": (None, "is not valid JSON: NaN is not a JSON value"),
        "renamed": (dict(round_record, env_id="dominoes/cuban-v0"),
                    "env id 'dominoes/cuban-v0' plays preset 'cuban', the record's env_kwargs say 'block'"),
        "as round": (as_round, "comes after the end of the record's episode"),
        "extra deal": (dict(round_record, deals=[*round_record["deals"], other.to_record()["deals"][0]]),
                       "1 deal(s) beyond the end of the record's episode"),
        "seats": (dict(round_record, seats=["human", {"a": 1}]), "record field 'seats' must be a list of 4 names"),
        # a user trial: "comes after the end of the record's episode" for a game whose round 2 deal was cut
        "missing deal": (dict(cuban_game, deals=cuban_game["deals"][:1]),
                         "needs a deal for the round after round 1, and the record has only 1 deal(s): one is missing"),
        # a user trial: a seed of "abc" made a page; what env.reset(seed=...) takes: null or an int >= 0
        **{f"seed {value!r}": (dict(round_record, seed=value), "record field 'seed' must be null or an integer "
                               f">= 0 (the seed env.reset took), got {value!r} ({type(value).__name__})")
           for value in ("abc", True, -1, 5.0, [5])},
        "newer format": (dict(round_record, format="domino_env.record/2"),
                         "not a game record of format 'domino_env.record/1' (its format is 'domino_env.record/2')"),
    }  # fmt: skip
    for name, (record, message) in cases.items():
        path = tmp_path / f"{re.sub(r'[^a-z0-9]+', '_', name.lower())}.json"
        if record is None:
            path.write_text(json.dumps(round_record).replace('"seed": 5', '"seed": NaN'))
        else:
            save_record(record, path)
            if name != "seats":  # the page's own field; replay() reads the game only
                with pytest.raises(RecordError, match=re.escape(message)):
                    list(replay(record))
        out = _cli(str(path))
        message = message.replace("record field ", f"record {path}: field ", 1)  # the file named, "record" once
        assert out.returncode == 2 and message in out.stderr and out.stderr.count("\n") == 1, (name, out.stderr)
    assert not list(tmp_path.glob("*.html"))
    for seed in (None, 0, 2**40):  # what the env writes: the page is made
        save_record(dict(round_record, seed=seed), path)
        assert _cli(str(path), "-o", str(tmp_path / "ok.html")).returncode == 0
    assert len(list(replay(round_record))) == len(round_record["actions"]) + 1  # the unedited one replays


def test_truncated_and_odd_records_are_checked_too(tmp_path):
    """A re-check found the end-of-episode checks skipped for truncated episodes, and loose fields."""
    from domino_env.core.errors import RecordError
    from domino_env.envs import draw_v0

    env = draw_v0.raw_env(max_steps=7)
    env.reset(seed=1)
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    record = env.to_record()
    assert len(record["actions"]) == 7 and len(list(replay(record))) == 8  # the truncated record replays
    other = draw_v0.raw_env()
    other.reset(seed=2)
    legal_next = list(replay(record))[-1].legal_actions()[0]
    cases = {
        "8th action": (dict(record, actions=[*record["actions"], legal_next]), "its env_kwargs' max_steps=7 ends"),
        "extra deal": (dict(record, deals=[*record["deals"], other.to_record()["deals"][0]]), "1 deal(s) beyond"),
        "episode": (dict(record, env_kwargs=dict(record["env_kwargs"], episode="bogus")),
                    "'env_kwargs': invalid argument 'episode': got 'bogus'; allowed: one of ('round', 'game')"),
        # the env options raw_env(**env_kwargs) refuses: replay took them (the env then did not)
        "reward": (dict(record, env_kwargs=dict(record["env_kwargs"], reward="xx")),
                   "'env_kwargs': invalid argument 'reward': got 'xx'; allowed: one of ('outcome', 'points')"),
        "render mode": (dict(record, env_kwargs=dict(record["env_kwargs"], render_mode="xx")),
                        "'env_kwargs': invalid argument 'render_mode': got 'xx'"),
        "max steps": (dict(record, env_kwargs=dict(record["env_kwargs"], max_steps="5")),
                      "'env_kwargs': invalid argument 'max_steps': got '5'"),
        "max cycles": (dict(record, env_kwargs=dict(record["env_kwargs"], max_cycles=0)),
                       "'env_kwargs': invalid argument 'max_cycles': got 0"),
        "rules": (dict(record, env_kwargs=dict(record["env_kwargs"], max_pip=7)),
                  " has invalid rules or an invalid first deal: "),
    }  # fmt: skip
    for name, (bad, message) in cases.items():
        with pytest.raises(RecordError, match=re.escape(message)):
            list(replay(bad))
        path = tmp_path / f"{re.sub(r'[^a-z0-9]+', '_', name.lower())}.json"
        save_record(bad, path)
        out = _cli(str(path))
        assert out.returncode == 2 and message in out.stderr, (name, out.stderr)
        assert "--help lists every option" not in out.stderr  # the record is wrong, not an option
        if name == "rules":  # "record" said once ("record r.json: the record's rules ..." said it twice)
            assert f"error: record {path} has invalid rules or an invalid first deal: " in out.stderr


def test_a_deal_removed_from_the_middle_of_a_game_is_named():
    """A user trial: a middle deal cut from a whole-game record gave a bare DealError (no position,
    not a RecordError) or 'move 33 (actions[32], 0-based) does not replay: illegal action ...' with no word of deals."""
    from domino_env.core.errors import RecordError
    from domino_env.envs import mexican_train_v0

    env = mexican_train_v0.raw_env(num_players=4, episode="game", game_end="elimination", elimination_limit=60)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _, done, cut, _ = env.last()
        env.step(None if done or cut else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    record = env.to_record()
    assert len(record["deals"]) == 3
    cut_middle = dict(record, deals=[record["deals"][0], record["deals"][2]])
    with pytest.raises(RecordError, match=r"deals\[1\], the deal after move \d+ \(actions\[\d+\], 0-based\), does not fit the game so far: "
                       r".*\(a deal missing or altered\?\)"):  # fmt: skip
        list(replay(cut_middle))
    draw = line_v0.raw_env(preset="draw", episode="game", target_score=60)
    draw.reset(seed=2)
    for _agent in draw.agent_iter():
        obs, _, done, cut, _ = draw.last()
        draw.step(None if done or cut else int(np.flatnonzero(obs["action_mask"])[0]))
    game = draw.to_record()
    assert len(game["deals"]) >= 3
    with pytest.raises(RecordError) as info:
        list(replay(dict(game, deals=[game["deals"][0], *game["deals"][2:]])))
    assert "a deal" in str(info.value) and "missing" in str(info.value)


def test_a_mexican_train_deal_without_its_first_player_is_a_record_error(tmp_path):
    """A checker's edit: a record whose first deal lost ``first_player`` gave AttributeError
    ('NoneType' object has no attribute 'integers': the engine drew the seat from the missing
    random generator) from replay(), and that text as the page's one line."""
    from domino_env.core.errors import RecordError
    from domino_env.envs import mexican_train_v0

    env = mexican_train_v0.raw_env()
    env.reset(seed=7)
    record = env.to_record()
    message = "the deal gives no first_player and none is configured"
    for first in ("delete", None):
        deal = {k: v for k, v in record["deals"][0].items() if k != "first_player"}
        if first is None:
            deal["first_player"] = None
        bad = dict(record, deals=[deal])
        with pytest.raises(RecordError, match=re.escape(message)):
            list(replay(bad))
        path = tmp_path / "no_first.json"
        save_record(bad, path)
        out = _cli(str(path))
        assert out.returncode == 2 and message in out.stderr and "NoneType" not in out.stderr, out.stderr
    held = dict(record, env_kwargs=dict(record["env_kwargs"], station_source="highest_held"))
    deal = {k: v for k, v in record["deals"][0].items() if k not in ("first_player", "station")}
    hands = deal["hands"]
    hands[0] = [*hands[0], [12, 12]]  # the set-aside station goes to seat 0: the rule makes it first
    states = list(replay(dict(held, deals=[deal])))
    assert states[0].station == 12 and states[0].current_player == 0


def test_the_page_functions_refuse_a_malformed_record_as_replay_does(cuban_game):
    """A checker's fuzzing: ``render_html`` / ``page_data`` / ``frames_from_record`` (the API of the
    page, which the CLI reaches only after ``load_record``'s checks) raised KeyError 'actions' or
    TypeError for a record missing a field, where ``replay`` says what is wrong."""
    from domino_env.core.errors import RecordError
    from domino_env.train.replay_html import frames_from_record, page_data, render_html

    cases = {
        "record lacks 'actions'": {k: v for k, v in cuban_game.items() if k != "actions"},
        "record field 'deals' must be a JSON list, got int": dict(cuban_game, deals=3),
        "record field 'env_kwargs' must be a JSON object, got list": dict(cuban_game, env_kwargs=[1]),
        "a JSON list, not an object": [cuban_game],
    }
    for message, record in cases.items():
        for call in (replay, frames_from_record, page_data, render_html):
            with pytest.raises(RecordError, match=re.escape(message)):
                list(call(record)) if call is replay else call(record)


def test_the_title_names_the_rules_a_record_leaves_to_their_defaults():
    """A record whose env_kwargs left out max_pip (or the preset) replayed with the defaults but
    was titled "Block dominoes (double-?) replay" / "Mexican Train (, double-?) replay"."""
    from domino_env.train.replay_html import title_of

    block = {"env_id": "dominoes/block-v0", "env_kwargs": {"episode": "round"}}
    assert title_of(block) == "Block dominoes (double-6) replay"
    mexican = {"env_id": "dominoes/mexican_train-v0", "env_kwargs": {"episode": "round"}}
    assert title_of(mexican) == "Mexican Train (domino_cubano, double-12) replay"


def test_an_endless_file_a_replay_page_and_a_gzip_record(cuban_game, tmp_path):
    """A user trial: ``/dev/zero`` as the record was read whole until the machine ran out of
    memory; a replay page given as the record was refused as "would overwrite the record"."""
    out = _cli("/dev/zero", "-o", str(tmp_path / "z.html"))
    assert out.returncode == 2 and "record /dev/zero holds more than 64 MiB: not a game record" in out.stderr
    assert out.stderr.count("\n") == 1 and not (tmp_path / "z.html").exists()
    save_record(cuban_game, tmp_path / "game.json.gz")  # compressed, as its name asks
    assert (tmp_path / "game.json.gz").read_bytes()[:2] == b"\x1f\x8b"
    out = _cli(str(tmp_path / "game.json.gz"))  # the page of game.json.gz is game.html (was game.json.html)
    assert out.returncode == 0 and out.stdout.startswith(f"wrote {tmp_path / 'game.html'}: "), out.stdout + out.stderr
    out = _cli(str(tmp_path / "game.html"))
    assert out.returncode == 2, out.stderr
    assert f"record {tmp_path / 'game.html'} is a replay page, not a game record; give the record (JSON)" in out.stderr
    assert "--help" not in out.stderr  # as with -o below: the record is wrong, not an option
    out = _cli(str(tmp_path / "game.html"), "-o", str(tmp_path / "other.html"))  # (said "not valid JSON")
    assert out.returncode == 2, out.stderr
    assert f"record {tmp_path / 'game.html'} is a replay page, not a game record" in out.stderr
    packed = tmp_path / "game.html.gz"  # a page kept compressed (was "not valid JSON")
    packed.write_bytes(gzip.compress((tmp_path / "game.html").read_bytes()))
    out = _cli(str(packed), "-o", str(tmp_path / "other.html"))
    assert out.returncode == 2 and f"record {packed} is a replay page, not a game record; give the record" in out.stderr
    out = _cli(str(tmp_path / "game.json.gz"), "-o", str(packed))  # a compressed page is no output to replace
    assert out.returncode == 2 and "the file exists and is not a replay page" in out.stderr, out.stderr
    packed.write_bytes(packed.read_bytes()[:100])  # a damaged .gz: not a page, the record's own message
    out = _cli(str(packed), "-o", str(tmp_path / "other.html"))
    assert out.returncode == 2 and f"record {packed} is a damaged gzip file (" in out.stderr, out.stderr


def test_a_move_after_the_records_max_cycles_is_refused_as_records_replay_refuses_it():
    """The page played on past the record's max_cycles, where records.replay and --resume stop."""
    from domino_env.core.errors import RecordError
    from domino_env.envs import block_v0
    from domino_env.train.replay_html import frames_from_record

    env = block_v0.raw_env(max_cycles=2)
    env.reset(seed=3)
    while not env.truncations[env.agent_selection]:
        env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))
    record = env.to_record()
    n = len(record["actions"])
    assert len(frames_from_record(record)) == n + 1  # the record as written: every move shown
    record["actions"].append(record["actions"][-1])
    with pytest.raises(RecordError, match=re.escape(f"max_cycles=2 ends the episode after move {n} (actions[{n - 1}], 0-based)")):
        frames_from_record(record)


def test_the_default_page_name_keeps_records_apart():
    """An attacker's trial: seed.7.gz and seed.8.gz both wrote seed.html, the second over the first."""
    from domino_env.train.replay_html import default_page

    names = {"game.json": "game.html", "game.json.gz": "game.html", "G.JSON.GZ": "G.html", "seed.7.gz": "seed.7.html",
             "seed.8": "seed.8.html", "x.gz": "x.html", "rec": "rec.html", "d/x.txt": "d/x.txt.html"}  # fmt: skip
    assert {name: str(default_page(Path(name))) for name in names} == names


def test_a_refused_default_page_is_not_called_output(cuban_game, tmp_path):
    """Without -o the messages said "--output game.html: ..." of a flag the user never typed."""
    save_record(cuban_game, tmp_path / "game.json")
    (tmp_path / "game.html").write_text("my notes")
    out = _cli(str(tmp_path / "game.json"))
    assert out.returncode == 2 and (tmp_path / "game.html").read_text() == "my notes"
    assert (f"the page {tmp_path / 'game.html'}: the file exists and is not a replay page (it would be overwritten); "
            "give another name with --output") in out.stderr  # fmt: skip
    (tmp_path / "game.html").unlink()
    (tmp_path / "game.html").mkdir()
    assert f"the page {tmp_path / 'game.html'} is a folder; give the HTML file to write with --output" in \
        _cli(str(tmp_path / "game.json")).stderr  # fmt: skip
    (tmp_path / "game.html").rmdir()
    (tmp_path / "game.html").symlink_to(tmp_path / "game.json")  # the default page is the record itself
    assert f"the page {tmp_path / 'game.html'} would overwrite the record; give the page to write with --output" in \
        _cli(str(tmp_path / "game.json")).stderr  # fmt: skip


def test_a_missing_output_folder_is_named_in_full_as_the_other_commands_name_it(cuban_game, tmp_path):
    """A user trial: ``-o nodir/x.html`` said "folder nodir does not exist" where domino-evaluate
    and domino-play name the folder's full path."""
    save_record(cuban_game, tmp_path / "game.json")
    out = subprocess.run([sys.executable, "-m", "domino_env.train.replay_html", "game.json", "-o", "nodir/x.html"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)  # fmt: skip
    assert out.returncode == 2 and out.stderr == (
        f"domino-replay-html: error: --output nodir/x.html: folder {tmp_path / 'nodir'} does not exist "
        "(domino-replay-html --help lists every option)\n")


@pytest.mark.parametrize(("given", "said"), [("", "stdin gave nothing (0 bytes)"),
                                             ("  \n\n", "stdin gave only white space (4 bytes)")])  # fmt: skip
def test_empty_stdin_says_what_stdin_gave(tmp_path, given, said):
    """A blank stdin is not "nothing" (it said "stdin gave nothing (4 bytes)")."""
    out = subprocess.run([sys.executable, "-m", "train.replay_html", "-", "-o", str(tmp_path / "p.html")], input=given,
                         capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2], timeout=120)  # fmt: skip
    assert out.returncode == 2 and out.stderr.strip().endswith(f"error: record - is empty: {said}"), out.stderr


def test_telling_a_page_reads_a_large_file_in_pieces(tmp_path):
    """A 1 GiB file given as the record (refused: over 64 MiB) was read whole into memory to tell
    whether it is a replay page (1.1 GB resident); it is read a piece at a time, and a mark that
    spans two pieces is still found, in a plain or a gzip file."""
    import tracemalloc

    from domino_env.train.replay_html import PAGE_MARK, is_replay_page

    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(200 * 2**20)  # sparse: no disk used
    tracemalloc.start()
    try:
        assert not is_replay_page(big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, peak
    for at in (2**20 - 10, 3 * 2**20 - 1):  # across a 1 MiB boundary
        page = b" " * at + PAGE_MARK.encode() + b"\n</html>\n"
        (tmp_path / "p.html").write_bytes(page)
        (tmp_path / "p.html.gz").write_bytes(gzip.compress(page))
        assert is_replay_page(tmp_path / "p.html") and is_replay_page(tmp_path / "p.html.gz", compressed=True)
        assert not is_replay_page(tmp_path / "p.html.gz")  # as an output: plain HTML would replace it
        (tmp_path / "p.html").write_bytes(page.replace(b"rules engine", b"rules_engine"))
        assert not is_replay_page(tmp_path / "p.html")


def test_a_piped_replay_page_is_named_a_page(cuban_game, tmp_path):
    """A page piped in (``cat game.html | domino-replay-html - -o x.html``, plain or gzip, or a
    ``<(...)`` pipe by its path) read "not valid JSON": a pipe's bytes are now read once and both
    parsed and searched for the page's mark. A record piped in still makes its page; a closed
    stdin said "record /dev/stdin: no such file"."""
    root = Path(__file__).resolve().parents[2]
    save_record(cuban_game, tmp_path / "game.json")
    assert _cli(str(tmp_path / "game.json")).returncode == 0
    page = (tmp_path / "game.html").read_bytes()
    said = "domino-replay-html: error: record {} is a replay page, not a game record; give the record (JSON) it was made from\n"
    for given in (page, gzip.compress(page)):
        out = subprocess.run([sys.executable, "-m", "train.replay_html", "-", "-o", str(tmp_path / "x.html")],
                             input=given, capture_output=True, cwd=root, timeout=120)  # fmt: skip
        assert (out.returncode, out.stderr.decode()) == (2, said.format("-")) and not (tmp_path / "x.html").exists()
    fifo = tmp_path / "page.fifo"  # what bash's <(cat game.html) gives: a pipe by its path
    os.mkfifo(fifo)
    cmd = [sys.executable, "-m", "train.replay_html", str(fifo), "-o", str(tmp_path / "x.html")]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, cwd=root)
    with open(fifo, "wb") as f:
        f.write(page)
    assert (proc.wait(timeout=120), proc.stderr.read().decode()) == (2, said.format(fifo))
    proc.stderr.close()
    with open(tmp_path / "game.html", "rb") as page_in:  # stdin redirected from the page -o names: "-", not /dev/stdin
        out = subprocess.run([sys.executable, "-m", "train.replay_html", "-", "-o", str(tmp_path / "game.html")],
                             stdin=page_in, capture_output=True, cwd=root, timeout=120)  # fmt: skip
    assert (out.returncode, out.stderr.decode()) == (2, said.format("-"))
    out = subprocess.run([sys.executable, "-m", "train.replay_html", "-", "-o", str(tmp_path / "x.html")],
                         input=(tmp_path / "game.json").read_bytes(), capture_output=True, cwd=root, timeout=120)  # fmt: skip
    assert out.returncode == 0 and (tmp_path / "x.html").read_bytes() == page, out.stderr
    out = subprocess.run([sys.executable, "-m", "train.replay_html", "-", "-o", str(tmp_path / "y.html")],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=root, timeout=120,
                         preexec_fn=lambda: os.close(0))  # fmt: skip
    assert (out.returncode, out.stderr) == (2, "domino-replay-html: error: record -: stdin is closed (nothing to read)\n")
