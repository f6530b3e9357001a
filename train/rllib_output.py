"""What ``domino-rllib`` (:mod:`domino_env.train.rllib`) leaves in its run folder at each save and
at the end: the checkpoint, swapped in whole (:func:`save_checkpoint`), the metadata
(:func:`write_metadata`), the final evaluation of the checkpoint (:func:`evaluate_checkpoint`) or
the line of one a signal skipped (:func:`skip_evaluation`), and the one line of a write the run
folder refused (:func:`refused_as`, :func:`refusal_error`).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import platform
import shlex
import shutil
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from domino_env.agents.rllib.agent import CHECKPOINT_DIR, METADATA_FILE
from domino_env.core.files import replace_text, sync_tree
from domino_env.train.interrupts import stop_began, stop_signals_held
from domino_env.train.outputs import WRITE_FAILURES, OutputError
from domino_env.train.rule_options import evaluate_command

#: The errors of a write that the run folder refused: the disk's (:data:`WRITE_FAILURES`: full, over
#: quota, a file too large, a read-only file system) and a permission refusal (EPERM: a folder made
#: immutable, ``chattr +i``; EACCES: one made read-only, ``chmod a-w``, for a user other than root).
WRITE_REFUSALS = WRITE_FAILURES | {errno.EPERM, errno.EACCES}
_PERMISSION = frozenset({errno.EPERM, errno.EACCES, errno.EROFS})


def versions() -> dict[str, str]:
    """The versions ``domino_rllib.json`` records: this package's, Ray's, torch's, Python's, numpy's."""
    import numpy as np
    import ray
    import torch

    import domino_env

    return {"domino_env": domino_env.__version__, "ray": ray.__version__, "torch": torch.__version__,
            "python": platform.python_version(), "numpy": np.__version__}  # fmt: skip


class WriteRefused(Exception):
    """A write of the run into its folder that was refused (:data:`WRITE_REFUSALS`): ``error`` (the
    OSError; pyarrow's, from RLlib's checkpoint writer, names no file) and ``path``, what was written;
    for a rename, ``target``, where ``path`` was moved (both as the user gave the run folder), and
    ``blamed``, the one of them that refuses (made immutable?: ``path`` unless given). ``swapped``:
    refused after the swap's renames, the new checkpoint in ``checkpoint/`` (``checkpoint.old/``
    left, the run's ``domino_rllib.json`` not yet its copy)."""

    def __init__(self, error: OSError, path: Path, target: Path | None = None, blamed: Path | None = None,
                 swapped: bool = False):  # fmt: skip
        super().__init__(error, path, target)
        self.error, self.path, self.target = error, Path(path), None if target is None else Path(target)
        self.blamed, self.swapped = Path(blamed) if blamed is not None else self.path, swapped
        self.removing = False  # a removal refused: ``path``, a file (or folder) of a leftover checkpoint.old/


@contextlib.contextmanager
def refused_as(path: Path) -> Iterator[None]:
    """Around a write of the run into ``path``: an OSError of :data:`WRITE_REFUSALS` is raised as
    :class:`WriteRefused` (other errors as they are)."""
    try:
        yield
    except OSError as exc:
        if exc.errno in WRITE_REFUSALS:
            raise WriteRefused(exc, path) from exc
        raise


@contextlib.contextmanager
def refused_replace(swapped: bool = False) -> Iterator[None]:
    """Around :func:`replace_text` of a run's file: a refusal (:data:`WRITE_REFUSALS`) is raised as
    :class:`WriteRefused`, the refused rename of its ``.NAME.partial`` onto the file (blamed: the
    file, made immutable?) or the write of the ``.partial`` (``swapped``: as :class:`WriteRefused`)."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in WRITE_REFUSALS or exc.filename is None:
            raise
        target = None if exc.filename2 is None else Path(exc.filename2)
        raise WriteRefused(exc, Path(exc.filename), target, target, swapped) from exc


def refusal_error(refused: WriteRefused, out: Path, saved_at: int | None, then: str | None,
                  flag: str = "--out", kept: str | None = None, skipped: str | None = None) -> OutputError:  # fmt: skip
    """The one line (``domino-rllib: error: FLAG OUT: ...``, exit status 1) of a write the run folder ``out``
    (given as ``flag``: ``--out`` or ``--resume``) refused: the file (or the rename: what was moved where), why, the checkpoint kept (of iteration ``saved_at``; None: none was written),
    what to do and ``then`` (the command that continues the run, or what else to do; None: at the
    run's end, when only its record in ``domino_rllib.json`` is missing); ``kept``: what is kept,
    said instead of the checkpoint; ``skipped``: the final evaluation the refusal skipped
    (:func:`skipped_evaluation`), said last."""
    code, moved = refused.error.errno, refused.target is not None
    folders = f"{refused.blamed} or {refused.blamed.parent}" if moved or refused.removing else "the folder"
    why = os.strerror(code)
    if code in (errno.EPERM, errno.EACCES):
        why += f": {folders} made read-only or immutable?" if moved or refused.removing else ": the folder refuses writes, made read-only or immutable?"
    kept = (f"the checkpoint of iteration {saved_at} in {out / CHECKPOINT_DIR} is kept whole" if saved_at is not None
            else "no checkpoint was written") if kept is None else kept  # fmt: skip
    if refused.swapped:  # both renames done: the new checkpoint is in place, the rest of the swap is not
        kept += (f" ({out / CHECKPOINT_DIR}.old, the earlier one, is left and {out / METADATA_FILE} is still "
                 "the earlier one's)")  # fmt: skip
    fix = (f"make {folders.replace(' or ', ' and ')} writable" if code in _PERMISSION else "free some disk space")
    rest = (f"{fix}, then {then}" if then is not None else f"all iterations are trained; {skipped}" if skipped else
            f"all iterations are trained; only the run's end said above is missing from {METADATA_FILE}")  # fmt: skip
    if skipped and then is not None:  # (a refused final save: the run ends before its evaluation)
        rest += f"; {skipped}"
    what = (f"{refused.path} could not be moved to {refused.target}: the rename was refused" if moved else
            f"{refused.path} could not be removed" if refused.removing else
            f"{refused.error.filename or refused.path} could not be written")  # fmt: skip
    return OutputError(f"{flag} {out}: {what} ({why}); {kept}; {rest}")


def finish_swap_command(out: Path) -> str:
    """What finishes a checkpoint swap refused after its renames when no iteration is left to train
    (a ``--resume`` would train more): the run's ``domino_rllib.json`` made the checkpoint's copy and
    ``checkpoint.old/`` removed."""
    copy, old = out / CHECKPOINT_DIR / METADATA_FILE, out / f"{CHECKPOINT_DIR}.old"
    return (f"finish the swap: {shlex.join(['cp', str(copy), str(out / METADATA_FILE)])} && "
            f"{shlex.join(['rm', '-r', str(old)])}")  # fmt: skip


def _move(source: Path, target: Path, shown: Path) -> None:
    """Rename ``source`` to ``target`` (in one folder); a refusal (:data:`WRITE_REFUSALS`) is raised
    as :class:`WriteRefused` naming both in the run folder ``shown`` (as the user gave it: a
    relative path stays relative, where ``source`` may be resolved)."""
    try:
        source.rename(target)
    except OSError as exc:
        if exc.errno in WRITE_REFUSALS:
            raise WriteRefused(exc, shown / source.name, shown / target.name) from exc
        raise


def _remove_old(old: Path, out: Path) -> WriteRefused | None:
    """Remove ``old`` (``checkpoint.old/``) as far as it can be: the first refused removal
    (:data:`WRITE_REFUSALS`: a file in it made immutable, ``chattr +i``, or the folder read-only) as
    :class:`WriteRefused` (``removing``), naming the file in the run folder ``out`` as the user gave
    it; None when it is gone. (It was ``rmtree(ignore_errors=True)``: the leftover went unsaid.)"""
    refusals: list[WriteRefused] = []

    def refused(function: Any, path: str, exc_info: Any) -> None:
        exc = exc_info[1]
        if refusals:  # (what follows a refusal: its folder not empty)
            return
        if not isinstance(exc, OSError) or exc.errno not in WRITE_REFUSALS:
            raise exc
        shown = out / old.name / Path(path).relative_to(old) if Path(path) != old else out / old.name
        refusals.append(WriteRefused(exc, shown))
        refusals[0].removing = True

    shutil.rmtree(old, onerror=refused)
    return refusals[0] if refusals else None


def save_checkpoint(algo: Any, out: Path, metadata: dict[str, Any]) -> int | None:
    """Write the algorithm checkpoint and ``metadata`` into ``checkpoint.saving/``, then put it in
    the place of ``checkpoint/`` (and the run folder's ``domino_rllib.json``), with SIGINT and SIGTERM
    held for the swap: a signal (a second Ctrl-C) or an error while RLlib writes leaves the earlier
    checkpoint whole, where writing in place left it unloadable (an empty ``module_state.pkl``).
    Returns the signal that came during the swap (the caller raises it), or None.

    ``checkpoint.old/`` that cannot be removed after the swap (a file in it made immutable) is
    left, with a warning that names the file (the new checkpoint is in place and whole).

    Raises:
        WriteRefused: a rename of the swap was refused (``checkpoint/`` or the run folder made
            immutable: ``chattr +i``), naming its paths as ``out`` gives them; or the removal of a
            ``checkpoint.old/`` left by an earlier save (``removing``: before the swap, which needs
            its name)."""
    final = (out / CHECKPOINT_DIR).resolve()
    partial, old = final.with_name(f"{CHECKPOINT_DIR}.saving"), final.with_name(f"{CHECKPOINT_DIR}.old")
    shutil.rmtree(partial, ignore_errors=True)
    if old.is_dir() and (left := _remove_old(old, out)) is not None:
        raise left
    text = json.dumps(metadata, indent=1, default=str)
    try:
        algo.save_to_path(str(partial))
        sync_tree(partial)  # on the disk before the swap: a crash of the machine leaves one whole
        replace_text(partial / METADATA_FILE, text)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    with stop_signals_held() as noted:  # (a refused rename: WriteRefused, naming both of its paths)
        if final.exists():
            _move(final, old, out)
        _move(partial, final, out)
        with refused_replace(swapped=True):  # (the new checkpoint is in place: the refusal says so)
            replace_text(out / METADATA_FILE, text)  # (syncs the run folder, and so the renames)
        left = _remove_old(old, out) if old.is_dir() else None
    if left is not None:
        warnings.warn(leftover_warning(left, out), stacklevel=2)
    return noted[0] if noted else None


def leftover_warning(left: WriteRefused, out: Path) -> str:
    """The warning of a ``checkpoint.old/`` the swap could not remove (``left``: the refused file)."""
    old = out / f"{CHECKPOINT_DIR}.old"
    return (f"{old}/ (the earlier checkpoint) could not be removed: {left.path} ({left.error.strerror}: "
            f"it or {left.path.parent} made read-only or immutable?); the new checkpoint in {out / CHECKPOINT_DIR} "
            f"is in place and whole; make {left.path} and {left.path.parent} writable, then "
            f"{shlex.join(['rm', '-r', str(old)])} (or the next --resume removes it)")


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
    from domino_env.train.tournament_results import deal_interval_text, interval_text

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
        print(f"rllib vs {opponent}: win rate {s.win_rate:.3f}, 95% CI {deal_interval_text(s.ci95_deal, s.deals, s.parity)} "
              f"per deal, {interval_text(s.ci95_wilson, s.parity)} Wilson ({where}parity {s.parity:.3f}) "
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


def skipped_evaluation(out: Path, args: argparse.Namespace, env_config: dict[str, Any]) -> str:
    """What a run that ends before its final evaluation says of it (``--eval-rounds`` above 0): that
    it is skipped, and the commands that run it (:func:`evaluation_commands`)."""
    return (f"the final evaluation ({args.eval_rounds} rounds against each of {' '.join(args.eval_opponents)}) is "
            f"skipped; run it with: {'; '.join(evaluation_commands(out, args, env_config))}")


def skip_evaluation(out: Path, args: argparse.Namespace, env_config: dict[str, Any], metadata: dict[str, Any],
                    name: str, when: str, saved_at: int | None, trained: int) -> None:  # fmt: skip
    """A signal after the last iteration (while its checkpoint was written, while Ray stopped, during the
    final evaluation): the whole checkpoint is kept and the metadata says it was interrupted and what
    was skipped (``evaluation_skipped``); one line on stderr says so and how to run the evaluation.
    ``trained``: the iterations this command trained (fewer than ``--iterations`` after ``--time-limit``)."""
    stop_began()  # (a signal held while Ray stopped: its lines may meet a closed pipe, then dropped)
    metadata["interrupted"] = True
    if args.eval_rounds > 0:
        metadata["evaluation_skipped"] = f"{name} {when}"
    with refused_as(out / METADATA_FILE):
        write_metadata(out, metadata)
    done = ("all iterations trained" if trained >= args.iterations else
            f"{trained} of {args.iterations} iterations trained (--time-limit stopped the training)")  # fmt: skip
    rest = (skipped_evaluation(out, args, env_config) if args.eval_rounds > 0 else
            f"nothing else was left to do (--eval-rounds 0); play it: {evaluate_command(args, f'rllib:{out}')}")  # fmt: skip
    print(f"\ninterrupted {when} ({name}): the checkpoint of iteration {saved_at} is saved whole in "
          f"{out / CHECKPOINT_DIR}, {done}; {rest}", file=sys.stderr, flush=True)  # fmt: skip
