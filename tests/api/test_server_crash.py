"""A server killed (SIGKILL) during uploads loses nothing it acknowledged. After a restart, a
half-received file leaves no trace (its client got no answer, so it knows to send it again), an
acknowledged upload whose job never ran is indexed by a job the server starts itself, a
deletion it was making is finished, and the index holds every file wholly."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from ..conftest import CORPUS
from ..integration.test_crash_safety import Home, check_consistent
from ..servers import free_port

API = "/api/v1/workspaces/default"


def serve(home: Path, port: int) -> subprocess.Popen[str]:
    run = subprocess.Popen(
        [sys.executable, "-m", "polyrag.cli.app", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "POLYRAG_HOME": str(home)},
    )
    deadline = time.monotonic() + 90
    while True:
        try:
            get(port, "/health")
            return run
        except OSError:
            assert run.poll() is None, run.communicate()[1]
            assert time.monotonic() < deadline, "polyrag serve did not answer in 90 s"
            time.sleep(0.2)


def get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as response:
        return json.load(response)


def kill(run: subprocess.Popen[str]) -> None:
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=30)


def multipart(name: str, data: bytes) -> tuple[bytes, bytes, str]:
    """The head and tail around a file's bytes in a multipart body, and its content type."""
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    return head, f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def upload(port: int, name: str, data: bytes) -> dict[str, Any]:
    head, tail, kind = multipart(name, data)
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{API}/sources",
        data=head + data + tail,
        headers={"Content-Type": kind},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 202
        reply: dict[str, Any] = json.load(response)
        return reply


def wait_for(port: int, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while True:
        job: dict[str, Any] = get(port, f"{API}/jobs/{job_id}")
        if job["status"] not in ("queued", "running"):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.3)


def test_a_server_killed_during_uploads_loses_nothing_it_acknowledged(tmp_path: Path) -> None:
    home, port = tmp_path / "home", free_port()
    handbook = (CORPUS / "docx/unstructured__handbook-1p.docx").read_bytes()
    bulletin = (CORPUS / "pdf_tables/pdfplumber__la-precinct-bulletin-2014-p1.pdf").read_bytes()
    note = b"# Ferry\n\nThe ferry to Skye leaves at 7:40 from Mallaig.\n"

    server = serve(home, port)
    try:
        first = upload(port, "handbook.docx", handbook)
        assert wait_for(port, first["job_id"])["status"] == "done"

        # Killed while receiving a file: half its bytes are in, no answer was given.
        head, _tail, kind = multipart("bulletin.pdf", bulletin)
        sending = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        sending.putrequest("POST", f"{API}/sources")
        sending.putheader("Content-Type", kind)
        sending.putheader("Content-Length", str(len(head) + len(bulletin) + 64))
        sending.endheaders()
        sending.send(head + bulletin[: len(bulletin) // 2])
        time.sleep(1.0)  # the server is reading the body
        kill(server)
        sending.close()
        uploads = home / "uploads"
        assert sorted(p.name for p in uploads.iterdir()) == ["handbook.docx"]
        # A kill while a received file is copied into the folder leaves it half written under
        # a temporary name (the copy takes milliseconds, so it is planted here).
        (uploads / ".upload-k1ll3d").write_bytes(bulletin[:1000])

        # Killed right after acknowledging an upload, before its job could index it.
        server = serve(home, port)
        upload(port, "ferry.md", note)
        kill(server)
        assert (uploads / "ferry.md").read_bytes() == note
        check_consistent(home, {})

        server = serve(home, port)
        assert not list(uploads.glob(".upload-*"))
        [job] = get(port, f"{API}/jobs")["jobs"]  # started by the server itself
        resumed = wait_for(port, job["job_id"])
        assert resumed["status"] == "done" and resumed["ingested"] == 1, resumed
        assert [Path(f["path"]).name for f in resumed["files"]] == ["ferry.md"]
        listed = get(port, f"{API}/sources")["sources"]
        assert sorted(source["name"] for source in listed) == ["ferry.md", "handbook.docx"]
        assert all(source["status"] == "indexed" for source in listed)
        found = urllib.request.Request(
            f"http://127.0.0.1:{port}{API}/search",
            data=json.dumps({"query": "When does the ferry leave?", "k": 3}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(found, timeout=60) as response:
            hits = json.load(response)["hits"]
        assert "7:40" in hits[0]["text"]

        # Killed while deleting: the server deletes an upload's stored copy, marks its row
        # `removing`, drops its chunks, then its row. Planted, since each step takes
        # milliseconds: handbook.docx stopped after its copy went, ferry.md after its chunks.
        kill(server)
        (uploads / "handbook.docx").unlink()
        (uploads / "ferry.md").unlink()
        parts = Home.open(home)
        try:
            ferry = parts.manifest.get(str((uploads / "ferry.md").resolve()))
            assert ferry is not None
            parts.manifest.removing(ferry.path)
            parts.store.delete_sources([ferry.source_id])
        finally:
            parts.close()
        check_consistent(home, {})
        server = serve(home, port)  # finishes both removals, indexes nothing again
        assert get(port, f"{API}/sources")["sources"] == []
        assert get(port, f"{API}/jobs")["jobs"] == []
        assert list(uploads.iterdir()) == []
    finally:
        kill(server)
    check_consistent(home, {})
    parts = Home.open(home)
    try:
        assert parts.manifest.all() == [] and parts.counts() == {}
    finally:
        parts.close()
