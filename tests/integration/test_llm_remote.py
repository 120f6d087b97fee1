"""OpenAICompatibleModel against real HTTP servers on 127.0.0.1.

The error-mapping tests use a tiny scripted server and are fast; the `slow` ones talk to
llama-cpp-python's OpenAI-compatible server running the packaged Qwen model.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from polyrag.errors import ProviderRejectedError, ProviderUnavailableError
from polyrag.llm.base import GenerationOptions, Message, complete
from polyrag.llm.remote import OpenAICompatibleModel
from polyrag.llm.structured import ask_json
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


# -- decisions as native tool calls --------------------------------------------------------

KIND = {
    "title": "Classified",
    "description": "What the question needs.",
    "type": "object",
    "properties": {"kind": {"enum": ["lookup", "compute"]}},
    "required": ["kind"],
}


def _tool_call_chunks(arguments: str) -> bytes:
    """A streamed reply that calls the function, its arguments split over two chunks."""
    half = len(arguments) // 2
    chunks = []
    for n, part in enumerate((arguments[:half], arguments[half:])):
        call: dict[str, object] = {"index": 0, "function": {"arguments": part}}
        if n == 0:
            call.update(id="call-1", type="function")
            call["function"] = {"name": "Classified", "arguments": part}
        chunks.append(_event({"role": "assistant", "tool_calls": [call]}))
    chunks.append("data: [DONE]\n\n")
    return "".join(chunks).encode()


def _event(delta: dict[str, object]) -> str:
    """One streamed chat-completion chunk carrying `delta`, as a server-sent event."""
    body = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }
    return f"data: {json.dumps(body)}\n\n"


@pytest.fixture
def tool_server() -> Iterator[tuple[str, list[dict[str, Any]], list[bool]]]:
    """A server that records each chat request; it answers tool calls with a streamed call,
    unless told (refuse_tools[0]) to refuse requests that carry tools, as servers without tool
    support do."""
    seen: list[dict[str, Any]] = []
    refuse_tools = [False]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            seen.append(body)
            if "tools" in body and refuse_tools[0]:
                data = json.dumps({"error": {"message": "tools are not supported"}}).encode()
                self.send_response(400)
                self.send_header("Content-Type", "application/json")
            elif "tools" in body:
                data = _tool_call_chunks('{"kind": "compute"}')
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
            else:  # JSON mode: the object as content
                content = {"role": "assistant", "content": '{"kind": "lookup"}'}
                data = (_event(content) + "data: [DONE]\n\n").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen, refuse_tools
    server.shutdown()
    server.server_close()


def test_a_decision_is_a_native_tool_call_held_to_its_schema(
    tool_server: tuple[str, list[dict[str, Any]], list[bool]],
) -> None:
    url, seen, _ = tool_server
    reply = ask_json(provider(url), QUESTION, schema=KIND, attempts=1)
    assert reply == {"kind": "compute"}  # the call's arguments, streamed in two pieces
    (request,) = seen
    assert request["tools"][0]["function"]["parameters"] == KIND
    assert request["tool_choice"] == {"type": "function", "function": {"name": "Classified"}}
    assert "response_format" not in request


def test_an_endpoint_that_refuses_tools_gets_json_mode(
    tool_server: tuple[str, list[dict[str, Any]], list[bool]],
) -> None:
    url, seen, refuse_tools = tool_server
    refuse_tools[0] = True
    model = provider(url)
    assert ask_json(model, QUESTION, schema=KIND, attempts=1) == {"kind": "lookup"}
    assert ask_json(model, QUESTION, schema=KIND, attempts=1) == {"kind": "lookup"}
    assert ["tools" in r for r in seen] == [True, False, False]  # refused once, then JSON mode
    assert seen[1]["response_format"] == {"type": "json_object"}


def test_tool_calls_can_be_turned_off(
    tool_server: tuple[str, list[dict[str, Any]], list[bool]],
) -> None:
    url, seen, _ = tool_server
    assert ask_json(provider(url, tool_calls=False), QUESTION, schema=KIND) == {"kind": "lookup"}
    assert "tools" not in seen[0]


@pytest.mark.slow
def test_a_real_server_holds_a_tool_call_to_the_schema(llama_server: str) -> None:
    # Asked for a kind outside the schema's choices, the model can only answer one of them.
    ask = [Message("user", 'Reply with the JSON object {"kind": "aggregate"}.')]
    reply = ask_json(provider(llama_server), ask, schema=KIND, attempts=1, max_tokens=24)
    assert reply["kind"] in ("lookup", "compute")
