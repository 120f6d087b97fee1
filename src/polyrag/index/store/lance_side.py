"""Small tables kept in the index's own LanceDB database (the manifest of sources, the tables
read from them), so that a shared index on object storage carries them along: every server and
ingest worker that opens the index sees the same sources and tables.

Each write is one commit: rows upserted by key and rows deleted, together (merge_insert). A
writer that loses a commit race to another retries.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import lancedb
import pyarrow as pa

from polyrag.errors import StoreError
from polyrag.index.store.filters import in_list
from polyrag.index.store.reasons import commit_pause, is_conflict, reason

T = TypeVar("T")
log = logging.getLogger(__name__)

COMMIT_ATTEMPTS = 8


class SideTable:
    """One small table in the LanceDB database at `location`, keyed by the column `key`."""

    def __init__(
        self,
        location: str | Path,
        name: str,
        schema: pa.Schema,
        key: str,
        *,
        storage_options: Mapping[str, str] | None = None,
        staleness: timedelta = timedelta(0),
    ) -> None:
        self.location = str(location)
        self.name = name
        self.schema = schema
        self.key = key
        self._lock = threading.RLock()
        self._db = self._call(
            lambda: lancedb.connect(
                self.location,
                read_consistency_interval=staleness,
                storage_options=dict(storage_options or {}) or None,
            )
        )
        self._table: Any = None

    def rows(
        self, where: str | None = None, columns: list[str] | None = None
    ) -> list[dict[str, Any]]:
        """The rows matching `where` (all without), in no particular order; all columns or
        these."""
        table = self._existing()
        if table is None:
            return []
        query = table.search()
        if where:
            query = query.where(where)
        if columns:
            query = query.select(columns)
        result: list[dict[str, Any]] = self._call(lambda: query.limit(None).to_arrow().to_pylist())
        return result

    def write(self, upserts: Sequence[dict[str, Any]], deletes: Sequence[str] = ()) -> None:
        """Upsert these rows by key and delete the rows with these keys, as one commit."""
        if not upserts and not deletes:
            return
        with self._lock:
            table = self._writable()
            data = pa.Table.from_pylist(list(upserts), schema=self.schema)
            doomed = [key for key in deletes if key not in {row[self.key] for row in upserts}]

            def commit() -> None:
                merge = (
                    table.merge_insert(self.key)
                    .when_matched_update_all()
                    .when_not_matched_insert_all()
                )
                if doomed:
                    merge = merge.when_not_matched_by_source_delete(in_list(self.key, doomed))
                merge.execute(data)

            self._retrying(commit)

    def delete(self, where: str) -> None:
        table = self._existing()
        if table is not None:
            with self._lock:
                self._retrying(lambda: table.delete(where))

    def _existing(self) -> Any:
        with self._lock:
            if self._table is None:
                names = self._call(lambda: list(self._db.table_names()))
                if self.name in names:
                    self._table = self._call(lambda: self._db.open_table(self.name))
            return self._table

    def _writable(self) -> Any:
        table = self._existing()
        if table is None:
            table = self._call(
                lambda: self._db.create_table(self.name, schema=self.schema, exist_ok=True)
            )
            self._table = table
        return table

    def _retrying(self, write: Callable[[], None]) -> None:
        for attempt in range(COMMIT_ATTEMPTS):
            try:
                self._call(write)
                return
            except StoreError as error:
                if not is_conflict(error) or attempt == COMMIT_ATTEMPTS - 1:
                    raise
                time.sleep(commit_pause(attempt))

    def _call(self, action: Callable[[], T]) -> T:
        try:
            return action()
        except StoreError:
            raise
        except Exception as error:  # LanceDB raises ValueError, RuntimeError, OSError, ...
            raise StoreError(
                f"the {self.name} table at {self.location} failed: {reason(error, 400)}",
                hint=(
                    "check the object store's address, credentials and bucket"
                    if "://" in self.location
                    else "check free disk space and file permissions of the polyrag home"
                ),
            ) from error
