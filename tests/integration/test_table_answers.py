"""A table found by search reaches the prompt inside its parent text, read from a real index.

A Word report is parsed, chunked and stored in LanceDB (random vectors: no embedding model is
needed for keyword search); the chat model is scripted, so the test reads the prompt it got.
"""

from __future__ import annotations

import io
from pathlib import Path

import docx
import numpy as np

from polyrag.agent.steps import Steps
from polyrag.agent.trace import Trace
from polyrag.chunk.chunker import Chunker
from polyrag.index.store.lancedb import LanceStore
from polyrag.llm.fallback import FallbackChain
from polyrag.parse.word import WordParser
from polyrag.settings import ChunkSettings, Settings
from polyrag.types import Modality, Source
from tests.unit.replies import Replies

DIM = 16


class WordCounter:
    def count_tokens(self, text: str) -> int:
        return len(text.split())


def report() -> bytes:
    document = docx.Document()
    document.add_heading("Quarterly results", level=1)
    document.add_paragraph("Revenue grew in every region this quarter, led by the north.")
    table = document.add_table(rows=4, cols=2)
    cells = [("Region", "Q3 revenue"), ("Nordics", "4.1 M"), ("Iberia", "2.7 M")]
    cells += [("Benelux", "3.3 M")]
    for row, values in zip(table.rows, cells, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_paragraph("All figures are in millions of euros, before tax.")
    document.add_heading("Outlook", level=1)
    document.add_paragraph("Next year the company plans two new offices in the south.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_a_table_hit_is_answered_from_its_parent_text(tmp_path: Path) -> None:
    parsed = WordParser().parse(report(), name="results.docx")
    source = Source("results01", "/docs/results.docx", "a" * 64, 1, parsed.media_type)
    chunks = Chunker(WordCounter(), ChunkSettings()).chunk(source, parsed.blocks, parsed.layout)
    vectors = np.random.default_rng(5).standard_normal((len(chunks), DIM)).astype(np.float32)
    store = LanceStore(tmp_path / "index", DIM, model="test-random")
    try:
        store.replace(chunks, vectors)
        hits = store.keyword_search("Iberia Q3 revenue", 3, vector=vectors[0])
        assert hits[0].chunk.modality is Modality.TABLE  # the rows say "Iberia"
        chat = Replies(["Iberia had Q3 revenue of 2.7 M [1]."])
        settings = Settings(answer={"min_similarity": -1.0, "evidence_items": 1})
        steps = Steps(None, FallbackChain([chat]), settings, parents=store.chunks_by_ordinal)  # type: ignore[arg-type]
        trace = Trace(lambda _event: None)
        question = "What was the Q3 revenue in Iberia?"
        evidence = steps.evidence(question, hits, trace)
        draft = steps.generate(question, evidence, (), trace)
        verdict = steps.verify(draft, evidence, trace, arithmetic=False)
    finally:
        store.close()
    prompt = chat.asked[0][0][-1].content
    context = prompt.split("Question:")[0]
    order = [
        context.index("Revenue grew in every region"),
        context.index("Table 1: Region, Q3 revenue"),
        context.index("Iberia"),
        context.index("All figures are in millions of euros"),
    ]
    assert order == sorted(order)  # the table in its place within the text around it
    assert "[Table 1" not in context  # the placeholder gave way to the table
    assert not verdict.refused
    (citation,) = verdict.citations
    assert citation.chunk.modality is Modality.TABLE and citation.chunk.anchor == 0
