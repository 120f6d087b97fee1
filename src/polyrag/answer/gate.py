"""Refuse before any model is called when nothing retrieved is close enough to the question."""

from __future__ import annotations

from collections.abc import Sequence

from polyrag.types import WEAK_EVIDENCE, Hit


def best_similarity(hits: Sequence[Hit]) -> float:
    return max((h.vector_similarity or -1.0 for h in hits), default=-1.0)


def gate(hits: Sequence[Hit], min_similarity: float) -> str | None:
    """The refusal reason when the evidence is too weak to try, else None."""
    if not hits or best_similarity(hits) < min_similarity:
        return WEAK_EVIDENCE
    return None
