"""A Ray cluster on this machine for tests and benchmarks: a head and more nodes on 127.0.0.1,
one CPU each, started with `ray start` as a user would, and stopped alone.

`ray stop --force` stops every Ray process of the machine, so a test or a benchmark that used it
stopped whatever else ran Ray beside it (another test's cluster, a user's). Here the nodes'
processes are found by what their command lines name: the temporary folder the head was started
with, or the head's port (the raylets, agents and the client server name the head's address),
and are stopped with everything they started.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

RAY = Path(sys.executable).with_name("ray")


@contextmanager
def local_cluster(
    nodes: int, temp: Path, *, object_store_bytes: int = 100_000_000
) -> Iterator[str]:
    """Start `nodes` Ray nodes (the first the head) whose files live in `temp`; yields the
    head's address. On exit, only these nodes' processes are stopped."""
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    common = [
        "--node-ip-address=127.0.0.1",
        "--num-cpus=1",
        f"--object-store-memory={object_store_bytes}",
        "--disable-usage-stats",
    ]
    port = _free_port()
    temp.mkdir(parents=True, exist_ok=True)
    try:
        _ray(
            "start", "--head", f"--port={port}", "--include-dashboard=false",
            f"--ray-client-server-port={_free_port()}", f"--temp-dir={temp}", *common, env=env,
        )  # fmt: skip
        for _ in range(nodes - 1):
            _ray("start", f"--address=127.0.0.1:{port}", *common, env=env)
        yield f"127.0.0.1:{port}"
    finally:
        stop_cluster(temp, port)


def stop_cluster(temp: Path, port: int, grace: float = 10.0) -> None:
    """Stop the processes of the Ray cluster whose head was started with `temp` on `port`, and
    what they started: asked to end first (SIGTERM), killed after `grace` seconds."""
    folder = str(temp.resolve())
    head = re.compile(rf":{port}(?!\d)")
    roots = [
        pid
        for pid, line in _command_lines()
        if folder in line or ("ray" in line and head.search(line))
    ]
    doomed = {pid for root in roots for pid in process_tree(root)}
    for pid in doomed:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(_alive(pid) for pid in doomed):
        time.sleep(0.2)
    for pid in doomed:
        _signal(pid, signal.SIGKILL)


def _ray(*args: str, env: dict[str, str]) -> None:
    done = subprocess.run([str(RAY), *args], capture_output=True, text=True, env=env, timeout=180)
    if done.returncode != 0:
        raise RuntimeError(f"ray {args[0]} failed: {done.stderr[-2000:]}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _command_lines() -> Iterator[tuple[int, str]]:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            raw = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        yield int(entry.name), raw.replace(b"\0", b" ").decode(errors="replace")


def process_tree(root: int) -> list[int]:
    """The process and its descendants."""
    found, queue = [root], [root]
    while queue:
        pid = queue.pop()
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            found.append(child)
            queue.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _signal(pid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)
