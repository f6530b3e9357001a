"""``domino-bc`` and its run folder: a new ``--out`` is made and held before the collection (a
second command into it is refused at once), an ``--out`` that holds only the ``--dataset`` of an
interrupted collection is continued by the same command, a dataset whose arrays disagree is one
line before any cloning, ``stopped_early`` after a signal, and what an interrupted DAgger round
says of its saved decisions.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from bc_helpers import ROOT, SMALL, SMALL_ENV
from bc_helpers import run_module as _run
from process_helpers import group_cpu_seconds

from domino_env.train.learner_env import LearnerEnv

TINY = ["--epochs", "1", "--final-eval-rounds", "0"]


def test_a_second_run_into_the_same_new_out_is_refused_before_any_work(tmp_path):
    """Two commands given one new --out both collected and cloned; the later one overwrote the
    other's model.zip and metadata.json (or was refused only after its whole collection). The
    folder is now made and held at the start: the second is refused in one line, and the first
    run's folder stays."""
    out = tmp_path / "new" / "run"
    first = subprocess.Popen([sys.executable, "-m", "domino_env.train.bc", *SMALL, "--samples", "1000000", *TINY,
                              "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while group_cpu_seconds(first.pid, but=-1) < 8:  # started and collecting (its set-up takes about 4 s)
            assert first.poll() is None and time.monotonic() < deadline, first.poll()
            time.sleep(0.2)
        started = time.monotonic()
        second = _run("domino_env.train.bc", [*SMALL, "--samples", "200", *TINY, "--out", str(out)])
        assert (second.returncode, second.stderr) == (2, (
            f"domino-bc: error: {out} is in use by another training command (it holds the folder's lock): two "
            "runs writing one folder would mix their checkpoints and records; wait for it to end, or give another "
            "--out\n"))  # fmt: skip
        assert time.monotonic() - started < 60  # before any collection
        assert out.is_dir() and not list(out.iterdir()) and first.poll() is None  # the first run's, untouched
    finally:
        os.killpg(first.pid, signal.SIGINT)
        _, err = first.communicate(timeout=120)
    assert "interrupted while collecting; no model written" in err and "Traceback" not in err, err
    assert not (tmp_path / "new").exists()  # made by the first run for nothing: removed again


def test_a_refused_start_leaves_the_folder_another_command_made(tmp_path):
    """The other command holds the folder: the refusal removes nothing, not even a folder it
    would have made itself a moment before."""
    from domino_env.train.folder_lock import RunFolderBusyError
    from domino_env.train.run_folder import make_run_folder

    out = tmp_path / "a" / "run"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom domino_env.train.run_folder import "
                               f"make_run_folder\nmake_run_folder({str(out)!r})\nprint('held', flush=True)\n"
                               "time.sleep(60)"], stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(RunFolderBusyError, match=f"^{re.escape(str(out))} is in use by another training command"):
            make_run_folder(out)
        assert out.is_dir()
    finally:
        holder.kill()
        holder.wait()
    from domino_env.train.folder_lock import releasing_run_folders

    assert releasing_run_folders(make_run_folder)(tmp_path / "b" / "c") == [tmp_path / "b" / "c", tmp_path / "b"]


def test_the_same_command_continues_an_interrupted_collection_inside_its_out(tmp_path, monkeypatch, capsys):
    """``--dataset RUN/data.npz --out RUN``, stopped while collecting: the line said "the same
    command continues the collection", and the same command was refused (RUN exists and is not
    empty). A folder that holds only the --dataset counts as new: both commands the line names run."""
    import domino_env.train.bc as bc

    real = bc.collect_parallel

    def interrupted(env_cfg, expert, samples, seed, gamma, workers, **kwargs):  # a signal after 300 decisions
        data = real(env_cfg, expert, 300, seed, gamma, workers, **kwargs)
        kwargs["stop"].received = "SIGINT"
        return data

    monkeypatch.setattr(bc, "collect_parallel", interrupted)
    out = tmp_path / "run"

    def command(folder, samples):
        return [*SMALL, "--samples", str(samples), *TINY, "--dataset", str(folder / "data.npz"), "--out", str(folder)]

    assert bc.run(command(out, 600)) == (None, "SIGINT")
    said = re.search(r"the (\d+) samples so far are in (\S+): the same command continues the collection, with "
                     r"--samples (\d+) it clones them\)", capsys.readouterr().err)  # fmt: skip
    kept = int(said[1])
    assert said[2] == str(out / "data.npz") and int(said[3]) == kept and 300 <= kept < 600
    assert sorted(os.listdir(out)) == ["data.npz"]
    monkeypatch.setattr(bc, "collect_parallel", real)
    shutil.copytree(out, tmp_path / "copy")
    res = _run("domino_env.train.bc", command(out, 600))  # the same command, as a real process
    assert res.returncode == 0, res.stderr
    assert (f"--dataset {out / 'data.npz'}: continuing its interrupted collection, {kept} of 600 decisions; "
            f"collecting {600 - kept} more") in res.stderr  # fmt: skip
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["dataset"]["samples"] >= 600 and meta["stopped_early"] is None  # (as domino-train's)
    copy = tmp_path / "copy"  # with --samples KEPT: cloned as it is
    assert bc.run(command(copy, kept)) == (copy, None)
    assert json.loads((copy / "metadata.json").read_text())["dataset"]["samples"] == kept
    # another file beside it is still another run's folder
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(copy / "data.npz", other / "data.npz")
    (other / "notes.txt").write_text("mine")
    res = _run("domino_env.train.bc", command(other, kept))
    assert res.returncode == 2 and f"--out {other}: folder exists and is not empty" in res.stderr, res.stderr


def _dataset(tmp_path):
    """A real dataset of SMALL's env (400 decisions) and its fingerprint."""
    data = tmp_path / "good.npz"
    res = _run("domino_env.train.bc", [*SMALL, "--samples", "400", *TINY, "--dataset", str(data), "--out",
                                       str(tmp_path / "first")])  # fmt: skip
    assert res.returncode == 0, res.stderr
    with np.load(data) as f:
        return {k: f[k] for k in f.files}


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    return _dataset(tmp_path_factory.mktemp("bc_arrays"))


def _broken(arrays):
    a = {k: v.copy() for k, v in arrays.items()}
    n = len(a["actions"])
    returns, masks = a["returns"].copy(), a["masks"].copy()
    returns[3] = np.nan
    masks[5] = 0
    actions = LearnerEnv(**SMALL_ENV).action_space.n
    illegal = a["actions"].copy()
    illegal[0] = int(np.flatnonzero(~np.unpackbits(a["masks"][0], count=actions).astype(bool))[0])
    return {
        "lengths": ({**a, "actions": a["actions"][:-1]},
                    f"its arrays are of different lengths (observations {n}, masks {n}, actions {n - 1}, returns {n}, "
                    f"episodes {n}; one row a decision)"),
        "range": ({**a, "actions": np.where(np.arange(n) == 2, 10_000, a["actions"]).astype(np.int16)},
                  f"1 of its {n} actions is outside 0 .. "),
        "width": ({**a, "observations": a["observations"][:, :-1]},
                  f"its observations are {a['observations'].shape[1] - 1} wide; this env's are "
                  f"{a['observations'].shape[1]} ({a['observations'].shape[1]} entries)"),
        "nan": ({**a, "returns": returns}, f"1 of its {n} returns is not finite (NaN or infinite)"),
        "mask": ({**a, "masks": masks}, f"1 of its {n} masks allows no action"),
        "float": ({**a, "actions": a["actions"].astype(np.float32)}, "its actions are float32, not integers"),
        "illegal": ({**a, "actions": illegal}, f"1 of its {n} actions is not legal in its mask"),
    }  # fmt: skip


@pytest.mark.parametrize("case", ["lengths", "range", "width", "nan", "mask", "float", "illegal"])
def test_a_dataset_whose_arrays_disagree_is_one_line_before_any_cloning(tmp_path, good, case):
    """Arrays of different lengths, an action out of range, another observation width: tracebacks
    in the cloning (IndexError, torch's ValueError, RuntimeError); NaN returns, empty masks and
    float actions were cloned silently. One line naming --dataset, before any work."""
    arrays, says = _broken(good)[case]
    bad = tmp_path / "bad.npz"
    np.savez_compressed(bad, **arrays)
    out = tmp_path / "run"
    res = _run("domino_env.train.bc", [*SMALL, "--samples", "400", *TINY, "--dataset", str(bad), "--out", str(out)])
    lines = res.stderr.splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert lines[0].startswith(f"domino-bc: error: --dataset {bad}: {says}"), lines[0]
    assert lines[0].endswith("; give a .npz file that domino-bc --dataset wrote (domino-bc --help lists every option)")
    assert not out.exists()


def test_an_interrupted_cloning_says_where_it_stopped_in_metadata(tmp_path, monkeypatch):
    """After SIGTERM (SIGHUP, a closed terminal, is turned into it) metadata.json had no
    stopped_early, which the docs say to read after a closed terminal."""
    import domino_env.train.bc as bc

    real_fit = bc.fit

    def interrupted_fit(*args, **kwargs):  # a signal just before the first minibatch
        args[11].received = "SIGTERM"
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(bc, "fit", interrupted_fit)
    out = tmp_path / "run"
    assert bc.run([*SMALL, "--samples", "200", *TINY, "--out", str(out)]) == (out, "SIGTERM")
    meta = json.loads((out / "metadata.json").read_text())
    assert (meta["status"], meta["stopped_early"]) == ("interrupted", "SIGTERM during cloning, after 0 of 1 epochs")


def test_an_interrupted_dagger_round_says_what_it_kept_and_what_cloning_on_redoes(tmp_path, monkeypatch, capsys):
    """The line named only the clone-on command, whose --dataset is the expert file: it plays every
    DAgger round again, and the line did not mention the decisions saved in dagger_samples.npz."""
    import domino_env.train.bc as bc

    real = bc.collect_parallel

    def dagger_stopped(env_cfg, expert, samples, seed, gamma, workers, **kwargs):
        if kwargs.get("policy") is None:  # the expert's collection: whole
            return real(env_cfg, expert, samples, seed, gamma, workers, **kwargs)
        data = real(env_cfg, expert, 100, seed, gamma, workers, **kwargs)
        kwargs["stop"].received = "SIGTERM"
        return data

    monkeypatch.setattr(bc, "collect_parallel", dagger_stopped)
    out, data = tmp_path / "run", tmp_path / "data.npz"
    assert bc.run([*SMALL, "--samples", "300", *TINY, "--dagger-iters", "2", "--dataset", str(data),
                   "--out", str(out)]) == (out, "SIGTERM")  # fmt: skip
    err = capsys.readouterr().err
    with np.load(out / "dagger_samples.npz") as f:
        kept = len(f["actions"])
    assert err.rstrip().endswith(
        f"; this run's {kept} DAgger decisions so far are kept in {out / 'dagger_samples.npz'} (a dataset file), "
        "which neither command reads: cloning on plays its 2 DAgger round(s) again"
    ), err
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["stopped_early"] == f"SIGTERM during DAgger round 1 of 2, after {kept} decisions"
