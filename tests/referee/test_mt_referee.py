"""Cross-checks the Mexican Train env against an independent referee (``mt_referee``, written from
docs/rules.md §0-§1 without the engine's code): at every step of seeded games of uniformly random
legal players, the action mask equals the referee's legal set and the public state (trains, open
ends, markers, open doubles and their order, hands, boneyard, seat to act, turn phase, the pips
each seat is known to lack; the state and two observations) is the referee's; each deal follows
the setup rules (station, first player, hand sizes); at each round end the termination, winners, pips, points, game
totals and game end, and over the episode the rewards. The configs cover every preset, every value
of every rules field (docs/envs.md) and random combinations of them, 2 to 8 seats.

A much longer run of the same checks over random configs (every set size):
``python tests/referee/test_mt_referee.py [episodes]`` (``run_grid``).
"""

from __future__ import annotations

import random
import sys
import time

import pytest
from mt_referee import EVENTS
from mt_referee_driver import FIELD_VALUES, play, random_config, random_deal

from domino_env import ConfigError, DealError

# (field, value) cases: each value of each field, on the three presets in turn, 2..8 seats
VALUE_CASES = [
    (field, value)
    for field, values in FIELD_VALUES.items()
    for value in values
]


def _value_kwargs(i: int, field: str, value) -> dict:
    kw = {"preset": FIELD_VALUES["preset"][i % 3], "num_players": 2 + i % 7, "max_pip": 9}
    kw[field] = value
    if field == "use_boneyard" and value is False:
        kw["hand_size"] = 4  # hands that block, so that blocked rounds are met
    return kw


@pytest.mark.parametrize(("i", "case"), list(enumerate(VALUE_CASES)), ids=[f"{f}={v}" for f, v in VALUE_CASES])
def test_each_rules_value(i, case):
    field, value = case
    for seed in range(3):
        play(_value_kwargs(i, field, value), seed)


@pytest.mark.parametrize("preset", FIELD_VALUES["preset"])
def test_presets_whole_games(preset):
    """A whole game of each preset (elimination for tren_mexicano), outcome and points rewards."""
    for seed, reward in ((0, "outcome"), (1, "points")):
        play({"preset": preset, "num_players": 3 + seed, "max_pip": 9, "episode": "game",
              "reward": reward, "elimination_limit": 60, "max_steps": 4000}, seed)


def test_highest_held_second_pass_of_stations():
    """Elimination with stations held: the doubles used as stations start again after N + 1
    rounds (rules §1.6, §1.7)."""
    play({"preset": "novelty", "game_end": "elimination", "elimination_limit": 300, "max_pip": 9,
          "num_players": 2, "episode": "game", "hand_size": 5, "max_steps": 6000}, 2)


def test_everybody_out_together_rewards():
    """Elimination where every seat left crosses the limit in one round: the lowest total wins,
    and the outcome rewards of the knocked-out seats and the winners (docs/envs.md "Rewards")."""
    for seed in range(10):
        play({"game_end": "elimination", "elimination_limit": 1, "use_boneyard": False,
              "hand_size": 4, "max_pip": 9, "num_players": 3 + seed % 4, "episode": "game",
              "reward": "outcome"}, seed)


@pytest.mark.parametrize("doubles", FIELD_VALUES["doubles"])
def test_small_hands_doubles_and_blocks(doubles):
    """Small hands and short boneyards: blocked rounds, open doubles left uncovered, passes."""
    for seed in range(12):
        r = random.Random(seed)
        play({"num_players": r.randint(2, 8), "max_pip": 9, "hand_size": r.randint(2, 5),
              "doubles": doubles, "use_boneyard": seed % 3 != 0,
              "drawn_tile": ("must_play", "may_play")[seed % 2],
              "marker_removal": ("own_train_play", "next_turn")[seed // 2 % 2],
              "first_turn": ("own_train", "any")[seed // 4 % 2],
              "blocked_round": ("score", "void")[seed // 3 % 2],
              "episode": "game", "game_end": "elimination", "elimination_limit": 40,
              "max_steps": 3000}, 100 + seed)


def _grid(first: int, count: int, max_pips=(9, 12)) -> dict:
    done = {"episodes": 0, "rounds": 0, "steps": 0}
    for i in range(first, first + count):
        kw = random_config(random.Random(i), max_pips)
        try:
            got = play(kw, i, state_every=3)
        except ConfigError:
            continue  # hands that do not fit the set (the env refuses them, rules §1.1)
        done["episodes"] += 1
        done["rounds"] += got["rounds"]
        done["steps"] += got["steps"]
    return done


def test_random_combinations():
    done = _grid(0, 40)
    assert done["episodes"] >= 30


def test_given_positions():
    """Positions given to ``reset(options={"deal": ...})``: hands of 1 to 6 tiles of unequal
    sizes, short boneyards, any station, with or without a first player (docs/envs.md), then
    the rest of the game as dealt."""
    played = 0
    for i in range(20):
        r = random.Random(i)
        kw = random_config(r, (9, 12))
        try:
            play(kw, i, state_every=2, deal=random_deal(r, kw))
        except (ConfigError, DealError):
            continue  # a deal or config the env refuses (a hand left empty by its station...)
        played += 1
    assert played >= 16


# Rule situations that the cross-check must meet, so that a broken rule cannot hide behind an
# unexercised path (counted by the referee as it plays), and a few plays that meet them all.
MUST_MEET = [
    "pass", "pass_open_double", "may_play_kept", "cover_obliging", "cover_private_train",
    "marker_off_own_play", "marker_off_next_turn", "second_double", "third_tile_cover",
    "extra_play_chain", "extra_play_no_cover", "first_turn_own_train", "went_out",
    "went_out_on_double", "blocked", "blocked_mid_turn", "blocked_open_double",
    "station_skipped_or_late", "second_pass_of_stations", "round_after_block", "knocked_out",
    "everybody_out_together", "shared_round_win", "void_round", "second_pass_highest_held",
    "draw_for_owed_play_after_double", "drawn_double_placed", "drawn_second_double",
]
_SMALL = {"max_pip": 9, "episode": "game", "game_end": "elimination", "elimination_limit": 40,
          "max_steps": 3000}
SITUATION_PLAYS = [
    ({"preset": "novelty", "num_players": 2, "max_pip": 9, "marker_removal": "next_turn"}, 0),
    ({"preset": "tren_mexicano", "num_players": 6, "max_pip": 9, "hand_size_rule": "table"}, 0),
    ({"preset": "tren_mexicano", "num_players": 8, "max_pip": 9}, 0),
    ({"preset": "tren_mexicano", "num_players": 5, "max_pip": 9, "doubles": "no_cover"}, 0),
    ({"preset": "novelty", "num_players": 3, "max_pip": 9, "doubles": "double_double"}, 2),
    ({"doubles": "double_double", "max_pip": 9, "num_players": 2, "first_turn": "any", "hand_size": 4}, 0),
    ({**_SMALL, "num_players": 8, "hand_size": 2, "doubles": "no_cover", "use_boneyard": False,
      "marker_removal": "next_turn", "first_turn": "any"}, 106),
    ({**_SMALL, "num_players": 5, "hand_size": 4, "doubles": "chain", "use_boneyard": False,
      "drawn_tile": "may_play", "blocked_round": "void"}, 109),
    ({"game_end": "elimination", "elimination_limit": 1, "use_boneyard": False, "hand_size": 4,
      "max_pip": 9, "num_players": 3, "episode": "game"}, 8),
    ({"preset": "novelty", "game_end": "elimination", "elimination_limit": 300, "max_pip": 9,
      "num_players": 2, "episode": "game", "hand_size": 5, "max_steps": 6000}, 2),
]


def test_rule_situations_are_met():
    """The plays above (most of them cases of the tests above) meet every situation of
    ``MUST_MEET``; they run here, as pytest-xdist may run the other tests in other processes."""
    EVENTS.clear()
    for kwargs, seed in SITUATION_PLAYS:
        play(kwargs, seed)
    missing = [e for e in MUST_MEET if EVENTS[e] == 0]
    assert not missing, f"never met: {missing}; met {dict(EVENTS)}"


def run_grid(episodes: int) -> None:
    """The long cross-check: ``episodes`` random configs (every set size), printing totals."""
    start = time.time()
    done = _grid(10_000, episodes, (9, 12, 15, 18))
    print(done, f"{time.time() - start:.0f} s", dict(EVENTS))


if __name__ == "__main__":
    run_grid(int(sys.argv[1]) if len(sys.argv) > 1 else 500)


def test_the_referee_is_driven_over_every_config_field():
    """A new rules field fails here until its values are in ``FIELD_VALUES`` and the referee
    knows the rule (docs/design.md, "Adding a rule variant"); the other fields are drawn by
    ``random_config`` itself."""
    import dataclasses

    from domino_env.core.config import MexicanTrainConfig

    drawn_apart = {"num_players", "max_pip", "hand_size", "elimination_limit", "first_player"}
    names = {f.name for f in dataclasses.fields(MexicanTrainConfig)}
    assert names == set(FIELD_VALUES) | drawn_apart, names ^ (set(FIELD_VALUES) | drawn_apart)
