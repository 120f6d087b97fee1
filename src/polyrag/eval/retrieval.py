"""`polyrag eval retrieval`: BM25, dense and hybrid quality on a BEIR-format dataset.

The corpus is indexed into its own folder under the polyrag home, keyed by the corpus content,
the chunker and embedder versions and the table's columns, so a second run reuses it. Each
document is chunked like any source (title as heading, then the text); a query ranks documents
by their best chunk (`per_source` search), with enough candidates that 100 documents can be
ranked.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyrag.chunk.chunker import Chunker
from polyrag.eval.beir import BeirDataset, BeirDocument
from polyrag.eval.ranking import METRICS, score_ranking
from polyrag.index.embed.base import Embedder
from polyrag.index.store.lance_rows import table_schema
from polyrag.index.store.lancedb import LanceStore
from polyrag.retrieve.base import SearchMode
from polyrag.retrieve.hybrid import HybridRetriever
from polyrag.settings import Settings
from polyrag.types import Block, BlockKind, Chunk, Source

# Our mode names → the retriever's.
MODES: dict[str, SearchMode] = {"bm25": "keyword", "dense": "vector", "hybrid": "hybrid"}
DEPTH = 100  # documents ranked per query: enough for recall@100
CANDIDATES = 300  # chunks each retriever fetches: ~100 documents at 2-3 chunks each
BATCH_CHUNKS = 1024  # chunks embedded and written per store commit

# Published nDCG@10 on the SciFact test split, for the report.
PUBLISHED = {
    "scifact": {
        "BM25 (BEIR paper)": {"ndcg@10": 0.665},
        "all-MiniLM-L6-v2 (MTEB)": {"ndcg@10": 0.645},
    }
}


@dataclass(frozen=True)
class Step:
    """Progress: `stage` is "indexing" or "querying"."""

    stage: str
    done: int
    total: int | None


def evaluate_retrieval(
    dataset: BeirDataset,
    split: str,
    settings: Settings,
    embedder: Embedder,
    *,
    limit: int | None = None,
    on_step: Callable[[Step], None] | None = None,
) -> dict[str, Any]:
    """Index the corpus (or reuse its index), run every query in three modes, score them."""
    judged = dataset.split(split)
    query_ids = sorted(judged.queries, key=_natural)[:limit] if limit else list(judged.queries)
    started = time.perf_counter()
    store, index_info = corpus_index(dataset, settings, embedder, on_step)
    index_s = time.perf_counter() - started
    retriever = HybridRetriever(store, embedder, settings.retrieve)
    per_query: dict[str, dict[str, dict[str, float]]] = {mode: {} for mode in MODES}
    latencies: dict[str, list[float]] = {mode: [] for mode in MODES}
    try:
        for done, query_id in enumerate(query_ids, start=1):
            for mode, retriever_mode in MODES.items():
                result = retriever.search(
                    judged.queries[query_id],
                    k=DEPTH,
                    mode=retriever_mode,
                    per_source=True,
                    candidates=max(CANDIDATES, settings.retrieve.candidates),
                )
                ranked = [doc_id_of(hit.chunk.path) for hit in result.hits]
                per_query[mode][query_id] = score_ranking(ranked, judged.qrels[query_id])
                latencies[mode].append(result.timings_ms["total"])
            if on_step:
                on_step(Step("querying", done, len(query_ids)))
    finally:
        retriever.close()
        store.close()
    results = {
        mode: {name: _mean([q[name] for q in scores.values()]) for name in METRICS}
        for mode, scores in per_query.items()
    }
    spread = {
        mode: {name: _stdev([q[name] for q in scores.values()]) for name in METRICS}
        for mode, scores in per_query.items()
    }
    return {
        "dataset": dataset.name,
        "split": split,
        "queries": len(query_ids),
        "results": results,
        "std": spread,
        "baselines": PUBLISHED.get(dataset.name.lower(), {}) if split == "test" else {},
        "settings": {
            "fusion": settings.retrieve.fusion,
            "keyword_weight": settings.retrieve.keyword_weight,
            "vector_weight": settings.retrieve.vector_weight,
            "rrf_k": settings.retrieve.rrf_k,
            "chunk_max_tokens": settings.chunk.max_tokens,
            "depth": DEPTH,
            "candidates": max(CANDIDATES, settings.retrieve.candidates),
        },
        "index": index_info,
        "timings": {
            "index_s": round(index_s, 2),
            "search_ms": {
                mode: {"p50": _percentile(values, 50), "p95": _percentile(values, 95)}
                for mode, values in latencies.items()
            },
        },
        "latencies_ms": latencies,
    }


def corpus_index(
    dataset: BeirDataset,
    settings: Settings,
    embedder: Embedder,
    on_step: Callable[[Step], None] | None = None,
) -> tuple[LanceStore, dict[str, Any]]:
    """The dataset's index under the home, built unless a complete one is already there."""
    chunker = Chunker(embedder, settings.chunk)
    corpus_sha = _file_sha256(dataset.corpus_path)
    # The table's columns too: an index of an older layout (BM25 over the text alone) is rebuilt.
    columns = ",".join(table_schema(embedder.dim).names)
    key = hashlib.sha256(
        f"{corpus_sha}|{chunker.version}|{embedder.model_id}|{columns}".encode()
    ).hexdigest()[:12]
    folder = Path(settings.home) / "eval" / f"{dataset.name}-{key}"
    stamp = folder / "complete.json"
    if stamp.is_file():
        info: dict[str, Any] = json.loads(stamp.read_text(encoding="utf-8"))
        info["reused"] = True
        return LanceStore(folder / "index", dim=embedder.dim, model=embedder.model_id), info
    if folder.exists():  # an interrupted build: start over
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    store = LanceStore(folder / "index", dim=embedder.dim, model=embedder.model_id)
    started = time.perf_counter()
    documents = chunks = 0
    try:
        for batch, seen in _chunk_batches(dataset, chunker):
            store.replace(batch, embedder.embed([c.embedded_text for c in batch]))
            documents, chunks = seen, chunks + len(batch)
            if on_step:
                on_step(Step("indexing", documents, None))
        store.optimize()
    except BaseException:
        store.close()
        raise
    info = {
        "folder": str(folder),
        "documents": documents,
        "chunks": chunks,
        "build_s": round(time.perf_counter() - started, 1),
    }
    stamp.write_text(json.dumps(info, indent=2), encoding="utf-8")
    return store, {**info, "reused": False}


def _chunk_batches(dataset: BeirDataset, chunker: Chunker) -> Iterator[tuple[list[Chunk], int]]:
    batch: list[Chunk] = []
    seen = 0
    for seen, document in enumerate(dataset.documents(), start=1):
        batch.extend(chunker.chunk(_source(dataset, document), _blocks(document)))
        if len(batch) >= BATCH_CHUNKS:
            yield batch, seen
            batch = []
    if batch:
        yield batch, seen


def _source(dataset: BeirDataset, document: BeirDocument) -> Source:
    body = f"{document.title}\n{document.text}".encode()
    sha = hashlib.sha256(body).hexdigest()
    source_id = hashlib.sha256(document.doc_id.encode()).hexdigest()[:20]
    return Source(source_id, f"{dataset.name}#{document.doc_id}", sha, len(body), "beir")


def _blocks(document: BeirDocument) -> list[Block]:
    blocks = [Block(BlockKind.HEADING, document.title, level=1)] if document.title.strip() else []
    if document.text.strip():
        blocks.append(Block(BlockKind.TEXT, document.text))
    return blocks


def doc_id_of(path: str) -> str:
    return path.rsplit("#", 1)[-1]


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _natural(query_id: str) -> tuple[int, str]:
    return (int(query_id), "") if query_id.isdigit() else (1 << 62, query_id)


def _mean(values: Sequence[float]) -> float:
    return round(statistics.fmean(values), 4) if values else 0.0


def _stdev(values: Sequence[float]) -> float:
    return round(statistics.stdev(values), 4) if len(values) > 1 else 0.0


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return round(ordered[low] + (ordered[high] - ordered[low]) * (position - low), 2)
