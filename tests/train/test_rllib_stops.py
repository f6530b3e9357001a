"""domino-rllib and signals: a SIGTERM before training starts, a second signal while the
checkpoint is written (real processes; the Ray runs are the smallest the command allows)."""

import subprocess
import sys

SMALL = ["--batch-size", "128", "--minibatch-size", "64", "--epochs", "1", "--hidden", "16",
         "--num-env-runners", "0", "--num-cpus", "2", "--seed", "3", "--no-progress", "--eval-rounds", "0"]  # fmt: skip


def test_a_sigterm_while_the_flags_are_checked_is_one_line(tmp_path):
    """domino-rllib took SIGTERM over only after its flag checks (about 1.5 s in: the opponents
    loaded, ray found): a SIGTERM before that killed it silently (-15). Here the signal arrives
    while validate runs, in a real process."""
    code = ("import os, signal\n"
            "from domino_env.train import rllib\n"
            "real = rllib.validate\n"
            "def validate(*a, **k):\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return real(*a, **k)\n"
            "rllib.validate = validate\n"
            "from domino_env.train.cli import launch\n"
            "launch('domino-rllib', rllib.main)\n")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code, "--game", "draw", "--iterations", "1", *SMALL],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert (proc.returncode, proc.stderr) == (143, "domino-rllib: interrupted\n")
    assert not (tmp_path / "runs").exists()
