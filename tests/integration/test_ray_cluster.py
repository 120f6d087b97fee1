"""Ingestion on a real two-node Ray cluster on 127.0.0.1 (a head and a worker node, one CPU
each): the same index as a local ingest, and a worker killed mid-run does not stop the job."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from polyrag.index.embed.onnx import OnnxMiniLM
from polyrag.index.store.lancedb import LanceStore
from polyrag.ingest.manifest import SqliteManifest
from polyrag.testing.ray import local_cluster

from ..conftest import CORPUS
from ..servers import started, stop_children
from .test_crash_safety import long_note

FILES = [
    "pdf_tables/pdfplumber__la-precinct-bulletin-2014-p1.pdf",
    "xlsx/unstructured__stanley-cups.xlsx",
    "pptx/unstructured__fake-power-point-many-pages.pptx",
    "docx/unstructured__handbook-1p.docx",
    "email/unstructured__fake-email-attachment.eml",  # its attachment is a source of its own
    "html/unstructured__fake-html-cp1252.html",
]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`ray start --head` and a second `ray start` joining it: two raylets, one CPU each."""
    with local_cluster(2, tmp_path_factory.mktemp("ray"), object_store_bytes=80_000_000) as head:
        yield head


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    for name in FILES:
        (root / Path(name).name).write_bytes((CORPUS / name).read_bytes())
    for i in range(3):  # enough to embed that a worker can be killed in the middle
        (root / f"log-{i}.md").write_text(long_note(f"Log {i}", 120, i), encoding="utf-8")
    return root


def ingest(folder: Path, home: Path, cluster: str | None) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "polyrag.cli.app", "ingest", str(folder), "--json"]
    command += ["--home", str(home), *(["--cluster", cluster] if cluster else [])]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return started(child)  # killed at teardown if the test stops first


@pytest.fixture(autouse=True)
def _no_orphans() -> Iterator[None]:
    yield
    stop_children()


def index_of(home: Path) -> dict[str, tuple[list[object], dict[str, np.ndarray]]]:
    """Every source's chunks and their vectors."""
    store = LanceStore(home / "index", OnnxMiniLM.dim, model=OnnxMiniLM.model_id)
    try:
        out = {}
        for sid in sorted(store.source_ids()):
            chunks = store.chunks_of(sid)
            out[sid] = (chunks, store.vectors_for([c.embedded_sha256 for c in chunks]))
        return out
    finally:
        store.close()


def assert_same_index(home: Path, reference: Path) -> None:
    got, want = index_of(home), index_of(reference)
    assert got.keys() == want.keys()
    for sid, (chunks, vectors) in want.items():
        assert got[sid][0] == chunks, sid  # the same chunks, ids, texts and locators
        for key, vector in vectors.items():
            np.testing.assert_allclose(got[sid][1][key], vector, atol=1e-5)
    rows = SqliteManifest(home / "manifest.sqlite").all()
    reference_rows = SqliteManifest(reference / "manifest.sqlite").all()
    assert [(r.path, r.source_id, r.status, r.chunks) for r in rows] == [
        (r.path, r.source_id, r.status, r.chunks) for r in reference_rows
    ]


@pytest.fixture(scope="module")
def local(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("local") / "home"
    run = ingest(folder, home, None)
    assert run.wait(timeout=600) == 0, run.communicate()[1][-2000:]
    return home


def worker_pids() -> list[int]:
    """The processes of the cluster's polyrag actors (Ray names them ray::ClusterWorker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"ray::ClusterWorker" in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_a_two_node_ingest_makes_the_same_index_as_a_local_one(
    cluster: str, folder: Path, local: Path, tmp_path: Path
) -> None:
    run = ingest(folder, tmp_path / "home", cluster)
    out, err = run.communicate(timeout=600)
    assert run.returncode == 0, err[-2000:]
    assert "ingested" in out
    assert_same_index(tmp_path / "home", local)


def test_a_worker_killed_mid_run_does_not_stop_the_job(
    cluster: str, folder: Path, local: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    run = ingest(folder, home, cluster)
    deadline = time.monotonic() + 120
    while len(worker_pids()) < 2:  # both nodes' actors are up and parsing
        assert run.poll() is None and time.monotonic() < deadline, run.communicate()[1][-2000:]
        time.sleep(0.1)
    time.sleep(1.0)
    victim = worker_pids()[0]
    assert run.poll() is None, "the ingest ended before a worker could be killed"
    os.kill(victim, signal.SIGKILL)
    _out, err = run.communicate(timeout=600)
    # The job went on: its source ran again on another worker, or failed with one line.
    assert run.returncode in (0, 1), err[-2000:]
    assert "Traceback" not in err
    print(f"exit {run.returncode} after a worker was killed: {err.strip()[-300:]}")
    if run.returncode:
        again = ingest(folder, home, cluster)  # the rerun converges
        assert again.wait(timeout=600) == 0, again.communicate()[1][-2000:]
    assert_same_index(home, local)
