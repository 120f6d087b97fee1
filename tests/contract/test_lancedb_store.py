"""The Store contract for LanceStore."""

from __future__ import annotations

from pathlib import Path

from polyrag.index.store.lancedb import LanceStore

from .store_contract import StoreContract


class TestLanceStore(StoreContract):
    def make_store(self, path: Path, dim: int) -> LanceStore:
        return LanceStore(path, dim)


class TestLanceStoreWithEagerIndexes(StoreContract):
    """The same contract with every write optimizing and an IVF index from 8 rows on."""

    def make_store(self, path: Path, dim: int) -> LanceStore:
        return LanceStore(path, dim, fts_lag_rows=1, ann_min_rows=8)
