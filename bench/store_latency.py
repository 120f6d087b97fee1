"""Store and hybrid retrieval latency on a synthetic LanceDB index.

    python -m bench.store_latency                      # 100k chunks, 384 dims, 200 queries
    python -m bench.store_latency --chunks 20000 --real-embedder [--no-spin]

Chunks hold ~120 pseudo-words drawn with Zipf weights from a 20k-word vocabulary; vectors are
random unit vectors. Latencies exclude query embedding unless --real-embedder is given (then the
packaged MiniLM embeds each query and "hybrid+embed" is the whole query).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from polyrag.index.store.lancedb import LanceStore
from polyrag.retrieve.hybrid import HybridRetriever
from polyrag.settings import RetrieveSettings
from polyrag.types import Chunk, Filter, Locator

WORDS_PER_CHUNK = 120
CHUNKS_PER_SOURCE = 100


def vocabulary(size: int, rng: np.random.Generator) -> np.ndarray:
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    words = {"".join(rng.choice(syllables, size=rng.integers(2, 5))) for _ in range(size * 2)}
    return np.array(sorted(words)[:size])


def zipf_weights(size: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, size + 1)
    return weights / weights.sum()


class FixedEmbedder:
    """Hands back precomputed query vectors, so timings leave embedding out."""

    model_id = "fixed"
    max_tokens = 256

    def __init__(self, vectors: dict[str, np.ndarray], dim: int) -> None:
        self.vectors = vectors
        self.dim = dim

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.vectors[text] for text in texts])


def build(path: Path, size: int, dim: int, batch: int, rng: np.random.Generator) -> LanceStore:
    words = vocabulary(20_000, rng)
    weights = zipf_weights(len(words))
    store = LanceStore(path, dim, model="synthetic-random")
    for start in range(0, size, batch):
        count = min(batch, size - start)
        picks = rng.choice(len(words), size=(count, WORDS_PER_CHUNK), p=weights)
        chunks = []
        for i in range(count):
            n = start + i
            source = f"src{n // CHUNKS_PER_SOURCE:05d}"
            chunks.append(
                Chunk(
                    chunk_id=f"{source}-{n % CHUNKS_PER_SOURCE:03d}",
                    source_id=source,
                    path=f"/synthetic/{source}.pdf",
                    text=" ".join(words[picks[i]]),
                    locator=Locator(page=(n % CHUNKS_PER_SOURCE) // 4 + 1),
                    ordinal=n % CHUNKS_PER_SOURCE,
                )
            )
        vectors = rng.standard_normal((count, dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.replace(chunks, vectors)
    store.optimize()
    return store


def percentiles(samples: list[float]) -> dict[str, float]:
    return {
        "p50": round(float(np.percentile(samples, 50)), 2),
        "p95": round(float(np.percentile(samples, 95)), 2),
    }


def timed(calls: Sequence[Callable[[], Any]]) -> list[float]:
    for call in calls[:5]:  # warm caches
        call()
    out = []
    for call in calls:
        started = time.perf_counter()
        call()
        out.append((time.perf_counter() - started) * 1000)
    return out


def timed_pairs(
    pairs: Sequence[tuple[Callable[[], Any], Callable[[], Any]]],
) -> tuple[list[float], list[float]]:
    first = timed([pair[0] for pair in pairs[:5]] + [pair[1] for pair in pairs[:5]])
    del first  # warm-up only
    a: list[float] = []
    b: list[float] = []
    for i, (call_a, call_b) in enumerate(pairs):
        order = [(call_a, a), (call_b, b)] if i % 2 == 0 else [(call_b, b), (call_a, a)]
        for call, out in order:
            started = time.perf_counter()
            call()
            out.append((time.perf_counter() - started) * 1000)
    return a, b


def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(11)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        if args.index and args.index.exists():  # reuse an index an earlier run kept
            store = LanceStore(args.index, args.dim, model="synthetic-random")
        else:
            store = build(args.index or Path(tmp) / "index", args.chunks, args.dim, args.batch, rng)
        build_s = time.perf_counter() - started
        words = vocabulary(20_000, np.random.default_rng(11))
        weights = zipf_weights(len(words))
        queries = [
            " ".join(rng.choice(words, size=rng.integers(3, 9), p=weights))
            for _ in range(args.queries)
        ]
        vectors = rng.standard_normal((len(queries), args.dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        by_query = dict(zip(queries, vectors, strict=True))
        settings = RetrieveSettings()
        fixed = FixedEmbedder(by_query, args.dim)
        parallel = HybridRetriever(store, fixed, settings)
        sequential = HybridRetriever(store, fixed, settings, parallel=False)
        sources = sorted(store.source_ids())
        narrow = Filter(source_ids=tuple(sources[:5]), pages=tuple(range(1, 10)))
        hashes = [hashlib.sha256(c.text.encode()).hexdigest() for c in store.chunks_of(sources[0])]
        n = settings.candidates
        results: dict[str, Any] = {
            "chunks": args.chunks,
            "dim": args.dim,
            "queries": len(queries),
            "build_s": round(build_s, 1),
            "health": store.health().__dict__,
            "keyword": timed([partial(store.keyword_search, q, n) for q in queries]),
            "vector": timed([partial(store.vector_search, v, n) for v in vectors]),
            "keyword_filtered": timed(
                [partial(store.keyword_search, q, n, narrow) for q in queries]
            ),
            "vector_filtered": timed([partial(store.vector_search, v, n, narrow) for v in vectors]),
            "vectors_for_6": timed([partial(store.vectors_for, hashes[:6])] * 50),
        }
        # Interleaved, so machine noise hits both variants alike.
        paired = timed_pairs(
            [(partial(sequential.search, q), partial(parallel.search, q)) for q in queries]
        )
        results["hybrid_sequential"], results["hybrid_parallel"] = paired
        results["hybrid_parallel_filtered"] = timed(
            [partial(parallel.search, q, where=narrow) for q in queries]
        )
        fewer = HybridRetriever(store, fixed, RetrieveSettings(candidates=20))
        results["hybrid_parallel_20_candidates"] = timed(
            [partial(fewer.search, q) for q in queries]
        )
        if args.real_embedder:
            from polyrag.engine import Engine
            from polyrag.settings import load_settings

            engine = Engine(load_settings(Path(tmp) / "home"))
            embedder = engine.embedder
            if args.no_spin:
                _stop_spinning(embedder)
            real_sequential = HybridRetriever(store, embedder, settings, parallel=False)
            real_parallel = HybridRetriever(store, embedder, settings)
            paired = timed_pairs(
                [
                    (partial(real_sequential.search, q), partial(real_parallel.search, q))
                    for q in queries
                ]
            )
            results["with_embedding_sequential"], results["with_embedding_parallel"] = paired
            results["embed_only"] = timed([partial(embedder.embed, [q]) for q in queries])
            # Question-like queries: two index words in an English frame (~15 tokens).
            pairs = rng.choice(words, size=(len(queries), 2), p=weights)
            questions = [f"What was the {a} of the {b} in 2023?" for a, b in pairs]
            results["question_with_embedding_parallel"] = timed(
                [partial(real_parallel.search, q) for q in questions]
            )
            results["question_embed_only"] = timed(
                [partial(embedder.embed, [q]) for q in questions]
            )
        store.close()
    return {
        key: percentiles(value) if isinstance(value, list) else value
        for key, value in results.items()
    }


def _stop_spinning(embedder: Any) -> None:
    """Rebuild the ONNX session with idle worker threads that sleep instead of spinning.

    Spinning ONNX threads keep both cores busy for a while after each embedding, which doubled
    the LanceDB searches that follow (measured: 53 ms → 25 ms per query at 100k chunks).
    """
    import os

    import onnxruntime

    from polyrag.models.files import model_path
    from polyrag.models.registry import MINILM_ONNX
    from polyrag.settings import load_settings

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    model = model_path(MINILM_ONNX, load_settings().model_cache)
    embedder._session = onnxruntime.InferenceSession(
        str(model), options, providers=["CPUExecutionProvider"]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--batch", type=int, default=5_000, help="chunks per replace() call")
    parser.add_argument("--index", type=Path, help="keep the index here; reuse it if present")
    parser.add_argument("--real-embedder", action="store_true")
    parser.add_argument(
        "--no-spin", action="store_true", help="real embedder with ONNX thread spinning off"
    )
    print(json.dumps(run(parser.parse_args()), indent=1))


if __name__ == "__main__":
    main()
