"""Tables as cells: collected from parsed blocks, named as the chunks name them, and stored."""

from __future__ import annotations

from pathlib import Path

import docx

from polyrag.chunk.tables import collect_tables
from polyrag.index.tables.sqlite import SqliteTableStore
from polyrag.parse.plain import PlainTextParser
from polyrag.parse.word import WordParser
from polyrag.types import Block, BlockKind, Locator, Table


def test_tables_of_a_markdown_file_are_numbered_like_its_chunks() -> None:
    text = (
        "# Results\n\nSome text.\n\n| Region | Q3 |\n|---|---|\n| Nordics | 4.1 |\n\n"
        "## Costs\n\n| Item | 2024 |\n|---|---|\n| Rent | 12 |\n| Food | 6 |\n"
    )
    document = PlainTextParser().parse(text.encode(), name="report.md")
    first, second = collect_tables(document.blocks)
    assert first.name == "Table 1" and first.header == ("Region", "Q3")
    assert first.rows == (("Nordics", "4.1"),) and first.locator.heading_path == ("Results",)
    assert second.name == "Table 2" and second.locator.heading_path == ("Results", "Costs")
    assert second.row_number(1) == 3  # the header is row 1, as the row sentences count


def test_word_tables_become_tables(tmp_path: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=3, cols=2)
    cells = [("Team", "Cups"), ("Leafs", "13"), ("Blues", "1")]
    for row, values in zip(table.rows, cells, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    path = tmp_path / "cups.docx"
    document.save(path)
    parsed = WordParser().parse(path.read_bytes(), name="cups.docx")
    (found,) = collect_tables(parsed.blocks)
    assert found.rows == (("Leafs", "13"), ("Blues", "1"))


def test_sheet_tables_keep_their_names_unique() -> None:
    def sheet_table(name: str) -> Block:
        table = Table(("a", "b"), (("1", "2"),), Locator(sheet=name), name=name)
        return Block(BlockKind.TABLE, "| a | b |", Locator(sheet=name), table=table)

    names = [t.name for t in collect_tables([sheet_table("S"), sheet_table("S")])]
    assert names == ["S", "S (2)"]


def test_the_table_store_keeps_cells_and_locators(tmp_path: Path) -> None:
    store = SqliteTableStore(tmp_path / "tables.sqlite")
    table = Table(
        ("Year", "Ducks"),
        (("2019", "120"), ("2020", "135")),
        Locator(sheet="Counts", rows=(4, 6)),
        name="Counts",
        title="Ducks per year",
        row_numbers=(5, 6),
        columns=("B", "C"),
    )
    other = Table(("x", "y"), (("1", "2"),), Locator(page=3), name="Table 1")
    store.put("s1", "/docs/ducks.xlsx", [table])
    store.put("s2", "/docs/other.pdf", [other])
    assert [t.table for t in store.tables(["s2", "s1"])] == [other, table]
    store.put("s1", "/docs/ducks.xlsx", [])  # a new version without tables
    assert store.tables(["s1"]) == []
    store.delete_sources(["s2"])
    assert store.tables(["s1", "s2"]) == []
    store.close()
