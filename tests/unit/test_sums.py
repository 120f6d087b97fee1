"""Adding up the rows a question names, by code: which rows, under which section and period."""

from __future__ import annotations

import pytest

from polyrag.agent.tools.sums import named_sum, run
from polyrag.index.tables.base import SourceTable
from polyrag.types import Chunk, Locator, Table

SEGMENTS = Chunk(
    "t1", "lmt", "/filings/LMT_2021_10K.pdf",
    "Table 7: 2021, 2020\nRow 2: Net sales\n"
    "Row 3: Missiles and Fire Control — 2021: 11,693, 2020: 11,257\n"
    "Row 4: Space — 2021: 11,814, 2020: 11,880\nRow 5: Operating profit\n"
    "Row 6: Missiles and Fire Control — 2021: 1,648, 2020: 1,545",
    Locator(page=42),
)  # fmt: skip
# The same table's last row, cut into a chunk of its own.
SEGMENTS_END = Chunk(
    "t2", "lmt", "/filings/LMT_2021_10K.pdf",
    "Table 7: 2021, 2020\nRow 7: Space — 2021: 1,134, 2020: 1,149\n"
    "Row 8: Total business segment operating profit — 2021: 7,379, 2020: 7,152",
    Locator(page=42),
)  # fmt: skip
DEBT = Chunk(
    "b1", "awk", "/filings/AWK_2020_10K.pdf",
    "| | 2020 | 2019 |\n| --- | --- | --- |\n| Short-term debt | 1,282 | 786 |\n"
    "| Current portion of long-term debt | 329 | 28 |\n| Long-term debt | 9,329 | 8,639 |",
    Locator(page=83),
)  # fmt: skip
PLACES = Chunk(
    "n1", "cost", "/filings/COST_2021_10K.pdf",
    "Costco operated 815 warehouses: 564 in the United States, 105 in Canada, 30 in Japan, "
    "16 in Korea, 14 in Taiwan and one each in France and China.",
    Locator(page=41),
)  # fmt: skip


def test_the_rows_of_the_section_the_question_names_are_added() -> None:
    question = (
        "What was the combined 2021 operating profit of the Missiles and Fire Control and Space "
        "business segments?"
    )
    found = named_sum(question, [SEGMENTS, SEGMENTS_END])
    assert found is not None
    assert found.labels == ("Missiles and Fire Control", "Space")
    assert found.shown == ("1,648", "1,134") and found.total == 2782
    outcome = run(question, [SEGMENTS, SEGMENTS_END])
    assert outcome.ok and outcome.formula == "1,648 + 1,134 = 2,782"
    # Net sales, asked for, are the other section's rows.
    net = (
        "What were the combined 2020 net sales of the Missiles and Fire Control and Space segments?"
    )
    assert named_sum(net, [SEGMENTS, SEGMENTS_END]).total == 11257 + 11880  # type: ignore[union-attr]


def test_a_name_inside_a_longer_name_is_not_a_row_of_its_own() -> None:
    question = (
        "What was the total debt at the end of 2020, counting short-term debt, the current "
        "portion of long-term debt and long-term debt?"
    )
    found = named_sum(question, [DEBT])
    assert found is not None and found.total == 1282 + 329 + 9329
    assert found.column == "2020"


@pytest.mark.parametrize(
    "question",
    [
        # A name the figures do not hold ("one each in … China"): no sum of the others.
        "How many warehouses did Costco operate in total across Japan, Korea, Taiwan and China?",
        # No year asked, several columns: which one is not settled.
        "What was the total short-term debt and long-term debt?",
        # A total the question does not enumerate, or something other than a sum.
        "What was the total long-term debt in 2020?",
        "How much did short-term debt and long-term debt change in total from 2019 to 2020?",
        # The names are not one enumeration.
        "What was the short-term debt in 2020, and what was the total long-term debt?",
    ],
)
def test_no_sum_when_the_passages_do_not_settle_one(question: str) -> None:
    assert named_sum(question, [DEBT, PLACES]) is None


def test_places_counted_in_one_sentence_are_added() -> None:
    question = "How many warehouses did Costco operate in total in Japan, Korea and Taiwan?"
    found = named_sum(question, [PLACES])
    assert found is not None and found.total == 60 and found.column == ""


def test_a_name_outside_the_enumeration_does_not_stop_it() -> None:
    # The company is a row of its store table too; the question names it as the company.
    stores = Chunk(
        "s1", "bby", "/filings/BBY_2024Q2_10Q.pdf",
        "| | Q2 2024 | Q2 2023 |\n| --- | --- | --- |\n| Best Buy | 907 | 908 |\n"
        "| Domestic | 1,384 | 1,657 |\n| International | 92 | 97 |",
        Locator(page=13),
    )  # fmt: skip
    question = (
        "What was Best Buy's total revenue across its Domestic and International units in Q2 2024?"
    )
    found = named_sum(question, [stores])
    assert found is not None and found.labels == ("Domestic", "International")
    assert found.total == 1476


def test_counts_per_place_must_count_what_the_question_counts() -> None:
    question = "How many employees did Costco have in total in Japan, Korea and Taiwan?"
    assert named_sum(question, [PLACES]) is None  # the sentence counts warehouses


def test_the_whole_table_ingest_registered_completes_a_cut_one() -> None:
    # The passage found holds two of the three rows; the stored table has them all.
    found = Chunk(
        "b2", "awk", "/filings/AWK_2020_10K.pdf",
        "Table 12: 2020, 2019\nRow 5: Short-term debt — 2020: 1,282, 2019: 786\n"
        "Row 6: Current portion of long-term debt — 2020: 329, 2019: 28",
        Locator(page=83),
    )  # fmt: skip
    sheet = Table(
        header=("", "2020", "2019"),
        rows=(
            ("Liabilities", "", ""),
            ("Short-term debt", "1,282", "786"),
            ("Current portion of long-term debt", "329", "28"),
            ("Long-term debt", "9,329", "8,639"),
        ),
        locator=Locator(page=83),
        name="Table 12",
    )
    question = (
        "What was the total debt in 2020, counting short-term debt, the current portion of "
        "long-term debt and long-term debt?"
    )
    assert named_sum(question, [found]) is None  # the third row is not in the passage
    stored = [SourceTable("awk", "/filings/AWK_2020_10K.pdf", sheet)]
    summed = named_sum(question, [found], stored)
    assert summed is not None and summed.total == 10940
    outcome = run(question, [found], stored)
    assert outcome.backing[0].locator.page == 83 and "Long-term debt" in outcome.backing[0].text


def test_a_phrase_after_the_last_name_does_not_continue_the_enumeration() -> None:
    countries = Chunk(
        "g1", "amzn", "/filings/AMZN_2019_10K.pdf",
        "Table 31: Net sales attributed to countries\n| | 2018 | 2019 |\n| --- | --- | --- |\n"
        "| United States | 160,146 | 193,636 |\n| Germany | 19,881 | 22,232 |\n"
        "| United Kingdom | 14,524 | 17,527 |\n| Japan | 13,829 | 16,002 |",
        Locator(page=68),
    )  # fmt: skip
    question = (
        "What were Amazon's combined 2019 net sales attributed to Germany, the United Kingdom "
        "and Japan, in millions of dollars?"
    )
    found = named_sum(question, [countries])
    assert found is not None and found.total == 55761
    # A name after the comma does continue it: Japan's figure alone is not the sum asked.
    assert (
        named_sum(question.replace(", in millions", ", and France, in millions"), [countries])
        is None
    )


def test_one_row_is_added_across_the_sections_the_question_names() -> None:
    revenues = Chunk(
        "m1", "mgm", "/filings/MGM_2020_10K.pdf",
        "| | 2020 | 2019 |\n| --- | --- | --- |\n| Las Vegas Strip Resorts | | |\n"
        "| Casino | 728,254 | 1,296,170 |\n| Rooms | 662,813 | 1,863,521 |\n"
        "| Regional Operations | | |\n| Casino | 1,269,011 | 2,217,225 |\n"
        "| Rooms | 130,945 | 309,212 |\n| MGM China | | |\n| Rooms | 36,624 | 142,306 |",
        Locator(page=44),
    )  # fmt: skip
    question = (
        "What were MGM Resorts' combined 2020 rooms revenue across its Las Vegas Strip Resorts, "
        "Regional Operations and MGM China segments?"
    )
    found = named_sum(question, [revenues])
    assert found is not None and found.shown == ("662,813", "130,945", "36,624")
    assert found.total == 830382
    # Two rows named ("casino and rooms revenue"), or a section without the row: no sum.
    assert named_sum(question.replace("rooms", "casino and rooms"), [revenues]) is None
    assert named_sum(question.replace("rooms", "casino"), [revenues]) is None


def test_a_dash_is_no_figure_and_no_section() -> None:
    regions = Chunk(
        "r1", "amcr", "/filings/AMCR_2023_10K.pdf",
        "| Region | Flexibles | Rigid Packaging |\n| --- | --- | --- |\n"
        "| Latin America | 1,114 | 795 |\n| Other | — | — |\n| Asia Pacific | 1,677 | — |",
        Locator(page=103),
    )  # fmt: skip
    found = named_sum(
        "What were the combined Flexibles sales in Latin America and Asia Pacific?", [regions]
    )
    assert found is not None and found.total == 1114 + 1677 and found.column == "Flexibles"


def test_shares_are_not_added_up_for_an_amount() -> None:
    """Corning's customers table: the only column headed by the year asked holds each segment's
    share of its own sales; their sum is no amount."""
    customers = Chunk(
        "c1", "glw", "/filings/GLW_2020_10K.pdf",
        "Table 2: The number of combined customers of our segments\n"
        "Row 2: Optical Communications — Users: 1, % of segment sales in 2020: 11%\n"
        "Row 3: Specialty Materials — Users: 3, % of segment sales in 2020: 65%\n"
        "Row 4: Environmental Technologies — Users: 3, % of segment sales in 2020: 74%",
        Locator(page=15),
    )  # fmt: skip
    names = "Optical Communications, Specialty Materials and Environmental Technologies"
    asked = f"What was the combined 2020 segment net income of {names} (in millions of dollars)?"
    assert named_sum(asked, [customers]) is None


def test_a_sheets_rows_with_words_beside_their_figures_are_added() -> None:
    """A team's city beside its Stanley Cups: the words are no figures, and the row is still
    the team's, whether read from its row sentences or from the whole table."""
    asked = "How many Stanley Cups have the Blues and the Flyers won together?"
    rows = Chunk(
        "c1", "cups", "/docs/stanley-cups.csv",
        "Row 3: Team is Blues, Location is STL, Stanley Cups is 1\n"
        "Row 4: Team is Flyers, Location is PHI, Stanley Cups is 2\n"
        "Row 5: Team is Maple Leafs, Location is TOR, Stanley Cups is 13",
        Locator(sheet="cups", rows=(3, 5)),
    )  # fmt: skip
    found = named_sum(asked, [rows])
    assert found is not None and found.labels == ("Blues", "Flyers") and found.total == 3
    assert found.column == "Stanley Cups"
    table = Table(
        header=("Team", "Location", "Stanley Cups"),
        rows=(("Blues", "STL", "1"), ("Flyers", "PHI", "2"), ("Maple Leafs", "TOR", "13")),
        locator=Locator(sheet="cups", rows=(2, 5)),
        name="cups",
        row_numbers=(3, 4, 5),
        columns=("A", "B", "C"),
    )
    whole = named_sum(asked, [], [SourceTable("cups", "/docs/stanley-cups.csv", table)])
    assert whole is not None and whole.total == 3 and whole.shown == ("1", "2")


def _half_year(period: str, sales: tuple[str, str], first_row: int) -> SourceTable:
    """One of a sheet's two blocks, this half-year's above last year's, with the columns a
    segment table repeats and the period written above them."""
    header = ("Column 1", "Sales (a)", "Underlying Trading operating profit (b)",
              "Trading operating profit")  # fmt: skip
    table = Table(
        header=header,
        rows=(("Water", sales[0], "187", "57"), ("Confectionery", sales[1], "536", "467")),
        locator=Locator(sheet="Prod 30 06 2023", rows=(first_row, first_row + 2)),
        name="Prod 30 06 2023",
        title=f"Revenue and results, {period}, In millions of CHF",
        row_numbers=(first_row + 1, first_row + 2),
        columns=("A", "B", "C", "D"),
    )
    return SourceTable("nestle", "/docs/segments.xlsx", table)


def test_the_column_and_the_block_the_question_names_are_read() -> None:
    """Columns are headed by measures, not years, and each block is one half-year: the
    question's "sales" picks the column and its period the block, although the sheet's name
    writes this year's date on both."""
    tables = [
        _half_year("January–June 2023", ("1706", "3694"), 7),
        _half_year("January–June 2022", ("1792", "3595"), 21),
    ]
    asked = "What were the combined sales of Water and Confectionery in January–June {}?"
    found = named_sum(asked.format(2022), [], tables)
    assert found is not None and found.shown == ("1792", "3595") and found.column == "Sales (a)"
    assert named_sum(asked.format(2023), [], tables).total == 5400  # type: ignore[union-attr]
    # No period asked: the two blocks add up differently, so no sum.
    assert named_sum(asked.replace(" in January–June {}", ""), [], tables) is None
    # "trading operating profit" is that column, not the underlying one that holds its words.
    profit = "What was the total trading operating profit of Water and Confectionery in 2023?"
    assert named_sum(profit, [], tables).total == 57 + 467  # type: ignore[union-attr]


def test_a_sheets_row_sentences_are_named_after_their_period() -> None:
    rows = Chunk(
        "p1", "nestle", "/docs/segments.xlsx",
        "Row 24: Period is January–June 2022, Column 1 is Water, Sales is 1792, "
        "Trading operating profit is 176\n"
        "Row 25: Period is January–June 2022, Column 1 is Confectionery, Sales is 3595, "
        "Trading operating profit is 464",
        Locator(sheet="Prod", rows=(24, 25)),
    )  # fmt: skip
    found = named_sum("What were the combined sales of Water and Confectionery?", [rows])
    assert found is not None and found.labels == ("Water", "Confectionery")
    assert found.total == 5387


def test_a_block_of_another_year_loses_however_well_its_header_fits() -> None:
    """Last year's block, found as a passage whose first line is its header (naming "trading
    operating profit"), against this year's, read whole from the stored table."""
    last_year = Chunk(
        "m22", "nestle", "/docs/segments.xlsx",
        "| Column 1 | Sales (a) | Underlying Trading operating profit (b) "
        "| Trading operating profit |\n| --- | --- | --- | --- |\n"
        "| Water | 1792 | 175 | 176 |\n| Confectionery | 3595 | 498 | 464 |",
        Locator(sheet="Prod 30 06 2023", rows=(21, 23),
                heading_path=("Prod 30 06 2023", "January–June 2022, In millions of CHF")),
    )  # fmt: skip
    this_year = [_half_year("January–June 2023", ("1706", "3694"), 7)]
    asked = (
        "What was the combined trading operating profit of Water and Confectionery in "
        "January–June 2023, in millions of CHF?"
    )
    found = named_sum(asked, [last_year], this_year)
    assert found is not None and found.total == 57 + 467


def test_of_several_measures_for_the_year_the_one_the_question_writes_is_added() -> None:
    impairments = Chunk(
        "i1", "nestle", "/docs/segments.xlsx",
        "| Column 1 | Impairment of goodwill (b) (January–June 2023) "
        "| Impairment of intangible assets (c) (January–June 2023) "
        "| Impairment of intangible assets (c) (January–June 2022) |\n| --- | --- | --- | --- |\n"
        "| Water | 0 | -21 | — |\n| PetCare | 0 | -15 | — |",
        Locator(sheet="Other information", rows=(7, 9)),
    )  # fmt: skip
    asked = (
        "What was the total impairment of intangible assets of Water and PetCare in "
        "January–June 2023, in millions of CHF?"
    )
    found = named_sum(asked, [impairments])
    assert found is not None and found.shown == ("-21", "-15") and found.total == -36
