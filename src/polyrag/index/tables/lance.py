"""Tables as rows of a table in the index's LanceDB database (`store.uri` set), so that every
server sharing the index can answer with SQL over them. One row per table, cells as JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import timedelta
from pathlib import Path

import pyarrow as pa

from polyrag.index.store.filters import in_list, quote
from polyrag.index.store.lance_side import SideTable
from polyrag.index.tables.base import SourceTable
from polyrag.index.tables.sqlite import from_dict, to_dict
from polyrag.types import Table

TABLE = "source_tables"
SCHEMA = pa.schema(
    [
        pa.field("table_id", pa.string(), nullable=False),  # <source id>#<ordinal>
        pa.field("source_id", pa.string(), nullable=False),
        pa.field("ordinal", pa.int32()),
        pa.field("path", pa.string()),
        pa.field("data", pa.string()),
    ]
)


class LanceTableStore:
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
            "table_id",
            storage_options=storage_options,
            staleness=staleness,
        )

    def put(self, source_id: str, path: str, tables: Sequence[Table]) -> None:
        rows = [
            {
                "table_id": f"{source_id}#{ordinal}",
                "source_id": source_id,
                "ordinal": ordinal,
                "path": path,
                "data": json.dumps(to_dict(table), ensure_ascii=False),
            }
            for ordinal, table in enumerate(tables)
        ]
        kept = {row["table_id"] for row in rows}
        stale = [
            row["table_id"]
            for row in self._table.rows(f"source_id = {quote(source_id)}", ["table_id"])
            if row["table_id"] not in kept
        ]
        self._table.write(rows, stale)

    def tables(self, source_ids: Sequence[str]) -> list[SourceTable]:
        wanted = list(dict.fromkeys(source_ids))
        if not wanted:
            return []
        rows = self._table.rows(in_list("source_id", wanted))
        order = {source_id: i for i, source_id in enumerate(wanted)}
        rows.sort(key=lambda row: (order[row["source_id"]], row["ordinal"]))
        return [
            SourceTable(row["source_id"], row["path"], from_dict(json.loads(row["data"])))
            for row in rows
        ]

    def delete_sources(self, source_ids: Sequence[str]) -> None:
        if source_ids:
            self._table.delete(in_list("source_id", source_ids))

    def source_ids(self) -> set[str]:
        return {row["source_id"] for row in self._table.rows(columns=["source_id"])}

    def close(self) -> None:
        pass  # LanceDB holds no handle that needs closing
