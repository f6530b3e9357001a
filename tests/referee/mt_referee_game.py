"""The game level of the Mexican Train referee (docs/rules.md §1.1, §1.5, §1.6, §1.8; docs/envs.md
"Rewards"): presets, the expected deal of each round, scores, elimination, game end and rewards."""

from __future__ import annotations

from mt_referee import EVENTS, RoundRef, hand_size, norm, set_size

DEFAULTS = {
    "num_players": 4, "max_pip": 12, "hand_size": None, "hand_size_rule": "equal_split",
    "first_turn": "own_train", "doubles": "satisfy", "drawn_tile": "must_play",
    "marker_removal": "own_train_play", "station_source": "set_aside", "use_boneyard": True,
    "use_mexican_train": True, "blocked_round": "score", "double_blank_points": 0,
    "game_end": "rounds", "elimination_limit": 100, "first_player": None,
}
# §1.8
PRESETS = {
    "domino_cubano": {},
    "tren_mexicano": {
        "hand_size_rule": "table", "first_turn": "any", "doubles": "chain",
        "drawn_tile": "may_play", "blocked_round": "void", "double_blank_points": 10,
        "game_end": "elimination", "elimination_limit": 100,
    },
    "novelty": {"hand_size_rule": "table", "station_source": "highest_held"},
}


def resolve(kwargs: dict) -> dict:
    """The rules config of ``raw_env(**kwargs)``: defaults, then the preset, then the fields."""
    cfg = dict(DEFAULTS)
    preset = kwargs.get("preset", "domino_cubano")
    cfg.update(PRESETS[preset])
    cfg.update({k: v for k, v in kwargs.items() if k in DEFAULTS})
    cfg["preset"] = preset
    return cfg


class Mismatch(AssertionError):
    pass


def expect(cond: bool, what: str) -> None:
    if not cond:
        raise Mismatch(what)


class GameRef:
    """Carries a game across rounds; checks each deal against the setup rules (§1.1, §1.7)."""

    def __init__(self, cfg: dict, episode: str = "round", reward: str = "outcome"):
        self.cfg = cfg
        self.P = cfg["num_players"]
        self.N = cfg["max_pip"]
        self.episode, self.reward = episode, reward
        self.scores = [0] * self.P
        self.active = [True] * self.P
        self.r = 0  # rounds finished
        self.stations_used: set[int] = set()
        self.prev_first: int | None = None
        self.prev_result = None  # (termination, winners, pips)
        self.game_over = False
        self.game_winners: list[int] = []

    # ---- §1.1 / §1.7 the deal --------------------------------------------------------------
    def expected_first(self) -> int | None:
        """First player of the next round (set_aside), or None if the game's seeded draw decides."""
        if self.r == 0:
            return self.cfg["first_player"]
        term, winners, pips = self.prev_result
        if term == "went_out":
            return winners[0]
        order = [(self.prev_first + k) % self.P for k in range(1, self.P + 1)]
        order = [q for q in order if self.active[q]]
        best = min(pips[q] for q in order)
        return next(q for q in order if pips[q] == best)

    def start_round(self, deal: dict, given: dict | None = None) -> RoundRef:
        """The round from its recorded ``deal``; ``given``: the deal passed to ``reset`` (its
        sizes are free, docs/envs.md "Starting from a given position"), else a dealt one."""
        if given is not None:
            return self._given_round(deal, given)
        cfg, P, N = self.cfg, self.P, self.N
        if self.r % (N + 1) == 0:
            self.stations_used = set()
        hands = [[norm(t) for t in h] for h in deal["hands"]]
        station = norm(deal["station"])
        fp = deal["first_player"]
        seats_in = sum(self.active)
        h = hand_size(cfg, seats_in)
        expect(station[0] == station[1], f"station {station} is not a double")
        for q in range(P):
            if not self.active[q]:
                expect(hands[q] == [], f"knocked-out seat {q} was dealt {hands[q]}")
        if cfg["station_source"] == "set_aside":
            expect(station[0] == N - self.r % (N + 1), f"round {self.r}: station {station}")
            want = self.expected_first()
            if want is not None:
                expect(fp == want, f"round {self.r}: first player {fp}, referee {want}")
            sizes = [h if self.active[q] else 0 for q in range(P)]
        else:
            expect(station[0] not in self.stations_used, f"station {station} used again this pass")
            held = {t[0] for hh in hands for t in hh if t[0] == t[1]} - self.stations_used
            expect(not any(d > station[0] for d in held),
                   f"round {self.r}: station {station} but a higher unused double {sorted(held)} is held")
            sizes = [(h - 1 if q == fp else h) if self.active[q] else 0 for q in range(P)]
        if station[0] != N - self.r % (N + 1):
            EVENTS["station_skipped_or_late"] += 1
        if self.r > N:
            EVENTS["second_pass_of_stations"] += 1
            if cfg["station_source"] == "highest_held":
                EVENTS["second_pass_highest_held"] += 1
        if self.r and self.prev_result[0] == "blocked":
            EVENTS["round_after_block"] += 1
        self.stations_used.add(station[0])
        expect([len(x) for x in hands] == sizes, f"hand sizes {[len(x) for x in hands]}, want {sizes}")
        bone = [norm(t) for t in deal.get("boneyard", [])]
        dealt = sum(sizes) + len(bone) + 1
        if cfg["use_boneyard"]:
            expect(dealt == set_size(N), f"{dealt} tiles dealt, the set has {set_size(N)}")
        else:
            expect(bone == [], "a boneyard with use_boneyard=False")
        allt = [t for hh in hands for t in hh] + bone + [station]
        expect(len(set(allt)) == len(allt), "duplicate tiles in the deal")
        self.prev_first = fp
        return RoundRef(cfg, self.active, hands, bone, station, fp)

    def _given_round(self, deal: dict, given: dict) -> RoundRef:
        P = self.P
        want_hands = [sorted(norm(t) for t in h) for h in given["hands"]]
        hands = [sorted(norm(t) for t in h) for h in deal["hands"]]
        bone = [norm(t) for t in deal.get("boneyard", [])]
        expect(bone == [norm(t) for t in given.get("boneyard", [])], "given boneyard changed")
        station, fp = norm(deal["station"]), deal["first_player"]
        if "station" in given:
            expect(station == norm(given["station"]) and hands == want_hands, "given hands changed")
        else:  # §1.7 via docs/envs.md: the holder of the highest double places it and starts
            held = [(t[0], q) for q, h in enumerate(want_hands) for t in h if t[0] == t[1]]
            top, holder = max(held)
            expect(station == (top, top) and fp == holder, f"held station {station}/{fp}, want {top}/{holder}")
            want_hands[holder].remove(station)
            expect(hands == want_hands, "given hands changed")
        if given.get("first_player") is not None:
            expect(fp == given["first_player"], "given first player changed")
        elif self.cfg["first_player"] is not None and "station" in given:
            expect(fp == self.cfg["first_player"], "config first player not used")
        self.prev_first = fp
        self.stations_used.add(station[0])
        return RoundRef(self.cfg, [True] * P, hands, bone, station, fp)

    # ---- §1.5 / §1.6 the end of a round ----------------------------------------------------
    def finish_round(self, rr: RoundRef) -> dict:
        """Scores the finished round; returns the expected infos and this step's rewards."""
        P = self.P
        winners, points = rr.result()
        pips = rr.pips()
        before = list(self.active)
        self.scores = [s + p for s, p in zip(self.scores, points, strict=True)]
        self.prev_result = (rr.termination, winners, pips)
        self.r += 1
        knocked: list[int] = []
        if self.cfg["game_end"] == "elimination":
            limit = self.cfg["elimination_limit"]
            knocked = [q for q in range(P) if self.active[q] and self.scores[q] >= limit]
            for q in knocked:
                self.active[q] = False
            left = [q for q in range(P) if self.active[q]]
            EVENTS["knocked_out"] += len(knocked)
            if not left:
                EVENTS["everybody_out_together"] += 1
            if len(left) <= 1:
                self.game_over = True
                if left:
                    self.game_winners = left
                else:
                    pool = [q for q in range(P) if before[q]]
                    best = min(self.scores[q] for q in pool)
                    self.game_winners = [q for q in pool if self.scores[q] == best]
        elif self.r == self.N + 1:
            self.game_over = True
            best = min(self.scores)
            self.game_winners = [q for q in range(P) if self.scores[q] == best]
        if len(winners) > 1:
            EVENTS["shared_round_win"] += 1
        if rr.termination == "blocked" and self.cfg["blocked_round"] == "void":
            EVENTS["void_round"] += 1
        return {
            "termination": rr.termination, "winners": sorted(winners), "points": points,
            "pips": pips, "scores": list(self.scores), "game_over": self.game_over,
            "game_winners": sorted(self.game_winners) if self.game_over else [],
            "rewards": self._rewards(winners, points, knocked),
        }

    def _rewards(self, winners, points, knocked) -> list[float]:
        """docs/envs.md "Rewards"."""
        P = self.P
        if self.reward == "points":
            return [-p / 100 for p in points]
        zero = [0.0] * P
        if self.episode == "round":
            return _share(winners, list(range(P)))
        if self.cfg["game_end"] == "elimination":
            out = zero[:]
            for q in knocked:
                out[q] = -1 / (P - 1)
            if self.game_over:
                for q in range(P):
                    if q not in self.game_winners and q not in knocked and self.active[q]:
                        out[q] = -1 / (P - 1)  # beaten at the end (never happens: all out)
                losers = P - len(self.game_winners)
                for q in self.game_winners:
                    out[q] += losers / (P - 1) / len(self.game_winners)
                    if q in knocked:
                        out[q] += 1 / (P - 1)  # a winner among the seats knocked out last
            return out
        if not self.game_over:
            return zero
        return _share(self.game_winners, list(range(P)))


def _share(winners, seats) -> list[float]:
    out = {q: 0.0 for q in seats}
    losers = [q for q in seats if q not in winners]
    if winners and losers:
        for q in winners:
            out[q] = 1 / len(winners)
        for q in losers:
            out[q] = -1 / len(losers)
    return [out[q] for q in seats]
