"""What a duplicate-deal tournament produces: one :class:`GameRecord` per episode, the
per-agent :class:`AgentStats` (:func:`summarize`) and the :class:`EvaluationResult` with its
tables (the statistics are defined in the docstring of ``domino_env.train.evaluate``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from domino_env.core.config import LINE_PRESETS, from_preset, line_from_preset
from domino_env.core.errors import ConfigError
from domino_env.train.intervals import mean_interval, wilson_interval

if TYPE_CHECKING:
    from rich.table import Table  # the train extra's rich (imported when a table is made)


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
        seat_rounds: per seat, the rounds it played: ``rounds``, less the rounds a seat knocked
            out of an elimination game sat out (None in files written before it was kept: then
            ``rounds`` for every seat). Pips and round wins per round are per round played.
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
    seat_rounds: list[int] | None = None


def played_rounds(rec: Any, seat: int) -> int:
    """Rounds ``seat`` played in the episode of ``rec`` (a :class:`GameRecord` or its dict): its
    ``seat_rounds`` entry, or ``rounds`` in a record without them (an older file)."""
    counts = rec.get("seat_rounds") if isinstance(rec, dict) else rec.seat_rounds
    if counts is None:
        return rec["rounds"] if isinstance(rec, dict) else rec.rounds
    return counts[seat]


@dataclass
class AgentStats:
    """Tournament statistics of one distinct agent name (defined in the docstring of
    ``domino_env.train.evaluate``).

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
    #: per seat-round; 0.0 when ``seat_rounds`` is 0 (every episode truncated before a round
    #: ended), which the tables print as ``n/a``
    round_win_rate: float
    mean_pips_per_round: float
    mean_game_score: float | None = None
    #: Deals the agent played (the per-deal interval needs 2 or more: ``n/a`` in the tables below).
    deals: int = 0


def rule_changes(env_kwargs: dict[str, Any]) -> str:
    """``" + rule=value"`` for each rule of ``env_kwargs`` that differs from its preset's: what a
    table's title adds to the preset's name. The preset is taken at the env's players and set;
    where it cannot be (Cuban's teams need 4 players; a set too small for its hands), with the
    env's hand size too, else at its own players and set (which the title shows anyway)."""
    preset, hand = env_kwargs.get("preset"), env_kwargs.get("hand_size")
    make = line_from_preset if preset in LINE_PRESETS else from_preset
    seats = {"num_players": env_kwargs.get("num_players"), "max_pip": env_kwargs.get("max_pip")}
    for given in (seats, {**seats, "hand_size": hand}, {}):
        try:
            base = make(preset, **given)
        except (ConfigError, TypeError, ValueError):
            continue
        shown = set(given) - {"hand_size"} if given else {"num_players", "max_pip"}
        changed = [f"hand_size={hand}"] if "hand_size" in given else []
        changed += [f"{f.name}={env_kwargs[f.name]}" for f in fields(base) if f.name not in shown
                    and f.name in env_kwargs and env_kwargs[f.name] != getattr(base, f.name)]  # fmt: skip
        return "".join(f" + {c}" for c in changed)
    return ""


def deal_interval(deal_means: Sequence[float]) -> tuple[float, float]:
    """The per-deal 95% interval of an agent's win credit: the t interval over its D deal averages;
    when they do not vary (every deal won, say: a t interval of no width), the Wilson interval of
    their mean over D trials, one per deal (wider than the seat-episode one); ``(-inf, inf)`` for
    fewer than 2 deals."""
    if len(deal_means) >= 2 and float(np.std(deal_means)) < 1e-9:  # (1e-9: credits summed in another order)
        return wilson_interval(float(np.mean(deal_means)) * len(deal_means), len(deal_means))
    return mean_interval(deal_means)


def interval_text(ci: Sequence[float], parity: float | None = None) -> str:
    """A 95% interval as every table and line prints it: ``[lo, hi]`` to 3 decimals, where a bound
    clear of ``parity`` (above it for ``lo``, below for ``hi``: what an above / below verdict reads)
    that would print as the parity share shown (0.500) gets the digits that show it differ:
    ``[0.5004, 0.825]``, never ``[0.500, 0.825]`` beside "above parity 0.500". As many digits as
    that takes: a cap of 12 printed 0.5 + 1e-14 as ``0.500000000000`` beside "above parity"
    (two distinct finite floats differ within 1074 decimals, their exact expansions)."""
    def bound(x: float, clear: bool) -> str:
        digits = 3
        while clear and digits < 1100 and f"{x:.{digits}f}" == f"{parity:.{digits}f}":
            digits += 1
        return f"{x:.{digits}f}"

    if parity is None:
        return f"[{ci[0]:.3f}, {ci[1]:.3f}]"
    return f"[{bound(ci[0], ci[0] > parity)}, {bound(ci[1], ci[1] < parity)}]"


def deal_interval_text(ci: Sequence[float], deals: int, parity: float | None = None) -> str:
    """The per-deal 95% interval as the tables print it: :func:`interval_text`, or ``n/a`` for fewer
    than 2 deals (a t interval needs two deal averages; the stored interval is then ``[0, 1]``)."""
    return interval_text(ci, parity) if deals >= 2 else "n/a"


@dataclass
class EvaluationResult:
    """What :func:`domino_env.train.tournament.evaluate` returns (and ``--json`` writes, via
    :meth:`to_dict`).

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
        resumed_deals: deals taken from the journal of an interrupted run, not played in this
            one (``seconds`` and ``workers`` are this run's).
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
    resumed_deals: int = 0

    def stats_for(self, name: str) -> AgentStats:
        """The :class:`AgentStats` of agent ``name`` (its label: the spec string, else ``agent.name``).

        Raises:
            KeyError: no agent of that label; the message lists the result's labels."""
        for s in self.stats:
            if s.name == name:
                return s
        raise KeyError(f"{name!r} is not an agent of this result; its agents: {', '.join(s.name for s in self.stats)}")

    def to_dict(self, records: bool = False) -> dict[str, Any]:
        """JSON-ready dict (``records=True`` adds every episode)."""
        d = asdict(self)
        if not records:
            d.pop("records")
        for s in d["stats"]:
            s["ci95_wilson"] = list(s["ci95_wilson"])
            s["ci95_deal"] = list(s["ci95_deal"])
        return d

    def table(self, width: int | None = None) -> Table:
        """The results as a ``rich.table.Table``, one row an agent (labels shown as written, never
        read as rich markup). With ``width`` (characters), a renderable that fits it with every
        figure whole: that table, else one row a figure and one column an agent, in as many
        tables as the agents need (:func:`~domino_env.train.tables.fitted_table`)."""
        from domino_env.train.tables import fitted_table, verdict_cell, wide_table

        unit = "games" if self.episode == "game" else "rounds"
        game = "" if self.game == "mexican_train" else f"{self.game} game, "
        teams = ", teams 0+2 vs 1+3 (team win rate)" if self.teams else ""
        title = (
            f"{' '.join(self.agents)} | {game}{self.num_players} players{teams}, "
            f"double-{self.env_kwargs.get('max_pip')}, {self.env_kwargs.get('preset')}{rule_changes(self.env_kwargs)} | "
            f"{self.episodes} {unit} = {self.deals} deal{'s' * (self.deals != 1)} x {self.num_players} seat rotations | "
            f"seed {self.seed}"
        )
        columns = [("agent", "left"), ("seats", "right"), (f"seat-{unit}", "right"), ("wins", "right"),
                   ("win rate", "right"), ("95% CI Wilson", "right"), ("95% CI per deal", "right"),
                   ("parity 1/2" if self.teams else "parity 1/P", "right"), ("vs parity", "left")]  # fmt: skip
        if self.episode == "game":
            columns.append(("round win rate", "right"))
        columns.append(("mean pips/round", "right"))
        if self.episode == "game":
            columns.append(("mean game score", "right"))
        # shared wins (a tie, a team) give fractions: then every row has two decimals, never 1345.33 beside 654.667
        whole = all(float(s.wins).is_integer() for s in self.stats)
        rows = []
        for s in self.stats:
            row = [
                s.name,
                str(s.seats_per_table),
                str(s.seat_episodes),
                f"{s.wins:.0f}" if whole else f"{s.wins:.2f}",
                f"{s.win_rate:.3f}",
                interval_text(s.ci95_wilson, s.parity),
                deal_interval_text(s.ci95_deal, s.deals, s.parity),
                f"{s.parity:.3f}",
                verdict_cell(s.verdict),
            ]
            played = s.seat_rounds > 0  # (none when every episode was truncated before a round ended)
            if self.episode == "game":
                row.append(f"{s.round_win_rate:.3f}" if played else "n/a")
            row.append(f"{s.mean_pips_per_round:.2f}" if played else "n/a")
            if self.episode == "game":
                row.append("n/a" if s.mean_game_score is None else f"{s.mean_game_score:.1f}")
            rows.append(row)
        if width is None:
            return wide_table(title, columns, rows)
        return fitted_table(title, columns, rows, width)

    def markdown(self) -> str:
        """The main columns as a Markdown table (as in docs/evaluation.md)."""
        unit = "games" if self.episode == "game" else "rounds"  # as the terminal table says
        rows = [
            f"| agent | seats | seat-{unit} | win rate | 95% CI (Wilson) | 95% CI (per deal) | parity | mean pips/round |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for s in self.stats:
            rows.append(
                f"| {s.name} | {s.seats_per_table} | {s.seat_episodes} | {s.win_rate:.3f} | "
                f"{interval_text(s.ci95_wilson, s.parity)} | {deal_interval_text(s.ci95_deal, s.deals, s.parity)} | "
                f"{s.parity:.3f} | {f'{s.mean_pips_per_round:.1f}' if s.seat_rounds else 'n/a'} |"
            )
        return "\n".join(rows)


def is_count(value: Any) -> bool:
    """``value`` is an integer >= 0 (not a bool): a record's deal, rotation, seed or count."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def seat_values(values: Any, p: int, *, integers: bool = False, low: float | None = 0, high: float = math.inf) -> bool:
    """``values`` is a list of ``p`` finite numbers (``integers``: integers) in [``low``, ``high``]
    (``low=None``: no lower bound): a record's per-seat credits, pips or scores."""
    kinds = int if integers else (int, float)
    return (isinstance(values, list) and len(values) == p
            and all(isinstance(v, kinds) and not isinstance(v, bool) and math.isfinite(v)
                    and (low is None or v >= low) and v <= high for v in values))  # fmt: skip


def win_credit(credit: Sequence[float] | None, truncated: bool, seat: int) -> float:
    """A seat's win credit for one episode, as the win rate counts it: its round (or, for whole
    games, game) credit, and 0 for a truncated episode (or one without game credit)."""
    return 0.0 if truncated or credit is None else credit[seat]


def summarize(
    records: Sequence[GameRecord], names: Sequence[str], num_players: int, episode: str = "round",
    teams: bool = False,
) -> list[AgentStats]:
    """Per-distinct-name statistics of ``records`` (``names[i]`` = label of agent index i). With
    ``teams`` (seats 0+2 vs 1+3) the Wilson interval counts one trial per (episode, team) the agent
    sits in: partners share one result, which counted once per seat made the interval too narrow."""
    p = num_players
    game_mode = episode == "game"
    order = list(dict.fromkeys(names))
    episodes = len(records)
    total_credit = 0.0
    ended = sum(not rec.truncated for rec in records)
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
        trials, trial_wins = 0, 0.0  # Wilson's: seat-episodes, or (episode, team) pairs with teams
        seat_rounds = 0
        round_wins = 0.0
        pips = 0
        score_sum, scored = 0.0, 0  # final totals of the games that finished (a truncated one has none)
        per_deal: dict[int, list[float]] = {}
        for rec in records:
            counted: set[int] = set()  # the teams of this episode already counted as a trial
            for s in range(p):
                if rec.seats[s] not in idx:
                    continue
                seat_eps += 1
                if game_mode and rec.scores is not None:
                    score_sum += rec.scores[s]
                    scored += 1
                c = win_credit(rec.game_credit if game_mode else rec.round_credit, rec.truncated, s)
                wins += c
                if not teams or s % 2 not in counted:
                    counted.add(s % 2)
                    trials += 1
                    trial_wins += c
                seat_rounds += played_rounds(rec, s)  # a knocked-out seat's later rounds are not its
                round_wins += rec.round_credit[s]
                pips += rec.pips[s]
                per_deal.setdefault(rec.deal, []).append(c)
        rate = wins / seat_eps if seat_eps else 0.0
        wilson = wilson_interval(trial_wins, trials)
        deal_means = [sum(v) / len(v) for v in per_deal.values()]
        lo, hi = deal_interval(deal_means)
        ci_deal = (max(0.0, lo), min(1.0, hi))
        if len(deal_means) < 2 or ended == 0:  # one deal says nothing either way; nor do episodes
            verdict = "n/a"  # that were all truncated before they ended (parity 0 is no measure then)
        elif min(wilson[0], ci_deal[0]) > parity:
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
                mean_game_score=(score_sum / scored if scored else None) if game_mode else None,
                deals=len(per_deal),
            )
        )
    return out

