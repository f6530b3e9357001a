"""A record replays as ``raw_env(**record["env_kwargs"])`` plays it: it ends exactly where its
``max_cycles`` truncates the env (property test: for random games and limits, a record replays iff
the env plays all its actions; ``replay`` counts turns as ``envs/base.py`` does), and a record
that names only a preset plays that preset's rules."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino_env.core.errors import RecordError
from domino_env.core.records import record_config, replay, replay_end
from domino_env.envs import cuban_v0, draw_v0, mexican_train_v0

FACTORIES = {
    "mexican_train_3p_game": lambda **k: mexican_train_v0.raw_env(num_players=3, max_pip=9, episode="game", **k),
    "mexican_train_2p": lambda **k: mexican_train_v0.raw_env(num_players=2, max_pip=9, **k),
    "draw_game": lambda **k: draw_v0.raw_env(episode="game", **k),
    "cuban_game": lambda **k: cuban_v0.raw_env(episode="game", **k),
}  # fmt: skip


def _play(env, seed: int) -> None:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while env.agents:
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def _actions_played(env, record: dict) -> int:
    """How many of ``record``'s actions ``env`` plays from its deals before the episode ends."""
    env.reset(options={"deals": record["deals"]})
    done = 0
    for action in record["actions"]:
        if not env.agents or any(env.truncations.values()) or all(env.terminations.values()):
            break
        env.step(action)
        done += 1
    return done


@pytest.mark.parametrize("game", sorted(FACTORIES))
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), limit=st.integers(1, 60))
def test_a_record_replays_exactly_as_far_as_its_max_cycles_lets_the_env(game, seed, limit):
    env = FACTORIES[game](max_cycles=limit)
    _play(env, seed)
    record = env.to_record()
    assert len(list(replay(record))) == len(record["actions"]) + 1  # the env's own record replays whole
    lower = {**record, "env_kwargs": {**record["env_kwargs"], "max_cycles": limit - 1}} if limit > 1 else None
    if lower is None:
        return
    played = _actions_played(FACTORIES[game](max_cycles=limit - 1), record)
    if played == len(record["actions"]):
        assert len(list(replay(lower))) == played + 1
    else:
        with pytest.raises(RecordError, match=f"max_cycles={limit - 1} ends the episode after move {played} \\(actions\\[{played - 1}\\], 0-based\\)$"):
            list(replay(lower))


@pytest.mark.parametrize("game", sorted(FACTORIES))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), limit=st.sampled_from([{}, {"max_cycles": 2}, {"max_cycles": 9},
                                                              {"max_steps": 5}, {"max_steps": 40}]),
       stop=st.integers(0, 80))  # fmt: skip
def test_replay_end_is_replays_last_state_and_says_whether_the_env_truncated(game, seed, limit, stop):
    """replay_end (no copy per action: domino-play's record checks) ends where replay ends, and
    says truncated exactly when the env truncated the episode at that move."""
    env = FACTORIES[game](**limit)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    cut = False  # the env truncated the episode (its agents are then stepped out with None)
    for _ in range(stop):  # the record of a game stopped after `stop` steps, or played out
        if not env.agents:
            break
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        cut = cut or any(env.truncations.values())
    record = env.to_record()
    state, truncated = replay_end(record)
    last = list(replay(record))[-1]
    seen = (state.round_index, state.current_player, state.round_over, list(state.scores), state.num_players)
    assert seen == (last.round_index, last.current_player, last.round_over, list(last.scores), last.num_players)
    assert truncated == cut


@pytest.mark.parametrize(
    "game, env_kwargs, preset",
    [
        ("mexican_train_3p_game", {"preset": "tren_mexicano", "episode": "game"}, "tren_mexicano"),
        ("mexican_train_3p_game", {"episode": "game"}, "domino_cubano"),
        ("cuban_game", {"episode": "game"}, "cuban"),  # the env id's preset
        ("draw_game", {"max_pip": 9}, "draw"),
    ],
)
def test_a_trimmed_record_plays_its_presets_rules_as_the_env_does(game, env_kwargs, preset):
    """A record naming only ``preset`` replayed with the default rules (``from_dict``), where
    ``raw_env(preset=...)`` applies the preset: a real tren_mexicano game was then refused as
    "illegal action"."""
    module = {"mexican_train_3p_game": mexican_train_v0, "cuban_game": cuban_v0, "draw_game": draw_v0}[game]
    env = module.raw_env(**{k: v for k, v in env_kwargs.items() if k != "preset"},
                         **({"preset": env_kwargs["preset"]} if "preset" in env_kwargs else {}))  # fmt: skip
    _play(env, 11)
    record = {**env.to_record(), "env_kwargs": dict(env_kwargs)}  # every other field left to the preset
    assert record_config(record) == env.config and env.config.preset == preset
    states = list(replay(record))
    assert len(states) == len(record["actions"]) + 1
    last, played = states[-1], env.game_state
    assert (last.hands, list(last.scores), last.round_index) == (played.hands, list(played.scores), played.round_index)


def test_a_record_saved_with_a_byte_order_mark_loads_and_a_huge_number_is_named_plainly(tmp_path):
    """Windows Notepad saves UTF-8 with a byte-order mark: json said "Unexpected UTF-8 BOM (decode
    using utf-8-sig)"; a number past Python's digit limit gave its advice to raise the limit."""
    from domino_env.core.records import load_record, save_record

    env = draw_v0.raw_env()
    _play(env, 3)
    path = tmp_path / "r.json"
    save_record(env.to_record(), path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_record(path) == env.to_record()
    path.write_text('{"format": ' + "9" * 5000 + "}")
    with pytest.raises(RecordError, match=r"r.json holds a number of more than 4,300 digits, which no record field takes$"):
        load_record(path)


@pytest.mark.parametrize("preset", ["", 0, False])
def test_a_mexican_train_record_whose_preset_is_falsy_is_refused_as_raw_env_refuses_it(preset):
    """``preset or "domino_cubano"`` replayed a record with ``"preset": ""`` (or 0, False) under
    domino_cubano, where ``raw_env(preset="")`` raises ConfigError (and ``from_dict`` refused it
    before record_config)."""
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9)
    _play(env, 5)
    record = env.to_record()
    record["env_kwargs"]["preset"] = preset
    with pytest.raises(Exception, match="invalid config field 'preset'"):
        mexican_train_v0.raw_env(**record["env_kwargs"])
    with pytest.raises(RecordError, match="invalid config field 'preset'"):
        list(replay(record))


def test_an_empty_record_names_its_size_in_bytes_with_a_byte_order_mark(tmp_path):
    """The size was counted after the byte-order mark was dropped: 6 bytes said "3 bytes"."""
    from domino_env.core.records import load_record

    path = tmp_path / "r.json"
    path.write_bytes(b"\xef\xbb\xbf  \n")
    with pytest.raises(RecordError, match=r"r.json is an empty file \(6 bytes\)$"):
        load_record(path)
    path.write_bytes(b"\n")  # one byte: "(1 byte)", not "(1 bytes)"
    with pytest.raises(RecordError, match=r"r.json is an empty file \(1 byte\)$"):
        load_record(path)


def test_a_gzip_record_loads_as_the_plain_one_and_a_damaged_or_endless_file_is_refused(tmp_path, monkeypatch):
    from domino_env.core import records

    env = draw_v0.raw_env()
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    records.save_record(env.to_record(), tmp_path / "r.json")
    records.save_record(env.to_record(), tmp_path / "r.json.GZ")
    packed = (tmp_path / "r.json.GZ").read_bytes()
    assert packed[:2] == b"\x1f\x8b" and records.load_record(tmp_path / "r.json.GZ") == records.load_record(tmp_path / "r.json")
    records.save_record(env.to_record(), tmp_path / "again.gz")
    assert (tmp_path / "again.gz").read_bytes() == packed  # the same record, the same bytes
    (tmp_path / "cut.gz").write_bytes(packed[: len(packed) // 2])
    with pytest.raises(RecordError, match=r"cut\.gz is a damaged gzip file"):
        records.load_record(tmp_path / "cut.gz")
    monkeypatch.setattr(records, "MAX_RECORD_BYTES", 1000)
    with pytest.raises(RecordError, match="holds more than 0 MiB: not a game record"):
        records.load_record("/dev/zero")
    bomb = tmp_path / "bomb.gz"  # small on disk, too large once decompressed
    bomb.write_bytes(__import__("gzip").compress(b" " * 5000))
    with pytest.raises(RecordError, match="holds more than"):
        records.load_record(bomb)


def test_an_action_after_the_episode_names_itself_and_the_move_that_ended_it():
    env = draw_v0.raw_env()
    _play(env, 5)
    record = env.to_record()
    n = len(record["actions"])
    record["actions"].append(record["actions"][-1])
    with pytest.raises(RecordError, match=rf"^move {n + 1} \(actions\[{n}\], 0-based\) comes after the end of the "
                                          rf"record's episode \(move {n} ended round 1\)$"):  # fmt: skip
        list(replay(record))


def test_a_record_cut_at_a_rounds_end_without_the_next_deal_is_refused():
    """The env deals the next round in the step that ends one, so its record holds that deal: a
    record without it was replayed by records.replay and the page but refused by --resume."""
    env = draw_v0.raw_env(episode="game")
    _play(env, 2)
    record = env.to_record()
    assert len(record["deals"]) >= 2
    state_rounds, cut = 0, None
    for k, state in enumerate(replay(record)):
        if k and state.round_index > state_rounds:  # action k - 1 ended a round and dealt the next
            cut = k
            break
        state_rounds = state.round_index
    cut_short = {**record, "actions": record["actions"][:cut], "deals": record["deals"][:1]}
    with pytest.raises(RecordError, match=rf"^move {cut} \(actions\[{cut - 1}\], 0-based\) ended round 1 and the "
                                          r"episode goes on, but the record has no deal for the next round"):  # fmt: skip
        list(replay(cut_short))
    assert len(list(replay({**cut_short, "deals": record["deals"][:2]}))) == cut + 1  # with it: whole


def _two_round_record():
    """A Mexican Train game record whose seat 0 goes out at once in rounds 0 and 1 (hand-built
    deals; round 2 is dealt by the seeded env)."""
    env = mexican_train_v0.raw_env(num_players=3, max_pip=9, episode="game")
    deals = [{"hands": [[[1, 9]], [[2, 3]], [[4, 5]]], "boneyard": [], "station": [9, 9], "first_player": 0},
             {"hands": [[[1, 8]], [[2, 3]], [[4, 5]]], "boneyard": [], "station": [8, 8], "first_player": 0}]  # fmt: skip
    env.reset(seed=0, options={"deals": deals})
    for _ in range(2):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))  # 9-1, then 8-1: seat 0 goes out
    record = env.to_record()
    assert record["deals"][:2] == deals and len(record["deals"]) == 3 and len(record["actions"]) == 2
    return record


def test_an_illegal_action_after_a_later_deal_suspects_that_deal_too():
    """An action that does not replay in round 1 or later may be the fault of a deal before it (a
    deal edited or dropped): the message says so; one in the first deal's round cannot be, and
    its message does not. Kills: mutants of ``len(deals) < len(record["deals"]) - 1`` in
    records._replayed."""
    record = _two_round_record()
    one_nine, one_eight = record["actions"]
    first = "illegal action {} (place 1-{} on own train) for seat 0; legal: ['place 1-{} on own train']"
    with pytest.raises(RecordError) as info:
        list(replay({**record, "actions": [one_eight, one_eight]}))  # 1-8 in round 0
    assert str(info.value) == "move 1 (actions[0], 0-based) does not replay: " + first.format(one_eight, 8, 9)
    with pytest.raises(RecordError) as info:
        list(replay({**record, "actions": [one_nine, one_nine]}))  # 1-9 in round 1
    assert str(info.value) == ("move 2 (actions[1], 0-based) does not replay: " + first.format(one_nine, 9, 8)
                               + " (or a deal before it is missing or altered)")  # fmt: skip
    assert len(list(replay(record))) == 3


def test_save_record_refuses_a_value_that_is_not_standard_json_and_keeps_the_earlier_file(tmp_path):
    """save_record writes standard JSON only (load_record refuses NaN and Infinity): a record
    holding one is refused before anything is written, and an earlier file at the path stays
    whole. Kills: ``allow_nan=False`` -> ``True`` in save_record."""
    from domino_env.core.records import load_record, save_record

    env = draw_v0.raw_env()
    _play(env, 3)
    path = tmp_path / "r.json"
    save_record(env.to_record(), path)
    before = path.read_bytes()
    for value in (float("nan"), float("inf")):
        bad = {**env.to_record(), "env_kwargs": {**env.to_record()["env_kwargs"], "illegal_reward": value}}
        with pytest.raises(ValueError, match="^Out of range float values are not JSON compliant"):
            save_record(bad, path)
        assert path.read_bytes() == before
    assert load_record(path) == env.to_record()


def test_a_record_file_of_exactly_max_record_bytes_loads_and_one_byte_more_does_not(tmp_path, monkeypatch):
    """MAX_RECORD_BYTES is the most bytes load_record reads: a file of exactly that size is read,
    one of a byte more is refused (plain and gzip, the limit on the decompressed size). Kills:
    ``len(data) > MAX_RECORD_BYTES`` -> ``>=`` in load_record."""
    from domino_env.core import records

    env = draw_v0.raw_env()
    _play(env, 3)
    for name in ("r.json", "r.json.gz"):
        path = tmp_path / name
        records.save_record(env.to_record(), path)
        size = len(json.dumps(env.to_record(), indent=1).encode())
        monkeypatch.setattr(records, "MAX_RECORD_BYTES", size)
        assert records.load_record(path) == env.to_record()
        monkeypatch.setattr(records, "MAX_RECORD_BYTES", size - 1)
        with pytest.raises(RecordError, match=rf"{name} holds more than 0 MiB: not a game record$"):
            records.load_record(path)


def test_replay_end_says_truncated_exactly_when_the_records_last_action_is_its_max_steps_th():
    """The env truncates the episode at its ``max_steps``-th action: replay_end says so for a
    record of exactly that many actions, and not for one a move shorter. Kills: mutants of
    ``k + 1 >= max_steps`` in records._replayed."""
    env = draw_v0.raw_env(max_steps=6)
    _play(env, 1)
    record = env.to_record()
    assert len(record["actions"]) == 6  # the env stopped the game at its 6th action
    state, truncated = replay_end(record)
    assert truncated and len(state.actions) == 6 and not state.round_over
    state, truncated = replay_end({**record, "actions": record["actions"][:5]})
    assert not truncated and len(state.actions) == 5


def test_only_a_record_without_format_holding_a_results_keys_is_called_a_tournament_result():
    """The tournament-result hint is for a file with no 'format' and domino-evaluate's 'stats',
    'agents' and 'episodes': a game record that lost its 'format' (or a result missing one of the
    three) is only said to have none. Kills: ``or`` for ``and`` in that test (records._check)."""
    head = "not a game record of format 'domino_env.record/1' "
    game = {"env_id": "dominoes/cuban-v0", "env_kwargs": {}, "seed": 0, "deals": [], "actions": []}
    for record in (game, {}, {"agents": ["greedy"], "stats": []}):
        with pytest.raises(RecordError, match="^" + re.escape(head + "(it has no 'format' field)") + "$"):
            list(replay(record))
    result = {"agents": ["greedy"], "episodes": 2, "stats": []}
    with pytest.raises(RecordError, match=re.escape(head + "(it has no 'format' field; it is a tournament result")):
        list(replay(result))
    with pytest.raises(RecordError, match="^" + re.escape(head + "(its format is 'x')") + "$"):
        list(replay(dict(result, format="x")))
