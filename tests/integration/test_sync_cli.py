"""The CLI as a user runs it: Ctrl-C in the middle of an ingest, then a run that resumes;
`ingest --watch` picking up a new file. Real processes, signals, embedder and index."""

from __future__ import annotations

import json
import os
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import polyrag
from polyrag.ingest.manifest import INDEXED

WORDS = [
    "river",
    "harbour",
    "meadow",
    "lantern",
    "orchard",
    "granite",
    "falcon",
    "willow",
    "copper",
    "thistle",
    "glacier",
    "compass",
    "saffron",
    "beacon",
    "quarry",
    "ember",
    "tundra",
    "walnut",
    "velvet",
    "cobalt",
]


def write_corpus(folder: Path, files: int, paragraphs: int) -> None:
    """Files of distinct sentences, so that every chunk needs embedding."""
    folder.mkdir(parents=True)
    for n in range(files):
        lines = []
        for p in range(paragraphs):
            words = [WORDS[(n * 7 + p * 3 + i) % len(WORDS)] for i in range(12)]
            lines.append(
                f"Record {n}-{p}: the {' '.join(words)} ledger entry number {n * 100 + p}."
            )
        (folder / f"doc{n:03d}.txt").write_text("\n\n".join(lines) + "\n")


def start(home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "polyrag.cli.app", *args, "--home", str(home), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_heard,
    )


def ctrl_c_heard() -> None:
    """In the child: Ctrl-C (SIGINT) acts, as in a terminal. A suite started in the background
    (`make test &`) has it ignored, and the child would inherit that and never see it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def indexed_rows(home: Path) -> int:
    file = home / "manifest.sqlite"
    if not file.exists():
        return 0
    db = sqlite3.connect(file, timeout=5)
    try:
        row = db.execute("SELECT count(*) FROM sources WHERE status = ?", (INDEXED,)).fetchone()
        return int(row[0])
    except sqlite3.OperationalError:  # the table is not there yet
        return 0
    finally:
        db.close()


def wait_until(condition: object, timeout_s: float, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        if process.poll() is not None:
            raise AssertionError(f"exited early ({process.returncode}): {process.stderr.read()}")  # type: ignore[union-attr]
        time.sleep(0.1)
    process.kill()
    raise AssertionError("timed out")


def test_ctrl_c_leaves_a_consistent_index_and_the_next_run_resumes(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    write_corpus(folder, files=40, paragraphs=12)
    home = tmp_path / "home"
    run = start(home, "ingest", str(folder))
    wait_until(lambda: indexed_rows(home) >= 3, 180, run)
    run.send_signal(signal.SIGINT)
    _out, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    interrupted_at = indexed_rows(home)
    assert 3 <= interrupted_at < 40

    library = polyrag.open(home)
    entries = library.sources()
    indexed = [entry for entry in entries if entry.status == INDEXED]
    assert len(indexed) == interrupted_at
    # Whatever the manifest calls indexed has all its chunks; the store has nothing else
    # (a file marked `indexing` may have committed its chunks just before the signal).
    stored = library.store.source_ids()
    assert {entry.source_id for entry in indexed} <= stored
    assert stored <= {entry.source_id for entry in entries}
    for entry in indexed:
        assert len(library.store.chunks_of(entry.source_id)) == entry.chunks
    library.close()

    second = start(home, "ingest", str(folder))
    out, err = second.communicate(timeout=600)
    assert second.returncode == 0, err
    report = json.loads(out)
    assert len(report["skipped"]) == interrupted_at
    assert len(report["ingested"]) == 40 - interrupted_at and report["failed"] == []

    library = polyrag.open(home)
    entries = library.sources()
    assert len(entries) == 40 and all(entry.status == INDEXED for entry in entries)
    assert library.store.source_ids() == {entry.source_id for entry in entries}
    assert library.store.count() == sum(entry.chunks for entry in entries)
    library.close()


def reader(process: subprocess.Popen[str]) -> queue.Queue[str]:
    """Lines of the process's stdout, as they come (get() with a timeout bounds each wait)."""
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def test_watch_picks_up_a_new_file_until_ctrl_c(tmp_path: Path) -> None:
    folder = tmp_path / "live"
    write_corpus(folder, files=2, paragraphs=1)
    home = tmp_path / "home"
    env = dict(os.environ, POLYRAG_INGEST__WATCH_INTERVAL_S="0.3")
    watcher = subprocess.Popen(
        [sys.executable, "-m", "polyrag.cli.app", "ingest", str(folder), "--watch", "--json",
         "--home", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=ctrl_c_heard,
    )  # fmt: skip
    lines = reader(watcher)
    try:
        first = json.loads(lines.get(timeout=120))
        assert len(first["ingested"]) == 2
        (folder / "new.txt").write_text("The night ferry carries bicycles for free.\n")
        second = json.loads(lines.get(timeout=60))
        assert [Path(item["path"]).name for item in second["ingested"]] == ["new.txt"]
        (folder / "doc000.txt").unlink()
        third = json.loads(lines.get(timeout=60))
        assert [Path(item["path"]).name for item in third["removed"]] == ["doc000.txt"]
    finally:
        watcher.send_signal(signal.SIGINT)
        watcher.wait(timeout=60)
        assert watcher.stderr is not None
        err = watcher.stderr.read()
    assert watcher.returncode == 130, err
    assert "Traceback" not in err


def test_ingest_force_reads_unchanged_files_again(tmp_path: Path) -> None:
    corpus, home = tmp_path / "corpus", tmp_path / "home"
    write_corpus(corpus, files=2, paragraphs=2)

    def ingest(*extra: str) -> dict[str, list[dict[str, object]]]:
        command = [sys.executable, "-m", "polyrag.cli.app", "ingest", str(corpus)]
        done = subprocess.run(
            [*command, *extra, "--home", str(home), "--json"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        report: dict[str, list[dict[str, object]]] = json.loads(done.stdout)
        return report

    assert len(ingest()["ingested"]) == 2
    again = ingest()
    assert again["ingested"] == [] and len(again["skipped"]) == 2
    forced = ingest("--force")
    assert len(forced["ingested"]) == 2 and forced["skipped"] == []
    library = polyrag.open(home)
    try:
        entries = library.sources()
        assert len(entries) == 2 and all(e.status == INDEXED and e.chunks for e in entries)
    finally:
        library.close()
