"""Tables and pictures as the chunker sees them: numbered, titled, and written out row by row.

A table block holds Markdown (optionally after a caption line, e.g. "Chart: Sales"). It becomes
its own chunks — the Markdown, and one sentence per row with the header names beside the
values ("Row 2: Region is Nordics, Q3 revenue is 4.1 M"), which is what a small model reads
correctly — while a placeholder ("[Table 3: Region, Q3 revenue]") keeps its place in the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from polyrag.months import MONTH
from polyrag.parse.tables import FIGURE_CELL, TABLE_TOP

# The longest caption or header summary in a placeholder: a statement's title with the
# company's name ("ACTIVISION BLIZZARD, INC. AND SUBSIDIARIES CONSOLIDATED BALANCE SHEETS").
SUMMARY_CHARS = 100
PICTURE_WORDS = 8  # words of a picture's text in its placeholder
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")


@dataclass(frozen=True)
class TableText:
    """A Markdown table read back into its caption, header names and data rows."""

    caption: str
    header: tuple[str, ...]  # a name for every column ("Column 3" where the cell is empty)
    labels: tuple[str, ...]  # the header cells that are not empty
    rows: tuple[tuple[str, ...], ...]
    markdown: str  # the pipe lines only (header, separator, body)


def read_table(text: str) -> TableText | None:
    """The parts of a Markdown pipe table (after optional caption lines), or None if not one."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    first = next((i for i, line in enumerate(lines) if line.startswith("|")), None)
    if first is None:
        return None
    caption = " ".join(" ".join(lines[:first]).split())
    pipes = [line for line in lines[first:] if line.startswith("|")]
    if not pipes:
        return None
    has_separator = len(pipes) > 1 and bool(_SEPARATOR.match(pipes[1]))
    header = _cells(pipes[0])
    body = [_cells(line) for line in pipes[2 if has_separator else 1 :]]
    # A title row above the real header ("| Years Ended December 31 | | |" over "| | 2019 |
    # 2018 |"): one filled cell over a row with more is the table's caption, not its header.
    while len(body) > 1 and _filled(header) <= 1 < _filled(body[0]) and len(header) > 1:
        title = " ".join(cell for cell in header if cell)
        caption = f"{caption} {title}".strip() if title else caption
        header, body = body[0], body[1:]
    if _is_data_row(header, body):  # no header row: the first row is data like the rest
        header, body = [""] * len(header), [header, *body]
    header, body, units = _stacked_header(header, body)
    header, body = _with_units(header, body)
    header = [_SPACED_YEAR.sub(r"\1\2\3\4", cell) for cell in header]
    caption = f"{caption} {units}".strip() if units else caption
    names = _header_names(header)
    width = len(names)
    rows = tuple(tuple(row[:width]) + ("",) * (width - len(row)) for row in body if any(row))
    labels = tuple(cell for cell in header if cell)
    if header != _cells(pipes[0]):  # the Markdown, too, with the real header on top
        width = len(names)
        padded = [[*row[:width], *[""] * (width - len(row))] for row in [header, *body]]
        pipes = _markdown(padded)
    return TableText(caption, tuple(names), labels, rows, "\n".join(pipes))


@dataclass(frozen=True)
class PipeTable:
    """A Markdown table as a passage writes it: its header cells and its rows' cells."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def pipe_tables(lines: str | Sequence[str]) -> list[PipeTable]:
    """Each Markdown table among the lines, as written: the line above a separator is a header,
    and the pipe lines below it are its rows until a line that is no pipe line or a new header.
    Unlike `read_table`, nothing is repaired: the cells are the passage's."""
    lines = lines.splitlines() if isinstance(lines, str) else list(lines)
    tables: list[PipeTable] = []
    header: list[str] | None = None
    rows: list[tuple[str, ...]] = []
    for line, below in zip(lines, [*lines[1:], ""], strict=True):
        pipe = line.strip()
        if header is not None and (not pipe.startswith("|") or _SEPARATOR.match(below.strip())):
            tables.append(PipeTable(tuple(header), tuple(rows)))
            header = None
        if not pipe.startswith("|"):
            continue
        if _SEPARATOR.match(below.strip()):
            header, rows = _cells(pipe), []
        elif header is not None and not _SEPARATOR.match(pipe):
            rows.append(tuple(_cells(pipe)))
    if header is not None:
        tables.append(PipeTable(tuple(header), tuple(rows)))
    return tables


_YEAR_CELL = re.compile(r"^(?:FY\s?)?(?:19|20)\d\d$|^(?:19|20)(?:\s\d){2}$", re.IGNORECASE)


def _stacked_header(
    header: list[str], body: list[list[str]]
) -> tuple[list[str], list[list[str]], str]:
    """Header rows stacked under the first ("| | Domestic | | International | |" over
    "| | 2019 | 2018 | 2019 | 2018 |") join it: each column is named by its cells from top to
    bottom, a group's name spanning the empty cells to its right ("Domestic 2019", "Domestic
    2018", "International 2019", …). A stacked row is one whose first cell is empty and whose
    others are names or years, not figures; one that names a single cell ("U.S. $ in
    thousands") is the table's unit, returned for its caption."""
    if not header:
        return header, body, ""
    named = bool(header[0])  # a first column named in the top row ("# enc-layers")
    if named and not (len(body) > 1 and _under_spans(header, body[0], body[1])):
        return header, body, ""
    stack = [header]
    units: list[str] = []
    while len(body) > 1 and _is_header_row(body[0]) and (not named or len(stack) == 1):
        row = body.pop(0)
        if _filled(row) == 1 and _filled(stack[-1]) > 1:
            units.append(next(cell for cell in row if cell))
        else:
            stack.append(row)
    if len(stack) == 1:
        return header, body, " ".join(units)
    width = max(len(row) for row in stack)
    rows = [[*row, *[""] * (width - len(row))] for row in stack]
    for row in rows[:-1]:  # a group's name spans to the next named column
        for column in range(2, width):
            if not row[column]:
                row[column] = row[column - 1]
    merged = [" ".join(dict.fromkeys(r[c] for r in rows if r[c])) for c in range(width)]
    return merged, body, " ".join(units)


# A unit of measure as a table's second row writes it under a column's name: "N/mm 2", "%",
# "J/cm²", "kg", "°C", "USD"; "-" where a column has none.
_UNIT_CELL = re.compile(
    r"^(?:%|[-–—]|[A-Za-zµ°$€£¥]{1,5}\.?(?:\s?[23²³])?(?:\s?/\s?[A-Za-zµ°]{1,5}(?:\s?[23²³])?)?)$"
)
# One letter alone ("a", "m") is too often a cell's text to count as a unit.
_UNIT_WORDS = frozenset(
    {"%", "°c", "°f", "kg", "mg", "lb", "lbs", "oz", "cm", "mm", "km", "µm", "nm", "ft", "ms",
     "hrs", "min", "ml", "kwh", "mwh", "kw", "mw", "hz", "khz", "mhz", "ghz", "kpa", "mpa", "bar",
     "psi", "usd", "eur", "chf", "gbp", "jpy", "$", "€", "£", "¥", "mb", "gb", "tb"}
)  # fmt: skip


def _with_units(header: list[str], body: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """A row of units under the column names ("| - | N/mm 2 | % |" under "| Assortment |
    Tensile strength | Elongation |") joins them ("Tensile strength (N/mm 2)"): read as data,
    it was a first row saying "Tensile strength is N/mm 2", and the figures below had no unit.
    Every filled cell must be a unit or a dash, one at least a unit as measures write them
    (with "/", "%" or a known symbol), and the row below must hold a figure under one."""
    if len(body) < 2 or not any(header):
        return header, body
    row, below = body[0], body[1]
    cells = [(column, cell) for column, cell in enumerate(row) if cell]
    if not cells or not all(_UNIT_CELL.match(cell) for _, cell in cells):
        return header, body
    units = [
        (column, cell)
        for column, cell in cells
        if "/" in cell or cell.casefold().replace(" ", "") in _UNIT_WORDS
    ]
    if not units or not any(
        column < len(below) and FIGURE_CELL.match(below[column].replace(" ", ""))
        for column, _ in units
    ):
        return header, body
    named = list(header)
    for column, cell in cells:
        if column < len(named) and named[column] and cell.strip("-–—"):  # a dash: no unit
            named[column] = f"{named[column]} ({cell})"
    return named, body[1:]


def _under_spans(header: list[str], row: list[str], below: list[str]) -> bool:
    """Whether `row` names the columns of spans in a header whose first column is named
    ("| TEDs | | |" over "| simple | complex | all |"): every filled cell stands under an
    empty header cell, or under a name an empty cell follows; the row's first cell is empty,
    and the row `below` holds a figure under one of the names."""
    cells = [c for c, cell in enumerate(row) if cell]
    if not cells or row[0] or "" not in header[1:]:
        return False
    spanned = all(
        c < len(header) and (not header[c] or (c + 1 < len(header) and not header[c + 1]))
        for c in cells
    )
    return spanned and any(c < len(below) and FIGURE_CELL.match(below[c]) for c in cells)


def _is_data_row(first: list[str], body: list[list[str]]) -> bool:
    """Whether a table's first row is data, not column names: beside its label it holds a
    figure that is not a year, in a column of figures ("| Item 7. | Management's Discussion
    … | 12 |" atop a table of contents). Read as the header, every row said "4 is 12"."""
    if not body:
        return False
    for column, cell in enumerate(first[1:], start=1):
        if not FIGURE_CELL.match(cell) or _YEAR_CELL.match(cell):
            continue
        figures = sum(1 for row in body if column < len(row) and FIGURE_CELL.match(row[column]))
        if 2 * figures >= len(body):
            return True
    return False


def _is_header_row(row: list[str]) -> bool:
    cells = [cell for cell in row[1:] if cell]
    return (
        bool(row)
        and not row[0]
        and bool(cells)
        and all(_YEAR_CELL.match(cell) or not _FIGURE.match(cell) for cell in cells)
    )


def _filled(cells: list[str]) -> int:
    return sum(1 for cell in cells if cell)


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(inner)]


_SPACED_YEAR = re.compile(r"(?<!\d)([12])\s([09])\s(\d)\s(\d)(?!\d)")  # "2 0 1 8" (PDF spacing)


def _header_names(cells: list[str]) -> list[str]:
    names: list[str] = []
    for position, cell in enumerate(cells, start=1):
        name = cell or f"Column {position}"
        if name in names:
            name = f"{name} ({position})"
        names.append(name)
    return names


def _markdown(rows: list[list[str]]) -> list[str]:
    escaped = [[cell.replace("|", "\\|") for cell in row] for row in rows]
    lines = ["| " + " | ".join(row) + " |" for row in escaped]
    return [lines[0], "|" + " --- |" * len(rows[0]), *lines[1:]]


def table_summary(table: TableText | None, lead_in: str = "") -> str:
    """The caption if there is one, else the sentence that leads into the table (see
    `lead_in`), else the header names: what the placeholder shows."""
    if table is None:
        return ""
    if table.caption:
        return _shorten(table.caption)
    if lead_in:
        return _shorten(lead_in)
    return _shorten(", ".join(table.labels))


# "The following table shows key hotel statistics for our Las Vegas Strip Resorts:",
# "Net sales attributed to countries … are as follows (in millions):".
_FOLLOWING = re.compile(
    r"^(?:the\s+)?following\s+(?:is|are)\s+(?:an?\s+|the\s+)?|"
    r"^(?:the\s+)?following\s+tables?\s+(?:\w+\s+)?(?:shows?|presents?|sets?\s+forth|"
    r"summari[sz]es?|provides?|reflects?|details?|includes?|lists?|contains?|illustrates?|"
    r"reconciles?|compares?|displays?|gives?)\s+(?:(?:information|details?|data)\s+"
    r"(?:about|on|regarding|for|of)\s+|a\s+summary\s+of\s+|a\s+reconciliation\s+of\s+)?",
    re.IGNORECASE,
)
_FOLLOWS = re.compile(
    r"\s+(?:(?:is|are|was|were)\s+(?:as\s+follows|(?:presented|summari[sz]ed|shown|set\s+forth|"
    r"detailed|listed|included|provided)\s+(?:below|in\s+the\s+following\s+tables?))|"
    r"follows?(?=\s*(?:\(|$)))\b",
    re.IGNORECASE,
)
_AS_FOLLOWS = re.compile(r"(?:^|\s*,?\s+)(?:as\s+follows|below|the\s+following)\s*$", re.IGNORECASE)


def lead_in(sentence: str) -> str:
    """What a sentence that introduces a table says the table holds, or "" for a sentence that
    introduces nothing: "Net sales attributed to countries that represent a significant
    portion of consolidated net sales are as follows (in millions):" gives "Net sales
    attributed to countries that represent a significant portion of consolidated net sales
    (in millions)". Only a sentence that ends with a colon leads into what follows it — or
    with a colon and the table's own period or unit, when the page runs them on ("… follow
    (in millions): Year ended December 31,")."""
    text = " ".join(sentence.split())
    head, colon, tail = text.rpartition(":")
    if colon and 0 < len(tail.split()) <= 8 and TABLE_TOP.match(tail.strip()):
        text = head + colon
    if not text.endswith(":"):
        return ""
    text = _FOLLOWING.sub("", text[:-1].strip())
    text = _AS_FOLLOWS.sub("", _FOLLOWS.sub("", text)).strip(" ,;")
    if len(re.findall(r"[A-Za-z]{2,}", text)) < 2:
        return ""  # "as follows:", "in millions:": nothing said of the table
    return text[0].upper() + text[1:]


def row_sentences(table: TableText) -> list[tuple[int, str]]:
    """(table row number, "Row n: Header is value, ...") for every data row; the header is row 1.

    A table without header names (its first row was figures) says each row's first cell, then
    its values: "Row 2: Net sales: $ 3,642, $ 3,507".
    """
    out: list[tuple[int, str]] = []
    labelled = _label_column(table)
    for number, row in enumerate(table.rows, start=2):
        if labelled and row[0]:
            # A statement's row: its label, then each period's figure under its header.
            pairs = zip(table.header[1:], row[1:], strict=True)
            figures = ", ".join(f"{name}: {value}" for name, value in pairs if value)
            text = f"{row[0]} — {figures}" if figures else row[0]
        elif table.labels:
            cells = zip(table.header, row, strict=True)
            text = ", ".join(f"{name} is {value}" for name, value in cells if value)
        else:
            values = [value for value in row if value]
            text = values[0] + (": " + ", ".join(values[1:]) if len(values) > 1 else "")
        if text:
            out.append((number, f"Row {number}: {text}"))
    return out


@dataclass(frozen=True)
class RowSentence:
    """A row sentence read back: its row number, label and figures. "Row 17: Property, plant
    and equipment — net — 2018: 8,738" has the label "Property, plant and equipment — net" and
    the figures "2018: 8,738"; a row of "Header is value" pairs (no label column) is all label
    and all figures, and `labelled` is False."""

    number: int
    label: str
    figures: str
    labelled: bool

    def pairs(self) -> list[tuple[str, str]]:
        """Each column's name with its value: a labelled row's figures ("2018: 8,738"; a
        name may hold commas of its own: "December 31, 2019: 249"; a dash or a word is no
        figure and is left out), another row's "Header is value" pairs ("of which impairment
        of property, plant and equipment is -110" is one)."""
        if self.labelled:
            return [
                (m["column"].strip(), m["value"].strip())
                for m in _COLUMN_FIGURE.finditer(self.figures)
            ]
        return [
            (name, value)
            for name, is_, value in (pair.partition(" is ") for pair in is_pairs(self.figures))
            if is_
        ]

    @property
    def section(self) -> bool:
        """Whether the row is a section's name alone ("Current assets"): no label with
        figures, no "Header is value" pair, no "first cell: figures" of a headerless table."""
        return not self.labelled and not self.pairs() and not _COLUMN_FIGURE.search(self.figures)


_ROW_SENTENCE = re.compile(r"^Row (\d+): (.+)$")
# "2021: 192,000, 2020: $ 181,000": a labelled row sentence's figures under their columns.
_COLUMN_FIGURE = re.compile(
    r"(?:^|,\s)(?P<column>[^:,][^:]*?):\s*(?P<value>[-−(]?[$€£]?\s?\(?"
    r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\)?%?)(?=,\s|$)"
)


def is_pairs(figures: str) -> list[str]:
    """The "Header is value" pieces of a row sentence, as written; a header with a comma of
    its own stays in one piece, and a last piece without " is " is kept as it is."""
    pairs: list[str] = []
    pending = ""
    for piece in figures.split(", "):
        piece = f"{pending}, {piece}" if pending else piece
        if " is " in piece:
            pairs.append(piece)
            pending = ""
        else:
            pending = piece
    return [*pairs, pending] if pending else pairs


def read_row_sentence(line: str) -> RowSentence | None:
    """The parts of one line written by `row_sentences`; None for any other line."""
    found = _ROW_SENTENCE.match(line)
    if found is None:
        return None
    text = found.group(2)
    head, dash, tail = text.rpartition(" — ")
    if not dash:
        return RowSentence(int(found.group(1)), text, text, False)
    return RowSentence(int(found.group(1)), head, tail, True)


_PERIOD = re.compile(
    r"\b(?:19|20)\d\d\b|\b(?:FY|Q[1-4]|H[12])\b|\b(?:quarter|year|month|period)s?\b|"
    rf"\b{MONTH}\b",
    re.IGNORECASE,
)  # a column headed by a period: a statement's figures for that period
_FIGURE = re.compile(r"^[-+(−–]?[$€£¥]?\s?\(?[\d.,]+\)?\s?%?$|^[—–-]$")


def _label_column(table: TableText) -> bool:
    """Whether the first column names the rows and the others hold figures for periods (a
    statement: "Net sales — 2019: $ 3,642, 2018: $ 3,507"), under headers naming each one."""
    if (
        len(table.header) < 2
        or not table.rows
        or table.header[1:] != table.labels[-len(table.header) + 1 :]
    ):
        return False
    firsts = [row[0] for row in table.rows if row[0]]
    figures = [cell for row in table.rows for cell in row[1:] if cell]
    if not firsts or not figures:
        return False
    texty = sum(1 for cell in firsts if not _FIGURE.match(cell)) >= 0.8 * len(firsts)
    numeric = sum(1 for cell in figures if _FIGURE.match(cell)) >= 0.8 * len(figures)
    periods = sum(1 for name in table.header[1:] if _PERIOD.search(name))
    return texty and numeric and 2 * periods >= len(table.header) - 1


def table_title(number: int, summary: str) -> str:
    return f"Table {number}: {summary}" if summary else f"Table {number}"


def picture_summary(text: str) -> str:
    words = text.split()
    head = " ".join(words[:PICTURE_WORDS])
    return _shorten(head + (" …" if len(words) > PICTURE_WORDS else ""))


def picture_title(number: int) -> str:
    return f"Picture {number}"


def placeholder(title: str) -> str:
    """How a table or picture is marked in the text around it: "[Table 3: Region, Revenue]"."""
    return f"[{title}]"


def figure_pattern(kind: str, number: int) -> re.Pattern[str]:
    """Finds a figure's placeholder, or its title line in a page chunk, in a parent's text."""
    return re.compile(rf"\[{kind} {number}(?::[^\]\n]*)?\]|^{kind} {number}(?::[^\n]*)?$", re.M)


def _shorten(text: str) -> str:
    text = " ".join(text.split()).replace("[", "(").replace("]", ")")
    if len(text) <= SUMMARY_CHARS:
        return text
    cut = text[: SUMMARY_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;: ")
    return cut + "…"
