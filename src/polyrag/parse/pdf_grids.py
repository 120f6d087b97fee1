"""Tables without ruling lines or a header of years: columns of figures under named columns.

Papers and many reports print a table as aligned text: a caption ("Table 1 Potentiodynamic
polarization data …"), a few header lines naming the columns, each name perhaps wrapped over two
lines ("Corrosion" over "rate (mm/year)"), then rows of a label and figures ("Natural Questions
79,168 58,880 8,757 3,610") or of figures alone ("6 0.3233 0.0540 0.8027 5.39E-05 373.180
0.4318"). PDFium gives loose lines, and a model reading the last one cannot tell which figure
is the corrosion rate. Here such lines become a table again, from where their words stand:

- **rows**: at least three lines, each ending in the same number (two or more) of figures,
  every column's figures lined up (their spans share a stretch of the page's width) and clear
  of the next column; the words before the figures are the row's label. A short line of words
  alone between rows is a section title ("Single", "Multi") and stays a row without figures,
  unless the next row's label goes on from it in lower case ("Net cash provided by" over
  "operating activities 1,234 5,678"); the same lines right above the first row ("Segment
  Revenues", "Net revenues from external" over "customers $ 2,219 …") join the rows. A
  footnote's marker after a label ("Intersegment net revenues (1) — 43 — 43") is a figure too
  many for its row: it stays in the label.
- **header**: the short lines just above the rows, each word put under the column its middle
  stands over (a column reaches halfway to its neighbours); a title alone over several columns
  ("Year ended December 31, 2018") names none of them, but titles side by side over groups of
  columns ("Three months ended" twice, "2018 vs 2017") each name the columns nearest to them:
  "Three months ended December 31, 2017 Net Sales". A line of dates may be long ("December
  31, 2019 September 30, 2019 …"). The header ends at a caption, at prose, at a wide gap or at
  words outside the table's width. Rows with no header word over at least half their figure
  columns stay text: a grid of unnamed figures tells a model nothing more.
- **caption**: a line starting "Table 3" (or "TABLE III") right above the header, with the
  line after it when that continues the caption, goes with the table; without one, such a
  line right under the rows (papers often caption below).

Statements (a header of years) are found before this by pdf_statements.py, ruled tables by
pdf_tables.py; what they took is not looked at here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from polyrag.months import MONTH
from polyrag.parse.pdf_tables import Box, PdfTable, with_found
from polyrag.parse.tables import markdown_table

T = TypeVar("T")
Word = tuple[str, Box]  # a word and where it stands

MIN_ROWS = 3  # rows with figures a table needs
MIN_FIGURES = 2  # figures per row
_HEADER_LINES = 10  # lines above the rows searched for column names
_HEADER_WORDS = 12  # a longer line is prose, not a header
_SECTION_WORDS = 5  # a line of words alone between rows, this short, is a section title
_GAP = 2.5  # line heights between the header and the rows (or two header lines) that end it
_SPACE = 0.8  # line heights: words closer than this are one column's name
_ALIGN = 1.0  # points: how far a column's figures may miss a common stretch
_MARGIN = 12.0  # points beyond the table's width a header word's middle may stand, at least
# A figure: 1,577  (1,577)  -3.2%  5.39E-05  $5  0.4318, or a dash for none.
_FIGURE = re.compile(
    r"^[(\-−–+]?[$€£¥]?\d(?:[\d,]*\d)?(?:\.\d+)?(?:[eE][-+−]?\d+)?%?\)?%?[*†‡]?$|^[—–-]%?$"
)
_LEADER = re.compile(r"\s*(?:\.{3,}|…+)\s*")  # dot leaders between a label and its figures
_CURRENCY = frozenset({"$", "€", "£", "¥", "US$"})
# A period over a whole table: "Three months ended December 31, 2018", "At December 31, 2019".
_PERIOD_TITLE = re.compile(
    r"\b(?:ended|ending)\b.*\b(?:19|20)\d\d\b|"
    rf"\b{MONTH}\.? \d{{1,2}}, (?:19|20)\d\d\b",
    re.IGNORECASE,
)
_CAPTION = re.compile(r"^(?:table|tab\.)\s*(?:\d+|[ivxlc]+)\b", re.IGNORECASE)
# A footnote marker after a label ("Intersegment net revenues (1) — 43 — 43"): read as a figure
# only when the row has a figure too many for its table.
_NOTE = re.compile(r"^\(\d\)$")
# Words of a date ("December 31, 2019"): a header of six dates is long, but no prose.
_DATE_WORD = re.compile(
    rf"^(?:{MONTH}\.?,?|\d{{1,2}},|"
    r"(?:19|20)\d\d,?)$",
    re.IGNORECASE,
)


@dataclass
class _Row:
    label: list[Word]
    figures: list[Word]


def with_grids(
    lines: Sequence[T], text: Callable[[T], str], words: Callable[[T], Sequence[Word]]
) -> Iterator[list[T] | PdfTable]:
    """The lines in order, with each grid found among them as one PdfTable in its place (its
    caption and header lines inside it)."""
    parsed = [_row(words(line)) for line in lines]  # each line as a row, once
    return with_found(lines, lambda i: _grid_at(lines, parsed, i, text, words))


def grid_at(
    lines: Sequence[T], i: int, text: Callable[[T], str], words: Callable[[T], Sequence[Word]]
) -> tuple[int, int, PdfTable] | None:
    """The grid whose rows start at line i, as (its first line, the line after it, the
    table), or None."""
    parsed = [_row(words(line)) for line in lines]
    return _grid_at(lines, parsed, i, text, words)


def _row(words: Sequence[Word]) -> _Row | None:
    """The line as a label and the figures it ends in, or None without two figures."""
    kept: list[Word] = []
    for text, box in words:
        if text in _CURRENCY:
            continue
        if text == "%" and kept and _FIGURE.match(kept[-1][0]):  # "2.5 %": one figure
            last, last_box = kept[-1]
            kept[-1] = (last + "%", (last_box[0], last_box[1], box[2], box[3]))
            continue
        kept.append((text, box))
    cut = len(kept)
    while cut > 0 and _FIGURE.match(kept[cut - 1][0]):
        cut -= 1
    if len(kept) - cut < MIN_FIGURES:
        return None
    return _Row(list(kept[:cut]), list(kept[cut:]))


def _grid_at(
    lines: Sequence[T],
    parsed: Sequence[_Row | None],
    i: int,
    text: Callable[[T], str],
    words: Callable[[T], Sequence[Word]],
) -> tuple[int, int, PdfTable] | None:
    """(first line, end, table) of a grid whose rows start at line i, or None; `parsed` holds
    each line as a row (None without figures)."""
    first_row = parsed[i]
    if first_row is None:
        return None
    found = _grid_from(lines, parsed, i, first_row, text, words)
    noted = _with_note(first_row, len(first_row.figures) - 1)
    if found is None and noted is not None:  # the first row's "(1)" is its footnote's marker
        found = _grid_from(lines, parsed, i, noted, text, words)
    return found


def _grid_from(
    lines: Sequence[T],
    parsed: Sequence[_Row | None],
    i: int,
    first_row: _Row,
    text: Callable[[T], str],
    words: Callable[[T], Sequence[Word]],
) -> tuple[int, int, PdfTable] | None:
    """`_grid_at` with the first row read as given."""
    width = len(first_row.figures)
    rows = [first_row]
    ends = [i + 1]  # the line after each row
    j = i + 1
    while j < len(lines):
        row = parsed[j]
        if row is not None and len(row.figures) == width + 1:
            row = _with_note(row, width) or row
        if row is not None and len(row.figures) == width:
            wrapped = rows[-1] if not rows[-1].figures else None
            if wrapped is not None and row.label and row.label[0][0][:1].islower():
                row = _Row(wrapped.label + row.label, row.figures)  # a label over two lines
                rows.pop()
                ends.pop()
            rows.append(row)
            j += 1
            ends.append(j)
            continue
        line = words(lines[j])
        following = parsed[j + 1] if j + 1 < len(lines) else None
        if (  # a section title between rows
            row is None
            and 0 < len(line) <= _SECTION_WORDS
            and following is not None
            and len(following.figures) == width
        ):
            rows.append(_Row(list(line), []))
            j += 1
            ends.append(j)
            continue
        break
    labelled = any(row.label for row in rows)
    while True:
        figured = [row for row in rows if row.figures]
        if len(figured) < MIN_ROWS:
            return None
        spans = _columns(figured, width)
        if spans is None:
            return None
        # A label running into the figures: no row of these columns (two rows PDFium joined
        # into one line, "… contract (2) (105) * Consolidated net sales $ 11,303 …"); the
        # table ends before it.
        into = next(
            (
                k
                for k, row in enumerate(rows)
                if labelled and any(w[1][2] > spans[0][0] + _ALIGN for w in row.label)
            ),
            None,
        )
        if into is None:
            break
        rows, ends = rows[:into], ends[:into]
        while rows and not rows[-1].figures:
            rows, ends = rows[:-1], ends[:-1]
        if not rows:
            return None
        j = ends[-1]
    first = _over_rows(lines, parsed, i, words, rows, spans) if labelled else i
    header, top, period = _header(lines, first, words, rows, spans, labelled)
    if header is None:
        return None
    caption, first = _caption(lines, top, text)
    if not caption and j < len(lines) and _CAPTION.match(text(lines[j])):
        caption, j = text(lines[j]), j + 1  # a paper's caption under its table
    caption = " — ".join(part for part in (caption, period) if part)
    cells = [
        [_label(row), *(w[0] for w in row.figures)]
        if labelled
        else [w[0] for w in row.figures] or [_label(row)]
        for row in rows
    ]
    columns = len(header)
    cells = [cell + [""] * (columns - len(cell)) for cell in cells]
    boxes = [w[1] for row in rows for w in (*row.label, *row.figures)]
    bbox = (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )
    grid = (header, *cells)
    table = PdfTable(
        markdown_table(grid), bbox, len(rows) + 1, columns, tuple(tuple(row) for row in grid)
    )
    return first, j, replace(table, caption=caption)


def _with_note(row: _Row, width: int) -> _Row | None:
    """The row with its first figure, a footnote's marker "(1)", back in its label, when that
    leaves it `width` figures; else None."""
    if width < MIN_FIGURES or len(row.figures) != width + 1 or not row.label:
        return None
    if not _NOTE.match(row.figures[0][0]):
        return None
    return _Row(row.label + row.figures[:1], row.figures[1:])


def _over_rows(
    lines: Sequence[T],
    parsed: Sequence[_Row | None],
    i: int,
    words: Callable[[T], Sequence[Word]],
    rows: list[_Row],
    spans: list[tuple[float, float]],
) -> int:
    """The first line of the rows, taking into them the short lines of words over the labels
    right above line i: the first line of a wrapped label ("Net revenues from external" over
    "customers $ 2,219 …") and a section title ("Segment Revenues"). The column names are
    looked for above them."""
    first = i
    for j in (i - 1, i - 2):
        if j < 0 or parsed[j] is not None:
            break
        line = list(words(lines[j]))
        below = min(w[1][1] for w in (*rows[0].label, *rows[0].figures))
        height = max(w[1][3] - w[1][1] for w in line) if line else 0.0
        if (
            not 0 < len(line) <= _SECTION_WORDS
            or any(w[1][2] >= spans[0][0] for w in line)  # words over the figures: names
            or min(w[1][1] for w in line) - below > _GAP * height + height
            or _is_caption(line)
            or _PERIOD_TITLE.search(" ".join(w[0] for w in line))
        ):
            break
        top = rows[0]
        if top.figures and top.label and top.label[0][0][:1].islower() and first == i:
            rows[0] = _Row(line + top.label, top.figures)  # a label wrapped over two lines
        else:
            rows.insert(0, _Row(line, []))
        first = j
    return first


def _label(row: _Row) -> str:
    return _LEADER.sub(" ", " ".join(w[0] for w in row.label)).strip(" .")


def _columns(rows: list[_Row], width: int) -> list[tuple[float, float]] | None:
    """Each figure column's extent, when every column's figures share a stretch of x and the
    columns stand apart, left to right; else None."""
    spans = []
    for k in range(width):
        boxes = [row.figures[k][1] for row in rows]
        left, right = max(b[0] for b in boxes), min(b[2] for b in boxes)
        if left > right + _ALIGN:
            return None
        spans.append((min(b[0] for b in boxes), max(b[2] for b in boxes)))
    if any(spans[k][1] >= spans[k + 1][0] for k in range(width - 1)):
        return None
    return spans


def _header(
    lines: Sequence[T],
    i: int,
    words: Callable[[T], Sequence[Word]],
    rows: list[_Row],
    spans: list[tuple[float, float]],
    labelled: bool,
) -> tuple[list[str] | None, int, str]:
    """The column names above line i, the first line they take and the period printed over
    them all ("Year ended December 31, 2018"); (None, i, "") when they name fewer than half
    the figure columns."""
    label_right = max((w[1][2] for row in rows for w in row.label), default=spans[0][0])
    edges = [(-1e9, (label_right + spans[0][0]) / 2)] if labelled else []
    for k, (_x0, x1) in enumerate(spans):
        left = edges[-1][1] if edges else -1e9
        right = (x1 + spans[k + 1][0]) / 2 if k + 1 < len(spans) else 1e9
        edges.append((left, right))
    # A name may stand out past the figures under it, as far as half the columns' spacing.
    pitch = (spans[-1][0] - spans[0][0]) / max(len(spans) - 1, 1)
    margin = max(_MARGIN, pitch / 2)
    x_min = min([w[1][0] for row in rows for w in row.label] + [spans[0][0]]) - margin
    x_max = spans[-1][1] + margin
    rows_top = max(w[1][3] for w in (*rows[0].label, *rows[0].figures))  # y grows upwards
    reach = rows_top  # the top of the rows and the header lines taken so far
    figured = next(row for row in rows if row.figures)
    height = max(w[1][3] - w[1][1] for w in figured.figures) or 10.0
    taken: list[tuple[float, list[tuple[int, str]]]] = []  # each line's top and its names
    titles: list[str] = []  # periods printed over the whole table
    top = i
    for j in range(i - 1, max(i - 1 - _HEADER_LINES, -1), -1):
        line = list(words(lines[j]))
        named_words = [w for w in line if not _DATE_WORD.match(w[0])]
        if not line or len(named_words) > _HEADER_WORDS or _is_caption(line):
            break
        if j > 0 and _is_caption(words(lines[j - 1])) and len(_phrases(line)) == 1:
            break  # the caption's second line ("Table 1" over "Corrosion data for …")
        if _row(line) is not None or all(_FIGURE.match(w[0]) for w in line):
            break  # figures: rows above, not names
        if any(not x_min <= (w[1][0] + w[1][2]) / 2 <= x_max for w in line):
            break  # words beside the table: another column of the page
        # Above the rows and near them; a header's lines may come in any order (PDFium
        # gives a wrapped name's two lines one after the other, column by column).
        y0 = min(w[1][1] for w in line)
        if y0 < rows_top - 1 or y0 - reach > _GAP * height:
            break
        phrases = _phrases(line)
        if len(phrases) == 1 and len(spans) >= 2 and _PERIOD_TITLE.search(phrases[0][0]):
            titles.insert(0, phrases[0][0])  # the period of the whole table, alone on its line
            reach = max(reach, max(w[1][3] for w in line))
            top = j
            continue
        over = [sum(1 for a, b in spans if x0 < b and a < x1) for _text, (x0, x1) in phrases]
        # Titles over groups of columns, side by side ("Three months ended" twice): on a line
        # where one stands over two columns' figures, those wider than a column are titles
        # too, and each names the columns nearest to it. (A wide name alone over its column,
        # "THEREAFTER", is no title.)
        groups = [
            phrase
            for phrase, columns in zip(phrases, over, strict=True)
            if (columns >= 2 or phrase[1][1] - phrase[1][0] > pitch)
            and not (labelled and phrase[1][1] < spans[0][0])  # over the labels: their name
        ]
        grouped = max(over, default=0) >= 2 and len(groups) >= 2
        placed = [
            (_column(edges, x0, x1), text)
            for (text, (x0, x1)), columns in zip(phrases, over, strict=True)
            if columns < 2  # not a title over columns
            and not (grouped and (text, (x0, x1)) in groups)
        ]
        if grouped:
            placed += _grouped(groups, spans, 1 if labelled else 0, pitch)
        if labelled and all(k == 0 for k, _text in placed):
            break  # words over the labels alone: a section title or prose, not column names
        taken.append((max(w[1][3] for w in line), placed))
        reach = max(reach, taken[-1][0])
        top = j
    named: list[list[str]] = [[] for _ in edges]
    for _top, placed in sorted(taken, key=lambda found: -found[0]):  # top line first
        for k, text in placed:
            named[k].append(_LEADER.sub(" ", text).strip())
    header = [" ".join(parts) for parts in named]
    figure_names = header[1:] if labelled else header
    if 2 * sum(1 for name in figure_names if name) < len(figure_names):
        return None, i, ""
    return header, top, " ".join(titles)


def _grouped(
    groups: list[tuple[str, tuple[float, float]]],
    spans: list[tuple[float, float]],
    offset: int,
    pitch: float,
) -> list[tuple[int, str]]:
    """Each figure column (numbered from `offset`) with the title nearest to it of the titles
    printed side by side over groups of columns ("For the Year Ended December 31, 2019" over
    four columns, "Increase / (decrease)" over the next four); a column farther than a
    column's spacing from every title has none."""

    def distance(x: float, title: tuple[str, tuple[float, float]]) -> float:
        x0, x1 = title[1]
        return max(x0 - x, x - x1, 0.0)

    placed = []
    for k, (a, b) in enumerate(spans):
        middle = (a + b) / 2
        title = min(groups, key=lambda group: distance(middle, group))
        if distance(middle, title) <= pitch:
            placed.append((k + offset, title[0]))
    return placed


def _column(edges: list[tuple[float, float]], x0: float, x1: float) -> int:
    """The column a name from x0 to x1 stands over: the one holding its middle."""
    middle = (x0 + x1) / 2
    return next((k for k, (left, right) in enumerate(edges) if left <= middle < right), 0)


def _phrases(line: Sequence[Word]) -> list[tuple[str, tuple[float, float]]]:
    """A header line's words joined where only a space parts them ("concentration (g)"), each
    phrase with its left and right edge: a name is placed as a whole, by its middle."""
    phrases: list[tuple[str, tuple[float, float]]] = []
    for text, box in sorted(line, key=lambda w: w[1][0]):
        space = _SPACE * (box[3] - box[1])
        if phrases and box[0] - phrases[-1][1][1] <= space:
            joined, (x0, _x1) = phrases[-1]
            phrases[-1] = (f"{joined} {text}", (x0, box[2]))
        else:
            phrases.append((text, (box[0], box[2])))
    return phrases


def _caption(lines: Sequence[T], top: int, text: Callable[[T], str]) -> tuple[str, int]:
    """The caption right above line `top` ("Table 1" alone, or with the line after it) and
    the first line it takes; ("", top) without one."""
    for back in (1, 2):
        j = top - back
        if j >= 0 and _CAPTION.match(text(lines[j])):
            return " ".join(text(lines[k]) for k in range(j, top)), j
    return "", top


def _is_caption(line: Sequence[Word]) -> bool:
    return bool(_CAPTION.match(" ".join(w[0] for w in line[:2])))
