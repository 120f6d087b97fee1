"""Filters as SQL predicates for stores that take SQL (LanceDB's prefilter, DataFusion dialect)."""

from __future__ import annotations

from collections.abc import Iterable

from polyrag.types import Filter


def quote(value: str) -> str:
    """A SQL string literal; a quote inside is doubled, so no value can end the literal early."""
    return "'" + value.replace("'", "''") + "'"


def in_list(column: str, values: Iterable[str]) -> str:
    """`column IN ('a', 'b')`; an empty list gives a predicate that matches nothing."""
    quoted = [quote(value) for value in values]
    return f"{column} IN ({', '.join(quoted)})" if quoted else "FALSE"


def filter_sql(where: Filter | None) -> str | None:
    """The predicate for a Filter, or None when it restricts nothing."""
    if where is None or where.is_empty():
        return None
    parts: list[str] = []
    if where.source_ids:
        parts.append(in_list("source_id", where.source_ids))
    if where.modalities:
        parts.append(in_list("modality", (str(m) for m in where.modalities)))
    if where.pages:
        pages = ", ".join(str(int(page)) for page in where.pages)
        parts.append(f"page IN ({pages})")
    if where.printed_pages:
        printed = ", ".join(str(int(page)) for page in where.printed_pages)
        parts.append(f"printed_page IN ({printed})")
    return " AND ".join(f"({part})" for part in parts)
