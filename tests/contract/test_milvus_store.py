"""The Store contract for MilvusStore on Milvus Lite (a local .db file, run in this process).

pymilvus and milvus-lite come with the `dev` extra (and the `milvus` one).
"""

from __future__ import annotations

from pathlib import Path

from polyrag.index.store.milvus import MilvusStore
from polyrag.testing.store import StoreContract


class TestMilvusLiteStore(StoreContract):
    def make_store(self, location: Path, dim: int, model: str) -> MilvusStore:
        location.mkdir(parents=True, exist_ok=True)
        return MilvusStore(location / "milvus.db", dim, model=model)
