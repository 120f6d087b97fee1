"""The table seam: every table polyrag has read, as cells, by the source it came from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from polyrag.types import Table


@dataclass(frozen=True)
class SourceTable:
    """A table and the source it was read from."""

    source_id: str
    path: str
    table: Table


class TableStore(Protocol):
    """Tables keyed by source id (the hash of the source's content, so they never change).

    Written before the source's chunks are committed and deleted with them; a table whose
    source is not in the index is never asked for, since callers ask by the source ids they
    found in the index.
    """

    def put(self, source_id: str, path: str, tables: Sequence[Table]) -> None:
        """Store a source's tables, replacing any it had."""
        ...

    def tables(self, source_ids: Sequence[str]) -> list[SourceTable]:
        """The tables of these sources, in source order, each source's in document order."""
        ...

    def delete_sources(self, source_ids: Sequence[str]) -> None: ...

    def source_ids(self) -> set[str]:
        """The sources that have tables stored."""
        ...

    def close(self) -> None: ...
