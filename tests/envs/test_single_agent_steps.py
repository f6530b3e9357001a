"""The single-agent adapter's steps (domino_env/wrappers.py ``SingleAgentEnv``) on hand-built deals:
what the info of a step says when rounds ended on the opponents' moves."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.core.errors import DominoError
from domino_env.envs.infos import Termination
from domino_env.wrappers import line_single_agent, mexican_train_single_agent


def _first_legal(observation, action_mask, rng):
    return int(np.flatnonzero(action_mask)[0])


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
    deals, reset = [], env.aec.reset

    def counted(**kwargs):
        deals.append(kwargs["seed"])
        reset(**kwargs)

    env.aec.reset = counted
    with pytest.raises(DominoError, match=r"truncated \(max_cycles=100000, max_steps=1\) before the learner's"):
        env.reset(seed=0)
    assert len(deals) == 100 and len(set(deals)) == 100
