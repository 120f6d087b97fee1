"""Ruled tables in PDFs: found on the pages that draw grids, in their place among the lines."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from polyrag.chunk.chunker import Chunker
from polyrag.parse.pdf_tables import (
    FRUITLESS_PAGES,
    PdfTable,
    PdfTables,
    _names_under,
    _unbanded,
    open_sides,
    with_tables,
)
from polyrag.settings import ChunkSettings
from polyrag.types import Block, BlockKind, Locator, Modality, Source

EVAL = Path(__file__).parents[3] / "shared" / "eval"
TABLES = EVAL / "corpus" / "pdf_tables"
FILINGS = EVAL / "financebench" / "pdfs"
needs_eval = pytest.mark.skipif(not TABLES.is_dir(), reason="the shared eval data is absent")


def tables_of(path: Path) -> tuple[list[list[PdfTable]], PdfTables]:
    data = path.read_bytes()
    document = pdfium.PdfDocument(data)
    finder = PdfTables(data)
    try:
        found = []
        for index in range(len(document)):
            page = document[index]
            found.append(finder.on_page(page, index))
            page.close()
    finally:
        finder.close()
        document.close()
    return found, finder


@needs_eval
def test_a_ruled_table_with_its_header_and_box() -> None:
    (page,), finder = tables_of(TABLES / "pdfplumber__table-curves-example.pdf")
    (table,) = page
    lines = table.markdown.splitlines()
    assert lines[0].startswith("| System organ class | Prevention of VTE in adult patients")
    assert "| Anaemia | Common | Common | Common |" in lines
    assert (table.rows, table.columns) == (33, 4)
    x0, y0, x1, y1 = table.bbox  # PDF points, y up, inside the A4 page
    assert 0 < x0 < x1 < 596 and 0 < y0 < y1 < 843 and y1 - y0 > 500
    assert finder.warnings == []


@needs_eval
def test_a_searched_page_keeps_none_of_its_parsed_objects() -> None:
    """pdfplumber caches every object of a page it read; kept for a 150-page filing they
    tripled the parse worker's memory."""
    data = (TABLES / "pdfplumber__table-curves-example.pdf").read_bytes()
    document = pdfium.PdfDocument(data)
    finder = PdfTables(data)
    try:
        assert finder.on_page(document[0], 0)
        plumbed = finder._plumber().pages[0]
        assert not hasattr(plumbed, "_objects") and not hasattr(plumbed, "_layout")
    finally:
        finder.close()
        document.close()


@needs_eval
def test_a_paper_table_and_pages_without_grids() -> None:
    (page,), _ = tables_of(TABLES / "docling__2305.03393v1-pg9.pdf")
    assert [t.markdown.splitlines()[0] for t in page] == [  # its outer sides are not ruled
        "| # enc-layers | # dec-layers | Language | TEDs |  |  | mAP (0.75) "
        "| Inference time (secs) |"
    ]
    for name in ("pdfplumber__scotus-transcript-p1.pdf", "unstructured__single_table.pdf"):
        pages, finder = tables_of(TABLES / name)
        assert pages == [[]] and finder.searched == 0  # no grid drawn: pdfplumber not asked


@needs_eval
def test_a_grid_ruling_bands_of_rows_under_grouped_names_is_read_row_by_row() -> None:
    """The NICS report rules every five states as one band, prints the names of six columns in
    one cell ("Permit Handgun Long Gun …") and of others under a group's name ("Pre-Pawn" over
    "Handgun Long Gun *Other"), sets its title in the first band and its notes in the last.
    The whole grid was refused (the notes made a cell too long for a table), and the states
    were read as loose lines of 22 unnamed figures."""
    (page,), _ = tables_of(TABLES / "pdfplumber__nics-background-checks-2015-11.pdf")
    (table,) = page
    assert table.caption == "NICS Firearm Background Checks November - 2015"
    header, *rows = table.cells
    assert header[:4] == ("State / Territory", "Permit", "Handgun", "Long Gun")
    assert "Pre-Pawn Long Gun" in header and "Return to Seller - Private Sale *Other" in header
    assert header[-1] == "Totals" and len(header) == table.columns == 25
    kentucky = next(row for row in rows if row[0] == "Kentucky")
    assert (kentucky[1], kentucky[3], kentucky[-1]) == ("264,140", "14,847", "295,891")
    assert len(rows) == 56 and rows[-1][0] == "Totals"  # 55 states and territories, the totals
    assert not any("DISCLAIMERS" in cell for row in table.cells for cell in row)
    assert table.bbox[1] > 100  # the notes under the grid stay text


def test_only_a_band_of_figures_line_for_line_is_split_into_rows() -> None:
    band = ["Alabama\nAlaska", "18,870\n209", "", "71,137\n7,095"]
    assert _unbanded(band) == [["Alabama", "18,870", "", "71,137"], ["Alaska", "209", "", "7,095"]]
    wrapped = ["Net cash provided by\noperating activities", "1,234"]
    assert _unbanded(wrapped) == [wrapped]
    prose = ["Owner\nJoe", "Set option\nUSRPRF"]  # two lines each, no figures
    assert _unbanded(prose) == [prose]
    # Labels merged over the band's rows, on its left, stand in each of them (corpus: a
    # paper's table of layers, one row per representation; read as one row, "OTSL HTML").
    layers = ["6", "6", "OTSL\nHTML", "0.965\n0.969", "2.73\n5.39"]
    assert _unbanded(layers) == [
        ["6", "6", "OTSL", "0.965", "2.73"],
        ["6", "6", "HTML", "0.969", "5.39"],
    ]
    # One line to the right of the band is no merged label: the row stays whole.
    right = ["OTSL\nHTML", "0.965\n0.969", "2.73"]
    assert _unbanded(right) == [right]


class Cropped:
    """A pdfplumber page cut to a cell: the words it holds."""

    def __init__(self, words: list[tuple[str, float, float]]) -> None:
        self.words = [
            {"text": t, "x0": x0, "x1": x1, "top": 10.0, "bottom": 16.0} for t, x0, x1 in words
        ]

    def within_bbox(self, box: object) -> Cropped:
        return self

    def extract_words(self) -> list[dict[str, object]]:
        return list(self.words)


def test_names_standing_apart_are_spread_but_a_title_over_columns_is_not() -> None:
    columns = [(100.0, 140.0), (140.0, 180.0), (180.0, 220.0)]
    names = Cropped(
        [("Permit", 105, 125), ("Long", 145, 158), ("Gun", 160, 170), ("Admin", 190, 210)]
    )
    assert _names_under(names, (100, 0, 220, 20), columns) == ["Permit", "Long Gun", "Admin"]
    title = Cropped(
        [("Year", 120, 135), ("ended", 137, 152), ("December", 154, 183), ("31,", 185, 193)]
    )
    assert _names_under(title, (100, 0, 220, 20), columns) is None  # word spaces, one title


@needs_eval
def test_statement_amounts_line_up_under_an_empty_header() -> None:
    path = FILINGS / "AMCOR_2023Q2_10Q.pdf"
    if not path.is_file():
        pytest.skip("the FinanceBench filings are absent")
    pages, _ = tables_of(path)
    first = next(table for page in pages for table in page)
    lines = first.markdown.splitlines()
    assert lines[0] == "|  |  |  |  |  |"  # the years stand above the ruled grid
    assert lines[2] == "| Net sales | $ 3,642 | $ 3,507 | $ 7,354 | $ 6,927 |"
    assert lines[3] == "| Cost of sales | (2,980) | (2,862) | (6,024) | (5,632) |"
    assert sum(len(page) for page in pages) > 20


@needs_eval
def test_filings_shading_every_cell_are_given_up_on() -> None:
    path = FILINGS / "3M_2018_10K.pdf"
    if not path.is_file():
        pytest.skip("the FinanceBench filings are absent")
    pages, finder = tables_of(path)
    assert len(pages) == 160
    assert finder.searched <= FRUITLESS_PAGES


@dataclass(frozen=True)
class Line:
    text: str
    box: tuple[float, float, float, float] | None


def table(top: float, bottom: float) -> PdfTable:
    return PdfTable("| A | B |\n| --- | --- |\n| 1 | 2 |", (50.0, bottom, 500.0, top), 2, 2)


def test_lines_inside_a_table_give_way_to_it() -> None:
    lines = [
        Line("Intro", (50, 700, 300, 712)),
        Line("A B", (50, 600, 300, 612)),
        Line("1 2", (50, 580, 300, 592)),
        Line("After", (50, 500, 300, 512)),
        Line("Footer", None),
    ]
    grid = table(top=620, bottom=570)
    runs = list(with_tables(lines, [grid], box=lambda line: line.box))
    assert runs == [[lines[0]], grid, [lines[3], lines[4]]]


def test_a_line_inside_a_table_whose_words_it_lacks_stays_a_line() -> None:
    lines = [
        Line("A B", (50, 600, 300, 612)),
        Line("1 2", (50, 580, 300, 592)),
        Line("Stabilizer wiring change", (50, 575, 300, 579)),  # a cell the grid missed
    ]
    grid = table(top=620, bottom=570)
    runs = list(with_tables(lines, [grid], box=lambda line: line.box, text=lambda ln: ln.text))
    assert runs == [grid, [lines[2]]]
    assert list(with_tables(lines, [grid], box=lambda line: line.box)) == [grid]


def rule(x0: float, x1: float, top: float, bottom: float, **drawn: object) -> dict[str, object]:
    """A pdfplumber edge (y down), a black line unless `drawn` says otherwise."""
    edge = {"object_type": "line", "stroke": True, "stroking_color": (0,), "fill": False}
    edge.update(x0=x0, x1=x1, top=top, bottom=bottom, **drawn)
    edge["orientation"] = "h" if top == bottom else "v"
    return edge


def test_a_grid_without_outer_sides_is_given_them_between_its_rules() -> None:
    rows = [rule(65, 89, 343, 343), rule(89, 295, 343, 343)]  # a rule drawn in two pieces
    rows += [rule(65, 295, y, y) for y in (374, 414, 516)]
    columns = [rule(190, 190, 343, 400), rule(190, 190, 400, 516)]  # between columns
    columns.append(rule(240, 240, 343, 516))
    sides = open_sides(rows + columns)
    spans = sorted((e["x0"], e["top"], e["bottom"]) for e in sides)
    pairs = [(343, 374), (374, 414), (414, 516)]  # each two rules a column line joins
    assert spans == [(x, top, bottom) for x in (65, 295) for top, bottom in pairs]
    assert all(e["orientation"] == "v" for e in sides)
    far = rule(65, 295, 700, 700)  # a rule further down no column line reaches: no side
    assert len(open_sides([*rows, *columns, far])) == len(sides)
    assert open_sides(rows) == []  # rules alone (a statement's underlines): no grid
    assert open_sides(rows + columns[:2]) == []  # one line may just split two groups
    white = {"object_type": "rect_edge", "stroke": False, "fill": True}
    invisible = [rule(*r, **white, non_stroking_color=(1, 1, 1)) for r in [
        (65, 295, 343, 343), (65, 295, 374, 374), (190, 190, 343, 374)
    ]]  # fmt: skip
    assert open_sides(invisible) == []  # a page's white layout boxes
    peach = {"object_type": "rect_edge", "stroke": False, "fill": True}
    shading = [rule(190, 190, 343, 516, **peach, non_stroking_color=(1, 0.95, 0.9))]
    assert open_sides(rows + shading) == []  # a shaded column's sides are no column lines


@needs_eval
def test_a_grid_without_outer_sides_keeps_its_first_and_last_columns() -> None:
    """The Korean brief's Table 1 rules its rows and the lines between columns, not the outer
    sides: the row names and the "after" column were lost."""
    from polyrag.parse.pdf import PdfParser

    path = EVAL / "corpus" / "pdf_multicolumn" / "docling__normal_4pages.pdf"
    document = PdfParser().parse(path.read_bytes(), name=path.name)
    (table,) = [b for b in document.blocks if b.kind is BlockKind.TABLE and b.locator.page == 2]
    assert "| 분류 | 1군 감염병 | 1급 감염병 |" in table.text
    assert "(17종) 에볼라, 페스트 등" in table.text


def test_a_table_without_text_lines_goes_above_the_first_line_below_it() -> None:
    lines = [Line("Title", (50, 750, 300, 762)), Line("Below", (50, 400, 300, 412))]
    grid = table(top=700, bottom=450)
    assert list(with_tables(lines, [grid], box=lambda line: line.box)) == [
        [lines[0]],
        grid,
        [lines[1]],
    ]
    assert list(with_tables([], [grid], box=lambda line: line.box)) == [grid]


def test_a_table_the_text_stream_writes_last_stands_under_the_line_over_it() -> None:
    """The page's footer first, then its text, then the table's rows: the table goes after
    its caption, not after the page's last paragraph. A table written in place stays there."""
    lines = [
        Line("20 Footer", (50, 28, 300, 37)),
        Line("Table 3-2 Built-in global variables", (50, 690, 300, 698)),
        Line("3.3 A heading under the table", (50, 455, 300, 469)),
        Line("Its paragraph", (50, 430, 300, 440)),
        Line("A B", (50, 600, 300, 612)),
        Line("1 2", (50, 580, 300, 592)),
    ]
    grid = table(top=620, bottom=570)
    assert list(with_tables(lines, [grid], box=lambda line: line.box)) == [
        lines[:2],
        grid,
        lines[2:4],
    ]
    in_place = [lines[1], *lines[4:], *lines[2:4]]
    assert list(with_tables(in_place, [grid], box=lambda line: line.box)) == [
        [lines[1]],
        grid,
        lines[2:4],
    ]


@needs_eval
def test_a_ruled_table_takes_the_caption_printed_over_it() -> None:
    """The IBM Redbook writes Table 3-2's rows after the rest of page 20's text; the table
    was read under "The following function invocation returns a value of 0:", which titled
    it, and its caption stayed a line of text two sections away."""
    from polyrag.parse.pdf import PdfParser

    path = EVAL / "corpus" / "pdf_tables" / "docling__redp5110_sampled.pdf"
    document = PdfParser().parse(path.read_bytes(), name=path.name)
    page = [b for b in document.blocks if b.locator.page == 12 and b.text]
    kinds = [(b.kind, b.text.split("\n")[0]) for b in page[:3]]
    assert kinds == [
        (BlockKind.TEXT, "Table 3-2 lists the nine built-in global variables."),
        (BlockKind.TABLE, "Table 3-2 Built-in global variables"),
        (BlockKind.HEADING, "3.3 VERIFY_GROUP_FOR_USER function"),
    ]
    assert "| CLIENT_PORT | INTEGER |" in page[1].text


def test_only_a_numbered_caption_right_over_a_table_is_taken_for_it() -> None:
    from polyrag.parse.pdf import _caption_over

    grid = table(top=620, bottom=570)

    def text(line: str, bottom: float, page: int = 3) -> Block:
        return Block(BlockKind.TEXT, line, Locator(page=page, bbox=(50, bottom, 300, bottom + 9)))

    blocks = [text("Intro", 700), text("Table 4. Sales by region", 626)]
    assert _caption_over(blocks, 3, grid) == "Table 4. Sales by region"
    assert [b.text for b in blocks] == ["Intro"]  # the caption is the table's now
    for other in (
        text("Table 4. Sales by region", 660),  # further up than two lines
        text("Table 4. Sales by region", 626, page=2),
        text("Sales by region", 626),
        text("Tables are below.", 626),
    ):
        assert _caption_over([other], 3, grid) == ""
    assert _caption_over([text("Table 4", 626)], 3, replace(grid, caption="Own")) == ""


def test_a_pdf_table_block_chunks_with_its_page_and_box() -> None:
    grid = table(top=620, bottom=570)
    blocks = [
        Block(BlockKind.TEXT, "Intro text on the page.", Locator(page=3)),
        grid.block(3),
        Block(BlockKind.TEXT, "After the table.", Locator(page=3)),
    ]
    source = Source("pdf01", "/docs/report.pdf", "f" * 64, 1, "pdf")
    settings = ChunkSettings()
    chunks = Chunker(WordCounter(), settings).chunk(source, blocks)
    assert chunks[0].text == "Intro text on the page.\n[Table 1: A, B]\nAfter the table."
    assert chunks[1].modality is Modality.TABLE and chunks[1].anchor == 0
    assert chunks[1].locator.page == 3 and chunks[1].locator.bbox == (50.0, 570.0, 500.0, 620.0)


class WordCounter:
    def count_tokens(self, text: str) -> int:
        return len(text.split())


@needs_eval
def test_the_pdf_parser_puts_the_table_in_place_of_its_lines() -> None:
    from polyrag.parse.pdf import PdfParser

    name = "pdfplumber__table-curves-example.pdf"
    document = PdfParser().parse((TABLES / name).read_bytes(), name=name)
    kinds = [block.kind for block in document.blocks]
    assert kinds.count(BlockKind.TABLE) == 1
    table = document.blocks[kinds.index(BlockKind.TABLE)]
    assert table.locator.page == 1 and table.locator.bbox is not None
    caption = document.blocks[kinds.index(BlockKind.TABLE) - 1]
    assert caption.text == "Table 2: Tabulated adverse reactions"
    text = "\n".join(b.text for b in document.blocks if b.kind is BlockKind.TEXT)
    assert "Anaemia" not in text  # the table's cells are not read twice


def test_a_ruled_statement_takes_the_years_printed_above_its_grid() -> None:
    """American Water's cash flow statement rules its body only: its years stand above the
    grid, and its first ruled row is a section title. The years become the header; the title
    stays a row. Without them every row read "Net income is Depreciation, $ 709 is 604"."""
    from polyrag.parse.pdf import PdfParser

    path = FILINGS / "AMERICANWATERWORKS_2020_10K.pdf"
    if not path.is_file():
        pytest.skip("the FinanceBench filings are absent")
    document = PdfParser().parse(path.read_bytes(), name=path.name)
    tables = [b for b in document.blocks if b.kind is BlockKind.TABLE and b.locator.page == 86]
    caption, *lines = tables[0].text.splitlines()
    assert caption == (  # the headings over it
        "American Water Works Company, Inc. and Subsidiary Companies "
        "Consolidated Statements of Cash Flows"
    )
    assert lines[0] == "|  | 2020 | 2019 | 2018 |"
    assert lines[2] == "| CASH FLOWS FROM OPERATING ACTIVITIES |  |  |  |"
    assert lines[3] == "| Net income | $ 709 | $ 621 | $ 565 |"
    dividends = next(line for line in lines if line.startswith("| Dividends paid"))
    assert dividends == "| Dividends paid | (389) | (353) | (319) |"


def test_a_header_is_given_to_a_ruled_table_only_when_it_names_no_column() -> None:
    rows = (("", "", ""), ("Net sales", "3,642", "3,507"), ("Cost of sales", "(2,980)", "(2,862)"))
    table = PdfTable("", (0.0, 0.0, 100.0, 100.0), 3, 3, rows)
    assert table.headless
    headed = table.with_header(["", "2023", "2022"])
    assert headed.markdown.splitlines()[0] == "|  | 2023 | 2022 |"
    assert headed.markdown.splitlines()[2] == "| Net sales | 3,642 | 3,507 |"
    assert headed.rows == 3 and not headed.headless
    named = PdfTable(
        "", (0.0, 0.0, 1.0, 1.0), 2, 3, (("Region", "Q1", "Q2"), ("Nordics", "4", "5"))
    )
    assert not named.headless


def test_a_table_going_on_over_pages_keeps_its_column_names() -> None:
    """The WARN report lists its notices over 15 pages under one header printed on the first:
    every later page's part takes those column names, where it read its first notice as them
    ("Boeing Company is Toyota Motor North America, 65 is 3000"), and dates the PDF spaces
    out ("0 9 / 1 8 / 2 0 15") read as dates."""
    from polyrag.parse.pdf import PdfParser

    name = "pdfplumber__WARN-Report-for-7-1-2015-to-03-25-2016.pdf"
    if not (TABLES / name).is_file():
        pytest.skip("the shared eval data is absent")
    document = PdfParser().parse((TABLES / name).read_bytes(), name=name)
    tables = [b.text.splitlines() for b in document.blocks if b.kind is BlockKind.TABLE]
    notices = "| Notice Date | Effective | Received | Company | City | No. Of | Layoff/Closure |"
    assert len(tables) == 17
    assert [lines[0] for lines in tables[:15]] == [notices] * 15
    assert (
        "| 07/17/2015 | 09/18/2015 | 07/21/2015 | Boeing Company | Huntington Beach | 65 |"
        in (tables[1][2])
    )
    summary = tables[15][0]  # the summary by month, its last months on the next page
    assert summary.startswith("| Summary by Month | Notices | Employees Affected |")
    assert tables[16][0] == summary
    assert any(line.startswith("| December 2015 | ") for line in tables[16])


def test_a_headless_table_continues_only_a_table_of_its_shape() -> None:
    named = PdfTable("", (30.0, 0.0, 760.0, 500.0), 2, 3, (("Date", "Company", "Staff"),))
    rest = PdfTable("", (30.5, 0.0, 759.0, 580.0), 3, 3, (("", "", ""), ("07/17", "Boeing", "65")))
    assert rest.continues(named)
    assert rest.with_header(named.cells[0]).markdown.splitlines()[2] == "| 07/17 | Boeing | 65 |"
    narrower = replace(rest, bbox=(30.0, 0.0, 500.0, 580.0))
    wider = replace(rest, columns=4)
    assert not narrower.continues(named) and not wider.continues(named)
    assert not named.continues(rest)  # a table with column names starts afresh


def test_a_line_running_past_a_grid_stays_text() -> None:
    """The proposed AD's cost table rules its rows and the lines between its five columns,
    not its outer sides: lines running past what was found of it stay text, with their
    $248,200, instead of going into the grid's place and losing what lies outside it; with
    its sides closed, the whole table is one."""
    from polyrag.parse.pdf import PdfParser

    name = "pdfplumber__federal-register-2020-17221.pdf"
    if not (TABLES / name).is_file():
        pytest.skip("the shared eval data is absent")
    document = PdfParser().parse((TABLES / name).read_bytes(), name=name)
    page = "\n".join(b.text for b in document.blocks if b.locator.page == 6)
    assert "$248,200" in page and "$766,865" in page and "Stabilizer wiring change" in page
    (grid,) = [b for b in document.blocks if b.kind is BlockKind.TABLE and b.locator.page == 6]
    assert grid.text.startswith("| Action | Labor cost |")  # its open sides closed
    table = PdfTable("", (100.0, 100.0, 300.0, 400.0), 2, 2)
    assert table.covers((110.0, 200.0, 290.0, 210.0))
    assert table.covers((95.0, 200.0, 305.0, 210.0))  # a little past its rules
    assert not table.covers((50.0, 200.0, 500.0, 210.0))
    assert not table.covers((110.0, 500.0, 290.0, 510.0))
