"""``load_ppo_agent`` and ``check_compatible`` on the released models and hand-edited metadata
(found by mutation testing): the messages in full, which rule differences warn (and where the
warning points), and the released networks' logits through numpy equal to torch's."""

from __future__ import annotations

import json
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from domino_env.agents import make_agent
from domino_env.agents.base import as_config
from domino_env.agents.ppo import (
    PPOAgent,
    RulesMismatchWarning,
    SpecMismatchError,
    check_compatible,
    load_metadata,
    load_ppo_agent,
    observation_scale,
    spec_for,
)
from domino_env.core.errors import AgentSpecError, CheckpointError

ROOT = Path(__file__).resolve().parents[2]
MT = ROOT / "checkpoints" / "mexican_train_4p_d12"
MT_SCORES = ROOT / "checkpoints" / "mexican_train_4p_d12_action_scores"
CUBAN = ROOT / "checkpoints" / "cuban_4p_teams"


def _meta(folder: Path) -> dict:
    return json.loads((folder / "metadata.json").read_text())


def test_another_seat_count_and_set_are_named_with_both_specs():
    with pytest.raises(SpecMismatchError) as info:
        check_compatible(_meta(MT), as_config({"num_players": 3, "max_pip": 9}), where="start model",
                         trainer="domino-bc")  # fmt: skip
    assert str(info.value) == (
        f"start model was trained on observation spec {spec_for(4, 12).hash()} (4 players, double-12, 449 floats) "
        f"but this environment (3 players, double-9, 283 floats) has spec {spec_for(3, 9).hash()}; differs in: "
        "num_players 4 vs 3, max_pip 12 vs 9, observation size 449 vs 283. Use a model trained for this game, "
        "seats and set (domino-bc --game G --players P --max-pip N)."
    )


def test_a_model_that_names_no_game_is_checked_by_its_spec_only():
    """No ``game`` nor ``env_id``: not refused as the other family, but by its layout (the game
    is then not among the differences)."""
    meta = {k: v for k, v in _meta(MT).items() if k not in ("game", "env_id")}
    with pytest.raises(SpecMismatchError, match=r"differs in: max_pip 12 vs 9, observation size 449 vs 184\. Use"):
        check_compatible(meta, as_config({"preset": "cuban"}))
    meta = {k: v for k, v in _meta(CUBAN).items() if k not in ("game", "env_id")}
    check_compatible(meta, as_config({"preset": "cuban"}))  # its own rules: nothing to say
    with pytest.raises(SpecMismatchError, match=r"uses observation scaling 'line-unit-v1'; this loader applies 'unit-v1'$"):
        check_compatible({**meta, "observation_spec_hash": spec_for(4, 9).hash()}, as_config({"num_players": 4, "max_pip": 9}))


def _check(meta, config):
    check_compatible(meta, config)  # stacklevel 3: the warning points at _check's caller


def test_other_rules_warn_naming_each_difference_at_the_callers_line():
    config = as_config({"num_players": 4, "max_pip": 12, "doubles": "chain", "first_player": 2,
                        "blocked_round": "score"})  # fmt: skip
    meta = _meta(MT)
    meta["env_kwargs"] = {**meta["env_kwargs"], "drawn_tile": "may_play"}
    del meta["env_kwargs"]["use_mexican_train"]  # a rule the model did not record: no difference
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        _check(meta, config)
    assert [str(w.message) for w in caught] == [
        "model was trained with other rules (trained vs now): doubles='satisfy' vs 'chain', "
        "drawn_tile='may_play' vs 'must_play'"
    ]  # first_player (None vs 2) is not a rule of the layout's game: no word
    assert caught[0].category is RulesMismatchWarning
    assert caught[0].filename == __file__ and caught[0].lineno == line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_compatible(_meta(MT), as_config({"num_players": 4, "max_pip": 12, "first_player": 1}))


@pytest.mark.parametrize("game", ["draw", "block"])
def test_a_cuban_model_plays_another_line_game_of_its_layout_after_a_warning(game):
    """docs/training.md: another line game of the same seats and set keeps the observation layout,
    so a Cuban model loads with a warning naming the rules that differ; another set is refused."""
    from domino_env.agents.ppo import SpecMismatchError

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent = make_agent(f"ppo:{CUBAN}", as_config({"preset": game, "num_players": 4, "max_pip": 9}))
    assert callable(agent)
    (message,) = [str(w.message) for w in caught if w.category is RulesMismatchWarning]
    for rule in (f"preset='cuban' vs '{game}'", "teams=True vs False", "hand_size=10 vs 7"):
        assert rule in message, rule
    assert ("use_boneyard=False vs True" in message) == (game == "draw")  # block has none either
    with pytest.raises(SpecMismatchError, match="max_pip 9 vs 6"):
        make_agent(f"ppo:{CUBAN}", as_config({"preset": game, "num_players": 4, "max_pip": 6}))


def test_unknown_policy_input_in_metadata_is_refused_after_the_spec_check(tmp_path):
    import shutil

    folder = tmp_path / "m"
    shutil.copytree(CUBAN, folder)
    (folder / "metadata.json").write_text(json.dumps({**_meta(CUBAN), "policy_input": "action-features-v9"}))
    with pytest.raises(CheckpointError) as info:
        load_ppo_agent(folder, {"preset": "cuban"})
    assert str(info.value) == (f"{folder / 'model.zip'}: metadata names policy_input 'action-features-v9'; this "
                               "version knows ('observation', 'action-features-v1', 'action-features-v2', "
                               "'action-features-v3')")  # fmt: skip


def test_ppo_without_a_path_is_an_agent_spec_error():
    for game in ({}, {"preset": "cuban"}):  # registered for both families
        with pytest.raises(AgentSpecError, match=r"ppo:PATH \(the ppo agent needs a model path"):
            make_agent("ppo", game)


def _torch_logits(policy, x):
    with torch.no_grad():
        t = torch.as_tensor(x[None])
        return policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(t, policy.pi_features_extractor)))[0].numpy()


@pytest.mark.parametrize("folder, rules", [(MT, {"num_players": 4, "max_pip": 12}), (MT_SCORES, {"num_players": 4, "max_pip": 12}),
                                           (CUBAN, {"preset": "cuban"})])  # fmt: skip
def test_a_released_model_plays_torch_free_with_torchs_logits(folder, rules):
    from sb3_contrib import MaskablePPO

    from domino_env.envs.cuban_v0 import raw_env as cuban_env
    from domino_env.envs.mexican_train_v0 import raw_env as mt_env

    model = MaskablePPO.load(folder / "model.zip", device="cpu")
    agent = load_ppo_agent(folder, rules, deterministic=False, name="x")
    assert (agent.name, agent.deterministic, agent.metadata) == ("x", False, _meta(folder))
    assert agent.num_actions == model.action_space.n
    game = "mexican_train" if "preset" not in rules else "line"
    env = (mt_env if game == "mexican_train" else cuban_env)(**{k: v for k, v in rules.items() if k != "preset"})
    env.reset(seed=4)
    scale = observation_scale(env.config.num_players, env.config.max_pip, game)
    np.testing.assert_array_equal(agent.scale, scale)
    rng = np.random.default_rng(0)
    for _ in range(12):
        obs = env.observe(env.agent_selection)
        x, mask = obs["observation"], obs["action_mask"]
        net_in = agent.policy_input(x, mask)
        assert net_in.shape == model.observation_space.shape
        np.testing.assert_allclose(net_in[: len(scale)], x * scale, rtol=1e-6)
        legal = np.flatnonzero(mask)
        np.testing.assert_allclose(agent.actor.logits(net_in)[legal], _torch_logits(model.policy, net_in)[legal],
                                   rtol=1e-4, atol=1e-4)  # fmt: skip
        env.step(agent(x, mask, rng))


def test_from_policy_picks_the_feature_version_and_default_rules():
    from sb3_contrib import MaskablePPO

    policy = MaskablePPO.load(MT_SCORES / "model.zip", device="cpu").policy
    agent = PPOAgent.from_policy(policy, 4, 12)
    assert agent.policy_input.kind == "action-features-v1" and agent.policy_input.size == policy.observation_space.shape[0]
    line_policy = MaskablePPO.load(ROOT / "checkpoints" / "cuban_4p_teams_action_scores" / "model.zip", device="cpu").policy
    with pytest.raises(ValueError, match="an action-scores policy of a line game needs the rules: pass config="):
        PPOAgent.from_policy(line_policy, 4, 9, "cuban")
    agent = PPOAgent.from_policy(line_policy, 4, 9, "cuban", config=as_config({"preset": "cuban"}))
    assert agent.policy_input.kind == "action-features-v1"
    assert PPOAgent.from_policy(MaskablePPO.load(MT / "model.zip", device="cpu").policy, 4, 12).policy_input.kind == "observation"


def test_the_critic_only_inputs_count_in_the_models_input_size(monkeypatch):
    """A --critic-input full-state model takes the observation, the feature rows and then
    ``critic_extra`` values only its critic reads: the loader counts them in the input size it
    checks (the model here is the release with its extractor's ``critic_extra`` set)."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(MT_SCORES / "model.zip", device="cpu")
    size = model.observation_space.shape[0]
    model.policy.mlp_extractor.critic_extra = 7
    monkeypatch.setattr(MaskablePPO, "load", lambda *args, **kwargs: model)
    rules = {"num_players": 4, "max_pip": 12}
    model.observation_space = gym.spaces.Box(-np.inf, np.inf, (size + 7,), np.float32)
    agent = load_ppo_agent(MT_SCORES, rules)
    assert agent.policy_input.size == size  # the actor reads no critic input
    model.observation_space = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)
    with pytest.raises(SpecMismatchError, match=rf"takes network inputs of shape \({size},\), but its metadata's "
                       rf"policy_input 'action-features-v1' gives \({size + 7},\) here"):  # fmt: skip
        load_ppo_agent(MT_SCORES, rules)


@pytest.mark.parametrize(
    ("release", "config", "edit", "message"),
    [
        (MT_SCORES, {}, {"doubles": "foo"}, "its env_kwargs are not valid rules (invalid config field 'doubles': "
         "got 'foo'; allowed: one of ('satisfy', 'double_double', 'chain', 'no_cover'))"),
        (MT_SCORES, {}, {"num_players": 3}, "env_kwargs num_players=3, but its observation spec hash is that of 4 "
         "(the hash fixes the seats and the set)"),
        (MT_SCORES, {}, {"max_pip": 9}, "env_kwargs max_pip=9, but its observation spec hash is that of 12 "
         "(the hash fixes the seats and the set)"),
        (CUBAN, {"preset": "cuban"}, {"next_lead": "left"}, "its env_kwargs are not valid rules (invalid config "
         "field 'next_lead': got 'left'; allowed: "),
        (CUBAN, {"preset": "cuban"}, {"num_players": "4"}, "its env_kwargs are not valid rules (invalid config "
         "field 'num_players': got '4'; allowed: "),
    ],
)  # fmt: skip
def test_metadata_rules_that_are_not_rules_or_contradict_the_spec_hash_are_corrupt(release, config, edit, message, tmp_path):
    """A hand-edited or damaged ``env_kwargs`` used to load with a warning (``doubles='foo'``) or
    with none: the hash fixes seats and set, and a rule no env accepts cannot be what it learned."""
    meta = _meta(release)
    meta["env_kwargs"] = {**meta["env_kwargs"], **edit}
    with pytest.raises(CheckpointError) as info:
        check_compatible(meta, as_config(config), where="model M")
    assert str(info.value).startswith(f"model M: corrupt metadata.json: {message}"), str(info.value)
    (tmp_path / "metadata.json").write_text(json.dumps(meta))
    (tmp_path / "model.zip").write_bytes((release / "model.zip").read_bytes())
    with pytest.raises(CheckpointError, match="corrupt metadata.json"):
        load_ppo_agent(tmp_path, as_config(config))
    # a rule the model did not record is not checked: older metadata lists fewer fields
    meta["env_kwargs"] = {k: v for k, v in meta["env_kwargs"].items() if k not in edit}
    check_compatible(meta, as_config(config))


@pytest.mark.parametrize(("text", "kind"), [("null", "null"), ("7", "a number"), ('"x"', "a string"), ("true", "true/false"), ("[]", "a list")])
def test_metadata_that_is_not_an_object_names_its_json_kind(text, kind, tmp_path):
    (tmp_path / "metadata.json").write_text(text)
    with pytest.raises(CheckpointError, match=rf"metadata.json: a JSON object expected, got {re.escape(kind)}$"):
        load_metadata(tmp_path / "metadata.json")


def test_metadata_trimmed_to_fewer_rules_reads_them_over_its_preset():
    """The metadata's rules are read with ``from_dict``, which now starts from the dict's preset:
    a Cuban model's env_kwargs without ``max_pip`` were checked as the block game's double-6 with
    the Cuban 10-tile hands, and the model refused as corrupt metadata."""
    meta = _meta(CUBAN)
    meta["env_kwargs"] = {k: v for k, v in meta["env_kwargs"].items() if k != "max_pip"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the preset's rules are the wanted ones: nothing differs
        check_compatible(meta, as_config({"preset": "cuban"}))
    meta["env_kwargs"]["teams"] = "yes"  # still checked
    with pytest.raises(CheckpointError, match=r"not valid rules \(invalid config field 'teams': got 'yes'"):
        check_compatible(meta, as_config({"preset": "cuban"}))
