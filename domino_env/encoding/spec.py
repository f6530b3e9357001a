"""Observation spec tables: one table per game drives the Box space, the flat array layout, the
named views (:func:`decode_observation`) and the generated tables of docs/envs.md.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from domino_env.core.errors import ConfigError

#: byte value -> its 8 bits as 8 bytes of 0/1, least significant first: a multi-hot vector from an
#: int bitmask is ``b"".join(map(BYTE_BITS.__getitem__, mask.to_bytes(n, "little")))``.
BYTE_BITS = [bytes((b >> i) & 1 for i in range(8)) for b in range(256)]


@dataclass(frozen=True)
class Field:
    """One named block of the flat observation vector.

    Attributes:
        name: key in :func:`decode_observation`'s result.
        shape: shape of the block (the flat vector stores it row-major).
        high: upper bound of every entry (lower bound is 0).
        unit: unit of the entries ("flag", "one-hot", "rank", "tiles", "points", "rounds").
        meaning: one line for the docs.
    """

    name: str
    shape: tuple[int, ...]
    high: float
    unit: str
    meaning: str

    @property
    def size(self) -> int:
        """Number of float32 entries the field takes in the flat vector (product of ``shape``)."""
        return int(np.prod(self.shape))


class ObservationSpec:
    """Ordered fields -> offsets, a ``Box`` space (float32, low 0) and decoding helpers."""

    def __init__(self, fields: list[Field]):
        self.fields = tuple(fields)
        self.slices: dict[str, slice] = {}
        start = 0
        for f in self.fields:
            self.slices[f.name] = slice(start, start + f.size)
            start += f.size
        self.size = start
        high = np.concatenate([np.full(f.size, f.high, dtype=np.float32) for f in self.fields])
        self.space = spaces.Box(low=0.0, high=high, shape=(self.size,), dtype=np.float32)

    def decode(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Named views of a flat observation: ``{field name: array of field.shape}``.

        Raises:
            ConfigError (a ValueError): if ``obs`` does not have shape ``(size,)``, e.g. an agent
            built for another seat count or set than the env it plays in.
        """
        obs = np.asarray(obs)
        if obs.shape != (self.size,):
            raise ConfigError(
                "observation",
                f"shape {obs.shape}",
                f"shape ({self.size},), one seat's observation under these rules (another seat count "
                "or set, or a batch?); for an agent, build it with the env's config "
                "(make_agent(name, env.unwrapped.config))",
            )
        return {f.name: obs[self.slices[f.name]].reshape(f.shape) for f in self.fields}

    def markdown_table(self, high: bool = False) -> str:
        """The spec as a Markdown table (name, shape, unit, meaning), as in docs/state.md; with
        ``high``, also each field's upper bound in the Box (the lower bound is 0), as in
        docs/envs.md."""
        if high:
            rows = ["| name | shape | unit | high | meaning |", "|---|---|---|---|---|"]
        else:
            rows = ["| name | shape | unit | meaning |", "|---|---|---|---|"]
        for f in self.fields:
            bound = f" {int(f.high):,} |" if high else ""
            rows.append(f"| `{f.name}` | {f.shape} | {f.unit} |{bound} {f.meaning} |")
        return "\n".join(rows)

    def hash(self) -> str:
        """Stable hash of the layout (names, shapes, bounds); saved with trained models."""
        payload = [(f.name, list(f.shape), f.high, f.unit) for f in self.fields]
        return hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:16]


#: Upper bound of the ``round_index`` entry. Round counts of elimination and target-score games
#: have no bound (void, annulled or pointless rounds can repeat), so the entry saturates here.
ROUND_INDEX_CAP = 1000


def top_pips(values: tuple[int, ...] | list[int], count: int) -> int:
    """The largest pip total ``count`` tiles with these ``values`` can have (a hand's maximum)."""
    return sum(sorted(values, reverse=True)[: max(count, 0)])


class EncoderBase:
    """What the games' encoders share: the multi-hot ``hand`` and ``placed`` blocks (adjacent in
    every spec), the byte -> float32 conversion, the scores and round index (which may exceed a
    byte), and the action mask.

    ``scores`` and ``round_index`` are clipped at their field's bound (``_score_cap``,
    ``ROUND_INDEX_CAP``): the score bound is sized from the rules so that dealt games never reach
    it; only hand-made deals with outsized hands or more than 1,000 rounds in one episode saturate.
    """

    spec: ObservationSpec
    num_players: int
    num_tiles: int
    num_actions: int
    _score_cap: float

    def _finish(self, buf: bytearray, state, seat: int) -> np.ndarray:
        """Write the hand / placed multi-hots into ``buf``, convert it to float32, add the scores
        (observer first) and round index. Returns the observation."""
        o, t, p = self.spec.slices, self.num_tiles, self.num_players
        start = o["hand"].start
        both = (state.placed << t) | state.hands[seat]
        bits = b"".join(map(BYTE_BITS.__getitem__, both.to_bytes((2 * t + 7) // 8, "little")))
        buf[start : start + 2 * t] = bits[: 2 * t]
        obs = np.frombuffer(buf, dtype=np.uint8).astype(np.float32)
        if state.round_index:
            obs[o["round_index"].start] = min(state.round_index, ROUND_INDEX_CAP)
        scores = state.scores
        if any(scores):
            cap = self._score_cap
            obs[o["scores"]] = [min(scores[(seat + k) % p], cap) for k in range(p)]
        return obs

    def mask(self, state, seat: int) -> np.ndarray:
        """Action mask of ``seat``: int8 array of shape ``(num_actions,)``, all zeros unless it is
        the acting seat of a running round."""
        buf = bytearray(self.num_actions)
        if not state.round_over and state.current_player == seat:
            for action in state.legal_actions():
                buf[action] = 1
        return np.frombuffer(buf, dtype=np.int8)
