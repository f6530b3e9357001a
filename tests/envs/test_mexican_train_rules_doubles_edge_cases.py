"""Hand-built scenario tests for Mexican Train doubles edge cases (docs/rules.md §1.4): draws
inside double obligations, the targets of a second double, an open double nobody can cover.

Source of truth, contract and notation: the docstring of ``mexican_train_seat_helpers``.
"""

from __future__ import annotations

from mexican_train_rules_helpers import hand
from mexican_train_seat_helpers import (
    DRAW,
    PASS,
    M,
    act,
    deal,
    draw,
    expect,
    make,
    open_doubles,
    pass_,
    seat_of,
    st,
    tiles,
)

from domino_env.envs.infos import Termination, seats_of

# --------------------------------------------------------------------------------------------
# More doubles edge cases (draws inside double obligations, targets of a second double)
# --------------------------------------------------------------------------------------------


def test_satisfy_drawn_double_is_placed_then_one_new_draw_for_its_cover():
    """docs/rules.md §1.3.3 + 1.4 satisfy (contract 2: "A new obligation in the same turn (e.g. after
    placing a drawn double in satisfy mode) allows one new draw"): a drawn double that fits must be
    placed; its cover is a new obligation with one new draw; failing it -> PASS, marker, open."""
    env = make(first_turn="any")
    deal(
        env,
        hands=[[(9, 5), (1, 2)], [(9, 4), (1, 3), (2, 4)]],
        boneyard=[(5, 5), (0, 1), (6, 6), (7, 7)],
    )
    act(env, (9, 5), M)
    act(env, (9, 4), 1)
    expect(env, 0, [DRAW])  # own train at 9, M at 5: (1,2) fits nothing
    draw(env)  # (5,5) fits M
    expect(env, 0, [((5, 5), M)])
    act(env, (5, 5), M)
    expect(env, 0, [DRAW])
    assert st(env).boneyard_size == 3
    draw(env)  # (0,1)
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [2]
    assert hand(env, 0) == [(0, 1), (1, 2)]
    expect(env, 1, [DRAW])  # (2,4) fits its own train at 4: frozen


def test_may_play_a_drawn_tile_that_covers_an_open_double_is_placed():
    """docs/rules.md §1.4 ("if that tile covers, it is placed there, under either drawn_tile rule"; seed 002:
    "el jugador que pueda debe terminarlo obligatoriamente"): under drawn_tile="may_play" too, a
    drawn tile that covers someone's open double is placed, no PASS. Until 2026-12-04 it could be
    kept. A drawn tile that covers nothing still means a pass and a marker."""
    env = make(first_turn="any", drawn_tile="may_play")
    deal(
        env,
        hands=[[(9, 5), (5, 5), (1, 2)], [(9, 4), (4, 0), (2, 3)]],
        boneyard=[(0, 0), (5, 6), (1, 1), (8, 8)],
    )
    act(env, (9, 5), 0)
    act(env, (9, 4), 1)
    act(env, (5, 5), 0)
    expect(env, 0, [DRAW])
    draw(env)  # (0,0) fits nothing
    expect(env, 0, [PASS])
    pass_(env)
    assert open_doubles(env) == [0]
    expect(env, 1, [DRAW])  # (4,0) fits its own train but the table is frozen
    draw(env)  # (5,6) covers 5-5 on train 0
    expect(env, 1, [((5, 6), 0)])  # placed: no PASS
    act(env, (5, 6), 0)
    assert open_doubles(env) == [] and not st(env).has_marker(1)


def test_satisfy_without_boneyard_passes_at_once():
    """docs/rules.md §1.7 use_boneyard=False + 1.4: a player who cannot cover their double passes and
    marks at once (no DRAW action); the double stays open and obliges the next player."""
    env = make(first_turn="any", use_boneyard=False)
    deal(env, hands=[[(9, 3), (3, 3), (0, 1)], [(9, 5), (2, 4), (3, 8)]], boneyard=[])
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [PASS])
    pass_(env)
    assert st(env).has_marker(0)
    assert open_doubles(env) == [0]
    expect(env, 1, [((3, 8), 0)])


def test_double_double_second_double_targets_and_no_third_double():
    """docs/rules.md §1.4 double_double (contract 6): the second double may go on another train where
    it is otherwise legal (the Mexican train, a marked train) but not on another seat's private
    train; after D2 only covers of D1/D2 are legal (no third double)."""
    env = make(num_players=3, first_turn="any", doubles="double_double")
    deal(
        env,
        hands=[
            [(9, 3), (9, 5), (3, 3), (5, 5), (6, 6), (8, 8), (3, 7), (0, 1)],
            [(9, 4), (4, 8), (0, 2), (1, 6)],
            [(9, 6), (1, 2)],
        ],
        boneyard=[(0, 0), (7, 7), (2, 2)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 4), 1)
    act(env, (9, 6), 2)
    act(env, (9, 5), M)
    act(env, (4, 8), 1)  # train 1 (private) ends at 8
    expect(env, 2, [DRAW])
    draw(env)  # (0,0)
    expect(env, 2, [PASS])
    pass_(env)
    assert st(env).has_marker(2)  # train 2 (end 6) is public
    expect(env, 0, [((3, 3), 0), ((3, 7), 0), ((5, 5), M), ((6, 6), 2)])
    act(env, (3, 3), 0)
    # cover D1, or D2 on M or on marked train 2; not (8,8) on private train 1
    expect(env, 0, [((3, 7), 0), ((5, 5), M), ((6, 6), 2)])
    act(env, (6, 6), 2)
    expect(env, 0, [((3, 7), 0)])  # (5,5) on M would be a third double
    act(env, (3, 7), 0)
    assert open_doubles(env) == [2]
    assert tiles(env, 2) == [(9, 6), (6, 6)]
    expect(env, 1, [((1, 6), 2)])


def _first_double_then_draw(env) -> None:
    """Seat 0 places 3-3 on its own train as its first double, with no cover and no second double
    in hand (the Mexican train ends in 5), and must draw: the boneyard's top is 5-5."""
    deal(
        env,
        hands=[[(9, 3), (3, 3), (0, 1)], [(9, 5), (2, 4)]],
        boneyard=[(5, 5), (0, 2), (6, 6), (1, 1)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [DRAW])


def test_double_double_drawn_double_can_be_the_second_double():
    """docs/rules.md §1.4 double_double + 1.3.3 (contract 2: after a draw the legal placements are
    computed as usual; a new obligation allows one new draw): with no cover and no second double,
    the player draws; a drawn double that fits another train is placed as D2 (must_play); then one
    new draw for covering D1/D2; failing -> PASS with both doubles open."""
    env = make(first_turn="any", doubles="double_double")
    _first_double_then_draw(env)
    draw(env)  # (5,5) fits the Mexican train
    expect(env, 0, [((5, 5), M)])
    act(env, (5, 5), M)
    expect(env, 0, [DRAW])
    draw(env)  # (0,2)
    expect(env, 0, [PASS])
    pass_(env)
    assert open_doubles(env) == [0, 2]
    assert st(env).has_marker(0)


def test_chain_drawn_double_gives_another_play():
    """docs/rules.md §1.4 chain + 1.3.3: a drawn double that fits must be placed and, being a double,
    gives another play (with one new draw); a draw-and-pass ends the turn, the double is open."""
    env = make(first_turn="any", doubles="chain")
    deal(
        env,
        hands=[[(9, 3), (0, 1)], [(9, 5), (2, 4), (3, 8)]],
        boneyard=[(3, 3), (1, 6), (7, 7)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    expect(env, 0, [DRAW])
    draw(env)  # (3,3)
    expect(env, 0, [((3, 3), 0)])
    act(env, (3, 3), 0)
    expect(env, 0, [DRAW])
    draw(env)  # (1,6) fits nothing
    expect(env, 0, [PASS])
    pass_(env)
    assert open_doubles(env) == [0]
    expect(env, 1, [((3, 8), 0)])


def test_no_cover_second_double_gives_another_placement():
    """docs/rules.md §1.4 no_cover (contract 8: another double gives another placement): D1, then D2
    elsewhere, then a non-double ends the turn; neither uncovered double obliges the next player."""
    env = make(first_turn="any", doubles="no_cover")
    deal(
        env,
        hands=[
            [(9, 3), (3, 3), (5, 5), (3, 6), (5, 7), (0, 1)],
            [(9, 5), (9, 2), (5, 1), (6, 8)],
        ],
        boneyard=[(0, 0), (1, 1)],
    )
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    act(env, (3, 3), 0)
    expect(env, 0, [((3, 6), 0), ((5, 5), M), ((5, 7), M)])
    act(env, (5, 5), M)
    expect(env, 0, [((3, 6), 0), ((5, 7), M)])
    act(env, (3, 6), 0)
    assert open_doubles(env) == []
    assert tiles(env, M) == [(9, 5), (5, 5)]
    # M ends in an uncovered 5-5: covering it is allowed but not required
    expect(env, 1, [((2, 9), 1), ((1, 5), M)])


def test_open_double_nobody_can_cover_blocks_the_round():
    """docs/rules.md §1.5 (blocked: no draw possible and nobody can ever place again) with 1.4: an open
    double that no hand can cover freezes the table, so the round is blocked although hands hold
    tiles that would fit elsewhere; blocked_round="score": fewest pips win (contract 10)."""
    env = make(first_turn="any", use_boneyard=False)
    deal(env, hands=[[(9, 3), (3, 3), (0, 1)], [(9, 5), (2, 4), (5, 6)]], boneyard=[])
    act(env, (9, 3), 0)
    act(env, (9, 5), M)
    # Seat 0 owes a cover of 3-3 and holds no 3; once it passes, 3-3 obliges seat 1, which holds
    # no 3 either ((5,6) would fit the Mexican train, but 3-3 must be covered): nobody can ever
    # place, so the round is blocked at once, without seat 0's forced PASS (issue 12).
    act(env, (3, 3), 0)
    assert st(env).round_over
    for a in env.possible_agents:
        assert env.terminations[a]
        info = env.infos[a]
        assert info["termination_code"] == Termination.BLOCKED
        assert seats_of(info["winners"]) == [0]
        assert list(info["pips"]) == [1, 17]


def test_may_play_a_drawn_double_blank_that_fits_may_be_kept():
    """docs/rules.md §1.3.3 (drawn_tile="may_play"): a drawn tile that fits may be placed or kept
    with a PASS, whatever tile it is: the 0-0 (tile index 0) too."""
    env = make(drawn_tile="may_play", first_turn="any")
    deal(env, hands=[[(9, 0), (1, 2), (3, 4)], [(9, 5), (6, 7)]], boneyard=[(0, 0), (8, 8)])
    act(env, (9, 0), 0)
    act(env, (9, 5), 1)
    expect(env, 0, [DRAW])  # own train ends in 0, Mexican train in 9: nothing fits
    draw(env)  # (0,0) fits s0's own train
    expect(env, 0, [((0, 0), 0), PASS])
    pass_(env)
    assert hand(env, 0) == [(0, 0), (1, 2), (3, 4)]
    assert st(env).has_marker(0) and seat_of(env) == 1
    assert st(env).missing_pips(0) == []  # the kept tile fitted: nothing is known missing (rules §3)


def test_double_double_may_play_a_drawn_second_double_that_does_not_cover_may_be_kept():
    """docs/rules.md §1.3.3 + §1.4 double_double under drawn_tile="may_play": after a first double
    the drawn tile must be placed only if it covers that double; a drawn double that only fits
    another train (a possible second double) may be kept: PASS, the marker goes down and the first
    double stays open."""
    env = make(first_turn="any", doubles="double_double", drawn_tile="may_play")
    _first_double_then_draw(env)
    draw(env)  # (5,5) fits the Mexican train (end 5), does not cover 3-3
    expect(env, 0, [((5, 5), M), PASS])
    pass_(env)
    assert open_doubles(env) == [0]
    assert st(env).has_marker(0) and hand(env, 0) == [(0, 1), (5, 5)]
