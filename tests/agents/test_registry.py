"""register_agent / make_agent refuse what could never be built or played, with a typed error
(a user trial: 'my:agent' was listed as allowed yet could not be built, a non-string name broke
every later error message, a factory returning None made make_agent return None, 'ppo' alone
was a plain DominoError)."""

from __future__ import annotations

import pytest

from domino_env.agents import make_agent, register_agent
from domino_env.agents.base import _REGISTRIES
from domino_env.core.errors import AgentSpecError, ConfigError


@pytest.fixture
def registry_snapshot():
    saved = {game: dict(names) for game, names in _REGISTRIES.items()}
    yield
    for game, names in saved.items():
        _REGISTRIES[game].clear()
        _REGISTRIES[game].update(names)


@pytest.mark.parametrize("name", ["my:agent", 5, "", "two words", None, "a,b"])
def test_a_name_make_agent_cannot_read_is_refused(name, registry_snapshot):
    """``a,b`` (a user trial): make_agent builds it, but ``search:prior=a,b`` cannot name it,
    though docs/agents.md says any registered agent can be search's prior."""
    with pytest.raises(ConfigError, match=r"'name': got .*; allowed: a non-empty string without ':', ',' or spaces"):
        register_agent(name, lambda config, arg: None)
    assert name not in _REGISTRIES["mexican_train"]
    with pytest.raises(AgentSpecError, match="invalid agent 'nosuch'; allowed: one of"):  # the list still sorts
        make_agent("nosuch")


def test_a_typo_gets_the_close_name_and_another_familys_agent_says_where_it_is(registry_snapshot):
    """A new user's trial: 'planer' listed every name without pointing at 'planner'; an agent
    registered for Mexican Train and asked for in Cuban was "invalid" though registered."""
    from domino_env.core.config import line_from_preset

    for typo in ("planer", "Planner", "gredy"):
        with pytest.raises(AgentSpecError, match=r"register_agent \(did you mean '(planner|greedy)'\?\)$"):
            make_agent(typo)
    with pytest.raises(AgentSpecError) as err:
        make_agent("champion")
    assert "did you mean" not in str(err.value)
    # two letters short of the name (similarity 0.8) still gets the hint; 0.73 ('pner') does not
    for typo, meant in (("grdy", "greedy"), ("srch", "search")):
        with pytest.raises(AgentSpecError, match=rf"register_agent \(did you mean '{meant}'\?\)$"):
            make_agent(typo)
    with pytest.raises(AgentSpecError, match=r"domino_env.agents.register_agent$"):
        make_agent("pner")
    register_agent("mine", lambda config, arg: (lambda observation, action_mask, rng: 0))
    with pytest.raises(AgentSpecError, match="'mine' is registered for mexican_train only "
                                             r"\(register_agent\(..., game='line'\) adds it there\)"):
        make_agent("mine", line_from_preset("cuban"))


def test_a_factory_must_be_callable_and_return_an_agent(registry_snapshot):
    with pytest.raises(ConfigError, match="'factory': got 'str'; allowed: a callable factory"):
        register_agent("mine", "not a factory")
    register_agent("nothing", lambda config, arg: None)
    with pytest.raises(AgentSpecError, match="'nothing'; allowed: a factory that returns an agent .*returned NoneType"):
        make_agent("nothing")


@pytest.mark.parametrize("game", ["mexican_train", "line"])
def test_a_built_in_name_is_not_replaced_silently(game, registry_snapshot):
    """register_agent("greedy", ...) replaced the built-in greedy player: tournaments then reported
    another agent's play as greedy's (a user trial: 0.2075 where greedy wins 0.284)."""
    from domino_env.core.config import LineConfig, MexicanTrainConfig

    config = LineConfig() if game == "line" else MexicanTrainConfig()
    builtin = type(make_agent("greedy", config))
    with pytest.raises(ConfigError, match=rf"'name': got 'greedy'; allowed: a name other than the built-in agents' "
                                          rf"\('greedy' is one for {game} rules, and results are counted by name\), or replace=True"):  # fmt: skip
        register_agent("greedy", lambda config, arg: None, game=game)
    assert type(make_agent("greedy", config)) is builtin
    first = make_agent("random", config)
    register_agent("greedy", lambda config, arg: first, game=game, replace=True)  # the caller says so: silent
    assert make_agent("greedy", config) is first


def test_reloading_a_module_of_the_package_registers_its_agents_anew():
    """IPython's autoreload (importlib.reload) runs a module's register_agent calls again, with new
    factories: refused once built-in names were protected. In a fresh interpreter (a reload
    leaves the module's classes apart from those the rest of the package imported)."""
    import subprocess
    import sys

    code = ("import importlib, warnings\n"
            "warnings.simplefilter('error')\n"
            "from domino_env.agents import make_agent\n"
            "import domino_env.agents.mexican_train as m, domino_env.agents.search as s\n"
            "importlib.reload(m); importlib.reload(s)\n"
            "print(type(make_agent('greedy')) is m.GreedyAgent, type(make_agent('search:5')) is s.SearchAgent)\n")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout == "True True\n", proc.stderr[-2000:]


def test_reloading_the_line_agents_module_registers_its_agents_anew():
    """The same for the line-game ladder (random, greedy and planner are registered by
    ``agents/line.py``, the planner's factory coming from ``agents/line_planner.py``)."""
    import subprocess
    import sys

    code = ("import importlib, warnings\n"
            "warnings.simplefilter('error')\n"
            "from domino_env.agents import make_agent\n"
            "import domino_env.agents.line as m, domino_env.agents.line_planner as p\n"
            "importlib.reload(p); importlib.reload(m)\n"
            "print([type(make_agent(n, {'preset': 'block'})) is getattr(m, c) for n, c in (('random', "
            "'LineRandomAgent'), ('greedy', 'LineGreedyAgent'), ('planner', 'LinePlannerAgent'))])\n")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout == "[True, True, True]\n", proc.stderr[-2000:]


def test_replacing_ones_own_name_warns_unless_said(registry_snapshot):
    one, two, three = (lambda config, arg: make_agent("random")), (lambda config, arg: None), (lambda config, arg: None)
    register_agent("mine", one)
    register_agent("mine", one)  # the same factory again (a module imported twice): nothing to say
    with pytest.warns(UserWarning, match=r"register_agent: 'mine' \(mexican_train\) now builds another agent") as caught:
        register_agent("mine", two)
    assert [w.filename for w in caught] == [__file__]  # the warning points at the caller's line
    assert _REGISTRIES["mexican_train"]["mine"] is two
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        register_agent("mine", three, replace=True)
    assert _REGISTRIES["mexican_train"]["mine"] is three


def test_an_unknown_game_family_is_refused(registry_snapshot):
    with pytest.raises(ConfigError, match=r"'game': got 'chess'; allowed: one of \('mexican_train', 'line'\)$"):
        register_agent("mine", lambda config, arg: None, game="chess")
    assert all("mine" not in names for names in _REGISTRIES.values())


def test_only_an_agent_named_as_its_registry_name_is_relabelled_by_its_argument(registry_snapshot):
    """make_agent("mine:3") names an agent called "mine" "mine:3" (its own row in a tournament);
    an agent that names itself otherwise, or not at all, is left as its factory built it."""

    class Named:
        def __init__(self, name):
            self.name = name

        def __call__(self, observation, action_mask, rng):
            return 0

    def plain(observation, action_mask, rng):
        return 0

    register_agent("mine", lambda config, arg: Named("mine"))
    register_agent("other", lambda config, arg: Named("my-model-v2"))
    register_agent("plain", lambda config, arg: plain)
    assert make_agent("mine:3").name == "mine:3" and make_agent("mine").name == "mine"
    assert make_agent("other:3").name == "my-model-v2"
    assert make_agent("plain:3") is plain and not hasattr(plain, "name")


@pytest.mark.parametrize("spec", ["ppo", "rllib"])
def test_a_model_agent_without_its_path_is_an_agent_spec_error(spec):
    with pytest.raises(AgentSpecError, match=rf"invalid agent '{spec}'; allowed: {spec}:PATH \(the {spec} agent needs a"):
        make_agent(spec)


def test_the_documented_script_for_ones_own_agent_runs_with_workers(tmp_path):
    """docs/agents.md "Your own agent": its agent class in a module of the user's and its
    my_eval.py script, run as a real process with --workers 2 and --json (the recipe docs/play.md
    used to give had no __main__ guard: with workers, each worker re-ran the script and died)."""
    import json
    import re
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    blocks = re.findall(r"```python\n(.*?)^```", (root / "docs/agents.md").read_text(), flags=re.S | re.M)
    agent = next(b for b in blocks if "class OwnTrainFirst" in b)
    script = next(b for b in blocks if b.startswith("# my_eval.py"))
    (tmp_path / "my_agents.py").write_text(agent.split('register_agent("own-first"')[0])
    (tmp_path / "my_eval.py").write_text(script)
    args = ["--agents", "own-first", "planner", "planner", "planner", "--rounds", "16", "--workers", "2",
            "--json", "out.json", "--no-progress"]  # fmt: skip
    proc = subprocess.run([sys.executable, "my_eval.py", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((tmp_path / "out.json").read_text())
    assert [s["name"] for s in data["stats"]] == ["own-first", "planner"] and data["episodes"] == 16
    assert data["workers"] == 2 and data["command"] == " ".join(["python", "my_eval.py", *args])
