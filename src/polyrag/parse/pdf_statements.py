"""Tables without ruling lines: a financial statement's rows under a header of years.

Most statements in annual reports draw no grid, so the ruled-table finder (pdf_tables.py) never
sees them and their rows reach the model as loose lines: "Purchases of property, plant and
equipment (PP&E) (1,577) (1,373) (1,420)", with the years three lines up. Here they become
tables again, from the text lines alone:

- a **header**: one or more short lines naming two or more distinct years and no other figures
  ("(Millions) 2018 2017 2016", "At December 31, 2019 At December 31, 2018", or Adobe's
  "November 27," / "2015" / "November 28," / "2014" stacked one per line), or dates
  ("3/25/2023 3/19/2022", the ends of two quarters); years may repeat when the lines just
  above name a period per group of columns ("Three Months Ended June 30," and "Six Months
  Ended June 30," over "2023 2022 2023 2022": a quarterly report's usual header), and each
  column is then named by its group and year;
- then **rows**: a label followed by exactly one figure per year ("(1,577)", "—", "$ 5,363"),
  section lines without figures ("Cash Flows from Investing Activities"), labels wrapped over
  two lines, and two rows that PDFium joined into one line;
- at least three rows with a figure under every year, else the lines stay text.

A row whose figures do not match the header (a subtotal under some columns only) keeps its
words as its label, without figures: a wrong column would be worse than none. The result is a
Markdown table (the years as its header) placed where its lines stood, so the chunker writes
each row as a sentence naming its label and each year, and SQL can read it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from polyrag.months import MONTH
from polyrag.parse.pdf_tables import Box, PdfTable, with_found
from polyrag.parse.tables import markdown_table

T = TypeVar("T")

MIN_ROWS = 3  # rows with a figure under every year a statement needs
_MAX_STRAY = 0.2  # share of lines whose figures fit no column a statement may have
_LABEL_WORDS = 15  # a line without figures longer than this is prose: the table ends
_HEADER_WORDS = 10  # a header line is short
_YEAR = re.compile(r"^(?:FY)?((?:19|20)\d\d),?$")
_DATE = re.compile(r"^(\d{1,2}/\d{1,2}/(?:19|20)\d\d),?$")  # "3/25/2023": a period's end
_DAY = re.compile(r"^\d{1,2},?$")
_MONTH = re.compile(rf"^{MONTH}\.?,?$", re.IGNORECASE)
# A figure: "1,577", "(1,577)", "$5", "-3.2%", or a dash for none ("31," and "$10," are words).
_VALUE = re.compile(r"^\(?[-−–]?[$€£¥]?\(?\d(?:[\d,]*\d)?(?:\.\d+)?%?\)?%?$|^[—–-]$")
_LEADER = re.compile(r"\.{3,}|…+")  # dot leaders between a label and its figures
_UNIT = re.compile(r"\([^()]*\)")
_CURRENCY = frozenset({"$", "€", "£", "¥", "US$"})


@dataclass
class _Row:
    label: str
    values: list[str] = field(default_factory=list)


def with_statements(
    lines: Sequence[T], text: Callable[[T], str], box: Callable[[T], Box | None]
) -> Iterator[list[T] | PdfTable]:
    """The lines in order, with each statement found among them as one PdfTable in its place."""

    def found_at(i: int) -> tuple[int, int, PdfTable] | None:
        found = _statement_at(lines, i, text)
        if found is None:
            return None
        first, end, header, rows = found
        boxes = [b for line in lines[first:end] if (b := box(line)) is not None]
        bbox = (
            (
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            )
            if boxes
            else (0.0, 0.0, 0.0, 0.0)
        )
        cells = [[row.label, *(row.values or [""] * (len(header) - 1))] for row in rows]
        table = PdfTable(markdown_table([header, *cells]), bbox, len(rows) + 1, len(header))
        return first, end, table

    return with_found(lines, found_at)


def _statement_at(
    lines: Sequence[T], i: int, text: Callable[[T], str]
) -> tuple[int, int, list[str], list[_Row]] | None:
    """(first line, end, header, rows) of a statement whose header starts at line i (or its
    columns' group names a few lines before it), or None."""
    years: list[str] = []
    words: list[str] = []
    j = i
    while j < len(lines) and (part := header_part(text(lines[j]))) is not None:
        years += part[0]
        words += part[1]
        j += 1
    if len(years) < 2 or j == i:
        return None
    first = i
    if len(set(years)) < len(years):
        # "Three Months Ended / Six Months Ended" over "2023 2022 2023 2022": each group's
        # name goes with its years; without the names the columns cannot be told apart.
        grouped = period_groups(lines, i, j, text, years)
        if grouped is None:
            return None
        first, years = grouped
    width = len(years)
    rows: list[_Row] = []
    end = j
    figured = stray = 0  # lines with figures; of them, lines whose figures fit no column
    while j < len(lines):
        line = text(lines[j])
        header = header_part(line)
        if header is not None and header[0]:
            break  # another statement's header
        parsed = rows_of(line, width)
        if parsed is None:
            break
        _merge(rows, parsed)
        j += 1
        loose = max((_figures(row.label) for row in parsed), default=0)  # "$" alone: none
        if any(row.values for row in parsed) or loose:
            figured += 1
            stray += loose >= 2
        if any(row.values for row in parsed):
            end = j  # the table ends at its last row with figures
    rows = _trim(rows)
    if sum(1 for row in rows if row.values) < MIN_ROWS or stray > _MAX_STRAY * figured:
        return None  # columns under columns (sales, % of total, income per year): not ours
    unit = " ".join(_UNIT.findall(" ".join(words)))  # "(Dollars in millions, except …)"
    return first, end, [unit, *years], rows


def header_part(line: str) -> tuple[list[str], list[str]] | None:
    """(years, other words) when the line is (part of) a header of periods: short, with a
    year or only a month and day ("November 27," over "2015"), and no other figure."""
    tokens = line.split()
    if not tokens or len(tokens) > _HEADER_WORDS:
        return None
    years: list[str] = []
    others: list[str] = []
    for token in tokens:
        year = _YEAR.match(token) or _DATE.match(token)
        if year:
            years.append(year.group(1))
        elif _DAY.match(token):
            continue  # "December 31," a day of a month
        elif _VALUE.match(token) or token in _CURRENCY:
            return None  # a figure: a row, not a header
        else:
            others.append(token)
    if not years and not all(_MONTH.match(word) for word in others):
        return None
    return years, others


# A group of columns named by its period: "Three Months Ended June 30,", "Fiscal Years Ended".
_GROUP = re.compile(
    r"(?:for\s+the\s+)?(?:(?:three|six|nine|twelve|\d+)\s+(?:months|weeks)|(?:fiscal\s+)?"
    rf"(?:quarters?|years?))\s+end(?:ed|ing)(?:\s+{MONTH}\.?\s+\d{{1,2}}\b)?",
    re.IGNORECASE,
)
_GROUP_LINES = 6  # lines above a header of years that may name its groups of columns


def period_groups(
    lines: Sequence[T], i: int, j: int, text: Callable[[T], str], years: list[str]
) -> tuple[int, list[str]] | None:
    """(first line, column names) for a header whose years repeat in groups ("2023 2022 2023
    2022"), each group named by a period on the lines just above or within the header: "Three
    Months Ended June 30, 2023", …; None unless there is one name per group."""
    first = i
    while (
        first > 0
        and i - first < _GROUP_LINES
        and (_GROUP.search(text(lines[first - 1])) or month_day(text(lines[first - 1])))
    ):
        first -= 1
    words = " ".join(text(line) for line in lines[first:j])
    groups = [" ".join(m.group(0).split()).rstrip(",") for m in _GROUP.finditer(words)]
    if len(groups) < 2 or len(years) % len(groups):
        return None
    size = len(years) // len(groups)
    if years != years[:size] * len(groups) or len(set(years[:size])) < size:
        return None
    names = [f"{group}, {year}" for group in groups for year in years[:size]]
    return first, names


def month_day(line: str) -> bool:
    """A header line naming a month and day only ("June 30,")."""
    part = header_part(line)
    return part is not None and not part[0]


def rows_of(line: str, width: int) -> list[_Row] | None:
    """The rows on one line: each label followed by `width` figures; a last label without its
    figures (they are on the next line, or it heads a section); None for a line of prose."""
    tokens: list[str] = []
    for token in _LEADER.sub(" ", line).split():
        if token == "%" and tokens and _VALUE.match(tokens[-1]):
            tokens[-1] += "%"  # "96 %": one figure
        elif token not in _CURRENCY:
            tokens.append(token)
    rows: list[_Row] = []
    label: list[str] = []
    i = 0
    while i < len(tokens):
        run = i
        while run < len(tokens) and _VALUE.match(tokens[run]):
            run += 1
        if run == len(tokens) and run - i > width:
            # "…, net of tax of $10, $(49), and $5 (210) (279) 533": the last ones are figures.
            label += tokens[i : run - width]
            i = run - width
        if run - i == width:
            rows.append(_Row(" ".join(label), tokens[i:run]))
            label = []
            i = run
        elif run > i and run == len(tokens) and label:
            # Figures under some columns only: kept as words, never put under a wrong year.
            label += tokens[i:run]
            i = run
        else:
            label += tokens[i : max(run, i + 1)]
            i = max(run, i + 1)
    if label:
        if not rows and len(label) > _LABEL_WORDS:
            return None
        rows.append(_Row(" ".join(label)))
    return rows


def _figures(label: str) -> int:
    return sum(1 for token in label.split() if _VALUE.match(token))


def _merge(rows: list[_Row], parsed: list[_Row]) -> None:
    """Add a line's rows, joining a label wrapped over lines to the figures that follow it."""
    for row in parsed:
        previous = rows[-1] if rows else None
        continues = not row.label or row.label[:1].islower()
        if previous is not None and not previous.values and continues:
            previous.label = f"{previous.label} {row.label}".strip()
            previous.values = row.values
            continue
        rows.append(row)


def _trim(rows: list[_Row]) -> list[_Row]:
    """Without the label-only lines after the last row with figures (a footnote follows)."""
    while rows and not rows[-1].values:
        rows.pop()
    return rows
