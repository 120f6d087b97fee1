"""The manifest: what is indexed, from which file version, and whether it finished.

One SQLite table keyed by absolute path. A row in status `indexing` means a run stopped
between starting and finishing that file; the next run redoes it.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

INDEXING = "indexing"
INDEXED = "indexed"

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
    updated_at REAL NOT NULL
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
    previous_source_id: str | None
    error: str | None
    updated_at: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "path": self.path,
            "sha256": self.sha256,
            "size": self.size,
            "media_type": self.media_type,
            "parser_version": self.parser_version,
            "chunks": self.chunks,
            "pages": self.pages,
            "status": self.status,
            "error": self.error,
        }


class Manifest:
    def __init__(self, file: Path) -> None:
        file.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(file), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def get(self, path: str) -> Entry | None:
        row = self._db.execute("SELECT * FROM sources WHERE path = ?", (path,)).fetchone()
        return Entry(*row) if row else None

    def all(self) -> list[Entry]:
        rows = self._db.execute("SELECT * FROM sources ORDER BY path").fetchall()
        return [Entry(*row) for row in rows]

    def by_source_id(self, source_id: str) -> list[Entry]:
        rows = self._db.execute(
            "SELECT * FROM sources WHERE source_id = ? ORDER BY path", (source_id,)
        ).fetchall()
        return [Entry(*row) for row in rows]

    def find(self, id_or_path: str) -> list[Entry]:
        """Entries with this path (as given or absolute), else whose source id starts so."""
        absolute = str(Path(id_or_path).expanduser().resolve())
        rows = self._db.execute(
            "SELECT * FROM sources WHERE path IN (?, ?) ORDER BY path", (id_or_path, absolute)
        ).fetchall()
        if not rows and len(id_or_path) >= 6:
            rows = self._db.execute(
                "SELECT * FROM sources WHERE substr(source_id, 1, ?) = ? ORDER BY path",
                (len(id_or_path), id_or_path),
            ).fetchall()
        return [Entry(*row) for row in rows]

    def begin(self, entry: Entry) -> None:
        """Record that `entry` is being indexed (status `indexing`)."""
        self._db.execute(
            "INSERT OR REPLACE INTO sources VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
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
            ),
        )

    def finish(self, path: str, chunks: int) -> None:
        self._db.execute(
            "UPDATE sources SET status = ?, chunks = ?, previous_source_id = NULL, "
            "error = NULL, updated_at = ? WHERE path = ?",
            (INDEXED, chunks, time.time(), path),
        )

    def note_error(self, path: str, error: str) -> None:
        """Keep the last failure beside an indexed version (which stays searchable)."""
        self._db.execute("UPDATE sources SET error = ? WHERE path = ?", (error, path))

    def remove(self, path: str) -> None:
        self._db.execute("DELETE FROM sources WHERE path = ?", (path,))

    def source_in_use(self, source_id: str, *, besides: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM sources WHERE source_id = ? AND path != ? LIMIT 1", (source_id, besides)
        ).fetchone()
        return row is not None
