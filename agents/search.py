"""Determinized search (Perfect Information Monte Carlo) for every game: ``search``, ``search:N``.

At each decision with more than one legal action the agent

1. builds nothing itself from the observation: it receives the seat's
   :class:`~domino_env.core.belief.InformationState` (keyword ``info_state``; the callers of the
   package pass it to every agent whose ``wants_info_state`` is true, see :mod:`domino_env.agents.base`),
2. keeps the moves to search: in Mexican Train the prior's two best-ranked legal moves
   (``candidates``; the planner's move and its runner-up by the planner's own sort key: at the
   same budget, searching every legal move measured weaker on one seed and level on a held-out
   one, docs/search_experiments.md#searching-the-planners-two-best-moves-candidates), in the line games every legal move,
3. samples ``K = max(min_worlds, N // A)`` determinizations (complete states drawn uniformly from
   the deals consistent with what the seat knows, re-weighted in the line games as below; A =
   moves searched, N = the playout budget),
4. in every determinization plays each of those moves and values the position it leads to, the
   same determinization for every action (common random numbers: the actions are compared on the
   same deals, which removes most of the deal-to-deal noise from the differences):

   * Mexican Train: one playout to the end of the round (:func:`domino_env.agents.rollout.playout`
     on engine state, every seat alike, rollout ``"plan"``; or ``"planner"``, the ladder's planner
     itself at every seat: an exact model of planner opponents at 12x the cost, no stronger at
     the same time per decision, docs/search_experiments.md#planner-rollouts-with-sampled-deals-mexican-train);
   * line games (rollout ``"solve"``, the default): the ``"block"`` rollout plays every seat until
     at most ``solve_tiles`` (20; 14 in the draw game) tiles are left in the hands and the
     boneyard, then the exact win/loss of the
     determinized round is solved (:mod:`domino_env.agents.line_solver`; two sides only: 2 players
     or teams; with more sides, e.g. block 4p, the ``"block"`` rollout plays to the end);
   * line games re-weight the determinizations by how likely the other seats' placements were
     under a "heavy tiles first" model of play (``infer`` = 0.5 per pip;
     :mod:`domino_env.agents.line_inference`): ``oversample`` x K uniform samples are drawn and K
     of them resampled in proportion to their weights,

5. picks the action with the best mean value, but keeps the **prior's** move (the ladder's
   ``planner`` of the game, given the same observation) unless the best action beats it by more
   than ``margin`` (1.5) standard errors of their paired per-deal difference: the search is a
   correction of a strong policy, not a replacement for it, so playout noise on near-equal moves
   cannot make it worse than its prior. A playout's value is the seat's round-win credit
   (1, ``1/k`` for a k-way tie, 0; with teams the team's win counts for both partners) plus
   ``pip_weight`` x (the mean pips left in the opponents' hands - the seat's own, with teams the
   two sides' totals) / 100: the win is what the tournaments count, the pip margin breaks ties
   between actions that win (or lose) equally often and has lower variance. Ties: the lowest
   action.

Costs: ``K x A`` playouts or solves per decision (about ``N``), each a state copy plus 40-80
engine steps (Mexican Train, 4 players) or 5-30 (line games), or an endgame solve (block 2p about
0.5 ms); at the default budget about 60-95 ms of CPU a decision in Mexican Train 4p double-12, 26 ms
in block 2p and 150 ms in Cuban (docs/search.md, section 3). Decisions with one legal action cost
nothing. Deterministic given the ``rng`` passed in (the samples come
from it); picklable (plain attributes).

Without ``info_state`` (a caller that does not know the extension) it raises
:class:`~domino_env.core.errors.ConfigError` rather than play blind.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from domino_env.core.belief import InformationState
from domino_env.core.config import LineConfig
from domino_env.core.errors import AgentSpecError, ConfigError, DominoError, as_int
from domino_env.core.tiles import tile_count

from .base import as_config, check_mask_size, register_agent
from .line_inference import OPPONENT_MODELS, log_weight, placements, resample
from .line_solver import LineSolver, solve_or_playout
from .rollout import playout

#: Default playouts per decision (Mexican Train 4p double-12 with ``"plan"`` rollouts: about
#: 60-95 ms of CPU on one core of the shared 2-core machine).
DEFAULT_BUDGET = 200
#: Largest budget and min_worlds: about 40 s of CPU a decision in Mexican Train 4p double-12 (200 take
#: about 80 ms). Uncapped, search:10**20 was accepted and its first decision never returned.
MAX_BUDGET = 100_000
#: Line games: the opponent model's weight per pip (line_inference).
DEFAULT_INFER = 0.5
#: Mexican Train: moves searched, the prior's best-ranked (docs/search_experiments.md: at the same
#: budget, searching every legal move was weaker on one seed and level on a held-out one).
DEFAULT_CANDIDATES = 2
ROLLOUTS_MEXICAN = ("plan", "planner", "greedy", "random")
ROLLOUTS_LINE = ("solve", "block", "greedy", "random")


def _play_rules(config: Any) -> dict[str, Any]:
    """The fields of ``config`` that change the game, the seats and the set first: not the
    ``preset`` it was named from, and the hands as dealt (``hand_size=None`` deals as a number
    does), at every seat count a round can have (seats eliminated in a game)."""
    first = ("num_players", "max_pip", "use_boneyard", "teams")
    skip = {"preset", "hand_size", "hand_size_rule"}
    rules = {f: getattr(config, f, None) for f in first}
    rules.update((f.name, getattr(config, f.name)) for f in dataclasses.fields(config)
                 if f.name not in skip and f.name not in rules)  # fmt: skip
    dealt = getattr(config, "dealt_hand_size", None)
    p = getattr(config, "num_players", 0)
    rules["hand_size"] = tuple(dealt(n) for n in range(2, p + 1)) if dealt else getattr(config, "hand_size", None)
    return rules


class SearchAgent:
    """Perfect Information Monte Carlo search over sampled determinizations (module docstring).

    Args:
        config: the rules (anything :func:`domino_env.agents.base.as_config` accepts; Mexican Train or line).
        budget: playouts per decision N (``search:N``).
        min_worlds: at least this many determinizations per decision.
        pip_weight: weight of the pip margin (per 100 pips) next to the win credit.
        rollout: rollout policy of :func:`domino_env.agents.rollout.playout` (default
            ``"plan"`` for Mexican Train; ``"planner"``: the planner itself at every seat, about 12x
            dearer; ``"greedy"``, ``"random"``), or for line games ``"solve"`` (the default:
            rollout ``"block"`` then the exact endgame solver).
        prior: agent name whose move is kept unless clearly beaten (None: pure search).
        margin: standard errors by which the best action must beat the prior's move.
        solve_tiles: ``"solve"``: tiles left in the hands and the boneyard together at which the
            solver takes over (None: 20; 14 in the draw game, whose draws make solves dearer).
        node_limit: ``"solve"``: nodes per solve; beyond it the rollout plays a move and retries.
        infer: line games: the opponent model's ``beta`` per pip (None: 0.5; 0: uniform
            determinizations, as in Mexican Train, which has no opponent model).
        oversample: line games with ``infer``: uniform samples drawn per determinization kept.
        opponent_model: line games with ``infer``: ``"heavy"`` (default: heavy tiles first) or
            ``"planner"`` (the line planner's first three rules: pips, doubles, suits kept;
            :mod:`~domino_env.agents.line_inference`).
        candidates: search only the prior's ``candidates`` best-ranked legal moves (its
            ``rank_actions``; the prior's own move is always among them), so the budget buys
            more determinizations per move (1: play the prior's move, no search); 0: every
            legal move; None: the game's default (:data:`DEFAULT_CANDIDATES` = 2 in Mexican
            Train with a prior that ranks its moves, such as the planner; else every move).

    Raises:
        ConfigError: a rollout or option the game does not support, a count out of range
            (``oversample``, ``solve_tiles``, ``node_limit`` >= 1; ``budget``, ``min_worlds`` 1 to
            :data:`MAX_BUDGET`; ``candidates`` >= 0), a weight not a finite number >= 0, a
            ``prior`` that is no agent of this game or needs ``info_state`` (or, with
            ``candidates``, ranks no moves); when called: a mask of another size or with no legal
            action, or no ``info_state`` (also with one legal action), or one of another seat or
            rules.
    """

    name = "search"
    #: Ask the caller for the seat's InformationState (agents.base: the optional extension).
    wants_info_state = True

    def __init__(
        self,
        config: Any = None,
        budget: int = DEFAULT_BUDGET,
        min_worlds: int = 4,
        pip_weight: float = 0.1,
        rollout: str | None = None,
        prior: str | None = "planner",
        margin: float = 1.5,
        solve_tiles: int | None = None,
        node_limit: int = 20_000,
        infer: float | None = None,
        oversample: int = 4,
        candidates: int | None = None,
        opponent_model: str = "heavy",
    ):
        cfg = as_config(config)
        self.config = cfg
        self.line = isinstance(cfg, LineConfig)
        self.num_players = p = cfg.num_players
        t = tile_count(cfg.max_pip)
        self.num_actions = 2 * t + 3 if self.line else t * (p + 1) + 2
        self.teams = bool(getattr(cfg, "teams", False))
        if solve_tiles is None:  # draws branch the solver's tree: solve later with a boneyard
            solve_tiles = 14 if getattr(cfg, "use_boneyard", False) else 20
        counts = {}
        for field, value, high in (
            ("budget", budget, MAX_BUDGET),
            ("min_worlds", min_worlds, MAX_BUDGET),
            ("oversample", oversample, None),
            ("solve_tiles", solve_tiles, None),
            ("node_limit", node_limit, None),
        ):
            number = as_int(value)  # numpy integers and 0-d integer arrays too
            if number is None or number < 1 or (high is not None and number > high):
                raise ConfigError(field, value, "an integer >= 1" if high is None else f"an integer from 1 to {high:,}")
            counts[field] = number
        if candidates is not None:
            number = as_int(candidates)
            if number is None or number < 0:
                raise ConfigError(
                    "candidates", candidates, "an integer >= 0 (0: every legal move) or None"
                )
            candidates = number
        budget, min_worlds, oversample, solve_tiles, node_limit = counts.values()
        self.budget = budget
        self.min_worlds = min_worlds
        self.pip_weight = _finite("pip_weight", pip_weight)
        self.margin = _finite("margin", margin)
        self.rollout = ("solve" if self.line else "plan") if rollout is None else rollout
        allowed = ROLLOUTS_LINE if self.line else ROLLOUTS_MEXICAN
        if self.rollout not in allowed:
            raise ConfigError("rollout", rollout, f"one of {allowed} for this game")
        if infer is None:
            infer = DEFAULT_INFER if self.line else 0.0
        self.infer = _finite("infer", infer)
        if self.infer > 0 and not self.line:
            raise ConfigError(
                "infer", infer, "0 in Mexican Train (its search has no opponent model)"
            )
        if opponent_model not in OPPONENT_MODELS:
            raise ConfigError("opponent_model", opponent_model, f"one of {OPPONENT_MODELS}")
        if opponent_model != "heavy" and not self.line:
            raise ConfigError("opponent_model", opponent_model, "'heavy' in Mexican Train (its search has no opponent model)")
        self.opponent_model = opponent_model
        # "solve" needs two sides; with three or more (block 4p) the "block" rollout plays to the end
        self._solves = self.rollout == "solve" and (p == 2 or self.teams)
        self._policy = "block" if self.rollout == "solve" else self.rollout
        self._rollout_planner = None
        if self._policy == "planner":  # one instance: its chain memo serves every playout
            from .mexican_train import PlannerAgent

            self._rollout_planner = PlannerAgent(cfg)
        self.oversample = int(oversample)
        self.solve_tiles = int(solve_tiles)
        self.node_limit = int(node_limit)
        self.prior = None
        if prior is not None:
            from .base import make_agent

            try:
                self.prior = make_agent(prior, cfg)
            except DominoError as err:
                raise ConfigError("prior", prior, f"an agent name for this game ({err})") from err
            if getattr(self.prior, "wants_info_state", False):
                raise ConfigError(
                    "prior", prior, "an agent that plays from the observation alone (not search, "
                    "nor a model reading action-features-v3, whose rows need the public history)"
                )
        if candidates is None:
            ranks = hasattr(self.prior, "rank_actions")
            candidates = DEFAULT_CANDIDATES if ranks and not self.line else 0
        self.candidates = int(candidates)
        if self.candidates and not hasattr(self.prior, "rank_actions"):
            raise ConfigError(
                "candidates", candidates, f"0 with prior {prior!r} (it does not rank its moves)"
            )

    def __repr__(self) -> str:
        return (
            f"SearchAgent(budget={self.budget}, num_players={self.num_players}, line={self.line})"
        )

    def __call__(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        rng: np.random.Generator,
        info_state: InformationState | None = None,
    ) -> int:
        check_mask_size(self, action_mask)
        self._check_info_state(info_state)  # before the shortcut: a caller's wiring shows on its first call
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if len(legal) == 1:
            return legal[0]
        legal, default, values = self.searched_values(observation, action_mask, rng, info_state)
        if len(legal) == 1:  # candidates=1: the prior's move, unsearched
            return legal[0]
        means = [sum(v) / len(v) for v in values]
        best = max(range(len(legal)), key=lambda i: (means[i], legal[i] == default, -legal[i]))
        if default < 0 or legal[best] == default:
            return legal[best]
        # Leave the prior's move only for a clearly better one: the paired (same deals) difference
        # must exceed ``margin`` standard errors.
        d = np.array(values[best]) - np.array(values[legal.index(default)])
        se = float(d.std(ddof=1)) / np.sqrt(len(d)) if len(d) > 1 else float("inf")
        return legal[best] if float(d.mean()) > self.margin * se else default

    def searched_values(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        rng: np.random.Generator,
        info_state: InformationState | None,
    ) -> tuple[list[int], int, list[list[float]]]:
        """Steps 1-4 of a decision (module docstring): ``(moves searched, the prior's move or -1,
        per move its playout values, one per determinization)``; with ``candidates=1`` the
        prior's move alone and no values. What :meth:`__call__` decides from, and what the
        search columns of the action features (``action-features-v3``) read.

        Raises:
            ConfigError: ``info_state`` is None, not an InformationState, of a seat other than
                the one to act, or holds a state of other rules.
        """
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        mask_legal = legal
        self._check_info_state(info_state)
        default = -1
        if self.prior is not None and self.candidates and len(legal) > self.candidates:
            # One call for the move and the ranking: a prior that draws from the rng (the line
            # planner's closing estimate) could rank after other draws than its move's.
            ranked = [int(a) for a in self.prior.rank_actions(observation, action_mask, rng)]
            default = ranked[0]
            if self.candidates == 1:
                return [default], default, [[]]
            legal = sorted(ranked[: self.candidates])
        elif self.prior is not None:
            default = int(self.prior(observation, action_mask, rng))
        return legal, default, self.action_values(info_state, legal, rng, mask_legal)

    def _check_info_state(self, info_state: Any) -> None:
        """Refuse (ConfigError) an ``info_state`` that is None, not an InformationState, of a seat
        other than the one to act, or of other rules (:meth:`searched_values`' Raises)."""
        if info_state is None:
            raise ConfigError(
                "info_state",
                None,
                "the seat's InformationState: search needs the public history (train.evaluate and "
                "SingleAgentEnv pass it to agents with wants_info_state; or call "
                "agent(obs, mask, rng, info_state=InformationState.from_state(state, seat)))",
            )
        # duck-typed (benchmarks/search_oracle.py hands it the true state): public, seat, sample
        if not all(hasattr(info_state, name) for name in ("public", "seat", "sample")):
            raise ConfigError("info_state", type(info_state).__name__, "an InformationState "
                              "(InformationState.from_state(state, seat))")  # fmt: skip
        if info_state.public.current_player != info_state.seat:
            raise ConfigError("info_state", f"seat {info_state.seat}", "the information of the seat to act "
                              f"(seat {info_state.public.current_player})")  # fmt: skip
        self._check_rules(info_state.public.config)

    def _check_rules(self, rules: Any) -> None:
        """Refuse a state of other rules than the agent's (its solver threshold, prior and
        values depend on them), naming the first field that differs (the seats and the set
        first). A ``doubles="chain"`` game once passed a ``"satisfy"`` agent, whose prior then
        planned with the wrong rule."""
        got_rules, want_rules = _play_rules(rules), _play_rules(self.config)
        for field, want in want_rules.items():
            got = got_rules.get(field)
            if got != want:
                raise ConfigError(
                    field, got, f"{want}: this search agent was built for {field}={want}"
                )

    def action_values(
        self, info: InformationState, legal: list[int], rng: np.random.Generator,
        mask_legal: list[int] | None = None,
    ) -> list[list[float]]:
        """Playout values of every action of ``legal``, one per sampled determinization.

        Raises:
            ConfigError: ``mask_legal`` (the caller's action mask, as a sorted list) is not the
                legal moves of ``info``'s position: the seat's hand and the table are known, so
                every determinization has the same ones (an info_state of another turn).
        """
        worlds = max(self.min_worlds, self.budget // len(legal))
        totals: list[list[float]] = [[] for _ in legal]
        seat = info.seat
        plans: dict = {}  # chain plans shared by this decision's playouts ("plan" rollouts)
        solver = None
        moves = placements(info.public, seat) if self.line and self.infer > 0 else None
        if moves:
            pool = [info.sample(rng) for _ in range(worlds * self.oversample)]
            logw = [log_weight(w, moves, self.infer, self.opponent_model) for w in pool]
            sampled = resample(pool, logw, worlds, rng)
        else:
            sampled = None
        for k in range(worlds):
            world = sampled[k] if sampled else info.sample(rng)
            if k == 0 and mask_legal is not None and [int(a) for a in world.legal_actions()] != mask_legal:
                raise ConfigError("info_state", f"seat {seat}", "the information of the position the action mask "
                                  f"comes from (the mask allows {mask_legal}, the position {world.legal_actions()}); "
                                  "build it from the same state")  # fmt: skip
            if solver is not None:
                solver.reset()  # its table holds for one deal
            seed = int(rng.integers(2**63))
            for i, action in enumerate(legal):
                state = world.copy()
                state.apply(action)
                if self._solves:
                    if solver is None:
                        solver = LineSolver(state, self.node_limit)
                    result = solve_or_playout(state, seat % 2, solver, self.solve_tiles)
                    if isinstance(result, float):
                        totals[i].append(result)
                        continue
                else:
                    r = np.random.default_rng(seed) if self._policy == "random" else None
                    result = (
                        state.round_result
                        if state.round_over
                        else playout(state, self._policy, r, plans, self._rollout_planner)
                    )
                totals[i].append(self.value(result, seat))
        return totals

    def value(self, result: Any, seat: int) -> float:
        """Value of a finished round for ``seat``: win credit + ``pip_weight`` x pip margin / 100."""
        p = self.num_players
        if result.termination == "annulled":  # a fresh deal: worth the parity share
            return 0.5 if self.teams else 1.0 / p
        winners = result.winners
        pips = result.pips
        if self.teams:
            side = seat % 2
            sides = {s % 2 for s in winners}
            credit = (1.0 / len(sides)) if side in sides else 0.0
            own = pips[side] + pips[side + 2]
            other = pips[1 - side] + pips[3 - side]
            margin = other - own
        else:
            credit = (1.0 / len(winners)) if seat in winners else 0.0
            rest = [pips[s] for s in range(p) if s != seat]
            margin = sum(rest) / len(rest) - pips[seat]
        return credit + self.pip_weight * margin / 100.0


def _finite(field: str, value: Any) -> float:
    """``value`` (a number, not a bool or string) as a finite float >= 0, or a ConfigError naming
    ``field``."""
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)
    out = float(value) if ok else float("nan")
    if not (0 <= out < float("inf")):
        raise ConfigError(field, value, "a finite number >= 0")
    return out


#: Options of the ``search:key=value,...`` spelling and how each is read.
SPEC_KEYS = ("budget", "candidates", "prior", "margin", "rollout", "opponent_model")
_DECIMAL = re.compile(r"(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)  # ASCII: "٣" is a \d otherwise


def parse_spec(arg: str, line: bool = True) -> dict[str, Any]:
    """The keyword arguments of ``search:ARG``: ``N`` (the budget) or ``key=value`` items joined
    by commas (the first item may be a bare budget), keys :data:`SPEC_KEYS` (``line=False``, Mexican
    Train: the messages list them without ``opponent_model``, which only the agent then refuses
    there, saying why):
    ``search:100,prior=ppo:runs/x,candidates=2``. ``prior=none`` searches with no prior. The prior
    is the item's whole remainder, so it may hold colons but not commas.

    Raises:
        ConfigError: an unknown or repeated key, or a value that is not of its kind (field
            ``agent``, naming the spec).
    """
    spec = f"search:{arg}"
    keys = SPEC_KEYS if line else tuple(k for k in SPEC_KEYS if k != "opponent_model")
    out: dict[str, Any] = {}
    if re.search(r"\s,|,\s", arg):  # "search:8, prior=none" read as the key " prior"
        raise AgentSpecError(spec, "a spec without spaces: search:N,key=value,... (no space around a comma)")  # fmt: skip
    prev = None  # the key of the item before, while it is read
    for i, item in enumerate(arg.split(",")):
        key, eq, value = item.partition("=")
        if not eq and i == 0:
            key, value = "budget", item
        if not eq and prev == "prior" and ":" in (out["prior"] or ""):  # "prior=ppo:/a,b": a comma
            raise AgentSpecError(spec, f"key=value items after a comma; {item!r} is not one (a "
                                 "prior's path cannot hold a comma, which separates the options: "
                                 "rename or link the folder)")  # fmt: skip
        if key not in SPEC_KEYS or (not eq and i > 0):
            raise AgentSpecError(spec, f"search:N or search:key=value,... with keys {keys}")
        if key in out:
            raise AgentSpecError(spec, f"each key once ({key!r} is given twice)")
        if key == "budget" and eq:
            if not (value.isascii() and value.isdigit() and int(value) >= 1):
                raise AgentSpecError(spec, "budget=N with N an integer >= 1")
            out[key] = int(value)
        elif key == "budget":  # a bare first item: name the key=value form too
            if not (value.isascii() and value.isdigit() and int(value) >= 1):
                raise AgentSpecError(spec, f"search:N with N an integer >= 1, or search:key=value,... "
                                  f"with keys {keys}")  # fmt: skip
            out[key] = int(value)
        elif key == "candidates":
            if not (value.isascii() and value.isdigit()):
                raise AgentSpecError(spec, "candidates=K with K an integer >= 0 (0: every legal move)")
            out[key] = int(value)
        elif key == "margin":
            # plain decimals only: float() would also take " 2", "1_0", "nan" and "-1"
            if not _DECIMAL.fullmatch(value) or float(value) == float("inf"):
                raise AgentSpecError(spec, "margin=X with X a finite number >= 0")
            out[key] = float(value)
        elif key == "prior":
            out[key] = None if value == "none" else value
        else:
            out[key] = value
        prev = key
    return out


def _factory(config: Any, arg: str | None) -> SearchAgent:
    """``search`` (the defaults), ``search:N`` (N playouts per decision) or
    ``search:key=value,...`` (:func:`parse_spec`)."""
    if arg is None:
        return SearchAgent(config)
    options = parse_spec(arg, line=isinstance(as_config(config), LineConfig))
    try:
        return SearchAgent(config, **options)
    except ConfigError as err:  # a value the agent refuses (rollout, prior...): name the spec
        if err.field not in options:
            raise
        raise AgentSpecError(f"search:{arg}", f"{err.field}: {err.allowed}") from err


register_agent("search", _factory, replace=True)
register_agent("search", _factory, game="line", replace=True)
