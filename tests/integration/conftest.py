"""Real servers on 127.0.0.1 for the LLM tests: llama.cpp's OpenAI-compatible server over the
packaged Qwen GGUF, and a tiny HTTP server that answers chat requests with a chosen status."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from polyrag.errors import ModelFileError
from polyrag.llm.local import LocalLlamaModel
from polyrag.models.files import model_path
from polyrag.models.registry import QWEN_CODER_1_5B
from polyrag.settings import LocalLLMSettings

SERVER_START_TIMEOUT_S = 120.0


def free_port() -> int:
    """A port nothing listens on (free when asked; good enough on a test machine)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def model_cache() -> Path:
    return Path(os.environ["POLYRAG_MODELS_DIR"])  # set by tests/conftest.py


@pytest.fixture
def down_url() -> str:
    """The base URL of an endpoint that is down: a free port with nothing listening."""
    return f"http://127.0.0.1:{free_port()}/v1"


@pytest.fixture(scope="session")
def qwen_gguf() -> Path:
    """The packaged Qwen GGUF, joined and sha256-checked (once; later runs reuse the stamp)."""
    try:
        return model_path(QWEN_CODER_1_5B, model_cache())
    except ModelFileError as error:
        pytest.fail(f"the local model is not installed: {error.one_line()}")


@pytest.fixture(scope="session")
def local_model(qwen_gguf: Path) -> Iterator[LocalLlamaModel]:
    model = LocalLlamaModel.packaged(
        model_cache(), LocalLLMSettings.model_validate({"context_window": 2048})
    )
    yield model
    model.close()


# `python -m llama_cpp.server`, with the model loaded as polyrag loads it on a processor with AMX
# (without llama.cpp's AMX kernels, which crashed there).
_LLAMA_SERVER = """
import runpy
from polyrag.llm.local import loading_guard
with loading_guard():
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""


@pytest.fixture(scope="session")
def llama_server(qwen_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama-cpp-python's own server over the Qwen GGUF; yields its base URL (…/v1)."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    command = [
        sys.executable, "-c", _LLAMA_SERVER,
        "--model", str(qwen_gguf),
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", "2048",
        "--n_threads", str(os.cpu_count() or 1),
    ]  # fmt: skip
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_ready(f"{base_url}/models", process, log_path)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_ready(url: str, process: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log_path.read_text(errors="replace")[-2000:]
            pytest.fail(f"llama_cpp.server exited with {process.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    pytest.fail(f"llama_cpp.server was not ready within {SERVER_START_TIMEOUT_S:g} s")


@pytest.fixture
def status_server() -> Iterator[Callable[[int], str]]:
    """Start servers that list one model but answer every chat request with `status`."""
    servers: list[ThreadingHTTPServer] = []

    def start(status: int) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(status))
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _handler_for(status: int) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                model = {"id": "scripted", "object": "model", "created": 0, "owned_by": "tests"}
                self._reply(200, {"object": "list", "data": [model]})
            else:
                self._reply(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.rstrip("/") == "/v1/chat/completions":
                self._reply(status, {"error": {"message": f"scripted status {status}"}})
            else:
                self._reply(404, {"error": {"message": "not found"}})

        def _reply(self, code: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output quiet

    return Handler
