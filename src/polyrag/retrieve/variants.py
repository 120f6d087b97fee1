"""A question's keyword form: the words that carry its meaning, in their order.

A sentence embedder reads "What is the year end FY2019 total amount of inventories for Best
Buy? Answer in USD millions. Base your judgments on the information provided primarily in the
balance sheet." as a question about Best Buy in general: the question's frame and its
instructions weigh as much as "inventories" and "balance sheet", and the chunks that look most
like it are the table of contents and the highlights. Embedding the content words alone
("year end FY2019 total amount inventories Best Buy USD millions balance sheet") lets the
statement's own rows compete. The retriever searches with both forms and keeps each chunk's
better similarity. On FinanceBench, vector search went from evidence-page recall@5 0.68 with
the question to 0.75 with the keyword form and 0.78 with both (a simulation on the ingested
filings), so the keyword form is a second query, never a replacement. In the full hybrid
ranking it added 0.01 on its own; most of its worth comes with page support (`eval qa
--retrieval-only`).

It is searched only when it leaves out a third of the question's words or more
(`retrieve.keyword_variant_share`). With fewer left out its vector is nearly the question's
(median cosine 0.97-0.985 on SciFact's claims, against 0.87-0.94 on FinanceBench, MMLongBench,
HotpotQA and SQuAD questions) and the second search only costs time: with the bar, evidence-page
recall@5 stayed 0.829 (FinanceBench by document), 0.647 (by collection) and 0.718 (MMLongBench),
and HotpotQA documents@10 0.80, while hybrid search at 100k chunks went from p50 26.1 to 21.2 ms
on SciFact's claims (searching with the question alone: 20.0 ms).
"""

from __future__ import annotations

import re

from polyrag.settings import RetrieveSettings

# English function words, and the words with which people frame a request rather than say
# what they want ("please answer", "based on", "provided in"), but none that also names a
# thing ("state", "base", "use", "information"). Negations are kept: "not renewed" and
# "renewed" are different questions.
_WORDS = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just let me might more most must my myself now of off on once only or other our
    ours ourselves out over own same shall she should so some such than that the their theirs
    them themselves then there these they this those through to too under until up upon us very
    was we were what when where which while who whom whose why will with would you your yours
    yourself yourselves
    please answer answers question questions respond response reply give provide provided
    tell show shown explain describe using based basing according relying rely primarily
    mainly mostly solely details outlined
"""
_FUNCTION_WORDS = frozenset(_WORDS.split())

_TOKEN = re.compile(r"[^\s,;:!?()\[\]{}\"“”]+")


def keyword_form(question: str) -> str | None:
    """The question without function and framing words, or None when that changes nothing or
    leaves fewer than two words (a short query is its own keyword form)."""
    tokens = _TOKEN.findall(question)
    kept = [t for t in tokens if t.strip(".'’-").lower() not in _FUNCTION_WORDS]
    kept = [t.rstrip(".") if t.endswith(".") and not _is_number(t) else t for t in kept]
    kept = [t for t in kept if t.strip(".'’-")]
    if len(kept) < 2 or len(kept) == len(tokens):
        return None
    return " ".join(kept)


# An SEC form's name ("Form 10-K", "its 10-Q filing") says which document, not what is in it:
# the file's name and the name match choose the filing, while as search words they match its
# cover, contents and exhibit index, where the form is named on every line. Set 8: "how many
# full- and part-time employees did Corning report in its 2021 Form 10-K?" found 20 exhibit
# lines before the page that says "61,200 full- and part-time employees".
_FORM_NAME = re.compile(
    r"\b(?:SEC\s+)?(?:Form\s+)?(?:10-?K(?:405)?|10-?Q|8-?K|20-?F|40-?F|S-1)\b"
    r"(?:\s+(?:filing|report|document))?",
    re.IGNORECASE,
)


def without_form_names(question: str) -> str:
    """The question without the names of SEC forms, for searching the text (the question
    itself still matches file names); unchanged when it asks about nothing else ("What is a
    10-K?")."""
    plain = re.sub(r"\s+(?=[?.,;:!])", "", " ".join(_FORM_NAME.sub(" ", question).split()))
    content = [t for t in _TOKEN.findall(plain) if t.strip(".'’-").lower() not in _FUNCTION_WORDS]
    return plain if content else question


# A clause saying which document to read ("According to Nike's fiscal 2021 Form 10-K, …",
# "Per PepsiCo's Q1 2023 earnings release, …", "…, according to its 2020 annual report?").
_DOCUMENT = (
    r"(?:10-?K|10-?Q|8-?K|20-?F|annual\s+report|quarterly\s+report|earnings\s+(?:release|report)|"
    r"press\s+release|filing|report|proxy(?:\s+statement)?|prospectus)s?"
)
# Its words: no comma but a date's ("June 30, 2023") or a parenthesis' ("(Item 2, Properties)").
_PIECE = r"(?:\([^)]*\)|,\s*(?:19|20)\d\d\b|[^,?(])"
_ATTRIBUTION = (
    r"(?:according\s+to|per|based\s+on|using|in|from|as\s+(?:reported|stated|disclosed|shown)"
    rf"\s+in)\s+(?!{_PIECE}*\b(?:table|note|statement|section|page)s?\b){_PIECE}{{0,80}}?\b"
    + _DOCUMENT
    + rf"\b{_PIECE}{{0,60}}?"
)
_LEADING_ATTRIBUTION = re.compile(
    rf"^\s*{_ATTRIBUTION}\s*,(?!\s*(?:19|20)\d\d\b)\s*", re.IGNORECASE
)
_TRAILING_ATTRIBUTION = re.compile(
    rf",\s*{_ATTRIBUTION}(?=\s*(?:\([^)]*\))?\s*[?.]?\s*$)", re.IGNORECASE
)


def without_attribution(question: str) -> str:
    """The question without the clause that names the document to read: once the search is
    within that document, its company and period are on every page, and as search words they
    outweigh what is asked (Nike's "approximately how many employees … as of May 31, 2021?"
    ranked 17th in the filing with "According to Nike's fiscal 2021 Form 10-K," before it,
    first without). Unchanged when little else would be left."""
    plain = _TRAILING_ATTRIBUTION.sub("", _LEADING_ATTRIBUTION.sub("", question, count=1))
    content = [t for t in _TOKEN.findall(plain) if t.strip(".'’-").lower() not in _FUNCTION_WORDS]
    if plain == question or len(content) < 2:
        return question
    return plain[0].upper() + plain[1:]


def searched_form(question: str, settings: RetrieveSettings) -> str | None:
    """The keyword form the vector search uses beside `question`, or None when it uses none."""
    form = keyword_form(question) if settings.keyword_variant else None
    if form is None or dropped_share(question, form) < settings.keyword_variant_share:
        return None
    return form


def dropped_share(question: str, form: str) -> float:
    """The share of the question's words that its keyword form leaves out."""
    words = len(_TOKEN.findall(question))
    return 1 - len(form.split()) / words if words else 0.0


def _is_number(token: str) -> bool:
    return bool(re.fullmatch(r"[$€£]?\d[\d,]*\.\d+%?", token))
