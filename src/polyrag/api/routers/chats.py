"""Chats: conversations kept under the workspace's home, so a follow-up uses the history after
a restart; each answer can be judged helpful or not."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from polyrag.api.deps import EngineDep
from polyrag.api.routers.ask import events
from polyrag.api.schemas import ChatAskBody, ChatBody, FeedbackBody
from polyrag.chats import Chat, MessageNotFoundError, answer_from_dict
from polyrag.engine import Engine
from polyrag.types import Answer

router = APIRouter(prefix="/api/v1/workspaces/{workspace}/chats", tags=["chats"])


@router.post("", status_code=201, summary="Start a chat")
def create_chat(body: ChatBody, engine: EngineDep) -> dict[str, Any]:
    return engine.chats.create(body.title).to_dict()


@router.get("", summary="The chats, most recent first")
def list_chats(engine: EngineDep) -> dict[str, Any]:
    return {"chats": [chat.to_dict(messages=False) for chat in engine.chats.list()]}


@router.get("/{chat_id}", summary="A chat with its messages and feedback")
def get_chat(chat_id: str, engine: EngineDep) -> dict[str, Any]:
    return engine.chats.get(chat_id).to_dict()


@router.delete("/{chat_id}", status_code=204, summary="Delete a chat")
def delete_chat(chat_id: str, engine: EngineDep) -> Response:
    engine.chats.delete(chat_id)
    return Response(status_code=204)


@router.post("/{chat_id}/ask", summary="Ask in a chat (its history informs a follow-up)")
def ask_in_chat(chat_id: str, body: ChatAskBody, engine: EngineDep) -> dict[str, Any]:
    """When the last answer asked a clarifying question, this question is the reply to it."""
    chat = engine.chats.get(chat_id)
    answer = engine.ask(body.question, mode=body.mode, **_context(chat, body, engine))
    stored = engine.chats.add_turn(chat_id, body.question, answer)
    return {"message_id": stored.message_id, **answer.to_dict()}


@router.post(
    "/{chat_id}/ask/stream",
    response_class=EventSourceResponse,
    summary="Ask in a chat, as server-sent events",
)
def ask_in_chat_stream(
    chat_id: str, body: ChatAskBody, engine: EngineDep
) -> Iterator[ServerSentEvent]:
    """The events of `/ask/stream`; the `answer` event also carries the stored `message_id`."""
    chat = engine.chats.get(chat_id)
    asked = engine.ask_events(body.question, mode=body.mode, **_context(chat, body, engine))

    def stored(answer: Answer) -> dict[str, Any]:
        message = engine.chats.add_turn(chat_id, body.question, answer)
        return {"message_id": message.message_id}

    yield from events(asked, on_answer=stored)


@router.post("/{chat_id}/messages/{message_id}/feedback", summary="Judge an answer")
def feedback(
    chat_id: str, message_id: int, body: FeedbackBody, engine: EngineDep
) -> dict[str, Any]:
    """Stored with the answer (a later verdict replaces it). With `reconsider` on an answer
    that did not help, the question is answered again with the comment, or the agent asks
    back what was wanted; that new answer joins the chat and is returned as `answer`."""
    judged = engine.chats.feedback(chat_id, message_id, body.helpful, body.comment)
    out: dict[str, Any] = {"message": judged.to_dict()}
    if body.reconsider and not body.helpful:
        if judged.answer is None:
            raise MessageNotFoundError(f"answer {message_id} was not stored with its sources")
        again = engine.not_helpful(answer_from_dict(judged.answer), body.comment)
        said = body.comment or "That did not help."
        message = engine.chats.add_turn(chat_id, said, again)
        out["answer"] = {"message_id": message.message_id, **again.to_dict()}
    return out


def _context(chat: Chat, body: ChatAskBody, engine: Engine) -> dict[str, Any]:
    thread = chat.waiting_thread()
    turns = engine.settings.answer.history_turns
    return {
        "history": [] if thread else chat.history(turns),
        "earlier": [] if thread else chat.answers(turns),
        "where": body.where(),
        "thread": thread,
    }
