"""The chat model seam: chat, stream and JSON output over a list of messages."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable


@dataclass(frozen=True)
class Message:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class GenerationOptions:
    max_tokens: int = 256
    temperature: float = 0.0
    json_output: bool = False  # ask the model for one JSON object
    stop: tuple[str, ...] = ()
    # With json_output: the JSON schema the object must follow. The local model is held to it
    # by a grammar; a remote one gets a JSON object and the caller validates it.
    json_schema: dict[str, Any] | None = field(default=None, hash=False, compare=False)


class ChatModel(Protocol):
    """A language model. `stream` is the one implementation; `complete` joins it."""

    name: str  # recorded on every answer as the provider

    def stream(self, messages: Sequence[Message], options: GenerationOptions) -> Iterator[str]:
        """Yield text pieces as they are generated.

        Raises `ProviderUnavailableError` (retryable) for connection errors, timeouts, 429 and
        5xx, and `ProviderRejectedError` for other refusals, before or while streaming.
        """
        ...

    def healthy(self) -> bool:
        """Cheap check that the model can be reached (no generation)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens this text costs in the prompt (an estimate for remote models)."""
        ...


@runtime_checkable
class Weighs(Protocol):
    """A model that can say how likely each one-word reply is (the local model can; a remote
    one answers a constrained choice instead)."""

    def weigh(self, messages: Sequence[Message], choices: Sequence[str]) -> dict[str, float]:
        """Each choice's share of probability as the reply's first token; the shares sum to 1."""
        ...


def complete(model: ChatModel, messages: Sequence[Message], options: GenerationOptions) -> str:
    """The whole reply as one string."""
    return "".join(model.stream(messages, options))
