"""Retrieved hits → numbered evidence inside a token budget, and its rendering for the prompt."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from polyrag.chunk.sentences import sentence_spans, split_long
from polyrag.types import Chunk, Hit

_WORD = re.compile(r"[\w.%$-]+", re.UNICODE)
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "why",
        "with",
    ]
)


def content_words(text: str) -> set[str]:
    """Lower-case words that carry meaning (stop words and 1-letter words dropped)."""
    words = {w.strip(".-").lower() for w in _WORD.findall(text)}
    return {w for w in words if len(w) > 1 and w not in _STOP}


@dataclass(frozen=True)
class Evidence:
    n: int
    chunk: Chunk
    text: str  # what the prompt shows: the chunk, or its most relevant sentences


def label(chunk: Chunk) -> str:
    where = chunk.locator.describe()
    name = Path(chunk.path).name
    return f"{name}, {where}" if where else name


def render(evidence: Sequence[Evidence]) -> str:
    return "\n\n".join(f"[{e.n}] ({label(e.chunk)})\n{e.text}" for e in evidence)


def select_evidence(
    hits: Sequence[Hit],
    question: str,
    count_tokens: Callable[[str], int],
    budget: int,
    max_items: int = 4,
    min_relative_score: float = 0.0,
) -> list[Evidence]:
    """The best hits, each within a fair share of the budget, in reading order.

    Hits scoring below `min_relative_score` times the best hit's score are left out: a weak
    extra passage costs prompt time and distracts a small model. Prompt length is answer
    latency on a CPU, so a hit longer than its share keeps only the sentences (or table rows)
    sharing most words with the question; a hit with none is dropped.
    """
    chosen: list[Evidence] = []
    left = budget
    terms = content_words(question)
    candidates: list[Hit] = []
    floor = min_relative_score * max((hit.score for hit in hits), default=0.0)
    for hit in hits:  # the same passage in two files (a CSV and its XLSX) is shown once
        if hit.score < floor:
            continue
        if len(candidates) < max_items and all(
            " ".join(hit.chunk.text.split()) != " ".join(c.chunk.text.split()) for c in candidates
        ):
            candidates.append(hit)
    candidates = in_reading_order(candidates)
    for position, hit in enumerate(candidates):
        share = left // (len(candidates) - position)
        header = count_tokens(f"[{len(chosen) + 1}] ({label(hit.chunk)})\n") + 2
        text = hit.chunk.text
        cost = header + count_tokens(text)
        if cost > share:
            text = _best_sentences(text, terms, count_tokens, share - header)
            if not text:
                continue
            cost = header + count_tokens(text)
        chosen.append(Evidence(len(chosen) + 1, hit.chunk, text))
        left -= cost
    return chosen


def in_reading_order(hits: Sequence[Hit]) -> list[Hit]:
    """Sources in the order of their best hit; one source's passages in document order.

    A document read in order is easier to follow than fragments ranked by score, for a
    small model as for a person.
    """
    source_rank: dict[str, int] = {}
    for rank, hit in enumerate(hits):
        source_rank.setdefault(hit.chunk.source_id, rank)
    return sorted(hits, key=lambda hit: (source_rank[hit.chunk.source_id], hit.chunk.ordinal))


def _best_sentences(
    text: str, terms: set[str], count_tokens: Callable[[str], int], budget: int
) -> str:
    """The sentences sharing most words with the question that fit, in their original order."""
    if budget <= 20:
        return ""
    separator = "\n" if "\n" in text else " "
    sentences: list[str] = []
    for a, b in sentence_spans(text):  # over-long "sentences" (an info box) become word runs
        sentence = text[a:b]
        if count_tokens(sentence) > budget // 2:
            sentences += [sentence[c:d] for c, d in split_long(sentence, budget // 2, count_tokens)]
        else:
            sentences.append(sentence)
    ranked = sorted(
        range(len(sentences)),
        key=lambda i: len(terms & content_words(sentences[i])),
        reverse=True,
    )
    keep: list[int] = []
    used = 0
    for i in ranked:
        cost = count_tokens(sentences[i]) + 1
        if used + cost <= budget:
            keep.append(i)
            used += cost
    if not keep or not terms & content_words(" ".join(sentences[i] for i in keep)):
        return ""
    return separator.join(sentences[i] for i in sorted(keep))
