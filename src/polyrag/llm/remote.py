"""Any OpenAI-compatible endpoint (OpenAI, Groq, Gemini, Ollama, vLLM, llama.cpp server).

The client never retries (`max_retries=0`): the fallback chain decides what happens next, and it
can only do that quickly if a failing provider says so at once. SDK errors become one-line
`ProviderUnavailableError` (worth trying the next provider) or `ProviderRejectedError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from polyrag.errors import LLMError, ProviderRejectedError, ProviderUnavailableError
from polyrag.llm.base import GenerationOptions, Message
from polyrag.settings import ProviderSettings

if TYPE_CHECKING:
    import openai

_DETAIL_CHARS = 160


class OpenAICompatibleModel:
    """A ChatModel over an OpenAI-compatible chat completions endpoint."""

    def __init__(self, settings: ProviderSettings, *, health_timeout_s: float = 3.0) -> None:
        import openai  # imported here: it takes most of a second and many runs stay offline

        self.name = f"remote:{settings.name}"
        self._settings = settings
        self._health_timeout_s = health_timeout_s
        self._key = settings.resolved_key()
        self._tool_calls = settings.tool_calls  # turned off when the endpoint refuses tools
        self._client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=self._key or "missing",  # reported in stream() rather than failing here
            timeout=settings.timeout_s,
            max_retries=0,
        )

    def stream(self, messages: Sequence[Message], options: GenerationOptions) -> Iterator[str]:
        import openai

        if not self._key:
            raise ProviderRejectedError(
                f"{self.name}: no API key (variable {self._settings.api_key_env} is not set)",
                hint=f"set {self._settings.api_key_env} or remove the provider",
            )
        request: dict[str, Any] = {
            "model": self._settings.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            "stream": True,
        }
        if options.stop:
            request["stop"] = list(options.stop)
        as_tool = options.json_output and options.json_schema is not None and self._tool_calls
        if as_tool:
            request.update(_as_tool_call(options.json_schema or {}))
        elif options.json_output:
            request["response_format"] = {"type": "json_object"}
        yielded = False
        try:
            response = self._client.chat.completions.create(**request)
            with response:
                for chunk in response:
                    for piece in _pieces(chunk):
                        yielded = True
                        yield piece
        except openai.BadRequestError as error:
            if not as_tool or yielded:
                raise self._translate(error) from error
            # An endpoint without tool support: JSON mode from now on.
            self._tool_calls = False
            yield from self.stream(messages, options)
        except openai.OpenAIError as error:
            raise self._translate(error) from error

    def healthy(self) -> bool:
        """True when GET <base_url>/models gets any answer below 500 within a few seconds."""
        import openai

        try:
            self._client.with_options(timeout=self._health_timeout_s).models.list()
        except openai.APIStatusError as error:
            return error.status_code < 500  # reachable; a bad key is reported by stream()
        except openai.OpenAIError:
            return False
        return True

    def count_tokens(self, text: str) -> int:
        """An estimate: about four characters per token."""
        return (len(text) + 3) // 4

    def _translate(self, error: openai.OpenAIError) -> LLMError:
        import openai

        if isinstance(error, openai.APIStatusError):
            status = error.status_code
            # Some providers quote the key they rejected ("Incorrect API key provided: sk-…"):
            # it never reaches a message, a log or a report.
            message = f"{self.name}: HTTP {status} {_detail(error, self._key)}".rstrip()
            if status == 429:
                return ProviderUnavailableError(
                    message, hint="the provider is rate limiting; wait or add another provider"
                )
            if status == 408 or status >= 500:
                return ProviderUnavailableError(message)
            if status in (401, 403):
                return ProviderRejectedError(message, hint="check the provider's API key")
            return ProviderRejectedError(message, hint="check the provider's base_url and model")
        if isinstance(error, openai.APITimeoutError):
            return ProviderUnavailableError(
                f"{self.name}: no answer within {self._settings.timeout_s:g} s",
                hint="the provider is slow or down; raise timeout_s or try later",
            )
        if isinstance(error, openai.APIConnectionError):
            return ProviderUnavailableError(
                f"{self.name}: cannot connect to {self._settings.base_url}"
            )
        return ProviderUnavailableError(f"{self.name}: {_shorten(_unkeyed(str(error), self._key))}")


def _detail(error: openai.APIStatusError, key: str) -> str:
    """The provider's own error message when the body carries one, else the SDK's."""
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        text = inner.get("message") if isinstance(inner, dict) else inner
        if text:
            return _shorten(_unkeyed(str(text), key))
    return _shorten(_unkeyed(error.message, key))


def _unkeyed(text: str, key: str) -> str:
    """The text without the API key: some providers quote the key they rejected ("Incorrect
    API key provided: sk-…"), and it must never reach a message, a log or a report."""
    return text.replace(key, "[the key]") if key else text


def _shorten(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _DETAIL_CHARS else line[: _DETAIL_CHARS - 1] + "…"


def _as_tool_call(schema: dict[str, Any]) -> dict[str, Any]:
    """A decision held to its JSON schema by native tool calling: one function whose parameters
    are the schema, which the model must call (its arguments are the reply)."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title") or "reply"))[:64]
    function = {
        "name": name,
        "description": str(schema.get("description") or "Give the decision as these fields."),
        "parameters": schema,
    }
    return {
        "tools": [{"type": "function", "function": function}],
        "tool_choice": {"type": "function", "function": {"name": name}},
    }


def _pieces(chunk: Any) -> Iterator[str]:
    """The text a streamed chunk adds: its content, or the arguments of the tool call."""
    if not chunk.choices:  # e.g. a closing usage-only chunk
        return
    delta = chunk.choices[0].delta
    if delta.content:
        yield delta.content
    for call in delta.tool_calls or ():
        if call.function is not None and call.function.arguments:
            yield call.function.arguments
