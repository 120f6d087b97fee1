"""Questions: answered as JSON, or as server-sent events that show the evidence before the
reply is written."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from fastapi import APIRouter
from fastapi.sse import EventSourceResponse, ServerSentEvent

from polyrag.api.deps import EngineDep
from polyrag.api.errors import body as error_body
from polyrag.api.schemas import AskBody
from polyrag.errors import PolyragError
from polyrag.types import Answer, AnswerEvent, AskEvent, EvidenceEvent, StepEvent, TokenEvent

router = APIRouter(prefix="/api/v1/workspaces/{workspace}", tags=["ask"])


@router.post("/ask", summary="Answer a question from the workspace's sources")
def ask(body: AskBody, engine: EngineDep) -> dict[str, Any]:
    """The answer with its citations (each with its locator), the provider that wrote it and
    those passed over, the refusal reason when it is refused, and the steps it took."""
    answer = engine.ask(
        body.question, history=_turns(body), where=body.where(), mode=body.mode, thread=body.thread
    )
    return answer.to_dict()


@router.post(
    "/ask/stream",
    response_class=EventSourceResponse,
    summary="Answer a question as server-sent events",
)
def ask_stream(body: AskBody, engine: EngineDep) -> Iterator[ServerSentEvent]:
    """Named events: `step` (each step as it finishes), `evidence` (the numbered passages the
    reply is written from, before it is written), `token` (the reply's text as it is
    generated), then `answer` (the whole answer, as `/ask` returns it) or `error`."""
    asked = engine.ask_events(
        body.question, history=_turns(body), where=body.where(), mode=body.mode, thread=body.thread
    )
    yield from events(asked)


def events(
    asked: Iterator[AskEvent],
    on_answer: Callable[[Answer], dict[str, Any]] | None = None,
) -> Iterator[ServerSentEvent]:
    """The engine's events as named server-sent events; `on_answer` may add fields to the
    `answer` event (a chat adds the stored message's id)."""
    try:
        for event in asked:
            if isinstance(event, StepEvent):
                yield ServerSentEvent(data=event.step.to_dict(), event="step")
            elif isinstance(event, EvidenceEvent):
                cited = [citation.to_dict() for citation in event.evidence]
                yield ServerSentEvent(data={"evidence": cited}, event="evidence")
            elif isinstance(event, TokenEvent):
                yield ServerSentEvent(data={"text": event.text}, event="token")
            elif isinstance(event, AnswerEvent):
                extra = on_answer(event.answer) if on_answer else {}
                yield ServerSentEvent(data={**extra, **event.answer.to_dict()}, event="answer")
    except PolyragError as error:  # the stream has begun: the error is its last event
        yield ServerSentEvent(
            data=error_body(str(error), error.hint, error.retryable), event="error"
        )


def _turns(body: AskBody) -> list[tuple[str, str]]:
    return [(turn.question, turn.answer) for turn in body.history]
