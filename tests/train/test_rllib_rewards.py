"""Turn-based rewards through RLlib (issue 10, item 3): the return RLlib records for each agent of
an episode equals what the PettingZoo env gave that agent, and so do the final infos'
``episode_returns`` (per seat; test_rllib_metrics.py covers a seat that never acted, which RLlib's
episode leaves out).

Episodes are sampled by RLlib's own ``MultiAgentEnvRunner`` (the masked PPO module and scripted
modules from train.rllib's config). Each finished episode's record (deals and actions, kept by
``DominoMultiAgentEnv(keep_records=True)``) is replayed in a fresh raw PettingZoo env with the
standard ``agent_iter()`` / ``last()`` loop, summing every reward it hands each agent. The cases
cover a seat that did not make the last move getting its final reward, rewards arriving mid-episode
for seats that are not acting (whole games, ``reward="points"``), team rewards (Cuban), an agent
acting several times in a row (a draw then a play, a double then its cover), and a seat leaving a
game before the others (elimination); the test asserts that these did occur.
"""

from collections import defaultdict

import pytest
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

from domino_env.agents.rllib.env import make_aec
from domino_env.train.rllib import ppo_config

CASES = {
    "mexican_train_round_outcome": (
        {"game": "mexican_train", "num_players": 2, "max_pip": 9}, "opponents", 6),
    "mexican_train_game_points": (
        {"game": "mexican_train", "num_players": 3, "max_pip": 9, "episode": "game",
         "reward": "points"}, "self-play", 1),
    "mexican_train_elimination": (
        {"game": "mexican_train", "num_players": 3, "max_pip": 9, "episode": "game",
         "game_end": "elimination", "elimination_limit": 40}, "opponents", 1),
    "cuban_teams_points": (
        {"game": "cuban", "num_players": 4, "episode": "round", "reward": "points"}, "opponents", 6),
    "draw_game_outcome": (
        {"game": "draw", "num_players": 2, "episode": "game", "target_score": 50}, "self-play", 2),
}  # fmt: skip


def replay(record, game):
    """Replay a record in a raw PettingZoo env: per agent, the sum of the rewards ``last()`` gave
    it, its actions in order, and the agent order of the live steps; None for an episode cut
    short by an illegal action (RLlib's env pre-check steps one random action)."""
    kwargs = dict(record["env_kwargs"])
    env = make_aec(game, **kwargs)
    env.reset(options={"deals": record["deals"]})
    actions = list(record["actions"])
    returns, per_agent, order, left = defaultdict(float), defaultdict(list), [], {}
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        if terminated or truncated:
            left[agent] = len(order)  # live steps played when the agent left
            env.step(None)
            continue
        if not actions:
            return None
        action = actions.pop(0)
        per_agent[agent].append(action)
        order.append(agent)
        env.step(action)
    assert not actions, "the record has actions left after the episode ended"
    early = any(n < len(order) for n in left.values())  # someone left while others played on
    return dict(returns), dict(per_agent), order, early


def sample(env_config, mode, episodes, seed=5):
    config = ppo_config(
        {**env_config, "keep_records": True}, mode=mode,
        opponents=["random", "greedy"] if mode == "opponents" else [], hidden=[16], seed=seed,
    )  # fmt: skip
    runner = MultiAgentEnvRunner(config=config)
    try:
        done = runner.sample(num_episodes=episodes, random_actions=False)
        records = list(runner.env.envs[0].unwrapped.records)
    finally:
        runner.stop()
    return [e for e in done if e.is_done], records


@pytest.mark.parametrize("case", sorted(CASES))
def test_rllib_returns_equal_pettingzoo_rewards(case):
    env_config, mode, n = CASES[case]
    wanted = ["nonzero_final_of_non_mover"]  # the properties this test exists for
    if env_config["game"] == "mexican_train":
        wanted.append("repeat_turns")  # a draw then a play, or a double then its cover
    if env_config.get("game_end") == "elimination":
        wanted.append("early_exit")  # an eliminated seat left before the game ended
    for seed in range(5, 12):  # seeds until a sample holds them all (seed 5 does; an upgrade may move it)
        seen = _check_sample(case, env_config, mode, n, seed)
        if all(seen[k] for k in wanted):
            break
    assert all(seen[k] > 0 for k in wanted), seen


def _check_sample(case, env_config, mode, n, seed):
    """RLlib's returns and final infos of ``n`` sampled episodes against the records' replays;
    how often each property of interest came up."""
    episodes, records = sample(env_config, mode, n, seed)
    assert len(episodes) >= n
    replays = [x for x in (replay(r, env_config["game"]) for r in records) if x is not None]
    by_actions = {
        tuple(sorted((a, tuple(v)) for a, v in per_agent.items())): (ret, order, early)
        for ret, per_agent, order, early in replays
    }
    seen = {"nonzero_final_of_non_mover": 0, "repeat_turns": 0, "early_exit": 0}
    for ep in episodes:
        key = tuple(
            sorted((a, tuple(int(x) for x in ae.get_actions())) for a, ae in ep.agent_episodes.items())
        )
        assert key in by_actions, "an RLlib episode with no matching env record"
        expected, order, early = by_actions[key]
        got = {a: float(ae.get_return()) for a, ae in ep.agent_episodes.items()}
        assert set(got) == set(expected)
        for agent, value in expected.items():
            assert got[agent] == pytest.approx(value, abs=1e-9), (case, agent, got, expected)
        # the final infos' per-seat returns (the training metrics read them): the same sums
        final = next(i for i in ep.get_infos(-1).values() if i)
        seats = [f"player_{s}" for s in range(len(final["episode_returns"]))]
        assert set(seats) == set(expected), case
        assert final["episode_returns"].tolist() == pytest.approx([expected[a] for a in seats], abs=1e-9), case
        last_mover = order[-1]
        seen["nonzero_final_of_non_mover"] += any(
            expected[a] != 0 for a in expected if a != last_mover
        )
        seen["repeat_turns"] += any(x == y for x, y in zip(order, order[1:], strict=False))
        seen["early_exit"] += early
    return seen
