"""What ``domino-rllib`` (:mod:`domino_env.train.rllib`) leaves in its run folder at each save and
at the end: the checkpoint, swapped in whole (:func:`save_checkpoint`), the metadata
(:func:`write_metadata`) and the final evaluation of the checkpoint (:func:`evaluate_checkpoint`).
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
from pathlib import Path
from typing import Any

from domino_env.agents.rllib.agent import CHECKPOINT_DIR, METADATA_FILE
from domino_env.core.files import replace_text, sync_tree
from domino_env.train.interrupts import stop_signals_held


def save_checkpoint(algo: Any, out: Path, metadata: dict[str, Any]) -> int | None:
    """Write the algorithm checkpoint and ``metadata`` into ``checkpoint.saving/``, then put it in
    the place of ``checkpoint/`` (and the run folder's ``domino_rllib.json``), with SIGINT and SIGTERM
    held for the swap: a signal (a second Ctrl-C) or an error while RLlib writes leaves the earlier
    checkpoint whole, where writing in place left it unloadable (an empty ``module_state.pkl``).
    Returns the signal that came during the swap (the caller raises it), or None."""
    final = (out / CHECKPOINT_DIR).resolve()
    partial, old = final.with_name(f"{CHECKPOINT_DIR}.saving"), final.with_name(f"{CHECKPOINT_DIR}.old")
    shutil.rmtree(partial, ignore_errors=True)
    text = json.dumps(metadata, indent=1, default=str)
    try:
        algo.save_to_path(str(partial))
        sync_tree(partial)  # on the disk before the swap: a crash of the machine leaves one whole
        replace_text(partial / METADATA_FILE, text)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    with stop_signals_held() as noted:
        if final.exists():
            final.rename(old)
        partial.rename(final)
        replace_text(out / METADATA_FILE, text)  # (syncs the run folder, and so the renames)
        shutil.rmtree(old, ignore_errors=True)
    return noted[0] if noted else None


def write_metadata(out: Path, metadata: dict[str, Any]) -> None:
    """Write ``domino_rllib.json`` into the run folder and its checkpoint (the loader's copy)."""
    text = json.dumps(metadata, indent=1, default=str)
    for path in (out / METADATA_FILE, out / CHECKPOINT_DIR / METADATA_FILE):  # a signal keeps them whole
        replace_text(path, text)


def evaluate_checkpoint(out: Path, args: argparse.Namespace, env_config: dict[str, Any]) -> dict[str, Any]:
    """``[rllib:OUT, X, ..., X]`` duplicate-deal tournaments through ``domino_env.train.evaluate``;
    with teams the model plays both seats of its team against an ``X`` team (``[rllib:OUT, X,
    rllib:OUT, X]``: with X on both teams its team win rate would be 1/2 by construction)."""
    from domino_env.agents.rllib.env import aec_from_env_config
    from domino_env.train.evaluate import evaluate  # looked up at call time (tests replace it)
    from domino_env.train.tournament_results import deal_interval_text

    kwargs = {k: v for k, v in env_config.items() if k not in ("game", "num_players", "reward")}
    p = env_config["num_players"]
    teams = bool(getattr(aec_from_env_config(env_config).config, "teams", False))
    model = f"rllib:{out}"
    results = {}
    for opponent in args.eval_opponents:
        lineup = _lineup(model, opponent, p, teams)
        res = evaluate(
            lineup, rounds=args.eval_rounds, num_players=p,
            seed=args.seed, game=args.game, progress=args.progress, **kwargs,
        )  # fmt: skip
        s = res.stats_for(model)
        results[opponent] = {"win_rate": s.win_rate, "ci95_deal": list(s.ci95_deal), "ci95_wilson": list(s.ci95_wilson),
                             "deals": s.deals, "parity": s.parity, "verdict": s.verdict,
                             "rounds": res.rounds_played}  # fmt: skip
        # with --episode game the win rate is per game: say how many (as domino-evaluate does)
        games = getattr(res, "episode", "round") == "game"
        if games:
            results[opponent]["games"] = res.episodes
        # the verdict needs both intervals clear of parity (docs/evaluation.md): print both
        where = {"above": "above ", "below": "below ", "n/a": "one deal: no verdict; "}.get(s.verdict, "at ")
        print(f"rllib vs {opponent}: win rate {s.win_rate:.3f}, 95% CI {deal_interval_text(s.ci95_deal, s.deals)} "
              f"per deal, [{s.ci95_wilson[0]:.3f}, {s.ci95_wilson[1]:.3f}] Wilson ({where}parity {s.parity:.3f}) "
              f"over {res.rounds_played} rounds{f' in {res.episodes} games' if games else ''}")  # fmt: skip
    return results


def _lineup(model: str, opponent: str, num_players: int, teams: bool) -> list[str]:
    return [model, opponent] * (num_players // 2) if teams else [model] + [opponent] * (num_players - 1)


def evaluation_commands(out: Path, args: argparse.Namespace, env_config: dict[str, Any]) -> list[str]:
    """The ``domino-evaluate`` commands that play what :func:`evaluate_checkpoint` plays (one per
    ``--eval-opponents`` entry: the same lineup, rules, rounds and seed): how to run a final
    evaluation that a signal skipped."""
    from domino_env.agents.rllib.env import aec_from_env_config
    from domino_env.train.rule_options import rule_flags

    aec = aec_from_env_config(env_config)
    p, teams = env_config["num_players"], bool(getattr(aec.config, "teams", False))
    return [" ".join(["domino-evaluate", *rule_flags(args), "--agents",
                      *map(shlex.quote, _lineup(f"rllib:{out}", opponent, p, teams)),
                      "--rounds", str(args.eval_rounds), "--seed", str(args.seed)])
            for opponent in args.eval_opponents]  # fmt: skip
