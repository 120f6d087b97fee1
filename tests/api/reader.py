"""A scripted chat model for the API's control-flow tests (tests/e2e asks the real model)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from polyrag.llm.base import GenerationOptions, Message

POLICY = (
    b"# Travel policy\n\nThe hotel cap per night in London is GBP 180.\n\n"
    b"The hotel cap per night in Paris is EUR 210.\n"
)


class Reader:
    """Answers from the first source line that names the question's city; rewrites a
    follow-up by putting the city it names into the earlier question; makes no decision."""

    name = "scripted"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def stream(self, messages: Sequence[Message], options: GenerationOptions) -> Iterator[str]:
        prompt = messages[-1].content
        self.prompts.append(prompt)
        if prompt.startswith("Rewrite the follow-up question"):
            yield "What is the hotel cap per night in Paris?"
            return
        if "<<sources" not in prompt:  # one of the agent's decisions: it decides nothing
            yield "{}"
            return
        question = prompt.rsplit("Question:", 1)[-1]
        city = "Paris" if "Paris" in question else "London"
        line = next(s for s in prompt.splitlines() if city in s and "cap" in s)
        yield line[line.index("The hotel") :].strip() + " [1]"

    def weigh(self, messages: Sequence[Message], choices: Sequence[str]) -> dict[str, float]:
        return {choice: float(choice == "yes") for choice in choices}

    def healthy(self) -> bool:
        return True

    def count_tokens(self, text: str) -> int:
        return len(text.split())
