"""Write the table pictures of docs/pictures.md into docs/images/.

Run from the repository root: ``python docs/make_images.py`` (``--out DIR`` to write elsewhere).
Each picture is a seeded game between greedy agents, stopped at a position that shows the
game's features (Mexican Train: an obliging open double and a marker), so the files are the
same on every run with the same Pillow.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's packages, whatever is installed

import numpy as np  # noqa: E402

from domino_env.agents import make_agent  # noqa: E402
from domino_env.envs import line_v0, mexican_train_v0  # noqa: E402
from domino_env.render_image import save_png  # noqa: E402
from domino_env.train.cli import ArgumentParser  # noqa: E402


def _play_until(env, seed: int, stop: Callable[[object, int], bool], max_moves: int = 400) -> None:
    """Play greedy agents from ``reset(seed)`` until ``stop(state, moves)`` or the round ends."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    agent = make_agent("greedy", env.config)
    for moves in range(max_moves):
        if env.game_state.round_over or stop(env.game_state, moves):
            return
        obs = env.observe(env.agent_selection)
        env.step(agent(obs["observation"], obs["action_mask"], rng))


def _open_double_and_marker(state, moves: int) -> bool:
    return moves >= 24 and bool(state.open_doubles) and any(state.markers)


def make_images(out: Path) -> list[Path]:
    """Write the pictures into ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    mt = mexican_train_v0.raw_env(render_mode="rgb_array")
    for seed in range(200):  # the first seed whose game reaches such a position
        _play_until(mt, seed, _open_double_and_marker)
        if not mt.game_state.round_over and mt.game_state.open_doubles:
            break
    for name, image in (
        ("mexican_train.png", mt.render()),
        ("mexican_train_all_hands.png", mt.unwrapped.render_image(all_hands=True)),
    ):
        save_png(image, out / name)
        written.append(out / name)
    for game, moves in (("block", 14), ("draw", 10), ("cuban", 18)):
        env = line_v0.raw_env(preset=game, render_mode="rgb_array")
        _play_until(env, 3, lambda state, k, moves=moves: k >= moves)
        save_png(env.render(), out / f"{game}.png")
        written.append(out / f"{game}.png")
    return written


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"), help="folder to write (default docs/images)")
    args = parser.parse_args(argv)
    if not args.out.strip():
        parser.error("--out: give a folder (got an empty name)")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        parser.error(f"--out {out} is a file; give a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--out {out}: cannot make the folder ({exc.strerror or exc})")
    for path in make_images(out):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
