"""XLSX, CSV and TSV → Blocks: per table a Markdown table and one sentence per row.

A workbook sheet may hold several tables (blocks of cells divided by blank rows or columns);
each is read on its own, with its title line, and also kept as cells (`Block.table`) with
their row numbers and column letters, for SQL. Row sentences ("Row 12: Team is Maple Leafs,
Location is TOR") keep each value beside its header, which is what a small model needs to read a
lookup correctly.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePath
from typing import TypeVar

import openpyxl

from polyrag.parse.base import Document
from polyrag.parse.encoding import decode_text
from polyrag.parse.safety import check_zip
from polyrag.parse.tables import clean_cell, detect_delimiter, markdown_table
from polyrag.settings import LimitsSettings
from polyrag.types import Block, BlockKind, Locator, Table

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
    version = "2"

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
            blocks.extend(_sheet_blocks(sheet, rows, regions=media_type == "xlsx"))
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


def _sheet_blocks(sheet: str, rows: list[_Row], *, regions: bool) -> list[Block]:
    """A sheet's blocks: for each table on it, its caption, Markdown pieces and row sentences.

    A workbook sheet may hold several tables side by side or one above another; `regions`
    finds them (see `_regions`). A delimited file is one table whatever its blank lines.
    """
    if not rows:
        return []
    where = Locator(sheet=sheet)
    blocks = [Block(BlockKind.BREAK, "", where), Block(BlockKind.HEADING, sheet, where, level=1)]
    found = _regions(rows, _used_columns(rows, range(_width(rows)))) if regions else []
    if not found:
        found = [(rows, _used_columns(rows, range(_width(rows))))]
    caption = ""
    for index, (region_rows, columns) in enumerate(found):
        cells = [_Row(row.number, tuple(_at(row.cells, c) for c in columns)) for row in region_rows]
        following = found[index + 1] if index + 1 < len(found) else None
        if len(cells) == 1 and len(columns) == 1 and following is not None:
            # A lone cell above a table is its title ("Number of freshwater ducks per year").
            caption = cells[0].cells[0]
            if caption.casefold() != sheet.casefold():
                blocks.append(Block(BlockKind.TEXT, caption, _rows(sheet, cells[0].number)))
            continue
        blocks += _table_blocks(sheet, cells, columns, caption)
        caption = ""
    return blocks


def _table_blocks(sheet: str, rows: list[_Row], columns: list[int], caption: str) -> list[Block]:
    blocks: list[Block] = []
    while len(rows) > 1 and len(columns) > 1 and sum(1 for cell in rows[0].cells if cell) == 1:
        title = rows.pop(0)  # a caption above the table, e.g. "Stanley Cups" in A1
        text = next(cell for cell in title.cells if cell)
        if text.casefold() != sheet.casefold():
            blocks.append(Block(BlockKind.TEXT, text, _rows(sheet, title.number)))
            caption = caption or text
    header_row, data = rows[0], rows[1:]
    if not data:
        text = " | ".join(cell for cell in header_row.cells if cell)
        blocks.append(Block(BlockKind.TEXT, text, _rows(sheet, header_row.number)))
        return blocks
    header = _header_names(header_row.cells, columns)
    table = Table(
        header=tuple(header),
        rows=tuple(row.cells for row in data),
        locator=_rows(sheet, header_row.number, data[-1].number),
        name=sheet,
        title=caption,
        row_numbers=tuple(row.number for row in data),
        columns=tuple(column_letter(c) for c in columns),
    )
    for start in range(0, len(data), TABLE_ROWS):
        piece = data[start : start + TABLE_ROWS]
        first = header_row.number if start == 0 else piece[0].number
        markdown = markdown_table([header, *(list(row.cells) for row in piece)])
        locator = _rows(sheet, first, piece[-1].number)
        blocks.append(
            Block(BlockKind.TABLE, markdown, locator, table=table if start == 0 else None)
        )
    for row in data:
        pairs = [
            f"{name} is {value}" for name, value in zip(header, row.cells, strict=True) if value
        ]
        text = f"Row {row.number}: " + ", ".join(pairs)
        blocks.append(Block(BlockKind.ROW, text, _rows(sheet, row.number)))
    return blocks


Region = tuple[list[_Row], list[int]]


def _regions(rows: list[_Row], columns: list[int]) -> list[Region]:
    """The tables of a sheet, top to bottom then left to right.

    Blank rows and columns divide a sheet into blocks of cells (an X-Y cut, repeated inside each
    block). A blank row is a boundary only when the blocks on either side use different
    columns, and a blank column only when the blocks beside it span different rows: a spacer
    row or column inside one table leaves it whole.
    """
    bands = _merge_alike(_row_bands(rows, columns), lambda band: _used_columns(band, columns))
    if len(bands) > 1:
        return [region for band in bands for region in _regions(band, columns)]
    used = _used_columns(rows, columns)
    groups = _merge_alike(_runs(used), lambda group: _row_span(rows, group))
    if len(groups) > 1:
        out: list[Region] = []
        for group in groups:
            inside = [row for row in rows if any(_at(row.cells, c) for c in group)]
            out += _regions(inside, group)
        return out
    return [(rows, used)] if rows and used else []


def _row_bands(rows: list[_Row], columns: list[int]) -> list[list[_Row]]:
    """Runs of consecutive rows with a value in `columns`."""
    bands: list[list[_Row]] = []
    previous: int | None = None
    for row in rows:
        if not any(_at(row.cells, c) for c in columns):
            previous = None
            continue
        if previous is None or row.number != previous + 1:
            bands.append([])
        bands[-1].append(row)
        previous = row.number
    return bands


def _runs(columns: list[int]) -> list[list[int]]:
    """Runs of adjacent column indexes."""
    runs: list[list[int]] = []
    for column in columns:
        if runs and column == runs[-1][-1] + 1:
            runs[-1].append(column)
        else:
            runs.append([column])
    return runs


T = TypeVar("T", list[_Row], list[int])


def _merge_alike(parts: list[T], shape: Callable[[T], object]) -> list[T]:
    """Neighbouring parts of the same shape joined again (a spacer inside one table)."""
    merged: list[T] = []
    for part in parts:
        if merged and shape(merged[-1]) == shape(part):
            merged[-1] = merged[-1] + part
        else:
            merged.append(part)
    return merged


def _row_span(rows: list[_Row], columns: list[int]) -> tuple[int, int]:
    numbers = [row.number for row in rows if any(_at(row.cells, c) for c in columns)]
    return (min(numbers), max(numbers)) if numbers else (0, 0)


def _width(rows: list[_Row]) -> int:
    return max(len(row.cells) for row in rows)


def _used_columns(rows: list[_Row], columns: Iterable[int]) -> list[int]:
    return [c for c in columns if any(_at(row.cells, c) for row in rows)]


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


def _rows(sheet: str, first: int, last: int | None = None) -> Locator:
    return Locator(sheet=sheet, rows=(first, first if last is None else last))


def column_letter(index: int) -> str:
    """Excel's name for a 0-based column index: 0 → A, 25 → Z, 26 → AA."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


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
