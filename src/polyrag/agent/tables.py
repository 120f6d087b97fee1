"""The tables a question may need: those of the sources retrieval found, best matches first."""

from __future__ import annotations

from collections.abc import Sequence

from polyrag.answer.evidence import content_words
from polyrag.index.tables.base import SourceTable, TableStore
from polyrag.types import Hit


def question_tables(
    store: TableStore, question: str, hits: Sequence[Hit], limit: int
) -> list[SourceTable]:
    """Up to `limit` tables of the hit sources: a table a hit came from first, then by how
    many of the question's words its name, title, header and headings share; when some share
    words, only those (a slide's chart titled only "Chart" is named by its slide's title,
    "Quarterly revenue")."""
    sources = list(dict.fromkeys(hit.chunk.source_id for hit in hits))
    if not sources:
        return []
    rank = {source: i for i, source in enumerate(sources)}
    terms = content_words(question)

    def score(item: SourceTable) -> tuple[int, int, int]:
        table = item.table
        hit_here = any(_from_table(hit, item) for hit in hits)
        named = [table.name, table.title, *table.header, *table.locator.heading_path]
        words = content_words(" ".join(named))
        return (-int(hit_here), -len(terms & words), rank[item.source_id])

    found = sorted(store.tables(sources), key=score)
    # A table none of the question's words name, beside tables some do, is only a wrong join
    # waiting to happen (a slide's "Class1" table offered with the sheet of Stanley Cups).
    named = [item for item in found if score(item)[1] < 0]
    return (named or found)[:limit]


def _from_table(hit: Hit, item: SourceTable) -> bool:
    chunk, table = hit.chunk, item.table
    if chunk.source_id != item.source_id:
        return False
    if table.locator.sheet is not None:
        rows = table.locator.rows
        inside = chunk.locator.rows is not None and rows is not None
        overlaps = inside and chunk.locator.rows[0] <= rows[1] and chunk.locator.rows[1] >= rows[0]  # type: ignore[index]
        return chunk.locator.sheet == table.locator.sheet and (
            overlaps or chunk.locator.rows is None
        )
    return any(chunk.text.startswith((f"{name}:", f"{name}\n")) for name in table.names())
