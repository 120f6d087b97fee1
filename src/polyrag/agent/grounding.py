"""How an agent's answer is grounded: tool results as evidence, and the citations an answer
built on several searches owes to each passage it stood on."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from polyrag.agent.critic import ABOUT_YEARS, ASKS_WHICH_ONE
from polyrag.agent.questions import names_in
from polyrag.agent.tools import statements
from polyrag.agent.tools.base import ToolOutcome
from polyrag.answer.evidence import Evidence, content_words, stems
from polyrag.answer.numbers import ASKS_PERCENT, numbers_in_text, parse_number
from polyrag.answer.verify import unwritten_periods
from polyrag.months import MONTH
from polyrag.types import NO_ANSWER_FOUND, NOT_SUPPORTED, Answer, Chunk, Citation, Modality

_CALC = "Calculation:"
_SQL = "Computed by SQL from the rows below:"
_FIGURE = "Computed by code from the statements:"
_COUNT = "Counted by code:"


def derived(outcome: ToolOutcome) -> Evidence:
    """A tool result as an item of evidence, cited by what it rests on."""
    if outcome.tool == "sql":
        text = f"{_SQL} {outcome.result}\n" + "\n".join(c.text for c in outcome.backing)
    elif outcome.tool in ("calculator", "sum", "change"):
        text = f"{_CALC} {outcome.formula}"
    elif outcome.tool == "statement":
        text = f"{_FIGURE} {outcome.result}"
    elif outcome.tool == "count":
        text = f"{_COUNT} {outcome.result}"
    else:
        text = f"Result of {outcome.tool}: {outcome.result}"
    chunk = Chunk(
        chunk_id=f"tool:{outcome.tool}:{abs(hash(outcome.result)) % 10**8}",
        source_id=outcome.backing[0].source_id,
        path=outcome.backing[0].path,
        text=text,
        locator=outcome.backing[0].locator,
        modality=Modality.TABLE if outcome.tool == "sql" else Modality.TEXT,
    )
    return Evidence(0, chunk, text, backing=outcome.backing)


def with_bridges(answer: Answer, evidence: Sequence[Evidence], state: dict[str, Any]) -> Answer:
    """An answer that took several searches cites the passage each one stood on, not only the
    one the reply named: a hop's best passage led to the search that found the answer, and a
    comparison rests on the best passage about each thing compared. Only passages that share
    words with the answer or the question are added."""
    searches: dict[str, str] = {}
    for raw in state.get("hits", []):
        searches.setdefault(raw.get("search") or "", raw["chunk"]["chunk_id"])
    if len(searches) < 2:
        return answer
    cited = {c.chunk.chunk_id for c in answer.citations}
    words = content_words(answer.text) | content_words(str(state.get("question", "")))
    extra = []
    for item in evidence:
        chunk = item.chunk
        if chunk.chunk_id in searches.values() and chunk.chunk_id not in cited:
            title = " ".join(chunk.locator.heading_path) or Path(chunk.path).stem
            if words & content_words(title.replace("_", " ")):
                extra.append(Citation(item.n, chunk))
                cited.add(chunk.chunk_id)
    return replace(answer, citations=(*answer.citations, *extra)) if extra else answer


def with_chain(answer: Answer, evidence: Sequence[Evidence], question: str) -> Answer:
    """When the cited passages do not mention what the question names, also cite the passage
    that does and that shares a name with them: the link the answer was reached through
    ("the woman who portrayed Corliss Archer" → the film's passage naming Shirley Temple →
    her own passage, which states the answer)."""
    if not answer.citations:
        return answer
    named = _names_in(question)
    cited_ids = {c.chunk.chunk_id for c in answer.citations}
    cited_text = " ".join(c.chunk.text for c in answer.citations)
    missing = {name for name in named if name not in cited_text.lower()}
    if not missing:
        return answer
    cited_names = _names_in(cited_text)
    best: tuple[int, Evidence] | None = None
    for item in evidence:
        if item.chunk.chunk_id in cited_ids or item.derived:
            continue
        text = item.chunk.text.lower()
        covers = sum(1 for name in missing if name in text)
        links = any(name in text for name in cited_names - named)
        if covers and links and (best is None or covers > best[0]):
            best = (covers, item)
    if best is None:
        return answer
    extra = Citation(best[1].n, best[1].chunk)
    return replace(answer, citations=(*answer.citations, extra))


def with_coverage(answer: Answer, evidence: Sequence[Evidence], question: str) -> Answer:
    """When the question describes something the cited passages never say ("helped
    organizations improve their performance", "companion books … enslaved worlds"), also cite
    the one passage of another source that says most of it: the answer was picked because it
    fits that description, and the reader should see where the description comes from."""
    if not answer.citations:
        return answer
    cited_ids = {c.chunk.chunk_id for c in answer.citations}
    cited_sources = {c.chunk.source_id for c in answer.citations}
    said = stems(" ".join(c.chunk.text for c in answer.citations), numbers=False)
    missing = stems(question, numbers=False) - said
    if len(missing) < 2:
        return answer
    best: tuple[int, Evidence] | None = None
    for item in evidence:
        chunk = item.chunk
        if chunk.chunk_id in cited_ids or chunk.source_id in cited_sources or item.derived:
            continue
        covers = len(missing & stems(chunk.text, numbers=False))
        if covers >= max(2, len(missing) / 3) and (best is None or covers > best[0]):
            best = (covers, item)
    if best is None:
        return answer
    return replace(answer, citations=(*answer.citations, Citation(best[1].n, best[1].chunk)))


def _names_in(text: str) -> set[str]:
    """The capitalised names of a text, lower-cased."""
    return {name.lower() for name in names_in(text)}


_PICKS = re.compile(
    r"^\W*(?:in|on|at|for|during)?\s*(?:which|who|whom|whose|where|when|what (?:year|month|day|"
    r"date|period|quarter))\b|^\W*(?:is|are|was|were|do|does|did|has|have|had)\b",
    re.IGNORECASE,
)


def with_result(answer: Answer, evidence: Sequence[Evidence], question: str) -> Answer:
    """A reply to a computation states the calculator's result, or the one figure a SQL query
    gave. When the model wrote other numbers instead (it redid the arithmetic, or gave a figure
    it was computed from: "0.25%" for a change of 4.00% over 3.75%; "5500" where the query
    added each widget's sales up to a difference of 2000), code writes the answer: the result
    and how it was computed, citing what it used. A reply withdrawn as unsupported, or in which
    the model found no answer, gives way to the result too: the critic accepted the call —
    unless the question names a year, quarter, month or rank no passage writes."""
    if answer.refused and answer.refusal_reason not in (NOT_SUPPORTED, NO_ANSWER_FOUND):
        return answer
    if _PICKS.search(question):  # "In which year was it larger?" wants the year, not the gap
        return answer
    if not ABOUT_YEARS.search(question) and unwritten_periods(question, evidence):
        # "How much did southern California grow in the year 2000?" over a passage giving the
        # 2000s' rate: a difference of two populations is no answer for a year no passage has.
        return answer
    results = [
        (item, found)
        for item in evidence
        if item.derived and (found := _computed(item.text)) is not None
    ]
    if not results:
        return answer
    item, (worked, result) = results[-1]
    value = parse_number(result)
    if value is None:
        return answer
    stated = [] if answer.refused else numbers_in_text(answer.text)
    if any(abs(abs(n) - abs(value)) <= max(0.01 * abs(value), 0.005) for n in stated):
        return answer
    if item.text.startswith(_CALC):
        unit = "%" if ASKS_PERCENT.search(question) and "× 100" in worked else ""
        text = f"{result}{unit}, computed as {worked} [{item.n}]."
    elif item.text.startswith(_COUNT):
        text = f"{result}: {worked} [{item.n}]."
    else:
        text = f"{result} ({worked}), computed with SQL from the cited rows [{item.n}]."
    cited = [Citation(item.n, chunk) for chunk in item.backing]
    return replace(
        answer,
        text=text,
        citations=tuple(cited),
        partial=False,
        refused=False,
        refusal_reason=None,
    )


def _computed(text: str) -> tuple[str, str] | None:
    """How a tool result was worked out and the figure it gave: a calculation's formula and
    result, or a SQL query's one value and the name of its column ("revenue_difference",
    "2000"), or a list's count and what was counted; None for anything else (a query giving
    rows or several values)."""
    if text.startswith(_COUNT):
        result, _, worked = text[len(_COUNT) :].strip().partition(" — ")
        return (worked.strip(), result.strip()) if worked.strip() else None
    if text.startswith(_CALC):
        worked, _, result = text[len(_CALC) :].strip().rpartition("=")
        return (worked.strip(), result.strip()) if worked.strip() else None
    if not text.startswith(_SQL):
        return None
    first, _, rest = text[len(_SQL) :].strip().partition("\n")
    name, equals, result = first.partition(" = ")
    if not equals or " = " in result or not rest.startswith("(query:"):
        return None
    return name.strip(), result.strip()


_PAIR_NAME = re.compile(r"(?:^|, )([^=,\n]+?) = ")


_UNNAMED_COLUMN = re.compile(r"(?:column|col|label|name|item)(?:_\d+)?")
_PERIOD_ASKED = re.compile(r"\bwhich\s+(quarter|month)\b", re.IGNORECASE)
_PERIOD_VALUE = {  # how a row label writes the period asked for
    "quarter": re.compile(r"^(?:(?:FY\s?)?Q[1-4]\b|[1-4](?:st|nd|rd|th) quarter\b)", re.I),
    "month": re.compile(rf"^{MONTH}\b", re.IGNORECASE),
}


def with_rows_picked(answer: Answer, evidence: Sequence[Evidence], question: str) -> Answer:
    """A reply to "which …" answered by a SQL query names the rows the query picked. The model
    tends to name another row of the table it was shown ("HR" where the query found IT alone
    with fewer hours in 2024 than in 2023) or only the first of rows tied first ("Desktop,
    with 3 tickets" where Network has 3 as well; the SQL tool keeps the ties of a ranking).
    The rows picked are those of a ranking with a limit, the ones tied first with the first
    row of a ranking without one, or the few rows a condition without ranking kept; when the
    reply leaves one out, code writes the answer: their names, their figures, the rows cited."""
    ranks = bool(ASKS_WHICH_ONE.search(question))
    if answer.refused or not (ranks or _WHICH.search(question)):
        return answer
    results = [item for item in evidence if item.derived and item.text.startswith(_SQL)]
    if not results:
        return answer
    item = results[-1]
    body, _, query = item.text[len(_SQL) :].strip().partition("\n(query:")
    parsed = [_result_row(line) for line in body.splitlines()]
    rows = [row for row in parsed if row is not None]
    if not rows or len(rows) < len(parsed) or any(r.keys() != rows[0].keys() for r in rows):
        return answer
    columns = list(rows[0])
    figures = [c for c in columns if all(parse_number(r[c]) is not None for r in rows)]
    names = [c for c in columns if c not in figures and len({r[c] for r in rows}) == len(rows)]
    if not names:
        return answer
    if ranks and re.search(r"\bORDER\s+BY\b|\b(?:max|min)\s*\(", query, re.IGNORECASE):
        if re.search(r"\b(?:LIMIT|QUALIFY)\b|=\s*\(\s*SELECT\s+(?:MIN|MAX)\s*\(", query, re.I):
            picked = rows  # ranked and cut, or the rows equal to the extreme
        elif figures:
            picked = [r for r in rows if r[figures[0]] == rows[0][figures[0]]]
        else:
            return answer
    elif not ranks and re.search(r"\bWHERE\b", query, re.IGNORECASE) and len(rows) <= 5:
        picked = rows
    else:
        return answer
    # The column the question asks for by its name ("Which department …"); a statement's
    # period view ("label = Revenue, period = 2019") names none, and is left alone.
    asked = {w[:5] for w in content_words(question)}
    key = next(
        (c for c in names if asked & {w[:5] for w in re.findall(r"[a-z]+", c.lower())}), None
    )
    if key is None and ranks:
        # "Of Vermont, Rhode Island and Wyoming, which had the most checks?": the column whose
        # picked values are among the options the question writes out.
        key = next((c for c in names if all(_writes(question, row[c]) for row in picked)), None)
    if key is None and ranks and len(names) == 1 and "_by_period" not in query:
        # The table's row labels under no header ("Which zone …": column_1), or the periods
        # a chart's categories are ("In which quarter …": category = Q3).
        values = [row[names[0]] for row in picked]
        period = _PERIOD_ASKED.search(question)
        if _UNNAMED_COLUMN.fullmatch(names[0]) or (
            period is not None
            and all(_PERIOD_VALUE[period.group(1).lower()].match(v) for v in values)
        ):
            key = names[0]
    if key is None:
        return answer
    named = [row[key] for row in picked]
    if all(_writes(answer.text, name) for name in named):
        return answer
    both = ", ".join(named[:-1]) + f" and {named[-1]}" if len(named) > 1 else named[0]
    tied = [c for c in figures if len({r[c] for r in picked}) == 1]
    if ranks and len(picked) > 1 and tied:
        said = f"{both} tie, with {picked[0][tied[0]]} ({tied[0]}) each"
    else:
        shown = [
            f"{row[key]} ({', '.join(f'{c} = {row[c]}' for c in figures)})" if figures else row[key]
            for row in picked
        ]
        said = ", ".join(shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else shown[0]
    text = f"{said}, computed with SQL from the cited rows [{item.n}]."
    cited = tuple(Citation(item.n, chunk) for chunk in item.backing)
    return replace(answer, text=text, citations=cited, partial=False)


_WHICH = re.compile(r"^\W*(?:(?:in|for|at|of|from)\s+)?(?:which|who)\b", re.IGNORECASE)


def _writes(text: str, name: str) -> bool:
    """Whether a reply writes a name as a word of its own (in capitals as given when the name
    is an acronym: "IT" is not the word "it")."""
    flags = 0 if name.isupper() else re.IGNORECASE
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, flags) is not None


def _result_row(line: str) -> dict[str, str] | None:
    """A line of a SQL result ("team = Desktop, n = 3") as its values by column, or None."""
    found = list(_PAIR_NAME.finditer(line))
    if not found or found[0].start() != 0:
        return None
    ends = [m.start() for m in found[1:]] + [len(line)]
    pairs = zip(found, ends, strict=True)
    return {m.group(1).strip(): line[m.end() : end].strip() for m, end in pairs}


def with_figure(answer: Answer, evidence: Sequence[Evidence]) -> Answer:
    """A reply to a question about a statement figure states the figure code read or computed
    (`tools/statements.py`). When the model wrote no number or its reply was withdrawn, or it
    wrote another number for a computed figure, code writes the answer: the figure, how it
    was computed and the rows cited."""
    if answer.refused and answer.refusal_reason not in (NOT_SUPPORTED, NO_ANSWER_FOUND):
        return answer
    figures = [item for item in evidence if item.derived and item.text.startswith(_FIGURE)]
    if not figures:
        return answer
    item = figures[-1]
    lines = item.text[len(_FIGURE) :].strip().split("\n")
    value = next(iter(numbers_in_text(lines[0].rpartition(":")[2])), None)
    if value is None:
        return answer
    stated = [] if answer.refused else numbers_in_text(answer.text)
    # Two years side by side: code decided which way the figure went, and the yes or no.
    compared = statements.is_comparison(lines[0])
    if not compared and any(
        abs(abs(n) - abs(value)) <= max(0.01 * abs(value), 0.005) for n in stated
    ):
        return answer
    computed = len(lines) > 2  # "computed as …" between the figure and the rows read
    if stated and not computed and not compared:
        # A figure read off one row, and the reply states another: the question may be about
        # something narrower than the statement's line (a segment's sales), so the reply,
        # which the verifier checked against the evidence, stands.
        return answer
    said = lines[0] + (f", {lines[1]}" if computed else "")
    return replace(
        answer,
        text=f"{said} [{item.n}].",
        citations=tuple(Citation(item.n, chunk) for chunk in item.backing),
        partial=False,
        refused=False,
        refusal_reason=None,
    )
