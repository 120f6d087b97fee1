"""Answer-time assembly: a retrieved table or picture is shown inside its parent text."""

from __future__ import annotations

from collections.abc import Sequence

from polyrag.answer.evidence import (
    content_words,
    entries_first,
    field_words,
    figures_first,
    label,
    named_numbers,
    numbered_names,
    render,
    rows_first,
    select_evidence,
)
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


def test_a_table_inside_its_parent_text_shows_the_row_the_question_names_first() -> None:
    """As where a table is shown alone: a small model takes the first row it reads (a chart's
    table on a slide, 'How many saltwater ducks … in 2021?', was answered from 2022's row)."""
    chunks = report_chunks()
    text, _markdown, rows, _later = chunks
    question = "What was Q3 revenue in Benelux?"
    (evidence,) = select_evidence([hit(rows, 0.9)], question, words, 400, parents=lookup(chunks))
    assert evidence.context == text
    lines = evidence.text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("Row "))
    assert lines[first] == "Row 4: Region is Benelux, Q3 revenue is 3.3 M"
    assert lines[first - 1] == "Table 1: Region, Q3 revenue"
    assert lines[0] == "Quarterly results"


def test_a_text_hit_whose_placeholder_names_the_question_is_shown_as_its_table() -> None:
    """The section ranked on its heading and the placeholder "[Table 1: Region, Q3 revenue]";
    the rows it stands for are what answers."""
    chunks = report_chunks()
    text, markdown, _rows, later = chunks
    question = "Which region had the lowest Q3 revenue?"
    (evidence,) = select_evidence([hit(text, 0.9)], question, words, 400, parents=lookup(chunks))
    assert evidence.chunk == markdown and evidence.context == text
    assert "| Iberia | 2.7 M |" in evidence.text and "[Table 1" not in evidence.text
    # A placeholder naming nothing the question names, or only a year, is left as it was.
    for other in ("When are the new offices planned?", "What happened in 2024?"):
        (kept,) = select_evidence([hit(text, 0.9)], other, words, 400, parents=lookup(chunks))
        assert kept.chunk == text
    (alone,) = select_evidence([hit(later, 0.9)], question, words, 400, parents=lookup(chunks))
    assert alone.chunk == later


def test_the_best_row_of_a_wide_table_is_kept_with_its_column_names_past_its_share() -> None:
    header = "| Grade | Brinell HBW / HB | Rockwell C HRC | Rockwell B HRBS / HRB | Vickers HV |"
    table = f"{header}\n| --- | --- | --- | --- | --- |\n| SNB22-3 | 293-375 |  |  |  |"
    chunks = chunked(REPORT, [Block(BlockKind.TABLE, table, Locator(page=2))])
    markdown = next(c for c in chunks if "| SNB22-3 |" in c.text)
    question = "What Brinell hardness range is listed for grade SNB22-3?"
    budget = words(markdown.text) // 2 + 10  # the label and half the table
    (evidence,) = select_evidence([hit(markdown, 0.9)], question, words, budget)
    assert header in evidence.text and "| SNB22-3 | 293-375 |" in evidence.text


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
    table = rows.text.splitlines()[:4]
    assert sorted(lines[2:6]) == sorted(table)  # the rows stand where the table stood
    assert lines[3] == "Row 3: Region is Iberia, Q3 revenue is 2.7 M"  # the one asked about first
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


def test_a_trimmed_form_keeps_the_field_the_question_asks_for_in_other_words() -> None:
    """ "How old was the child?" over a case report: the line "Age: 1 Year 9 Months" shares no
    word with the question, and "child" stands in nearly every line. The field the question
    names by its form of asking counts, and a word in many lines weighs less than a rare one."""
    text = (
        "Case Tracking Number: 150109-DSP-Milw-505\n"
        "Child Information (at time of incident)\n"
        "Special Needs: None known\n"
        "Age: 1 Year 9 Months\n"
        "Gender: Male\n"
        "The child was admitted to the hospital.\n"
        "The child's siblings were safe with their mother.\n"
        "The child died of his injuries."
    )
    chunk = Chunk("c1", "s1", "/docs/report.pdf", text, Locator(page=1))
    question = "How old was the child in case 150109-DSP-Milw-505?"
    (evidence,) = select_evidence([hit(chunk, 0.9)], question, words, budget=28)
    assert "Age: 1 Year 9 Months" in evidence.text
    assert "150109-DSP-Milw-505" in evidence.text
    assert field_words("When was the case closed?") == {"date"}
    assert field_words("What was the child's age?") == set()


# -- long tables: a statement's rows that answer the question, from all its chunks -------------

STATEMENT = "\n".join(
    [
        "| Acme (Millions) | 2018 | 2017 |",
        "| --- | --- | --- |",
        "| Current assets |  |  |",
        "| Cash and cash equivalents | 2,853 | 3,053 |",
        "| Accounts receivable — net | 5,020 | 4,911 |",
        "| Total current assets | 13,709 | 14,277 |",
        "| Property, plant and equipment — net | 8,738 | 8,866 |",
        "| Intangible assets — net | 2,657 | 2,936 |",
        "| Total assets | 36,500 | 37,987 |",
        "| Current liabilities |  |  |",
        "| Accounts payable | 2,266 | 1,945 |",
        "| Total current liabilities | 7,244 | 7,687 |",
        "| Long-term debt | 13,411 | 12,096 |",
        "| Total liabilities | 26,652 | 26,365 |",
        "| Total Acme shareholders' equity | 9,796 | 11,563 |",
    ]
)


def statement_chunks() -> list[Chunk]:
    where = Locator(page=58, heading_path=("Acme Consolidated Balance Sheet",))
    return chunked(
        REPORT,
        [
            Block(BlockKind.HEADING, "Acme Consolidated Balance Sheet", where, level=1),
            Block(BlockKind.TEXT, "The balance sheet of Acme at December 31.", where),
            Block(BlockKind.TABLE, STATEMENT, where),
        ],
    )


def test_a_long_table_is_shown_by_the_rows_that_name_what_the_question_asks() -> None:
    chunks = statement_chunks()
    tables = [c for c in chunks if c.modality is Modality.TABLE]
    with_rows = [c for c in tables if "Row " in c.text]
    assert len(with_rows) >= 2  # the rows fill several chunks: a long table
    markdown = tables[0]
    question = (
        "What was Acme's working capital ratio: total current assets over total current "
        "liabilities in 2018?"
    )
    (evidence,) = select_evidence(
        [hit(markdown, 0.9)], question, words, 400, parents=lookup(chunks)
    )
    lines = evidence.text.splitlines()
    assert lines[0] == markdown.text.splitlines()[0]  # the table's title
    # The two rows the question names come first, whichever chunk holds them ("liabilities"
    # is in fewer rows than "assets", so its row leads); "Total assets" shares fewer words.
    assert {line.split(" — ")[0] for line in lines[1:3]} == {
        "Row 5: Total current assets",
        "Row 11: Total current liabilities",
    }
    assert lines[3].startswith(("Row 8: Total assets", "Row 13: Total liabilities"))
    assert not any(line.endswith("Current assets") for line in lines)  # a section line: no figures
    # "Acme" is in the title, so it tells no row apart: that row has "total" alone.
    assert not any("Acme shareholders" in line for line in lines[:5])
    assert "Row 4: Cash and cash equivalents" not in evidence.text  # shares no word
    assert evidence.chunk.modality is Modality.TABLE and evidence.context is None
    assert evidence.chunk.locator.rows is not None
    low, high = evidence.chunk.locator.rows
    assert low <= 5 and high >= 11  # the citation covers the rows shown
    assert evidence.chunk.chunk_id in {c.chunk_id for c in with_rows}


def test_a_long_table_of_words_shows_the_row_the_question_names() -> None:
    """A row of words (a type, a description) answers as a row of figures does: "INTEGER"
    was left out as a section line with no figures, and the model read "VARCHAR(128)" off
    the row before it."""
    names = ["CLIENT_HOST", "CLIENT_IPADDR", "CLIENT_PORT", "PACKAGE_NAME", "PACKAGE_SCHEMA"]
    names += ["PACKAGE_VERSION", "ROUTINE_SCHEMA", "ROUTINE_SPECIFIC_NAME", "ROUTINE_TYPE"]
    types = {"CLIENT_PORT": "INTEGER", "ROUTINE_TYPE": "CHAR(1)"}
    markdown = "\n".join(
        [
            "Table 3-2 Built-in global variables",
            "| Global variable | Type | Description |",
            "| --- | --- | --- |",
            *(
                f"| {name} | {types.get(name, 'VARCHAR(128)')} | The {name.lower()} of the "
                "current connection as the system returns it |"
                for name in names
            ),
        ]
    )
    where = Locator(page=12)
    chunks = chunked(REPORT, [Block(BlockKind.TABLE, markdown, where)])
    with_rows = [c for c in chunks if "Row " in c.text]
    assert len(with_rows) >= 2
    port = next(c for c in with_rows if "CLIENT_PORT" in c.text)
    (evidence,) = select_evidence(
        [hit(port, 0.9)],
        "What is the data type of CLIENT_PORT?",
        words,
        400,
        parents=lookup(chunks),
    )
    first_row = evidence.text.splitlines()[1]
    assert first_row.startswith("Row 4: Global variable is CLIENT_PORT, Type is INTEGER")


def test_a_long_table_that_names_nothing_asked_is_shown_as_retrieved() -> None:
    chunks = statement_chunks()
    rows = next(c for c in chunks if c.modality is Modality.TABLE and "Row " in c.text)
    (evidence,) = select_evidence(
        [hit(rows, 0.9)], "Who audited the company?", words, 400, parents=lookup(chunks)
    )
    assert rows.text.splitlines()[1] in evidence.text  # the retrieved chunk, inside its page


def test_two_chunks_of_one_long_table_show_its_rows_once_with_the_room_of_both() -> None:
    # A table filling its page stands in no text: its chunks have no anchor in common.
    chunks = chunked(REPORT, [Block(BlockKind.TABLE, STATEMENT, Locator(page=58))])
    with_rows = [c for c in chunks if "Row " in c.text]
    question = "What were total current assets and total current liabilities?"
    hits = [hit(with_rows[0], 0.9), hit(with_rows[1], 0.85)]
    chosen = select_evidence(hits, question, words, 400, parents=lookup(chunks))
    (evidence,) = chosen  # the same rows are not shown twice
    assert "Row 5: Total current assets" in evidence.text
    assert "Row 11: Total current liabilities" in evidence.text


def test_the_rows_of_a_long_table_stay_within_the_budget() -> None:
    chunks = statement_chunks()
    markdown = next(c for c in chunks if c.modality is Modality.TABLE)
    question = "Total current assets, total assets and total liabilities of Acme?"
    budget = 30
    (evidence,) = select_evidence(
        [hit(markdown, 0.9)], question, words, budget, parents=lookup(chunks)
    )
    assert words(render([evidence])) <= budget + 2
    shown = evidence.text.splitlines()
    assert 2 <= len(shown) < 5  # the title and the best rows that fit
    assert shown[1].split(" — ")[0].endswith(("Total current assets", "Total current liabilities"))


def test_of_two_rows_matching_as_well_the_one_the_question_says_fully_comes_first() -> None:
    chunks = statement_chunks()
    markdown = next(c for c in chunks if c.modality is Modality.TABLE)
    question = "How much total assets did Acme have at the end of 2018?"
    (evidence,) = select_evidence(
        [hit(markdown, 0.9)], question, words, 400, parents=lookup(chunks)
    )
    lines = evidence.text.splitlines()
    assert lines[1].startswith("Row 8: Total assets — 2018: 36,500")
    assert lines[2].startswith("Row 5: Total current assets")


def test_of_rows_the_question_names_alike_the_one_with_no_words_more_comes_first() -> None:
    """Asked for the net deferred tax asset, the row "Net deferred tax asset" comes before
    "Net deferred tax asset before valuation allowance"; rows it does not name keep their
    order."""
    table = "\n".join(
        [
            "| | 2019 | 2018 |",
            "| --- | --- | --- |",
            "| Operating loss carryforward | 73,260 | 57,768 |",
            "| Net deferred tax asset before valuation allowance | 19,911 | 15,916 |",
            "| Valuation allowance | (19,911) | (15,916) |",
            "| Net deferred tax asset | 795 | 772 |",
        ]
    )
    terms = content_words("What was the net deferred tax asset amount in 2019 and 2018?")
    lines = rows_first(table, terms).split("\n")
    assert lines[2:] == [
        "| Net deferred tax asset | 795 | 772 |",
        "| Net deferred tax asset before valuation allowance | 19,911 | 15,916 |",
        "| Operating loss carryforward | 73,260 | 57,768 |",
        "| Valuation allowance | (19,911) | (15,916) |",
    ]


def test_a_table_cut_to_fit_keeps_its_column_names() -> None:
    """A row read without the names over its columns does not say which figure is which year."""
    rows = "\n".join(
        f"| {label} | {a} | {b} |"
        for label, a, b in [
            ("Underlying trading operating profit (a) as per Note 3.1", 7904, 7683),
            ("Net other trading income/(expenses) as per Note 5.1", -553, -999),
            ("Trading operating profit as per Note 3.1", 7351, 6684),
            ("Impairment of goodwill and non-commercialized intangible assets", -16, 0),
            ("Net other operating income/(expenses)", -73, -65),
            ("Operating profit", 7262, 6619),
            ("Net financial income/(expense)", -697, -434),
            ("Profit before taxes, associates and joint ventures", 6565, 6185),
        ]
    )
    head = "| In millions of CHF | January–June 2023 | January–June 2022 |\n| --- | --- | --- |"
    text = f"{head}\n{rows}"
    where = Locator(sheet="Reconciliation", rows=(5, 13))
    table = Chunk("t1", "nestle", "/docs/segments.xlsx", text, where, Modality.TABLE)
    question = "What was the operating profit in January-June 2023?"
    (shown,) = select_evidence([hit(table, 0.9)], question, words, budget=60)
    lines = shown.text.split("\n")
    assert lines[:2] == [
        "| In millions of CHF | January–June 2023 | January–June 2022 |",
        "| --- | --- | --- |",
    ]
    assert "| Operating profit | 7262 | 6619 |" in lines
    assert "| Net financial income/(expense) | -697 | -434 |" not in lines  # no word asked
    assert len(shown.text.split()) <= 60


def test_a_row_shows_first_the_figure_under_the_column_the_question_names() -> None:
    row = (
        "Row 25: Period is January–June 2022, Column 1 is Zone AOA, Sales (a) is 9335, "
        "Underlying Trading operating profit (b) is 2198, Trading operating profit is 2170"
    )
    terms = content_words("What was Zone AOA's trading operating profit in January-June 2022?")
    assert figures_first(row, terms) == (
        "Row 25: Period is January–June 2022, Column 1 is Zone AOA, Trading operating profit is "
        "2170, Underlying Trading operating profit (b) is 2198, Sales (a) is 9335"
    )
    assert figures_first(row, content_words("Where is Zone AOA?")) == row  # no column named
    # A plural header is named by its singular: "total background checks" names "Totals".
    checks = "Row 48: State / Territory is Texas, Permit is 21,550, Totals is 146,982"
    asked = content_words("How many total background checks did Texas have?")
    assert figures_first(checks, asked) == (
        "Row 48: State / Territory is Texas, Totals is 146,982, Permit is 21,550"
    )
    # Cut to its share, a long row keeps the figure asked: it moves up before the cut.
    pairs = ", ".join(f"Column {n} is {n},000" for n in range(2, 24))
    long_row = f"Table 1: Checks\nRow 48: State / Territory is Texas, {pairs}, Totals is 146,982"
    table = Chunk("t", "s", "/docs/nics.pdf", long_row, Locator(page=1), Modality.TABLE)
    question = "How many total background checks did Texas have?"
    (shown,) = select_evidence([hit(table, 0.9)], question, words, budget=40)
    assert "Totals is 146,982" in shown.text and len(shown.text.split()) < 40
    labelled = "Row 7: Net sales — 2019: 3,642, 2018: 3,507"
    assert figures_first(labelled, content_words("net sales in 2018")) == labelled
    # A row of words: after its name, the word under the column the question names.
    frequencies = (
        "Row 10: System organ class is Brain haemorrhage, Prevention of VTE after hip surgery "
        "(VTEp) is Not known, Treatment of DVT and PE (VTEt) is Rare"
    )
    asked = content_words("How frequent is brain haemorrhage in the treatment of DVT (VTEt)?")
    assert figures_first(frequencies, asked) == (
        "Row 10: System organ class is Brain haemorrhage, Treatment of DVT and PE (VTEt) is "
        "Rare, Prevention of VTE after hip surgery (VTEp) is Not known"
    )
    assert figures_first(frequencies, content_words("What is brain haemorrhage?")) == frequencies
    chunk = Chunk("r", "s", "/docs/segments.xlsx", row, Locator(sheet="S"), Modality.TABLE)
    question = "What was Zone AOA's trading operating profit in January-June 2022?"
    (shown,) = select_evidence([hit(chunk, 0.9)], question, words, budget=200)
    assert shown.text.index("is 2170") < shown.text.index("is 2198")


def test_row_sentences_cut_to_fit_keep_the_name_of_their_row() -> None:
    figures = [
        ("Sales (a)", 137, 46293),
        ("Underlying Trading operating profit (b)", -17, 7904),
        ("Trading operating profit", -17, 7351),
        ("Net other trading income/(expenses) (c)", 0, -553),
        ("of which impairment of property, plant and equipment", -1, -110),
        ("Depreciation and amortization", -19, -1722),
    ]
    text = "\n".join(
        f"Row {number}: Period is January–June 2023, Column 1 is {name}, "
        + ", ".join(f"{column} is {values[i]}" for column, *values in figures)
        for i, (number, name) in enumerate([(16, "Other businesses (d)"), (18, "Total")])
    )
    chunk = Chunk("r", "s", "/docs/segments.xlsx", text, Locator(sheet="S"), Modality.TABLE)
    question = "What was the trading operating profit of other businesses in January-June 2023?"
    (shown,) = select_evidence([hit(chunk, 0.9)], question, words, budget=40)
    lines = shown.text.split("\n")
    assert all(line.startswith("Row ") and "Column 1 is " in line for line in lines)
    assert lines[0].startswith(
        "Row 16: Period is January–June 2023, Column 1 is Other businesses (d), "
        "Trading operating profit is -17"
    )
    assert len(shown.text.split()) <= 40
    # A column name with a comma of its own moves as one pair.
    row = "Row 9: Column 1 is Zone NA, Sales is 12553, of which impairment of property, plant "
    row += "and equipment is -29"
    moved = figures_first(row, content_words("impairment of property, plant and equipment"))
    assert moved == (
        "Row 9: Column 1 is Zone NA, of which impairment of property, plant and equipment is -29, "
        "Sales is 12553"
    )


def test_of_two_rows_the_one_the_question_names_comes_first() -> None:
    """A chunk of two rows (Nestlé's Powdered and Liquid Beverages, then Water) kept its order,
    and the share left room for the first row alone: asked about Water, the model read the
    beverages' restructuring costs."""
    text = "\n".join(
        f"Row {n}: Period is January–June 2023, Column 1 is {name}, Sales is {sales}, "
        f"of which restructuring costs is {costs}"
        for n, name, sales, costs in [
            (9, "Powdered and Liquid Beverages", 12339, -32),
            (10, "Water", 1706, -94),
        ]
    )
    chunk = Chunk("r", "s", "/docs/segments.xlsx", text, Locator(sheet="S"), Modality.TABLE)
    question = "What were Water's restructuring costs in January-June 2023?"
    (shown,) = select_evidence([hit(chunk, 0.9)], question, words, budget=24)
    assert shown.text.split("\n")[0] == (
        "Row 10: Period is January–June 2023, Column 1 is Water, "
        "of which restructuring costs is -94"
    )
    assert rows_first(text, {"sales"}) == text  # rows the question names alike keep their order


def test_the_best_row_keeps_its_name_and_first_figure_in_a_tight_share() -> None:
    text = "Row 15: Period is January–June 2023, Column 1 is PetCare, Sales is 9373, Other is 1959"
    chunk = Chunk("r", "s", "/docs/segments.xlsx", text, Locator(sheet="S"), Modality.TABLE)
    question = "What were PetCare's sales in January-June 2023?"
    (shown,) = select_evidence([hit(chunk, 0.9)], question, words, budget=16)
    assert shown.text == "Row 15: Period is January–June 2023, Column 1 is PetCare, Sales is 9373"


def test_a_row_is_found_by_the_number_in_its_first_cell() -> None:
    """A paper's table whose rows are doses (0, 2, … 10 g): "with 6 g" names the row of 6,
    which its words do not (every row has the same column names) and which one letter is too
    short to be a content word."""
    lines = ["| Dose (g) | Corrosion rate (mm/year) |", "| --- | --- |"]
    lines += [
        f"| {dose} | {rate} |"
        for dose, rate in zip(range(0, 12, 2), range(90, 30, -10), strict=True)
    ]
    table = Block(BlockKind.TABLE, "Table 1 Corrosion data\n" + "\n".join(lines), Locator(page=2))
    chunks = chunked(REPORT, [table])
    rows = [c for c in chunks if "Row " in c.text]
    question = "What was the corrosion rate with 6 g of inhibitor?"
    (evidence,) = select_evidence([hit(rows[0], 0.9)], question, words, 40, parents=lookup(chunks))
    assert "Dose (g) is 6, Corrosion rate (mm/year) is 60" in evidence.text.splitlines()[1]


def test_a_row_and_a_column_are_found_by_a_name_with_a_number() -> None:
    """A chart's data: "Series 2 for Category 3" names the row of Category 3 and the column
    of Series 2, which their words alone do not tell from the others (the model read Series
    1's 3.5 for 1.8)."""
    rows = [
        "Row 2: Category is Category 1, Series 1 is 4.3, Series 2 is 2.4, Series 3 is 2",
        "Row 3: Category is Category 2, Series 1 is 2.5, Series 2 is 4.4, Series 3 is 2",
        "Row 4: Category is Category 3, Series 1 is 3.5, Series 2 is 1.8, Series 3 is 3",
    ]
    question = "What is the value of Series 2 for Category 3 in the chart?"
    terms = content_words(question) | numbered_names(question)
    shown = rows_first("Table 1: Chart\n" + "\n".join(rows), terms).splitlines()
    assert (
        shown[1] == "Row 4: Category is Category 3, Series 2 is 1.8, Series 1 is 3.5, Series 3 is 3"
    )
    assert rows_first("\n".join(rows), content_words(question)) == "\n".join(rows)  # a tie
    assert numbered_names("Series 2 for Category 3, in 2019") == {"series 2", "category 3"}


def test_no_names_the_row_of_zero() -> None:
    assert named_numbers("By what percentage did it fall from no inhibitor to 10 g?") == {
        "#10",
        "#0",
    }
    assert named_numbers("What changed without 10 g?", none=False) == {"#10"}


def test_a_long_table_a_text_hit_names_is_shown_beside_the_text_not_instead() -> None:
    """A long table is shown by its rows alone: the text whose placeholder named it ("In
    February 2016, we granted 547,000 PSUs") was lost behind a table of share counts."""
    rows = "\n".join(f"| Grant batch {n} | {n},000 | ${n}.10 |" for n in range(1, 16))
    header = "| Award | Number of Shares (thousands) | Weighted-Average Price |"
    table = f"{header}\n| --- | --- | --- |\n{rows}"
    where = Locator(page=7)
    chunks = chunked(
        REPORT,
        [
            Block(BlockKind.HEADING, "Stock awards", where, level=1),
            Block(BlockKind.TABLE, table, where),
            Block(
                BlockKind.TEXT, "In February 2016, we granted 547,000 PSUs to executives.", where
            ),
        ],
    )
    text = next(c for c in chunks if "547,000" in c.text)
    assert "[Table 1: Award, Number of Shares" in text.text
    question = "How many shares of PSUs were granted in February 2016?"
    chosen = select_evidence([hit(text, 0.9)], question, words, 400, parents=lookup(chunks))
    shown = "\n".join(e.text for e in chosen)
    assert "we granted 547,000 PSUs" in shown
    assert any(e.chunk.modality is Modality.TABLE for e in chosen)  # and the table's rows


def test_an_attachment_is_named_with_what_it_came_from() -> None:
    mail = "/mail/fake-email.eml"
    body = Chunk("b", "m", mail, "Here's the attachment!", Locator())
    attached = Chunk("a", "a", f"{mail}#notes.txt", "Hey, a fake attachment!", Locator())
    member = Chunk("z", "z", "/d/pack.zip#docs/report.pdf", "Revenue rose.", Locator(page=2))
    assert label(body) == "fake-email.eml"
    assert label(attached) == "notes.txt (from fake-email.eml)"
    assert label(member) == "report.pdf (from pack.zip), page 2"


def test_a_listings_entry_the_question_names_comes_first() -> None:
    """Lines of a payee and an amount each: the model took the amount of the line beside the
    one asked about, so that line goes first; prose and half-listings stay as written."""
    listing = (
        "PAYEE NAME OBLIGATION/SERVICE DESCRIPTION AMOUNT ($)\n"
        "BAIN, J MATTHEW DISTRICT DIRECTOR 37,499.96\n"
        "SMITH, ALVARO R LEGISLATIVE CORRESPONDENT 21,000.00\n"
        "ARMER, DEREK A LEGISLATIVE CORRESPONDENT TO AUG. 14 12,111.06\n"
        "LAVALLEY, ROBERT CLINTON INTERN FROM"
    )
    lines = entries_first(listing, content_words("How much was paid to Derek Armer?")).split("\n")
    assert lines[0].startswith("PAYEE") and lines[1].startswith("ARMER, DEREK A")
    assert lines[-1] == "LAVALLEY, ROBERT CLINTON INTERN FROM"
    both = "How much more was paid to Derek Armer than to Smith?"
    lines = entries_first(listing, content_words(both)).split("\n")
    assert [line.split(",")[0] for line in lines[1:4]] == ["ARMER", "SMITH", "BAIN"]
    # Cut to its share by lines, not at "AUG. 14", which is no sentence's end.
    payees = Chunk("c1", "s1", "/d/senate.pdf", listing, Locator(page=1))
    question = "How much was paid to Derek Armer?"
    (shown,) = select_evidence([hit(payees, 0.9)], question, words, 30)
    assert shown.text.split("\n")[1].endswith("TO AUG. 14 12,111.06")
    records = listing.replace("21,000.00\n", "21,000.00\nAIRFARE FOR M BERG\n")
    assert entries_first(records, content_words("Derek Armer")) == records
    prose = "Revenue grew in 2019.\nIt fell in 2020 to 1,234.\nMargins held."
    assert entries_first(prose, content_words("revenue in 2020")) == prose


def test_a_listings_named_entries_may_take_more_than_an_even_share() -> None:
    """Among other passages, a listing's even share held its header lines and one of the two
    payees a difference is asked of; the model then made up the other's amount. The lines
    naming what is asked may take a long table's room."""
    payees = (
        "DOCUMENT NO. DATE PAYEE NAME OBLIGATION/SERVICE DESCRIPTION AMOUNT ($)\n"
        "START END\nPOSTED DATES\n"
        "BAIN, J MATTHEW DISTRICT DIRECTOR 37,499.96\n"
        "SMITH, ALVARO R LEGISLATIVE CORRESPONDENT 21,000.00\n"
        "VELEZ-GREEN, ALEXANDER J LEGISLATIVE ASSISTANT FROM MAY 22 26,874.99\n"
        "BOLLINGER, ERIN S INTERN FROM SEP. 18 446.87\n"
        "KISHI, DANIEL M LEGISLATIVE CORRESPONDENT FROM JUL. 15 11,188.87\n"
        "LAVALLEY, ROBERT CLINTON INTERN FROM SEP. 10 1,260.00"
    )
    listing = Chunk("c1", "s1", "/d/senate.pdf", payees, Locator(page=1))
    travel = Chunk("c2", "s1", "/d/senate.pdf", "AIRFARE FOR M BERG PAID " * 12, Locator(page=1))
    question = "How much more was paid to Alexander J Velez-Green than to Daniel M Kishi?"
    shown = select_evidence([hit(listing, 0.9), hit(travel, 0.8)], question, words, 60)
    lines = shown[0].text.split("\n")
    assert lines[3].startswith("VELEZ-GREEN") and lines[4].startswith("KISHI")


def test_a_records_entry_line_is_not_cut_from_its_amount() -> None:
    """Records whose entry lines (a document number, dates, a payee, an amount) alternate
    with description lines are no listing; trimmed to its share, the line the question names
    stays whole. Cut into word runs, it lost its amount and the model took another line's."""
    records = (
        "AIRFARE FOR SEN HAWLEY WASHINGTON DC TO SPRINGFIELD MO, AMARILLO TX AND RETURN\n"
        "DHAW20190045 07/10/2019 CITIBANK - SENATOR IBA CARD 06/29/2019 07/07/2019 STAFF "
        "TRANSPORTATION 1,112.00\n"
        "AIRFARE FOR SEN HAWLEY AS FOLLOWS: 6/29 WASHINGTON DC TO SPRINGFIELD; 7/7\n"
        "SPRINGFIELD TO WASHINGTON DC\n"
        "DHAW20190046 07/11/2019 CITIBANK - TRAVEL CBA CARD 07/01/2019 07/07/2019 STAFF "
        "TRANSPORTATION 728.30\n"
        "AIRFARE FOR J MACGREGOR WASHINGTON DC TO KANSAS CITY, SPRINGFIELD AND RETURN"
    )
    chunk = Chunk("c1", "s1", "/d/senate.pdf", records, Locator(page=1))
    question = "What was the amount of document DHAW20190045?"
    (shown,) = select_evidence([hit(chunk, 0.9)], question, words, 28)
    entry = (
        "DHAW20190045 07/10/2019 CITIBANK - SENATOR IBA CARD 06/29/2019 07/07/2019 STAFF "
        "TRANSPORTATION 1,112.00"
    )
    assert entry in shown.text.split("\n")
