"""The Store contract for LanceStore on S3-compatible object storage (moto's server on
127.0.0.1): the deployment where several servers and ingest workers share one index."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from polyrag.index.store.lancedb import LanceStore
from polyrag.testing.store import StoreContract

from ..conftest import ObjectStore


class TestLanceStoreOnS3(StoreContract):
    @pytest.fixture(autouse=True)
    def _bucket(self, object_store: ObjectStore) -> None:
        self.bucket = object_store

    def make_store(self, location: Path, dim: int, model: str) -> LanceStore:
        # One prefix per test folder, the same each time the folder is given again.
        prefix = hashlib.sha256(str(location).encode()).hexdigest()[:16]
        return LanceStore(
            self.bucket.uri(f"contract/{prefix}"),
            dim,
            model=model,
            storage_options=self.bucket.options,
        )
