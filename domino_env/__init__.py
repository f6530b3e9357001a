"""Domino games as PettingZoo / Gymnasium environments: Mexican Train and the line games.

``import domino_env`` registers the environments::

    import pettingzoo, domino_env
    env = pettingzoo.make("aec", "dominoes/mexican_train-v0", num_players=4)

    import gymnasium  # single-agent adapter: one learner seat against opponents
    env = gymnasium.make("dominoes/MexicanTrain-v0", num_players=4, opponents="greedy")

The Gymnasium ids' entry points live in ``domino_env.agents.gym_ids`` (they resolve agent names; a
string entry point, so the library layers never import the agents); ``domino_env.wrappers`` builds the same
adapters from opponent callables.
"""

from __future__ import annotations

try:  # run outside the environment that holds them (a clone's root, no venv): say what to do
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ModuleNotFoundError as err:
    raise ModuleNotFoundError(
        f"{err}: domino_env needs numpy, gymnasium and pettingzoo; run it in the environment it is "
        "installed in (in a clone after make run or make test: . .venv/bin/activate) or install it "
        "(pip install -e . in the clone)",
        name=err.name,
    ) from None

from .core.errors import (
    AgentSpecError,
    CheckpointError,
    CheckpointNotFoundError,
    ConfigError,
    DealError,
    DominoError,
    IllegalActionError,
    RecordError,
)

__version__ = "0.1.0"

__all__ = [
    "AgentSpecError",
    "CheckpointError",
    "CheckpointNotFoundError",
    "ConfigError",
    "DealError",
    "DominoError",
    "IllegalActionError",
    "RecordError",
    "__version__",
]


def _register() -> None:
    import gymnasium
    import pettingzoo

    # PettingZoo's registry (``pettingzoo.make``) arrived in 1.27; older releases (down to the
    # oldest tested one, docs/integrations.md) import the env modules directly.
    # The parallel ids are the turn-based parallel view (turn_based_aec_to_parallel: one agent
    # acts per step), the modules' parallel_env().
    # Registered once, as the Gymnasium ids below: a reload (IPython's autoreload) re-registered
    # them with PettingZoo's "Overriding environment" UserWarning for every id.
    if hasattr(pettingzoo, "register") and "dominoes/mexican_train-v0" not in getattr(pettingzoo, "aec_registry", {}):
        for game in ("mexican_train", "block", "draw", "cuban"):
            module = f"domino_env.envs.{game}_v0"
            pettingzoo.register("aec", f"dominoes/{game}-v0", entry_point=f"{module}:env")
            pettingzoo.register("parallel", f"dominoes/{game}-v0", entry_point=f"{module}:parallel_env")
    if "dominoes/MexicanTrain-v0" not in gymnasium.registry:
        gymnasium.register(
            id="dominoes/MexicanTrain-v0",
            entry_point="domino_env.agents.gym_ids:mexican_train",
        )
        for game in ("block", "draw", "cuban"):
            gymnasium.register(
                id=f"dominoes/{game.capitalize()}-v0",
                entry_point=f"domino_env.agents.gym_ids:{game}",
            )


_register()
