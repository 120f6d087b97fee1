"""Reading questions and replies with code: the things a comparison names, whether a short
answer is written in the sources, which document a user's reply picks out, and when a question
about "the report" fits several documents equally."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polyrag.answer.evidence import content_words
from polyrag.types import Hit

CAPITALISED = re.compile(r"\b(?:[A-Z][\w'.&-]*(?:\s+(?:of|the|de|von|van|for|and the)\s+|\s+)?)+")
_COMPARING = frozenset(
    {
        "same", "both", "either", "neither", "different", "older", "younger", "first", "earlier",
        "later", "longer", "shorter", "larger", "bigger", "smaller", "more", "fewer", "higher",
        "lower", "also", "located", "described", "based",
    }
)  # fmt: skip
_CONNECTORS = frozenset({"of", "the", "de", "von", "van", "for", "and"})
QUESTION_WORDS = frozenset(
    {
        "What", "Which", "Who", "Whom", "Whose", "When", "Where", "Why", "How", "Is", "Are",
        "Was", "Were", "Do", "Does", "Did", "The", "A", "An", "In", "On", "Of", "For", "And",
        "Or", "Has", "Have", "Had", "Can", "Could", "Will", "Would",
    }
)  # fmt: skip


def stated_in(answer: str, passages: Sequence[str]) -> bool:
    """Whether a short answer is written in the passages (80% of its words, at least one)."""
    words = content_words(answer)
    if not words:
        return False
    known = content_words(" ".join(passages))
    return len(words & known) >= 0.8 * len(words)


def chosen_by_reply(hits: Sequence[dict[str, Any]], reply: str) -> list[dict[str, Any]]:
    """The hits from the files a reply picks out ("the 2024 one" → travel-policy-2024.md):
    those whose name holds most of the reply's words, when that tells them apart."""
    words = [w for w in re.findall(r"[\w-]+", reply.casefold()) if len(w) > 2 or w.isdigit()]
    words = [w for w in words if w not in {"the", "one", "and", "this", "that"}]

    def score(hit: dict[str, Any]) -> int:
        stem = Path(hit["chunk"]["path"]).stem.casefold()
        return sum(1 for w in words if w in stem)

    scores = [score(h) for h in hits]
    best = max(scores, default=0)
    if best == 0 or best == min(scores):
        return []  # the reply names no file, or names them all alike
    return [h for h, points in zip(hits, scores, strict=True) if points == best]


def entity_searches(question: str) -> list[str]:
    """For a comparison, one search per named thing: "Were Scott Derrickson and Ed Wood of the
    same nationality?" → "Scott Derrickson nationality", "Ed Wood nationality"."""
    names = []
    for match in CAPITALISED.finditer(question):
        words = match.group(0).strip(" ,.?").split()
        while words and (words[0] in QUESTION_WORDS or words[0].lower() in _CONNECTORS):
            words.pop(0)
        while words and words[-1].lower() in _CONNECTORS:
            words.pop()
        name = " ".join(words)
        if name and name not in names:
            names.append(name)
    quoted = re.findall(r'"([^"]+)"', question)
    names = list(dict.fromkeys([*quoted, *names]))
    if len(names) < 2:
        return []
    in_names = {w for name in names for w in re.findall(r"\w+", name.lower())}
    rest = [w for w in content_words(question) if w not in in_names and w not in _COMPARING]
    topic = " ".join(sorted(rest, key=question.lower().find))
    return [f"{name} {topic}".strip() for name in names[:3]]


def ambiguous(question: str, hits: Sequence[Hit]) -> str | None:
    """A question back when the question speaks of "the" document and several fit as well."""
    match = re.search(
        r"\bthe (report|document|file|policy|contract|spreadsheet|presentation|deck|e-?mail|"
        r"memo|paper|agreement|invoice|manual|plan)\b",
        question,
        re.IGNORECASE,
    )
    if match is None or len(hits) < 2:
        return None
    best = hits[0].score
    close: list[str] = []
    for hit in hits:
        if hit.score < 0.97 * best:
            break
        name = Path(hit.chunk.path).name
        if name not in close:
            close.append(name)
    if len(close) < 2:
        return None
    options = " or ".join(f"{name!r}" for name in close[:3])
    return f"Which {match.group(1).lower()} do you mean: {options}?"


def relevant(passages: Sequence[str], question: str) -> list[str]:
    """The passages that speak of what the question names (a name of it, or two of its words)."""
    names = [n for n in names_in(question)]
    words = content_words(question)
    return [
        text
        for text in passages
        if any(name.lower() in text.lower() for name in names)
        or len(words & content_words(text)) >= 2
    ]


def bridge_searches(question: str, passages: Sequence[str], limit: int = 2) -> list[str]:
    """Searches for the next hop, made by code: the names the best passages add to the question
    ("Shirley Temple", found in the film's passage), each with the question's words those
    passages do not answer yet ("government position held")."""
    asked = {n.lower() for n in names_in(question)}
    seen_text = " ".join(passages)
    rest = [w for w in content_words(question) if w not in content_words(seen_text)]
    rest.sort(key=question.lower().find)
    found: list[str] = []
    for name in names_in(seen_text):
        lowered = name.lower()
        if any(lowered in a or a in lowered for a in asked) or len(name.split()) < 2:
            continue
        if name not in found:
            found.append(name)
    return [f"{name} {' '.join(rest[:4])}".strip() for name in found[:limit]]


def names_in(text: str) -> list[str]:
    """Capitalised names in a text, in order ("Corliss Archer", "Kiss and Tell"), leaving out
    question words and single letters."""
    out: list[str] = []
    for match in CAPITALISED.finditer(text):
        words = [w.strip(" ,.?'\"()") for w in match.group(0).split()]
        while words and (words[0] in QUESTION_WORDS or words[0].lower() in _CONNECTORS):
            words.pop(0)
        while words and words[-1].lower() in _CONNECTORS:
            words.pop()
        words = [w for w in words if w]
        if words and len(" ".join(words)) > 1:
            name = " ".join(words)
            if name not in out:
                out.append(name)
    return out
