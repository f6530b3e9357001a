"""What every line-game agent shares (``agents/line_base.py``): the set-up tables built from the
rules (action layout, tile values, pip masks, :meth:`pips`) and the acting seat's
:class:`LineSeatView` decoded from its observation, every field checked on hand-built deals."""

from __future__ import annotations

from episode import start_line

from domino_env.agents import LineGreedyAgent
from domino_env.agents.line_base import LineSeatView
from domino_env.core.config import line_from_preset
from domino_env.core.tiles import tile_index


def mask(tiles, n=6):
    return sum(1 << tile_index(a, b, n) for a, b in tiles)


def test_the_set_up_tables_of_a_double_six_and_a_double_nine_set():
    six = LineGreedyAgent(line_from_preset("block"))
    assert (six.num_tiles, six.draw_action, six.pass_action, six.annul_action, six.num_actions) == (28, 56, 57, 58, 59)
    assert six.values[tile_index(6, 6, 6)] == 12 and six.values[tile_index(2, 5, 6)] == 7
    assert six.values[tile_index(0, 0, 6)] == 0 and len(six.values) == 28
    # one mask per pip 0..6: the seven tiles carrying it (the double once)
    assert len(six.pip_masks) == 7
    assert six.pip_masks[3] == mask([(0, 3), (1, 3), (2, 3), (3, 3), (3, 4), (3, 5), (3, 6)])
    assert six.all_mask == (1 << 28) - 1
    nine = LineGreedyAgent(line_from_preset("cuban"))
    assert (nine.num_tiles, nine.draw_action, nine.annul_action, nine.num_actions) == (55, 110, 112, 113)
    assert len(nine.pip_masks) == 10 and bin(nine.pip_masks[9]).count("1") == 10


def test_pips_adds_up_every_tile_of_a_mask():
    agent = LineGreedyAgent(line_from_preset("block"))
    assert agent.pips(0) == 0
    assert agent.pips(mask([(0, 0)])) == 0 and agent.pips(mask([(6, 6)])) == 12
    assert agent.pips(mask([(6, 6), (1, 2), (0, 0), (3, 5)])) == 23
    assert agent.pips(agent.all_mask) == 168  # the whole double-six set


def test_the_view_of_a_draw_game_after_a_draw_and_a_pass():
    # 2-player draw game. Seat 1 leads 3-3; seat 0 holds no 3 and draws 0-0, then 3-5, and plays
    # 3-5 on the left end (ends 5 / 3); seat 1 holds no 3 or 5, draws the last tile (1-1) and
    # passes. Seat 0 drew on the ends 3 / 3 and seat 1 passed on 5 / 3: each is known to lack them.
    deal = {
        "hands": [[[1, 2], [0, 4], [5, 6]], [[3, 3], [2, 4], [6, 6]]],
        "boneyard": [[0, 0], [3, 5], [1, 1]],
        "first_player": 1,
    }
    env = start_line(deal, preset="draw", num_players=2)
    agent = LineGreedyAgent(env.config)
    for move in (2 * tile_index(3, 3, 6), agent.draw_action, agent.draw_action, 2 * tile_index(3, 5, 6),
                 agent.draw_action, agent.pass_action):  # fmt: skip
        env.step(move)
    assert env.agent_selection == "player_0"
    placed = mask([(3, 3), (3, 5)])
    hand0 = [(0, 0), (0, 4), (1, 2), (5, 6)]
    assert agent.view(env.observe("player_0")["observation"]) == LineSeatView(
        hand=sorted(tile_index(a, b, 6) for a, b in hand0), hand_mask=mask(hand0), placed_mask=placed,
        unseen_mask=agent.all_mask & ~mask(hand0) & ~placed, ends=(5, 3), hand_sizes=[4, 3], boneyard=0,
        leader=1, partner=None, missing=[0, (1 << 3) | (1 << 5)], may_annul=False,
    )  # fmt: skip
    hand1 = [(1, 1), (2, 4), (6, 6)]
    assert agent.view(env.observe("player_1")["observation"]) == LineSeatView(
        hand=sorted(tile_index(a, b, 6) for a, b in hand1), hand_mask=mask(hand1), placed_mask=placed,
        unseen_mask=agent.all_mask & ~mask(hand1) & ~placed, ends=(5, 3), hand_sizes=[3, 4], boneyard=0,
        leader=0, partner=None, missing=[0, 1 << 3], may_annul=False,
    )  # fmt: skip


def test_the_view_of_a_cuban_deal_with_five_doubles_may_annul():
    # Cuban (4 players in teams, double-nine, annulment with 5 doubles dealt): seat 0 holds five
    # doubles and may annul on its first turn; after it leads 0-5 seat 1 may not (one double).
    n = 9
    hands = [
        [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5]],
        [[5, 5], [1, 2], [1, 3], [1, 4], [1, 5], [1, 6], [1, 7], [1, 8], [1, 9], [0, 6]],
        [[6, 6], [2, 3], [2, 4], [2, 5], [2, 6], [2, 7], [2, 8], [2, 9], [0, 7], [0, 8]],
        [[7, 7], [3, 4], [3, 5], [3, 6], [3, 7], [3, 8], [3, 9], [0, 9], [4, 5], [4, 6]],
    ]
    env = start_line({"hands": hands, "first_player": 0}, preset="cuban")
    agent = LineGreedyAgent(env.config)
    assert env.observe("player_0")["action_mask"][agent.annul_action] == 1
    hand0 = mask(hands[0], n)
    assert agent.view(env.observe("player_0")["observation"]) == LineSeatView(
        hand=sorted(tile_index(a, b, n) for a, b in hands[0]), hand_mask=hand0, placed_mask=0,
        unseen_mask=agent.all_mask & ~hand0, ends=None, hand_sizes=[10, 10, 10, 10], boneyard=0, leader=0,
        partner=2, missing=[0, 0, 0, 0], may_annul=True,
    )  # fmt: skip
    env.step(2 * tile_index(0, 5, n))
    view = agent.view(env.observe("player_1")["observation"])
    assert (view.ends, view.hand_sizes, view.leader, view.partner, view.may_annul) == ((0, 5), [10, 10, 10, 9], 3, 2, False)
    assert view.placed_mask == mask([(0, 5)], n) and view.hand_mask == mask(hands[1], n)
    # the leader, egocentric: seat 0 is 2 places after seat 2 and 1 after seat 3
    assert [agent.view(env.observe(f"player_{s}")["observation"]).leader for s in (2, 3)] == [2, 1]
