"""Every released model's ``metadata.json`` holds the command that made it. That command must
still run with today's ``domino-train``: its flags parse, pass the checks, and give the settings
the release recorded (a renamed flag or a changed default would make the recorded command train
something else without a word)."""

from __future__ import annotations

import json
import shlex

import pytest
from ppo_helpers import ROOT

from domino_env.train.ppo_args import build_parser, check_args

RELEASES = sorted(p.parent.name for p in (ROOT / "checkpoints").glob("*/metadata.json"))


def test_there_are_releases_to_check():
    assert len(RELEASES) >= 4, RELEASES


def documented_command(out: str) -> list[str]:
    """The ``domino-train`` command docs/training.md gives for the run with ``--out out``."""
    text = (ROOT / "docs/training.md").read_text().replace("\\\n", " ")
    found = [shlex.split(line, comments=True)[1:] for line in text.splitlines()
             if line.startswith("domino-train ") and f"--out {out}" in line]  # fmt: skip
    assert len(found) == 1, f"docs/training.md: {len(found)} domino-train commands with --out {out}"
    return found[0]


def settings(argv: list[str], tmp_path) -> tuple[dict, object]:
    argv = list(argv)
    argv[argv.index("--out") + 1] = str(tmp_path / "run")  # (the release's folder exists)
    parser = build_parser()
    args = parser.parse_args(argv)
    return vars(args), check_args(parser, args)


@pytest.mark.parametrize("release", RELEASES)
def test_a_released_command_still_gives_the_recorded_settings(release, tmp_path):
    """The recorded command still parses, and the command docs/training.md gives for the release
    (the recorded one with its env count written out, and ``--policy mlp`` for a release from
    before that flag, whose default changed) trains with every setting the release recorded."""
    meta = json.loads((ROOT / "checkpoints" / release / "metadata.json").read_text())
    words = shlex.split(meta["command"])
    assert words[:3] == ["python", "-m", "train.ppo"] and words[3:] == meta["argv"], meta["command"]
    recorded_argv = meta["argv"]
    settings(recorded_argv, tmp_path)  # parses and passes the checks (a removed flag would not)
    documented = documented_command(recorded_argv[recorded_argv.index("--out") + 1])
    added_flags = [w for w in documented if w.startswith("--") and w not in recorded_argv]
    # --n-envs: its default follows the cores, so the docs write out the release's
    assert added_flags == ["--policy"] * ("policy" not in meta["args"]) + ["--n-envs"], f"{release}: {added_flags}"
    assert documented[documented.index("--n-envs") + 1] == str(meta["n_envs"])
    now, checked = settings(documented, tmp_path)
    # settings that are None today mean "the rules' own": the release recorded the resolved value
    # (and its n_envs as given, None, with the count it got in metadata.json, checked above)
    resolved = {"players": checked.rules["num_players"], "max_pip": checked.rules["max_pip"], "n_envs": None}
    differ = {
        name: (was, now[name])
        for name, was in meta["args"].items()
        if name != "out" and name in now and now[name] != was and resolved.get(name, now[name]) != was
    }
    assert differ == {}, f"{release}: recorded vs today's {differ}"
    # flags added since the release must give what the release did
    before = {"policy": "mlp", "partner": "opponents", "reward_baseline": None, "critic_input": "observation",
              "device": "cpu", "init_from": None, "overwrite": False, "game": "mexican_train",
              "hand_size_rule": None,  # the preset's (equal_split), as the releases played
              "action_features": "v1" if now["policy"] == "action-scores" else None}  # fmt: skip
    added = {name: now[name] for name in now if name not in meta["args"]}
    assert added == {name: before[name] for name in added}, f"{release}: new flags {added}"
    assert checked.env_kwargs.items() >= meta["env_kwargs"].items()


RELEASE_EVALUATIONS = sorted((ROOT / "checkpoints").glob("*/release_eval_vs_*.json"))


@pytest.mark.parametrize("path", RELEASE_EVALUATIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_releases_metadata_holds_the_figures_of_its_evaluation_file(path):
    """``metadata.json``'s ``release.vs_X`` repeats ``release_eval_vs_X.json``'s figures: the Cuban
    release kept the Wilson intervals of before the team-trial fix (2026-12-05; [0.459, 0.489]
    where its evaluation file says [0.452, 0.496]), which a user trial found."""
    kept = json.loads((path.parent / "metadata.json").read_text())["release"][path.stem.removeprefix("release_eval_")]
    stats = {s["name"]: s for s in json.loads(path.read_text())["stats"]}
    assert sorted(kept) == sorted(stats)
    for name, figures in kept.items():
        assert {"win_rate", "ci95_wilson", "ci95_deal", "verdict"} <= set(figures)
        assert figures == {field: stats[name][field] for field in figures}, name


def test_every_evaluated_release_is_checked():
    assert len(RELEASE_EVALUATIONS) >= 6  # two per release with a release block
