"""RLlib integration pieces (issue 10): the multi-agent env, the masked and scripted modules, the
numpy checkpoint agent, the seat mapping and the training command's flag checks.

The training runs themselves (a few PPO iterations, checkpoints, tournaments) are in
test_rllib_smoke.py; the turn-based reward bookkeeping in test_rllib_rewards.py.
"""

import json
import re
import subprocess
import sys

import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.examples.rl_modules.classes.random_rlm import RandomRLModule
from rllib_helpers import observation_batch

from domino_env.agents import make_agent
from domino_env.agents.rllib.agent import RLlibActor, load_rllib_agent
from domino_env.agents.rllib.env import DominoMultiAgentEnv
from domino_env.agents.rllib.modules import MaskedPPOTorchRLModule, ScriptedRLModule
from domino_env.core.errors import ConfigError, DominoError, IllegalActionError
from domino_env.train.rllib import (
    MAIN,
    SeatMapping,
    build_parser,
    model_config_of,
    ppo_config,
)

MT = {"game": "mexican_train", "num_players": 2, "max_pip": 9}


# ---------------------------------------------------------------------------------- env
def test_env_observations_have_the_keys_rllib_masking_reads():
    env = DominoMultiAgentEnv(MT)
    obs, infos = env.reset(seed=1)
    assert infos == {} and list(obs) == [env.aec.agent_selection]
    (o,) = obs.values()
    assert set(o) == {"observations", "action_mask"}
    assert o["observations"].dtype == np.float32 and o["action_mask"].dtype == np.int8
    space = env.observation_spaces["player_0"]
    assert space["observations"].shape == o["observations"].shape and space.contains(o)
    assert env.action_spaces["player_0"].n == len(o["action_mask"]) == 167


def test_env_illegal_action_ends_the_episode_with_the_penalty():
    env = DominoMultiAgentEnv({**MT, "illegal_reward": -2.5})
    obs, _ = env.reset(seed=3)
    (actor,) = obs
    illegal = int(np.flatnonzero(obs[actor]["action_mask"] == 0)[0])
    _, rew, term, trunc, info = env.step({actor: illegal})
    assert rew[actor] == -2.5 and all(v == 0.0 for a, v in rew.items() if a != actor)
    assert term["__all__"] and all(term[a] for a in env.possible_agents) and not trunc["__all__"]
    assert info[actor]["illegal_action"] is True and env.illegal_actions == 1
    assert env.last_record is not None and env.last_record["actions"] == []
    with pytest.raises(IllegalActionError, match="call reset"):
        env.step({actor: 0})


def test_env_plays_a_legal_episode_to_the_end_and_reports_every_agent():
    env = DominoMultiAgentEnv({**MT, "keep_records": True})
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    finals = {}
    for _ in range(2000):
        (actor,) = [a for a in obs if a not in finals]
        legal = np.flatnonzero(obs[actor]["action_mask"])
        obs, rew, term, trunc, _ = env.step({actor: int(rng.choice(legal))})
        finals.update({a: rew[a] for a in term if a != "__all__" and term[a]})
        if term["__all__"] or trunc["__all__"]:
            break
    assert term["__all__"] and set(finals) == set(env.possible_agents)
    assert sorted(finals.values()) == [-1.0, 1.0] or set(finals.values()) == {0.0}
    assert env.illegal_actions == 0 and len(env.records) == 1


@pytest.mark.parametrize(
    "config, field",
    [({"game": "chess"}, "game"), ({**MT, "illegal_reward": "x"}, "illegal_reward"),
     ({**MT, "colour": 1}, "colour"), ({"game": "block", "preset": "cuban"}, "preset"),
     ({**MT, "illegal_reward": float("nan")}, "illegal_reward"),  # nan and inf were taken
     ({**MT, "illegal_reward": float("inf")}, "illegal_reward"),
     ({**MT, "keep_records": "no"}, "keep_records")],  # bool("no") was True
)  # fmt: skip
def test_env_refuses_bad_config(config, field):
    with pytest.raises(ConfigError, match=field):
        DominoMultiAgentEnv(config)


def test_env_takes_0_and_1_as_keep_records_flags():
    """keep_records=1 worked until 2026-12-05's check took only True or False; "no" and 2 stay refused."""
    assert [DominoMultiAgentEnv({**MT, "keep_records": v}).keep_records for v in (1, 0, np.True_)] == [True, False, True]
    with pytest.raises(ConfigError, match="keep_records"):
        DominoMultiAgentEnv({**MT, "keep_records": 2})


def test_env_takes_a_numpy_float_illegal_reward():
    """As the single-agent adapter does (np.float32(-1) was refused as not a number)."""
    assert DominoMultiAgentEnv({**MT, "illegal_reward": np.float32(-2.5)}).illegal_reward == -2.5


def test_env_refuses_what_is_not_an_action_and_plays_on():
    """A float, bool, string, a 1-element array or an out-of-range integer was played as an
    illegal move (the episode ended, -1 for the seat, a legal 54.0 among them): each is refused
    as the PettingZoo env refuses it (IllegalActionError, as the parallel view for a dict without
    the actor), and the episode goes on. Only a masked-out action in range is an illegal move."""
    env = DominoMultiAgentEnv({"game": "block"})
    obs, _ = env.reset(seed=0)
    (actor,) = obs
    legal = int(np.flatnonzero(obs[actor]["action_mask"])[0])
    other = next(a for a in env.possible_agents if a != actor)
    bad = [(1.5, "an action must be an integer, got 1.5 (float)"),
           (float(legal), f"an action must be an integer, got {float(legal)} (float)"),
           (True, "an action must be an integer, got True (bool)"),
           ("3", "an action must be an integer, got '3' (str)"),
           (np.array([legal]), "an action must be an integer, got array"),
           (59, f"step: the action of {actor} must be in 0 .. 58, got 59"),
           (-1, f"step: the action of {actor} must be in 0 .. 58, got -1")]  # fmt: skip
    for action, message in bad:
        with pytest.raises(IllegalActionError, match=re.escape(message)):
            env.step({actor: action})
    for action_dict, got in (({other: legal}, f"[{other!r}]"), ([legal], "list")):
        with pytest.raises(IllegalActionError, match=re.escape(
                f"step: action_dict must be a dict holding the acting agent {actor!r}, got {got}")):  # fmt: skip
            env.step(action_dict)
    _, rew, term, _, info = env.step({actor: np.int64(legal)})  # the episode was untouched
    assert env.illegal_actions == 0 and not term["__all__"] and set(rew) == {other}
    assert env.aec.to_record()["actions"] == [legal]


def test_importing_agents_does_not_import_ray_or_torch():
    code = "import sys, agents, agents.rllib; print('ray' in sys.modules, 'torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# ---------------------------------------------------------------------------------- modules
def _masked_module(env, hidden=(32, 16), **config):
    cfg = {**model_config_of({**MT, "num_players": 2, "max_pip": 9}, hidden), **config}
    space = env.observation_spaces["player_0"]
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule, observation_space=space,
        action_space=env.action_spaces["player_0"], model_config=cfg,
    ).build()  # fmt: skip
    return module, cfg


@pytest.mark.parametrize("activation", ["tanh", "relu", "elu", "silu", "swish", "Tanh", "ELU", "linear",
                                        "Relu", "SWISH", "Linear"])  # fmt: skip
def test_numpy_actor_matches_the_torch_module_and_masks_illegal_logits(activation):
    """Every activation RLlib builds by name (tanh only before: elu, silu were refused), in any
    case (RLlib lower-cases a name that is not a torch.nn class: "Relu", "Linear" were refused)."""
    env = DominoMultiAgentEnv(MT)
    module, cfg = _masked_module(env, fcnet_activation=activation, head_fcnet_hiddens=[8],
                                 head_fcnet_activation=activation)  # fmt: skip
    obs, masks = observation_batch(env)
    batch = {Columns.OBS: {"observations": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}
    with torch.no_grad():
        torch_logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    assert (torch_logits[masks == 0] < -1e30).all()  # FLOAT_MIN: never sampled
    state = {k: v.detach().numpy() for k, v in module.state_dict().items()}
    actor = RLlibActor(state, cfg)
    scale = np.asarray(cfg["observation_scale"], np.float32)
    np_logits = actor.logits(obs * scale)
    np.testing.assert_allclose(np_logits[masks == 1], torch_logits[masks == 1], rtol=1e-4, atol=1e-5)


def test_numpy_silu_matches_torch_without_overflow_far_below_zero():
    """x / (1 + exp(-x)) overflowed in float32 below about -88: a RuntimeWarning at every such
    pre-activation (the value was still right)."""
    import warnings

    from domino_env.agents.rllib.agent import _ACTIVATIONS

    x = np.array([-1e30, -200, -90, -20, -1, 0, 1, 20, 200, 1e30], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _ACTIVATIONS["silu"](x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, torch.nn.SiLU()(torch.from_numpy(x)).numpy(), rtol=1e-6, atol=1e-30)


def test_numpy_actor_refuses_an_activation_it_cannot_copy_and_names_those_it_can():
    module, cfg = _masked_module(DominoMultiAgentEnv(MT))
    state = {k: v.detach().numpy() for k, v in module.state_dict().items()}
    with pytest.raises(DominoError, match=r"fcnet_activation='gelu' \(known: 'ELU', .*'tanh' or None\)$"):
        RLlibActor(state, {**cfg, "fcnet_activation": "gelu"})


@pytest.mark.parametrize("shared", [None, True, False])
def test_rllib_agent_loads_a_module_whose_config_omits_vf_share_layers(tmp_path, shared):
    """A module built from a bare RLModuleSpec takes RLlib's DefaultModelConfig, whose
    ``vf_share_layers`` is True (one shared ``encoder.encoder``); its saved config may not name it.
    ``rllib:PATH`` refused such a module ("not a PPO MLP module"): it assumed False."""
    env = DominoMultiAgentEnv(MT)
    cfg = {"fcnet_hiddens": [16], "observation_scale": model_config_of(MT, (16,))["observation_scale"]}
    if shared is not None:
        cfg["vf_share_layers"] = shared
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule, observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"], model_config=cfg,
    ).build()  # fmt: skip
    module.save_to_path(tmp_path / "main")
    agent = load_rllib_agent(tmp_path / "main", env.config)
    obs, masks = observation_batch(env, n=24, seed=4)
    batch = {Columns.OBS: {"observations": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}
    with torch.no_grad():
        torch_actions = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].argmax(-1).numpy()
    rng = np.random.default_rng(0)
    assert [agent(o, m, rng) for o, m in zip(obs, masks, strict=True)] == list(torch_actions)


def test_masked_module_refuses_an_observation_without_the_mask_key():
    env = DominoMultiAgentEnv(MT)
    with pytest.raises(ConfigError, match="observation_space"):
        RLModuleSpec(
            module_class=MaskedPPOTorchRLModule,
            observation_space=env.aec.observation_space("player_0"),  # PettingZoo's keys
            action_space=env.action_spaces["player_0"],
            model_config={"fcnet_hiddens": [8]},
        ).build()


@pytest.mark.parametrize("spec", ["greedy", "planner", "random"])
def test_scripted_module_plays_the_agents_legal_action(spec):
    env = DominoMultiAgentEnv(MT)
    module = RLModuleSpec(
        module_class=ScriptedRLModule, observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"agent": spec, "env_config": MT, "seed": 7},
    ).build()  # fmt: skip
    obs, masks = observation_batch(env, n=24, seed=2)
    batch = {Columns.OBS: {"observations": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}
    actions = module.forward_exploration(batch)[Columns.ACTIONS]
    agent, rng = make_agent(spec, env.config), np.random.default_rng(7)
    expected = [agent(o, m, rng) for o, m in zip(obs, masks, strict=True)]
    assert list(actions) == expected and all(masks[i][a] for i, a in enumerate(actions))
    with pytest.raises(NotImplementedError, match="not trainable"):
        module.forward_train(batch)


def test_illegal_actions_are_counted_in_the_metrics():
    """RLlib's own RandomRLModule ignores the mask: the env ends those episodes and the
    ``illegal_actions`` metric (the smoke runs assert it is 0) counts them."""
    config = ppo_config(MT, mode="opponents", opponents=["random"], hidden=[8], seed=1)
    specs = dict(config.rl_module_spec.rl_module_specs)
    specs["opponent_random"] = RLModuleSpec(module_class=RandomRLModule)  # unmasked
    config.rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
    runner = MultiAgentEnvRunner(config=config)
    try:
        runner.sample(num_episodes=4, random_actions=False)
        metrics = runner.get_metrics()
    finally:
        runner.stop()
    assert metrics["illegal_actions"] >= 3  # 167 actions, a handful legal: nearly every episode


# ---------------------------------------------------------------------------------- mapping
class _Episode:
    def __init__(self, id_):
        self.id_ = id_


def test_seat_mapping_modes():
    agents = [f"player_{i}" for i in range(4)]
    selfplay = SeatMapping("self-play", 4)
    assert [selfplay(a, _Episode("e")) for a in agents] == [MAIN] * 4
    pool = ["opponent_greedy", "opponent_random"]
    mapping = SeatMapping("opponents", 4, pool, seed=3)
    seatings = [[mapping(a, _Episode(k)) for a in agents] for k in range(200)]
    assert all(s.count(MAIN) == 1 and set(s) - {MAIN} <= set(pool) for s in seatings)
    assert {s.index(MAIN) for s in seatings} == {0, 1, 2, 3}  # the learner sits everywhere
    assert {x for s in seatings for x in s} == {MAIN, *pool}
    again = SeatMapping("opponents", 4, pool, seed=3)
    assert [[again(a, _Episode(k)) for a in agents] for k in range(200)] == seatings  # seeded
    # the same episode asked twice keeps its seating
    assert [mapping(a, _Episode(5)) for a in agents] == [mapping(a, _Episode(5)) for a in agents]


# ---------------------------------------------------------------------------------- loader
def test_loader_needs_a_path_and_says_what_it_looked_for(tmp_path):
    with pytest.raises(DominoError, match="needs a checkpoint path"):
        make_agent("rllib", {"num_players": 2, "max_pip": 9})
    with pytest.raises(FileNotFoundError, match="module_state.pkl"):
        load_rllib_agent(tmp_path, {"num_players": 2, "max_pip": 9})
    (tmp_path / "module_state.pkl").write_bytes(b"not a pickle")
    with pytest.raises(DominoError, match="not a readable"):
        load_rllib_agent(tmp_path, {"num_players": 2, "max_pip": 9})


def test_docs_example_config_samples_legal_episodes():
    """The Python example of docs/rllib.md builds a config RLlib samples with (no illegal move)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs/rllib.md").read_text()
    code = text.split("### In your own RLlib script", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    scope: dict = {}
    exec(code, scope)  # noqa: S102 - our own documentation
    config = scope["config"].env_runners(num_env_runners=0).training(train_batch_size_per_learner=200)
    runner = MultiAgentEnvRunner(config=config)
    try:
        episodes = runner.sample(num_episodes=2, random_actions=False)
    finally:
        runner.stop()
    assert len(episodes) >= 2 and all(e.is_done for e in episodes)
    for e in episodes:  # each ended as a played-out round (an illegal move would end it early)
        finals = e.get_infos(-1).values()
        assert all("winners" in i and "illegal_action" not in i for i in finals)


def test_the_play_it_hint_gives_the_rules_flags_the_checkpoint_needs():
    """The hint was `domino-evaluate --game mexican_train --agents rllib:RUN ...` for a 2-player
    double-9 run, which then met a spec mismatch; rule options and --episode game were left out too."""
    from pathlib import Path

    from domino_env.train.evaluate import evaluate_command

    parser = build_parser()
    hint = evaluate_command(parser.parse_args(["--players", "2", "--max-pip", "9"]), "rllib:runs/r")
    assert hint == "domino-evaluate --game mexican_train --players 2 --max-pip 9 --agents rllib:runs/r ..."
    assert evaluate_command(parser.parse_args(["--game", "draw"]), "rllib:r") == "domino-evaluate --game draw --agents rllib:r ..."
    tren = evaluate_command(parser.parse_args(["--preset", "tren_mexicano"]), "rllib:r")
    assert tren == "domino-evaluate --game mexican_train --preset tren_mexicano --agents rllib:r ..."
    rules = parser.parse_args(["--hand-size", "11", "--doubles", "chain", "--no-use-boneyard",
                               "--episode", "game", "--elimination-limit", "50"])  # fmt: skip
    assert evaluate_command(parser.parse_args([]), "rllib:my run") == "domino-evaluate --game mexican_train --agents 'rllib:my run' ..."
    assert evaluate_command(rules, f"rllib:{Path('r')}") == (
        "domino-evaluate --game mexican_train --episode game --hand-size 11 --doubles chain "
        "--no-use-boneyard --elimination-limit 50 --agents rllib:r ..."
    )


def test_the_parameter_count_of_the_size_check_is_the_modules():
    """--hidden's bound counts what MaskedPPOTorchRLModule builds (policy and value MLPs, heads)."""
    from domino_env.train.rllib_config import network_parameters

    for env_config, hidden in ((MT, [8, 5]), ({"game": "block", "num_players": 3, "max_pip": 6}, [16])):
        env = DominoMultiAgentEnv(env_config)
        space, actions = env.observation_spaces["player_0"], env.action_spaces["player_0"]
        module = RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=space, action_space=actions,
                              model_config=model_config_of({**env_config, "episode": "round"}, hidden)).build()  # fmt: skip
        built = sum(p.numel() for p in module.parameters())
        assert network_parameters(space["observations"].shape[0], hidden, actions.n) == built


def test_ppo_config_refuses_more_than_one_learner():
    """RLlib's split of a batch's episodes between several learners fails on turn-based episodes
    (a seat's part without an action); ``domino-rllib --num-learners`` refuses it too."""
    from domino_env.train.rllib_config import ppo_config

    with pytest.raises(DominoError, match="num_learners must be 0 or 1, got 2: with more, RLlib splits"):
        ppo_config({"game": "block"}, num_learners=2)


def test_a_progress_row_of_an_iteration_without_a_finished_episode_is_strict_json():
    """RLlib reports a summed metric as NaN in an iteration where no episode ended, once it was
    logged before: ``int(NaN)`` crashed the run (ValueError), and the means were written as
    bare NaN, which strict JSON parsers refuse. Counts are 0 there, means null."""
    from domino_env.train.rllib_config import progress_row

    nan = float("nan")
    row = progress_row({"training_iteration": 3, "num_env_steps_sampled_lifetime": 192, "time_total_s": 4.5,
                    "env_runners": {"num_episodes_lifetime": 1, "illegal_actions": nan,
                                    "episode_len_mean": nan, "main_win_rate": nan}})  # fmt: skip
    assert row == {"iteration": 3, "env_steps": 192, "episodes": 1, "episode_len_mean": None,
                   "main_return_mean": None, "main_win_rate": None, "illegal_actions": 0, "time_s": 4.5}  # fmt: skip
    assert json.loads(json.dumps(row, allow_nan=False)) == row


def test_a_progress_rows_means_drop_rllibs_float_noise():
    """A zero-sum mean return came out of RLlib's sums as 1.7e-17 (a fresh user read it in
    progress.jsonl): the means are rounded to 12 decimals, which keeps every real digit."""
    from domino_env.train.rllib_config import progress_row

    row = progress_row({"training_iteration": 1, "env_runners": {"main_seat_return": 1.7e-17,
                        "main_win_rate": 0.2512345678901234, "episode_len_mean": 57.25}})  # fmt: skip
    assert row["main_return_mean"] == 0.0
    assert row["main_win_rate"] == 0.251234567890
    assert row["episode_len_mean"] == 57.25
