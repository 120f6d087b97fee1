"""The manifest as a table in the index's LanceDB database (`store.uri` set): on shared object
storage, every server and ingest worker sees the same sources.

A transaction collects its changes and writes them as one commit at its end (upserts and
deletes together), so its rows change together or not at all, as with SQLite. Reads inside a
transaction see its own changes.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pyarrow as pa

from polyrag.index.store.filters import in_list, quote
from polyrag.index.store.lance_side import SideTable
from polyrag.ingest.manifest import INDEXED, INDEXING, REMOVING, Entry

TABLE = "sources"
SCHEMA = pa.schema(
    [
        pa.field("path", pa.string(), nullable=False),
        pa.field("source_id", pa.string(), nullable=False),
        pa.field("sha256", pa.string()),
        pa.field("size", pa.int64()),
        pa.field("media_type", pa.string()),
        pa.field("parser_version", pa.string()),
        pa.field("chunks", pa.int64()),
        pa.field("pages", pa.int64()),
        pa.field("status", pa.string()),
        pa.field("previous_source_id", pa.string()),
        pa.field("error", pa.string()),
        pa.field("updated_at", pa.float64()),
        pa.field("parent", pa.string()),
    ]
)


class LanceManifest:
    """Safe to share between threads: a transaction holds the lock until it commits."""

    def __init__(
        self,
        location: str | Path,
        *,
        storage_options: Mapping[str, str] | None = None,
        staleness: timedelta = timedelta(0),
    ) -> None:
        self._table = SideTable(
            location,
            TABLE,
            SCHEMA,
            "path",
            storage_options=storage_options,
            staleness=staleness,
        )
        self._lock = threading.RLock()
        self._pending: dict[str, Entry | None] | None = None  # inside a transaction

    def close(self) -> None:
        pass  # LanceDB holds no handle that needs closing

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Changes inside are written as one commit at the end, or not at all."""
        with self._lock:
            self._pending = {}
            try:
                yield
                changes = self._pending
            finally:
                self._pending = None
            self._write(changes)

    # -- reads --------------------------------------------------------------------------------

    def _entries(self, where: str | None, wanted: Callable[[Entry], bool]) -> list[Entry]:
        """Rows matching `where` (SQL for the table, `wanted` for uncommitted changes)."""
        with self._lock:
            found = {row["path"]: Entry(**row) for row in self._table.rows(where)}
            for path, entry in (self._pending or {}).items():
                found.pop(path, None)
                if entry is not None and wanted(entry):
                    found[path] = entry
        return sorted(found.values(), key=lambda entry: entry.path)

    def get(self, path: str) -> Entry | None:
        rows = self._entries(f"path = {quote(path)}", lambda e: e.path == path)
        return rows[0] if rows else None

    def all(self) -> list[Entry]:
        return self._entries(None, lambda e: True)

    def by_source_id(self, source_id: str) -> list[Entry]:
        return self._entries(f"source_id = {quote(source_id)}", lambda e: e.source_id == source_id)

    def children(self, path: str) -> list[Entry]:
        found: list[Entry] = []
        level = [path]
        while level:
            rows = self._entries(in_list("parent", level), _parent_in(set(level)))
            found.extend(rows)
            level = [row.path for row in rows]
        return found

    def top_level_under(self, folder: str) -> list[Entry]:
        prefix = folder.rstrip("/") + "/"
        return self._entries(
            f"parent IS NULL AND starts_with(path, {quote(prefix)})",
            lambda e: e.parent is None and e.path.startswith(prefix),
        )

    def find(self, id_or_path: str) -> list[Entry]:
        absolute = str(Path(id_or_path).expanduser().resolve())
        paths = {id_or_path, absolute}
        rows = self._entries(in_list("path", sorted(paths)), lambda e: e.path in paths)
        if not rows and len(id_or_path) >= 6:
            rows = self._entries(
                f"starts_with(source_id, {quote(id_or_path)})",
                lambda e: e.source_id.startswith(id_or_path),
            )
        return rows

    def source_in_use(self, source_id: str, *, besides: str | Sequence[str]) -> bool:
        others = {besides} if isinstance(besides, str) else set(besides)
        rows = self.by_source_id(source_id)
        return any(row.path not in others for row in rows)

    # -- writes -------------------------------------------------------------------------------

    def begin(self, entry: Entry) -> None:
        started = dataclasses.replace(entry, status=INDEXING, error=None, updated_at=time.time())
        self._put(entry.path, started)

    def finish(self, path: str, chunks: int) -> None:
        with self._lock:
            entry = self.get(path)
            if entry is not None:
                done = dataclasses.replace(
                    entry,
                    status=INDEXED,
                    chunks=chunks,
                    previous_source_id=None,
                    error=None,
                    updated_at=time.time(),
                )
                self._put(path, done)

    def note_error(self, path: str, error: str) -> None:
        with self._lock:
            entry = self.get(path)
            if entry is not None:
                self._put(path, dataclasses.replace(entry, error=error))

    def removing(self, path: str) -> None:
        with self._lock:
            entry = self.get(path)
            if entry is not None:
                self._put(path, dataclasses.replace(entry, status=REMOVING, updated_at=time.time()))

    def remove(self, path: str) -> None:
        self._put(path, None)

    def _put(self, path: str, entry: Entry | None) -> None:
        with self._lock:
            if self._pending is not None:
                self._pending[path] = entry
            else:
                self._write({path: entry})

    def _write(self, changes: dict[str, Entry | None]) -> None:
        upserts = [dataclasses.asdict(e) for e in changes.values() if e is not None]
        deletes = [path for path, entry in changes.items() if entry is None]
        self._table.write(upserts, deletes)


def _parent_in(parents: set[str]) -> Callable[[Entry], bool]:
    return lambda entry: entry.parent in parents
