"""XLSX, CSV and TSV → Blocks: per sheet a Markdown table and one sentence per row.

Row sentences ("Row 12: Team is Maple Leafs, Location is TOR") keep each value beside its
header, which is what a small model needs to read a lookup correctly.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePath

import openpyxl

from polyrag.parse.base import Document
from polyrag.parse.encoding import decode_text
from polyrag.parse.safety import check_zip
from polyrag.parse.tables import clean_cell, detect_delimiter, markdown_table
from polyrag.settings import LimitsSettings
from polyrag.types import Block, BlockKind, Locator

TABLE_ROWS = 40  # data rows per TABLE block; each block repeats the header row
MAX_CELLS = 2_000_000  # per file; beyond this the rest of a sheet is skipped with a warning
_FIELD_LIMIT = 16 * 1024 * 1024


@dataclass(frozen=True)
class _Row:
    number: int  # as a person sees it: Excel's row number, or the CSV record number
    cells: tuple[str, ...]


class SpreadsheetParser:
    """Excel workbooks (.xlsx, .xlsm) and delimited text (.csv, .tsv)."""

    media_types = frozenset({"xlsx", "csv", "tsv"})
    version = "1"

    def __init__(self, limits: LimitsSettings | None = None) -> None:
        self._limits = limits or LimitsSettings()

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        warnings: list[str] = []
        if data[:2] == b"PK":
            check_zip(data, self._limits, office=True)
            sheets = list(_workbook(data, warnings))
            media_type = "xlsx"
        else:
            delimiter, rows = _delimited(data, name)
            sheets = [(PurePath(name).stem or "table", rows)]
            media_type = "tsv" if delimiter == "\t" else "csv"
        blocks: list[Block] = []
        for sheet, rows in sheets:
            blocks.extend(_sheet_blocks(sheet, rows))
        return Document(
            media_type=media_type,
            blocks=tuple(blocks),
            pages=len(sheets),
            title=None,
            warnings=tuple(warnings),
        )


def _workbook(data: bytes, warnings: list[str]) -> Iterator[tuple[str, list[_Row]]]:
    workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    budget = MAX_CELLS
    try:
        for sheet in workbook.worksheets:
            if hasattr(sheet, "reset_dimensions"):
                sheet.reset_dimensions()  # stored dimensions are often wrong; read what is there
            rows: list[_Row] = []
            for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
                budget -= len(values)
                if budget < 0:
                    warnings.append(f"sheet {sheet.title}: rows after {number - 1} were skipped")
                    break
                cells = tuple(_cell_text(value) for value in values)
                if any(cells):
                    rows.append(_Row(number, cells))
            yield sheet.title, rows
    finally:
        workbook.close()


def _delimited(data: bytes, name: str) -> tuple[str, list[_Row]]:
    text = decode_text(data).replace("\x00", "")
    tab_default = PurePath(name).suffix.lower() == ".tsv"
    delimiter = detect_delimiter(text[:65536]) or ("\t" if tab_default else ",")
    csv.field_size_limit(max(csv.field_size_limit(), _FIELD_LIMIT))
    rows = []
    for number, values in enumerate(csv.reader(io.StringIO(text), delimiter=delimiter), start=1):
        cells = tuple(clean_cell(value) for value in values)
        if any(cells):
            rows.append(_Row(number, cells))
    return delimiter, rows


def _sheet_blocks(sheet: str, rows: list[_Row]) -> list[Block]:
    if not rows:
        return []
    columns = _used_columns(rows)
    where = Locator(sheet=sheet)
    blocks = [Block(BlockKind.BREAK, "", where), Block(BlockKind.HEADING, sheet, where, level=1)]
    rows = [_Row(row.number, tuple(_at(row.cells, c) for c in columns)) for row in rows]
    while len(rows) > 1 and len(columns) > 1 and sum(1 for cell in rows[0].cells if cell) == 1:
        title = rows.pop(0)  # a caption above the table, e.g. "Stanley Cups" in A1
        text = next(cell for cell in title.cells if cell)
        if text.casefold() != sheet.casefold():
            blocks.append(Block(BlockKind.TEXT, text, _rows(sheet, title.number, title.number)))
    header_row, data = rows[0], rows[1:]
    if not data:
        text = " | ".join(cell for cell in header_row.cells if cell)
        blocks.append(
            Block(BlockKind.TEXT, text, _rows(sheet, header_row.number, header_row.number))
        )
        return blocks
    header = _header_names(header_row.cells, columns)
    for start in range(0, len(data), TABLE_ROWS):
        piece = data[start : start + TABLE_ROWS]
        first = header_row.number if start == 0 else piece[0].number
        table = markdown_table([header, *(list(row.cells) for row in piece)])
        blocks.append(Block(BlockKind.TABLE, table, _rows(sheet, first, piece[-1].number)))
    for row in data:
        pairs = [
            f"{name} is {value}" for name, value in zip(header, row.cells, strict=True) if value
        ]
        text = f"Row {row.number}: " + ", ".join(pairs)
        blocks.append(Block(BlockKind.ROW, text, _rows(sheet, row.number, row.number)))
    return blocks


def _used_columns(rows: list[_Row]) -> list[int]:
    width = max(len(row.cells) for row in rows)
    return [c for c in range(width) if any(_at(row.cells, c) for row in rows)]


def _header_names(cells: tuple[str, ...], columns: list[int]) -> list[str]:
    names: list[str] = []
    for cell, column in zip(cells, columns, strict=True):
        name = cell or f"Column {column + 1}"
        if name in names:
            name = f"{name} ({column + 1})"
        names.append(name)
    return names


def _at(cells: tuple[str, ...], index: int) -> str:
    return cells[index] if index < len(cells) else ""


def _rows(sheet: str, first: int, last: int) -> Locator:
    return Locator(sheet=sheet, rows=(first, last))


def _cell_text(value: object) -> str:
    """A cell value as Excel would show it, near enough: 13.0 → "13", a midnight date → a date."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.15g}"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0):
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return clean_cell(str(value))
