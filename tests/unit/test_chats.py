"""Chats kept under the home: turns, history, clarifications, feedback, restarts."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyrag.chats import ChatNotFoundError, ChatStore, MessageNotFoundError, answer_from_dict
from polyrag.types import Answer, Chunk, Citation, Locator


def answer(question: str, text: str, **extra: object) -> Answer:
    chunk = Chunk("c1", "s1", "/docs/policy.md", "The cap is GBP 180.", Locator(page=2))
    return Answer(question, text, False, (Citation(1, chunk),), "local:qwen", {}, **extra)  # type: ignore[arg-type]


def test_turns_survive_a_restart_and_make_the_history(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "chats.sqlite")
    chat = store.create()
    assert chat.title == "New chat"
    store.add_turn(chat.chat_id, "What is the hotel cap in London?", answer("q1", "GBP 180 [1]"))
    store.add_turn(chat.chat_id, "And elsewhere?", answer("q2", "GBP 140 [1]"))
    store.close()

    again = ChatStore(tmp_path / "chats.sqlite")
    kept = again.get(chat.chat_id)
    assert kept.title == "What is the hotel cap in London?"  # the first question titles it
    assert [m.role for m in kept.messages] == ["user", "assistant", "user", "assistant"]
    assert kept.history(5) == [
        ("What is the hotel cap in London?", "GBP 180 [1]"),
        ("And elsewhere?", "GBP 140 [1]"),
    ]
    assert kept.history(1) == [("And elsewhere?", "GBP 140 [1]")]
    cited = kept.messages[1].answer
    assert cited is not None and cited["citations"][0]["locator"]["page"] == 2
    assert [c.chat_id for c in again.list()] == [chat.chat_id]


def test_a_clarifying_question_waits_for_its_reply(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "chats.sqlite")
    chat = store.create("Reports")
    asked_back = answer("q", "Which report do you mean?", clarify="Which report?", thread="t1")
    store.add_turn(chat.chat_id, "What was revenue in the report?", asked_back)
    waiting = store.get(chat.chat_id)
    assert waiting.waiting_thread() == "t1"
    assert waiting.history(5) == []  # a question asked back is not a turn of its own
    store.add_turn(chat.chat_id, "The 2023 one", answer("q", "Revenue was 5 M [1]"))
    answered = store.get(chat.chat_id)
    assert answered.waiting_thread() is None
    assert answered.title == "Reports"


def test_feedback_is_kept_with_its_answer(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "chats.sqlite")
    chat = store.create()
    message = store.add_turn(chat.chat_id, "Cap?", answer("Cap?", "GBP 180 [1]"))
    judged = store.feedback(chat.chat_id, message.message_id, False, "I meant Paris")
    assert judged.feedback is not None
    assert (judged.feedback["helpful"], judged.feedback["comment"]) == (False, "I meant Paris")
    again = store.feedback(chat.chat_id, message.message_id, True)
    assert again.feedback is not None and again.feedback["helpful"] is True
    with pytest.raises(MessageNotFoundError):
        store.feedback(chat.chat_id, message.message_id - 1, True)  # the question, not an answer
    rebuilt = answer_from_dict(again.answer or {})
    assert rebuilt.question == "Cap?" and rebuilt.citations[0].chunk.path == "/docs/policy.md"
    assert rebuilt.citations[0].chunk.locator.page == 2


def test_unknown_and_deleted_chats(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "chats.sqlite")
    chat = store.create()
    store.add_turn(chat.chat_id, "Cap?", answer("Cap?", "GBP 180 [1]"))
    store.delete(chat.chat_id)
    with pytest.raises(ChatNotFoundError):
        store.get(chat.chat_id)
    with pytest.raises(ChatNotFoundError):
        store.delete(chat.chat_id)
    with pytest.raises(ChatNotFoundError):
        store.add_turn("nope", "Cap?", answer("Cap?", "x"))
    assert store.list() == []
