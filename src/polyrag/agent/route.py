"""Which questions need the agent: cheap signals first, the model only when they are unsure.

The question's shape says what answering needs (a lookup, arithmetic, an aggregate over a
table, a comparison, several hops); what retrieval found says whether that is possible here
(an aggregate needs a table among the hits). A question with no signal goes the fast way; one
with a weak, lone signal is classified by the model (one small JSON decision).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from polyrag.agent.tools.statements import plan as statement_plan
from polyrag.agent.tools.sums import named_sum
from polyrag.chunk.figures import pipe_tables, read_row_sentence
from polyrag.months import month_number
from polyrag.types import Hit, Modality

_AGGREGATE = re.compile(
    r"\b(?:in total|total|sum|altogether|and\b[^?]*?\btogether|combined|average|mean|median|"
    r"how many\b|number of|count|highest|lowest|largest|smallest|"
    r"maximum|minimum|most|fewest|least|greatest|shortest|longest|cheapest)\b",
    re.IGNORECASE,
)
# A sum of things the question enumerates: "the combined sales of A and B", "A, B and C in
# total".
_ADDS_UP = re.compile(
    r"\b(?:combined|in total|total|sum|altogether|together)\b(?=.*\band\b)"
    r"|\band\b.*\b(?:combined|in total|altogether|together)\b",
    re.IGNORECASE,
)
# Money that changed hands, asked of a ledger: "How much was spent on travel in 2025?" adds up
# the rows it names (over one row, the sum is that row's value).
_SPENT = re.compile(
    r"\b(?:how much|what)\s+(?:[\w'$-]+\s+){0,4}?(?:spent|spend|paid|pay|billed|charged|"
    r"invoiced|ordered|purchased|bought|donated|raised|collected)\b",
    re.IGNORECASE,
)
# "changed" only as how much something changed: "when was the name changed" computes nothing.
_COMPUTE = re.compile(
    r"\b(?:difference|changes?|how (?:much|far|many)\b.*\bchanged|increase[ds]?|decrease[ds]?|"
    r"grow(?:th|n)?|decline[ds]?|ratio|"
    r"percent(?:age)?|per cent|proportion|margin|by how much|how much (?:more|less|higher|"
    r"lower)|times (?:more|as)|compared (?:to|with)|CAGR|"
    r"from (?:FY ?)?(?:19|20)\d\d to (?:FY ?)?(?:19|20)\d\d|"
    r"between (?:FY ?)?(?:19|20)\d\d and (?:FY ?)?(?:19|20)\d\d|"
    r"minus|plus|divided by|multiplied by|less (?:total|the|its|their))\b|%",
    re.IGNORECASE,
)
# A ratio, a share or a rate of two quantities: an average or total inside it ("revenue /
# average PP&E between FY2018 and FY2019") is one operand of a formula, not a table's aggregate.
_FORMULA = re.compile(
    r"\b(?:ratio|percent(?:age)?|per cent|proportion|margin|rate|turnover|CAGR|"
    r"(?:is |are )?defined as|define[ds]?)\b|%",
    re.IGNORECASE,
)
_COMPARE = re.compile(
    r"\b(?:same|both|either|neither|which (?:one|of|is|was)|who (?:is|was) (?:older|younger|"
    r"born first)|older|younger|earlier|later|first|longer|shorter|larger|bigger|smaller|"
    r"more|fewer)\b",
    re.IGNORECASE,
)
_PAIR = re.compile(r"\b\w+\b.*\b(?:and|or|vs\.?|versus)\b.*\b\w+\b", re.IGNORECASE)
_MULTIHOP = re.compile(
    r"\b(?:the|a|an) (?:[\w'-]+ ){1,6}(?:who|whom|whose|that|which|where) (?!is the\b)"
    r"|\b(?:of|by|for|in) the (?:[\w'-]+ ){0,4}(?:who|that|which) "
    r"|\b\w+'s (?:\w+ ){0,2}\w+'s\b",
    re.IGNORECASE,
)
# Someone or something named by its relation to another ("the director of X", "this singer of
# Y", "a film starring Z", "the driver born in 1990"): finding it is a hop of its own, unless
# the relation is all the question asks ("Who was the director of X?").
_RELATION = re.compile(
    r"\b(?i:the|this|that|a|an|his|her|their|its) (?:[\w'-]+ ){0,3}?(?:director|writer|author|"
    r"founder|co-founder|creator|father|mother|son|daughter|wife|husband|spouse|brother|sister|"
    r"parent|child|singer|composer|producer|owner|designer|inventor|star|coach|manager|"
    r"successor|predecessor|namesake|publisher|developer|manufacturer|architect|"
    r"head coach|lead singer|frontman|co-star) of (?:the (?:[\w'-]+ ){0,3}?)?(?=[\"“A-Z0-9])"
    r"|\b(?:film|movie|series|show|album|song|band|group|game|book|novel|team|company|"
    r"player|driver|actor|actress|singer|person|man|woman|university|school|city|town|"
    r"building|event|program|organization|club|label),? (?:[\w'-]+ )?(?:starring|directed by|"
    r"written by|designed by|founded by|led by|born (?:in|on)|owned by|produced by|created by|"
    r"played by|portrayed by|coached by|named after|composed by|developed by|published by|"
    r"released by|hosted by|invented by|built by|managed by)\b",
)
_ASKS_RELATION = re.compile(
    r"^\W*(?:who|what|which) (?:is|was|are|were) (?:the|this) (?:[\w'-]+ ){0,3}?[\w'-]+ of "
    r"(?P<name>[^?]*)\?\s*$",
    re.IGNORECASE,
)
_NAME_WORDS = frozenset(
    ["of", "the", "a", "an", "and", "in", "for", "to", "on", "at", "de", "la", "von", "van"]
)


def _only_relation(question: str) -> bool:
    """Whether the relation is all the question asks: "Who was the director of Big Stone
    Gap?" names its answer's relation to a title, with nothing more to find about it."""
    asked = _ASKS_RELATION.match(question)
    if asked is None:
        return False
    lower = [w for w in re.findall(r"[\w'-]+", asked["name"]) if w[0].islower()]
    return all(w in _NAME_WORDS for w in lower) and len(lower) <= 2


# "Which writer was from England, Henry Roth or Robert Erskine Childers?": a choice of two.
_CHOICE = re.compile(r",\s*(?:the )?[^,?]{1,80}\bor\b[^,?]{1,80}\?\s*$", re.IGNORECASE)
# "In which year was X larger?": a comparison across a table's periods is an aggregate.
_WHICH_PERIOD = re.compile(
    r"\b(?:which|what) (?:year|period|quarter|month)\b[^?]*\b(?:larger|largest|higher|highest|"
    r"lower|lowest|smaller|smallest|more|less|greater|greatest|bigger|biggest|most|least)\b",
    re.IGNORECASE,
)
# "Which department's budget decreased?": the rows whose change goes that way, a filter over
# a table (one column against another), not one calculation.
_WHICH_CHANGED = re.compile(
    r"^\W*which (?:[\w'’-]+ ){0,3}?(?:[\w-]+(?:'s|’s)? )?(?:[\w-]+ ){0,3}?"
    r"(?:increased|decreased|grew|declined|rose|fell|dropped)\b",
    re.IGNORECASE,
)
# "Which department had fewer training hours in 2024 than in 2023?": rows whose two periods'
# figures compare so.
_WHICH_COMPARED = re.compile(
    r"^\W*which\b[^?]*\b(?:fewer|more|less|higher|lower|larger|smaller|greater|bigger)\b"
    r"[^?]*\b(?:19|20)\d\d\b[^?]*\bthan\b[^?]*\b(?:19|20)\d\d\b",
    re.IGNORECASE,
)
_FRAMING = re.compile(
    r"\b(?:information|details?|data|figures|sources?|documents?|filings?|statements?|reports?|"
    r"analysts?|bankers?|you|we|us|resources?|perspective|standpoint|question)\b",
    re.IGNORECASE,
)
# A question after a reason or a cause names figures ("the increase in SG&A") but asks why.
_REASON = re.compile(
    r"^\W*(?:(?:as of|in|for|during) [^,?]+, )?(?:why\b|what (?:drove|drives|driven|caused|causes|"
    r"led to|leads to|explains|explained|contributed to)\b|what (?:is|was|were|are) the "
    r"(?:main |key |primary )?(?:reasons?|drivers?|causes?|factors?)\b)",
    re.IGNORECASE,
)
# "What production rate changes is Boeing forecasting for FY2023?": the changes themselves,
# said in words, not the size of one (which reads "what was the change in …").
_CHANGES_SAID = re.compile(
    r"^\W*what (?:[\w'’-]+ ){0,4}?changes (?:is|are|was|were|did|does|do|has|have|had|will|"
    r"would)\b",
    re.IGNORECASE,
)
# "How many fewer chunks did A produce than B?", "how many percentage points higher … than":
# the difference of two figures, not a count. The critic reads differences by it too.
MORE_THAN = re.compile(
    r"\bhow (?:many|much) (?:[\w'-]+ ){0,2}(?:more|fewer|less|higher|lower|farther|further|longer|"
    r"shorter|older|younger|bigger|larger|smaller|greater|heavier|lighter|earlier|later)\b"
    r"[^?]*\bthan\b|"
    r"\bhow (?:many years|long) (?:after|before|between|since|later|earlier|apart)\b",
    re.IGNORECASE,
)
_TABLE_LIKE = (Modality.TABLE,)


@dataclass(frozen=True)
class Route:
    kind: str  # lookup, compute, aggregate, compare or multihop
    agent: bool  # whether the agent should answer it
    why: str
    sure: bool = True  # False: the signals were weak and the model may decide


RESUMED = Route("lookup", True, "a reply to the agent's question")


def route(question: str, hits: Sequence[Hit]) -> Route:
    """The cheap decision: what the question needs and whether the agent should answer it."""
    figure = statement_plan(question)
    if figure is not None:  # the agent's statement tool reads the rows and computes
        return Route(
            "compute" if figure.computed else "lookup",
            True,
            "it asks for a financial statement figure or a standard ratio",
        )
    if named_sum(question, [hit.chunk for hit in hits[:6]]) is not None:
        return Route("aggregate", True, "it asks for the sum of rows it names")
    tables = any(hit.chunk.modality in _TABLE_LIKE for hit in hits[:6])
    # "How much total assets…" asks for a row a statement already has ("Total assets"): that
    # is a lookup, unless the question also asks to add something up.
    asked = _without_stated_totals(_without_stated_counts(question, hits[:6]), hits[:6])
    asked = _without_named_measures(asked, hits[:6])
    aggregate = bool(
        _AGGREGATE.search(asked) or _WHICH_PERIOD.search(asked) or _SPENT.search(question)
    )
    compute = bool(_COMPUTE.search(question))
    if MORE_THAN.search(question):
        aggregate, compute = False, True
    elif aggregate and not tables and _ADDS_UP.search(asked) and _numbers_in(hits):
        # "the combined amount paid to J Matthew Bain and Clayton D Campbell" over a listing
        # read from a PDF without ruling: no table to query, two figures for the calculator.
        compute = True
    elif tables and (_WHICH_CHANGED.search(question) or _WHICH_COMPARED.search(question)):
        aggregate, compute = True, False
    if _REASON.search(question) or _CHANGES_SAID.search(question):
        # "What drove the increase in…", "what changes is it forecasting": said in words
        aggregate = compute = False
    compare = bool(_COMPARE.search(question)) and bool(_PAIR.search(question))
    compare = compare or bool(_CHOICE.search(question))
    # "the information that is shown in the balance sheet", "an analyst who can only use…":
    # a clause about the sources or the reader frames the request; it names no hop.
    multihop = any(not _FRAMING.search(m.group(0)) for m in _MULTIHOP.finditer(question))
    multihop = multihop or bool(_RELATION.search(question) and not _only_relation(question))
    if aggregate and compute and _FORMULA.search(question) and (tables or _numbers_in(hits)):
        return Route("compute", True, "it asks for a formula over numbers the sources hold")
    if aggregate and tables:
        return Route("aggregate", True, "it asks for an aggregate and a table was found")
    if compute and (tables or _numbers_in(hits)):
        return Route("compute", True, "it asks for arithmetic on numbers the sources hold")
    if compare:
        return Route("compare", True, "it compares two or more things")
    if multihop:
        return Route("multihop", True, "it refers to something it does not name")
    if aggregate or compute:
        return Route(
            "lookup",
            False,
            "it may need arithmetic, but no table or figures were found",
            sure=False,
        )
    return Route("lookup", False, "a single lookup")


_TOTAL = re.compile(r"^(?:grand )?total\s+\w", re.IGNORECASE)
# What is counted: the words up to the verb, or without one the first word ("How many shares
# PSUs granted in February 2016?").
_HOW_MANY = re.compile(
    r"\bhow many ((?:[\w'-]+ ){0,4}?[\w'-]+) (?=(?:were|are|did|do|does|have|has|had)\b)|"
    r"\bhow many ([\w'-]+)",
    re.IGNORECASE,
)


_PERIOD_NOUNS = frozenset({"year", "quarter", "month", "week", "day", "period", "time"})


def _without_stated_counts(question: str, hits: Sequence[Hit]) -> str:
    """The question without a count the sources state: a table's column of its own ("how many
    Stanley Cups have the Blues won" reads the Blues' row under "Stanley Cups", while "how many
    teams have won" counts rows), or a figure a best passage writes before what is counted
    ("23,718,968 common shares as of March 28, 2022")."""
    columns = {_singular(name) for name in _column_names(hits)}
    # A word of a numeric column's header: "shares" under "Number of shares (thousands)".
    headed = {_singular(w) for name in columns for w in re.findall(r"[a-z]{3,}", name)}
    texts = [hit.chunk.text for hit in hits[:3]]

    def stated(found: re.Match[str]) -> str:
        counted = found.group(1) or found.group(2)
        noun = _singular(counted.split()[-1])
        if noun in _PERIOD_NOUNS:  # "how many years did …" counts periods of a table
            return found.group(0)
        # A word of what is counted that a numeric column is named by alone: "how many total
        # background checks did Texas have" reads Texas's row under "Totals", when the
        # question names that one row ("how many total goals were scored" adds the column up).
        alone = {_singular(w) for w in counted.split()} & columns
        if _singular(counted) in columns or noun in headed:
            # Read off the row the question names, or added up over the rows it names ("how
            # many units are held in Lyon" over three rows of the warehouse Lyon).
            return found.group(0) if _rows_named(question, counted, hits) > 1 else " "
        if alone and _rows_named(question, counted, hits) == 1:
            return " "
        # A figure, not a year ("the 2019 and 2018 fiscal years"), then what is counted; not
        # a code's number ("A-101, Product is …" in a row sentence).
        said = re.compile(
            rf"(?<![\w,.-])(?!(?:19|20)\d\d\b)\d(?:[\d,.]*\d)?\s+(?:[\w'-]+\s+){{0,3}}"
            rf"{re.escape(noun)}s?\b",
            re.IGNORECASE,
        )
        return " " if any(said.search(text) for text in texts) else found.group(0)

    return _HOW_MANY.sub(stated, question)


def _rows_named(question: str, counted: str, hits: Sequence[Hit]) -> int:
    """How many rows of one found table name every name the question writes (its capitalised
    words past the first, those of what it counts and months aside: "as of December 31" names
    a date, not rows): a row is a line of a table's text, a row sentence or a Markdown row."""
    skip = {w.lower() for w in counted.split()}
    names = [
        found.group(0)
        for found in re.finditer(r"\b[A-Z][\w'-]*", question)
        if found.start() > 0
        and found.group(0).lower() not in skip | {"i"}
        and not month_number(found.group(0))
    ]
    if not names:
        return 0
    patterns = [re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])") for name in names]
    return max(
        (
            sum(all(p.search(line) for p in patterns) for line in hit.chunk.text.splitlines())
            for hit in hits
            if hit.chunk.modality in _TABLE_LIKE
        ),
        default=0,
    )


def _column_names(hits: Sequence[Hit]) -> set[str]:
    """The headers of the found tables' numeric columns: from a Markdown table (its header
    row over rows of numbers) and from rows written as "Header is value" pairs."""
    names: set[str] = set()
    for hit in hits:
        if hit.chunk.modality not in _TABLE_LIKE:
            continue
        for line in hit.chunk.text.splitlines():
            row = read_row_sentence(line)
            if row is not None and not row.labelled:
                names.update(name for name, value in row.pairs() if _NUMBER.match(value))
        for table in pipe_tables(hit.chunk.text):
            for cells in table.rows:
                names.update(
                    n for n, v in zip(table.header, cells, strict=False) if _NUMBER.match(v)
                )
    return {name for name in names if name.strip()}


_NUMBER = re.compile(r"^[-+(]?[$€£]?\s?\d[\d.,]*\)?%?$")


def _singular(words: str) -> str:
    plain = " ".join(words.lower().split())
    return plain[:-1] if plain.endswith("s") and not plain.endswith("ss") else plain


def _without_stated_totals(question: str, hits: Sequence[Hit]) -> str:
    """The question without the totals the found tables state as rows of their own ("total
    current assets" when a table has a row "Total current assets")."""
    labels = {
        " ".join(label.lower().split())
        for hit in hits
        if hit.chunk.modality in _TABLE_LIKE
        for line in hit.chunk.text.splitlines()
        if (label := _row_label(line)) and _TOTAL.match(label)
    }
    out = question
    for label in sorted(labels, key=len, reverse=True):
        out = re.sub(rf"(?<!\w){re.escape(label)}(?!\w)", " ", out, flags=re.IGNORECASE)
    return out


# "average monthly active users (MAUs)", "Average Daily Rate": an average named as a measure.
_MEASURE = re.compile(
    r"\b(?:average|mean|median)((?:\s+(?!(?:of|for|in|on|at|over|across|per|between|from|"
    r"during|by|the|a|an|and|or|was|were|is|are)\b)[\w'-]+){2,4})(\s+\((?P<abbr>[A-Za-z]+)\))?",
    re.IGNORECASE,
)


def _without_named_measures(question: str, hits: Sequence[Hit]) -> str:
    """The question without the averages the sources name as measures of their own: "the
    average monthly active users (MAUs) of the King segment" reads a figure the filing reports
    as "average MAUs", it computes no average. The whole name of two words or more after
    "average" must stand in a found passage, or "average" with the abbreviation the question
    gives in brackets."""
    text = " ".join(" ".join(hit.chunk.text.lower().split()) for hit in hits)

    def named(found: re.Match[str]) -> str:
        words = " ".join(found.group(0).split("(")[0].lower().split())
        abbr = found.group("abbr")
        first = words.split()[0]
        if words in text or (abbr and f"{first} {abbr.lower()}" in text):
            return " "
        return found.group(0)

    return _MEASURE.sub(named, question)


def _row_label(line: str) -> str | None:
    """The label of a table row: a row sentence's, or a Markdown row's first cell."""
    row = read_row_sentence(line)
    if row is not None:
        return row.label if row.labelled else None
    if line.startswith("|"):
        return line.strip("|").split("|", 1)[0].strip()
    return None


def _numbers_in(hits: Sequence[Hit]) -> bool:
    digits = sum(ch.isdigit() for hit in hits[:3] for ch in hit.chunk.text)
    return digits >= 12
