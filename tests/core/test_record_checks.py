"""What ``load_record`` (and so ``replay``) refuses in a record's fields, each message exact and
naming the file: an unknown env id, an env id whose preset the record contradicts, an env option
``raw_env`` refuses, more actions than the record's ``max_steps``, a missing field, a NaN. These
were checked only through the replay page's and ``domino-play --resume``'s slow command tests,
or not at all (a record with more actions than its ``max_steps`` and an invalid ``episode``
loaded and replayed when their checks were removed: mutation testing)."""

from __future__ import annotations

import json
import re

import pytest

from domino_env.core.errors import RecordError
from domino_env.core.records import load_record, record_config, replay, save_record
from domino_env.envs import block_v0

KNOWN = "['dominoes/block-v0', 'dominoes/cuban-v0', 'dominoes/draw-v0', 'dominoes/mexican_train-v0']"


@pytest.fixture(scope="module")
def block_round() -> dict:
    """A whole block round (18 actions, seed 5), as the env records it."""
    env = block_v0.raw_env()
    env.reset(seed=5)
    while not env.game_state.round_over:
        env.step(int(env.game_state.legal_actions()[0]))
    record = env.to_record()
    assert len(record["actions"]) == 18 and record["env_kwargs"]["preset"] == "block"
    return record


def _edit(record: dict, **env_kwargs) -> dict:
    return dict(record, env_kwargs=dict(record["env_kwargs"], **env_kwargs))


CASES = {
    "unknown env id": (lambda r: dict(r, env_id="dominoes/chess-v0"),
                       f"unknown env id 'dominoes/chess-v0'; known: {KNOWN}"),
    "preset of another game": (lambda r: _edit(r, preset="draw"),
                               "env id 'dominoes/block-v0' plays preset 'block', the record's env_kwargs say 'draw'"),
    "invalid episode": (lambda r: _edit(r, episode="games"),
                        "record field 'env_kwargs': invalid argument 'episode': got 'games'; allowed: one of "
                        "('round', 'game')"),
    "invalid max_cycles": (lambda r: _edit(r, max_cycles=0),
                           "record field 'env_kwargs': invalid argument 'max_cycles': got 0; allowed: a positive "
                           "integer (cycles: turns per agent)"),
    "actions beyond max_steps": (lambda r: _edit(r, max_steps=17),
                                 "record has 18 actions; its env_kwargs' max_steps=17 ends the episode before"),
    "no deals field": (lambda r: {k: v for k, v in r.items() if k != "deals"}, "record lacks 'deals'"),
    "no env_kwargs field": (lambda r: {k: v for k, v in r.items() if k != "env_kwargs"}, "record lacks 'env_kwargs'"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_load_record_and_replay_refuse_a_bad_field_with_its_exact_message(case, block_round, tmp_path):
    edit, message = CASES[case]
    record = edit(block_round)
    path = tmp_path / "r.json"
    save_record(record, path)
    named = (f"record {path} {message[7:]}" if message.startswith(("record lacks", "record has"))
             else f"record {path}: {message[7:]}" if message.startswith("record field")
             else f"record {path}: {message}")  # fmt: skip  (the file named once, "record" said once)
    with pytest.raises(RecordError, match="^" + re.escape(named) + "$"):
        load_record(path)
    with pytest.raises(RecordError, match="^" + re.escape(message) + "$"):
        list(replay(record))


def test_a_record_of_exactly_its_max_steps_actions_loads(block_round, tmp_path):
    """The bound of the check above: 18 actions under max_steps=18 is the env's own record."""
    path = tmp_path / "r.json"
    save_record(_edit(block_round, max_steps=18), path)
    assert load_record(path)["actions"] == block_round["actions"]
    assert len(list(replay(load_record(path)))) == 19


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_record_holding_a_nan_or_infinity_is_not_loaded_as_null(constant, block_round, tmp_path):
    """Python's json reads NaN and Infinity, which no record holds (save_record never writes them):
    load_record refuses them instead of reading the seed as null or a float."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps(block_round).replace('"seed": 5', f'"seed": {constant}'))
    with pytest.raises(RecordError, match="^" + re.escape(f"record {path} is not valid JSON: {constant} is not a "
                                                          "JSON value") + "$"):  # fmt: skip
        load_record(path)


def test_record_config_refuses_an_unknown_env_id_and_a_contradicting_preset(block_round):
    """record_config is public (docs/envs.md): called alone, it still refuses a record whose
    game cannot be told, rather than giving Mexican Train rules or the edited preset's."""
    with pytest.raises(RecordError, match="^" + re.escape(f"unknown env id 'dominoes/chess-v0'; known: {KNOWN}") + "$"):
        record_config(dict(block_round, env_id="dominoes/chess-v0"))
    with pytest.raises(RecordError, match="plays preset 'block', the record's env_kwargs say 'draw'$"):
        record_config(_edit(block_round, preset="draw"))
    assert record_config(block_round).preset == "block"


def test_the_size_limit_is_the_documented_64_mib(tmp_path):
    """docs/envs.md: load_record refuses anything over 64 MiB. A JSON file of exactly 64 MiB is
    read (and refused as no record), one of a byte more is refused unread as too large."""
    limit = 64 * 2**20
    exact = tmp_path / "exact.json"
    with open(exact, "wb") as f:
        f.write(b"{}")
        f.write(b" " * (limit - 2))
    with pytest.raises(RecordError, match=re.escape(f"record {exact}: not a game record of format") + ".*no 'format'"):
        load_record(exact)
    over = tmp_path / "over.json"
    with open(over, "wb") as f:
        f.truncate(limit + 1)  # (sparse: nothing written)
    with pytest.raises(RecordError, match="^" + re.escape(f"record {over} holds more than 64 MiB: not a game record") + "$"):
        load_record(over)


def test_a_gzip_record_carries_no_timestamp_and_saves_to_the_same_bytes(block_round, tmp_path):
    """save_record gzips with mtime 0 (gzip's "no time stamp": ``gunzip -N`` keeps the file's own
    time), so saving one record twice gives the same bytes."""
    first, second = tmp_path / "a.json.gz", tmp_path / "b.json.gz"
    save_record(block_round, first)
    save_record(block_round, second)
    data = first.read_bytes()
    assert data[:2] == b"\x1f\x8b" and data[4:8] == b"\0\0\0\0"  # MTIME field (RFC 1952)
    assert data == second.read_bytes() and load_record(first) == block_round


def test_load_record_of_bytes_already_read_names_the_path_it_is_given(block_round, tmp_path):
    """``data``: a pipe's bytes, read once by the caller; the file at ``path`` is not opened (it
    need not exist) and messages name ``path`` as given."""
    save_record(block_round, tmp_path / "r.json.gz")
    packed = (tmp_path / "r.json.gz").read_bytes()
    assert load_record("-", data=packed) == block_round == load_record(tmp_path / "nowhere.json", data=packed)
    with pytest.raises(RecordError, match=re.escape("record - is not valid JSON: Expecting value (line 1)")):
        load_record("-", data=b"<html>")
    with pytest.raises(RecordError, match=re.escape("record - is an empty file (1 byte)")):
        load_record("-", data=b"\n")
