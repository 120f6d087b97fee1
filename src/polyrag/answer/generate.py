"""Evidence (and the conversation so far) → the prompt, and the reply streamed from the model.

Retrieved text is data, never instructions: the evidence is fenced between markers made anew
for every request, the system prompt says so, and invisible characters are stripped from it
(see agent/guard.py). The recent turns of the conversation come before the sources, so a
follow-up is answered in its context.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from polyrag.answer.evidence import Evidence, render
from polyrag.answer.guard import clean_text
from polyrag.answer.prompts import prompt
from polyrag.llm.base import GenerationOptions, Message
from polyrag.llm.fallback import FallbackChain, ProviderStream
from polyrag.settings import AnswerSettings

Turn = tuple[str, str]  # (question, answer)


@dataclass(frozen=True)
class Reply:
    text: str
    provider: str
    first_token_ms: float | None


class Generator:
    """Writes the prompt for a question and its evidence and opens the model's reply."""

    def __init__(self, chat: FallbackChain, settings: AnswerSettings) -> None:
        self._chat = chat
        self._settings = settings

    def messages(
        self,
        question: str,
        evidence: Sequence[Evidence],
        history: Sequence[Turn] = (),
        *,
        style: str = "",
    ) -> list[Message]:
        fence = secrets.token_hex(4)
        context = clean_text(render(evidence))
        conversation = ""
        turns = list(history)[-self._settings.prompt_turns :] if self._settings.prompt_turns else []
        if turns:
            lines = [f"User: {asked}\nAssistant: {replied}" for asked, replied in turns]
            conversation = "Conversation so far:\n" + "\n".join(lines) + "\n\n"
        user = prompt("question").format(
            conversation=conversation,
            fence=fence,
            context=context,
            question=question,
            style=style,
        )
        return [
            Message("system", prompt("system")),
            Message("user", user),
        ]

    def open(self, messages: Sequence[Message]) -> ProviderStream:
        options = GenerationOptions(
            max_tokens=self._settings.max_answer_tokens, temperature=self._settings.temperature
        )
        return self._chat.open_stream(messages, options)
