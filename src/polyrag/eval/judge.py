"""An LLM judge in the style of FastRAGEval: atomic facts, one call per answer.

The judge model splits the reference answer and the generated answer into atomic facts and
marks which reference facts the answer states (recall) and which answer facts the reference
supports (precision). It runs only when `eval.judge` names a model; polyrag never grades its
own answers with the model that wrote them unless the user configures exactly that.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from polyrag.answer.prompts import prompt
from polyrag.errors import LLMError
from polyrag.llm.base import ChatModel, Message
from polyrag.llm.remote import OpenAICompatibleModel
from polyrag.llm.structured import ask_json
from polyrag.settings import Settings

PROMPTS = "polyrag.eval"


@dataclass(frozen=True)
class Verdict:
    """The judge's grade of one answer; the scores are None when the judge failed (`error`)."""

    precision: float | None
    recall: float | None
    f1: float | None
    reference_facts: tuple[tuple[str, bool], ...] = ()  # (fact, stated by the answer)
    answer_facts: tuple[tuple[str, bool], ...] = ()  # (fact, supported by the reference)
    error: str | None = None


class FactJudge:
    """Grades answers against references with one JSON call to a chat model."""

    def __init__(self, model: ChatModel, *, max_tokens: int = 768) -> None:
        self.model = model
        self.max_tokens = max_tokens

    @property
    def name(self) -> str:
        return self.model.name

    @classmethod
    def from_settings(cls, settings: Settings) -> FactJudge | None:
        """The configured judge, or None when `eval.judge` is not set."""
        if settings.eval.judge is None:
            return None
        return cls(OpenAICompatibleModel(settings.eval.judge))

    def grade(self, question: str, reference: str, answer: str) -> Verdict:
        """Precision, recall and F1 of `answer`'s facts against `reference`'s."""
        if not answer.strip():  # a refusal or an empty answer states no fact
            return Verdict(0.0, 0.0, 0.0)
        messages = [
            Message("system", prompt("judge", PROMPTS)),
            Message(
                "user",
                prompt("judge_question", PROMPTS).format(
                    question=question, reference=reference, answer=answer
                ),
            ),
        ]
        try:
            reply = ask_json(self.model, messages, max_tokens=self.max_tokens)
        except LLMError as error:
            return Verdict(None, None, None, error=error.one_line())
        return verdict_from(reply)


def verdict_from(reply: dict[str, Any]) -> Verdict:
    """Scores from the judge's JSON; a reply without the two fact lists is an error."""
    reference = _facts(reply.get("reference_facts"), "in_answer")
    answer = _facts(reply.get("answer_facts"), "in_reference")
    if reference is None or answer is None or not reference:
        return Verdict(None, None, None, error="the judge's reply lacks the fact lists")
    recall = sum(flag for _, flag in reference) / len(reference)
    precision = sum(flag for _, flag in answer) / len(answer) if answer else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Verdict(
        round(precision, 4), round(recall, 4), round(f1, 4), tuple(reference), tuple(answer)
    )


def _facts(items: Any, flag: str) -> list[tuple[str, bool]] | None:
    if not isinstance(items, Sequence) or isinstance(items, str):
        return None
    facts = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("fact"), str):
            return None
        value = item.get(flag)
        if isinstance(value, str):  # "true"/"yes" from a loose model
            value = value.strip().lower() in ("true", "yes")
        facts.append((item["fact"].strip(), bool(value)))
    return facts
