"""Decisions the small model can make: one at a time, as JSON held to a schema.

Each asks one question with a short prompt and gets one small object back (llama.cpp samples
it under a grammar made from the schema). A reply that does not validate is an error the
caller treats like any other failed step: the agent falls back to its fixed order.
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from polyrag.agent.trace import Trace, now
from polyrag.answer.prompts import prompt
from polyrag.errors import MalformedReplyError
from polyrag.llm.base import ChatModel, Message
from polyrag.llm.structured import ask_json

Kind = Literal["lookup", "compute", "aggregate", "compare", "multihop"]
KINDS: tuple[str, ...] = ("lookup", "compute", "aggregate", "compare", "multihop")


class Classified(BaseModel):
    kind: Kind


class Plan(BaseModel):
    searches: list[str] = Field(min_length=1, max_length=3)


class Assessment(BaseModel):
    answer: str = ""  # the answer in a few words, copied from the sources; empty if not there
    found: str = ""
    next_search: str = ""


class YesNo(BaseModel):
    answer: Literal["yes", "no"]


class SqlQuery(BaseModel):
    sql: str = Field(min_length=6)


class Expression(BaseModel):
    expression: str = Field(min_length=1)


class ToolChoice(BaseModel):
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)


M = TypeVar("M", bound=BaseModel)


def decide(
    chat: ChatModel,
    trace: Trace,
    name: str,
    model: type[M],
    max_tokens: int = 160,
    **fields: str,
) -> M:
    """Ask the prompt `agent/prompts/<name>.txt` and return its validated JSON reply."""
    started = now()
    text = prompt(name, "polyrag.agent").format(**fields)
    messages = [Message("user", text)]
    trace.model_calls += 1
    schema = model.model_json_schema()
    reply = ask_json(chat, messages, max_tokens=max_tokens, attempts=1, schema=schema)
    if isinstance(reply, dict):
        reply = _without_placeholders(reply, text)
    try:
        decided = model.model_validate(reply)
    except ValidationError as error:
        problem = error.errors()[0]
        raise MalformedReplyError(f"{name}: {problem['msg']} in {reply!r:.120}") from None
    trace.add(f"decide:{name}", _summary(decided), decided.model_dump(), started)
    return decided


def _without_placeholders(reply: dict[str, Any], text: str) -> dict[str, Any]:
    """A small model sometimes copies the prompt's example back ("next_search": "a short
    search phrase, or empty"): such a field counts as not given (left to its default, or
    missing, which the validation then reports)."""
    shown = _PLACEHOLDER.findall(text.rsplit("Reply as JSON:", 1)[-1])
    echoed = {key for key, example in shown if _same(reply.get(key), example)}
    return {key: value for key, value in reply.items() if key not in echoed}


def _same(value: Any, example: str) -> bool:
    return isinstance(value, str) and value.strip().casefold() == example.strip().casefold()


_PLACEHOLDER = re.compile(r'"(\w+)": "([^"]*)"(?=\s*[,}])')  # not a choice: "yes" | "no"


def _summary(decided: BaseModel) -> str:
    values = decided.model_dump()
    return ", ".join(f"{key}={value!r}" for key, value in values.items())[:200]
