"""How much one row of a table changed between two periods, read and computed by code.

"By how much did Confectionery's trading operating profit change from January–June 2022 to
January–June 2023?" names a row (Confectionery), a measure (trading operating profit) and two
periods. A statement writes the periods as columns ("2019", "2018"); a workbook often writes
each period as a block of its own, this half-year's table above last year's with the period
over its columns. Given that workbook, the local model answered 6,884, a figure no cell holds.
Code reads the question instead: the one row it names, in the one table whose columns, or the
one pair of tables whose titles, are the two periods, both figures under the measure it names
(or, in a table with a row per period, the measure's column in those two rows); later minus
earlier, or the percentage change when that is asked, worked out by the calculator and citing
the rows read.

Nothing is decided when the question names two years and not exactly two periods, no row or
several, a period fits several columns or tables, a name it writes runs on past the row's
label ("operating income" is not the row "Income"), or two tables give different figures:
the question then goes on to the model's own calculation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from polyrag.agent.tools.base import ToolOutcome
from polyrag.agent.tools.calculator import CalculationError, calculate
from polyrag.agent.tools.rows import (
    Rows,
    figure_columns,
    in_asked_section,
    labelled_rows,
    named_column,
    named_spans,
    passage_tables,
    stored_tables,
)
from polyrag.agent.tools.sql import cited_rows
from polyrag.answer.evidence import content_words, stems
from polyrag.answer.numbers import ASKS_PERCENT, parse_number
from polyrag.index.tables.base import SourceTable
from polyrag.types import Chunk

_CHANGE = re.compile(
    r"\b(?:chang(?:e|ed|es)|increas(?:e|ed|es)|decreas(?:e|ed|es)|grow|grew|grown|growth|"
    r"declin(?:e|ed)|rise|rose|fell|drop(?:ped)?)\b",
    re.IGNORECASE,
)
# Anything else asked of the figures: an average of both years, a ratio, a sum, a rate per year.
_OTHER = re.compile(
    r"\b(?:average|mean|median|ratio|proportion|share|margin|CAGR|compound\w*|annual\w*|"
    r"per year|combined|sum|together|each|both|respectively|times)\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?<![\d.,])((?:19|20)\d\d)(?![\d.,]\d)")
# What may qualify a year as a period: "January–June 2022", "Q4 2019", "H1 2023".
_QUALIFIER = re.compile(
    r"(?:\b(?P<q>Q[1-4]|H[12]|[A-Z][a-z]+(?:\s?[–-]\s?[A-Z][a-z]+)?)\s+)?(?:FY\s?)?$"
)


@dataclass(frozen=True)
class Period:
    year: str
    written: str  # as the question writes it: "January–June 2022", "2019"

    def fits(self, text: str, other: Period) -> bool:
        """Whether a column header or a table's title is this period and not the other: its
        year (and the months or quarter the question gives it) written, the other's not."""
        return bool(self.pattern().search(_flat(text))) and not other.pattern().search(_flat(text))

    def pattern(self) -> re.Pattern[str]:
        """The period inside a header: "2019" in "FY2019" or "December 31, 2019"; "January–June
        2022" as a whole."""
        written = _flat(self.written)
        before = r"(?<!\d)" if written[0].isdigit() else r"(?<!\w)"
        return re.compile(before + re.escape(written) + r"(?!\d)")


@dataclass(frozen=True)
class Changed:
    label: str  # the row
    column: str  # the measure, or "" when the periods are the columns
    periods: tuple[str, str]  # earlier, later, as the question writes them
    shown: tuple[str, str]  # each figure as the source writes it
    values: tuple[float, float]
    chunks: tuple[Chunk, ...]  # where the figures stand
    percent: bool

    def expression(self) -> str:
        earlier, later = (_literal(v) for v in self.values)
        if self.percent:
            # The textbook formula, signs kept: an allowance written in parentheses that grew
            # from (15,916) to (19,911) grew by 25.1%.
            return f"({later} - {earlier}) / {earlier} * 100"
        return f"{later} - {earlier}"


def asks_change(question: str) -> bool:
    """Whether the question asks how one thing changed between two years, and nothing else."""
    return (
        bool(_CHANGE.search(question))
        and not _OTHER.search(question)
        and len(set(_YEAR.findall(question))) == 2
    )


def named_change(
    question: str, passages: Sequence[Chunk], tables: Sequence[SourceTable] = ()
) -> Changed | None:
    """The change the question asks about, read from the passages' tables and the whole tables
    of the sources found; None when they do not settle one."""
    if not asks_change(question):
        return None
    periods = _periods(question)
    if periods is None:
        return None
    percent = bool(ASKS_PERCENT.search(question))
    found: list[Changed] = []
    for rows, chunks in [*passage_tables(passages), *stored_tables(tables)]:
        changed = _across_columns(question, periods, rows, chunks, percent) or _down_rows(
            question, periods, rows, chunks, percent
        )
        if changed is not None:
            found.append(changed)
    found += _across_tables(question, periods, tables, percent)
    # Of several readings, those that account for more of the question: "Confectionery's
    # trading operating profit" is that row under that measure, not the reconciliation's
    # total "Trading operating profit" row, which leaves "Confectionery" unread.
    asked = content_words(question)
    covered = [len(asked & content_words(f"{c.label} {c.column}")) for c in found]
    found = [c for c, n in zip(found, covered, strict=True) if n == max(covered)]
    if len({c.values for c in found}) != 1:
        return None  # nothing found, or tables that disagree
    return found[0]


def run(
    question: str, passages: Sequence[Chunk], tables: Sequence[SourceTable] = ()
) -> ToolOutcome:
    """The change as a calculation, citing the rows its two figures stand in."""
    found = named_change(question, passages, tables)
    if found is None:
        return ToolOutcome(
            "change", {"question": question}, False, error="no row and two periods to compare"
        )
    try:
        calculation = calculate(found.expression(), [abs(v) for v in found.values])
    except CalculationError as error:  # a change in percent from nothing
        return ToolOutcome("change", {"question": question}, False, error=str(error))
    measure = f" {found.column}" if found.column else ""
    read = "; ".join(
        f"{period}: {shown}" for period, shown in zip(found.periods, found.shown, strict=True)
    )
    return ToolOutcome(
        "change",
        {"row": found.label, "column": found.column, "periods": list(found.periods)},
        True,
        result=f"{calculation.formula.rsplit(' = ', 1)[1]} — {found.label}{measure} ({read})",
        backing=found.chunks,
        formula=calculation.formula,
    )


def _periods(question: str) -> tuple[Period, Period] | None:
    """The two periods, earlier first, each as the question writes it."""
    found: dict[str, Period] = {}
    for match in _YEAR.finditer(question):
        qualifier = _QUALIFIER.search(question[: match.start()])
        q = qualifier["q"] if qualifier and qualifier["q"] else ""
        written = f"{q} {match[1]}" if q and not _is_word(q) else match[1]
        found.setdefault(match[1], Period(match[1], written))
    if len(found) != 2:
        return None
    earlier, later = sorted(found.values(), key=lambda p: p.year)
    return earlier, later


def _is_word(text: str) -> bool:
    """A capitalised word before a year that qualifies nothing ("In 2019", "Was 2019")."""
    return text.casefold() in _NOT_QUALIFIERS


_NOT_QUALIFIERS = frozenset(
    {"in", "from", "to", "between", "and", "of", "for", "during", "since", "than", "year",
     "fiscal", "by", "at", "on", "was", "is", "were", "what", "how", "the", "its", "fy"}
)  # fmt: skip


def _across_columns(
    question: str, periods: tuple[Period, Period], rows: Rows, chunks: list[Chunk], percent: bool
) -> Changed | None:
    """The named row's figures under the column of each period, in one table."""
    earlier, later = periods
    columns = list(dict.fromkeys(name for _, _, figures in rows for name in figures))
    picked = []
    for period, other in ((earlier, later), (later, earlier)):
        fitting = [c for c in columns if period.fits(c, other)]
        if len(fitting) != 1:
            return None
        picked.append(fitting[0])
    figures = _named_row(question, rows)
    if figures is None:
        return None
    label, written = figures
    if not all(c in written for c in picked):
        return None
    shown = (written[picked[0]], written[picked[1]])
    return _changed(label, "", periods, shown, chunks, percent)


def _down_rows(
    question: str, periods: tuple[Period, Period], rows: Rows, chunks: list[Chunk], percent: bool
) -> Changed | None:
    """The named column's figures in the row of each period, in one table whose rows are the
    periods ("Year | Freshwater Ducks", a row a year)."""
    earlier, later = periods
    picked = []
    for period, other in ((earlier, later), (later, earlier)):
        fitting = [(label, f) for _, label, f in rows if period.fits(label, other)]
        if len(fitting) != 1:
            return None
        picked.append(fitting[0])
    # The column must be named even when it is the only one: "the Space deliveries" is not
    # the figure of a table of ducks a year.
    column = named_column(question, [name for name in picked[0][1] if name in picked[1][1]])
    if column is None:
        return None
    shown = (picked[0][1][column], picked[1][1][column])
    return _changed(column, "", periods, shown, chunks, percent)


def _across_tables(
    question: str, periods: tuple[Period, Period], tables: Sequence[SourceTable], percent: bool
) -> list[Changed]:
    """The named row's figure under the named measure, in the one table titled by each
    period that holds the row (a workbook's blocks: this half-year's table above last year's;
    its segments' tables and its products' tables are titled alike)."""
    earlier, later = periods
    read = []
    for period, other in ((earlier, later), (later, earlier)):
        fitting = []
        for source in tables:
            if source.table.title and period.fits(source.table.title, other):
                rows = labelled_rows(source.table.header, source.table.rows)
                named = _named_row(question, rows)
                if named is not None:
                    fitting.append((source, *named))
        if len(fitting) != 1:
            return []
        read.append(fitting[0])
    labels = {label for _, label, _ in read}
    column = named_column(question, set(read[0][2]) & set(read[1][2]))
    if len(labels) != 1 or column is None:
        return []
    shown = (read[0][2][column], read[1][2][column])
    chunks = [_cited(source, label, column) for source, label, _ in read]
    changed = _changed(labels.pop(), column, periods, shown, chunks, percent)
    return [changed] if changed is not None else []


def _named_row(question: str, rows: Rows) -> tuple[str, dict[str, str]] | None:
    """The one row the question names, and its figures: named whole (a name the question
    writes on past the label, "operating income" for a row "Income", is another thing), and
    written with one set of figures in the table (or in the section the question names)."""
    narrowed, _ = in_asked_section(question, rows)
    years = [m.span() for m in _YEAR.finditer(question)]
    spans = [
        (start, end, label)
        for start, end, label in named_spans(question, [label for _, label, _ in narrowed])
        if not any(start < e and s < end for s, e in years)
    ]
    if len(spans) != 1:
        return None
    start, end, label = spans[0]
    measures = {
        w for section, _, figures in narrowed for name in [section, *figures] for w in stems(name)
    }
    if _runs_on(question[:start], question[end:], measures):
        return None
    written = {tuple(sorted(f.items())) for _, name, f in narrowed if name == label}
    if len(written) != 1:
        return None
    return label, dict(written.pop())


def _runs_on(before: str, after: str, measures: set[str]) -> bool:
    """Whether the words beside a name make it part of a longer one: a content word right
    before it (not a possessive: "IMFT's total assets") or right after it, unless that word
    begins what the table measures ("PetCare sales", "Confectionery's trading operating
    profit", "Space deliveries": the words of a column header or a section, as `stems`) or is
    the question's verb of change."""
    previous = re.search(r"([\w'’-]+)\W*$", before)
    if previous and content_words(previous[1]) and not re.search(r"['’]s?$", previous[1]):
        return True
    following = re.match(r"^(['’]s?)?\s*([\w-]+)", after)
    if not following or _YEAR.fullmatch(following[2]) or _CHANGE.fullmatch(following[2]):
        return False  # "… operating profit change from 2022": the question's own verb
    if content_words(following[2]):
        return not stems(following[2]) <= measures
    return False


def _changed(
    label: str,
    column: str,
    periods: tuple[Period, Period],
    shown: tuple[str, str],
    chunks: Sequence[Chunk],
    percent: bool,
) -> Changed | None:
    values = tuple(parse_number(text) for text in shown)
    if values[0] is None or values[1] is None or (percent and values[0] == 0):
        return None
    if any("%" in text for text in shown) and percent:
        return None  # a change of a rate in percent is ambiguous: points or percent
    used = [c for c in chunks if all(text in c.text for text in shown)] or list(chunks)
    return Changed(
        label,
        column,
        (periods[0].written, periods[1].written),
        shown,
        (values[0], values[1]),
        tuple(used),
        percent,
    )


def _cited(source: SourceTable, label: str, column: str) -> Chunk:
    """The table's row that holds the label, as evidence: of a sheet, its label's cell and the
    figure's."""
    table = source.table
    indices = [i for i, row in enumerate(table.rows) if row and row[0].strip() == label]
    read = [0, *[i for i, name in enumerate(figure_columns(table.header), 1) if name == column]]
    return cited_rows(source, indices[:1] or range(len(table.rows)), read)


def _flat(text: str) -> str:
    """Text compared without case, with one kind of dash and single spaces."""
    text = re.sub(r"\s*[–—-]\s*", "-", text.casefold())
    return re.sub(r"\s+", " ", text).strip()


def _literal(value: float) -> str:
    text = repr(float(value))
    text = text[:-2] if text.endswith(".0") else text
    return f"({text})" if value < 0 else text
