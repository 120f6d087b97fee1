"""Tiny evaluation sets written on the fly, shared by the eval and benchmark tests."""

from __future__ import annotations

import json
from pathlib import Path

DOCUMENTS = {
    "d-tea": ("Green tea", "Green tea contains caffeine and catechins such as EGCG."),
    "d-iron": ("Iron deficiency", "Iron deficiency anaemia causes fatigue and pale skin."),
    "d-whale": ("Blue whales", "The blue whale is the largest animal known to have lived."),
    "d-bees": ("Honey bees", "Honey bees communicate the direction of flowers by dancing."),
    "d-salt": ("Dietary salt", "High salt intake raises blood pressure in many adults."),
}
QUERIES = {
    "q1": ("Which compounds does green tea contain?", {"d-tea": 1}),
    "q2": ("What does iron deficiency cause?", {"d-iron": 1}),
    "q3": ("How do bees tell others where flowers are?", {"d-bees": 1}),
    "q4": ("Does salt raise blood pressure?", {"d-salt": 1, "d-iron": 0}),
}


def write_tiny_beir(folder: Path) -> Path:
    """A five-document BEIR folder (corpus, queries, qrels/test.tsv); each query names its topic."""
    (folder / "qrels").mkdir(parents=True)
    with (folder / "corpus.jsonl").open("w") as handle:
        for doc_id, (title, text) in DOCUMENTS.items():
            handle.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with (folder / "queries.jsonl").open("w") as handle:
        for query_id, (text, _) in QUERIES.items():
            handle.write(json.dumps({"_id": query_id, "text": text}) + "\n")
    lines = ["query-id\tcorpus-id\tscore"] + [
        f"{q}\t{d}\t{g}" for q, (_, grades) in QUERIES.items() for d, g in grades.items()
    ]
    (folder / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n")
    return folder
