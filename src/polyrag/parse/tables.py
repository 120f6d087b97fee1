"""Tables as text: Markdown rendering and delimiter detection for CSV-like text."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Sequence

from polyrag.months import MONTH

DELIMITERS = (",", ";", "\t", "|")
# The name a sheet's row sentence gives the period written above its table's columns:
# "Row 24: Period is January–June 2022, Column 1 is Water, Sales is 1792".
ROW_PERIOD = "Period"
# A cell holding one figure: "1,577", "(204)", "-5.2%", "$ 3,642", "−9".
FIGURE_CELL = re.compile(r"^[-+(−–]?[$€£¥]?\s?\(?\d[\d.,]*\)?\s?%?$")
# What stands between a table's title and its rows without being a title itself: its unit
# ("(In thousands)") or its period ("Years Ended", "For the Years Ended December 31,").
TABLE_TOP = re.compile(
    r"^\(|^(?:for\s+the\s+)?(?:(?:fiscal\s+)?years?|(?:three|six|nine|twelve)\s+months|"
    r"quarters?|\d+\s+weeks)\s+end(?:ed|ing)\b[^.;]{0,40}$|^(?:fiscal\s+)?years?$|"
    rf"^(?:as\s+of|at)\s+{MONTH}\.?\s+\d"
    r"[^.;]{0,30}$",
    re.IGNORECASE,
)
# A form's caption under the value it names: "(State or other jurisdiction of incorporation)".
_LABEL_BELOW = re.compile(r"^\((?=[^()]*[^\W\d_]{3})[^()]+\)$")
_SPACE = re.compile(r"\s+")
_SAMPLE_LINES = 50


def clean_cell(value: str) -> str:
    """One line, single spaces: what a table cell or a row sentence shows."""
    return _SPACE.sub(" ", value).strip()


def cell_at(row: Sequence[str], index: int) -> str:
    """The cell at `index`, or "" past the row's end (rows of a table may be ragged)."""
    return row[index] if index < len(row) else ""


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    """Render rows as a Markdown pipe table; the first row is the header."""
    width = max((len(row) for row in rows), default=0)
    if width == 0:
        return ""
    lines = []
    for index, row in enumerate(rows):
        cells = [clean_cell(cell).replace("|", "\\|") for cell in row]
        cells += [""] * (width - len(cells))
        lines.append("| " + " | ".join(cells) + " |")
        if index == 0:
            lines.append("|" + "|".join([" --- "] * width) + "|")
    return "\n".join(lines)


def labels_below(rows: Sequence[Sequence[str]]) -> list[list[str]] | None:
    """A form laid out as a table, its labels in parentheses under the values they name (the
    cover page of every SEC filing: "Nevada" over "(State or other jurisdiction of
    incorporation)"), turned so the labels are the header and the values one row under them:
    read as printed, the values would be taken for the header and the labels for data. None
    when the rows are not all such pairs, or fewer than two labels are named."""
    rows = [list(row) for row in rows if any(cell.strip() for cell in row)]
    if len(rows) < 2 or len(rows) % 2:
        return None
    labels: list[str] = []
    values: list[str] = []
    for above, below in zip(rows[::2], rows[1::2], strict=True):
        named = [index for index, cell in enumerate(below) if cell.strip()]
        filled = [index for index, cell in enumerate(above) if cell.strip()]
        if named != filled:
            return None
        for index in named:
            label = clean_cell(below[index])
            if not _LABEL_BELOW.match(label):
                return None
            labels.append(label[1:-1].strip())
            values.append(clean_cell(above[index]))
    return [labels, values] if len(labels) >= 2 else None


def detect_delimiter(text: str) -> str | None:
    """The delimiter that splits the first lines into a consistent number of fields, if any."""
    lines = text.splitlines()
    if len(lines) > 2 and not text.endswith(("\n", "\r")):
        lines = lines[:-1]  # the sample may end in the middle of a line
    sample = "\n".join(lines[:_SAMPLE_LINES])
    best: tuple[float, int, str] | None = None
    for delimiter in DELIMITERS:
        score = _consistency(sample, delimiter)
        if score is not None and (best is None or score[:2] > best[:2]):
            best = (*score, delimiter)
    return best[2] if best else None


def _consistency(sample: str, delimiter: str) -> tuple[float, int] | None:
    """(share of rows with the usual field count, that count), or None if not a table."""
    if delimiter not in sample:
        return None
    try:
        rows = [
            row
            for row in csv.reader(io.StringIO(sample), delimiter=delimiter)
            if any(cell.strip() for cell in row)
        ]
    except csv.Error:
        return None
    if len(rows) < 2:
        return None
    fields, count = Counter(len(row) for row in rows).most_common(1)[0]
    share = count / len(rows)
    if fields < 2 or share < (0.9 if fields == 2 else 0.75):
        return None
    cells = [cell for row in rows for cell in row]
    mean_length = sum(len(cell) for cell in cells) / len(cells)
    if fields <= 3 and mean_length > 60:
        return None  # prose that happens to contain the delimiter on every line
    if delimiter == "\t" and sum(not row[0].strip() for row in rows) > len(rows) / 2:
        return None  # tab-indented text, not a table
    return share, fields
