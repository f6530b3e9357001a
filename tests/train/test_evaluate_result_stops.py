"""A stop signal after the tournament, while domino-evaluate prints its table or writes --json:
its line says the tournament finished and what is kept (it ended with status 143 and no line, the
journal left behind unexplained), and --resume writes the result without playing again."""

from __future__ import annotations

import json
import os
import signal
import threading

import pytest

import domino_env.train.evaluate as evaluate_module
from domino_env.train.cli import launch

ARGS = ["--agents", "planner", "greedy", "greedy", "greedy", "--rounds", "40", "--seed", "5", "--no-progress"]


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    """``domino-evaluate argv`` in this process, as the console script runs it."""
    with pytest.raises(SystemExit) as exit_:
        launch("domino-evaluate", lambda: evaluate_module.main(argv))
    captured = capsys.readouterr()
    return exit_.value.code, captured.out, captured.err


def _terminate_first_call(monkeypatch, name: str) -> None:
    """The first call of ``evaluate_module.<name>`` gets a SIGTERM sent to this process first."""
    real, calls = getattr(evaluate_module, name), []

    def terminated(*args, **kwargs):
        if not calls:
            calls.append(1)
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)  # its handler runs here
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluate_module, name, terminated)


@pytest.fixture
def sigterm_restored():
    previous = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGTERM, previous[0])
    signal.signal(signal.SIGINT, previous[1])


def test_sigterm_while_the_table_is_printed_says_the_journal_keeps_the_result(tmp_path, capsys, monkeypatch,
                                                                             sigterm_restored):  # fmt: skip
    out = tmp_path / "result.json"
    code, _, straight_err = _run([*ARGS, "--json", str(tmp_path / "straight.json")], capsys)
    assert code == 0, straight_err
    straight = json.loads((tmp_path / "straight.json").read_text())

    with monkeypatch.context() as m:
        _terminate_first_call(m, "print_result")
        code, _, err = _run([*ARGS, "--json", str(out)], capsys)
    journal = f"{out}.partial.jsonl"
    assert code == 143 and not out.exists() and os.path.exists(journal)
    assert err.splitlines()[-1] == (
        f"domino-evaluate: interrupted (the tournament finished; 10 of 10 deals played, kept in {journal}: the same "
        f"command with --resume continues it, writing the result without playing again; {out} not written)")

    code, _, err = _run([*ARGS, "--json", str(out), "--resume"], capsys)
    assert code == 0 and not os.path.exists(journal), err
    resumed = json.loads(out.read_text())
    assert resumed["resumed_deals"] == 10
    skip = {"seconds", "workers", "resumed_deals", "command", "package_version"}
    assert {k: v for k, v in resumed.items() if k not in skip} == {k: v for k, v in straight.items() if k not in skip}


def test_sigterm_while_the_result_is_written_waits_for_it_whole(tmp_path, capsys, monkeypatch, sigterm_restored):
    """The file is written whole, then the signal acts: the line says so and the journal is gone
    (it said the journal kept the deals while PATH already held the result)."""
    out = tmp_path / "result.json"
    _terminate_first_call(monkeypatch, "replace_text")
    code, _, err = _run([*ARGS, "--json", str(out)], capsys)
    assert code == 143 and json.loads(out.read_text())["resumed_deals"] == 0
    assert not os.path.exists(f"{out}.partial.jsonl")
    assert err.splitlines()[-1] == f"domino-evaluate: interrupted (the tournament finished; its result is written to {out})"


def test_sigterm_while_the_table_is_printed_without_json(capsys, monkeypatch, sigterm_restored):
    _terminate_first_call(monkeypatch, "print_result")
    code, _, err = _run(ARGS, capsys)
    assert code == 143
    assert err.splitlines()[-1] == (
        "domino-evaluate: interrupted (the tournament finished; its result was not written whole)")
