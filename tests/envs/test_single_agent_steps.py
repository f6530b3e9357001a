"""The single-agent adapter's reset and steps (domino_env/wrappers.py ``SingleAgentEnv``), mostly on
hand-built deals: how many deals a reset makes and from which seeds, what a step's info says when
rounds ended on the opponents' moves, the team reward across episodes."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.core.errors import DominoError
from domino_env.envs.infos import Termination
from domino_env.wrappers import line_single_agent, mexican_train_single_agent


def _first_legal(observation, action_mask, rng):
    return int(np.flatnonzero(action_mask)[0])


def _counting_deals(env):
    """Record the seed of every AEC deal ``env`` makes."""
    seeds, reset = [], env.aec.reset

    def counted(**kwargs):
        seeds.append(kwargs["seed"])
        reset(**kwargs)

    env.aec.reset = counted
    return seeds


def test_two_rounds_ended_by_the_opponent_put_the_latest_at_the_top_of_the_info():
    """Block, 2 seats, game episode, the learner at seat 0. Round 0: seat 1 leads 1-1, the learner
    plays 1-2, seat 1 goes out with 1-3. Round 1: seat 1 leads 0-0, which nobody can follow:
    blocked at once. Round 2: seat 1 leads 0-1 and the learner decides. That one step's info lists
    both rounds, and its top-level keys are the latest one's (docs: "several did: the latest
    one"), not the oldest's."""
    env = line_single_agent("block", opponents=_first_legal, num_players=2, hand_size=2, episode="game")
    deals = [
        {"hands": [[[1, 2], [5, 5]], [[1, 1], [1, 3]]], "first_player": 1},
        {"hands": [[[2, 3], [4, 5]], [[6, 6], [0, 0]]], "first_player": 1},
        {"hands": [[[1, 4], [3, 3]], [[0, 1], [2, 2]]], "first_player": 1},
    ]
    _, info = env.reset(seed=0, options={"deals": deals})
    assert info["round_results"] == [] and not info["round_over"]
    _, _, terminated, truncated, info = env.step(_first_legal(None, env.action_masks(), None))
    assert not terminated and not truncated and env.aec.game_state.round_index == 2
    assert [r["round_index"] for r in info["round_results"]] == [0, 1]
    assert [r["termination_code"] for r in info["round_results"]] == [Termination.WENT_OUT, Termination.BLOCKED]
    assert info["round_over"] is True and info["round_index"] == 1
    assert info["termination_code"] == Termination.BLOCKED
    assert info["pips"].tolist() == [14, 12] and info["scores"].tolist() == [0, 24]


def test_reset_deals_at_most_100_times_before_giving_up():
    """The reset docstring: a round episode whose round ends before the learner's first decision is
    dealt again, "up to 100 times". With ``max_steps=1`` and the learner two seats after the first
    player every deal is truncated first: exactly 100 deals, then the error naming the limit."""
    env = mexican_train_single_agent(first_player=0, learner_seat=2, max_steps=1)
    deals = _counting_deals(env)
    with pytest.raises(DominoError, match=r"truncated \(max_cycles=100000, max_steps=1\) before the learner's"):
        env.reset(seed=0)
    assert len(deals) == 100 and len(set(deals)) == 100


class _FailingOpponent:
    """Plays its first legal action, or raises while ``fail`` is set."""

    fail = False

    def __call__(self, observation, action_mask, rng):
        if self.fail:
            raise RuntimeError("the opponent failed")
        return _first_legal(observation, action_mask, rng)


def test_team_reward_of_an_episode_an_opponent_broke_is_not_paid_in_the_next():
    """Team play, block 4 seats with one tile each, points rewards: the learner (seat 0) goes out,
    its team scores round 0, then seat 1's callable raises as round 1 starts. That round's reward
    belongs to the broken episode: the next episode's first step pays what a fresh adapter pays on
    the same deals. Kills: ``reset`` not clearing the team reward (0.26 more)."""
    deals = [{"hands": [[[0, 1]], [[2, 3]], [[4, 5]], [[6, 6]]], "first_player": first} for first in (0, 1)]
    rewards = []
    for broken in (True, False):
        opponent = _FailingOpponent()
        env = line_single_agent("block", opponents=opponent, teams=True, num_players=4, team_play=True,
                                episode="game", reward="points", hand_size=1)  # fmt: skip
        if broken:
            env.reset(seed=0, options={"deals": deals})
            opponent.fail = True
            with pytest.raises(RuntimeError, match="the opponent failed"):
                env.step(_first_legal(None, env.action_masks(), None))
            opponent.fail = False
        env.reset(seed=0, options={"deals": deals})
        rewards.append(env.step(_first_legal(None, env.action_masks(), None))[1])
    assert rewards[0] == rewards[1] == pytest.approx(0.04)


def test_a_seeded_reset_deals_what_it_always_dealt():
    """"Deals from a seed" are results (CHANGELOG.md lists every change to them): the adapter seeds
    each AEC deal with ``np_random.integers(2**31 - 1)``, so seed 0 deals the AEC seed 1826701614
    (block, 2 seats: the learner holds these seven tiles) and the next unseeded reset 1367864806.
    Kills: another bound for the AEC seeds (2**32 - 1, 2**31 - 2, 2**31)."""
    env = line_single_agent("block", num_players=2)
    seeds = _counting_deals(env)
    env.reset(seed=0)
    state = env.aec.game_state
    hand = [state._t.tiles[i] for i in range(state._t.num_tiles) if state.hands[0] >> i & 1]
    assert hand == [(0, 4), (1, 1), (2, 2), (3, 5), (3, 6), (4, 5), (5, 6)]
    env.reset()
    assert seeds == [1826701614, 1367864806]


def test_a_random_deal_the_learner_never_reaches_is_dealt_again_and_a_given_one_is_not():
    """docs/envs.md: with one-tile hands a round can end before the learner's first decision. Block,
    2 seats, the learner at seat 1, seed 4: the first deals end at once and reset deals on until
    the learner decides. A deal given in ``options`` ("deal" or "deals") would deal the same again:
    refused after one deal, not 100. Kills: the given-deal check deleted, negated, or reading only
    one of the two keys."""
    env = line_single_agent("block", num_players=2, hand_size=1, learner_seat=1)
    seeds = _counting_deals(env)
    env.reset(seed=4)
    assert len(seeds) > 1 and env.aec.game_state.current_player == 1 and env.action_masks().any()
    deal = {"hands": [[[2, 5]], [[1, 3]]], "first_player": 0}  # seat 0 goes out with its lead
    for options in ({"deal": deal}, {"deals": [deal]}):
        seeds.clear()
        with pytest.raises(DominoError, match=r"^the round ended before the learner's first turn; deal differently$"):
            env.reset(seed=0, options=options)
        assert len(seeds) == 1


@pytest.mark.parametrize("options", [{"deal": None}, {"deals": [None]}, {"deals": [None, None]}])
def test_a_deal_given_as_none_is_dealt_again_as_without_the_option(options):
    """docs/envs.md: "A deal given as None (in either option) is dealt by the env's generator, as
    without the option", so reset deals on until the learner decides, as above with no options.
    Block, 2 seats, one-tile hands, the learner at seat 1, seed 4: the first deals end at once.
    Before the fix any "deal" / "deals" key counted as a given deal: DominoError after one deal."""
    env = line_single_agent("block", num_players=2, hand_size=1, learner_seat=1)
    seeds = _counting_deals(env)
    env.reset(seed=4)
    plain = list(seeds)
    seeds.clear()
    env.reset(seed=4, options=options)
    assert len(seeds) > 1 and seeds == plain
    assert env.aec.game_state.current_player == 1 and env.action_masks().any()

def test_an_illegal_action_ends_the_episode_with_an_empty_mask():
    """``action_masks``: "all False once the episode is over", an illegal action's end too (the
    AEC env still waits on the learner, whose own mask there is unchanged). Kills: the illegal
    path keeping the learner's last mask."""
    env = line_single_agent("block", opponents=_first_legal, num_players=2)
    env.reset(seed=0)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert env.action_masks().dtype == bool and not env.action_masks().any()
    assert np.array_equal(env.aec.observe(env.learner)["action_mask"].astype(bool), mask)
