"""One JSON object from a chat model: tolerant of code fences and chatter, asked twice at most."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from polyrag.errors import MalformedReplyError
from polyrag.llm.base import ChatModel, GenerationOptions, Message, complete

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def parse_json_object(reply: str) -> dict[str, Any] | None:
    """The JSON object in a reply (bare, fenced, or among other text), or None."""
    candidates = [match.group(1) for match in _FENCE.finditer(reply)] + [reply]
    for text in candidates:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            continue
        try:
            value = json.loads(text[start : end + 1])
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


def ask_json(
    model: ChatModel,
    messages: Sequence[Message],
    *,
    max_tokens: int = 512,
    attempts: int = 2,
    schema: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The model's reply as a JSON object; a reply that is not one is asked for again.

    With `schema`, the local model's sampling is held to it (a llama.cpp grammar). The repeat
    runs slightly warmer, so a deterministic model does not repeat itself exactly. Raises
    `MalformedReplyError` when no attempt gives an object, and the model's own `LLMError`s as
    they come.
    """
    reply = ""
    for attempt in range(max(attempts, 1)):
        options = GenerationOptions(
            max_tokens=max_tokens,
            temperature=0.0 if attempt == 0 else 0.3,
            json_output=True,
            json_schema=schema,
        )
        reply = complete(model, messages, options)
        parsed = parse_json_object(reply)
        if parsed is not None:
            return parsed
    shown = " ".join(reply.split())[:80]
    raise MalformedReplyError(f"the model did not reply with a JSON object: {shown!r}")
