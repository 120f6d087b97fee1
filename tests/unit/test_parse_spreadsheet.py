"""Spreadsheets and delimited text: tables as Markdown and one sentence per row."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import openpyxl
import pytest

from polyrag.errors import CorruptFileError, EmptyFileError, EncryptedFileError
from polyrag.parse.router import ParserRouter
from polyrag.parse.spreadsheet import TABLE_ROWS, SpreadsheetParser
from polyrag.types import Block, BlockKind, Locator

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")


def parse_file(relative: str) -> tuple[Block, ...]:
    return ParserRouter().parse((CORPUS / relative).read_bytes(), Path(relative).name).blocks


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
    assert last.locator == Locator(sheet="cups", rows=(3, 3))


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
    assert row.locator == Locator(sheet="Stanley Cups", rows=(5, 5))


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
