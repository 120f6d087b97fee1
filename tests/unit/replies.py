"""A chat model that answers each call with the next scripted reply (for control-flow tests)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from polyrag.llm.base import GenerationOptions, Message


@dataclass
class Replies:
    """Each call streams the next reply; an exception in the list is raised instead."""

    replies: list[str | Exception]
    name: str = "scripted"
    asked: list[tuple[list[Message], GenerationOptions]] = field(default_factory=list)
    # Each `weigh` call takes the next share of "no"; when none are left, the passages answer.
    doubts: list[float] = field(default_factory=list)
    weighed: list[str] = field(default_factory=list)  # the prompts that were weighed

    def stream(self, messages: Sequence[Message], options: GenerationOptions) -> Iterator[str]:
        self.asked.append((list(messages), options))
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        yield from (reply[:5], reply[5:])

    def weigh(self, messages: Sequence[Message], choices: Sequence[str]) -> dict[str, float]:
        self.weighed.append(messages[-1].content)
        doubt = self.doubts.pop(0) if self.doubts else 0.0
        return {choice: doubt if choice == "no" else 1.0 - doubt for choice in choices}

    def healthy(self) -> bool:
        return True

    def count_tokens(self, text: str) -> int:
        return len(text.split())
