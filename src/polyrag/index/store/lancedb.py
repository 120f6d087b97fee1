"""The Store over an embedded LanceDB: one table of chunks with a native BM25 index and vectors.

Writes are single LanceDB commits (merge_insert), so readers see a version before or after a
write and never a mix. Index upkeep, measured on 2 cores (see bench/store_latency.py):

* Rows not yet in the BM25 index are still found, by a flat scan that costs ~30 µs per row per
  query; `optimize()` folds them in (0.1 s at 2k rows, ~0.8 s at 100k). So writes optimize once
  `fts_lag_rows` rows are waiting, and `optimize()` is public for the end of an ingest run.
* Flat vector search costs ~0.7 µs per row (12 ms at 10k rows, 40 ms at 50k), so an IVF_SQ index
  is built from `ann_min_rows` rows on (~5 s at 100k; recall@10 ≈ 0.98, ~7 ms) and retrained
  when the table has doubled or holds too many delta segments. IVF_HNSW_SQ searched ~3 ms
  faster at equal recall but took 70-140 s to build; IVF_PQ needed a refine step for recall.

The database may live in a folder or on S3-compatible object storage (`s3://bucket/prefix`):
several processes and machines may then write one index. LanceDB commits with a conditional put,
so two writers never overwrite each other's commit; a writer that loses the race retries (see
`_retrying`), and readers see others' commits after at most `staleness`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

# LanceDB logs its own warnings (deprecations, index build notes) to stderr; keep them out of
# the terminal unless asked for. Must be set before lancedb is first imported.
os.environ.setdefault("LANCEDB_LOG", "error")

import lancedb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from lancedb.index import FTS, BTree, IvfSq
from lancedb.query import FullTextOperator, MatchQuery

from polyrag.errors import StoreError
from polyrag.index.store.base import (
    ATOMIC_REPLACE,
    SHARED_WRITERS,
    StoreHealth,
    best_cosines,
    checked_vectors,
)
from polyrag.index.store.filters import filter_sql, in_list, quote
from polyrag.index.store.lance_rows import (
    ADDED_COLUMNS,
    CHUNK_COLUMNS,
    chunks_from,
    cosines,
    first_of_each,
    matrix,
    rows_table,
    table_schema,
)
from polyrag.index.store.loop import EventLoopThread
from polyrag.index.store.reasons import commit_pause, is_conflict, reason
from polyrag.types import Chunk, Filter, Hit

T = TypeVar("T")
log = logging.getLogger(__name__)

TABLE = "chunks"
FTS_INDEX = "keyword_text_idx"  # BM25 over Chunk.keyword_text: a heading, then the text
OLD_FTS_INDEXES = ("text_idx",)  # over the text alone, before BM25 read headings
VECTOR_INDEX_PREFIX = "vector_ivf_sq_"  # + the row count it was trained on
# B-trees: merge_insert joins on chunk_id; filters, deletes and chunks_of select by source_id;
# ingestion looks vectors up by text_sha256 (16 ms → 4 ms at 100k rows).
SCALAR_INDEXED = ("chunk_id", "source_id", "text_sha256")
HASH_BATCH = 1000  # hashes per IN (...) predicate
MAX_VECTOR_SEGMENTS = 8  # ~0.25 ms each per query; retraining costs ~5 s at 100k rows
KEEP_VERSIONS = timedelta(minutes=10)  # old versions kept for readers in other processes
COMMIT_ATTEMPTS = 8  # a write that loses a commit race to another writer is retried

# Lowercase, ASCII folding, English stemming and stop words: the usual BM25 setup (Anserini's
# defaults). Numbers stay tokens ("12.5" → "12", "5"), so amounts and years are still found.
FTS_CONFIG = FTS(
    base_tokenizer="simple",
    language="English",
    lower_case=True,
    stem=True,
    remove_stop_words=True,
    ascii_folding=True,
    with_position=False,
)


class LanceStore:
    """Chunks, their vectors and a BM25 index in the LanceDB database at `location`: a folder,
    or an `s3://bucket/prefix` URI with the endpoint and credentials in `storage_options`
    (LanceDB's names: aws_endpoint, aws_region, aws_access_key_id, allow_http, ...) or in the
    usual AWS_* environment variables.

    The table is created by the first write; reads before that find nothing. Safe to share
    between threads (reads run concurrently, writes one at a time) and between processes.
    """

    capabilities = frozenset({ATOMIC_REPLACE, SHARED_WRITERS})

    def __init__(
        self,
        location: str | Path,
        dim: int,
        *,
        model: str,
        storage_options: Mapping[str, str] | None = None,
        staleness: timedelta = timedelta(0),
        fts_lag_rows: int = 256,
        ann_min_rows: int = 10_000,
        nprobes: int = 20,
    ) -> None:
        self.location = str(location)
        self.dim = dim
        self.model = model
        self.fts_lag_rows = fts_lag_rows
        self.ann_min_rows = ann_min_rows
        self.nprobes = nprobes
        self._schema = table_schema(dim)
        self._write_lock = threading.Lock()
        self._loop = EventLoopThread()
        self._table: Any = None  # lancedb.AsyncTable once it exists
        self._opening: asyncio.Lock | None = None  # made on the loop's thread, at first use
        self._indexes_checked = False
        # Staleness 0: every read first checks for commits made by other processes too.
        self._db = self._call(
            lancedb.connect_async(
                self.location,
                read_consistency_interval=staleness,
                storage_options=dict(storage_options or {}) or None,
            )
        )

    # -- writes -----------------------------------------------------------------------------

    def replace(
        self, chunks: Sequence[Chunk], vectors: np.ndarray, *, replaces: Sequence[str] = ()
    ) -> None:
        vectors = checked_vectors(chunks, vectors, self.dim)
        if not chunks:
            self.delete_sources(replaces)
            return
        rows = rows_table(chunks, vectors, self._schema, self.model)
        with self._write_lock:
            self._call(self._retrying(lambda: self._replace(rows, list(replaces))))

    def delete_sources(self, source_ids: Sequence[str]) -> int:
        if not source_ids:
            return 0
        predicate = in_list("source_id", source_ids)
        with self._write_lock:
            return self._call(self._retrying(lambda: self._delete(predicate)))

    def optimize(self) -> None:
        """Fold rows written since the last optimize into the indexes; prune old versions."""
        with self._write_lock:
            self._call(self._retrying(self._optimize))

    def health(self) -> StoreHealth:
        """Rows and how far each index lags behind them."""
        return self._call(self._health())

    def close(self) -> None:
        self._loop.close()

    # -- reads ------------------------------------------------------------------------------

    def keyword_search(
        self, query: str, k: int, where: Filter | None = None, *, vector: np.ndarray | None = None
    ) -> list[Hit]:
        if k <= 0 or not query.strip():
            return []
        query_vector = None if vector is None else self._query_vector(vector)
        result = self._call(self._keyword(query, k, filter_sql(where), query_vector is not None))
        if result is None:
            return []
        scores = result.column("_score").to_pylist()
        similarities: list[float | None] = [None] * result.num_rows
        if query_vector is not None:
            similarities = list(cosines(matrix(result.column("vector"), self.dim), query_vector))
        return [
            Hit(chunk=chunk, score=float(score), keyword_rank=rank, vector_similarity=similarity)
            for rank, (chunk, score, similarity) in enumerate(
                zip(chunks_from(result), scores, similarities, strict=True), start=1
            )
        ]

    def vector_search(
        self,
        vector: np.ndarray,
        k: int,
        where: Filter | None = None,
        *,
        variants: Sequence[np.ndarray] = (),
    ) -> list[Hit]:
        if k <= 0:
            return []
        query = self._query_vector(vector)
        others = [self._query_vector(variant) for variant in variants]
        # Several query vectors go in one LanceDB query (k rows for each, marked by
        # `query_index`): one scan of the partitions and one fetch of the rows, where a search
        # per vector cost 1.6x as much at 100k chunks.
        result = self._call(self._vector([query, *others], k, filter_sql(where)))
        if result is None:
            return []
        if others:
            result = first_of_each(result, "chunk_id")
        # Similarity from the stored vectors, not `_distance`: with an IVF_SQ index LanceDB's
        # "cosine" distance comes back as 2·(1 - cos), while flat search gives 1 - cos.
        scores, reported = best_cosines(matrix(result.column("vector"), self.dim), query, others)
        ranked = sorted(
            zip(chunks_from(result), scores, reported, strict=True), key=lambda row: -row[1]
        )
        return [
            Hit(
                chunk=chunk,
                score=float(score),
                vector_rank=rank,
                vector_similarity=float(similarity),
            )
            for rank, (chunk, score, similarity) in enumerate(ranked, start=1)
        ]

    def count(self, where: Filter | None = None) -> int:
        return self._call(self._count(filter_sql(where)))

    def source_ids(self) -> set[str]:
        result = self._call(self._scan(None, ["source_id"]))
        if result is None:
            return set()
        return set(pc.unique(result.column("source_id")).to_pylist())

    def source_paths(self) -> dict[str, str]:
        result = self._call(self._scan(None, ["source_id", "path"]))
        if result is None:
            return {}
        pairs = result.group_by(["source_id", "path"]).aggregate([]).to_pylist()
        return {row["source_id"]: row["path"] for row in pairs}

    def counts_by_modality(self) -> dict[str, dict[str, int]]:
        result = self._call(self._scan(None, ["source_id", "modality"]))
        if result is None or result.num_rows == 0:
            return {}
        grouped = result.group_by(["source_id", "modality"]).aggregate([("source_id", "count")])
        counts: dict[str, dict[str, int]] = {}
        for row in grouped.to_pylist():
            counts.setdefault(row["source_id"], {})[row["modality"]] = int(row["source_id_count"])
        return counts

    def chunks_of(self, source_id: str) -> list[Chunk]:
        result = self._call(self._scan(f"source_id = {quote(source_id)}", CHUNK_COLUMNS))
        if result is None:
            return []
        return sorted(chunks_from(result), key=lambda chunk: chunk.ordinal)

    def chunks_by_ordinal(self, source_id: str, ordinals: Sequence[int]) -> list[Chunk]:
        wanted = sorted({int(ordinal) for ordinal in ordinals})
        if not wanted:
            return []
        ordinal_list = ", ".join(str(ordinal) for ordinal in wanted)
        predicate = f"source_id = {quote(source_id)} AND ordinal IN ({ordinal_list})"
        result = self._call(self._scan(predicate, CHUNK_COLUMNS))
        if result is None:
            return []
        return sorted(chunks_from(result), key=lambda chunk: chunk.ordinal)

    def vectors_for(self, texts_by_hash: Sequence[str]) -> dict[str, np.ndarray]:
        hashes = list(dict.fromkeys(texts_by_hash))
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(hashes), HASH_BATCH):
            predicate = (
                f"{in_list('text_sha256', hashes[start : start + HASH_BATCH])}"
                f" AND embed_model = {quote(self.model)}"
            )
            result = self._call(self._scan(predicate, ["text_sha256", "vector"]))
            if result is None:
                return {}
            stored = matrix(result.column("vector"), self.dim)
            for i, text_hash in enumerate(result.column("text_sha256").to_pylist()):
                out[text_hash] = stored[i].copy()
        return out

    def _query_vector(self, vector: np.ndarray) -> np.ndarray:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise StoreError(f"query vector has {query.shape[0]} dimensions, not {self.dim}")
        return query

    # -- the async side ---------------------------------------------------------------------

    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        try:
            return self._loop.run(coroutine)
        except StoreError:
            raise
        except Exception as error:  # LanceDB raises ValueError, RuntimeError, OSError, ...
            raise StoreError(
                f"the index at {self.location} failed: {reason(error, 500)}",
                hint=(
                    "check the object store's address, credentials and bucket"
                    if "://" in self.location
                    else "check free disk space and file permissions of the polyrag home"
                ),
            ) from error

    async def _retrying(self, write: Callable[[], Awaitable[T]]) -> T:
        """Run a write, again after a pause when another writer committed first."""
        for attempt in range(COMMIT_ATTEMPTS):
            try:
                return await write()
            except Exception as error:
                if not is_conflict(error) or attempt == COMMIT_ATTEMPTS - 1:
                    raise
                pause = commit_pause(attempt)
                log.info("commit conflict on %s; retrying in %.2f s", self.location, pause)
                await asyncio.sleep(pause)
        raise AssertionError("unreachable")

    async def _existing(self) -> Any:
        """The table, or None while nothing has been written."""
        if self._table is None:
            # A search runs its keyword and vector halves at once: both may open the table,
            # and only one may add the columns an older index lacks.
            if self._opening is None:
                self._opening = asyncio.Lock()
            async with self._opening:
                if self._table is None:
                    self._table = await self._open()
        return self._table

    async def _open(self) -> Any:
        if TABLE not in await self._db.table_names():
            return None
        table = await self._db.open_table(TABLE)
        self._check_dimension(await table.schema())
        await self._add_missing_columns(table)
        await self._upgrade_keyword_index(table)
        await self._check_model(table)
        return table

    async def _add_missing_columns(self, table: Any) -> None:
        """An index written by an older release gains the columns it lacks; another process
        opening the same index may add them first, which is as good."""
        for attempt in range(COMMIT_ATTEMPTS):
            await table.checkout_latest()
            names = (await table.schema()).names
            missing = {k: v for k, v in ADDED_COLUMNS.items() if k not in names}
            if not missing:
                return
            try:
                await table.add_columns(missing)
                return
            except Exception as error:
                if attempt == COMMIT_ATTEMPTS - 1 or not (
                    is_conflict(error) or "already exists" in str(error)
                ):
                    raise
                await asyncio.sleep(commit_pause(attempt))

    async def _upgrade_keyword_index(self, table: Any) -> None:
        """An index whose BM25 read the text alone gets one over `keyword_text` in its place
        (searching an unindexed column would scan every row); as with the columns, another
        process doing the same first is as good."""
        names = {index.name for index in await table.list_indices()}
        old = [name for name in OLD_FTS_INDEXES if name in names]
        if not old or FTS_INDEX in names:
            return
        for attempt in range(COMMIT_ATTEMPTS):
            try:
                await table.create_index("keyword_text", config=FTS_CONFIG, name=FTS_INDEX)
                break
            except Exception as error:
                if "already exists" in str(error):
                    break
                if attempt == COMMIT_ATTEMPTS - 1 or not is_conflict(error):
                    raise
                await asyncio.sleep(commit_pause(attempt))
                await table.checkout_latest()
        for name in old:
            try:
                await table.drop_index(name)
            except Exception as error:  # dropped by another process; else it only takes disk
                log.info("old BM25 index %s of %s not dropped: %s", name, self.location, error)

    async def _writable(self) -> Any:
        table = await self._existing()
        if table is None:
            table = await self._db.create_table(TABLE, schema=self._schema, exist_ok=True)
            self._check_dimension(await table.schema())
            self._table = table
        if not self._indexes_checked:  # once per store: the table may predate an index
            existing = {index.name for index in await table.list_indices()}
            if FTS_INDEX not in existing:
                await table.create_index("keyword_text", config=FTS_CONFIG, name=FTS_INDEX)
            for column in SCALAR_INDEXED:
                if f"{column}_idx" not in existing:
                    await table.create_index(column, config=BTree(), name=f"{column}_idx")
            self._indexes_checked = True
        return table

    async def _check_model(self, table: Any) -> None:
        """One index holds one model's vectors: another model's, even of the same dimension,
        are not comparable with this model's queries."""
        other = (
            await table.query()
            .where(f"embed_model <> '' AND embed_model <> {quote(self.model)}")
            .select(["embed_model"])
            .limit(1)
            .to_arrow()
        )
        if other.num_rows:
            raise StoreError(
                f"the index at {self.location} holds vectors of the embedding model "
                f"{other.column('embed_model')[0].as_py()!r}, not of {self.model!r}",
                hint="the embedding model changed: remove the index folder and ingest again",
            )

    def _check_dimension(self, schema: pa.Schema) -> None:
        stored = schema.field("vector").type.list_size
        if stored != self.dim:
            raise StoreError(
                f"the index at {self.location} holds {stored}-dimensional vectors, "
                f"but the embedder makes {self.dim}",
                hint="the embedding model changed: remove the index folder and ingest again",
            )

    async def _replace(self, rows: pa.Table, replaces: list[str]) -> None:
        table = await self._writable()
        merge = (
            table.merge_insert("chunk_id").when_matched_update_all().when_not_matched_insert_all()
        )
        if replaces:
            merge = merge.when_not_matched_by_source_delete(in_list("source_id", replaces))
        await merge.execute(rows)
        await self._maintain(table)

    async def _delete(self, predicate: str) -> int:
        table = await self._existing()
        if table is None:
            return 0
        doomed = int(await table.count_rows(predicate))
        if doomed:
            await table.delete(predicate)
        return doomed

    async def _optimize(self) -> None:
        table = await self._existing()
        if table is not None:
            await table.optimize(cleanup_older_than=KEEP_VERSIONS)

    async def _maintain(self, table: Any) -> None:
        """Fold waiting rows into the indexes once enough wait; (re)train the vector index.

        The rows are committed already: when another writer is doing the same upkeep at the
        same moment, this writer leaves it to them.
        """
        try:
            await self._upkeep(table)
        except Exception as error:
            if not is_conflict(error):
                raise
            log.info("index upkeep on %s left to another writer: %s", self.location, error)

    async def _upkeep(self, table: Any) -> None:
        keyword = await table.index_stats(FTS_INDEX)
        if keyword is not None and keyword.num_unindexed_rows >= self.fts_lag_rows:
            await table.optimize(cleanup_older_than=KEEP_VERSIONS)
        rows = int(await table.count_rows())
        if rows < self.ann_min_rows:
            return
        old = [i.name for i in await table.list_indices() if i.name.startswith(VECTOR_INDEX_PREFIX)]
        trained_on = max((int(name[len(VECTOR_INDEX_PREFIX) :]) for name in old), default=0)
        # optimize() adds each batch of rows as a delta segment, and every segment is searched.
        segments = max([(await table.index_stats(name)).num_indices for name in old], default=0)
        if rows >= 2 * trained_on or segments > MAX_VECTOR_SEGMENTS:
            config = IvfSq(distance_type="cosine")  # LanceDB picks the partition count
            await table.create_index("vector", config=config, name=f"{VECTOR_INDEX_PREFIX}{rows}")
            for name in old:
                await table.drop_index(name)

    async def _health(self) -> StoreHealth:
        table = await self._existing()
        if table is None:
            return StoreHealth.empty(self.location)
        indexes = [index.name for index in await table.list_indices()]
        vector = next((n for n in indexes if n.startswith(VECTOR_INDEX_PREFIX)), None)
        keyword_stats = await table.index_stats(FTS_INDEX)
        vector_stats = await table.index_stats(vector) if vector else None
        return StoreHealth(
            rows=int(await table.count_rows()),
            keyword_unindexed=keyword_stats.num_unindexed_rows if keyword_stats else 0,
            vector_index=vector,
            vector_unindexed=vector_stats.num_unindexed_rows if vector_stats else 0,
            location=self.location,
        )

    async def _keyword(
        self, text: str, k: int, predicate: str | None, with_vectors: bool
    ) -> pa.Table | None:
        table = await self._existing()
        if table is None:
            return None
        columns = (
            [*CHUNK_COLUMNS, "vector", "_score"] if with_vectors else [*CHUNK_COLUMNS, "_score"]
        )
        query = table.query().nearest_to_text(_match(text)).select(columns).limit(k)
        if predicate:
            query = query.where(predicate)
        return await query.to_arrow()

    async def _vector(
        self, vectors: Sequence[np.ndarray], k: int, predicate: str | None
    ) -> pa.Table | None:
        table = await self._existing()
        if table is None:
            return None
        query = (
            table.query()
            .nearest_to(vectors[0] if len(vectors) == 1 else list(vectors))
            .distance_type("cosine")
            .minimum_nprobes(self.nprobes)
            .maximum_nprobes(0)  # a narrow filter may probe more partitions to fill k
            .select([*CHUNK_COLUMNS, "vector", "_distance"])
            .limit(k)
        )
        if predicate:
            query = query.where(predicate)
        return await query.to_arrow()

    async def _count(self, predicate: str | None) -> int:
        table = await self._existing()
        return 0 if table is None else int(await table.count_rows(predicate))

    async def _scan(self, predicate: str | None, columns: list[str]) -> pa.Table | None:
        table = await self._existing()
        if table is None:
            return None
        query = table.query().select(columns)
        if predicate:
            query = query.where(predicate)
        return await query.to_arrow()


def _match(text: str) -> MatchQuery:
    """Any of the query's terms (OR), exact: structured, so nothing in `text` is parsed."""
    return MatchQuery(
        text,
        "keyword_text",
        boost=1.0,
        fuzziness=0,
        max_expansions=50,
        operator=FullTextOperator.OR,
        prefix_length=0,
        document_granularity=None,
    )
