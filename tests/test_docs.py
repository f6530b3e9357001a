"""The docs match the code, and every Markdown file or rules section cited anywhere exists.

- docs/envs.md: its generated tables are what ``docs/generate_tables.py`` writes from the spec
  tables and config field docs today (the observation bounds those of the default envs), every
  preset has a row naming the fields it changes, and the env keywords' defaults are the code's.
- docs/design.md: §1's layout names every module of ``domino_env`` and every error class.
- docs/rules.md: the section numbers the code cites, the hand-size table and the presets match
  ``domino_env.core.config``.
- Every path-like reference to a Markdown file in the repository's ``.py`` and ``.md`` files
  names a file of the repository, and every cited section of docs/rules.md or docs/design.md
  ("docs/rules.md §1.4", "docs/rules.md section 2", ranges and lists such as "§1.1-1.8",
  "§0 / 1.5") exists in that page.
- No Markdown page names the team's issue tracker ("issue 5"), which a reader cannot open.
- The extras that pages say `make test` installs are the Makefile's; docs/rllib.md's lists of what
  ``--resume`` keeps of each flag are ``domino_env.train.rllib_args``'.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

from domino_env.core.config import HAND_SIZE_TABLE, LINE_PRESETS, PRESETS
from domino_env.encoding.line import line_observation_spec
from domino_env.encoding.mexican_train import observation_spec

ROOT = Path(__file__).resolve().parents[1]
ENVS = ROOT / "docs/envs.md"
RULES = ROOT / "docs/rules.md"
DESIGN = ROOT / "docs/design.md"
INDEX = ROOT / "docs/README.md"

#: Folders that are not the repository's own text (environments, caches, build and run outputs).
SKIP_DIRS = {".git", ".venv", ".venv-peers", "venv", "build", "dist", "runs", "node_modules", "__pycache__",
             ".pytest_cache", ".ruff_cache", ".hypothesis", "ladder_results"}  # fmt: skip
#: Markdown files that commands write into their output folders (not files of the repository);
#: each must be written by the code named here.
OUTPUT_FILES = {"final_evaluation.md": "train/run_folder.py"}

EXT = "md"
# A path-like reference: optional leading "/" or "../", folders, a file name ending in the extension.
REFERENCE = re.compile(rf"(?<![\w./-])(/?(?:\.\.?/)*(?:[\w-]+/)*[\w.-]*\w\.{EXT})(?![\w/-])")
URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", flags=re.I)
NUMBER = r"\d+(?:\.\d+)*"
SEPARATOR = r"\s*(?:,|/|\+|-|–|and|or)\s*§?"
CITATION = re.compile(
    rf"docs/(?P<page>rules|design)\.{EXT}\)?\s*(?:§\s?|sections?\s+)"
    rf"(?P<numbers>{NUMBER}(?:{SEPARATOR}{NUMBER})*)"
)


def _load_generator():
    spec = importlib.util.spec_from_file_location("generate_tables", ROOT / "docs/generate_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def repository_files(suffixes: tuple[str, ...] = (".py", f".{EXT}")) -> list[Path]:
    """The repository's own ``.py`` and ``.md`` files (environments, caches and outputs skipped)."""
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        found.extend(Path(folder) / f for f in files if f.endswith(suffixes))
    return sorted(found)


def references(text: str) -> list[str]:
    """Path-like Markdown references in ``text`` (URLs left out)."""
    return REFERENCE.findall(URL.sub(" ", text))


def resolves(ref: str, source: Path) -> bool:
    """``ref`` names a repository file, relative to ``source``'s folder or to the repository root."""
    if ref.startswith("/"):
        return False  # an absolute path is never a file of the repository
    if ref in OUTPUT_FILES:
        return True
    for base in (source.parent, ROOT):
        target = (base / ref).resolve()
        if target.is_file() and ROOT in target.parents:
            return True
    return False


def section_ids(page: Path) -> set[str]:
    """Numbered sections of a page: headings "## 1. Name" / "### 1.3 Name", and the numbered items
    of a numbered section (item 3 of section 1.3 is "1.3.3")."""
    ids: set[str] = set()
    current = None
    for line in page.read_text().splitlines():
        heading = re.match(rf"#+\s+({NUMBER})\.?\s", line)
        if heading:
            current = heading.group(1)
            ids.add(current)
        elif line.startswith("#"):
            current = None
        else:
            item = re.match(r"(\d+)\.\s", line)
            if item and current is not None:
                ids.add(f"{current}.{item.group(1)}")
    return ids


OWN_CITATION = re.compile(rf"(?<![\w/.])§\s?(?P<numbers>{NUMBER}(?:{SEPARATOR}{NUMBER})*)")


def cited_sections(text: str, own_page: str | None = None) -> list[tuple[str, str]]:
    """``(page, section)`` for every section cited as docs/rules.md or docs/design.md; in the
    page ``own_page`` ("rules" or "design") itself, a bare "§1.4" cites that page."""
    cited = []
    for m in CITATION.finditer(text):
        for number in re.findall(NUMBER, m["numbers"]):
            cited.append((m["page"], number))
    if own_page is not None:
        for m in OWN_CITATION.finditer(CITATION.sub(" ", text)):
            for number in re.findall(NUMBER, m["numbers"]):
                cited.append((own_page, number))
    return cited


# ---------------------------------------------------------------------------- the checkers


def test_reference_finder():
    # Written with {EXT} so that this file itself names no missing file.
    text = (
        f"see docs/rules.{EXT} §1.4, ``notes/x.{EXT}`` and [b](../benchmarks/README.{EXT}#top); "
        f"/nowhere/y/Z.{EXT}; https://example.org/a/b.{EXT} is a URL; final_evaluation.{EXT}; a.mdx"
    )
    assert references(text) == [
        f"docs/rules.{EXT}", f"notes/x.{EXT}", f"../benchmarks/README.{EXT}", f"/nowhere/y/Z.{EXT}",
        f"final_evaluation.{EXT}",
    ]  # fmt: skip
    page = ROOT / "docs/envs.md"
    assert resolves(f"rules.{EXT}", page) and resolves(f"docs/rules.{EXT}", page)
    assert resolves(f"../benchmarks/README.{EXT}", page)
    assert not resolves(f"notes/x.{EXT}", page) and not resolves(f"/nowhere/y/Z.{EXT}", page)
    assert not resolves(f"rules.{EXT}", ROOT / "agents/base.py")  # neither agents/ nor the root has it


def test_citation_finder():
    text = (
        "docs/rules.md §1.1-1.8; docs/rules.md §0 / 1.5 (seeds 003, 004); docs/rules.md section 2; "
        "docs/rules.md sections 2.1 and 2.2, seed 001; docs/design.md §3. docs/rules.md §1.3.3 + 1.4"
    )
    assert cited_sections(text) == [
        ("rules", "1.1"), ("rules", "1.8"), ("rules", "0"), ("rules", "1.5"), ("rules", "2"),
        ("rules", "2.1"), ("rules", "2.2"), ("design", "3"), ("rules", "1.3.3"), ("rules", "1.4"),
    ]  # fmt: skip
    assert cited_sections("docs/design.md §3; see §1.4 and §2.1-2.2", own_page="rules") == [
        ("design", "3"), ("rules", "1.4"), ("rules", "2.1"), ("rules", "2.2"),
    ]  # fmt: skip


def test_output_files_are_written_by_the_code():
    for name, module in OUTPUT_FILES.items():
        assert f'"{name}"' in (ROOT / module).read_text(), f"{module} no longer writes {name}"


# ---------------------------------------------------------------------------- the pages


def test_rules_page_has_the_section_numbers_the_code_cites():
    headings = [s for s in section_ids(RULES) if s.count(".") < 2]
    assert sorted(headings) == sorted(
        ["0", "1", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "2", "2.1", "2.2", "3"]
    )
    assert {f"1.3.{i}" for i in range(1, 6)} <= section_ids(RULES)  # the turn's five steps


def test_design_page_has_the_sections_one_to_ten():
    assert {str(i) for i in range(1, 11)} <= section_ids(DESIGN)


def test_design_layout_names_every_library_module():
    """docs/design.md §1 names every module of ``domino_env`` and every error class."""
    from domino_env.core import errors

    text = DESIGN.read_text()
    layout = text[text.index("## 1. Layout") : text.index("## 2.")]
    modules = {p.name for p in (ROOT / "domino_env").rglob("*.py") if p.name != "__init__.py"}
    assert not sorted(m for m in modules if m not in layout), "docs/design.md §1 misses modules"
    classes = {n for n, c in vars(errors).items() if isinstance(c, type) and issubclass(c, errors.DominoError)}
    assert not sorted(c for c in classes if c not in layout), "docs/design.md §1 misses error classes"


def test_env_card_tables_are_generated_from_the_code():
    text = ENVS.read_text()
    assert _load_generator().render(text) == text, "run: python docs/generate_tables.py"


def test_env_card_sizes_match_the_specs():
    text = ENVS.read_text()
    assert observation_spec(4, 12).size == 449 and "449 floats" in text
    assert line_observation_spec(4, 9).size == 184 and "184 floats" in text


def test_env_card_bounds_are_the_default_envs():
    """The generated tables' ``high`` column is the Box of the envs they describe (Mexican Train
    on its defaults, Cuban), and the shape and dtype claims of the page hold."""
    from domino_env.envs import cuban_v0, mexican_train_v0

    for module, spec in ((mexican_train_v0, observation_spec(4, 12)), (cuban_v0, line_observation_spec(4, 9))):
        space = module.raw_env().observation_space("player_0")
        assert (space["observation"].high == spec.space.high).all() and (space["observation"].low == 0).all()
        assert space["observation"].dtype == "float32" and space["action_mask"].dtype == "int8"
    text = ENVS.read_text()
    assert "| name | shape | unit | high | meaning |" in text
    assert re.search(r"^\| `scores` \| \(4,\) \| points \| 10,000 \|", text, flags=re.M)


def test_env_keyword_defaults_match_the_code():
    """The env keywords beside the rules fields, with the defaults docs/envs.md gives them."""
    import inspect

    from domino_env.envs.base import DominoAECEnv

    defaults = {k: v.default for k, v in inspect.signature(DominoAECEnv.__init__).parameters.items()}
    text = " ".join(ENVS.read_text().split())
    assert defaults["episode"] == "round" and '`episode` (`"round"`, default,' in text
    assert defaults["reward"] == "outcome" and '`reward` (`"outcome"`, default,' in text
    assert defaults["render_mode"] is None and "`render_mode` (None, default;" in text
    assert defaults["max_cycles"] == 100_000 and "`max_cycles` (default 100,000)" in text
    assert defaults["max_steps"] is None and "`max_steps` (default None)" in text


def test_every_preset_is_documented():
    envs, rules = ENVS.read_text(), RULES.read_text()
    for name in [*PRESETS, *LINE_PRESETS]:
        assert re.search(rf"^\| `{name}`", envs, flags=re.M), f"docs/envs.md has no row for {name}"
        assert re.search(rf"^\| `{name}`", rules, flags=re.M), f"docs/rules.md has no row for {name}"


def test_mexican_train_preset_rows_match_the_code():
    """Each preset row of docs/envs.md and docs/rules.md §1.8 names exactly the fields the preset changes,
    with their values (``field="value"``, or "hand-size table" and "(limit N)")."""
    for page in (ENVS, RULES):
        text = page.read_text()
        for name, (_, diff) in PRESETS.items():
            row = re.search(rf"^\| `{name}`.*$", text, flags=re.M)[0]
            quoted = {k: v.strip('"') for k, v in re.findall(r"`(\w+)=(\"?[\w.]+\"?)`", row)}
            written_out = {"hand_size_rule", "elimination_limit"} - set(quoted)  # said in words
            assert quoted == {k: str(v) for k, v in diff.items() if k not in written_out}, f"{page.name}: {name}"
            if diff.get("hand_size_rule") == "table":
                assert "hand_size_rule=\"table\"" in row or "hand-size table" in row, f"{page.name}: row {name}"
            if "elimination_limit" in diff:
                assert f"(limit {diff['elimination_limit']})" in row, f"{page.name}: row {name}"
            assert diff or "nothing" in row


def test_rules_hand_size_table_matches_the_code():
    rows = {
        int(m.group(1)): [int(x) for x in m.group(2).split(" | ")]
        for m in re.finditer(r"^\s*\| double-(\d+) \| ((?:\d+ \| ){6}\d+) \|", RULES.read_text(), re.M)
    }
    assert rows == {n: [HAND_SIZE_TABLE[n][p] for p in range(2, 9)] for n in HAND_SIZE_TABLE}


def test_docs_index_links_every_page():
    index = INDEX.read_text()
    pages = {p.name for p in (ROOT / "docs").glob(f"*.{EXT}")} - {INDEX.name}
    for name in sorted(pages):
        assert f"]({name})" in index, f"docs/README.md does not link {name}"


#: A documented command's output file (``--out`` is a run folder, which is refused when not empty).
OUTPUT_FILE = re.compile(r"(?<![\w-])(?:--json|--record|--dataset|--output|-o)[ =]`?(\S+)")


def test_no_documented_command_writes_over_the_released_files():
    """docs/training.md gave --json checkpoints/.../release_eval_vs_*.json: reproducing a release's
    evaluation replaced the shipped result. Documented commands write their files under runs/."""
    pages = [*sorted((ROOT / "docs").glob(f"*.{EXT}")), ROOT / "README.md"]
    found = [f"{page.name}: {m.group(0)}" for page in pages for m in OUTPUT_FILE.finditer(page.read_text())
             if m.group(1).startswith("checkpoints/")]  # fmt: skip
    assert found == []
    assert "--json runs/mexican_train_4p_d12_action_scores/release_eval_vs_planner.json" in (
        ROOT / "docs/training.md").read_text()  # the test reads the pages' commands  # fmt: skip


@pytest.mark.parametrize("path", sorted(ROOT.glob("checkpoints/*_action_scores/release_eval_vs_*.json")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")  # fmt: skip
def test_a_released_evaluation_holds_the_documented_command_that_wrote_it(path):
    """The released models' evaluation files were written before domino-evaluate kept its command
    line: each now holds it (and the package version), and it is the one docs/training.md gives."""
    import json

    result = json.loads(path.read_text())
    assert result["package_version"] and result["rounds_played"] == 2000 and result["seed"] == 2027
    assert result["command"].endswith(f"--json runs/{path.parent.name}/{path.name}")
    assert result["command"] in (ROOT / "docs/training.md").read_text().splitlines()


# ---------------------------------------------------------------------------- the repository

FILES = repository_files()


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_markdown_references_exist(path):
    text = path.read_text(errors="replace")
    missing = sorted({ref for ref in references(text) if not resolves(ref, path)})
    assert not missing, f"{path.relative_to(ROOT)} names files that are not in the repository: {missing}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_cited_sections_exist(path):
    sections = {"rules": section_ids(RULES), "design": section_ids(DESIGN)}
    text = path.read_text(errors="replace")
    own = {RULES: "rules", DESIGN: "design"}.get(path)
    cited = cited_sections(text, own_page=own)
    missing = sorted({f"docs/{page}.{EXT} §{n}" for page, n in cited if n not in sections[page]})
    assert not missing, f"{path.relative_to(ROOT)} cites sections that do not exist: {missing}"


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_slug_is_githubs():
    assert slug("Single agent (Gymnasium / SB3)") == "single-agent-gymnasium--sb3"
    assert slug("The released checkpoint: `checkpoints/a_b/`") == "the-released-checkpoint-checkpointsa_b"


@pytest.mark.parametrize("path", [p for p in FILES if p.suffix == f".{EXT}"], ids=lambda p: str(p.relative_to(ROOT)))
def test_links_to_headings_exist(path):
    """Every ``[text](PAGE#anchor)`` or ``[text](#anchor)`` link (PAGE a Markdown page) names a heading of it."""
    text = path.read_text()
    missing = []
    for target, anchor in re.findall(rf"\]\(([^)\s#]*\.{EXT}|)#([^)\s]+)\)", text):
        page = (path.parent / target).resolve() if target else path
        if not page.is_file():
            continue  # a missing page is reported by test_markdown_references_exist
        anchors = {slug(h) for h in re.findall(r"^#+\s+(.*)$", page.read_text(), flags=re.M)}
        if anchor not in anchors:
            missing.append(f"{target}#{anchor}")
    assert not missing, f"{path.relative_to(ROOT)} links to headings that do not exist: {missing}"


@pytest.mark.parametrize("path", [p for p in FILES if p.suffix == ".md"], ids=lambda p: str(p.relative_to(ROOT)))
def test_code_fences_are_whole_lines(path):
    """A closing fence with text after it ("``` The record is ...") does not close the block: the
    rest of docs/play.md rendered as code."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            assert re.fullmatch(r"\s*```[\w-]*\s*", line), f"{path.relative_to(ROOT)}:{number}: {line!r}"


def test_code_cites_existing_headings():
    """A link ``docs/<page>.md#<anchor>`` in the code (an error message, a docstring) names a heading."""
    missing = []
    for path in (p for p in FILES if p.suffix == ".py"):
        for page, anchor in re.findall(rf"(docs/[\w-]+\.{EXT})#([\w-]+)", path.read_text()):
            headings = re.findall(r"^#+\s+(.*)$", (ROOT / page).read_text(), flags=re.M)
            if anchor not in {slug(h) for h in headings}:
                missing.append(f"{path.relative_to(ROOT)}: {page}#{anchor}")
    assert not missing, missing


def test_pages_do_not_cite_the_teams_tracker():
    """A reader of the repository cannot open the team's issue tracker: the pages say what an issue
    asked for ("the project's target") instead of naming it ("issue 5", "the issue's levers")."""
    tracker = re.compile(r"\bissues? ?#?\d|\bthe issue's|\(issues\)", flags=re.I)
    cited = [f"{p.relative_to(ROOT)}:{n}: {line.strip()[:80]}" for p in FILES if p.suffix == f".{EXT}"
             for n, line in enumerate(p.read_text().splitlines(), 1) if tracker.search(line)]  # fmt: skip
    assert not cited, cited


def test_pages_name_the_extras_make_test_installs():
    """docs/rllib.md said `make test` installs [train,rllib,dev]; the Makefile installs more."""
    installed = re.search(r'install -e "\.\[([\w,]+)\]"', (ROOT / "Makefile").read_text()).group(1)
    said = [(p.relative_to(ROOT), extras) for p in FILES if p.suffix == f".{EXT}"
            for extras in re.findall(r"`make test`[^\n]*?installs the `\[([\w,]+)\]` extras", p.read_text())]  # fmt: skip
    assert said and all(extras == installed for _, extras in said), (installed, said)


def test_rllib_page_says_what_resume_keeps_of_every_flag():
    """docs/rllib.md named the flags --resume keeps but not those it takes from the new command
    line (--eval-rounds, --num-cpus, ...): a run started with --eval-rounds 0 --num-cpus 1 and
    resumed without them played a 200-round evaluation on every CPU. Its three lists are the code's."""
    from domino_env.train.rllib_args import CONTINUED_OPTIONS, RUN_OPTIONS, build_parser

    text = (ROOT / "docs/rllib.md").read_text()
    section = text[text.index("`--resume RUN` takes") : text.index("So `domino-rllib --resume RUN")]
    bullets = section.split("\n* ")[1:]
    dest = {o: a.dest for a in build_parser()._actions for o in a.option_strings}
    named = [{dest[f] for f in re.findall(r"--[a-z][a-z-]*", b) if f in dest} for b in bullets]
    others = set(dest.values()) - set(RUN_OPTIONS) - set(CONTINUED_OPTIONS) - {"help", "resume"}
    assert named == [set(RUN_OPTIONS), set(CONTINUED_OPTIONS), others]


@pytest.mark.parametrize("index", ["", "https://download.pytorch.org/whl/cpu"])
def test_the_set_up_installs_torch_from_the_index_the_readme_names(index, tmp_path):
    """README: `make run TORCH_INDEX=<PyTorch's CPU index>` keeps torch small where pip would pick
    a CUDA build. It used to suggest TORCH_SPEC="torch==2.13.0 --index-url ...", which the Makefile
    quoted into one invalid requirement. Both set-ups are read: make's (dry run) and .ci/run's
    fallback for a machine without make (its torch line, with pip replaced by printf)."""
    import shutil
    import subprocess

    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "`make run TORCH_INDEX=https://download.pytorch.org/whl/cpu`" in readme
    env = {**os.environ, "TORCH_SPEC": "torch==2.13.0", "TORCH_INDEX": index}
    want = ["torch==2.13.0", *(["--index-url", index] if index else [])]
    line = next(x for x in (ROOT / ".ci" / "run").read_text().splitlines() if 'install "$TORCH_SPEC"' in x)
    script = line.replace(".venv/bin/python -m pip install", "printf '%s\\n'")
    fallback = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, check=True)
    assert fallback.stdout.splitlines() == want
    if shutil.which("make"):  # what `make test` and `make run` run
        dry = subprocess.run(["make", "-n", "-B", "venv", f"VENV={tmp_path / 'v'}"], cwd=ROOT, env=env,
                             capture_output=True, text=True, check=True)  # fmt: skip
        torch = next(x for x in dry.stdout.splitlines() if "pip install \"torch" in x)
        assert torch.split(" install ", 1)[1].replace('"', "").split() == want


def test_envs_md_example_of_a_given_station_names_the_double_the_game_skips():
    """docs/envs.md, "Starting from a given position": a station given off the schedule is played
    and the later rounds keep the schedule of their round index (round r: N-r), so the example's
    game plays the given double twice and never the double of the round it was given in. The page
    said 9-9 in round 2 skipped 8-8 (round 1's double); round 2 plays 7-7 (this test failed)."""
    import numpy as np

    from domino_env.core.tiles import tile_table
    from domino_env.envs.mexican_train_v0 import raw_env

    text = " ".join(ENVS.read_text().split())
    m = re.search(r"a game given station (\d+)-\1 in round (\d+) (?:\([^)]*\) )?of double-(\d+) "
                  r"plays \1-\1 twice and never (\d+)-\4", text)  # fmt: skip
    assert m, "docs/envs.md lost the example of a given station"
    given, index, n, skipped = (int(g) for g in m.groups())
    rng = np.random.default_rng(0)
    pool = [list(t) for t in tile_table(n) if t != (given, given)]
    order = rng.permutation(len(pool))
    tiles = [pool[i] for i in order]
    deal = {"hands": [tiles[:20], tiles[20:40]], "boneyard": tiles[40:], "station": [given, given]}
    env = raw_env(num_players=2, max_pip=n, episode="game")
    env.reset(seed=0, options={"deals": [None] * index + [deal]})
    stations = {}
    while env.agents:
        obs, _, terminated, truncated, _ = env.last()
        stations.setdefault(env.game_state.round_index, env.game_state.station)
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert stations[index] == given
    played = list(stations.values())
    assert played.count(given) == 2 and skipped not in played
    assert sorted(played + [skipped]) == sorted([given] + list(range(n + 1)))
