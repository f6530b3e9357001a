"""Every command the docs give in a code block still parses with today's command line.

A renamed or removed flag, a narrowed choice or a value the flag's type now refuses would leave
a page whose commands fail when pasted. Each command line of a fenced block in README.md,
docs/*.md and benchmarks/README.md that starts with one of the package's console scripts
(``domino-evaluate``, ...), ``python -m domino_env.train.X`` / ``python -m train.X`` or
``python benchmarks/X.py`` is parsed by that command's own parser (its ``main`` is called and
stopped right after argparse, so no work starts: the checks a command makes after parsing, such
as flags that conflict, are not run here). Continuation lines are joined; a loop's head, ``time``,
``nohup``, ``nice``, variable settings and ``.venv/bin/`` before the command are skipped; a shell
variable (``$seed``) stands for ``1``; what follows ``|``, ``;``, ``&&``, ``&``, ``>`` or ``#`` is
not part of the command. ``python -m train.X`` (it runs only from a clone's root) is refused. Lines that show a usage pattern (``[--players 4]``), elided arguments
(``...``) or a command's output (``domino-play needs the 'train' extra ...``) are not commands.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import re
import shlex
import sys
from pathlib import Path

import pytest

from domino_env.train.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks/README.md"]
#: What may come before a command on a shell line: a prompt, a loop's head, ``time``, ``nohup``,
#: ``nice``, variable settings.
PREFIX = r"(?:\$ |for [^;]*; do |do |time |nohup |nice (?:-n \d+ )?|[A-Z_]+=\S* )*"
COMMAND = re.compile(
    rf"^{PREFIX}(?:\.venv/bin/)?"
    r"(?P<name>domino-[a-z-]+|python -m (?:domino_env|train|agents)\.[\w.]+|python benchmarks/\w+\.py)"
    r"(?=\s|$)(?P<rest>.*)"
)
#: Where the command ends on a shell line: a pipe, a list, a redirection, a comment, ``&``.
SHELL_END = re.compile(r"\s*(?:\||&&|;)|\s+(?:\d?>|#|&)")
#: The per-CPU limits (``--eval-workers``, ``--workers``: 4 x the CPUs) depend on the machine a
#: page's run was made on (some on 16 cores); only that refusal is allowed.
PER_MACHINE = "(4 x the CPUs)"


class Parsed(Exception):
    """Raised by the patched argparse once a command's arguments are parsed."""


def documented_commands(page: Path) -> list[tuple[int, str, list[str]]]:
    """``(line number, command name, argv)`` for each command line of the page's code blocks."""
    found, in_fence, lines = [], False, page.read_text().splitlines()
    i = 0
    while i < len(lines):
        line, number = lines[i].strip(), i + 1
        i += 1
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if not in_fence:
            continue
        while line.endswith("\\") and i < len(lines):
            line = line[:-1] + " " + lines[i].strip()
            i += 1
        match = COMMAND.match(line)
        if not match:
            continue
        rest = SHELL_END.split(match["rest"], maxsplit=1)[0]
        if "..." in rest or " [-" in rest or " needs the " in rest or "<(" in rest:
            continue
        rest = re.sub(r"\$\{?\w+\}?", "1", rest)
        found.append((number, match["name"], shlex.split(rest)))
    return found


def entry_point(name: str):
    """The ``main(argv)`` a documented command runs."""
    if name.startswith("domino-"):
        assert name in COMMANDS, f"{name} is not a console script of pyproject.toml"
        module, _ = COMMANDS[name].target.split(":")
    elif name.startswith("python -m "):
        module = name.removeprefix("python -m ")
        assert not module.startswith(("train.", "agents.")), (
            f"{name} runs only from the root of a clone: give the console script or python -m domino_env.{module}")
    else:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        module = Path(name.split()[1]).stem
    return importlib.import_module(module).main


@pytest.fixture
def parse_only(monkeypatch):
    real = argparse.ArgumentParser.parse_known_args

    def parse_known_args(self, args=None, namespace=None):
        namespace, extra = real(self, args, namespace)
        raise Parsed(namespace, extra)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", parse_known_args)
    monkeypatch.setattr(sys, "path", list(sys.path))


def refusal(name: str, argv: list[str]) -> str | None:
    """None when the command's parser takes ``argv``; else what it said."""
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            entry_point(name)(argv)
    except Parsed as parsed:
        extra = parsed.args[1]
        return f"unrecognized arguments: {extra}" if extra else None
    except SystemExit as stop:
        message = stderr.getvalue().strip()
        return None if stop.code in (0, None) or PER_MACHINE in message else message or str(stop)
    return "the command ran without parsing its arguments"


def test_the_pages_have_commands_to_check():
    counts = {str(page.relative_to(ROOT)): len(documented_commands(page)) for page in PAGES}
    assert sum(counts.values()) >= 100, counts
    assert counts["docs/training.md"] >= 20 and counts["docs/evaluation.md"] >= 10, counts


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_documented_command_parses(page, parse_only):
    failures = [
        f"{page.relative_to(ROOT)}:{number}: {name} {shlex.join(argv)}\n    {message}"
        for number, name, argv in documented_commands(page)
        if (message := refusal(name, argv)) is not None
    ]
    assert not failures, "\n".join(failures)


def test_a_stale_flag_is_caught(parse_only, tmp_path):
    page = tmp_path / "page.txt"  # (any text: the pages are Markdown)
    page.write_text(
        "```sh\n"
        "domino-evaluate --agents random random --rounds 8 \\\n"
        "    --no-such-flag 3 | tail -1\n"
        "domino-train --timesteps 2k --seed $s  # a comment\n"
        "python benchmarks/playouts.py --rounds many\n"
        "domino-evaluate --agents ... [--seed 0]\n"
        "for n in 1 2; do nohup .venv/bin/domino-bc --samples $n & done\n"
        "python -m pytest -q -n 2 tests\n"
        "```\n"
        "`domino-evaluate --bogus` (inline code is prose, not checked)\n"
    )
    commands = documented_commands(page)
    assert [(n, name) for n, name, _ in commands] == [
        (2, "domino-evaluate"),
        (4, "domino-train"),
        (5, "python benchmarks/playouts.py"),
        (7, "domino-bc"),
    ]
    assert commands[3][2] == ["--samples", "1"]
    assert commands[1][2] == ["--timesteps", "2k", "--seed", "1"]
    messages = [refusal(name, argv) for _, name, argv in commands]
    assert "unrecognized arguments: ['--no-such-flag', '3']" == messages[0]
    assert messages[1] is None
    assert "--rounds" in messages[2] and "'many'" in messages[2]
