"""How a domino-rllib run ends (a failed iteration, a signal after the last one), without Ray: the
algorithm is a stand-in (``_start`` replaced), so these tests run in a second and start nothing."""

import json
from pathlib import Path

import pytest

from domino_env.core.errors import DominoError
from domino_env.train import rllib

#: RLlib 2.60's learner on a batch without a step of the trained module (its update loop never ran)
NO_LOSS = "cannot access local variable 'loss_per_module' where it is not associated with a value"


class FakeAlgo:
    """The part of RLlib's ``Algorithm`` that ``_run`` uses after ``_start``."""

    def __init__(self, fail_at=None):
        self.iteration, self.fail_at, self.stopped = 0, fail_at, False

    def train(self):
        self.iteration += 1
        if self.iteration == self.fail_at:
            raise UnboundLocalError(NO_LOSS)
        return {"training_iteration": self.iteration, "num_env_steps_sampled_lifetime": 8 * self.iteration,
                "env_runners": {}, "time_total_s": 0.1 * self.iteration}  # fmt: skip

    def save_to_path(self, path):
        Path(path).mkdir(parents=True)
        (Path(path) / "algorithm_state.pkl").write_bytes(b"state")

    def stop(self):
        self.stopped = True


@pytest.fixture
def fake_start(monkeypatch):
    """Replace ``rllib._start`` with one that makes the run folder and returns ``FakeAlgo(**kwargs)``."""

    def install(**kwargs):
        algo = FakeAlgo(**kwargs)

        def start(args, argv, env_config, out, on_sigterm):
            out.mkdir(parents=True, exist_ok=True)
            return algo, {"args": vars(args)}, [], 0

        monkeypatch.setattr(rllib, "_start", start)
        return algo

    return install


def _argv(out, *extra):
    return ["--game", "block", "--players", "2", "--batch-size", "8", "--minibatch-size", "8",
            "--eval-rounds", "0", "--no-progress", "--out", str(out), *extra]  # fmt: skip


def test_a_batch_without_a_step_of_main_is_one_line_naming_batch_size(fake_start, tmp_path, capsys):
    """Draws in the other seats' turns can keep main's seat out of a batch of the size the flag
    check allows (one action per turn): RLlib's UnboundLocalError was a traceback (exit 1). Now a
    DominoError (one line, exit 2) says what happened and which flag to raise; the iterations
    before it are saved as for any failed iteration."""
    algo = fake_start(fail_at=2)
    out = tmp_path / "run"
    with pytest.raises(DominoError) as exc:
        rllib._run(_argv(out, "--iterations", "3"))
    said = ("iteration 2: the iteration's batch held no finished step of the learner main (its seat's turns were "
            "longer than the batch: draws, or an episode that ended before its seat acted); give a larger "
            "--batch-size (it was 8)")  # fmt: skip
    assert str(exc.value) == said and algo.stopped
    meta = json.loads((out / "domino_rllib.json").read_text())
    assert (meta["iterations_done"], meta["failed"]) == (1, f"DominoError: {said}")
    assert f"training failed (DominoError: {said}): saving a checkpoint" in capsys.readouterr().err
