"""A named row's change between two periods, by code: which row, which periods, which measure."""

from __future__ import annotations

import pytest

from polyrag.agent.tools.changes import asks_change, named_change, run
from polyrag.index.tables.base import SourceTable
from polyrag.types import Chunk, Locator, Table

SEGMENTS = Chunk(
    "t1", "whr", "/filings/whirlpool.md",
    "| Segment | 2019 | 2018 |\n| --- | --- | --- |\n| Appliances | 680 | 774 |\n"
    "| Income | 1,205 | 1,190 |\n| Valuation allowance | (19,911) | (15,916) |\n"
    "| Other | 44.1 | 56.7 |",
    Locator(page=3),
)  # fmt: skip


def _half_year(period: str, rows: tuple[tuple[str, ...], ...], first_row: int) -> SourceTable:
    """One block of a sheet that writes this half-year's table above last year's."""
    table = Table(
        header=("Column 1", "Sales (a)", "Underlying Trading operating profit (b)",
                "Trading operating profit"),
        rows=rows,
        locator=Locator(sheet="Prod 30 06 2023", rows=(first_row, first_row + len(rows))),
        name="Prod 30 06 2023",
        title=f"Revenue and results, {period}, In millions of CHF",
        row_numbers=tuple(range(first_row + 1, first_row + len(rows) + 1)),
        columns=("A", "B", "C", "D"),
    )  # fmt: skip
    return SourceTable("nestle", "/docs/segments.xlsx", table)


BLOCKS = [
    _half_year("January–June 2023", (("Water", "1706", "187", "57"),
                                     ("Confectionery", "3694", "536", "467")), 7),
    _half_year("January–June 2022", (("Water", "1792", "175", "176"),
                                     ("Confectionery", "3595", "498", "464")), 21),
]  # fmt: skip


def test_the_named_rows_figures_under_the_two_years_are_compared() -> None:
    asked = "What was the change in the amount for Appliances in 2019 from 2018?"
    found = named_change(asked, [SEGMENTS])
    assert found is not None and found.label == "Appliances" and found.shown == ("774", "680")
    outcome = run(asked, [SEGMENTS])
    assert outcome.ok and outcome.formula == "680 − 774 = -94"
    percent = run("What was the percentage change in Other from 2018 to 2019?", [SEGMENTS])
    assert percent.formula == "(44.1 − 56.7) ÷ 56.7 × 100 = -22.22"
    # Figures in parentheses keep their sign: the allowance grew by a quarter.
    grown = run("What is the percentage change in the valuation allowance from 2018 to 2019?",
                [SEGMENTS])  # fmt: skip
    assert grown.formula.endswith("= 25.1")


@pytest.mark.parametrize(
    "question",
    [
        "What was the change in operating income from 2018 to 2019?",  # not the row "Income"
        "What was the change in Appliances and Other from 2018 to 2019?",  # two rows
        "What was the average change in Appliances from 2018 to 2019?",  # something else asked
        "What was the change in Appliances in 2019?",  # one year
        "What was the change in Appliances from 2017 to 2019?",  # a year the table lacks
        "What were the sales of Appliances in 2018 and 2019?",  # no change asked
    ],
)
def test_no_change_when_the_question_and_the_table_do_not_settle_one(question: str) -> None:
    assert named_change(question, [SEGMENTS]) is None


def test_a_sheets_blocks_are_the_periods_and_the_question_names_the_measure() -> None:
    asked = (
        "By how much did Confectionery's trading operating profit change from January–June "
        "2022 to January–June 2023, in millions of CHF?"
    )
    assert asks_change(asked)
    outcome = run(asked, [], BLOCKS)
    assert outcome.ok and outcome.formula == "467 − 464 = 3"
    assert outcome.arguments["column"] == "Trading operating profit"
    # Each figure is cited by its cells: the row's label and the measure read.
    assert [c.locator.cells for c in outcome.backing] == ["A23:D23", "A9:D9"]
    # The measure may follow the name: "Water sales".
    sales = run("How much did Water sales change from January–June 2022 to January–June 2023?",
                [], BLOCKS)  # fmt: skip
    assert sales.formula == "1706 − 1792 = -86"
    # The years alone pick the blocks too; other months of them pick none.
    assert named_change(asked.replace("January–June ", ""), [], BLOCKS) is not None
    assert named_change(asked.replace("January–June", "July–December"), [], BLOCKS) is None
    # No measure named: several columns fit.
    assert named_change("How did Water change from January–June 2022 to January–June 2023?",
                        [], BLOCKS) is None  # fmt: skip


def test_tables_that_disagree_decide_nothing() -> None:
    other = Chunk(
        "t2", "whr", "/filings/whirlpool.md",
        "| Region | 2019 | 2018 |\n| --- | --- | --- |\n| Appliances | 10 | 12 |",
        Locator(page=9),
    )  # fmt: skip
    asked = "What was the change in Appliances from 2018 to 2019?"
    assert named_change(asked, [SEGMENTS]) is not None
    assert named_change(asked, [SEGMENTS, other]) is None


def test_a_table_with_a_row_per_year_reads_the_named_column_in_the_two_rows() -> None:
    ducks = Table(
        header=("Year", "Freshwater Ducks", "Saltwater Ducks"),
        rows=(("2021", "150", "100"), ("2022", "170", "110"), ("2023", "160", "120")),
        locator=Locator(sheet="Duck Observations", rows=(4, 7)),
        name="Duck Observations",
        row_numbers=(5, 6, 7),
        columns=("B", "C", "D"),
    )
    tables = [SourceTable("ducks", "/docs/ducks.xlsx", ducks)]
    asked = "By how many did the number of freshwater ducks change from 2022 to 2023?"
    outcome = run(asked, [], tables)
    assert outcome.ok and outcome.formula == "160 − 170 = -10"
    # Neither column named: no change; nor when the table has one column the question does
    # not name (its rows are years, but not of what is asked).
    assert named_change("How did the count change from 2022 to 2023?", [], tables) is None
    single = Table(("Year", "Freshwater Ducks"), (("2022", "170"), ("2023", "160")),
                   Locator(sheet="Ducks"), name="Ducks")  # fmt: skip
    deliveries = "How much did the Space deliveries change from 2022 to 2023?"
    assert named_change(deliveries, [], [SourceTable("d", "/d.xlsx", single)]) is None


# A reconciliation's rows, each label with its footnote mark or note reference.
RECONCILIATION = Chunk(
    "r1", "nestle", "/docs/segments.xlsx",
    "| In millions of CHF | January–June 2023 | January–June 2022 |\n| --- | --- | --- |\n"
    "| Underlying trading operating profit (a) as per Note 3.1 | 7904 | 7683 |\n"
    "| Trading operating profit as per Note 3.1 | 7351 | 6684 |",
    Locator(sheet="Reconciliation", rows=(5, 8)),
)  # fmt: skip


def test_a_label_is_named_without_its_footnote_mark_and_note_reference() -> None:
    asked = (
        "By how much did the underlying trading operating profit change from January–June "
        "2022 to January–June 2023, in millions of CHF?"
    )
    outcome = run(asked, [RECONCILIATION])
    assert outcome.ok and outcome.formula == "7904 − 7683 = 221"
    trading = run(asked.replace("the underlying trading", "trading"), [RECONCILIATION])
    assert trading.formula == "7351 − 6684 = 667"


def test_the_reading_that_accounts_for_more_of_the_question_wins() -> None:
    """The reconciliation's total "Trading operating profit" row, named in "Confectionery's
    trading operating profit", leaves "Confectionery" unread: the blocks' reading stands."""
    asked = (
        "By how much did Confectionery's trading operating profit change from January–June "
        "2022 to January–June 2023?"
    )
    outcome = run(asked, [RECONCILIATION], BLOCKS)
    assert outcome.ok and outcome.formula == "467 − 464 = 3"
