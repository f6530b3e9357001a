"""benchmarks/planner_ablation.py, the command of the planner ablation tables in docs/agents.md,
run as a real process on a few rounds: each variant changes the play, an unknown one is refused."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "planner_ablation.py"
ROW = re.compile(r"^(\w+) P=(\d) (\w+)\s+win ([0-9.]+) wilson \[[0-9.]+, [0-9.]+\] per-deal \[[0-9.]+, [0-9.]+\] pips")


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_line_and_mexican_train_variants_print_one_row_each():
    out = _run("2", "200", "full", "no_opp", "--game", "draw")
    rows = [ROW.match(line).groups() for line in out.stdout.splitlines()]
    assert out.returncode == 0 and [r[:3] for r in rows] == [("draw", "2", "full"), ("draw", "2", "no_opp")]
    assert rows[0][3] != rows[1][3]  # the switch changes the play (0.669 / 0.569 on 2,000 rounds)
    out = _run("2", "40", "full", "--game", "cuban")
    assert out.returncode == 2 and "--game cuban plays in teams of two: PLAYERS must be 4, got 2" in out.stderr
    out = _run("2", "40", "full")
    assert out.returncode == 0 and ROW.match(out.stdout).groups()[:3] == ("mexican_train", "2", "full")


def test_an_unknown_variant_for_the_game_is_one_line():
    out = _run("4", "40", "no_plan", "--game", "block")
    assert out.returncode == 2 and "unknown variant(s) ['no_plan'] for --game block; allowed: full no_opp" in out.stderr


def test_bad_players_rounds_and_seed_are_one_line_before_any_round():
    """These were ConfigError tracebacks from inside the planner or the tournament."""
    for args, message in (
        (["1", "40", "full"], "PLAYERS 1 for --game mexican_train: invalid config field 'num_players': got 1"),
        (["5", "40", "full", "--game", "block"], "PLAYERS 5 for --game block: invalid config field 'num_players'"),
        (["4", "0", "full"], "argument ROUNDS: must be a positive integer, got 0"),
        (["4", "40", "full", "--seed", "-1"], "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got -1"),
        (["4", "40", "full", "--seed", "4294967296"], "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got 4294967296"),
    ):
        out = _run(*args)
        assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr, out.stderr
        assert out.stderr.splitlines()[-1].startswith(f"planner_ablation.py: error: {message}"), out.stderr


def test_help_gives_the_whole_first_paragraph():
    """--help cut the description mid-sentence ("... changes one weight) and")."""
    out = _run("--help")
    assert out.returncode == 0 and "plays against greedy opponents over duplicate deals" in " ".join(out.stdout.split())


def test_the_annul_variants_annul_whenever_they_may_or_never():
    """docs/agents.md's "annul always or never" rows: the variants' settings on the Cuban planner."""
    import numpy as np

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from planner_ablation import LINE_VARIANTS

    from domino_env.agents.line_planner import LinePlannerAgent
    from domino_env.envs import cuban_v0

    env, rng, seen = cuban_v0.raw_env(annul_doubles=1), np.random.default_rng(0), 0
    env.reset(seed=0)
    for _ in range(400):  # every seat with one double may annul at its first turn
        if not env.agents:
            env.reset(seed=seen + 1)
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.step(None)
            continue
        obs = env.observe(env.agent_selection)
        legal = np.flatnonzero(obs["action_mask"])
        annul = env.game_state.annul_action
        if annul in legal:
            seen += 1
            for variant, annuls in (("annul_always", True), ("annul_never", False)):
                agent = LinePlannerAgent(env.config)
                for key, value in LINE_VARIANTS[variant].items():
                    setattr(agent, key, value)
                assert (agent(obs["observation"], obs["action_mask"], rng) == annul) is annuls
        env.step(int(rng.choice(legal[legal != annul])) if len(legal) > 1 else int(legal[0]))
    assert seen >= 5
