"""An OpenAI-compatible endpoint: any OpenAI client or chat UI can ask polyrag.

    client = OpenAI(base_url="http://127.0.0.1:8731/v1", api_key="none")
    client.chat.completions.create(model="default", messages=[{"role": "user", "content": ...}])

The `model` is the workspace. The last user message is the question and the earlier turns its
history. The reply is the answer's text; its citations (with their locators), the provider that
answered and the refusal reason ride along under `polyrag` — in the final chunk of a stream.
Sampling parameters (temperature, max_tokens, ...) are accepted and left to polyrag's settings.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from fastapi.sse import format_sse_event
from pydantic import BaseModel, ConfigDict, Field

from polyrag.api.deps import WorkspacesDep, allowed, check_allowed
from polyrag.api.errors import body as error_body
from polyrag.engine import Engine
from polyrag.errors import ConfigError, PolyragError
from polyrag.settings import AskMode
from polyrag.types import Answer, AnswerEvent, TokenEvent

router = APIRouter(prefix="/v1", tags=["openai-compatible"])


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):  # content parts: only the text ones are read
            return "\n".join(
                str(p.get("text", "")) for p in self.content if p.get("type") == "text"
            )
        return self.content or ""


class CompletionBody(BaseModel):
    model_config = ConfigDict(extra="allow")  # OpenAI clients send many more fields

    model: str = Field(description="The workspace to answer from (`default` is the home).")
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    polyrag_mode: AskMode | None = Field(
        None, description="How to answer (default: the settings' agent.mode)."
    )


@router.get("/models", summary="The workspaces, as OpenAI models")
def models(workspaces: WorkspacesDep, request: Request) -> dict[str, Any]:
    return {
        "object": "list",
        "data": [
            {"id": name, "object": "model", "created": 0, "owned_by": "polyrag"}
            for name in workspaces.names()
            if allowed(request, name)
        ],
    }


@router.post("/chat/completions", summary="Answer the last user message (OpenAI-compatible)")
def chat_completions(body: CompletionBody, workspaces: WorkspacesDep, request: Request) -> Any:
    check_allowed(request, body.model)
    engine = workspaces.engine(body.model)
    question, history = _conversation(body.messages)
    completion = f"chatcmpl-{uuid.uuid4().hex[:24]}"
    created = int(time.time())
    if not body.stream:
        answer = engine.ask(question, history=history, mode=body.polyrag_mode)
        return {
            "id": completion,
            "object": "chat.completion",
            "created": created,
            "model": body.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": answer.text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            "polyrag": _extras(answer),
        }
    chunks = _chunks(engine, question, history, body, completion, created)
    return StreamingResponse(chunks, media_type="text/event-stream")


def _conversation(messages: list[ChatMessage]) -> tuple[str, list[tuple[str, str]]]:
    """The last user message, and the (question, answer) pairs before it; system messages are
    not followed (polyrag's own instructions hold)."""
    if messages[-1].role != "user" or not messages[-1].text().strip():
        raise ConfigError(
            "the last message must be the user's question",
            hint="end `messages` with a non-empty message whose role is user",
        )
    history: list[tuple[str, str]] = []
    asked: str | None = None
    for message in messages[:-1]:
        if message.role == "user":
            asked = message.text()
        elif message.role == "assistant" and asked is not None:
            history.append((asked, message.text()))
            asked = None
    return messages[-1].text().strip(), history


def _chunks(
    engine: Engine,
    question: str,
    history: list[tuple[str, str]],
    body: CompletionBody,
    completion: str,
    created: int,
) -> Iterator[str]:
    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        data = {
            "id": completion,
            "object": "chat.completion.chunk",
            "created": created,
            "model": body.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        return format_sse_event(data_str=json.dumps(data, ensure_ascii=False)).decode("utf-8")

    yield chunk({"role": "assistant", "content": ""})
    streamed: list[str] = []
    try:
        for event in engine.ask_events(question, history=history, mode=body.polyrag_mode):
            if isinstance(event, TokenEvent):
                streamed.append(event.text)
                yield chunk({"content": event.text})
            elif isinstance(event, AnswerEvent):
                answer = event.answer
                written = "".join(streamed)
                # The checked answer may differ from what was streamed (a withdrawn sentence,
                # a refusal, a figure code wrote): the rest, or all of it, comes last.
                rest = answer.text[len(written) :] if answer.text.startswith(written) else ""
                if written and not answer.text.startswith(written):
                    rest = "\n\n" + answer.text
                yield chunk({"content": rest} if rest else {}, "stop", polyrag=_extras(answer))
    except PolyragError as error:
        error_data = {"error": error_body(str(error), error.hint, error.retryable)}
        yield format_sse_event(data_str=json.dumps(error_data)).decode("utf-8")
    yield format_sse_event(data_str="[DONE]").decode("utf-8")


def _extras(answer: Answer) -> dict[str, Any]:
    shown = answer.to_dict()
    kept = ("citations", "provider", "skipped_providers", "refused", "refusal_reason", "partial")
    return {key: shown[key] for key in (*kept, "mode", "model_calls")}
