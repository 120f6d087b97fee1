"""The retrieval seam: a query in, ranked hits with per-stage timings out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from polyrag.types import Filter, Hit

SearchMode = Literal["hybrid", "keyword", "vector"]
TIMING_KEYS = ("embed", "keyword", "vector", "fuse", "total")


@dataclass(frozen=True)
class RetrievalResult:
    """Hits best first; `timings_ms` has every key of TIMING_KEYS (0 for a stage not run)."""

    hits: list[Hit]
    timings_ms: dict[str, float] = field(default_factory=lambda: dict.fromkeys(TIMING_KEYS, 0.0))


class Retriever(Protocol):
    def search(
        self,
        query: str,
        k: int | None = None,
        where: Filter | None = None,
        mode: SearchMode = "hybrid",
    ) -> RetrievalResult: ...
