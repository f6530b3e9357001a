"""PettingZoo conventions other clients rely on (issue 10): ``max_cycles`` counts cycles of turns
(PettingZoo's ``max_cycles_test``), ``max_steps`` caps actions, and the envs are turn-based AEC
envs that ``turn_based_aec_to_parallel`` converts (``aec_to_parallel`` refuses them)."""

from __future__ import annotations

import types
import warnings

import numpy as np
import pettingzoo
import pytest
from gymnasium import spaces
from pettingzoo.test import max_cycles_test, parallel_api_test
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel
from pettingzoo.utils.wrappers import BaseWrapper

from domino_env import ConfigError
from domino_env.core.errors import DealError, IllegalActionError
from domino_env.envs import block_v0, cuban_v0, draw_v0, mexican_train_v0
from domino_env.envs.parallel import TurnBasedParallelEnv

MODULES = {"mexican_train": mexican_train_v0, "block": block_v0, "draw": draw_v0, "cuban": cuban_v0}
SMALL = {"mexican_train": {"num_players": 3, "max_pip": 9}}


class _MaskedDiscrete(spaces.Discrete):
    """A Discrete whose ``sample()`` draws from the acting agent's action mask."""

    def __init__(self, n: int, env, seed: int):
        super().__init__(n, seed=seed)
        self._env = env

    def sample(self, mask=None, probability=None):
        obs = self._env.observe(self._env.agent_selection)
        return super().sample(mask=obs["action_mask"].astype(np.int8))


class _MaskedSampling(BaseWrapper):
    """PettingZoo's ``max_cycles_test`` / ``parallel_api_test`` play ``action_space(a).sample()``,
    unmasked, and ``env()`` ends the episode at an illegal action: here sampling follows the mask
    (nothing else changes)."""

    def __init__(self, env, seed: int = 0):
        super().__init__(env)
        self._space = _MaskedDiscrete(env.action_space(env.possible_agents[0]).n, self, seed)
        self._seed = seed

    def action_space(self, agent):
        return self._space

    def reset(self, seed=None, options=None):
        # ``max_cycles_test`` resets unseeded and assumes no agent is done before max_cycles, but
        # about 1 block deal in 125 ends blocked within 4 cycles: the unseeded reset takes ``seed``.
        return super().reset(seed=self._seed if seed is None else seed, options=options)


def _turn_counts(module, max_cycles: int, seed: int, **kwargs):
    """Play masked random actions until every agent is done; the turns each seat started (a turn
    is a run of consecutive actions by one seat within a round), the seat that would have started
    the next turn, and the actions played."""
    env = module.env(max_cycles=max_cycles, **kwargs)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    turns = [0] * raw.config.num_players
    previous, rounds, actions, truncated_next = None, 0, 0, None
    for agent in env.agent_iter():
        _, _, term, trunc, info = env.last()
        if term or trunc:
            if trunc and truncated_next is None:
                truncated_next = raw.game_state.current_player
            env.step(None)
            continue
        seat = raw.possible_agents.index(agent)
        if seat != previous or raw.game_state.round_index != rounds:
            turns[seat] += 1
        previous, rounds = seat, raw.game_state.round_index
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        actions += 1
    return turns, truncated_next, actions


@pytest.mark.parametrize("name", list(MODULES))
def test_max_cycles_counts_turns_per_agent_not_steps(name):
    """No seat starts turn max_cycles + 1; truncation comes exactly when one would."""
    for seed in range(3):
        turns, nxt, actions = _turn_counts(MODULES[name], 3, seed, episode="game", **SMALL.get(name, {}))
        assert nxt is not None, "the episode was truncated"
        assert max(turns) == 3 and turns[nxt] == 3
        assert actions >= 3 * len(turns) - 1  # roughly a cycle per turn, not 3 steps in all


def test_max_cycles_in_a_strict_turn_order_game_is_every_agent_acting_that_often():
    """Block (one action per turn): max_cycles=4 with 4 seats is 16 actions, 4 per seat."""
    turns, _, actions = _turn_counts(block_v0, 4, seed=1)
    assert turns == [4, 4, 4, 4] and actions == 16


def _seeded_block_module(seed: int):
    return types.SimpleNamespace(
        env=lambda max_cycles: _MaskedSampling(block_v0.env(max_cycles=max_cycles), seed),
        parallel_env=lambda max_cycles: turn_based_aec_to_parallel(
            _MaskedSampling(block_v0.env(max_steps=max_cycles), seed)
        ),
    )


def test_pettingzoos_max_cycles_test_passes():
    """PettingZoo's own test: the AEC env gives every agent max_cycles actions; the turn-based
    parallel view (one action per parallel step) truncates after max_cycles steps. Block: one
    action per turn, as the test's agent counts assume. Its resets are unseeded; here they take
    seed 0, since a deal whose round ends before max_cycles fails the test's counts."""
    max_cycles_test(_seeded_block_module(0))
    with pytest.raises(AssertionError):  # seed 2's round ends blocked after 13 actions
        max_cycles_test(_seeded_block_module(2))


@pytest.mark.parametrize("cycles", [1, 3, np.int64(2)])
def test_parallel_env_max_cycles_is_parallel_steps(cycles):
    """max_cycles=1, the smallest limit, is accepted (one parallel step), and so is a numpy int."""
    par = block_v0.parallel_env(max_cycles=cycles)
    obs, _ = par.reset(seed=0)
    steps = 0
    while par.agents:
        actor = par.aec_env.agent_selection
        obs, _, _, truncs, infos = par.step({actor: int(np.flatnonzero(obs[actor]["action_mask"])[0])})
        steps += 1
    assert steps == cycles and all(truncs.values())
    with pytest.raises(ConfigError, match="max_steps"):
        block_v0.parallel_env(max_cycles=3, max_steps=4)


@pytest.mark.parametrize("bad", [0, -2, 2.5, True, "3"])
def test_parallel_env_refuses_a_bad_max_cycles_by_its_own_name(bad):
    """The view turns max_cycles into the AEC env's max_steps; the error names what was given."""
    for make in (block_v0.parallel_env, lambda **kw: pettingzoo.make("parallel", "dominoes/cuban-v0", **kw)):
        with pytest.raises(ConfigError) as err:
            make(max_cycles=bad)
        assert err.value.field == "max_cycles" and err.value.value is bad


def test_max_steps_caps_actions_and_max_cycles_stays_out_of_its_way():
    env = draw_v0.env(max_steps=7)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    while not any(env.truncations.values()):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        steps += 1
    assert steps == 7 and all(i["limit_reached"] for i in env.infos.values())
    assert env.unwrapped.env_kwargs["max_steps"] == 7


@pytest.mark.parametrize("name", list(MODULES))
def test_aec_to_parallel_refuses_the_turn_based_envs(name):
    with pytest.raises(AssertionError):
        aec_to_parallel(MODULES[name].env(**SMALL.get(name, {})))
    assert MODULES[name].raw_env().metadata["is_parallelizable"] is False


@pytest.mark.parametrize("name", list(MODULES))
def test_turn_based_parallel_view_plays_the_same_game_as_the_aec_env(name):
    """parallel_env() = turn_based_aec_to_parallel(env()): the acting agent's action is played,
    the rewards and the end match the AEC env fed the same actions."""
    kwargs = SMALL.get(name, {})
    par = MODULES[name].parallel_env(**kwargs)
    aec = MODULES[name].env(**kwargs)
    obs, infos = par.reset(seed=7)
    aec.reset(seed=7)
    rng = np.random.default_rng(7)
    totals = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        actor = aec.agent_selection
        assert actor in obs
        action = int(rng.choice(np.flatnonzero(obs[actor]["action_mask"])))
        others = {a: 0 for a in par.agents if a != actor}  # ignored by the turn-based view
        obs, rewards, terms, truncs, infos = par.step({actor: action, **others})
        for a, r in rewards.items():
            totals[a] += r
        aec.step(action)
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)
        if par.agents:
            assert infos[par.agents[0]]["active_agent"] == aec.agent_selection
    assert not aec.agents
    # PettingZoo 1.27's wrapper returned four dicts here, which broke five-name unpacking
    assert par.step({}) == ({}, {}, {}, {}, {})
    assert sum(totals.values()) == pytest.approx(0.0)
    assert max(totals.values()) > 0
    assert par.state_space.shape == par.state().shape


def test_parallel_api_test_passes_on_the_turn_based_view():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(TurnBasedParallelEnv(_MaskedSampling(block_v0.env())), num_cycles=200)


@pytest.mark.parametrize("bad", [{}, {"player_9": 0}, [0], 0])
def test_a_parallel_step_without_the_active_agents_action_names_it(bad):
    par = block_v0.parallel_env()
    par.reset(seed=0)
    actor = par.aec_env.agent_selection
    with pytest.raises(IllegalActionError, match=f"holding the active agent '{actor}'"):
        par.step(bad)  # was a bare KeyError (or TypeError) from PettingZoo's wrapper
    assert par.aec_env.agent_selection == actor and par.agents == par.possible_agents
    legal = int(np.flatnonzero(par.aec_env.observe(actor)["action_mask"])[0])
    par.step(types.MappingProxyType({actor: legal}))  # any mapping, as PettingZoo's wrapper takes
    assert par.aec_env.agent_selection != actor


def test_a_bad_later_deal_ends_the_parallel_episode_too():
    """The AEC env ends its episode when a later deal of options['deals'] is refused; the
    parallel view still listed every agent, so the next step played into the finished round."""
    first = mexican_train_v0.raw_env(episode="game", station_source="highest_held")
    first.reset(seed=11)
    good = first.game_state.deals[0]
    bad = {"hands": [[[0, 1]], [[2, 3]], [[4, 5]], [[6, 7]]]}  # no double: refused as its round starts
    par = mexican_train_v0.parallel_env(episode="game", reward="points", station_source="highest_held")
    obs, infos = par.reset(seed=0, options={"deals": [good, bad]})
    rng = np.random.default_rng(0)
    with pytest.raises(DealError, match=r"^options\['deals'\]\[1\]: "):
        for _ in range(1000):
            actor = par.aec_env.agent_selection
            obs = par.step({actor: int(rng.choice(np.flatnonzero(obs[actor]["action_mask"])))})[0]
    assert par.agents == [] and all(par.aec_env.terminations.values())
    assert any(par.aec_env.rewards.values())  # the finished round was paid
    assert par.step({}) == ({}, {}, {}, {}, {})
    obs, _ = par.reset(seed=1)
    assert par.agents == par.possible_agents and obs[par.aec_env.agent_selection]["action_mask"].any()


@pytest.mark.parametrize("name", list(MODULES))
def test_env_reads_the_per_step_attributes_from_the_raw_env(name, monkeypatch):
    """``env()``'s wrappers read agent_selection, agents, rewards, terminations, truncations,
    infos and _cumulative_rewards straight from the raw env (PettingZoo's ``__getattr__``
    forwarding, one wrapper at a time, made ``env()`` about 2.5x slower than ``raw_env``), and a
    game through ``env()`` is the raw env's game, value for value."""
    live = {"agent_selection", "agents", "rewards", "terminations", "truncations", "infos",
            "_cumulative_rewards"}  # fmt: skip
    forwarded = []
    original = BaseWrapper.__getattr__

    def counting(self, attr):
        forwarded.append(attr)
        return original(self, attr)

    monkeypatch.setattr(BaseWrapper, "__getattr__", counting)
    kwargs = SMALL.get(name, {})
    wrapped, raw = MODULES[name].env(**kwargs), MODULES[name].raw_env(**kwargs)
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        _ = wrapped.agent_selection
    for env in (wrapped, raw):
        env.reset(seed=3)
    rng = np.random.default_rng(3)
    steps = 0
    for agent in wrapped.agent_iter():
        assert agent == raw.agent_selection
        last = wrapped.last()
        np.testing.assert_equal(last, raw.last())
        np.testing.assert_equal(
            (wrapped.rewards, wrapped.agents, wrapped.infos), (raw.rewards, raw.agents, raw.infos)
        )
        if last[2] or last[3]:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(last[0]["action_mask"])))
        wrapped.step(action)
        raw.step(action)
        steps += 1
    assert steps > 10 and not raw.agents and wrapped._cumulative_rewards == raw._cumulative_rewards
    assert not set(forwarded) & live, sorted(set(forwarded))


def _plain_env():
    """block's raw env in PettingZoo's own three wrappers, as env() stacked them before."""
    from pettingzoo.utils import wrappers

    raw = block_v0.raw_env()
    return wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1))
    )


def _assignments(env):
    """What a user sees after setting and deleting per-step attributes on the outer wrapper."""
    seen = []
    env.agents = ["x"]  # before reset: PettingZoo keeps it on the wrapper
    seen.append(env.agents)
    del env.agents
    with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
        _ = env.agents
    env.reset(seed=0)
    env.agent_selection = "player_1"  # shadows the raw env's on this wrapper, the game is untouched
    seen.append((env.agent_selection, env.unwrapped.agent_selection))
    del env.agent_selection
    env.rewards = {"a": 5}
    seen.append((env.agent_selection, env.rewards, env.unwrapped.rewards["player_0"]))
    del env.rewards
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    seen.append((env.agent_selection, env.rewards, env.terminations))
    return seen


def test_setting_an_attribute_on_env_shadows_it_as_pettingzoos_wrappers_do():
    """The wrappers read the per-step attributes from the raw env; a value set on the wrapper
    by a user stayed on the wrapper with PettingZoo's own (the game untouched), and still does
    (a first version wrote it into the raw env, changing the turn)."""
    assert _assignments(block_v0.env()) == _assignments(_plain_env())


LIVE = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards",
        "num_agents")  # fmt: skip


def _reads(env):
    out = {}
    for name in LIVE:
        try:
            out[name] = getattr(env, name)
        except AttributeError as err:
            out[name] = str(err)
    return out


def test_env_keeps_pettingzoos_before_reset_rule_when_the_raw_env_is_reset_under_it():
    """OrderEnforcingWrapper's rule is the wrapper's own: until ``reset`` is called on it, its
    per-step attributes refuse to be read even where the raw env below has them (reset directly);
    ``_cumulative_rewards`` is outside the rule and reads the raw env's, as with PettingZoo's."""
    wrapped, plain = block_v0.env(), _plain_env()
    for env in (wrapped, plain):
        env.unwrapped.reset(seed=0)
    seen = _reads(wrapped)
    assert seen == _reads(plain)
    for name in LIVE:
        if name == "_cumulative_rewards":
            assert seen[name] == {f"player_{i}": 0.0 for i in range(4)}
        else:
            assert seen[name] == f"{name} cannot be accessed before reset"


def test_the_wrapped_env_refuses_the_action_space_size_itself_with_its_range():
    """``n`` is the first integer outside ``Discrete(n)``: the range check's own message, not the
    bounds wrapper's bare assertion, and the game is unchanged; ``n - 1`` is inside (an illegal
    move here, which ends the episode with -1 for the offender)."""
    env = block_v0.env()
    env.reset(seed=0)
    n = env.action_space(env.agent_selection).n
    with pytest.raises(AssertionError, match=f"^action {n} is not in action space: 0 to {n - 1}$"):
        env.step(n)
    assert env.unwrapped.game_state.actions == [] and not any(env.terminations.values())
    offender = env.agent_selection
    assert env.observe(offender)["action_mask"][n - 1] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(n - 1)
    assert env.rewards[offender] == -1.0 and all(env.terminations.values())


def test_an_env_pickled_before_the_wrappers_read_the_raw_env_still_loads():
    """A pickle made by the release before (wrappers without ``_raw``) loads and plays on: each
    wrapper finds its raw env again (PettingZoo 1.23's OrderEnforcingWrapper refused every read)."""
    import pickle

    env = block_v0.env()
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    layer = env
    while hasattr(layer, "env"):
        del layer.__dict__["_raw"]  # as the old wrappers were pickled
        layer = layer.env
    again = pickle.loads(pickle.dumps(env))
    layer = again
    while hasattr(layer, "env"):
        assert layer.__dict__["_raw"] is again.unwrapped
        layer = layer.env
    assert again.agent_selection == env.unwrapped.agent_selection
    again.step(int(np.flatnonzero(again.observe(again.agent_selection)["action_mask"])[0]))
    assert again.agent_selection == again.unwrapped.agent_selection != env.unwrapped.agent_selection


def test_reloading_the_package_registers_nothing_twice():
    """``importlib.reload(domino_env)`` (IPython's autoreload) re-registered every PettingZoo id,
    with an "Overriding environment" UserWarning each; the Gymnasium ids were already guarded."""
    import importlib

    import gymnasium

    import domino_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.reload(domino_env)
    assert "dominoes/block-v0" in pettingzoo.aec_registry and "dominoes/Block-v0" in gymnasium.registry
    assert isinstance(pettingzoo.make("parallel", "dominoes/cuban-v0"), TurnBasedParallelEnv)


@pytest.mark.parametrize("game", sorted(MODULES))
def test_a_wrapper_that_adds_a_render_mode_changes_only_its_own_env(game):
    """PettingZoo's CaptureStdoutWrapper appends "ansi" to the render modes it finds: on the class's
    list, every later env of the class listed "ansi" twice, then three times."""
    from pettingzoo.utils.wrappers import CaptureStdoutWrapper

    module = MODULES[game]
    before = list(module.env().metadata["render_modes"])
    for _ in range(2):
        CaptureStdoutWrapper(module.raw_env(render_mode="human", **SMALL.get(game, {})))
    assert module.env().metadata["render_modes"] == before
    assert module.raw_env.metadata["render_modes"] == before
    assert before.count("ansi") == 1 and before[:1] == ["human"]
