from __future__ import annotations

from itertools import pairwise

import pytest

from polyrag.chunk.chunker import Chunker
from polyrag.chunk.figures import lead_in
from polyrag.chunk.sentences import sentence_spans
from polyrag.settings import ChunkSettings
from polyrag.types import Block, BlockKind, Chunk, Locator, Modality, Source


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
    case = "Knowles v. Mirzayance was argued on Jan. 13, 2009. They flew to Kyiv. It rained."
    assert [case[a:b] for a, b in sentence_spans(case)] == [
        "Knowles v. Mirzayance was argued on Jan. 13, 2009.",
        "They flew to Kyiv.",
        "It rained.",
    ]


def test_wrapped_lines_continue_a_sentence_only_when_asked() -> None:
    text = "We have implemented\na dynamic compiler, and\nit is fast.\nRow 1: a\nNext Line"
    pieces = [text[a:b] for a, b in sentence_spans(text, wrapped=True)]
    assert pieces == [
        "We have implemented\na dynamic compiler, and\nit is fast.",
        "Row 1: a",
        "Next Line",
    ]
    assert len(list(sentence_spans(text))) == 5


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


def test_packed_rows_cite_the_cells_they_span() -> None:
    def row(number: int, columns: tuple[str, str] | None) -> Block:
        where = Locator(sheet="Cup Winners", rows=(number, number), columns=columns)
        return Block(BlockKind.ROW, f"Row {number}: Team is T{number}", where)

    chunks = make().chunk(SOURCE, [row(2, ("B", "C")), row(3, ("B", "AA")), row(4, ("Z", "C"))])
    assert [c.locator.describe() for c in chunks] == ["'Cup Winners'!B2:AA4"]
    # A row whose columns are unknown leaves the chunk citing rows.
    chunks = make().chunk(SOURCE, [row(2, ("B", "C")), row(3, None)])
    assert [c.locator.describe() for c in chunks] == ["sheet Cup Winners, rows 2-3"]


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
    title = "Table 1: Colour, Code"
    assert [c.text for c in chunks] == [
        f"{title}\n{table}",
        f"{title}\nRow 2: Colour is Purple, Code is 7",
        "Row 2: Team is Blues",
        "Only a title",
    ]
    assert [c.anchor for c in chunks] == [None, None, None, None]  # no text around the table
    assert chunks[0].locator.heading_path == ("A Slide with a Table",)
    assert chunks[2].locator.heading_path == ("Teams",)


# -- tables and pictures in running text ------------------------------------------------------

REVENUE = (
    "| Region | Q3 revenue |\n| --- | --- |\n| Nordics | 4.1 M |\n| Iberia | 2.7 M |\n"
    "| Benelux | 3.3 M |"
)


def test_table_leaves_a_placeholder_and_anchors_its_chunks() -> None:
    blocks = [
        Block(BlockKind.HEADING, "Results", Locator(page=2), level=1),
        Block(BlockKind.TEXT, "Sales grew in every region.", Locator(page=2)),
        Block(BlockKind.TABLE, REVENUE, Locator(page=2, bbox=(50.0, 100.0, 500.0, 300.0))),
        Block(BlockKind.TEXT, "The Nordics led the quarter.", Locator(page=2)),
    ]
    chunks = make().chunk(SOURCE, blocks)
    text, markdown, rows = chunks
    assert text.text == (
        "Results\nSales grew in every region.\n[Table 1: Region, Q3 revenue]\n"
        "The Nordics led the quarter."
    )
    assert text.modality is Modality.TEXT and text.anchor is None
    assert markdown.text == "Table 1: Region, Q3 revenue\n" + REVENUE
    assert rows.text.splitlines() == [
        "Table 1: Region, Q3 revenue",
        "Row 2: Region is Nordics, Q3 revenue is 4.1 M",
        "Row 3: Region is Iberia, Q3 revenue is 2.7 M",
        "Row 4: Region is Benelux, Q3 revenue is 3.3 M",
    ]
    assert [c.modality for c in (markdown, rows)] == [Modality.TABLE, Modality.TABLE]
    assert markdown.anchor == rows.anchor == text.ordinal == 0
    assert [c.ordinal for c in chunks] == [0, 1, 2]  # the table follows the text that holds it
    assert markdown.locator.bbox == (50.0, 100.0, 500.0, 300.0)
    assert markdown.locator.heading_path == ("Results",)
    assert rows.locator.rows == (2, 4) and rows.locator.page == 2


def test_caption_names_the_table_and_tables_are_numbered() -> None:
    blocks = [
        Block(BlockKind.TEXT, sentence(1)),
        Block(BlockKind.TABLE, "Chart: Sales by region\n\n" + REVENUE),
        Block(BlockKind.TEXT, sentence(2)),
        Block(BlockKind.TABLE, "| A | B |\n| --- | --- |\n| 1 | 2 |"),
    ]
    chunks = make(max_tokens=80).chunk(SOURCE, blocks)
    assert "[Table 1: Chart: Sales by region]" in chunks[0].text
    assert "[Table 2: A, B]" in chunks[0].text
    titles = [c.text.splitlines()[0] for c in chunks if c.modality is Modality.TABLE]
    assert titles == ["Table 1: Chart: Sales by region"] * 2 + ["Table 2: A, B"] * 2
    assert all(c.anchor == 0 for c in chunks[1:])


def test_a_table_without_caption_is_titled_by_the_sentence_leading_into_it() -> None:
    countries = "| | 2018 | 2019 |\n| --- | --- | --- |\n| Germany | 19,881 | 22,232 |"
    blocks = [
        Block(BlockKind.TEXT, "Revenues are translated at average rates. Net sales attributed "
              "to countries are as follows (in millions):"),
        Block(BlockKind.TEXT, "Year Ended December 31,"),  # a header's remnant
        Block(BlockKind.TABLE, countries),
        Block(BlockKind.TEXT, "The tables above are unaudited."),  # introduces nothing
        Block(BlockKind.TABLE, countries),
        Block(BlockKind.TEXT, "The following table shows key hotel statistics for our resorts:"),
        Block(BlockKind.HEADING, "Hotel statistics", level=2),  # a heading ends the lead-in
        Block(BlockKind.TABLE, countries),
        Block(BlockKind.TEXT, "Occupancy is shown as follows:"),
        Block(BlockKind.TABLE, "Chart: Occupancy\n\n" + countries),  # its own caption wins
    ]  # fmt: skip
    chunks = make(max_tokens=80).chunk(SOURCE, blocks)
    titles = list(
        dict.fromkeys(c.text.splitlines()[0] for c in chunks if c.modality is Modality.TABLE)
    )
    assert titles == [
        "Table 1: Net sales attributed to countries (in millions)",
        "Table 2: 2018, 2019",
        "Table 3: 2018, 2019",
        "Table 4: Chart: Occupancy",
    ]


@pytest.mark.parametrize(
    ("sentence", "says"),
    [
        ("The following table shows key hotel statistics for our Las Vegas Strip Resorts:",
         "Key hotel statistics for our Las Vegas Strip Resorts"),
        ("The components of income tax expense were as follows:",
         "The components of income tax expense"),
        ("The following is a reconciliation of free cash flow to the most comparable GAAP "
         "measure:", "Reconciliation of free cash flow to the most comparable GAAP measure"),
        ("Selected financial information concerning the product lines follow (in millions): "
         "Year ended December 31,",
         "Selected financial information concerning the product lines (in millions)"),
        ("as follows:", ""),
        ("Revenue grew in 2020.", ""),
        ("Sales rose for two reasons: prices and volumes.", ""),
    ],
)  # fmt: skip
def test_lead_in_says_what_the_table_holds(sentence: str, says: str) -> None:
    assert lead_in(sentence) == says


def test_a_long_table_is_split_and_rows_never_exceed_the_window() -> None:
    rows = "".join(f"| Team{i} number {i} | {i} |\n" for i in range(40))
    blocks = [
        Block(BlockKind.TEXT, sentence(1)),
        Block(BlockKind.TABLE, "| Team | Cups |\n| --- | --- |\n" + rows),
    ]
    chunks = make().chunk(SOURCE, blocks)
    tables = [c for c in chunks if c.modality is Modality.TABLE]
    markdown = [t for t in tables if "| --- |" in t.text]
    sentences = [t for t in tables if "\nRow " in t.text]
    assert len(markdown) > 1 and len(sentences) > 1
    assert all(
        t.text.startswith("Table 1: Team, Cups\n| Team | Cups |\n| --- | --- |") for t in markdown
    )
    assert all(len(t.text.split()) <= 64 for t in markdown)
    assert all(len(t.text.split()) <= 40 for t in sentences)
    covered = [r for t in sentences for r in range(t.locator.rows[0], t.locator.rows[1] + 1)]  # type: ignore[index]
    assert covered == list(range(2, 42))
    assert {t.anchor for t in tables} == {0}


def test_picture_placeholder_and_chunks() -> None:
    ocr = "Quarterly results at a glance. Revenue up twelve percent. Costs flat year on year."
    blocks = [
        Block(BlockKind.TEXT, "See the summary slide below.", Locator(page=1)),
        Block(BlockKind.PICTURE, ocr, Locator(page=1)),
        Block(BlockKind.TEXT, sentence(3), Locator(page=1)),
    ]
    chunks = make().chunk(SOURCE, blocks)
    assert chunks[0].text.splitlines()[1] == (
        "[Picture 1: Quarterly results at a glance. Revenue up twelve …]"
    )
    picture = chunks[1]
    assert picture.modality is Modality.PICTURE and picture.anchor == 0
    assert picture.text == "Picture 1: " + ocr


def test_placeholders_are_not_carried_by_overlap_and_anchor_the_first_holder() -> None:
    blocks = [Block(BlockKind.TEXT, " ".join(sentence(i) for i in range(3)))]
    blocks.append(Block(BlockKind.TABLE, REVENUE))
    blocks.append(Block(BlockKind.TEXT, " ".join(sentence(i) for i in range(3, 12))))
    chunks = make().chunk(SOURCE, blocks)
    holders = [c for c in chunks if "[Table 1:" in c.text]
    assert len(holders) == 1
    tables = [c for c in chunks if c.modality is Modality.TABLE]
    assert {t.anchor for t in tables} == {holders[0].ordinal}
    assert all(t.ordinal > holders[0].ordinal for t in tables)


def test_spreadsheet_tables_keep_no_placeholder() -> None:
    blocks = [
        Block(BlockKind.HEADING, "Teams", Locator(sheet="Teams"), level=1),
        Block(BlockKind.TABLE, "| Team |\n| --- |\n| Blues |", Locator(sheet="Teams", rows=(1, 2))),
        Block(BlockKind.ROW, "Row 2: Team is Blues", Locator(sheet="Teams", rows=(2, 2))),
    ]
    chunks = make().chunk(Source("x", "/t.xlsx", "f" * 64, 1, "xlsx"), blocks)
    assert [c.text for c in chunks] == ["| Team |\n| --- |\n| Blues |", "Row 2: Team is Blues"]
    assert all(c.anchor is None for c in chunks)


def test_transcript_chunks_are_audio() -> None:
    blocks = [Block(BlockKind.TEXT, sentence(1), Locator(time_span=(3.0, 9.5)))]
    (chunk,) = make().chunk(SOURCE, blocks)
    assert chunk.modality is Modality.AUDIO and chunk.locator.time_span == (3.0, 9.5)


# -- slides: one chunk per slide ----------------------------------------------------------------

DECK = Source("deck01", "/docs/deck.pptx", "e" * 64, 10, "pptx")


def slide_blocks(number: int, *extra: Block) -> list[Block]:
    where = Locator(slide=number)
    return [
        Block(BlockKind.BREAK, "", where),
        Block(BlockKind.HEADING, f"Slide title {number}", where, level=1),
        Block(BlockKind.TEXT, " ".join(sentence(i) for i in range(6)), where),
        *extra,
        Block(BlockKind.TEXT, "Speaker notes: say hello.", where),
    ]


def test_a_deck_is_one_chunk_per_slide_with_tables_and_pictures() -> None:
    where = Locator(slide=2)
    blocks = slide_blocks(1) + slide_blocks(
        2,
        Block(BlockKind.TABLE, REVENUE, where),
        Block(BlockKind.PICTURE, "Org chart\nCEO\nCFO", where),
    )
    blocks += [Block(BlockKind.BREAK, "", Locator(slide=3))]
    blocks += [Block(BlockKind.HEADING, "Slide 3", Locator(slide=3), level=1)]  # empty slide
    blocks += [Block(BlockKind.BREAK, "", Locator(slide=4))]
    blocks += [Block(BlockKind.HEADING, "Thank you", Locator(slide=4), level=1)]
    chunks = make().chunk(DECK, blocks)
    pages = [c for c in chunks if c.modality is Modality.TEXT]
    assert [c.locator.slide for c in pages] == [1, 2, 4]  # the empty slide gives nothing
    assert pages[-1].text == "Thank you"
    assert len(pages[0].text.split()) > 40  # a slide is not cut at max_tokens
    second = pages[1].text.splitlines()
    assert second[0] == "Slide title 2"
    assert second[-1] == "Speaker notes: say hello."
    assert "Table 1: Region, Q3 revenue" in second and "| Nordics | 4.1 M |" in second
    assert "Picture 1: Org chart CEO CFO" in second
    assert pages[1].locator.heading_path == ("Slide title 2",)
    figures = [c for c in chunks if c.modality is not Modality.TEXT]
    assert [c.modality for c in figures] == [Modality.TABLE, Modality.TABLE, Modality.PICTURE]
    assert all(c.anchor == pages[1].ordinal and c.locator.slide == 2 for c in figures)


def test_layout_comes_from_metadata_then_the_parser() -> None:
    blocks = slide_blocks(1) + slide_blocks(2)
    pdf = Source("pdf01", "/docs/deck.pdf", "d" * 64, 10, "pdf")
    assert len(make().chunk(DECK, blocks)) == 2
    assert len(make().chunk(pdf, blocks, layout="slides")) == 2
    assert len(make().chunk(pdf, blocks)) > 2  # a report: cut at max_tokens
    assert len(make().chunk(DECK, blocks, layout="report")) == 2  # a pptx is always a deck


def test_an_overlong_slide_is_chunked_as_text() -> None:
    where = Locator(slide=1)
    long_text = " ".join(sentence(i) for i in range(40))
    settings = ChunkSettings(
        max_tokens=40, overlap_tokens=10, table_max_tokens=64, page_max_tokens=100
    )
    chunks = Chunker(WordCounter(), settings).chunk(
        DECK,
        [Block(BlockKind.HEADING, "Big", where, level=1), Block(BlockKind.TEXT, long_text, where)],
    )
    assert len(chunks) > 3 and all(len(c.text.split()) <= 40 for c in chunks)


def test_version_names_the_chunking_rules() -> None:
    assert make().version.startswith("chunk13-")


def test_a_chunk_cites_the_region_its_pieces_cover_on_one_page() -> None:
    blocks = [
        Block(BlockKind.TEXT, "First region of a scan.", Locator(page=3, bbox=(10, 700, 300, 720))),
        Block(BlockKind.TEXT, "Second region below.", Locator(page=3, bbox=(12, 600, 400, 690))),
        Block(BlockKind.BREAK, "", Locator(page=4)),
        Block(BlockKind.TEXT, "A region on page four.", Locator(page=4, bbox=(5, 5, 50, 50))),
        Block(BlockKind.TEXT, "Text without a region.", Locator(page=4)),
    ]
    first, second = make().chunk(SOURCE, blocks)
    assert first.locator.page == 3 and first.locator.bbox == (10, 600, 400, 720)
    assert second.locator.page == 4 and second.locator.bbox is None  # one piece has no region


def test_pipe_tables_reads_each_table_as_written() -> None:
    from polyrag.chunk.figures import pipe_tables

    text = "\n".join(
        [
            "Table 2: Segments",
            "| Segment | 2021 | 2020 |",
            "| --- | --- | --- |",
            "| Net sales | | |",
            "| Aeronautics \\| US | 26,748 | 26,266 |",
            "Row 3: not a pipe line",
            "| stray | 1 |",
            "| Region | Stores |",
            "| --- | --- |",
            "| Canada | 160 |",
        ]
    )
    first, second = pipe_tables(text)
    assert first.header == ("Segment", "2021", "2020")
    assert first.rows == (("Net sales", "", ""), ("Aeronautics | US", "26,748", "26,266"))
    # a pipe line after the table ended, with no separator under it, belongs to no table
    assert second.header == ("Region", "Stores")
    assert second.rows == (("Canada", "160"),)
    assert pipe_tables(text.splitlines()[:3]) == [first.__class__(first.header, ())]
    assert pipe_tables("no table here") == []


def test_bm25_reads_the_nearest_heading_a_chunk_does_not_hold() -> None:
    heading_path = ("Annual Report", "Statements of Cash Flows")
    locator = Locator(heading_path=heading_path)
    row = Chunk("c1", "s", "/r.pdf", "Purchases of equipment 1,577", locator)
    assert row.keyword_text == "Statements of Cash Flows\nPurchases of equipment 1,577"
    caption = Chunk("c2", "s", "/r.pdf", "Table 3: STATEMENTS OF CASH FLOWS\n| a |", locator)
    assert caption.keyword_text == caption.text
    assert Chunk("c3", "s", "/r.txt", "Plain.", Locator()).keyword_text == "Plain."
