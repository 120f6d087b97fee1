from __future__ import annotations

from pathlib import Path

from polyrag.ingest.discover import discover
from polyrag.ingest.manifest import INDEXED, INDEXING, Entry, SqliteManifest


def test_discover_walks_folders_and_reports_missing(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.md").write_text("x")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "y.md").write_text("y")
    (tmp_path / "z.txt").write_text("z")
    found = discover([tmp_path, tmp_path / "z.txt", tmp_path / "nope.pdf"])
    assert [p.name for p in found.files] == ["x.md", "z.txt"]
    assert found.missing == [tmp_path / "nope.pdf"]


def test_old_manifest_gains_parent_column(tmp_path: Path) -> None:
    import sqlite3

    file = tmp_path / "old.sqlite"
    db = sqlite3.connect(file)
    db.execute(
        "CREATE TABLE sources (path TEXT PRIMARY KEY, source_id TEXT NOT NULL, sha256 TEXT NOT "
        "NULL, size INTEGER NOT NULL, media_type TEXT NOT NULL, parser_version TEXT NOT NULL, "
        "chunks INTEGER NOT NULL DEFAULT 0, pages INTEGER NOT NULL DEFAULT 0, status TEXT NOT "
        "NULL, previous_source_id TEXT, error TEXT, updated_at REAL NOT NULL)"
    )
    db.execute(
        "INSERT INTO sources VALUES ('/a.txt','abc','f',3,'text','1',2,1,'indexed',NULL,NULL,0)"
    )
    db.commit()
    db.close()
    manifest = SqliteManifest(file)
    [old] = manifest.all()
    assert old.path == "/a.txt" and old.parent is None and old.status == INDEXED
    child = Entry("/a.txt#b.txt", "def", "f", 1, "text", "1", 1, 1, INDEXING, None, None, 0.0)
    manifest.begin(child.__class__(**{**child.__dict__, "parent": "/a.txt"}))
    assert [e.path for e in SqliteManifest(file).children("/a.txt")] == ["/a.txt#b.txt"]


def test_discover_keeps_urls_apart(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("a")
    found = discover([str(tmp_path), "https://example.org/x", "https://example.org/x"])
    assert [p.name for p in found.files] == ["a.md"]
    assert found.urls == ["https://example.org/x"] and found.missing == []
