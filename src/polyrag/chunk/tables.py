"""A source's tables as cells, named the way its chunks name them, for SQL over them.

A spreadsheet's tables come from its parser with their row numbers and column letters
(`Block.table`) and are named by their sheet ("Sheet2", then "Sheet2 (2)" for the next table on
it). Every other table (PDF, Word, slides, web pages, Markdown) is read back from its Markdown
and named as the chunker numbers it ("Table 3"), so a SQL result and a retrieved chunk speak of
the same table.

A PDF table printed over several pages is one table here (the chunks keep one per page): a
piece that opens its page, under the same header as the last table of the page before and with
no caption of its own, goes on that table, so a sum or a largest value runs over all its rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from polyrag.chunk.figures import read_table
from polyrag.types import Block, BlockKind, Locator, Table, TablePart

TABLES_VERSION = "tables5"  # changes whenever the tables of an unchanged file would change
MIN_ROWS = 1  # data rows a table needs to be worth querying


def is_numbered_table(block: Block) -> bool:
    """Whether the chunker numbers this block as "Table n" (every table but a sheet's)."""
    is_table = block.kind is BlockKind.TABLE and block.locator.sheet is None
    return is_table and bool(block.text.strip())


def collect_tables(blocks: Iterable[Block]) -> list[Table]:
    """The tables among a source's blocks, in document order, each with a unique name."""
    tables: list[Table] = []
    headings: list[tuple[int, str]] = []
    number = 0
    page: int | None = None  # the page of the blocks read so far
    opens_page = False  # whether nothing but page breaks came yet on that page
    ends_on: int | None = None  # the page the last numbered table ends on
    for block in blocks:
        if block.locator.page != page:
            page, opens_page = block.locator.page, True
        first_on_page, opens_page = opens_page, opens_page and block.kind is BlockKind.BREAK
        if block.kind is BlockKind.BREAK:
            headings.clear()
        elif block.kind is BlockKind.HEADING and block.text.strip():
            level = max(block.level, 1)
            headings[:] = [(lvl, text) for lvl, text in headings if lvl < level]
            headings.append((level, " ".join(block.text.split())))
        if block.table is not None:
            tables.append(block.table)
            ends_on = None
            continue
        if not is_numbered_table(block):
            continue
        number += 1
        text = read_table(block.text)
        if text is None or len(text.rows) < MIN_ROWS or len(text.header) < 2:
            ends_on = None
            continue
        earlier = tables[-1] if tables else None
        if (
            first_on_page
            and earlier is not None
            and page is not None
            and ends_on == page - 1
            and earlier.header == text.header
            and text.caption in ("", earlier.title)
        ):
            tables[-1] = _goes_on(earlier, f"Table {number}", text.rows, block.locator)
            ends_on = page
            continue
        path = block.locator.heading_path or tuple(title for _, title in headings)
        tables.append(
            Table(
                header=text.header,
                rows=text.rows,
                locator=replace(block.locator, heading_path=path),
                name=f"Table {number}",
                title=text.caption,
            )
        )
        ends_on = page
    return _unique_names(tables)


def _goes_on(table: Table, name: str, rows: tuple[tuple[str, ...], ...], locator: Locator) -> Table:
    """`table` with the next page's piece of it appended."""
    parts = table.parts or (TablePart(table.name, 0, table.locator),)
    piece = TablePart(
        name, len(table.rows), replace(locator, heading_path=table.locator.heading_path)
    )
    return replace(table, rows=table.rows + rows, parts=(*parts, piece))


def _unique_names(tables: list[Table]) -> list[Table]:
    seen: dict[str, int] = {}
    out = []
    for table in tables:
        count = seen.get(table.name, 0) + 1
        seen[table.name] = count
        out.append(table if count == 1 else replace(table, name=f"{table.name} ({count})"))
    return out
