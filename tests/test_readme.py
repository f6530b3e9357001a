"""The README's env card is generated from the code's tables and its quick start runs."""

import dataclasses
import re
from pathlib import Path

from domino_env.core.config import FIELD_DOCS, MexicanTrainConfig
from domino_env.encoding.mexican_train import observation_spec
from domino_env.envs.infos import Termination

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_observation_table_matches_the_spec():
    assert observation_spec(4, 12).markdown_table() in README
    assert "449 floats" in README and observation_spec(4, 12).size == 449


def test_every_config_field_is_documented():
    for f in dataclasses.fields(MexicanTrainConfig):
        assert f"| `{f.name}` | `{f.default!r}` | {FIELD_DOCS[f.name]} |" in README


def test_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert len(blocks) >= 2
    namespace: dict = {}
    exec(blocks[0], namespace)
    assert namespace["info"]["termination_code"] in (Termination.WENT_OUT, Termination.BLOCKED)
    exec(blocks[1], {})
    agent_blocks = [b for b in blocks if "make_agent(" in b]
    assert len(agent_blocks) >= 2
    for block in agent_blocks:  # copy-pasted as they are, they run
        namespace = {}
        exec(block, namespace)
        assert namespace["obs"]["action_mask"][namespace["action"]] == 1


def test_line_game_tables_match_the_code():
    from domino_env.core.config import LINE_FIELD_DOCS, LineConfig
    from domino_env.encoding.line import line_observation_spec

    assert line_observation_spec(4, 9).markdown_table() in README
    for f in dataclasses.fields(LineConfig):
        assert f"| `{f.name}` | `{f.default!r}` | {LINE_FIELD_DOCS[f.name]} |" in README
