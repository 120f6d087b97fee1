"""The store seam: chunks with vectors, keyword and vector search, atomic replace, delete.

A backend is a class with the methods of `Store`; it is done when the contract suite in
`polyrag.testing.store` passes for it (the parts for the capabilities it claims).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from polyrag.errors import StoreError
from polyrag.types import Chunk, Filter, Hit

# What a backend may or may not be able to do; each store lists the ones it has.
ATOMIC_REPLACE = "atomic_replace"
"""`replace` adds the new chunks and deletes the replaced sources in one commit: readers see the
old version or the new one, never both and never neither. A store without it adds first and
deletes after, so a reader may briefly see both versions, but never neither."""
SHARED_WRITERS = "shared_writers"
"""Several processes (or machines, on shared storage) may open and write the same index at once;
no commit is lost and each sees the others' commits within the store's staleness."""
CAPABILITIES = frozenset({ATOMIC_REPLACE, SHARED_WRITERS})


@dataclass(frozen=True)
class StoreHealth:
    """What `polyrag status` and a server's health check report about an index."""

    rows: int
    keyword_unindexed: int  # rows keyword search finds by a slower path until `optimize()`
    vector_index: str | None  # None: vector search is exact (flat)
    vector_unindexed: int
    location: str  # where the index lives (a folder, an s3:// URI, a server address)

    @classmethod
    def empty(cls, location: str) -> StoreHealth:
        """An index nothing has been written to yet."""
        return cls(rows=0, keyword_unindexed=0, vector_index=None, vector_unindexed=0,
                   location=location)  # fmt: skip


def checked_vectors(chunks: Sequence[Chunk], vectors: np.ndarray, dim: int) -> np.ndarray:
    """`vectors` as float32, one row of `dim` per chunk, or a StoreError saying what came."""
    out = np.asarray(vectors, dtype=np.float32)
    if out.ndim != 2 or out.shape[0] != len(chunks) or out.shape[1] != dim:
        raise StoreError(f"expected {len(chunks)} vectors of {dim} dimensions, got {out.shape}")
    return out


def best_cosines(
    stored: np.ndarray, vector: np.ndarray, variants: Sequence[np.ndarray] = ()
) -> tuple[np.ndarray, np.ndarray]:
    """Each stored vector's best cosine to `vector` or any of `variants`, and its cosine to
    `vector` alone: a vector search's `score` and `vector_similarity`."""
    queries = np.stack([vector, *variants]).astype(np.float32)
    norms = np.linalg.norm(stored, axis=1)[:, None] * np.linalg.norm(queries, axis=1)[None, :]
    cosines = np.clip((stored @ queries.T) / np.where(norms > 0, norms, 1.0), -1.0, 1.0)
    return cosines.max(axis=1), cosines[:, 0]


class Store(Protocol):
    """A persistent index of chunks and the vectors of one embedding model."""

    dim: int
    model: str  # the embedding model whose vectors this store holds and reuses
    capabilities: frozenset[str]  # a subset of CAPABILITIES

    def replace(
        self, chunks: Sequence[Chunk], vectors: np.ndarray, *, replaces: Sequence[str] = ()
    ) -> None:
        """Add `chunks` and delete every chunk of the source ids in `replaces` that is not
        among them: as one commit where the store has ATOMIC_REPLACE.

        Adding a chunk id that exists overwrites it, so a repeated call is harmless.
        """
        ...

    def delete_sources(self, source_ids: Sequence[str]) -> int:
        """Delete every chunk of these sources; returns how many were deleted."""
        ...

    def keyword_search(
        self, query: str, k: int, where: Filter | None = None, *, vector: np.ndarray | None = None
    ) -> list[Hit]:
        """BM25 over each chunk's `keyword_text` (its nearest heading, then its text), best first;
        `score` is the BM25 score.

        Given the query's `vector`, each hit's `vector_similarity` is its stored vector's cosine
        to it (the answer stage judges evidence by similarity, also for keyword-only hits).
        """
        ...

    def vector_search(
        self,
        vector: np.ndarray,
        k: int,
        where: Filter | None = None,
        *,
        variants: Sequence[np.ndarray] = (),
    ) -> list[Hit]:
        """Nearest chunks by cosine, best first; `score` and `vector_similarity` are cosines.

        Given `variants` (other forms of the same question), the k nearest chunks to each of
        them join the k nearest to `vector`, in one search where the engine allows: a chunk's
        `score` (which ranks) is then its best cosine to any of the vectors, and its
        `vector_similarity` stays its cosine to `vector` (what the refusal gates read).
        """
        ...

    def count(self, where: Filter | None = None) -> int: ...

    def source_ids(self) -> set[str]: ...

    def source_paths(self) -> dict[str, str]:
        """Each source's path (source id → path): the files a question may name."""
        ...

    def counts_by_modality(self) -> dict[str, dict[str, int]]:
        """Chunks per source and modality: source id → {"text": n, "table": n, ...}."""
        ...

    def chunks_of(self, source_id: str) -> list[Chunk]:
        """Every chunk of a source, in document order."""
        ...

    def chunks_by_ordinal(self, source_id: str, ordinals: Sequence[int]) -> list[Chunk]:
        """The chunks of a source at these ordinals, in document order; missing ones are skipped.

        The answer stage fetches a table's or picture's parent text chunk (its `anchor`) this way.
        """
        ...

    def vectors_for(self, texts_by_hash: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors of this store's `model`, keyed by `Chunk.embedded_sha256` (the sha256
        of the text that was embedded: heading path and chunk text), for the hashes given.

        Lets ingestion skip re-embedding text that is already indexed. A vector another model
        made for the same text is never returned.
        """
        ...

    # -- lifecycle ---------------------------------------------------------------------------

    def optimize(self) -> None:
        """Fold rows written since the last call into the indexes (the end of an ingest run)."""
        ...

    def health(self) -> StoreHealth:
        """Rows and how far each index lags behind them; raises StoreError when unreachable."""
        ...

    def close(self) -> None:
        """Release connections and threads; the store is not used afterwards."""
        ...
