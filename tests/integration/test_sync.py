"""Sync, child sources, URLs and the parse workers' limits, with the real embedder and LanceDB."""

from __future__ import annotations

import io
import threading
import time
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import polyrag
from polyrag.engine import Engine
from polyrag.ingest.manifest import INDEXED


def open_library(tmp_path: Path, **settings: Any) -> Engine:
    return polyrag.open(tmp_path / "home", **settings)


def paths(report_items: list[dict[str, object]]) -> set[str]:
    return {str(item["path"]) for item in report_items}


def assert_consistent(library: Engine) -> None:
    """Every manifest row is indexed and has its chunks; the store holds nothing else."""
    entries = library.sources()
    assert all(entry.status == INDEXED for entry in entries)
    with_chunks = {entry.source_id for entry in entries if entry.chunks}
    assert library.store.source_ids() == with_chunks
    for entry in entries:
        assert len(library.store.chunks_of(entry.source_id)) == entry.chunks


def found_text(library: Engine, query: str) -> str:
    return " ".join(hit.chunk.text for hit in library.search(query, k=5).hits)


def test_sync_adds_edits_deletes_and_moves(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("The harbour gate code is amber falcon.\n")
    (folder / "b.txt").write_text("Beekeeping notes: the hives face south.\n")
    (folder / "sub" / "c.txt").write_text("The glacier lake froze in early November.\n")
    (folder / "sub" / "d.txt").write_text("Lighthouse keepers logged the storm at dawn.\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.txt").write_text("Outside the synced folder: the pottery kiln log.\n")
    library = open_library(tmp_path)
    library.ingest([elsewhere / "x.txt"])
    first = library.sync([folder])
    assert len(first.ingested) == 4 and not first.removed and first.ok

    (folder / "a.txt").write_text("The harbour gate code is silver otter.\n")  # edited
    (folder / "b.txt").unlink()  # deleted
    (folder / "sub" / "c.txt").rename(folder / "c-moved.txt")  # moved within the folder
    (folder / "sub" / "d.txt").rename(tmp_path / "d.txt")  # moved away
    (folder / "e.txt").write_text("A new file about the orchard's plum harvest.\n")  # added
    (elsewhere / "x.txt").unlink()  # gone, but not under the synced folder: stays
    chunks_before = library.store.count()
    second = library.sync([folder])

    resolved = folder.resolve()
    assert paths(second.ingested) == {
        str(resolved / "a.txt"),
        str(resolved / "c-moved.txt"),
        str(resolved / "e.txt"),
    }
    assert paths(second.removed) == {
        str(resolved / "b.txt"),
        str(resolved / "sub" / "c.txt"),
        str(resolved / "sub" / "d.txt"),
    }
    assert second.ok and not second.skipped
    listed = {entry.path for entry in library.sources()}
    assert listed == {
        str(resolved / "a.txt"),
        str(resolved / "c-moved.txt"),
        str(resolved / "e.txt"),
        str((elsewhere / "x.txt").resolve()),
    }
    assert_consistent(library)
    assert library.store.count() == chunks_before - 1  # b and d gone, a replaced, e added
    text = found_text(library, "harbour gate code")
    assert "silver otter" in text and "amber falcon" not in text
    [moved] = [h for h in library.search("glacier lake froze", k=1).hits]
    assert moved.chunk.path == str(resolved / "c-moved.txt")  # same chunks, new path

    third = library.sync([folder])
    assert not third.ingested and not third.removed and len(third.skipped) == 3
    library.close()


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_archive_members_are_child_sources(tmp_path: Path) -> None:
    library = open_library(tmp_path, parse={"limits": {"max_archive_depth": 1}})
    inner = zip_bytes({"deep.txt": b"Too deep: the buried treasure map.\n"})
    outer = tmp_path / "bundle.zip"
    outer.write_bytes(
        zip_bytes(
            {
                "docs/note.txt": b"The ferry to the island leaves at seven fifteen.\n",
                "inner.zip": inner,
            }
        )
    )
    report = library.ingest([outer])
    root = str(outer.resolve())
    assert paths(report.ingested) == {root, f"{root}#docs/note.txt", f"{root}#inner.zip"}
    assert [item["path"] for item in report.failed] == [f"{root}#inner.zip#deep.txt"]
    assert "max_archive_depth" in str(report.failed[0]["error"])
    assert report.failed[0]["parent"] == f"{root}#inner.zip"
    rows = {entry.path: entry for entry in library.sources()}
    assert rows[f"{root}#docs/note.txt"].parent == root
    assert rows[f"{root}#inner.zip"].parent == root and rows[root].parent is None
    [hit] = library.search("when does the ferry leave", k=1).hits
    assert hit.chunk.path == f"{root}#docs/note.txt"
    assert_consistent(library)

    again = library.ingest([outer])
    assert paths(again.skipped) == {root} and not again.ingested

    outer.write_bytes(zip_bytes({"docs/note.txt": b"The ferry now leaves at nine.\n"}))
    changed = library.ingest([outer])
    assert paths(changed.ingested) == {root, f"{root}#docs/note.txt"}
    assert {entry.path for entry in library.sources()} == {root, f"{root}#docs/note.txt"}
    text = found_text(library, "when does the ferry leave")
    assert "nine" in text and "seven fifteen" not in text
    assert_consistent(library)

    removed = library.remove(root)
    assert {entry.path for entry in removed} == {root, f"{root}#docs/note.txt"}
    assert library.sources() == [] and library.store.count() == 0
    library.close()


class _Pages(BaseHTTPRequestHandler):
    body = b"<html><body><h1>Tides</h1><p>High tide is at noon today.</p></body></html>"

    def do_GET(self) -> None:
        if self.path == "/slow":
            time.sleep(30)
        data = _Pages.body if self.path == "/tides.html" else b"<p>Slow page.</p>"
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up
            pass

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def web() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_urls_are_sources_and_a_slow_one_times_out(tmp_path: Path, web: str) -> None:
    note = tmp_path / "note.txt"
    note.write_text("The bakery opens at six in the morning.\n")
    library = open_library(tmp_path, web={"allow_private": True}, ingest={"parse_timeout_s": 4})
    started = time.monotonic()
    report = library.ingest([f"{web}/slow", f"{web}/tides.html", note])
    assert time.monotonic() - started < 25
    assert paths(report.ingested) == {f"{web}/tides.html", str(note.resolve())}
    [failed] = report.failed
    assert failed["path"] == f"{web}/slow"
    assert failed["error"] == "took longer than 4 s (ingest.parse_timeout_s)"
    [hit] = library.search("when is high tide", k=1).hits
    assert hit.chunk.path == f"{web}/tides.html"

    again = library.ingest([f"{web}/tides.html"])  # fetched again; same content: skipped
    assert paths(again.skipped) == {f"{web}/tides.html"}
    _Pages.body = b"<html><body><p>High tide moved to three o'clock.</p></body></html>"
    try:
        changed = library.ingest([f"{web}/tides.html"])
    finally:
        _Pages.body = b"<html><body><h1>Tides</h1><p>High tide is at noon today.</p></body></html>"
    assert paths(changed.ingested) == {f"{web}/tides.html"}
    assert "three o'clock" in found_text(library, "when is high tide")
    assert_consistent(library)
    library.close()


def test_a_file_over_the_memory_limit_fails_and_the_batch_goes_on(tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    line = b"The quick brown fox jumps over the lazy dog near the river bank.\n"
    huge.write_bytes(line * (300 * 2**20 // len(line)))  # 300 MB of text
    small = tmp_path / "small.txt"
    small.write_text("Small files still get indexed after a worker ran out of memory.\n")
    library = open_library(tmp_path, ingest={"parse_memory_mb": 700})
    report = library.ingest([huge, small])
    assert paths(report.ingested) == {str(small.resolve())}
    [failed] = report.failed
    assert failed["path"] == str(huge.resolve())
    assert str(failed["error"]).startswith("needed more than 700 MB")
    assert_consistent(library)
    library.close()


def test_tables_follow_their_source_through_edit_and_removal(tmp_path: Path) -> None:
    folder = tmp_path / "sheets"
    folder.mkdir()
    sheet = folder / "ducks.csv"
    sheet.write_text("Year,Ducks\n2019,120\n2020,135\n")
    library = open_library(tmp_path)
    library.ingest([sheet])
    (first,) = library.sources()
    (found,) = library.tables.tables([first.source_id])
    assert found.path == str(sheet) and found.table.rows == (("2019", "120"), ("2020", "135"))

    sheet.write_text("Year,Ducks\n2019,120\n2020,135\n2021,150\n")  # edited: a new version
    library.sync([folder])
    (second,) = library.sources()
    assert library.tables.tables([first.source_id]) == []  # the old version's table is gone
    assert len(library.tables.tables([second.source_id])[0].table.rows) == 3

    library.remove(str(sheet))
    assert library.tables.tables([second.source_id]) == []
    library.close()
