"""The LanceDB table's schema and the conversions between its rows and our value types."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from polyrag.types import Chunk, Locator, Modality

# The columns a Chunk is rebuilt from. The table also holds page and printed_page (for
# filtering), vector, embed_model (the model that made the vector) and text_sha256: the sha256
# of the embedded text (heading path included). Vectors are reused by model and text_sha256
# together.
CHUNK_COLUMNS = [
    "chunk_id",
    "source_id",
    "path",
    "text",
    "locator",
    "modality",
    "ordinal",
    "anchor",
]
# Columns added after the first release, with the SQL that fills them in an older table.
# Rows written before `embed_model` existed get "" (unknown): their vectors are not reused.
ADDED_COLUMNS = {
    "anchor": "CAST(NULL AS INT)",
    "embed_model": "CAST('' AS STRING)",
    "printed_page": "CAST(NULL AS INT)",
    # Rows written before BM25 read headings keep their text alone until written again.
    "keyword_text": "text",
}


def table_schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("chunk_id", pa.string(), nullable=False),
            pa.field("source_id", pa.string(), nullable=False),
            pa.field("path", pa.string()),
            pa.field("text", pa.string()),
            pa.field("keyword_text", pa.string()),  # Chunk.keyword_text: what BM25 reads
            pa.field("text_sha256", pa.string()),
            pa.field("embed_model", pa.string()),
            pa.field("locator", pa.string()),  # Locator.to_json()
            pa.field("modality", pa.string()),
            pa.field("ordinal", pa.int32()),
            pa.field("anchor", pa.int32()),  # a table's or picture's parent text chunk
            pa.field("page", pa.int32()),  # locator.page, for filtering
            pa.field("printed_page", pa.int32()),  # locator.printed_page, for filtering
            pa.field("vector", pa.list_(pa.float32(), dim)),
        ]
    )


def rows_table(
    chunks: Sequence[Chunk], vectors: np.ndarray, schema: pa.Schema, model: str
) -> pa.Table:
    """The table rows for chunks whose vectors `model` made; a chunk id given twice keeps its
    last version."""
    last = {chunk.chunk_id: i for i, chunk in enumerate(chunks)}
    keep = sorted(last.values())
    chosen = [chunks[i] for i in keep]
    dim = schema.field("vector").type.list_size
    flat = pa.array(np.ascontiguousarray(vectors[keep]).reshape(-1), type=pa.float32())
    columns = {
        "chunk_id": [c.chunk_id for c in chosen],
        "source_id": [c.source_id for c in chosen],
        "path": [c.path for c in chosen],
        "text": [c.text for c in chosen],
        "keyword_text": [c.keyword_text for c in chosen],
        "text_sha256": [c.embedded_sha256 for c in chosen],
        "embed_model": [model] * len(chosen),
        "locator": [c.locator.to_json() for c in chosen],
        "modality": [str(c.modality) for c in chosen],
        "ordinal": [c.ordinal for c in chosen],
        "anchor": [c.anchor for c in chosen],
        "page": [c.locator.page for c in chosen],
        "printed_page": [c.locator.printed_page for c in chosen],
        "vector": pa.FixedSizeListArray.from_arrays(flat, dim),
    }
    return pa.table(columns, schema=schema)


def chunks_from(result: pa.Table) -> list[Chunk]:
    columns = {name: result.column(name).to_pylist() for name in CHUNK_COLUMNS}
    return [
        Chunk(
            chunk_id=columns["chunk_id"][i],
            source_id=columns["source_id"][i],
            path=columns["path"][i] or "",
            text=columns["text"][i] or "",
            locator=Locator.from_json(columns["locator"][i] or ""),
            modality=Modality(columns["modality"][i] or Modality.TEXT),
            ordinal=columns["ordinal"][i] or 0,
            anchor=columns["anchor"][i],
        )
        for i in range(result.num_rows)
    ]


def first_of_each(result: pa.Table, column: str) -> pa.Table:
    """The rows of `result` whose `column` value has not been seen in an earlier row."""
    first: dict[object, int] = {}
    for i, value in enumerate(result.column(column).to_pylist()):
        first.setdefault(value, i)
    return result if len(first) == result.num_rows else result.take(sorted(first.values()))


def cosines(matrix: np.ndarray, query: np.ndarray) -> list[float]:
    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(query))
    cosines = (matrix @ query) / np.where(norms > 0, norms, 1.0)
    return [float(c) for c in np.clip(cosines, -1.0, 1.0)]


def matrix(column: pa.ChunkedArray, dim: int) -> np.ndarray:
    if len(column) == 0:
        return np.empty((0, dim), dtype=np.float32)
    values = pc.list_flatten(column.combine_chunks())
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=np.float32).reshape(-1, dim)
