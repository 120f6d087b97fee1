"""The Store contract, split by what a store does; `StoreContract` is all of it.

    class TestMyStore(StoreContract):
        def make_store(self, location: Path, dim: int, model: str) -> Store:
            return MyStore(location, dim, model=model)

`location` is a fresh folder per test; a store that lives elsewhere (a bucket, a server) maps it
to a place of its own, the same place each time it is given the same folder. The parts:

* `WriteContract`: replace, overwrite, delete, quoting.
* `ReplaceVisibilityContract`: what concurrent readers see during a replace: never neither
  version, and never both where the store claims `ATOMIC_REPLACE`.
* `KeywordSearchContract`, `VectorSearchContract`, `FilterContract`.
* `LookupContract`: counts, a source's chunks, vectors for reuse (keyed by model and text).
* `LifecycleContract`: persistence, health, optimize, close, another model's index refused.
* `SharedWritersContract`: two stores on one location writing at once, where the store
  claims `SHARED_WRITERS`.

Vectors are random unit vectors; no embedding model is needed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from polyrag.errors import StoreError
from polyrag.index.store.base import ATOMIC_REPLACE, CAPABILITIES, SHARED_WRITERS, Store
from polyrag.types import Chunk, Filter, Locator, Modality

DIM = 16
MODEL = "contract-random-16"  # the vectors are random: a model name of their own


def unit_vectors(count: int, seed: int, dim: int = DIM) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((count, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def near(vector: np.ndarray, seed: int, noise: float = 0.05) -> np.ndarray:
    moved = vector + noise * unit_vectors(1, seed, vector.shape[0])[0]
    return (moved / np.linalg.norm(moved)).astype(np.float32)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


FILLER = [
    "The committee reviewed the quarterly budget and approved the travel policy.",
    "Our team meets every Monday to plan the week and review open tickets.",
    "The warehouse moved to a new building near the river last spring.",
    "Customers asked for faster delivery and clearer invoices this year.",
    "The library opens at nine and closes at six on weekdays.",
    "Engineers tested the new pump under load for three weeks.",
]


def document(
    source_id: str,
    texts: list[str],
    seed: int,
    *,
    modality: Modality = Modality.TEXT,
    front_pages: int = 0,
) -> tuple[list[Chunk], np.ndarray]:
    """One source: chunk i sits on page i + 1; with `front_pages`, the pages after those are
    printed with numbers from 1."""
    chunks = [
        Chunk(
            chunk_id=f"{source_id}#{i}",
            source_id=source_id,
            path=f"/docs/{source_id}.pdf",
            text=text,
            locator=Locator(
                page=i + 1,
                heading_path=("Report", f"Part {i}"),
                printed_page=i + 1 - front_pages if front_pages and i >= front_pages else None,
            ),
            modality=modality,
            ordinal=i,
        )
        for i, text in enumerate(texts)
    ]
    return chunks, unit_vectors(len(chunks), seed)


class StoreFixtures:
    """How to make the store under test, and a small library to search. Subclasses implement
    `make_store`; `capabilities` come from the store itself."""

    dim = DIM
    model = MODEL

    def make_store(self, location: Path, dim: int, model: str) -> Store:
        raise NotImplementedError

    @pytest.fixture
    def store_path(self, tmp_path: Path) -> Path:
        return tmp_path / "store"

    @pytest.fixture
    def store(self, store_path: Path) -> Iterator[Store]:
        store = self.make_store(store_path, self.dim, self.model)
        yield store
        store.close()

    @pytest.fixture
    def library(self, store: Store) -> dict[str, tuple[list[Chunk], np.ndarray]]:
        """Three sources: a report (text), its tables, and a memo."""
        docs = {
            "report": document(
                "report",
                [*FILLER[:3], "Invoice 48213 was paid by Siobhan O'Brien on 12 March 2023."],
                seed=1,
                front_pages=2,  # a cover and a contents: pages 3 and 4 are printed 1 and 2
            ),
            "tables": document(
                "tables",
                ["| ratio | value |\n| P/E ratio | 12.5 |", "| revenue | $4.5m |", FILLER[3]],
                seed=2,
                modality=Modality.TABLE,
            ),
            "memo": document("memo", FILLER[3:], seed=3),
        }
        for chunks, vectors in docs.values():
            store.replace(chunks, vectors)
        return docs

    def reopen(self, store: Store, location: Path, model: str | None = None) -> Store:
        """Close `store` and open its location again (as another process would)."""
        store.close()
        return self.make_store(location, self.dim, model or self.model)


class WriteContract(StoreFixtures):
    """Adding, replacing and deleting the chunks of sources."""

    # -- writing ------------------------------------------------------------------------------

    def test_empty_store_finds_nothing(self, store: Store) -> None:
        assert store.count() == 0
        assert store.source_ids() == set()
        assert store.source_paths() == {}
        assert store.keyword_search("anything at all", 5) == []
        assert store.vector_search(unit_vectors(1, 9)[0], 5) == []
        assert store.chunks_of("missing") == []
        assert store.vectors_for([sha256("missing")]) == {}
        assert store.delete_sources(["missing"]) == 0

    def test_replace_adds_chunks_with_all_fields(self, store: Store, library: dict) -> None:
        assert store.count() == 10
        assert store.source_ids() == {"report", "tables", "memo"}
        chunks, _ = library["tables"]
        assert store.chunks_of("tables") == chunks  # every field survives the round trip

    def test_replace_swaps_sources(self, store: Store, library: dict) -> None:
        new_chunks, new_vectors = document("report-v2", ["The vault code is silver otter."], 4)
        store.replace(new_chunks, new_vectors, replaces=["report"])
        assert store.source_ids() == {"report-v2", "tables", "memo"}
        assert store.source_paths() == {
            name: f"/docs/{name}.pdf" for name in ("report-v2", "tables", "memo")
        }
        assert store.chunks_of("report") == []
        assert store.count() == 7
        hits = store.keyword_search("vault code", 5)
        assert [hit.chunk.chunk_id for hit in hits] == ["report-v2#0"]

    def test_replace_with_no_chunks_deletes_the_replaced(self, store: Store, library: dict) -> None:
        store.replace([], np.empty((0, self.dim), dtype=np.float32), replaces=["memo"])
        assert store.source_ids() == {"report", "tables"}

    def test_adding_again_overwrites(self, store: Store, library: dict) -> None:
        chunks, vectors = library["memo"]
        store.replace(chunks, vectors)
        assert store.count() == 10
        edited = [dataclasses.replace(chunks[0], text="Edited memo text.")]
        store.replace(edited, vectors[:1])
        assert store.count() == 10
        assert store.chunks_of("memo")[0].text == "Edited memo text."

    def test_delete_sources(self, store: Store, library: dict) -> None:
        assert store.delete_sources(["memo", "tables", "unknown"]) == 6
        assert store.source_ids() == {"report"}
        assert store.keyword_search("library weekdays", 5) == []

    def test_ids_with_quotes_are_safe(self, store: Store) -> None:
        chunks, vectors = document("it's o'brien's", ["Quoted identifiers are harmless."], 5)
        store.replace(chunks, vectors)
        assert store.count(Filter(source_ids=("it's o'brien's",))) == 1
        assert store.chunks_of("it's o'brien's") == chunks
        assert store.delete_sources(["it's o'brien's"]) == 1
        assert store.count() == 0


class ReplaceVisibilityContract(StoreFixtures):
    """What readers see while a source is replaced, over and over, by its next version."""

    def test_capabilities_are_known(self, store: Store) -> None:
        assert store.capabilities <= CAPABILITIES

    def test_readers_never_see_a_gap_nor_with_atomic_replace_a_mix(self, store: Store) -> None:
        texts = [f"Marker paragraph {i} about atomic swaps." for i in range(12)]
        versions = [document(f"doc-v{n}", texts, seed=10 + n) for n in (1, 2)]
        store.replace(*versions[0])
        probe = versions[0][1][0]
        both = Filter(source_ids=("doc-v1", "doc-v2"))
        seen: list[tuple[str, frozenset[str], int]] = []
        stop = threading.Event()

        def read() -> None:
            while not stop.is_set():
                for kind, hits in (
                    ("keyword", store.keyword_search("marker atomic", 100, both)),
                    ("vector", store.vector_search(probe, 100, both)),
                ):
                    seen.append((kind, frozenset(h.chunk.source_id for h in hits), len(hits)))

        reader = threading.Thread(target=read)
        reader.start()
        try:
            for step in range(16):
                new, old = versions[(step + 1) % 2], versions[step % 2]
                store.replace(*new, replaces=[old[0][0].source_id])
        finally:
            stop.set()
            reader.join()
        assert len(seen) > 4
        for kind, sources, count in seen:
            assert sources and count >= len(texts), (kind, sources, count)  # never a gap
            if ATOMIC_REPLACE in store.capabilities:
                assert len(sources) == 1 and count == len(texts), (kind, sources, count)


class KeywordSearchContract(StoreFixtures):
    """BM25 over each chunk's nearest heading and text (`Chunk.keyword_text`)."""

    # -- keyword search -----------------------------------------------------------------------

    def test_keyword_finds_a_rare_number(self, store: Store, library: dict) -> None:
        hits = store.keyword_search("invoice 48213", 3)
        assert hits[0].chunk.chunk_id == "report#3"
        assert hits[0].keyword_rank == 1 and hits[0].score > 0

    def test_keyword_finds_a_name(self, store: Store, library: dict) -> None:
        assert store.keyword_search("Siobhan", 3)[0].chunk.chunk_id == "report#3"

    @pytest.mark.parametrize(
        "query",
        [
            "What's the P/E ratio?",
            'the "P/E" ratio',
            "P/E AND (ratio OR value) NOT -revenue*",
            "ratio: 12.5% ~ ^2 [P/E] {x} \\ ' \" ; -- DROP TABLE chunks",
        ],
    )
    def test_keyword_survives_punctuation(self, store: Store, library: dict, query: str) -> None:
        hits = store.keyword_search(query, 3)
        assert hits and hits[0].chunk.chunk_id == "tables#0"

    def test_keyword_reads_the_headings_over_a_chunk(self, store: Store) -> None:
        """A row deep in a statement matches the statement's title, which only its heading
        path holds; the chunk's text comes back as it was, without the headings."""
        chunks, vectors = document("statement", ["Purchases of equipment 1,577 1,373"], seed=5)
        row = dataclasses.replace(
            chunks[0],
            locator=Locator(page=9, heading_path=("Annual Report", "Statements of Cash Flows")),
        )
        other, other_vectors = document("notes", ["Cash was counted twice a day."], seed=6)
        store.replace([row, *other], np.vstack([vectors, other_vectors]))
        [first, *_] = store.keyword_search("statements of cash flows", 2)
        assert first.chunk == row

    @pytest.mark.parametrize("query", ["", "   ", "?!", "\"'", "-- ; */"])
    def test_keyword_without_terms_is_empty(self, store: Store, library: dict, query: str) -> None:
        assert store.keyword_search(query, 3) == []

    def test_keyword_results_best_first_and_limited(self, store: Store, library: dict) -> None:
        hits = store.keyword_search("the new building invoices budget", 2)
        assert len(hits) == 2
        assert hits[0].score >= hits[1].score
        assert [hit.keyword_rank for hit in hits] == [1, 2]

    def test_keyword_hits_carry_cosine_to_a_given_vector(self, store: Store, library: dict) -> None:
        chunks, vectors = library["report"]
        query = near(vectors[3], seed=21, noise=0.5)
        [hit] = store.keyword_search("invoice 48213", 1, vector=query)
        assert hit.chunk == chunks[3]
        assert hit.vector_similarity == pytest.approx(float(query @ vectors[3]), abs=1e-4)
        assert store.keyword_search("invoice 48213", 1)[0].vector_similarity is None


class VectorSearchContract(StoreFixtures):
    """Nearest chunks by cosine."""

    # -- vector search ------------------------------------------------------------------------

    def test_vector_finds_nearest(self, store: Store, library: dict) -> None:
        chunks, vectors = library["memo"]
        query = near(vectors[1], seed=20)
        hits = store.vector_search(query, 4)
        assert hits[0].chunk == chunks[1]
        assert len(hits) == 4
        expected = float(query @ vectors[1])
        assert hits[0].vector_similarity == pytest.approx(expected, abs=0.02)
        assert hits[0].score == hits[0].vector_similarity
        assert [hit.vector_rank for hit in hits] == [1, 2, 3, 4]

    def test_vector_search_with_variants_ranks_by_the_best_cosine(
        self, store: Store, library: dict
    ) -> None:
        chunks, vectors = library["memo"]
        question = near(vectors[2], seed=23, noise=0.5)
        variant = near(vectors[1], seed=22)
        plain = store.vector_search(question, 2)
        hits = store.vector_search(question, 2, variants=[variant])
        # The variant's nearest chunk joins the question's, ranked by its cosine to the variant
        # but reporting its cosine to the question; no chunk appears twice.
        found = [hit.chunk for hit in hits]
        assert chunks[1] in found and chunks[1] not in [hit.chunk for hit in plain]
        assert {hit.chunk.chunk_id for hit in plain} <= {chunk.chunk_id for chunk in found}
        assert len(found) == len({chunk.chunk_id for chunk in found}) <= 4
        assert hits[0].chunk == chunks[1]
        assert hits[0].score == pytest.approx(float(variant @ vectors[1]), abs=1e-4)
        assert hits[0].vector_similarity == pytest.approx(float(question @ vectors[1]), abs=1e-4)
        stored_by_id = {
            chunk.chunk_id: vector
            for some, their in library.values()
            for chunk, vector in zip(some, their, strict=True)
        }
        for hit in hits:
            stored = stored_by_id[hit.chunk.chunk_id]
            best = max(float(question @ stored), float(variant @ stored))
            assert hit.score == pytest.approx(best, abs=1e-4)
        assert [hit.vector_rank for hit in hits] == list(range(1, len(hits) + 1))
        scores = [hit.score for hit in hits]
        assert scores == sorted(scores, reverse=True)


class FilterContract(StoreFixtures):
    """Filters apply before the top k is cut."""

    # -- filters ------------------------------------------------------------------------------

    @pytest.mark.parametrize(
        ("where", "expected"),
        [
            (Filter(source_ids=("memo", "tables")), {"memo#0", "memo#1", "memo#2", "tables#2"}),
            (Filter(modalities=(Modality.TABLE,)), {"tables#2"}),
            (Filter(pages=(1, 3)), {"memo#0", "memo#2", "report#0", "report#2", "tables#2"}),
            (Filter(source_ids=("memo",), pages=(2, 3)), {"memo#1", "memo#2"}),
            # Pages 3 and 4 of the report are printed 1 and 2.
            (Filter(printed_pages=(1, 5)), {"report#2"}),
            (Filter(pages=(4,), printed_pages=(1,)), set()),
        ],
    )
    def test_filters(self, store: Store, library: dict, where: Filter, expected: set) -> None:
        # The query holds every filler sentence, so every filler chunk matches it and the
        # filter alone decides which come back.
        query = " ".join(FILLER)
        found = {hit.chunk.chunk_id for hit in store.keyword_search(query, 50, where)}
        assert found == expected
        probe = library["memo"][1][0]
        by_vector = {hit.chunk.chunk_id for hit in store.vector_search(probe, 50, where)}
        everything = {
            chunk.chunk_id
            for chunks, _ in library.values()
            for chunk in chunks
            if where.holds(chunk)
        }
        assert by_vector == everything
        assert store.count(where) == len(everything)
        # Filters apply before the top k is cut (a prefilter), so k results still come back.
        assert len(store.keyword_search(query, 2, where)) == min(2, len(expected))
        assert len(store.vector_search(probe, 2, where)) == min(2, len(everything))


class LookupContract(StoreFixtures):
    """Counts, the chunks of a source and stored vectors."""

    # -- lookups ------------------------------------------------------------------------------

    def test_count(self, store: Store, library: dict) -> None:
        assert store.count() == 10
        assert store.count(Filter(source_ids=("report",))) == 4
        assert store.count(Filter(source_ids=("nothing",))) == 0

    def test_counts_by_modality(self, store: Store, library: dict) -> None:
        assert store.counts_by_modality() == {
            "report": {"text": 4},
            "tables": {"table": 3},
            "memo": {"text": 3},
        }
        store.delete_sources(["memo"])
        assert "memo" not in store.counts_by_modality()

    def test_chunks_of_in_document_order(self, store: Store) -> None:
        chunks, vectors = document("shuffled", [f"Paragraph number {i}." for i in range(8)], 6)
        order = [5, 2, 7, 0, 3, 6, 1, 4]
        store.replace([chunks[i] for i in order], vectors[order])
        assert [chunk.ordinal for chunk in store.chunks_of("shuffled")] == list(range(8))

    def test_chunks_by_ordinal_with_anchors(self, store: Store) -> None:
        chunks, vectors = document("deck", [f"Slide text number {i}." for i in range(6)], 7)
        chunks[2] = dataclasses.replace(chunks[2], modality=Modality.TABLE, anchor=1)
        chunks[3] = dataclasses.replace(chunks[3], modality=Modality.PICTURE, anchor=None)
        store.replace(chunks, vectors)
        found = store.chunks_by_ordinal("deck", [4, 1, 2, 99, 1])
        assert [chunk.ordinal for chunk in found] == [1, 2, 4]  # document order, missing skipped
        assert found[1] == chunks[2] and found[1].anchor == 1  # the anchor survives
        assert store.chunks_by_ordinal("deck", [3])[0].anchor is None
        assert store.chunks_by_ordinal("deck", []) == []
        assert store.chunks_by_ordinal("other", [1]) == []

    def test_vectors_for_text_hashes(self, store: Store, library: dict) -> None:
        chunks, vectors = library["report"]
        wanted = [chunks[0].embedded_sha256, chunks[3].embedded_sha256, sha256("not stored")]
        found = store.vectors_for(wanted)
        assert set(found) == set(wanted[:2])
        np.testing.assert_allclose(found[wanted[0]], vectors[0], atol=1e-6)
        np.testing.assert_allclose(found[wanted[1]], vectors[3], atol=1e-6)


class LifecycleContract(StoreFixtures):
    """Persistence, health, optimize and the one-model rule."""

    def test_persists_across_reopen(self, store: Store, store_path: Path, library: dict) -> None:
        reopened = self.reopen(store, store_path)
        try:
            assert reopened.count() == 10
            assert reopened.keyword_search("invoice 48213", 1)[0].chunk.chunk_id == "report#3"
            chunks, vectors = library["memo"]
            assert reopened.vector_search(vectors[2], 1)[0].chunk == chunks[2]
        finally:
            reopened.close()

    def test_health_counts_rows_and_optimize_catches_up(self, store: Store, library: dict) -> None:
        health = store.health()
        assert health.rows == 10 and health.location
        store.optimize()
        after = store.health()
        assert after.rows == 10
        assert after.keyword_unindexed == 0 and after.vector_unindexed == 0
        assert store.keyword_search("invoice 48213", 1)[0].chunk.chunk_id == "report#3"

    def test_empty_store_is_healthy(self, store: Store) -> None:
        assert store.health().rows == 0
        store.optimize()  # nothing to do is not an error

    def test_reused_vectors_belong_to_the_model(
        self, store: Store, store_path: Path, library: dict
    ) -> None:
        """Another model's vectors are never reused, even for the same text and dimension: an
        index of one model refuses to be opened for another (its vectors are not comparable)."""
        chunks, _ = library["report"]
        assert store.vectors_for([chunks[0].embedded_sha256])  # this model's: reused
        other = self.reopen(store, store_path, model="another-model-same-dim")
        try:
            with pytest.raises(StoreError, match="another-model-same-dim"):
                other.vectors_for([chunks[0].embedded_sha256])
            with pytest.raises(StoreError):
                other.replace(chunks[:1], unit_vectors(1, 40))
        finally:
            other.close()
        again = self.make_store(store_path, self.dim, self.model)
        try:
            assert again.count() == 10  # refusing changed nothing
        finally:
            again.close()


class SharedWritersContract(StoreFixtures):
    """Two stores on one location, as two processes or machines would open it."""

    def test_two_writers_lose_no_commit_and_see_each_other(
        self, store: Store, store_path: Path
    ) -> None:
        if SHARED_WRITERS not in store.capabilities:
            pytest.skip("the store does not claim shared writers")
        store.replace(*document("seed", ["The first commit."], seed=50))
        second = self.make_store(store_path, self.dim, self.model)
        errors: list[BaseException] = []

        def write(target: Store, name: str, seed: int) -> None:
            try:
                for i in range(6):
                    target.replace(*document(f"{name}-{i}", [f"{name} note {i}."], seed + i))
            except BaseException as error:  # reported below, not lost in the thread
                errors.append(error)

        threads = [
            threading.Thread(target=write, args=(store, "left", 60)),
            threading.Thread(target=write, args=(second, "right", 70)),
        ]
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert not errors, errors
            expected = {"seed"} | {f"{side}-{i}" for side in ("left", "right") for i in range(6)}
            assert store.source_ids() == expected
            assert second.source_ids() == expected
            assert second.keyword_search("left note 5", 1)[0].chunk.source_id == "left-5"
        finally:
            second.close()


class StoreContract(
    WriteContract,
    ReplaceVisibilityContract,
    KeywordSearchContract,
    VectorSearchContract,
    FilterContract,
    LookupContract,
    LifecycleContract,
    SharedWritersContract,
):
    """Everything a Store must show; subclasses implement `make_store`."""
