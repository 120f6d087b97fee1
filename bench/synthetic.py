"""A synthetic index for latency measurements: realistic words, random unit vectors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from polyrag.index.store.lancedb import LanceStore
from polyrag.types import Chunk, Locator

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "eval" / "scifact" / "corpus.jsonl"


def vocabulary(limit: int = 20_000) -> list[str]:
    """Words of the SciFact abstracts, so BM25 sees a natural term distribution."""
    counts: dict[str, int] = {}
    with SCIFACT.open(encoding="utf-8") as handle:
        for line in handle:
            for word in re.findall(r"[a-z][a-z0-9-]+", json.loads(line)["text"].lower()):
                counts[word] = counts.get(word, 0) + 1
    return sorted(counts, key=lambda w: -counts[w])[:limit]


def build_index(path: Path, size: int, dim: int, batch: int = 10_000) -> LanceStore:
    rng = np.random.default_rng(7)
    words = np.array(vocabulary())
    # Zipf-like word choice: frequent words often, rare words sometimes.
    weights = 1.0 / np.arange(1, len(words) + 1)
    weights /= weights.sum()
    store = LanceStore(path, dim=dim, model="synthetic-random")
    for start in range(0, size, batch):
        count = min(batch, size - start)
        source = f"synthetic{start // batch:04d}"
        picks = rng.choice(len(words), size=(count, 120), p=weights)
        chunks = [
            Chunk(
                chunk_id=f"{source}-{i:05d}",
                source_id=source,
                path=f"/synthetic/{source}.txt",
                text=" ".join(words[picks[i]]),
                locator=Locator(page=i // 4 + 1),
                ordinal=i,
            )
            for i in range(count)
        ]
        vectors = rng.standard_normal((count, dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.replace(chunks, vectors)
    return store
