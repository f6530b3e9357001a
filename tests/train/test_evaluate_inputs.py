"""``evaluate`` and the agents from Python, as a checker used them: inputs are checked with
ConfigError naming the field, two different agents never share a result row, a bad action names
its agent, and an agent the worker processes cannot import is refused up front."""

from __future__ import annotations

import json
import multiprocessing
import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import domino_env  # noqa: F401  (registers the ids)
from domino_env.agents import SearchAgent, make_agent
from domino_env.core.errors import CheckpointNotFoundError, ConfigError, IllegalActionError
from domino_env.train.evaluate import evaluate

ROOT = Path(__file__).resolve().parents[2]
BLOCK = {"preset": "block", "num_players": 2}


def first_legal(observation, action_mask, rng):
    return int(np.flatnonzero(action_mask)[0])


def last_legal(observation, action_mask, rng):
    return int(np.flatnonzero(action_mask)[-1])


def test_functions_are_labelled_by_their_names():
    res = evaluate([first_legal, last_legal], rounds=4, game="block")
    assert res.agents == ["first_legal", "last_legal"]  # both were "function": one row of 0.5
    assert {s.name for s in res.stats} == {"first_legal", "last_legal"}


def test_two_different_agents_with_one_label_are_refused():
    weak, strong = SearchAgent(BLOCK, budget=4, prior=None), SearchAgent(BLOCK, budget=40)
    with pytest.raises(ConfigError, match="'agents': got 'search'.*one label per agent"):
        evaluate([weak, strong], rounds=4, game="block")
    strong.name = "search-40"
    assert evaluate([weak, strong], rounds=2, game="block").agents == ["search", "search-40"]
    assert evaluate(["greedy", "greedy"], rounds=2, game="block").agents == ["greedy", "greedy"]  # one spec twice


@pytest.mark.parametrize(
    "kwargs, field",
    [({"rounds": 0}, "rounds"), ({"rounds": 2.5}, "rounds"), ({"seed": -1}, "seed"), ({"seed": None}, "seed"),
     ({"workers": 0}, "workers"), ({"workers": -3}, "workers"),
     ({"num_players": "2"}, "num_players"), ({"num_players": 2.0}, "num_players"), ({"num_players": True}, "num_players")],
)  # fmt: skip
def test_bad_counts_and_seeds_are_config_errors(kwargs, field):
    with pytest.raises(ConfigError, match=f"'{field}'"):
        evaluate(["greedy", "random"], game="block", **{"rounds": 4, **kwargs})


def test_a_seed_of_2_to_the_32_or_more_is_refused_its_deals_would_be_another_seed_s():
    """``SeedSequence([seed, deal])`` splits a seed of 2**32 or more into 32-bit words: seed 2**32's
    deal 0 was seed 0's deal 1. Such seeds are refused, naming ``seed`` and the range; the deals of
    the seeds below are the ones every published figure was played with."""
    from domino_env.train.tournament import deal_seed

    allowed = "allowed: an integer from 0 to 4,294,967,295 (2**32 - 1)"
    for seed in (2**32, 10**30, np.uint64(2**63), -1):
        with pytest.raises(ConfigError, match=re.escape(f"invalid argument 'seed': got {seed!r}; {allowed}")):
            evaluate(["greedy", "random"], rounds=2, game="block", seed=seed)
        with pytest.raises(ValueError, match=re.escape(f"'seed': got {seed!r}; {allowed}")):
            deal_seed(seed, 0)
    assert [deal_seed(0, 0), deal_seed(0, 1), deal_seed(2**32 - 1, 0)] == [1484405855, 1982462498, 996212484]
    assert evaluate(["greedy", "random"], rounds=2, game="block", seed=2**32 - 1).deal_seeds == [996212484]


def test_a_deal_number_that_is_not_an_integer_in_the_seed_range_is_refused():
    """``deal_seed(seed, deal)`` checked the seed only: numpy took a bool (True: deal 1), a string
    of digits ('3': deal 3), or a deal of 2**32 and more (split into 32-bit words), and a float or a
    negative one failed inside numpy with its own words. ``deal`` is now checked as the seed is."""
    from domino_env.train.tournament import deal_seed

    allowed = "allowed: an integer from 0 to 4,294,967,295 (2**32 - 1)"
    for deal in (-1, True, np.True_, 1.0, 1.5, "3", None, 2**32, 2**64, np.uint64(2**63)):
        with pytest.raises(ConfigError, match=re.escape(f"invalid argument 'deal': got {deal!r}; {allowed}")):
            deal_seed(0, deal)
    # the deals of every tournament are unchanged (numpy integers too: a journal's or a worker's)
    assert [deal_seed(0, 1), deal_seed(0, np.int64(1)), deal_seed(0, 2**32 - 1)] == [1982462498, 1982462498, 596984018]


def test_more_workers_than_4_per_cpu_are_refused_before_any_process_starts():
    """evaluate(workers=N) started N processes, however many (the command line's cap is 4 x the CPUs)."""
    import os

    most = 4 * (os.cpu_count() or 1)
    with pytest.raises(ConfigError, match=rf"'workers': got {most + 1}; allowed: a positive integer up to {most} \(4 x the CPUs\)"):
        evaluate(["greedy", "random"], rounds=4, workers=most + 1, game="block")
    assert multiprocessing.active_children() == []
    # the cap itself is allowed (one deal: played here, no process started)
    assert evaluate(["greedy", "random"], rounds=2, workers=most, game="block").workers == 1


def test_numpy_integers_are_counts_and_a_string_is_not_a_line_up():
    res = evaluate(["greedy", "random"], rounds=np.int64(4), seed=np.int64(1), game="block")
    assert res.rounds_played == 4
    assert type(res.seed) is int and json.loads(json.dumps(res.to_dict()))["seed"] == 1  # a numpy seed: unwritable
    with pytest.raises(ConfigError, match="a sequence of agents, one per seat"):
        evaluate("planner", rounds=4)
    # any other iterable gives one seat per item, read once: its items are checked, then played
    res = evaluate((name for name in ("greedy", "random")), rounds=2, game="block")
    assert (res.agents, res.num_players, res.episodes) == (["greedy", "random"], 2, 2)


def test_an_action_that_is_not_an_integer_names_its_agent():
    def rounded(observation, action_mask, rng):
        return float(np.flatnonzero(action_mask)[0])  # was truncated by int()

    with pytest.raises(IllegalActionError, match=r"agent rounded \(seat 0, deal 0\): an action must be an integer"):
        evaluate([rounded, "random"], rounds=2, game="block")


class _WantsHistory:  # takes info_state but does not say so with wants_info_state
    name = "history"

    def __call__(self, observation, action_mask, rng, info_state):
        return int(np.flatnonzero(action_mask)[0])


def test_an_agent_taking_info_state_without_wants_info_state_is_told_the_attribute():
    """A new user's agent: a bare 'missing 1 required positional argument: info_state'."""
    with pytest.raises(TypeError, match="info_state") as err:
        evaluate([_WantsHistory(), "random"], rounds=2, game="block")
    assert err.value.__notes__ == [
        "raised by agent history (seat 0, deal 0, rotation 0), called as agent(observation, action_mask, rng)",
        "an agent that takes info_state sets the attribute wants_info_state = True (docs/agents.md)",
    ]
    _WantsHistory.wants_info_state = True
    try:
        assert evaluate([_WantsHistory(), "random"], rounds=2, game="block").episodes == 2
    finally:
        del _WantsHistory.wants_info_state


class _Buggy:  # an agent with a bug of its own (not its signature)
    name = "buggy"

    def __init__(self, error, wants_info_state=False):
        self.error, self.wants_info_state = error, wants_info_state

    def __call__(self, observation, action_mask, rng, info_state=None):
        raise self.error


def test_only_a_type_error_about_info_state_gets_the_attribute_hint():
    """The hint is for an agent called without info_state that needs it: any other error of an
    agent (a ValueError, a TypeError of its own, or one about info_state from an agent that has it)
    is noted with whose it is, and no more."""
    called = "called as agent(observation, action_mask, rng)"
    for error in (ValueError("no move"), TypeError("unsupported operand")):
        with pytest.raises(type(error)) as err:
            evaluate([_Buggy(error), "random"], rounds=2, game="block")
        assert err.value.__notes__ == [f"raised by agent buggy (seat 0, deal 0, rotation 0), {called}"]
    with pytest.raises(TypeError) as err:
        evaluate(["random", _Buggy(TypeError("info_state is stale"), wants_info_state=True)], rounds=2, game="block")
    assert err.value.__notes__ == [  # it has info_state: the hint would be wrong
        "raised by agent buggy (seat 1, deal 0, rotation 0), called as agent(observation, action_mask, rng, info_state=...)"
    ]


def test_an_agent_defined_interactively_is_refused_with_workers():
    """Each spawned worker died unpickling it, and the error blamed a missing __main__ guard."""
    code = ("import numpy as np\nfrom domino_env.train.evaluate import evaluate\n"
            "import functools\n"
            "class Mine:\n    def __call__(self, o, m, r):\n        return int(np.flatnonzero(m)[0])\n"
            "for agent in (Mine(), functools.partial(Mine()), Mine().__call__):\n"
            "    try:\n        evaluate([agent, 'random'], rounds=4, game='block', workers=2)\n"
            "    except ValueError as e:\n        print(e)\n"
            "print(evaluate([Mine(), 'random'], rounds=4, game='block').rounds_played)\n")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    *refusals, played = out.stdout.splitlines()
    assert len(refusals) == 3 and all("defined interactively), or workers=1" in line for line in refusals)
    assert played == "4"  # in this process it plays


def test_a_program_on_stdin_is_refused_with_workers_and_plays_one_deal_without_them():
    """Spawned workers import the main program, and ``python -`` has no file to import."""
    code = ("from domino_env.train.evaluate import evaluate\n"
            "print(evaluate(['greedy', 'random'], rounds=2, game='block', workers=2).rounds_played)\n"
            "evaluate(['greedy', 'random'], rounds=4, game='block', workers=2)\n")  # fmt: skip
    out = subprocess.run([sys.executable, "-"], input=code, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 1 and out.stdout == "2\n"  # one deal: played here, no worker starts
    assert out.stderr.splitlines()[-1] == (
        "domino_env.core.errors.ConfigError: invalid argument 'workers': got '> 1'; allowed: 1 here: worker "
        "processes import the main program, and <stdin> is no file"
    )


def test_an_object_named_as_a_spec_beside_it_must_be_that_agent():
    """``evaluate([Mine(), "greedy"])`` with ``Mine.name == "greedy"`` counted both seats as one
    agent (one row, win rate 1/2 by construction); an object of the spec's own kind still may."""
    from domino_env.agents import make_agent
    from domino_env.core.config import LineConfig

    class Mine:
        name = "greedy"

        def __call__(self, observation, mask, rng):
            return int(np.flatnonzero(mask)[-1])

    with pytest.raises(ConfigError, match=r"'agents': got 'greedy'; allowed: one label per agent: 'greedy' names a "
                                          r"Mine and a LineGreedyAgent \(results are counted per name\)"):  # fmt: skip
        evaluate([Mine(), "greedy"], rounds=4, game="block")
    res = evaluate([make_agent("greedy", LineConfig()), "greedy"], rounds=4, game="block")
    assert [s.name for s in res.stats] == ["greedy"] and res.stats[0].win_rate == 0.5


def test_make_agent_takes_a_gymnasium_env():
    env = gymnasium.make("dominoes/Cuban-v0")
    assert make_agent("planner", env).config == env.unwrapped.aec.config


def test_a_ppo_model_refuses_an_observation_of_another_shape():
    agent = make_agent("ppo:checkpoints/mexican_train_4p_d12_action_scores", {"num_players": 4, "max_pip": 12})
    mask = np.zeros(agent.num_actions, np.int8)
    mask[[3, 5]] = 1
    for bad in (np.zeros(100, np.float32), np.zeros((1, 449), np.float32)):
        with pytest.raises(ConfigError, match=r"'observation': got 'shape \((100,|1, 449)\)'.*shape \(449,\)"):
            agent(bad, mask, np.random.default_rng(0))


def test_search_numbers_are_ascii_and_a_missing_rllib_prior_is_named():
    for spec in ("search:margin=٣", "search:margin=１.５"):  # Arabic-Indic and full-width digits
        with pytest.raises(ConfigError, match="margin=X with X a finite number"):
            make_agent(spec)
    with pytest.raises(ConfigError, match="prior: an agent name for this game"):
        make_agent("search:prior=rllib:/nonexistent")
    with pytest.raises(CheckpointNotFoundError, match="no RLlib module 'main' at /nonexistent"):
        make_agent("rllib:/nonexistent")


def test_a_model_given_to_the_other_loader_names_the_right_one(tmp_path):
    """ppo: on a domino-rllib run said only that model.zip does not exist, and rllib: on a
    domino-train run only that there is no RLlib module (fresh-user trial)."""
    train_run, rllib_run = tmp_path / "train_run", tmp_path / "rllib_run"
    train_run.mkdir(), rllib_run.mkdir()
    (train_run / "model.zip").write_bytes(b"a model")
    (rllib_run / "domino_rllib.json").write_text("{}")
    with pytest.raises(CheckpointNotFoundError, match=r"\(it holds a model of domino-train: load that with ppo:PATH\)$"):
        make_agent(f"rllib:{train_run}")
    with pytest.raises(CheckpointNotFoundError, match=r"\(it is a run of domino-rllib: load it with rllib:PATH\)$"):
        make_agent(f"ppo:{rllib_run}")


def test_partials_and_bound_methods_are_labelled_and_checked_like_functions():
    import functools

    class Bot:
        def act(self, observation, action_mask, rng):
            return int(np.flatnonzero(action_mask)[0])

    bot = Bot()
    res = evaluate([bot.act, bot.act], rounds=2, game="block")  # one method twice: the same agent
    assert res.agents == ["act", "act"]
    assert evaluate([functools.partial(first_legal), "random"], rounds=2, game="block").agents[0] == "first_legal"
    with pytest.raises(ConfigError, match="a sequence of agents, one per seat"):
        evaluate(b"pg", rounds=2, game="block")


def test_an_agent_built_from_a_spec_with_an_argument_keeps_its_own_row():
    """make_agent("planner:1") was named "planner", so beside the spec "planner" the two different
    agents were counted as one row (likewise search:8,prior=none beside search)."""
    assert make_agent("planner:1").name == "planner:1" and make_agent("planner").name == "planner"
    res = evaluate([make_agent("planner:1"), "planner", "greedy", "greedy"], rounds=8, seed=0, progress=False)
    assert [(s.name, s.seats_per_table) for s in res.stats] == [("planner:1", 1), ("planner", 1), ("greedy", 2)]
    block = make_agent("search:8,prior=none", BLOCK)
    assert block.name == "search:8,prior=none"
    res = evaluate([block, "search:8"], rounds=2, game="block", seed=0, progress=False)
    assert [s.name for s in res.stats] == ["search:8,prior=none", "search:8"]


def test_notes_on_python_3_10_are_the_same_list():
    """Python 3.10 has no BaseException.add_note: the agent's error named nobody there (a 3.10 run
    of the test above failed with "no attribute '__notes__'")."""
    from domino_env.train.tournament import add_note

    class Py310Error(TypeError):  # add_note hidden, as on 3.10
        add_note = property(lambda self: (_ for _ in ()).throw(AttributeError("add_note")))

    for exc in (TypeError("x"), Py310Error("x")):
        add_note(exc, "one")
        add_note(exc, "two")
        assert exc.__notes__ == ["one", "two"], type(exc)
