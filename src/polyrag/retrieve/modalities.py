"""Routing by meaning: a question goes to the kinds of content it is about.

Besides the plain search over everything, the question is searched within each modality the
index holds (tables, pictures, recordings). A modality joins the results when the question is
close in meaning to what it holds — its best passage is nearly as similar to the question as
the best passage overall, or the question itself speaks of that kind of content (its embedding
is close to a description of it: "a spreadsheet…", "a recording…") — and the lists are fused by
rank. A question about a chart in a text-heavy library then still finds the chart, and one that
spans a recording and a report gets both.

`asked_only` keeps to the modalities the question speaks of and leaves the plain ranking as it
is but for each one's best passage, which comes third at the latest (auto mode's first search:
a question that names no kind of content costs one embedding more, not three searches; finance
questions often sit close to the description of a table, and a re-fused ranking pushed the
paragraph that answers them out of the evidence).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal

import numpy as np

from polyrag.retrieve.base import RetrievalResult, Retriever
from polyrag.retrieve.fusion import reciprocal_rank_fusion
from polyrag.types import Filter, Hit, Modality

DESCRIPTIONS = {
    Modality.TABLE: "a table, spreadsheet, sheet, rows and columns of figures, totals",
    Modality.PICTURE: "a picture, image, photo, scanned page, chart, diagram or figure",
    Modality.AUDIO: "a recording, meeting, call, podcast, speech, what someone said, video",
}
MARGIN = 0.08  # a modality whose best passage is this close to the overall best joins
MENTION = 0.28  # a question this similar to a modality's description is about that modality
PER_MODALITY = 3  # passages each joining modality contributes
MODALITY_WEIGHT = 0.5  # its weight in the fusion, beside the plain search's 1
ASKED_AT = 2  # asked_only: a kind's best passage comes after this many plain hits at most

FanOut = Literal["none", "asked", "all"]


class ModalityRouter:
    """Wraps a retriever; `search` fans out to the modalities a question is about."""

    def __init__(
        self,
        retriever: Retriever,
        count: Callable[[Filter], int],
        embed: Callable[[Sequence[str]], np.ndarray],
    ) -> None:
        self._retriever = retriever
        self._count = count
        self._embed = embed
        self._descriptions: dict[Modality, np.ndarray] | None = None

    def search(
        self,
        query: str,
        k: int | None = None,
        where: Filter | None = None,
        *,
        asked_only: bool = False,
    ) -> tuple[RetrievalResult, list[str]]:
        """The fused results and the modalities that joined (with why)."""
        started = time.perf_counter()
        plain = self._retriever.search(query, k=k, where=where)
        if where is not None and where.modalities:
            return plain, []
        best = max((h.vector_similarity or -1.0 for h in plain.hits), default=-1.0)
        mentioned = self._mentioned(query)
        if asked_only and not mentioned:
            return plain, []
        rankings = [[h.chunk.chunk_id for h in plain.hits]]
        weights = [1.0]
        by_id = {h.chunk.chunk_id: h for h in plain.hits}
        joined: list[str] = []
        for modality in DESCRIPTIONS:
            if asked_only and modality not in mentioned:
                continue
            scope = replace(where or Filter(), modalities=(modality,))
            if not self._count(scope):
                continue
            found = self._retriever.search(query, k=PER_MODALITY, where=scope).hits
            if not found:
                continue
            close = (found[0].vector_similarity or -1.0) >= best - MARGIN
            if not (close or modality in mentioned):
                continue
            joined.append(
                f"{modality.value} ({'asked about' if modality in mentioned else 'close'})"
            )
            rankings.append([h.chunk.chunk_id for h in found])
            weights.append(MODALITY_WEIGHT)
            for hit in found:
                by_id.setdefault(hit.chunk.chunk_id, hit)
        if not joined:
            return plain, []
        timings = dict(plain.timings_ms)
        if asked_only:
            kept = _with_best_of(plain.hits, [by_id[r[0]] for r in rankings[1:]], k)
            timings["total"] = (time.perf_counter() - started) * 1000
            return RetrievalResult(kept, timings), joined
        fused = reciprocal_rank_fusion(rankings, weights)
        size = len(plain.hits) if k is None else k
        keys = [key for key, _ in fused[:size]]
        for ranking in rankings[1:]:  # each joining modality keeps its best passage
            if ranking[0] not in keys:
                keys = [*keys[: size - 1], ranking[0]] if len(keys) >= size else [*keys, ranking[0]]
        score = dict(fused)
        hits: list[Hit] = [replace(by_id[key], score=score[key]) for key in keys]
        timings["total"] = (time.perf_counter() - started) * 1000
        return RetrievalResult(hits, timings), joined

    def _mentioned(self, query: str) -> set[Modality]:
        if self._descriptions is None:
            vectors = _normalised(self._embed(list(DESCRIPTIONS.values())))
            self._descriptions = dict(zip(DESCRIPTIONS, vectors, strict=True))
        question = _normalised(self._embed([query]))[0]
        return {m for m, v in self._descriptions.items() if float(v @ question) >= MENTION}


def _with_best_of(plain: Sequence[Hit], best: Sequence[Hit], k: int | None) -> list[Hit]:
    """The plain ranking, with each asked-about kind's best passage among its first
    `ASKED_AT` + 1 (moved up, or put in at that place, scored as the hit before it); the list
    keeps its length. A question that speaks of a kind of content thus shows the model that
    kind's best passage, and what the plain search ranked first stays first."""
    size = len(plain) if k is None else k
    hits = list(plain)
    for hit in best:
        ids = [h.chunk.chunk_id for h in hits]
        place = ids.index(hit.chunk.chunk_id) if hit.chunk.chunk_id in ids else None
        if place is not None and place <= ASKED_AT:
            continue
        if place is not None:
            hits.pop(place)
        at = min(ASKED_AT, len(hits))
        score = hits[at - 1].score if at else hit.score
        hits.insert(at, replace(hit, score=score))
    return hits[:size]


def _normalised(vectors: np.ndarray) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.where(norms == 0, 1.0, norms)
