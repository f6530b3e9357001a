"""Run by tests/integrations/test_train_minimums.py with the oldest numpy, Stable-Baselines3 and
sb3-contrib that the ``train`` extra declares first on ``sys.path``: the released models load and
play, a MaskablePPO run on the single-agent adapter trains, saves and loads, and a policy file
that does not unpickle is refused as corrupt. Prints the versions, then one "ok" line per check."""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import sb3_contrib
import stable_baselines3
import torch

from domino_env.agents import make_agent
from domino_env.core.errors import CheckpointError
from domino_env.train.evaluate import evaluate
from domino_env.wrappers import mexican_train_single_agent

ROOT = Path(__file__).resolve().parents[2]
RELEASES = {
    "mexican_train_4p_d12": ("mexican_train", {}),
    "mexican_train_4p_d12_action_scores": ("mexican_train", {}),
    "cuban_4p_teams": ("cuban", {}),
    "cuban_4p_teams_action_scores": ("cuban", {}),
}


def main() -> int:
    torch.set_num_threads(1)
    print("numpy", np.__version__, "stable_baselines3", stable_baselines3.__version__, "sb3_contrib", sb3_contrib.__version__)
    for name, (game, kwargs) in RELEASES.items():
        spec = f"ppo:{ROOT / 'checkpoints' / name}"
        result = evaluate([spec, "greedy", "greedy", "greedy"], rounds=4, game=game, seed=0, progress=False, **kwargs)
        assert result.stats_for(spec).seat_episodes == 4
        print("ok load", name)
    with tempfile.TemporaryDirectory() as tmp:
        env = mexican_train_single_agent(num_players=2, max_pip=9)
        model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
        model.learn(total_timesteps=64)
        model.save(Path(tmp) / "model.zip")
        loaded = sb3_contrib.MaskablePPO.load(Path(tmp) / "model.zip", device="cpu")
        obs, _ = env.reset(seed=1)
        action, _ = loaded.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert env.action_masks()[int(action)]
        print("ok train")
        folder = Path(tmp) / "bad"
        shutil.copytree(ROOT / "checkpoints" / "cuban_4p_teams", folder)
        buffer = io.BytesIO()
        torch.save({"x": Fraction(1, 3)}, buffer)  # not among the types weights_only loads
        src, rebuilt = folder / "model.zip", folder / "rebuilt.zip"
        with zipfile.ZipFile(src) as zin, zipfile.ZipFile(rebuilt, "w") as zout:
            for item in zin.infolist():
                zout.writestr(item, buffer.getvalue() if item.filename == "policy.pth" else zin.read(item))
        rebuilt.replace(src)
        try:
            make_agent(f"ppo:{folder}", {"preset": "cuban"})
        except CheckpointError as exc:
            assert "corrupt model" in str(exc), exc
            print("ok corrupt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
