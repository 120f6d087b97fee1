from __future__ import annotations

from itertools import pairwise

from polyrag.chunk.chunker import Chunker
from polyrag.chunk.sentences import sentence_spans
from polyrag.settings import ChunkSettings
from polyrag.types import Block, BlockKind, Locator, Modality, Source


class WordCounter:
    """One token per whitespace-separated word: enough to test the packing logic."""

    def count_tokens(self, text: str) -> int:
        return len(text.split())


SOURCE = Source("abc123", "/docs/a.txt", "f" * 64, 10, "text")


def make(max_tokens: int = 40, overlap: int = 10) -> Chunker:
    settings = ChunkSettings(max_tokens=max_tokens, overlap_tokens=overlap, table_max_tokens=64)
    return Chunker(WordCounter(), settings)


def sentence(i: int, words: int = 9) -> str:
    return f"Sentence {i} " + " ".join(f"w{i}x{j}" for j in range(words - 2)) + "."


def test_sentence_spans_keep_abbreviations_and_lines() -> None:
    text = "Dr. Smith arrived. He met Mr. Jones e.g. at noon!\nNext line here"
    pieces = [text[a:b] for a, b in sentence_spans(text)]
    assert pieces == ["Dr. Smith arrived.", "He met Mr. Jones e.g. at noon!", "Next line here"]


def test_windows_respect_budget_and_overlap() -> None:
    text = " ".join(sentence(i) for i in range(12))
    chunks = make().chunk(SOURCE, [Block(BlockKind.TEXT, text, Locator(page=1))])
    assert len(chunks) > 2
    assert all(len(c.text.split()) <= 40 for c in chunks)
    for previous, current in pairwise(chunks):
        last_sentence = previous.text.split(". ")[-1]
        assert last_sentence.rstrip(".") in current.text  # overlap carries the last sentence
    assert [c.chunk_id for c in chunks] == [f"abc123-{i:05d}" for i in range(len(chunks))]
    assert all(c.locator.page == 1 for c in chunks)


def test_breaks_split_pages_and_headings_travel() -> None:
    blocks = [
        Block(BlockKind.HEADING, "Intro", Locator(page=1), level=1),
        Block(BlockKind.TEXT, sentence(1), Locator(page=1)),
        Block(BlockKind.BREAK, ""),
        Block(BlockKind.HEADING, "Methods", Locator(page=2), level=1),
        Block(BlockKind.HEADING, "Setup", Locator(page=2), level=2),
        Block(BlockKind.TEXT, sentence(2), Locator(page=2)),
    ]
    chunks = make().chunk(SOURCE, blocks)
    assert [c.locator.page for c in chunks] == [1, 2]
    assert chunks[0].locator.heading_path == ("Intro",)
    assert chunks[1].locator.heading_path == ("Methods", "Setup")
    assert "Sentence 1" in chunks[0].text and "Sentence 2" not in chunks[0].text


def test_tables_are_own_chunks_split_with_header() -> None:
    header = "| Team | Cups |\n| --- | --- |\n"
    rows = "".join(f"| Team{i} number {i} of the league | {i} |\n" for i in range(30))
    blocks = [
        Block(BlockKind.TEXT, sentence(1)),
        Block(BlockKind.TABLE, header + rows, Locator(sheet="S", rows=(1, 31))),
        Block(BlockKind.TEXT, sentence(2)),
    ]
    chunks = make().chunk(SOURCE, blocks)
    tables = [c for c in chunks if c.modality is Modality.TABLE]
    assert len(tables) > 1
    assert all(t.text.startswith("| Team | Cups |\n| --- | --- |") for t in tables)
    assert all(len(t.text.split()) <= 64 for t in tables)
    assert chunks[0].modality is Modality.TEXT and chunks[-1].modality is Modality.TEXT


def test_rows_pack_with_row_range() -> None:
    blocks = [
        Block(BlockKind.ROW, f"Row {r}: Team is T{r}, Cups is {r}", Locator(sheet="S", rows=(r, r)))
        for r in range(2, 30)
    ]
    chunks = make().chunk(SOURCE, blocks)
    assert len(chunks) > 1
    first = chunks[0]
    assert first.locator.sheet == "S"
    assert first.locator.rows is not None and first.locator.rows[0] == 2
    assert first.text.splitlines()[0] == "Row 2: Team is T2, Cups is 2"
    covered = [r for c in chunks for r in range(c.locator.rows[0], c.locator.rows[1] + 1)]  # type: ignore[index]
    assert covered == list(range(2, 30))  # rows never overlap or go missing


def test_overlong_sentence_is_split_by_words() -> None:
    text = " ".join(f"word{i}" for i in range(100))
    chunks = make().chunk(SOURCE, [Block(BlockKind.TEXT, text, Locator(char_span=(0, len(text))))])
    assert all(len(c.text.split()) <= 40 for c in chunks)
    assert " ".join(chunks[0].text.split()[:3]) == "word0 word1 word2"
    assert chunks[0].locator.char_span is not None and chunks[0].locator.char_span[0] == 0


def test_a_title_before_a_table_or_rows_is_no_chunk_of_its_own() -> None:
    table = "| Colour | Code |\n| --- | --- |\n| Purple | 7 |"
    chunks = make().chunk(
        SOURCE,
        [
            Block(BlockKind.HEADING, "A Slide with a Table", Locator(slide=1), level=1),
            Block(BlockKind.TABLE, table, Locator(slide=1)),
            Block(BlockKind.BREAK, ""),
            Block(BlockKind.HEADING, "Teams", Locator(sheet="Teams"), level=1),
            Block(BlockKind.ROW, "Row 2: Team is Blues", Locator(sheet="Teams", rows=(2, 2))),
            Block(BlockKind.BREAK, ""),
            Block(BlockKind.HEADING, "Only a title", Locator(slide=2), level=1),
        ],
    )
    assert [c.text for c in chunks] == [table, "Row 2: Team is Blues", "Only a title"]
    assert chunks[0].locator.heading_path == ("A Slide with a Table",)
    assert chunks[1].locator.heading_path == ("Teams",)
