"""Questions generated from a user's own chunks, so `polyrag eval qa` can measure any collection.

Chunks are sampled deterministically (a seed), round-robin over the sources so that one long
document does not supply every question. For each chunk the chat model writes one question and
a short answer copied from it. A question is kept only when it is grounded: its answer's words
are in the chunk, the answer is not given away by the question, and the question does not lean
on "the passage" (it must make sense to someone asking the whole collection). The gold source
is the chunk's file, the gold evidence its text (and its page, when it has one).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from polyrag.answer.prompts import prompt
from polyrag.errors import MalformedReplyError
from polyrag.eval.answer_metrics import normalize_answer
from polyrag.index.store.base import Store
from polyrag.llm.base import ChatModel, Message
from polyrag.llm.structured import ask_json
from polyrag.types import Chunk, Modality

PROMPTS = "polyrag.eval"
MIN_WORDS = 12  # shorter chunks (titles, captions, stray cells) rarely hold a question
MAX_PASSAGE_CHARS = 2400
_DEICTIC = re.compile(
    r"\b(?:the|this|that|above|given) (?:passage|text|excerpt|document|section|paragraph|table)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class GeneratedCase:
    question: str
    answer: str
    chunk: Chunk

    def row(self, number: int) -> dict[str, object]:
        """The JSONL row `polyrag eval qa` reads."""
        row: dict[str, object] = {
            "id": f"generated-{number:04d}",
            "question": self.question,
            "answer": self.answer,
            "source": str(Path(self.chunk.path).resolve()),
            "evidence_texts": [self.chunk.text],
            "chunk_id": self.chunk.chunk_id,
        }
        if self.chunk.locator.page is not None:
            row["evidence_pages"] = [self.chunk.locator.page]
        where = self.chunk.locator.describe()
        if where:
            row["locator"] = where
        return row


def sample_chunks(store: Store, n: int, *, seed: int = 0) -> list[Chunk]:
    """Up to `n` chunks with enough text, taken in turn from each source in a seeded order."""
    rng = random.Random(seed)
    sources = sorted(store.source_ids())
    rng.shuffle(sources)
    pools: list[list[Chunk]] = []
    for source_id in sources:
        eligible = [c for c in store.chunks_of(source_id) if _eligible(c)]
        rng.shuffle(eligible)
        if eligible:
            pools.append(eligible)
    picked: list[Chunk] = []
    while pools and len(picked) < n:
        for pool in list(pools):
            picked.append(pool.pop())
            if not pool:
                pools.remove(pool)
            if len(picked) == n:
                break
    return picked


def generate_cases(
    chunks: Iterable[Chunk],
    model: ChatModel,
    *,
    on_chunk: Callable[[int, int], None] | None = None,
) -> Iterator[GeneratedCase]:
    """A grounded question for each chunk that yields one (chunks that do not are skipped)."""
    chunks = list(chunks)
    for done, chunk in enumerate(chunks, start=1):
        case = generate_case(chunk, model)
        if on_chunk:
            on_chunk(done, len(chunks))
        if case is not None:
            yield case


def generate_case(chunk: Chunk, model: ChatModel) -> GeneratedCase | None:
    messages = [
        Message("system", prompt("generate", PROMPTS)),
        Message(
            "user",
            prompt("generate_passage", PROMPTS).format(
                document=Path(chunk.path).name, passage=chunk.text[:MAX_PASSAGE_CHARS]
            ),
        ),
    ]
    try:
        reply = ask_json(model, messages, max_tokens=160)
    except MalformedReplyError:
        return None
    question, answer = reply.get("question"), reply.get("answer")
    if not isinstance(question, str) or not isinstance(answer, (str, int, float)):
        return None
    question, answer = " ".join(question.split()), " ".join(str(answer).split())
    if not is_grounded(question, answer, chunk.text):
        return None
    return GeneratedCase(question, answer, chunk)


def is_grounded(question: str, answer: str, passage: str) -> bool:
    """Whether a generated pair is worth asking: answerable from the passage, and fair."""
    if len(question) < 12 or not question.endswith("?") or not answer:
        return False
    if _DEICTIC.search(question):
        return False
    answer_words = normalize_answer(answer).split()
    if not answer_words or len(answer_words) > 20:
        return False
    passage_words = set(normalize_answer(passage).split())
    if sum(word in passage_words for word in answer_words) < 0.8 * len(answer_words):
        return False
    return normalize_answer(answer) not in normalize_answer(question)


def write_jsonl(cases: Iterable[GeneratedCase], path: Path) -> int:
    """Write the cases as JSONL (one `eval qa` row each); returns how many were written."""
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        for written, case in enumerate(cases, start=1):
            handle.write(json.dumps(case.row(written), ensure_ascii=False) + "\n")
            handle.flush()
    return written


def _eligible(chunk: Chunk) -> bool:
    kinds = (Modality.TEXT, Modality.TABLE)
    return chunk.modality in kinds and len(chunk.text.split()) >= MIN_WORDS
