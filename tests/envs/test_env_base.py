"""What every AEC env gets from ``DominoAECEnv`` (domino_env/envs/base.py): PettingZoo's space
dicts and the action-mask space, ``round_results`` from construction and per episode, the human
render mode, reset's checks of its options, None from the agent to act, the dead-step order after
a truncation, and the turn counts (``max_cycles``) a pickle carries."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from domino_env.core.errors import DealError, IllegalActionError
from domino_env.envs import block_v0, cuban_v0, mexican_train_v0

MODULES = {"mexican_train": mexican_train_v0, "block": block_v0, "cuban": cuban_v0}


@pytest.mark.parametrize("name", list(MODULES))
def test_the_space_dicts_hold_the_one_cached_space_of_every_agent(name):
    """PettingZoo's ``observation_spaces`` / ``action_spaces`` (RLlib reads them) hold, for every
    possible agent, the same objects as ``observation_space(agent)`` / ``action_space(agent)``."""
    env = MODULES[name].raw_env()
    assert list(env.observation_spaces) == list(env.action_spaces) == env.possible_agents
    for agent in env.possible_agents:
        assert env.observation_spaces[agent] is env.observation_space(agent)
        assert env.action_spaces[agent] is env.action_space(agent)


@pytest.mark.parametrize("name", ["mexican_train", "cuban"])
def test_each_env_holds_its_own_spaces_so_seeding_one_leaves_the_others(name):
    """The observation Box and state_space came from the spec, cached per game, seats and set:
    every such env held the same objects, so seeding one env's space reseeded all (an API bug
    battery)."""
    make = MODULES[name].raw_env
    a, b = make(), make()
    assert a.observation_space("player_0")["observation"] == b.observation_space("player_0")["observation"]
    assert a.state_space == b.state_space and a.state_space == a.state_encoder.spec.space
    for space_of in (lambda env: env.observation_space("player_0")["observation"], lambda env: env.state_space):
        space_of(b).seed(1)
        first = space_of(b).sample()
        space_of(b).seed(1)
        space_of(a).seed(2)  # another env's seed leaves b's stream as it was
        assert np.array_equal(space_of(b).sample(), first)


@pytest.mark.parametrize("name", list(MODULES))
def test_the_action_mask_space_is_int8_zeros_and_ones_of_the_action_count(name):
    env = MODULES[name].raw_env()
    space = env.observation_space("player_0")["action_mask"]
    n = env.action_space("player_0").n
    assert space.shape == (n,) and space.dtype == np.int8
    assert (space.low == 0).all() and (space.high == 1).all()
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert space.contains(mask) and mask.any() and set(np.unique(mask)) <= {0, 1}


def test_round_results_is_an_empty_list_from_construction():
    """Documented as every round-end info of the episode so far: none before the first reset."""
    for module in MODULES.values():
        assert module.raw_env().round_results == []


def test_reset_starts_round_results_afresh():
    """``round_results`` is the episode's: a reset after a finished round episode empties it."""
    env = block_v0.raw_env()
    env.reset(seed=1)
    while env.agents:
        agent = env.agent_selection
        env.step(None if env.terminations[agent] else env.game_state.legal_actions()[0])
    assert len(env.round_results) == 1 and env.round_results[0]["round_over"]
    env.reset(seed=2)
    assert env.round_results == []


def test_human_mode_prints_the_table_at_reset_and_after_each_step(capsys):
    """``render_mode="human"``: the text picture as the player to act sees it, printed by
    ``reset`` and by every ``step``."""
    env = block_v0.raw_env(render_mode="human")
    env.reset(seed=0)
    out = capsys.readouterr().out
    assert out == env.render_text() + "\n" and out.startswith("block dominoes - round 1") and "to play: seat 0" in out
    env.step(env.game_state.legal_actions()[0])
    assert capsys.readouterr().out == env.render_text() + "\n"
    assert env.render() is None  # render() prints the same picture and returns nothing
    assert capsys.readouterr().out == env.render_text() + "\n"


def test_the_misspelt_option_warning_points_at_the_callers_line():
    env = block_v0.raw_env()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.reset(seed=0, options={"dael": {}})
    assert [w.filename for w in caught] == [__file__]


@pytest.mark.parametrize("make", ["env", "pettingzoo", "parallel", "adapter", "gymnasium"])
def test_the_misspelt_option_warning_points_at_the_callers_line_through_every_wrapper(make):
    """Under ``env()`` (and ``pettingzoo.make``, the parallel view) the warning was attributed to
    PettingZoo's wrapper (pettingzoo/utils/wrappers/base.py), under the adapter to
    domino_env/wrappers.py: not the caller's line, and Python's default filter then showed it
    once for every caller together."""
    import gymnasium
    import pettingzoo

    from domino_env.wrappers import line_single_agent

    env = {
        "env": block_v0.env, "pettingzoo": lambda: pettingzoo.make("aec", "dominoes/block-v0"),
        "parallel": block_v0.parallel_env, "adapter": lambda: line_single_agent("block"),
        "gymnasium": lambda: gymnasium.make("dominoes/Block-v0"),
    }[make]()  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.reset(seed=0, options={"dael": {}})
    assert [(w.filename, "unknown option" in str(w.message)) for w in caught] == [(__file__, True)]


def _turns_to_truncation(env) -> list[int]:
    """The seats that act until ``max_cycles`` truncates (the first legal action each time)."""
    seats = []
    while not any(env.truncations.values()):
        assert not any(env.terminations.values())
        seats.append(int(env.agent_selection.rsplit("_", 1)[1]))
        env.step(env.game_state.legal_actions()[0])
    return seats


@pytest.mark.parametrize("seed, first", [(0, 0), (1, 1)])
def test_a_pickle_keeps_the_turn_counts_and_an_old_one_counts_from_zero(seed, first):
    """Block, 4 seats, ``max_cycles=2``, pickled right after reset: the env and its current pickle
    truncate before any seat starts a third turn (8 actions); a pickle of a release that did not
    count turns (no ``_turns``) counts from zero, so the turn in progress is not counted: one
    action more."""
    env = block_v0.raw_env(max_cycles=2)
    env.reset(seed=seed)
    data = env.__getstate__()
    current = pickle.loads(pickle.dumps(env))
    old = dict(data, _dynamic={k: v for k, v in data["_dynamic"].items() if k != "_turns"})
    restored = block_v0.raw_env.__new__(block_v0.raw_env)
    restored.__setstate__(pickle.loads(pickle.dumps(old)))
    order = [(first + i) % 4 for i in range(9)]
    assert _turns_to_truncation(env) == order[:8]
    assert _turns_to_truncation(current) == order[:8]
    assert _turns_to_truncation(restored) == order


@pytest.mark.parametrize("name", list(MODULES))
def test_none_from_the_agent_to_act_is_refused_naming_it(name):
    """None is the action of a done agent only: from the agent whose turn it is, the error names
    that agent (the engine's own check would only say an action must be an integer), and
    nothing is played."""
    env = MODULES[name].raw_env()
    env.reset(seed=1)
    agent = env.agent_selection
    with pytest.raises(IllegalActionError, match=rf"^{agent} is acting and must give an action, not None$"):
        env.step(None)
    assert env.game_state.actions == [] and env.agent_selection == agent


def test_after_a_truncation_the_done_agents_step_in_agent_order_from_the_first():
    """PettingZoo's dead-step order: once ``max_steps`` truncates (seat 3 would act next), the
    agent selected is ``player_0``, the first done agent, and each agent is stepped with None in
    turn, not from the seat whose turn it would have been."""
    env = block_v0.raw_env(max_steps=3)
    env.reset(seed=0)
    for agent in ("player_0", "player_1", "player_2"):
        assert env.agent_selection == agent
        env.step(env.game_state.legal_actions()[0])
    assert env.game_state.current_player == 3 and all(env.truncations.values())
    assert all(info["limit_reached"] for info in env.infos.values())
    stepped = []
    while env.agents:
        stepped.append(env.agent_selection)
        env.step(None)
    assert stepped == ["player_0", "player_1", "player_2", "player_3"]


@pytest.mark.parametrize("options, got", [(5, "int"), (["deal"], "list"), ("deals", "str")])
def test_reset_options_that_are_not_a_dict_are_refused_and_nothing_is_dealt(options, got):
    env = block_v0.raw_env()
    with pytest.raises(DealError, match=rf"^reset options must be a dict, got {got}$"):
        env.reset(seed=0, options=options)
    assert env.game_state is None


def test_deal_and_deals_together_are_refused_and_nothing_is_dealt():
    deal = _dealt(1)[0]
    env = block_v0.raw_env()
    with pytest.raises(DealError, match=r"^give either options\['deal'\] or options\['deals'\], not both$"):
        env.reset(seed=0, options={"deal": deal, "deals": [deal]})
    assert env.game_state is None


def _dealt(rounds: int) -> list:
    """The deals of the first ``rounds`` rounds of a seeded block game episode."""
    env = block_v0.raw_env(episode="game", target_score=1000)
    env.reset(seed=5)
    while len(env.game_state.deals) < rounds:
        agent = env.agent_selection
        env.step(None if env.terminations[agent] else env.game_state.legal_actions()[0])
    return env.game_state.deals[:rounds]


def test_deals_given_as_a_tuple_deal_the_later_rounds_too():
    """A tuple is as good as a list: its second deal is the second round's."""
    deals = _dealt(2)
    env = block_v0.raw_env(episode="game", target_score=1000)
    env.reset(seed=9, options={"deals": tuple(deals)})
    assert env.game_state.deals == deals[:1]
    while env.game_state.round_index == 0:
        env.step(env.game_state.legal_actions()[0])
    assert env.game_state.deals == deals


def test_the_warning_skips_the_packages_frames_by_module_name_wherever_its_files_are(tmp_path):
    """A module of the package outside domino_env/ (an editable install maps domino_env.agents
    and domino_env.train to folders beside it) is the package, not the caller: the warning was
    attributed to its line."""
    code = compile("def reset(env):\n    env.reset(seed=0, options={'dael': {}})\n", str(tmp_path / "adapter.py"), "exec")
    module = {"__name__": "domino_env.agents.adapter"}
    exec(code, module)
    env = block_v0.raw_env()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module["reset"](env)
    assert [(w.filename, "unknown option" in str(w.message)) for w in caught] == [(__file__, True)]
