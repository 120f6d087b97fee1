"""Terms a question hinges on that the documents never use.

"What was our ARR in 2023?" over reports that only ever write "annual recurring revenue" cannot
be answered by searching harder: nothing says what ARR is. The agent then asks the user one
question back instead of guessing. A term is asked about only when it is a coined one — an
acronym or a phrase in quotes — that the question does not spell out itself ("days payable
outstanding (DPO)"), that is not a standard business abbreviation a reader knows without the
documents (USD, EBITDA, COGS), and that no passage and no file name of the index contains.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from polyrag.agent.questions import QUESTION_WORDS
from polyrag.answer.evidence import content_words
from polyrag.types import Hit

# Abbreviations any reader of business documents knows without a definition (the questions of
# FinanceBench use these freely; filings write them out), each with what it stands for.
KNOWN: dict[str, str] = {
    "AGM": "annual general meeting",
    "AI": "artificial intelligence",
    "AP": "accounts payable",
    "AR": "accounts receivable",
    "CAGR": "compound annual growth rate",
    "CAPEX": "capital expenditure",
    "CCC": "cash conversion cycle",
    "CEO": "chief executive officer",
    "CFO": "chief financial officer",
    "COGS": "cost of goods sold",
    "COO": "chief operating officer",
    "CTO": "chief technology officer",
    "D&A": "depreciation and amortization",
    "DIO": "days inventory outstanding",
    "DPO": "days payable outstanding",
    "DSO": "days sales outstanding",
    "EBIT": "earnings before interest and taxes",
    "EBITDA": "earnings before interest, taxes, depreciation and amortization",
    "EPS": "earnings per share",
    "EU": "European Union",
    "EUR": "euro",
    "FCF": "free cash flow",
    "FX": "foreign exchange",
    "FY": "fiscal year",
    "GAAP": "generally accepted accounting principles",
    "GBP": "pound sterling",
    "GDP": "gross domestic product",
    "HR": "human resources",
    "IFRS": "International Financial Reporting Standards",
    "IPO": "initial public offering",
    "IT": "information technology",
    "KPI": "key performance indicator",
    "LTM": "last twelve months",
    "NYSE": "New York Stock Exchange",
    "OPEX": "operating expenses",
    "P&L": "profit and loss statement",
    "PDF": "portable document format",
    "PP&E": "property, plant and equipment",
    "PPNE": "property, plant and equipment",
    "QOQ": "quarter over quarter",
    "R&D": "research and development",
    "ROA": "return on assets",
    "ROE": "return on equity",
    "ROI": "return on investment",
    "ROIC": "return on invested capital",
    "SEC": "Securities and Exchange Commission",
    "SG&A": "selling, general and administrative expenses",
    "TTM": "trailing twelve months",
    "UK": "United Kingdom",
    "UN": "United Nations",
    "US": "United States",
    "USA": "United States of America",
    "USD": "US dollar",
    "YOY": "year over year",
    "YTD": "year to date",
}

_ACRONYM = re.compile(r"(?<![\w&])([A-Z][A-Za-z&]{1,7}?)(s?)(?![\w&])")
_QUOTED = re.compile(r"[\"“‘]([^\"“”‘’]{3,60})[\"”’]|(?<!\w)'([^']{3,60})'(?!\w)")
_ROMAN = re.compile(r"^[IVXLC]+$")
_FORMAT = re.compile(
    r"[^.?!]*\b(?:answer|format|formatted|respond|reply|write)\b[^.?!]*[.?!]?", re.IGNORECASE
)
_SMALL = frozenset({"and", "of", "the", "for", "to", "in", "on"})


def candidates(question: str) -> list[str]:
    """The coined terms of a question: acronyms (capitals only, no digits, not Roman numerals,
    not known abbreviations, not spelled out in the question) and short quoted phrases (no
    digits, not inside an example list such as ['Page 1', 'Page 2'])."""
    out: list[str] = []
    for match in _ACRONYM.finditer(question):
        term = match.group(1)
        written = match.group(0)  # as the question writes it: full-text search matches words
        if not term.replace("&", "").isupper():
            continue  # "Widget", "McDonald" or "JnJ" is a name, not an acronym
        if (
            _ROMAN.match(term)
            or term.upper() in KNOWN
            or len(set(term)) == 1  # a format mask: YYYY, MM
            or term.capitalize() in QUESTION_WORDS  # a shouted question: "WHAT IS …"
            or _spelled_out(term, question)
        ):
            continue
        if written not in out:
            out.append(written)
    # An example of the answer's format ("['Page 1', 'Page 2']", "answer 'yes' or 'no'") is no
    # term of the question.
    unlisted = _FORMAT.sub(" ", re.sub(r"\[[^\]]*\]", " ", question))
    for match in _QUOTED.finditer(unlisted):
        phrase = (match.group(1) or match.group(2)).strip()
        if (
            len(phrase.split()) <= 4
            and content_words(phrase)  # "all other" names nothing
            and not any(c.isdigit() for c in phrase)
            and phrase not in out
        ):
            out.append(phrase)
    return out


def _spelled_out(acronym: str, question: str) -> bool:
    """Whether the question writes the acronym's words out ("days payable outstanding (DPO)")."""
    wanted = [c.lower() for c in acronym if c.isupper()]
    words = [
        w for w in re.findall(r"[A-Za-z]+", question) if w.lower() not in _SMALL and w != acronym
    ]
    initials = [w[0].lower() for w in words]
    size = len(wanted)
    return any(initials[i : i + size] == wanted for i in range(len(initials) - size + 1))


def written_in(term: str, texts: Iterable[str]) -> bool:
    """Whether any text writes the term as a word or phrase of its own, in any case (a file
    name's underscores part words: ARR_2023.xlsx; PSU counts for PSUs); a phrase also when one
    text has all of its words (a chart's "No\nlean" label)."""
    if len(term) > 2 and term.endswith("s") and term[:-1].isupper():
        term = term[:-1]  # PSUs: a passage may write PSU
    spaced = r"\s+".join(re.escape(word) for word in term.split())
    pattern = re.compile(rf"(?<![A-Za-z0-9&]){spaced}s?(?![A-Za-z0-9&])", re.IGNORECASE)
    words = content_words(term)
    return any(
        pattern.search(text) or (len(term.split()) > 1 and words <= content_words(text))
        for text in texts
    )


def undefined_term(
    question: str, hits: Sequence[Hit], search: Callable[[str], Sequence[Hit]]
) -> str | None:
    """The first coined term of the question that no passage of the index writes, or None.

    `hits`: what retrieval found for the question; `search`: a keyword search of the whole
    index for one term (an error there counts as found, so that nothing is asked wrongly)."""
    seen = [text for h in hits for text in (h.chunk.text, h.chunk.path)]
    for term in candidates(question):
        if written_in(term, seen):
            continue
        try:
            found = search(term)
        except Exception:  # a search that cannot run proves nothing missing
            continue
        if not written_in(term, [t for h in found for t in (h.chunk.text, h.chunk.path)]):
            return term
    return None


def ask_about(term: str) -> str:
    """The question back to the user about a term the documents never use."""
    return (
        f"The documents never mention {term!r}. What do you mean by it — another name they "
        "might use for it, or the document that defines it?"
    )
