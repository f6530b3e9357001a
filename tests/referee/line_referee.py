"""An independent referee for the line games (block, draw, Cuban), written from docs/rules.md §2
and the interface of docs/envs.md, without the engine's code (domino_env.core, domino_env.envs).

It knows nothing of the env: it is given the rules (a ``Rules``), each round's deal (the hands
and the boneyard in draw order) and the moves, and says at every decision point which actions
are legal, what each does, and how rounds and games end and score.

Actions (docs/envs.md, line games card): ``tile_index * 2 + end`` (end 0 = left, and the only
end for the lead; 1 = right), then DRAW = 2T, PASS = 2T + 1, ANNUL = 2T + 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field

WENT_OUT, BLOCKED, ANNULLED = 1, 2, 3

# docs/rules.md §2.2 and docs/envs.md "Presets (line games)".
PRESETS = {
    "block": dict(num_players=4, max_pip=6, hand_size=7, use_boneyard=False, teams=False,
                  next_lead="next_seat", annul_doubles=None, target_score=100),
    "draw": dict(num_players=2, max_pip=6, hand_size=7, use_boneyard=True, teams=False,
                 next_lead="next_seat", annul_doubles=None, target_score=5000),
    "cuban": dict(num_players=4, max_pip=9, hand_size=10, use_boneyard=False, teams=True,
                  next_lead="winner", annul_doubles=5, target_score=100),
}


@dataclass(frozen=True)
class Rules:
    num_players: int = 4
    max_pip: int = 6
    hand_size: int = 7
    use_boneyard: bool = False
    teams: bool = False
    next_lead: str = "next_seat"
    annul_doubles: int | None = None
    target_score: int = 100
    episode: str = "round"
    reward: str = "outcome"

    @classmethod
    def from_preset(cls, preset: str, **fields) -> Rules:
        return cls(**{**PRESETS[preset], **fields})


def tiles_of(max_pip: int) -> list[tuple[int, int]]:
    """The canonical order (docs/rules.md §0): (0,0), (0,1), ..., (0,N), (1,1), ..., (N,N)."""
    return [(a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1)]


def norm(tile) -> tuple[int, int]:
    a, b = int(tile[0]), int(tile[1])
    return (a, b) if a <= b else (b, a)


def pips(tiles) -> int:
    return sum(a + b for a, b in tiles)


@dataclass
class RoundResult:
    code: int  # WENT_OUT, BLOCKED or ANNULLED
    winners: list[int]  # seats, ascending (both partners with teams); [] for an annulment
    pips: list[int]  # pips left in each hand
    points: list[int]  # points scored this round by each seat's side
    game_over: bool = False
    game_winners: list[int] = field(default_factory=list)


class Referee:
    """One game of a line domino variant, move by move."""

    def __init__(self, rules: Rules):
        self.r = rules
        self.tiles = tiles_of(rules.max_pip)
        self.index = {t: i for i, t in enumerate(self.tiles)}
        self.T = len(self.tiles)
        self.DRAW, self.PASS, self.ANNUL = 2 * self.T, 2 * self.T + 1, 2 * self.T + 2
        self.scores = [0] * rules.num_players
        self.round_index = 0
        self.prev_leader: int | None = None
        self.prev_winner: int | None = None  # the seat that leads next under next_lead="winner"
        self.redeal_leader: int | None = None  # set by an annulment
        self.game_over = False
        self.round_over = False
        self.annulments = 0
        self.last_winner: int | None = None  # state's round_winner: the leader after an annulment

    # ----------------------------------------------------------------- round set-up
    def side(self, seat: int) -> list[int]:
        if self.r.teams:
            return sorted({seat % 2, seat % 2 + 2})
        return [seat]

    def start_round(self, hands, boneyard=(), first_player: int | None = None) -> None:
        """Deal a round: the leader and the forced lead follow docs/rules.md §2.1; a deal that
        names its ``first_player`` is led by that seat with any tile (docs/envs.md)."""
        P = self.r.num_players
        self.hands = [sorted(norm(t) for t in h) for h in hands]
        self.boneyard = [norm(t) for t in boneyard]
        dealt = {t for h in self.hands for t in h} | set(self.boneyard)
        self.out_of_play = [t for t in self.tiles if t not in dealt]
        self.line: list[tuple[int, int]] = []  # tiles as they lie, left to right
        self.left = self.right = None
        self.doubles_dealt = [sum(a == b for a, b in h) for h in self.hands]
        self.turn_done = [False] * P  # the seat has ended a turn this round (placed or passed)
        self.drew = [False] * P
        # docs/rules.md §3: pips each seat is publicly known to lack, from its draws and passes
        self.missing: list[set[int]] = [set() for _ in range(P)]
        self._before_draw: list[set[int]] = [set() for _ in range(P)]
        self.round_over = False
        self.forced_lead = None
        if first_player is not None:
            self.leader = first_player
            self.redeal_leader = None
        elif self.redeal_leader is not None:  # §2.2: the same seat leads again, with any tile
            self.leader = self.redeal_leader
            self.redeal_leader = None
        elif self.round_index == 0:  # a game's first round
            doubles = [t for h in self.hands for t in h if t[0] == t[1]]
            if doubles:
                lead = max(doubles)
            else:  # heaviest tile; ties: the tile with the higher pip
                lead = max((t for h in self.hands for t in h), key=lambda t: (t[0] + t[1], t[1]))
            self.forced_lead = lead
            self.leader = next(s for s in range(P) if lead in self.hands[s])
        elif self.r.next_lead == "winner":
            self.leader = self.prev_winner
        else:
            self.leader = (self.prev_leader + 1) % P
        self.current = self.leader
        self.started = [s == self.current for s in range(P)]  # the seat's first turn has begun

    # ----------------------------------------------------------------- legality
    def may_annul(self, seat: int) -> bool:
        k = self.r.annul_doubles
        return (k is not None and not self.round_over and self.doubles_dealt[seat] >= k
                and not self.turn_done[seat])

    def fits(self, tile) -> bool:
        return self.left is not None and (self.left in tile or self.right in tile)

    def legal(self) -> set[int]:
        """The actions the seat to act may take."""
        if self.round_over:
            return set()
        seat, hand, out = self.current, self.hands[self.current], set()
        if self.left is None:  # the lead
            for t in hand:
                if self.forced_lead is None or t == self.forced_lead:
                    out.add(2 * self.index[t])
        else:
            for t in hand:
                i = self.index[t]
                if self.left in t:
                    out.add(2 * i)
                if self.right in t and self.right != self.left:
                    out.add(2 * i + 1)
            if not out:
                out.add(self.DRAW if self.r.use_boneyard and self.boneyard else self.PASS)
        if self.may_annul(seat):
            out.add(self.ANNUL)
        return out

    # ----------------------------------------------------------------- moves
    def play(self, action: int) -> RoundResult | None:
        """Apply a legal action; returns the round's result when the round ends (or is annulled)."""
        if action not in self.legal():
            raise ValueError(f"illegal action {action} for seat {self.current}")
        seat, P = self.current, self.r.num_players
        if action == self.ANNUL:
            self.round_over = True
            self.redeal_leader = self.last_winner = self.leader
            self.annulments += 1
            return RoundResult(ANNULLED, [], [pips(h) for h in self.hands], [0] * P)
        if action == self.DRAW:
            self._before_draw[seat] = self.missing[seat] | {self.left, self.right}
            self.missing[seat] = set()  # an unseen tile joined the hand
            self.hands[seat].append(self.boneyard.pop(0))
            self.hands[seat].sort()
            self.drew[seat] = True
            return None
        if action == self.PASS:
            self.missing[seat] |= {self.left, self.right}
            self.turn_done[seat] = True
            self.drew[seat] = False
            self._next(seat)
            return None
        tile, end = self.tiles[action // 2], action % 2
        if self.drew[seat]:  # the tile placed is the one just drawn (nothing else fitted)
            self.missing[seat] = set(self._before_draw[seat])
        self.hands[seat].remove(tile)
        self.turn_done[seat] = True
        self.drew[seat] = False
        a, b = tile
        if self.left is None:
            self.left, self.right = a, b  # lower pip left, higher pip right
            self.line = [tile]
        elif end == 0:
            self.left = b if a == self.left else a
            self.line.insert(0, tile)
        else:
            self.right = b if a == self.right else a
            self.line.append(tile)
        if not self.hands[seat]:
            return self._end_round(WENT_OUT, seat)
        ends = (self.left, self.right)
        live = [t for h in self.hands for t in h] + self.boneyard
        if not any(e in t for t in live for e in ends):
            return self._end_round(BLOCKED, None)
        self._next(seat)
        return None

    def _next(self, seat: int) -> None:
        self.current = (seat + 1) % self.r.num_players
        self.started[self.current] = True

    def _end_round(self, code: int, went_out: int | None) -> RoundResult:
        P = self.r.num_players
        left = [pips(h) for h in self.hands]
        order = [(self.leader + k) % P for k in range(P)]  # turn order from the 'mano'
        if went_out is not None:
            first = went_out
        elif self.r.teams:
            team = [left[s] + left[(s + 2) % 4] for s in range(4)]
            best = min(team)
            first = next(s for s in order if team[s] == best)
        else:
            best = min(left)
            first = next(s for s in order if left[s] == best)
        winners = self.side(first)
        if self.r.teams:
            points = sum(left)  # all four hands, the partner's included
        else:
            points = sum(left[s] for s in range(P) if s != first)
        per_seat = [points if s in winners else 0 for s in range(P)]
        for s in winners:
            self.scores[s] += points
        self.round_over = True
        self.prev_leader = self.leader
        self.prev_winner = self.last_winner = first
        self.round_index += 1
        res = RoundResult(code, winners, left, per_seat)
        if max(self.scores) >= self.r.target_score:
            top = max(self.scores)
            self.game_over = True
            res.game_over = True
            res.game_winners = [s for s in range(P) if self.scores[s] == top]
        return res

    # ----------------------------------------------------------------- rewards
    def rewards(self, res: RoundResult | None) -> list[float]:
        """Each seat's reward for the step that produced ``res`` (docs/envs.md, line card)."""
        P = self.r.num_players
        if res is None or res.code == ANNULLED:
            return [0.0] * P
        if self.r.reward == "points":
            out = []
            for s in range(P):
                if s in res.winners:
                    out.append(res.points[s] / 100)
                elif self.r.teams:
                    out.append(-max(res.points) / 100)
                else:
                    out.append(-res.pips[s] / 100)
            return out
        if self.r.episode == "game" and not res.game_over:
            return [0.0] * P
        winners = res.game_winners if self.r.episode == "game" else res.winners
        return outcome(winners, P, self.r.teams)


def outcome(winners: list[int], P: int, teams: bool) -> list[float]:
    if len(winners) == P:
        return [0.0] * P
    if teams:
        return [1.0 if s in winners else -1.0 for s in range(P)]
    return [1.0 / len(winners) if s in winners else -1.0 / (P - len(winners)) for s in range(P)]
