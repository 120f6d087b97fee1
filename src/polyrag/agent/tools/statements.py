"""Standard figures and ratios of a financial filing, looked up and computed by code.

"What is the FY2019 fixed asset turnover ratio for Activision Blizzard?" needs three numbers
from two statements (revenue for 2019, net PP&E at the end of 2018 and 2019) and one formula
every analyst knows. The local model, shown those rows, copied the wrong row or the wrong year
more often than not (FinanceBench: a quarter of such questions right), while the rows
themselves are in the filing's tables with their labels and year columns. So for the line
items and ratios below, code reads the question (which figure, which fiscal years, a
three-year average, a growth rate or a change, the unit and the rounding asked for), finds
each line item in the statement that reports it, and writes the calculation for the
calculator, which checks every operand against the rows it cites.

The statement is the filing's own: a table titled as that statement, else one holding its
hallmark rows ("Total assets") and no other statement's (selected financial data holds them
all), never an exhibit's or a note's; of those the longest (the statement, not a summary of
it). A statement whose columns the parser did not find as a table is read from its lines of
text. In it, the row is the best of a short list of the names filings give the item, in the
column headed by the year. A figure it cannot find is never guessed, and a question about
something narrower (a quarter, a segment, a brand or a country, an adjusted measure, a ratio
to something it does not know) is not taken for one of these: the question then goes on to
the model's own calculation.

"Does Adobe have an improving operating margin as of FY2022?" and "How does the effective tax
rate in FY2022 compare to FY2021?" are the same figures for two years, side by side: code says
which way it moved, by how much, and — when asked whether it went up (or improved) — yes or no.

Only questions that name a fiscal year ("FY2019", "fiscal 2019") are read here; the formulas
are the textbook ones, which is also how the questions that define them spell them out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from polyrag.agent.tools.base import ToolContext, ToolOutcome
from polyrag.agent.tools.calculator import Calculation, CalculationError, calculate
from polyrag.agent.tools.sql import cited_rows
from polyrag.answer.numbers import parse_number, show
from polyrag.financial import BALANCE, CASH, INCOME, ITEMS, METRICS, STATEMENT_TITLES, Item, Metric
from polyrag.index.tables.base import SourceTable
from polyrag.parse.pdf_statements import rows_of
from polyrag.types import Chunk, Locator, Modality, Table

__all__ = ["Found", "Plan", "is_comparison", "plan", "run", "text_statements"]

_GROWABLE = (
    "revenue",
    "net_income",
    "operating_income",
    "cogs",
    "capex",
    "total_assets",
    "ebitda",
    "gross_profit",
)

_FY = r"(?:FY\s?|fiscal (?:year )?)((?:19|20)\d\d)"
_YEAR = re.compile(_FY, re.IGNORECASE)
_SPAN = re.compile(
    rf"(?:from |between )?{_FY}\s*(?:-|–|to|and|through)\s*(?:FY\s?|fiscal (?:year )?)?"
    r"((?:19|20)\d\d)",
    re.IGNORECASE,
)
_AVERAGE = re.compile(r"\b(?:two|three|four|five|[2-5])[ -]year average\b", re.IGNORECASE)
_GROWTH = re.compile(
    r"\b(?:growth rate|growth|year-over-year change|change|increase|decrease)\b",
    re.IGNORECASE,
)
_CAGR = re.compile(r"\bCAGR\b|compound(?:ed)? annual growth", re.IGNORECASE)
_PERCENT = re.compile(r"%|percent", re.IGNORECASE)
_DECIMALS = re.compile(r"\b(one|two|three|1|2|3) decimal places?\b", re.IGNORECASE)
# How a span's definitions name the years inside a formula ("average PP&E between FY2018 and
# FY2019"): they are the metric's own, not a range to average over.
_DEFINED = re.compile(r"\b(?:is |are )?defined as\b|\bdefine\b", re.IGNORECASE)
# A yes-or-no question ("Does Adobe have an improving operating margin profile?") or one after
# a reason asks for a judgement in words, not for the figure; a part, a breakdown or an
# adjusted measure is not the statement's figure either.
_NOT_A_FIGURE = re.compile(
    r"^\W*(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would|should)\b|"
    r"\bwhat (?:drove|drives|caused|explains)\b|\bwhy\b|\bcomponents? of\b|\bbreakdown\b|"
    r"\bwhat kinds?\b|\bproportion\b|\bsum of\b|\bcontributed\b|"
    # what the company expects, not what it reported
    r"\boutlook\b|\bguidance\b|\bforecast\w*\b|\bprojected\b|\bexpect\w*\b|\bplans?\b|"
    # a measure of the company's own making, or a formula of the asker's
    r"(?<!un)adjusted\b|\bnon[- ]?GAAP\b|\bnumerator\b|\bdenominator\b",
    re.IGNORECASE,
)
_WORD_DECIMALS = {"one": 1, "two": 2, "three": 3}


@dataclass(frozen=True)
class Plan:
    """What a question asks for: a metric, for which fiscal years, how to show it."""

    metric: Metric
    years: tuple[int, ...]  # averaged when more than one
    growth_from: int | None = None  # a growth rate (or CAGR) from this year to years[-1]
    cagr: bool = False
    unit: str | None = None  # "thousands", "millions" or "billions", as the question asks
    decimals: int | None = None
    difference: bool = False  # a change asked as an amount ("how much did revenue increase")
    # "Does Adobe have an improving operating margin as of FY2022?": the figure of two years
    # side by side (growth_from, years[-1]); "up" or "down" when the question asks whether it
    # went that way (the reply then begins with yes or no), "" when it asks how it changed.
    trend: str | None = None

    @property
    def computed(self) -> bool:
        """Whether a formula is worked (not one row read off a statement)."""
        single = _SLOT.fullmatch(self.metric.formula) is not None
        return not single or self.growth_from is not None or len(self.years) > 1

    def describe(self) -> str:
        """What is computed, as a person says it: "fixed asset turnover ratio for FY2019"."""
        name = _TITLES.get(self.metric.key, self.metric.key.replace("_", " "))
        first, last = self.years[0], self.years[-1]
        if self.trend is not None:
            return f"{name}, FY{last} against FY{self.growth_from}"
        if self.growth_from is not None:
            if self.difference:
                return f"change in {name} from FY{self.growth_from} to FY{last}"
            kind = "compound annual growth" if self.cagr else "growth"
            return f"{name} {kind} from FY{self.growth_from} to FY{last}"
        if len(self.years) > 1:
            return f"{name} averaged over FY{first}–FY{last}"
        return f"{name} for FY{last}"


_TITLES = {
    "ccc": "cash conversion cycle",
    "dpo": "days payable outstanding",
    "dio": "days inventory outstanding",
    "dso": "days sales outstanding",
    "fixed_asset_turnover": "fixed asset turnover ratio",
    "inventory_turnover": "inventory turnover ratio",
    "asset_turnover": "asset turnover ratio",
    "current_ratio": "working capital (current) ratio",
    "capex_share": "capital expenditure as a % of revenue",
    "cogs_share": "cost of goods sold as a % of revenue",
    "ebitda_margin": "EBITDA margin",
    "net_margin": "net profit margin",
    "capex": "capital expenditure",
    "ppe": "net PP&E",
    "cfo": "cash from operating activities",
    "cogs": "cost of goods sold",
    "payables": "accounts payable",
    "current_assets": "total current assets",
    "current_liabilities": "total current liabilities",
    "dividends": "cash dividends paid",
    "inventory": "inventories",
    "return_on_equity": "return on equity",
    "receivables_turnover": "receivables turnover ratio",
    "payables_turnover": "payables turnover ratio",
    "interest_coverage": "interest coverage ratio",
    "ebitda": "EBITDA",
    "equity": "shareholders' equity",
}


def plan(question: str) -> Plan | None:
    """The metric and years a question asks for, or None when it names no fiscal year or no
    figure this module knows, or asks for something else about it (a quarter's, a ratio of
    it to something else, the figures of several years, a judgement) — except whether a
    figure went up or down between two years, which is the two figures side by side."""
    trend = _trend(question)
    if trend is not None:
        return trend
    if _NOT_A_FIGURE.search(question):
        return None
    asked = _DEFINED.split(question, maxsplit=1)[0]
    years = [int(y) for y in _YEAR.findall(asked)]
    if not years or _QUARTER.search(asked):
        return None
    named = _named_metric(asked)
    if named is None:
        return None
    metric, found = named
    if _another_figure(asked, found) or _NARROWER.search(asked):
        return None
    span = _SPAN.search(asked)
    if span is None and len(set(years)) > 1:
        return None  # "for fiscal 2018 and 2017": two figures
    first, last = (int(span.group(1)), int(span.group(2))) if span else (years[0], years[0])
    if first > last:
        first, last = last, first
    growth_from = None
    cagr = bool(_CAGR.search(asked))
    change = bool(_GROWTH.search(asked))
    if change and metric.unit != "amount":
        return None  # the change of a margin: in points or in percent, it does not say
    if cagr or (change and span):
        if metric.key not in _GROWABLE or first == last:
            return None
        growth_from = first
        chosen: tuple[int, ...] = (last,)
    elif _AVERAGE.search(asked) and span:
        chosen = tuple(range(first, last + 1))
    elif span:
        return None  # a span of years without an average or a change
    else:
        chosen = (last,)
    if change and growth_from is None:
        return None  # "the change in inventories": not the figure itself
    unit, decimals = _asked_form(question)
    return Plan(
        metric,
        chosen,
        growth_from,
        cagr,
        unit,
        decimals,
        difference=growth_from is not None and not cagr and not _RATE.search(asked),
    )


def _named_metric(text: str) -> tuple[Metric, re.Match[str]] | None:
    """The first metric (most specific first) whose name the text holds, and where."""
    for metric in METRICS:
        found = metric.names.search(text)
        if found:
            return metric, found
    return None


def _another_figure(question: str, name: re.Match[str]) -> bool:
    """Whether the figure named is only part of another one the question asks about: "total
    debt to total assets", "wages expense as a percent of net sales"."""
    before, after = question[: name.start()], question[name.end() :]
    return bool(_TO_BEFORE.search(before) or _OF_BEFORE.search(before) or _TO_AFTER.match(after))


_OF_BEFORE = re.compile(
    r"\b(?:percent(?:age)?|%|share|proportion|fraction|ratio)\s+of\s+(?:(?:the|its|total)\s+)*$",
    re.IGNORECASE,
)
_QUARTER = re.compile(r"\bquarters?\b|\bQ[1-4]\b|\bH[12]\b|\bhalf[- ]year", re.IGNORECASE)
_TO_BEFORE = re.compile(r"\bto\s*$", re.IGNORECASE)
_TO_AFTER = re.compile(r"\s+to\s+(?!(?:one|two|three|\d) decimal)[a-z]", re.IGNORECASE)
# A growth asked as a rate: "in units of percents", "growth rate", "CAGR"
_RATE = re.compile(r"%|percent|\brate\b|\bgrowth\b", re.IGNORECASE)
_ASKED_UNITS = (
    ("billions", re.compile(r"\b(?:USD|US\$|\$|in) ?billions?\b|\bbillions of\b", re.I)),
    ("millions", re.compile(r"\b(?:USD|US\$|\$|in) ?millions?\b|\bmillions of\b", re.I)),
    ("thousands", re.compile(r"\b(?:USD|US\$|\$|in) ?thousands?\b", re.I)),
)


# Whether a figure went up or down: "Does Adobe have an improving operating margin profile as of
# FY2022?", "Has the effective tax rate of Corning changed between FY2021 and FY2022?", "How does
# Boeing's effective tax rate in FY2022 compare to FY2021?"
_TREND_ASKED = re.compile(
    r"^\W*(?:does|do|did|is|are|was|were|has|have|had|how (?:much )?(?:has|have|did|does|do))\b",
    re.IGNORECASE,
)
_UP = re.compile(r"\b(?:improv\w*|increas\w*|grow\w*|grew|rise|rising|rose|higher)\b", re.I)
_DOWN = re.compile(r"\b(?:declin\w*|decreas\w*|deteriorat\w*|drop\w*|fall\w*|fell|lower)\b", re.I)
_CHANGE = re.compile(r"\b(?:chang\w*|compare[sd]?|moved?)\b", re.I)
# Figures where less is better: "improving" means going down.
_LESS_IS_BETTER = frozenset({"ccc", "dio", "dso", "cogs_share", "capex_share", "cogs"})
# Where going up is not plainly better or worse, "improving" is not read as a direction.
_NO_BETTER = frozenset({"effective_tax_rate", "dpo", "payables", "dividends"})


def _trend(question: str) -> Plan | None:
    """A question whether (or how) one standard figure changed between two fiscal years, asked
    in its first sentence ("If operating margin is not a useful metric…" asks something else);
    one year named means that year against the one before."""
    first = re.split(r"(?<=[?.])\s+", question.strip(), maxsplit=1)[0]
    if not _TREND_ASKED.search(first) or _QUARTER.search(first):
        return None
    up, down = bool(_UP.search(first)), bool(_DOWN.search(first))
    if not (up or down or _CHANGE.search(first)):
        return None
    years = sorted({int(y) for y in _YEAR.findall(first)})
    if len(years) == 1:
        years = [years[0] - 1, years[0]]
    if len(years) != 2:
        return None
    named = _named_metric(first)
    if named is None:
        return None
    metric, found = named
    if metric.unit == "amount" and re.match(r"\W*how much\b", first, re.I):
        return None  # "How much did revenue increase…": the change itself, as an amount
    if _another_figure(first, found) or not _BEFORE_A_WHOLE_FIGURE.search(first[: found.start()]):
        return None
    if re.search(r"(?<!un)adjusted\b|\bnon[- ]?GAAP\b|\bsegment\b", first, re.I):
        return None
    if _NOT_THE_MOVE.search(first):
        return None  # "Is revenue growth driven by AWS?", "Is growth expected to accelerate?"
    direction = ""
    if up != down:
        direction = "up" if up else "down"
        if re.search(r"\bimprov", first, re.I):
            if metric.key in _NO_BETTER:
                direction = ""
            elif metric.key in _LESS_IS_BETTER:
                direction = "down"
    unit, decimals = _asked_form(question)
    return Plan(metric, (years[1],), years[0], unit=unit, decimals=decimals, trend=direction)


# A part of the company's figure: a segment's, a brand's, a region's or a country's ("How much
# net sales did the Cheerios brand generate", "revenue derived in the United States").
_NARROWER = re.compile(
    r"\b(?:segments?|brands?|divisions?|regions?|regional|geograph\w*|countr(?:y|ies)|"
    r"subsidiar(?:y|ies)|product (?:line|categor\w+)|channels?|derived (?:in|from)|"
    r"in the (?:United States|U\.S\.?|US)|domestic|international|(?<!un)adjusted|non[- ]?GAAP)\b",
    re.IGNORECASE,
)
# A question about why a figure moved, or how it will: the filing's words answer it, not two
# figures side by side.
_NOT_THE_MOVE = re.compile(
    r"\b(?:driv\w*|drove|due to|because|caus\w*|reasons?|explain\w*|thanks to|result of|"
    r"expect\w*|forecast\w*|guidance|outlook|project\w*|will|accelerat\w*|decelerat\w*)\b",
    re.IGNORECASE,
)
# What may stand before the figure's name when the question is about the company's own figure:
# "Boeing's", "the", "an improving"; not another noun ("Commercial Airplanes revenue", "wages
# expense"), which makes it a narrower figure.
_BEFORE_A_WHOLE_FIGURE = re.compile(
    r"(?:^|['’]s |\b(?:a|an|the|its|their|in|of|did|does|do|has|have|had|is|are|was|were|"
    r"improving|improved|increasing|declining|decreasing|growing|rising|falling|higher|lower|"
    r"unadjusted|total) )\s*$",
    re.IGNORECASE,
)


def _asked_form(question: str) -> tuple[str | None, int | None]:
    """The unit ("millions") and the decimals ("to two decimal places") a question asks its
    answer in, each None when it does not say."""
    unit = next((name for name, pattern in _ASKED_UNITS if pattern.search(question)), None)
    decimals = _DECIMALS.search(question)
    return unit, _decimals(decimals.group(1)) if decimals else None


def _decimals(word: str) -> int:
    return int(word) if word.isdigit() else _WORD_DECIMALS[word.lower()]


@dataclass(frozen=True)
class Found:
    """One line item's figure for one year: the row and the table it was read from."""

    item: Item
    year: int
    value: float
    label: str
    table: SourceTable
    row: int  # 0-based data row
    scale: float  # the table's unit in millions (0.001 for thousands)


def run(
    question: str,
    tables: Sequence[SourceTable],
    context: ToolContext,
    chunks_of: Callable[[str], Sequence[Chunk]] = lambda _source: (),
) -> ToolOutcome:
    """The figure a question asks for, computed from the statements among `tables` (all of
    one filing's tables, or of several filings: each is tried in turn); a failed outcome says
    which line item or year is missing. `chunks_of` gives a source's chunks: the statements
    read as text are found there, and the unit a page states ("(In thousands)") when a
    table's title does not."""
    asked = plan(question)
    if asked is None:
        return ToolOutcome("statement", {}, False, error="no standard figure or fiscal year")
    arguments: dict[str, Any] = {"metric": asked.metric.key, "years": list(asked.years)}
    if asked.growth_from is not None:
        arguments["from"] = asked.growth_from
    by_source: dict[str, list[SourceTable]] = {}
    for table in tables:
        by_source.setdefault(table.source_id, []).append(table)

    def page_text(table: SourceTable) -> str:
        page = table.table.locator.page
        return "\n".join(
            c.text
            for c in chunks_of(table.source_id)
            if page is not None and c.locator.page == page
        )

    error = "no tables"
    for source, source_tables in by_source.items():
        read_as_text = text_statements(source, source_tables[0].path, chunks_of(source))
        try:
            return _compute(
                asked,
                [*source_tables, *read_as_text],
                len(source_tables),
                arguments,
                context,
                page_text,
            )
        except _Missing as missing:
            error = str(missing)
    return ToolOutcome("statement", arguments, False, error=error)


def text_statements(source_id: str, path: str, chunks: Sequence[Chunk]) -> list[SourceTable]:
    """The statements of a filing that were read as text, not as tables (a statement drawn
    without ruling lines whose columns the parser did not find): each page under a statement's
    heading, with a line of years ("(In millions) 2020 2019"), becomes a table of the lines
    that end in one figure per year ("Accounts payable 1,174 1,587")."""
    pages: dict[int, list[str]] = {}
    titles: dict[int, str] = {}
    headed: dict[int, tuple[str, ...]] = {}
    for chunk in chunks:
        page = chunk.locator.page
        if page is None or chunk.modality != Modality.TEXT:
            continue
        title = " ".join(chunk.locator.heading_path[:1])
        letters = re.sub(r"[^a-z]", "", title.lower())
        if not any(pattern.search(letters) for pattern in STATEMENT_TITLES.values()):
            continue
        titles.setdefault(page, title)
        # A header of dates may have been read as a heading ("Fiscal Years Ended January 28,
        # 2017 January 30, 2016 January 31, 2015"): its years head the columns.
        dated = _YEAR_CELL.findall(" ".join(chunk.locator.heading_path[1:]))
        if 2 <= len(dated) <= 5 and page not in headed:
            headed[page] = tuple(dated)
        lines = pages.setdefault(page, [])
        for line in chunk.text.splitlines():
            if not lines or line != lines[-1]:  # chunks overlap by a line
                lines.append(line)
    found = []
    for page, lines in pages.items():
        table = _text_table(lines, page, titles[page], headed.get(page, ()))
        if table is not None:
            found.append(SourceTable(source_id, path, table))
    return found


_YEARS = r"((?:19|20)\d\d(?:\s+(?:19|20)\d\d)+)"
_YEARS_LINE = re.compile(rf"{_YEARS}\s*$")
_YEARS_FIRST = re.compile(rf"^\s*{_YEARS}(?=\s+[A-Za-z])")


def _text_table(lines: Sequence[str], page: int, title: str, dated: Sequence[str]) -> Table | None:
    header: tuple[str, ...] | None = None
    rows: list[tuple[str, ...]] = []
    if not any(_YEARS_LINE.search(line) or _YEARS_FIRST.match(line) for line in lines):
        header = ("Column 1", *dated) if dated else None
    for line in lines:
        if header is None:
            # "(In millions) 2020 2019", or "2022 2021 2020 Cash Flows - Operating …" when
            # the extraction ran the first rows onto the line of years
            years = _YEARS_LINE.search(line) or _YEARS_FIRST.match(line)
            if years:
                header = ("Column 1", *years.group(1).split())
                line = line[years.end() :]
            else:
                continue
        rows += _text_rows(line, len(header) - 1)
    if header is None or len(rows) < 3:
        return None
    return Table(
        header=header,
        rows=tuple(rows),
        locator=Locator(page=page),
        name="statement text",
        title=title,
    )


def _text_rows(line: str, width: int) -> list[tuple[str, ...]]:
    """The rows of one line of a statement read as text, as the PDF parser reads them
    (`parse/pdf_statements.rows_of`): a label, then one figure per column; only rows with a
    figure under every column."""
    return [
        (row.label, *row.values)
        for row in rows_of(line, width) or []
        if len(row.values) == width and any(ch.isalpha() for ch in row.label)
    ]


class _Missing(Exception):
    pass


_SLOT = re.compile(r"\{(avg )?(\w+?)(-\d)?\}")


def _compute(
    asked: Plan,
    tables: Sequence[SourceTable],
    parsed: int,
    arguments: dict[str, Any],
    context: ToolContext,
    page_text: Callable[[SourceTable], str],
) -> ToolOutcome:
    found: dict[tuple[str, int], Found] = {}

    def figure(key: str, year: int) -> str:
        if (key, year) not in found:
            found[(key, year)] = _look_up(ITEMS[key], year, tables, parsed, page_text)
        value = found[(key, year)]
        return _literal(value.value)

    def for_year(year: int) -> str:
        def slot(match: re.Match[str]) -> str:
            average, key, back = match.group(1), match.group(2), match.group(3)
            at = year + int(back or 0)
            if average:
                return f"(({figure(key, at)} + {figure(key, at - 1)}) / 2)"
            return figure(key, at)

        return _SLOT.sub(slot, asked.metric.formula)

    last = asked.years[-1]
    if asked.trend is not None and asked.growth_from is not None:
        expressions = (for_year(asked.growth_from), for_year(last))
        return _compared(asked, expressions, found, arguments, context)
    if asked.growth_from is not None:
        now, then = f"({for_year(last)})", f"({for_year(asked.growth_from)})"
        unit = "percent"
        if asked.cagr:
            span = last - asked.growth_from
            expression = f"(({now} / {then}) ** (1 / {span}) - 1) * 100"
        elif asked.difference:
            expression, unit = f"{now} - {then}", "amount"
        else:
            expression = f"({now} - {then}) / {then} * 100"
    else:
        each = [for_year(year) for year in asked.years]
        expression = each[0] if len(each) == 1 else f"({' + '.join(each)}) / {len(each)}"
        unit = asked.metric.unit
    expression, shown_in = _in_unit(expression, unit, asked, found)
    backing = tuple(_cited(found.values()))
    done = _calculated(expression, _known(context, found))
    decimals = _shown_decimals(asked, unit)
    shown = _shown(round(done.value, decimals), unit, decimals, shown_in)
    lines = [f"{asked.describe()[0].upper()}{asked.describe()[1:]}: {shown}"]
    worked = _is_worked(done.formula)
    if worked:
        lines.append(f"computed as {done.formula}")
    lines.append(_read_from(found.values()))
    result = "\n".join(lines)
    return ToolOutcome(
        "statement",
        arguments,
        True,
        result=result,
        backing=backing,
        formula=done.formula if worked else "",
    )


def _compared(
    asked: Plan,
    expressions: tuple[str, str],
    found: dict[tuple[str, int], Found],
    arguments: dict[str, Any],
    context: ToolContext,
) -> ToolOutcome:
    """A figure of two years side by side, and how it moved: "No — Operating margin, FY2022
    against FY2021: 34.6%, down 2.2 percentage points from 36.8%"; yes or no first when the
    question asked whether it went up (or improved) or down."""
    unit = asked.metric.unit
    known = _known(context, found)
    worked = []
    for expression in expressions:
        in_unit, shown_in = _in_unit(expression, unit, asked, found)
        worked.append(_calculated(in_unit, known))
    then, now = worked
    decimals = _shown_decimals(asked, unit)
    # The change between the figures as worked, not as shown: 19.39% to 18.54% is 0.85 points
    # (shown 0.8), though a reader subtracting the rounded 19.4% and 18.5% gets 0.9.
    change = _calculated(f"{_literal(now.value)} - {_literal(then.value)}", [now.value, then.value])
    # An amount's unit is said once, at the end: "131,310, up 47,908 (57.4%) from 83,402
    # (USD millions)".
    bare = "number" if unit == "amount" else unit

    def shown(value: float) -> str:
        return _shown(round(value, decimals), bare, decimals, shown_in)

    by = shown(abs(change.value))
    if unit == "percent":
        by = by.replace("%", " percentage points")
    if unit == "amount" and then.value:
        by += f" ({abs(change.value) / abs(then.value) * 100:.1f}%)"
    if round(change.value, decimals) == 0:
        moved = "unchanged from"
    else:
        moved = f"{'up' if change.value > 0 else 'down'} {by} from"
    lead = ""
    if asked.trend:
        went = "up" if change.value > 0 else "down" if change.value < 0 else ""
        lead = "Yes — " if went == asked.trend else "No — "
    name = asked.describe()
    first_line = f"{lead}{name[0].upper()}{name[1:]}: {shown(now.value)}, {moved} "
    first_line += shown(then.value)
    if unit == "amount":
        first_line += f" (USD {shown_in})"
    lines = [first_line]
    formulas = [
        f"FY{year}: {w.formula}"
        for year, w in zip((asked.growth_from, asked.years[-1]), worked, strict=True)
        if _is_worked(w.formula)
    ]
    if formulas:
        lines.append(f"computed as {'; '.join(formulas)}")
    lines.append(_read_from(found.values()))
    return ToolOutcome(
        "statement",
        {**arguments, "compared": True},
        True,
        result="\n".join(lines),
        backing=tuple(_cited(found.values())),
        formula="; ".join(formulas),
    )


_COMPARED = re.compile(r", FY\d{4} against FY\d{4}: ")


def is_comparison(line: str) -> bool:
    """Whether a result's first line is two years side by side (`_compared`), whose verdict
    is code's: "No — Operating margin, FY2022 against FY2021: 34.6%, down …"."""
    return _COMPARED.search(line) is not None


def _is_worked(formula: str) -> bool:
    """Whether a calculation worked something out (not one figure read off a row)."""
    return re.search(r"[−+×÷^]", formula) is not None


def _read_from(found: Iterable[Found]) -> str:
    """The rows a figure was read from, as a person cites them."""
    rows = "; ".join(
        f"{f.label}, FY{f.year}: {show(f.value)} ({_where(f.table)})"
        for f in sorted(found, key=lambda f: (f.item.key, f.year))
    )
    return f"read from {rows}"


def _in_unit(
    expression: str, unit: str, asked: Plan, found: dict[tuple[str, int], Found]
) -> tuple[str, str]:
    """The expression scaled to the unit asked for (an amount), and that unit's name."""
    scales = {f.scale for f in found.values()}
    if len(scales) > 1:
        raise _Missing("the statements give their figures in different units")
    scale = scales.pop()
    shown_in = _unit_name(scale)
    if unit != "amount":
        return expression, shown_in
    target = asked.unit or shown_in
    factor = scale / _MILLIONS_IN[target]
    if factor > 1:
        expression = f"({expression}) * {_literal(factor)}"
    elif factor < 1:
        expression = f"({expression}) / {_literal(1 / factor)}"
    return expression, target


def _known(context: ToolContext, found: dict[tuple[str, int], Found]) -> list[float]:
    known = [*context.known_numbers(), *_CONSTANTS, *(f.value for f in found.values())]
    return known + [abs(f.value) for f in found.values()]


def _calculated(expression: str, known: Sequence[float]) -> Calculation:
    try:
        return calculate(expression, known)
    except CalculationError as error:
        raise _Missing(str(error)) from None


def _shown_decimals(asked: Plan, unit: str) -> int:
    if asked.decimals is not None:
        return asked.decimals
    return {"ratio": 2, "percent": 1, "days": 2}.get(unit, 2)


def _shown(value: float, unit: str, decimals: int, shown_in: str) -> str:
    whole = unit in ("amount", "number") and value == int(value)
    shown = f"{value:,.0f}" if whole else f"{value:,.{decimals}f}"
    if unit == "percent":
        return shown + "%"
    if unit == "amount":
        return f"{shown} (USD {shown_in})"
    if unit == "days":
        return shown + " days"
    return shown


_CONSTANTS = (365.0,)  # the days of a year, in the formulas of days outstanding
_MILLIONS_IN = {"thousands": 0.001, "millions": 1.0, "billions": 1000.0}


def _unit_name(scale: float) -> str:
    return next(name for name, value in _MILLIONS_IN.items() if value == scale)


def _where(source_table: SourceTable) -> str:
    table = source_table.table
    page = table.locator.page
    return f"{table.name}, page {page}" if page else table.name


def _literal(value: float) -> str:
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _look_up(
    item: Item,
    year: int,
    tables: Sequence[SourceTable],
    parsed: int,
    page_text: Callable[[SourceTable], str],
) -> Found:
    """The item's figure for `year`, from the statement that reports it: of the tables that
    list the item in a column for the year, the one most plainly that statement (titled as
    it, else holding its hallmark rows and no other statement's; a parsed table before the
    same statement read from text; then the longest, the statement itself rather than a
    summary of it), and there its best-named row with a figure. A table of anything else (a
    segment's revenue, assets held for sale) is never read, and an item the statement lists
    without a figure ("Inventories, net" over its parts) is not taken from another table."""
    best: tuple[int, int, int] | None = None
    rows: dict[tuple[int, int, int], list[tuple[int, int, int, SourceTable]]] = {}
    for number, source_table in enumerate(tables):
        table = source_table.table
        kind = _statement_kind(source_table, item.statement)
        if kind is None:
            continue
        column = _year_column(table.header, table.rows, year)
        if column is None:
            continue
        order = (kind, int(number >= parsed), -len(table.rows))
        for index, row in enumerate(table.rows):
            label = _label(row[0]) if row else ""
            rank = next((i for i, p in enumerate(item.labels) if p.match(label)), None)
            if rank is None or column >= len(row):
                continue
            best = order if best is None else min(best, order)
            total = _total_row(table.rows, index, column)
            if total is not None:
                rows.setdefault(order, []).append((rank, index, total, source_table))
    if best is None:
        raise _Missing(f"no row for {item.name} in FY{year} in the {item.statement}")
    if best not in rows:
        raise _Missing(f"the {item.statement} gives no figure for {item.name} in FY{year}")
    _rank, index, total, source_table = min(rows[best], key=lambda r: (r[0], r[1]))
    table = source_table.table
    column = _year_column(table.header, table.rows, year)
    assert column is not None
    value = parse_number(table.rows[total][column])
    assert value is not None
    label = table.rows[index][0].strip()
    scale = _scale(table, page_text(source_table))
    return Found(
        item, year, abs(value) if item.magnitude else value, label, source_table, index, scale
    )


def _total_row(rows: Sequence[Sequence[str]], index: int, column: int) -> int | None:
    """The row holding a label's figure: its own, or for a heading without figures
    ("Revenues" over its parts) the unlabelled total that closes the section; None when
    there is neither."""
    if parse_number(rows[index][column]) is not None:
        return index
    for later in range(index + 1, min(index + _SECTION_ROWS, len(rows))):
        row = rows[later]
        if not row[0].strip() and column < len(row) and parse_number(row[column]) is not None:
            return later
    return None


_SECTION_ROWS = 16  # the most parts a section of a statement lists before its total


# Rows only a statement of that kind has: a table without a title is read as the statement
# when it holds one of them.
_HALLMARKS = {
    BALANCE: re.compile(r"^total (?:current )?(?:assets|liabilities)$"),
    INCOME: re.compile(
        # a company's year at a loss says so: "Net loss", "Basic loss per share"
        r"^(?:net (?:income|earnings|loss)(?: \(loss\))?(?: attributable to .*)?|"
        r"(?:basic|diluted)(?: net)? (?:income|earnings|loss) per (?:common )?share.*)$"
    ),
    CASH: re.compile(r"^net cash .*(?:operating|investing|financing) activities"),
}


# An exhibit (a subsidiary's or an acquiree's statements filed with the report) or a note.
_NOT_THE_FILERS = re.compile(r"^\s*(?:exhibit|note\s+\d)|\bexhibit\s+\d", re.IGNORECASE)


def _statement_kind(source_table: SourceTable, statement: str) -> int | None:
    """0 when the table is titled as `statement` ("Consolidated Balance Sheets"); 1 when its
    title only names it ("Financial Position" over a summary) or it has its hallmark rows; 2
    when it has other statements' hallmark rows too (selected financial data); else None."""
    table = source_table.table
    if _NOT_THE_FILERS.search(table.title):
        return None
    text = re.sub(r"[^a-z]", "", " ".join([table.title, *table.header[:1]]).lower())
    titled = [name for name, pattern in STATEMENT_TITLES.items() if pattern.search(text)]
    if titled:
        if statement not in titled:
            return None
        return 0 if re.search(r"consolidated|statement|balancesheet", text) else 1
    labels = [_label(row[0]) for row in table.rows if row]
    held = {name for name, mark in _HALLMARKS.items() if any(mark.match(x) for x in labels)}
    if CASH in held:  # a cash flow statement starts from the net income
        held.discard(INCOME)
    if statement not in held:
        return None
    return 1 if held == {statement} else 2  # several statements' rows: a summary of them


def _label(cell: str) -> str:
    """A row label as the patterns read it: lower case, one space, no note marks or colon."""
    text = re.sub(r"\((?:note|see note)[^)]*\)|\(\d\)|\[\d\]|[*†‡]", "", cell, flags=re.I)
    text = text.replace("’", "'").replace("&", " and ")
    return " ".join(text.lower().split()).strip(" :")


_YEAR_CELL = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_NOT_A_PERIOD = re.compile(r"%|change|vs\.?|versus|variance", re.IGNORECASE)


def _year_column(header: Sequence[str], rows: Sequence[Sequence[str]], year: int) -> int | None:
    """The column of a year's figures: headed by the year (or by a date in it); the first
    rows are read too, where a table's years sit under its header."""
    for cells in [header, *rows[:2]]:
        for index, cell in enumerate(cells):
            if index == 0 or _NOT_A_PERIOD.search(cell):
                continue
            years = _YEAR_CELL.findall(cell)
            if len(years) == 1 and int(years[0]) == year:
                return index
    return None


_UNITS = (
    (re.compile(r"\bthousands?\b|\(000s?\)|\$000", re.IGNORECASE), 0.001),
    (re.compile(r"\bbillions?\b", re.IGNORECASE), 1000.0),
    (re.compile(r"\bmillions?\b", re.IGNORECASE), 1.0),
)


def _scale(table: Table, page: str) -> float:
    """The unit a table's figures are in, in millions: as its title or first header cell says,
    else as its page says ("(In thousands, except per share data)"); millions when neither
    does."""
    text = " ".join([table.title, *table.header[:1]])
    for pattern, scale in _UNITS:
        if pattern.search(text):
            return scale
    stated = _PAGE_UNIT.search(page)
    if stated:
        return next(scale for pattern, scale in _UNITS if pattern.search(stated.group(1)))
    return 1.0


_PAGE_UNIT = re.compile(
    r"\b(?:in|amounts in|dollars in|expressed in)\s+(thousands|millions|billions)\b",
    re.IGNORECASE,
)


def _cited(found: Iterable[Found]) -> list[Chunk]:
    """The rows the figures were read from, as evidence: each table's header and those rows."""
    rows: dict[str, tuple[SourceTable, set[int]]] = {}
    for item in found:
        key = f"{item.table.source_id}#{item.table.table.name}"
        rows.setdefault(key, (item.table, set()))[1].add(item.row)
    return [cited_rows(table, sorted(indices)) for table, indices in rows.values()]
