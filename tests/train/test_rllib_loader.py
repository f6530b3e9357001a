"""Damaged RLlib checkpoints given to ``rllib:PATH``: each is one clear DominoError (one line from
the commands), never a traceback or a model that plays with wrong inputs. A checker found these
raw errors: TypeError / AttributeError / ValueError from a module state or metadata of the wrong
type, a layer of the wrong shape that loaded and crashed in the first game, and a short
``observation_scale`` that numpy broadcast (the model played, its inputs silently mis-scaled)."""

from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from domino_env.agents.ppo import scaling_name, spec_for
from domino_env.agents.rllib.agent import METADATA_FILE, MODULE_STATE_FILE, load_rllib_agent
from domino_env.agents.rllib.env import DominoMultiAgentEnv
from domino_env.agents.rllib.modules import MaskedPPOTorchRLModule
from domino_env.core.errors import DominoError
from domino_env.train.rllib import model_config_of

ROOT = Path(__file__).resolve().parents[2]
RULES = {"num_players": 2, "max_pip": 9}
MODULE = Path("checkpoint/learner_group/learner/rl_module/main")


def _write_run(folder: Path, state=None, metadata=None) -> Path:
    """A run folder as domino-rllib writes it (metadata, and the module's numpy weights)."""
    env = DominoMultiAgentEnv({"game": "mexican_train", **RULES})
    cfg = model_config_of({"game": "mexican_train", **RULES}, (16,))
    if state is None:
        module = RLModuleSpec(
            module_class=MaskedPPOTorchRLModule, observation_space=env.observation_spaces["player_0"],
            action_space=env.action_spaces["player_0"], model_config=cfg,
        ).build()  # fmt: skip
        state = {k: v.detach().numpy() for k, v in module.state_dict().items()}
    if metadata is None:
        spec = spec_for(2, 9, "mexican_train")
        metadata = {"game": "mexican_train", "env_kwargs": env.aec.env_kwargs, "model_config": cfg,
                    "observation_spec_hash": spec.hash(), "observation_size": spec.size,
                    "observation_scaling": scaling_name("mexican_train")}  # fmt: skip
    (folder / MODULE).mkdir(parents=True)
    (folder / METADATA_FILE).write_text(json.dumps(metadata))
    (folder / MODULE / MODULE_STATE_FILE).write_bytes(b"garbage\n" if state == "GARBAGE" else pickle.dumps(state))
    return folder


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    folder = _write_run(tmp_path_factory.mktemp("rllib") / "good")
    state = pickle.loads((folder / MODULE / MODULE_STATE_FILE).read_bytes())
    metadata = json.loads((folder / METADATA_FILE).read_text())
    return folder, state, metadata


def test_the_undamaged_run_loads_and_plays(good):
    folder, _, _ = good
    agent = load_rllib_agent(folder, RULES)
    env = DominoMultiAgentEnv({"game": "mexican_train", **RULES}).aec
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent(obs["observation"], obs["action_mask"], np.random.default_rng(0))]
    # the folder above the module (the MultiRLModule's, with its own empty state) finds "main"
    assert load_rllib_agent(folder / MODULE.parent, RULES).actor.input_size == agent.actor.input_size


def _damaged(good, tmp_path, state=None, metadata=None):
    _, good_state, good_metadata = good
    return _write_run(tmp_path / "bad", good_state if state is None else state,
                      good_metadata if metadata is None else metadata)  # fmt: skip


@pytest.mark.parametrize(
    "damage, message",
    [
        ("state_list", "the module state is not a dict of named weights (got list)"),
        ("state_garbage", "not a readable module state"),  # pickle raised ValueError: a traceback
        ("state_int", "the module state is not a dict of named weights (got int)"),
        ("weights_text", "weights are not numeric arrays"),
        ("layer_shape", "not a chain of linear layers"),
        ("metadata_list", "not a metadata file of domino-rllib"),
        ("metadata_empty", "not a metadata file of domino-rllib"),
        ("model_config_text", "not a metadata file of domino-rllib"),
        ("scale_short", "observation_scale has shape (1,), not (252,)"),
    ],
)
def test_a_damaged_checkpoint_is_one_clear_error(good, tmp_path, damage, message):
    _, state, metadata = good
    state, metadata = dict(state), json.loads(json.dumps(metadata))
    first = next(k for k in state if k.endswith("mlp.0.weight"))
    changes = {
        "state_list": lambda: {"state": [1, 2]},
        "state_garbage": lambda: {"state": "GARBAGE"},
        "state_int": lambda: {"state": 5},
        "weights_text": lambda: {"state": {**state, first: "x"}},
        "layer_shape": lambda: {"state": {**state, "pi.net.mlp.0.weight": state["pi.net.mlp.0.weight"][:, :10]}},
        "metadata_list": lambda: {"metadata": [1, 2]},
        "metadata_empty": lambda: {"metadata": {"game": "mexican_train"}},
        "model_config_text": lambda: {"metadata": {**metadata, "model_config": "x"}},
        "scale_short": lambda: {"metadata": {**metadata, "model_config": {**metadata["model_config"],
                                                                           "observation_scale": [1.0]}}},
    }  # fmt: skip
    folder = _damaged(good, tmp_path, **changes[damage]())
    with pytest.raises(DominoError, match=re.escape(message)):
        load_rllib_agent(folder, RULES)


def test_the_commands_say_it_in_one_line(good, tmp_path):
    folder = _damaged(good, tmp_path, state=[1, 2])
    out = subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", "--agents", f"rllib:{folder}", "greedy",
                          "--players", "2", "--max-pip", "9", "--rounds", "2"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "the module state is not a dict of named weights" in out.stderr


def test_a_seat_mismatch_names_the_rllib_command(good):
    folder, _, _ = good
    with pytest.raises(DominoError, match=r"\(domino-rllib --game G --players P --max-pip N\)"):
        load_rllib_agent(folder, {"num_players": 3, "max_pip": 9})


def test_a_home_relative_module_path_is_expanded(tmp_path, monkeypatch):
    """``rllib:~/...``: the shell leaves the ``~`` after ``rllib:`` to the program (as ``ppo:``)."""
    from domino_env.agents.rllib.agent import MODULE_STATE_FILE, module_dir

    (tmp_path / "run" / "main").mkdir(parents=True)
    (tmp_path / "run" / "main" / MODULE_STATE_FILE).write_bytes(b"")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert module_dir("~/run") == tmp_path / "run" / "main"


def test_the_resume_check_finds_a_cut_or_garbled_pickle_without_unpickling_it(tmp_path):
    """--resume checks every pickle of the checkpoint before Ray starts (RLlib's restore named no
    file): parsed with pickletools, so a whole one passes and nothing in it runs."""
    from domino_env.train.rllib_resume import damaged_pickle

    whole = pickle.dumps({"weights": np.arange(1000.0), "step": 3})
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "state.pkl").write_bytes(whole)
    (tmp_path / "b.pkl").write_bytes(pickle.dumps(print))  # unpickled, it would look up print
    assert damaged_pickle(tmp_path) is None
    for damage in (whole[:-20], b"", b"garbage" + whole):
        (tmp_path / "a" / "state.pkl").write_bytes(damage)
        assert damaged_pickle(tmp_path).startswith(f"{tmp_path / 'a' / 'state.pkl'}: cut short or damaged, not a "
                                                   "whole pickle (")  # fmt: skip


def test_a_label_of_the_wrong_kind_is_refused_before_loading(tmp_path):
    """name=5 failed only after the checkpoint had loaded, and "" became "rllib": now the same
    check as load_ppo_agent's, before anything is read (a folder with no module at all)."""
    from domino_env.core.errors import ConfigError

    for bad in (5, "", b"rllib"):
        with pytest.raises(ConfigError, match="'name'.*a non-empty string") as info:
            load_rllib_agent(tmp_path / "nothing here", RULES, name=bad)
        assert info.value.field == "name"


def test_a_module_without_metadata_needs_ray_and_says_how_to_install_it(tmp_path, monkeypatch):
    """A module folder without metadata.json is read through Ray's pickled constructor arguments;
    without Ray that is one line naming the extra (and the clone's install), not an ImportError."""
    from domino_env.agents.rllib import agent

    monkeypatch.setitem(sys.modules, "ray.rllib", None)  # `import ray.rllib` raises ImportError
    with pytest.raises(DominoError) as info:
        agent._ctor_model_config(tmp_path)
    assert str(info.value) == (f"{tmp_path} has no {METADATA_FILE}: reading its model config needs ray "
                               "(pip install 'domino-env[rllib]'; in a clone: pip install -e '.[rllib]')")  # fmt: skip


# -------------------------------------------- found by mutation testing of agents/rllib/agent.py
def _trained_module(env_config, hidden=(16,)):
    """A masked PPO module for ``env_config``, its model config and its numpy state."""
    env = DominoMultiAgentEnv(env_config)
    cfg = model_config_of(env_config, hidden)
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule, observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"], model_config=cfg,
    ).build()  # fmt: skip
    return env, module, cfg


def _torch_actions(module, obs, masks):
    import torch
    from ray.rllib.core.columns import Columns

    batch = {Columns.OBS: {"observations": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}
    with torch.no_grad():
        return list(module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].argmax(-1).numpy())


def test_rllib_spec_loads_a_run_folder_for_a_line_game_and_plays_the_modules_moves(tmp_path):
    """``make_agent("rllib:PATH")`` for a line game (Block): the line game's observation size and
    action count, the metadata's observation_scale, the label ``rllib:PATH``; its moves are the
    torch module's (only Mexican Train runs were loaded outside the Ray smoke runs)."""
    from rllib_helpers import observation_batch

    from domino_env.agents import make_agent

    rules = {"game": "block", "num_players": 2, "max_pip": 6}
    env, module, cfg = _trained_module(rules)
    spec = spec_for(2, 6, "line", env.config)
    metadata = {"game": "block", "env_kwargs": env.aec.env_kwargs, "model_config": cfg,
                "observation_spec_hash": spec.hash(), "observation_size": spec.size,
                "observation_scaling": scaling_name("line")}  # fmt: skip
    folder = tmp_path / "run"
    (folder / MODULE).mkdir(parents=True)
    (folder / METADATA_FILE).write_text(json.dumps(metadata))
    state = {k: v.detach().numpy() for k, v in module.state_dict().items()}
    (folder / MODULE / MODULE_STATE_FILE).write_bytes(pickle.dumps(state))
    agent = make_agent(f"rllib:{folder}", env.config)
    assert agent.name == f"rllib:{folder}" and agent.metadata == metadata and agent.deterministic is True
    assert agent.actor.input_size == spec.size and agent.actor.num_actions == env.action_spaces["player_0"].n
    np.testing.assert_array_equal(agent.scale, np.asarray(cfg["observation_scale"], np.float32))
    obs, masks = observation_batch(env, n=24, seed=6)
    rng = np.random.default_rng(0)
    assert [agent(o, m, rng) for o, m in zip(obs, masks, strict=True)] == _torch_actions(module, obs, masks)


def test_an_algorithm_checkpoint_folder_finds_its_main_module(good, tmp_path):
    """``algo.save_to_path(...)``'s folder (``learner_group/`` inside, no ``checkpoint/``), with
    the metadata file beside it as domino-rllib writes it."""
    folder, state, metadata = good
    algo = tmp_path / "algo"
    (algo / MODULE.relative_to("checkpoint")).mkdir(parents=True)
    (algo / MODULE.relative_to("checkpoint") / MODULE_STATE_FILE).write_bytes(pickle.dumps(state))
    (algo / METADATA_FILE).write_text(json.dumps(metadata))
    agent = load_rllib_agent(algo, RULES)
    assert agent.metadata == metadata and agent.actor.input_size == spec_for(2, 9, "mexican_train").size


def test_a_metadata_file_that_is_not_json_is_one_clear_error(good, tmp_path):
    folder = _damaged(good, tmp_path)
    (folder / METADATA_FILE).write_text('{"model_config": ')
    with pytest.raises(DominoError, match=re.escape(f"{folder / METADATA_FILE}: not a readable metadata file (")):
        load_rllib_agent(folder, RULES)


def test_the_metadata_is_searched_up_to_the_run_folder_only(tmp_path):
    """Six folders: the module's own up to the run folder (``checkpoint/learner_group/learner/
    rl_module/main``); a file further up belongs to something else."""
    from domino_env.agents.rllib.agent import find_metadata

    module = tmp_path / "runs" / MODULE
    module.mkdir(parents=True)
    (tmp_path / METADATA_FILE).write_text(json.dumps({"observation_spec_hash": "x", "model_config": {}}))
    assert find_metadata(module) is None
    (tmp_path / "runs" / METADATA_FILE).write_text(json.dumps({"observation_spec_hash": "y", "model_config": {}}))
    assert find_metadata(module)["observation_spec_hash"] == "y"


def test_a_metadata_file_past_the_size_limit_is_not_read_whole(tmp_path, monkeypatch):
    """``domino_rllib.json`` was read whole: a huge one (or a link to ``/dev/zero``, which
    ``is_file`` passes) filled the memory. It is read up to the PPO loader's metadata limit."""
    from domino_env.agents.rllib import agent

    monkeypatch.setattr(agent, "MAX_METADATA_BYTES", 2**20)  # (16 MiB: slow to write in a test)
    module = tmp_path / "runs" / MODULE
    module.mkdir(parents=True)
    text = json.dumps({"observation_spec_hash": "y", "model_config": {}, "pad": ""})
    (tmp_path / "runs" / METADATA_FILE).write_text(text[:-2] + "z" * (2**20 - len(text)) + '"}')  # 1 MiB: read
    assert agent.find_metadata(module)["observation_spec_hash"] == "y"
    (tmp_path / "runs" / METADATA_FILE).write_text(text[:-2] + "z" * (2**20 - len(text) + 1) + '"}')
    with pytest.raises(DominoError, match=re.escape(f"{tmp_path / 'runs' / METADATA_FILE}: not a readable metadata "
                                                    "file (more than 1 MiB)")):  # fmt: skip
        agent.find_metadata(module)


@pytest.mark.parametrize("damage", ["bias_short", "weight_1d"])
def test_a_layer_whose_bias_or_weight_has_the_wrong_rank_or_length_is_refused(good, tmp_path, damage):
    """The shape check of every layer, not only a weight that does not follow the previous one:
    such a file loaded and failed in the first game."""
    _, state, _ = good
    key = "pi.net.mlp.0.bias" if damage == "bias_short" else "pi.net.mlp.0.weight"
    value = state[key][:-1] if damage == "bias_short" else state[key][0]
    with pytest.raises(DominoError, match="not a chain of linear layers"):
        load_rllib_agent(_damaged(good, tmp_path, state={**state, key: value}), RULES)


def test_a_module_without_metadata_saved_with_a_model_config_dataclass_loads(tmp_path):
    """RLlib may pickle the module's constructor with a ``DefaultModelConfig`` (a dataclass), not
    a dict: its fields are read as the config (here ``vf_share_layers=False``: the actor encoder)."""
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    env = DominoMultiAgentEnv({"game": "mexican_train", **RULES})
    module = MaskedPPOTorchRLModule(  # built directly: RLModuleSpec.build() would pass a dict
        observation_space=env.observation_spaces["player_0"], action_space=env.action_spaces["player_0"],
        model_config=DefaultModelConfig(fcnet_hiddens=[16], fcnet_activation="relu", vf_share_layers=False),
    )  # fmt: skip
    module.save_to_path(tmp_path / "main")
    ctor = pickle.loads((tmp_path / "main" / "class_and_ctor_args.pkl").read_bytes())["ctor_args_and_kwargs"][1]
    assert isinstance(ctor["model_config"], DefaultModelConfig)
    agent = load_rllib_agent(tmp_path / "main", RULES)
    assert [act for _, _, act in agent.actor.layers] == ["relu", None]
    from rllib_helpers import observation_batch

    obs, masks = observation_batch(env, n=16, seed=2)
    rng = np.random.default_rng(0)
    assert [agent(o, m, rng) for o, m in zip(obs, masks, strict=True)] == _torch_actions(module, obs, masks)


def test_a_module_without_metadata_and_an_unreadable_constructor_file_is_one_clear_error(good, tmp_path):
    _, state, _ = good
    (tmp_path / "main").mkdir()
    (tmp_path / "main" / MODULE_STATE_FILE).write_bytes(pickle.dumps(state))
    (tmp_path / "main" / "class_and_ctor_args.pkl").write_bytes(b"garbage")
    with pytest.raises(DominoError, match=re.escape(f"{tmp_path / 'main'}: not a readable RLlib module (no "
                                                    f"{METADATA_FILE}, and its class_and_ctor_args.pkl could not be read: ")):  # fmt: skip
        load_rllib_agent(tmp_path / "main", RULES)


def test_reloading_the_rllib_agent_module_registers_rllib_anew():
    """IPython's autoreload runs the module's ``register_agent`` calls again with a new factory,
    for both game families (as the other agent modules of the package: test_registry.py)."""
    code = ("import importlib, warnings\n"
            "warnings.simplefilter('error')\n"
            "from domino_env.agents.base import _REGISTRIES\n"
            "import domino_env.agents.rllib.agent as a\n"
            "importlib.reload(a)\n"
            "print([_REGISTRIES[g]['rllib'] is a._factory for g in ('mexican_train', 'line')])\n")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout == "[True, True]\n", proc.stderr[-2000:]


def test_a_module_without_metadata_for_other_rules_is_a_spec_mismatch_naming_both_sizes(tmp_path):
    """Without ``domino_rllib.json`` no spec hash is compared: the weights' sizes are, each on its
    own (a 2-seat Block module asked to play 3 seats has the same 59 actions, only more inputs)."""
    from domino_env.agents.ppo import SpecMismatchError

    _, module, _ = _trained_module({"game": "block", "num_players": 2, "max_pip": 6})
    module.save_to_path(tmp_path / "main")
    assert load_rllib_agent(tmp_path / "main", {"preset": "block", "num_players": 2, "max_pip": 6}).actor.input_size == 91
    for players, pips, size, actions in ((3, 6, 103, 59), (2, 9, 154, 113)):
        with pytest.raises(SpecMismatchError, match=re.escape(
                f"RLlib module {tmp_path / 'main'} takes 91 observation floats and 59 actions; this environment "
                f"({players} players, double-{pips}) has {size} and {actions}")):  # fmt: skip
            load_rllib_agent(tmp_path / "main", {"preset": "block", "num_players": players, "max_pip": pips})


def test_an_observation_scale_that_is_not_numbers_is_one_clear_error(good, tmp_path):
    _, _, metadata = good
    cfg = {**metadata["model_config"], "observation_scale": ["x"] * len(metadata["model_config"]["observation_scale"])}
    folder = _damaged(good, tmp_path, metadata={**metadata, "model_config": cfg})
    with pytest.raises(DominoError, match=re.escape(f"RLlib module {folder / MODULE}: its observation_scale is not numeric (")):
        load_rllib_agent(folder, RULES)


def test_a_run_left_mid_swap_plays_its_whole_copy_and_says_resume_repairs_it(good, tmp_path):
    """A crash between save_checkpoint's two renames leaves checkpoint.old/ (the earlier
    checkpoint) and checkpoint.saving/ (the new one, whole once its domino_rllib.json is written)
    and no checkpoint/: rllib:RUN said "no RLlib module 'main'", where --resume mends the swap.
    The loader plays the copy --resume would put in place, and says so in one warning."""
    import shutil

    folder, state, _ = good
    run = tmp_path / "run"
    shutil.copytree(folder, run)
    (run / "checkpoint").rename(run / "checkpoint.old")  # the first rename done, not the second
    (run / "checkpoint.saving" / MODULE.relative_to("checkpoint")).mkdir(parents=True)  # not written whole
    said = (f"{run}: a checkpoint swap was cut short (no checkpoint/; checkpoint.old/ and checkpoint.saving/ are "
            f"left): playing checkpoint.old/, the earlier checkpoint (no new one written whole in checkpoint.saving/); "
            f"the next `domino-rllib --resume {run}` puts it in place")  # fmt: skip
    with pytest.warns(UserWarning) as warned:
        earlier = load_rllib_agent(run, RULES)
    assert [str(w.message) for w in warned] == [said]
    np.testing.assert_array_equal(earlier.actor.layers[0][0], state[next(k for k in state if k.endswith("mlp.0.weight"))].T)
    # the new one was written whole (its domino_rllib.json, written last, is there): it is played
    doubled = {k: v * 2 for k, v in state.items()}
    (run / "checkpoint.saving" / MODULE.relative_to("checkpoint") / MODULE_STATE_FILE).write_bytes(pickle.dumps(doubled))
    shutil.copy(run / METADATA_FILE, run / "checkpoint.saving" / METADATA_FILE)
    with pytest.warns(UserWarning, match=re.escape("playing checkpoint.saving/, the new checkpoint written whole")):
        newer = load_rllib_agent(run, RULES)
    np.testing.assert_array_equal(newer.actor.layers[0][0], 2 * earlier.actor.layers[0][0])
    # only checkpoint.old/ left (the new one's folder not made yet): the warning names no other folder
    kept = run.parent / "kept"
    (run / "checkpoint.saving").rename(kept)
    with pytest.warns(UserWarning) as warned:
        load_rllib_agent(run, RULES)
    assert [str(w.message) for w in warned] == [
        f"{run}: a checkpoint swap was cut short (no checkpoint/; checkpoint.old/ is left): playing checkpoint.old/, "
        f"the earlier checkpoint (no new one written whole); the next `domino-rllib --resume {run}` puts it in place"]
    kept.rename(run / "checkpoint.saving")
    # through a command: the games are played, the warning is one line
    out = subprocess.run([sys.executable, "-m", "domino_env.train.evaluate", "--agents", f"rllib:{run}", "greedy",
                          "--players", "2", "--max-pip", "9", "--rounds", "2", "--no-progress"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert [line for line in out.stderr.splitlines() if "checkpoint swap was cut short" in line] != []
    assert "Traceback" not in out.stderr
    # the first checkpoint: no checkpoint.old/ (nothing to move aside), checkpoint.saving/ whole
    shutil.rmtree(run / "checkpoint.old")
    with pytest.warns(UserWarning) as warned:
        first = load_rllib_agent(run, RULES)
    assert [str(w.message) for w in warned] == [
        f"{run}: a checkpoint swap was cut short (no checkpoint/; checkpoint.saving/ is left): playing "
        f"checkpoint.saving/, the new checkpoint written whole; the next `domino-rllib --resume {run}` puts it in place"]
    np.testing.assert_array_equal(first.actor.layers[0][0], newer.actor.layers[0][0])
    (run / "checkpoint.saving" / METADATA_FILE).unlink()  # not written whole, and nothing earlier
    with pytest.raises(DominoError, match="no RLlib module .main."):
        load_rllib_agent(run, RULES)
