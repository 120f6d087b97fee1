"""Tables without ruling lines or a header of years, found from where their words stand."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyrag.parse.pdf_grids import with_grids
from polyrag.parse.pdf_tables import PdfTable
from polyrag.types import BlockKind

EVAL = Path(__file__).parents[3] / "shared" / "eval"
Word = tuple[str, tuple[float, float, float, float]]


def line(y: float, *cells: tuple[float, str]) -> list[Word]:
    """A line at height y: each cell's words from x on, 5 points a letter, a space between."""
    words: list[Word] = []
    for x, text in cells:
        for word in text.split():
            words.append((word, (x, y, x + 5 * len(word), y + 8)))
            x += 5 * len(word) + 3
    return words


def tables(lines: list[list[Word]]) -> list[PdfTable | list[list[Word]]]:
    return list(with_grids(lines, text=lambda ws: " ".join(w[0] for w in ws), words=lambda ws: ws))


# A paper's table: caption, column names wrapped over two lines (given column by column, as
# PDFium reads them), rows of figures alone, one of them in scientific notation.
PAPER = [
    line(200, (40, "Some prose before the table that runs on for a good while yet.")),
    line(180, (40, "Table 1")),
    line(170, (40, "Corrosion data for steel in acid.")),
    line(150, (40, "Inhibitor")),
    line(140, (40, "dose (g)")),
    line(150, (120, "icorr (A/cm2)")),
    line(150, (200, "Corrosion")),
    line(140, (200, "rate (mm/year)")),
    line(120, (40, "0"), (120, "0.0003"), (200, "2.8163")),
    line(110, (40, "6"), (120, "5.39E-05"), (200, "0.4318")),
    line(100, (40, "10"), (120, "1.24E-05"), (200, "0.0919")),
    line(80, (40, "Fig. 4. A figure caption under the table, long enough to be prose.")),
]


def test_a_papers_table_is_named_from_the_words_over_its_columns() -> None:
    before, table, after = tables(PAPER)
    assert isinstance(table, PdfTable) and isinstance(before, list) and isinstance(after, list)
    assert len(before) == 1 and len(after) == 1  # caption and header lines went into the table
    assert table.caption == "Table 1 Corrosion data for steel in acid."
    rows = table.markdown.splitlines()
    assert rows[0] == "| Inhibitor dose (g) | icorr (A/cm2) | Corrosion rate (mm/year) |"
    assert rows[3] == "| 6 | 5.39E-05 | 0.4318 |"
    block = table.block(3)
    assert block.kind is BlockKind.TABLE and block.text.startswith("Table 1 Corrosion data")


def test_labelled_rows_with_a_period_over_them_and_dot_leaders() -> None:
    """A filing's table: labels, dot leaders, '$' apart from its figure, '2.5 %' in two words, a
    section title, a label wrapped over two lines, and "Year ended December 31, 2018" over all
    the columns: the table's period, no column's."""
    found = tables(
        [
            line(160, (130, "Year ended December 31, 2018")),
            line(150, (120, "Organic sales"), (200, "Translation")),
            line(130, (40, "Industrial ...."), (120, "$ 2.5 %"), (200, "(2.7)%")),
            line(120, (40, "Health Care ..."), (120, "4.8 %"), (200, "(2.4)%")),
            line(110, (40, "Section title")),
            line(100, (40, "Consumer ...."), (120, "1.1 %"), (200, "—%")),
            line(90, (40, "Net sales by")),
            line(80, (40, "region ......"), (120, "0.5 %"), (200, "1.0%")),
        ]
    )
    (table,) = found
    assert isinstance(table, PdfTable)
    assert table.caption == "Year ended December 31, 2018"
    assert table.markdown.splitlines() == [
        "|  | Organic sales | Translation |",
        "| --- | --- | --- |",
        "| Industrial | 2.5% | (2.7)% |",
        "| Health Care | 4.8% | (2.4)% |",
        "| Section title |  |  |",
        "| Consumer | 1.1% | —% |",
        "| Net sales by region | 0.5% | 1.0% |",
    ]


@pytest.mark.parametrize(
    "lines",
    [
        # figures that do not line up: prose with numbers, not columns
        [
            line(130, (40, "We sold 12 units"), (160, "and 14 more")),
            line(120, (40, "then 3 and"), (70, "9")),
            line(110, (40, "about 44 or"), (110, "45")),
        ],
        # columns of figures no word above names: a grid says nothing without names
        [line(y, (40, str(y)), (120, str(y + 1))) for y in (130, 120, 110)],
        # two rows only
        [line(150, (120, "A"), (200, "B")), *[line(y, (120, "1"), (200, "2")) for y in (130, 120)]],
    ],
)
def test_lines_that_are_no_table_stay_lines(lines: list[list[Word]]) -> None:
    assert tables(lines) == [lines]


def test_a_corpus_paper_table_becomes_a_table() -> None:
    """The egg-shell paper's Table 1: PDFium's text leaves out control characters between its
    figures, so characters are matched to their boxes one by one."""
    from polyrag.parse.pdf import PdfParser

    path = EVAL / "corpus" / "pdf_tables" / "unstructured__embedded-images-tables.pdf"
    if not path.is_file():
        pytest.skip("the shared eval data is absent")
    document = PdfParser().parse(path.read_bytes(), name=path.name)
    (table,) = [b for b in document.blocks if b.kind is BlockKind.TABLE]
    lines = table.text.splitlines()
    assert lines[0].startswith("Table 1 Potentiodynamic polarization data")
    assert lines[1].startswith("| Inhibitor concentration (g) | bc (V/dec) |")
    assert lines[1].endswith("| Polarization resistance (Ω) | Corrosion rate (mm/year) |")
    assert "| 6 | 0.3233 | 0.0540 | 0.8027 | 5.39E-05 | 373.180 | 0.4318 |" in lines


def test_a_caption_under_the_rows_goes_with_the_table() -> None:
    rows = [
        line(y, (40, name), (120, str(y)), (200, str(y + 1)))
        for y, name in ((130, "NQ"), (120, "TriviaQA"), (110, "SQuAD"))
    ]
    found = tables(
        [
            line(150, (40, "Dataset"), (120, "Train"), (200, "Test")),
            *rows,
            line(95, (40, "Table 1: Number of questions in each QA dataset.")),
            line(85, (40, "Prose after the caption goes on as text, as it did before.")),
        ]
    )
    table, after = found
    assert isinstance(table, PdfTable) and table.caption.startswith("Table 1: Number of questions")
    assert table.markdown.splitlines()[0] == "| Dataset | Train | Test |" and len(after) == 1


def test_a_segment_table_under_titles_over_groups_of_columns() -> None:
    """Activision Blizzard's segment table: a period over four columns and a change over the
    next four, a section title and a label wrapped over two lines right above the first row,
    and a footnote's marker "(1)" after a label, not a figure."""
    figures = [(160, ""), (220, ""), (380, ""), (440, "")]

    def row(y: float, label: str, *values: str) -> list[Word]:
        return line(y, (20, label), *((x, v) for (x, _), v in zip(figures, values, strict=True)))

    found = tables(
        [
            line(200, (20, "Information on the segments is presented below (in millions):")),
            line(180, (140, "For the Year Ended 2019"), (370, "Increase 2019 v 2018")),
            line(170, *((x, name) for (x, _), name in zip(figures, "ABAB", strict=True))),
            line(160, (20, "Segment Revenues")),
            line(150, (20, "Net revenues from")),
            row(140, "customers", "2,219", "1,676", "(239)", "(562)"),
            row(130, "Intersegment revenues (1)", "—", "43", "—", "(10)"),
            row(120, "Segment net revenues", "2,219", "1,719", "(239)", "(572)"),
            row(110, "Operating income", "850", "464", "(161)", "(221)"),
        ]
    )
    before, table = found
    assert isinstance(table, PdfTable) and len(before) == 1
    assert table.markdown.splitlines() == [
        "|  | For the Year Ended 2019 A | For the Year Ended 2019 B"
        " | Increase 2019 v 2018 A | Increase 2019 v 2018 B |",
        "| --- | --- | --- | --- | --- |",
        "| Segment Revenues |  |  |  |  |",
        "| Net revenues from customers | 2,219 | 1,676 | (239) | (562) |",
        "| Intersegment revenues (1) | — | 43 | — | (10) |",
        "| Segment net revenues | 2,219 | 1,719 | (239) | (572) |",
        "| Operating income | 850 | 464 | (161) | (221) |",
    ]


def test_a_header_of_dates_is_no_prose() -> None:
    """Six quarter-end dates over six columns: eighteen words, every one part of a date."""
    dates = ["Dec 31, 2019", "Sep 30, 2019", "Jun 30, 2019", "Mar 31, 2019", "Dec 31, 2018"]
    dates.append("Sep 30, 2018")
    xs = [100 + 80 * k for k in range(6)]
    found = tables(
        [
            line(150, *zip(xs, dates, strict=True)),
            *(
                line(y, (20, name), *((x + 20, str(y + k)) for k, x in enumerate(xs)))
                for y, name in ((140, "Activision"), (130, "Blizzard"), (120, "King"))
            ),
        ]
    )
    (table,) = found
    assert isinstance(table, PdfTable)
    assert table.markdown.splitlines()[0] == "|  | " + " | ".join(dates) + " |"
    assert table.markdown.splitlines()[4] == "| King | 120 | 121 | 122 | 123 | 124 | 125 |"


def test_a_table_ends_before_a_line_whose_words_run_into_its_figures() -> None:
    """Corning's segment sales: the last row PDFium joined with the next one ("… contract (2)
    (105) * Consolidated net sales $ 11,303 …") is no row of these columns; the rows above it
    stay a table, and a footnote marker "(1)" after a label is no figure."""
    rows = [
        line(y, (20, name), (200, a), (260, b))
        for y, name, a, b in (
            (140, "Display", "3,172", "3,254"),
            (130, "Optical", "3,563", "4,064"),
            (120, "Specialty", "1,884", "1,594"),
            (110, "Impact of currency (1)", "(44)", "(153)"),
        )
    ]
    joined = line(
        100, (20, "Adjustment (2)"), (200, "(105)"), (230, "* Total"), (200, "11,303"), (260, "9")
    )
    found = tables([line(150, (200, "Sales"), (260, "Share")), *rows, joined])
    table, after = found
    assert isinstance(table, PdfTable) and after == [joined]
    assert table.markdown.splitlines()[-1] == "| Impact of currency (1) | (44) | (153) |"


def test_a_wide_name_over_its_own_column_names_no_other() -> None:
    """Nike's obligations: "THEREAFTER" is wider than a column's spacing, yet it names its own
    column only; a title over all the columns, beside the labels' name, names none."""
    xs = (200, 240, 285, 330)
    names = ((200, "2022"), (240, "2023"), (270, "THEREAFTER"), (330, "TOTAL"))
    found = tables(
        [
            line(160, (20, "DESCRIPTION OF COMMITMENT"), (200, "CASH DUE IN YEAR ENDING MAY 31,")),
            line(150, (20, "(millions)"), *names),
            *(
                line(y, (20, item), *((x, str(y + k)) for k, x in enumerate(xs)))
                for y, item in ((140, "Leases"), (130, "Debt"), (120, "Contracts"))
            ),
        ]
    )
    _title, table = found
    assert isinstance(table, PdfTable)
    assert table.markdown.splitlines()[0] == "| (millions) | 2022 | 2023 | THEREAFTER | TOTAL |"
