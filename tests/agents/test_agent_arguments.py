"""The scripted agents' constructors refuse what they cannot use with a typed error naming the
argument (a docstring audit found a Mexican Train agent given line-game rules failing later with
an AttributeError, and a planner's budget of -3 or 2.5 kept as given)."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.agents.line import LineGreedyAgent, LinePlannerAgent, LineRandomAgent
from domino_env.agents.mexican_train import GreedyAgent, PlannerAgent, RandomAgent
from domino_env.core.config import MexicanTrainConfig, line_from_preset
from domino_env.core.errors import ConfigError


@pytest.mark.parametrize("cls", [RandomAgent, GreedyAgent, PlannerAgent])
@pytest.mark.parametrize("config", [line_from_preset("cuban"), {"preset": "block"}])
def test_a_mexican_train_agent_refuses_line_game_rules(cls, config):
    with pytest.raises(ConfigError, match=r"invalid argument 'config': .*allowed: Mexican Train rules .*"
                                          r"the line-game agents are in domino_env.agents.line"):  # fmt: skip
        cls(config)


@pytest.mark.parametrize("cls", [RandomAgent, GreedyAgent, PlannerAgent])
def test_a_mexican_train_agent_given_no_rules_names_only_what_it_takes(cls):
    """as_config's words ("a MexicanTrainConfig or LineConfig, ...") listed rules it then refuses."""
    with pytest.raises(ConfigError) as info:
        cls("x")
    assert str(info.value) == ("invalid argument 'config': got 'x'; allowed: Mexican Train rules (a MexicanTrainConfig, "
                               "a Mexican Train env, a dict of its env kwargs or None); the line-game agents are in "
                               "domino_env.agents.line")  # fmt: skip
    with pytest.raises(ConfigError, match="invalid config field 'num_players'"):  # a field's own error stays
        cls({"num_players": 1})


@pytest.mark.parametrize("cls", [LineRandomAgent, LineGreedyAgent, LinePlannerAgent])
def test_a_line_agent_refuses_mexican_train_rules(cls):
    with pytest.raises(ConfigError, match="invalid argument 'config'.*allowed: line-game rules"):
        cls(MexicanTrainConfig())


@pytest.mark.parametrize("budget", [0, -3, 2.5, True, "400", None])
def test_the_planners_budget_is_an_integer_of_at_least_1(budget):
    with pytest.raises(ConfigError, match=r"invalid argument 'budget': got .*; allowed: an integer >= 1$"):
        PlannerAgent(budget=budget)


@pytest.mark.parametrize(("field", "value", "low"), [("samples", 0, 1), ("samples", 1.5, 1), ("samples", False, 1),
                                                     ("rollouts", -1, 0), ("rollouts", "32", 0)])  # fmt: skip
def test_the_line_planners_samples_and_rollouts_are_checked(field, value, low):
    with pytest.raises(ConfigError, match=rf"invalid argument '{field}': got .*; allowed: an integer >= {low}$"):
        LinePlannerAgent(None, **{field: value})


def test_numpy_integers_and_the_lowest_values_are_taken():
    assert PlannerAgent(budget=np.int64(1)).budget == 1 and type(PlannerAgent(budget=np.int32(7)).budget) is int
    agent = LinePlannerAgent(None, samples=np.int16(1), rollouts=0)
    assert (agent.samples, agent.rollouts) == (1, 0)
