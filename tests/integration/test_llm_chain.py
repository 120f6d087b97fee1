"""The fallback chain over real endpoints: a down port, scripted 500/429 servers, llama.cpp's
server and the embedded local model."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from polyrag.llm.base import GenerationOptions, Message
from polyrag.llm.fallback import FallbackChain
from polyrag.llm.local import LocalLlamaModel
from polyrag.llm.remote import OpenAICompatibleModel
from polyrag.settings import ProviderSettings

pytestmark = pytest.mark.slow

QUESTION = [Message("user", "What is 2+2? Reply with just the number.")]
SHORT = GenerationOptions(max_tokens=8)


def provider(name: str, base_url: str) -> OpenAICompatibleModel:
    settings = {"name": name, "base_url": base_url, "model": "qwen", "timeout_s": 30}
    return OpenAICompatibleModel(ProviderSettings.model_validate(settings))


def test_down_and_failing_endpoints_fall_through_to_the_real_server(
    status_server: Callable[[int], str], llama_server: str, down_url: str
) -> None:
    chain = FallbackChain(
        [
            provider("down", down_url),
            provider("broken", status_server(500)),
            provider("llama", llama_server),
        ]
    )
    reply = chain.open_stream(QUESTION, SHORT)
    assert "4" in "".join(reply.tokens)
    assert reply.provider == "remote:llama"
    assert [attempt.provider for attempt in reply.attempts] == ["remote:down", "remote:broken"]
    assert "health check" in reply.attempts[0].error
    assert "HTTP 500" in reply.attempts[1].error


def test_rate_limited_endpoint_fails_over(
    status_server: Callable[[int], str], llama_server: str
) -> None:
    chain = FallbackChain([provider("busy", status_server(429)), provider("llama", llama_server)])
    reply = chain.open_stream(QUESTION, SHORT)
    assert "4" in "".join(reply.tokens)
    assert reply.provider == "remote:llama"
    assert "HTTP 429" in reply.attempts[0].error


def test_failing_endpoint_falls_back_to_the_local_model(
    status_server: Callable[[int], str], local_model: LocalLlamaModel
) -> None:
    chain = FallbackChain([provider("broken", status_server(500)), local_model])
    reply = chain.open_stream(QUESTION, SHORT)
    assert "4" in "".join(reply.tokens)
    assert reply.provider == "local:qwen2.5-coder-1.5b"
    assert [attempt.provider for attempt in reply.attempts] == ["remote:broken"]
