"""The server under load (`make bench`, section "server"): searches and streamed asks from
concurrent clients over loopback while an ingest job runs, with the local model answering.

Measured: search latency, the time to an ask's first server-sent event (the server is
responsive even while the one local model is busy) and to its answer, and errors."""

from __future__ import annotations

import json
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

QUESTIONS = (
    "What is the hotel cap per night in London?",
    "What was the Q3 revenue of the Nordics region?",
    "When is the public launch of Aurora?",
    "How many people work in engineering?",
)


def bench_server(clients: int, searches: int, files: list[Path], sample: Path) -> dict[str, Any]:
    import uvicorn

    from polyrag.api import create_app
    from polyrag.settings import load_settings

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(load_settings(Path(tmp) / "home", agent={"memory": False}))
        engine = app.state.workspaces.engine("default")
        engine.ingest([sample])
        engine.ask("warm-up: what is in these documents?", mode="fast")  # loads the model once
        port = _free_port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}/api/v1/workspaces/default"
        try:
            job = _upload(base, files)
            result = _load(base, clients, searches)
            result["ingest_files"] = len(files)
            result["ingest_status"] = _call(f"{base}/jobs/{job['job_id']}")["status"]
        finally:
            server.should_exit = True
            thread.join(timeout=60)
    return result


def _load(base: str, clients: int, searches: int) -> dict[str, Any]:
    search_ms: list[float] = []
    first_ms: list[float] = []
    answer_ms: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def searcher(worker: int) -> None:
        for n in range(searches):
            started = time.perf_counter()
            try:
                _call(f"{base}/search", {"query": QUESTIONS[(worker + n) % len(QUESTIONS)]})
            except OSError as error:
                with lock:
                    errors.append(str(error))
                continue
            with lock:
                search_ms.append((time.perf_counter() - started) * 1000)

    def asker(worker: int) -> None:
        body = {"question": QUESTIONS[worker % len(QUESTIONS)], "mode": "fast"}
        request = urllib.request.Request(
            f"{base}/ask/stream",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        started = time.perf_counter()
        first = None
        try:
            with urllib.request.urlopen(request, timeout=900) as response:
                for line in response:
                    if first is None and line.startswith(b"event:"):
                        first = (time.perf_counter() - started) * 1000
                    if line.startswith(b"event: answer") or line.startswith(b"event: error"):
                        break
        except OSError as error:
            with lock:
                errors.append(str(error))
            return
        with lock:
            if first is not None:
                first_ms.append(first)
            answer_ms.append((time.perf_counter() - started) * 1000)

    workers = [
        threading.Thread(target=searcher if n % 2 else asker, args=(n,)) for n in range(clients)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return {
        "clients": clients,
        "searches": len(search_ms),
        "asks": len(answer_ms),
        "errors": len(errors),
        "search_p50_ms": _percentile(search_ms, 50),
        "search_p95_ms": _percentile(search_ms, 95),
        "first_event_p50_ms": _percentile(first_ms, 50),
        "first_event_p95_ms": _percentile(first_ms, 95),
        "answer_p50_ms": _percentile(answer_ms, 50),
        "answer_max_ms": max(answer_ms, default=None),
    }


def _upload(base: str, files: list[Path]) -> dict[str, Any]:
    boundary = "polyrag-bench"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
        f'filename="{path.name}"\r\n\r\n'.encode()
        + path.read_bytes()
        + b"\r\n"
        for path in files
    ]
    request = urllib.request.Request(
        f"{base}/sources",
        data=b"".join(parts) + f"--{boundary}--\r\n".encode(),
        headers={"content-type": f"multipart/form-data; boundary={boundary}"},
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        job: dict[str, Any] = json.load(response)
    return job


def _call(url: str, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.load(response)


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
