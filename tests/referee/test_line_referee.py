"""Cross-check of the line games (block, draw, Cuban) against an independent referee.

``line_referee.py`` states docs/rules.md §2 (and §3's ``missing_pips``) from the documents alone;
``line_referee_driver.py`` plays seeded games of uniformly random legal moves in the env and compares
every step with it: the acting seat, the action mask, every observation, ``env.state()``, the
step rewards, ``infos`` and the round and game results. The cases cover every preset, seat
count, set, ``teams``, ``next_lead``, ``use_boneyard``, ``annul_doubles``, ``hand_size``,
``target_score``, both episodes and both rewards, and deals given through ``reset(options=...)``;
each case also asserts that the events it is there for happened (blocks, ties, annulments...).
"""

import pytest
from line_referee import BLOCKED, WENT_OUT, Referee, Rules
from line_referee_driver import play_episode

# (env kwargs, seeds, events that must occur across the seeds)
CASES = [
    (dict(preset="block"), 12, {"went_out", "blocked", "blocked_ties"}),
    (dict(preset="block", num_players=2, episode="game", target_score=60), 3, {"games_over"}),
    (dict(preset="block", num_players=3, episode="game", reward="points", target_score=50), 3,
     {"games_over"}),
    (dict(preset="block", teams=True, next_lead="winner", episode="game", target_score=120), 2,
     {"games_over", "blocked"}),
    (dict(preset="block", max_pip=9, hand_size=9, reward="points"), 8, {"went_out"}),
    (dict(preset="block", max_pip=12, num_players=3, hand_size=12, teams=False), 4, {"went_out"}),
    (dict(preset="draw"), 12, {"went_out", "draws", "blocked_with_boneyard"}),
    (dict(preset="draw", num_players=3, episode="game", target_score=80), 2, {"games_over"}),
    (dict(preset="draw", num_players=4, teams=True, episode="game", reward="points", target_score=100), 2,
     {"games_over"}),
    (dict(preset="draw", max_pip=9, num_players=4, next_lead="winner", episode="game",
          target_score=100), 2, {"games_over"}),
    (dict(preset="draw", max_pip=12, annul_doubles=2, episode="game", target_score=150), 2,
     {"annulled"}),
    (dict(preset="draw", max_pip=12, annul_doubles=1), 8, {"annulled", "annulled_after_draw"}),
    (dict(preset="draw", max_pip=12, hand_size=1), 12, {"lead_without_double"}),
    (dict(preset="cuban"), 10, {"went_out", "blocked"}),
    (dict(preset="cuban", episode="game", reward="points"), 2, {"games_over"}),
    (dict(preset="cuban", annul_doubles=2, episode="game", target_score=80), 3,
     {"annulled", "games_over"}),
    (dict(preset="cuban", teams=False, episode="game", target_score=100), 2,
     {"games_over"}),
    (dict(preset="cuban", num_players=2, teams=False, hand_size=7, annul_doubles=1), 6, {"annulled"}),
    (dict(preset="cuban", num_players=3, teams=False, use_boneyard=True, next_lead="next_seat",
          episode="game", target_score=60), 2, {"games_over"}),
    (dict(preset="cuban", annul_doubles=None, target_score=1, episode="game"), 4,
     {"games_over"}),
]


def _name(case):
    kw = case[0]
    return "-".join(f"{v}" if k == "preset" else f"{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("case", CASES, ids=[_name(c) for c in CASES])
def test_env_agrees_with_referee(case):
    kwargs, seeds, events = case
    stats: dict = {}
    for seed in range(seeds):
        play_episode(kwargs, seed, stats)  # the env's own seeded deals
        play_episode(kwargs, 1000 + seed, stats, given_deals=30)  # deals given in reset
    missing = sorted(e for e in events if not stats.get(e))
    assert not missing, f"the case never saw {missing}: {stats}"


HAND_MADE = [  # (kwargs, hands of the first deal): leads and blocks the random deals rarely make
    # no double dealt: 3-6 and 4-5 weigh 9, 3-6 has the higher pip and leads
    (dict(preset="block", num_players=2, hand_size=3), [[(4, 5), (0, 1), (1, 2)],
                                                        [(3, 6), (0, 2), (2, 6)]]),
    (dict(preset="block", num_players=2, hand_size=3), [[(3, 6), (0, 1), (1, 2)],
                                                        [(4, 5), (0, 2), (2, 6)]]),
    # blocked at once with equal pips: the leader (the 6-6's holder) wins the tie
    (dict(preset="block", num_players=2, hand_size=2), [[(0, 0), (1, 2)], [(6, 6), (0, 3)]]),
    (dict(preset="block", num_players=3, hand_size=2), [[(1, 2), (0, 0)], [(0, 1), (0, 2)],
                                                        [(6, 6), (0, 3)]]),
    # Cuban, teams: blocked at once, 3 + 6 against 3 + 6: the tie goes to the leader's team
    (dict(preset="cuban", hand_size=2), [[(0, 1), (0, 2)], [(0, 0), (1, 2)], [(9, 9), (1, 5)],
                                         [(1, 1), (0, 4)]]),
]


@pytest.mark.parametrize("kwargs, hands", HAND_MADE)
def test_env_agrees_with_referee_on_hand_made_deals(kwargs, hands):
    for seed in range(3):
        play_episode(kwargs, seed, deals=[{"hands": hands}])


def test_referee_reads_the_rules_examples():
    """A few positions from docs/rules.md §2.1, so the referee itself is pinned down."""
    ref = Referee(Rules.from_preset("block", num_players=2, hand_size=3))
    # no double dealt: the heaviest tile leads; 3-6 beats 4-5 (same weight, higher pip)
    ref.start_round([[(4, 5), (0, 1), (1, 2)], [(3, 6), (0, 2), (2, 6)]])
    assert (ref.leader, ref.forced_lead) == (1, (3, 6))
    assert ref.legal() == {2 * ref.index[(3, 6)]}
    ref.play(2 * ref.index[(3, 6)])
    assert (ref.left, ref.right) == (3, 6)  # lower pip left
    assert ref.legal() == {ref.PASS}  # seat 0 has no 3 or 6
    ref.play(ref.PASS)
    assert ref.missing[0] == {3, 6}
    # blocked at once: the tie rule and the winner's points
    ref = Referee(Rules.from_preset("block", num_players=2, hand_size=2))
    ref.start_round([[(0, 0), (1, 2)], [(6, 6), (0, 3)]])
    assert ref.leader == 1 and ref.forced_lead == (6, 6)
    res = ref.play(2 * ref.index[(6, 6)])
    assert res is not None and res.code == BLOCKED  # nothing left holds a 6
    # pips 3 against 3: the tie goes to the leader (seat 1), who scores the other hand
    assert (res.winners, res.points) == ([1], [0, 3])
    ref = Referee(Rules.from_preset("cuban"))
    ref.start_round([[(0, 0)], [(0, 1)], [(0, 2)], [(0, 3)]])  # one tile each
    res = ref.play(2 * ref.index[ref.forced_lead])
    # seat 0 goes out with 0-0: its team scores all four hands, its own included
    assert res.code == WENT_OUT and res.winners == [0, 2] and res.points == [6, 0, 6, 0]


def test_the_cases_set_every_config_field():
    """A new line-game rules field fails here until a case sets it (and the referee knows it)."""
    import dataclasses

    from domino_env.core.config import LineConfig

    names = {f.name for f in dataclasses.fields(LineConfig)}
    set_by_cases = {k for kwargs, _, _ in CASES for k in kwargs}
    assert names <= set_by_cases, names - set_by_cases
