"""A home whose index is Milvus (Milvus Lite in a local .db folder): the same commands and
answers as with LanceDB, through the settings alone."""

from __future__ import annotations

from pathlib import Path

import polyrag
from polyrag.index.store.milvus import MilvusStore


def test_a_home_on_milvus_ingests_searches_and_removes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[store]\nengine = "milvus"\n', encoding="utf-8")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "vault.md").write_text("# Vault\n\nThe vault code is amber falcon.\n")
    (notes / "trip.md").write_text("# Trip\n\nThe ferry to Skye leaves at 7:40 from Mallaig.\n")

    library = polyrag.open(home)
    try:
        assert isinstance(library.store, MilvusStore)
        report = library.ingest(sorted(notes.iterdir()))
        assert len(report.ingested) == 2 and not report.failed
        hits = library.search("When does the ferry leave for Skye?", k=3).hits
        assert hits and "7:40" in hits[0].chunk.text and hits[0].chunk.locator.heading_path
        (notes / "vault.md").write_text("# Vault\n\nThe vault code is silver otter.\n")
        library.ingest([notes / "vault.md"])
        found = " ".join(h.chunk.text for h in library.search("vault code", k=3).hits)
        assert "silver otter" in found and "amber falcon" not in found
        assert library.remove(str(notes / "trip.md"))
        assert "7:40" not in " ".join(h.chunk.text for h in library.search("ferry", k=3).hits)
    finally:
        library.close()
    assert (home / "milvus.db").exists() and not (home / "index").exists()
