"""Evidence → a grounded answer with checked citations, or the plain refusal.

Refusal happens at three points: before the LLM when the best hit is not similar enough to the
question; when the model says it cannot find the answer; and when what it says is not supported
by the evidence (a number it cites appears nowhere, or most of its words are foreign to it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from polyrag.answer.citations import attribute, cited_numbers, is_refusal, strip_markers, support
from polyrag.answer.evidence import Evidence, ParentLookup, render, select_evidence
from polyrag.answer.prompts import prompt
from polyrag.llm.base import GenerationOptions, Message
from polyrag.llm.fallback import FallbackChain
from polyrag.settings import AnswerSettings
from polyrag.types import (
    NO_ANSWER_FOUND,
    NO_EVIDENCE_FITS,
    NOT_SUPPORTED,
    REFUSAL,
    WEAK_EVIDENCE,
    Citation,
    Hit,
)

MIN_SUPPORT = 0.5


@dataclass(frozen=True)
class Draft:
    text: str
    refused: bool
    citations: tuple[Citation, ...]
    provider: str | None
    first_token_ms: float | None
    reason: str  # why it was refused, or "answered"


class Answerer:
    def __init__(
        self,
        chat: FallbackChain,
        settings: AnswerSettings,
        parents: ParentLookup | None = None,
    ) -> None:
        self._chat = chat
        self._settings = settings
        self._parents = parents  # fetches the text a table or picture hit is shown inside

    def answer(
        self,
        question: str,
        hits: Sequence[Hit],
        on_token: Callable[[str], None] | None = None,
    ) -> Draft:
        started = time.perf_counter()
        best = max((h.vector_similarity or -1.0 for h in hits), default=-1.0)
        if not hits or best < self._settings.min_similarity:
            return Draft(REFUSAL, True, (), None, None, WEAK_EVIDENCE)
        evidence = select_evidence(
            hits,
            question,
            self._chat.count_tokens,
            self._settings.context_tokens,
            self._settings.evidence_items,
            self._settings.min_relative_score,
            parents=self._parents,
        )
        if not evidence:
            return Draft(REFUSAL, True, (), None, None, NO_EVIDENCE_FITS)
        messages = [
            Message("system", prompt("system")),
            Message("user", prompt("question").format(context=render(evidence), question=question)),
        ]
        options = GenerationOptions(
            max_tokens=self._settings.max_answer_tokens, temperature=self._settings.temperature
        )
        opened = self._chat.open_stream(messages, options)
        pieces: list[str] = []
        first_token_ms: float | None = None
        for piece in opened.tokens:
            if first_token_ms is None:
                first_token_ms = (time.perf_counter() - started) * 1000
            pieces.append(piece)
            if on_token:
                on_token(piece)
        return self._check("".join(pieces).strip(), evidence, opened.provider, first_token_ms)

    def _check(
        self,
        text: str,
        evidence: list[Evidence],
        provider: str,
        first_token_ms: float | None,
    ) -> Draft:
        if is_refusal(text):
            return Draft(REFUSAL, True, (), provider, first_token_ms, NO_ANSWER_FOUND)
        text = strip_markers(text, len(evidence))
        numbers = cited_numbers(text, len(evidence)) or attribute(text, evidence)
        by_number = {e.n: e for e in evidence}
        cited_text = [by_number[n].text for n in numbers]
        if not numbers or support(text, cited_text) < MIN_SUPPORT:
            return Draft(REFUSAL, True, (), provider, first_token_ms, NOT_SUPPORTED)
        citations = tuple(Citation(n, by_number[n].chunk) for n in numbers)
        return Draft(text, False, citations, provider, first_token_ms, "answered")

    def standalone(self, question: str, history: Sequence[tuple[str, str]]) -> str:
        """Rewrite a follow-up into a question that stands alone, using the recent turns."""
        turns = list(history)[-self._settings.history_turns :]
        if not turns:
            return question
        lines = []
        for asked, replied in turns:
            lines.append(f"User: {asked}")
            lines.append(f"Assistant: {replied}")
        messages = [
            Message(
                "user",
                prompt("rewrite").format(history="\n".join(lines), question=question),
            )
        ]
        opened = self._chat.open_stream(messages, GenerationOptions(max_tokens=64))
        rewritten = " ".join("".join(opened.tokens).split()).strip().strip('"')
        return rewritten or question
