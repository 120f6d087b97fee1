"""The critic: catches tool calls that failed silently — arguments that do not fit the question,
an empty or implausible result, a result the evidence contradicts — and says how to repair them.

It is code, not a model: each check is a rule a person would apply when reading the call and
its result. A verdict is `accept`, `repair` (with a note the next attempt is given) or `discard`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import sqlglot
from sqlglot import exp

from polyrag.agent.questions import full_names
from polyrag.agent.route import MORE_THAN
from polyrag.agent.tools.base import ToolOutcome
from polyrag.agent.tools.calculator import FREE_CONSTANTS
from polyrag.agent.tools.sql import NOTE
from polyrag.answer.evidence import AMOUNT_AT_END, content_words
from polyrag.answer.numbers import (
    ASKS_AMOUNT,
    ASKS_POINTS,
    ASKS_RELATIVE,
    numbers_in_text,
    parse_number,
    same_number,
    show,
)
from polyrag.chunk.figures import pipe_tables, read_row_sentence
from polyrag.months import MONTH, month_name, month_number
from polyrag.types import Chunk

Verdict = Literal["accept", "repair", "discard"]
_TOTAL_ROW = re.compile(r"^\s*(?:grand\s+)?(?:sub)?totals?\b|^\s*sum\b|^\s*all\b", re.IGNORECASE)
_SUM = re.compile(r"\b(?:sum|avg|count|mean)\s*\(", re.IGNORECASE)
_HOW_MANY = re.compile(r"\bhow many ((?:[\w'-]+ ?){1,4})", re.IGNORECASE)
_TOKEN = re.compile(r"[a-z0-9]+(?:[-.'][a-z0-9]+)*")
_PERCENT = re.compile(r"\bpercent|%|per cent", re.IGNORECASE)
# Percentage points (or basis points) between two shares: a difference, not a relative change.
_GENERIC = frozenset(
    {
        "value", "values", "number", "numbers", "total", "amount", "year", "years", "many",
        "much", "table", "row", "rows", "column", "data", "sum", "average", "difference",
        "change", "percentage", "ratio", "more", "fewer", "less", "than", "higher", "lower",
    }
)  # fmt: skip
MAX_PLAUSIBLE = 1e15
_OPERATIONS = frozenset(
    {"change", "difference", "percentage", "percent", "ratio", "average", "sum", "proportion",
     "increase", "decrease", "growth", "rate", "mean", "many", "much", "more", "fewer", "less",
     "than", "higher", "lower"}
)  # fmt: skip
_LINES = re.compile(r"\n|(?<=[a-z0-9)%])\.\s+(?=[A-Z])")  # rows and sentences
# "4044 - 3316 / 3316 * 100": the change lost its parentheses.
_SELF_DIVIDED = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*/\s*\1(?![\d.])")
# "Gross profit as a percentage of net sales": one figure over another, no change.
_AS_SHARE_OF = re.compile(
    r"\bas an? (?:percent(?:age)?|share|proportion|fraction|ratio|%) of\b", re.IGNORECASE
)
_ASKS_CHANGE = re.compile(
    r"\b(?:chang\w*|increas\w*|decreas\w*|grow\w*|growth|declin\w*|rose|rise[ns]?|fell|"
    r"fall\w*|drop\w*|differ\w*|from\b[^?]*\bto)\b",
    re.IGNORECASE,
)
# "(10208580 - 8630889) / 8630889": a change over its base.
_CHANGE_OVER = re.compile(r"\([^()]*[−-][^()]*\)\s*[÷/]")
# "340.8 - 340.8": a change taken between a figure and itself.
_SELF_SUBTRACTED = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*-\s*\1(?![\d.])")
_AVERAGE = re.compile(r"\baverage\b|\bmean\b", re.IGNORECASE)
# An amount of change: "by how much did it increase" asks for the amount, in the figures' unit.
_DIFFERENCE = re.compile(
    r"\bdifference\b|\bchange\b|\bhow much (?:more|less|higher|lower)\b|\bby how much\b|"
    r"\b(?:increase|decrease|rise|fall|decline|drop)(?:d|s)?\b",
    re.IGNORECASE,
)
_WHICH_PERIOD = re.compile(
    r"\b(?:which|what) (?:year|period|quarter|month|fiscal year)\b|\bin which (?:year|period)\b",
    re.IGNORECASE,
)
# Columns that name rows whatever they hold: a statement's labels, a view's periods, a
# headerless first column.
_ROW_NAMES = frozenset({"label", "period", "name", "item", "column", "col"})
# A question after the one row (or rows) ranked first: "Which team won most", "At which dose
# was the rate highest", "What region had the lowest …", "Who received the most?"
ASKS_WHICH_ONE = re.compile(
    r"\b(?:which|what|who)\b.*\b(?:highest|lowest|largest|smallest|most|least|maximum|minimum|"
    r"biggest|greatest|best|worst|top|shortest|longest|cheapest|fewest)\b",
    re.IGNORECASE,
)
_YEAR_VALUE = re.compile(r"= (?:FY ?)?(?:19|20)\d\d\b|= (?:Q[1-4]|[A-Za-z]{3,})", re.IGNORECASE)


# The words that ask for a subtraction or a division, however loosely: a calculation with
# neither kind of word behind it answers a question nobody asked. "How many Best Buy Mobile
# stores did Best Buy operate?" is a lookup, not 907 − 908; "revenues in New Jersey (water plus
# wastewater)" is not 3,255 − 3,094 (set 8). Only the plain lookup is caught: any word that
# could ask for the operation lets it through.
_ASKS_SUBTRACTION = re.compile(
    r"\b(?:differ\w*|beat\w*|outperform\w*|ahead|behind|lead\w*|by how (?:many|much)|chang\w*|"
    r"increas\w*|decreas\w*|grow\w*|growth|declin\w*|ris(?:e|es|en|ing)|rose|"
    r"f[ae]ll(?:s|en|ing)?|drop\w*|exceed\w*|gap|net|minus|less|fewer|more|higher|lower|"
    r"greater|larger|smaller|bigger|remain\w*|left|other|others|besides|except\w*|exclud\w*|"
    r"without|apart|after|before|since|until|between|ago|elapsed|older|younger|earlier|later|"
    r"how long|longer|shorter|farther|further|margin|profit|deficit|surplus|spread|"
    r"sav(?:e|es|ed|ing|ings)|discount\w*|cheaper|compar\w*|vs|versus|than|gain\w*|loss\w*|"
    r"lost|improv\w*|reduc\w*|deduct\w*|subtract\w*|outstanding|unpaid|balance|"
    r"free cash flow|working capital|variance|movement|delta|up|down|expan\w*|shr[iu]nk\w*|"
    r"widen\w*|narrow\w*|cut|CAGR|return|yield|proceeds|"
    r"(?:19|20)\d\d\s*(?:-|–|to|and|vs\.?)\s*(?:FY\s*)?(?:19|20)?\d\d)\b",
    re.IGNORECASE,
)
_ASKS_DIVISION = re.compile(
    r"\b(?:percent\w*|per\s?cent|ratio|proportion|share|rate|margin|per|times|average|avg|mean|"
    r"divid\w*|split|each|fraction|half|quarter|third|yield|return|turnover|coverage|multiple|"
    r"CAGR|growth|grow\w*|relative|portion|part|how much of|out of|compounded|annual\w*|"
    r"efficiency|intensity|ROE|ROA|EPS|payout|days|cover|leverage|weight\w*)\b"
    r"|(?<![\d.\s])\s*%|(?<![\d.])%",
    re.IGNORECASE,
)


def asks_operation(question: str) -> set[str]:
    """Which of subtraction ("-") and division ("/") any word of the question could ask for."""
    ops = set()
    if _ASKS_SUBTRACTION.search(question):
        ops.add("-")
    if _ASKS_DIVISION.search(question):
        ops.add("/")
    return ops


@dataclass(frozen=True)
class Review:
    verdict: Verdict
    why: str
    search: str = ""  # a search in the documents found that may bring what the repair needs


def review(question: str, outcome: ToolOutcome, passages: Sequence[Chunk]) -> Review:
    """Judge a tool call that ran without an error."""
    if outcome.tool == "sql":
        return _review_sql(question, outcome)
    if outcome.tool == "calculator":
        return _review_calculation(question, outcome, passages)
    if not outcome.result.strip():
        return Review("discard", "the tool returned nothing")
    return Review("accept", "the result is not empty")


def found_nothing(result: str) -> bool:
    """A query's result with no rows, only NULLs (an aggregate over no rows) or a count of
    none: the rows the question is about are not in the table."""
    first_line = result.split("\n", 1)[0]
    return first_line == "no rows" or bool(
        re.fullmatch(r"[^=]+ = NULL(?:, [^=]+ = NULL)*", first_line)
        or re.fullmatch(r"count(?:_star)?\([^=]*\) = 0", first_line, re.IGNORECASE)
    )


def _review_sql(question: str, outcome: ToolOutcome) -> Review:
    query = str(outcome.arguments.get("query", ""))
    first_line = outcome.result.split("\n", 1)[0]
    if found_nothing(outcome.result):
        notes = [
            line.removeprefix(NOTE) for line in outcome.result.split("\n") if line.startswith(NOTE)
        ]
        return Review(
            "repair",
            "the query found nothing: check the table and column names and the values in the "
            "WHERE clause against the example rows (text is compared with ILIKE '%word%')"
            + "".join(f"; {note}" for note in notes),
        )
    itself = _against_itself(query)
    if itself:
        return Review(
            "repair",
            f"the query computes {itself}, a figure against itself in the same row, which is "
            "the same whatever the rows hold: take the figure from each row the question "
            "compares (one subquery per row) and compute with those",
        )
    # Compared by their first letters, plurals as their singulars: "started" is the column
    # start_year, "items" the column "Item Description".
    terms = {_stem(w) for w in content_words(question) - _GENERIC}
    read = {_stem(w) for w in _words(_without_aliases(query))}
    cited = {_stem(w) for w in _words(_cited_text(outcome))}
    if terms and not terms & read and not terms & cited:
        return Review(
            "repair",
            "the query does not use anything the question names; pick the rows and columns "
            "the question is about",
        )
    missing = _conditions_missing(question, query, outcome.backing)
    if missing:
        tree = _parsed(query)
        where = tree.args.get("where") if tree is not None else None
        kept = f"({where.this.sql(dialect='duckdb')}) AND " if where is not None else ""
        return Review(
            "repair",
            "the query computes over rows or years the question does not ask about: keep only "
            f"those it names, with WHERE {kept}{missing}",
        )
    function = _aggregate_not_used(question, query)
    if function:
        return Review(
            "repair",
            f"the question asks for the {function[0]}: compute it with {function[1]}(column) over "
            "the rows the question names",
        )
    if _WHICH_PERIOD.search(question) and not _YEAR_VALUE.search(first_line):
        return Review(
            "repair",
            "the question asks which year or period: select the period itself (a *_by_period "
            "view has one row per label and period), not a figure",
        )
    keys = _computed_from_its_keys(question, query)
    if keys:
        return Review(
            "repair",
            f"the query computes from {keys}, the column it picks rows by, so its result is "
            "the question's own values: compute from the column of the figure the question "
            "asks about, in the rows it names",
        )
    preset = _answer_preset(question, query, titles_of(outcome))
    if preset:
        return Review(
            "repair",
            f"the query picks the answer before ranking ({preset}): leave that condition out "
            "and rank every row",
        )
    picked = _picked_unnamed(question, query)
    if picked:
        return Review(
            "repair",
            f"the question asks which one has the extreme value: select the column naming "
            f"what it asks for (words of the question), not {picked}",
        )
    totals = _total_rows(outcome)
    if totals and _SUM.search(query):
        rows = ", ".join(totals)
        return Review(
            "repair",
            f"the table has a total row ({rows}); summing it counts everything twice — "
            "leave it out with a WHERE condition",
        )
    if any(abs(n) > MAX_PLAUSIBLE for n in numbers_in_text(first_line)):
        return Review("discard", "the result is implausibly large")
    return Review("accept", "the query answered from the rows the question names")


# The statistic a question asks for, and the SQL that computes it (an average may also be a
# sum divided by a count).
_STATISTICS = (
    (
        "median",
        re.compile(r"\bmedian\b", re.IGNORECASE),
        re.compile(r"\b(?:MEDIAN|QUANTILE\w*)\s*\(", re.IGNORECASE),
        "MEDIAN",
    ),
    (
        "average",
        re.compile(
            r"\b(?:average|(?:the|a) mean|mean (?:value|of))\b"
            r"(?! (?:of|between) (?:FY ?)?(?:19|20)\d\d)",
            re.IGNORECASE,
        ),
        re.compile(r"\b(?:AVG|MEAN)\s*\(|/", re.IGNORECASE),
        "AVG",
    ),
)


def _conditions_missing(question: str, query: str, backing: Sequence[Chunk]) -> str:
    """The conditions an aggregate over a statement's rows lacks, as SQL, or "": the row label
    the question names ("the average dividend yield in 2018 and 2019" as AVG(value) WHERE
    period = '2018' OR period = '2019' averages every line of the table) and the years it
    names (AVG(value) WHERE label ILIKE '%dividend yield%' averages every year). Only a query
    over a statement's period view (its columns label, period, value) is read; a condition is
    asked for only when the question names exactly one row label, or some but not all of the
    cited table's years."""
    tree = _parsed(query)
    if not isinstance(tree, exp.Select) or tree.find(exp.AggFunc) is None:
        return ""
    if not {c.name.lower() for c in tree.find_all(exp.Column)} & {"period", "value"}:
        return ""
    if tree.args.get("group"):
        return ""
    where = tree.args.get("where")
    conditioned = {c.name.lower() for c in where.find_all(exp.Column)} if where else set()
    tables = [table for chunk in backing for table in pipe_tables(chunk.text)]
    missing = []
    if not conditioned - {"period", "year"}:
        asked = " ".join(_TOKEN.findall(question.lower()))
        labels = {row[0] for table in tables for row in table.rows if row and row[0].strip()}
        named = [
            label
            for label in labels
            if (words := content_words(label) - _GENERIC)
            and all(re.search(rf"\b{re.escape(w)}", asked) for w in words)
        ]
        if len(named) > 1:  # "Total current tax …" over "Current tax …"
            named = _fullest_labels(question, named)
        if len(labels) >= 2 and len(named) == 1:
            missing.append(f"label ILIKE '%{' '.join(_TOKEN.findall(named[0].lower()))}%'")
    if not conditioned & {"period", "year"}:
        years = sorted(set(re.findall(r"\b(?:19|20)\d\d\b", question)))
        columns = {
            found.group(0)
            for table in tables
            for cell in table.header
            if (found := re.search(r"\b(?:19|20)\d\d\b", cell))
        }
        if years and set(years) < columns:
            missing.append(f"period IN ({', '.join(repr(y) for y in years)})")
    return " AND ".join(missing)


def _against_itself(query: str) -> str:
    """A difference or a ratio of a figure with itself ("inference_time - inference_time"),
    always 0 or 1: the model's query for how much faster one row is than another, written
    over one row. Returns that part of the query, or ""."""
    tree = _parsed(query)
    if tree is None:
        return ""
    for node in tree.find_all(exp.Sub, exp.Div):
        left, right = node.left, node.right
        if not isinstance(left, exp.Literal) and left == right:
            return node.sql(dialect="duckdb")
    return ""


def _aggregate_not_used(question: str, query: str) -> tuple[str, str] | None:
    """(statistic, SQL function) when the question asks for a median or an average and the
    query computes neither ("the median salary" answered with AVG(salary))."""
    tree = _parsed(query)
    columns = " ".join(c.name.lower() for c in tree.find_all(exp.Column)) if tree else ""
    for name, asked, computed, function in _STATISTICS:
        if asked.search(question):
            if re.search(rf"(?<![a-z]){name}", columns):
                return None  # "the highest average age": the column "Average age (years)"
            return None if computed.search(query) else (name, function)
    return None


def drop_unnamed_filters(
    question: str, query: str, *, copied_only: bool = False, titles: str = ""
) -> tuple[str, list[str]] | None:
    """The query without the WHERE conditions whose values the question never names, and the
    conditions dropped; None when every condition's values are named (or the query does not
    parse). A small model adds filters it reads off the example rows ("col_1 LIKE '2'"); when
    such a query fails or finds nothing, the question's own filters are all it should keep.
    `copied_only`: drop only the picks a model copies off the example rows: rows picked by
    numbers other than years (`col_1 IN (1, 2)`), by a list of several values none of which
    the question names ("department LIKE '%Engineering%' OR department LIKE '%Sales%'" for "the
    median salary"), by two or more columns' values none of which it names at once, or by one
    such value when every word of the question is read by the query's columns and tables. One
    word may be the model's fair synonym of the question's ('net sales' for revenue), a year
    its reading of "last year", a comparison its reading of "a loss"; a value it did not read
    in the question, a list of them, or a whole row of them, is none of these."""
    tree = _parsed(query)
    if tree is None:
        return None
    named = _named_words(question)
    dropped: list[str] = []
    for select in tree.find_all(exp.Select):
        where = select.args.get("where")
        if where is None:
            continue
        condition = where.this
        parts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
        # Two or more columns' words picked at once, none of them named ("category LIKE 'Office'
        # AND vendor LIKE 'PaperPoint'" for "spent in March"): a row copied off the examples.
        # Figures and dates are read by the rules below.
        unnamed_picks = [
            part
            for part in parts
            if isinstance(part, (exp.EQ, exp.In, exp.Like, exp.ILike))
            and (texts := [str(v.this) for v in part.find_all(exp.Literal) if v.is_string])
            and not any(re.search(r"\d", v) or _is_named(v, named) for v in texts)
        ]
        # One such pick is copied as well when the question has no word left that its value
        # could stand for: the query's columns and tables read all of them ("the average unit
        # price of the suppliers" as AVG(unit_price) over suppliers WHERE country = 'Germany').
        idle = _unread_words(question, select, titles)
        kept = []
        for part in parts:
            literals = list(part.find_all(exp.Literal))
            values = [str(v.this) for v in literals]
            # A comparison ("profit < 0" for "months with a loss") is the model's reading of a
            # word; only picking rows by value (=, IN) is what it copies off the example rows.
            picks = isinstance(part, (exp.EQ, exp.In))
            several = isinstance(part, (exp.Or, exp.In)) and len(literals) >= 2
            copied = (
                (picks and all(_plain_count(v) for v in literals))
                or several
                or (part in unnamed_picks and (len(unnamed_picks) >= 2 or not idle))
            )
            if copied_only and not copied:
                kept.append(part)
            elif values and not any(_is_named(v, named) for v in values):
                dropped.append(part.sql(dialect="duckdb"))
            else:
                kept.append(part)
        if len(kept) < len(parts):
            select.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
    if not dropped:
        return None
    return tree.sql(dialect="duckdb"), dropped


_DASHES = re.compile(r"[-‐‑‒–—−]")
_YEAR_ONLY = re.compile(r"(?:19|20)\d\d")


def equalities_as_contains(query: str) -> tuple[str, list[str]] | None:
    """The query with each condition "column = 'words'" as "column ILIKE '%words%'" (a dash
    matching any dash), and "column IN ('a', 'b')" as either, and those conditions:
    "company = 'ProCourier'" finds no row of a list that writes "ProCourier, Inc.", nor
    "period = 'January-June 2022'" the period "January–June 2022", nor "period IN ('2018',
    '2019')" the periods "April 28, 2018" and "April 27, 2019". Only values with a letter, or
    years; None when there is none, or the query does not parse. For a query that found
    nothing."""
    tree = _parsed(query)
    if tree is None:
        return None
    turned: list[str] = []

    def contains(column: exp.Expression, value: exp.Literal) -> exp.Expression:
        # Any dash for any dash: "January-June 2022" is written "January–June 2022".
        words = _DASHES.sub("_", value.this.strip("%"))
        return exp.ILike(this=column.copy(), expression=exp.Literal.string(f"%{words}%"))

    for where in list(tree.find_all(exp.Where)):
        for equal in list(where.find_all(exp.EQ)):
            column, value = equal.this, equal.expression
            if isinstance(value, exp.Column) and isinstance(column, exp.Literal):
                column, value = value, column
            if isinstance(column, exp.Column) and _worded(value):
                turned.append(equal.sql(dialect="duckdb"))
                equal.replace(contains(column, value))
        for listed in list(where.find_all(exp.In)):
            values = listed.expressions
            if isinstance(listed.this, exp.Column) and values and all(map(_worded, values)):
                turned.append(listed.sql(dialect="duckdb"))
                either = exp.or_(*(contains(listed.this, v) for v in values))
                listed.replace(exp.Paren(this=either))
    if not turned:
        return None
    return tree.sql(dialect="duckdb"), turned


def _worded(value: exp.Expression) -> bool:
    """A string the rows may write inside more words: one with a letter, or a year ("2019"
    for the period "April 27, 2019")."""
    return (
        isinstance(value, exp.Literal)
        and value.is_string
        and bool(re.search(r"[^\W\d_]", value.this) or _YEAR_ONLY.fullmatch(value.this))
    )


def _unread_words(question: str, select: exp.Select, titles: str = "") -> set[str]:
    """The question's words, operations and generic words aside, that none of the query's
    columns and tables read (compared by their first five letters), nor the `titles` of the
    tables (a web page's "Approved suppliers" registered as table_1)."""
    identifiers = [c.name for c in select.find_all(exp.Column)]
    identifiers += [t.name for t in select.find_all(exp.Table)]
    identifiers.append(titles)
    read = {w[:5] for name in identifiers for w in _words(name)}
    return {
        w
        for w in content_words(question) - _GENERIC - _OPERATIONS - _RANKING
        if not w.isdigit() and w[:5] not in read
    }


_RANKING = frozenset(
    {"highest", "lowest", "largest", "smallest", "most", "least", "maximum", "minimum", "top",
     "biggest", "greatest", "best", "worst", "shortest", "longest", "cheapest", "fewest"}
)  # fmt: skip


def _plain_count(literal: exp.Literal) -> bool:
    """A numeric literal that is not a year."""
    return literal.is_number and not re.fullmatch(r"(?:19|20)\d\d", str(literal.this))


def aggregates_all(query: str) -> bool:
    """Whether the query reduces its rows to one figure (a SUM, COUNT, AVG, MIN or MAX without
    GROUP BY)."""
    tree = _parsed(query)
    return (
        isinstance(tree, exp.Select)
        and tree.args.get("group") is None
        and any(e.find(exp.AggFunc) is not None for e in tree.expressions)
    )


_FELL = re.compile(
    r"\b(?:decreas(?:e|ed|es|ing)|declin(?:e|ed|es|ing)|fell|fall(?:s|en|ing)?|dropp?(?:ed|s)?|"
    r"shr[au]nk|shrinks?|went down)\b",
    re.IGNORECASE,
)
_ROSE = re.compile(
    r"\b(?:increas(?:e|ed|es|ing)|gr[eo]w(?:s|n|ing)?|rose|ris(?:e|es|en|ing)|went up)\b",
    re.IGNORECASE,
)
_COMPARED = {exp.LT: exp.GT, exp.GT: exp.LT, exp.LTE: exp.GTE, exp.GTE: exp.LTE}


def change_the_way_asked(question: str, query: str) -> tuple[str, list[str]] | None:
    """The query with each comparison of two periods' columns turned the way the question's
    change goes, and the comparisons turned; None when all go that way already. "Which
    department's budget decreased from 2023 to 2024?" written "WHERE y2023 < y2024" picks the
    budgets that grew: the later period must be the smaller."""
    falls, rises = bool(_FELL.search(question)), bool(_ROSE.search(question))
    tree = _parsed(query)
    if falls == rises or tree is None:
        return None
    turned: list[str] = []
    for kind, opposite in _COMPARED.items():
        for comparison in list(tree.find_all(kind)):
            left, right = comparison.this, comparison.expression
            if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
                continue
            left_year, right_year = _year_in(left.name), _year_in(right.name)
            if left_year is None or right_year is None or left_year == right_year:
                continue
            left_smaller = kind in (exp.LT, exp.LTE)
            later_smaller = left_smaller == (left_year > right_year)
            if later_smaller != falls:
                written = comparison.sql(dialect="duckdb")
                comparison.replace(opposite(this=left.copy(), expression=right.copy()))
                turned.append(written)
    if not turned:
        return None
    return tree.sql(dialect="duckdb"), turned


def _year_in(name: str) -> int | None:
    found = re.search(r"(?<!\d)(?:19|20)\d\d(?!\d)", name)
    return int(found.group(0)) if found else None


def drop_idle_joins(query: str) -> tuple[str, list[str]] | None:
    """The query without the joined tables nothing reads (a small model joins an unrelated
    table on a condition about the first one, multiplying its rows), and the tables dropped;
    a dropped join's condition on the other tables becomes part of the WHERE. None when every
    joined table is used, a column is unqualified, or the query does not parse."""
    tree = _parsed(query)
    if tree is None:
        return None
    dropped: list[str] = []
    for select in tree.find_all(exp.Select):
        joins = list(select.args.get("joins") or [])
        columns = [c for c in select.find_all(exp.Column) if c.find_ancestor(exp.Select) is select]
        if not joins or any(not c.table for c in columns):
            continue
        kept = []
        for join in joins:
            names = {join.this.alias_or_name, join.this.name}
            condition = join.args.get("on")
            used = any(
                c.table in names and not (condition and c.find_ancestor(exp.Join) is join)
                for c in columns
            )
            if used or (
                condition and any(c.table in names for c in condition.find_all(exp.Column))
            ):
                kept.append(join)
                continue
            dropped.append(join.this.name)
            if condition is not None:
                where = select.args.get("where")
                both = exp.and_(where.this, condition) if where is not None else condition
                select.set("where", exp.Where(this=both))
        if len(kept) < len(joins):
            select.set("joins", kept or None)
    if not dropped:
        return None
    return tree.sql(dialect="duckdb"), dropped


def without_filtering_joins(query: str) -> tuple[str, list[str]] | None:
    """For a query that failed or found nothing: the query over its first table alone, and
    what was dropped, when the tables joined to it serve only to filter it (their columns
    stand in the join's condition and the WHERE, never in what is selected, grouped or
    ordered). A small model joins a neighbouring table and filters on it ("… JOIN table_2 AS
    T2 ON T1.category = T2.category WHERE T2.y2026 LIKE '%2026%'" for the year with the most
    saltwater ducks in table_1). None for anything else, or for a column naming no table."""
    tree = _parsed(query)
    if not isinstance(tree, exp.Select) or not tree.args.get("joins"):
        return None
    if any(s is not tree for s in tree.find_all(exp.Select)):
        return None  # a subquery: left as written
    joined = {
        name
        for join in tree.args["joins"]
        for name in (join.this.alias_or_name, join.this.name)
        if isinstance(join.this, exp.Table)
    }
    if not joined:
        return None
    where = tree.args.get("where")
    kept_parts: list[exp.Expr] = []
    dropped: list[str] = []
    if where is not None:
        parts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
        for part in parts:
            if any(c.table in joined for c in part.find_all(exp.Column)):
                dropped.append(part.sql(dialect="duckdb"))
            else:
                kept_parts.append(part)
    for column in tree.find_all(exp.Column):
        if column.find_ancestor(exp.Join, exp.Where) is not None:
            continue
        if not column.table or column.table in joined:
            return None  # what is selected, grouped or ordered reads a joined table
    single = tree.copy()
    single.set("joins", None)
    single.set("where", exp.Where(this=exp.and_(*kept_parts)) if kept_parts else None)
    tables = sorted({j.this.name for j in tree.args["joins"] if isinstance(j.this, exp.Table)})
    dropped = [f"the join of {', '.join(tables)}", *dropped]
    return single.sql(dialect="duckdb"), dropped


def conditions_out_of_case(query: str) -> str | None:
    """ "SUM(CASE WHEN company = 'X' THEN no_of ELSE 0 END) FROM t" as "SUM(no_of) FROM t WHERE
    company = 'X'": the same figure, but the rows it rests on are then the rows cited, not
    the whole table. Only a SELECT over one table, without grouping, whose every column is
    one aggregate of a CASE with one condition, the same in each, and nothing (or zero, for
    a SUM) otherwise; None for any other query."""
    tree = _parsed(query)
    if not isinstance(tree, exp.Select) or tree.args.get("joins") or tree.args.get("group"):
        return None
    if _read_table(tree) is None or not tree.expressions:
        return None
    conditions: list[exp.Expression] = []
    for column in tree.expressions:
        aggregate = column.this if isinstance(column, exp.Alias) else column
        if not isinstance(aggregate, (exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Count)):
            return None
        case = aggregate.this
        if not isinstance(case, exp.Case) or len(case.args.get("ifs") or []) != 1:
            return None
        otherwise = case.args.get("default")
        zero = (
            isinstance(otherwise, exp.Literal)
            and not otherwise.is_string
            and float(otherwise.this) == 0
            and isinstance(aggregate, exp.Sum)
        )
        if otherwise is not None and not isinstance(otherwise, exp.Null) and not zero:
            return None
        (branch,) = case.args["ifs"]
        conditions.append(branch.this)
        case.replace(branch.args["true"])
    if any(c != conditions[0] for c in conditions[1:]):
        return None
    return tree.where(conditions[0].copy(), copy=False).sql(dialect="duckdb")


def summed_not_counted(
    question: str, query: str, numeric: Callable[[str], Sequence[str]] = lambda _table: ()
) -> tuple[str, list[str]] | None:
    """ "How many Stanley Cups …" over a column of Stanley Cups wants the column's figures
    added up, not its rows counted: COUNT(column), or COUNT(*) over a table whose numeric
    column (`numeric(table)`) the words after "how many" name, becomes SUM(column).
    Returns the query and the columns, or None."""
    asked = _HOW_MANY.search(question)
    if asked is None:
        return None
    tree = _parsed(query)
    if tree is None:
        return None
    wanted = _named_words(asked.group(1))
    changed: list[str] = []
    for count in list(tree.find_all(exp.Count)):
        column = count.this
        if isinstance(column, exp.Star):
            select = count.find_ancestor(exp.Select)
            source = _read_table(select) if select else None
            if select is None or source is None:
                continue
            named = [c for c in numeric(source.name) if _names_column(c, wanted)]
            if not named and _counts_the_rows_thing(asked.group(1), select):
                # "How many lunches were ordered?" over a receipt's rows, one per item with
                # its quantity: the lunches are the quantity of the row of Lunch.
                named = [c for c in numeric(source.name) if _QUANTITY.search(_spaced(c))]
            if len(named) != 1:
                continue
            count.replace(exp.Sum(this=exp.column(named[0], quoted=True)))
            changed.append(named[0])
            continue
        if not isinstance(column, exp.Column) or count.args.get("distinct"):
            continue
        if _names_column(column.name, wanted):
            count.replace(exp.Sum(this=column.copy()))
            changed.append(column.name)
    if not changed:
        return None
    return tree.sql(dialect="duckdb"), changed


# A column holding how many of a row's thing there are.
_QUANTITY = re.compile(r"^(?:quantity|qty|units|unit count|pieces|pcs|count|number of units)$")


def _spaced(column: str) -> str:
    return " ".join(_TOKEN.findall(column.lower().replace("_", " ")))


def _counts_the_rows_thing(counted: str, select: exp.Select) -> bool:
    """Whether the thing "how many" counts is what the query's rows are picked by: "lunches
    were ordered" over WHERE item ILIKE '%Lunch%', not "sales of Widget C" over WHERE
    product = 'Widget C' (a count of sales is a count of rows)."""
    where = select.args.get("where")
    words = _TOKEN.findall(counted.lower())
    if where is None or not words:
        return False
    first = words[0]
    for literal in where.find_all(exp.Literal):
        if not literal.is_string:
            continue
        value = _TOKEN.findall(literal.this.lower().replace("%", " "))
        if value and _plural_in(value[0], [first]):
            return all(_plural_in(word, words) for word in value)
    return False


def _plural_in(word: str, words: list[str]) -> bool:
    return any(w in {word, word + "s", word + "es"} for w in words)


def totals_per_label(
    query: str, repeats: Callable[[str, str], bool], question: str = ""
) -> tuple[str, str] | None:
    """ "Which widget brought in the most revenue?" over rows of single sales: a query taking
    the one row with the largest revenue answers for one sale, not for the widget. When the
    label it selects repeats across the table's rows (`repeats(table, column)`), the query adds
    the measure up per label and takes the largest (or smallest) total. Returns the query and
    the label column, or None when the query is not of that shape, or when the question asks
    about one record ("the highest revenue in a single sale")."""
    if _ONE_RECORD.search(question):
        return None
    tree = _parsed(query)
    if tree is None:
        return None
    if not isinstance(tree, exp.Select) or tree.args.get("group") or tree.args.get("joins"):
        return None
    table = _read_table(tree)
    labels = [e for e in tree.expressions if isinstance(e, exp.Column)]
    if table is None or not labels:
        return None
    measure, descending = _largest_of(tree)
    if measure is None:
        return None
    label = next((c for c in labels if c.name != measure.name), None)
    name = table.name
    if label is None or not repeats(name, label.name):
        return None
    where = tree.args.get("where")
    keep = ""
    if where is not None and not _is_extreme_match(where.this, measure):
        keep = f" WHERE {where.this.sql(dialect='duckdb')}"
    order = "DESC" if descending else "ASC"
    rewritten = (
        f'SELECT "{label.name}", SUM("{measure.name}") AS total FROM "{name}"{keep} '
        f'GROUP BY "{label.name}" ORDER BY total {order} LIMIT 1'
    )
    return rewritten, label.name


_LEAST = re.compile(
    r"\b(?:lowest|smallest|least|minimum|fewest|shortest|cheapest|worst)\b", re.IGNORECASE
)
# A question about one row of many: "in a single sale", "the largest individual order", "on
# any one day".
_ONE_RECORD = re.compile(
    r"\b(?:single|individual|one-time)\b|\b(?:in|on|for) (?:one|any one|any single) \w+",
    re.IGNORECASE,
)
_PER_GROUP = re.compile(r"\b(?:per|each|every|respectively)\b", re.IGNORECASE)


def rank_groups(question: str, query: str) -> tuple[str, str] | None:
    """ "What was the largest single expense, and who was it paid to?" answered with
    MAX(amount) per vendor lists every vendor's largest, and the model read the first row. A
    query grouping one aggregate without ORDER BY or LIMIT, for a question after the largest
    (or smallest) one and not one per group, is ranked by that aggregate and keeps the first
    (the SQL tool keeps the rows tied with it). Returns the query and what it ranks by."""
    if not ASKS_WHICH_ONE.search(question) or _PER_GROUP.search(question):
        return None
    tree = _parsed(query)
    if (
        not isinstance(tree, exp.Select)
        or not tree.args.get("group")
        or tree.args.get("order")
        or tree.args.get("limit")
    ):
        return None
    aggregates = [e for e in tree.expressions if e.unalias().find(exp.AggFunc) is not None]
    if len(aggregates) != 1:
        return None
    key = aggregates[0]
    ranked = key.alias if isinstance(key, exp.Alias) else key.sql(dialect="duckdb")
    order = "ASC" if _LEAST.search(question) else "DESC"
    rewritten = tree.order_by(f"{ranked} {order}", dialect="duckdb").limit(1)
    return rewritten.sql(dialect="duckdb"), ranked


def _parsed(query: str) -> exp.Expr | None:
    """The query's syntax tree (DuckDB dialect), or None when it does not parse."""
    try:
        return sqlglot.parse_one(query, read="duckdb")
    except sqlglot.errors.SqlglotError:
        return None


def _read_table(select: exp.Select) -> exp.Table | None:
    """The one table a SELECT reads FROM (sqlglot names the key `from_` or `from`)."""
    source = select.args.get("from_") or select.args.get("from")
    return source.this if source is not None and isinstance(source.this, exp.Table) else None


def _answer_preset(question: str, query: str, titles: str = "") -> str:
    """For "Which vehicle type has the highest average age?", a condition on the column the
    query answers with, by a value the question never names ("vehicle_type LIKE '%Trucks%'",
    copied off the example rows): the ranking then has one row to pick; or on another column
    when no word of the question is left for the value to stand for. "" otherwise."""
    if not ASKS_WHICH_ONE.search(question):
        return ""
    tree = _parsed(query)
    if not isinstance(tree, exp.Select) or tree.args.get("where") is None:
        return ""
    shown = {e.unalias().name for e in tree.expressions if isinstance(e.unalias(), exp.Column)}
    named = _named_words(question)
    # No word of the question left for the value to stand for: "Which product has the highest
    # quantity in stock?" over stock WHERE warehouse = 'Berlin'.
    idle = _unread_words(question, tree, titles)
    where = tree.args["where"].this
    parts = list(where.flatten()) if isinstance(where, exp.And) else [where]
    for part in parts:
        columns = {c.name for c in part.find_all(exp.Column)}
        values = [str(v.this) for v in part.find_all(exp.Literal) if v.is_string]
        if not values or any(_is_named(v, named) for v in values):
            continue
        picks = isinstance(part, (exp.EQ, exp.In, exp.Like, exp.ILike))
        if columns & shown or (not idle and picks and not any(re.search(r"\d", v) for v in values)):
            return part.sql(dialect="duckdb")
    return ""


def _computed_from_its_keys(question: str, query: str) -> str:
    """For "By how many did the ducks change from 2022 to 2023?", a query whose result reads
    only the columns its WHERE clauses pick rows by with numbers ("(SELECT year … WHERE year =
    2023) - (SELECT year … WHERE year = 2022)" gives 1, the question's own years): the
    columns' names, or "". Counting rows, and questions asking which one or which period, are
    left alone."""
    if _WHICH_PERIOD.search(question) or ASKS_WHICH_ONE.search(question):
        return ""
    tree = _parsed(query)
    if not isinstance(tree, exp.Select) or tree.find(exp.Count) is not None:
        return ""
    keys: set[str] = set()
    for where in tree.find_all(exp.Where):
        for compare in where.find_all(exp.EQ, exp.In, exp.Between):
            values = list(compare.find_all(exp.Literal))
            if values and not any(v.is_string for v in values):
                keys |= {c.name.lower() for c in compare.find_all(exp.Column)}
    if not keys:
        return ""
    read: set[str] = set()
    for expression in tree.expressions:
        for column in expression.find_all(exp.Column):
            if column.find_ancestor(exp.Where) is None:
                read.add(column.name.lower())
    return ", ".join(sorted(read)) if read and read <= keys else ""


def titles_of(outcome: ToolOutcome) -> str:
    """The file names and nearest headings of what a tool result rests on."""
    return " ".join(f"{Path(c.path).stem} {c.nearest_heading}" for c in outcome.backing)


_KIND = re.compile(
    r"\b(?:which|what)\s+(?:of\s+the\s+|one\s+of\s+the\s+)?([a-z][a-z-]{2,})\b", re.I
)
_NO_KIND = frozenset(
    {"is", "was", "are", "were", "has", "had", "have", "did", "does", "do", "the", "a", "an",
     "year", "years", "month", "months", "quarter", "quarters", "period", "periods", "day",
     "days", "date", "dates", "time", "one", "ones", "kind", "type", "types"}
)  # fmt: skip


def kind_asked(question: str) -> str:
    """The kind of row a question after the highest or lowest one asks for ("Which zone had
    the lowest sales?" → "zone", "which of the regions" → "region"); "" when it names none
    ("What was …", "In which year …")."""
    if not ASKS_WHICH_ONE.search(question):
        return ""
    found = _KIND.search(question)
    if found is None or found.group(1).lower() in _NO_KIND:
        return ""
    word = found.group(1).lower()
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 4 else word


def without_preset(question: str, query: str, titles: str = "") -> tuple[str, str] | None:
    """The query without the condition that picks its answer before ranking (see
    `_answer_preset`), and that condition; None when there is none. A small model told to leave
    it out wrote it again three times ("state ILIKE '%Alabama%' OR … '%Arizona%'", the example
    rows, for "Which state had the most background checks?"): code takes it out."""
    preset = _answer_preset(question, query, titles)
    tree = _parsed(query)
    if not preset or not isinstance(tree, exp.Select) or tree.args.get("where") is None:
        return None
    where = tree.args["where"]
    parts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    kept = [part for part in parts if part.sql(dialect="duckdb") != preset]
    if len(kept) == len(parts):
        return None
    if kept:
        where.set("this", exp.and_(*kept))
    else:
        where.pop()
    return tree.sql(dialect="duckdb"), preset


def _picked_unnamed(question: str, query: str) -> str:
    """For "At which concentration was the resistance highest?" answered by one row picked by
    its largest (or smallest) measure: the columns it shows, when none but the measure is one
    the question names ("bc_v_dec", a neighbour of the concentration column); else ""."""
    if not ASKS_WHICH_ONE.search(question) or _WHICH_PERIOD.search(question):
        return ""
    if re.search(r"\bwho(?:m|se)?\b", question, re.IGNORECASE):
        return ""  # "… and who was it paid to?": any column naming someone answers
    tree = _parsed(query)
    if not isinstance(tree, exp.Select):
        return ""
    measure, _largest = _largest_of(tree)
    if measure is None:
        return ""
    named = _named_words(question)
    shown = [e.alias_or_name for e in tree.expressions]
    others = [name for name in shown if name != measure.name]
    if not others or any(
        set(_TOKEN.findall(name.lower().replace("_", " "))) & (named | _ROW_NAMES)
        for name in others
    ):
        return ""
    if set(others) & _chosen_among_named(tree, named):
        return ""  # "Of Vermont, Rhode Island and Wyoming, which …": the options' column
    return ", ".join(others)


def _chosen_among_named(tree: exp.Select, named: set[str]) -> set[str]:
    """The columns the query's conditions keep to values the question writes out (`state IN
    ('Vermont', 'Rhode Island', 'Wyoming')`): asked to choose among them, the column is what
    the question asks for."""
    where = tree.args.get("where")
    if where is None:
        return set()
    chosen = set()
    for condition in where.find_all(exp.In, exp.EQ, exp.Like, exp.ILike):
        column = condition.this
        values = condition.expressions if isinstance(condition, exp.In) else [condition.expression]
        if (
            isinstance(column, exp.Column)
            and values
            and all(isinstance(v, exp.Literal) and v.is_string for v in values)
            and all(_is_named(v.this, named) for v in values)
        ):
            chosen.add(column.name)
    return chosen


def _largest_of(tree: exp.Select) -> tuple[exp.Column | None, bool]:
    """The measure column a single-row pick is by, and whether it is the largest."""
    where = tree.args.get("where")
    if where is not None and _is_extreme_match(where.this, None):
        extreme = where.this.expression.find(exp.Max, exp.Min)
        column = where.this.this
        return column, isinstance(extreme, exp.Max)
    order, limit = tree.args.get("order"), tree.args.get("limit")
    if order is None or limit is None or limit.expression.sql() != "1":
        return None, False
    (first, *_rest) = order.expressions
    if not isinstance(first.this, exp.Column):
        return None, False
    return first.this, bool(first.args.get("desc"))


def _is_extreme_match(condition: exp.Expression, measure: exp.Column | None) -> bool:
    """`m = (SELECT MAX(m) …)` (or MIN), for the given measure when one is given."""
    if not isinstance(condition, exp.EQ) or not isinstance(condition.this, exp.Column):
        return False
    inner = condition.expression
    if not isinstance(inner, exp.Subquery | exp.Select) or inner.find(exp.Max, exp.Min) is None:
        return False
    return measure is None or condition.this.name == measure.name


def _names_column(name: str, wanted: set[str]) -> bool:
    words = set(_TOKEN.findall(name.lower().replace("_", " ")))
    return bool(words) and all(w in wanted or w.rstrip("s") in wanted for w in words)


def _named_words(question: str) -> set[str]:
    # A possessive names its owner: "OTSL's inference" names the rows of OTSL.
    words = set(_TOKEN.findall(question.lower().replace("’", "'")))
    words |= {w.removesuffix("'s") for w in words}
    return words | {w.rstrip("s") for w in words} | set(re.findall(r"\d{2,}", question))


def _is_named(value: str, named: set[str]) -> bool:
    """Whether every word of a literal (ILIKE wildcards aside) is a word of the question."""
    words = _TOKEN.findall(value.lower().replace("%", " "))
    if not words:
        return True  # an empty string or bare wildcard filters nothing the question names
    for word in words:
        digits = re.findall(r"\d{2,}", word)
        if word in named or word.rstrip("s") in named or (digits and set(digits) <= named):
            continue
        return False
    return True


def _review_calculation(question: str, outcome: ToolOutcome, passages: Sequence[Chunk]) -> Review:
    sources = (*(outcome.backing or ()), *passages)
    value_text = outcome.result.rsplit("=", 1)[-1]
    values = numbers_in_text(value_text)
    if not values:
        return Review("discard", "the calculation gave no number")
    if abs(values[0]) > MAX_PLAUSIBLE:
        return Review("discard", "the result is implausibly large")
    from_sources = [n for n in operands_of(outcome) if n not in FREE_CONSTANTS]
    # A small figure the sources write is theirs too ("7 days" of a lead time), not a constant.
    figures = [n for c in sources for n in numbers_in_text(c.text)]
    stated = [
        n
        for n in operands_of(outcome)
        if n not in from_sources and n != 100 and any(same_number(n, w) for w in figures)
    ]
    if len(from_sources) + len(set(stated)) < 2:
        return Review(
            "discard",
            "one number of the sources shifted by a constant is not a calculation over them",
        )
    years = {float(y) for y in re.findall(r"\b(?:19|20)\d\d\b", question)}
    if years and not ABOUT_YEARS.search(question) and any(n in years for n in from_sources):
        named = sorted({str(int(n)) for n in from_sources if n in years})
        what = "is a year" if len(named) == 1 else "are years"
        return Review(
            "repair",
            f"{' and '.join(named)} {what} the question names, not figures: use the values "
            "written under those years",
        )
    expression = str(outcome.arguments.get("expression", "")).replace(",", "")
    if _SELF_DIVIDED.search(expression):
        return Review(
            "repair",
            "a number is divided by itself, so a parenthesis is missing: a percentage change is "
            "(new - old) / old * 100",
        )
    if _asks_average(question, sources) and "+" not in expression and not _PERCENT.search(question):
        return Review(
            "repair",
            "the question asks for an average: add the values and divide by how many there "
            "are, (a + b) / 2",
        )
    if ASKS_POINTS.search(question) and re.search(r"/|\*\s*100\b", expression):
        return Review(
            "repair",
            "the question asks for percentage points: the difference of the two percentages, "
            "new - old, without dividing",
        )
    if (
        (_DIFFERENCE.search(question) or MORE_THAN.search(question))
        and not ASKS_RELATIVE.search(question)
        and re.search(r"\*\s*100\b", expression)
    ):
        return Review(
            "repair",
            "the question asks for a difference, not a percentage: new - old, without * 100",
        )
    if (
        _PERCENT.search(question)
        and not ASKS_POINTS.search(question)
        and "÷" not in outcome.formula
        and "/" not in outcome.formula
    ):
        return Review(
            "repair",
            "the question asks for a percentage, so the expression must divide: "
            "(new - old) / old * 100",
        )
    if (
        _AS_SHARE_OF.search(question)
        and not _ASKS_CHANGE.search(question)
        and _CHANGE_OVER.search(expression)
    ):
        return Review(
            "repair",
            "the question asks for one figure as a percentage of another, not a change: "
            "part / whole * 100, with the two figures of the same period",
        )
    unasked = _unasked_operation(question, outcome.formula)
    if unasked:
        return Review("discard", unasked)
    turned = _turned_difference(question, expression, sources)
    if turned:
        return Review("repair", turned)
    row = _row_for_periods(question, sources)
    if row is not None and not all(
        any(same_number(value, n) for n in from_sources) for _, value in row[1]
    ):
        (first, old), (last, new) = row[1][0], row[1][-1]
        formula = f"({show(new)} - {show(old)}) / {show(old)} * 100"
        return Review(
            "repair",
            f"the row {row[0]!r} has {first}: {show(old)} and {last}: {show(new)}: "
            + (f"compute {formula}" if _PERCENT.search(question) else "take those two values"),
        )
    itself = _SELF_SUBTRACTED.search(expression)
    if itself and not _twice_in_a_row(float(itself.group(1)), sources):
        return Review(
            "repair",
            "a number is subtracted from itself: a change is between two different figures, "
            "those of the two periods or rows the question names",
            search=_subject(question),
        )
    # By their first letters ("widget" is the row "Widgets"), a row read with its sheet's title.
    terms = {w[:5] for w in content_words(question) - _GENERIC}
    backing = outcome.backing or tuple(passages)
    if terms and backing and not any(terms & _stems_of(c) for c in backing):
        return Review(
            "repair",
            "the numbers used come from passages that do not mention what the question asks "
            "about; take them from the rows or sentences that do",
        )
    fuller = _rows_named_more_fully(question, from_sources, (*backing, *passages))
    if fuller:
        return Review(
            "repair",
            "; ".join(
                f"{number} is the row {used!r}, but the question names {named!r}: take the "
                "value from that row"
                for number, used, named in fuller
            ),
        )
    beside = _columns_named_otherwise(question, from_sources, (*backing, *passages))
    if beside:
        return Review(
            "repair",
            "; ".join(
                f"{number} stands under {used!r}, but the question names {named!r}: take the "
                "value from that column"
                for number, used, named in beside
            ),
        )
    shares = _shares_for_an_amount(question, from_sources, backing)
    if shares:
        return Review(
            "repair",
            f"{' and '.join(shares)} are percentages in the sources, but the question asks for "
            "an amount: take the amounts themselves",
            search=_subject(question),
        )
    elsewhen = (
        [] if ABOUT_YEARS.search(question) else _other_periods(question, from_sources, backing)
    )
    if elsewhen:
        asked = " and ".join(sorted(_periods(question)[0] or _periods(question)[1]))
        written = _written_for(question, (*backing, *passages))
        return Review(
            "repair",
            "; ".join(f"{number} is written for {when}" for number, when in elsewhen)
            + f", but the question asks about {asked}: take the values written for that"
            + (f" ({written})" if written else ""),
        )
    astray: list[str] = []
    row_named = False
    if not ABOUT_YEARS.search(question):
        astray, row_named = _operands_astray(question, from_sources, backing, passages)
    if astray:
        where = (
            f"the row or sentence that names {_subject(question)!r}"
            if row_named
            else f"a line that speaks of {' '.join(sorted(_measure_words(question)))}"
        )
        return Review(
            "repair",
            f"{', '.join(astray)} are not from {where}: take the numbers from there",
            search=_subject(question),
        )
    return Review("accept", "every operand is a number of a passage about the question")


_SUBTRACTS = re.compile(r"[\d)]\s*[−-]\s*[\d(]")


def _unasked_operation(question: str, formula: str) -> str:
    """Why a calculation answers another question than this one, or "": a subtraction or a
    division where no word of the question asks for one."""
    asked = asks_operation(question)
    if "-" not in asked and _SUBTRACTS.search(formula):
        return "the question asks for no difference, so a subtraction answers another question"
    if "/" not in asked and ("÷" in formula or "/" in formula):
        return "the question asks for no ratio or share, so a division answers another question"
    return ""


def _twice_in_a_row(value: float, sources: Sequence[Chunk]) -> bool:
    """Whether a line of the sources (a table's row) writes `value` twice: a rate of 21.0% in
    both years changed by 0, which no line writing it once shows."""
    return any(
        sum(same_number(value, n) for n in numbers_in_text(line)) >= 2
        for chunk in sources
        for line in chunk.text.splitlines()
    )


# "The difference between A and B", "how much more did A spend than B": A's figure first.
_BETWEEN = re.compile(r"\bdifference\b[^?]*?\bbetween\b(?P<rest>[^?]*)", re.IGNORECASE)
_MORE_OR_LESS = re.compile(
    r"\b(?P<way>more|higher|larger|bigger|greater|less|lower|smaller|fewer)\b[^?]*?\bthan\b",
    re.IGNORECASE,
)
_TWO_TERMS = re.compile(r"^\s*\(?\s*(\d+(?:\.\d+)?)\s*\)?\s*-\s*\(?\s*(\d+(?:\.\d+)?)\s*\)?\s*$")


def _turned_difference(question: str, expression: str, chunks: Sequence[Chunk]) -> str:
    """How to repair a subtraction of two named things taken the wrong way round, or "":
    "310000 - 420000" for "the difference between the budgets of Atlas and Borealis" when
    420,000 is written on Atlas' line and 310,000 on Borealis'. Only names are read (periods
    are ordered by `_row_for_periods`), and only when each figure's lines name one of the two."""
    from polyrag.agent.questions import names_in

    terms = _TWO_TERMS.match(expression)
    if terms is None:
        return ""
    between = _BETWEEN.search(question)
    more = _MORE_OR_LESS.search(question)
    if between:
        names = names_in(between.group("rest"))
        reverse = False
    elif more:
        names = [*names_in(question[: more.end()])[-1:], *names_in(question[more.end() :])[:1]]
        reverse = more.group("way").lower() in {"less", "lower", "smaller", "fewer"}
    else:
        return ""
    names = [name for name in names if _period_key(name) is None][:2]
    if len(names) != 2:
        return ""
    lines = [line for chunk in chunks for line, _ in _lines(chunk.text)]

    def owner(value: float) -> str | None:
        holding = [
            line for line in lines if any(same_number(value, n) for n in numbers_in_text(line))
        ]
        named = {
            name
            for name in names
            for line in holding
            if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", line, re.IGNORECASE)
        }
        return named.pop() if len(named) == 1 else None

    first, second = (float(t) for t in terms.groups())
    wanted = names[::-1] if reverse else names
    if (owner(first), owner(second)) != (wanted[1], wanted[0]):
        return ""
    return (
        f"{wanted[0]} is {show(second)} and {wanted[1]} is {show(first)}: the question asks for "
        f"{wanted[0]} minus {wanted[1]}, so compute {show(second)} - {show(first)}"
    )


def _rows_named_more_fully(
    question: str, operands: Sequence[float], chunks: Sequence[Chunk]
) -> list[tuple[str, str, str]]:
    """(operand, its row's label, the label the question names) for each operand read from a
    row whose label the question does not write out while it writes out a fuller label of the
    same table, or another label sharing half its words: 1,211,362 from "Total assets" when
    the question divides "total current assets" by "total current liabilities"."""
    asked = " ".join(_TOKEN.findall(question.lower()))
    rows = [
        (label, figures)
        for chunk in chunks
        for line in chunk.text.splitlines()
        if (found := _row_of(line)) is not None
        for label, figures in [found]
    ]
    named = {
        label
        for label, _ in rows
        if len(label.split()) >= 2 and re.search(rf"(?<!\w){re.escape(label)}(?!\w)", asked)
    }
    out: list[tuple[str, str, str]] = []
    for operand in operands:
        labels = {label for label, figures in rows if any(same_number(operand, n) for n in figures)}
        if not labels or labels & named:
            continue
        for label in sorted(labels):
            words = set(label.split())
            fuller = sorted(n for n in named if words < set(n.split()))
            # Or a row the question names that shares half the operand's row's words or more:
            # "operating profit" where it asks about "profit before taxes, associates and
            # joint ventures".
            fuller = fuller or sorted(
                n
                for n in named
                if 2 * len(words & set(n.split())) >= len(words) and not set(n.split()) < words
            )
            # Or the question says the row's label only after a row it names: "finished goods
            # inventories" names "Finished goods", not the "Inventories" under it.
            fuller = fuller or sorted(n for n in named if _said_only_after(label, n, asked))
            if fuller:
                out.append((show(operand), label, fuller[0]))
                break
    return out


def _said_only_after(label: str, named: str, asked: str) -> bool:
    """Whether `label` is in the question, and each time right after `named`."""
    said = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(label)}(?!\w)", asked)]
    return bool(said) and all(asked[:start].endswith(f"{named} ") for start in said)


_WRITTEN_NUMBER = re.compile(r"(?<![\w.])\(?[$€£]?\s?\d[\d,]*(?:\.\d+)?\)?(\s?(?:%|percent\b))?")


def _shares_for_an_amount(
    question: str, operands: Sequence[float], chunks: Sequence[Chunk]
) -> list[str]:
    """The operands the sources write only as percentages ("decreased 77%"), when the question
    asks for an amount ("by how much … in thousands of dollars") and for no rate or share."""
    if not ASKS_AMOUNT.search(question) or ASKS_RELATIVE.search(question):
        return []
    if ASKS_POINTS.search(question):
        return []
    written: dict[float, set[bool]] = {}
    for chunk in chunks:
        for found in _WRITTEN_NUMBER.finditer(chunk.text):
            for number in numbers_in_text(found.group(0).split("%")[0]):
                for operand in operands:
                    if same_number(operand, number):
                        written.setdefault(operand, set()).add(bool(found.group(1)))
    return [show(n) for n in operands if written.get(n) == {True}]


def _columns_named_otherwise(
    question: str, operands: Sequence[float], chunks: Sequence[Chunk]
) -> list[tuple[str, str, str]]:
    """(operand, its column's header, the header the question names) for each operand read
    under a column the question does not name while it names another column of the same
    table: 3,777 under "Consolidated" when the question asks about the "Regulated Businesses"
    column of a segment table. Columns headed by periods are left to the period check."""
    asked = " ".join(_TOKEN.findall(question.lower()))
    out: list[tuple[str, str, str]] = []
    for chunk in chunks:
        for table in pipe_tables(chunk.text):
            # The figure columns: the first column holds the rows' labels.
            names = [" ".join(_TOKEN.findall(name.lower())) for name in table.header[1:]]
            cells = [row[1:] for row in table.rows]
            # A header of two words or more, no period ("Regulated Businesses"): one word
            # ("total", "domestic") is too often a word of the question about something else.
            named = {
                name
                for name in names
                if len(re.findall(r"[a-z]{2,}", name)) >= 2
                and not _PERIOD_HEADER.search(name)
                and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", asked)
            }
            if not named:
                continue
            for operand in operands:
                under = {
                    names[i]
                    for row in cells
                    for i, cell in enumerate(row)
                    if i < len(names)
                    and any(same_number(operand, n) for n in numbers_in_text(cell))
                }
                # An operand under a blank header (a table whose header spans two lines) or a
                # period's column is not known to stand in another column.
                if (
                    under
                    and not under & named
                    and all(u and not _PERIOD_HEADER.search(u) for u in under)
                    # "… over the total balances": the question names that column too
                    and not any(re.search(rf"(?<!\w){re.escape(u)}(?!\w)", asked) for u in under)
                ):
                    out.append((show(operand), sorted(under)[0], sorted(named)[0]))
    return list(dict.fromkeys(out))


_PERIOD_HEADER = re.compile(
    rf"\b(?:19|20)\d\d\b|\b(?:fy\d*|f\d\d|q[1-4]|h[12]|years?|quarters?|months?|period)[a-z]*\b|"
    rf"\b{MONTH}\b"
)


def _row_of(line: str) -> tuple[str, list[float]] | None:
    """A table row's label (lower case, plain words) and figures, from a row sentence ("Row 12:
    Total current assets — 2016: 1,001,425, 2015: 705,563") or a Markdown row; None for other
    lines. A row sentence's figures leave out the columns that head them ("December 31,
    2019")."""
    sentence = read_row_sentence(line)
    if sentence is not None and sentence.labelled and re.search(r"\d", sentence.figures):
        label = sentence.label
        figures = " ".join(value for _column, value in sentence.pairs())
    elif line.lstrip().startswith("|") and not set(line) <= set("|-: "):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        label, figures = cells[0], " ".join(cells[1:])
    else:
        return None
    words = " ".join(_TOKEN.findall(label.lower()))
    return (words, numbers_in_text(figures)) if words else None


def _lines(text: str) -> list[tuple[str, str]]:
    """A passage's rows and sentences, each with what it is read with: a table row with the
    table's title and header (a figure's measure is often its column's name: "| Year | Ducks
    |")."""
    parts = [line for line in _LINES.split(_unwrapped(text)) if line.strip()]
    first = next((i for i, line in enumerate(parts) if line.lstrip().startswith("|")), None)
    if first is None:
        return [(line, line) for line in parts]
    heading = " ".join(parts[: first + 1])
    return [
        (line, f"{heading} {line}" if line.lstrip().startswith("|") else line) for line in parts
    ]


# A line of prose wrapped before its sentence ends: joined to the next unless that one is a
# row, an item or a heading ("approved a capital budget of\n2.4 million euros for 2026").
_WRAPPED = re.compile(r"(?<=[^\s.:;!?|])[ \t]*\n(?=[ \t]*[^\s|#*•>-])(?![ \t]*Row \d)")


def _unwrapped(text: str) -> str:
    """Prose joined across its wrapped lines; rows, items and headings stay lines of their own."""
    kept = []
    for block in re.split(r"(\n[ \t]*\n)", text):
        rows = any(line.lstrip().startswith(("|", "Row ")) for line in block.splitlines())
        kept.append(block if rows else _WRAPPED.sub(" ", block))
    return "".join(kept)


_PERIOD_NAME = re.compile(rf"\b(?:(?:19|20)\d\d|{MONTH}\.?)(?!\w)", re.IGNORECASE)


def _period_key(text: str) -> str | None:
    """A period as a key: a year ("2019"), or a month by its first three letters ("apr" for
    "April" and "Apr"); None for anything else."""
    found = _PERIOD_NAME.fullmatch(text.strip())
    if found is None:
        return None
    word = found.group(0)
    return word if word.isdigit() else word[:3].lower()


def _chronological(key: str) -> tuple[int, int]:
    """A period key's place in time: a year by its number, a month by its place in the year."""
    if key.isdigit():
        return int(key), 0
    return 0, month_number(key)


def _asks_average(question: str, chunks: Sequence[Chunk]) -> bool:
    """Whether the question asks for an average, not for a figure whose name says "average"
    ("the change in the average price per unit" over a row "Average price per unit"): the
    word and the one after it, written together in a passage, are a name."""
    found = _AVERAGE.search(question)
    if found is None:
        return False
    after = _TOKEN.findall(question[found.end() :].lower())[:1]
    if not after or after[0] in _AVERAGE_OF:
        return True
    name = f"{found.group(0).lower()} {after[0]}"
    return not any(name in " ".join(_TOKEN.findall(chunk.text.lower())) for chunk in chunks)


_AVERAGE_OF = frozenset({"of", "for", "in", "over", "between", "across", "the", "a", "an"})


def _row_for_periods(
    question: str, chunks: Sequence[Chunk]
) -> tuple[str, list[tuple[str, float]]] | None:
    """The row a question's change "from January to April" is over, and its values under the
    columns of the first and the last period it names ("Widgets", [("Jan", 40), ("Apr", 60)]),
    read from rows of "Header is value" pairs, labelled row sentences and Markdown tables
    under a row of periods. None unless the question names exactly two periods (and no
    average), and one row names its subject: of several, the one whose label the question
    writes out in full ("Total Other" over two rows "Other")."""
    asked = [key for m in _PERIOD_NAME.finditer(question) if (key := _period_key(m.group(0)))]
    if len(set(asked)) != 2 or _asks_average(question, chunks):
        return None
    # From the earlier period to the later, however the question orders them ("in 2019
    # compared with 2018").
    first, last = sorted(set(asked), key=_chronological)
    subject = {
        w[:5]
        for w in content_words(question) - _GENERIC
        if _period_key(w) is None and not w.isdigit()
    }
    found: dict[str, list[tuple[str, float]]] = {}
    for names, pairs in _period_rows(chunks):
        by_period = {_period_key(name): (name, value) for name, value in pairs}
        if first not in by_period or last not in by_period:
            continue
        if not any(subject & {w[:5] for w in content_words(name)} for name in names):
            continue
        values = []
        for key in (first, last):
            header, value = by_period[key]
            numbers = numbers_in_text(value)
            if len(numbers) != 1:
                break
            values.append((header, numbers[0]))
        else:
            found.setdefault(" ".join(names), values)
    if len(found) > 1:
        found = {label: found[label] for label in _fullest_labels(question, found)}
    return next(iter(found.items())) if len(found) == 1 else None


def difference_of_rows(question: str, chunks: Sequence[Chunk]) -> tuple[str, str] | None:
    """For "the difference between the totals of Indiana and Illinois" (or "how many more …
    does A have than B"): the subtraction of the two rows' values under the column the
    question names, in the order the question names the rows, and a note of what it takes
    ("130333 - 129861", "Totals of Indiana and Illinois"). None unless the question asks for
    a difference (not a relative change), names exactly one column of the rows found and
    writes out exactly two rows' labels in full, each with one figure there."""
    if not (_DIFFERENCE.search(question) or MORE_THAN.search(question)):
        return None
    if ASKS_RELATIVE.search(question) or _PERCENT.search(question):
        return None
    asked = {w[:5] for w in _TOKEN.findall(question.lower())}
    rows: dict[str, dict[str, str]] = {}
    for chunk in chunks:
        for line in chunk.text.splitlines():
            read = read_row_sentence(line)
            if read is None or read.labelled:
                continue
            pairs = read.pairs()
            labels = [v for _, v in pairs if not numbers_in_text(v) and _TOKEN.search(v.lower())]
            if len(labels) == 1:
                rows.setdefault(labels[0], dict(pairs))
    headers = {name for pairs in rows.values() for name in pairs}
    named = [
        h
        for h in headers
        if (words := _TOKEN.findall(h.lower())) and {w[:5] for w in words} <= asked
    ]
    if len(named) != 1:
        return _difference_of_entries(question, chunks) if not rows else None
    column = named[0]
    in_question = set(_TOKEN.findall(question.lower()))
    each = {label: set(_TOKEN.findall(label.lower())) for label in rows}
    written = {label: w for label, w in each.items() if w and w <= in_question}
    column_stems = {w[:5] for w in _TOKEN.findall(column.lower())}
    found = []
    for label, label_words in written.items():
        if any(label_words < other for other in written.values()):
            continue  # "York" within "New York"
        if {w[:5] for w in label_words} <= column_stems:
            continue  # the total row, for "the totals of …"
        figures = numbers_in_text(rows[label].get(column, ""))
        if len(figures) == 1:
            found.append((question.lower().find(label.lower()), label, figures[0]))
    if len(found) != 2 or any(at < 0 for at, _, _ in found):
        return None
    (_, first, a), (_, second, b) = sorted(found)
    return f"{_plain(a)} - {_plain(b)}", f"{column} of {first} and {second}"


def _difference_of_entries(question: str, chunks: Sequence[Chunk]) -> tuple[str, str] | None:
    """For "How much more was paid to A than to B?" over a listing read from a PDF without
    ruling: the subtraction of the amounts ending the one entry line each name writes in full
    (every word of it, initials aside, in any order: "Velez-Green, Alexander J"), in the
    order the question names them; None unless there are exactly two such names."""
    amounts = {
        line: found.group(0)
        for chunk in chunks
        for line in chunk.text.splitlines()
        if (found := AMOUNT_AT_END.search(line.strip())) is not None
    }
    taken = []
    for name in full_names(question):
        words = {w.lower() for w in re.findall(r"[\w'-]{2,}", name)}
        lines = [
            line
            for line in amounts
            if words <= {w.lower() for w in re.findall(r"[\w'-]{2,}", line)}
        ]
        if len(lines) == 1:
            taken.append((name, amounts[lines[0]]))
    if len(taken) != 2:
        return None
    (first, a), (second, b) = taken
    x, y = parse_number(a), parse_number(b)
    if x is None or y is None:
        return None
    return f"{_plain(x)} - {_plain(y)}", f"the amounts of {first} and {second}"


def _plain(value: float) -> str:
    """A figure as the calculator reads it: 130333, 12.5, (-5839)."""
    shown = str(int(value)) if value == int(value) else repr(value)
    return f"({shown})" if value < 0 else shown


def _fullest_labels(question: str, labels: Iterable[str]) -> list[str]:
    """Of several row labels, those the question writes out in full (every word of theirs is
    a word of the question) with the most words: "Total Other" over "Other" for "the change
    in Total Other". More than one when the question does not tell them apart."""
    asked = set(_TOKEN.findall(question.lower()))
    written = {
        label: len(words)
        for label in labels
        if (words := _TOKEN.findall(label.lower())) and set(words) <= asked
    }
    most = max(written.values(), default=0)
    return [label for label, count in written.items() if count == most]


def _period_rows(chunks: Sequence[Chunk]) -> Iterator[tuple[list[str], list[tuple[str, str]]]]:
    """Each row of the chunks as (its names, its (column, value) pairs): a row of "Header is
    value" pairs names itself by its values under other headers than periods; a labelled row
    sentence and a Markdown row by their label. A Markdown table's columns are named by its
    header, or by its first row when only that one names periods ("|  | 2019 | 2018 |")."""
    for chunk in chunks:
        for line in chunk.text.splitlines():
            read = read_row_sentence(line)
            if read is None:
                continue
            pairs = read.pairs()
            if read.labelled:
                yield [read.label], pairs
            else:
                yield [value for name, value in pairs if _period_key(name) is None], pairs
        for table in pipe_tables(chunk.text):
            rows = [table.header, *table.rows]
            top = next(
                (
                    i
                    for i, row in enumerate(rows[:3])
                    if sum(bool(_period_key(c)) for c in row) >= 2
                ),
                None,
            )
            if top is None:
                continue
            header = rows[top]
            for row in rows[top + 1 :]:
                if row and row[0].strip():
                    yield [row[0]], list(zip(header, row, strict=False))


def _stems_of(chunk: Chunk) -> set[str]:
    """The first five letters of each content word of a chunk and of its section's title."""
    return {w[:5] for w in content_words(chunk.keyword_text)}


def _subject(question: str) -> str:
    """What a calculation is over, as a search in the documents already found: the question's
    words less the operation, the names and the years ("What is the change of IMFT's total
    assets from 2018 to 2019?" → "total assets"; the table says it without the name)."""
    kept = content_words(question) - _OPERATIONS - _words_of_names(question)
    words = [
        w for w in re.findall(r"[\w'’&-]+", question) if re.sub(r"['’]s$", "", w.lower()) in kept
    ]
    return " ".join(w for w in words if not w.isdigit())


def _measure_words(question: str) -> set[str]:
    """What the question measures ("total assets" → assets): its words less the names it
    mentions (the company every line of the filing is about), years and generic words."""
    named = _words_of_names(question)
    return {w for w in content_words(question) - _GENERIC - named if not w.isdigit() and len(w) > 2}


def _words_of_names(question: str) -> set[str]:
    """The lower-cased words of the names a question mentions ("IMFT", "Annie", "Morton")."""
    from polyrag.agent.questions import names_in

    return {w.lower() for name in names_in(question) for w in re.findall(r"\w+", name)}


def _operands_astray(
    question: str,
    operands: Sequence[float],
    backing: Sequence[Chunk],
    passages: Sequence[Chunk] = (),
) -> tuple[list[str], bool]:
    """The operands every line of which (a table row, a sentence) speaks of nothing the question
    measures: "493 − 507" taken from "IMFT sales to Intel were … $507 million, and $493
    million" for a change in IMFT's total assets. When a line with figures names the measure
    as the question does ("Total assets"), the operands must come from such lines ("Total
    current assets" is another row); the second value says whether such a line exists."""
    measure = {w[:5] for w in _measure_words(question)}
    if not measure:
        return [], False
    subject = _subject(question)
    exact = re.compile(rf"(?<!\w){re.escape(subject)}(?!\w)", re.IGNORECASE)
    # A line naming the measure with a figure (a year is none: "Training hours rose in most
    # departments in 2024" names no row of training hours).
    named_rows = bool(subject) and any(
        exact.search(line) and any(not _is_year(n) for n in numbers_in_text(line))
        for chunk in (*backing, *passages)
        for line, _ in _lines(chunk.text)
    )
    # A row is read with its section's title too: a spreadsheet's rows rarely repeat what their
    # sheet is about ("Budget": "Engineering, 2023 is 1200000, 2024 is 1350000").
    lines = [
        (line, f"{chunk.nearest_heading} {read}")
        for chunk in backing
        for line, read in _lines(chunk.text)
    ]
    astray = []
    for operand in operands:
        holding = [
            (line, read)
            for line, read in lines
            if any(same_number(operand, n) for n in numbers_in_text(line))
        ]
        if not holding:
            continue
        if named_rows:  # the row, or the title of its table, names the measure
            fits = any(exact.search(read) for _, read in holding)
        else:
            fits = any(measure & {w[:5] for w in content_words(read)} for _, read in holding)
        if not fits:
            astray.append(show(operand))
    return astray, named_rows


def _is_year(number: float) -> bool:
    return number.is_integer() and 1900 <= number <= 2099


_MONTH_YEAR = re.compile(rf"\b({MONTH})\.?\s+(?:\d{{1,2}},?\s+)?((?:19|20)\d\d)\b", re.IGNORECASE)


def _periods(text: str) -> tuple[set[str], set[str]]:
    """The months ("February 2016") and the years (with the months' years) a text names; a
    total over a span names the years between its ends ("in total from 2019 to 2022" names
    2020 and 2021 too), a change over it only its ends."""
    months = {f"{month_name(m.group(1))} {m.group(2)}" for m in _MONTH_YEAR.finditer(text)}
    years = set(re.findall(r"\b(?:19|20)\d\d\b", text))
    if _TOTAL_ASKED.search(text) and not _DIFFERENCE.search(text):
        for span in _SPAN.finditer(text):
            first, last = (int(span.group(i) or span.group(i + 2)) for i in (1, 2))
            if 0 < last - first <= 50:
                years |= {str(year) for year in range(first, last + 1)}
    return months, years


_TOTAL_ASKED = re.compile(
    r"\b(?:total|sum|combined|altogether|cumulative|overall|average|mean)\b", re.IGNORECASE
)
_SPAN = re.compile(
    r"\b(?:from|between)\s+((?:19|20)\d\d)\s+(?:to|and|through|until|till)\s+((?:19|20)\d\d)\b"
    r"|\b((?:19|20)\d\d)\s*[-–]\s*((?:19|20)\d\d)\b",
    re.IGNORECASE,
)


def _other_periods(
    question: str, operands: Sequence[float], backing: Sequence[Chunk]
) -> list[tuple[str, str]]:
    """(operand, when) for each operand written only in sentences about other periods than
    the question names: 346,453 of "In April 2019, we granted 346,453 PSUs" for a change
    between the PSUs of February 2016 and of October 2018. Months are compared when the
    question names months, else years; a sentence naming no period says nothing, and the
    check holds only when a sentence with figures names a period the question asks about."""
    asked_months, asked_years = _periods(question)
    if not asked_years:
        return []
    index = 0 if asked_months else 1
    asked = (asked_months, asked_years)[index]
    sentences = [line for chunk in backing for line, _ in _lines(chunk.text)]
    if not any(_periods(line)[index] & asked and numbers_in_text(line) for line in sentences):
        return []
    found = []
    for operand in dict.fromkeys(operands):
        named = [
            _periods(line)[index]
            for line in sentences
            if any(same_number(operand, n) for n in numbers_in_text(line))
        ]
        if named and all(when and not when & asked for when in named):
            found.append((show(operand), " and ".join(sorted(set().union(*named)))))
    return found


def _written_for(question: str, backing: Sequence[Chunk]) -> str:
    """The figures the sentences about each period the question names write ("February 2016:
    547,000; October 2018: 464,888"), for a small model to take them from; years and days
    left out, at most three a period."""
    asked_months, asked_years = _periods(question)
    index = 0 if asked_months else 1
    out = []
    for when in sorted((asked_months, asked_years)[index]):
        figures: list[str] = []
        for chunk in dict.fromkeys(backing):
            for line, _ in _lines(chunk.text):
                if _periods(line)[index] != {when}:
                    continue
                bare = _MONTH_YEAR.sub(" ", line) if index == 0 else line
                for match in re.finditer(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?%?", bare):
                    figure = match.group(0).rstrip(",")
                    if not re.fullmatch(r"(?:19|20)\d\d", figure) and figure not in figures:
                        figures.append(figure)
        if figures:
            out.append(f"{when}: {', '.join(figures[:3])}")
    return "; ".join(out)


# Questions whose arithmetic is on the years themselves ("how many years between …").
ABOUT_YEARS = re.compile(
    r"\bhow (?:many|long)\b.*\byears?\b|\byears? (?:between|since|after|apart)\b|"
    r"\bhow old\b|\bage\b",
    re.IGNORECASE,
)


def operands_of(outcome: ToolOutcome) -> list[float]:
    """The numbers of a calculation's expression, as written."""
    expression = str(outcome.arguments.get("expression", "")).replace(",", "")
    return [float(n) for n in re.findall(r"\d+(?:\.\d+)?", expression)]


def _total_rows(outcome: ToolOutcome) -> list[str]:
    """Cited rows whose first cell reads like a total ("Total", "Grand total")."""
    found = []
    for chunk in outcome.backing:
        for line in chunk.text.splitlines():
            if not line.startswith("|") or set(line) <= set("|- "):
                continue
            first = line.strip("|").split("|", 1)[0]
            if _TOTAL_ROW.match(first):
                found.append(first.strip())
    return found


def _without_aliases(query: str) -> str:
    """The query without the names it gives its results ("AS total_chunks"): a model names a
    result after the question whatever table it reads, so the name says nothing of what the
    query is about."""
    tree = _parsed(query)
    if tree is None:
        return query
    for alias in list(tree.find_all(exp.Alias)):
        alias.replace(alias.this)
    return tree.sql(dialect="duckdb")


def _stem(word: str) -> str:
    """A word's first five letters, a plural's of its singular ("items" → "item")."""
    return (word[:-1] if len(word) > 3 and word.endswith("s") else word)[:5]


def _cited_text(outcome: ToolOutcome) -> str:
    """What names the passages a result rests on: each one's first line (a table's title), its
    column names where a Markdown header follows a bare "Table 1", and the heading over it (a
    slide's chart titled only "Chart" is about what its slide's title says)."""
    named = []
    for chunk in outcome.backing:
        lines = chunk.text.split("\n", 2)
        header = lines[1] if len(lines) > 1 and lines[1].startswith("|") else ""
        named.append(f"{lines[0]} {header} {chunk.nearest_heading}")
    return " ".join(named)


def _words(text: str) -> set[str]:
    words = set(re.findall(r"[a-z0-9]+", text.lower()))
    return words | content_words(text.replace("_", " "))
