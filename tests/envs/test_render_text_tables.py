"""The whole text picture (``ansi``) of positions the other text tests never drew: a tile just
drawn that is tile 0, a table without the Mexican train, an eliminated seat, the end of a round,
and a line game with teams (found by mutation testing: each line could change unseen)."""

from __future__ import annotations

from domino_env.envs import cuban_v0, mexican_train_v0

CUBAN_DEAL = {
    "hands": [[[0, 6], [1, 5], [2, 3], [2, 6], [2, 7], [2, 8], [3, 3], [3, 7], [3, 9], [8, 9]],
              [[0, 0], [0, 3], [0, 9], [1, 6], [1, 7], [3, 4], [4, 7], [4, 9], [6, 9], [7, 7]],
              [[0, 4], [0, 7], [1, 8], [2, 2], [2, 4], [2, 5], [3, 6], [5, 5], [8, 8], [9, 9]],
              [[0, 1], [1, 2], [2, 9], [3, 5], [4, 5], [5, 8], [5, 9], [6, 6], [6, 8], [7, 8]]],
    "boneyard": [],
    "first_player": None,
}  # fmt: skip


def _play(env, text: str) -> None:
    """Apply the legal action described as ``text``."""
    legal = {env.game_state.describe_action(a): a for a in env.game_state.legal_actions()}
    assert text in legal, (text, sorted(legal))
    env.step(legal[text])


def test_a_drawn_tile_0_0_says_just_drew_and_the_mexican_train_has_no_seat_tags():
    """[0|0] is tile 0: "just drew" was tested as ``drawn_tile > 0`` unseen. The Mexican train's
    row carries no hand or score (it took the last seat's name and tags unseen); one boneyard
    tile is "1 tile"."""
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9)
    env.reset(options={"deal": {"hands": [[[1, 2], [3, 4]], [[5, 6], [9, 1]]], "boneyard": [[0, 0], [7, 8]],
                                "station": [9, 9], "first_player": 0}})  # fmt: skip
    _play(env, "draw")
    assert env.game_state.drawn_tile == 0
    assert env.render_text() == (
        "Mexican Train - round 1, station [9|9], boneyard 1 tile\n"
        "  seat 0 : (empty) -> open end 9  (hand 3, score 0)\n"
        "  seat 1 : (empty) -> open end 9  (hand 2, score 0)\n"
        "  Mexican : (empty) -> open end 9\n"
        "to play: seat 0 (free), just drew\n"
        "hand of seat 0: [0|0] [1|2] [3|4]"
    )
    _play(env, "pass")
    assert env.render_text().splitlines()[-2] == "to play: seat 1 (free)"  # nothing drawn this turn


def test_a_table_without_the_mexican_train_shows_no_mexican_row():
    """``use_mexican_train=False``: the seats' trains only (a Mexican row could appear unseen)."""
    env = mexican_train_v0.raw_env(num_players=2, max_pip=9, use_mexican_train=False)
    env.reset(options={"deal": {"hands": [[[1, 9], [3, 4]], [[5, 6], [9, 2]]], "boneyard": [[0, 0]],
                                "station": [9, 9], "first_player": 0}})  # fmt: skip
    assert env.render_text() == (
        "Mexican Train - round 1, station [9|9], boneyard 1 tile\n"
        "  seat 0 : (empty) -> open end 9  (hand 2, score 0)\n"
        "  seat 1 : (empty) -> open end 9  (hand 2, score 0)\n"
        "to play: seat 0 (free)\n"
        "hand of seat 0: [1|9] [3|4]"
    )


def test_the_round_end_and_an_eliminated_seat():
    """The end of a Mexican Train round (never drawn as text by a test: a deleted line was a
    NameError unseen) and, under ``game_end="elimination"``, a seat that is out: one line, no
    train (a train row for it could appear unseen)."""
    deal = {"hands": [[[9, 1]], [[5, 6]], [[2, 3]]], "boneyard": [[7, 7]], "station": [9, 9], "first_player": 0}
    env = mexican_train_v0.raw_env(num_players=3, max_pip=9, episode="game", game_end="elimination",
                                   elimination_limit=10)  # fmt: skip
    env.reset(options={"deal": deal})
    _play(env, "place 1-9 on own train")  # seat 0 goes out: seat 1 (11 pips) is out of the game
    rows = env.render_text().splitlines()
    assert rows[0].startswith("Mexican Train - round 2, station [8|8], boneyard ")
    assert rows[1:6] == [
        "  seat 0 : (empty) -> open end 8  (hand 25, score 0)",
        "  seat 1: out of the game",
        "  seat 2 : (empty) -> open end 8  (hand 25, score 5)",
        "  Mexican : (empty) -> open end 8",
        "to play: seat 0 (free)",
    ]
    # a limit of 1 puts seats 1 and 2 out at once: the game ends on the round's last picture, which
    # shows the table of the round they played, their trains with a tag (as the replay page; it
    # drew them as seats out before the round, "seat 1: out of the game" with no train)
    env = mexican_train_v0.raw_env(num_players=3, max_pip=9, episode="game", game_end="elimination",
                                   elimination_limit=1)  # fmt: skip
    env.reset(options={"deal": deal})
    _play(env, "place 1-9 on own train")
    assert env.game_state.round_over and env.game_state.game_over
    assert env.render_text(0) == (
        "Mexican Train - round 1, station [9|9], boneyard 1 tile\n"
        "  seat 0 : [9|1] -> open end 1  (hand 0, score 0)\n"
        "  seat 1 : (empty) -> open end 9  (hand 1, score 11, out of the game)\n"
        "  seat 2 : (empty) -> open end 9  (hand 1, score 5, out of the game)\n"
        "  Mexican : (empty) -> open end 9\n"
        "round over: went_out, winners [0], pips [0, 11, 5]\n"
        "hand of seat 0: (empty)"
    )


def test_a_cuban_line_its_ends_the_teams_and_the_round_end():
    """The line game's text: the line with both ends, the teams, every seat's hand and score, and
    the round's end (no test drew a line, the teams or a round end: each could change unseen)."""
    env = cuban_v0.raw_env()
    env.reset(options={"deal": CUBAN_DEAL})
    assert env.render_text(0) == (
        "cuban dominoes - round 1, double-9, no boneyard, leader seat 2 (teams 0+2 vs 1+3)\n"
        "  line: (empty: waiting for the lead)\n"
        "  seat 0: hand 10, score 0\n"
        "  seat 1: hand 10, score 0\n"
        "  seat 2: hand 10, score 0\n"
        "  seat 3: hand 10, score 0\n"
        "to play: seat 2\n"
        "hand of seat 0: [0|6] [1|5] [2|3] [2|6] [2|7] [2|8] [3|3] [3|7] [3|9] [8|9]"
    )
    _play(env, "lead 9-9")
    _play(env, "place 2-9 on the left end")
    assert env.render_text(0).splitlines()[1:7] == [
        "  line: [2|9] [9|9]  (ends 2 | 9)",
        "  seat 0: hand 10, score 0",
        "  seat 1: hand 10, score 0",
        "  seat 2: hand 9, score 0",
        "  seat 3: hand 9, score 0",
        "to play: seat 0",
    ]
    while not env.game_state.round_over:
        env.step(int(env.game_state.legal_actions()[0]))
    rows = env.render_text(0).splitlines()
    assert rows[1].endswith("[2|4] [4|9] [9|3]  (ends 8 | 3)")
    assert rows[2:] == [
        "  seat 0: hand 1, score 0",
        "  seat 1: hand 2, score 41",
        "  seat 2: hand 1, score 0",
        "  seat 3: hand 0, score 41",
        "round over: went_out, winners [1, 3], pips [17, 14, 10, 0]",
        "hand of seat 0: [8|9]",
    ]


def test_a_game_without_a_boneyard_says_so_and_one_with_it_counts_it():
    """A user trial read "boneyard 0 tiles" for block and Cuban, which have none (docs/rules.md
    §2.2), and for Mexican Train's sin monte (§1.7): the header says "no boneyard" there."""
    from domino_env.envs import block_v0, draw_v0, mexican_train_v0

    heads = {}
    for name, env in {"block": block_v0.raw_env(), "draw": draw_v0.raw_env(),
                      "mt": mexican_train_v0.raw_env(), "mt sin monte": mexican_train_v0.raw_env(use_boneyard=False)}.items():  # fmt: skip
        env.reset(seed=0)
        heads[name] = env.render_text(0).splitlines()[0]
    assert heads["block"].startswith("block dominoes - round 1, double-6, no boneyard, leader seat ")
    assert heads["draw"].startswith("draw dominoes - round 1, double-6, boneyard 14 tiles, leader seat ")
    assert heads["mt"].endswith("boneyard 10 tiles") and heads["mt sin monte"].endswith(", no boneyard")
