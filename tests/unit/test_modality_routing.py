"""Routing by meaning: a question reaches the modalities it is about, and their hits are fused."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from polyrag.retrieve.base import RetrievalResult
from polyrag.retrieve.modalities import DESCRIPTIONS, ModalityRouter
from polyrag.types import Chunk, Filter, Hit, Locator, Modality

TEXT = [
    Hit(
        Chunk(f"t{i}", "s", "/r.pdf", f"text {i}", Locator(page=i)),
        1.0 - i / 10,
        vector_similarity=0.6 - i / 20,
    )
    for i in range(4)
]
AUDIO = [
    Hit(
        Chunk(
            "a1",
            "m",
            "/call.mp3",
            "we agreed the budget",
            Locator(time_span=(5.0, 9.0)),
            Modality.AUDIO,
        ),
        1.0,
        vector_similarity=0.45,
    )
]
TABLE = [
    Hit(
        Chunk("b1", "x", "/t.xlsx", "Row 2: Total is 9", Locator(sheet="S"), Modality.TABLE),
        1.0,
        vector_similarity=0.2,
    )
]


class Retriever:
    def __init__(self, audio_similarity: float = 0.45) -> None:
        self.audio = [replace(AUDIO[0], vector_similarity=audio_similarity)]

    def search(
        self, query: str, k: int | None = None, where: Filter | None = None, mode: str = "hybrid"
    ) -> RetrievalResult:
        if where is not None and where.modalities == (Modality.AUDIO,):
            return RetrievalResult(list(self.audio))
        if where is not None and where.modalities == (Modality.TABLE,):
            return RetrievalResult(list(TABLE))
        return RetrievalResult(list(TEXT[: k or 4]))


def embed_for(question_vector: list[float]):  # type: ignore[no-untyped-def]
    descriptions = {text: np.eye(3)[i] for i, text in enumerate(DESCRIPTIONS.values())}

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.asarray([descriptions.get(t, question_vector) for t in texts], dtype=np.float32)

    return embed


def counts(where: Filter) -> int:
    return 0 if where.modalities == (Modality.PICTURE,) else 5


def test_a_question_about_a_recording_reaches_the_recording() -> None:
    router = ModalityRouter(Retriever(), counts, embed_for([0.0, 0.0, 1.0]))  # "the call"
    result, joined = router.search("What did they agree in the call?", k=4)
    assert joined == ["audio (asked about)"]
    assert "a1" in [h.chunk.chunk_id for h in result.hits]


def test_a_close_modality_joins_and_a_far_one_does_not() -> None:
    about_nothing = embed_for([-1.0, -1.0, -1.0])
    _, joined = ModalityRouter(Retriever(), counts, about_nothing).search("budget?", k=4)
    assert joined == []  # the recording's best (0.45) is far below the text's (0.6)
    result, joined = ModalityRouter(Retriever(0.55), counts, about_nothing).search("budget?", k=4)
    assert joined == ["audio (close)"]  # 0.55 is within the margin: it joins; the table does not
    assert [h.chunk.chunk_id for h in result.hits][-1] == "a1"


def test_a_question_already_limited_to_a_modality_is_not_fanned_out() -> None:
    router = ModalityRouter(Retriever(), counts, embed_for([0.0, 0.0, 1.0]))
    _, joined = router.search("x", k=4, where=Filter(modalities=(Modality.TEXT,)))
    assert joined == []


def test_asked_only_searches_just_the_modalities_the_question_speaks_of() -> None:
    searched: list[Filter | None] = []

    class Counting(Retriever):
        def search(
            self,
            query: str,
            k: int | None = None,
            where: Filter | None = None,
            mode: str = "hybrid",
        ) -> RetrievalResult:
            searched.append(where)
            return super().search(query, k, where, mode)

    # Close enough to join as "all" would let it, but the question speaks of no recording.
    about_nothing = embed_for([-1.0, -1.0, -1.0])
    router = ModalityRouter(Counting(0.55), counts, about_nothing)
    result, joined = router.search("budget?", k=4, asked_only=True)
    assert joined == [] and searched == [None]  # the plain search alone
    assert [h.chunk.chunk_id for h in result.hits] == ["t0", "t1", "t2", "t3"]
    # Speaking of the call: the recordings are searched, the tables are not.
    searched.clear()
    router = ModalityRouter(Counting(), counts, embed_for([0.0, 0.0, 1.0]))
    result, joined = router.search("What did they agree in the call?", k=4, asked_only=True)
    assert joined == ["audio (asked about)"]
    # The plain ranking stays, but for the recording's best passage, third at the latest.
    assert [h.chunk.chunk_id for h in result.hits] == ["t0", "t1", "a1", "t2"]
    assert result.hits[2].score == result.hits[1].score
    assert [w.modalities for w in searched if w is not None] == [(Modality.AUDIO,)]


def test_a_kinds_best_passage_moves_up_only_when_ranked_below_third() -> None:
    from polyrag.retrieve.modalities import _with_best_of

    plain = [*TEXT, AUDIO[0]]  # the recording's passage fifth
    moved = _with_best_of(plain, [AUDIO[0]], 5)
    assert [h.chunk.chunk_id for h in moved] == ["t0", "t1", "a1", "t2", "t3"]
    early = [TEXT[0], AUDIO[0], *TEXT[1:]]
    assert _with_best_of(early, [AUDIO[0]], 5) == early  # second already: left where it is
