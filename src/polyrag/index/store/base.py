"""The store seam: chunks with vectors, keyword and vector search, atomic replace, delete."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from polyrag.types import Chunk, Filter, Hit


class Store(Protocol):
    """A persistent index of chunks. Every backend passes `tests/contract/store_contract.py`."""

    def replace(
        self, chunks: Sequence[Chunk], vectors: np.ndarray, *, replaces: Sequence[str] = ()
    ) -> None:
        """Add `chunks` and delete every chunk of the source ids in `replaces`, as one commit.

        Readers see either the state before or the state after, never a mix. Adding a chunk id
        that exists overwrites it, so a repeated call is harmless.
        """
        ...

    def delete_sources(self, source_ids: Sequence[str]) -> int:
        """Delete every chunk of these sources; returns how many were deleted."""
        ...

    def keyword_search(
        self, query: str, k: int, where: Filter | None = None, *, vector: np.ndarray | None = None
    ) -> list[Hit]:
        """BM25 over chunk text, best first; `score` is the BM25 score.

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
        similarity_to: np.ndarray | None = None,
    ) -> list[Hit]:
        """Nearest chunks by cosine, best first; `score` and `vector_similarity` are cosines.

        Given `similarity_to`, `vector_similarity` is the cosine to that vector instead (a
        search with a variant of the question still reports similarity to the question).
        """
        ...

    def count(self, where: Filter | None = None) -> int: ...

    def source_ids(self) -> set[str]: ...

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
        """Stored vectors keyed by `Chunk.embedded_sha256` (the sha256 of the text that was
        embedded: heading path and chunk text), for the hashes given.

        Lets ingestion skip re-embedding text that is already indexed.
        """
        ...
