"""``LearnerEnv`` behaviour no other test pinned (found by mutation testing): the refusals its
docstring promises, each with its exact message; ``reset()`` without a seed; the v3 action
features' information state; the full-state critic's size; the worker-only signal handling of
:func:`make_env_fn`; and the helper that reads a mask through Monitor."""

import signal

import numpy as np
import pytest

from domino_env.core.errors import ConfigError
from domino_env.train.learner_env import LearnerEnv, action_masks_of, full_state_size, make_env_fn

MT3 = {"num_players": 3, "max_pip": 9}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"game": "chess"},
         "invalid argument 'game': got 'chess'; allowed: one of ('mexican_train', 'block', 'draw', 'cuban')"),
        ({"reward": "score"},
         "invalid argument 'reward': got 'score'; allowed: one of ('mixed', 'outcome', 'points')"),
        ({"opponent_mode": "rotate"}, "invalid argument 'opponent_mode': got 'rotate'; allowed: 'mix' or 'fixed'"),
        ({"env_kwargs": {**MT3, "episode": "game"}},
         "invalid argument 'reward': got 'mixed'; allowed: 'outcome' or 'points' when an episode is a whole game"),
        ({"opponents": []}, "invalid argument 'opponents': got []; allowed: at least one agent"),
        ({"policy_input": "pixels"},
         "invalid argument 'policy_input': got 'pixels'; allowed: one of ('observation', "
         "'action-features-v1', 'action-features-v2', 'action-features-v3')"),
    ],
    ids=["game", "reward", "opponent-mode", "mixed-whole-game", "no-opponents", "policy-input"],
)  # fmt: skip
def test_each_bad_argument_is_refused_with_what_is_allowed(kwargs, message):
    args = {"env_kwargs": MT3, "opponents": ["greedy"], **kwargs}
    with pytest.raises(ConfigError) as err:
        LearnerEnv(**args)
    assert str(err.value) == message


def test_a_whole_game_episode_takes_the_outcome_and_points_rewards():
    for reward in ("outcome", "points"):
        env = LearnerEnv({**MT3, "episode": "game"}, ["greedy"], reward=reward)
        assert env.whole_game and env.reward_kind == reward


def test_reset_without_a_seed_draws_from_the_envs_own_generator():
    """The generator the opponents are drawn from exists before any seeded reset: training
    resets without a seed after the first episode."""
    env = LearnerEnv({"num_players": 4}, ["greedy", "random"])
    names = set()
    for _ in range(30):
        obs, _ = env.reset()
        assert obs.shape == env.observation_space.shape
        names |= {o.name for o in env.env.unwrapped.opponents}
    assert names == {"greedy", "random"}


def test_v3_action_features_get_the_learners_information_state():
    """``action-features-v3`` rows run a search over the seat's public history: the env passes
    the learner's InformationState at every decision with a choice (without it the rows refuse)."""
    env = LearnerEnv({"num_players": 2, "max_pip": 9}, ["greedy"], reward="outcome",
                     policy_input="action-features-v3", learner_seat=0)  # fmt: skip
    obs, _ = env.reset(seed=3)
    choices, done = 0, False
    while not done:
        mask = env.action_masks()
        choices += int(mask.sum() > 1)
        obs, _, term, trunc, _ = env.step(int(np.flatnonzero(mask)[0]))
        assert obs.shape == env.observation_space.shape
        done = term or trunc
    assert choices > 0  # decisions with a choice were made (the search columns were built)


def test_the_full_state_part_is_players_times_tiles():
    assert (full_state_size(4, 91), full_state_size(2, 28)) == (364, 56)
    env = LearnerEnv({"num_players": 4, "max_pip": 12}, ["greedy"], policy_input="action-features-v1",
                     critic_input="full-state")  # fmt: skip
    plain = LearnerEnv({"num_players": 4, "max_pip": 12}, ["greedy"], policy_input="action-features-v1")
    assert env.critic_extra == 364
    assert env.observation_space.shape == (plain.observation_space.shape[0] + 364,)


def test_an_env_made_in_the_training_process_keeps_its_signal_handlers():
    """Only a worker process ignores SIGINT / SIGTERM / SIGHUP (the training process handles
    them); a DummyVecEnv's envs are made in the training process itself."""
    cfg = {"env_kwargs": MT3, "opponents": ["greedy"], "opponent_mode": "mix", "reward": "mixed",
           "pips_coef": 1.0, "self_play": 0.0}  # fmt: skip
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    env = make_env_fn(cfg)()
    assert {s: signal.getsignal(s) for s in before} == before
    env.reset(seed=0)
    mask = action_masks_of(env)  # through the Monitor wrapper
    assert mask.dtype == bool and mask.shape == (env.action_space.n,) and mask.any()
    assert np.array_equal(mask, env.unwrapped.action_masks())


def _worker_report(cfg, queue):
    import warnings

    from domino_env.agents.ppo import RulesMismatchWarning

    make_env_fn(cfg)()
    ignored = [signal.getsignal(s) is signal.SIG_IGN for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
    quiet = any(f[0] == "ignore" and f[2] is RulesMismatchWarning for f in warnings.filters)
    queue.put((ignored, quiet))


def test_an_env_made_in_a_worker_process_ignores_the_stop_signals_and_the_rules_warning():
    import multiprocessing

    cfg = {"env_kwargs": MT3, "opponents": ["greedy"], "opponent_mode": "mix", "reward": "mixed",
           "pips_coef": 1.0, "self_play": 0.0}  # fmt: skip
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    worker = ctx.Process(target=_worker_report, args=(cfg, queue))
    worker.start()
    report = queue.get(timeout=60)
    worker.join(timeout=60)
    assert report == ([True, True, True], True)


def test_self_play_is_off_unless_asked_for():
    def snapshot(obs, mask, rng):
        return int(np.flatnonzero(mask)[0])

    env = LearnerEnv({"num_players": 4}, ["greedy"])
    env.set_snapshots([snapshot])
    for seed in range(5):
        env.reset(seed=seed)
        assert [o.name for o in env.env.unwrapped.opponents] == ["greedy"] * 3


def test_the_learner_as_partner_is_credited_the_mean_pips_of_its_two_seats():
    from domino_env.core.config import line_from_preset

    env = LearnerEnv(line_from_preset("cuban").to_dict(), ["greedy"], reward="outcome", game="cuban",
                     partner="learner")  # fmt: skip
    differ = 0
    for seed in range(10):
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            done = term or trunc
        if info.get("round_over"):
            seat, pips = info["learner_seat"], info["pips"]
            assert info["learner_pips"] == (int(pips[seat]) + int(pips[(seat + 2) % 4])) / 2
            differ += int(pips[seat]) != int(pips[(seat + 2) % 4])
    assert differ  # rounds where the two seats' pips differ were checked


def test_the_baseline_steps_a_knocked_out_seat_and_plays_on():
    """An elimination game: a seat knocked out while the learner plays on gets its dead steps
    (``step(None)``) in the baseline's replay too. A learner playing the baseline's own moves
    gets exactly 0, its return without a baseline is the baseline's."""

    rules = {"num_players": 3, "max_pip": 9, "episode": "game", "game_end": "elimination", "elimination_limit": 30}
    plain = LearnerEnv(rules, ["planner"], reward="outcome", learner_seat=0)
    dup = LearnerEnv(rules, ["planner"], reward="outcome", learner_seat=0, baseline="planner")
    stepped, real_step = [], dup._shadow.step
    dup._shadow.step = lambda action: (stepped.append(action), real_step(action))[1]

    def hung(signum, frame):
        raise AssertionError("the baseline's replay did not end")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)
    try:
        for seed in range(6):
            (total, _), (zero, info) = (_play(env, "planner", seed) for env in (plain, dup))
            assert zero == 0.0 and info["baseline_return"] == pytest.approx(total)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert None in stepped  # a knocked-out seat's dead step was replayed


def test_a_shared_round_win_credits_a_share_of_it():
    """A blocked round (nobody can play on the double-9 station, no boneyard): the learner and
    seat 1 tie on 3 points and share the win; seat 2 keeps 20."""
    deal = {"hands": [[[1, 2]], [[0, 3]], [[4, 5], [5, 6]]], "boneyard": [], "station": [9, 9], "first_player": 0}
    for reward, expected in (("outcome", 0.5), ("mixed", 0.47), ("points", -0.03)):
        env = LearnerEnv(MT3, ["greedy"], reward=reward, learner_seat=0)
        env.reset(seed=0, options={"deal": deal})
        total, done = 0.0, False
        while not done:
            _, r, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            total, done = total + r, term or trunc
        assert list(info["won"]) == [1, 1, 0] and list(info["points"]) == [3, 3, 20]
        assert (info["learner_won"], info["learner_pips"]) == (0.5, 3) and total == pytest.approx(expected)


def test_a_round_inside_a_game_episode_credits_that_round():
    """``learner_won`` is the game's only at the game's end: at the rounds before, the round's."""
    env = LearnerEnv({"num_players": 2, "max_pip": 9, "episode": "game"}, ["greedy"], reward="outcome", learner_seat=0)
    credits = []
    for seed in range(4):
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[-1]))
            done = term or trunc
            if info.get("round_over") and not info.get("game_over"):
                assert info["learner_won"] == float(info["won"][0] and not info["won"][1])
                credits.append(info["learner_won"])
    assert set(credits) == {0.0, 1.0}


def test_the_learner_as_partner_leaves_the_partner_seat_to_a_placeholder_and_draws_the_others():
    from domino_env.core.config import line_from_preset

    env = LearnerEnv(line_from_preset("cuban").to_dict(), ["greedy", "random"], reward="outcome", game="cuban",
                     partner="learner")  # fmt: skip
    after, across = set(), set()
    for seed in range(12):
        env.reset(seed=seed)
        seats = env.env.unwrapped.opponents  # entry k: the seat k+1 places after the learner
        after.add(seats[0].name), across.add(seats[1].name)
    assert after == {"greedy", "random"} and across == {"greedy"}


def test_the_observation_space_is_unbounded_and_the_feature_rows_follow_the_scaled_observation():
    from domino_env.agents.action_features import action_features_for

    env = LearnerEnv(MT3, ["greedy"], policy_input="action-features-v1", learner_seat=0)
    assert env.observation_space.low.min() == -np.inf and env.observation_space.high.max() == np.inf
    x, _ = env.reset(seed=1)
    features = action_features_for(env.unwrapped.aec.config, "action-features-v1")
    rows = features(env.raw_observation, env.action_masks())
    assert np.array_equal(x[len(env.scale):], rows.ravel()) and rows.any()


def test_a_fixed_two_player_table_names_one_agent():
    with pytest.raises(ConfigError) as err:
        LearnerEnv({"num_players": 2, "max_pip": 9}, ["greedy", "random"], opponent_mode="fixed")
    assert str(err.value) == ("invalid argument 'opponents': got ['greedy', 'random']; "
                              "allowed: 1 agent with --opponent-mode fixed (2 players)")  # fmt: skip


@pytest.mark.parametrize(
    "game, kwargs",
    [("mexican_train", {"env_kwargs": {"num_players": 4, "max_pip": 12}, "reward": "mixed"}),
     ("cuban", {"env_kwargs": {}, "reward": "outcome", "partner": "learner"})],
    ids=["mexican-train-mixed", "cuban-team-play"],
)  # fmt: skip
def test_the_baseline_plays_the_learners_seats_and_the_opponents_theirs(game, kwargs):
    """A greedy learner with a greedy baseline against planners: exactly 0 on every deal (a
    baseline that put greedy in another seat, or a planner in the learner's, would differ)."""

    plain = LearnerEnv(game=game, opponents=["planner"], **kwargs)
    dup = LearnerEnv(game=game, opponents=["planner"], baseline="greedy", **kwargs)
    returns = []
    for seed in range(6):
        (total, _), (zero, info) = (_play(env, "greedy", seed) for env in (plain, dup))
        assert zero == 0.0 and info["baseline_return"] == pytest.approx(total)
        returns.append(total)
    assert len(set(np.round(returns, 6))) > 1


def _play(env, name: str, seed: int):
    """One episode of ``env`` with the learner played by agent ``name``: (its return, the last info)."""
    from domino_env.agents import make_agent

    me, rng = make_agent(name, env.unwrapped.aec.config), np.random.default_rng(0)
    env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        _, r, term, trunc, info = env.step(int(me(env.raw_observation, env.action_masks(), rng)))
        total, done = total + r, term or trunc
    return total, info
