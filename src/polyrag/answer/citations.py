"""Find the [n] markers in an answer, check them against the evidence, and judge support."""

from __future__ import annotations

import re
from collections.abc import Sequence

from polyrag.answer.evidence import Evidence, content_words
from polyrag.months import MONTHS
from polyrag.types import REFUSAL

MARKER = re.compile(r"\[(\d+(?:\s*[,;–-]\s*\d+)*)\]")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
_REFUSAL_SIGNS = (
    "cannot find this information",
    "can't find this information",
    "cannot find the information",
    "not in the provided sources",
    "do not contain",
    "does not contain",
    "don't contain",
    "no information",
    "not mentioned",
    "not provided in",
    "cannot be determined",
    "is not specified",
)


def cited_numbers(answer: str, available: int) -> list[int]:
    """Marker numbers in order of first use, keeping only those that name real evidence."""
    seen: list[int] = []
    for match in MARKER.finditer(answer):
        for part in re.split(r"\s*[,;]\s*", match.group(1)):
            bounds = re.split(r"\s*[–-]\s*", part)
            numbers = (
                range(int(bounds[0]), int(bounds[-1]) + 1) if len(bounds) == 2 else [int(bounds[0])]
            )
            for n in numbers:
                if 1 <= n <= available and n not in seen:
                    seen.append(n)
    return seen


def strip_markers(answer: str, available: int) -> str:
    """Remove markers that point at no evidence (a model's invented [7] of 5)."""

    def keep(match: re.Match[str]) -> str:
        return match.group(0) if cited_numbers(match.group(0), available) else ""

    return MARKER.sub(keep, answer).strip()


def is_refusal(answer: str) -> bool:
    text = " ".join(answer.lower().split())
    if not text:
        return True
    return text.startswith(REFUSAL.lower()[:25]) or any(s in text for s in _REFUSAL_SIGNS)


def support(answer: str, passages: Sequence[str]) -> float:
    """Share of the answer's meaningful words found in the passages; 0 when a number is not.

    Numbers and dates are the facts a small model most often makes up, so a number that is
    not a number of the passages makes the whole answer unsupported.
    """
    body = MARKER.sub(" ", answer)
    joined = " ".join(passages)
    known = {_plain_number(n) for n in _NUMBER.findall(joined)}
    if any(_plain_number(n) not in known for n in _NUMBER.findall(body)):
        return 0.0
    words = content_words(body)
    if not words:
        return 1.0
    return len(words & content_words(joined)) / len(words)


# Words an answer uses to talk about its sources or its arithmetic, not facts it claims.
_META = frozenset(
    {
        "table", "tables", "source", "sources", "provided", "found", "find", "shown", "show",
        "shows", "according", "calculated", "calculate", "calculation", "adding", "add",
        "added", "sum", "total", "number", "numbers", "data", "information", "can", "seen",
        "see", "given", "result", "results", "based", "value", "values", "listed", "change",
        "changed", "difference", "therefore", "thus", "answer", "question", "row", "rows",
        "column", "columns", "there", "also", "so", "then", "subtracting", "dividing",
        "multiplying", "computed", "query", "sql", "mentioned", "stated", "states",
        "he", "she", "they", "them", "their", "his", "her", "hers", "we", "our", "us", "you",
        "your", "i", "me", "my", "not", "but", "would", "could", "should", "will", "which",
        "who", "whose", "both", "said", "told", "says",
    }
)  # fmt: skip


def claims(sentence: str) -> bool:
    """Whether a sentence states anything: a yes or no, or words beyond talk of the sources."""
    body = MARKER.sub(" ", sentence).strip().lower()
    if re.match(r"^(?:yes|no)\b", body):
        return True
    if broken_off(body):  # "The chief financial officer of X is [1].": the answer is missing
        return False
    return bool(content_words(_NUMBER.sub(" ", body)) - _META)


def broken_off(sentence: str) -> bool:
    """Whether a sentence stops where its answer should stand ("… in November 2015 was [1].")."""
    return bool(_DANGLING.search(MARKER.sub(" ", sentence).strip().lower()))


# A sentence broken off where its answer should stand: after a verb of being or an article. (Not
# after any preposition: "Docling bundles PDF document conversion to [1]", a line cut short,
# still states what Docling bundles.)
_DANGLING = re.compile(r"\b(?:is|are|was|were|be|been|being|the|a|an)\s*[.:;,]?\s*$")


def word_support(
    answer: str, passages: Sequence[str], asked: set[str] | frozenset[str] = frozenset()
) -> float:
    """Share of the answer's meaningful words found in the passages — numbers and words about
    the sources aside; the question's own words (`asked`) count as found."""
    body = _NUMBER.sub(" ", MARKER.sub(" ", answer))
    words = _short_months(content_words(body) - _META)
    if not words:
        return 1.0
    known = _short_months(content_words(" ".join(passages)) | asked)
    return len(words & known) / len(words)


_SHORT_MONTH = {month.lower(): month[:3].lower() for month in MONTHS} | {"sept": "sep"}


def _short_months(words: set[str]) -> set[str]:
    """Month names as their abbreviations: "March 17, 2014" is the e-mail's "17 Mar 2014"."""
    return {_SHORT_MONTH.get(word, word) for word in words}


def _plain_number(text: str) -> str:
    """'1,200' and '1200' are one number; a trailing '.0' or '.' does not make another."""
    plain = text.replace(",", "").rstrip(".")
    return plain[:-2] if plain.endswith(".0") else plain


def attribute(answer: str, evidence: Sequence[Evidence]) -> list[int]:
    """When the model forgot its markers: the evidence that shares most words with the answer."""
    words = content_words(MARKER.sub(" ", answer))
    scored = [(len(words & content_words(e.text)), e.n) for e in evidence]
    best = max((score for score, _ in scored), default=0)
    if best == 0:
        return []
    return [n for score, n in scored if score == best][:2]
