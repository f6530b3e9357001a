"""Tournaments between agents on duplicate deals, with 95% confidence intervals (docs/design.md §5).

Command line (also the ``domino-evaluate`` console script)::

    domino-evaluate --agents planner greedy greedy greedy --rounds 2000 --players 4 \\
        --max-pip 12 [--preset domino_cubano] [--episode round|game] [--seed 0] [--json out.json] \\
        [--workers 2] [--resume] [rule options: --doubles chain --drawn-tile may_play ...]
    domino-evaluate --game cuban --agents planner greedy planner greedy --rounds 2000 \\
        [--teams/--no-teams --next-lead winner --annul-doubles 5 --target-score 100 ...]

``--game`` picks the game: ``mexican_train`` (default; ``--preset`` picks its rule set) or a line
game ``block``, ``draw``, ``cuban`` (the preset of that name; the line rule options override it).

**Duplicate deals.** Deal ``d`` has its own env seed (derived from ``--seed`` and ``d``). Every
seat rotation of the agent list plays that deal: in rotation ``r`` agent ``i`` of the list sits at
seat ``(i + r) % P``. The env is reset with the same seed for every rotation, so the hands, the
boneyard order and the first seat are identical (later rounds of a whole game use the same
shuffles too, as long as no seat is eliminated), so seat and deal luck cancel. ``--rounds`` is the
number of episodes actually played (rounds with ``--episode round``, whole games with
``--episode game``), rounded up to a multiple of P: ``deals = ceil(rounds / P)``, episodes =
``deals * P``.

**Statistics** (per distinct agent name; an agent listed k times is aggregated over its k seats):

* *win rate* = win credit / seat-episodes. A round (or game) won alone gives 1; a shared win
  (blocked round with tied fewest pips, equal game totals) gives ``1/k`` to each of the k winners;
  a void round (``blocked_round="void"``) gives nobody anything. The credits of one episode sum to
  1 (0 if void), so an agent exactly as strong as the others has the **parity share** ``1/P``
  (times the fraction of episodes someone won: not void, not truncated at ``max_cycles``).
* *teams* (line games with ``teams=True``: seats 0+2 against 1+3): the win rate is the **team win
  rate**: when a team wins, *each* of its two seats gets credit 1 (the seat's side won), so the
  credits of one episode sum to 2 and the parity share is **1/2** (two teams). If both teams tie
  for a game win, each of the four seats gets 1/2. An agent's win rate is the fraction of its
  seat-episodes whose side won (with mixed tables its partner may be another agent).
* *annulled rounds* (Cuban: a player with 5+ doubles asks for a new deal) are not rounds: the
  round is re-dealt and only the round that is played out counts (``annulled_rounds`` counts them).
* *95% CI (Wilson)*: the Wilson score interval on (credit, seat-episodes), treating seat-episodes
  as independent trials (fractional credit counts as fractional successes); with teams one trial
  per (episode, team) the agent sits in, as partners share one result.
* *95% CI (per deal)*: the honest one: episodes of the same deal are correlated (and the k seats of
  one agent in one episode are too), so it averages the agent's credit per deal and takes
  ``mean +- t(0.975, D-1) * sd / sqrt(D)`` over the D deal averages; with fewer than 2 deals there
  is no such interval: the tables print ``n/a`` (the JSON keeps ``[0, 1]`` and ``deals``); deal
  averages all equal (every deal won) would give no width: it is then Wilson's over D trials.
* *verdict*: ``above`` / ``below`` when both intervals lie above / below the parity share,
  else ``parity``; ``n/a`` with fewer than 2 deals (no per-deal interval: the episodes of one deal
  are too correlated for Wilson's interval alone to decide), and when every episode was truncated
  (at ``max_cycles``: none ended, so none can be won).
* *mean pips per round*: pips left in the agent's hand at each round's end (lower is better);
  *mean game score*: final game total (whole games only), over the games that finished (a game
  truncated at ``max_cycles`` has no final total; None if none finished).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
from collections.abc import Sequence
from typing import Any

from domino_env.agents.base import agent_names, make_agent
from domino_env.core.config import PRESETS
from domino_env.core.errors import ConfigError, DominoError
from domino_env.core.files import replace_text
from domino_env.envs.games import GAMES, make_raw_env
from domino_env.train.arg_types import MOST_PER_CPU, ROUNDS, SEED, count
from domino_env.train.cli import (
    ArgumentParser,
    OutputError,
    check_output_file,
    rich_console,
    write_stdout,
)
from domino_env.train.evaluate_files import Journal, check_journal, with_provenance
from domino_env.train.interrupts import sigterm_as_interrupt, stop_signals_held

# The tournament lives in train.tournament (playing), train.tournament_results (records, stats,
# tables) and train.intervals (95% intervals), the rule options of every command in
# train.rule_options; this module keeps the command line and re-exports their names, the public
# import path (``from domino_env.train.evaluate import evaluate, ...``): ``name as name``, the
# explicit re-export that type checkers read (mypy --strict).
from domino_env.train.intervals import Z95 as Z95
from domino_env.train.intervals import mean_interval as mean_interval
from domino_env.train.intervals import t_quantile_975 as t_quantile_975
from domino_env.train.intervals import wilson_interval as wilson_interval
from domino_env.train.rule_options import MEXICAN_TRAIN_RULE_ARGS as MEXICAN_TRAIN_RULE_ARGS
from domino_env.train.rule_options import add_line_rule_options as add_line_rule_options
from domino_env.train.rule_options import (
    add_mexican_train_rule_options as add_mexican_train_rule_options,
)
from domino_env.train.rule_options import evaluate_command as evaluate_command
from domino_env.train.rule_options import rule_flags as rule_flags
from domino_env.train.rule_options import rule_kwargs as rule_kwargs
from domino_env.train.tournament import _credit  # noqa: F401
from domino_env.train.tournament import deal_seed as deal_seed
from domino_env.train.tournament import evaluate as evaluate
from domino_env.train.tournament import play_episode as play_episode
from domino_env.train.tournament import rotation_seats as rotation_seats
from domino_env.train.tournament_journal import JOURNAL_SUFFIX, JournalError
from domino_env.train.tournament_results import AgentStats as AgentStats
from domino_env.train.tournament_results import EvaluationResult as EvaluationResult
from domino_env.train.tournament_results import GameRecord as GameRecord
from domino_env.train.tournament_results import deal_interval_text as deal_interval_text
from domino_env.train.tournament_results import summarize as summarize

#: Games ``evaluate`` / ``--game`` accept: Mexican Train and the line games (their presets).
#: ``--game`` values as the messages spell them.
GAME_NAMES = {"mexican_train": "Mexican Train", "block": "block", "draw": "draw", "cuban": "Cuban"}


def seats_error_line(exc: ConfigError, game: str, seats: int, flag: str = "--players",
                     no_teams: bool = False) -> str | None:  # fmt: skip
    """The command-line message of a rules error about the seat count, naming the flag that set it
    (``--players``, or ``--agents`` when the agent list gives the seats) instead of the config
    field (``num_players``, ``teams``); None for an error about another field. ``no_teams``: the
    command has ``--no-teams`` (suggested for a teams error)."""
    name = GAME_NAMES.get(game, game)
    what = "agents" if flag == "--agents" else "players"
    if exc.field == "num_players":
        found = re.search(r"from (\d+) to (\d+)", exc.allowed)
        allowed = f"{found[1]} to {found[2]}" if found else exc.allowed
        if flag == "--agents":
            return f"--agents needs one agent per seat, {allowed} seats for {name}; got {seats}"
        return f"--players {seats}: {name} takes {allowed} players"
    if exc.field == "teams":
        return (f"{flag}: {name} plays in teams of two (seats 0+2 vs 1+3), which needs 4 {what}; got {seats}"
                + (" (or give --no-teams)" if no_teams else ""))  # fmt: skip
    if exc.field == "agents" and flag == "--players":
        given = len(exc.value) if isinstance(exc.value, (list, tuple)) else exc.value
        return f"--players {seats} needs {seats} --agents (one per seat); got {given}"
    return None


make_env = make_raw_env  # the raw AEC env of a game by name (domino_env.envs.games)

#: How the command line writes a registered agent that takes an argument (``name:ARG``), and the
#: order of the listing; a name not here is listed as it is, after these.
AGENT_FORMS = {
    "random": "random",
    "greedy": "greedy",
    "planner": "planner (Mexican Train planner:BUDGET; line games planner:N, planner:search[=N])",
    "search": "search (search:N, search:key=value,... with keys budget, candidates, prior, margin, rollout, opponent_model (line games))",
    "ppo": "ppo:PATH (a domino-train folder)",
    "rllib": "rllib:PATH (a domino-rllib run)",
}


def agent_choices() -> str:
    """Every agent name of the registry (both game families) as the command line takes it:
    ``"random, greedy, planner (planner:BUDGET), search (search:N, ...), ppo:PATH (...), ..."``."""
    names = dict.fromkeys([*agent_names("mexican_train"), *agent_names("line")])
    order = list(AGENT_FORMS)
    ranked = sorted(names, key=lambda n: (order.index(n) if n in order else len(order), n))
    return ", ".join(AGENT_FORMS.get(n, n) for n in ranked)


#: The keys of a tournament result (an earlier ``--json``, which a rerun may overwrite).
RESULT_KEYS = {"agents", "stats", "rounds_played"}


def flag_error_line(parser: argparse.ArgumentParser, exc: ConfigError) -> str:
    """``exc`` prefixed with the flag that sets its config field (``max_pip`` -> ``--max-pip:``)
    when ``parser`` has that flag, else ``exc`` as it is."""
    flag = "--" + exc.field.replace("_", "-")
    # the command line's own spelling of "none" (the config takes None)
    also = " (or 0: no annulment)" if exc.field == "annul_doubles" else ""
    return f"{flag}: {exc}{also}" if flag in parser._option_string_actions else str(exc)


def preset_hand_line(exc: ConfigError, game: str, max_pip: int | None, hand_size: int | None) -> str | None:
    """The line for a line game's preset hand that ``--max-pip`` leaves too few tiles for (no
    ``--hand-size`` given): it names ``--max-pip`` and the hand sizes that fit, else None."""
    if game == "mexican_train" or exc.field != "hand_size" or hand_size is not None or max_pip is None:
        return None
    fits = exc.allowed.split(" (")[0]  # "an integer from 1 to 7"
    return (f"--max-pip {max_pip}: too few tiles for the {game} preset's {exc.value}-tile hands; "
            f"give --hand-size too ({fits})")  # fmt: skip


# ---------------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="domino-evaluate",
        description="Duplicate-deal tournament (Mexican Train, or the line games block, draw and "
        "Cuban): every deal is played in every seat rotation of the agent list; prints win rates "
        "with 95% confidence intervals (with teams: team win rates, parity 1/2).",
    )
    parser.add_argument(
        "--game",
        default="mexican_train",
        choices=GAMES,
        help="mexican_train (default; --preset picks its rule set) or a line game: block, draw, "
        "cuban (that preset; the line rule options override it)",
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="AGENT",
        help=f"one agent per seat, in seat order of the first rotation: {agent_choices()}; "
        "repeated names are aggregated; your own agents: give each a name with "
        "domino_env.agents.register_agent in a script that runs this command through "
        "domino_env.train.cli.launch (docs/agents.md, 'Your own agent')",
    )
    parser.add_argument(
        "--rounds",
        type=ROUNDS,
        default=2000,
        help="episodes to play (rounds, or whole games with --episode game), rounded up to a "
        "multiple of the player count; each deal is played once per seat rotation (default 2000)",
    )
    parser.add_argument(
        "--players",
        type=count,
        default=None,
        help="seats, 2..8; must equal the number of --agents (default: that number)",
    )
    parser.add_argument(
        "--max-pip",
        type=int,
        default=None,
        choices=(6, 9, 12, 15, 18),
        help="double-N set (default: the preset's: 12 for Mexican Train (9, 12, 15, 18), 6 for "
        "block and draw, 9 for cuban (line games: 6, 9, 12))",
    )
    parser.add_argument(
        "--preset",
        default=None,
        choices=tuple(PRESETS),
        help="Mexican Train rule preset (default domino_cubano); rule options below override it. "
        "The line games take their preset from --game",
    )
    parser.add_argument(
        "--episode",
        default="round",
        choices=("round", "game"),
        help="play single rounds (default) or whole games",
    )
    parser.add_argument(
        "--seed",
        type=SEED,
        default=0,
        help="tournament seed, 0 to 2**32 - 1: deals and agent generators (default 0)",
    )
    parser.add_argument(
        "--json",
        default=None,
        metavar="PATH",
        help="also write the results (config, seeds, agents, stats) as JSON; '-': to stdout (the table then goes to stderr)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the tournament that an interrupted run of this command left in PATH"
        f"{JOURNAL_SUFFIX} (--json PATH keeps every finished deal there until PATH is written); "
        "the result is the one of a run straight through",
    )
    parser.add_argument(
        "--records", action="store_true", help="add one result row per episode (deal, rotation, seed, seats, rounds, credits, pips, scores) to the JSON"
    )
    parser.add_argument(
        "--workers", type=count, default=1, help="processes to play deals in parallel (default 1)"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_mexican_train_rule_options(parser)
    add_line_rule_options(parser, teams_note=" Win rates are then team win rates (parity 1/2).")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``domino-evaluate`` (``python -m domino_env.train.evaluate``) (see :func:`run`)."""
    run(argv)


def check_agents(parser: argparse.ArgumentParser, args: argparse.Namespace, players: int,
                 kwargs: dict[str, Any]) -> None:  # fmt: skip
    """The seat count fits the game and every ``--agents`` spec builds for its rules (``ppo:PATH``
    models load and fit), else a one-line parser error naming the flag; before any play."""
    if players != len(args.agents):
        parser.error(
            f"--players {players} needs {players} --agents (one per seat); got {len(args.agents)}"
        )
    try:
        config = make_env(args.game, num_players=players, episode=args.episode, **kwargs).config
    except ConfigError as exc:  # name the flag, not the config field
        flag = "--players" if args.players is not None else "--agents"
        parser.error(
            seats_error_line(exc, args.game, players, flag, no_teams=True)
            or preset_hand_line(exc, args.game, args.max_pip, args.hand_size)
            or flag_error_line(parser, exc)
        )
    except DominoError as exc:
        parser.error(str(exc))
    for spec in dict.fromkeys(args.agents):
        try:
            make_agent(spec, config)
        except (DominoError, OSError) as exc:
            parser.error(f"--agents {spec}: {exc}")


def run(argv: Sequence[str] | None = None) -> EvaluationResult:
    """Parse ``argv``, play the tournament, print the table, write the JSON; return the result."""
    parser = build_parser()
    script = sys.argv[0] if argv is None else None  # what the user started (None: a call from Python)
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if not 1 <= args.workers <= MOST_PER_CPU:  # more processes than that only wait for each other
        parser.error(f"--workers must be from 1 to {MOST_PER_CPU} (4 x the CPUs), got {args.workers}")
    if args.json is not None and args.json != "-":
        check_output_file(parser, "--json", args.json, RESULT_KEYS, "a domino-evaluate result")
    elif args.json is None and args.records:
        parser.error("--records adds every episode's result row to the --json file: give --json PATH too")
    if args.max_pip is not None:
        allowed = (9, 12, 15, 18) if args.game == "mexican_train" else (6, 9, 12)
        if args.max_pip not in allowed:
            parser.error(f"--max-pip: max_pip={args.max_pip} is not a set of --game {args.game}; allowed: {allowed}")
    players = args.players if args.players is not None else len(args.agents)
    if args.game == "cuban" and args.teams is not False and players != 4:  # (the count said: --players's, if given)
        seats = ("--players 4", f"--players {players}") if args.players is not None else ("4 agents", str(players))
        parser.error(f"--game cuban plays in teams of two: give {seats[0]}, or --no-teams ({seats[1]} given)")
    kwargs = rule_kwargs(parser, args)
    check_agents(parser, args, players, kwargs)
    journal = check_journal(parser, args, players, kwargs)
    try:  # the journal's lock is held until the result is written (or the run stops)
        return _play(parser, args, argv, script, players, kwargs, journal)
    finally:
        if journal is not None:
            journal.release()


def _play(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: list[str], script: str | None,
          players: int, kwargs: dict[str, Any], journal: Journal | None) -> EvaluationResult:  # fmt: skip
    """:func:`run` once the flags are checked: play, print the table, write the JSON."""
    # SIGTERM (kill, a scheduler, timeout) stops the tournament as Ctrl-C does: it used to end the
    # process at once, silently, leaving the --workers processes behind
    try:
        with sigterm_as_interrupt():
            result = evaluate(
                args.agents,
                rounds=args.rounds,
                num_players=players,
                seed=args.seed,
                episode=args.episode,
                workers=args.workers,
                progress=not args.no_progress,
                keep_records=args.records,
                game=args.game,
                journal=journal and journal.path,
                **kwargs,
            )
    except JournalError as exc:  # could not be written (checked before the games: a full disk)
        kept = journal.kept()  # none: the journal was never written (its folder is not writable after all)
        left = f"{journal.kept_line(kept)} once it can be written" if kept else f"0 of {journal.deals} deal{'s' * (journal.deals != 1)} kept"
        raise OutputError(f"--json {args.json}: {exc}; {left}") from None
    except DominoError as exc:  # check_agents found the flags good: not expected
        parser.error(str(exc))
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the workers are stopped; say what is kept
        name = "SIGTERM" if exc.args[:1] == ("SIGTERM",) else "SIGINT"
        kept = ""
        if args.json not in (None, "-"):
            kept = f"; {args.json} keeps its earlier result" if os.path.exists(args.json) else f"; {args.json} not written"
        done = "no results"
        played = journal.kept() if journal is not None else 0
        if played:
            done = journal.kept_line(played)
        elif journal is not None:  # nothing to continue: no file left to refuse the next run
            journal.path.unlink(missing_ok=True)
        raise KeyboardInterrupt(name, f"the tournament did not finish: {done}{kept}") from None
    written: list[str] = []  # the --json PATH once it holds the result
    try:  # a signal now stops the printing and writing, not the tournament: say what is kept
        with sigterm_as_interrupt():
            _write_result(args, argv, script, journal, result, written)
    except KeyboardInterrupt as exc:
        name = "SIGTERM" if exc.args[:1] == ("SIGTERM",) else "SIGINT"
        if journal is None:  # no --json PATH: the table (or --json -) was being written
            kept = "its result was not written whole"
        elif written:  # the journal's deals are in it
            journal.path.unlink(missing_ok=True)
            kept = f"its result is written to {args.json}"
        else:
            earlier = "keeps its earlier result" if os.path.exists(args.json) else "not written"
            kept = f"{journal.kept_line()}, writing the result without playing again; {args.json} {earlier}"
        raise KeyboardInterrupt(name, f"the tournament finished; {kept}") from None
    return result


def _write_result(args: argparse.Namespace, argv: list[str], script: str | None, journal: Journal | None,
                  result: EvaluationResult, written: list[str]) -> None:  # fmt: skip
    """Print the table and write ``--json`` (through a temporary file; then its name goes in
    ``written``), then remove the journal."""
    to_stderr = args.json == "-"  # --json -: stdout holds the JSON alone
    console = rich_console(stderr=to_stderr)
    if not console.is_terminal:  # piped or captured: do not squeeze the table into 80 columns
        console = rich_console(width=200, stderr=to_stderr)
    try:
        print_result(console, result)
        closed = None
    except BrokenPipeError as exc:  # `| head` stopped reading the table: the JSON is written all the same
        closed = exc
    if args.json:  # through a temporary file: a Ctrl-C while writing keeps the earlier file whole
        text = json.dumps(with_provenance(result.to_dict(records=args.records), argv, script), indent=1)
        if args.json == "-":
            try:
                write_stdout(text + "\n")
            except BrokenPipeError:
                raise
            except OSError as exc:  # a full disk behind a redirection: never half a result and status 0
                raise OutputError(f"--json -: the result could not be written whole to stdout ({exc.strerror or exc})") from None
        else:
            try:
                with stop_signals_held() as noted:  # a signal meanwhile acts once the result is whole
                    replace_text(args.json, text)
                    written.append(args.json)
            except OSError as exc:  # checked before the games; a full disk, a folder removed since
                kept = f"; {journal.kept_line()}, writing the result without playing again" if journal else ""
                raise OutputError(f"--json {args.json}: could not be written ({exc.strerror or exc}){kept}") from None
            for signum in noted:
                signal.raise_signal(signum)
    if journal is not None:  # the result is written: its deals are in it
        journal.path.unlink(missing_ok=True)
    if closed is not None:
        raise closed  # launch: exit 141, nothing more printed
    if args.json and args.json != "-":
        console.print(f"wrote {args.json}", markup=False, emoji=False, highlight=False)


def print_result(console: Any, result: EvaluationResult) -> None:
    """The tournament's table and its summary line (rounds, how they ended, the parity share)."""
    console.print(result.table(width=console.width))
    annulled = f", {result.annulled_rounds} annulled and re-dealt" if result.annulled_rounds else ""
    parity = (
        "Teams: win rate = team win rate, parity share = 1/2"
        if result.teams
        else "Parity share = 1/P x fraction of episodes someone won (not void, not truncated)"
    )
    games = f" in {result.episodes} games" if result.episode == "game" else ""
    here = result.deals - result.resumed_deals
    resumed = (f" ({here} deal{'s' * (here != 1)} in this run, {result.resumed_deals} from the "
               "interrupted run's journal)") if result.resumed_deals else ""  # fmt: skip
    console.print(
        f"{result.rounds_played} rounds{games} "
        f"({result.blocked_rounds} blocked, {result.void_rounds} void, {result.truncated_episodes} truncated{annulled}) "
        f"in {result.seconds:.1f}s with {result.workers} worker(s){resumed}. {parity}; CI per deal = t interval over "
        f"the {result.deals} per-deal averages (n/a with fewer than 2; Wilson over the deals if all equal).", soft_wrap=True,
    )  # soft_wrap: one line in a log (a terminal wraps it itself)


if __name__ == "__main__":  # through train.cli: a missing extra or a bad file is one line
    from domino_env.train.cli import launch

    launch("domino-evaluate", main)
