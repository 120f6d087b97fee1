"""Ruled tables on PDF pages → Markdown TABLE blocks at their place in the page's text.

pdfplumber finds tables from the lines drawn around their cells. It interprets the page's
content in Python (~0.1-1.5 s a page on 2 cores, against ~0.01 s for the text layer), so it is
asked only about pages that PDFium says draw a grid, at most `MAX_TABLE_PAGES` per file, and a
file whose searched pages keep giving nothing is given up on (`FRUITLESS_PAGES`). A grid that
rules its rows and the lines between its columns but not its outer sides is given its sides
(`open_sides`), else its first and last columns would be lost. Government reports rule bands
of several rows as one cell ("Alabama Alaska Arizona" beside "18,870 209 2,303"), print several
columns' names in one cell or under a group's name, and rule their title and notes into the
grid: the bands are split into rows, the names given to their columns, the title kept as the
caption and the notes left as text. Tables without ruling (columns
aligned by spaces alone, like most annual reports' statements) are found from the text lines by
pdf_statements.py and pdf_grids.py.

Used by the PDF parser (parse/pdf.py):

    tables = PdfTables(data)                       # once per file
    found = tables.on_page(page, index)            # pdfium page, 0-based index
    for run in with_tables(lines, found, box=lambda line: line.box):
        if isinstance(run, PdfTable):
            blocks.append(run.block(number))       # a TABLE block with its bbox
        else:
            ... # the lines outside tables, as the parser made blocks of them before
"""

from __future__ import annotations

import ctypes
import io
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from polyrag.parse.tables import cell_at, clean_cell, markdown_table
from polyrag.types import Block, BlockKind, Locator

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points, y up (as Locator.bbox)
T = TypeVar("T")

MAX_TABLE_PAGES = 100  # pages per file handed to pdfplumber
FRUITLESS_PAGES = 5  # searched pages without a table after which a file is given up on, plus
# two for every page that had one: its rules are decoration, not grids
MIN_RULES = 6  # rules or boxes a page must draw before it is searched for tables
_THIN = 2.0  # points: a path this thin is a rule, not an area
_LONG_CELL = 300  # a cell longer than this means a box around prose, not a table
_MIN_CELLS = 4  # non-empty cells a table needs
_HEADER_BANDS = 3  # ruled bands at a grid's top searched for names spread over columns
_SAME_LINE = 2.0  # points: words whose tops differ by less stand on one line
_NAME_GAP = 0.8  # line heights between two columns' names at least (a word space is ~0.3)
_UNITS = frozenset({"$", "€", "£", "¥", "US$", "CHF"})
_INSIDE = 0.8  # share of a text line's width inside a table for the line to be the table's
_SAME_EDGE = 6.0  # points: a table's edges on two pages, this close, are the same table's
_TOUCH = 3.0  # points: rule ends this close meet (pdfplumber's own snap tolerance)
_MIN_INNER_LINES = 2  # lines between columns a grid without sides needs (one may split a page)
_SPACED_DATE = re.compile(r"\d{1,2}([/.-])\d{1,2}\1\d{2,4}|\d{4}-\d{2}-\d{2}")
_DIGIT = re.compile(r"\d")
_NUMBER = re.compile(r"^[-+(]?[$€£¥]?\s?\(?[\d.,]+\)?%?$|^[—–-]$")


@dataclass(frozen=True)
class PdfTable:
    """One table found on a page: its Markdown and where it sits."""

    markdown: str
    bbox: Box
    rows: int
    columns: int
    cells: tuple[tuple[str, ...], ...] = ()  # a ruled table's rows, its header first
    caption: str = ""  # the caption printed with it ("Table 1 Potentiodynamic …"), if known

    @property
    def headless(self) -> bool:
        """Whether its header names no column: its figures start on its first ruled row, or
        that row is a section title alone ("CASH FLOWS FROM OPERATING ACTIVITIES")."""
        return bool(self.cells) and not any(self.cells[0][1:])

    def with_header(self, header: Sequence[str]) -> PdfTable:
        """The table under this header; a section title that stood in its place is a row."""
        kept = self.cells if any(self.cells[0]) else self.cells[1:]
        rows = (tuple(header), *kept)
        return replace(self, markdown=markdown_table(rows), rows=len(rows), cells=rows)

    def continues(self, earlier: PdfTable) -> bool:
        """Whether this headless table goes on with `earlier` (the last table of the page
        before): as many columns, the same width on the page, and `earlier` names its columns.
        Tables running over pages repeat their header rarely; without this, every page's part
        of a list of notices read its first notice as the column names."""
        return (
            self.headless
            and bool(earlier.cells)
            and any(earlier.cells[0][1:])
            and self.columns == earlier.columns
            and abs(self.bbox[0] - earlier.bbox[0]) <= _SAME_EDGE
            and abs(self.bbox[2] - earlier.bbox[2]) <= _SAME_EDGE
        )

    def covers(self, box: Box | None) -> bool:
        """Whether a text line with this box lies inside the table: its middle is within the
        table's height and most of its width within the table's. A line running well past
        the grid holds words the grid does not (a cost column drawn without rules): it stays
        text, so that nothing on the page is lost."""
        if box is None:
            return False
        x0, y0, x1, y1 = self.bbox
        if not y0 - 1 <= (box[1] + box[3]) / 2 <= y1 + 1:
            return False
        width = box[2] - box[0]
        if width <= 0:
            return x0 - 1 <= box[0] <= x1 + 1
        inside = min(box[2], x1 + 1) - max(box[0], x0 - 1)
        return inside >= _INSIDE * width

    def block(self, page: int, caption: str = "") -> Block:
        """The TABLE block; its caption (or a statement's title) goes above the Markdown."""
        bbox = tuple(round(value, 1) for value in self.bbox)
        caption = self.caption or caption
        text = f"{caption}\n{self.markdown}" if caption else self.markdown
        return Block(BlockKind.TABLE, text, Locator(page=page, bbox=bbox))  # type: ignore[arg-type]


class PdfTables:
    """Finds the ruled tables of one PDF's pages; make one per file."""

    def __init__(self, data: bytes, max_pages: int = MAX_TABLE_PAGES) -> None:
        self._data = data
        self._pages_left = max_pages
        self._pdf: Any = None  # pdfplumber.PDF, opened on the first page worth searching
        self._failed = False
        self._fruitful = 0
        self._fruitless = 0
        self.searched = 0  # pages handed to pdfplumber
        self.warnings: list[str] = []

    def on_page(self, page: pdfium.PdfPage, index: int) -> list[PdfTable]:
        """The tables on page `index` (0-based), top to bottom; [] for pages without rules."""
        if self._failed or page.get_rotation() % 360 or not _ruled(page):
            return []
        if self._fruitless >= FRUITLESS_PAGES + 2 * self._fruitful:
            return []
        if self._pages_left <= 0:
            if self._pages_left == 0:
                self.warnings.append(
                    f"tables were looked for on the first {MAX_TABLE_PAGES} ruled pages only"
                )
                self._pages_left -= 1
            return []
        self._pages_left -= 1
        self.searched += 1
        try:
            plumbed = self._plumber().pages[index]
            left, _, _, top = page.get_mediabox()
            try:
                sides = {"explicit_vertical_lines": open_sides(plumbed.edges)}
                found = [_table(table, left, top) for table in plumbed.find_tables(sides)]
            finally:
                plumbed.close()  # drop the page's parsed objects: pages are searched once
        except Exception as error:  # pdfminer's own failures on odd files: the text remains
            self._failed = True
            reason = " ".join(str(error).split())[:120] or type(error).__name__
            self.warnings.append(f"tables could not be read: {reason}")
            return []
        tables = [table for table in found if table is not None]
        if tables:
            self._fruitful += 1
        else:
            self._fruitless += 1
        return sorted(tables, key=lambda table: -table.bbox[3])

    def close(self) -> None:
        if self._pdf is not None:
            self._pdf.close()
            self._pdf = None

    def _plumber(self) -> Any:
        if self._pdf is None:
            import pdfplumber

            self._pdf = pdfplumber.open(io.BytesIO(self._data))
        return self._pdf


def with_tables(
    lines: Sequence[T],
    tables: Sequence[PdfTable],
    box: Callable[[T], Box | None],
    text: Callable[[T], str] | None = None,
) -> Iterator[list[T] | PdfTable]:
    """The page's lines in order, those inside a table replaced by the table, which stands
    where its first line stood, or before the first line below it within its width when that
    comes sooner (a page whose text stream writes its table last: the table then stands under
    its caption, not under the page's last paragraph), and a table with no text line before
    the first line below it. Consecutive lines outside tables come as one list. With `text`,
    a line inside a table whose words its cells do not hold (a column the grid did not close)
    stays a line: nothing on the page is lost."""
    boxes = [box(line) for line in lines]
    held = [_compact(table.markdown) for table in tables]

    def holds(i: int, line: T) -> bool:
        if not tables[i].covers(box(line)):
            return False
        words = [word for word in _compact(text(line)).split() if len(word) > 1] if text else []
        return not words or 2 * sum(word in held[i] for word in words) >= len(words)

    inside = [next((i for i in range(len(tables)) if holds(i, line)), None) for line in lines]
    holding = {i for i in inside if i is not None}
    # A table the page's text stream writes after text below it goes after the line right
    # over it, within its width (its caption), when that line comes before its own lines.
    after: dict[int, int] = {}
    for i in holding:
        first = inside.index(i)
        x0, _y0, x1, top = tables[i].bbox
        over = [
            (where[1], k)
            for k, where in enumerate(boxes)
            if inside[k] is None
            and where
            and where[1] > top
            and min(where[2], x1) > max(where[0], x0)
        ]
        nearest = min(over, key=lambda found: (found[0], -found[1]), default=None)
        if (
            nearest is not None
            and nearest[1] < first
            and any(
                where and where[3] < tables[i].bbox[1] for where in boxes[nearest[1] + 1 : first]
            )
        ):
            after[i] = nearest[1]
    placed: set[int] = set()
    run: list[T] = []
    for k, (line, where) in enumerate(zip(lines, boxes, strict=True)):
        due = [
            i
            for i, table in enumerate(tables)
            if i not in holding and i not in placed and where and table.bbox[1] > where[3]
        ]
        held_by = inside[k]
        if held_by is not None and held_by not in placed:
            due.append(held_by)
        for i in due:
            if run:
                yield run
                run = []
            placed.add(i)
            yield tables[i]
        if held_by is None:
            run.append(line)
        for i in sorted(i for i, anchor in after.items() if anchor == k and i not in placed):
            if run:
                yield run
                run = []
            placed.add(i)
            yield tables[i]
    if run:
        yield run
    for i, table in enumerate(tables):
        if i not in placed:
            yield table


def with_found(
    lines: Sequence[T], found_at: Callable[[int], tuple[int, int, PdfTable] | None]
) -> Iterator[list[T] | PdfTable]:
    """The lines in order, each table `found_at(i)` finds from line i on (its first line, the
    line after it, the table) in place of its lines; the search goes on after the table.
    Consecutive lines outside tables come as one list."""
    start = i = 0
    while i < len(lines):
        found = found_at(i)
        if found is None:
            i += 1
            continue
        first, end, table = found
        if start < first:
            yield list(lines[start:first])
        yield table
        start = i = end
    if start < len(lines):
        yield list(lines[start:])


def open_sides(edges: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The side rules a grid leaves out, as pdfplumber edges (top-left origin, y down).

    Many tables draw their rows' rules across the whole width and the lines between columns,
    but no rule down the outer sides; pdfplumber then finds no cell in the first and last
    columns. Between two rules of the same extent that two lines between columns join (strokes,
    not the sides of a shaded column; one line alone may just split two groups of figures),
    the sides are added: only where the grid's own lines say a row is there."""
    seen = [e for e in edges if _visible(e)]  # not the white boxes of a page's layout
    rules: list[list[float]] = []  # [y, x0, x1]: the horizontal rules, touching pieces joined
    for edge in sorted(
        (e for e in seen if e["orientation"] == "h"), key=lambda e: (e["top"], e["x0"])
    ):
        last = rules[-1] if rules else None
        if last and abs(edge["top"] - last[0]) <= 1 and edge["x0"] <= last[2] + _TOUCH:
            last[2] = max(last[2], edge["x1"])
        else:
            rules.append([edge["top"], edge["x0"], edge["x1"]])
    downs: list[list[float]] = []  # [x, top, bottom]: the vertical rules, touching pieces joined
    for edge in sorted(
        (e for e in seen if e["orientation"] == "v" and _drawn_line(e)),
        key=lambda e: (e["x0"], e["top"]),
    ):
        last = downs[-1] if downs else None
        if last and abs(edge["x0"] - last[0]) <= 1 and edge["top"] <= last[2] + _TOUCH:
            last[2] = max(last[2], edge["bottom"])
        else:
            downs.append([edge["x0"], edge["top"], edge["bottom"]])
    sides: list[dict[str, Any]] = []
    for k, (y, x0, x1) in enumerate(rules):
        below = next(
            (
                rule
                for rule in rules[k + 1 :]
                if rule[0] > y + 1 and abs(rule[1] - x0) <= _TOUCH and abs(rule[2] - x1) <= _TOUCH
            ),
            None,
        )
        if below is None:
            continue
        inner = {
            round(x)
            for x, top, bottom in downs
            if x0 + _TOUCH < x < x1 - _TOUCH and top <= y + _TOUCH and bottom >= below[0] - _TOUCH
        }
        if len(inner) < _MIN_INNER_LINES:
            continue
        for x in (x0, x1):
            sides.append(
                {
                    "object_type": "side_edge",
                    "orientation": "v",
                    "x0": x,
                    "x1": x,
                    "top": y,
                    "bottom": below[0],
                    "width": 0.0,
                    "height": below[0] - y,
                }
            )
    return sides


def _compact(text: str) -> str:
    """Text as words without the table's rules and pipes, for finding a line's words in it."""
    return " ".join(text.replace("|", " ").replace("---", " ").split())


def _drawn_line(edge: dict[str, Any]) -> bool:
    """Whether an edge is a line drawn as one (a stroke), not the side of a filled area: a
    shaded column's sides are no rule between columns."""
    return edge.get("object_type") != "rect_edge" or bool(edge.get("stroke"))


def _visible(edge: dict[str, Any]) -> bool:
    """Whether a pdfplumber edge is drawn: stroked, or filled in another colour than white."""
    if edge.get("object_type") == "line" or edge.get("stroke"):
        color = edge.get("stroking_color")
    elif edge.get("fill"):
        color = edge.get("non_stroking_color")
    else:
        return False
    if not isinstance(color, (tuple, list)) or not color:
        return color is None or color != 1  # an unknown colour space: drawn
    white = (0.0,) * 4 if len(color) == 4 else (1.0,) * len(color)  # CMYK white is no ink
    return tuple(float(c) for c in color) != white


def _ruled(page: pdfium.PdfPage) -> bool:
    """Whether the page draws a grid: vertical and horizontal rules, or framed boxes (cheap:
    PDFium only).

    Pages with only horizontal rules (the underlines of a financial statement) make no cells
    for pdfplumber to find. Nor do pages whose drawing is mostly filled boxes: HTML-made filings
    shade every cell of their statements (the slivers between them look like rules), and
    pdfplumber finds only one-row tables there, at ~1.5 s a page.
    """
    across = down = boxes = shading = 0
    for path in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_PATH,), max_depth=4):
        left, bottom, right, top = path.get_bounds()
        width, height = right - left, top - bottom
        if width <= _THIN and height > 4 * _THIN:
            down += 1
        elif height <= _THIN and width > 4 * _THIN:
            across += 1
        elif width > 4 * _THIN and height > 4 * _THIN:
            if _stroked(path):
                # A framed box (a cell, a frame), or one path drawing a whole grid: ~4
                # segments per rule it draws.
                boxes += max(1, (pdfium_c.FPDFPath_CountSegments(path.raw) - 1) // 4)
            else:
                shading += 1
    rules = down + across + boxes
    if rules < MIN_RULES or shading > 2 * rules:
        return False
    return boxes >= MIN_RULES or (down >= 2 and across >= 2)


def _stroked(path: pdfium.PdfObject) -> bool:
    fill = ctypes.c_int(0)
    stroke = ctypes.c_int(0)
    if not pdfium_c.FPDFPath_GetDrawMode(path.raw, ctypes.byref(fill), ctypes.byref(stroke)):
        return True
    return bool(stroke.value)


def _table(table: Any, left: float, top: float) -> PdfTable | None:
    """A pdfplumber table as Markdown with its box in PDF points, or None if it is not data."""
    extracted = [[cell or "" for cell in row] for row in table.extract()]
    spans = [row.bbox for row in table.rows]  # (x0, top, x1, bottom) from the top-left, y down
    _spread_names(table, extracted)
    # Notes ruled into the grid's last (or first) bands are text around the table, not rows.
    while extracted and _aside(extracted[-1]):
        del extracted[-1], spans[-1]
    while extracted and _aside(extracted[0]):
        del extracted[0], spans[0]
    caption = ""
    if _titled(extracted):  # a title alone in the first band, over a row of names
        caption = clean_cell(next(cell for cell in extracted[0] if cell.strip()))
        extracted = extracted[1:]
    banded = [part for row in extracted for part in _unbanded(row)]
    rows = [_joined_units([_unspaced(clean_cell(cell)) for cell in row]) for row in banded]
    rows = [row for row in rows if any(row)]
    if not rows or not spans:
        return None
    used = [c for c in range(max(len(row) for row in rows)) if any(cell_at(row, c) for row in rows)]
    rows = [[cell_at(row, c) for c in used] for row in rows]
    cells = [cell for row in rows for cell in row if cell]
    if len(rows) < 2 or len(used) < 2 or len(cells) < _MIN_CELLS:
        return None
    if any(len(cell) > _LONG_CELL for cell in cells):
        return None
    x0, x1 = table.bbox[0], table.bbox[2]
    y_top, y_bottom = spans[0][1], spans[-1][3]
    box = (left + x0, top - y_bottom, left + x1, top - y_top)
    if any(_NUMBER.match(cell) for cell in rows[0][1:]):
        # The first row holds figures: the column headings sit outside the grid (a statement's
        # years above its ruled body), so the table gets an empty header.
        rows.insert(0, [""] * len(used))
    grid = tuple(tuple(row) for row in rows)
    return PdfTable(markdown_table(rows), box, len(rows), len(used), grid, caption)


def _titled(rows: list[list[str]]) -> bool:
    """Whether the first row holds one cell alone, over a row of two or more names."""
    filled = [[cell for cell in row if cell.strip()] for row in rows[:2]]
    return (
        len(filled) == 2
        and len(filled[0]) == 1
        and len(filled[1]) >= 2
        and not any(_NUMBER.match(clean_cell(cell)) for cell in filled[1])
    )


def _aside(row: list[str]) -> bool:
    """An empty band, or one holding prose (notes, disclaimers) rather than cells."""
    return all(not cell.strip() for cell in row) or any(
        len(clean_cell(cell)) > _LONG_CELL for cell in row
    )


def _unbanded(row: list[str]) -> list[list[str]]:
    """A band of rows ruled as one ("Alabama\nAlaska\nArizona" beside "18,870\n209\n2,303"),
    as its rows: when every filled cell holds as many lines, and one cell's lines are all
    figures. A label wrapped over two lines beside one figure stays one row. Cells of one line
    on the left, before the others, are labels merged over the band's rows and stand in each
    ("6 | 6 |" beside "OTSL\nHTML" and "0.965\n0.969": a model's layers, then a row per
    representation)."""
    lines = [cell.split("\n") if cell.strip() else [] for cell in row]
    filled = [cell_lines for cell_lines in lines if cell_lines]
    count = max((len(cell_lines) for cell_lines in filled), default=0)
    banded = [i for i, cell_lines in enumerate(lines) if len(cell_lines) == count]
    if count < 2 or len(banded) < 2:
        return [row]
    merged = [i for i, cell_lines in enumerate(lines) if len(cell_lines) == 1]
    if any(len(cell_lines) not in (0, 1, count) for cell_lines in lines) or any(
        i > banded[0] for i in merged
    ):
        return [row]
    if not any(all(_NUMBER.match(line.strip()) for line in lines[i]) for i in banded):
        return [row]
    return [
        [
            cell_lines[i] if len(cell_lines) == count else "\n".join(cell_lines)
            for cell_lines in lines
        ]
        for i in range(count)
    ]


def _spread_names(table: Any, extracted: list[list[str]]) -> None:
    """Column names printed in one cell over several columns ("Permit Handgun Long Gun" over
    three, or "Pre-Pawn" over "Handgun Long Gun *Other") are given to the columns they stand
    over: each word of the cell's last line to the column under its middle, the lines above it
    opening every name ("Pre-Pawn Handgun"). Only in the first bands, and only when every
    column spanned gets a word; otherwise the cell stays whole in its first column."""
    rows = table.rows
    widest = max(rows, key=lambda row: sum(cell is not None for cell in row.cells))
    if any(cell is None for cell in widest.cells):
        return
    columns = [(cell[0], cell[2]) for cell in widest.cells]
    for r, row in enumerate(rows[:_HEADER_BANDS]):
        cells = row.cells
        for c, cell in enumerate(cells):
            end = c + 1
            while end < len(cells) and cells[end] is None:
                end += 1
            if cell is None or end - c < 2 or end > len(columns) or r >= len(extracted):
                continue
            if any(_NUMBER.match(word) and _DIGIT.search(word) for word in extracted[r][c].split()):
                continue  # figures: a band of data, not names
            names = _names_under(table.page, cell, columns[c:end])
            if names is not None:
                extracted[r][c:end] = names


def _word_height(word: dict[str, Any]) -> float:
    """A pdfplumber word's height in points."""
    return float(word["bottom"] - word["top"])


def _names_under(page: Any, cell: Box, columns: Sequence[tuple[float, float]]) -> list[str] | None:
    """One name per column from the words inside `cell` (pdfplumber's box), or None."""
    try:
        words = page.within_bbox(cell).extract_words()
    except Exception:  # a box pdfplumber will not cut: the cell stays whole
        return None
    if not words:
        return None
    words.sort(key=lambda word: (word["top"], word["x0"]))
    lines: list[list[dict[str, Any]]] = [[words[0]]]
    for word in words[1:]:
        if word["top"] - lines[-1][0]["top"] > _SAME_LINE:
            lines.append([word])
        else:
            lines[-1].append(word)
    above = " ".join(word["text"] for line in lines[:-1] for word in line)
    names: list[list[str]] = [[] for _ in columns]
    before: tuple[int, dict[str, Any]] | None = None
    for word in sorted(lines[-1], key=lambda word: word["x0"]):
        middle = (word["x0"] + word["x1"]) / 2
        at = [i for i, (x0, x1) in enumerate(columns) if x0 <= middle <= x1]
        if not at:
            return None
        # Names stand apart; a title over the columns ("Year ended December 31,") is set with
        # a word space between its words, whatever columns they fall over.
        gap = word["x0"] - before[1]["x1"] if before is not None else 0.0
        if before is not None and before[0] != at[0] and gap < _NAME_GAP * _word_height(word):
            return None
        names[at[0]].append(word["text"])
        before = (at[0], word)
    if not all(names):
        return None
    return [clean_cell(f"{above} {' '.join(name)}") for name in names]


def _joined_units(row: list[str]) -> list[str]:
    """A currency sign alone in its cell joins the amount beside it ("$" | "3,642" → "$ 3,642"),
    kept in the sign's column so that the amounts of every row line up."""
    out = list(row)
    for i in range(len(out) - 1):
        if out[i] in _UNITS and out[i + 1]:
            out[i], out[i + 1] = f"{out[i]} {out[i + 1]}", ""
    return out


def _unspaced(cell: str) -> str:
    """A date whose characters the PDF spaced out ("0 9 / 1 8 / 2 0 15") written as a date
    ("09/18/2015"); any other cell as it is."""
    if " " in cell and _SPACED_DATE.fullmatch(joined := cell.replace(" ", "")):
        return joined
    return cell
