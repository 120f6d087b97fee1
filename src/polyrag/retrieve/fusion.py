"""Weighted reciprocal rank fusion (Cormack et al., 2009), as a pure function."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[K]], weights: Sequence[float], rrf_k: float = 60.0
) -> list[tuple[K, float]]:
    """Fuse ranked lists of ids: score(d) = Σ weight_l / (rrf_k + rank_l(d)), ranks from 1.

    Best first. A list with weight 0 is ignored, so ids only it holds are left out. An id
    repeated within one list counts at its first rank. Equal scores go to the id with the
    better single rank, then to the one seen first (lists in order, each best first).
    """
    if len(rankings) != len(weights):
        raise ValueError(f"{len(rankings)} rankings but {len(weights)} weights")
    if rrf_k <= 0 or any(weight < 0 for weight in weights):
        raise ValueError("rrf_k must be positive and weights not negative")
    scores: dict[K, float] = {}
    best_rank: dict[K, int] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        if weight == 0:
            continue
        seen: set[K] = set()
        for rank, key in enumerate(ranking, start=1):
            if key in seen:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + weight / (rrf_k + rank)
            best_rank[key] = min(best_rank.get(key, rank), rank)
    first_seen = {key: order for order, key in enumerate(scores)}
    ordered = sorted(scores, key=lambda key: (-scores[key], best_rank[key], first_seen[key]))
    return [(key, scores[key]) for key in ordered]
