"""Memory of questions answered before: the answer and the passages that answered it.

Each answered question is kept with its embedding, its answer (citations included) and the
sources it rests on, in SQLite under the polyrag home. A new question close enough to one of
them (cosine ≥ `agent.memory_similarity`, asked with the same filter) gets that answer back at
once; a question that is only similar gets the remembered passages added to what retrieval
finds. A memory is forgotten as soon as one of its sources is no longer in the index in the
same version (a changed file has a new source id, a removed one none), so an answer from a
deleted or edited file is never given; nor is an answer the user found not helpful.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from polyrag.agent.state import chunk_from_dict, chunk_to_dict
from polyrag.types import Answer, Citation, Filter, Hit

SIMILAR = 0.85  # cosine at which remembered passages join a new question's evidence
MAX_ROWS = 2000  # the oldest memories are forgotten beyond this

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id INTEGER PRIMARY KEY,
    question TEXT NOT NULL,
    scope TEXT NOT NULL,
    vector BLOB NOT NULL,
    answer TEXT NOT NULL,
    sources TEXT NOT NULL,
    created REAL NOT NULL
)
"""


@dataclass(frozen=True)
class Recalled:
    question: str
    similarity: float
    answer: Answer | None  # the answer to reuse (a repeated question), else None
    hits: tuple[Hit, ...]  # the passages that answered it


class Memory:
    """Thread safe; `live` tells which source ids the index holds now."""

    def __init__(
        self,
        file: Path,
        embed: Callable[[Sequence[str]], Any],
        live: Callable[[], set[str]],
        *,
        repeat_similarity: float,
    ) -> None:
        file.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(file), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._lock = threading.Lock()
        self._embed = embed
        self._live = live
        self._repeat = repeat_similarity

    def recall(self, question: str, where: Filter | None) -> Recalled | None:
        vector = self._vector(question)
        scope = _scope(where)
        with self._lock:
            rows = self._db.execute(
                "SELECT id, question, vector, answer, sources FROM memories WHERE scope = ?",
                (scope,),
            ).fetchall()
        if not rows:
            return None
        vectors = np.stack([np.frombuffer(row[2], dtype=np.float32) for row in rows])
        similarities = vectors @ vector
        order = np.argsort(-similarities)
        live = self._live()
        for index in order[:5]:
            similarity = float(similarities[index])
            if similarity < SIMILAR:
                return None
            row_id, asked, _vector, answer_json, sources_json = rows[index]
            if not set(json.loads(sources_json)) <= live:  # a source changed or went away
                self._forget(row_id)
                continue
            answer = _answer_from(json.loads(answer_json))
            hits = tuple(Hit(c.chunk, 1.0, None, None, 1.0) for c in answer.citations)
            reused = answer if similarity >= self._repeat else None
            return Recalled(asked, similarity, reused, hits)
        return None

    def remember(self, question: str, where: Filter | None, answer: Answer) -> None:
        """Keep an answer worth reusing: answered, cited, not waiting for the user."""
        if answer.refused or answer.clarify or not answer.citations:
            return
        sources = sorted({c.chunk.source_id for c in answer.citations})
        data = json.dumps(_answer_to(answer), ensure_ascii=False)
        blob = self._vector(question).astype(np.float32).tobytes()
        with self._lock:
            self._db.execute(
                "INSERT INTO memories (question, scope, vector, answer, sources, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (question, _scope(where), blob, data, json.dumps(sources), time.time()),
            )
            self._db.execute(
                "DELETE FROM memories WHERE id NOT IN "
                f"(SELECT id FROM memories ORDER BY id DESC LIMIT {MAX_ROWS})"
            )

    def forget(self, question: str) -> int:
        """Forget the answers given to this question (and to its retypings) in any scope, as
        when the user found one not helpful: asked again, it is answered anew. Returns how many
        there were."""
        vector = self._vector(question)
        with self._lock:
            rows = self._db.execute("SELECT id, vector FROM memories").fetchall()
            same = [
                row_id
                for row_id, blob in rows
                if float(np.frombuffer(blob, dtype=np.float32) @ vector) >= self._repeat
            ]
            self._db.executemany("DELETE FROM memories WHERE id = ?", [(i,) for i in same])
        return len(same)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _forget(self, row_id: int) -> None:
        with self._lock:
            self._db.execute("DELETE FROM memories WHERE id = ?", (row_id,))

    def _vector(self, text: str) -> np.ndarray:
        vector = np.asarray(self._embed([text]), dtype=np.float32)[0]
        norm = float(np.linalg.norm(vector)) or 1.0
        return vector / norm


def _scope(where: Filter | None) -> str:
    if where is None or where.is_empty():
        return ""
    return json.dumps(
        {
            "sources": sorted(where.source_ids),
            "modalities": sorted(m.value for m in where.modalities),
            "pages": sorted(where.pages),
        }
    )


def _answer_to(answer: Answer) -> dict[str, Any]:
    return {
        "question": answer.question,
        "text": answer.text,
        "citations": [{"n": c.n, "chunk": chunk_to_dict(c.chunk)} for c in answer.citations],
        "provider": answer.provider,
        "mode": answer.mode,
        "partial": answer.partial,
    }


def _answer_from(data: dict[str, Any]) -> Answer:
    return Answer(
        question=data["question"],
        text=data["text"],
        refused=False,
        citations=tuple(Citation(c["n"], chunk_from_dict(c["chunk"])) for c in data["citations"]),
        provider=data.get("provider"),
        timings_ms={},
        mode=data.get("mode", "fast"),
        partial=bool(data.get("partial")),
    )
