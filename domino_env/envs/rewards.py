"""The outcome reward the envs pay at the end of a round or game (``reward="outcome"``,
docs/envs.md "Rewards")."""

from __future__ import annotations


def outcome_rewards(winners: tuple[int, ...], seats: list[int]) -> dict[int, float]:
    """Zero-sum outcome: winners share +1 equally, the other ``seats`` share -1 equally.

    No winners, or every seat a winner, gives 0 to all.
    """
    losers = [s for s in seats if s not in winners]
    if not winners or not losers:
        return {s: 0.0 for s in seats}
    rewards = {s: -1.0 / len(losers) for s in losers}
    rewards.update({s: 1.0 / len(winners) for s in winners})
    return rewards
