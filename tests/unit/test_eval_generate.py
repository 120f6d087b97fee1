"""Generated questions: sampling over sources, the grounding filter, and the JSONL rows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from polyrag.eval.generate import (
    GeneratedCase,
    generate_case,
    generate_cases,
    is_grounded,
    sample_chunks,
    write_jsonl,
)
from polyrag.types import Chunk, Locator, Modality

from .replies import Replies

PASSAGE = (
    "The Marigold Bakery opened on 3 May 2021 on Quay Street. Its sourdough loaf costs "
    "4 pounds and sells out by noon on Saturdays."
)


def chunk(source: str, ordinal: int, words: int = 20, page: int | None = None) -> Chunk:
    return Chunk(
        chunk_id=f"{source}-{ordinal}",
        source_id=source,
        path=f"/docs/{source}.pdf",
        text=" ".join(f"w{ordinal}x{i}" for i in range(words)),
        locator=Locator(page=page),
        modality=Modality.TEXT,
        ordinal=ordinal,
    )


@dataclass
class Chunks:
    """Just the two reads sampling needs from a store."""

    by_source: dict[str, list[Chunk]]

    def source_ids(self) -> set[str]:
        return set(self.by_source)

    def chunks_of(self, source_id: str) -> list[Chunk]:
        return list(self.by_source[source_id])


STORE = Chunks(
    {
        "long": [chunk("long", i) for i in range(30)],
        "short": [chunk("short", 0), chunk("short", 1, words=3)],
        "mid": [chunk("mid", i) for i in range(3)],
    }
)


def test_sampling_takes_turns_over_sources_and_skips_short_chunks() -> None:
    picked = sample_chunks(STORE, 6)  # type: ignore[arg-type]
    sources = [c.source_id for c in picked]
    assert sorted(set(sources[:3])) == ["long", "mid", "short"]  # one from each first
    assert "short-1" not in {c.chunk_id for c in sample_chunks(STORE, 100)}  # type: ignore[arg-type]
    assert len(sample_chunks(STORE, 100)) == 30 + 1 + 3  # type: ignore[arg-type]


def test_sampling_is_seeded() -> None:
    first = sample_chunks(STORE, 8, seed=1)  # type: ignore[arg-type]
    assert first == sample_chunks(STORE, 8, seed=1)  # type: ignore[arg-type]
    assert first != sample_chunks(STORE, 8, seed=2)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("question", "answer", "kept"),
    [
        ("How much does a Marigold Bakery sourdough loaf cost?", "4 pounds", True),
        ("When did the Marigold Bakery open?", "3 May 2021", True),
        ("What does the passage say the loaf costs?", "4 pounds", False),  # leans on the passage
        ("How much does a Marigold Bakery sourdough loaf cost?", "6 euros", False),  # not in it
        ("Does the loaf cost 4 pounds?", "4 pounds", False),  # answer given away
        ("Where is the Marigold Bakery", "Quay Street", False),  # not a question
        ("When did the Marigold Bakery open?", "", False),
    ],
)
def test_grounding_filter(question: str, answer: str, kept: bool) -> None:
    assert is_grounded(question, answer, PASSAGE) is kept


def test_a_case_comes_from_the_model_and_the_chunk() -> None:
    source = Chunk("c1", "s1", "/docs/bakery.md", PASSAGE, Locator(page=2))
    model = Replies(['{"question": "When did the Marigold Bakery open?", "answer": "3 May 2021"}'])
    case = generate_case(source, model)
    assert case == GeneratedCase("When did the Marigold Bakery open?", "3 May 2021", source)
    ((messages, options),) = model.asked
    assert options.json_output and PASSAGE in messages[-1].content
    assert "bakery.md" in messages[-1].content


def test_ungrounded_or_malformed_replies_give_no_case() -> None:
    source = Chunk("c1", "s1", "/docs/bakery.md", PASSAGE, Locator())
    model = Replies(
        ["not json", "still not", '{"question": "What is the text about?", "answer": "bread"}']
    )
    assert list(generate_cases([source, source], model)) == []


def test_rows_are_what_eval_qa_reads(tmp_path: Path) -> None:
    source = Chunk("c1", "s1", "/docs/bakery.pdf", PASSAGE, Locator(page=2))
    cases = [GeneratedCase("When did the Marigold Bakery open?", "3 May 2021", source)] * 2
    target = tmp_path / "generated.jsonl"
    assert write_jsonl(iter(cases), target) == 2
    first, second = (json.loads(line) for line in target.read_text().splitlines())
    assert first["id"] != second["id"]
    assert first["source"] == "/docs/bakery.pdf" and first["evidence_pages"] == [2]
    assert first["evidence_texts"] == [PASSAGE] and first["chunk_id"] == "c1"
