"""Load over loopback: 20 concurrent asks and searches while an ingest job runs. Every request
succeeds, within a bound, and no search ever sees part of a source: a document's passages are
all found or none (each commit holds a whole source). The chat model is scripted; the
figures under load are measured by `make bench`, not asserted here."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from polyrag.api import create_app
from polyrag.settings import load_settings

from ..conftest import MODELS_DIR
from ..servers import running
from .reader import POLICY, Reader

DOCUMENTS = 12
CLIENTS = 20


def document(number: int) -> bytes:
    """Three sections that each name the document's own marker word, so a search for it finds
    every passage of that document and no other's."""
    sections = [
        f"## Part {part}\n\n"
        + " ".join(
            f"Marker zebra{number} part {part} sentence {s} of a long note." for s in range(40)
        )
        for part in range(3)
    ]
    return (f"# Note {number}\n\n" + "\n\n".join(sections) + "\n").encode()


def call(url: str, body: dict[str, Any] | None = None, timeout: float = 120) -> Any:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.load(response)


@pytest.fixture
def server(tmp_path: Path, reader: Reader) -> Iterator[str]:
    app = create_app(load_settings(tmp_path / "home", models_dir=MODELS_DIR))
    policy = tmp_path / "policy.md"
    policy.write_bytes(POLICY)
    app.state.workspaces.engine("default").ingest([policy])
    with running(app) as url:
        yield f"{url}/api/v1/workspaces/default"


def upload(base: str) -> dict[str, Any]:
    boundary = "polyrag-load-test"
    parts = []
    for number in range(DOCUMENTS):
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
            f'filename="note-{number:02}.md"\r\nContent-Type: text/markdown\r\n\r\n'.encode()
            + document(number)
            + b"\r\n"
        )
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    request = urllib.request.Request(
        f"{base}/sources",
        data=body,
        headers={"content-type": f"multipart/form-data; boundary={boundary}"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        job: dict[str, Any] = json.load(response)
    return job


def test_concurrent_asks_and_searches_during_an_ingest(server: str) -> None:
    job = upload(server)
    seen: list[tuple[str, int]] = []  # (document name, passages of it a search found)
    errors: list[str] = []
    latencies: list[float] = []
    lock = threading.Lock()

    finished = threading.Event()

    def watch() -> None:  # the searches go on until the job ends (bounded)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if call(f"{server}/jobs/{job['job_id']}")["status"] in ("done", "failed"):
                break
            time.sleep(0.2)
        finished.set()

    def search(worker: int) -> None:
        for round_number in range(150):
            if finished.is_set() and round_number >= 4:
                break
            number = (worker + round_number) % DOCUMENTS
            started = time.perf_counter()
            try:
                hits = call(f"{server}/search", {"query": f"zebra{number}", "k": 60})["hits"]
            except (urllib.error.URLError, TimeoutError) as error:
                with lock:
                    errors.append(f"search: {error}")
                continue
            found = sum(1 for h in hits if h["path"].endswith(f"note-{number:02}.md"))
            with lock:
                seen.append((f"note-{number:02}.md", found))
                latencies.append(time.perf_counter() - started)
            time.sleep(0.1)  # a person's pace, not a benchmark's: the ingest gets its share

    def ask(worker: int) -> None:
        for _ in range(2):
            try:
                answer = call(
                    f"{server}/ask",
                    {"question": "What is the hotel cap per night in Paris?", "mode": "fast"},
                )
            except (urllib.error.URLError, TimeoutError) as error:
                with lock:
                    errors.append(f"ask: {error}")
                continue
            if "EUR 210" not in answer["answer"]:
                with lock:
                    errors.append(f"ask answered {answer['answer']!r}")

    workers = [threading.Thread(target=search if n % 2 else ask, args=(n,)) for n in range(CLIENTS)]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    assert not any(worker.is_alive() for worker in workers), "requests hung"
    assert errors == []
    deadline = started + 300
    while (state := call(f"{server}/jobs/{job['job_id']}"))["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline, f"the ingest job is still {state['status']}"
        time.sleep(0.2)
    assert state["status"] == "done" and state["ingested"] == DOCUMENTS
    chunks = {s["name"]: s["chunks"] for s in call(f"{server}/sources")["sources"]}
    assert all(chunks[f"note-{n:02}.md"] >= 3 for n in range(DOCUMENTS))
    # All of a document's passages, or none: never a source half committed.
    partial = [(name, found) for name, found in seen if found not in (0, chunks[name])]
    assert partial == []
    # The searches ran while documents were being committed: they saw some before, some after.
    assert any(found == 0 for _, found in seen) and any(found for _, found in seen)
