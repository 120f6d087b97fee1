"""Nothing is lost or half-indexed, whatever kills an ingest.

`polyrag sync` runs in a child process over a folder of real files that change between runs
(edited, swapped for another version, deleted, restored) and is killed with SIGKILL: half the
time after a random delay (mostly while starting, parsing or embedding: those take longest),
half the time by itself at a random one of the steps of a commit (embedding a family, the
manifest's begin, the tables, the index commit, the manifest's finish, optimizing the index)
or of removing a vanished file (marking it, deleting its chunks),
which a timer would rarely hit, since each lasts milliseconds. After every kill the home must
hold, for each file, wholly its old version or wholly its new one, no chunk or table of a
source the manifest does not know, and a working index. Once the kills are done, one more run
must converge on exactly what a clean ingest of the final folder produces.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import polyrag
from polyrag.index.embed.onnx import OnnxMiniLM
from polyrag.index.store.lancedb import LanceStore
from polyrag.index.tables.sqlite import SqliteTableStore
from polyrag.ingest.manifest import INDEXED, Entry, SqliteManifest
from polyrag.types import Filter

from ..conftest import CORPUS
from ..servers import started, stop_children

KILLS = 20
SEED = int(os.environ.get("POLYRAG_KILL_SEED", "20261126"))

# Real files of several kinds (tables in PDFs, a workbook, slides, a Word handbook, web and
# text), and for the binary ones a second file of the same kind to swap in as a "new version".
FILES = {
    "bulletin.pdf": (
        "pdf_tables/pdfplumber__la-precinct-bulletin-2014-p1.pdf",
        "pdf_tables/unstructured__all-number-table.pdf",
    ),
    "cups.xlsx": (
        "xlsx/unstructured__stanley-cups.xlsx",
        "xlsx/docling__xlsx_05_table_with_title.xlsx",
    ),
    "deck.pptx": (
        "pptx/unstructured__fake-power-point-many-pages.pptx",
        "pptx/unstructured__picture.pptx",
    ),
    "handbook.docx": ("docx/unstructured__handbook-1p.docx", "docx/unstructured__fake_table.docx"),
    "page.html": ("html/unstructured__fake-html-cp1252.html", None),
    "table.md": ("text_md/unstructured__simple-table.md", None),
    "commas.csv": ("csv/unstructured__csv-with-escaped-commas.csv", None),
}
EDITABLE = ("page.html", "table.md", "commas.csv", "log-a.md", "log-b.md")


def long_note(title: str, paragraphs: int, seed: int) -> str:
    """Enough paragraphs that embedding them takes a while, so kills land inside it."""
    words = [
        "budget",
        "pump",
        "river",
        "invoice",
        "ferry",
        "harbour",
        "ledger",
        "turbine",
        "audit",
        "forecast",
    ]
    words += [
        "cargo",
        "meeting",
        "tariff",
        "valve",
        "dividend",
        "quarry",
        "schedule",
        "rainfall",
        "copper",
    ]
    rng = random.Random(seed)
    body = [
        " ".join(rng.choice(words) for _ in range(60)).capitalize() + f". Entry {i}."
        for i in range(paragraphs)
    ]
    return f"# {title}\n\n" + "\n\n".join(body) + "\n"


@dataclass
class Folder:
    """The user's folder, changed between runs the way people change theirs."""

    root: Path
    rng: random.Random
    swapped: dict[str, bool] = field(default_factory=dict)
    hidden: dict[str, bytes] = field(default_factory=dict)

    def fill(self) -> None:
        self.root.mkdir()
        for name, (first, _second) in FILES.items():
            shutil.copyfile(CORPUS / first, self.root / name)
        (self.root / "log-a.md").write_text(long_note("Harbour log", 90, 1), encoding="utf-8")
        (self.root / "log-b.md").write_text(long_note("Quarry log", 90, 2), encoding="utf-8")

    def change(self, round_: int) -> None:
        for name in self.rng.sample(EDITABLE, k=self.rng.randint(1, 3)):
            path = self.root / name
            if path.exists():
                with path.open("a", encoding="utf-8") as out:
                    out.write(f"\nRound {round_} added this line to {name}.\n")
        swappable = [name for name, (_a, second) in FILES.items() if second]
        if self.rng.random() < 0.5:
            name = self.rng.choice(swappable)
            self.swapped[name] = not self.swapped.get(name, False)
            first, second = FILES[name]
            if (self.root / name).exists():
                shutil.copyfile(
                    CORPUS / (second if self.swapped[name] else first), self.root / name
                )
        if self.hidden and self.rng.random() < 0.5:  # a deleted file comes back
            name = self.rng.choice(sorted(self.hidden))
            (self.root / name).write_bytes(self.hidden.pop(name))
        elif self.rng.random() < 0.25:  # a file is deleted
            name = self.rng.choice(sorted(p.name for p in self.root.iterdir()))
            self.hidden[name] = (self.root / name).read_bytes()
            (self.root / name).unlink()


# The child: polyrag's CLI, with the commit's steps counted; on the step numbered
# $POLYRAG_KILL_AT it names the step on stderr and sends itself SIGKILL. Nothing else changes.
CHILD = """
import os, signal, sys
from polyrag.cli.app import main
from polyrag.index.embed.onnx import OnnxMiniLM
from polyrag.index.store.lancedb import LanceStore
from polyrag.index.tables.sqlite import SqliteTableStore
from polyrag.ingest.manifest import Manifest

kill_at, seen = int(os.environ.get("POLYRAG_KILL_AT", "0")), [0]

def step(name):
    seen[0] += 1
    if seen[0] == kill_at:
        sys.stderr.write("killed at " + name + "\\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)

def counted(cls, method, before, after):
    real = getattr(cls, method)
    def wrapper(self, *args, **kwargs):
        if before:
            step(before)
        out = real(self, *args, **kwargs)
        if after:
            step(after)
        return out
    setattr(cls, method, wrapper)

counted(OnnxMiniLM, "embed", "embed", None)
counted(Manifest, "begin", None, "manifest begin")
counted(SqliteTableStore, "put", None, "tables put")
counted(LanceStore, "replace", "index commit", "after the index commit")
counted(SqliteTableStore, "delete_sources", None, "tables delete")
counted(Manifest, "finish", None, "manifest finish")
counted(LanceStore, "optimize", "optimize", "after optimize")
counted(Manifest, "removing", None, "marked removing")
counted(LanceStore, "delete_sources", None, "index delete")
sys.argv[0] = "polyrag"
main()
"""


def ingest(folder: Path, home: Path, kill_at: int = 0) -> subprocess.Popen[bytes]:
    """`polyrag sync`, as a user runs it (removed files leave the index too)."""
    child: subprocess.Popen[bytes] = subprocess.Popen(
        [sys.executable, "-c", CHILD, "sync", str(folder), "--home", str(home)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "POLYRAG_KILL_AT": str(kill_at)},
    )
    return started(child)  # killed at teardown if the test stops first


@pytest.fixture(autouse=True)
def _no_orphans() -> Iterator[None]:
    yield
    stop_children()


def finish(run: subprocess.Popen[bytes]) -> None:
    _out, err = run.communicate(timeout=600)
    assert run.returncode == 0, err.decode(errors="replace")[-2000:]


@dataclass
class Home:
    """The home's three parts, opened directly, as the next process would open them."""

    manifest: SqliteManifest
    store: LanceStore
    tables: SqliteTableStore

    @classmethod
    def open(cls, home: Path) -> Home:
        return cls(
            SqliteManifest(home / "manifest.sqlite"),
            LanceStore(home / "index", OnnxMiniLM.dim, model=OnnxMiniLM.model_id),
            SqliteTableStore(home / "tables.sqlite"),
        )

    def close(self) -> None:
        self.manifest.close()
        self.store.close()
        self.tables.close()

    def counts(self) -> dict[str, int]:
        return {sid: sum(kinds.values()) for sid, kinds in self.store.counts_by_modality().items()}


def check_consistent(home: Path, sizes: dict[str, int]) -> str:
    """Every file wholly one version, nothing orphaned, search working; returns what the kill
    interrupted ("clean" or "mid-commit"). `sizes` learns each version's chunk count."""
    parts = Home.open(home)
    try:
        rows: list[Entry] = parts.manifest.all()
        counts = parts.counts()
        known = {sid for row in rows for sid in (row.source_id, *row.previous_ids)}
        assert set(counts) <= known, f"orphaned chunks: {set(counts) - known}"
        assert parts.tables.source_ids() <= known, "orphaned tables"
        interrupted = False
        for row in rows:
            present = [sid for sid in (row.source_id, *row.previous_ids) if counts.get(sid)]
            assert len(present) <= 1, f"{row.path}: two versions in the index: {present}"
            if row.status == INDEXED:
                sizes[row.source_id] = row.chunks
                assert counts.get(row.source_id, 0) == row.chunks, row.path
                continue
            interrupted = True
            if present == [row.source_id]:
                assert counts[row.source_id] == row.chunks, f"{row.path}: half its new version"
            elif present:
                old = present[0]
                if old in sizes:
                    assert counts[old] == sizes[old], f"{row.path}: half its old version"
        for sid, count in counts.items():  # no source is missing a chunk in the middle
            ordinals = sorted(c.ordinal for c in parts.store.chunks_of(sid))
            assert ordinals == list(range(count)), f"{sid}: ordinals {ordinals[:5]}..."
        parts.store.keyword_search("invoice budget", 5)
        vector = np.ones(OnnxMiniLM.dim, dtype=np.float32) / np.sqrt(OnnxMiniLM.dim)
        parts.store.vector_search(vector, 5, Filter(source_ids=tuple(counts) or ("none",)))
        return "mid-commit" if interrupted else "clean"
    finally:
        parts.close()


def test_twenty_kills_lose_nothing_and_a_rerun_converges(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    folder = Folder(tmp_path / "docs", rng)
    folder.fill()
    home = tmp_path / "home"
    started = time.monotonic()
    finish(ingest(folder.root, home))  # a whole run, to know how long one takes
    full_run = time.monotonic() - started
    sizes: dict[str, int] = {}
    check_consistent(home, sizes)

    outcomes: list[str] = []
    while sum(outcome.startswith("killed") for outcome in outcomes) < KILLS:
        folder.change(len(outcomes))
        killed = sum(outcome.startswith("killed") for outcome in outcomes)
        by_timer = killed % 2 == 0  # half the kills each way
        run = ingest(folder.root, home, kill_at=0 if by_timer else rng.randint(1, 12))
        if by_timer:
            time.sleep(rng.uniform(0.1, 1.0) * full_run)
            run.send_signal(signal.SIGKILL)
        _out, err = run.communicate(timeout=600)
        if run.returncode == -signal.SIGKILL:
            step = err.decode(errors="replace").rpartition("killed at ")[2].partition("\n")[0]
            outcomes.append(f"killed {'by timer' if by_timer else 'at ' + step}")
        else:
            assert run.returncode == 0, err.decode(errors="replace")[-2000:]
            outcomes.append("finished")
        outcomes[-1] += " / " + check_consistent(home, sizes)
        assert len(outcomes) < 3 * KILLS, outcomes
    steps = {outcome.split(" / ")[0] for outcome in outcomes}
    assert {"killed at index commit", "killed at after the index commit"} & steps, outcomes
    assert any(outcome.endswith("mid-commit") for outcome in outcomes), outcomes

    finish(ingest(folder.root, home))  # the rerun completes the work
    check_consistent(home, sizes)
    clean = tmp_path / "clean"
    finish(ingest(folder.root, clean))
    converged, reference = Home.open(home), Home.open(clean)
    try:
        rows = converged.manifest.all()
        assert all(row.status == INDEXED and not row.previous_ids for row in rows)
        assert {r.path for r in rows} == {r.path for r in reference.manifest.all()}
        assert converged.counts() == reference.counts()
        assert converged.tables.source_ids() == reference.tables.source_ids()
        for sid in reference.counts():
            assert converged.store.chunks_of(sid) == reference.store.chunks_of(sid)
    finally:
        converged.close()
        reference.close()
    library = polyrag.open(home)
    try:
        hits = library.search("Which entries mention the harbour log?", k=3).hits
        assert hits
    finally:
        library.close()
    print(f"kill outcomes (seed {SEED}): {outcomes}")
