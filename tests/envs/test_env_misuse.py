"""What a fresh-user trial hit beyond issue 12's list: SB3's 0-d array actions, unknown agents,
misspelt reset options, last() once the episode is over, the parallel registry ids, and info
objects shared between reset and step (gymnasium's env checker warns about that)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest

import domino_env  # (registers the ids)
from domino_env.core.errors import DealError, DominoError, IllegalActionError
from domino_env.envs import block_v0, cuban_v0, draw_v0, mexican_train_v0

MODULES = [mexican_train_v0, block_v0, draw_v0, cuban_v0]
IDS = ["dominoes/MexicanTrain-v0", "dominoes/Block-v0", "dominoes/Draw-v0", "dominoes/Cuban-v0"]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_a_0d_integer_array_is_an_action_and_other_arrays_are_not(module):
    env = module.raw_env()
    env.reset(seed=3)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    for bad in (np.array([legal[0]]), np.array(float(legal[0])), np.array(True)):
        with pytest.raises(IllegalActionError, match="must be an integer"):
            env.step(bad)
    before = env.game_state.actions[:] if hasattr(env.game_state, "actions") else None
    env.step(np.array(legal[0], dtype=np.int64))  # what model.predict returns for one observation
    if before is not None:
        assert env.game_state.actions[-1] == int(legal[0])


@pytest.mark.parametrize("gym_id", IDS)
def test_adapter_steps_with_a_0d_array_and_shares_no_info_object(gym_id):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gymnasium's checker warns when infos share objects
        env = gymnasium.make(gym_id)
        _, info0 = env.reset(seed=np.int64(4))
        action = np.array(np.flatnonzero(env.unwrapped.action_masks())[0])
        _, reward, _, _, info1 = env.step(action)
    assert isinstance(reward, float)
    for key, value in info0.items():
        if isinstance(value, np.ndarray):
            assert value is not info1[key], key


def test_unknown_agents_are_refused_by_the_space_methods():
    env = mexican_train_v0.raw_env(num_players=3)
    assert env.observation_space("player_2") is env.observation_space("player_0")
    for method in (env.observation_space, env.action_space):
        with pytest.raises(DominoError, match=r"unknown agent 'player_9'.*player_0"):
            method("player_9")
        with pytest.raises(DominoError, match=r"unknown agent \[\]"):  # unhashable: was a TypeError
            method([])


@pytest.mark.parametrize("make", [mexican_train_v0.raw_env, mexican_train_v0.env, block_v0.env])
def test_unknown_agents_are_refused_by_observe(make):
    """observe() raised a bare KeyError ('player_9') where the space methods name the agents."""
    env = make(num_players=3)
    env.reset(seed=0)
    for agent in ("player_9", 0, None, ["player_0"]):
        with pytest.raises(DominoError, match=r"unknown agent .*the agents are \['player_0'"):
            env.observe(agent)
    assert env.observe("player_2")["action_mask"].dtype == np.int8


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_a_misspelt_reset_option_is_named_in_a_warning(module):
    """A warning, not an error: PettingZoo's api_test resets with ``options={"options": 1}``."""
    env = module.raw_env()
    with pytest.warns(UserWarning, match=r"unknown option\(s\) \['dael'\].*'deal' and 'deals'"):
        env.reset(seed=0, options={"dael": {}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0, options={})  # an empty dict is fine
        env.reset(seed=0, options={"deals": [env.game_state.deals[0]]} if hasattr(env.game_state, "deals") else {})


def test_last_after_the_episode_is_over_is_a_clear_error():
    env = block_v0.raw_env()
    env.reset(seed=1)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agents == []
    with pytest.raises(DominoError, match="episode is over"):
        env.last()


@pytest.mark.parametrize("module", [mexican_train_v0, block_v0])
def test_the_parallel_view_asks_for_reset_before_a_step(module):
    """PettingZoo's ``'TurnBasedParallelEnv' object has no attribute 'agents'``, where ``raw_env``,
    ``env()`` and the adapter say to call reset() first."""
    with pytest.raises(DominoError, match=r"^TurnBasedParallelEnv: call reset\(\) first$"):
        module.parallel_env().step({"player_0": 0})


@pytest.mark.parametrize("game", ["mexican_train", "block", "draw", "cuban"])
def test_parallel_ids_are_registered(game):
    """The same turn-based parallel view as the module's parallel_env(), seeded alike."""
    module = {"mexican_train": mexican_train_v0, "block": block_v0, "draw": draw_v0, "cuban": cuban_v0}[game]
    env, same = pettingzoo.make("parallel", f"dominoes/{game}-v0"), module.parallel_env()
    observations, _ = env.reset(seed=2)
    expected, _ = same.reset(seed=2)
    acting = [a for a, o in observations.items() if o["action_mask"].any()]
    assert len(acting) == 1  # turn-based: only the seat to play has legal actions
    for agent in env.possible_agents:
        np.testing.assert_array_equal(observations[agent]["observation"], expected[agent]["observation"])
    action = int(np.flatnonzero(observations[acting[0]]["action_mask"])[0])
    actions = {a: (action if a == acting[0] else 0) for a in env.agents}  # others are ignored
    observations, *_ = env.step(actions)
    expected, *_ = same.step(actions)
    for agent in env.possible_agents:
        np.testing.assert_array_equal(observations[agent]["observation"], expected[agent]["observation"])


def test_adapter_round_over_counts_every_round_of_a_game_episode():
    """A round that ends on an opponent's move is still reported at the top level of the info of
    the adapter step that contains it (found by a fresh-user trial: 4 of 10 rounds before)."""
    env = gymnasium.make("dominoes/MexicanTrain-v0", opponents="greedy", episode="game", num_players=3, max_pip=9)
    _, info = env.reset(seed=0)
    over, ended, done = 0, [], False
    while not done:
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        over += bool(info["round_over"])
        ended += [int(r["round_index"]) for r in info["round_results"]]
        if info["round_results"]:
            assert info["round_over"] and int(info["round_index"]) == ended[-1]
    rounds = env.unwrapped.aec.game_state.round_index + 1
    assert ended == list(range(rounds)) and rounds > 1
    assert over == rounds  # no step ended two rounds in this game


def test_a_failed_reset_keeps_the_generator_and_the_recorded_seed():
    """A refused deal reseeded the generator and set the record's seed anyway: the running game's
    record named the wrong seed, and the next unseeded reset dealt another game."""
    from domino_env.core.errors import DealError

    bad = {"hands": [[[6, 6]], [[6, 6]], [[1, 1]], [[0, 4]]]}  # [6, 6] twice
    a, b = block_v0.raw_env(), block_v0.raw_env()
    a.reset(seed=1)
    b.reset(seed=1)
    for options, seed in (({"deal": bad}, 5), ({"deal": bad}, None), ({"deal": "x"}, 7), ({"deals": []}, 7)):
        with pytest.raises(DealError):
            b.reset(seed=seed, options=options)
    assert b.to_record()["seed"] == 1
    a.reset()
    b.reset()
    assert np.array_equal(a.state(), b.state())


def _learner_rewards_match_the_aec(env, seed: int) -> tuple[float, float]:
    """Play one adapter episode with random legal moves; return (the adapter's rewards summed,
    the learner's AEC rewards summed over every AEC step of the episode, those inside reset()
    included; a deal that the adapter throws away, and deals again, does not count)."""
    aec, total = env.aec, [0.0]
    step, reset = aec.step, aec.reset

    def counted(action):
        step(action)
        total[0] += float(aec.rewards.get(env.learner, 0.0))

    def restarted(**kwargs):
        reset(**kwargs)
        total[0] = 0.0

    aec.step, aec.reset = counted, restarted
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    paid = 0.0
    while True:
        _, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        paid += reward
        if terminated or truncated:
            return paid, total[0]


@pytest.mark.parametrize(
    "game_id, kwargs",
    [("dominoes/Draw-v0", {}), ("dominoes/Block-v0", {}), ("dominoes/MexicanTrain-v0", {"max_pip": 9}),
     ("dominoes/Block-v0", {"teams": True, "num_players": 4, "team_play": True})],
    ids=["draw", "block", "mexican_train", "block_teams_team_play"],
)  # fmt: skip
def test_rounds_that_end_inside_reset_are_paid_with_the_first_step(game_id, kwargs):
    """In a game episode with one-tile hands a round can end before the learner's first decision;
    its reward was dropped (reset returns none), so the episode's rewards did not add up. (Not
    Cuban with one tile: a round's leader goes out at once and, the winner leading, ends the whole
    game inside reset, so the adapter deals again.)"""
    env = gymnasium.make(game_id, episode="game", reward="points", hand_size=1, **kwargs).unwrapped
    ended_in_reset = 0
    for seed in range(30):
        paid, owed = _learner_rewards_match_the_aec(env, seed)
        assert paid == pytest.approx(owed), seed
        env.reset(seed=seed)
        ended_in_reset += bool(env.aec.round_results)
    assert ended_in_reset >= 3  # the case is exercised


def test_a_truncation_before_the_learners_first_turn_names_the_limit():
    env = gymnasium.make("dominoes/MexicanTrain-v0", first_player=0, learner_seat=2, max_steps=1)
    with pytest.raises(DominoError, match=r"truncated \(max_cycles=100000, max_steps=1\) before the learner's first turn"):
        env.reset(seed=0)


def test_a_refused_deal_leaves_the_adapter_as_it_was():
    """The adapter drew the learner's seat and the AEC seed before the deal was refused: the
    running episode went on with another seat, and the stream dealt other games afterwards."""
    from domino_env.core.errors import DealError

    bad = {"hands": [[[6, 6]], [[6, 6]], [[1, 1]], [[0, 4]]]}
    for seed in range(6):
        a = gymnasium.make("dominoes/Block-v0", learner_seat="random").unwrapped
        b = gymnasium.make("dominoes/Block-v0", learner_seat="random").unwrapped
        a.reset(seed=seed)
        b.reset(seed=seed)
        for again in (seed + 100, None):
            with pytest.raises(DealError):
                b.reset(seed=again, options={"deal": bad})
        assert b.learner_seat == a.learner_seat
        legal = int(np.flatnonzero(a.action_masks())[0])
        assert a.step(legal)[4]["learner_seat"] == b.step(legal)[4]["learner_seat"]
        a.reset()
        b.reset()
        assert a.learner_seat == b.learner_seat and np.array_equal(a.aec.state(), b.aec.state())


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_none_for_the_seat_to_act_under_env_is_an_assertion_and_the_episode_goes_on(module):
    """docs/envs.md: under env() `None` fails PettingZoo's AssertOutOfBoundsWrapper (it once said
    that it ended the episode, as a masked-out action does); raw_env refuses it with its own error."""
    env = module.env()
    env.reset(seed=1)
    seat = env.agent_selection
    with pytest.raises(AssertionError, match=rf"^action None is not in action space: {seat} is to act \(None is for a done agent\)$"):
        env.step(None)
    assert env.agent_selection == seat and not any(env.terminations.values()) and not any(env.truncations.values())
    raw = module.raw_env()
    raw.reset(seed=1)
    with pytest.raises(IllegalActionError):
        raw.step(None)


NO_DOUBLES = {"hands": [[[0, 1]], [[2, 3]], [[4, 5]], [[6, 7]]]}  # highest_held: nobody can place a station


def test_a_bad_later_deal_ends_the_episode_cleanly_and_names_its_index():
    """A later deal whose fault depends on the play (here: under station_source='highest_held',
    no hand holds a double not yet used as a station) is refused when its round starts. Before,
    the DealError left the env stuck: round over, no agent terminated, the round's rewards never
    added, every later step an IllegalActionError, and the engine's round index moved on. Now
    the round is paid, every agent terminated, and the error names the deal."""
    first = mexican_train_v0.raw_env(episode="game", station_source="highest_held")
    first.reset(seed=11)
    good, bad = first.game_state.deals[0], NO_DOUBLES
    env = mexican_train_v0.raw_env(episode="game", reward="points", station_source="highest_held")
    env.reset(seed=0, options={"deals": [good, bad]})
    rng = np.random.default_rng(0)
    with pytest.raises(DealError, match=r"^options\['deals'\]\[1\]: .*the episode ends with the round before it"):
        for _ in range(10_000):
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
    paid = env.round_results[0]
    assert len(env.round_results) == 1 and env.game_state.round_index == 0
    assert all(env.terminations.values()) and any(env._cumulative_rewards.values())
    assert env._cumulative_rewards == env.rewards and paid["round_index"] == 0
    for _agent in env.agent_iter():  # the dead agents step out as after any last round
        assert env.last()[2]
        env.step(None)
    assert env.agents == []
    env.reset(seed=0, options={"deals": [good]})  # and it plays again
    assert env.game_state.deals[0] == good


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_a_later_deal_is_refused_by_reset_for_what_the_play_cannot_change(module):
    """A tile given twice in options['deals'][2] was refused only when round 2 started, after two
    rounds had been played (and the episode then ended). reset now refuses it, names it, and
    changes nothing."""
    first = module.raw_env(episode="game")
    first.reset(seed=11)
    good = first.game_state.deals[0]
    seats = len(good["hands"])
    env = module.raw_env(episode="game")
    env.reset(seed=3)
    before = env.game_state.deals[0]
    for bad, message in (
        ({"hands": [[[0, 0], [0, 0]]] + [[[1, 2]]] * (seats - 1)}, r"hand of seat 0: tile \[0, 0\] appears twice "
                                                                    r"\(also in hand of seat 0\)"),
        ({"hands": [[[1, 2]]] * (seats - 1)}, rf"deal\['hands'\] must list one hand per seat \({seats} seats\), got {seats - 1}"),
        ({"hands": [[[1, 2]]] + [[[3 + s, 4 + s]] for s in range(seats - 1)], "first_player": seats},
         rf"first_player must be a seat 0\.\.{seats - 1}, got {seats}"),
        ({"hands": [[[30, 1]]] * seats}, r"hand of seat 0: tile \[30, 1\] is not in the double-\d+ set"),
        ({"hand": []}, r"unknown deal keys \['hand'\]; allowed: hands, boneyard, .*first_player"),
    ):  # fmt: skip
        with pytest.raises(DealError, match=rf"^options\['deals'\]\[2\]: {message}$"):
            env.reset(seed=0, options={"deals": [good, None, bad]})
        assert env.game_state.deals == [before]  # a failed reset changes nothing
    env.reset(seed=0, options={"deals": [good, None, None]})
    assert env.game_state.deals == [good]


def test_a_later_mexican_train_deal_holding_its_rounds_station_is_refused_by_reset():
    """The schedule gives round k the station N-k whatever the play, so a later deal holding it
    is refused by reset, in words that say the tile is the station (it read "appears twice (also
    in station)" of a tile the user gave once); under game_end='elimination' an empty hand is left
    to the round's start (the seat may be out by then), elsewhere refused at once."""
    env = mexican_train_v0.raw_env(episode="game", num_players=2, max_pip=9)
    hands = {"hands": [[[9, 9], [0, 1]], [[2, 3]]]}  # 9-9: round 0's station, not round 1's
    with pytest.raises(DealError, match=r"^options\['deal'\]: hand of seat 0: tile \[9, 9\] is round 0's station "
                       r"\(the schedule's double\): no hand or boneyard holds the station double$"):  # fmt: skip
        env.reset(seed=0, options={"deal": hands})
    later = {"hands": [[[8, 8], [0, 1]], [[2, 3]]]}
    with pytest.raises(DealError, match=r"^options\['deals'\]\[1\]: hand of seat 0: tile \[8, 8\] is round 1's "
                       r"station \(the schedule's double\): no hand or boneyard holds the station double$"):  # fmt: skip
        env.reset(seed=0, options={"deals": [None, later]})
    given = {"hands": [[[0, 1]], [[2, 3]]], "boneyard": [[4, 4]], "station": [4, 4]}
    with pytest.raises(DealError, match=r"^options\['deals'\]\[1\]: boneyard: tile \[4, 4\] is the deal's station: "
                       r"no hand or boneyard holds the station double$"):  # fmt: skip
        env.reset(seed=0, options={"deals": [None, given]})
    env.reset(seed=0, options={"deals": [hands | {"station": [8, 8]}, later | {"station": [9, 9]}]})  # given stations
    empty = {"hands": [[[0, 1]], []]}
    with pytest.raises(DealError, match=r"^options\['deals'\]\[1\]: hand of seat 1 is empty: every seat in the game"):
        env.reset(seed=0, options={"deals": [None, empty]})
    out = mexican_train_v0.raw_env(episode="game", num_players=2, max_pip=9, game_end="elimination")
    out.reset(seed=0, options={"deals": [None, empty]})  # seat 1 may be out when round 1 starts
    assert len(out.game_state.deals) == 1


def test_a_refused_next_deal_leaves_the_engine_as_it_was():
    """start_next_round raised after moving round_index on (and, in Mexican Train, the stations
    used): the same call with a good deal then dealt the wrong round."""
    env = mexican_train_v0.raw_env(episode="game", station_source="highest_held")
    env.reset(seed=4)
    rng = np.random.default_rng(1)
    state = env.game_state
    while not state.round_over:
        state.apply(int(rng.choice(state.legal_actions())))
    before = (state.round_index, set(state._used_stations), list(state.deals))
    with pytest.raises(DealError):
        state.start_next_round(None, {"hands": [[[0, 0], [0, 0]]] + [[[1, 2]]] * 3})
    assert (state.round_index, set(state._used_stations), list(state.deals)) == before
    state.start_next_round(np.random.default_rng(2))
    assert state.round_index == 1 and len(state.deals) == 2


def test_a_bad_later_deal_ends_the_adapters_episode_too():
    """The single-agent adapter passes options["deals"] to the AEC env; a bad later deal raised
    DealError from its step, and the next step then read the stale mask: any action was the
    learner's illegal move (illegal_reward, terminated) instead of "the episode is over"."""
    from domino_env.wrappers import SingleAgentEnv

    first = mexican_train_v0.raw_env(episode="game", station_source="highest_held")
    first.reset(seed=11)
    good, bad = first.game_state.deals[0], NO_DOUBLES
    env = SingleAgentEnv(mexican_train_v0.raw_env(episode="game", reward="points", station_source="highest_held"))
    env.reset(seed=0, options={"deals": [good, bad]})
    rng = np.random.default_rng(0)
    with pytest.raises(DealError, match=r"^options\['deals'\]\[1\]: "):
        for _ in range(1000):
            assert not any(env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))[2:4])
    assert not env.action_masks().any()
    with pytest.raises(DominoError, match="the episode is over: call reset"):
        env.step(0)
    env.reset(seed=1)
    assert env.action_masks().any()


class _Failing:
    """An opponent that plays random legal moves until ``fail`` is set, then raises its own
    error (``fail == "raise"``) or plays an illegal move (``"illegal"``: IllegalActionError)."""

    def __init__(self):
        self.fail = None

    def __call__(self, obs, mask, rng):
        if self.fail == "raise":
            raise RuntimeError("the opponent's own error")
        return int(np.flatnonzero(mask == 0)[0] if self.fail == "illegal" else rng.choice(np.flatnonzero(mask)))


def test_an_opponents_error_ends_the_adapters_episode():
    """An opponent callable that raised inside step (or reset) left the AEC env waiting on its
    seat while action_masks() still gave the learner's old mask: the next step played the
    learner's action as that seat. Now the error propagates and the episode is over."""
    from domino_env.wrappers import SingleAgentEnv

    opponent = _Failing()
    env = SingleAgentEnv(block_v0.raw_env(), opponents=[opponent] * 3)
    rng = np.random.default_rng(0)
    in_reset = {"raise": 0, "illegal": 0}
    errors = {"raise": RuntimeError, "illegal": IllegalActionError}
    for seed in range(24):
        kind = ("raise", "illegal")[seed % 2]
        env.reset(seed=seed)
        opponent.fail = kind  # the next seat is an opponent: it fails inside this step
        with pytest.raises(errors[kind]):
            env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert env.aec.agent_selection != env.learner and not env.action_masks().any()
        with pytest.raises(DominoError, match="the episode is over: call reset"):
            env.step(0)
        opponent.fail = None
        env.reset(seed=200 + seed)  # a new episode, the old one ended mid-turn
        assert env.action_masks().any()
        opponent.fail = kind
        try:  # fails in reset when an opponent leads the new round
            env.reset(seed=100 + seed)
        except errors[kind]:  # an illegal move is a DominoError: the learner's old mask stayed
            in_reset[kind] += 1
            assert not env.action_masks().any()
            with pytest.raises(DominoError, match="the episode is over: call reset"):
                env.step(0)
        opponent.fail = None
    assert all(2 <= n <= 11 for n in in_reset.values()), in_reset
    obs, info = env.reset(seed=1)  # a new episode plays as usual
    assert env.action_masks().any() and not any(env.step(int(np.flatnonzero(env.action_masks())[0]))[2:4])


@pytest.mark.parametrize("module", [mexican_train_v0, cuban_v0], ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_a_refused_first_deal_is_named_by_the_option_that_gave_it(module):
    """A later deal is refused as options['deals'][k]; the first was refused without its name, and
    a deal that is not a dict read "options['deal'] must be a dict" whichever option gave it
    (also as options['deals'][1], and inside a record's RecordError)."""
    env = module.raw_env(episode="game")
    for options, field in (({"deal": 5}, r"options\['deal'\]"), ({"deals": [5]}, r"options\['deals'\]\[0\]")):
        with pytest.raises(DealError, match=rf"^{field}: a deal must be a dict \(keys hands, .*\), got int$"):
            env.reset(seed=0, options=options)
    with pytest.raises(DealError, match=r"^options\['deals'\]\[0\]: hand of seat 1: tile \[0, 0\] appears twice"):
        env.reset(seed=0, options={"deals": [{"hands": [[[0, 0]]] * 4}]})


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_a_deal_given_as_none_is_dealt_by_the_generator(module):
    """docs/envs.md: None in options['deal'] / options['deals'] deals as without the option."""
    env = module.raw_env(episode="game")
    env.reset(seed=5)
    dealt = env.game_state.deals[0]
    for options in ({"deal": None}, {"deals": [None]}, {"deals": [None, None]}):
        env.reset(seed=5, options=options)
        assert env.game_state.deals[0] == dealt


def test_the_package_exports_every_error_class_of_core_errors():
    """CheckpointError and CheckpointNotFoundError (what make_agent("ppo:PATH") raises) were the
    two error classes of domino_env.core.errors that ``domino_env`` did not export."""
    import inspect

    from domino_env.core import errors

    classes = {n for n, o in vars(errors).items() if inspect.isclass(o) and issubclass(o, Exception)}
    assert classes <= set(domino_env.__all__)
    assert all(getattr(domino_env, n) is getattr(errors, n) for n in classes)
