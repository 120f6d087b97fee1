"""Conversations kept under the home (SQLite): their questions, answers and feedback, so that a
follow-up uses the conversation's history after a restart.

A chat is a list of messages: each question (`user`) and its answer (`assistant`, stored as
the answer's JSON: text, citations with locators, provider, refusal reason, steps). A person's
verdict on an answer (helpful or not, with an optional comment) is kept with that answer.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyrag.errors import PolyragError
from polyrag.types import Answer, Chunk, Citation, Locator, Modality

_SCHEMA = """
CREATE TABLE IF NOT EXISTS chats (
    chat_id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    message_id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id TEXT NOT NULL REFERENCES chats(chat_id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    text TEXT NOT NULL,
    answer TEXT,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_chat ON messages (chat_id, message_id);
CREATE TABLE IF NOT EXISTS feedback (
    message_id INTEGER PRIMARY KEY REFERENCES messages(message_id) ON DELETE CASCADE,
    helpful INTEGER NOT NULL,
    comment TEXT,
    created_at REAL NOT NULL
);
"""
_TITLE_CHARS = 80


class ChatNotFoundError(PolyragError):
    hint = "list the chats to find its id"


class MessageNotFoundError(PolyragError):
    hint = "feedback goes to an answer (an assistant message) of this chat"


@dataclass(frozen=True)
class Message:
    message_id: int
    role: str  # user or assistant
    text: str
    answer: dict[str, Any] | None  # the answer's JSON, for an assistant message
    created_at: float
    feedback: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "message_id": self.message_id,
            "role": self.role,
            "text": self.text,
            "created_at": self.created_at,
        }
        if self.answer is not None:
            out["answer"] = self.answer
        if self.feedback is not None:
            out["feedback"] = self.feedback
        return out


@dataclass(frozen=True)
class Chat:
    chat_id: str
    title: str
    created_at: float
    updated_at: float
    messages: tuple[Message, ...] = ()

    def to_dict(self, *, messages: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "chat_id": self.chat_id,
            "title": self.title,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }
        if messages:
            out["messages"] = [message.to_dict() for message in self.messages]
        return out

    def history(self, turns: int) -> list[tuple[str, str]]:
        """The last `turns` answered questions, oldest first, as (question, answer text); a
        clarifying question asked back and its reply are not turns of their own."""
        pairs: list[tuple[str, str]] = []
        asked: str | None = None
        for message in self.messages:
            if message.role == "user":
                asked = message.text
            elif asked is not None and message.answer and not message.answer.get("clarify"):
                pairs.append((asked, message.text))
                asked = None
        return pairs[-turns:] if turns > 0 else []

    def answers(self, turns: int) -> list[Answer]:
        """The answers of the last `turns` answered questions, oldest first, rebuilt with
        their citations (a clarifying question asked back is no answer)."""
        found = [
            answer_from_dict(message.answer)
            for message in self.messages
            if message.role == "assistant" and message.answer and not message.answer.get("clarify")
        ]
        return found[-turns:] if turns > 0 else []

    def waiting_thread(self) -> str | None:
        """The agent thread the last answer paused on a clarifying question, if it did."""
        last = self.messages[-1] if self.messages else None
        if last is None or last.role != "assistant" or not last.answer:
            return None
        return last.answer.get("thread") if last.answer.get("clarify") else None


class ChatStore:
    """The home's chats; safe to share between threads (one connection, one lock)."""

    def __init__(self, file: Path) -> None:
        file.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(file), isolation_level=None, check_same_thread=False)
        self._lock = threading.RLock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)

    def create(self, title: str = "") -> Chat:
        now = time.time()
        chat = Chat(uuid.uuid4().hex[:16], _title(title) or "New chat", now, now)
        with self._lock:
            self._db.execute(
                "INSERT INTO chats VALUES (?, ?, ?, ?)",
                (chat.chat_id, chat.title, chat.created_at, chat.updated_at),
            )
        return chat

    def list(self) -> list[Chat]:
        with self._lock:
            rows = self._db.execute(
                "SELECT chat_id, title, created_at, updated_at FROM chats ORDER BY updated_at DESC"
            ).fetchall()
        return [Chat(*row) for row in rows]

    def get(self, chat_id: str) -> Chat:
        with self._lock:
            row = self._db.execute(
                "SELECT chat_id, title, created_at, updated_at FROM chats WHERE chat_id = ?",
                (chat_id,),
            ).fetchone()
            if row is None:
                raise ChatNotFoundError(f"no chat with id {chat_id!r}")
            rows = self._db.execute(
                "SELECT m.message_id, m.role, m.text, m.answer, m.created_at, "
                "f.helpful, f.comment, f.created_at FROM messages m "
                "LEFT JOIN feedback f ON f.message_id = m.message_id "
                "WHERE m.chat_id = ? ORDER BY m.message_id",
                (chat_id,),
            ).fetchall()
        messages = tuple(
            Message(
                number,
                role,
                text,
                json.loads(answer) if answer else None,
                created,
                {"helpful": bool(helpful), "comment": comment, "created_at": judged}
                if helpful is not None
                else None,
            )
            for number, role, text, answer, created, helpful, comment, judged in rows
        )
        chat_id, title, created, updated = row
        return Chat(chat_id, title, created, updated, messages)

    def delete(self, chat_id: str) -> None:
        with self._lock:
            found = self._db.execute("DELETE FROM chats WHERE chat_id = ?", (chat_id,)).rowcount
        if not found:
            raise ChatNotFoundError(f"no chat with id {chat_id!r}")

    def add_turn(self, chat_id: str, question: str, answer: Answer) -> Message:
        """Store a question and its answer together (a chat never keeps half a turn); the
        first question titles a chat that has no title yet."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                chat = self._db.execute(
                    "SELECT title FROM chats WHERE chat_id = ?", (chat_id,)
                ).fetchone()
                if chat is None:
                    raise ChatNotFoundError(f"no chat with id {chat_id!r}")
                self._db.execute(
                    "INSERT INTO messages (chat_id, role, text, answer, created_at) "
                    "VALUES (?, 'user', ?, NULL, ?)",
                    (chat_id, question, now),
                )
                stored = json.dumps(answer_to_dict(answer), ensure_ascii=False)
                cursor = self._db.execute(
                    "INSERT INTO messages (chat_id, role, text, answer, created_at) "
                    "VALUES (?, 'assistant', ?, ?, ?)",
                    (chat_id, answer.text, stored, now),
                )
                title = chat[0] if chat[0] != "New chat" else _title(question)
                self._db.execute(
                    "UPDATE chats SET updated_at = ?, title = ? WHERE chat_id = ?",
                    (now, title, chat_id),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return Message(int(cursor.lastrowid or 0), "assistant", answer.text, None, now)

    def feedback(
        self, chat_id: str, message_id: int, helpful: bool, comment: str | None = None
    ) -> Message:
        """A person's verdict on an answer; a later verdict replaces an earlier one."""
        chat = self.get(chat_id)
        found = [m for m in chat.messages if m.message_id == message_id]
        if not found or found[0].role != "assistant":
            raise MessageNotFoundError(f"chat {chat_id!r} has no answer {message_id}")
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO feedback VALUES (?, ?, ?, ?)",
                (message_id, int(helpful), comment, time.time()),
            )
        return next(m for m in self.get(chat_id).messages if m.message_id == message_id)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def answer_to_dict(answer: Answer) -> dict[str, Any]:
    """The answer as the API returns it (its citations carry what rebuilds them)."""
    return answer.to_dict()


def answer_from_dict(data: dict[str, Any]) -> Answer:
    """An answer rebuilt from its stored JSON: enough to judge it again (question, text,
    citations with their places); timings and steps are not kept."""
    citations = tuple(
        Citation(
            int(c["n"]),
            Chunk(
                chunk_id=str(c.get("chunk_id", "")),
                source_id=str(c["source_id"]),
                path=str(c["path"]),
                text=str(c.get("text", "")),
                locator=Locator.from_dict(c.get("locator") or {}),
                modality=Modality(c.get("modality", "text")),
            ),
        )
        for c in data.get("citations", [])
    )
    return Answer(
        question=str(data.get("question", "")),
        text=str(data.get("answer", "")),
        refused=bool(data.get("refused")),
        citations=citations,
        provider=data.get("provider"),
        timings_ms={},
        refusal_reason=data.get("refusal_reason"),
        mode=str(data.get("mode", "fast")),
        partial=bool(data.get("partial")),
        thread=data.get("thread"),
        clarify=data.get("clarify"),
    )


def _title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1].rstrip() + "…"
