"""Readings of docs/rules.md that the independent Mexican Train referee (tests/referee) had to make
where the page was silent, now written into the docs (docs/rules.md §1.4-§1.7, §3; docs/state.md's
`phase`; docs/envs.md's `round_index`), each pinned here on a hand-built position.

Scenario notation as in ``mexican_train_seat_helpers``: moves name a train by its owner's seat,
"M" for the Mexican train; every deal uses the double-9 set, station 9-9.
"""

from __future__ import annotations

import numpy as np
import pytest
from mexican_train_seat_helpers import DRAW, PASS, M, act, deal, draw, expect, make, pass_, st

from domino_env.encoding.mexican_train import decode_observation
from domino_env.encoding.state import mexican_train_state_spec
from domino_env.envs.infos import Termination

PHASES = ("free", "cover_own_double", "second_double_or_cover", "extra_play_after_double")


def observed(env, agent: str) -> dict[str, np.ndarray]:
    s = st(env)
    return decode_observation(env.observe(agent)["observation"], s.num_players, s.config.max_pip)


def phase_of(env) -> str:
    f = observed(env, env.agent_selection)
    return PHASES[int(np.flatnonzero(f["phase"])[0])]


def test_a_deal_blocked_from_the_start_opens_with_the_first_seats_forced_pass():
    """§1.5: the block check runs after every action, not at the deal. Nobody holds a 9 and there
    is no boneyard: seat 0's only action is PASS, and that pass ends the round, blocked."""
    env = make(first_turn="any", use_boneyard=False)
    deal(env, [[(1, 2)], [(3, 4)]], [])
    assert not st(env).round_over
    expect(env, 0, {PASS})
    pass_(env)
    assert st(env).round_over
    assert env.infos["player_0"]["termination_code"] == Termination.BLOCKED
    assert list(env.infos["player_0"]["pips"]) == [3, 7]


def _double_double_after_first_double(drawn_tile: str):
    """s0 9-4 -> 0; s1 9-6 -> M; s0 4-4 -> 0 (a first double it cannot cover) and draws 6-6, which
    does not cover 4-4 but fits the Mexican train (open end 6) as a second double. Seat 1's 4-1
    can cover 4-4, which keeps the round going."""
    env = make(doubles="double_double", drawn_tile=drawn_tile, first_turn="any")
    deal(env, [[(9, 4), (4, 4), (1, 2)], [(9, 6), (4, 1), (2, 3)]], [(6, 6)])
    act(env, (9, 4), 0)
    act(env, (9, 6), M)
    act(env, (4, 4), 0)
    assert phase_of(env) == "second_double_or_cover"
    expect(env, 0, {DRAW})
    draw(env)
    return env


def test_double_double_may_play_keeps_a_drawn_double_that_fits_only_as_the_second_double():
    """§1.3 item 3 with §1.4 double_double: under "may_play" only a drawn tile that covers a double
    the player must cover has to be placed; 6-6 covers nothing, so it may be kept (PASS)."""
    env = _double_double_after_first_double("may_play")
    expect(env, 0, {((6, 6), M), PASS})
    pass_(env)
    assert (6, 6) in [tuple(sorted(t)) for t in st(env).hand_tiles(0)]
    expect(env, 1, {((4, 1), 0)})  # 4-4 (seat 0's train) obliges


def test_double_double_must_play_places_it_and_the_phase_reads_cover_own_double():
    """Under "must_play" the drawn 6-6 fits, so it is placed as the second double; the player then
    owes a tile covering one of its two doubles, which docs/state.md's `phase` names cover_own_double."""
    env = _double_double_after_first_double("must_play")
    expect(env, 0, {((6, 6), M)})
    act(env, (6, 6), M)
    assert phase_of(env) == "cover_own_double"
    expect(env, 0, {PASS})  # holds 1-2 only, and the boneyard is empty now
    pass_(env)
    expect(env, 1, {((4, 1), 0)})


@pytest.mark.parametrize(
    ("seat1_tile", "seat1_moves"),
    [((9, 2), None), ((4, 2), {((4, 2), 0)}), ((6, 2), {((6, 2), M)})],
)
def test_with_two_open_doubles_the_round_is_blocked_only_when_neither_can_be_covered(seat1_tile, seat1_moves):
    """§1.5 with §1.4 double_double, no boneyard: seat 0 places 4-4 (its train) and 6-6 (the
    Mexican train) and can cover neither, so PASS is its only action and the check looks at the
    position after it. Seat 1's 9-2 fits only its own train, which the open doubles close: nobody
    can ever place, and the round ends at the placement. A 4-2 or a 6-2 covers one of them (either
    counts): the round goes on, seat 0 passes and seat 1 must cover."""
    env = make(doubles="double_double", first_turn="any", use_boneyard=False)
    deal(env, [[(9, 4), (4, 4), (6, 6), (1, 1)], [(9, 6), (2, 3), seat1_tile]], [])
    act(env, (9, 4), 0)
    act(env, (9, 6), M)
    act(env, (4, 4), 0)
    act(env, (6, 6), M)
    if seat1_moves is None:  # seat 0's pass is its only action, and after it nobody can place
        assert st(env).round_over
        assert env.infos["player_0"]["termination_code"] == Termination.BLOCKED
    else:
        assert phase_of(env) == "cover_own_double"
        expect(env, 0, {PASS})
        pass_(env)
        assert phase_of(env) == "free"
        expect(env, 1, seat1_moves)


def test_round_index_after_the_last_round_is_the_ended_rounds():
    """docs/envs.md: `round_index` counts the rounds played before the current one; once the game's
    last round (station 0-0, the tenth of double-9) is over it keeps that round's index, 9, in
    the observation and in infos."""
    env = make(episode="game")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            last = (observed(env, agent)["round_index"][0], env.infos[agent]["round_index"])
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    assert st(env).game_over
    assert last == (9, 9)
    assert st(env).round_index == 9


def test_missing_pips_after_two_draws_in_one_turn_hold_what_the_last_draw_proves():
    """§3: a draw clears what a seat is known to lack (an unseen tile joined its hand). s0 9-5 -> 0,
    s1 9-6 -> 1; then seat 0 cannot place on 5 (its train) or 9 (the Mexican train), draws 5-5
    and places it (known again: it lacked 5 and 9), cannot cover 5-5, draws 0-1 and passes. The
    0-1 is unseen by seat 1 and might have held a 9, so seat 0 is known to lack only 5."""
    env = make(first_turn="any")
    deal(env, [[(9, 5), (1, 2), (3, 4)], [(9, 6), (6, 7), (2, 8)]], [(5, 5), (0, 1), (2, 2)])
    act(env, (9, 5), 0)
    act(env, (9, 6), 1)
    expect(env, 0, {DRAW})
    draw(env)
    act(env, (5, 5), 0)
    assert list(np.flatnonzero(observed(env, "player_1")["missing_pips"][0])) == [5, 9]
    expect(env, 0, {DRAW})
    draw(env)
    expect(env, 0, {PASS})
    pass_(env)
    assert list(np.flatnonzero(observed(env, "player_1")["missing_pips"][0])) == [5]


def test_highest_held_stations_start_a_new_pass_every_n_plus_1_rounds_in_elimination():
    """§1.6-1.7: with station_source="highest_held" a double is a station once per pass over
    N..0, and in an elimination game a new pass starts every N+1 rounds (the schedule's N..0,
    then from N again), whichever doubles served: within each pass of ten double-9 rounds the
    stations differ, and each pass's first round has only its own station in `stations_used`."""
    env = make(station_source="highest_held", game_end="elimination", elimination_limit=10**6, episode="game")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    spec = mexican_train_state_spec(2, 9)
    stations, used_at_start = [], []
    while st(env).round_index < 30:
        s = st(env)
        if len(stations) == s.round_index and not s.round_over:
            stations.append(s.station)
            used_at_start.append(sorted(np.flatnonzero(spec.decode(env.state())["stations_used"]).tolist()))
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    for start in (0, 10, 20):
        assert len(set(stations[start : start + 10])) == 10, stations
        assert used_at_start[start] == [stations[start]]
