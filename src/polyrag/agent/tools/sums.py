"""Adding up the figures of rows a question names, by code.

"What was the combined 2021 operating profit of Lockheed Martin's Missiles and Fire Control and
Space business segments?" names two rows of a segment table that lists the same segments under
"Net sales" and again under "Operating profit"; "total debt …, counting short-term debt, the
current portion of long-term debt and long-term debt" names three rows of a balance sheet. The
local model answers such questions with one row's figure or a total of another section (sets 7
and 8: Nike's two segments' revenues answered with one segment's EBIT, 1,323 for 11,462).

Code reads the names from the data, not from the question's grammar: the row labels of a found
table (its row sentences, joined across the chunks a long table was cut into, and its Markdown),
or the places of a sentence that counts "N in Place", that the question spells out, joined in
it only by commas, "and" or "&"; at least two, all from one table or sentence, under the
section the question names and the one period it asks about. A question that spells out a
table's sections instead ("rooms revenue across its Las Vegas Strip Resorts, Regional
Operations and MGM China segments") adds the one row it names under each of them. Anything
unsure gives no sum and
the question goes on as before: two tables that fit equally well but add up differently, a
label written with other figures elsewhere in its table, several periods and none asked, or an
enumeration that goes on past the names found ("… Taiwan and China" where the filing writes
"one each in France and China").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from polyrag.agent.tools.base import ToolOutcome
from polyrag.agent.tools.rows import (
    Rows,
    in_asked_section,
    named_column,
    named_spans,
    passage_tables,
    stored_tables,
)
from polyrag.answer.evidence import content_words, stems
from polyrag.answer.numbers import ASKS_RELATIVE, parse_number
from polyrag.index.tables.base import SourceTable
from polyrag.types import Chunk

# Words that ask to add things up; the question must not ask for anything else of them.
_TOTAL = re.compile(
    r"\b(?:total|combined|sum|together|altogether|in all|aggregate|add(?:ed|ing)? up)\b",
    re.IGNORECASE,
)
_OTHER = re.compile(
    r"\b(?:average|mean|median|differ\w*|chang\w*|increas\w*|decreas\w*|grow\w*|declin\w*|"
    r"ratio|percent\w*|proportion|share|rate|margin|more|less|fewer|than|exceed\w*|"
    r"net of|minus|how many of)\b|%",
    re.IGNORECASE,
)
# Between two names of an enumeration: commas, "and", "&", an article or a possessive.
_JOINER = re.compile(r"^(?:\s*(?:,|and|&|plus|as well as|the|its|their|both)\s*)+$", re.IGNORECASE)
# An enumeration that goes on past the last name found: ", and China", "& Latin America";
# not a phrase after a comma (", in millions of dollars?", ", respectively").
_GOES_ON = re.compile(
    r"^\s*(?:,\s*)?(?:and|&|,)\s+(?:the\s+)?(?!\d)"
    r"(?!(?:in|for|of|at|on|as|by|from|during|with|per|respectively|rounded|expressed|"
    r"excluding|including|each|both|combined|together|altogether)\b)\w",
    re.IGNORECASE,
)
# "564 in the United States", "30 in Japan": a count per place in a sentence.
_PER_PLACE = re.compile(
    r"(?<![\w.,])(?P<n>\d[\d,]*(?:\.\d+)?)\s+(?:\w+\s+)?in\s+(?:the\s+)?"
    r"(?P<place>[A-Z][\w.'-]*(?:\s+(?:of\s+)?[A-Z][\w.'-]*)*)"
)
# "how many warehouses": what a sentence's counts per place must be counts of.
_HOW_MANY = re.compile(r"\bhow many ([\w'-]+)", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:FY\s?'?)?((?:19|20)\d\d)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Summed:
    labels: tuple[str, ...]
    values: tuple[float, ...]
    shown: tuple[str, ...]  # each value as the source writes it
    chunks: tuple[Chunk, ...]  # where the figures stand
    column: str  # the period read, or "" for a sentence's figures

    @property
    def total(self) -> float:
        return sum(self.values)


def asks_sum(question: str) -> bool:
    """Whether the question asks to add things up and for nothing else of them."""
    return bool(_TOTAL.search(question)) and not _OTHER.search(question)


def named_sum(
    question: str, passages: Sequence[Chunk], tables: Sequence[SourceTable] = ()
) -> Summed | None:
    """The sum of the rows (or places) the question names, or None when it asks for no such
    sum or the passages and `tables` (the whole tables of the sources found, as ingest
    registered them: a passage holds only some rows of a long one) do not settle one."""
    if not asks_sum(question):
        return None
    found: list[tuple[tuple[int, int], Summed]] = []
    for rows, chunks in [*_groups(passages, question), *stored_tables(tables)]:
        narrowed, section_fit = in_asked_section(question, rows)
        sections = _named_sections(question, rows)
        summed = (
            _across_sections(question, rows, chunks, sections)
            if sections  # the rows of one section are not what it asks
            else _summed(question, narrowed, chunks)
        )
        if summed is not None:
            title = _title(chunks[0])
            fit = section_fit + _title_fit(question, title, summed.labels)
            found.append(((-_other_years(question, title), fit), summed))
    if not found:
        return None
    best = max(fit for fit, _ in found)
    top = [s for fit, s in found if fit == best]
    if len({round(s.total, 6) for s in top}) > 1:
        return None
    return top[0]


def run(
    question: str, passages: Sequence[Chunk], tables: Sequence[SourceTable] = ()
) -> ToolOutcome:
    """The sum as a calculation, citing the table or sentence its figures stand in."""
    found = named_sum(question, passages, tables)
    if found is None:
        return ToolOutcome(
            "sum", {"question": question}, False, error="no rows the question names to add"
        )
    terms = " + ".join(found.shown)
    total = _plain(found.total, found.values)
    where = f" ({found.column})" if found.column else ""
    named = ", ".join(
        f"{label} {shown}" for label, shown in zip(found.labels, found.shown, strict=True)
    )
    return ToolOutcome(
        "sum",
        {"rows": list(found.labels), "column": found.column},
        True,
        result=f"{total} — {named}{where}",
        backing=found.chunks,
        formula=f"{terms} = {total}",
    )


def _groups(passages: Sequence[Chunk], question: str) -> list[tuple[Rows, list[Chunk]]]:
    """The labelled figures of the passages: each table's rows, and the counts per place of
    each sentence that speaks of what the question counts."""
    counted = _HOW_MANY.search(question)
    sentences: list[tuple[Rows, list[Chunk]]] = []
    for chunk in passages:
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", chunk.text):
            places = [("", _place(m["place"]), {"": m["n"]}) for m in _PER_PLACE.finditer(sentence)]
            if len(places) >= 2 and counted and stems(counted[1]) <= stems(sentence):
                sentences.append((places, [chunk]))
    return [*passage_tables(passages), *sentences]


def _place(name: str) -> str:
    """A place as named, without the full stop of its sentence ("Taiwan." but "the U.S.")."""
    return name if re.search(r"\b\w\.\w\.$", name) else name.rstrip(".")


def _summed(question: str, rows: Rows, chunks: list[Chunk]) -> Summed | None:
    spans = _enumeration(question, named_spans(question, [label for _, label, _ in rows]))
    if spans is None or _GOES_ON.match(question[spans[-1][1] :]):
        return None  # no one enumeration, or one that goes on: "… Taiwan and China"
    labels = tuple(label for _, _, label in spans)
    figures: list[dict[str, str]] = []
    for label in labels:
        written = {tuple(sorted(f.items())) for _, name, f in rows if name == label}
        if len(written) != 1:
            return None  # the label stands with other figures elsewhere in the table
        figures.append(dict(written.pop()))
    return _added(question, labels, figures, chunks)


def _named_sections(question: str, rows: Rows) -> list[tuple[int, int, str]]:
    """Where the question enumerates two or more of the table's sections, or nothing."""
    sections = list(dict.fromkeys(section for section, _, _ in rows if section))
    spans = _enumeration(question, named_spans(question, sections))
    return spans or []


def _across_sections(
    question: str, rows: Rows, chunks: list[Chunk], spans: list[tuple[int, int, str]]
) -> Summed | None:
    """One row added up across the sections the question enumerates (`spans`): "the combined
    2020 rooms revenue across its Las Vegas Strip Resorts, Regional Operations and MGM China
    segments" reads the "Rooms" row under each of the three segments' names. The question
    names exactly one row outside the enumeration, and every named section holds it once."""
    if _GOES_ON.match(question[spans[-1][1] :]):
        return None
    named = [section for _, _, section in spans]
    outside = f"{question[: spans[0][0]]} {question[spans[-1][1] :]}"
    asked = named_spans(outside, [label for section, label, _ in rows if section in named])
    if len(asked) != 1:
        return None  # no row named, or several
    label = asked[0][2]
    figures: list[dict[str, str]] = []
    for section in named:
        written = {
            tuple(sorted(f.items())) for s, name, f in rows if s == section and name == label
        }
        if len(written) != 1:
            return None
        figures.append(dict(written.pop()))
    return _added(question, tuple(f"{section} {label}" for section in named), figures, chunks)


def _added(
    question: str, labels: tuple[str, ...], figures: list[dict[str, str]], chunks: list[Chunk]
) -> Summed | None:
    """The named rows' figures under the one column asked, added up, cited by the chunks that
    write them all."""
    column = _column(question, figures)
    if column is None:
        return None
    shown = tuple(f[column] for f in figures)
    if not ASKS_RELATIVE.search(question) and any("%" in text for text in (column, *shown)):
        return None  # shares of their own wholes add up to no amount asked
    values = tuple(parse_number(text) for text in shown)
    if any(value is None for value in values):
        return None
    used = [c for c in chunks if all(text in c.text for text in shown)] or chunks
    return Summed(labels, tuple(v for v in values if v is not None), shown, tuple(used), column)


def _enumeration(
    question: str, spans: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]] | None:
    """The one run of two or more names the question joins by commas, "and" or "&" (the
    company's own name elsewhere in the question, "Best Buy's total … across its Domestic and
    International segments", is no part of it); None when there is no such run or several."""
    runs: list[list[tuple[int, int, str]]] = []
    for span in sorted(spans):
        if runs and _JOINER.match(question[runs[-1][-1][1] : span[0]]):
            runs[-1].append(span)
        else:
            runs.append([span])
    long = [run for run in runs if len(run) >= 2]
    return long[0] if len(long) == 1 else None


def _column(question: str, figures: Sequence[dict[str, str]]) -> str | None:
    """The one column every named row has a figure under: the only one, the one headed by
    the year the question asks about, or the one whose header the question writes out."""
    shared = set(figures[0])
    for row in figures[1:]:
        shared &= set(row)
    if len(shared) == 1:
        return next(iter(shared))
    years = set(_YEAR.findall(question))
    fitting = [c for c in shared if years and set(_YEAR.findall(c)) & years]
    if len(years) == 1 and len(fitting) > 1:
        fitting = [c for c in fitting if len(set(_YEAR.findall(c))) == 1]
    if len(fitting) == 1:
        return fitting[0]
    # Of several measures for the year ("Impairment of goodwill … (January–June 2023)" and
    # "Impairment of intangible assets (January–June 2023)"), the one the question writes out.
    return named_column(question, fitting or shared)


def _title(chunk: Chunk) -> str:
    """A passage's heading and first line: what names the table it holds."""
    return " ".join([*chunk.locator.heading_path, chunk.text.split("\n", 1)[0]])


def _title_fit(question: str, title: str, labels: Sequence[str]) -> int:
    """How many of the question's words, beside the names, a table's title writes: of a
    segment table of net sales and one of operating profit, the one asked about."""
    asked = content_words(question) - content_words(" ".join(labels))
    return len(asked & content_words(title))


def _other_years(question: str, title: str) -> int:
    """How many years a table's title writes that the question, asking about a year, does not:
    of this half-year's table and last year's, both on a sheet named "… 30 06 2023", the one
    headed "January–June 2022" is not the one a question about 2023 reads, however well its
    column names fit the question's other words."""
    years = set(_YEAR.findall(question))
    return len(set(_YEAR.findall(title)) - years) if years else 0


def _plain(total: float, values: Sequence[float]) -> str:
    decimals = max((len(repr(v).split(".")[1]) if v != int(v) else 0) for v in values)
    return f"{total:,.{min(decimals, 4)}f}"
