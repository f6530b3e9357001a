"""The search benchmarks as real processes: benchmarks/playouts.py (playout speed and the time per
search decision) and benchmarks/search_oracle.py (search handed the true state)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest


def test_playouts_benchmark_command(tmp_path):
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "p.json"
    run = subprocess.run(
        [sys.executable, "benchmarks/playouts.py", "--seconds", "0.05", "--json", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    figures = json.loads(out.read_text())["cells"]
    assert figures["mexican_train_4p_d12"]["greedy"]["playouts_per_s"] > 0
    assert figures["cuban_4p_d9_teams"]["block"]["steps_per_playout"] > 1
    solver = json.loads(out.read_text())["solver"]  # the endgame solver's cost (docs/search.md)
    assert set(solver) == {"block_2p_first_decision", "cuban_4p_teams_24_tiles"}
    for cell in solver.values():
        assert cell["positions"] == 64 and cell["solved_share"] == 1.0 and cell["ms_per_solve"] > 0
    # the deeper Cuban positions cost more nodes than block's first decision
    assert 1 < solver["block_2p_first_decision"]["mean_nodes"] < solver["cuban_4p_teams_24_tiles"]["mean_nodes"]
    assert "cuban_4p_teams_24_tiles  solver" in run.stdout and "nodes on average, 100% solved" in run.stdout
    bad = subprocess.run(
        [sys.executable, "benchmarks/playouts.py", "--seconds", "0"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "--seconds must be between 0.01 and 600, got 0.0" in bad.stderr
    for flags, message in [
        (["--seconds", "nan"], "--seconds must be between 0.01 and 600, got nan"),
        (
            ["--decisions", "planner"],
            "--decisions takes search agent specs (search, search:N), got 'planner'",
        ),
        (["--decisions", "search:0"], "--decisions search:0: invalid agent"),
        (
            ["--decision-rounds", "2"],
            "--decision-game, --decision-rounds, --decision-rollout and --decision-candidates "
            "need --decisions",
        ),
        (["--decision-rollout", "plan"], "--decision-candidates need --decisions"),
        (["--decision-candidates", "0"], "--decision-candidates need --decisions"),
        (
            ["--decisions", "search", "--decision-candidates", "-1"],
            "--decision-candidates must be >= 0, got -1",
        ),
        (
            ["--decisions", "search", "--decision-rollout", "solve"],
            "--decision-rollout must be one of ('plan', 'planner', 'greedy', 'random') for "
            "--decision-game mexican_train_4p_d12, got 'solve'",
        ),
        (
            [
                "--decisions",
                "search",
                "--decision-game",
                "block_2p",
                "--decision-rollout",
                "planner",
            ],
            "--decision-rollout must be one of ('solve', 'block', 'greedy', 'random') for "
            "--decision-game block_2p, got 'planner'",
        ),
        (["--decision-rollout", ""], "--decision-candidates need --decisions"),
        (["--json", str(tmp_path / "no" / "x.json")], "does not exist"),
        (["--json", str(tmp_path)], "is a folder"),
        (["--decisions", "ppo:nowhere"], "--decisions ppo:nowhere: no trained model at nowhere"),
        (["--decisions"], "--decisions needs at least one search agent spec"),
    ]:
        bad = subprocess.run(
            [sys.executable, "benchmarks/playouts.py", *flags],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert bad.returncode == 2 and message in bad.stderr, (flags, bad.stderr)
        assert "playouts/s" not in bad.stdout  # refused before any measuring


def test_playouts_benchmark_times_line_game_decisions(tmp_path):
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "d.json"
    cmd = [
        sys.executable,
        "benchmarks/playouts.py",
        "--seconds",
        "0.02",
        "--json",
        str(out),
        "--decisions",
        "search:10",
        "--decision-game",
        "block_2p",
        "--decision-rounds",
        "2",
    ]
    run = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    d = json.loads(out.read_text())["decisions"]["search:10"]
    assert d["game"] == "block_2p" and d["decisions"] >= 2 and d["mean_ms"] > 0
    assert "search:10" in run.stdout and "determinizations" in run.stdout
    bad = subprocess.run(cmd[:-1] + ["0"], cwd=root, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--decision-rounds must be >= 1" in bad.stderr


def test_playouts_benchmark_times_decisions_with_another_rollout(tmp_path):
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "r.json"
    cmd = [sys.executable, "benchmarks/playouts.py", "--seconds", "0.01", "--json", str(out),
           "--decisions", "search:4", "--decision-rounds", "1"]  # fmt: skip
    for flags, rollout, k in (
        ([], "plan", 2),
        (["--decision-rollout", "planner"], "planner", 2),
        (["--decision-candidates", "0"], "plan", 0),
    ):
        run = subprocess.run(cmd + flags, cwd=root, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        d = json.loads(out.read_text())["decisions"]["search:4"]
        assert d["rollout"] == rollout and d["candidates"] == k and d["decisions"] >= 1
        assert f"search:4       rollout {rollout}, candidates {k}:" in run.stdout


def test_search_oracle_benchmark_sees_the_true_state(tmp_path):
    """benchmarks/search_oracle.py: search handed the real state; with planner rollouts in Mexican
    Train it predicts the planners exactly and wins nearly every round (parity 0.25)."""
    root = Path(__file__).resolve().parents[2]
    cmd = [sys.executable, "benchmarks/search_oracle.py", "--rounds", "8"]
    run = subprocess.run(
        [*cmd, "--rollout", "planner"], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    rate = float(run.stdout.split("win rate ")[1].split()[0])
    assert rate >= 0.75 and "over 8 rounds, seed 0" in run.stdout
    # Cuban: the oracle in both seats of its team (team win rate; 0.897 on 400 rounds)
    run = subprocess.run([*cmd, "--game", "cuban"], cwd=root, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert float(run.stdout.split("win rate ")[1].split()[0]) >= 0.6 and "over 8 rounds, seed 0" in run.stdout
    for flags, message in (
        (["--game", "block", "--rollout", "plan"], "--rollout must be one of ('solve', 'block'"),
        (["--rounds", "0"], "--rounds must be >= 1, got 0"),
    ):
        bad = subprocess.run([*cmd, *flags], cwd=root, capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--budget", "0"], "--budget must be >= 1, got 0"),
        (["--budget", "-3"], "--budget must be >= 1, got -3"),
        (["--seed", "-1"], "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got -1"),
        # SeedSequence([seed, deal]) split a larger seed into 32-bit words: 2**32 played seed 0's deals
        (["--seed", "4294967296"], "argument --seed: must be from 0 to 4,294,967,295 (2**32 - 1), got 4294967296"),
        (["--candidates", "-1"], "--candidates must be >= 0, got -1"),
        (["--rollout", "solve"], "--rollout must be one of ('plan', 'planner'"),
        (["--rollout", ""], "for --game mexican_train, got ''"),
        (["--game", "draw"], "argument --game: invalid choice: 'draw'"),
    ],
)
def test_search_oracle_refuses_bad_flags_before_any_work(flags, message):
    """Every bad flag of benchmarks/search_oracle.py is an argparse error naming it (exit 2), with
    nothing on stdout (no tournament started)."""
    root = Path(__file__).resolve().parents[2]
    cmd = [sys.executable, "benchmarks/search_oracle.py", *flags]
    bad = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and message in bad.stderr and bad.stdout == "", bad.stderr


def test_playouts_json_never_overwrites_another_file(tmp_path):
    """--json accepted any existing file and replaced it after the run (throughput.py and soak.py
    refuse one that is not their own result); an earlier playouts result may be replaced."""
    other = tmp_path / "notes.json"
    other.write_text('{"mine": 1}\n')
    cmd = [sys.executable, "benchmarks/playouts.py", "--seconds", "0.01", "--json", str(other)]
    bad = subprocess.run(cmd, cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "playouts/s" not in bad.stdout, bad.stderr
    assert bad.stderr.splitlines()[-1] == (f"playouts.py: error: --json {other}: the file exists and is not a "
                                           "playouts result (it would be overwritten); give another name")  # fmt: skip
    assert other.read_text() == '{"mine": 1}\n'


def test_search_oracle_shows_progress_on_stderr_only():
    """400 rounds with planner rollouts ran for minutes without a sign of life; the bar goes to
    stderr and changes nothing of the result line."""
    cmd = [sys.executable, "benchmarks/search_oracle.py", "--rounds", "4", "--game", "block"]
    root = Path(__file__).resolve().parents[2]
    runs = [subprocess.run(c, cwd=root, capture_output=True, text=True, timeout=300) for c in (cmd, [*cmd, "--no-progress"])]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    assert "4/4" in runs[0].stderr and runs[1].stderr == "" and runs[0].stdout == runs[1].stdout


def test_search_oracle_knows_hands_shuffles_only_the_boneyard():
    """`--know hands`: every determinization is the real state (hands, table) with the boneyard
    in a fresh order drawn from the agent's rng; `--know all` keeps the real order too."""
    import importlib.util

    import numpy as np

    from domino_env.core.config import MexicanTrainConfig
    from domino_env.core.mexican_train import MexicanTrainState

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("search_oracle", root / "benchmarks/search_oracle.py")
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    state = MexicanTrainState.new_game(MexicanTrainConfig(), np.random.default_rng(3))
    true = oracle.TrueState(state, 0)
    true.know = "hands"
    worlds = [true.sample(np.random.default_rng(s)) for s in (0, 1, 0)]
    assert all(w.hands == state.hands for w in worlds) and len(state.boneyard) == 10  # 4 hands of 20
    assert all(sorted(w.boneyard) == sorted(state.boneyard) for w in worlds)
    assert worlds[0].boneyard != worlds[1].boneyard and worlds[0].boneyard == worlds[2].boneyard
    assert worlds[0].boneyard != state.boneyard
    # --reveal 0.5: about half the hidden tiles stay with their holder (the rest are dealt at
    # random, some back to it); sizes, the seat's own hand and the set of hidden tiles are kept
    true.reveal = 0.5
    kept = []
    for s in range(200):
        world = true.sample(np.random.default_rng(s))
        assert world.hands[0] == state.hands[0] and len(world.boneyard) == 10
        assert [h.bit_count() for h in world.hands] == [h.bit_count() for h in state.hands]
        assert sum(world.hands[1:]) + sum(1 << t for t in world.boneyard) == sum(state.hands[1:]) + sum(
            1 << t for t in state.boneyard)  # fmt: skip
        kept.append(sum((w & h).bit_count() for w, h in zip(world.hands[1:], state.hands[1:], strict=True)) / 60)
    assert 0.55 < np.mean(kept) < 0.7  # 0.5 + 0.5 x (about 20/70 by chance)
    true.know, true.reveal = "all", 1.0
    assert true.sample(np.random.default_rng(0)).boneyard == state.boneyard
    # --belief-share: no tournament; the share of the other seats' tiles in the right hand
    cmd = [sys.executable, "benchmarks/search_oracle.py", "--know", "hands", "--belief-share", "--rounds", "2"]
    shares = {}
    for reveal in ("1", "0.5"):
        run = subprocess.run([*cmd, "--reveal", reveal], cwd=root, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and "2 planner rounds, seed 0" in run.stdout, run.stderr
        shares[reveal] = [float(x.split()[-1].rstrip(",")) for x in run.stdout.split("):")[1].split(",")]
    assert shares["1"][0] == 1.0 and 0.5 < shares["0.5"][0] < 0.8  # oracle
    assert all(0.15 < shares[r][1] < 0.4 for r in shares)  # the sampler: about as good as chance
    for flags, message in (
        (["--know", "boneyard"], "argument --know: invalid choice: 'boneyard'"),
        (["--know", "hands", "--reveal", "1.5"], "--reveal must be between 0 and 1, got 1.5"),
        (["--reveal", "0.5"], "--reveal below 1 needs --know hands"),
    ):
        bad = subprocess.run([sys.executable, "benchmarks/search_oracle.py", *flags], cwd=root,
                             capture_output=True, text=True, timeout=60)  # fmt: skip
        assert bad.returncode == 2 and message in bad.stderr and bad.stdout == "", bad.stderr


@pytest.mark.parametrize("preset", ["block", "cuban"])
def test_search_oracle_reveal_deals_the_line_games_out_of_play_tiles_too(preset):
    """`--reveal` in the line games: they deal no boneyard, so the tiles out of play are the
    other hidden places (block 2 players: 14, Cuban: 15); a tile not kept may land there and a
    hand not yet played gets the doubles count of its new tiles (Cuban's annulment reads it).
    Sizes, the seat's own hand, its legal moves and the set of hidden tiles are kept."""
    import importlib.util

    import numpy as np

    from domino_env.core.config import line_from_preset
    from domino_env.core.line import LineState

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("search_oracle", root / "benchmarks/search_oracle.py")
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    config = line_from_preset(preset, num_players=2) if preset == "block" else line_from_preset(preset)
    state = LineState.new_game(config, np.random.default_rng(5))
    state.apply(state.legal_actions()[0])  # the leader has played; the next seat decides
    seat, p = state.current_player, config.num_players
    assert state.boneyard == [] and state.out_of_play.bit_count() == {"block": 14, "cuban": 15}[preset]
    true = oracle.TrueState(state, seat)
    true.know, true.reveal = "hands", 0.0
    hidden = state.out_of_play | sum(h for s, h in enumerate(state.hands) if s != seat)
    others = [s for s in range(p) if s != seat]
    kept = []
    for r in range(50):
        world = true.sample(np.random.default_rng(r))
        assert world.hands[seat] == state.hands[seat] and world.legal_actions() == state.legal_actions()
        assert [h.bit_count() for h in world.hands] == [h.bit_count() for h in state.hands]
        assert world.boneyard == [] and world.out_of_play.bit_count() == state.out_of_play.bit_count()
        assert world.out_of_play | sum(world.hands[s] for s in others) == hidden
        for s in others:
            dealt = (world.hands[s] & world._t.double_mask).bit_count()
            assert world.doubles_dealt[s] == (dealt if state.first_turn_pending[s] else state.doubles_dealt[s])
        kept.append(sum((world.hands[s] & state.hands[s]).bit_count() for s in others))
    # reveal 0 deals the hidden tiles uniformly: a hand keeps about its share of them, not all
    total = sum(state.hands[s].bit_count() for s in others)
    assert np.mean(kept) / total < 0.6


def test_playouts_benchmark_starts_a_new_plan_memo_each_pass(monkeypatch):
    """The `plan` rollout's chain memo lived for the whole cell, so every pass after the first
    replayed the same positions' plans: about 20% more playouts/s than a search decision (which
    keeps one memo per decision) gets. Each pass over the positions now has a memo of its own."""
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("playouts_bench", root / "benchmarks/playouts.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    cls, config, depth, _ = bench.CELLS["mexican_train_4p_d12"]
    states = bench.mid_round_states(cls, config, depth, count=3)
    memos, real = [], bench.playout

    def spy(state, policy, rng, plans, planner):
        memos.append((len(memos) // len(states), id(plans), len(plans)))  # (pass, memo, its size)
        return real(state, policy, rng, plans, planner)

    monkeypatch.setattr(bench, "playout", spy)
    figures = bench.measure(states, "plan", 0.05)
    firsts = memos[:: len(states)]  # the first playout of each pass
    assert len(firsts) >= 2 and figures["playouts_per_s"] > 0
    assert [size for _, _, size in firsts] == [0] * len(firsts)  # each pass starts with an empty memo
    assert memos[1][2] > 0  # within a pass the memo is shared (the first playout filled it)
