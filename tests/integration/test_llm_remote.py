"""OpenAICompatibleModel against real HTTP servers on 127.0.0.1.

The error-mapping tests use a tiny scripted server and are fast; the `slow` ones talk to
llama-cpp-python's OpenAI-compatible server running the packaged Qwen model.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from polyrag.errors import ProviderRejectedError, ProviderUnavailableError
from polyrag.llm.base import GenerationOptions, Message, complete
from polyrag.llm.remote import OpenAICompatibleModel
from polyrag.settings import ProviderSettings

QUESTION = [Message("user", "What is 2+2? Reply with just the number.")]
SHORT = GenerationOptions(max_tokens=8)


def provider(base_url: str, name: str = "test", **extra: object) -> OpenAICompatibleModel:
    settings = ProviderSettings.model_validate(
        {"name": name, "base_url": base_url, "model": "qwen", "timeout_s": 30, **extra}
    )
    return OpenAICompatibleModel(settings)


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_server_errors_and_rate_limits_are_retryable(
    status_server: Callable[[int], str], status: int
) -> None:
    model = provider(status_server(status), name="flaky")
    with pytest.raises(ProviderUnavailableError) as caught:
        complete(model, QUESTION, SHORT)
    line = caught.value.one_line()
    assert line.startswith(f"remote:flaky: HTTP {status}")
    assert "scripted status" in line
    assert "\n" not in line


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_are_rejections(status_server: Callable[[int], str], status: int) -> None:
    model = provider(status_server(status), name="strict")
    with pytest.raises(ProviderRejectedError, match=f"^remote:strict: HTTP {status}"):
        complete(model, QUESTION, SHORT)


def test_a_down_endpoint_is_unavailable_and_unhealthy(down_url: str) -> None:
    model = provider(down_url, name="gone")
    assert not model.healthy()
    with pytest.raises(
        ProviderUnavailableError, match=f"remote:gone: cannot connect to {down_url}"
    ):
        complete(model, QUESTION, SHORT)


def test_health_only_needs_the_models_listing(status_server: Callable[[int], str]) -> None:
    assert provider(status_server(500)).healthy()


def test_a_missing_key_variable_is_a_rejection(
    status_server: Callable[[int], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POLYRAG_TEST_NO_SUCH_KEY", raising=False)
    model = provider(status_server(200), api_key_env="POLYRAG_TEST_NO_SUCH_KEY")
    with pytest.raises(ProviderRejectedError, match="POLYRAG_TEST_NO_SUCH_KEY"):
        complete(model, QUESTION, SHORT)


def test_tokens_are_estimated() -> None:
    model = provider("http://127.0.0.1:9/v1")
    assert model.name == "remote:test"
    assert model.count_tokens("") == 0
    assert model.count_tokens("abcdefgh") == 2


@pytest.mark.slow
def test_chat_with_a_real_server(llama_server: str) -> None:
    model = provider(llama_server, name="llama")
    assert model.healthy()
    assert "4" in complete(model, QUESTION, SHORT)


@pytest.mark.slow
def test_stream_yields_several_pieces(llama_server: str) -> None:
    model = provider(llama_server)
    counting = [Message("user", "Count from 1 to 5, separated by spaces.")]
    pieces = list(model.stream(counting, GenerationOptions(max_tokens=16)))
    assert len(pieces) > 1
    assert "1" in "".join(pieces)


@pytest.mark.slow
def test_json_output_parses(llama_server: str) -> None:
    model = provider(llama_server)
    ask = [Message("user", "Return a JSON object with keys name and age for Alice, aged 30.")]
    reply = complete(model, ask, GenerationOptions(max_tokens=40, json_output=True))
    assert isinstance(json.loads(reply), dict)
