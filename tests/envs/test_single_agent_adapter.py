"""The single-agent adapter's constructor (domino_env/wrappers.py ``SingleAgentEnv``): how it checks
and keeps its ``opponents``, and its metadata."""

from __future__ import annotations

import pytest

from domino_env import ConfigError
from domino_env.envs import block_v0, mexican_train_v0
from domino_env.wrappers import (
    SingleAgentEnv,
    block_single_agent,
    cuban_single_agent,
    draw_single_agent,
    random_legal_opponent,
)


def _first_legal(observation, action_mask, rng):
    return int(action_mask.nonzero()[0][0])


def test_one_non_callable_among_the_opponents_is_refused():
    """Every entry must be callable, not only some: a number among two callables is refused
    (no agent-name hint), and so is an agent name among them (with the hint)."""
    with pytest.raises(ConfigError, match="opponents") as err:
        SingleAgentEnv(block_v0.raw_env(), [random_legal_opponent, 5, random_legal_opponent])
    assert err.value.allowed == "one callable or a sequence of 3 callables"
    with pytest.raises(ConfigError, match="opponents") as err:
        SingleAgentEnv(block_v0.raw_env(), [random_legal_opponent, "greedy", _first_legal])
    assert err.value.allowed.startswith("one callable or a sequence of 3 callables; an agent name is an agent "
                                        "once built: domino_env.agents.make_agent(name, env.config)")


def test_the_adapter_keeps_its_own_list_of_the_opponents():
    """A tuple is taken, and the adapter holds a list of its own: changing the caller's list
    afterwards changes nothing at the table."""
    given = [_first_legal, random_legal_opponent, _first_legal]
    env = SingleAgentEnv(block_v0.raw_env(), given)
    given[0] = None
    assert env.opponents == [_first_legal, random_legal_opponent, _first_legal]
    assert env.opponents is not given
    from_tuple = SingleAgentEnv(block_v0.raw_env(), tuple(env.opponents))
    assert from_tuple.opponents == env.opponents and isinstance(from_tuple.opponents, list)


def test_the_adapters_metadata_has_the_envs_frame_rate():
    """docs/pictures.md: ``metadata["render_fps"]`` is 2, the AEC envs' too."""
    for aec in (block_v0.raw_env(), mexican_train_v0.raw_env()):
        env = SingleAgentEnv(aec)
        assert env.metadata["render_fps"] == aec.metadata["render_fps"] == 2


def test_the_adapters_config_is_the_aec_envs_rules():
    """``env.config`` on the adapter, as on every env of the package (``make_agent(name, env)``
    reads it): the AEC env's own config object."""
    aec = mexican_train_v0.raw_env(num_players=3, max_pip=9)
    env = SingleAgentEnv(aec)
    assert env.config is aec.config and env.config.num_players == 3 and env.config.max_pip == 9


@pytest.mark.parametrize(
    ("make", "game"),
    [(block_single_agent, "block"), (draw_single_agent, "draw"), (cuban_single_agent, "cuban")],
    ids=["block", "draw", "cuban"],
)
def test_the_line_game_factories_build_their_game_and_refuse_another_preset(make, game):
    """``block_single_agent`` / ``draw_single_agent`` / ``cuban_single_agent``: the named game's
    adapter (its own preset given or not), named after the game, its docstring naming the
    Gymnasium id; another preset is refused, pointing to ``line_single_agent``."""
    assert make.__name__ == f"{game}_single_agent"
    assert f"``dominoes/{game.capitalize()}-v0``" in make.__doc__
    env = make(learner_seat=1, illegal_reward=-2.0)
    assert isinstance(env, SingleAgentEnv) and env.aec.config.preset == game
    assert env.learner_seat == 1 and env.illegal_reward == -2.0
    assert make(preset=game).aec.config.preset == game
    other = "cuban" if game == "draw" else "draw"
    with pytest.raises(ConfigError, match=rf"'{game}' for this id \(use line_single_agent\)") as err:
        make(preset=other)
    assert err.value.field == "preset" and err.value.value == other
