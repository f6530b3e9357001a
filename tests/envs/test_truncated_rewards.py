"""What an episode truncated by ``max_cycles`` / ``max_steps`` pays (docs/envs.md, Rewards)."""

from __future__ import annotations

import pytest

from domino_env.envs import mexican_train_v0

ELIMINATION = {"num_players": 3, "max_pip": 9, "preset": "tren_mexicano", "episode": "game", "elimination_limit": 30}


def _totals(env) -> dict[str, float]:
    """Each agent's rewards over the episode, playing the first legal action."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else env.unwrapped.game_state.legal_actions()[0])
    return totals


@pytest.mark.parametrize("max_steps, knocked_out", [(None, False), (41, True), (38, False)])
def test_an_outcome_elimination_game_truncated_after_a_knockout_is_not_zero_sum(max_steps, knocked_out):
    """Seed 1: seat 1 is knocked out at the 39th action and the game goes on. Played out, the
    game is zero-sum; truncated after the knockout, seat 1 keeps its -1/(P-1) and the others get
    nothing; truncated before it (38 actions), nobody gets anything."""
    env = mexican_train_v0.env(**ELIMINATION, max_steps=max_steps)
    env.reset(seed=1)
    totals = _totals(env)
    if max_steps is None:
        assert sum(totals.values()) == pytest.approx(0.0) and max(totals.values()) > 0
    elif knocked_out:
        assert totals == {"player_0": 0.0, "player_1": -0.5, "player_2": 0.0}
    else:
        assert totals == dict.fromkeys(env.possible_agents, 0.0)
