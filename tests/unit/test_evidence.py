"""Answer-time assembly: a retrieved table or picture is shown inside its parent text."""

from __future__ import annotations

from collections.abc import Sequence

from polyrag.answer.evidence import render, select_evidence
from polyrag.chunk.chunker import Chunker
from polyrag.settings import ChunkSettings
from polyrag.types import Block, BlockKind, Chunk, Hit, Locator, Modality, Source


def words(text: str) -> int:
    return len(text.split())


class WordCounter:
    def count_tokens(self, text: str) -> int:
        return words(text)


REPORT = Source("rep01", "/docs/report.docx", "a" * 64, 10, "docx")
DECK = Source("deck01", "/docs/deck.pptx", "b" * 64, 10, "pptx")
TABLE = (
    "| Region | Q3 revenue |\n| --- | --- |\n| Nordics | 4.1 M |\n| Iberia | 2.7 M |\n"
    "| Benelux | 3.3 M |"
)


def chunked(source: Source, blocks: list[Block]) -> list[Chunk]:
    settings = ChunkSettings(max_tokens=60, overlap_tokens=0, table_max_tokens=64)
    return Chunker(WordCounter(), settings).chunk(source, blocks)


def lookup(chunks: list[Chunk]):  # type: ignore[no-untyped-def]
    """Store.chunks_by_ordinal over a list: the same contract, without a database."""

    def parents(source_id: str, ordinals: Sequence[int]) -> list[Chunk]:
        wanted = set(ordinals)
        return [c for c in chunks if c.source_id == source_id and c.ordinal in wanted]

    return parents


def report_chunks() -> list[Chunk]:
    where = Locator(page=4)
    return chunked(
        REPORT,
        [
            Block(BlockKind.HEADING, "Quarterly results", where, level=1),
            Block(BlockKind.TEXT, "Revenue rose in every region this quarter.", where),
            Block(BlockKind.TABLE, TABLE, Locator(page=4, bbox=(10.0, 20.0, 300.0, 200.0))),
            Block(BlockKind.TEXT, "Figures are in millions of euros.", where),
            Block(BlockKind.BREAK, ""),
            Block(BlockKind.TEXT, "Next year the company plans new offices.", Locator(page=5)),
        ],
    )


def hit(chunk: Chunk, score: float) -> Hit:
    return Hit(chunk, score, vector_similarity=score)


def test_a_table_is_shown_inside_its_parent_text_and_cited_as_the_table() -> None:
    chunks = report_chunks()
    text, _markdown, rows, _later = chunks
    assert rows.anchor == text.ordinal and "[Table 1: Region, Q3 revenue]" in text.text
    chosen = select_evidence(
        [hit(rows, 0.9)], "What was Q3 revenue in the Nordics?", words, 400, parents=lookup(chunks)
    )
    (evidence,) = chosen
    assert evidence.chunk == rows  # the citation points to the table's rows on page 4
    assert evidence.context == text
    lines = evidence.text.splitlines()
    assert lines[0] == "Quarterly results"
    assert lines[1] == "Revenue rose in every region this quarter."
    assert lines[2] == "Table 1: Region, Q3 revenue"
    assert "Row 2: Region is Nordics, Q3 revenue is 4.1 M" in lines
    assert lines[-1] == "Figures are in millions of euros."  # after the table, as in the file
    assert "[Table 1" not in evidence.text
    assert render(chosen).startswith("[1] (report.docx, page 4, rows 2-4, § Quarterly results)")


def test_without_a_lookup_or_anchor_the_chunk_is_shown_alone() -> None:
    chunks = report_chunks()
    rows = chunks[2]
    (evidence,) = select_evidence([hit(rows, 0.9)], "Nordics revenue?", words, 400)
    assert evidence.text == rows.text and evidence.context is None


def test_parent_and_table_hits_are_shown_once_in_document_order() -> None:
    chunks = report_chunks()
    text, markdown, rows, later = chunks
    hits = [hit(later, 0.95), hit(markdown, 0.9), hit(rows, 0.85), hit(text, 0.8)]
    chosen = select_evidence(hits, "revenue Nordics offices", words, 400, 4, parents=lookup(chunks))
    assert [e.chunk for e in chosen] == [markdown, later]  # one table item, then page 5
    assert chosen[0].text.count("Nordics") == 1  # the table's two chunks are not both shown
    assert chosen[0].context == text


def test_a_tight_budget_keeps_the_table_and_trims_the_context() -> None:
    chunks = report_chunks()
    rows = chunks[2]
    budget = words(rows.text) + 22  # the label takes 10; 11 are left for context
    (evidence,) = select_evidence(
        [hit(rows, 0.9)],
        "Which region had revenue of 4.1 M?",
        words,
        budget,
        parents=lookup(chunks),
    )
    assert rows.text in evidence.text
    assert words(evidence.text) <= budget
    assert "Revenue rose in every region this quarter." in evidence.text  # shares "revenue"
    assert "Figures are in millions" not in evidence.text


def test_a_table_row_hit_is_shown_in_place_inside_its_slide() -> None:
    where = Locator(slide=3)
    chunks = chunked(
        DECK,
        [
            Block(BlockKind.BREAK, "", where),
            Block(BlockKind.HEADING, "Revenue by region", where, level=1),
            Block(BlockKind.TEXT, "All regions grew.", where),
            Block(BlockKind.TABLE, TABLE, where),
            Block(BlockKind.TEXT, "Speaker notes: Nordics first.", where),
        ],
    )
    slide, _markdown, rows = chunks
    assert slide.modality is Modality.TEXT and rows.anchor == slide.ordinal
    (evidence,) = select_evidence(
        [hit(rows, 0.9)], "Iberia revenue", words, 400, parents=lookup(chunks)
    )
    lines = evidence.text.splitlines()
    assert lines[:2] == ["Revenue by region", "All regions grew."]
    assert lines[2:6] == rows.text.splitlines()[:4]  # the rows stand where the table stood
    assert not any(line.startswith("|") for line in lines)  # its Markdown is not repeated
    assert lines[-1] == "Speaker notes: Nordics first."
    assert evidence.chunk.locator.slide == 3


def test_a_trimmed_passage_keeps_the_sentence_between_two_matching_ones() -> None:
    """The sentence naming the thing often repeats none of the question's words; its
    neighbours do. PDF lines wrapped mid-sentence are read as one sentence."""
    text = (
        "Traces cross function\ncall boundaries and inline code.\n"
        "We implemented these techniques for an existing JavaScript interpreter.\n"
        "We call the resulting VM TraceMonkey.\n"
        "TraceMonkey supports all JavaScript features of the interpreter.\n"
        "Section 3 gives an overview.\nSection 4 covers nested loops."
    )
    chunk = chunked(REPORT, [Block(BlockKind.TEXT, text, Locator(page=2))])[0]
    question = "What is the name of the JavaScript compiler?"
    evidence = select_evidence([hit(chunk, 0.9)], question, words, budget=32)
    assert len(evidence) == 1
    shown = evidence[0].text
    assert "We call the resulting VM TraceMonkey." in shown
    assert "Section 4" not in shown
