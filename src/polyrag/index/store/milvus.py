"""The Store over Milvus (pymilvus): one collection of chunks with a BM25 function and vectors.

The URI is either a local file path ending in `.db`, which pymilvus opens as Milvus Lite (an
embedded engine run inside this process: nothing is downloaded or started elsewhere), or the
address of a Milvus server (`http://host:19530`, with a `token` where it asks for one).

Keyword search is Milvus's own full-text search: a BM25 function turns each chunk's
`keyword_text` (its nearest heading, then its text) into a sparse vector when it is written, and the
query text is scored against those with the BM25 metric; vector search is by cosine. Filters
are Milvus expressions applied before the top k.

What Milvus cannot do atomically, and how it is handled:

* There are no multi-statement transactions, so `replace` is not atomic: it upserts the new
  chunks first and then deletes the replaced sources' chunks that are not among them. A reader
  may see both versions for a moment, but never neither. The store does not claim
  ATOMIC_REPLACE.
* Milvus Lite holds a file lock: one process per `.db` file, and its engine does not support
  concurrent writers. The store does not claim SHARED_WRITERS; its own writes go one at a time.
  Several stores on one file in one process share one engine (pymilvus keeps one per path).
* Milvus Lite flushes rows from memory to disk in `optimize()` and inside any write once 128 MB
  wait in memory. A search that overlaps a flush may take the disk segments from before it and
  the (new, empty) memory table from after it, and so miss the rows being flushed: a gap. So on
  Lite, reads and writes of one file take turns (a reader-writer lock per file in this process):
  reads run together and each write request alone; a reader still sees the state between the
  upsert and the delete of a `replace`.

What Milvus Lite (3.2.x, a pure-Python engine) does differently from a Milvus server:

* Its analyzer splits on non-word characters, lowercases and drops the stop words given; it
  ignores the `asciifolding` and `stemmer` filters that a server applies (both are asked for).
* It reports BM25 scores negated (its internal "smaller is better" distance); a server reports
  them positive. Scores here are the absolute value, which is the BM25 score on both.
* Its BM25 statistics (IDF, average length) are per segment: rows written since the last
  `optimize()` are scored apart from older ones until its background compaction merges them.
* It reports every index as complete: `health()` shows no lag on Lite.
* Reads see this process's writes at once (Strong consistency is also asked of a server).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pymilvus import DataType, Function, FunctionType, MilvusClient

from polyrag.errors import StoreError
from polyrag.index.store.base import StoreHealth, best_cosines, checked_vectors
from polyrag.index.store.lance_rows import cosines
from polyrag.types import Chunk, Filter, Hit, Locator, Modality

# pymilvus, and Milvus Lite's side of each request, log every failed call with its traceback;
# here each failure surfaces once, as a StoreError with one line, so their logs would only
# repeat it. (Milvus Lite's engine still logs what it does in the background.)
for _name in ("pymilvus", "milvus_lite.server_manager", "milvus_lite.adapter"):
    logging.getLogger(_name).setLevel(logging.CRITICAL)

SERVER_SCHEMES = ("http://", "https://", "tcp://", "unix:")
# The columns a Chunk is rebuilt from. The collection also holds text_sha256 (the sha256 of the
# embedded text), embed_model (the model that made the vector), page and printed_page (for
# filtering), the vector, `keyword_text` (what BM25 reads) and `sparse`: the BM25 function's
# output, which Milvus fills from `keyword_text` (from `text` in collections made before it).
CHUNK_FIELDS = ["chunk_id", "source_id", "path", "text", "locator", "modality", "ordinal", "anchor"]
SPARSE = "sparse"
VECTOR = "vector"
PRINTED = "printed_page"
KEYWORD = "keyword_text"
VARCHARS = ("chunk_id", "source_id", "path", "text", "locator", "embed_model")  # checked in size
MAX_VARCHAR = 65_535  # Milvus's largest VARCHAR, in bytes
MAX_TOP_K = 16_384  # Milvus's largest limit for one search
WRITE_BATCH = 512  # rows per upsert request
LIST_BATCH = 1_000  # values per `in [...]` expression
STRONG = "Strong"  # reads see every write acknowledged before them

# Lucene's English stop words, as Milvus's "_english_" list and LanceDB's tokenizer have them;
# spelled out because Milvus Lite takes "_english_" for a word.
ENGLISH_STOP_WORDS = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
    "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
    "these", "they", "this", "to", "was", "will", "with",
]  # fmt: skip
# Lowercase, ASCII folding, stop words, English stemming: the LanceDB store's setup. Milvus Lite
# applies the first and third only (see above).
ANALYZER = {
    "tokenizer": "standard",
    "filter": [
        "lowercase",
        "asciifolding",
        {"type": "stop", "stop_words": ENGLISH_STOP_WORDS},
        {"type": "stemmer", "language": "english"},
    ],
}
WORD = re.compile(r"\w")


class _ReadWriteLock:
    """Many readers or one writer; a waiting writer goes before readers that come after it.
    Not reentrant: a thread holds one side once."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        with self._condition:
            while self._writing or self._writers_waiting:
                self._condition.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._condition:
                self._readers -= 1
                if not self._readers:
                    self._condition.notify_all()

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        with self._condition:
            self._writers_waiting += 1
            while self._writing or self._readers:
                self._condition.wait()
            self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._condition:
                self._writing = False
                self._condition.notify_all()


@dataclass
class _LiteEngine:
    """A Milvus Lite engine this process has open: the stores using it and their turns."""

    users: int = 0
    turns: _ReadWriteLock = field(default_factory=_ReadWriteLock)


# By path. The last store to close an engine stops it (pymilvus would keep it to the end of the
# process, with its file lock).
_lite_engines: dict[str, _LiteEngine] = {}
_lite_lock = threading.Lock()


class MilvusStore:
    """Chunks, their vectors and a BM25 index in one Milvus collection at `uri`: a local `.db`
    file (Milvus Lite) or a Milvus server's address.

    The collection is created by the first write; reads before that find nothing. Safe to share
    between threads (reads run concurrently, writes one at a time).
    """

    capabilities: frozenset[str] = frozenset()  # see the module's docstring

    def __init__(
        self,
        uri: str | Path,
        dim: int,
        *,
        model: str,
        collection: str = "chunks",
        token: str = "",
    ) -> None:
        self.dim = dim
        self.model = model
        self.collection = collection
        text = str(uri)
        self._lite = not text.startswith(SERVER_SCHEMES)
        self.location = os.path.abspath(text) if self._lite else text
        self._write_lock = threading.Lock()
        self._open_lock = threading.Lock()
        self._ready = False  # the collection exists, matches this store and is loaded
        self._printed = True  # the collection has the printed page field (older ones lack it)
        self._keyword = True  # BM25 reads the keyword_text field (older ones read the text)
        self._client: MilvusClient | None = None
        self._turns: _ReadWriteLock | None = None  # Milvus Lite's reads and writes take turns
        if self._lite:
            if not self.location.endswith(".db"):
                raise StoreError(
                    f"a Milvus Lite index must be a file path ending in .db, not {self.location}",
                    hint="name a file such as index/milvus.db",
                )
            with self._failures("could not be opened"):
                Path(self.location).parent.mkdir(parents=True, exist_ok=True)
            with _lite_lock:
                self._client = self._connect(token)
                engine = _lite_engines.setdefault(self.location, _LiteEngine())
                engine.users += 1
                self._turns = engine.turns
        else:
            self._client = self._connect(token)

    # -- writes -----------------------------------------------------------------------------

    def replace(
        self, chunks: Sequence[Chunk], vectors: np.ndarray, *, replaces: Sequence[str] = ()
    ) -> None:
        vectors = checked_vectors(chunks, vectors, self.dim)
        if not chunks:
            self.delete_sources(replaces)
            return
        rows = self._rows(chunks, vectors)
        with self._write_lock, self._failures("could not be written"):
            client = self._writable()
            # New first, old after: a reader may see both versions, never neither.
            for start in range(0, len(rows), WRITE_BATCH):
                with self._writing():
                    client.upsert(self.collection, rows[start : start + WRITE_BATCH])
            if replaces:
                kept = {row["chunk_id"] for row in rows}
                old = self._scan(_in("source_id", replaces), ["chunk_id"])
                doomed = [row["chunk_id"] for row in old if row["chunk_id"] not in kept]
                for start in range(0, len(doomed), LIST_BATCH):
                    batch = doomed[start : start + LIST_BATCH]
                    with self._writing():
                        client.delete(self.collection, filter=_in("chunk_id", batch))

    def delete_sources(self, source_ids: Sequence[str]) -> int:
        ids = list(dict.fromkeys(source_ids))
        if not ids:
            return 0
        with self._write_lock, self._failures("could not be written"):
            if not self._existing():
                return 0
            deleted = 0
            for start in range(0, len(ids), LIST_BATCH):
                predicate = _in("source_id", ids[start : start + LIST_BATCH])
                doomed = self._count(predicate)  # Milvus Lite reports ids asked, not rows hit
                if doomed:
                    with self._writing():
                        self._connected().delete(self.collection, filter=predicate)
                    deleted += doomed
            return deleted

    def optimize(self) -> None:
        """Write the rows held in memory to segments and let Milvus compact and index them."""
        with self._write_lock, self._failures("could not be optimized"):
            if not self._existing():
                return
            client = self._connected()
            with self._writing():
                client.flush(self.collection)
                client.compact(self.collection)

    def health(self) -> StoreHealth:
        """Rows and how far each index lags behind them."""
        with self._failures("is unreachable"):
            if not self._existing():
                return StoreHealth.empty(self.location)
            client = self._connected()
            keyword = client.describe_index(self.collection, SPARSE) or {}
            vector = client.describe_index(self.collection, VECTOR) or {}
            index_type = str(vector.get("index_type", "FLAT"))
            return StoreHealth(
                rows=self._count(None),
                keyword_unindexed=int(keyword.get("pending_index_rows", 0)),
                vector_index=None if index_type in ("FLAT", "BRUTE_FORCE") else index_type,
                vector_unindexed=int(vector.get("pending_index_rows", 0)),
                location=self.location,
            )

    def close(self) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        with contextlib.suppress(Exception):  # closing is best effort
            client.close()
        if self._lite:
            _release_lite(self.location)

    # -- reads ------------------------------------------------------------------------------

    def keyword_search(
        self, query: str, k: int, where: Filter | None = None, *, vector: np.ndarray | None = None
    ) -> list[Hit]:
        if k <= 0 or not WORD.search(query):  # no word to look for: nothing matches
            return []
        query_vector = None if vector is None else self._query_vector(vector)
        fields = CHUNK_FIELDS if query_vector is None else [*CHUNK_FIELDS, VECTOR]
        with self._failures("could not be searched"):
            if not self._existing() or not self._can_filter(where):
                return []
            with self._reading():
                found = self._connected().search(
                    self.collection,
                    data=[query],
                    anns_field=SPARSE,
                    limit=min(k, MAX_TOP_K),
                    filter=filter_expression(where),
                    output_fields=fields,
                    search_params={"metric_type": "BM25"},
                    consistency_level=STRONG,
                )[0]
        entities = [hit["entity"] for hit in found]
        # abs(): Milvus Lite reports the BM25 score negated, a server reports it as it is.
        scores = [abs(float(hit["distance"])) for hit in found]
        similarities: list[float | None] = [None] * len(found)
        if query_vector is not None:
            similarities = list(cosines(self._matrix(entities), query_vector))
        ranked = sorted(zip(entities, scores, similarities, strict=True), key=lambda r: -r[1])
        return [
            Hit(chunk=_chunk(entity), score=score, keyword_rank=rank, vector_similarity=similarity)
            for rank, (entity, score, similarity) in enumerate(ranked, start=1)
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
        with self._failures("could not be searched"):
            if not self._existing() or not self._can_filter(where):
                return []
            with self._reading():
                # One request for all the query vectors: Milvus answers each in its own list.
                found = self._connected().search(
                    self.collection,
                    data=[q.tolist() for q in (query, *others)],
                    anns_field=VECTOR,
                    limit=min(k, MAX_TOP_K),
                    filter=filter_expression(where),
                    output_fields=[*CHUNK_FIELDS, VECTOR],
                    search_params={"metric_type": "COSINE"},
                    consistency_level=STRONG,
                )
        unique: dict[str, dict[str, Any]] = {}
        for hits in found:
            for hit in hits:
                unique.setdefault(hit["entity"]["chunk_id"], hit["entity"])
        entities = list(unique.values())
        # Cosines from the stored vectors: exact whatever the index, and the same numbers for
        # every query vector.
        scores, reported = best_cosines(self._matrix(entities), query, others)
        ranked = sorted(zip(entities, scores, reported, strict=True), key=lambda row: -row[1])
        return [
            Hit(
                chunk=_chunk(entity),
                score=float(score),
                vector_rank=rank,
                vector_similarity=float(similarity),
            )
            for rank, (entity, score, similarity) in enumerate(ranked, start=1)
        ]

    def count(self, where: Filter | None = None) -> int:
        with self._failures("could not be read"):
            if not self._existing() or not self._can_filter(where):
                return 0
            return self._count(filter_expression(where))

    def source_ids(self) -> set[str]:
        with self._failures("could not be read"):
            return {row["source_id"] for row in self._scan(None, ["source_id"])}

    def source_paths(self) -> dict[str, str]:
        with self._failures("could not be read"):
            return {
                row["source_id"]: row["path"] for row in self._scan(None, ["source_id", "path"])
            }

    def counts_by_modality(self) -> dict[str, dict[str, int]]:
        counts: dict[str, dict[str, int]] = {}
        with self._failures("could not be read"):
            for row in self._scan(None, ["source_id", "modality"]):
                by_modality = counts.setdefault(row["source_id"], {})
                by_modality[row["modality"]] = by_modality.get(row["modality"], 0) + 1
        return counts

    def chunks_of(self, source_id: str) -> list[Chunk]:
        with self._failures("could not be read"):
            rows = self._scan(f"source_id == {_literal(source_id)}", CHUNK_FIELDS)
        return sorted((_chunk(row) for row in rows), key=lambda chunk: chunk.ordinal)

    def chunks_by_ordinal(self, source_id: str, ordinals: Sequence[int]) -> list[Chunk]:
        wanted = sorted({int(ordinal) for ordinal in ordinals})
        if not wanted:
            return []
        predicate = f"source_id == {_literal(source_id)} and ordinal in {wanted}"
        with self._failures("could not be read"):
            rows = self._scan(predicate, CHUNK_FIELDS)
        return sorted((_chunk(row) for row in rows), key=lambda chunk: chunk.ordinal)

    def vectors_for(self, texts_by_hash: Sequence[str]) -> dict[str, np.ndarray]:
        hashes = list(dict.fromkeys(texts_by_hash))
        out: dict[str, np.ndarray] = {}
        with self._failures("could not be read"):
            if not hashes or not self._existing():
                return out
            for start in range(0, len(hashes), LIST_BATCH):
                predicate = (
                    f"{_in('text_sha256', hashes[start : start + LIST_BATCH])}"
                    f" and embed_model == {_literal(self.model)}"
                )
                rows = self._scan(predicate, ["text_sha256", VECTOR])
                for row, stored in zip(rows, self._matrix(rows), strict=True):
                    out[row["text_sha256"]] = stored
        return out

    # -- helpers ----------------------------------------------------------------------------

    def _connect(self, token: str) -> MilvusClient:
        try:
            # dedicated: this store's own connection, closed with it (shared ones never are).
            return MilvusClient(uri=self.location, token=token, dedicated=True)
        except Exception as error:
            if self._lite and _locked_elsewhere(self.location):
                raise StoreError(
                    f"the Milvus Lite index at {self.location} is open in another process",
                    hint="Milvus Lite allows one process per file: stop the other one first",
                ) from error
            raise self._error("could not be opened", error) from error

    def _connected(self) -> MilvusClient:
        if self._client is None:
            raise StoreError(f"the Milvus index at {self.location} is closed")
        return self._client

    def _reading(self) -> contextlib.AbstractContextManager[None]:
        """Around one read request: on Milvus Lite, never during a write request."""
        return contextlib.nullcontext() if self._turns is None else self._turns.reading()

    def _writing(self) -> contextlib.AbstractContextManager[None]:
        """Around one write request: on Milvus Lite, while no read request runs."""
        return contextlib.nullcontext() if self._turns is None else self._turns.writing()

    @contextlib.contextmanager
    def _failures(self, what: str) -> Iterator[None]:
        """Turn any failure of pymilvus or Milvus into one StoreError naming this index."""
        try:
            yield
        except StoreError:
            raise
        except Exception as error:  # MilvusException, grpc errors, OSError, ValueError, ...
            raise self._error(what, error) from error

    def _error(self, what: str, error: BaseException) -> StoreError:
        reason = getattr(error, "message", None) or str(error)  # MilvusException's own words
        message = " ".join(str(reason).split())[:500]
        return StoreError(
            f"the Milvus index at {self.location} {what}: {type(error).__name__}: {message}",
            hint=(
                "check free disk space and file permissions of the polyrag home"
                if self._lite
                else "check the Milvus server's address and token, and that it is running"
            ),
        )

    def _can_filter(self, where: Filter | None) -> bool:
        """False when `where` asks for printed page numbers this collection never kept."""
        return self._printed or where is None or not where.printed_pages

    def _existing(self) -> bool:
        """Whether the collection exists; the first time it does, check that it is this
        store's (dimension, model) and load it for searching."""
        if self._ready:
            return True
        with self._open_lock:
            if self._ready:
                return True
            client = self._connected()
            if not client.has_collection(self.collection):
                return False
            self._check_schema(client.describe_collection(self.collection))
            if str(client.get_load_state(self.collection).get("state")) != "Loaded":
                client.load_collection(self.collection)  # a reopened collection is released
            self._check_model()
            self._ready = True
            return True

    def _writable(self) -> MilvusClient:
        client = self._connected()
        if not self._existing():
            with self._open_lock:
                if not client.has_collection(self.collection):
                    client.create_collection(
                        self.collection, schema=self._schema(), consistency_level=STRONG
                    )
                    # sync=False: pymilvus would poll each index's state twice a second, and
                    # Milvus Lite builds them at once (a server builds them before loading).
                    client.create_index(self.collection, self._index_params(), sync=False)
                    client.load_collection(self.collection)
            self._existing()
        return client

    def _schema(self) -> Any:
        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("chunk_id", DataType.VARCHAR, is_primary=True, max_length=MAX_VARCHAR)
        schema.add_field("source_id", DataType.VARCHAR, max_length=MAX_VARCHAR)
        schema.add_field("path", DataType.VARCHAR, max_length=MAX_VARCHAR)
        schema.add_field("text", DataType.VARCHAR, max_length=MAX_VARCHAR)
        schema.add_field(
            KEYWORD,
            DataType.VARCHAR,
            max_length=MAX_VARCHAR,
            enable_analyzer=True,
            analyzer_params=ANALYZER,
        )
        schema.add_field("text_sha256", DataType.VARCHAR, max_length=64)
        schema.add_field("embed_model", DataType.VARCHAR, max_length=MAX_VARCHAR)
        schema.add_field("locator", DataType.VARCHAR, max_length=MAX_VARCHAR)  # Locator JSON
        schema.add_field("modality", DataType.VARCHAR, max_length=32)
        schema.add_field("ordinal", DataType.INT32)
        schema.add_field("anchor", DataType.INT32, nullable=True)  # a table's parent text chunk
        schema.add_field("page", DataType.INT32, nullable=True)  # locator.page, for filtering
        schema.add_field(PRINTED, DataType.INT32, nullable=True)  # locator.printed_page
        schema.add_field(SPARSE, DataType.SPARSE_FLOAT_VECTOR)
        schema.add_field(VECTOR, DataType.FLOAT_VECTOR, dim=self.dim)
        schema.add_function(
            Function(
                name="text_bm25",
                function_type=FunctionType.BM25,
                input_field_names=[KEYWORD],
                output_field_names=[SPARSE],
            )
        )
        return schema

    def _index_params(self) -> Any:
        params = self._connected().prepare_index_params()
        params.add_index(
            field_name=SPARSE,
            index_name=SPARSE,
            index_type="SPARSE_INVERTED_INDEX",
            metric_type="BM25",
        )
        # Exact search, no recall to lose. On Lite (384 dimensions, 2 cores, after optimize) a
        # search took ~6 ms at 2k rows and 30-60 ms at 10k; HNSW took ~11 ms at 10k.
        params.add_index(
            field_name=VECTOR, index_name=VECTOR, index_type="FLAT", metric_type="COSINE"
        )
        # Deletes and chunks_of select by source_id; ingestion looks vectors up by text hash.
        for name in ("source_id", "text_sha256"):
            params.add_index(field_name=name, index_name=name, index_type="INVERTED")
        return params

    def _check_schema(self, description: dict[str, Any]) -> None:
        fields = {field["name"]: field for field in description.get("fields", [])}
        # Collections made before printed page numbers were kept lack the field: they are
        # written and searched without it.
        self._printed = PRINTED in fields
        self._keyword = KEYWORD in fields
        missing = [name for name in [*CHUNK_FIELDS, "text_sha256", "embed_model", "page", VECTOR]
                   if name not in fields]  # fmt: skip
        if missing:
            raise StoreError(
                f"the Milvus collection {self.collection!r} at {self.location} is not a polyrag "
                f"index: it has no field {missing[0]!r}",
                hint="name another collection, or remove this one and ingest again",
            )
        stored = int(fields[VECTOR].get("params", {}).get("dim", 0))
        if stored != self.dim:
            raise StoreError(
                f"the index at {self.location} holds {stored}-dimensional vectors, "
                f"but the embedder makes {self.dim}",
                hint="the embedding model changed: remove the index and ingest again",
            )

    def _check_model(self) -> None:
        """One index holds one model's vectors: another model's, even of the same dimension,
        are not comparable with this model's queries."""
        with self._reading():
            other = self._connected().query(
                self.collection,
                filter=f'embed_model != "" and embed_model != {_literal(self.model)}',
                output_fields=["embed_model"],
                limit=1,
                consistency_level=STRONG,
            )
        if other:
            raise StoreError(
                f"the index at {self.location} holds vectors of the embedding model "
                f"{other[0]['embed_model']!r}, not of {self.model!r}",
                hint="the embedding model changed: remove the index and ingest again",
            )

    def _count(self, predicate: str | None) -> int:
        with self._reading():
            result = self._connected().query(
                self.collection,
                filter=predicate or "",
                output_fields=["count(*)"],
                consistency_level=STRONG,
            )
        return int(result[0]["count(*)"]) if result else 0

    def _scan(self, predicate: str | None, fields: list[str]) -> list[dict[str, Any]]:
        """Every row that matches, with these fields (in no particular order)."""
        if not self._existing():
            return []
        # A server refuses an empty filter without a limit: select every row explicitly.
        with self._reading():
            rows = self._connected().query(
                self.collection,
                filter=predicate or 'chunk_id != ""',
                output_fields=fields,
                consistency_level=STRONG,
            )
        return [dict(row) for row in rows]

    def _rows(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> list[dict[str, Any]]:
        """The rows for chunks whose vectors this store's model made; a chunk id given twice
        keeps its last version."""
        last = {chunk.chunk_id: i for i, chunk in enumerate(chunks)}
        rows: list[dict[str, Any]] = []
        for i in sorted(last.values()):
            chunk = chunks[i]
            row: dict[str, Any] = {
                "chunk_id": chunk.chunk_id,
                "source_id": chunk.source_id,
                "path": chunk.path,
                "text": chunk.text,
                "text_sha256": chunk.embedded_sha256,
                "embed_model": self.model,
                "locator": chunk.locator.to_json(),
                "modality": str(chunk.modality),
                "ordinal": chunk.ordinal,
                "anchor": chunk.anchor,
                "page": chunk.locator.page,
                VECTOR: vectors[i].tolist(),
            }
            if self._printed:
                row[PRINTED] = chunk.locator.printed_page
            if self._keyword:
                row[KEYWORD] = chunk.keyword_text
            for name in (*VARCHARS, KEYWORD) if self._keyword else VARCHARS:
                if len(row[name].encode("utf-8")) > MAX_VARCHAR:
                    raise StoreError(
                        f"chunk {chunk.chunk_id[:200]!r} does not fit the Milvus index at "
                        f"{self.location}: its {name} is longer than {MAX_VARCHAR} bytes",
                        hint="use a smaller chunk size, or the LanceDB store",
                    )
            rows.append(row)
        return rows

    def _matrix(self, rows: Sequence[dict[str, Any]]) -> np.ndarray:
        if not rows:
            return np.empty((0, self.dim), dtype=np.float32)
        return np.asarray([row[VECTOR] for row in rows], dtype=np.float32).reshape(-1, self.dim)

    def _query_vector(self, vector: np.ndarray) -> np.ndarray:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise StoreError(f"query vector has {query.shape[0]} dimensions, not {self.dim}")
        return query


# -- filter expressions ---------------------------------------------------------------------


def _literal(value: str) -> str:
    """A Milvus string literal: double quotes, with the backslash escapes both Milvus's parser
    and Milvus Lite's read, so no value can end the literal early."""
    escaped = (
        value.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
    )
    return f'"{escaped}"'


def _in(field: str, values: Sequence[str]) -> str:
    """`field in ["a", "b"]`, for a list that is not empty."""
    if not values:
        raise ValueError(f"an empty list for {field}")
    return f"{field} in [{', '.join(_literal(value) for value in values)}]"


def filter_expression(where: Filter | None) -> str:
    """The Milvus expression for a Filter; "" when it restricts nothing."""
    if where is None or where.is_empty():
        return ""
    parts: list[str] = []
    if where.source_ids:
        parts.append(_in("source_id", where.source_ids))
    if where.modalities:
        parts.append(_in("modality", [str(modality) for modality in where.modalities]))
    if where.pages:
        parts.append(f"page in {[int(page) for page in where.pages]}")
    if where.printed_pages:
        parts.append(f"{PRINTED} in {[int(page) for page in where.printed_pages]}")
    return " and ".join(f"({part})" for part in parts)


# -- rows and engines -----------------------------------------------------------------------


def _chunk(row: dict[str, Any]) -> Chunk:
    anchor = row.get("anchor")
    return Chunk(
        chunk_id=row["chunk_id"],
        source_id=row["source_id"],
        path=row.get("path") or "",
        text=row.get("text") or "",
        locator=Locator.from_json(row.get("locator") or ""),
        modality=Modality(row.get("modality") or Modality.TEXT),
        ordinal=int(row.get("ordinal") or 0),
        anchor=None if anchor is None else int(anchor),
    )


def _release_lite(path: str) -> None:
    """Stop this process's Milvus Lite engine for `path` once no store uses it."""
    with _lite_lock:
        engine = _lite_engines.get(path)
        if engine is not None and engine.users > 1:
            engine.users -= 1
            return
        _lite_engines.pop(path, None)
        with contextlib.suppress(Exception):  # pymilvus stops it at exit in any case
            from milvus_lite.server_manager import server_manager_instance

            server_manager_instance.release_server(path)


def _locked_elsewhere(path: str) -> bool:
    """Whether another process holds Milvus Lite's lock on `path` (its data folder)."""
    try:
        import fcntl
    except ImportError:  # Windows: Milvus Lite locks otherwise there
        return False
    lock = os.path.join(path, "LOCK")
    if not os.path.exists(lock):
        return False
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
