"""Tables in one SQLite file beside the index, one row per table, its cells as JSON."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polyrag.index.tables.base import SourceTable
from polyrag.types import Locator, Table, TablePart

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    source_id TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    path TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (source_id, ordinal)
)
"""


class SqliteTableStore:
    """Safe to share between threads: every statement holds one lock."""

    def __init__(self, file: Path) -> None:
        file.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(file), isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.execute(_SCHEMA)

    def put(self, source_id: str, path: str, tables: Sequence[Table]) -> None:
        rows = [
            (source_id, ordinal, path, json.dumps(to_dict(table), ensure_ascii=False))
            for ordinal, table in enumerate(tables)
        ]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM tables WHERE source_id = ?", (source_id,))
                self._db.executemany("INSERT INTO tables VALUES (?, ?, ?, ?)", rows)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def tables(self, source_ids: Sequence[str]) -> list[SourceTable]:
        wanted = list(dict.fromkeys(source_ids))
        if not wanted:
            return []
        marks = ",".join("?" * len(wanted))
        with self._lock:
            rows = self._db.execute(
                f"SELECT source_id, path, data FROM tables WHERE source_id IN ({marks}) "
                "ORDER BY source_id, ordinal",
                wanted,
            ).fetchall()
        order = {source_id: i for i, source_id in enumerate(wanted)}
        found = [SourceTable(sid, path, from_dict(json.loads(data))) for sid, path, data in rows]
        return sorted(found, key=lambda item: order[item.source_id])

    def delete_sources(self, source_ids: Sequence[str]) -> None:
        if not source_ids:
            return
        marks = ",".join("?" * len(source_ids))
        with self._lock:
            self._db.execute(f"DELETE FROM tables WHERE source_id IN ({marks})", list(source_ids))

    def source_ids(self) -> set[str]:
        with self._lock:
            return {row[0] for row in self._db.execute("SELECT DISTINCT source_id FROM tables")}

    def close(self) -> None:
        with self._lock:
            self._db.close()


def to_dict(table: Table) -> dict[str, Any]:
    return {
        "name": table.name,
        "title": table.title,
        "header": list(table.header),
        "rows": [list(row) for row in table.rows],
        "locator": table.locator.to_dict(),
        "row_numbers": list(table.row_numbers),
        "columns": list(table.columns),
        "parts": [
            {"name": part.name, "first": part.first, "locator": part.locator.to_dict()}
            for part in table.parts
        ],
    }


def from_dict(data: dict[str, Any]) -> Table:
    return Table(
        header=tuple(data["header"]),
        rows=tuple(tuple(row) for row in data["rows"]),
        locator=Locator.from_dict(data.get("locator") or {}),
        name=data.get("name", ""),
        title=data.get("title", ""),
        row_numbers=tuple(data.get("row_numbers") or ()),
        columns=tuple(data.get("columns") or ()),
        parts=tuple(
            TablePart(part["name"], part["first"], Locator.from_dict(part.get("locator") or {}))
            for part in data.get("parts") or ()
        ),
    )
