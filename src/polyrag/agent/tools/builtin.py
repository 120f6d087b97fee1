"""The tools polyrag brings: SQL over tables, a calculator, date arithmetic, reading a page.

Each is a typed function whose docstring is what the model is told about it; `context` (the
question's evidence so far) is given by the agent, not by the model.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from polyrag.agent.tools.base import ToolContext, ToolOutcome
from polyrag.agent.tools.calculator import calculate
from polyrag.agent.tools.sql import SqlError
from polyrag.errors import PolyragError


class ToolError(PolyragError):
    """A tool could not do what it was asked; the message is fed back to the caller."""


def sql(query: str, *, context: ToolContext) -> ToolOutcome:
    """Run one SQL SELECT over the tables of the documents found for this question (DuckDB
    syntax). Use it to count, sum, average, find the largest or smallest, or look up a row.
    The tables and their columns are listed with the question."""
    database = context.tables()
    if database is None or not database.tables:
        raise ToolError("no tables were found in the documents for this question")
    try:
        result = database.run(query)
    except SqlError as error:
        raise ToolError(str(error)) from None
    backing = tuple(cited.chunk() for cited in result.cited)
    where = "; ".join(f"{c.path.rsplit('/', 1)[-1]} {c.locator.describe()}" for c in backing)
    text = f"{result.text()}\n(query: {result.query}; cells: {where})"
    return ToolOutcome("sql", {"query": query}, True, text, backing=backing)


def calculator(expression: str, *, context: ToolContext) -> ToolOutcome:
    """Compute an arithmetic expression such as (1577 - 1373) / 1373 * 100. Write numbers
    exactly as the sources give them, without thousands separators; only + - * / ( ) and
    abs, round, min, max are allowed."""
    try:
        done = calculate(expression, context.known_numbers())
    except PolyragError as error:
        raise ToolError(str(error)) from None
    backing: list = []
    for operand in done.operands:
        for chunk in context.chunks_with(operand):
            if chunk not in backing:
                backing.append(chunk)
    return ToolOutcome(
        "calculator",
        {"expression": expression},
        True,
        done.formula,
        backing=tuple(backing),
        formula=done.formula,
    )


_DATE_FORMATS = ("%Y-%m-%d", "%d %B %Y", "%B %d, %Y", "%B %d %Y", "%d %b %Y", "%b %d, %Y", "%Y")


def date_difference(
    start: str,
    end: str,
    unit: Literal["days", "weeks", "months", "years"] = "days",
    *,
    context: ToolContext,
) -> ToolOutcome:
    """How much time lies between two dates written in the sources (e.g. "26 June 1968" and
    "2024-03-01"), in days, weeks, months or whole years."""
    first, second = _date(start, context), _date(end, context)
    days = (second - first).days
    if unit == "days":
        value = days
    elif unit == "weeks":
        value = days // 7
    else:
        months = (second.year - first.year) * 12 + second.month - first.month
        if second.day < first.day:
            months -= 1
        value = months if unit == "months" else months // 12
    text = f"from {start} to {end}: {value} {unit}"
    backing = tuple(
        c for c in context.passages if _mentions(c.text, start) or _mentions(c.text, end)
    )
    return ToolOutcome(
        "date_difference", {"start": start, "end": end, "unit": unit}, True, text, backing=backing
    )


def read_page(document: str, page: int, *, context: ToolContext) -> ToolOutcome:
    """Read one whole page of a document already found for this question (its file name as the
    sources show it), e.g. to follow "see Note 7" or to read the page after a table."""
    chunks = context.pages(document, page)
    if not chunks:
        raise ToolError(f"no page {page} in a document called {document!r} among the sources")
    text = "\n".join(chunk.text for chunk in chunks)
    return ToolOutcome(
        "read_page",
        {"document": document, "page": page},
        True,
        f"page {page} of {document}: {len(text)} characters read",
        passages=tuple(chunks),
    )


def _date(text: str, context: ToolContext) -> dt.date:
    if not any(_mentions(chunk.text, text) for chunk in context.passages):
        raise ToolError(f"the date {text!r} is not written in the sources")
    cleaned = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", " ".join(text.split()))
    for pattern in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(cleaned, pattern).date()
        except ValueError:
            continue
    raise ToolError(f"cannot read {text!r} as a date (write e.g. 2024-03-01 or 1 March 2024)")


def _mentions(haystack: str, needle: str) -> bool:
    return " ".join(needle.lower().split()) in " ".join(haystack.lower().split())
