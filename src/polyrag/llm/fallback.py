"""Fail over between chat models, in order, and record which one answered.

A provider is committed to once it produces its first piece of text: a failure before that moves
on to the next provider, a failure after it reaches the caller (an answer is never stitched from
two models). Providers whose health check fails are skipped; health is remembered briefly so a
down endpoint costs one check, not one per question.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from polyrag.errors import AllProvidersFailedError, LLMError
from polyrag.llm.base import ChatModel, GenerationOptions, Message, Weighs, complete
from polyrag.llm.structured import parse_json_object


class Attempt(NamedTuple):
    """A provider that did not answer, and why, in one line."""

    provider: str
    error: str


@dataclass(frozen=True)
class ProviderStream:
    """A reply being generated: who is answering, the text pieces, and who was passed over."""

    provider: str
    tokens: Iterator[str]
    attempts: tuple[Attempt, ...] = ()


class FallbackChain:
    """A ChatModel that tries its providers in order."""

    name = "chain"

    def __init__(
        self,
        providers: Sequence[ChatModel],
        *,
        health_ttl_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.providers: tuple[ChatModel, ...] = tuple(providers)
        self._health_ttl_s = health_ttl_s
        self._clock = clock
        self._health: dict[int, tuple[float, bool]] = {}  # provider index → (checked at, healthy)
        self._health_lock = threading.Lock()
        self._last_error: dict[str, tuple[float, str]] = {}  # provider → (when, its error)

    def open_stream(
        self, messages: Sequence[Message], options: GenerationOptions
    ) -> ProviderStream:
        """Start the reply on the first provider that produces text (or ends with none)."""
        attempts: list[Attempt] = []
        for index, provider in enumerate(self.providers):
            if not self._is_healthy(index):
                attempts.append(Attempt(provider.name, "skipped: health check failed"))
                continue
            try:
                pieces = iter(provider.stream(messages, options))
                first = _first_piece(pieces)
            except LLMError as error:  # unavailable or rejected: either way try the next one
                attempts.append(self._failed(provider.name, error.one_line()))
                continue
            tokens = pieces if first is None else _prepend(first, pieces)
            return ProviderStream(provider.name, tokens, tuple(attempts))
        if not attempts:
            raise AllProvidersFailedError("no language model is configured")
        reasons = "; ".join(f"{attempt.provider}: {attempt.error}" for attempt in attempts)
        raise AllProvidersFailedError(f"no language model answered — {reasons}")

    def stream(self, messages: Sequence[Message], options: GenerationOptions) -> Iterator[str]:
        return self.open_stream(messages, options).tokens

    def weigh(
        self, messages: Sequence[Message], choices: Sequence[str]
    ) -> tuple[dict[str, float], str]:
        """Each one-word reply's share of probability, and the provider that weighed them.

        A provider that cannot weigh (a remote API) picks one choice under a JSON schema, which
        counts as the whole share."""
        attempts: list[Attempt] = []
        schema = {
            "type": "object",
            "properties": {"answer": {"type": "string", "enum": list(choices)}},
            "required": ["answer"],
        }
        # A model that picks is told the form of its reply (JSON modes want it said).
        last = messages[-1]
        form = " or ".join(f'{{"answer": "{choice}"}}' for choice in choices)
        asked = [*messages[:-1], Message(last.role, f"{last.content}\nReply as JSON: {form}")]
        for index, provider in enumerate(self.providers):
            if not self._is_healthy(index):
                continue
            try:
                if isinstance(provider, Weighs):
                    return provider.weigh(messages, choices), provider.name
                options = GenerationOptions(max_tokens=16, json_output=True, json_schema=schema)
                reply = parse_json_object(complete(provider, asked, options)) or {}
            except LLMError as error:
                attempts.append(self._failed(provider.name, error.one_line()))
                continue
            picked = reply.get("answer")
            if picked in choices:
                return {c: float(c == picked) for c in choices}, provider.name
            attempts.append(Attempt(provider.name, f"replied outside {list(choices)}"))
        reasons = "; ".join(f"{attempt.provider}: {attempt.error}" for attempt in attempts)
        raise AllProvidersFailedError(f"no language model weighed the choices — {reasons}")

    def status(self) -> list[dict[str, object]]:
        """Each provider in the order it is tried: its name, whether it runs here or behind
        an endpoint, its health (checked now unless checked in the last seconds) and the last
        error it gave, with when (seconds since the epoch)."""
        listed: list[dict[str, object]] = []
        for index, provider in enumerate(self.providers):
            last = self._last_error.get(provider.name)
            listed.append(
                {
                    "name": provider.name,
                    "kind": "local" if provider.name.startswith("local:") else "remote",
                    "healthy": self._is_healthy(index),
                    "last_error": last[1] if last else None,
                    "last_error_at": last[0] if last else None,
                }
            )
        return listed

    def _failed(self, provider: str, error: str) -> Attempt:
        self._last_error[provider] = (time.time(), error)
        return Attempt(provider, error)

    def healthy(self) -> bool:
        return any(self._is_healthy(index) for index in range(len(self.providers)))

    def count_tokens(self, text: str) -> int:
        """Counted by the first healthy provider: the one most likely to answer."""
        for index, provider in enumerate(self.providers):
            if self._is_healthy(index):
                return provider.count_tokens(text)
        return (len(text) + 3) // 4

    def _is_healthy(self, index: int) -> bool:
        now = self._clock()
        with self._health_lock:
            cached = self._health.get(index)
        if cached is not None and now - cached[0] < self._health_ttl_s:
            return cached[1]
        healthy = self.providers[index].healthy()
        with self._health_lock:
            self._health[index] = (now, healthy)
        return healthy


def _first_piece(pieces: Iterator[str]) -> str | None:
    """The first non-empty piece, or None when the reply is empty."""
    for piece in pieces:
        if piece:
            return piece
    return None


def _prepend(first: str, rest: Iterator[str]) -> Iterator[str]:
    yield first
    yield from rest
