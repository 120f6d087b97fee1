"""Spreadsheets and delimited text: tables as Markdown and one sentence per row."""

from __future__ import annotations

import datetime as dt
import io
import shutil
from pathlib import Path

import openpyxl
import pytest

from polyrag.chunk.chunker import Chunker
from polyrag.errors import CorruptFileError, EmptyFileError, EncryptedFileError
from polyrag.parse.router import ParserRouter
from polyrag.parse.spreadsheet import TABLE_ROWS, SpreadsheetParser
from polyrag.settings import ChunkSettings
from polyrag.types import Block, BlockKind, Locator, Source

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")


def parse_file(relative: str) -> tuple[Block, ...]:
    return ParserRouter().parse((CORPUS / relative).read_bytes(), Path(relative).name).blocks


class WordCounter:
    def count_tokens(self, text: str) -> int:
        return len(text.split())


def rows_of(blocks: tuple[Block, ...]) -> list[str]:
    return [b.text for b in blocks if b.kind == BlockKind.ROW]


def test_csv_rows_are_sentences_with_their_headers() -> None:
    data = b"Team,Location,Stanley Cups\nBlues,STL,1\nMaple Leafs,TOR,13\n"
    document = SpreadsheetParser().parse(data, name="cups.csv")
    assert [b.kind for b in document.blocks[:3]] == [
        BlockKind.BREAK,
        BlockKind.HEADING,
        BlockKind.TABLE,
    ]
    assert document.blocks[1].text == "cups"
    assert rows_of(document.blocks) == [
        "Row 2: Team is Blues, Location is STL, Stanley Cups is 1",
        "Row 3: Team is Maple Leafs, Location is TOR, Stanley Cups is 13",
    ]
    last = document.blocks[-1]
    assert last.locator == Locator(sheet="cups", rows=(3, 3), columns=("A", "C"))


def test_ragged_rows_missing_headers_and_empty_columns() -> None:
    data = b"Name,,Score,\nAnn,x,1\nBob\n\nCid,y,3,extra\n"
    blocks = SpreadsheetParser().parse(data, name="ragged.csv").blocks
    assert rows_of(blocks) == [
        "Row 2: Name is Ann, Column 2 is x, Score is 1",
        "Row 3: Name is Bob",
        "Row 5: Name is Cid, Column 2 is y, Score is 3, Column 4 is extra",
    ]


def test_workbook_values_and_large_sheets() -> None:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Sales"
    sheet.append(["Day", "Units", "Price", "Paid"])
    for day in range(1, 101):
        sheet.append([dt.datetime(2024, 1, 1) + dt.timedelta(days=day - 1), day, 2.5, day % 2 == 0])
    buffer = io.BytesIO()
    workbook.save(buffer)

    document = SpreadsheetParser().parse(buffer.getvalue(), name="sales.xlsx")

    tables = [b for b in document.blocks if b.kind == BlockKind.TABLE]
    assert len(tables) == 3  # 100 data rows in pieces of at most TABLE_ROWS
    for table in tables:
        lines = table.text.splitlines()
        assert lines[0] == "| Day | Units | Price | Paid |"
        assert len(lines) - 2 <= TABLE_ROWS
    assert tables[0].locator.rows == (1, 41) and tables[1].locator.rows == (42, 81)
    rows = rows_of(document.blocks)
    assert len(rows) == 100
    assert rows[0] == "Row 2: Day is 2024-01-01, Units is 1, Price is 2.5, Paid is FALSE"


@needs_corpus
def test_stanley_cups_workbook() -> None:
    blocks = parse_file("xlsx/unstructured__stanley-cups.xlsx")
    sheets = [b.text for b in blocks if b.kind == BlockKind.HEADING]
    assert sheets == ["Stanley Cups", "Stanley Cups Since 67"]
    row = next(b for b in blocks if b.kind == BlockKind.ROW and "Maple Leafs" in b.text)
    assert row.text == "Row 5: Team is Maple Leafs, Location is TOR, Stanley Cups is 13"
    assert row.locator == Locator(sheet="Stanley Cups", rows=(5, 5), columns=("A", "C"))
    assert row.locator.describe() == "'Stanley Cups'!A5:C5"


@needs_corpus
@pytest.mark.parametrize(
    "relative",
    [
        "csv/unstructured__stanley-cups.csv",
        "csv/unstructured__stanley-cups-utf-16.csv",
        "csv/unstructured__stanley-cups-with-emoji.tsv",
    ],
)
def test_stanley_cups_in_every_encoding(relative: str) -> None:
    rows = rows_of(parse_file(relative))
    assert "Row 5: Team is Maple Leafs, Location is TOR, Stanley Cups is 13" in rows


@needs_corpus
def test_emoji_tsv_keeps_the_emoji() -> None:
    rows = rows_of(parse_file("csv/unstructured__stanley-cups-with-emoji.tsv"))
    assert "Row 6: Team is 👨\\U+1F3FB🔧, Location is TOR, Stanley Cups is 15" in rows


@needs_corpus
def test_a_table_without_column_names_starts_with_its_first_record() -> None:
    """A first line holding figures is a record ("Widget A, 10, 250.00"), not the names of
    the columns: it was read as "10 is 3" for every row below. Columns numbered "1, 2, 3"
    stay a header."""
    data = b"Widget A,2023-01-05,10,250.00\nWidget B,2023-01-06,3,75.00\n"
    assert rows_of(SpreadsheetParser().parse(data, name="sales.csv").blocks) == [
        "Row 1: Column 1 is Widget A, Column 2 is 2023-01-05, Column 3 is 10, Column 4 is 250.00",
        "Row 2: Column 1 is Widget B, Column 2 is 2023-01-06, Column 3 is 3, Column 4 is 75.00",
    ]
    priced = b"Widget A,$5.50,(3),-\nWidget B,$4.00,2,-\n"  # figures of every kind
    assert rows_of(SpreadsheetParser().parse(priced, name="p.csv").blocks)[0].startswith(
        "Row 1: Column 1 is Widget A, Column 2 is $5.50"
    )
    dashed = b"Item,-,Score\nA,x,3\n"  # a dash over a column is no figure of a record
    assert rows_of(SpreadsheetParser().parse(dashed, name="d.csv").blocks) == [
        "Row 2: Item is A, - is x, Score is 3"
    ]
    numbered = b"Item,1,2,3\nA,5,6,7\n"
    assert rows_of(SpreadsheetParser().parse(numbered, name="n.csv").blocks) == [
        "Row 2: Item is A, 1 is 5, 2 is 6, 3 is 7"
    ]


@needs_corpus
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice reads .xls")
def test_a_sheet_of_test_questions_has_no_header_line() -> None:
    rows = rows_of(parse_file("xlsx/unstructured__tests-example.xls"))
    assert rows[0] == (
        "Row 1: Column 1 is MC, Column 2 is What is 2+2?, Column 3 is 4, Column 4 is correct, "
        "Column 5 is 3, Column 6 is incorrect"
    )


def test_semicolon_and_pipe_delimiters() -> None:
    rows = rows_of(parse_file("csv/unstructured__semicolon-delimited.csv"))
    assert rows[0] == "Row 2: Lorem, ipsum is consectetur, dolor sit is adipiscing, amet is elit"
    pipe = rows_of(parse_file("csv/docling__csv-pipe.csv"))
    assert pipe[0].startswith(
        "Row 2: Index is 1, Customer Id is DD37Cf93aecA6Dc, First Name is Sheryl"
    )


@needs_corpus
def test_ragged_csv_files() -> None:
    assert rows_of(parse_file("csv/docling__csv-too-many-columns.csv"))[1] == (
        "Row 3: 1 is a, 2 is b, 3 is c, 4 is d, Column 5 is e"
    )
    assert rows_of(parse_file("csv/docling__csv-too-few-columns.csv"))[1] == (
        "Row 3: 1 is a, 2 is b, 3 is c"
    )


@needs_corpus
def test_workbook_failures() -> None:
    with pytest.raises(EmptyFileError):
        parse_file("xlsx/unstructured__empty.xlsx")
    with pytest.raises(EncryptedFileError):
        parse_file("xlsx/unstructured__password_protected.xlsx")
    with pytest.raises(CorruptFileError):
        parse_file("malformed/derived__xlsx-truncated-20KB.xlsx")


def test_a_sheet_with_several_tables_reads_each_with_its_title() -> None:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Counts"
    sheet["B2"] = "Ducks per year"
    for row, values in enumerate([("Year", "Ducks"), (2019, 120), (2020, 135)], start=4):
        sheet.cell(row, 2, values[0])
        sheet.cell(row, 3, values[1])
    for row, values in enumerate([("Site", "Geese"), ("North", 7), ("South", 9), ("East", 2)], 4):
        sheet.cell(row, 6, values[0])  # beside the first table, spanning other rows
        sheet.cell(row, 7, values[1])
    for row, values in enumerate([("Month", "Swans"), ("May", 3)], start=12):
        sheet.cell(row, 1, values[0])  # below both, in other columns
        sheet.cell(row, 2, values[1])
    buffer = io.BytesIO()
    workbook.save(buffer)

    blocks = SpreadsheetParser().parse(buffer.getvalue(), name="counts.xlsx").blocks

    tables = [b.table for b in blocks if b.table is not None]
    assert [t.header for t in tables] == [("Year", "Ducks"), ("Site", "Geese"), ("Month", "Swans")]
    ducks, geese, swans = tables
    assert ducks.title == "Ducks per year" and ducks.columns == ("B", "C")
    assert ducks.row_numbers == (5, 6) and ducks.rows == (("2019", "120"), ("2020", "135"))
    assert geese.columns == ("F", "G") and geese.row_numbers == (5, 6, 7)
    assert swans.columns == ("A", "B") and swans.locator == Locator(
        sheet="Counts", rows=(12, 13), columns=("A", "B")
    )
    assert "Row 5: Site is North, Geese is 7" in rows_of(blocks)


def test_a_spacer_row_or_column_inside_a_table_keeps_it_whole() -> None:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    for row, values in enumerate([("Item", None, "2023", "2024"), ("Rent", None, 10, 12)], 1):
        for column, value in enumerate(values, start=1):
            sheet.cell(row, column, value)
    sheet.append([])  # a blank spacer row, then more rows of the same columns
    sheet.append(["Food", None, 5, 6])
    buffer = io.BytesIO()
    workbook.save(buffer)

    blocks = SpreadsheetParser().parse(buffer.getvalue(), name="budget.xlsx").blocks

    (table,) = [b.table for b in blocks if b.table is not None]
    assert table.header == ("Item", "2023", "2024") and table.columns == ("A", "C", "D")
    assert table.row_numbers == (2, 4)


def test_a_csv_with_blank_lines_is_one_table() -> None:
    blocks = SpreadsheetParser().parse(b"a,b\n1,2\n\n3,4,5\n", name="t.csv").blocks
    (table,) = [b.table for b in blocks if b.table is not None]
    assert table.row_numbers == (2, 4) and table.columns == ("A", "B", "C")


def test_a_report_laid_out_for_print_is_read_as_its_reader_would() -> None:
    """A unit and a period over the column names, spacer columns, titles above, and last
    year's block under this year's (the layout of a half-year report's segment sheet)."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Segments"
    sheet["A1"] = "3.1 Operating segments"
    sheet["A2"] = "Revenue and results"
    for top, period, figures in (
        (4, "January–June 2023", (9467, 1570, -197)),
        (11, "January–June 2022", (9283, 1606, -112)),
    ):
        sheet.cell(top, 1, "In millions of CHF")
        sheet.cell(top, 6, period)  # printed over the last column
        for column, name in ((2, "Sales"), (3, "Trading operating profit"), (5, "Net other")):
            sheet.cell(top + 1, column, name)  # column D is a spacer
        for row, zone in ((top + 3, "Zone NA"), (top + 4, "Zone EUR")):  # a spacer row above
            sheet.cell(row, 1, zone)
            for column, value in zip((2, 3, 5), figures, strict=True):
                sheet.cell(row, column, value + (row - top))
        sheet.cell(top + 4, 6, "x")  # a note column under the period
    buffer = io.BytesIO()
    workbook.save(buffer)

    blocks = SpreadsheetParser().parse(buffer.getvalue(), name="segments.xlsx").blocks

    this_year, last_year = [b.table for b in blocks if b.table is not None]
    assert this_year.columns == ("A", "B", "C", "E", "F")
    assert this_year.header == (
        "Column 1",
        "Sales",
        "Trading operating profit",
        "Net other",
        "Column 6",
    )
    assert this_year.title == "Revenue and results, January–June 2023, In millions of CHF"
    assert this_year.row_numbers == (7, 8) and last_year.row_numbers == (14, 15)
    assert last_year.title == "January–June 2022, In millions of CHF"
    assert rows_of(blocks)[1].startswith(
        "Row 8: Period is January–June 2023, Column 1 is Zone EUR, Sales is 9471,"
    )
    texts = [b.text for b in blocks if b.kind is BlockKind.TEXT]
    assert texts == ["3.1 Operating segments", "Revenue and results"]
    # The period and unit head every chunk of their table's rows.
    headings = [b.text for b in blocks if b.kind is BlockKind.HEADING]
    assert headings == [
        "Segments",
        "January–June 2023, In millions of CHF",
        "January–June 2022, In millions of CHF",
    ]
    source = Source("s1", "/docs/segments.xlsx", "f" * 64, 1, "xlsx")
    chunks = Chunker(WordCounter(), ChunkSettings()).chunk(source, blocks)
    row_8 = next(c for c in chunks if "Zone EUR, Sales is 9471" in c.text)
    assert "Period is January–June 2022" in rows_of(blocks)[2]
    assert row_8.locator.heading_path == ("Segments", "January–June 2023, In millions of CHF")
    assert not any(c.text.startswith("January–June") for c in chunks)  # no chunk of its own


def test_groups_of_columns_under_their_periods() -> None:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["In millions", None, "2023 half", None, None, "2022 half"])
    sheet.append([None, "Goodwill", "Intangibles", None, "Goodwill", "Intangibles"])
    sheet.append(["Zone NA", 0, -9, None, 0, -285])
    buffer = io.BytesIO()
    workbook.save(buffer)

    (table,) = [
        b.table
        for b in SpreadsheetParser().parse(buffer.getvalue(), name="other.xlsx").blocks
        if b.table is not None
    ]
    assert table.header == (
        "Column 1",
        "Goodwill (2023 half)",
        "Intangibles (2023 half)",
        "Goodwill (2022 half)",
        "Intangibles (2022 half)",
    )
    assert table.rows == (("Zone NA", "0", "-9", "0", "-285"),)
