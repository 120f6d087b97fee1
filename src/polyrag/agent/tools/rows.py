"""The labelled rows of the tables a question's passages hold, and the whole tables ingest
registered: the rows code reads figures from to add them up (`sums`) or to compare two
periods of one (`changes`).

A table's rows are (section, label, {column: value as written}); a section is the figureless
row above ("Net sales", "Operating profit") under which a statement repeats the same labels.
Rows come from a table's row sentences, joined across the chunks a long table was cut into,
from its Markdown, and from the table as stored at ingest (a passage holds only some rows of
a long one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from polyrag.agent.tools.sql import cited_rows
from polyrag.answer.evidence import content_words, stems
from polyrag.answer.numbers import parse_number
from polyrag.chunk.figures import pipe_tables, read_row_sentence
from polyrag.index.tables.base import SourceTable
from polyrag.parse.tables import ROW_PERIOD
from polyrag.types import Chunk

Rows = list[tuple[str, str, dict[str, str]]]
_NIL = frozenset({"", "—", "–", "-", "−"})


def passage_tables(passages: Sequence[Chunk]) -> list[tuple[Rows, list[Chunk]]]:
    """The labelled rows of each table in the passages, with the chunks that hold them: a
    table's row sentences are joined across the chunks it was cut into (they share its
    "Table N" title line)."""
    numbered: dict[tuple[str, str], dict[int, tuple[str, dict[str, str]]]] = {}
    marked: dict[tuple[str, str], Rows] = {}
    chunks_of: dict[tuple[str, str], list[Chunk]] = {}
    for chunk in passages:
        first = chunk.text.split("\n", 1)[0]
        key = (chunk.source_id, first if first.startswith("Table ") else chunk.chunk_id)
        lines = chunk.text.splitlines()
        rows = numbered.setdefault(key, {})
        for line in lines:
            row = read_row_sentence(line)
            if row is not None:
                label, pairs = (
                    (row.label.strip(), dict(row.pairs()))
                    if row.labelled
                    else _named_by_text(row.pairs())
                )
                if pairs:
                    rows[row.number] = (label, pairs)
                elif row.section:
                    rows[row.number] = (row.label.strip(), {})
        marked.setdefault(key, []).extend(_markdown_rows(lines))
        chunks_of.setdefault(key, []).append(chunk)
    tables = []
    for key, chunks in chunks_of.items():
        section, table_rows = "", []
        for _number, (label, figures) in sorted(numbered[key].items()):
            if figures:
                table_rows.append((section, label, figures))
            else:
                section = label
        table_rows += marked[key]
        if table_rows:
            tables.append((table_rows, chunks))
    return tables


def _named_by_text(pairs: Sequence[tuple[str, str]]) -> tuple[str, dict[str, str]]:
    """A sheet's row of "Header is value" pairs as a label and its figures: the first value
    names the row when it is text ("Team is Blues, Location is STL, Stanley Cups is 1" is the
    Blues' row, whose one figure is its Stanley Cups); other text values are no figures. No
    figures when the first value is a number. The period a sheet writes above a table's
    columns leads each of its rows ("Period is January–June 2022, Column 1 is Water, Sales
    is 1792") and names no row: the value after it does."""
    if len(pairs) > 1 and pairs[0][0] == ROW_PERIOD:
        pairs = pairs[1:]
    if not pairs or parse_number(pairs[0][1]) is not None:
        return "", {}
    figures = {name: value for name, value in pairs[1:] if parse_number(value) is not None}
    return pairs[0][1].strip(), figures


def stored_tables(tables: Sequence[SourceTable]) -> list[tuple[Rows, list[Chunk]]]:
    """The rows of whole tables, each cited as the table's header and rows."""
    groups = []
    for source in tables:
        rows = labelled_rows(source.table.header, source.table.rows)
        if rows:
            groups.append((rows, [cited_rows(source, range(len(source.table.rows)))]))
    return groups


def _markdown_rows(lines: Sequence[str]) -> Rows:
    """The rows of the Markdown tables among the lines, with their sections."""
    return [row for table in pipe_tables(lines) for row in labelled_rows(table.header, table.rows)]


def labelled_rows(header: Sequence[str], body: Sequence[Sequence[str]]) -> Rows:
    """A table's rows of figures under their labels and sections: a row with a label and no
    figures names the section of the rows below it."""
    rows: Rows = []
    section = ""
    names = figure_columns(header)
    for cells in body:
        if not cells or not cells[0].strip():
            continue
        filled = {
            name: cell.strip()
            for name, cell in zip(names, cells[1:], strict=False)
            if cell.strip() not in _NIL  # a dash is no figure: "Asia Pacific | 1,677 | — |"
        }
        figures = {name: cell for name, cell in filled.items() if parse_number(cell) is not None}
        if not any(cell.strip() for cell in cells[1:]):
            section = cells[0].strip()
        elif figures:
            # Words beside the figures ("Blues | STL | 1": a team's city) are no figures.
            rows.append((section, cells[0].strip(), figures))
    return rows


def figure_columns(header: Sequence[str]) -> list[str]:
    """The names of a table's figure columns (all but the first), a repeated one numbered by
    its place ("July 30, 2022 (5)") as the row sentences number it."""
    tail = list(header[1:])
    return [name if tail.count(name) == 1 else f"{name} ({i + 2})" for i, name in enumerate(tail)]


def in_asked_section(question: str, rows: Rows) -> tuple[Rows, int]:
    """The rows under the section the question names ("operating profit" of a table of net
    sales then operating profit by segment) and how many of its words it names; all rows and
    0 when it names none or several."""
    asked = content_words(question)
    fits = {section: len(content_words(section) & asked) for section, _, _ in rows if section}
    best = max(fits.values(), default=0)
    named = [section for section, fit in fits.items() if fit == best]
    if best == 0 or len(named) > 1:
        return rows, 0
    return [row for row in rows if row[0] == named[0]], best


def named_spans(question: str, labels: Sequence[str]) -> list[tuple[int, int, str]]:
    """Where the question writes the labels, longest first and never overlapping ("long-term
    debt" inside "current portion of long-term debt" is not a name of its own). A label is
    written when its words are, without the footnote marks and references a statement adds
    ("Underlying trading operating profit (a) as per Note 3.1")."""
    taken: list[tuple[int, int, str]] = []
    for core, label in sorted({(_core(label), label) for label in labels}, key=_longest):
        words = re.findall(r"[\w&'.-]+", core)
        if not words or not content_words(core):
            continue
        pattern = r"(?<![\w-])" + r"[\s,]+".join(re.escape(w) for w in words) + r"s?(?![\w-])"
        for match in re.finditer(pattern, question, re.IGNORECASE):
            if all(match.end() <= s or match.start() >= e for s, e, _ in taken):
                taken.append((match.start(), match.end(), label))
                break
    return taken


# A reference a label carries to a note: "as per Note 3.1", "(see Note 7)", "per note 12".
_NOTE_REFERENCE = re.compile(
    r"\s*\(?\b(?:as per|as in|see|per|refer to)\s+notes?\b[^)]*\)?\s*$", re.IGNORECASE
)


def _core(label: str) -> str:
    """A row label without its footnote marks and note references."""
    return _bare_header(_NOTE_REFERENCE.sub("", label)).strip()


def _longest(pair: tuple[str, str]) -> tuple[int, str, str]:
    return (-len(pair[0]), *pair)


def named_column(question: str, columns: Iterable[str]) -> str | None:
    """The one column whose header the question writes out, the fullest when several fit:
    "combined sales" reads "Sales (a)", not "Trading operating profit"; of "Trading operating
    profit" and "Underlying trading operating profit", "trading operating profit" reads the
    first. None when none fits, or several equally."""
    asked = stems(question, numbers=False)
    named = {c: words for c in columns if (words := stems(_bare_header(c), numbers=False))}
    fitting = [c for c, words in named.items() if words <= asked]
    widest = max((len(named[c]) for c in fitting), default=0)
    fitting = [c for c in fitting if len(named[c]) == widest]
    return fitting[0] if len(fitting) == 1 else None


def _bare_header(header: str) -> str:
    """A column header without its footnote marks: "Sales (a)" is "Sales"."""
    return re.sub(r"\s*\((?:[a-z]|\d{1,2})\)", "", header)
