"""Calibrate `answer.min_similarity`: the best hit's cosine below which polyrag refuses unasked.

    python -m bench.calibrate_refusal

For each SQuAD 2.0 sample question we embed its own paragraph's chunks and take the best cosine
(what retrieval sees when the answer is in the sources). The threshold must sit below nearly
all of these, so that answerable questions are not refused before the model reads them; it
then catches questions that nothing in the sources is about. SQuAD's unanswerable questions
are written against their paragraph on purpose, so they are left to the model and the checks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from polyrag.chunk.chunker import Chunker
from polyrag.engine import Engine
from polyrag.settings import load_settings
from polyrag.types import Block, BlockKind, Source

SHARED = Path(__file__).resolve().parents[2] / "shared" / "eval"


def main() -> int:
    settings = load_settings(Path("/nonexistent-polyrag-home"))
    embedder = Engine(settings).embedder
    chunker = Chunker(embedder, settings.chunk)
    data = json.loads((SHARED / "squad2-sample" / "queries.json").read_text())
    truth = json.loads((SHARED / "squad2-sample" / "ground_truth.json").read_text())
    items = data["queries"]
    contexts = sorted({item["context"] for item in items})
    vectors: dict[str, np.ndarray] = {}
    for index, context in enumerate(contexts):
        source = Source(f"c{index}", "squad", "", 0, "text")
        chunks = chunker.chunk(source, [Block(BlockKind.TEXT, context)])
        vectors[context] = embedder.embed([chunk.text for chunk in chunks])
    answerable: list[float] = []
    unanswerable: list[float] = []
    questions = embedder.embed([item["question"] for item in items])
    for item, question in zip(items, questions, strict=True):
        best = float((vectors[item["context"]] @ question).max())
        (unanswerable if truth[item["id"]]["is_impossible"] else answerable).append(best)
    office = [json.loads(line) for line in (SHARED / "office-qa" / "questions.jsonl").open()]
    report = {
        "answerable_percentiles": {
            p: round(float(np.percentile(answerable, p)), 3) for p in (1, 2, 5, 10, 50)
        },
        "unanswerable_median": round(float(np.median(unanswerable)), 3),
        "office_qa_unanswerable": [case["question"] for case in office if case.get("unanswerable")],
        "current_threshold": settings.answer.min_similarity,
        "answerable_below_threshold": sum(s < settings.answer.min_similarity for s in answerable),
        "answerable": len(answerable),
    }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
