"""The Store contract for LanceStore on local disk."""

from __future__ import annotations

from pathlib import Path

from polyrag.index.store.lancedb import LanceStore
from polyrag.testing.store import StoreContract


class TestLanceStore(StoreContract):
    def make_store(self, location: Path, dim: int, model: str) -> LanceStore:
        return LanceStore(location, dim, model=model)


class TestLanceStoreWithEagerIndexes(StoreContract):
    """The same contract with every write optimizing and an IVF index from 8 rows on."""

    def make_store(self, location: Path, dim: int, model: str) -> LanceStore:
        return LanceStore(location, dim, model=model, fts_lag_rows=1, ann_min_rows=8)
