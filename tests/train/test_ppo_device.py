"""``domino-train --device``: the learner's torch device reaches SB3 (a fresh model and a resumed
one), the metadata records the device asked for and the one used, and ``--device cuda`` where
torch sees no GPU is refused before any work, in one line."""

import json
import os
import re

from ppo_helpers import SMALL
from ppo_helpers import run_ppo as _run

TINY = [*SMALL, "--timesteps", "64", "--n-envs", "1", "--vec-env", "dummy", "--quiet"]


def test_device_cuda_without_a_gpu_is_one_line_and_nothing_is_written(tmp_path):
    out = tmp_path / "run"
    res = _run([*TINY, "--device", "cuda", "--out", str(out)], env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert res.returncode == 2 and res.stdout == "" and not out.exists()
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr
    # a CPU-only torch (CI) says so; a CUDA torch with the GPUs hidden says it sees none
    assert re.fullmatch(r"domino-train: error: --device cuda: (this torch \(\S+\) has no CUDA|torch sees no CUDA "
                        r"GPU); give --device cpu \(or auto: cuda where there is one\) \(domino-train --help "
                        r"lists every option\)", lines[0]), lines[0]  # fmt: skip


def test_device_auto_without_a_gpu_trains_on_the_cpu_and_records_both(tmp_path):
    out = tmp_path / "run"
    res = _run([*TINY, "--device", "auto", "--out", str(out)], env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert res.returncode == 0, res.stderr
    meta = json.loads((out / "metadata.json").read_text())
    assert (meta["args"]["device"], meta["device"]) == ("auto", "cpu")
    assert "--device auto" in meta["command"]


def test_the_device_reaches_sb3_for_a_fresh_and_a_resumed_model(tmp_path, monkeypatch):
    """SB3 gets ``--device`` (a CUDA machine is faked: the models are made on the CPU, as the
    test machines have no GPU, but with the device the command asked for recorded)."""
    from sb3_contrib import MaskablePPO

    from domino_env.train import cli, ppo

    asked = []
    init, load = MaskablePPO.__init__, MaskablePPO.load.__func__

    def fake_init(self, *args, device="auto", **kwargs):
        asked.append(("new", device))
        init(self, *args, device="cpu", **kwargs)

    def fake_load(cls, *args, device="auto", **kwargs):
        asked.append(("load", device))
        return load(cls, *args, device="cpu", **kwargs)

    monkeypatch.setattr(cli, "no_cuda", lambda: None)
    monkeypatch.setattr(MaskablePPO, "__init__", fake_init)
    monkeypatch.setattr(MaskablePPO, "load", classmethod(fake_load))
    first, more = tmp_path / "first", tmp_path / "more"
    assert ppo.run([*TINY, "--device", "cuda", "--out", str(first)]) == (first, None)
    assert asked == [("new", "cuda")]
    asked.clear()
    assert ppo.run([*TINY, "--device", "cuda", "--resume", str(first), "--out", str(more)]) == (more, None)
    assert ("load", "cuda") in asked and ("new", "cuda") not in asked
    assert json.loads((more / "metadata.json").read_text())["args"]["device"] == "cuda"
    asked.clear()
    assert ppo.run([*TINY, "--out", str(tmp_path / "default")])[1] is None
    assert asked == [("new", "cpu")]  # the default: these small nets train fastest on the CPU

