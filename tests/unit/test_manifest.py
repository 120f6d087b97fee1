from __future__ import annotations

from pathlib import Path

from polyrag.ingest.discover import discover
from polyrag.ingest.manifest import INDEXED, INDEXING, Entry, Manifest


def entry(path: str, source_id: str) -> Entry:
    return Entry(path, source_id, "f" * 64, 3, "text", "1", 2, 1, INDEXING, None, None, 0.0)


def test_begin_finish_find_remove(tmp_path: Path) -> None:
    manifest = Manifest(tmp_path / "m.sqlite")
    manifest.begin(entry("/a.txt", "abcdef123456"))
    assert manifest.get("/a.txt").status == INDEXING  # type: ignore[union-attr]
    manifest.finish("/a.txt", 5)
    reopened = Manifest(tmp_path / "m.sqlite")
    got = reopened.get("/a.txt")
    assert got is not None and got.status == INDEXED and got.chunks == 5
    assert [e.path for e in reopened.find("abcdef")] == ["/a.txt"]
    assert reopened.find("abc") == []  # too short to be an id prefix
    manifest.begin(entry("/b.txt", "abcdef123456"))
    assert manifest.source_in_use("abcdef123456", besides="/a.txt")
    manifest.remove("/b.txt")
    assert not manifest.source_in_use("abcdef123456", besides="/a.txt")


def test_discover_walks_folders_and_reports_missing(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.md").write_text("x")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "y.md").write_text("y")
    (tmp_path / "z.txt").write_text("z")
    found = discover([tmp_path, tmp_path / "z.txt", tmp_path / "nope.pdf"])
    assert [p.name for p in found.files] == ["x.md", "z.txt"]
    assert found.missing == [tmp_path / "nope.pdf"]
