"""The training metrics of ``domino-rllib`` (``main_win_rate``, ``main_return_mean`` in
progress.jsonl and the progress bar), from the callbacks fed the final infos of real games.

They used to read ``winners`` as a list of seats: it is padded with -1 (docs/infos.md), so a sole
winner got 1/P, and with teams the padding counted as a win of team 1; game episodes read the last
round's winners, not the game's."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.envs import line_v0, mexican_train_v0
from domino_env.train.rllib_config import MAIN, make_callbacks_class


class _Seat:
    def __init__(self, ret):
        self.ret = ret

    def get_return(self):
        return self.ret


class _Episode:
    """What the callback reads of RLlib's MultiAgentEpisode."""

    def __init__(self, infos, modules, returns):
        self.infos, self.modules = infos, modules
        self.agent_episodes = {a: _Seat(r) for a, r in returns.items()}

    def get_infos(self, index):
        assert index == -1
        return self.infos

    def module_for(self, agent):
        return self.modules[agent]


class _Logger:
    def __init__(self):
        self.values = {}

    def log_value(self, key, value, **kwargs):
        self.values[key] = value


def _final_infos(env, seed):
    """Play ``env`` with the first legal action to its end; the infos and rewards of its last step."""
    env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    infos = {}
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
        for a, r in env.rewards.items():
            returns[a] += r
        infos = {a: dict(i) for a, i in env.infos.items()} or infos
    return infos, returns


def _metrics(num_players, teams, infos, returns, mains, episode_kind="round"):
    callbacks = make_callbacks_class(num_players, teams, episode_kind=episode_kind)()
    modules = {a: (MAIN if a in mains else "opponent_greedy") for a in returns}
    logger = _Logger()
    callbacks.on_episode_end(episode=_Episode(infos, modules, returns), metrics_logger=logger)
    return logger.values


def test_a_sole_winner_counts_one_and_the_others_zero():
    env = mexican_train_v0.raw_env(num_players=4, max_pip=9)
    infos, returns = _final_infos(env, 0)
    winners = np.flatnonzero(infos["player_0"]["won"]).tolist()
    assert len(winners) == 1
    for seat in range(4):
        got = _metrics(4, False, infos, returns, [f"player_{seat}"])
        assert got["main_win_rate"] == (1.0 if seat in winners else 0.0)
        assert got["main_seat_return"] == returns[f"player_{seat}"] == (1.0 if seat in winners else -1 / 3)
    assert _metrics(4, False, infos, returns, list(returns))["main_win_rate"] == 0.25  # self-play: 1/P


def test_a_team_win_counts_for_both_partners_and_not_for_the_other_team():
    env = line_v0.raw_env(preset="cuban")
    infos, returns = _final_infos(env, 1)
    won = infos["player_0"]["won"]
    team = 0 if won[0] else 1
    assert won[team] and won[team + 2] and not won[1 - team]
    for seat in range(4):
        assert _metrics(4, True, infos, returns, [f"player_{seat}"])["main_win_rate"] == float(seat % 2 == team)


def test_a_game_episode_counts_the_game_not_its_last_round():
    for seed in range(40):  # a game whose last round another seat won than the game
        env = mexican_train_v0.raw_env(num_players=3, max_pip=9, episode="game")
        infos, returns = _final_infos(env, seed)
        info = infos["player_0"]
        if not np.array_equal(info["won"], info["game_won"]):
            break
    else:
        pytest.fail("no game in 40 whose last round and game winners differ")
    for seat in range(3):
        got = _metrics(3, False, infos, returns, [f"player_{seat}"], episode_kind="game")
        share = 1.0 / int(np.sum(info["game_won"]))
        assert got["main_win_rate"] == (share if info["game_won"][seat] else 0.0)


@pytest.mark.parametrize(
    "env_config, lineup",
    [
        ({"game": "cuban", "num_players": 4, "episode": "round", "reward": "outcome"}, ["M", "greedy", "M", "greedy"]),
        ({"game": "mexican_train", "num_players": 3, "max_pip": 9, "episode": "round", "reward": "outcome"},
         ["M", "greedy", "greedy"]),
    ],
    ids=["cuban_teams", "mexican_train"],
)  # fmt: skip
def test_the_final_evaluation_seats_the_model_on_one_team(monkeypatch, tmp_path, env_config, lineup):
    """With teams the model sat in seat 0 only, beside a scripted partner and against another
    copy of it: evaluate warned that its team win rate is 1/2 by construction, on every run."""
    import argparse
    import types

    import domino_env.train.evaluate as evaluate_module
    from domino_env.train.rllib import evaluate_checkpoint

    seen = []

    def fake_evaluate(agents, **kwargs):
        seen.append(list(agents))
        stats = types.SimpleNamespace(win_rate=0.5, ci95_deal=(0.4, 0.6), parity=0.5, verdict="level")
        return types.SimpleNamespace(stats_for=lambda label: stats, rounds_played=8)

    monkeypatch.setattr(evaluate_module, "evaluate", fake_evaluate)
    args = argparse.Namespace(eval_opponents=["greedy"], eval_rounds=8, seed=0, game=env_config["game"], progress=False)
    evaluate_checkpoint(tmp_path, args, env_config)
    assert seen == [[f"rllib:{tmp_path}" if a == "M" else a for a in lineup]]
