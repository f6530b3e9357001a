#!/usr/bin/env python3
"""Oracle action values: one step of policy improvement from playouts of the true state (Mexican
Train), the command of the "oracle action values" rows of docs/training_experiments.md's lever table.

Run from the repository root in the project's virtual environment::

    .venv/bin/python benchmarks/oracle_values.py collect --rounds 8000 --out runs/oracle/values.npz
    .venv/bin/python benchmarks/oracle_values.py fit runs/oracle/values.npz --out runs/oracle/model
    domino-evaluate --agents ppo:runs/oracle/model planner planner planner --rounds 2000 --seed 2027 \\
        --records --json runs/oracle/eval.json

``collect``: a ``ppo:`` model (``--model``, default the released action-scoring model) plays one
seat against three planners (Mexican Train, 4 players, double-12, the default rules; the model's
seat moves one on each round; round ``i`` is dealt from ``deal_seed(--seed, i)``). At each of its
decisions with two or more legal moves, every legal move is applied to a copy of the **true**
engine state (every hand, the boneyard order) and the round is played out: the other seats by the
planner (the evaluation's opponents, exactly: ``PlannerAgent.state_move``), the model's own seat by
the model (``--continuation model``, the default) or by the planner (``planner``). Every player is
deterministic, so one playout per move is that move's exact value in that world. Stored per
decision: the raw observation, the action mask, the move played, and per legal move the round's
win credit (``1/k`` of a ``k``-way win) and the seat's pips (NaN for illegal moves); per file the
``--seed``. The file is written whole or not at all.

``fit``: fine-tunes the model on those values. The loss over the legal moves is
``-sum_a pi(a) (q(a) - mean q) + kl x KL(start || pi)``, ``q = credit - pip_weight x pips / 100``
(weight 1: the release's training reward, ``mixed``): the expected one-step gain of the policy,
kept near the model it starts from. Over the rounds (hands, histories) the data come from, the
expected value of a move is the information-state value of that move; no hidden information
reaches the policy's input. 15% of the rounds are held out (whole rounds: the moves of one round
share a world, so a split by decision leaks it; files of one ``--seed`` hold the same deals, so
their round ``i`` is one round; at least one round when there are two, none with
``--val-fraction 0``); each epoch prints, on them, the mean value of the
policy's most likely move over the legal moves' mean (``held-out gain``), which a policy
improvement step should raise. The model folder written (``model.zip``, ``metadata.json``) loads
as ``ppo:FOLDER``; its metadata's ``command`` is this command and ``initialized_from`` the start.

Costs (2-core machine): ``collect`` about 170 decisions/s with ``--workers 2`` (8,000 rounds:
about 116,000 decisions in 16 minutes; about 12 minutes with ``--continuation planner``);
``fit`` about a minute to build the inputs and 7 s an epoch.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shlex
import signal
import sys
import zipfile
from pathlib import Path

import numpy as np

from domino_env.core.errors import DominoError
from domino_env.core.files import replace_file
from domino_env.train.arg_types import SEED, int_at_least, real
from domino_env.train.cli import output_folder_problem
from domino_env.train.tournament import deal_seed

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / "checkpoints" / "mexican_train_4p_d12_action_scores"
#: Arrays of a ``collect`` file, one row per decision with two or more legal moves.
KEYS = ("observations", "masks", "actions", "credit", "pips", "rounds")


def move_values(env, seat: int, model, planner, continuation: str, rng) -> tuple[np.ndarray, np.ndarray]:
    """``(credit, pips)``, float32 ``(num_actions,)`` each: for every legal move of ``seat`` (to act
    in ``env.game_state``), the seat's win credit and pips when a copy of the true state is played
    to the end of the round after that move (NaN for illegal moves and annulled rounds)."""
    state, enc = env.game_state, env.encoder
    legal = np.flatnonzero(enc.mask(state, seat))
    credit = np.full(enc.num_actions, np.nan, np.float32)
    pips = credit.copy()
    for a in legal:
        st = state.copy()
        st.apply(int(a))
        while not st.round_over:
            s = st.current_player
            if s == seat and continuation == "model":
                m = enc.mask(st, s)
                moves = np.flatnonzero(m)
                move = int(moves[0]) if len(moves) == 1 else int(model(enc.observe(st, s), m, rng))
            else:
                move = planner.state_move(st)
            st.apply(move)
        result = st.round_result
        if result.termination != "annulled":
            winners = list(result.winners)
            credit[a] = (1.0 / len(winners)) if seat in winners else 0.0
            pips[a] = result.pips[seat]
    return credit, pips


def collect_rounds(job: tuple) -> dict[str, np.ndarray]:
    """Rounds ``first .. first + count - 1`` of ``collect`` (one worker process)."""
    model_path, continuation, seed, first, count = job
    from domino_env.agents.mexican_train import PlannerAgent
    from domino_env.agents.ppo import load_ppo_agent
    from domino_env.envs.mexican_train_v0 import raw_env

    env = raw_env()
    model = load_ppo_agent(model_path, env.config)
    planner = PlannerAgent(env.config)
    rows: dict[str, list] = {k: [] for k in KEYS}
    for i in range(first, first + count):
        rng = np.random.default_rng([seed, i, 1])
        learner = i % env.config.num_players
        env.reset(seed=deal_seed(seed, i))
        while not env.game_state.round_over:
            agent = env.agent_selection
            seat = env.possible_agents.index(agent)
            obs = env.observe(agent)
            raw, mask = obs["observation"], obs["action_mask"]
            if seat != learner:
                env.step(int(planner(raw, mask, rng)))
                continue
            move = int(model(raw, mask, rng))
            if int(mask.sum()) >= 2:
                credit, pips = move_values(env, seat, model, planner, continuation, rng)
                if not np.isnan(credit[move]):  # an annulled round has no values
                    for key, value in zip(KEYS, (raw.astype(np.int16), np.packbits(mask), move, credit, pips, i), strict=True):
                        rows[key].append(value)
            env.step(move)
    return {k: np.asarray(v) for k, v in rows.items()}


def collect(args: argparse.Namespace) -> None:
    from domino_env.train.interrupts import children_born_blocked
    from domino_env.train.progress import progress_bar

    chunk = 20
    jobs = [(str(args.model), args.continuation, args.seed, f, min(chunk, args.rounds - f))
            for f in range(0, args.rounds, chunk)]  # fmt: skip
    parts = []
    bar = progress_bar(total=args.rounds, desc="rounds", unit="round", disable=args.no_progress)
    # spawn: the parent has loaded the model (its libraries' threads do not survive a fork)
    # and the workers ignore Ctrl-C: the parent stops them (no traceback from each); they are
    # born with SIGINT blocked, so that a Ctrl-C while one still imports does not reach it either
    pool = None
    try:
        with children_born_blocked(frozenset({signal.SIGINT})):  # a Ctrl-C meanwhile: raised as it ends
            pool = multiprocessing.get_context("spawn").Pool(args.workers, initializer=signal.signal,
                                                             initargs=(signal.SIGINT, signal.SIG_IGN))
        for part, job in zip(pool.imap(collect_rounds, jobs), jobs, strict=True):
            parts.append(part)
            bar.update(job[-1])
        pool.close()
    except BaseException:  # Ctrl-C (or a worker's error): stop now, not after the chunks under way
        if pool is not None:
            pool.terminate()
        raise
    finally:
        if pool is not None:
            pool.join()
        bar.close()
    if not any(len(p["actions"]) for p in parts):
        sys.exit(f"oracle_values.py: no decision with two or more legal moves in {args.rounds} rounds; nothing written")
    data = {k: np.concatenate([p[k] for p in parts if len(p[k])]) for k in KEYS}
    try:  # a whole file or none (Ctrl-C, a full disk): replace_file
        args.out.parent.mkdir(parents=True, exist_ok=True)
        replace_file(args.out, lambda f: np.savez_compressed(f, **data, seed=np.int64(args.seed),
                                                             command=np.array(command_line())))
    except OSError as exc:  # what the checks before the run cannot see (root on /proc, a full disk)
        sys.exit(f"oracle_values.py: --out {args.out}: not written ({exc.strerror or exc})")
    print(f"{len(data['actions'])} decisions of {args.rounds} rounds written to {args.out}")


def command_line() -> str:
    return shlex.join(["python", "benchmarks/oracle_values.py", *sys.argv[1:]])


def load(paths: list[Path], num_actions: int) -> dict[str, np.ndarray]:
    """The ``collect`` files, concatenated. A round is its deal: files of the same ``--seed`` share
    their round numbers (the same round in two files is one round, held out or not as a whole);
    files of other seeds, or of no stored seed, are offset (their rounds stay distinct)."""
    parts, worlds = [], {}
    for n, path in enumerate(paths):
        with np.load(path) as f:
            part = {k: f[k] for k in KEYS}
            world = ("seed", int(f["seed"])) if "seed" in f.files else ("file", n)
        part["rounds"] = part["rounds"] + worlds.setdefault(world, len(worlds)) * 10**9
        parts.append(part)
    data = {k: np.concatenate([p[k] for p in parts]) for k in KEYS}
    data["masks"] = np.unpackbits(data["masks"], axis=1, count=num_actions).astype(bool)
    return data


def check_data(path: Path, num_actions: int, observation_size: int) -> str | None:
    """Why ``path`` is not a usable file of ``collect`` (None: it is)."""
    if not zipfile.is_zipfile(path):  # np.load would read it as a pickle, or as one array
        return "not a .npz archive (the files of oracle_values.py collect are)"
    try:
        with np.load(path) as f:
            missing = [k for k in KEYS if k not in f.files]
            if missing:
                return f"no {', '.join(missing)} (not a file of oracle_values.py collect)"
            shapes = {k: f[k].shape for k in KEYS}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
        return f"not a readable .npz file ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
    rows = shapes["actions"][0] if shapes["actions"] else 0
    expected = {"observations": (rows, observation_size), "masks": (rows, -(-num_actions // 8)),
                "actions": (rows,), "credit": (rows, num_actions), "pips": (rows, num_actions), "rounds": (rows,)}  # fmt: skip
    for key, shape in expected.items():
        if shapes[key] != shape:
            return f"{key} has shape {shapes[key]}, expected {shape} (another game, or a damaged file)"
    return "holds no decisions" if rows == 0 else None


def fit(args: argparse.Namespace) -> None:
    import copy
    import shutil

    import torch
    from sb3_contrib import MaskablePPO

    from domino_env.agents.checkpoint_files import read_metadata
    from domino_env.agents.ppo import load_ppo_agent
    from domino_env.envs.mexican_train_v0 import raw_env
    from domino_env.train.progress import progress_bar

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    agent = load_ppo_agent(args.model, raw_env().config)
    model_zip, _ = read_metadata(args.model)  # --model may name the folder or its .zip
    data = load(args.data, agent.num_actions)
    values = data["credit"] - args.pip_weight * data["pips"] / 100.0
    inputs = np.stack([agent.policy_input(o.astype(np.float32), m)
                       for o, m in zip(data["observations"], data["masks"], strict=True)]).astype(np.float16)  # fmt: skip
    model = MaskablePPO.load(model_zip, device="cpu")
    policy = model.policy
    start = copy.deepcopy(policy).eval()
    rng = np.random.default_rng(args.seed)
    rounds = np.unique(data["rounds"])
    n_held = int(len(rounds) * args.val_fraction)
    if args.val_fraction > 0 and len(rounds) >= 2:
        n_held = min(max(n_held, 1), len(rounds) - 1)  # a few rounds: one held out, one kept
    held = np.isin(data["rounds"], rng.choice(rounds, n_held, replace=False))
    train_idx, val_idx = np.flatnonzero(~held), np.flatnonzero(held)
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.lr)

    def losses(idx: np.ndarray) -> tuple:
        x = torch.as_tensor(inputs[idx].astype(np.float32))
        legal = torch.as_tensor(data["masks"][idx])
        q = torch.as_tensor(np.nan_to_num(values[idx]))
        logits = policy.mlp_extractor.forward_actor(x).masked_fill(~legal, -1e9)
        logp = torch.log_softmax(logits, 1)
        on = legal.float()
        adv = (q - (q * on).sum(1, keepdim=True) / on.sum(1, keepdim=True)) * on
        with torch.no_grad():
            start_logp = torch.log_softmax(start.mlp_extractor.forward_actor(x).masked_fill(~legal, -1e9), 1)
        kl = (start_logp.exp() * (start_logp - logp) * on).sum(1).mean()
        gain = adv[torch.arange(len(idx)), logits.argmax(1)].mean()
        return -(logp.exp() * adv).sum(1).mean() + args.kl * kl, kl, gain

    def held_out() -> tuple[float, float]:
        if not len(val_idx):
            return float("nan"), float("nan")
        policy.eval()
        with torch.no_grad():
            parts = [(len(i), *(t.item() for t in losses(i)[1:])) for i in np.array_split(val_idx, max(1, len(val_idx) // 1024))]
        n = sum(p[0] for p in parts)
        return tuple(sum(p[0] * p[k] for p in parts) / n for k in (1, 2))

    print(f"{len(train_idx)} training decisions, {len(val_idx)} held out ({int(held.any() and len(np.unique(data['rounds'][held])))} rounds)")
    def report(epoch: int) -> tuple[float, float]:
        kl, gain = held_out()
        print(f"epoch {epoch}: " + (f"held-out gain {gain:.4f}, KL from the start {kl:.4f}" if len(val_idx) else "no rounds held out"))
        return kl, gain

    kl, gain = report(0)
    bar = progress_bar(total=args.epochs * -(-len(train_idx) // args.batch_size), desc="fit", unit="batch",
                       disable=args.no_progress)  # fmt: skip
    for epoch in range(1, args.epochs + 1):
        policy.train()
        order = rng.permutation(train_idx)
        for i in range(0, len(order), args.batch_size):
            loss = losses(order[i : i + args.batch_size])[0]
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            bar.update(1)
        kl, gain = report(epoch)
    bar.close()
    start_meta = model_zip.parent / "metadata.json"
    meta = json.loads(start_meta.read_text())
    for key in ("evaluations", "best_model", "final_evaluation", "release"):
        meta.pop(key, None)
    meta.update(command=command_line(), initialized_from=str(args.model), status="finished",
                oracle_values={"data": [str(p) for p in args.data], "held_out_gain": gain if len(val_idx) else None,
                               "kl": kl if len(val_idx) else None})  # fmt: skip
    tmp = args.out.with_name(f".{args.out.name}.{os.getpid()}.tmp")
    try:  # a whole model folder or none (Ctrl-C, a full disk)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()
        model.save(tmp / "model.zip")
        (tmp / "metadata.json").write_text(json.dumps(meta, indent=2))
        shutil.copy2(start_meta, tmp / "start_metadata.json")
        if args.out.is_dir():
            args.out.rmdir()  # empty (main checked)
        os.replace(tmp, args.out)
    except OSError as exc:  # what the checks before the run cannot see (root on /proc, a full disk)
        sys.exit(f"oracle_values.py: --out {args.out}: not written ({exc.strerror or exc})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"model written to {args.out} (load it as ppo:{args.out})")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="oracle_values.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    c = sub.add_parser("collect", help="play the model and store every legal move's true-state value")
    c.add_argument("--rounds", type=int_at_least(1), default=8000)
    c.add_argument("--continuation", choices=("model", "planner"), default="model",
                   help="who plays the model's seat after the move (default model)")
    c.add_argument("--workers", type=int_at_least(1), default=2)
    c.add_argument("--out", type=Path, required=True, help="the .npz file to write")
    f = sub.add_parser("fit", help="fine-tune the model on collected values")
    f.add_argument("data", type=Path, nargs="+", help="files of collect")
    f.add_argument("--out", type=Path, required=True, help="the model folder to write")
    f.add_argument("--epochs", type=int_at_least(1), default=3)
    f.add_argument("--lr", type=real(0.0), default=1e-4, help="Adam learning rate (default 1e-4)")
    f.add_argument("--kl", type=real(0.0), default=0.1, help="weight of KL(start || policy) (default 0.1)")
    f.add_argument("--pip-weight", type=real(0.0), default=1.0, help="q = credit - W x pips / 100 (default 1)")
    f.add_argument("--batch-size", type=int_at_least(1), default=256)
    f.add_argument("--val-fraction", type=real(0.0, 0.5), default=0.15, help="rounds held out (default 0.15)")
    for p in (c, f):
        p.add_argument("--model", type=Path, default=RELEASE, help="ppo model folder (default the release)")
        p.add_argument("--seed", type=SEED, default=0)
        p.add_argument("--no-progress", action="store_true", help="no progress bar (stderr)")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    sizes = _sizes()  # (num_actions, observation size) of the game
    for path in getattr(args, "data", []):
        if not path.is_file():
            parser.error(f"{path}: {'a folder' if path.is_dir() else 'no such file'} (give a file of oracle_values.py collect)")
    if args.mode == "fit":
        problem = output_folder_problem(args.out)
        if problem:
            parser.error(f"--out {args.out}: {problem}")
        if args.out.is_dir() and any(args.out.iterdir()):
            parser.error(f"--out {args.out}: exists and is not empty")
    else:
        if args.out.is_dir():
            parser.error(f"--out {args.out}: a folder; give the .npz file to write")
        problem = output_folder_problem(args.out.parent)
        if problem:
            parser.error(f"--out {args.out}: folder {args.out.parent} {problem}")
        if args.out.exists() and args.out.stat().st_size and check_data(args.out, *sizes) not in (None, "holds no decisions"):
            parser.error(f"--out {args.out}: the file exists and is not a file of oracle_values.py collect (it would be overwritten)")
    try:  # a missing or corrupt model: one line
        from domino_env.agents.ppo import load_ppo_agent

        agent = load_ppo_agent(args.model)
    except (DominoError, OSError) as exc:
        parser.error(f"--model {args.model}: {exc}")
    if args.mode == "fit":
        if agent.policy_input.features is None:
            parser.error(f"--model {args.model}: not an action-scoring model (fit trains a --policy action-scores model)")
        for path in args.data:
            problem = check_data(path, *sizes)
            if problem:
                parser.error(f"{path}: {problem}")
    (collect if args.mode == "collect" else fit)(args)


def _sizes() -> tuple[int, int]:
    """``(num_actions, observation size)`` of the game ``collect`` plays."""
    from domino_env.envs.mexican_train_v0 import raw_env

    env = raw_env()
    return env.encoder.num_actions, env.observation_space(env.possible_agents[0])["observation"].shape[0]


if __name__ == "__main__":
    from domino_env.train.cli import run_script

    run_script("oracle_values.py", main)
