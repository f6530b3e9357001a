"""``--address``: the training command joins a running Ray cluster (issue 10, item 2).

A one-node cluster is started the way docs/rllib.md's recipe starts a head (``ray start --head``,
with ray's default token authentication), ``python -m train.rllib --address HOST:PORT`` trains two
iterations on it with one remote env runner, and the head is stopped again (its process group:
only the processes this test started). The head keeps its files in a temp dir of its own, and
every other Ray start in the suite uses ``ray.init(address="local")``, so none joins this head.
"""

import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))


def _free_port(other: int = 0) -> int:
    """A port nothing listens on, for `ray start` to bind seconds later, drawn from below the
    kernel's ephemeral range (32768-60999 by default) and above Ray's worker ports (10002-19999).
    A port from bind(port 0) comes from the range that every bind(0) and connect() on the machine
    draws from: until the head bound it, a gRPC server of the Ray that a test of the other xdist
    worker starts (or of this head: the client server binds its port last) could be handed the
    same port, and the head would die (`ray start --block` ends when one of its processes does).
    Nothing draws from here by itself."""
    ranges = Path("/proc/sys/net/ipv4/ip_local_port_range")  # (Linux; elsewhere bind(0) it is)
    low = int(ranges.read_text().split()[0]) if ranges.exists() else 0
    draw = random.SystemRandom()  # not the random module's state, which a test may have seeded
    for _ in range(1000):
        port = draw.randrange(20000, low) if low > 21000 else 0  # (an odd range: bind(0) it is)
        with socket.socket() as s:
            try:
                s.bind(("", port))  # every address, as the head binds it
            except OSError:
                continue  # in use: another draw
            port = s.getsockname()[1]
        if port != other:
            return port
    raise AssertionError("no free port below the ephemeral range")


def _ray_default_temp() -> Path:
    """Where ``ray start`` leaves its ``ray_current_cluster`` pointer: Ray's default temp folder
    (RAY_TMPDIR, else TMPDIR on Linux, else the system temp folder, joined with "ray"), in Ray's own words if it has them."""
    try:
        from ray._common.utils import get_default_ray_temp_dir
    except ImportError:  # (a private helper: another Ray may lack it)
        return Path(os.environ.get("RAY_TMPDIR") or tempfile.gettempdir()) / "ray"
    return Path(get_default_ray_temp_dir())


def test_training_joins_a_running_cluster(tmp_path):
    port = _free_port()
    client_port = _free_port(other=port)  # two free ports, not the same one twice
    # A temp dir of its own: `ray.init()` elsewhere on this machine looks for a cluster in
    # its default temp folder (ray_current_cluster) and must not find this one.
    temp = Path(tempfile.gettempdir()) / f"ray_test_{os.getpid()}"  # (short: Ray's socket paths have a limit)
    head = subprocess.Popen(
        [RAY, "start", "--head", "--port", str(port), "--ray-client-server-port", str(client_port),
         "--num-cpus", "2", "--include-dashboard", "false", "--temp-dir", str(temp), "--block"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        address = None
        deadline = time.time() + 120
        for line in head.stdout:  # the head prints the address workers join with
            m = re.search(r"ray start --address='([^']+)'", line)
            if m:
                address = m.group(1)
                break
            assert time.time() < deadline, "ray start --head did not come up"
        assert address is not None and address.endswith(f":{port}")
        # the line can come before the head's port accepts connections (seen once under the full
        # suite's load: "Connection refused"); wait for it as a user would before joining
        host = address.rpartition(":")[0]
        for _ in range(600):
            try:
                socket.create_connection((host, port), timeout=1).close()
                break
            except OSError:
                assert head.poll() is None, "the Ray head exited"
                time.sleep(0.1)
        out = tmp_path / "run"
        proc = subprocess.run(
            [sys.executable, "-m", "train.rllib", "--address", address, "--num-env-runners", "1",
             "--players", "2", "--max-pip", "9", "--iterations", "2", "--batch-size", "256",
             "--minibatch-size", "128", "--epochs", "1", "--hidden", "32", "--eval-rounds", "0",
             "--no-progress", "--out", str(out)],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "Connected to Ray cluster" in proc.stderr
        meta = json.loads((out / "domino_rllib.json").read_text())
        assert meta["iterations_done"] == 2 and meta["args"]["address"] == address
        rows = [json.loads(x) for x in (out / "progress.jsonl").read_text().splitlines()]
        assert all(r["illegal_actions"] == 0 for r in rows) and rows[-1]["episodes"] >= 1
    finally:
        os.killpg(head.pid, signal.SIGTERM)  # `ray start --block` stops its processes on SIGTERM
        try:
            head.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        for folder in (temp, _ray_default_temp()):  # ray start's pointer to this head
            current = folder / "ray_current_cluster"
            if current.is_file() and current.read_text().strip().endswith(f":{port}"):
                current.unlink()
        shutil.rmtree(temp, ignore_errors=True)
