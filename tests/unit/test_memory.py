"""The memory of answered questions: the same question gets its answer back, a similar one its
passages, and nothing is recalled once a source it rests on changed or went away."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from polyrag.agent.memory import Memory
from polyrag.types import Answer, Chunk, Citation, Filter, Locator

VECTORS = {
    "What is the hotel cap in London?": [1.0, 0.0, 0.0],
    "what is the hotel cap in london": [0.99, 0.05, 0.0],  # the same question, retyped
    "Which hotels are allowed in London?": [0.9, 0.43, 0.0],  # similar
    "Who founded the company?": [0.0, 0.0, 1.0],  # unrelated
}


def embed(texts: Sequence[str]) -> np.ndarray:
    return np.asarray([VECTORS[t] for t in texts], dtype=np.float32)


def answer(source_id: str = "policy-v1") -> Answer:
    chunk = Chunk(
        "c1", source_id, "/docs/policy.md", "The hotel cap in London is 180 GBP.", Locator(page=2)
    )
    return Answer(
        question="What is the hotel cap in London?",
        text="The cap is 180 GBP per night [1].",
        refused=False,
        citations=(Citation(1, chunk),),
        provider="local",
        timings_ms={"total": 4000.0},
        mode="agent",
    )


def test_recall_by_similarity_and_forget_when_the_source_changes(tmp_path: Path) -> None:
    live = {"policy-v1"}
    memory = Memory(tmp_path / "memory.sqlite", embed, lambda: live, repeat_similarity=0.95)
    memory.remember("What is the hotel cap in London?", None, answer())

    same = memory.recall("what is the hotel cap in london", None)
    assert same is not None and same.answer is not None
    assert same.answer.text == "The cap is 180 GBP per night [1]."

    similar = memory.recall("Which hotels are allowed in London?", None)
    assert similar is not None and similar.answer is None
    assert [h.chunk.chunk_id for h in similar.hits] == ["c1"]

    assert memory.recall("Who founded the company?", None) is None
    assert memory.recall("what is the hotel cap in london", Filter(source_ids=("x",))) is None

    live.clear()
    live.add("policy-v2")  # the file was edited: its content has a new source id
    assert memory.recall("what is the hotel cap in london", None) is None
    live.add("policy-v1")
    assert memory.recall("what is the hotel cap in london", None) is None  # forgotten for good
    memory.close()


def test_refusals_and_pending_clarifications_are_not_remembered(tmp_path: Path) -> None:
    memory = Memory(
        tmp_path / "memory.sqlite", embed, lambda: {"policy-v1"}, repeat_similarity=0.95
    )
    refused = Answer("What is the hotel cap in London?", "no", True, (), None, {})
    memory.remember("What is the hotel cap in London?", None, refused)
    assert memory.recall("What is the hotel cap in London?", None) is None
    memory.close()


def test_an_answer_found_not_helpful_is_forgotten_in_every_scope(tmp_path: Path) -> None:
    memory = Memory(
        tmp_path / "memory.sqlite", embed, lambda: {"policy-v1"}, repeat_similarity=0.95
    )
    memory.remember("What is the hotel cap in London?", None, answer())
    memory.remember("What is the hotel cap in London?", Filter(source_ids=("policy-v1",)), answer())
    memory.remember("Who founded the company?", None, answer())
    assert memory.forget("what is the hotel cap in london") == 2  # retyped, both scopes
    assert memory.recall("What is the hotel cap in London?", None) is None
    assert memory.recall("Who founded the company?", None) is not None
    memory.close()


def test_the_engine_forgets_an_answer_the_user_found_not_helpful(tmp_path: Path) -> None:
    """Without the forgetting, the same question asked again after "not helpful" would get the
    judged answer back from memory."""
    from polyrag.engine import Engine
    from polyrag.settings import load_settings

    class AsksBack:
        def reconsider(self, request: object, judged: Answer, trace: object) -> Answer:
            return replace(judged, text="", clarify="Which policy do you mean?", thread="t1")

    engine = Engine(load_settings(tmp_path))
    memory = Memory(
        tmp_path / "memory.sqlite", embed, lambda: {"policy-v1"}, repeat_similarity=0.95
    )
    engine.__dict__.update(memory=memory, agent=AsksBack())
    memory.remember("What is the hotel cap in London?", None, answer())
    assert engine.not_helpful(answer()).clarify == "Which policy do you mean?"
    assert memory.recall("What is the hotel cap in London?", None) is None
    memory.close()
