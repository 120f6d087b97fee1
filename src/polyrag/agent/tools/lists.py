"""Counting the items of a list the sources write, by code.

"How many suggested reportable symptoms are listed in the procedure?" is answered by a list
under a label ("Suggested Reportable Symptoms:" and eight bullets, or "Symptoms: fever, cough
and rash" on one line). The local model counts such lists badly (seven of eight); code finds the
list whose label names what the question counts and counts its items, which the reply then
states and cites. A question that names no list, a label that names something else, or two
lists that fit equally well but count differently: no count, and the question goes on as
before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from polyrag.agent.tools.base import ToolOutcome
from polyrag.answer.evidence import content_words
from polyrag.types import Chunk

# "How many X are listed", "how many X does the memo name", "how many X are there in the list".
_HOW_MANY = re.compile(
    r"\bhow many (?P<what>(?:[\w'-]+ ){0,5}?[\w'-]+) (?:are|were|is|was|does|do|did)\b"
    r"(?P<rest>[^?]*)",
    re.IGNORECASE,
)
_LISTED = re.compile(
    r"\b(?:list(?:s|ed)?|mention(?:s|ed)?|name[sd]?|give[ns]?|include[sd]?|shown|show|"
    r"enumerated?|cited?|set out|in the list)\b",
    re.IGNORECASE,
)
# A bullet: a dash, an asterisk (also the full-width one), a dot or box sign, a number or a
# letter ("1.", "(a)", "b)").
_BULLET = re.compile(
    r"^\s*(?P<marker>[-*•＊·▪◦●○■□➢►–]|\(?\d{1,2}[.)]|\(?[a-z][.)]|\([a-z]\))\s+(?P<item>\S.*)$"
)
_LABEL = re.compile(r"^\s*(?:[-*•＊#]+\s*)?(?P<label>[^:|]{3,80}?)\s*:\s*(?P<rest>.*)$")
_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<label>.{3,80}?)\s*$")
_INLINE_SPLIT = re.compile(r"\s*(?:,|;|\band\b|\bor\b)\s*", re.IGNORECASE)
# How a question counts rather than what it counts.
_NOT_NAMES = frozenset({"many", "different", "separate", "distinct", "total", "items", "things"})


@dataclass(frozen=True)
class Counted:
    label: str
    items: tuple[str, ...]
    chunk: Chunk
    fit: int  # how many of the question's words the label writes


def counted_thing(question: str) -> str | None:
    """What a question asks to count in a list ("suggested reportable symptoms"), or None
    when it asks for no list's count."""
    match = _HOW_MANY.search(question)
    if match is None or not _LISTED.search(match["rest"]):
        return None
    return match["what"]


def count_list(question: str, passages: Sequence[Chunk]) -> Counted | None:
    """The list among the passages whose label names what the question counts; None when
    none does, or when lists that fit equally well count differently."""
    what = counted_thing(question)
    if what is None:
        return None
    named = content_words(what) - _NOT_NAMES
    # In the question's order: the last word is what is counted.
    wanted = list(dict.fromkeys(w for w in re.findall(r"[\w'-]+", what.lower()) if w in named))
    if not wanted:
        return None
    found: list[Counted] = []
    for chunk in passages:
        for label, items in _lists(chunk.text):
            fit = _fit(wanted, label)
            if fit:
                found.append(Counted(label, tuple(items), chunk, fit))
    if not found:
        return None
    best = max(c.fit for c in found)
    top = [c for c in found if c.fit == best]
    if len({len(c.items) for c in top}) > 1:
        return None
    return top[0]


def run(question: str, passages: Sequence[Chunk]) -> ToolOutcome:
    """The count as a tool result, citing the passage that writes the list."""
    found = count_list(question, passages)
    if found is None:
        return ToolOutcome(
            "count", {"question": question}, False, error="no list the question names"
        )
    shown = "; ".join(found.items)
    result = f"{len(found.items)} — the list {found.label!r} has {len(found.items)} items: {shown}"
    return ToolOutcome(
        "count",
        {"list": found.label},
        True,
        result=result,
        backing=(found.chunk,),
        formula=f"{len(found.items)} items counted under {found.label!r}",
    )


def _lists(text: str) -> list[tuple[str, list[str]]]:
    """Each labelled list of a text: a label line ending in a colon (or a heading) followed by
    bullets of one kind, or a label with its items on the same line."""
    lines = text.split("\n")
    out: list[tuple[str, list[str]]] = []
    for index, line in enumerate(lines):
        labelled = _LABEL.match(line) or _HEADING.match(line)
        if labelled is None:
            continue
        label = labelled["label"].strip()
        rest = labelled.groupdict().get("rest") or ""
        if rest.strip():
            items = [i.strip(" .") for i in _INLINE_SPLIT.split(rest.strip()) if i.strip(" .")]
            if len(items) >= 2 and all(len(i.split()) <= 6 for i in items):
                out.append((label, items))
            continue
        bullets: list[str] = []
        kind = ""
        for following in lines[index + 1 :]:
            bullet = _BULLET.match(following)
            if bullet is None:
                break
            this = _kind(bullet["marker"])
            if kind and this != kind:
                break
            kind = this
            bullets.append(bullet["item"].strip())
        if len(bullets) >= 2:
            out.append((label, bullets))
    return out


def _kind(marker: str) -> str:
    """A bullet's kind: numbered ("1.", "(2)"), lettered ("a)", "(b)") or its sign."""
    if any(c.isdigit() for c in marker):
        return "number"
    if any(c.isalpha() for c in marker):
        return "letter"
    return marker


def _fit(wanted: Sequence[str], label: str) -> int:
    """How many of the wanted words the label writes (a word by its first five letters), when
    it writes the last of them (what is counted: "symptoms") and most of the others; else 0."""
    written = {word[:5] for word in content_words(label)}
    hits = [w for w in wanted if w[:5] in written]
    if wanted[-1][:5] not in written or 2 * len(hits) < len(wanted):
        return 0
    return len(hits)
