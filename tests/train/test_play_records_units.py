"""``train/play_records.py`` checked in-process, word for word: the refusals of ``--record`` and
``--resume`` that the subprocess tests only match in part, the record of a game not over
(``moves_not_over``), and ``RecordWriter``'s free name and failed first save (found by mutation
testing: each test fails on a changed line that every other test let through)."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from domino_env.core.records import save_record
from domino_env.envs import block_v0, mexican_train_v0
from domino_env.train import play, play_records
from domino_env.train.play_records import RecordWriter, _free_name, moves_not_over

HELP = " (domino-play --help lists every option)\n"


def _refusal(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as info:
        play.setup(list(args))
    assert info.value.code == 2
    return capsys.readouterr().err


def _stopped_record(path, steps: int = 2, seed: int = 3, **changes) -> str:
    """A domino-play record of a block game stopped after ``steps`` moves (as test_play_resume's)."""
    env = block_v0.raw_env()
    env.reset(seed=seed)
    for _ in range(steps):
        env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))
    save_record({**env.to_record(), "seats": ["human", "greedy", "greedy", "greedy"], **changes}, path)
    return str(path)


def test_a_folder_given_as_record_is_called_a_folder(tmp_path, capsys):
    assert _refusal(capsys, "--seed", "1", "--record", str(tmp_path)) == (
        f"domino-play: error: --record {tmp_path} is a folder; give a file name with --record{HELP}")


def test_a_record_this_user_cannot_write_is_refused_word_for_word(tmp_path, monkeypatch, capsys):
    locked = tmp_path / "locked"  # read-only for os.access, which the check asks (as test_cli_messages')
    locked.mkdir()
    real = os.access

    def access(path, mode, **kwargs):
        return not (mode & os.W_OK and str(locked) in os.path.abspath(path)) and real(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", access)
    assert _refusal(capsys, "--seed", "1", "--record", str(locked / "r.json")) == (
        f"domino-play: error: --record {locked / 'r.json'}: folder {locked} is not writable by this user{HELP}")


def test_an_empty_or_pipe_resume_is_refused_word_for_word(tmp_path, capsys):
    assert _refusal(capsys, "--resume", " ") == (
        f"domino-play: error: --resume: give the record of the game (got an empty name){HELP}")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert _refusal(capsys, "--resume", str(fifo)) == (
        f"domino-play: error: --resume {fifo}: not a regular file (a pipe?); copy the record to a file and give "
        f"that{HELP}")  # fmt: skip


def test_a_game_not_over_of_one_move_is_kept_in_the_singular(tmp_path, capsys):
    path = _stopped_record(tmp_path / "one.json", steps=1)
    assert _refusal(capsys, "--seed", "9", "--record", path) == (
        f"domino-play: error: --record {path} holds a game not over (1 move), which this game's record would "
        f"replace: go on with it (--resume {path}) or give another name with --record{HELP}")  # fmt: skip


def test_a_record_the_loader_refuses_is_named_once(tmp_path, capsys):
    path = _stopped_record(tmp_path / "r.json", deals=None)
    assert _refusal(capsys, "--resume", path) == (
        f"domino-play: error: --resume: record {path}: field 'deals' must be a JSON list, got NoneType{HELP}")


def test_a_record_that_cannot_be_read_is_named_once_in_the_systems_words(tmp_path, capsys):
    loop = tmp_path / "loop.json"  # a link to itself: no such file for os.path.exists, ELOOP for open()
    loop.symlink_to(loop)
    assert _refusal(capsys, "--resume", str(loop)) == (
        f"domino-play: error: --resume {loop}: Too many levels of symbolic links{HELP}")


def test_a_record_that_goes_on_after_a_seat_is_knocked_out_resumes(tmp_path):
    """The seat knocked out is stepped with None before the next recorded move (as the env asks).
    Tren Mexicano, 3 seats, seed 6 (test_replay_html_ends' game): move 168 knocks seat 0 out."""
    env = mexican_train_v0.raw_env(preset="tren_mexicano", episode="game", num_players=3, max_pip=9)
    env.reset(seed=6)
    rng, moves = np.random.default_rng(6), 0
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if moves == 175:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        moves += 1
    assert env.agents == env.possible_agents[1:]  # seat 0 out (stepped with None), the game on
    path = tmp_path / "out.json"
    save_record({**env.to_record(), "seats": ["greedy", "greedy", "human"], "seed": 6}, path)
    _, you, _, labels, seed, record, moves, keep = play.setup(["--resume", str(path)])
    assert (you, labels, seed, record, keep) == (2, {0: "greedy", 1: "greedy"}, 6, str(path), False)
    assert moves == env.to_record()["actions"] and len(moves) == 175


def test_a_later_deal_edited_is_refused_before_any_play(tmp_path, capsys):
    """Round 1 replays as the seed dealt it; round 2's deal (two hands swapped: a deal the record
    replays with) is not the seed's."""
    env = block_v0.raw_env(episode="game")
    env.reset(seed=3)
    while len(env.game_state.deals) < 2:  # the move that ends round 1 deals round 2
        env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))
    data = env.to_record()
    hands = data["deals"][1]["hands"]
    hands[1], hands[2] = hands[2], hands[1]
    path = tmp_path / "r.json"
    save_record({**data, "seats": ["human", "greedy", "greedy", "greedy"]}, path)
    assert _refusal(capsys, "--resume", str(path)) == (
        f"domino-play: error: --resume {path}: the deals are not the ones seed 3 deals (an edited record?){HELP}")


def test_a_game_of_seed_0_resumes(tmp_path):
    path = _stopped_record(tmp_path / "zero.json", seed=0)
    _, you, _, _, seed, _, moves, _ = play.setup(["--resume", path])
    assert (you, seed, len(moves)) == (0, 0, 2)


def test_a_two_form_flag_given_with_resume_is_named_in_both_forms(tmp_path, capsys):
    """``--use-boneyard`` was named ``--no-use-boneyard`` (the flag's last option string)."""
    path = _stopped_record(tmp_path / "r.json")
    for typed in ("--use-boneyard", "--no-use-boneyard"):
        assert _refusal(capsys, "--resume", path, typed) == (
            "domino-play: error: --resume takes the game, rules, seats, agents and seed from the record: give only "
            f"--record with it, not --use-boneyard/--no-use-boneyard{HELP}")  # fmt: skip


def test_a_record_that_does_not_replay_is_no_game_to_go_on_with(tmp_path, capsys):
    """``--record`` may name it: ``moves_not_over`` says None, as for any record --resume refuses; it is
    kept (this game's record goes beside it)."""
    good = _stopped_record(tmp_path / "good.json")
    assert moves_not_over(good) == 2
    bad = _stopped_record(tmp_path / "bad.json", actions=[10**6])
    assert moves_not_over(bad) is None
    assert moves_not_over(str(tmp_path / "gone.json")) is None
    assert play.setup(["--game", "block", "--seed", "3", "--record", bad])[5:] == (bad, [], True)


def test_a_free_name_skips_the_names_taken_and_is_taken_as_an_empty_file(tmp_path):
    (tmp_path / "g-2.json").write_text("another game")
    old = os.umask(0o022)
    try:
        name = _free_name(str(tmp_path / "g.json"))
    finally:
        os.umask(old)
    assert name == str(tmp_path / "g-3.json")
    assert (tmp_path / "g-3.json").read_bytes() == b"" and (tmp_path / "g-2.json").read_text() == "another game"
    # the record written there keeps this mode (core.files keeps an earlier file's): a new file's
    assert stat.S_IMODE((tmp_path / "g-3.json").stat().st_mode) == 0o644


def test_a_first_save_that_fails_raises_its_own_error_and_leaves_no_file(tmp_path, monkeypatch):
    def full(data, path):
        raise OSError(28, "No space left on device")

    said: list[str] = []
    writer = RecordWriter(str(tmp_path / "g.json"), said.append)
    monkeypatch.setattr(play_records, "save_record", full)
    with pytest.raises(OSError) as info:
        writer.save({"actions": [1]})
    assert info.value.errno == 28 and info.value.strerror == "No space left on device"
    assert said == [] and writer.kept() == "no record is there" and list(tmp_path.iterdir()) == []


def test_an_unknown_agent_in_the_record_keeps_the_loaders_words(tmp_path, capsys):
    """Only a ppo:/rllib: model not found from this folder gets the "run it from the folder" line."""
    from domino_env.agents.base import make_agent
    from domino_env.core.errors import DominoError

    path = _stopped_record(tmp_path / "r.json", seats=["human", "greedy", "nosuchagent", "greedy"])
    with pytest.raises(DominoError) as info:
        make_agent("nosuchagent", block_v0.raw_env().config)
    assert _refusal(capsys, "--resume", path) == (
        f"domino-play: error: --resume {path}: the agent of seat 2 (nosuchagent): {info.value}{HELP}")
