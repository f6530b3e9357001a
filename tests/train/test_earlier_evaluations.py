"""``run_folder.earlier_evaluations`` (what ``domino-train --resume RUN --out RUN`` keeps of the run's
periodic evaluations) on an ``evaluations.json`` that is not a run's: a FIFO waited for a writer
forever (a SIGTERM did not stop it), a link to ``/dev/zero`` would have filled the memory. Each is
now a warning and the evaluations of ``metadata.json``, as a damaged file was."""

from __future__ import annotations

import os

import pytest

from domino_env.train import plots
from domino_env.train.run_folder import earlier_evaluations

META = {"evaluations": [{"timesteps": 1}]}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_an_evaluations_file_that_is_no_regular_file_is_not_read(tmp_path, kind):
    file = tmp_path / "evaluations.json"
    {"fifo": lambda: os.mkfifo(file), "device": lambda: file.symlink_to("/dev/zero"), "folder": file.mkdir}[kind]()
    with pytest.warns(UserWarning, match=r"evaluations.json is unreadable: not a regular file; the 1 earlier "
                                         r"evaluations in metadata.json are used instead"):  # fmt: skip
        assert earlier_evaluations(tmp_path, META) == [{"timesteps": 1}]


def test_an_evaluations_file_past_the_limit_is_not_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(plots, "MAX_RUN_FILE_BYTES", 2**20)  # (64 MiB: slow to write in a test)
    file = tmp_path / "evaluations.json"
    head = '[{"timesteps": 5, "pad": "'
    file.write_text(head + "z" * (2**20 - len(head) - 3) + '"}]')  # 1 MiB exactly: read
    assert [e["timesteps"] for e in earlier_evaluations(tmp_path, META)] == [5]
    file.write_text(head + "z" * (2**20 - len(head) - 2) + '"}]')
    with pytest.warns(UserWarning, match="evaluations.json is unreadable: larger than 1 MiB; the 1 earlier"):
        assert earlier_evaluations(tmp_path, META) == [{"timesteps": 1}]
    file.write_text("[" * 100_000 + "]" * 100_000)  # nested too deeply for the parser: a traceback before
    with pytest.warns(UserWarning, match="evaluations.json is unreadable: maximum recursion depth"):
        assert earlier_evaluations(tmp_path, META) == [{"timesteps": 1}]
