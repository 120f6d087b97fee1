"""Ranking metrics over document ids, as BEIR and TREC define them.

`relevant` maps a document id to its graded relevance; grades of 0 or less are not relevant.
nDCG uses the grade as gain (linear, as trec_eval's ndcg_cut and BEIR do) and the ideal
ordering of all judged documents.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    ideal_gains = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    ideal = sum(gain / math.log2(i + 2) for i, gain in enumerate(ideal_gains))
    if ideal == 0:
        return 0.0
    dcg = sum(max(relevant.get(doc, 0), 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    return dcg / ideal


def recall_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    wanted = {doc for doc, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def mrr_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    for i, doc in enumerate(ranked[:k]):
        if relevant.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


METRICS = {
    "ndcg@10": lambda ranked, relevant: ndcg_at_k(ranked, relevant, 10),
    "recall@10": lambda ranked, relevant: recall_at_k(ranked, relevant, 10),
    "recall@100": lambda ranked, relevant: recall_at_k(ranked, relevant, 100),
    "mrr@10": lambda ranked, relevant: mrr_at_k(ranked, relevant, 10),
}


def score_ranking(ranked: Sequence[str], relevant: Mapping[str, int]) -> dict[str, float]:
    """Every metric of METRICS for one query."""
    return {name: metric(ranked, relevant) for name, metric in METRICS.items()}
