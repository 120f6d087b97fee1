"""The server as clients meet it: uvicorn on 127.0.0.1, the `openai` client against
/v1/chat/completions, `polyrag serve` started and refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from openai import OpenAI

from polyrag.api import create_app
from polyrag.settings import load_settings

from ..conftest import MODELS_DIR
from ..servers import free_port, running
from .reader import POLICY, Reader


@pytest.fixture
def server(tmp_path: Path, reader: Reader) -> Iterator[str]:
    """The app on a free port of 127.0.0.1, a policy indexed in its default workspace."""
    settings = load_settings(tmp_path, models_dir=MODELS_DIR)
    app = create_app(settings)
    app.state.workspaces.engine("default").ingest([write(tmp_path / "docs" / "policy.md")])
    with running(app) as url:
        yield url


def write(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(POLICY)
    return path


def test_the_openai_client_gets_cited_answers(server: str) -> None:
    client = OpenAI(base_url=f"{server}/v1", api_key="none", max_retries=0)
    assert [m.id for m in client.models.list()] == ["default"]
    reply = client.chat.completions.create(
        model="default",
        messages=[{"role": "user", "content": "What is the hotel cap per night in London?"}],
        temperature=0.2,  # accepted, left to polyrag's settings
    )
    assert "GBP 180" in (reply.choices[0].message.content or "")
    extras = (reply.model_extra or {})["polyrag"]
    assert extras["citations"][0]["path"].endswith("policy.md") and not extras["refused"]
    assert extras["provider"] == "scripted"

    pieces, last = [], None
    for chunk in client.chat.completions.create(
        model="default",
        messages=[
            {"role": "user", "content": "What is the hotel cap per night in London?"},
            {"role": "assistant", "content": "The hotel cap per night in London is GBP 180."},
            {"role": "user", "content": [{"type": "text", "text": "And in Paris?"}]},
        ],
        stream=True,
    ):
        pieces.append(chunk.choices[0].delta.content or "")
        last = chunk
    assert "EUR 210" in "".join(pieces)
    assert last is not None and last.choices[0].finish_reason == "stop"
    cited = (last.model_extra or {})["polyrag"]["citations"]
    assert cited and cited[0]["locator"]["heading_path"] == ["Travel policy"]


def test_completion_errors_name_the_problem(server: str) -> None:
    client = OpenAI(base_url=f"{server}/v1", api_key="none", max_retries=0)
    with pytest.raises(Exception) as missing:
        client.chat.completions.create(
            model="nowhere", messages=[{"role": "user", "content": "Hello?"}]
        )
    assert "no workspace named 'nowhere'" in str(missing.value)
    with pytest.raises(Exception) as last_not_user:
        client.chat.completions.create(
            model="default", messages=[{"role": "assistant", "content": "Hi"}]
        )
    assert "the last message must be the user's question" in str(last_not_user.value)


def test_concurrent_searches_and_health_while_answering(server: str) -> None:
    """A slow request never blocks the others: searches and health checks are answered while
    a streamed answer is still open."""
    request = urllib.request.Request(
        f"{server}/api/v1/workspaces/default/search",
        data=json.dumps({"query": "hotel cap"}).encode(),
        headers={"content-type": "application/json"},
    )
    results: list[int] = []

    def search() -> None:
        with urllib.request.urlopen(request, timeout=30) as response:
            results.append(len(json.load(response)["hits"]))

    threads = [threading.Thread(target=search) for _ in range(8)]
    for thread in threads:
        thread.start()
    with urllib.request.urlopen(f"{server}/health", timeout=30) as response:
        assert json.load(response)["status"] == "ok"
    for thread in threads:
        thread.join(timeout=60)
    assert results == [results[0]] * 8 and results[0] > 0


def test_polyrag_serve_listens_on_loopback_and_refuses_other_addresses(tmp_path: Path) -> None:
    env = {**os.environ, "POLYRAG_HOME": str(tmp_path)}
    refused = subprocess.run(
        [sys.executable, "-m", "polyrag.cli.app", "serve", "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert refused.returncode == 2
    assert refused.stderr.startswith("error: refusing to listen on 0.0.0.0")
    assert "Traceback" not in refused.stderr

    port = free_port()
    started = subprocess.Popen(
        [sys.executable, "-m", "polyrag.cli.app", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as up:
                    assert json.load(up)["status"] == "ok"
                    break
            except OSError:
                assert started.poll() is None, started.communicate()[1]
                assert time.monotonic() < deadline, "polyrag serve did not answer in 60 s"
                time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/openapi.json", timeout=5) as spec:
            assert "/api/v1/workspaces/{workspace}/ask" in json.load(spec)["paths"]
    finally:
        started.terminate()
        started.wait(timeout=30)
