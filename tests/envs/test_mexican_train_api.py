"""PettingZoo / Gymnasium / SB3 conformance of the Mexican Train env and its single-agent adapter
(issue 2 sections 3-5; docs/design.md §11)."""

from __future__ import annotations

import json
import pickle
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import api_test, render_test, seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import domino_env
from domino_env import ConfigError, DealError, IllegalActionError
from domino_env.core.records import load_record, replay, save_record
from domino_env.encoding.mexican_train import decode_action, describe_action, encode_action
from domino_env.envs.infos import Termination, seats_of
from domino_env.envs.mexican_train_v0 import env, raw_env
from domino_env.wrappers import SingleAgentEnv, mexican_train_single_agent

PRESETS = ["domino_cubano", "tren_mexicano", "novelty"]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", [2, 4, 8])
def test_pettingzoo_api_seed_render(preset, players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(preset=preset, num_players=players), num_cycles=200)
        seed_test(lambda: env(preset=preset, num_players=players), num_cycles=200)
        render_test(lambda render_mode=None: env(preset=preset, num_players=players, render_mode=render_mode))


def test_api_test_in_game_episodes_with_points_rewards():
    """Mid-episode rewards (episode="game", reward="points") go through _cumulative_rewards."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(episode="game", reward="points", num_players=3, max_pip=9), num_cycles=2000)
        api_test(
            env(preset="tren_mexicano", episode="game", reward="points", num_players=3, max_pip=9,
                elimination_limit=30),
            num_cycles=2000,
        )


def test_registered_with_pettingzoo_and_gymnasium():
    e = pettingzoo.make("aec", "dominoes/mexican_train-v0", num_players=3, max_pip=9)
    e.reset(seed=0)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert e.action_space("player_0").n == 55 * 4 + 2
    g = gymnasium.make("dominoes/MexicanTrain-v0", num_players=3, max_pip=9)
    obs, info = g.reset(seed=0)
    assert obs.shape == g.observation_space.shape and obs.dtype == np.float32
    assert g.get_wrapper_attr("action_masks")().any()


def test_spaces_are_cached_and_mask_is_int8():
    e = raw_env()
    assert e.observation_space("player_0") is e.observation_space("player_3")
    assert e.action_space("player_1") is e.action_space("player_1")
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    assert obs["action_mask"].dtype == np.int8 and obs["observation"].dtype == np.float32
    assert e.observation_space("player_0")["observation"].contains(obs["observation"])


def test_seeded_reset_reproduces_and_unseeded_continues():
    a, b = raw_env(), raw_env()
    a.reset(seed=7)
    b.reset(seed=7)
    assert a.game_state.hands == b.game_state.hands and a.agent_selection == b.agent_selection
    a.reset()
    b.reset()
    assert a.game_state.hands == b.game_state.hands  # same stream continues identically
    c = raw_env()
    c.reset(seed=8)
    assert c.game_state.hands != a.game_state.hands


def test_pickle_round_trip_and_interleaved_instances():
    rng = np.random.default_rng(0)
    a = raw_env(num_players=4)
    a.reset(seed=3)
    for _ in range(10):
        legal = a.game_state.legal_actions()
        a.step(legal[rng.integers(len(legal))])
    b = pickle.loads(pickle.dumps(a))
    assert b.game_state.hands == a.game_state.hands and b.agent_selection == a.agent_selection
    fresh = pickle.loads(pickle.dumps(raw_env(num_players=5, preset="novelty")))
    fresh.reset(seed=1)
    assert fresh.config.num_players == 5 and fresh.config.station_source == "highest_held"
    # Interleaving two instances changes neither: compare against solo runs.
    solo = []
    for seed in (11, 12):
        e = raw_env()
        e.reset(seed=seed)
        r = np.random.default_rng(seed)
        solo.append([])
        while not e.game_state.round_over:
            legal = e.game_state.legal_actions()
            act = legal[r.integers(len(legal))]
            solo[-1].append(act)
            e.step(act)
    x, y = raw_env(), raw_env()
    x.reset(seed=11)
    y.reset(seed=12)
    for k in range(max(map(len, solo))):
        for e, actions in ((x, solo[0]), (y, solo[1])):
            if k < len(actions):
                e.step(actions[k])
    assert x.game_state.round_over and y.game_state.round_over


def test_round_result_in_infos_and_rewards_sum_to_zero():
    rng = np.random.default_rng(5)
    for seed in range(20):
        e = env(num_players=4)
        e.reset(seed=seed)
        total = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            total[agent] += reward
            if term or trunc:
                assert info["termination_code"] in (Termination.WENT_OUT, Termination.BLOCKED)
                assert len(info["pips"]) == 4 and len(info["scores"]) == 4
                assert set(seats_of(info["winners"])) <= {0, 1, 2, 3}
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(len(legal))]))
        assert sum(total.values()) == pytest.approx(0.0)
        assert max(total.values()) > 0


def test_max_steps_truncates_every_agent_after_that_many_actions():
    e = raw_env(max_steps=5)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    for k in range(5):
        assert not any(e.truncations.values()), k
        legal = e.game_state.legal_actions()
        e.step(legal[rng.integers(len(legal))])
    assert all(e.truncations.values())
    assert all(i["limit_reached"] and not i["round_over"] for i in e.infos.values())


def test_bad_kwargs_raise_config_error():
    for kwargs in ({"episode": "season"}, {"reward": "money"}, {"render_mode": "rgb"}, {"max_cycles": 0},
                   {"max_steps": 0}, {"max_steps": 2.5}):
        with pytest.raises(ConfigError) as err:
            raw_env(**kwargs)
        assert next(iter(kwargs)) in str(err.value)


def test_illegal_actions_raw_and_wrapped():
    e = raw_env()
    e.reset(seed=0)
    before = (e.game_state.hands[:], e.agent_selection, e.observe(e.agent_selection)["action_mask"].copy())
    illegal = int(np.flatnonzero(before[2] == 0)[0])
    with pytest.raises(IllegalActionError, match="illegal action"):
        e.step(illegal)
    assert e.game_state.hands == before[0] and e.agent_selection == before[1]
    assert np.array_equal(e.observe(e.agent_selection)["action_mask"], before[2])
    w = env()
    w.reset(seed=0)
    offender = w.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w.step(illegal)
    assert w.rewards[offender] == -1 and all(w.terminations.values())


def test_deal_errors():
    e = raw_env(num_players=2, max_pip=9)
    with pytest.raises(DealError):
        e.reset(options={"deal": {"hands": [[[9, 9]], []], "station": [9, 9]}})
    with pytest.raises(DealError):
        e.reset(options={"deal": {"hands": [[[1, 2]], [[2, 1]]], "station": [9, 9]}})
    with pytest.raises(DealError):
        e.reset(options={"deal": {"hands": [[[1, 10]], []], "station": [9, 9]}})
    with pytest.raises(DealError):
        e.reset(options={"deal": {"hands": [[]], "station": [9, 9]}})
    with pytest.raises(DealError):
        e.reset(options={"deal": {"hands": [[], []], "station": [9, 8]}})


def test_action_codec_round_trip():
    for p in (2, 4, 8):
        for n in (9, 12):
            for action in range(0, (n + 1) * (n + 2) // 2 * (p + 1) + 2, 7):
                kind, tile, slot = decode_action(action, p, n)
                again = encode_action(tile, slot if kind == "place" else kind, p, n)
                assert again == action
                assert describe_action(action, p, n)
    assert describe_action(encode_action((3, 12), 4, 4, 12), 4, 12) == "place 3-12 on slot 4 (Mexican train)"


def test_record_json_round_trip(tmp_path):
    e = raw_env(episode="game", num_players=3, max_pip=9)
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(150):
        legal = e.game_state.legal_actions()
        e.step(legal[rng.integers(len(legal))])
    path = tmp_path / "game.json"
    save_record(e.to_record(), path)
    record = load_record(path)
    assert record["env_id"] == "dominoes/mexican_train-v0" and record["seed"] == 4
    assert json.loads(path.read_text())["actions"] == e.game_state.actions
    last = list(replay(record))[-1]
    assert last.hands == e.game_state.hands and last.scores == e.game_state.scores


def test_render_ansi_shows_the_table_and_only_the_viewer_hand():
    e = raw_env(render_mode="ansi", num_players=3, max_pip=9)
    e.reset(options={"deal": {"hands": [[[9, 1], [2, 3]], [[9, 4]], [[5, 6]]], "boneyard": [[7, 7]],
                              "station": [9, 9], "first_player": 0}})
    text = e.render()
    assert "station [9|9]" in text and "boneyard 1 tile\n" in text  # was "1 tiles"
    e.reset(seed=0)
    assert "boneyard 6 tiles\n" in e.render()  # 3 hands of 16 from the 54 left
    assert "hand of seat 0: [1|9] [2|3]" in text
    assert "[4|9]" not in text and "[5|6]" not in text


# ---------------------------------------------------------------------------- single-agent adapter


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"preset": "tren_mexicano", "num_players": 6}, {"episode": "game", "reward": "points", "num_players": 2, "max_pip": 9}],
)
def test_adapter_passes_sb3_and_gymnasium_check_env(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = mexican_train_single_agent(learner_seat="random", **kwargs)
        sb3_check_env(e)
        gym_check_env(e)


def _deal_where_opponent_goes_out():
    # Seat 0 (learner) has two tiles; seat 1 goes out on its first turn with its only tile.
    return {"hands": [[[9, 1], [1, 2]], [[9, 3]], [[9, 4], [4, 4]]], "boneyard": [], "station": [9, 9],
            "first_player": 0}


def test_adapter_gives_the_learner_its_own_final_reward_when_an_opponent_ends_the_round():
    e = mexican_train_single_agent(num_players=3, max_pip=9, learner_seat=0)
    obs, info = e.reset(options={"deal": _deal_where_opponent_goes_out()})
    legal = np.flatnonzero(e.action_masks())
    obs, reward, terminated, truncated, info = e.step(int(legal[0]))  # learner places 9-1
    assert terminated and not truncated
    assert info["termination_code"] == Termination.WENT_OUT and seats_of(info["winners"]) == [1]
    assert reward == pytest.approx(-0.5)  # the learner's share of -1, not the winner's +1


def test_adapter_learner_win_is_positive_and_points_mode_is_its_own_points():
    deal = {"hands": [[[9, 1]], [[9, 3], [3, 5]], [[9, 4], [4, 4]]], "boneyard": [], "station": [9, 9],
            "first_player": 0}
    e = mexican_train_single_agent(num_players=3, max_pip=9, learner_seat=0)
    e.reset(options={"deal": deal})
    _, reward, terminated, _, info = e.step(int(np.flatnonzero(e.action_masks())[0]))
    assert terminated and reward == pytest.approx(1.0) and seats_of(info["winners"]) == [0]
    e = mexican_train_single_agent(num_players=3, max_pip=9, learner_seat=0, reward="points")
    e.reset(options={"deal": _deal_where_opponent_goes_out()})
    _, reward, terminated, _, info = e.step(int(np.flatnonzero(e.action_masks())[0]))
    assert terminated and seats_of(info["winners"]) == [1]
    assert reward == pytest.approx(-3 / 100)  # the learner's own 1-2 left in hand


def test_adapter_refuses_a_deal_that_ends_before_the_learner_acts():
    deal = {"hands": [[[9, 1]], [[9, 3], [3, 5]], [[9, 4], [4, 4]]], "boneyard": [], "station": [9, 9],
            "first_player": 0}
    e = mexican_train_single_agent(num_players=3, max_pip=9, learner_seat=1)
    with pytest.raises(domino_env.DominoError, match="before the learner"):
        e.reset(options={"deal": deal})


def test_adapter_illegal_action_ends_episode_with_penalty_and_keeps_state():
    e = mexican_train_single_agent(num_players=4, illegal_reward=-2.0)
    e.reset(seed=0)
    hands = e.aec.game_state.hands[:]
    illegal = int(np.flatnonzero(~e.action_masks())[0])
    _, reward, terminated, truncated, info = e.step(illegal)
    assert reward == -2.0 and terminated and info["illegal_action"]
    assert e.aec.game_state.hands == hands
    with pytest.raises(domino_env.DominoError):
        e.step(0)


def test_adapter_random_seat_and_reproducibility():
    def run(seed):
        e = mexican_train_single_agent(learner_seat="random")
        obs, info = e.reset(seed=seed)
        seats, total, rng = [info["learner_seat"]], 0.0, np.random.default_rng(seed)
        for _ in range(3):
            done = False
            while not done:
                legal = np.flatnonzero(e.action_masks())
                obs, r, te, tr, info = e.step(int(legal[rng.integers(len(legal))]))
                total += r
                done = te or tr
            obs, info = e.reset()
            seats.append(info["learner_seat"])
        return seats, total, obs
    a, b = run(3), run(3)
    assert a[0] == b[0] and a[1] == b[1] and np.array_equal(a[2], b[2])
    assert len(set(run(4)[0] + run(5)[0] + a[0])) > 1


def test_adapter_opponent_errors():
    with pytest.raises(ConfigError):
        SingleAgentEnv(raw_env(num_players=4), opponents=[lambda o, m, r: 0])
    with pytest.raises(ConfigError):
        SingleAgentEnv(raw_env(num_players=4), learner_seat=4)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_soak_2000_random_rounds(preset):
    """2,000 random rounds per preset over 2..8 players and three sets through raw_env, with the
    observation and mask of the acting agent every step, without an error."""
    rng = np.random.default_rng(2000)
    envs = [raw_env(preset=preset, num_players=p, max_pip=n) for p in range(2, 9) for n in (9, 12, 15)]
    outcomes = set()
    for k in range(2000):
        e = envs[k % len(envs)]
        e.reset(seed=k)
        space = e.observation_space("player_0")["observation"]
        while not e.game_state.round_over:
            obs = e.observe(e.agent_selection)
            legal = np.flatnonzero(obs["action_mask"])
            assert len(legal) >= 1
            e.step(int(legal[rng.integers(len(legal))]))
        assert space.contains(e.observe(e.agent_selection)["observation"])
        outcomes.add(str(e.infos["player_0"]["termination_code"]))
    assert outcomes == {"went_out", "blocked"}


def test_numpy_integers_are_accepted_and_stored_as_int_floats_refused():
    e = raw_env(num_players=np.int64(3), max_pip=np.int32(9), hand_size=np.int16(5))
    assert type(e.config.max_pip) is int and e.config.num_players == 3
    e.reset(seed=1)
    json.dumps(e.to_record())  # JSON-ready
    for kwargs in ({"max_pip": 12.0}, {"num_players": 3.0}, {"max_pip": True}, {"hand_size": 5.5}):
        with pytest.raises(ConfigError):
            raw_env(**kwargs)


def test_unknown_keyword_lists_env_keywords_too():
    with pytest.raises(ConfigError) as err:
        raw_env(rewards="points")
    assert "'reward'" in str(err.value) and "'episode'" in str(err.value) and "'doubles'" in str(err.value)


def test_non_integer_actions_are_refused_without_change():
    e = raw_env()
    e.reset(seed=2)
    legal = e.game_state.legal_actions()[0]
    hands = e.game_state.hands[:]
    for bad in (float(legal), str(legal), True, np.array([legal])):
        with pytest.raises(IllegalActionError, match="integer"):
            e.step(bad)
    assert e.game_state.hands == hands
    e.step(np.int64(legal))  # numpy integers are fine


def test_misuse_before_reset_and_after_the_end_is_explained():
    e = raw_env()
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), lambda: e.to_record()):
        with pytest.raises(domino_env.DominoError, match="reset"):
            call()
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    while e.agents:
        agent = e.agent_selection
        if e.terminations[agent]:
            e.step(None)
            continue
        legal = e.game_state.legal_actions()
        e.step(legal[rng.integers(len(legal))])
    with pytest.raises(domino_env.DominoError, match="over"):
        e.step(0)


def test_malformed_reset_options_raise_deal_error():
    e = raw_env(num_players=2, max_pip=9)
    bad_options = [
        "x",
        {"deal": [1, 2]},
        {"deals": {"hands": []}},
        {"deals": []},
        {"deal": {"hands": [[[12.5, 3]], []], "station": [9, 9]}},
        {"deal": {"hands": [[[True, 3]], []], "station": [9, 9]}},
        {"deal": {"hands": [[[1, 2, 3]], []], "station": [9, 9]}},
        {"deal": {"hands": [[[1, 2]], []], "station": [9, 9], "first_player": 2}},
        {"deal": {"hands": [[[1, 2]], []], "station": [9, 9], "colour": "red"}},
        {"deal": {"hands": [[], [[1, 2]]], "station": [9, 9]}},  # an empty hand
    ]
    for options in bad_options:
        with pytest.raises(DealError):
            e.reset(options=options)
    assert e.game_state is None  # nothing was half-dealt


def test_adapter_rejects_human_render_and_bad_arguments():
    with pytest.raises(ConfigError, match="render_mode"):
        mexican_train_single_agent(render_mode="human")
    with pytest.raises(ConfigError, match="opponents") as err:
        SingleAgentEnv(raw_env(), opponents=None)
    assert "make_agent" not in str(err.value)
    for names in ("planner", ["greedy", "planner", "random"]):  # agent names: told how to build them
        with pytest.raises(ConfigError, match=r"callables; an agent name is an agent once built: "
                                              r"domino_env\.agents\.make_agent\(name, env\.config\)"):
            mexican_train_single_agent(opponents=names)
    with pytest.raises(ConfigError, match="illegal_reward"):
        SingleAgentEnv(raw_env(), illegal_reward="x")
    e = mexican_train_single_agent(render_mode="ansi", learner_seat=2, num_players=3, max_pip=9)
    e.reset(seed=0)
    assert "hand of seat 2" in e.render()


def test_adapter_refuses_a_wrapped_env():
    """env()'s wrappers forbid the private attributes the adapter reads: a wrapped env used to be
    taken and played until the learner's first illegal action, which then raised AttributeError."""
    with pytest.raises(ConfigError, match="unwrapped") as err:
        SingleAgentEnv(env(num_players=3, max_pip=9))
    assert err.value.field == "aec_env"
    single = SingleAgentEnv(env(num_players=3, max_pip=9).unwrapped)
    single.reset(seed=0)
    illegal = int(np.flatnonzero(~single.action_masks())[0])
    assert single.step(illegal)[1:3] == (-1.0, True)


def test_adapter_reports_an_opponent_that_plays_illegally():
    e = SingleAgentEnv(raw_env(num_players=2, max_pip=9), opponents=lambda o, m, r: 0, learner_seat=1)
    with pytest.raises(IllegalActionError, match="opponent"):
        for seed in range(20):  # seat 0 may or may not act first; some seed makes it act
            e.reset(seed=seed)
            legal = np.flatnonzero(e.action_masks())
            e.step(int(legal[0]))


def test_options_deals_must_be_a_list_or_tuple_and_the_message_names_what_came():
    """A generator (it could be endless) or a dict is refused with its type named; an empty list is
    named as such; a tuple is as good as a list."""
    e = raw_env(num_players=2, max_pip=9)
    for deals, got in (((d for d in [None]), "generator"), ({"hands": []}, "dict"), ([], "an empty one"), (None, "None"),
                       ((), "an empty one")):  # fmt: skip
        with pytest.raises(DealError, match=rf"options\['deals'\] must be a non-empty list or tuple of deals, got {got}$"):
            e.reset(seed=1, options={"deals": deals})
        assert e.game_state is None
    e.reset(seed=1, options={"deals": (None, None)})
    assert e.game_state is not None
