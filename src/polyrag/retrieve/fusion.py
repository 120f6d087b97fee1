"""Fusion of a keyword and a vector ranking, as pure functions: weighted RRF and convex."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
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


def convex_fusion(
    keyword: Sequence[tuple[K, float]],
    similarity: Mapping[K, float],
    keyword_weight: float,
    vector_weight: float,
) -> list[tuple[K, float]]:
    """Fuse BM25 scores and cosine similarities: a weighted sum of each, scaled by its best.

    score(d) = w_k · bm25(d) / max bm25 + w_v · max(cos(d), 0) / max cos, with the weights
    normalised to sum to 1. Both scales start at their natural zero, so one query's scores
    do not depend on how many candidates were fetched (min-max or z-scores would). An id
    missing from `keyword` scores 0 there; `similarity` should cover every candidate (the
    keyword hits carry their cosine too), and an id missing from it scores 0 there.

    Best first; equal scores keep the order in which ids were first seen, keyword list first.
    This is the "theoretical min-max" convex combination of Bruch et al. (2023); on SciFact's
    training queries it beat RRF for BM25 + MiniLM (`polyrag eval retrieval`, BENCHMARKS.md).
    """
    if keyword_weight < 0 or vector_weight < 0 or keyword_weight + vector_weight == 0:
        raise ValueError("weights must not be negative and not both 0")
    total = keyword_weight + vector_weight
    wk, wv = keyword_weight / total, vector_weight / total
    bm25: dict[K, float] = {}
    for key, score in keyword:
        bm25.setdefault(key, max(score, 0.0))
    top_bm25 = max(bm25.values(), default=0.0)
    top_cos = max((max(c, 0.0) for c in similarity.values()), default=0.0)
    order = list(dict.fromkeys([*bm25, *similarity]))
    scores = {
        key: (wk * bm25.get(key, 0.0) / top_bm25 if top_bm25 > 0 else 0.0)
        + (wv * max(similarity.get(key, 0.0), 0.0) / top_cos if top_cos > 0 else 0.0)
        for key in order
    }
    ranked = sorted(range(len(order)), key=lambda i: -scores[order[i]])
    return [(order[i], scores[order[i]]) for i in ranked]


def unit_support(
    ranked: Sequence[tuple[K, float]], unit_of: Mapping[K, Hashable | None], weight: float
) -> list[tuple[K, float]]:
    """Raise each candidate by `weight` × the two best other scores of its unit, best first.

    A unit is a page, slide, sheet or section (`unit_of` gives None for a candidate in none):
    a statement's title, its table and its rows are separate chunks that each match part of a
    question, and the page they share should outrank a page with one lucky sentence. The best
    candidate of a unit ends at best + weight × (second + third), which ranks the units as a
    page-level search would, while chunks keep their own order within a page. Equal scores keep
    their previous order.
    """
    if weight <= 0:
        return list(ranked)
    by_unit: dict[Hashable, list[float]] = {}
    for key, score in ranked:
        unit = unit_of.get(key)
        if unit is not None:
            by_unit.setdefault(unit, []).append(score)
    for scores in by_unit.values():
        scores.sort(reverse=True)
    supported: list[tuple[K, float]] = []
    for key, score in ranked:
        unit = unit_of.get(key)
        if unit is not None:
            best = by_unit[unit][:3]
            if score in best:  # the unit's scores hold this one too: count only the others
                best.remove(score)
            score += weight * sum(best[:2])
        supported.append((key, score))
    order = sorted(range(len(supported)), key=lambda i: -supported[i][1])
    return [supported[i] for i in order]
