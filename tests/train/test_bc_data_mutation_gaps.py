"""``domino_env.train.bc_data`` behaviour no other test pinned (found by mutation testing): the
exact rows :func:`collect` records (returns to go, episode ids, the expert / policy choice, the
stop, the progress bar's final count, the int16 refusal), the fixed held-out hash, and the exact
refusals of :func:`arrays_problem`, :func:`dataset_problem` and :func:`load_dataset`.

:func:`collect` is driven here by a scripted env: the rows it must record are known exactly."""

import os
from types import SimpleNamespace

import gymnasium
import numpy as np
import pytest

from domino_env.train.bc_data import (
    DATASET_KEYS,
    arrays_problem,
    collect,
    concat,
    dataset_problem,
    held_out,
    interrupted_of,
    load_dataset,
    save_dataset,
    worker_seed,
)


class ScriptedEnv:
    """A stand-in for ``LearnerEnv``: episodes of the given rewards, one decision each; the raw
    observation is ``[episode, step, 7]``, the mask allows actions 1, 3 and 9 of 10."""

    def __init__(self, episodes, obs_extra=7.0):
        self.episodes, self.obs_extra = [list(r) for r in episodes], obs_extra
        self.scale = np.ones(3, dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(10)
        self.unwrapped = SimpleNamespace(aec=SimpleNamespace(game_state=None), learner_seat=0)
        self.resets, self.played = [], []
        self.episode = self.step_no = -1

    def reset(self, seed=None):
        self.resets.append(seed)
        self.episode, self.step_no = self.episode + 1, 0

    @property
    def raw_observation(self):
        return np.array([self.episode, self.step_no, self.obs_extra], dtype=np.float32)

    def action_masks(self):
        mask = np.zeros(10, dtype=bool)
        mask[[1, 3, 9]] = True
        return mask

    def step(self, action):
        self.played.append(action)
        reward = self.episodes[self.episode % len(self.episodes)][self.step_no]
        self.step_no += 1
        done = self.step_no == len(self.episodes[self.episode % len(self.episodes)])
        return None, reward, done, False, {}


def first_legal(obs, mask, rng):
    return int(np.flatnonzero(mask)[0])


def last_legal(obs, mask, rng):
    return int(np.flatnonzero(mask)[-1])


def test_collect_records_each_decision_with_its_discounted_return_to_go():
    env = ScriptedEnv([[1.0, 0.0, 2.0], [0.5, -1.0]])
    data = collect(env, first_legal, 4, seed=3, gamma=0.5, first_episode=7)
    # the episode that reaches 4 samples is finished: 3 + 2 decisions
    assert data["returns"].tolist() == [1.5, 1.0, 2.0, 0.0, -1.0]  # 2; 0 + .5 * 2; 1 + .5 * 1 / -1; .5 - .5
    assert data["episodes"].tolist() == [7, 7, 7, 8, 8]
    assert data["observations"].tolist() == [[0, 0, 7], [0, 1, 7], [0, 2, 7], [1, 0, 7], [1, 1, 7]]
    assert data["actions"].tolist() == [1] * 5 and env.played == [1] * 5
    assert data["masks"].tolist() == [[0b01010000, 0b01000000]] * 5  # actions 1, 3, 9 packed in 2 bytes
    assert [data[k].dtype for k in DATASET_KEYS] == [np.int16, np.uint8, np.int16, np.float32, np.int32]
    # the first reset is seeded, each later one (after every episode, the last one included) is not
    assert env.resets == [3, None, None]


def test_collect_stops_at_the_episode_that_reaches_the_samples():
    env = ScriptedEnv([[0.0, 0.0]])
    assert len(collect(env, first_legal, 2, seed=0, gamma=1.0)["actions"]) == 2
    assert len(collect(ScriptedEnv([[0.0, 0.0]]), first_legal, 3, seed=0, gamma=1.0)["actions"]) == 4
    lengths = []
    collect(ScriptedEnv([[0.0], [0.0, 0.0, 0.0]]), first_legal, 5, seed=0, gamma=1.0, on_episode=lengths.append)
    assert lengths == [1, 3, 1]


def test_a_stop_before_the_first_episode_gives_empty_arrays_of_the_right_widths():
    stop = SimpleNamespace(received="signal")
    data = collect(ScriptedEnv([[1.0]]), first_legal, 10, seed=0, gamma=1.0, stop=stop)
    assert data["observations"].shape == (0, 3) and data["masks"].shape == (0, 2)
    assert all(len(data[k]) == 0 for k in DATASET_KEYS)


def test_a_stop_received_during_an_episode_ends_the_collection_after_it():
    stop = SimpleNamespace(received=None)

    def expert(obs, mask, rng):
        stop.received = "signal"
        return first_legal(obs, mask, rng)

    data = collect(ScriptedEnv([[0.0, 0.0]]), expert, 10, seed=0, gamma=1.0, stop=stop)
    assert data["episodes"].tolist() == [0, 0]


def test_the_expert_labels_every_decision_and_plays_with_probability_beta():
    env = ScriptedEnv([[0.0, 0.0, 0.0]])
    data = collect(env, first_legal, 30, seed=0, gamma=1.0, policy=last_legal, beta=0.0)
    assert data["actions"].tolist() == [1] * 30 and env.played == [9] * 30  # labels, not what was played
    env = ScriptedEnv([[0.0, 0.0, 0.0]])
    collect(env, first_legal, 30, seed=0, gamma=1.0, policy=last_legal, beta=1.0)
    assert env.played == [1] * 30
    env = ScriptedEnv([[0.0, 0.0, 0.0]])
    collect(env, first_legal, 30, seed=0, gamma=1.0, policy=last_legal)  # beta 1 unless given
    assert env.played == [1] * 30
    env = ScriptedEnv([[0.0, 0.0, 0.0]])
    collect(env, first_legal, 300, seed=0, gamma=1.0, policy=last_legal, beta=0.75)
    assert 0.65 < env.played.count(1) / len(env.played) < 0.85


@pytest.mark.parametrize("entry", [7.5, 40000.0], ids=["fraction", "too-large"])
def test_an_observation_that_int16_cannot_hold_is_refused(entry):
    with pytest.raises(ValueError, match="^an observation entry is not an int16 integer; cannot store it compactly$"):
        collect(ScriptedEnv([[0.0]], obs_extra=entry), first_legal, 1, seed=0, gamma=1.0)


def test_collects_progress_bar_ends_at_the_decisions_collected(capsys):
    collect(ScriptedEnv([[0.0, 0.0, 0.0]]), first_legal, 4, seed=0, gamma=1.0, progress=True, desc="probe")
    err = capsys.readouterr().err
    assert err.startswith("\rprobe:   0%|          | 0/4 ")  # drawn with the samples asked for
    assert err.rsplit("\r", 1)[1].startswith("probe: 100%|██████████| 6/6 ")  # closed with the total raised


def test_worker_0_keeps_the_seed_and_the_others_draw_far_from_it():
    assert worker_seed(5, 0) == 5
    assert worker_seed(5, 1) == int(np.random.SeedSequence([5, 1]).generate_state(1)[0]) != worker_seed(5, 2)


def test_the_held_out_split_is_the_fixed_knuth_hash():
    # pinned: a changed hash would move episodes of a saved dataset between the train and held-out sides
    episodes = np.arange(12)
    expected = [(e * 2654435761 % 2**32) / 2**32 < 0.3 for e in range(12)]
    assert held_out(episodes, 0.3).tolist() == expected
    assert held_out(episodes, 0.3).tolist() == [True, False, True, False, False, True, False, False, False,
                                                False, True, False]  # fmt: skip
    for e in (1000, 77777):  # on either side of a threshold just above / below its own hash
        h = e * 2654435761 % 2**32
        assert held_out(np.array([e]), (h + 0.5) / 2**32).tolist() == [True]
        assert held_out(np.array([e]), (h - 0.5) / 2**32).tolist() == [False]


def test_concat_joins_two_datasets_row_after_row():
    a = {k: np.array([1, 2]) for k in DATASET_KEYS}
    b = {k: np.array([3]) for k in DATASET_KEYS}
    assert concat(None, b) is b
    assert {k: v.tolist() for k, v in concat(a, b).items()} == {k: [1, 2, 3] for k in DATASET_KEYS}


def test_a_saved_dataset_loads_back_with_its_interrupted_mark(tmp_path):
    data = _good()
    save_dataset(tmp_path / "new" / "full.npz", data, {"b": [1, 2], "a": "x"})  # its missing folder is made
    save_dataset(tmp_path / "part.npz", data, {"a": "x"}, interrupted_of=5000)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "part.npz"]  # no partial file left beside
    assert interrupted_of(tmp_path / "new" / "full.npz") is None and interrupted_of(tmp_path / "part.npz") == 5000
    back = load_dataset(tmp_path / "new" / "full.npz", {"a": "x", "b": (1, 2)}, obs_size=3, num_actions=10)
    assert sorted(back) == sorted(DATASET_KEYS) and all(np.array_equal(back[k], data[k]) for k in DATASET_KEYS)


def test_a_dataset_of_other_settings_names_the_settings_that_differ(tmp_path):
    save_dataset(tmp_path / "d.npz", _good(), {"a": 1, "b": 2, "c": 3})
    with pytest.raises(ValueError) as err:
        load_dataset(tmp_path / "d.npz", {"a": 1, "b": 5, "d": 4})
    assert str(err.value) == "written for other settings (differs in: b, c, d); give another --dataset"


def test_a_file_that_is_no_dataset_is_one_line_without_numpys_pickle_advice(tmp_path):
    text = tmp_path / "notes.npz"
    text.write_text("not a zip\n" * 20)
    with pytest.raises(ValueError) as err:
        load_dataset(text, {})
    assert str(err.value) == "not a domino-bc dataset (ValueError); give a .npz file that domino-bc --dataset wrote"
    bare = tmp_path / "bare.npz"
    np.savez(bare, **_good())  # no fingerprint
    with pytest.raises(ValueError) as err:
        load_dataset(bare, {})
    assert str(err.value).startswith("not a domino-bc dataset (KeyError: ")
    assert str(err.value).endswith("); give a .npz file that domino-bc --dataset wrote")


def test_the_arrays_are_checked_only_with_the_envs_sizes(tmp_path):
    data = {**_good(), "actions": np.array([1, 3, 9, 10], dtype=np.int16)}
    save_dataset(tmp_path / "d.npz", data, {})
    assert load_dataset(tmp_path / "d.npz", {}, obs_size=3)["actions"].tolist() == [1, 3, 9, 10]
    assert load_dataset(tmp_path / "d.npz", {}, num_actions=10)["actions"].tolist() == [1, 3, 9, 10]
    with pytest.raises(ValueError) as err:
        load_dataset(tmp_path / "d.npz", {}, obs_size=3, num_actions=10)
    assert str(err.value) == ("1 of its 4 actions is outside 0 .. 9 (this env's 10 actions); give a .npz file that "
                              "domino-bc --dataset wrote")  # fmt: skip


# ------------------------------------------------------------------------------- arrays_problem
def _good(n=4):
    """A dataset of an env with 3 observation entries and 10 actions: each mask allows 1, 3 and 9."""
    masks = np.zeros((n, 10), dtype=bool)
    masks[:, [1, 3, 9]] = True
    return {
        "observations": np.arange(3 * n, dtype=np.int16).reshape(n, 3),
        "masks": np.packbits(masks, axis=1),
        "actions": np.resize(np.array([1, 3, 9], dtype=np.int16), n),
        "returns": np.linspace(-1, 1, n).astype(np.float32),
        "episodes": np.arange(n, dtype=np.int32) // 2,
    }


def _with(**arrays):
    return {**_good(), **arrays}


def test_good_arrays_and_every_integer_and_number_type_pass():
    assert arrays_problem(_good(), 3, 10) is None
    assert arrays_problem(_with(returns=np.array([1, 0, -1, 2], dtype=np.int64),
                                episodes=np.array([0, 0, 1, 1], dtype=np.uint8),
                                actions=np.array([9, 9, 1, 3], dtype=np.uint16)), 3, 10) is None  # fmt: skip


@pytest.mark.parametrize(
    "arrays, says",
    [
        ({"observations": np.zeros(4, dtype=np.int16)}, "its observations array has 1 dimension(s), not 2"),
        ({"actions": np.zeros((4, 1), dtype=np.int16)}, "its actions array has 2 dimension(s), not 1"),
        ({"observations": np.zeros((4, 3), dtype=np.float32)}, "its observations are float32, not integers"),
        ({"masks": np.zeros((4, 2), dtype=bool)}, "its masks are bool, not integers"),
        ({"returns": np.zeros(4, dtype=bool)}, "its returns are bool, not numbers"),
        ({"returns": np.array(["a"] * 4)}, "its returns are <U1, not numbers"),
        ({"episodes": np.zeros(4, dtype=np.float64)}, "its episodes are float64, not integers"),
        ({"episodes": np.zeros(5, dtype=np.int32)},
         "its arrays are of different lengths (observations 4, masks 4, actions 4, returns 4, episodes 5; one row a "
         "decision)"),
        ({k: v[:0] for k, v in _good().items()}, "holds no decisions"),
        ({"observations": np.zeros((4, 4), dtype=np.int16)}, "its observations are 4 wide; this env's are 3 (3 entries)"),
        ({"masks": np.zeros((4, 1), dtype=np.uint8)},
         "its masks are 1 wide; this env's are 2 (10 actions, 2 bytes of bits)"),
        ({"masks": np.packbits(np.ones((4, 10), dtype=bool), axis=1).astype(np.uint16)},
         "its masks are uint16, not bit-packed uint8"),
        ({"returns": np.array([0, np.inf, 0, 0], dtype=np.float32)}, "1 of its 4 returns is not finite (NaN or infinite)"),
        ({"returns": np.array([np.nan, 0, -np.inf, 0], dtype=np.float32)},
         "2 of its 4 returns are not finite (NaN or infinite)"),
        ({"actions": np.array([1, 10, 9, 3], dtype=np.int16)}, "1 of its 4 actions is outside 0 .. 9 (this env's 10 actions)"),
        ({"actions": np.array([-1, 3, 9, 11], dtype=np.int16)},
         "2 of its 4 actions are outside 0 .. 9 (this env's 10 actions)"),
        ({"masks": np.array([[0, 0], [80, 64], [80, 64], [80, 64]], dtype=np.uint8)}, "1 of its 4 masks allows no action"),
        ({"masks": np.array([[0, 0], [80, 64], [0, 0], [80, 64]], dtype=np.uint8)}, "2 of its 4 masks allow no action"),
        ({"actions": np.array([1, 3, 0, 1], dtype=np.int16)}, "1 of its 4 actions is not legal in its mask"),
        ({"actions": np.array([2, 3, 9, 8], dtype=np.int16)}, "2 of its 4 actions are not legal in their masks"),
    ],
    ids=["obs-1d", "actions-2d", "obs-float", "masks-bool", "returns-bool", "returns-text", "episodes-float",
         "lengths", "empty", "obs-width", "mask-width", "mask-uint16", "one-inf", "nan-and-inf", "one-out",
         "two-out", "one-empty-mask", "two-empty-masks", "one-illegal", "two-illegal"],
)  # fmt: skip
def test_each_array_problem_is_named_exactly(arrays, says):
    assert arrays_problem(_with(**arrays), 3, 10) == says


def test_the_masks_of_a_large_dataset_are_checked_in_parts_row_for_row():
    n = (1 << 16) + 10  # two parts: each row's action is checked against its own mask
    data = _good(n)
    masks = np.unpackbits(data["masks"], axis=1, count=10).astype(bool)
    masks[n - 1, data["actions"][n - 1]] = False  # the last row's mask, in the second part, no longer allows its action
    data["masks"] = np.packbits(masks, axis=1)
    assert arrays_problem(data, 3, 10) == f"1 of its {n} actions is not legal in its mask"
    data["masks"][1 << 16] = 0
    assert arrays_problem(data, 3, 10) == f"1 of its {n} masks allows no action"


# ------------------------------------------------------------------------------- dataset_problem
@pytest.mark.parametrize("text", ["", "  "])
def test_an_empty_dataset_name_is_a_problem(text):
    assert dataset_problem(text) == "give a file name (got an empty one; leave --dataset out to keep no dataset)"


def test_each_dataset_path_problem_is_named_exactly(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert dataset_problem("new/") == "names a folder (it ends in /), and there is none; give a file name such as data.npz"
    assert dataset_problem(str(tmp_path)) == "is a folder; give a file name such as data.npz"
    assert dataset_problem(str(tmp_path / "new") + "/") == (
        "names a folder (it ends in /), and there is none; give a file name such as data.npz")
    (tmp_path / "file").write_text("x")
    assert dataset_problem(str(tmp_path / "file" / "sub" / "d.npz")) == f"{tmp_path / 'file'} is a file, not a folder"
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")
        assert dataset_problem(str(tmp_path / "fifo")) == (
            "exists and is not a regular file (a dataset is a .npz file); give a file name")
    assert dataset_problem(str(tmp_path / "file")) is None  # an existing file: loaded
    assert dataset_problem(str(tmp_path / "a" / "b" / "d.npz")) is None  # its folders are made later
    assert not (tmp_path / "a").exists()
    assert {p.name for p in tmp_path.iterdir()} <= {"file", "fifo"}


def test_a_folder_that_cannot_take_the_dataset_is_a_problem(tmp_path, monkeypatch):
    import tempfile

    def refuse(**kwargs):
        assert kwargs == {"dir": tmp_path}
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    assert dataset_problem(str(tmp_path / "sub" / "d.npz")) == f"folder {tmp_path} cannot be written (Permission denied)"
    (tmp_path / "d.npz").write_bytes(b"x")  # an existing dataset is only read: its folder need not take files
    assert dataset_problem(str(tmp_path / "d.npz")) is None


# ------------------------------------------------------------------------------- collect_parallel
def test_parallel_collection_is_the_workers_collections_joined_and_renumbered():
    from bc_helpers import SMALL_ENV

    from domino_env.agents import make_agent
    from domino_env.train.bc_data import collect_parallel
    from domino_env.train.learner_env import LearnerEnv

    greedy = make_agent("greedy", SMALL_ENV["env_kwargs"])
    both = collect_parallel(SMALL_ENV, greedy, 61, 5, 0.9, workers=2, first_episode=3)
    # shares of 61: 31 and 30, worker k seeded with worker_seed(5, k)
    parts = [collect(LearnerEnv(**SMALL_ENV), greedy, n, worker_seed(5, k), 0.9) for k, n in enumerate((31, 30))]
    for k in ("observations", "masks", "actions", "returns"):
        assert np.array_equal(both[k], np.concatenate([parts[0][k], parts[1][k]])), k
    first = parts[0]["episodes"] + 3
    second = parts[1]["episodes"] + first[-1] + 1
    assert both["episodes"].tolist() == first.tolist() + second.tolist()


def test_one_worker_or_one_sample_collects_in_this_process():
    from bc_helpers import SMALL_ENV

    from domino_env.agents import make_agent
    from domino_env.train.bc_data import collect_parallel
    from domino_env.train.learner_env import LearnerEnv

    greedy = make_agent("greedy", SMALL_ENV["env_kwargs"])
    alone = collect(LearnerEnv(**SMALL_ENV), greedy, 1, 8, 0.9, first_episode=4)
    for workers in (0, 1, 3):  # more workers than samples: one, here
        data = collect_parallel(SMALL_ENV, greedy, 1, 8, 0.9, workers=workers, first_episode=4)
        assert all(np.array_equal(data[k], alone[k]) for k in DATASET_KEYS)


def test_a_worker_that_fails_is_one_runtime_error_with_its_text():
    from bc_helpers import SMALL_ENV

    from domino_env.agents import make_agent
    from domino_env.train.bc_data import collect_parallel

    with pytest.raises(RuntimeError) as err:
        collect_parallel({**SMALL_ENV, "opponent_mode": "rotate"}, make_agent("greedy", SMALL_ENV["env_kwargs"]), 4, 0,
                         0.9, workers=2)  # fmt: skip
    assert str(err.value) == ("a collection worker failed: ConfigError: invalid argument 'opponent_mode': got 'rotate'; "
                              "allowed: 'mix' or 'fixed'")  # fmt: skip
