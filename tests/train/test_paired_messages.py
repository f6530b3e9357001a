"""domino-paired's refusals word for word, the record checks it had no test for (seat_rounds, a
rounds count, a credit above 1), one deal's interval, and its --help (gaps a mutation run of
train/paired.py found: a message or a check could change with every test passing)."""

from __future__ import annotations

import dataclasses
import json
import math
import re

import pytest

from domino_env.core.errors import AgentSpecError, ConfigError, DominoError
from domino_env.train.paired import (
    PairedDifference,
    ResultFile,
    _shown,
    deal_values,
    load_result,
    main,
    paired_difference,
)


def _rec(deal, rotation, credit, pips, **extra):
    """Deal ``deal`` (its seed too) at seat rotation ``rotation`` of two agents: x at seat
    ``rotation``."""
    return {"deal": deal, "rotation": rotation, "seed": deal, "seats": [0, 1] if rotation == 0 else [1, 0],
            "rounds": 1, "round_credit": credit, "pips": pips, "game_credit": None, "truncated": False, **extra}  # fmt: skip


def _result(records, **fields):
    return {"agents": ["x", "y"], "episode": "round", "num_players": 2, "game": "mexican_train",
            "env_kwargs": {"max_pip": 6}, "records": records, **fields}  # fmt: skip


# x wins deals 10 and 11 at both rotations (+1 each); in deal 12 each wins at seat 0 (0)
A = _result([_rec(10, 0, [1.0, 0.0], [0, 5]), _rec(10, 1, [0.0, 1.0], [4, 0]),
             _rec(11, 0, [1.0, 0.0], [0, 3]), _rec(11, 1, [0.0, 1.0], [2, 0]),
             _rec(12, 0, [1.0, 0.0], [0, 6]), _rec(12, 1, [1.0, 0.0], [0, 1])])  # fmt: skip


def _damaged(i, **fields):
    return _result([{**r, **fields} if k == i else r for k, r in enumerate(A["records"])])


def _refusal(*args, **kwargs):
    with pytest.raises(DominoError) as info:
        paired_difference(*args, **kwargs)
    return str(info.value)


def test_the_result_is_a_frozen_record_that_skips_nothing_by_default():
    d = PairedDifference(mean=0.5, ci95=(0.1, 0.9), deals=4, mean_a=0.75, mean_b=0.25, metric="win",
                         agent_a="x", agent_b="y")  # fmt: skip
    assert d.skipped == 0 and d.text() == "A - B: +0.500 [+0.100, +0.900] over 4 deals (win credit)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.mean = 0.0  # type: ignore[misc]


def test_the_refusals_of_two_tournaments_word_for_word():
    assert _refusal([], A) == "an empty list of tournaments as A"
    assert _refusal(A, ()) == "an empty list of tournaments as B"
    assert _refusal([A, {**A, "agents": ["x", "w"]}], A) == (
        "tournament 1 of A's list differs from the first in its agents: pool only tournaments of one line-up and rules")
    assert _refusal(A, {**A, "game": "block"}) == (
        "the two tournaments differ in game ('mexican_train' in A, 'block' in B): "
        "pair only tournaments of the same game and rules")  # fmt: skip
    assert _refusal(A, {**A, "num_players": 3}).startswith("the two tournaments differ in num_players (2 in A, 3 in B)")
    other = _result([{**r, "deal": r["deal"] + 10, "seed": r["seed"] + 10} for r in A["records"]], seed=2)
    assert _refusal([{**A, "seed": 1}, other], {**A, "seed": 1}) == (
        "the two tournaments played different deals (A: seed [1, 2], 6 deals; B: seed 1, 3 deals; 3 of 6 not in "
        "both): use the same --seed and --rounds")  # fmt: skip
    truncated = _result([_rec(1, r, [0.0, 0.0], [0, 0], rounds=0, truncated=True) for r in (0, 1)])
    assert _refusal(truncated, json.loads(json.dumps(truncated)), "x", metric="pips") == (
        "no deal has a finished round on both sides (every episode truncated): nothing to compare")


def test_a_path_or_a_number_is_refused_as_a_result():
    with pytest.raises(ConfigError) as info:
        paired_difference("a.json", A)
    assert str(info.value) == ("invalid argument 'result': got 'a.json'; allowed: a tournament result (a dict, an "
                               "EvaluationResult or a list of them); read a --json file with load_result(path) first")  # fmt: skip
    with pytest.raises(ConfigError) as info:
        paired_difference(5, A)
    assert str(info.value).endswith("got 5; allowed: a tournament result (a dict, an EvaluationResult or a list of them)")
    with pytest.raises(AgentSpecError) as info:
        deal_values(A, "w")
    assert str(info.value) == "invalid agent 'w'; allowed: an agent of the tournament: x, y"


def test_damaged_records_word_for_word():
    """Every record check, with the whole message (the tests of test_paired.py match a part)."""
    no_rounds = _result([{k: v for k, v in r.items() if k != "rounds"} for r in A["records"]])
    for result, message in [
        (_damaged(1, rotation=2), "records[1] is damaged: field 'rotation' is 2, expected an integer 0..1 (the seat rotation)"),
        (no_rounds, "records[0] (deal 10, rotation 0) is damaged: it has no field 'rounds' (an integer >= 0)"),
        (_damaged(0, rounds=-1), "records[0] (deal 10, rotation 0) is damaged: field 'rounds' is -1, expected an integer >= 0"),
        (_damaged(2, round_credit=[1.5, 0.0]), "records[2] (deal 11, rotation 0) is damaged: field 'round_credit' is "
                                               "[1.5, 0.0], expected a list of 2 win credits in [0, 1], one per seat"),
        (_damaged(0, seat_rounds=[2, 0]), "records[0] (deal 10, rotation 0) is damaged: field 'seat_rounds' is [2, 0], "
                                          "expected a list of 2 integers from 0 to its rounds, one per seat (or null)"),
        (_damaged(1, seat_rounds=[0.5, 1]), "records[1] (deal 10, rotation 1) is damaged: field 'seat_rounds' is "
                                            "[0.5, 1], expected a list of 2 integers from 0 to its rounds, one per seat "
                                            "(or null)"),
        (_damaged(3, truncated="no"), "records[3] (deal 11, rotation 1) is damaged: field 'truncated' is 'no', "
                                      "expected true or false"),
        (_damaged(3, truncated="n" * 70), "records[3] (deal 11, rotation 1) is damaged: field 'truncated' is "
                                          f"'{'n' * 56}..., expected true or false"),
    ]:  # fmt: skip
        with pytest.raises(DominoError) as info:
            deal_values(result, "x")
        assert str(info.value) == message
    # the bounds themselves pass: seat rounds up to the record's rounds (or none), a credit of 1
    assert deal_values(_damaged(5, seat_rounds=[1, 0]), "x", "pips") == {(10, 10): 0.0, (11, 11): 0.0, (12, 12): 1.0}
    assert deal_values(_damaged(0, seat_rounds=None), "x") == {(10, 10): 1.0, (11, 11): 1.0, (12, 12): 0.5}


def test_a_long_value_is_cut_to_60_characters():
    assert _shown("a" * 58) == "'" + "a" * 58 + "'"  # a repr of 60: whole
    assert _shown("a" * 59) == "'" + "a" * 56 + "..."  # of 61: its first 57 and "..."


def test_three_deals_lacking_rotations_are_counted_in_the_plural():
    with pytest.raises(DominoError) as info:
        deal_values(_result(A["records"][::2]), "x")
    assert str(info.value) == ("deal 10 (seed 10) lacks seat rotation 1 (a deal has one record per rotation 0..1); "
                               "2 other deals lack rotations too: the records are damaged")  # fmt: skip


def test_one_deal_has_the_whole_credit_range_as_its_interval():
    """One deal: no t interval, the difference lies in [-1, 1]; not Wilson's of one trial."""
    one = _result(A["records"][:2])  # x won both rotations: +1
    d = paired_difference(one, one, "x", "y")
    assert (d.mean, d.ci95, d.deals) == (1.0, (-1.0, 1.0), 1)
    assert d.text() == "A - B: +1.000 [-1.000, +1.000] over 1 deal (win credit)"
    alike = paired_difference(one, json.loads(json.dumps(one)), "x")
    assert (alike.mean, alike.ci95) == (0.0, (-1.0, 1.0))
    pips = paired_difference(one, one, "x", "y", metric="pips")
    assert pips.ci95 == (-math.inf, math.inf) and pips.text().endswith("(one deal: no interval) over 1 deal (pips left per round)")


def test_load_result_refusals_word_for_word(tmp_path):
    (tmp_path / "bad.json").write_text('{"agents": ["x"], "rec')
    (tmp_path / "list.json").write_text("[1, 2]")
    for name, message in [
        ("bad.json", "not a tournament JSON file (Unterminated string starting at: line 1 column 19 (char 18))"),
        ("list.json", "not a tournament JSON file (domino-evaluate --json writes one)"),
    ]:
        with pytest.raises(DominoError) as info:
            load_result(tmp_path / name)
        assert str(info.value) == f"{tmp_path / name}: {message}"


def test_the_command_s_errors_are_one_line_naming_both_files(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({**A, "agents": ["x: one", "y"]}))  # a label with ": " in it
    b.write_text(json.dumps({**A, "game": "block"}))
    for args, message in [
        ([a, b], f"the two tournaments differ in game ('mexican_train' in A, 'block' in B): pair only tournaments "
                 f"of the same game and rules (A: {a}, B: {b})"),
        ([a, a, "--agent", "q"], f"--agent 'q': not an agent of {a} (its agents: x: one, y)"),
    ]:  # fmt: skip
        with pytest.raises(SystemExit) as info:
            main([str(v) for v in args])
        assert info.value.code == 2
        assert capsys.readouterr().err == f"domino-paired: error: {message} (domino-paired --help lists every option)\n"


def test_the_help_states_each_option_and_its_default(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "1000")
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("usage: domino-paired [-h]") and lines[2] == (
        "Paired per-deal difference between two agents on the same duplicate deals (two domino-evaluate --records "
        "--json files with the same rules, --seed and --rounds).")  # fmt: skip
    helps = dict(re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in lines[3:] if line.startswith("  "))
    assert {key: text for key, text in helps.items() if key != "-h, --help"} == {
        "a": "tournament JSON of agent A (domino-evaluate --records --json A.json)",
        "b": "tournament JSON of agent B (may be A.json: another agent of it)",
        "--agent AGENT": "A's label in A.json (default: its first agent)",
        "--agent-b AGENT_B": "B's label in B.json (default: A's label if it played there, else B.json's first agent)",
        "--metric {win,pips}": "win: win credit (the win rate's); pips: pips left per round (default: win)",
    }  # fmt: skip


def test_an_endless_file_is_refused_at_the_size_limit(tmp_path):
    """A user trial: ``domino-paired A.json /dev/zero`` read /dev/zero until the memory ran out
    (about 2 GB/s); the file is read only up to its limit (1 GiB, docs/evaluation.md), then refused
    in one line naming the file and the limit. The memory cap makes the old reading fail fast."""
    import resource
    import subprocess
    import sys

    (tmp_path / "a.json").write_text(json.dumps(A))

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))

    out = subprocess.run([sys.executable, "-m", "domino_env.train.paired", "a.json", "/dev/zero"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, preexec_fn=cap)  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert out.stderr == ("domino-paired: error: /dev/zero holds more than 1 GiB: not a tournament JSON file "
                          "(domino-evaluate --json writes one) (A: a.json, B: /dev/zero) "
                          "(domino-paired --help lists every option)\n")  # fmt: skip
    from domino_env.train import paired

    assert paired.MAX_RESULT_BYTES == 2**30


def test_one_result_given_twice_in_a_list_is_named_as_such():
    """A user trial: ``paired_difference([A0, A0], [B0, B0])`` said "records[40] repeats deal 0 ...
    the records are damaged"; the same object twice, or two results of one seed (the same deals),
    is now named so, with the side (A or B) whose list holds it (it said "the list")."""
    assert _refusal([A, A], [A, A], "x", "y") == ("tournament 1 of A's list is tournament 0 again: the same result "
                                                  "given twice; pool results played with other seeds")  # fmt: skip
    assert _refusal(A, (A, A), "x", "y") == ("tournament 1 of B's list is tournament 0 again: the same result "
                                             "given twice; pool results played with other seeds")  # fmt: skip
    seeded = [{**A, "seed": 3}, {**A, "seed": 4}, json.loads(json.dumps({**A, "seed": 3}))]  # (a file read twice)
    assert _refusal(seeded, seeded, "x", "y") == ("tournaments 0 and 2 of A's list have the same seed (3), so the "
                                                  "same deals: the same result given twice? pool results played with "
                                                  "other seeds")  # fmt: skip
    assert _refusal({**A, "seed": 1}, seeded, "x", "y").startswith("tournaments 0 and 2 of B's list have the same seed")
    with pytest.raises(DominoError, match="^tournaments 0 and 2 of the list have the same seed"):
        deal_values(seeded, "x")  # (no side outside paired_difference)


def test_a_file_given_twice_in_a_list_is_named_by_its_path_as_given(tmp_path, monkeypatch):
    """Results read by load_result name their file in the list's refusals, as the path was given."""
    monkeypatch.chdir(tmp_path)
    for seed in (3, 4):
        (tmp_path / f"s{seed}.json").write_text(json.dumps({**A, "seed": seed}))
    s3, s4, again = load_result("s3.json"), load_result("s4.json"), load_result("./s3.json")
    assert s3 == {**A, "seed": 3} and json.loads(json.dumps(s3)) == s3  # (still the dict it was)
    assert _refusal([s3, s3], s4, "x", "y") == ("tournament 1 (s3.json) of A's list is tournament 0 again: the same "
                                                "result given twice; pool results played with other seeds")  # fmt: skip
    assert _refusal(s3, [s3, s4, again], "x", "y") == (
        "tournaments 0 (s3.json) and 2 (./s3.json) of B's list have the same seed (3), so the same deals: the same "
        "result given twice? pool results played with other seeds")  # fmt: skip
    made = ResultFile({**A, "seed": 3})  # one made in Python has no file to name (it was an AttributeError)
    assert made.path is None
    assert _refusal([made, s4, made], s4, "x", "y") == ("tournament 2 of A's list is tournament 0 again: the same "
                                                        "result given twice; pool results played with other seeds")  # fmt: skip


def test_a_list_inside_a_list_is_refused_naming_its_place():
    """A list in a list was pooled past the checks of one result given twice: ``[[A3, A4], [A3]]``
    said "tournament A: records[6] repeats deal 10 ... the records are damaged"."""
    a3, a4 = {**A, "seed": 3}, {**A, "seed": 4, "records": [{**r, "deal": r["deal"] + 10} for r in A["records"]]}
    for nested, i in (([[a3, a4], [a3]], 0), ([a3, [a4]], 1), ([[a3]], 0)):
        assert _refusal(nested, a3, "x", "y") == (f"tournament {i} of A's list is itself a list: give one flat list "
                                                  "of the results to pool")  # fmt: skip
        assert _refusal(a3, nested, "x", "y").startswith(f"tournament {i} of B's list is itself a list")
    assert paired_difference([a3, a4], [a3, a4], "x", "y").deals == 6  # (flat: pooled)


def test_a_file_holding_a_list_of_results_is_named_as_such(tmp_path):
    """``domino-paired`` takes one tournament per side; a file of a JSON list of results (what
    paired_difference pools) was "not a tournament JSON file", as any other JSON."""
    import subprocess
    import sys

    (tmp_path / "a.json").write_text(json.dumps(A))
    (tmp_path / "both.json").write_text(json.dumps([A, A]))
    (tmp_path / "nested.json").write_text(json.dumps([[A], A]))
    for name in ("both.json", "nested.json"):
        proc = subprocess.run([sys.executable, "-m", "domino_env.train.paired", "a.json", name], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert proc.stderr == (f"domino-paired: error: {name}: a JSON list of tournaments, not a tournament JSON file "
                               "(domino-evaluate --json writes one object): give one tournament per side; to pool "
                               "several seeds' tournaments, pass a list of load_result(FILE) to paired_difference in "
                               f"Python (A: a.json, B: {name}) (domino-paired --help lists every option)\n")  # fmt: skip
