"""XLSX, CSV and TSV → Blocks: per table a Markdown table and one sentence per row.

A workbook sheet may hold several tables (blocks of cells divided by blank rows or columns);
each is read on its own, with its title lines, and also kept as cells (`Block.table`) with
their row numbers and column letters, for SQL. Row sentences ("Row 12: Team is Maple Leafs,
Location is TOR") keep each value beside its header, which is what a small model needs to read a
lookup correctly.

Reports laid out for print are read as their reader would: a unit line and a period above the
column names ("In millions of CHF … January–June 2023") caption the table and head each chunk
of its rows (the period also opens each row's sentence; periods over groups of columns
qualify those columns' names instead), a spacer column or row inside a table leaves it whole,
and the same header repeated lower down (the prior year's block) starts a table of its own.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TypeVar

import openpyxl

from polyrag.parse.base import Document
from polyrag.parse.encoding import decode_text
from polyrag.parse.safety import check_zip
from polyrag.parse.tables import (
    FIGURE_CELL,
    ROW_PERIOD,
    cell_at,
    clean_cell,
    detect_delimiter,
    markdown_table,
)
from polyrag.settings import LimitsSettings
from polyrag.types import Block, BlockKind, Locator, Table

TABLE_ROWS = 40  # data rows per TABLE block; each block repeats the header row
MAX_CELLS = 2_000_000  # per file; beyond this the rest of a sheet is skipped with a warning
_FIELD_LIMIT = 16 * 1024 * 1024
TITLE_LINES = 5  # lines of a single column above a table read as its titles
SAME_ROWS = 0.85  # share of filled rows two column blocks beside a spacer share to be one table
_NIL = frozenset({"—", "–", "-"})  # a figure printed as a dash
_YEAR = re.compile(r"^(?:19|20)\d\d$")


@dataclass(frozen=True)
class _Row:
    number: int  # as a person sees it: Excel's row number, or the CSV record number
    cells: tuple[str, ...]


class SpreadsheetParser:
    """Excel workbooks (.xlsx, .xlsm) and delimited text (.csv, .tsv)."""

    media_types = frozenset({"xlsx", "csv", "tsv"})
    version = "6"

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
        cells = [
            _Row(row.number, tuple(cell_at(row.cells, c) for c in columns)) for row in region_rows
        ]
        following = found[index + 1] if index + 1 < len(found) else None
        titles = following is not None and len(columns) == 1
        if titles and following is not None and len(cells) > 1:
            # Several lines are titles only when they stand above the next table, within its
            # columns.
            below, under = following
            titles = len(cells) <= TITLE_LINES and below[0].number > cells[-1].number
            titles = titles and min(under) <= columns[0] <= max(under)
        if titles:
            # Lone cells above a table are its titles ("Number of freshwater ducks per year";
            # "3.1 Operating segments", "Revenue and results"): the last one captions it.
            for row in cells:
                line = row.cells[0]
                if line.casefold() != sheet.casefold():
                    where = _rows(sheet, row.number, columns=columns)
                    blocks.append(Block(BlockKind.TEXT, line, where))
                    caption = line
            continue
        blocks += _table_blocks(sheet, cells, columns, caption)
        caption = ""
    return blocks


def _table_blocks(sheet: str, rows: list[_Row], columns: list[int], caption: str) -> list[Block]:
    blocks: list[Block] = []
    while len(rows) > 1 and len(columns) > 1 and sum(1 for cell in rows[0].cells if cell) == 1:
        title = rows.pop(0)  # a caption above the table, e.g. "Stanley Cups" in A1
        at, text = next((i, cell) for i, cell in enumerate(title.cells) if cell)
        if text.casefold() != sheet.casefold():
            where = _rows(sheet, title.number, columns=[columns[at]])
            blocks.append(Block(BlockKind.TEXT, text, where))
            caption = caption or text
    over: list[_Row] = []  # lines above the column names: a unit, periods over columns
    while (
        len(over) < 2
        and len(rows) > 2
        and _is_header(rows[0].cells)
        and _is_header(rows[1].cells)
        and _filled(rows[0].cells) < _filled(rows[1].cells)
        and any(_is_data(row.cells) for row in rows[2:])
    ):
        over.append(rows.pop(0))
    header_row, data = rows[0], rows[1:]
    if data and _headerless(header_row.cells):
        # "MC | What is 2+2? | 4 | correct": a sheet of records from its first line, whose
        # figures would have named the columns ("4 is int"); the columns go by their place.
        header_row, data = _Row(header_row.number, ("",) * len(header_row.cells)), rows
    if not data:
        text = " | ".join(cell for cell in header_row.cells if cell)
        blocks.append(Block(BlockKind.TEXT, text, _rows(sheet, header_row.number)))
        return blocks
    header = [
        cell or f"Column {column + 1}"
        for cell, column in zip(header_row.cells, columns, strict=True)
    ]
    period = ""
    for line in over:
        unit, header, period = _qualified(header, line.cells)
        # The line heads every chunk of the table's rows ("January–June 2023, In millions of
        # CHF"); as a text block of its own it became a chunk that answers nothing.
        heading = ", ".join(part for part in (period, unit) if part)
        if heading:
            caption = f"{caption}, {heading}" if caption else heading
            blocks.append(Block(BlockKind.HEADING, heading, _rows(sheet, line.number), level=2))
    header = _unique(header, columns)
    table = Table(
        header=tuple(header),
        rows=tuple(row.cells for row in data),
        locator=_rows(sheet, header_row.number, data[-1].number, columns),
        name=sheet,
        title=caption,
        row_numbers=tuple(row.number for row in data),
        columns=tuple(column_letter(c) for c in columns),
    )
    for start in range(0, len(data), TABLE_ROWS):
        piece = data[start : start + TABLE_ROWS]
        first = header_row.number if start == 0 else piece[0].number
        markdown = markdown_table([header, *(list(row.cells) for row in piece)])
        locator = _rows(sheet, first, piece[-1].number, columns)
        blocks.append(
            Block(BlockKind.TABLE, markdown, locator, table=table if start == 0 else None)
        )
    for row in data:
        # Each row says its table's period once: "PetCare's sales in January–June 2023" is the
        # row of this year's block, not last year's, nor the same row of another table.
        pairs = [f"{ROW_PERIOD} is {period}"] if period else []
        pairs += [
            f"{name} is {value}" for name, value in zip(header, row.cells, strict=True) if value
        ]
        text = f"Row {row.number}: " + ", ".join(pairs)
        blocks.append(Block(BlockKind.ROW, text, _rows(sheet, row.number, columns=columns)))
    return blocks


Region = tuple[list[_Row], list[int]]


def _regions(rows: list[_Row], columns: list[int]) -> list[Region]:
    """The tables of a sheet, top to bottom then left to right.

    Blank rows and columns divide a sheet into blocks of cells (an X-Y cut, repeated inside each
    block). A blank row is a boundary only when the blocks on either side use different
    columns or the lower one opens with column names after figures above (the prior year's
    block under this year's), and a blank column only when the blocks beside it fill different
    rows: a spacer row or column inside one table leaves it whole, even where a title line
    above the table has cells on one side of it only.
    """

    def one_table(upper: list[_Row], lower: list[_Row]) -> bool:
        if _used_columns(upper, columns) != _used_columns(lower, columns):
            return False
        return not (any(_is_data(row.cells) for row in upper) and _opens_table(lower))

    bands = _merge_alike(_row_bands(rows, columns), one_table)
    if len(bands) > 1:
        return [region for band in bands for region in _regions(band, columns)]
    used = _used_columns(rows, columns)

    def side_by_side(left: list[int], right: list[int]) -> bool:
        if _row_span(rows, left) == _row_span(rows, right):
            return True
        # Rows of one filled cell (a title line) say nothing about where columns belong.
        lines = [row for row in rows if _filled(row.cells) > 1]
        filled = [
            {row.number for row in lines if any(cell_at(row.cells, c) for c in group)}
            for group in (left, right)
        ]
        return len(filled[0] & filled[1]) >= SAME_ROWS * len(filled[0] | filled[1])

    groups = _merge_alike(_runs(used), side_by_side)
    if len(groups) > 1:
        out: list[Region] = []
        for group in groups:
            inside = [row for row in rows if any(cell_at(row.cells, c) for c in group)]
            out += _regions(inside, group)
        return out
    return [(rows, used)] if rows and used else []


def _row_bands(rows: list[_Row], columns: list[int]) -> list[list[_Row]]:
    """Runs of consecutive rows with a value in `columns`."""
    bands: list[list[_Row]] = []
    previous: int | None = None
    for row in rows:
        if not any(cell_at(row.cells, c) for c in columns):
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


def _merge_alike(parts: list[T], alike: Callable[[T, T], bool]) -> list[T]:
    """Neighbouring parts of one table joined again (a spacer inside it)."""
    merged: list[T] = []
    for part in parts:
        if merged and alike(merged[-1], part):
            merged[-1] = merged[-1] + part
        else:
            merged.append(part)
    return merged


def _row_span(rows: list[_Row], columns: list[int]) -> tuple[int, int]:
    numbers = [row.number for row in rows if any(cell_at(row.cells, c) for c in columns)]
    return (min(numbers), max(numbers)) if numbers else (0, 0)


def _qualified(header: list[str], line: tuple[str, ...]) -> tuple[str, list[str], str]:
    """The unit, the column names qualified by the line above them, and the period of the
    whole table.

    The first column's cell is the table's unit ("In millions of CHF"). One other cell is the
    period of every figure column ("January–June 2023", printed over the last one): the table's
    own, kept out of the names so that each row does not repeat it. Several each stand over a
    group of columns, printed over the group's first column when the first figure column has
    one, else over its last ("January–June 2023" over C of B and C), and qualify those."""
    unit = line[0] if line else ""
    marks = [i for i in range(1, len(header)) if cell_at(line, i)]
    if len(marks) == 1:
        return unit, header, cell_at(line, marks[0])
    names = list(header)
    for i in range(1, len(header)):
        if marks and marks[0] == 1:  # over the first column of each group
            mark = max((m for m in marks if m <= i), default=0)
        else:  # over the last column of each group
            mark = min((m for m in marks if m >= i), default=0)
        if mark:
            names[i] = f"{names[i]} ({cell_at(line, mark)})"
    return unit, names, ""


def _is_figure(cell: str) -> bool:
    return (cell in _NIL or bool(FIGURE_CELL.match(cell))) and not _YEAR.match(cell)


def _is_data(cells: tuple[str, ...]) -> bool:
    """A row of figures (a year alone is a column name, not a figure)."""
    return any(_is_figure(cell) for cell in cells)


def _headerless(cells: tuple[str, ...]) -> bool:
    """Whether a table's first line is a record, not the names of its columns: it holds a
    figure, and its figures do not number the columns ("1 | 2 | 3" stays a header)."""
    # A dash over a column is no record's figure.
    figures = [cell.replace(",", "") for cell in cells if cell not in _NIL and _is_figure(cell)]
    if not figures:
        return False
    start = figures[0]
    return not (
        start in ("0", "1") and figures == [str(int(start) + i) for i in range(len(figures))]
    )


def _is_header(cells: tuple[str, ...]) -> bool:
    """A line of names over columns: two cells or more, none of them a figure."""
    return _filled(cells) >= 2 and not _is_data(cells)


def _opens_table(band: list[_Row]) -> bool:
    """Whether a block starts with column names: its first line of several cells has no
    figure ("In millions of CHF … January–June 2022", then the names again)."""
    first = next((row for row in band if _filled(row.cells) >= 2), None)
    return first is not None and _is_header(first.cells)


def _filled(cells: tuple[str, ...]) -> int:
    return sum(1 for cell in cells if cell)


def _width(rows: list[_Row]) -> int:
    return max(len(row.cells) for row in rows)


def _used_columns(rows: list[_Row], columns: Iterable[int]) -> list[int]:
    return [c for c in columns if any(cell_at(row.cells, c) for row in rows)]


def _unique(header: list[str], columns: list[int]) -> list[str]:
    """Column names told apart by their column number where two are the same."""
    names: list[str] = []
    for name, column in zip(header, columns, strict=True):
        if name in names:
            name = f"{name} ({column + 1})"
        names.append(name)
    return names


def _rows(sheet: str, first: int, last: int | None = None, columns: Sequence[int] = ()) -> Locator:
    """Rows of a sheet, and the cells they span when `columns` (0-based) are given."""
    letters = (column_letter(min(columns)), column_letter(max(columns))) if columns else None
    return Locator(sheet=sheet, rows=(first, first if last is None else last), columns=letters)


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
