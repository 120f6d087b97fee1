"""LanceStore behaviour beyond the Store contract: tokenizer, index upkeep, errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from polyrag.errors import StoreError
from polyrag.index.store.lancedb import LanceStore
from polyrag.types import Chunk, Filter, Locator

DIM = 16


def unit_vectors(count: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((count, DIM)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def chunks(source_id: str, texts: list[str]) -> list[Chunk]:
    return [
        Chunk(f"{source_id}#{i}", source_id, f"/{source_id}", text, Locator(page=1), ordinal=i)
        for i, text in enumerate(texts)
    ]


def add(store: LanceStore, source_id: str, texts: list[str], seed: int = 0) -> np.ndarray:
    vectors = unit_vectors(len(texts), seed)
    store.replace(chunks(source_id, texts), vectors)
    return vectors


@pytest.fixture
def make(tmp_path: Path) -> Iterator:
    opened: list[LanceStore] = []

    def make_store(**options: int) -> LanceStore:
        store = LanceStore(tmp_path / "index", DIM, model="test-random", **options)
        opened.append(store)
        return store

    yield make_store
    for store in opened:
        store.close()


def test_tokenizer_stems_folds_and_drops_stop_words(make) -> None:
    store = make()
    add(store, "s", ["The runners were running past the café.", "A quiet afternoon."])
    assert [h.chunk.chunk_id for h in store.keyword_search("runs", 5)] == ["s#0"]
    assert [h.chunk.chunk_id for h in store.keyword_search("CAFE", 5)] == ["s#0"]
    assert store.keyword_search("the of and were", 5) == []


def test_unindexed_rows_are_found_until_optimize_folds_them_in(make) -> None:
    store = make(fts_lag_rows=10**6)
    add(store, "s", [f"Unindexed sentence number {i} mentions zebra{i}." for i in range(20)])
    assert store.health().keyword_unindexed == 20
    assert store.keyword_search("zebra7", 3)[0].chunk.chunk_id == "s#7"
    store.optimize()
    assert store.health().keyword_unindexed == 0
    assert store.keyword_search("zebra7", 3)[0].chunk.chunk_id == "s#7"


def test_writes_optimize_once_enough_rows_wait(make) -> None:
    store = make(fts_lag_rows=10)
    add(store, "a", [f"first batch {i}" for i in range(6)])
    assert store.health().keyword_unindexed == 6
    add(store, "b", [f"second batch {i}" for i in range(6)])
    assert store.health().keyword_unindexed == 0


def test_vector_index_is_built_then_retrained_as_the_table_grows(make) -> None:
    store = make(ann_min_rows=300)
    vectors = add(store, "s0", [f"row {i}" for i in range(200)], seed=1)
    assert store.health().vector_index is None
    trained_on = []
    for n in range(1, 12):
        add(store, f"s{n}", [f"more {n} {i}" for i in range(100)], seed=n + 1)
        trained_on.append(store.health().vector_index)
    # Built at 300 rows, retrained whenever the table had doubled.
    assert (
        trained_on
        == ["vector_ivf_sq_300"] * 3 + ["vector_ivf_sq_600"] * 6 + ["vector_ivf_sq_1200"] * 2
    )
    assert store.health().rows == 1300
    hits = store.vector_search(vectors[17], 3)
    assert hits[0].chunk.chunk_id == "s0#17"
    # Similarities are exact cosines even though IVF_SQ reports distances as 2·(1 - cos).
    query = vectors[17] + 0.3 * unit_vectors(1, 99)[0]
    query /= np.linalg.norm(query)
    top = store.vector_search(query, 1)[0]
    assert top.chunk.chunk_id == "s0#17"
    assert top.vector_similarity == pytest.approx(float(vectors[17] @ query), abs=1e-5)
    # A narrow filter still fills k: more partitions are probed when too few rows pass it.
    narrow = store.vector_search(vectors[3], 50, Filter(source_ids=("s5",)))
    assert len(narrow) == 50 and {h.chunk.source_id for h in narrow} == {"s5"}


def test_another_connection_sees_new_writes(make) -> None:
    writer, reader = make(), make()
    assert reader.count() == 0
    add(writer, "s", ["Written by another process."])
    assert reader.count() == 1
    assert reader.keyword_search("another process", 1)[0].chunk.chunk_id == "s#0"


def test_dimension_change_is_a_store_error_with_a_hint(make, tmp_path: Path) -> None:
    add(make(), "s", ["Sixteen dimensions."])
    other = LanceStore(tmp_path / "index", DIM * 2, model="test-random")
    try:
        with pytest.raises(StoreError, match="16-dimensional") as raised:
            other.count()
        assert "ingest again" in raised.value.hint
    finally:
        other.close()


def test_bad_vectors_and_closed_store_raise_store_error(make) -> None:
    store = make()
    with pytest.raises(StoreError):
        store.replace(chunks("s", ["one", "two"]), unit_vectors(1, 0))
    with pytest.raises(StoreError):
        store.vector_search(np.ones(DIM + 1, dtype=np.float32), 3)
    store.close()
    with pytest.raises(StoreError):
        store.count()


def test_vector_index_is_retrained_before_delta_segments_pile_up(make) -> None:
    store = make(ann_min_rows=60, fts_lag_rows=1)  # every write optimizes: one delta each
    add(store, "base", [f"row {i}" for i in range(60)], seed=1)
    names = []
    for n in range(10):
        add(store, f"s{n}", [f"more {n} {i}" for i in range(5)], seed=n + 2)
        names.append(store.health().vector_index)
    assert names[0] == "vector_ivf_sq_60"
    assert len(set(names)) == 2  # one retrain, well before the table doubled
    assert names[-1] != "vector_ivf_sq_60" and store.health().rows == 110
