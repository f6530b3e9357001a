"""The v2 lack columns of the per-action features (``end_lacked``, ``next_lacks_end``) in a
Mexican Train elimination game, where seats that are out are skipped (docs/rules.md: "Seat i + 1
plays after seat i ...; in a Mexican Train elimination game the seats that are out are
skipped"): the share counts the seats still in play only, and "the next seat" is the next seat
in play, whose known lacks come from the engine's own state."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.agents.action_features import (
    ACTION_FEATURES_V2,
    END_FEATURES,
    FEATURES,
    ActionFeatures,
)
from domino_env.envs.mexican_train_v0 import raw_env


def test_lack_columns_skip_the_seats_that_are_out():
    env = raw_env(num_players=4, game_end="elimination", elimination_limit=30, episode="game")
    features = ActionFeatures(env.config, ACTION_FEATURES_V2)
    p, base = 4, len(FEATURES)
    col = {name: base + i for i, name in enumerate(END_FEATURES)}
    rows = skipped = next_lacks = shares = 0
    for episode in range(4):
        env.reset(seed=episode)
        rng = np.random.default_rng(episode)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            state, mask = env.game_state, obs["action_mask"]
            legal = np.flatnonzero(mask)
            seat = state.current_player
            if not all(state.active):
                f = features(obs["observation"], mask)
                in_play = [(seat + k) % p for k in range(1, p) if state.active[(seat + k) % p]]
                nxt = in_play[0]  # who plays next
                for a in legal[legal < state.draw_action]:
                    slot = int(a) % (p + 1)
                    after = state.copy()
                    after.apply(int(a))
                    end = after.ends[p if slot == p else (seat + slot) % p]
                    lacking = [o for o in in_play if state.missing[o] >> end & 1]
                    assert f[a, col["end_lacked"]] == pytest.approx(len(lacking) / len(in_play))
                    want = float(slot != 0 and nxt in lacking)
                    assert f[a, col["next_lacks_end"]] == want, (episode, seat, state.active, int(a))
                    rows += 1
                    shares += 0 < len(lacking) < len(in_play)
                    if not state.active[(seat + 1) % p]:
                        skipped += 1
                        next_lacks += want == 1
            env.step(int(legal[rng.integers(len(legal))]))
    # rows where the seat after this one is out and the next seat in play lacks the end
    assert rows > 300 and skipped > 100 and next_lacks > 5 and shares > 10
