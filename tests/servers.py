"""A FastAPI app served by uvicorn on a free port of 127.0.0.1 in a thread, for the tests that
speak to it over the network (HTTP clients, the browser, MCP over HTTP)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


def free_port() -> int:
    """A port nothing listens on (free when asked; good enough on a test machine)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running(app: Any, start_timeout_s: float = 30) -> Iterator[str]:
    """The app served until the block ends; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout_s
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


_STARTED: list[Any] = []  # subprocess.Popen objects a test started through `started`


def started(child: Any) -> Any:
    """Note a child process so that `stop_children` ends it, however the test ends."""
    _STARTED.append(child)
    return child


def stop_children() -> None:
    """Kill every noted child still running (a test interrupted by Ctrl-C or a failure)."""
    while _STARTED:
        child = _STARTED.pop()
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
