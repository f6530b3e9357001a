"""Tournaments between agents on duplicate deals, with 95% confidence intervals (docs/design.md §5).

Command line (also the ``domino-evaluate`` console script)::

    domino-evaluate --agents planner greedy greedy greedy --rounds 2000 --players 4 \\
        --max-pip 12 [--preset domino_cubano] [--episode round|game] [--seed 0] [--json out.json] \\
        [--workers 2] [rule options: --doubles chain --drawn-tile may_play ...]
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
  (times the fraction of non-void episodes).
* *teams* (line games with ``teams=True``: seats 0+2 against 1+3): the win rate is the **team win
  rate**: when a team wins, *each* of its two seats gets credit 1 (the seat's side won), so the
  credits of one episode sum to 2 and the parity share is **1/2** (two teams). If both teams tie
  for a game win, each of the four seats gets 1/2. An agent's win rate is the fraction of its
  seat-episodes whose side won (with mixed tables its partner may be another agent).
* *annulled rounds* (Cuban: a player with 5+ doubles asks for a new deal) are not rounds: the
  round is re-dealt and only the round that is played out counts (``annulled_rounds`` counts them).
* *95% CI (Wilson)*: the Wilson score interval on (credit, seat-episodes), treating seat-episodes
  as independent trials (fractional credit counts as fractional successes).
* *95% CI (per deal)*: the honest one: episodes of the same deal are correlated (and the k seats of
  one agent in one episode are too), so it averages the agent's credit per deal and takes
  ``mean +- t(0.975, D-1) * sd / sqrt(D)`` over the D deal averages; with fewer than 2 deals there
  is no such interval: the tables print ``n/a`` (the JSON keeps ``[0, 1]`` and ``deals``).
* *verdict*: ``above`` / ``below`` when both intervals lie above / below the parity share,
  else ``parity``.
* *mean pips per round*: pips left in the agent's hand at each round's end (lower is better);
  *mean game score*: final game total (whole games only).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import re
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from domino_env.agents.base import Agent, agent_label, make_agent
from domino_env.core.config import (
    FIELD_DOCS,
    LINE_FIELD_DOCS,
    LINE_RULE_CHOICES,
    PRESETS,
    RULE_CHOICES,
)
from domino_env.core.errors import ConfigError
from domino_env.envs.games import GAMES, make_raw_env
from domino_env.envs.infos import Termination
from domino_env.wrappers import info_state_kwargs

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


Z95 = 1.959963984540054
#: t(0.975, df) for df = 1..30 (beyond: the normal quantile).
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


# ---------------------------------------------------------------------------------- statistics
def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional).

    Returns ``(0.0, 1.0)`` for zero trials.
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def t_quantile_975(df: int) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom (table, then normal)."""
    if df < 1:
        return math.inf
    return _T975[df - 1] if df <= len(_T975) else Z95


def mean_interval(values: Sequence[float]) -> tuple[float, float]:
    """95% interval of the mean of ``values`` (t interval; ``(-inf, inf)`` for fewer than 2)."""
    n = len(values)
    if n < 2:
        return (-math.inf, math.inf)
    arr = np.asarray(values, dtype=float)
    half = t_quantile_975(n - 1) * float(arr.std(ddof=1)) / math.sqrt(n)
    m = float(arr.mean())
    return (m - half, m + half)


def deal_seed(seed: int, deal: int) -> int:
    """Env seed of deal ``deal`` of a tournament seeded ``seed`` (independent 31-bit streams)."""
    return int(np.random.SeedSequence([seed, deal]).generate_state(1)[0] >> 1)


def rotation_seats(num_players: int, rotation: int) -> list[int]:
    """Agent index (position in the agent list) at each seat in ``rotation``: agent ``i`` sits at
    seat ``(i + rotation) % P``."""
    return [(s - rotation) % num_players for s in range(num_players)]


# ---------------------------------------------------------------------------------- playing
@dataclass
class GameRecord:
    """One episode (a round, or a whole game) of the tournament, seat order throughout.

    Attributes:
        deal: deal number; rotation: seat rotation (0..P-1); seed: the env seed of the deal.
        seats: agent index sitting at each seat.
        rounds: rounds played in the episode.
        round_credit: per seat, the sum over rounds of its round-win credit (1, 1/k or 0).
        pips: per seat, the sum over rounds of the pips left in its hand at the round's end.
        game_credit: per seat, its game-win credit (whole games only, else None).
        scores: final game totals (whole games only, else None).
        blocked / void: rounds that ended blocked / blocked and void.
        steps: actions played; truncated: the episode hit max_cycles (no credit given).
        annulled: rounds annulled and re-dealt (Cuban; not counted in ``rounds``).
    """

    deal: int
    rotation: int
    seed: int
    seats: list[int]
    rounds: int = 0
    round_credit: list[float] = field(default_factory=list)
    pips: list[int] = field(default_factory=list)
    game_credit: list[float] | None = None
    scores: list[int] | None = None
    blocked: int = 0
    void: int = 0
    steps: int = 0
    truncated: bool = False
    annulled: int = 0


def _credit(winners: Sequence[int], num_players: int, teams: bool = False) -> list[float]:
    """Win credit per seat: ``1/k`` to each of k winners; with ``teams`` (seats 0+2 vs 1+3) each
    winner gets ``1/(winning teams)``: 1 to both partners of a winning team."""
    out = [0.0] * num_players
    share = len({s % 2 for s in winners}) if teams else len(winners)
    for s in winners:
        out[s] = 1.0 / share
    return out


def play_episode(
    env: Any,
    agents: Sequence[Agent],
    seats: Sequence[int],
    seed: int,
    agent_seed: Sequence[int],
    deal: int = 0,
    rotation: int = 0,
) -> GameRecord:
    """Play one episode of ``env`` (round or game, as the env is configured) from ``seed``.

    Seat ``s`` is played by ``agents[seats[s]]`` with its own generator seeded ``[*agent_seed, s]``.
    """
    p = env.config.num_players
    teams = bool(getattr(env.config, "teams", False))
    env.reset(seed=seed)
    rngs = [np.random.default_rng([*agent_seed, s]) for s in range(p)]
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    rec = GameRecord(deal, rotation, seed, list(seats), round_credit=[0.0] * p, pips=[0] * p)
    game_mode = env.episode == "game"
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        s = seat_of[agent]
        obs = env.observe(agent)
        actor = agents[seats[s]]
        extra = info_state_kwargs(actor, env.game_state, s)  # the public history, for search agents
        action = actor(obs["observation"], obs["action_mask"], rngs[s], **extra)
        env.step(int(action))
        rec.steps += 1
        info = env.infos.get(agent) or next(iter(env.infos.values()), {})
        if not info.get("round_over"):  # a round result is only in the infos of the step ending it
            pass
        elif info["termination_code"] == Termination.ANNULLED:  # re-dealt at once: not a round
            rec.annulled += 1
        else:
            winners = np.flatnonzero(info["won"]).tolist()
            rec.rounds += 1
            for i, c in enumerate(_credit(winners, p, teams)):
                rec.round_credit[i] += c
            for i, x in enumerate(info["pips"]):
                rec.pips[i] += int(x)
            if info["termination_code"] == Termination.BLOCKED:
                rec.blocked += 1
                rec.void += not winners
            if game_mode and info["game_over"]:
                rec.game_credit = _credit(np.flatnonzero(info["game_won"]).tolist(), p, teams)
                rec.scores = [int(x) for x in info["scores"]]
        if any(env.truncations.values()):
            rec.truncated = True
            break
    return rec


# Worker-process state (set once per process by _init_worker).
_WORKER: dict[str, Any] = {}


def _init_worker(
    env_kwargs: dict[str, Any], agents: list[Agent], seed: int, game: str = "mexican_train"
) -> None:
    _WORKER["env"] = make_env(game, **env_kwargs)
    _WORKER["agents"] = agents
    _WORKER["seed"] = seed


def _play_deals(deals: Sequence[int]) -> list[GameRecord]:
    env, agents, seed = _WORKER["env"], _WORKER["agents"], _WORKER["seed"]
    p = env.config.num_players
    out = []
    for d in deals:
        s = deal_seed(seed, d)
        for r in range(p):
            out.append(play_episode(env, agents, rotation_seats(p, r), s, (seed, d, r), d, r))
    return out


# ---------------------------------------------------------------------------------- results
@dataclass
class AgentStats:
    """Tournament statistics of one distinct agent name (see the module docstring).

    ``seat_episodes`` counts (episode, seat) pairs: an agent listed k times at a P-seat table
    playing N episodes has ``k * N``. ``win_rate`` is per seat-episode (game wins for whole
    games, round wins otherwise); ``round_win_rate`` is always per seat-round.
    """

    name: str
    seats_per_table: int
    seat_episodes: int
    wins: float
    win_rate: float
    ci95_wilson: tuple[float, float]
    ci95_deal: tuple[float, float]
    parity: float
    verdict: str
    seat_rounds: int
    round_wins: float
    round_win_rate: float
    mean_pips_per_round: float
    mean_game_score: float | None = None
    #: Deals the agent played (the per-deal interval needs 2 or more: ``n/a`` in the tables below).
    deals: int = 0


def deal_interval_text(ci: Sequence[float], deals: int) -> str:
    """The per-deal 95% interval as the tables print it: ``[lo, hi]``, or ``n/a`` for fewer than
    2 deals (a t interval needs two deal averages; the stored interval is then ``[0, 1]``)."""
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if deals >= 2 else "n/a"


@dataclass
class EvaluationResult:
    """What :func:`evaluate` returns (and ``--json`` writes, via :meth:`to_dict`).

    Attributes:
        agents: agent labels in list order (seat 0 of rotation 0 first).
        env_kwargs: every rule and env option of the tournament's env.
        num_players, episode, seed: the tournament's set-up.
        deals: number of deals; episodes: episodes played (deals x P rotations); rounds_played:
            rounds over all episodes (= episodes in round mode).
        deal_seeds: the env seed of every deal (rotations of a deal share it).
        blocked_rounds, void_rounds, truncated_episodes: how rounds ended.
        stats: one :class:`AgentStats` per distinct agent name, in first-listed order.
        seconds: wall time; workers: processes used.
        records: every episode (not written to JSON unless asked).
        game: ``"mexican_train"``, ``"block"``, ``"draw"`` or ``"cuban"``.
        teams: partnerships (line games): win rates are team win rates, parity 1/2.
        annulled_rounds: rounds annulled and re-dealt (Cuban).
    """

    agents: list[str]
    env_kwargs: dict[str, Any]
    num_players: int
    episode: str
    seed: int
    deals: int
    episodes: int
    rounds_played: int
    deal_seeds: list[int]
    blocked_rounds: int
    void_rounds: int
    truncated_episodes: int
    stats: list[AgentStats]
    seconds: float = 0.0
    workers: int = 1
    records: list[GameRecord] = field(default_factory=list, repr=False)
    game: str = "mexican_train"
    teams: bool = False
    annulled_rounds: int = 0

    def stats_for(self, name: str) -> AgentStats:
        """The :class:`AgentStats` of agent ``name``. Raises KeyError if absent."""
        for s in self.stats:
            if s.name == name:
                return s
        raise KeyError(name)

    def to_dict(self, records: bool = False) -> dict[str, Any]:
        """JSON-ready dict (``records=True`` adds every episode)."""
        d = asdict(self)
        if not records:
            d.pop("records")
        for s in d["stats"]:
            s["ci95_wilson"] = list(s["ci95_wilson"])
            s["ci95_deal"] = list(s["ci95_deal"])
        return d

    def table(self):
        """The results as a ``rich.table.Table``."""
        from rich.table import Table

        unit = "games" if self.episode == "game" else "rounds"
        game = "" if self.game == "mexican_train" else f"{self.game} game, "
        teams = ", teams 0+2 vs 1+3 (team win rate)" if self.teams else ""
        title = (
            f"{' '.join(self.agents)} | {game}{self.num_players} players{teams}, "
            f"double-{self.env_kwargs.get('max_pip')}, {self.env_kwargs.get('preset')} | "
            f"{self.episodes} {unit} = {self.deals} deals x {self.num_players} seat rotations | "
            f"seed {self.seed}"
        )
        t = Table(title=title)
        t.add_column("agent")
        t.add_column("seats", justify="right")
        t.add_column(f"seat-{unit}", justify="right")
        t.add_column("wins", justify="right")
        t.add_column("win rate", justify="right")
        t.add_column("95% CI Wilson", justify="right")
        t.add_column("95% CI per deal", justify="right")
        t.add_column("parity 1/2" if self.teams else "parity 1/P", justify="right")
        t.add_column("vs parity")
        if self.episode == "game":
            t.add_column("round win rate", justify="right")
        t.add_column("mean pips/round", justify="right")
        if self.episode == "game":
            t.add_column("mean game score", justify="right")
        for s in self.stats:
            row = [
                s.name,
                str(s.seats_per_table),
                str(s.seat_episodes),
                f"{s.wins:g}",
                f"{s.win_rate:.3f}",
                f"[{s.ci95_wilson[0]:.3f}, {s.ci95_wilson[1]:.3f}]",
                deal_interval_text(s.ci95_deal, s.deals),
                f"{s.parity:.3f}",
                {"above": "[green]above[/]", "below": "[red]below[/]"}.get(s.verdict, "parity"),
            ]
            if self.episode == "game":
                row.append(f"{s.round_win_rate:.3f}")
            row.append(f"{s.mean_pips_per_round:.2f}")
            if self.episode == "game":
                row.append(f"{s.mean_game_score:.1f}")
            t.add_row(*row)
        return t

    def markdown(self) -> str:
        """The main columns as a Markdown table (for the README)."""
        rows = [
            "| agent | seats | seat-episodes | win rate | 95% CI (Wilson) | 95% CI (per deal) | parity | mean pips/round |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for s in self.stats:
            rows.append(
                f"| {s.name} | {s.seats_per_table} | {s.seat_episodes} | {s.win_rate:.3f} | "
                f"[{s.ci95_wilson[0]:.3f}, {s.ci95_wilson[1]:.3f}] | {deal_interval_text(s.ci95_deal, s.deals)} | "
                f"{s.parity:.3f} | {s.mean_pips_per_round:.1f} |"
            )
        return "\n".join(rows)


def summarize(
    records: Sequence[GameRecord], names: Sequence[str], num_players: int, episode: str = "round"
) -> list[AgentStats]:
    """Per-distinct-name statistics of ``records`` (``names[i]`` = label of agent index i)."""
    p = num_players
    game_mode = episode == "game"
    order = list(dict.fromkeys(names))
    episodes = len(records)
    total_credit = 0.0
    for rec in records:
        credit = rec.game_credit if game_mode else rec.round_credit
        if credit is not None and not rec.truncated:
            total_credit += sum(credit) if game_mode else sum(credit) / max(rec.rounds, 1)
    parity = (total_credit / episodes) / p if episodes else 1.0 / p
    out = []
    for name in order:
        idx = {i for i, n in enumerate(names) if n == name}
        seat_eps = 0
        wins = 0.0
        seat_rounds = 0
        round_wins = 0.0
        pips = 0
        score_sum = 0.0
        per_deal: dict[int, list[float]] = {}
        for rec in records:
            for s in range(p):
                if rec.seats[s] not in idx:
                    continue
                seat_eps += 1
                if game_mode:
                    c = (
                        rec.game_credit[s]
                        if rec.game_credit is not None and not rec.truncated
                        else 0.0
                    )
                    score_sum += rec.scores[s] if rec.scores is not None else 0.0
                else:
                    c = rec.round_credit[s] if not rec.truncated else 0.0
                wins += c
                seat_rounds += rec.rounds
                round_wins += rec.round_credit[s]
                pips += rec.pips[s]
                per_deal.setdefault(rec.deal, []).append(c)
        rate = wins / seat_eps if seat_eps else 0.0
        wilson = wilson_interval(wins, seat_eps)
        deal_means = [sum(v) / len(v) for v in per_deal.values()]
        lo, hi = mean_interval(deal_means)
        ci_deal = (max(0.0, lo), min(1.0, hi))
        if min(wilson[0], ci_deal[0]) > parity:
            verdict = "above"
        elif max(wilson[1], ci_deal[1]) < parity:
            verdict = "below"
        else:
            verdict = "parity"
        out.append(
            AgentStats(
                name=name,
                seats_per_table=len(idx),
                seat_episodes=seat_eps,
                wins=round(wins, 6),
                win_rate=rate,
                ci95_wilson=wilson,
                ci95_deal=ci_deal,
                parity=parity,
                verdict=verdict,
                seat_rounds=seat_rounds,
                round_wins=round(round_wins, 6),
                round_win_rate=round_wins / seat_rounds if seat_rounds else 0.0,
                mean_pips_per_round=pips / seat_rounds if seat_rounds else 0.0,
                mean_game_score=(score_sum / seat_eps if seat_eps else 0.0) if game_mode else None,
                deals=len(per_deal),
            )
        )
    return out


def evaluate(
    agents: Sequence[str | Agent],
    *,
    rounds: int = 2000,
    num_players: int | None = None,
    seed: int = 0,
    episode: str = "round",
    workers: int = 1,
    progress: bool = False,
    keep_records: bool = False,
    game: str = "mexican_train",
    **env_kwargs: Any,
) -> EvaluationResult:
    """Play a duplicate-deal tournament and return its statistics.

    Args:
        agents: one entry per seat: an agent name for :func:`domino_env.agents.make_agent` (``"random"``,
            ``"greedy"``, ``"planner"``, ...) or an agent object (picklable when ``workers > 1``).
            Entries with the same label are aggregated.
        rounds: episodes to play (rounds, or whole games with ``episode="game"``), rounded up to
            a multiple of the number of players (every deal is played in every seat rotation).
        num_players: seats; defaults to ``len(agents)`` and must equal it.
        seed: tournament seed (deal ``d`` uses env seed :func:`deal_seed(seed, d) <deal_seed>`).
        episode: ``"round"`` or ``"game"``.
        workers: processes (deals are split between them; the result does not depend on it).
        progress: show a progress bar (tqdm, on stderr).
        keep_records: keep every :class:`GameRecord` in ``result.records``.
        game: ``"mexican_train"`` (default) or a line game ``"block"``, ``"draw"``, ``"cuban"``
            (:func:`make_env`; the agents are then the line-game agents of :mod:`domino_env.agents.line`).
            With teams the win rates are team win rates (parity 1/2; module docstring).
        **env_kwargs: rules and env options for ``mexican_train_v0.raw_env`` (``max_pip``,
            ``preset``, ``doubles``, ...) or, for a line game, ``line_v0.raw_env`` (``max_pip``,
            ``hand_size``, ``teams``, ``next_lead``, ...).

    Raises:
        ConfigError: bad rules, unknown agent name, or ``num_players != len(agents)``.
    """
    from domino_env.core.errors import ConfigError

    agents = list(agents)
    if num_players is None:
        num_players = len(agents)
    if num_players != len(agents):
        raise ConfigError(
            "agents", [agent_label(a) for a in agents], f"one agent per seat ({num_players} seats)"
        )
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ConfigError("rounds", rounds, "a positive integer")
    env_kwargs = {**env_kwargs, "num_players": num_players, "episode": episode}
    env = make_env(game, **env_kwargs)
    if game != "mexican_train":
        env_kwargs.pop("preset", None)
    labels = [agent_label(a) for a in agents]
    built = [make_agent(a, env.config) for a in agents]
    for label, agent in zip(labels, built, strict=True):
        cfg = getattr(agent, "config", None)
        if cfg is not None and type(cfg) is not type(env.config):
            raise ConfigError("agents", label, f"an agent built for {game} rules (this one has {cfg!r})")
    if getattr(env.config, "teams", False):
        both = sorted({lab for i, lab in enumerate(labels) if lab in labels[(i + 1) % 2 :: 2]})
        if both:
            warnings.warn(
                f"agent(s) {both} sit on both teams (seats 0+2 vs 1+3): their team win rate is "
                "0.5 by construction; put each agent on one team only",
                stacklevel=2,
            )
    p = num_players
    deals = -(-rounds // p)
    start = time.perf_counter()
    records: list[GameRecord] = []
    bar = None
    if progress:
        from tqdm import tqdm

        unit = "game" if episode == "game" else "round"
        bar = tqdm(total=deals * p, unit=unit, desc=" ".join(labels), dynamic_ncols=True)
    workers = max(1, min(int(workers), deals))  # more processes than deals would only idle
    try:
        if workers == 1:
            _init_worker(env_kwargs, built, seed, game)
            for d in range(deals):
                recs = _play_deals([d])
                records.extend(recs)
                if bar is not None:
                    bar.update(len(recs))
        else:
            chunk = max(1, min(25, deals // (workers * 4) or 1))
            chunks = [list(range(i, min(i + chunk, deals))) for i in range(0, deals, chunk)]
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(
                workers, initializer=_init_worker, initargs=(env_kwargs, built, seed, game)
            ) as pool:
                for recs in pool.imap(_play_deals, chunks):
                    records.extend(recs)
                    if bar is not None:
                        bar.update(len(recs))
    finally:  # also on Ctrl-C: the bar ends its line before any message is printed
        if bar is not None:
            bar.close()
    stats = summarize(records, labels, p, episode)
    return EvaluationResult(
        agents=labels,
        env_kwargs=env.env_kwargs,
        num_players=p,
        episode=episode,
        seed=seed,
        deals=deals,
        episodes=len(records),
        rounds_played=sum(r.rounds for r in records),
        deal_seeds=[deal_seed(seed, d) for d in range(deals)],
        blocked_rounds=sum(r.blocked for r in records),
        void_rounds=sum(r.void for r in records),
        truncated_episodes=sum(r.truncated for r in records),
        stats=stats,
        seconds=time.perf_counter() - start,
        workers=workers,
        records=records if keep_records else [],
        game=game,
        teams=bool(getattr(env.config, "teams", False)),
        annulled_rounds=sum(r.annulled for r in records),
    )


# ---------------------------------------------------------------------------------- CLI
_RULE_OPTIONS = (
    "first_turn",
    "doubles",
    "drawn_tile",
    "marker_removal",
    "station_source",
    "blocked_round",
    "game_end",
)


def add_mexican_train_rule_options(parser: argparse.ArgumentParser) -> None:
    """The Mexican Train rule options (``--hand-size``, ``--doubles``, ...; default: the
    preset's value), shared by the evaluation and training commands."""
    rules = parser.add_argument_group("rules (default: the preset's value)")
    rules.add_argument("--hand-size", type=int, default=None, help=FIELD_DOCS["hand_size"])
    for name in _RULE_OPTIONS:
        rules.add_argument(
            "--" + name.replace("_", "-"),
            default=None,
            choices=RULE_CHOICES[name],
            help=FIELD_DOCS[name],
        )
    for name in ("use_boneyard", "use_mexican_train"):
        rules.add_argument(
            "--" + name.replace("_", "-"),
            action=argparse.BooleanOptionalAction,
            default=None,
            help=FIELD_DOCS[name],
        )
    for name in ("double_blank_points", "elimination_limit"):
        rules.add_argument("--" + name.replace("_", "-"), type=int, default=None, help=FIELD_DOCS[name])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="domino-evaluate",
        description="Duplicate-deal tournament (Mexican Train, or the line games block, draw and "
        "Cuban): every deal is played in every seat rotation of the agent list; prints win rates "
        "with 95%% confidence intervals (with teams: team win rates, parity 1/2).",
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
        help="one agent per seat, in seat order of the first rotation: random, greedy, planner "
        "(or name:arg for registered factories); repeated names are aggregated",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=2000,
        help="episodes to play (rounds, or whole games with --episode game), rounded up to a "
        "multiple of the player count; each deal is played once per seat rotation (default 2000)",
    )
    parser.add_argument(
        "--players",
        type=int,
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
        type=int,
        default=0,
        help="tournament seed: deals and agent generators (default 0)",
    )
    parser.add_argument(
        "--json",
        default=None,
        metavar="PATH",
        help="also write the results (config, seeds, agents, stats) as JSON",
    )
    parser.add_argument(
        "--records", action="store_true", help="include every episode's record in the JSON"
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="processes to play deals in parallel (default 1)"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_mexican_train_rule_options(parser)
    line = parser.add_argument_group(
        "line-game rules (--game block|draw|cuban; default: the preset's value; --hand-size and "
        "--use-boneyard apply too)"
    )
    line.add_argument(
        "--teams",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=LINE_FIELD_DOCS["teams"] + " Win rates are then team win rates (parity 1/2).",
    )
    for name, choices in LINE_RULE_CHOICES.items():
        line.add_argument(
            "--" + name.replace("_", "-"), default=None, choices=choices, help=LINE_FIELD_DOCS[name]
        )
    line.add_argument(
        "--annul-doubles",
        type=int,
        default=None,
        help=LINE_FIELD_DOCS["annul_doubles"] + " Give 0 for no annulment.",
    )
    line.add_argument(
        "--target-score", type=int, default=None, help=LINE_FIELD_DOCS["target_score"]
    )
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``domino-evaluate`` (``python -m domino_env.train.evaluate``) (see :func:`run`)."""
    run(argv)


def run(argv: Sequence[str] | None = None) -> EvaluationResult:
    """Parse ``argv``, play the tournament, print the table, write the JSON; return the result."""
    from rich.console import Console

    from domino_env.core.errors import CheckpointError, DominoError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if args.workers < 1:
        parser.error(f"--workers must be >= 1, got {args.workers}")
    if args.json is not None:
        folder = os.path.dirname(os.path.abspath(args.json))
        if not os.path.isdir(folder):  # fail now, not after the whole tournament
            parser.error(f"--json {args.json}: folder {folder} does not exist")
    if args.max_pip is not None:
        allowed = (9, 12, 15, 18) if args.game == "mexican_train" else (6, 9, 12)
        if args.max_pip not in allowed:
            parser.error(f"--max-pip: max_pip={args.max_pip} is not a set of --game {args.game}; allowed: {allowed}")
    players = args.players if args.players is not None else len(args.agents)
    if args.game == "cuban" and args.teams is not False and players != 4:
        parser.error(f"--game cuban plays in teams of two: give 4 agents, or --no-teams ({players} given)")
    mexican = (*_RULE_OPTIONS, "use_mexican_train", "double_blank_points", "elimination_limit")
    line = ("teams", *LINE_RULE_CHOICES, "annul_doubles", "target_score")
    if args.game == "mexican_train":
        kwargs: dict[str, Any] = {"preset": args.preset or "domino_cubano"}
        own, foreign = mexican, line
    else:
        if args.preset is not None:
            parser.error(
                f"--preset is for --game mexican_train; --game {args.game} is its own preset"
            )
        kwargs = {}
        own, foreign = line, mexican
    for name in foreign:
        if getattr(args, name) is not None:
            parser.error(f"--{name.replace('_', '-')} is not a rule of --game {args.game}")
    if args.max_pip is not None:
        kwargs["max_pip"] = args.max_pip
    for name in ("hand_size", "use_boneyard", *own):
        value = getattr(args, name)
        if value is not None:
            kwargs[name] = value
    if kwargs.get("annul_doubles") == 0:
        kwargs["annul_doubles"] = None
    try:
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
            **kwargs,
        )
    except CheckpointError as exc:  # a missing or corrupt model file: one line, no usage
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    except ConfigError as exc:  # name the flag, not the config field
        flag = "--players" if args.players is not None else "--agents"
        parser.error(seats_error_line(exc, args.game, players, flag, no_teams=True) or str(exc))
    except DominoError as exc:
        parser.error(str(exc))
    console = Console()
    if not console.is_terminal:  # piped or captured: do not squeeze the table into 80 columns
        console = Console(width=200)
    console.print(result.table())
    annulled = f", {result.annulled_rounds} annulled and re-dealt" if result.annulled_rounds else ""
    parity = (
        "Teams: win rate = team win rate, parity share = 1/2"
        if result.teams
        else "Parity share = 1/P x fraction of non-void episodes"
    )
    games = f" in {result.episodes} games" if args.episode == "game" else ""
    console.print(
        f"{result.rounds_played} rounds{games} "
        f"({result.blocked_rounds} blocked, {result.void_rounds} void, {result.truncated_episodes} truncated{annulled}) "
        f"in {result.seconds:.1f}s with {result.workers} worker(s). {parity}; CI per deal = t interval over "
        f"the {result.deals} per-deal averages (n/a with fewer than 2 deals)."
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result.to_dict(records=args.records), f, indent=1)
        console.print(f"wrote {args.json}")
    return result


if __name__ == "__main__":  # through train.cli: a missing extra or a bad file is one line
    from domino_env.train.cli import launch

    launch("domino-evaluate", main)
