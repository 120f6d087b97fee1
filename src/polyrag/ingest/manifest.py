"""The manifest: what is indexed, from which file version, and whether it finished.

`Manifest` is the seam (a manifest could live beside a shared index, as a table in the same
database); `SqliteManifest` keeps it in one SQLite table in the home. Rows are keyed by path:
a file's absolute path, a URL, or `<parent path>#<name>` for a file carried inside another (an
e-mail attachment, an archive member), whose `parent` column names the source that holds it.
A row in status `indexing` means a run stopped between starting and finishing that source; the
next run redoes it. A parent and its children are written in one transaction, so no
half-indexed parent is ever `indexed`.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

INDEXING = "indexing"
INDEXED = "indexed"
REMOVING = "removing"  # being removed: its chunks may be gone already; the next run finishes

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sources (
    path TEXT PRIMARY KEY,
    source_id TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    media_type TEXT NOT NULL,
    parser_version TEXT NOT NULL,
    chunks INTEGER NOT NULL DEFAULT 0,
    pages INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL,
    previous_source_id TEXT,
    error TEXT,
    updated_at REAL NOT NULL,
    parent TEXT
)
"""


@dataclass(frozen=True)
class Entry:
    path: str
    source_id: str
    sha256: str
    size: int
    media_type: str
    parser_version: str
    chunks: int
    pages: int
    status: str
    # While `indexing`: the source ids of this path that may still be in the index, space
    # separated (more than one when earlier runs stopped before finishing); the commit deletes
    # them. NULL once `indexed`.
    previous_source_id: str | None
    error: str | None
    updated_at: float
    parent: str | None = None  # the source that carries this one (`path` is `<parent>#<name>`)

    @property
    def previous_ids(self) -> tuple[str, ...]:
        return tuple((self.previous_source_id or "").split())

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "path": self.path,
            "parent": self.parent,
            "sha256": self.sha256,
            "size": self.size,
            "media_type": self.media_type,
            "parser_version": self.parser_version,
            "chunks": self.chunks,
            "pages": self.pages,
            "status": self.status,
            "error": self.error,
        }


class Manifest(Protocol):
    """The sources of one index, keyed by path. Written by one ingest at a time."""

    def get(self, path: str) -> Entry | None: ...

    def all(self) -> list[Entry]:
        """Every source, by path."""
        ...

    def by_source_id(self, source_id: str) -> list[Entry]: ...

    def children(self, path: str) -> list[Entry]:
        """Every source carried inside `path`, at any depth (children before grandchildren)."""
        ...

    def top_level_under(self, folder: str) -> list[Entry]:
        """Sources given as files (not children, not URLs) whose path lies inside `folder`."""
        ...

    def find(self, id_or_path: str) -> list[Entry]:
        """Entries with this path (as given or absolute), else whose source id starts so."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """Changes made inside are kept together or not at all."""
        ...

    def begin(self, entry: Entry) -> None:
        """Record that `entry` is being indexed (status `indexing`)."""
        ...

    def finish(self, path: str, chunks: int) -> None:
        """Mark `path` indexed with this many chunks; its previous ids are forgotten."""
        ...

    def note_error(self, path: str, error: str) -> None:
        """Keep the last failure beside an indexed version (which stays searchable)."""
        ...

    def removing(self, path: str) -> None:
        """Record that `path` is being removed (status `removing`): from now on its chunks
        may be gone, so it is no longer reported as indexed."""
        ...

    def remove(self, path: str) -> None: ...

    def source_in_use(self, source_id: str, *, besides: str | Sequence[str]) -> bool:
        """Whether a path other than `besides` still holds `source_id`."""
        ...

    def close(self) -> None: ...


class SqliteManifest:
    """The manifest in a SQLite file. Safe to share between threads: every statement and
    transaction holds one lock; other processes wait for a write (busy timeout)."""

    def __init__(self, file: Path) -> None:
        file.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(file), isolation_level=None, check_same_thread=False)
        self._lock = threading.RLock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.execute(_SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """Manifests written before child sources existed gain the `parent` column."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(sources)")}
        if "parent" not in columns:
            self._db.execute("ALTER TABLE sources ADD COLUMN parent TEXT")
        self._db.execute("CREATE INDEX IF NOT EXISTS sources_parent ON sources(parent)")
        self._db.execute("CREATE INDEX IF NOT EXISTS sources_source_id ON sources(source_id)")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Statements inside commit together or not at all."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Entry]:
        with self._lock:
            return [Entry(*row) for row in self._db.execute(sql, tuple(args)).fetchall()]

    def _run(self, sql: str, args: Sequence[Any] = ()) -> None:
        with self._lock:
            self._db.execute(sql, tuple(args))

    def get(self, path: str) -> Entry | None:
        rows = self._rows("SELECT * FROM sources WHERE path = ?", (path,))
        return rows[0] if rows else None

    def all(self) -> list[Entry]:
        return self._rows("SELECT * FROM sources ORDER BY path")

    def by_source_id(self, source_id: str) -> list[Entry]:
        return self._rows("SELECT * FROM sources WHERE source_id = ? ORDER BY path", (source_id,))

    def children(self, path: str) -> list[Entry]:
        """Every source carried inside `path`, at any depth (children before grandchildren)."""
        found: list[Entry] = []
        level = [path]
        while level:
            marks = ",".join("?" * len(level))
            rows = self._rows(
                f"SELECT * FROM sources WHERE parent IN ({marks}) ORDER BY path", level
            )
            found.extend(rows)
            level = [row.path for row in rows]
        return found

    def top_level_under(self, folder: str) -> list[Entry]:
        """Sources given as files (not children, not URLs) whose path lies inside `folder`."""
        prefix = folder.rstrip("/") + "/"
        return self._rows(
            "SELECT * FROM sources WHERE parent IS NULL AND substr(path, 1, ?) = ? ORDER BY path",
            (len(prefix), prefix),
        )

    def find(self, id_or_path: str) -> list[Entry]:
        """Entries with this path (as given or absolute), else whose source id starts so."""
        absolute = str(Path(id_or_path).expanduser().resolve())
        rows = self._rows(
            "SELECT * FROM sources WHERE path IN (?, ?) ORDER BY path", (id_or_path, absolute)
        )
        if not rows and len(id_or_path) >= 6:
            rows = self._rows(
                "SELECT * FROM sources WHERE substr(source_id, 1, ?) = ? ORDER BY path",
                (len(id_or_path), id_or_path),
            )
        return rows

    def begin(self, entry: Entry) -> None:
        """Record that `entry` is being indexed (status `indexing`)."""
        self._run(
            "INSERT OR REPLACE INTO sources VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                entry.path,
                entry.source_id,
                entry.sha256,
                entry.size,
                entry.media_type,
                entry.parser_version,
                entry.chunks,
                entry.pages,
                INDEXING,
                entry.previous_source_id,
                None,
                time.time(),
                entry.parent,
            ),
        )

    def finish(self, path: str, chunks: int) -> None:
        self._run(
            "UPDATE sources SET status = ?, chunks = ?, previous_source_id = NULL, "
            "error = NULL, updated_at = ? WHERE path = ?",
            (INDEXED, chunks, time.time(), path),
        )

    def note_error(self, path: str, error: str) -> None:
        """Keep the last failure beside an indexed version (which stays searchable)."""
        self._run("UPDATE sources SET error = ? WHERE path = ?", (error, path))

    def removing(self, path: str) -> None:
        self._run(
            "UPDATE sources SET status = ?, updated_at = ? WHERE path = ?",
            (REMOVING, time.time(), path),
        )

    def remove(self, path: str) -> None:
        self._run("DELETE FROM sources WHERE path = ?", (path,))

    def source_in_use(self, source_id: str, *, besides: str | Sequence[str]) -> bool:
        """Whether a path other than `besides` still holds `source_id`."""
        others = [besides] if isinstance(besides, str) else list(besides)
        marks = ",".join("?" * len(others))
        besides_sql = f" AND path NOT IN ({marks})" if others else ""
        with self._lock:
            row = self._db.execute(
                f"SELECT 1 FROM sources WHERE source_id = ?{besides_sql} LIMIT 1",
                (source_id, *others),
            ).fetchone()
        return row is not None
