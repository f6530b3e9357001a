"""The figures README.md and the docs print, against the committed files they were copied from and,
where the command takes seconds, against a re-run.

The pages' figures came from commands whose outputs are committed: the released models'
``release_eval_vs_*.json``, ``metadata.json`` and ``evaluations.json`` (checkpoints/*/) and the
long soak's report (docs/soak.json). Each check here writes the sentence or table row a page
prints, formatted as the page prints it (3 decimals and ``interval_text``'s intervals, as
``domino-evaluate`` prints them), from the file's values, and looks for it in the page (whitespace
and line breaks collapsed). A re-run of a release evaluation that changes a figure, or an edit of
a page that changes one, fails here until the other side follows.

Re-computed (a few seconds in all): the block ladder's planner table (README, docs/evaluation.md,
docs/agents.md), the loader's refusal of a model for other seats (docs/training.md), the soak's
tables (docs/soak.md), the interval notes (t quantile, the paired Wilson fall-backs) and the set
sizes of docs/rules.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from domino_env.train.tournament_results import interval_text

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = ROOT / "checkpoints"
MT, CUBAN, MT_MLP = "mexican_train_4p_d12_action_scores", "cuban_4p_teams_action_scores", "mexican_train_4p_d12"


def prose(page: str) -> str:
    """The page's text with every run of whitespace (line breaks included) one space."""
    return " ".join((ROOT / page).read_text().split())


def load(path: str):
    return json.loads((ROOT / path).read_text())


def release(folder: str, opponents: str) -> tuple[dict, dict]:
    """The model's and the opponents' stats of ``checkpoints/FOLDER/release_eval_vs_OPPONENTS.json``."""
    stats = load(f"checkpoints/{folder}/release_eval_vs_{opponents}.json")["stats"]
    model, other = (s for s in stats)
    assert model["name"] == f"ppo:checkpoints/{folder}" and other["name"] == opponents
    return model, other


def rate(s: dict, digits: int = 3) -> str:
    return f"{s['win_rate']:.{digits}f}"


def deal(s: dict) -> str:
    """The per-deal interval as domino-evaluate prints it."""
    return interval_text(s["ci95_deal"], s["parity"])


def wilson(s: dict) -> str:
    return interval_text(s["ci95_wilson"], s["parity"])


def pips(s: dict, digits: int = 1) -> str:
    return f"{s['mean_pips_per_round']:.{digits}f}"


def missing(claims: list[tuple[str, str]]) -> list[str]:
    """The claims ``(page, text)`` whose text is not in the page."""
    pages: dict[str, str] = {}
    return [f"{page}: {text!r}" for page, text in claims if text not in pages.setdefault(page, prose(page))]


def minutes_seconds(seconds: float) -> str:
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s} s"


# ---------------------------------------------------------------------------- the released models


def test_action_scoring_releases_are_quoted_as_their_evaluation_files_say():
    """README's headline rows, docs/training.md's release tables and the pages that compare with
    the releases quote ``release_eval_vs_{planner,greedy}.json`` of the two action-scoring models."""
    mp, planners = release(MT, "planner")
    mg, greedy = release(MT, "greedy")
    cp, planner_team = release(CUBAN, "planner")
    cg, _ = release(CUBAN, "greedy")
    assert {s["parity"] for s in (mp, mg)} == {0.25} and {s["parity"] for s in (cp, cg)} == {0.5}
    claims = [
        ("README.md", f"beats the planner: {rate(mp)} {deal(mp)} against three planners (parity 0.250), "
                      f"{pips(mp)} vs {pips(planners)} pips per round; {rate(mg)} {deal(mg)} against three greedy players"),
        ("README.md", f"model + model: {rate(cg)} {deal(cg)} against a greedy team"),
        ("README.md", f"level with a planner team {rate(cp)} {deal(cp)} (parity 0.500); seed 2027"),
        ("docs/training.md", f"| model + 3 planners | **{rate(mp)}** | {deal(mp)} | 0.25 | "
                             f"**{pips(mp, 2)}** / {pips(planners, 2)} |"),
        ("docs/training.md", f"| model + 3 greedy | **{rate(mg)}** | {deal(mg)} | 0.25 | **{pips(mg, 2)}** / {pips(greedy, 2)} |"),
        ("docs/training.md", f"keeps fewer pips than the planner seats ({pips(mp)} vs {pips(planners)} per round)"),
        ("docs/training.md", f"**It beats greedy by far more than the planner does**: {rate(mg)} against three greedy players"),
        ("docs/training.md", f"met for the interval, not for the rate: {rate(mp)}."),
        ("docs/training.md", f"| against a planner team | **{rate(cp)}** {deal(cp)} |"),
        ("docs/training.md", f"| against a greedy team | **{rate(cg)}** {deal(cg)} |"),
        ("docs/training.md", f"passes greedy ({rate(cg)}, interval above 0.5)"),
        ("docs/training.md", f"on the 2,000 fresh rounds it is {rate(cp)}."),
        ("docs/training_experiments.md", f"| **{rate(mp)} {deal(mp)}** | {pips(mp)} vs {pips(planners)} | "
                                         f"**{rate(mg)} {deal(mg)}** | {pips(mg)} vs {pips(greedy)} |"),
        ("docs/training_experiments.md", f"where the release's own choice wins {rate(mp)} {deal(mp)} (pips 22.9 against {pips(mp)} a round)"),
        ("docs/training_experiments.md", f"the release {rate(cp)} / {rate(cg)}."),
        ("docs/search.md", f"(the action-scoring PPO release: {rate(mp)} {deal(mp)} on the 2,000 rounds of seed 2027,"),
        # domino-paired prints a file's win rate with 4 decimals
        ("docs/evaluation.md", f"# A: ppo:checkpoints/{MT} in runs/new.json: {rate(mp, 4)}"),
    ]
    assert not missing(claims)
    # the releases' column of the table of every lever tried after them (seed 2027 rows)
    levers = prose("docs/training_experiments.md").split("every lever tried, in one table", 1)[1]
    mt_2027 = re.findall(r"\| Mexican Train \|[^|]*\| 2,000, 2027 \| [^|]*? / (\d\.\d+)", levers)
    cuban_2027 = re.findall(r"\| Cuban \|[^|]*\| 2,000, 2027(?: / 5051)? \| [^|]*? / (\d\.\d+)", levers)
    assert len(mt_2027) >= 10 and set(mt_2027) == {rate(mp)}, mt_2027
    assert len(cuban_2027) == 4 and set(cuban_2027) == {rate(cp)}, cuban_2027
    assert planner_team["win_rate"] == pytest.approx(1 - cp["win_rate"])  # team win rates: the two teams' sum to 1


def test_the_first_mlp_checkpoint_table_is_its_evaluation_files():
    """docs/training.md's table of checkpoints/mexican_train_4p_d12 (seed 0), every column."""
    rows = []
    for opponents, label in (("greedy", "ppo + 3 greedy"), ("planner", "ppo + 3 planner")):
        model, other = release(MT_MLP, opponents)
        rows.append(f"| {label} | **ppo** | 1 | {model['seat_episodes']} | {rate(model)} | {wilson(model)} | "
                    f"{deal(model)} | {model['verdict']} | {pips(model, 2)} |")
        rows.append(f"| | {opponents} | 3 | {other['seat_episodes']} | {rate(other)} | {wilson(other)} | "
                    f"{deal(other)} | {other['verdict']} | {pips(other, 2)} |")
    text = (ROOT / "docs/training.md").read_text().replace("**", "")
    page_rows = [r for r in text.splitlines() if r.startswith(("| ppo + 3 ", "| | greedy | 3 | 6000", "| | planner | 3 | 6000"))]
    assert page_rows == [r.replace("**", "") for r in rows]
    greedy_model, greedy = release(MT_MLP, "greedy")
    planner_model, _ = release(MT_MLP, "planner")
    assert not missing([
        ("docs/training.md", f"pips than the greedy seats: {pips(greedy_model, 2)} vs {pips(greedy, 2)} per round"),
        ("docs/training.md", f"against three planners it wins {planner_model['win_rate']:.2%} of the rounds"),
    ])


@pytest.mark.parametrize("folder", [MT, CUBAN, MT_MLP])
def test_a_release_block_in_metadata_is_its_evaluation_files(folder):
    """metadata.json's ``release`` block repeats the release evaluations: the same figures."""
    block = load(f"checkpoints/{folder}/metadata.json")["release"]
    keys = ("win_rate", "ci95_wilson", "ci95_deal", "parity", "verdict", "mean_pips_per_round", "seat_episodes")
    for opponents in ("planner", "greedy"):
        for stats in release(folder, opponents):
            assert {k: stats[k] for k in keys} == {k: block[f"vs_{opponents}"][stats["name"]][k] for k in keys}


def test_training_runs_are_described_as_their_metadata_says():
    """Steps reached, the released model's step and its wall time into the run, and the periodic
    evaluations the pages quote, from each run's metadata.json and evaluations.json."""
    claims = []
    for folder in (MT, CUBAN, MT_MLP, "cuban_4p_teams"):
        meta = load(f"checkpoints/{folder}/metadata.json")
        assert meta["evaluations"] == load(f"checkpoints/{folder}/evaluations.json")
        claims.append(("docs/training.md", f"{meta['timesteps']:,} steps"))
    evaluations = {f: {e["timesteps"]: e for e in load(f"checkpoints/{f}/evaluations.json")} for f in (MT, CUBAN, MT_MLP)}
    best = {f: load(f"checkpoints/{f}/metadata.json")["best_model"]["timesteps"] for f in (MT, CUBAN, MT_MLP)}
    assert best == {MT: 100_000, CUBAN: 700_000, MT_MLP: 900_000}  # the steps the pages name
    mt_best, cuban_best = evaluations[MT][best[MT]], evaluations[CUBAN][best[CUBAN]]
    mt_at, cuban_at = minutes_seconds(mt_best["wall_s"]), minutes_seconds(cuban_best["wall_s"])
    planner_rows = [f"{e['results']['planner']['win_rate']:.3f}" for e in evaluations[MT].values()]
    cuban_planner = [e["results"]["planner"]["win_rate"] for t, e in evaluations[CUBAN].items() if t > 100_000]
    mlp_planner = [e["results"]["planner"]["win_rate"] for e in evaluations[MT_MLP].values()]
    claims += [
        ("README.md", f"100k steps, {mt_best['wall_s'] / 60:.1f} min of training"),
        ("README.md", f"(100,000 steps, {mt_at} into the run;"),
        ("README.md", f"above greedy at 700,000 steps, {cuban_at} into the run"),
        ("docs/training.md", f"The run's first periodic evaluation (100,000 steps, {mt_at} into the run) was its best"),
        ("docs/training.md", f"({', '.join(planner_rows)} at the 200-round evaluations every 100,000 steps"),
        ("docs/training.md", f"100,000 steps, **{mt_at}** into the run (200-round evaluation: "
                             f"{mt_best['results']['greedy']['win_rate']:.3f} vs greedy, {planner_rows[0]} vs the planner)"),
        ("docs/training.md", f"(the 700,000-step model, {cuban_at} into the run)"),
        ("docs/training.md", f"the 700,000-step model, {cuban_at} into the run. It never passes the planner team."),
        ("docs/training.md", f"whose planner row ({cuban_best['results']['planner']['win_rate']:.3f} on 200 rounds)"),
        ("docs/training.md", f"moved between {min(cuban_planner):.2f} and {max(cuban_planner):.2f} against the planner"),
        ("docs/training.md", f"against the planner ({min(mlp_planner):.2f} to {max(mlp_planner):.3f} at every point)"),
        ("docs/training_experiments.md", f"{planner_rows[0]} at 100k to {planner_rows[-1]} at 500k steps"),
    ]
    mlp = load(f"checkpoints/{MT_MLP}/metadata.json")
    assert round(mlp["steps_per_second"], -1) == 270 and "(about 270 steps/s" in prose("docs/training.md")
    final = mlp["final_evaluation"]["greedy"]  # the run's final model, against which the release was chosen
    claims.append(("docs/training.md", f"(win rate 0.394 vs {final['win_rate']:.3f}; 15.96 vs {final['mean_pips']:.2f} pips)"))
    assert f"final: win {final['win_rate']:.3f}, {final['mean_pips']:.2f} vs" in mlp["release"]["chosen_as"]
    assert "best: win 0.394, 15.96 vs" in mlp["release"]["chosen_as"]
    size = {f: (CHECKPOINTS / f / "model.zip").stat().st_size / 1e6 for f in (MT_MLP, "cuban_4p_teams")}
    claims += [("docs/training.md", f"Folder contents: `model.zip` ({size[MT_MLP]:.1f} MB,"),
               ("docs/training.md", f"holds that model (`model.zip`, {size['cuban_4p_teams']:.1f} MB,")]
    assert not missing(claims)


@pytest.mark.parametrize("folder", [MT_MLP, "cuban_4p_teams"])
def test_a_final_evaluation_page_is_its_metadata(folder):
    """final_evaluation.md's summary rows: the model's figures are metadata.json's final_evaluation."""
    meta = load(f"checkpoints/{folder}/metadata.json")
    page = (CHECKPOINTS / folder / "final_evaluation.md").read_text()
    for opponents, r in meta["final_evaluation"].items():
        row = (f"| {opponents} | {r['rounds']} | {r['win_rate']:.3f} | {interval_text(r['ci95_wilson'], r['parity'])} | "
               f"{interval_text(r['ci95_deal'], r['parity'])} | {r['parity']:.3f} | {r['verdict']} | "
               f"{r['mean_pips']:.2f} | {r['opponent_mean_pips']:.2f} | {r['opponent_win_rate']:.3f} |")
        assert row in page.splitlines(), row


# ---------------------------------------------------------------------------- the soak


def test_soak_page_and_readme_are_the_soak_report():
    """docs/soak.md's table, run time and re-run line, and README's soak row, from docs/soak.json."""
    report = load("docs/soak.json")
    assert report["ok"] and not report["interrupted"]
    counts = ("errors", "obs_outside_box", "empty_masks", "rounds_not_ended")
    rows = [f"| `{name}` | {p['rounds']:,} | {p['game_episode_rounds']:,} | {p['episodes']:,} | {p['steps']:,} | "
            + " | ".join(str(p[c]) for c in counts) + " |" for name, p in report["presets"].items()]  # fmt: skip
    totals = report["totals"]
    rows.append(f"| total | {totals['rounds']:,} | | | {totals['steps']:,} | " + " | ".join(str(totals[c]) for c in counts) + " |")
    page = (ROOT / "docs/soak.md").read_text()
    start = page.index("| preset | rounds |")
    assert page[start:].splitlines()[2 : 2 + len(rows)] == rows
    assert totals["rounds"] == sum(p["rounds"] for p in report["presets"].values())
    assert totals["steps"] == sum(p["steps"] for p in report["presets"].values())
    (rerun,) = report["reruns"]
    assert not missing([
        ("docs/soak.md", f"Finished in {report['wall_s']:.0f} s ({report['wall_s'] / 60:.1f} min); every count is 0."),
        ("docs/soak.md", report["command"].split(" --json")[0].replace("python", ".venv/bin/python", 1)),
        ("docs/soak.md", f"re-run alone on {rerun['date']} ({rerun['wall_s']:.0f} s, `--presets {rerun['presets'][0]}`"),
        ("README.md", f"| Long soak | {totals['rounds']:,} random rounds over every preset"),
        ("README.md", f"{totals['errors']} errors, {totals['obs_outside_box']} observations outside their Box, "
                      f"{totals['empty_masks']} empty masks, {totals['rounds_not_ended']} rounds that did not end"),
    ])


def test_soak_tables_are_the_scripts():
    """docs/soak.md's tables of (players, double-N) per preset are what benchmarks/soak.py plays,
    and what the report says it played."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import soak
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    report = load("docs/soak.json")
    page = (ROOT / "docs/soak.md").read_text()
    for name in soak.PRESETS:
        row = next(r for r in page.splitlines() if r.startswith("| ") and f"`{name}`" in r.split(" | ")[1])
        listed = [(int(p), int(n)) for p, n in re.findall(r"\((\d+), (\d+)\)", row)]
        assert listed == [tuple(t) for t in soak.valid_tables(name)] == [tuple(t) for t in report["presets"][name]["tables"]], name


# ---------------------------------------------------------------------------- re-computed


def test_block_ladder_planner_table_is_recomputed():
    """The planner against three greedy players in block (2,000 rounds, seed 0; about 7 s on one
    core): docs/evaluation.md's two rows, every column, README's headline and docs/agents.md's
    reference column, as ``domino-evaluate --game block --agents planner greedy greedy greedy
    --rounds 2000 --seed 0`` prints them today."""
    from domino_env.train.tournament import evaluate

    result = evaluate(["planner", "greedy", "greedy", "greedy"], game="block", rounds=2000, seed=0)
    planner, greedy = (result.stats_for(name) for name in ("planner", "greedy"))
    rows = [f"{s.name} | {s.seats_per_table} | {s.seat_episodes} | {s.win_rate:.3f} | "
            f"{interval_text(s.ci95_wilson, s.parity)} | {interval_text(s.ci95_deal, s.parity)} | {s.verdict} | "
            f"{s.mean_pips_per_round:.1f} |" for s in (planner, greedy)]  # fmt: skip
    text = (ROOT / "docs/evaluation.md").read_text().replace("**", "")
    section = text[text.index("Block, 4 players") : text.index("Block, 2 players")]
    table = [line.split(" | ", 1)[1] for line in section.splitlines() if line.startswith("| ")]
    start = table.index(rows[0])  # the row after "| planner + 3 greedy"
    assert section.splitlines().count(f"| planner + 3 greedy | {rows[0]}") == 1 and table[start + 1] == rows[1]
    figure = f"{planner.win_rate:.3f} {interval_text(planner.ci95_deal, planner.parity)}"
    assert not missing([
        ("README.md", f"block 4 players {figure} (parity {planner.parity:.3f})"),
        ("docs/agents.md", f"| block 4p | **0.435** [0.413, 0.457] | {planner.win_rate:.3f} |"),
        ("docs/evaluation.md", f"The margin is wide in block 4p ({planner.win_rate:.3f} against 0.25)"),
    ])


def test_the_loaders_refusal_quoted_in_training_md_is_todays():
    """docs/training.md's SpecMismatchError for the first checkpoint in a 3-player double-9 env:
    the spec hashes, sizes and wording are what the loader raises (it stops before torch)."""
    from domino_env.agents import make_agent
    from domino_env.agents.ppo import SpecMismatchError
    from domino_env.envs import mexican_train_v0

    with pytest.raises(SpecMismatchError) as refused:
        make_agent(f"ppo:checkpoints/{MT_MLP}", mexican_train_v0.raw_env(num_players=3, max_pip=9))
    line = f"{SpecMismatchError.__module__}.{SpecMismatchError.__name__}: {refused.value}"
    assert line in (ROOT / "docs/training.md").read_text().splitlines()
    assert load(f"checkpoints/{MT_MLP}/metadata.json")["observation_spec_hash"] in line


def test_interval_notes_are_recomputed():
    """The per-deal interval's Student t (docs/training.md, docs/evaluation.md, the MLP release's
    final_evaluation.md) and domino-paired's Wilson fall-backs (docs/evaluation.md)."""
    from domino_env.train.intervals import Z95, t_quantile_975
    from domino_env.train.paired import paired_difference

    def short(deals: int) -> float:  # how much narrower the normal quantile made the half-width
        return 1 - Z95 / t_quantile_975(deals - 1)

    assert not missing([
        (str((CHECKPOINTS / MT_MLP / "final_evaluation.md").relative_to(ROOT)), f"the normal quantile {Z95:.3f} where Student's t with 499 "
                                                      f"degrees of freedom, {t_quantile_975(499):.3f}, belongs"),
        ("docs/training.md", f"(the half-width was {short(500):.2%} short at 500 deals, {short(125):.0%} at 125)"),
        ("docs/training_experiments.md", f"(the half-width was {short(500):.2%} short at 500 deals, {short(125):.0%} at 125)"),
        ("docs/evaluation.md", f"which made it {short(500):.2%} too narrow at 500 deals and {short(50):.1%} at 50"),
    ])

    def four_deals(credit: tuple[float, float]) -> dict:  # 4 deals x 2 rotations of x against y
        records = [{"deal": k, "rotation": r, "seed": k, "seats": [r, 1 - r], "rounds": 1, "pips": [0, 0],
                    "round_credit": list(credit) if r == 0 else list(credit[::-1]), "game_credit": None,
                    "truncated": False} for k in range(4) for r in (0, 1)]  # fmt: skip
        return {"agents": ["x", "y"], "episode": "round", "num_players": 2, "game": "mexican_train",
                "env_kwargs": {"max_pip": 6}, "records": records}  # fmt: skip

    won = four_deals((1.0, 0.0))
    every_deal = paired_difference(won, won, "x", "y").text().split(": ")[1].split(" over")[0]
    no_deal = paired_difference(won, json.loads(json.dumps(won)), "x").text().split(": ")[1].split(" over")[0]
    assert not missing([
        ("docs/evaluation.md", f"mapped back: 4 such deals give `{every_deal}`"),
        ("docs/evaluation.md", f"the one-sided bound): 4 such deals give `{no_deal}`"),
    ])


def test_rules_set_and_hand_sizes_are_recomputed():
    """docs/rules.md §0's tile counts and §1.1's default deal (double-12, 4 players)."""
    from domino_env.core.tiles import tile_table
    from domino_env.envs import mexican_train_v0

    counts = [len(tile_table(n)) for n in (6, 9, 12, 15, 18)]
    env = mexican_train_v0.raw_env(num_players=4, max_pip=12)
    env.reset(seed=0)
    hands = {len(env.game_state.hand_tiles(seat)) for seat in range(4)}
    assert len(hands) == 1
    assert not missing([
        ("docs/rules.md", f"so {', '.join(map(str, counts[:-1]))} and {counts[-1]} tiles for N = 6, 9, 12, 15 and 18"),
        ("docs/rules.md", f"Double-12 with 4 players: {hands.pop()} tiles each, a boneyard of {env.game_state.boneyard_size}."),
    ])
