"""What a Mexican Train seat sees, as the scripted agents read it: :class:`SeatView`, built from
the seat's observation vector (:func:`observation_view`, what the agents of
:mod:`domino_env.agents.mexican_train` do at play time) or straight from an engine state
(:func:`state_view`, for rollouts on determinizations: no observation is encoded or decoded). Both
give equal views (tested on every decision of whole games of every preset)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from domino_env.core.deal import bits
from domino_env.encoding.mexican_train import decode_observation


@dataclass
class SeatView:
    """The acting seat's table (egocentric slots), decoded from its observation
    (:func:`observation_view`) or read from the engine state (:func:`state_view`).

    Attributes:
        hand: tile indices in the hand, ascending.
        hand_mask: the same as a bitmask (bit i = tile i).
        ends: open-end pip of every slot 0..P (own train, the others in turn order, Mexican).
        in_play: whether each slot's train exists this round.
        marker: whether each slot's train is public (Mexican: always True when in play).
        open_doubles: slots whose train ends in an obliging open double.
        hand_sizes: tiles in each seat's hand (own first, then turn order).
        boneyard: tiles left to draw.
        drawn_tile: tile index just drawn by this seat, or -1.
    """

    hand: list[int]
    hand_mask: int
    ends: list[int]
    in_play: list[bool]
    marker: list[bool]
    open_doubles: list[int]
    hand_sizes: list[int]
    boneyard: int
    drawn_tile: int


def state_view(state: Any, seat: int) -> SeatView:
    """The :class:`SeatView` of ``seat`` read straight from an engine state
    (:class:`~domino_env.core.mexican_train.MexicanTrainState`), without encoding an observation:
    equal to ``view(observation)`` of that seat (tested). It reads only what the seat may see:
    its own hand (and drawn tile), the table, hand sizes and the boneyard size. Rollouts
    (:mod:`domino_env.agents.rollout`, policy ``"planner"``) use it to run the planner on
    determinizations, which have no observations."""
    p = state.num_players
    trains = [(seat + k) % p for k in range(p)] + [p]
    mexican = state.config.use_mexican_train
    hand = state.hands[seat]
    open_doubles = state.open_doubles
    drawn = state.drawn_tile if state.current_player == seat and not state.round_over else -1
    return SeatView(
        hand=bits(hand),
        hand_mask=hand,
        ends=[state.ends[t] for t in trains],
        in_play=[state.active[t] for t in trains[:p]] + [mexican],
        marker=[state.markers[t] for t in trains[:p]] + [mexican],
        open_doubles=[k for k, t in enumerate(trains) if t in open_doubles],
        hand_sizes=[state.hands[t].bit_count() for t in trains[:p]],
        boneyard=len(state.boneyard),
        drawn_tile=drawn,
    )


def observation_view(observation: np.ndarray, num_players: int, max_pip: int) -> SeatView:
    """The :class:`SeatView` of the seat whose observation vector (float32, shape of the spec of
    ``num_players`` / ``max_pip``) is ``observation``.

    Raises:
        ConfigError: ``observation`` does not have that shape (another seat count or set, or a
            batch), as :func:`~domino_env.encoding.mexican_train.decode_observation` refuses it.
    """
    return decoded_view(decode_observation(observation, num_players, max_pip))


def decoded_view(d: dict[str, np.ndarray]) -> SeatView:
    """:func:`observation_view` of an observation already decoded
    (:func:`~domino_env.encoding.mexican_train.decode_observation`), for callers that read other
    fields of it too."""
    hand = np.flatnonzero(d["hand"]).tolist()
    mask = 0
    for t in hand:
        mask |= 1 << t
    drawn = np.flatnonzero(d["drawn_tile"])
    return SeatView(
        hand=hand,
        hand_mask=mask,
        ends=d["train_end"].argmax(axis=1).tolist(),
        in_play=(d["train_in_play"] > 0).tolist(),
        marker=(d["train_marker"] > 0).tolist(),
        open_doubles=np.flatnonzero(d["train_open_double_order"]).tolist(),
        hand_sizes=d["hand_sizes"].astype(int).tolist(),
        boneyard=int(d["boneyard_size"][0]),
        drawn_tile=int(drawn[0]) if len(drawn) else -1,
    )
