"""The manifest and table-store contracts: SQLite in the home, and LanceDB beside the index on
disk and on S3-compatible storage (moto's server on 127.0.0.1)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from polyrag.index.tables.lance import LanceTableStore
from polyrag.index.tables.sqlite import SqliteTableStore
from polyrag.ingest.lance_manifest import LanceManifest
from polyrag.ingest.manifest import SqliteManifest
from polyrag.testing.manifest import ManifestContract, TableStoreContract

from ..conftest import ObjectStore


class TestSqliteManifest(ManifestContract):
    def make_manifest(self, location: Path) -> SqliteManifest:
        return SqliteManifest(location / "manifest.sqlite")


class TestLanceManifest(ManifestContract):
    def make_manifest(self, location: Path) -> LanceManifest:
        return LanceManifest(location)


class TestLanceManifestOnS3(ManifestContract):
    @pytest.fixture(autouse=True)
    def _bucket(self, object_store: ObjectStore) -> None:
        self.bucket = object_store

    def make_manifest(self, location: Path) -> LanceManifest:
        prefix = hashlib.sha256(str(location).encode()).hexdigest()[:16]
        return LanceManifest(
            self.bucket.uri(f"manifests/{prefix}"), storage_options=self.bucket.options
        )


class TestSqliteTableStore(TableStoreContract):
    def make_table_store(self, location: Path) -> SqliteTableStore:
        return SqliteTableStore(location / "tables.sqlite")


class TestLanceTableStore(TableStoreContract):
    def make_table_store(self, location: Path) -> LanceTableStore:
        return LanceTableStore(location)
