"""Edge cases of the AEC envs and the single-agent adapter found by the bug-report trial (issue 12
items 1, 3, 6, 8): masks after truncation, round results in game episodes, numpy seeds and seats,
calls before ``reset``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from domino_env import ConfigError, DominoError
from domino_env.envs import line_v0, mexican_train_v0
from domino_env.envs.infos import Termination
from domino_env.wrappers import line_single_agent, mexican_train_single_agent

# ---------------------------------------------------------------- item 1: masks after truncation


def test_adapter_mask_is_empty_after_max_cycles_truncation():
    """The issue's run: 2 players, max_cycles=5, first legal action until truncated; the mask
    offered [6, 12, 18, 24, 30] afterwards. Once the episode is over every mask is all zeros."""
    env = mexican_train_single_agent(num_players=2, max_cycles=5)
    env.reset(seed=1)
    terminated = truncated = False
    steps = 0
    while not (terminated or truncated):
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        steps += 1
    assert truncated and not terminated
    assert env.action_masks().shape == (env.action_space.n,)
    assert not env.action_masks().any()
    with pytest.raises(DominoError, match="episode is over"):
        env.step(0)


def test_aec_dead_step_masks_are_empty_after_truncation():
    env = mexican_train_v0.raw_env(num_players=3, max_pip=9, max_steps=4)
    env.reset(seed=2)
    for _ in range(4):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert all(env.truncations.values())
    assert env.infos[env.agent_selection]["limit_reached"] is True
    for agent in env.possible_agents:
        assert not env.observe(agent)["action_mask"].any()
    seen = 0
    for _agent in env.agent_iter():
        obs, _, _, truncated, _ = env.last()
        assert truncated and not obs["action_mask"].any()
        env.step(None)
        seen += 1
    assert seen == 3 and env.agents == []
    env.reset(seed=2)  # a new episode has masks again
    assert env.observe(env.agent_selection)["action_mask"].any()



def test_on_elimination_dead_steps_only_the_next_rounds_first_player_has_a_mask():
    """docs/design.md's mask rule: a seat knocked out at a round's end is selected to step None
    with an all-zero mask while the next round's first player (the engine's current player, which
    the parallel view needs) already has its mask; every other agent's is all zeros."""
    env = mexican_train_v0.raw_env(game_end="elimination", elimination_limit=30, max_pip=9, episode="game")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    dead_steps_in_play = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        state = env.game_state
        with_mask = {a for a in env.agents if env.observe(a)["action_mask"].any()}
        if terminated or truncated:
            assert not obs["action_mask"].any()
            if not state.round_over:  # eliminated while the game goes on
                assert with_mask == {env.possible_agents[state.current_player]} and agent not in with_mask
                dead_steps_in_play += 1
            env.step(None)
            continue
        assert with_mask == {agent}
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert dead_steps_in_play == 2  # seed 3 knocks out two seats before the last round

# ---------------------------------------------------------------- item 3: round results


def play_adapter(env, seed: int) -> tuple[list[dict], float]:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    results, total = [], 0.0
    done = False
    _, info = env.reset(seed=seed)
    results += info["round_results"]
    while not done:
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += reward
        results += info["round_results"]
        done = terminated or truncated
    return results, total


def test_adapter_passes_on_every_round_result_of_a_game_episode():
    """The issue's run (4 players, double-9, game episode, points rewards, random play): every
    round's result reaches the learner once, in order, and its points match the rewards."""
    env = mexican_train_single_agent(num_players=4, max_pip=9, episode="game", reward="points")
    results, total = play_adapter(env, seed=0)
    assert len(results) == 10 == len(env.aec.round_results)
    assert [r["round_index"] for r in results] == list(range(10))
    assert results[-1]["game_over"] is True
    # the learner's rewards are -(its points) / 100, summed over the rounds
    assert total == pytest.approx(-sum(r["points"][0] for r in results) / 100.0)
    assert results[-1]["scores"][0] == sum(r["points"][0] for r in results)


def test_round_results_key_is_always_there_and_empty_between_rounds():
    env = line_single_agent("block", num_players=3)
    _, info = env.reset(seed=4)
    assert info["round_results"] == []
    _, _, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert isinstance(info["round_results"], list)
    if not terminated:
        assert info["round_results"] == []


def test_cuban_annulled_rounds_are_passed_on_too():
    """An annulled Cuban round (re-dealt at once) is a round result the learner hears about."""
    found = 0
    for seed in range(60):
        env = line_single_agent("cuban")
        results, _ = play_adapter(env, seed)
        kinds = [r["termination_code"] for r in results]
        assert kinds == [r["termination_code"] for r in env.aec.round_results]
        found += kinds.count(Termination.ANNULLED)
    assert found > 0


# ---------------------------------------------------------------- item 6: numpy ints, typed errors


def test_numpy_seeds_and_seats_are_accepted_and_replay_like_ints():
    a = mexican_train_v0.raw_env(num_players=3, max_pip=9)
    a.reset(seed=np.int64(5))
    b = mexican_train_v0.raw_env(num_players=3, max_pip=9)
    b.reset(seed=5)
    assert a.game_state.deals == b.game_state.deals
    env = mexican_train_single_agent(num_players=3, max_pip=9, learner_seat=np.int64(1))
    obs, info = env.reset(seed=np.uint32(7))
    assert env.learner_seat == 1 and type(env.learner_seat) is int and info["learner_seat"] == 1
    ref = mexican_train_single_agent(num_players=3, max_pip=9, learner_seat=1)
    obs2, _ = ref.reset(seed=7)
    assert np.array_equal(obs, obs2)
    line = line_v0.raw_env(preset="draw")
    line.reset(seed=np.int32(3))
    assert line.agent_selection in line.possible_agents


@pytest.mark.parametrize("seed", [-1, np.int64(-3), 1.0, "5", True, [1]])
def test_invalid_seeds_are_refused_with_a_typed_error(seed):
    raw = mexican_train_v0.raw_env()
    with pytest.raises(ConfigError, match="'seed'.*integer >= 0"):
        raw.reset(seed=seed)
    assert raw.game_state is None  # nothing happened
    adapter = mexican_train_single_agent()
    with pytest.raises(ConfigError, match="'seed'"):
        adapter.reset(seed=seed)


@pytest.mark.parametrize("seat", [np.int64(3), -1, 1.0, np.bool_(True), True])
def test_invalid_learner_seats_are_refused(seat):
    with pytest.raises(ConfigError, match="learner_seat"):
        mexican_train_single_agent(num_players=3, learner_seat=seat)


# ---------------------------------------------------------------- item 8: before reset


@pytest.mark.parametrize("call", ["last", "agent_iter", "observe", "step"])
@pytest.mark.parametrize("make", [mexican_train_v0.raw_env, line_v0.raw_env])
def test_calls_before_reset_give_the_same_clear_error(make, call):
    env = make()
    calls = {
        "last": lambda: env.last(),
        "agent_iter": lambda: next(iter(env.agent_iter())),
        "observe": lambda: env.observe("player_0"),
        "step": lambda: env.step(0),
    }
    with pytest.raises(DominoError, match=r"raw_env: call reset\(\) first"):
        calls[call]()


@pytest.mark.parametrize("make", [mexican_train_single_agent, line_single_agent])
def test_the_adapter_before_reset_asks_for_it(make):
    """step() before any reset said "the episode is over", and action_masks() gave an all-False
    mask (MaskablePPO turns that into NaN probabilities) instead of saying what was missing."""
    env = make()
    for call in (lambda: env.step(0), env.action_masks):
        with pytest.raises(DominoError, match=r"^SingleAgentEnv: call reset\(\) first$"):
            call()
    env.reset(seed=0)
    assert env.action_masks().any()


def test_the_adapters_episode_ends_when_the_learner_is_knocked_out():
    """docs/envs.md: in an elimination game the learner's episode ends when it is out, with the
    outcome return -1/(P-1); game_over is False, unless that round also ended the game."""
    env = mexican_train_single_agent(preset="tren_mexicano", episode="game", num_players=4, max_pip=9, elimination_limit=60)
    rng, seen = np.random.default_rng(0), {False: 0, True: 0}
    for seed in range(40):
        env.reset(seed=seed)
        ret, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            ret, done = ret + reward, terminated or truncated
        if not env.aec.game_state.active[env.learner_seat]:  # knocked out
            seen[bool(info["game_over"])] += 1
            assert terminated and not truncated and ret == pytest.approx(-1 / 3)
            scores = np.asarray(info["scores"])
            assert scores[env.learner_seat] >= 60 and (scores < 60).sum() >= (1 if info["game_over"] else 2)
    assert seen[False] >= 1 and seen[True] >= 1, seen


def test_numpy_integers_in_env_kwargs_and_deals():
    env = mexican_train_v0.raw_env(
        num_players=np.int64(3), max_pip=np.int32(9), max_cycles=np.int64(50), first_player=np.int64(1)
    )
    assert env.config.num_players == 3 and type(env.config.num_players) is int
    env.reset(seed=0)
    assert env.agent_selection == "player_1"
    env.reset(
        seed=0,
        options={"deal": {"hands": [[[1, 2]], [[3, 4]], [[5, 6]]], "station": [9, 9], "first_player": np.int64(2)}},
    )
    assert env.agent_selection == "player_2"
    adapter = mexican_train_single_agent(num_players=3, max_pip=9, illegal_reward=np.float32(-2.0))
    adapter.reset(seed=0)
    illegal = np.int64(np.flatnonzero(~adapter.action_masks())[0])
    _, reward, terminated, _, info = adapter.step(illegal)
    assert terminated and reward == -2.0 and info["illegal_action"]


def test_numpy_booleans_in_the_true_false_rules():
    """np.True_ (a value read from an array of settings) was refused ("got np.True_; allowed:
    True or False") where numpy integers were taken; it is stored as a plain bool."""
    from domino_env.envs import cuban_v0

    env = mexican_train_v0.raw_env(use_boneyard=np.True_, use_mexican_train=np.False_)
    assert env.config.use_mexican_train is False and env.config.use_boneyard is True
    assert cuban_v0.raw_env(teams=np.bool_(True)).config.teams is True
    with pytest.raises(ConfigError, match="use_boneyard.*True or False"):
        mexican_train_v0.raw_env(use_boneyard=np.int64(1))


# ---------------------------------------------------------------- found by a bug battery (2026-12-03)
def test_the_adapters_illegal_action_info_has_round_results_too():
    env = mexican_train_single_agent()
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    *_, terminated, _, info = env.step(bad)
    assert terminated and info["illegal_action"] and info["round_results"] == []  # "always present"
    # ... and the rest of the layout, for the round still running
    env2 = mexican_train_single_agent()
    _, legal_info = env2.reset(seed=0)
    assert set(info) == set(legal_info) | {"illegal_action"}
    assert info["round_over"] is False and info["learner_seat"] == 0
    assert list(info["winners"]) == [-1] * 4 and list(info["scores"]) == [0] * 4


@pytest.mark.parametrize("action", [True, 54.0, "3", np.array([1, 2]), np.float32(2.0)])
def test_wrapped_env_refuses_a_non_integer_action_like_raw_env(action):
    """env()'s PettingZoo wrappers indexed the mask with the action first (True: numpy's
    "truth value ... is ambiguous"; a float: a bare AssertionError); now IllegalActionError, and
    nothing changes."""
    from domino_env import IllegalActionError
    from domino_env.envs import block_v0

    for make in (block_v0.env, block_v0.raw_env, mexican_train_v0.env):
        env = make()
        env.reset(seed=1)
        before = env.unwrapped.game_state.copy().actions
        with pytest.raises(IllegalActionError, match="must be an integer"):
            env.step(action)
        assert env.unwrapped.game_state.actions == before
        legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        env.step(np.int64(legal))  # numpy integers still play
        assert len(env.unwrapped.game_state.actions) == len(before) + 1


@pytest.mark.parametrize("action", [10**30, -(10**30), 2**63, -(2**63) - 1, 10_000, -1])
def test_wrapped_env_asserts_on_any_integer_outside_the_action_space(action):
    """An integer too large for numpy was an OverflowError from the bounds wrapper's check; every
    out-of-range integer is its AssertionError (docs/envs.md), and nothing changes."""
    from domino_env.envs import cuban_v0

    for make in (cuban_v0.env, mexican_train_v0.env):
        env = make()
        env.reset(seed=2)
        before = env.unwrapped.game_state.copy().actions
        n = env.action_space(env.agent_selection).n
        with pytest.raises(AssertionError, match=f"^action {action} is not in action space: 0 to {n - 1}$"):
            env.step(action)
        assert env.unwrapped.game_state.actions == before


@pytest.mark.parametrize("module", ["draw_v0", "mexican_train_v0"])
def test_wrapped_env_before_reset_and_after_the_episode_as_docs_envs_md_says(module, caplog):
    """docs/envs.md: raw_env raises DominoError; env() keeps PettingZoo's order-enforcing errors
    before reset, and last() once every agent is done is a DominoError (it was a KeyError)."""
    import importlib

    from domino_env import DominoError

    mod = importlib.import_module(f"domino_env.envs.{module}")
    raw, env = mod.raw_env(), mod.env()
    for call in (lambda e: e.last(), lambda e: e.step(0), lambda e: e.observe("player_0"), lambda e: e.state(),
                 lambda e: e.agent_iter()):  # fmt: skip
        with pytest.raises(DominoError, match=r"call reset\(\) first"):
            call(raw)
        with pytest.raises((AssertionError, AttributeError), match="reset"):
            call(env)
    for e in (raw, env):
        e.reset(seed=4)
        rng = np.random.default_rng(4)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert e.agents == []
        with pytest.raises(DominoError, match="the episode is over"):
            e.last()
    with pytest.raises(DominoError, match="the episode is over"):
        raw.step(0)
    env.step(0)  # PettingZoo's own convention: a logged warning
    assert "step() called after all agents are terminated or truncated" in caplog.text
    caplog.clear()
    env.step(10**6)  # an integer outside the action space too (the range check raised here)
    assert "step() called after all agents are terminated or truncated" in caplog.text


@pytest.mark.parametrize(("make", "kwargs"), [
    (mexican_train_v0.raw_env, {"num_players": 3, "max_pip": 9, "episode": "game", "max_cycles": 3}),
    (line_v0.raw_env, {"preset": "draw", "episode": "game", "max_cycles": 4}),
])  # fmt: skip
def test_replay_ends_a_record_where_its_max_cycles_truncates_the_env(make, kwargs):
    """``max_steps`` was checked and ``max_cycles`` was not: a record whose ``max_cycles`` was
    lowered replayed to its end, where ``raw_env(**env_kwargs)`` stops at the truncation."""
    from domino_env.core.records import RecordError, replay

    env = make(**{**kwargs, "max_cycles": 100_000})
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    while env.agents:
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    record = env.to_record()
    short = make(**kwargs)  # the same deals and actions, under the lower limit
    short.reset(options={"deals": record["deals"]})
    for action in record["actions"]:
        if not short.agents or any(short.truncations.values()):
            break
        short.step(action)
    allowed = len(short.to_record()["actions"])
    assert 0 < allowed < len(record["actions"])
    edited = {**record, "env_kwargs": {**record["env_kwargs"], "max_cycles": kwargs["max_cycles"]}}
    with pytest.raises(RecordError, match=f"max_cycles={kwargs['max_cycles']} ends the episode after move {allowed} \\(actions\\[{allowed - 1}\\], 0-based\\)"):
        list(replay(edited))
    assert len(list(replay(short.to_record()))) == allowed + 1  # the env's own truncated record replays


def test_malformed_record_files_and_fields_are_record_errors(tmp_path):
    from domino_env.core.errors import RecordError
    from domino_env.core.records import load_record, replay, save_record
    from domino_env.envs import block_v0

    env = block_v0.raw_env()
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    record = env.to_record()
    path = tmp_path / "r.json"
    save_record(record, path)
    assert len(list(replay(load_record(path)))) == 2
    path.write_text(path.read_text()[:40])  # truncated
    with pytest.raises(RecordError, match="r.json is not valid JSON: "):
        load_record(path)
    for empty in ("", " \n"):  # said "not valid JSON: Expecting value"
        path.write_text(empty)
        with pytest.raises(RecordError, match=rf"^record \S*r.json is an empty file \({len(empty)} bytes\)$"):
            load_record(path)
    path.write_text("null")  # said "a JSON NoneType"
    with pytest.raises(RecordError, match=r"\(a JSON null, not an object\)"):
        load_record(path)
    path.write_bytes(b"\xff\xfe")  # not text
    with pytest.raises(RecordError, match=r"r.json is not a text \(JSON\) file"):
        load_record(path)
    for field, value, kind in (("actions", 5, "list"), ("deals", None, "list"), ("env_kwargs", [], "object")):
        with pytest.raises(RecordError, match=f"{field}' must be a JSON {kind}"):
            list(replay({**record, field: value}))
    with pytest.raises(RecordError, match=r"unknown env id \[1\]"):  # was TypeError (unhashable)
        list(replay({**record, "env_id": [1]}))
    with pytest.raises(RecordError, match="'deals' item 0 must be a JSON object"):  # was a DealError about options
        list(replay({**record, "deals": [1]}))
    # a file's every message names it (a JSON file that is not a record, a mistyped field)
    path.write_text('{"a": 1}')
    with pytest.raises(RecordError, match=r"record .*r.json: not a game record of format"):
        load_record(path)
    path.write_text(json.dumps({**record, "actions": {}}))
    with pytest.raises(RecordError, match=r"record .*r.json: field 'actions' must be a JSON list"):
        load_record(path)
    path.write_text(json.dumps({**record, "seed": "abc"}))  # was read, and replayed
    with pytest.raises(RecordError, match=r"record .*r.json: field 'seed' must be null or an integer >= 0"):
        load_record(path)
    path.write_text("[" * 100_000)  # deeper than the JSON parser goes: was a RecursionError traceback
    with pytest.raises(RecordError, match="nested too deep"):
        load_record(path)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -np.inf, 10**400, -(10**400)])
def test_the_adapter_refuses_a_non_finite_illegal_reward(value):
    """A NaN penalty was accepted and reached the learner as a NaN reward."""
    import gymnasium as gym

    from domino_env import ConfigError

    with pytest.raises(ConfigError, match="'illegal_reward'.*a finite number"):
        gym.make("dominoes/MexicanTrain-v0", illegal_reward=value)
    with pytest.raises(ConfigError, match="'illegal_reward'"):
        gym.make("dominoes/Cuban-v0", illegal_reward=value)


@pytest.mark.parametrize("make", ["dominoes/MexicanTrain-v0", "dominoes/Block-v0"])
def test_the_adapters_render_mode_error_lists_its_own_modes(make):
    """An unknown mode was refused by the AEC env, whose list offers 'human' (the adapter refuses it)."""
    import gymnasium as gym

    from domino_env import ConfigError

    with pytest.raises(ConfigError, match=r"got 'rgb'; allowed: None, 'ansi' or 'rgb_array' \(the adapter"):
        gym.make(make, render_mode="rgb")


def test_the_adapter_takes_any_finite_real_number_as_illegal_reward():
    from fractions import Fraction

    import gymnasium as gym

    for value, expected in ((10**20, 1e20), (Fraction(1, 4), 0.25), (np.int8(-3), -3.0)):
        assert gym.make("dominoes/Block-v0", illegal_reward=value).unwrapped.illegal_reward == expected


@pytest.mark.parametrize("make", [mexican_train_single_agent, line_single_agent])
def test_the_adapters_step_documents_the_error_of_a_non_integer_action(make):
    """step's docstring listed DominoError and DealError but not the IllegalActionError a float
    action raises (nothing played, the episode goes on); an unmasked integer ends the episode."""
    from domino_env import IllegalActionError

    doc = type(make()).step.__doc__
    assert "IllegalActionError: ``action`` is not an integer" in doc and "goes on" in doc
    assert 'info["illegal_action"]=True' in doc
    env = make()
    env.reset(seed=1)
    legal = int(np.flatnonzero(env.action_masks())[0])
    for bad in (float(legal), str(legal), True, np.array([legal])):
        with pytest.raises(IllegalActionError, match="must be an integer"):
            env.step(bad)
    n = env.action_space.n
    for outside in (-1, n, np.int64(n + 5), 2**70):  # a policy's indexing error: refused, not an illegal move
        with pytest.raises(IllegalActionError, match=f"action {outside} is outside the action space: 0 to {n - 1}"):
            env.step(outside)
    *_, over, cut, _ = env.step(np.array(legal))  # the episode went on: a 0-d integer array plays
    if not (over or cut):
        *_, terminated, _, info = env.step(int(np.flatnonzero(~env.action_masks())[0]))
        assert terminated and info["illegal_action"]


def test_0d_integer_arrays_are_integers_for_seeds_seats_counts_and_int_config_fields():
    """A 0-d integer array (what ``np.array(3)`` and some libraries give) was refused as a seed, a
    seat, a count or an integer config field, with a message that read as if the value were wrong,
    while numpy integer scalars were taken. Bools and non-integers stay refused."""
    from domino_env.core.belief import InformationState
    from domino_env.core.config import MexicanTrainConfig
    from domino_env.core.errors import ConfigError
    from domino_env.envs import mexican_train_v0
    from domino_env.train.evaluate import evaluate
    from domino_env.wrappers import mexican_train_single_agent

    env = mexican_train_v0.raw_env(num_players=np.array(4))
    env.reset(seed=np.array(3))
    same = mexican_train_v0.raw_env(num_players=4)
    same.reset(seed=3)
    assert env.game_state.hands == same.game_state.hands and type(env.game_state.config.num_players) is int
    assert MexicanTrainConfig(num_players=np.array(3)) == MexicanTrainConfig(num_players=3)
    assert InformationState.from_state(env.game_state, np.array(1)).seat == 1
    result = evaluate(["random", "greedy"], num_players=2, rounds=np.array(2), seed=np.array(1))
    assert (result.to_dict()["seed"], result.to_dict()["episodes"]) == (1, 2)
    assert mexican_train_single_agent(learner_seat=np.array(1)).learner_seat == 1
    for bad in (True, np.array(1.5), np.array([1]), -1):
        with pytest.raises(ConfigError, match="'seed'"):
            env.reset(seed=bad)
