"""``--critic-input full-state`` (``LearnerEnv(critic_input="full-state")``): the training env
appends the other hands and the boneyard to the network input, the critic reads them and the
actor does not, and the trained model still plays from the observation alone (``ppo:PATH``)."""

import json

import numpy as np
import pytest
import torch
from bc_helpers import run_module
from ppo_helpers import SMALL, run_ppo

from domino_env.agents import make_agent
from domino_env.agents.action_scorer import NumpyActionScorer
from domino_env.core.errors import ConfigError
from domino_env.core.tiles import tile_count
from domino_env.train.action_policy import ActionScoringNet
from domino_env.train.learner_env import LearnerEnv, full_state_input, full_state_size
from domino_env.train.tournament import evaluate

MT = {"num_players": 4, "max_pip": 12}
FEATURES = "action-features-v1"


def _bits(mask):
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _rows(env):
    """(state, acting learner seat, the full-state rows as a (P, tiles) array) of a LearnerEnv."""
    adapter = env.unwrapped
    state, seat = adapter.aec.game_state, adapter.learner_seat
    rows = full_state_input(state, seat).reshape(len(state.hands), state.num_tiles)
    return state, seat, rows


@pytest.mark.parametrize("game, env_kwargs", [("mexican_train", MT), ("cuban", {})], ids=["mexican-train", "cuban"])
def test_the_rows_are_the_hands_after_the_seat_in_turn_order_then_the_boneyard(game, env_kwargs):
    env = LearnerEnv(env_kwargs, ["greedy"], game=game, reward="outcome", policy_input=FEATURES,
                     critic_input="full-state", learner_seat=1)  # fmt: skip
    rng = np.random.default_rng(0)
    env.reset(seed=3)
    checked = 0
    for _ in range(12):
        state, seat, rows = _rows(env)
        p = len(state.hands)
        assert rows.shape == (p, state.num_tiles) and seat == 1
        for k in range(1, p):
            assert np.flatnonzero(rows[k - 1]).tolist() == _bits(state.hands[(seat + k) % p])
        assert np.flatnonzero(rows[p - 1]).tolist() == sorted(state.boneyard)
        assert not rows[:, _bits(state.hands[seat])].any()  # never the seat's own tiles
        # the same as the env's global state (docs/state.md), rotated to the seat, ranks as flags
        fields = env.unwrapped.aec.state_encoder.decode(env.unwrapped.aec.state())
        assert np.array_equal(rows[: p - 1], np.roll(fields["hands"], -seat, axis=0)[1:])
        assert np.array_equal(rows[p - 1], fields["boneyard"] > 0)
        checked += rows.sum() > 0
        mask = env.action_masks()
        _, _, done, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if done or trunc:
            env.reset(seed=int(rng.integers(1000)))
    assert checked == 12


@pytest.mark.parametrize(
    "game, kwargs",
    [("mexican_train", {"env_kwargs": MT, "opponents": ["planner", "greedy"]}),
     ("cuban", {"env_kwargs": {}, "opponents": ["planner"], "reward": "outcome", "partner": "learner"})],
    ids=["mexican-train", "cuban-team-play"],
)  # fmt: skip
def test_the_network_input_is_the_actors_input_then_the_hidden_tiles_of_the_acting_seat(game, kwargs):
    """The same episodes with and without the option: the front of the input is unchanged, the
    tail is the full state seen from the seat that acts now (with team play, either seat)."""
    plain = LearnerEnv(game=game, policy_input=FEATURES, **kwargs)
    full = LearnerEnv(game=game, policy_input=FEATURES, critic_input="full-state", **kwargs)
    cfg = plain.unwrapped.aec.config
    extra = full_state_size(cfg.num_players, tile_count(cfg.max_pip))
    assert full.critic_extra == extra and plain.critic_extra == 0
    assert full.observation_space.shape == (plain.observation_space.shape[0] + extra,)
    planner = make_agent("planner", cfg)
    seats = set()
    for seed in range(3):
        x, _ = plain.reset(seed=seed)
        y, _ = full.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = False
        while not done:
            assert np.array_equal(y[: len(x)], x)
            _, seat, rows = _rows(full)
            seats.add(seat)
            assert np.array_equal(y[len(x):], rows.ravel())
            action = int(planner(plain.raw_observation, plain.action_masks(), rng))
            x, _, done, _, _ = plain.step(action)
            y, _, done_full, _, _ = full.step(action)
            assert done_full == done
    if game == "cuban":
        assert len({s % 2 for s in seats}) == 1 and len(seats) == 2  # both seats of the team


def test_a_flat_policy_or_an_unknown_critic_input_is_refused():
    with pytest.raises(ConfigError, match="'observation' with --policy mlp"):
        LearnerEnv(MT, ["greedy"], critic_input="full-state")  # the mlp actor would read the hands
    with pytest.raises(ConfigError, match="critic_input"):
        LearnerEnv(MT, ["greedy"], policy_input=FEATURES, critic_input="hands")


def test_the_actor_ignores_the_hidden_tiles_and_the_critic_reads_them():
    torch.manual_seed(0)
    obs, a, f, extra = 7, 5, 3, 11
    net = ActionScoringNet(obs, a, f, context=4, hidden=(6, 6), vf_arch=(8,), critic_extra=extra)
    torch.nn.init.normal_(net.out.weight)  # not the near-zero start, so the logits differ by action
    x = torch.randn(4, obs + a * f + extra)
    y = x.clone()
    y[:, obs + a * f :] = torch.randn(4, extra)
    assert torch.equal(net.forward_actor(x), net.forward_actor(y))
    assert not torch.allclose(net.forward_critic(x), net.forward_critic(y))
    # what plays (torch-free) takes the actor's part of the input only, and scores alike
    scorer = NumpyActionScorer(net.export_numpy())
    for row in range(4):
        want = net.forward_actor(x[row : row + 1]).detach().numpy()[0]
        got = scorer.logits(x[row, : obs + a * f].numpy())
        assert np.allclose(got, want, atol=1e-5)


def _train(*args):
    return run_ppo([*SMALL, "--n-envs", "1", *args])


def test_a_full_state_critic_run_plays_through_ppo_path_and_its_critic_input_is_kept(tmp_path):
    run = tmp_path / "run"
    res = _train("--critic-input", "full-state", "--timesteps", "128", "--out", str(run))
    assert res.returncode == 0, res.stderr
    meta = json.loads((run / "metadata.json").read_text())
    assert meta["critic_input"] == "full-state" and meta["args"]["critic_input"] == "full-state"
    config = {"num_players": 2, "max_pip": 9}
    agent = make_agent(f"ppo:{run}", config)  # the loader accounts for the critic's extra inputs
    result = evaluate([agent, "greedy"], rounds=4, seed=0, **config)
    assert result.stats_for(agent.name).seat_episodes == 4
    # --resume and --init-from keep the model's critic input; another one is refused up front
    for flag in ("--resume", "--init-from"):
        out = tmp_path / f"bad{flag}"
        res = _train(flag, str(run), "--critic-input", "observation", "--timesteps", "64", "--out", str(out))
        assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
        assert "--critic-input full-state" in res.stderr and not out.exists()
    res = _train("--init-from", str(run), "--policy", "mlp", "--timesteps", "64", "--out", str(tmp_path / "mlp"))
    assert res.returncode == 2 and "the model has --policy action-scores, this command mlp" in res.stderr
    bc = run_module("train.bc", ["--init-from", str(run), "--samples", "0", "--dagger-iters", "1",
                                 "--players", "2", "--max-pip", "9", "--out", str(tmp_path / "bc")])  # fmt: skip
    assert bc.returncode == 2 and "trained with --critic-input full-state; domino-bc fine-tunes" in bc.stderr
    assert not (tmp_path / "bc").exists()
    more = tmp_path / "more"
    res = _train("--resume", str(run), "--timesteps", "64", "--out", str(more))
    assert res.returncode == 0, res.stderr
    assert json.loads((more / "metadata.json").read_text())["critic_input"] == "full-state"
    # a model from before the option (no critic_input in its metadata) reads the observation
    plain = tmp_path / "plain"
    assert _train("--timesteps", "64", "--out", str(plain)).returncode == 0
    meta = json.loads((plain / "metadata.json").read_text())
    assert meta["critic_input"] == "observation"
    for key in (meta, meta["args"]):
        del key["critic_input"]
    (plain / "metadata.json").write_text(json.dumps(meta))
    res = _train("--resume", str(plain), "--critic-input", "full-state", "--timesteps", "64",
                 "--out", str(tmp_path / "bad-old"))  # fmt: skip
    assert res.returncode == 2 and "--critic-input observation" in res.stderr, res.stderr
