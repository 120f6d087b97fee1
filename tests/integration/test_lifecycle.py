"""Source lifecycle with the real embedder and a real LanceDB index (no language model)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import polyrag
from polyrag.engine import Engine
from polyrag.ingest.manifest import INDEXED, INDEXING, REMOVING

from ..conftest import CORPUS


@pytest.fixture()
def library(tmp_path: Path) -> Engine:
    return polyrag.open(tmp_path / "home")


def texts_for(library: Engine, query: str) -> list[str]:
    return [hit.chunk.text for hit in library.search(query, k=3).hits]


def test_changed_file_replaces_old_version(library: Engine, tmp_path: Path) -> None:
    doc = tmp_path / "note.md"
    doc.write_text("# Note\n\nThe vault code is amber falcon.\n")
    first = library.ingest([doc])
    assert len(first.ingested) == 1
    old_id = first.ingested[0]["source_id"]
    doc.write_text("# Note\n\nThe vault code is silver otter.\n")
    second = library.ingest([doc])
    new_id = second.ingested[0]["source_id"]
    assert new_id != old_id
    assert library.store.source_ids() == {new_id}
    joined = " ".join(texts_for(library, "vault code"))
    assert "silver otter" in joined and "amber falcon" not in joined
    [entry] = library.sources()
    assert entry.status == INDEXED and entry.source_id == new_id and entry.sha256


def test_unchanged_file_is_skipped_and_duplicate_content_shared(
    library: Engine, tmp_path: Path
) -> None:
    source = CORPUS / "text_md/unstructured__norwich-city.txt"
    copy = tmp_path / "copy.txt"
    shutil.copy(source, copy)
    library.ingest([source])
    chunks = library.store.count()
    again = library.ingest([source])
    assert again.skipped and not again.ingested
    library.ingest([copy])
    assert library.store.count() == chunks  # same content, same chunks
    library.remove(str(copy))
    assert library.store.count() == chunks  # still used by the first path
    library.remove(str(source))
    assert library.store.count() == 0


def test_interrupted_ingest_is_redone(library: Engine, tmp_path: Path) -> None:
    doc = tmp_path / "a.md"
    doc.write_text("Interrupted ingests must be detected and finished later.\n")
    library.ingest([doc])
    entry = library.manifest.get(str(doc.resolve()))
    assert entry is not None
    # A run that stopped between marking the file and committing its chunks:
    library.manifest.begin(entry)
    library.store.delete_sources([entry.source_id])
    assert library.manifest.get(entry.path).status == INDEXING  # type: ignore[union-attr]
    redo = library.ingest([doc])
    assert [item["path"] for item in redo.ingested] == [entry.path]
    assert library.manifest.get(entry.path).status == INDEXED  # type: ignore[union-attr]
    assert library.store.count() > 0


def test_failed_file_leaves_nothing_and_batch_goes_on(library: Engine, tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("Good files still get indexed when a neighbour is broken.\n")
    report = library.ingest(
        [CORPUS / "malformed/derived__xlsx-truncated-20KB.xlsx", good, tmp_path / "nope.docx"]
    )
    assert [Path(item["path"]).name for item in report.ingested] == ["good.txt"]
    assert len(report.failed) == 2
    assert {e.path for e in library.sources()} == {str(good.resolve())}


def test_filters_by_source_and_page(library: Engine) -> None:
    pdf = CORPUS / "pdf_multicolumn/pdfjs__tracemonkey.pdf"
    txt = CORPUS / "text_md/unstructured__norwich-city.txt"
    report = library.ingest([pdf, txt])
    ids = {Path(str(i["path"])).name: str(i["source_id"]) for i in report.ingested}
    only_pdf = polyrag.Filter(source_ids=(ids["pdfjs__tracemonkey.pdf"],))
    hits = library.search("football club appearances", where=only_pdf).hits
    assert hits and all(h.chunk.path.endswith(".pdf") for h in hits)
    page_two = polyrag.Filter(pages=(2,))
    hits = library.search("trace compilation", where=page_two).hits
    assert hits and all(h.chunk.locator.page == 2 for h in hits)


def test_the_same_words_under_another_heading_are_embedded_anew(
    library: Engine, tmp_path: Path
) -> None:
    row = "Other — net 120 256 76"
    for name, heading in (("cash.md", "Cash Flows from Investing Activities"), ("debt.md", "Debt")):
        (tmp_path / name).write_text(f"# {heading}\n\n{row}\n")
    library.ingest([tmp_path / "cash.md"])
    library.ingest([tmp_path / "debt.md"])
    found = [h.chunk for h in library.search(row, k=10).hits if h.chunk.text.endswith(row)]
    assert {c.locator.heading_path[-1] for c in found} == {
        "Cash Flows from Investing Activities",
        "Debt",
    }
    stored = library.store.vectors_for([c.embedded_sha256 for c in found])
    assert len(stored) == 2  # one vector per heading, not the first one reused
    for chunk in found:
        expected = library.embedder.embed([chunk.embedded_text])[0]
        assert abs(float(stored[chunk.embedded_sha256] @ expected) - 1.0) < 1e-4


class Crash(BaseException):
    """Stands for the process dying at that point (nothing below it runs)."""


def test_a_file_interrupted_twice_leaves_nothing_behind(
    library: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "note.md"
    doc.write_text("# Note\n\nVersion one of the note.\n")
    library.ingest([doc])
    store_class = type(library.store)
    commit = store_class.replace

    def crash(*args: object, **kwargs: object) -> None:
        raise Crash

    for version in ("two", "three"):  # each run stops before its index commit
        doc.write_text(f"# Note\n\nVersion {version} of the note.\n")
        monkeypatch.setattr(store_class, "replace", crash)
        with pytest.raises(Crash):
            library.ingest([doc])
    monkeypatch.setattr(store_class, "replace", commit)
    library.ingest([doc])
    [entry] = library.sources()
    assert entry.status == INDEXED
    assert library.store.source_ids() == {entry.source_id}  # version one is gone too
    assert "three" in texts_for(library, "version of the note")[0]


def test_a_removal_stopped_midway_is_finished_by_the_next_run(
    library: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync stopped after the index dropped a vanished file's chunks, before the manifest
    dropped its row: the row says `removing`, never `indexed` with nothing behind it, and the
    next run removes it, whether or not the file has come back."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("a.md", "b.md", "kept.md"):
        (folder / name).write_text(f"# {name}\n\nThe text of {name}.\n")
    library.ingest([folder])
    ids = {Path(e.path).name: e.source_id for e in library.sources()}
    saved = (folder / "a.md").read_text()
    (folder / "a.md").unlink()
    (folder / "b.md").unlink()
    manifest_class = type(library.manifest)
    forget = manifest_class.remove

    def crash(*args: object, **kwargs: object) -> None:
        raise Crash

    monkeypatch.setattr(manifest_class, "remove", crash)
    with pytest.raises(Crash):  # stops while removing a.md, before b.md
        library.sync([folder])
    monkeypatch.setattr(manifest_class, "remove", forget)
    status = {Path(e.path).name: e.status for e in library.sources()}
    assert status == {"a.md": REMOVING, "b.md": INDEXED, "kept.md": INDEXED}
    assert library.store.source_ids() == {ids["b.md"], ids["kept.md"]}

    (folder / "a.md").write_text(saved)  # a.md returns before the next run
    report = library.ingest([folder / "a.md"])
    assert [Path(str(row["path"])).name for row in report.removed] == ["a.md"]
    library.sync([folder])
    entries = library.sources()
    assert sorted(Path(e.path).name for e in entries) == ["a.md", "kept.md"]
    assert all(e.status == INDEXED for e in entries)
    assert library.store.source_ids() == {ids["a.md"], ids["kept.md"]}
