"""Evaluation of a learner against the scripted ladder: duplicate-deal tournaments ``[agent, X,
..., X]`` for each ladder agent X (:func:`evaluate_vs_ladder`) and their tables (Markdown for the
run folder, rich for the terminal). Used by ``domino_env.train.ppo`` (periodic and final evaluations) and
``domino_env.train.bc``.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import Any

#: The scripted ladder, weakest first (the default evaluation opponents).
LADDER = ("random", "greedy", "planner")


def evaluate_vs_ladder(
    agent: Any,
    rules: dict[str, Any],
    opponents: Sequence[str],
    rounds: int,
    seed: int,
    workers: int = 1,
    episode: str = "round",
    game: str = "mexican_train",
    partner: str = "opponents",
    progress: bool = False,
) -> dict[str, dict[str, Any]]:
    """Duplicate-deal tournaments ``[agent, X, X, ..., X]`` for each X in ``opponents``
    (``domino_env.train.evaluate.evaluate``; the agent applies its mask at every decision).
    With teams and ``partner="learner"`` (a model trained as both seats of its team) the agent
    sits in both seats of its team: ``[agent, X, agent, X]``, the team's win rate. ``progress``:
    a progress bar for each tournament (tqdm, on stderr).

    Returns:
        ``{X: {"win_rate", "ci95_wilson", "ci95_deal", "parity", "verdict", "mean_pips",
        "seat_rounds", "opponent_win_rate", "opponent_mean_pips", "opponent_seat_rounds",
        "opponent_seats", "rounds", "episode", "seconds", "partner_is_opponent", "table"}}`` (``table``:
        Markdown; ``opponent_seats``: how many seats X played, P-1 or 2 with the agent in both seats
        of its team; ``partner_is_opponent``: with teams, X also plays the agent's partner, so X's
        pips and win rate include that seat; ``seat_rounds``, ``opponent_seat_rounds``: the seat
        rounds behind each mean pips, 0 when every episode was truncated before a round ended:
        the mean is then 0.0 and :func:`pips_text` shows ``n/a``; ``rounds``: the episodes played,
        whole games with ``episode`` ``"game"``, as the tables say: :func:`episode_unit`).
    """
    from domino_env.train.evaluate import evaluate

    p = rules["num_players"]
    kwargs = {k: v for k, v in rules.items() if k != "num_players"}
    label = getattr(agent, "name", "ppo")
    both = partner == "learner" and p == 4  # teams are 4 players: seats 0+2 against 1+3
    out = {}
    for opp in opponents:
        with warnings.catch_warnings():  # with teams X sits on both sides by design ([ppo, X, X, X])
            warnings.filterwarnings("ignore", message=r"agent\(s\) .* sit on both teams")
            res = evaluate(
                [agent, opp, agent, opp] if both else [agent] + [opp] * (p - 1),
                rounds=rounds,
                num_players=p,
                seed=seed,
                episode=episode,
                workers=workers,
                game=game,
                progress=progress,
                **kwargs,
            )
        me = res.stats_for(label)
        them = res.stats_for(opp)
        out[opp] = {
            "win_rate": me.win_rate,
            "ci95_wilson": list(me.ci95_wilson),
            "ci95_deal": list(me.ci95_deal),
            "deals": me.deals,
            "parity": me.parity,
            "verdict": me.verdict,
            "mean_pips": me.mean_pips_per_round,
            "seat_rounds": me.seat_rounds,
            "opponent_win_rate": them.win_rate,
            "opponent_mean_pips": them.mean_pips_per_round,
            "opponent_seat_rounds": them.seat_rounds,
            "opponent_seats": 2 if both else p - 1,
            "partner_is_opponent": bool(rules.get("teams")) and not both,  # X also sits at seat 2
            "rounds": res.episodes,
            "episode": episode,  # what "rounds" counts: rounds, or whole games
            "seconds": res.seconds,
            "table": res.markdown(),
        }
    return out


def pips_text(result: dict[str, Any], who: str = "learner", digits: int = 2) -> str:
    """One of :func:`evaluate_vs_ladder`'s mean pips (``who``: ``"learner"`` or ``"opponent"``) as
    text, ``n/a`` when those seats played no round (results from before the seat rounds were kept
    always show the number)."""
    key = "mean_pips" if who == "learner" else "opponent_mean_pips"
    played = result.get("seat_rounds" if who == "learner" else "opponent_seat_rounds", 1)
    return f"{result[key]:.{digits}f}" if played else "n/a"


def strip_tables(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The evaluations without their Markdown tables (for JSON files)."""
    return [
        {
            **e,
            "results": {
                o: {k: v for k, v in r.items() if k != "table"} for o, r in e["results"].items()
            },
        }
        for e in history
    ]


def episode_unit(results: dict[str, dict[str, Any]]) -> str:
    """What a row's episodes are, as the tables name them: ``"games"`` with ``--episode game``,
    else ``"rounds"`` (results from before ``episode`` was kept were rounds)."""
    return "games" if any(r.get("episode") == "game" for r in results.values()) else "rounds"


def summary_markdown(
    results: dict[str, dict[str, Any]], label: str = "ppo", num_players: int | None = None
) -> str:
    """One Markdown row per ladder opponent: the learner's win rate, CIs and pips against P-1 of it
    (``num_players`` 2: the columns say "opponent's")."""
    from domino_env.train.tournament_results import deal_interval_text, interval_text

    their = "opponent's" if num_players == 2 else "opponents'"
    if _partner_is_opponent(results):
        their = "X seats' (partner + opponents)"
    rows = [
        f"| opponents | {episode_unit(results)} | {label} win rate | 95% CI (Wilson) | 95% CI (per deal) | parity | verdict | {label} mean pips | {their} mean pips | {their} win rate |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for opp, r in results.items():
        rows.append(
            f"| {opp} | {r['rounds']} | {r['win_rate']:.3f} | {interval_text(r['ci95_wilson'], r['parity'])} | "
            f"{deal_interval_text(r['ci95_deal'], r.get('deals', 2), r['parity'])} | {r['parity']:.3f} | {r['verdict']} | "
            f"{pips_text(r)} | {pips_text(r, 'opponent')} | {r['opponent_win_rate']:.3f} |"
        )
    return "\n".join(rows)


def rounds_played(results: dict[str, dict[str, Any]]) -> int:
    """The episodes (rounds, or games: :func:`episode_unit`) each row of :func:`evaluate_vs_ladder`'s
    results played: the requested count rounded up to whole deals (every deal is played in every
    seat rotation: 20 -> 21 with 3 players)."""
    return max(r["rounds"] for r in results.values())


def summary_title(model: Any, results: dict[str, dict[str, Any]], p: int) -> str:
    """``MODEL: R duplicate-deal rounds (or games) vs P-1 copies of each ladder agent`` (R: the rounds played,
    :func:`rounds_played`; "1 copy" with 2 players; 2 copies, "the model in both seats of its
    team", when it played as its own partner)."""
    n = _opponent_seats(results, p)
    both = ", the model in both seats of its team" if n < p - 1 else ""
    return (
        f"{model}: {rounds_played(results)} duplicate-deal {episode_unit(results)} vs {n} "
        f"{'copy' if n == 1 else 'copies'} of each ladder agent{both}"
    )


def _opponent_seats(results: dict[str, dict[str, Any]], p: int) -> int:
    # results from before "opponent_seats" existed had the agent in one seat
    return min((r.get("opponent_seats", p - 1) for r in results.values()), default=p - 1)


def final_evaluation_markdown(
    results: dict[str, dict[str, Any]], model: str, seed: int, num_players: int | None = None
) -> str:
    """The ``final_evaluation.md`` of a run folder: the summary and every tournament table (the
    header gives the rounds each row played, :func:`rounds_played`)."""
    return (
        f"Final evaluation of {model} ({rounds_played(results)} duplicate-deal {episode_unit(results)} per row, seed {seed}):\n\n"
        + summary_markdown(results, num_players=num_players)
        + "\n\n"
        + "\n\n".join(f"vs {o}:\n\n{r['table']}" for o, r in results.items())
        + "\n"
    )


def _partner_is_opponent(results: dict[str, dict[str, Any]]) -> bool:
    """Teams with the ladder agent X as the learner's partner too (``[ppo, X, X, X]``)."""
    return any(r.get("partner_is_opponent") for r in results.values())


def _others_column(results: dict[str, dict[str, Any]], n: int) -> str:
    """The X seats' pips column: "3 opponents", or with teams and the partner an X seat
    (``[ppo, X, X, X]``) "3 X seats (partner + 2 opponents)"."""
    if _partner_is_opponent(results):
        return f"pips ({n} X seats: partner + {n - 1} opponents)"
    return f"pips ({n} opponent{'' if n == 1 else 's'})"


def print_summary(results: dict[str, dict[str, Any]], p: int, title: str) -> None:
    """The summary as a rich table on stdout (:func:`~domino_env.train.tables.fitted_table`: one
    row an opponent, or transposed when the terminal is too narrow)."""
    from domino_env.train.cli import rich_console
    from domino_env.train.tables import fitted_table, verdict_cell
    from domino_env.train.tournament_results import deal_interval_text, interval_text

    n = _opponent_seats(results, p)
    columns = [("opponents", "left")] + [(c, "right") for c in (
        episode_unit(results), "win rate", "95% CI Wilson", "95% CI per deal", "parity", "verdict", "pips (learner)",
        _others_column(results, n))]  # fmt: skip
    rows = [
        [f"{n} x {opp}", str(r["rounds"]), f"{r['win_rate']:.3f}", interval_text(r["ci95_wilson"], r["parity"]),
         deal_interval_text(r["ci95_deal"], r.get("deals", 2), r["parity"]), f"{r['parity']:.3f}", verdict_cell(r["verdict"]),
         pips_text(r), pips_text(r, "opponent")]
        for opp, r in results.items()
    ]  # fmt: skip
    console = rich_console(width=None if sys.stdout.isatty() else 150)
    console.print(fitted_table(title, columns, rows, console.width))


def finish_run(folder: Any, agent: Any, args: Any, rules: dict[str, Any], game: str, eval_seed: int,
               workers: int, start: float) -> dict[str, dict[str, Any]] | None:
    """End a training run (``train.ppo``, ``train.bc``): the final evaluation of ``agent`` against
    ``args.eval_opponents`` (``args.final_eval_rounds`` duplicate-deal rounds, none when 0) into
    ``final_evaluation.md``, then the run folder's metadata with status ``"done"``, the wall time
    since ``start`` (``time.perf_counter()`` seconds) and the results. Returns the results or None."""
    import time

    from domino_env.agents.ppo import MODEL_FILE
    from domino_env.train.run_folder import FINAL_EVALUATION_FILE

    final = None
    stale = folder.path / FINAL_EVALUATION_FILE
    if stale.exists():  # an earlier model's (a resume into its folder): never beside this one
        stale.unlink()
    if args.final_eval_rounds > 0:
        final = evaluate_vs_ladder(agent, rules, args.eval_opponents, args.final_eval_rounds,
                                   eval_seed, workers, args.episode, game, getattr(args, "partner", "opponents"),
                                   # a bar: it was a minute of silence after training's
                                   progress=getattr(args, "progress", False) and not getattr(args, "quiet", False))  # fmt: skip
        folder.write_text(FINAL_EVALUATION_FILE, final_evaluation_markdown(
            final, str(folder.path / MODEL_FILE), eval_seed, rules.get("num_players")))
    folder.write_metadata(
        status="done",
        wall_seconds=round(time.perf_counter() - start, 1),
        final_evaluation=strip_tables([{"results": final}])[0]["results"] if final else None,
        # the rounds played (rounded up to whole deals of every seat rotation), not those asked
        final_evaluation_rounds=max(r["rounds"] for r in final.values()) if final else 0,
    )
    return final
