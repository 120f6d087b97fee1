"""The contracts of the manifest of sources and of the table store: subclass, say how to make
one at a location (a fresh folder per test, mapped to a place of your own if it lives
elsewhere), and pytest runs them.

    class TestMyManifest(ManifestContract):
        def make_manifest(self, location: Path) -> Manifest:
            return MyManifest(location)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from polyrag.index.tables.base import TableStore
from polyrag.ingest.manifest import INDEXED, INDEXING, REMOVING, Entry, Manifest
from polyrag.types import Locator, Table


def entry(path: str, source_id: str, *, parent: str | None = None, chunks: int = 2) -> Entry:
    return Entry(
        path, source_id, "f" * 64, 3, "text/plain", "1", chunks, 1, INDEXING, None, None, 0.0,
        parent,
    )  # fmt: skip


class ManifestContract:
    def make_manifest(self, location: Path) -> Manifest:
        raise NotImplementedError

    @pytest.fixture
    def location(self, tmp_path: Path) -> Path:
        return tmp_path / "manifest"

    @pytest.fixture
    def manifest(self, location: Path) -> Iterator[Manifest]:
        made = self.make_manifest(location)
        yield made
        made.close()

    def test_begin_finish_find_remove(self, manifest: Manifest, location: Path) -> None:
        assert manifest.get("/a.txt") is None and manifest.all() == []
        manifest.begin(entry("/a.txt", "abcdef123456"))
        started = manifest.get("/a.txt")
        assert started is not None and started.status == INDEXING and started.updated_at > 0
        manifest.finish("/a.txt", 5)
        reopened = self.make_manifest(location)
        try:
            got = reopened.get("/a.txt")
            assert got is not None and got.status == INDEXED and got.chunks == 5
            assert [e.path for e in reopened.find("abcdef")] == ["/a.txt"]
            assert [e.path for e in reopened.find("/a.txt")] == ["/a.txt"]
            assert reopened.find("abc") == []  # too short to be an id prefix
        finally:
            reopened.close()
        manifest.begin(entry("/b.txt", "abcdef123456"))
        assert manifest.source_in_use("abcdef123456", besides="/a.txt")
        assert [e.path for e in manifest.by_source_id("abcdef123456")] == ["/a.txt", "/b.txt"]
        manifest.remove("/b.txt")
        assert not manifest.source_in_use("abcdef123456", besides="/a.txt")
        assert not manifest.source_in_use("abcdef123456", besides=["/a.txt", "/c.txt"])

    def test_finish_forgets_the_previous_versions_and_errors(self, manifest: Manifest) -> None:
        manifest.begin(dataclasses.replace(entry("/a.txt", "new"), previous_source_id="old1 old2"))
        assert manifest.get("/a.txt").previous_ids == ("old1", "old2")  # type: ignore[union-attr]
        manifest.note_error("/a.txt", "cannot read: gone")
        assert manifest.get("/a.txt").error == "cannot read: gone"  # type: ignore[union-attr]
        manifest.finish("/a.txt", 3)
        done = manifest.get("/a.txt")
        assert done is not None and done.previous_ids == () and done.error is None
        manifest.finish("/missing.txt", 1)  # nothing to finish: nothing happens
        manifest.note_error("/missing.txt", "x")
        assert [e.path for e in manifest.all()] == ["/a.txt"]

    def test_removing_marks_the_row_and_keeps_the_rest(self, manifest: Manifest) -> None:
        manifest.begin(dataclasses.replace(entry("/a.txt", "aaa"), previous_source_id="old"))
        manifest.finish("/a.txt", 4)
        with manifest.transaction():
            manifest.removing("/a.txt")
            manifest.removing("/missing.txt")  # nothing to mark: nothing happens
        marked = manifest.get("/a.txt")
        assert marked is not None and marked.status == REMOVING
        assert (marked.source_id, marked.chunks) == ("aaa", 4)
        assert manifest.source_in_use("aaa", besides="/b.txt")  # still known until removed
        manifest.remove("/a.txt")
        assert manifest.all() == []

    def test_children_at_any_depth_and_sources_under_a_folder(self, manifest: Manifest) -> None:
        rows = [
            ("/d/mail.eml", None),
            ("/d/mail.eml#a.zip", "/d/mail.eml"),
            ("/d/mail.eml#a.zip#x.txt", "/d/mail.eml#a.zip"),
            ("/d/sub/n.md", None),
            ("/dx/other.md", None),
            ("https://example.org/d/page", None),
        ]
        for path, parent in rows:
            manifest.begin(entry(path, path[-8:], parent=parent))
        assert [e.path for e in manifest.children("/d/mail.eml")] == [
            "/d/mail.eml#a.zip",
            "/d/mail.eml#a.zip#x.txt",
        ]
        assert [e.path for e in manifest.top_level_under("/d")] == ["/d/mail.eml", "/d/sub/n.md"]
        assert [e.path for e in manifest.all()] == sorted(path for path, _ in rows)

    def test_a_transaction_commits_together(self, manifest: Manifest) -> None:
        manifest.begin(entry("/gone.txt", "gone123456"))
        with manifest.transaction():
            manifest.begin(entry("/a.txt", "aaaa123456"))
            manifest.begin(entry("/a.txt#b.txt", "bbbb123456", parent="/a.txt"))
            manifest.remove("/gone.txt")
            # Inside, its own changes are seen.
            assert manifest.get("/gone.txt") is None
            assert [e.path for e in manifest.children("/a.txt")] == ["/a.txt#b.txt"]
            manifest.finish("/a.txt", 4)
        assert [e.path for e in manifest.all()] == ["/a.txt", "/a.txt#b.txt"]
        assert manifest.get("/a.txt").status == INDEXED  # type: ignore[union-attr]

    def test_a_transaction_rolls_back_on_error(self, manifest: Manifest) -> None:
        manifest.begin(entry("/kept.txt", "kept123456"))
        with pytest.raises(KeyboardInterrupt), manifest.transaction():
            manifest.begin(entry("/a.txt", "abcdef123456"))
            manifest.remove("/kept.txt")
            raise KeyboardInterrupt
        assert [e.path for e in manifest.all()] == ["/kept.txt"]

    def test_paths_and_ids_with_quotes(self, manifest: Manifest) -> None:
        path = "/docs/O'Brien's \"notes\".md"
        manifest.begin(entry(path, "quoted'id1"))
        assert manifest.get(path) is not None
        assert [e.path for e in manifest.find("quoted'id1")] == [path]
        manifest.remove(path)
        assert manifest.all() == []


def table(name: str, rows: int = 2) -> Table:
    return Table(
        header=("item", "amount"),
        rows=tuple((f"{name} row {i}", str(i * 10)) for i in range(rows)),
        locator=Locator(page=1, sheet=name),
        name=name,
        title=f"The {name} table",
        row_numbers=tuple(range(2, 2 + rows)),
        columns=("A", "B"),
    )


class TableStoreContract:
    def make_table_store(self, location: Path) -> TableStore:
        raise NotImplementedError

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[TableStore]:
        made = self.make_table_store(tmp_path / "tables")
        yield made
        made.close()

    def test_put_replace_read_delete(self, store: TableStore) -> None:
        assert store.tables(["s1"]) == [] and store.source_ids() == set()
        store.put("s1", "/a.xlsx", [table("Sheet1"), table("Sheet2", 3)])
        store.put("s2", "/b.csv", [table("b")])
        found = store.tables(["s2", "s1"])  # in the order asked, each source's in its order
        assert [(t.source_id, t.table.name) for t in found] == [
            ("s2", "b"),
            ("s1", "Sheet1"),
            ("s1", "Sheet2"),
        ]
        assert found[2].table == table("Sheet2", 3) and found[2].path == "/a.xlsx"
        store.put("s1", "/a.xlsx", [table("Only")])  # a source's tables are replaced whole
        assert [t.table.name for t in store.tables(["s1"])] == ["Only"]
        assert store.source_ids() == {"s1", "s2"}
        store.delete_sources(["s1", "missing"])
        assert store.source_ids() == {"s2"}
        store.put("s2", "/b.csv", [])
        assert store.tables(["s2"]) == []
