"""Tables as cells: collected from parsed blocks, named as the chunks name them, and stored."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from polyrag.chunk.tables import collect_tables
from polyrag.index.tables.sqlite import SqliteTableStore
from polyrag.parse.plain import PlainTextParser
from polyrag.parse.tables import labels_below
from polyrag.parse.web import WebParser
from polyrag.parse.word import WordParser
from polyrag.types import Block, BlockKind, Locator, Table
from polyrag.view import table_rows


def test_tables_of_a_markdown_file_are_numbered_like_its_chunks() -> None:
    text = (
        "# Results\n\nSome text.\n\n| Region | Q3 |\n|---|---|\n| Nordics | 4.1 |\n\n"
        "## Costs\n\n| Item | 2024 |\n|---|---|\n| Rent | 12 |\n| Food | 6 |\n"
    )
    document = PlainTextParser().parse(text.encode(), name="report.md")
    first, second = collect_tables(document.blocks)
    assert first.name == "Table 1" and first.header == ("Region", "Q3")
    assert first.rows == (("Nordics", "4.1"),) and first.locator.heading_path == ("Results",)
    assert second.name == "Table 2" and second.locator.heading_path == ("Results", "Costs")
    assert second.row_number(1) == 3  # the header is row 1, as the row sentences count


def test_word_tables_become_tables(tmp_path: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=3, cols=2)
    cells = [("Team", "Cups"), ("Leafs", "13"), ("Blues", "1")]
    for row, values in zip(table.rows, cells, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    path = tmp_path / "cups.docx"
    document.save(path)
    parsed = WordParser().parse(path.read_bytes(), name="cups.docx")
    (found,) = collect_tables(parsed.blocks)
    assert found.rows == (("Leafs", "13"), ("Blues", "1"))


def test_a_word_cell_merged_down_holds_its_text_in_every_row_it_spans(tmp_path: Path) -> None:
    """A region written once beside two rows belongs to both: each row says it, and SQL
    grouping by region counts both rows. A header cell merged down is not copied into the
    first row of figures."""
    document = docx.Document()
    table = document.add_table(rows=4, cols=3)
    values = [("Region", "Team", "Cups"), ("East", "Leafs", "13"), ("", "Bruins", "6")]
    values.append(("West", "Blues", "1"))
    for row, cells in zip(table.rows, values, strict=True):
        for cell, value in zip(row.cells, cells, strict=True):
            cell.text = value
    table.cell(1, 0).merge(table.cell(2, 0))
    table.cell(1, 0).text = "East"
    path = tmp_path / "cups.docx"
    document.save(path)
    parsed = WordParser().parse(path.read_bytes(), name="cups.docx")
    (found,) = collect_tables(parsed.blocks)
    assert found.rows == (("East", "Leafs", "13"), ("East", "Bruins", "6"), ("West", "Blues", "1"))


def test_a_filings_cover_page_names_each_value_by_the_label_under_it(corpus: Path) -> None:
    """An SEC cover page prints "Nevada" over "(State or other jurisdiction of incorporation
    or organization)": the labels become the header and the values the row under them, so the
    state is not read as a column name."""
    path = corpus / "html" / "unstructured__example-10k-1p.html"
    parsed = WebParser().parse(path.read_bytes(), name=path.name)
    cover = collect_tables(parsed.blocks)[0]
    state = "State or other jurisdiction of incorporation or organization"
    assert cover.header[:2] == (state, "IRS Employer Identification No.")
    assert cover.rows[0][:2] == ("Nevada", "20-8143439")
    assert cover.header[3] == "Registrant’s telephone number"
    assert cover.rows[0][3] == "( 702 ) 939-3254"


def test_a_word_form_with_labels_under_its_values_is_turned(tmp_path: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=4, cols=2)
    values = [("Acme Corp", "Delaware"), ("(Exact name of registrant)", "(State of incorporation)")]
    values += [("1 Main St, Dover", ""), ("(Address of principal executive offices)", "")]
    for row, cells in zip(table.rows, values, strict=True):
        for cell, value in zip(row.cells, cells, strict=True):
            cell.text = value
    path = tmp_path / "cover.docx"
    document.save(path)
    parsed = WordParser().parse(path.read_bytes(), name=path.name)
    (found,) = collect_tables(parsed.blocks)
    assert found.header[1] == "State of incorporation"
    assert found.rows == (("Acme Corp", "Delaware", "1 Main St, Dover"),)


@pytest.mark.parametrize(
    "rows",
    [
        [["Revenue", "2021"], ["(in millions)", ""], ["Sales", "12"]],  # a units row, not a form
        [["Nevada", "20-8143439"], ["(State of incorporation)", ""]],  # a value left unnamed
        [["Nevada", "1"], ["(State)", "(Code)"], ["Sales", "12"], ["Rent", "3"]],  # half a form
        [["Nevada"], ["(State)"]],  # one label is no form
        [["Nevada", "7"], ["(State)", "(2021)"]],  # "(2021)" names nothing
    ],
)
def test_tables_that_are_not_forms_keep_their_rows(rows: list[list[str]]) -> None:
    assert labels_below(rows) is None


def test_sheet_tables_keep_their_names_unique() -> None:
    def sheet_table(name: str) -> Block:
        table = Table(("a", "b"), (("1", "2"),), Locator(sheet=name), name=name)
        return Block(BlockKind.TABLE, "| a | b |", Locator(sheet=name), table=table)

    names = [t.name for t in collect_tables([sheet_table("S"), sheet_table("S")])]
    assert names == ["S", "S (2)"]


def test_the_table_store_keeps_cells_and_locators(tmp_path: Path) -> None:
    store = SqliteTableStore(tmp_path / "tables.sqlite")
    table = Table(
        ("Year", "Ducks"),
        (("2019", "120"), ("2020", "135")),
        Locator(sheet="Counts", rows=(4, 6)),
        name="Counts",
        title="Ducks per year",
        row_numbers=(5, 6),
        columns=("B", "C"),
    )
    other = Table(("x", "y"), (("1", "2"),), Locator(page=3), name="Table 1")
    store.put("s1", "/docs/ducks.xlsx", [table])
    store.put("s2", "/docs/other.pdf", [other])
    assert [t.table for t in store.tables(["s2", "s1"])] == [other, table]
    store.put("s1", "/docs/ducks.xlsx", [])  # a new version without tables
    assert store.tables(["s1"]) == []
    store.delete_sources(["s2"])
    assert store.tables(["s1", "s2"]) == []
    store.close()


def _page_table(page: int, rows: list[tuple[str, str]], caption: str = "") -> list[Block]:
    lines = [caption] if caption else []
    lines += ["| Company | Employees |", "| --- | --- |"]
    lines += [f"| {company} | {count} |" for company, count in rows]
    return [
        Block(BlockKind.BREAK, "", Locator(page=page)),
        Block(BlockKind.TABLE, "\n".join(lines), Locator(page=page, bbox=(0, 0, 500, 700))),
    ]


def test_a_pdf_table_printed_over_pages_is_one_table_of_pieces() -> None:
    """A layoff list over three pages, its header repeated on each: a sum over it must read
    all its rows, while each page's piece keeps the name and row numbers its chunks cite."""
    blocks = [
        *_page_table(1, [("Boeing", "65"), ("Toyota", "3000")]),
        Block(BlockKind.TEXT, "WARN report, fiscal year 2015-16", Locator(page=1)),
        *_page_table(2, [("Acme", "12")]),
        *_page_table(3, [("Zeta", "7"), ("Nova", "9")]),
    ]
    (table,) = collect_tables(blocks)
    assert table.name == "Table 1" and len(table.rows) == 5
    assert table.names() == ("Table 1", "Table 2", "Table 3")
    first, second, third = table.pieces()
    assert second.name == "Table 2" and second.rows == (("Acme", "12"),)
    assert second.locator.page == 2 and third.rows[1] == ("Nova", "9")
    assert third.row_number(1) == 3 and first.locator.page == 1


@pytest.mark.parametrize(
    "blocks",
    [
        # the next page's table has a title of its own: another table
        [*_page_table(1, [("a", "1")]), *_page_table(2, [("b", "2")], caption="Closures")],
        # text opens the next page before the table
        [
            *_page_table(1, [("a", "1")]),
            Block(BlockKind.TEXT, "Closures in 2016", Locator(page=2)),
            Block(
                BlockKind.TABLE,
                "| Company | Employees |\n| --- | --- |\n| b | 2 |",
                Locator(page=2),
            ),
        ],
        # a page between them
        [*_page_table(1, [("a", "1")]), *_page_table(3, [("b", "2")])],
    ],
)
def test_tables_alike_on_following_pages_stay_apart_when_not_one(blocks: list[Block]) -> None:
    assert [t.name for t in collect_tables(blocks)] == ["Table 1", "Table 2"]


def test_the_table_store_keeps_a_tables_pieces(tmp_path: Path) -> None:
    blocks = [*_page_table(4, [("a", "1")]), *_page_table(5, [("b", "2")])]
    (table,) = collect_tables(blocks)
    store = SqliteTableStore(tmp_path / "tables.sqlite")
    store.put("s1", "/docs/warn.pdf", [table])
    assert [t.table for t in store.tables(["s1"])] == [table]
    store.close()


STACKED = """| | Domestic | | International | |
| --- | --- | --- | --- | --- |
| | September 30, | | September 30, | |
| | 2019 | 2 0 1 8 | 2019 | 2 0 1 8 |
| | in percent | | | |
| Discount rate | 4.00% | 3.75% | 1.90% | 2.80% |
| Expected return on plan assets | | | 3.40% | 3.70% |"""


def test_stacked_header_rows_name_each_column_top_to_bottom() -> None:
    from polyrag.chunk.figures import read_table, row_sentences

    table = read_table(STACKED)
    assert table is not None
    assert table.header[1:] == (
        "Domestic September 30, 2019",
        "Domestic September 30, 2018",
        "International September 30, 2019",
        "International September 30, 2018",
    )
    assert table.caption == "in percent"  # a row naming one cell is the table's unit
    assert [row[0] for row in table.rows] == ["Discount rate", "Expected return on plan assets"]
    sentences = dict(row_sentences(table))
    assert "International September 30, 2019: 1.90%" in sentences[2]
    (sql,) = collect_tables([Block(BlockKind.TABLE, STACKED, Locator(page=1))])
    assert sql.header[3] == "International September 30, 2019" and sql.rows[0][3] == "1.90%"


def test_a_first_row_of_figures_is_data_not_header() -> None:
    from polyrag.chunk.figures import read_table

    table = read_table("| | 2019 | 2018 |\n| --- | --- | --- |\n| | 120 | 135 |\n| Ducks | 1 | 2 |")
    assert table is not None and table.header[1:] == ("2019", "2018")
    assert table.rows[0] == ("", "120", "135")


def test_a_table_without_column_names_reads_its_first_row_as_data() -> None:
    """A table of contents starts with its first entry: read as the header, every row said
    "Business is Management's Discussion…, 4 is 12". Years on top are column names."""
    from polyrag.chunk.figures import read_table, row_sentences

    contents = read_table(
        "| Item 1. | Business | 4 |\n| --- | --- | --- |\n| Item 1A. | Risk Factors | 7 |\n"
        "| Item 7. | Management's Discussion and Analysis | 12 |"
    )
    assert contents is not None
    assert contents.header == ("Column 1", "Column 2", "Column 3") and contents.labels == ()
    assert contents.rows[0] == ("Item 1.", "Business", "4")
    assert dict(row_sentences(contents))[4] == (
        "Row 4: Item 7.: Management's Discussion and Analysis, 12"
    )
    years = read_table("| Ducks | 2019 | 2020 |\n| --- | --- | --- |\n| Teal | 4 | 5 |")
    assert years is not None and years.header == ("Ducks", "2019", "2020")
    labels = read_table("| Region | Q3 |\n| --- | --- |\n| Nordics | 4.1 |")
    assert labels is not None and labels.header == ("Region", "Q3")


def test_a_row_sentence_reads_back_into_its_label_and_figures() -> None:
    from polyrag.chunk.figures import read_row_sentence, read_table, row_sentences

    statement = read_table(
        "| | 2018 | 2017 |\n| --- | --- | --- |\n"
        "| Property, plant and equipment — net | 8,738 | 8,866 |\n| Notes | | |"
    )
    assert statement is not None
    (first, _), (second, _) = row_sentences(statement)
    sentences = [text for _, text in row_sentences(statement)]
    row = read_row_sentence(sentences[0])
    assert row is not None and (row.number, row.labelled) == (first, True)
    assert row.label == "Property, plant and equipment — net"  # the last dash ends the label
    assert row.figures == "2018: 8,738, 2017: 8,866"
    bare = read_row_sentence(sentences[1])  # a row without figures is a label alone
    assert bare is not None and bare.number == second and not bare.labelled
    pairs = read_table("| Name | City |\n| --- | --- |\n| Ann | Oslo |")
    assert pairs is not None
    ((_, text),) = row_sentences(pairs)
    row = read_row_sentence(text)
    assert row is not None and not row.labelled
    assert row.label == row.figures == "Name is Ann, City is Oslo"
    assert read_row_sentence("| Nordics | 4.1 |") is None


def test_a_row_sentence_pairs_each_figure_with_its_column() -> None:
    """Column names and headers may hold commas of their own; a dash is no figure; a
    section's name alone has no pairs."""
    from polyrag.chunk.figures import read_row_sentence

    dated = read_row_sentence("Row 4: King — December 31, 2019: 249, September 30, 2019: 247")
    assert dated is not None
    assert dated.pairs() == [("December 31, 2019", "249"), ("September 30, 2019", "247")]
    dashed = read_row_sentence("Row 5: Europe (1) — Flexibles: 3,952, Rigid Packaging: —")
    assert dashed is not None and dashed.pairs() == [("Flexibles", "3,952")]
    said = read_row_sentence("Row 2: Item is Capex, Of which land, buildings is (1,577)")
    assert said is not None and not said.labelled
    assert said.pairs() == [("Item", "Capex"), ("Of which land, buildings", "(1,577)")]
    section = read_row_sentence("Row 3: Current assets")
    headerless = read_row_sentence("Row 2: Net sales: $ 3,642, $ 3,507")
    assert section is not None and section.section and not section.pairs()
    assert headerless is not None and not headerless.section
    assert not dated.section and not said.section


def test_cited_rows_of_a_later_page_are_shown_from_that_pages_piece() -> None:
    """The web app shows a citation's rows as the chunk cited them: page 5, row 3."""
    blocks = [*_page_table(4, [("a", "1")]), *_page_table(5, [("b", "2"), ("c", "3")])]
    shown = table_rows(collect_tables(blocks), page=5, rows=(3, 3), context=0)
    assert shown["name"] == "Table 2" and shown["page"] == 5
    assert shown["rows"] == [{"row": 3, "cells": ["c", "3"], "cited": True}]


def test_a_row_of_units_under_the_names_joins_them() -> None:
    """A datasheet's table (corpus: the SteelJIS page) writes its units in a row of their own;
    read as data, it was a first row "Tensile strength is N/mm 2" and the figures had none."""
    from polyrag.chunk.figures import read_table, row_sentences

    table = read_table(
        "| Assortment | Tensile strength | Elongation | Charpy impact strength |\n"
        "| --- | --- | --- | --- |\n| - | N/mm 2 | % | J/cm 2 |\n| Bars | 1000 | 12 | |"
    )
    assert table is not None
    assert table.header == (
        "Assortment",
        "Tensile strength (N/mm 2)",
        "Elongation (%)",
        "Charpy impact strength (J/cm 2)",
    )
    assert table.rows == (("Bars", "1000", "12", ""),)
    assert "Tensile strength (N/mm 2) is 1000" in dict(row_sentences(table))[2]


@pytest.mark.parametrize(
    "second",
    [
        "| Red | Green | Blue |",  # short words, no unit among them
        "| kg | cm | % |",  # units, but nothing measured under them
    ],
)
def test_a_row_of_short_words_is_data(second: str) -> None:
    from polyrag.chunk.figures import read_table

    below = "| Tangerine | Pink | Aqua |" if "Red" in second else "| a | b | c |"
    table = read_table(
        f"| Column 1 | Column 2 | Column 3 |\n| --- | --- | --- |\n{second}\n{below}"
    )
    assert table is not None and len(table.rows) == 2


def test_names_under_a_span_join_a_header_whose_first_column_is_named() -> None:
    """ "TEDs" spans three columns named "simple", "complex", "all" in the row under it; read
    as data, every row began with a row of names and three columns were "Column 5"."""
    from polyrag.chunk.figures import read_table

    table = read_table(
        "| # enc-layers | Language | TEDs | | | Inference time (secs) |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        "| | | simple | complex | all | |\n"
        "| 6 | OTSL | 0.965 | 0.934 | 0.955 | 2.73 |"
    )
    assert table is not None
    assert table.header == (
        "# enc-layers",
        "Language",
        "TEDs simple",
        "TEDs complex",
        "TEDs all",
        "Inference time (secs)",
    )
    assert table.rows == (("6", "OTSL", "0.965", "0.934", "0.955", "2.73"),)
    # Words over words (no figure under them) are rows of a table of words.
    letters = read_table("| a | b | |\n| --- | --- | --- |\n| | c | d |\n| e | | d |")
    assert letters is not None and letters.header == ("a", "b", "Column 3")
