"""An index written before chunks had `anchor`, `embed_model`, `printed_page` and `keyword_text`
columns still opens, reads and takes writes; its vectors, of a model it never named, are not
reused; its BM25 index over the text alone is replaced by one over `keyword_text`."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa

from polyrag.index.store.lance_rows import rows_table, table_schema
from polyrag.index.store.lancedb import FTS_CONFIG, FTS_INDEX, TABLE, LanceStore
from polyrag.types import Chunk, Filter, Locator, Modality

DIM = 8


ADDED = ["anchor", "embed_model", "printed_page", "keyword_text"]


def old_schema() -> pa.Schema:
    schema = table_schema(DIM)
    for name in ADDED:
        schema = schema.remove(schema.get_field_index(name))
    return schema


def chunk(i: int, **changes: object) -> Chunk:
    base = Chunk(f"old-{i}", "old", "/docs/old.docx", f"Old text {i}.", Locator(page=i + 1))
    return dataclasses.replace(base, ordinal=i, **changes)  # type: ignore[arg-type]


def vectors(count: int) -> np.ndarray:
    rng = np.random.default_rng(3)
    out = rng.standard_normal((count, DIM)).astype(np.float32)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_an_index_of_the_first_release_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "index"
    rows = rows_table([chunk(0), chunk(1)], vectors(2), table_schema(DIM), "test-random")
    old_rows = rows.drop_columns(ADDED).cast(old_schema())
    lancedb.connect(str(path)).create_table(TABLE, data=old_rows, schema=old_schema())

    store = LanceStore(path, DIM, model="test-random")
    try:
        assert [c.anchor for c in store.chunks_of("old")] == [None, None]
        table = chunk(2, modality=Modality.TABLE, anchor=1, text="| a | b |")
        store.replace([table], vectors(1))
        assert store.chunks_by_ordinal("old", [1, 2]) == [chunk(1), table]
        assert store.keyword_search("Old text", 5)[0].chunk.anchor is None
        printed = chunk(3, locator=Locator(page=4, printed_page=2))
        store.replace([printed], vectors(1))
        assert [c.chunk_id for c in store.chunks_by_ordinal("old", [3])] == ["old-3"]
        assert store.count(Filter(printed_pages=(2,))) == 1
        assert store.count(Filter(printed_pages=(1,))) == 0
        # Which model made the old vectors is unknown, so they are embedded again; new ones
        # are reused.
        assert store.vectors_for([chunk(0).embedded_sha256, table.embedded_sha256]).keys() == {
            table.embedded_sha256
        }
    finally:
        store.close()
    names = lancedb.connect(str(path)).open_table(TABLE).schema.names
    assert set(ADDED) <= set(names)


def test_an_old_index_opened_by_many_searches_at_once_is_upgraded_once(tmp_path: Path) -> None:
    """A hybrid search runs its keyword and vector halves at once, and two processes may open
    the same old index: whichever adds the missing columns first, the others go on reading
    (before, the second failed with "Column embed_model already exists")."""
    path = tmp_path / "index"
    rows = rows_table([chunk(i) for i in range(4)], vectors(4), table_schema(DIM), "test-random")
    old_rows = rows.drop_columns(ADDED).cast(old_schema())
    lancedb.connect(str(path)).create_table(TABLE, data=old_rows, schema=old_schema())

    stores = [LanceStore(path, DIM, model="test-random") for _ in range(2)]
    query = vectors(1)[0]
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            found = list(
                pool.map(
                    lambda i: (
                        len(stores[i % 2].vector_search(query, 3))
                        + len(stores[i % 2].keyword_search("Old text", 3))
                    ),
                    range(16),
                )
            )
        assert found == [6] * 16
    finally:
        for store in stores:
            store.close()
    names = lancedb.connect(str(path)).open_table(TABLE).schema.names
    assert set(ADDED) <= set(names)


def test_a_bm25_index_over_the_text_alone_is_replaced_when_the_index_opens(
    tmp_path: Path,
) -> None:
    """Searches of an upgraded index find a chunk by the words of its text at once, through an
    index over `keyword_text` (filled with the text until a chunk is written again), and a
    chunk written since by its headings too."""
    path = tmp_path / "index"
    headed = [chunk(i, locator=Locator(page=1, heading_path=("Cash Flows",))) for i in range(3)]
    rows = rows_table(headed, vectors(3), table_schema(DIM), "test-random")
    old = lancedb.connect(str(path)).create_table(
        TABLE, data=rows.drop_columns(ADDED).cast(old_schema()), schema=old_schema()
    )
    old.create_index("text", config=FTS_CONFIG, name="text_idx")

    store = LanceStore(path, DIM, model="test-random")
    try:
        assert [hit.chunk.chunk_id for hit in store.keyword_search("text 1", 1)] == ["old-1"]
        assert store.keyword_search("flows", 3) == []  # written before headings were read
        store.replace([headed[2]], vectors(1))
        assert [hit.chunk.chunk_id for hit in store.keyword_search("flows", 3)] == ["old-2"]
    finally:
        store.close()
    indexes = {index.name for index in lancedb.connect(str(path)).open_table(TABLE).list_indices()}
    assert FTS_INDEX in indexes and "text_idx" not in indexes
