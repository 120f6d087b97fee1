"""The critic catches silent tool failures: nothing found, the wrong rows, totals summed twice."""

from __future__ import annotations

from dataclasses import replace

import pytest

from polyrag.agent.critic import (
    aggregates_all,
    change_the_way_asked,
    conditions_out_of_case,
    difference_of_rows,
    drop_idle_joins,
    drop_unnamed_filters,
    equalities_as_contains,
    found_nothing,
    kind_asked,
    rank_groups,
    review,
    summed_not_counted,
    totals_per_label,
    without_filtering_joins,
    without_preset,
)
from polyrag.agent.tools.base import ToolOutcome
from polyrag.types import Chunk, Locator, Modality

ROWS = Chunk(
    "cells", "s1", "/d/ducks.xlsx",
    "Duck Observations\n| Year | Ducks |\n| --- | --- |\n| 2019 | 120 |\n| Total | 255 |",
    Locator(cells="B5:C7"),
)  # fmt: skip


def passage(path: str, text: str) -> Chunk:
    """A passage of plain text, as a calculation's backing."""
    return Chunk("p1", "s1", path, text, Locator())


def sql(query: str, result: str) -> ToolOutcome:
    return ToolOutcome("sql", {"query": query}, True, result, backing=(ROWS,))


def calculation(expression: str, shown: str, backing: Chunk = ROWS) -> ToolOutcome:
    """The calculator's outcome for `expression`, written out as `shown`."""
    return ToolOutcome(
        "calculator", {"expression": expression}, True, shown, formula=shown, backing=(backing,)
    )


def test_an_empty_or_null_result_is_repaired() -> None:
    assert (
        review("How many ducks?", sql("SELECT SUM(ducks) FROM t", "sum(ducks) = NULL"), []).verdict
        == "repair"
    )
    assert (
        review("How many ducks?", sql("SELECT * FROM t WHERE 0", "no rows"), []).verdict == "repair"
    )


def test_summing_a_total_row_is_caught() -> None:
    verdict = review("How many ducks in total?", sql("SELECT SUM(ducks) FROM t", "s = 510"), [])
    assert verdict.verdict == "repair" and "Total" in verdict.why


def test_a_query_about_nothing_the_question_names_is_repaired() -> None:
    unrelated = ToolOutcome(
        "sql", {"query": "SELECT MAX(price) FROM cars"}, True, "m = 9", backing=()
    )
    assert review("How many geese were counted?", unrelated, []).verdict == "repair"


def test_a_query_over_a_chart_its_heading_names_is_accepted() -> None:
    """A slide's chart is titled "Chart" under columns Category and 2026: the slide's title,
    "Quarterly revenue", is what names it (a right "Q3, 30" had been sent back twice)."""
    chart = Chunk(
        "c", "s3", "/d/deck.pptx", "Table 2: Chart\nRow 4: Q3 — 2026: 30",
        Locator(slide=2, heading_path=("Quarterly revenue",)),
    )  # fmt: skip
    query = "SELECT category, y2026 FROM table_2 WHERE y2026 = (SELECT MAX(y2026) FROM table_2)"
    outcome = ToolOutcome(
        "sql", {"query": query}, True, "category = Q3, y2026 = 30", backing=(chart,)
    )
    assert review("In which quarter was revenue highest?", outcome, []).verdict == "accept"
    elsewhere = replace(chart, locator=Locator(slide=2, heading_path=("Staff",)))
    unrelated = replace(outcome, backing=(elsewhere,))
    assert review("In which quarter was revenue highest?", unrelated, []).verdict == "repair"


def test_a_plural_the_question_asks_meets_its_singular_column() -> None:
    """How many items were ordered in total, over a table "Item Description | Quantity" cited
    as a bare "Table 1" over its Markdown: a right SUM(quantity) = 4 had been sent back twice
    as naming nothing asked."""
    receipt = Chunk(
        "c", "s4", "/d/receipt.html",
        "Table 1\n| Nr. | Item Description | Quantity |\n| --- | --- | --- |\n| I | Coffee | 1 |",
        Locator(),
    )  # fmt: skip
    outcome = ToolOutcome(
        "sql", {"query": "SELECT SUM(quantity) FROM table_1"}, True, "sum(quantity) = 4",
        backing=(receipt,),
    )  # fmt: skip
    question = "How many items were ordered in total on the receipt?"
    assert review(question, outcome, []).verdict == "accept"
    titled = replace(receipt, text="Table 1: Nr., Item Description, Quantity\nRow 2: …")
    assert review(question, replace(outcome, backing=(titled,)), []).verdict == "accept"


def test_a_query_named_after_the_question_over_another_table_is_repaired() -> None:
    """The result's name is the model's, taken from the question: what the query reads (its
    table, columns, values) and the rows it cites must be what the question is about."""
    steel = Chunk(
        "cells", "s2", "/d/steel.html", "Table 2: Assortment, Tensile strength", Locator()
    )
    query = "SELECT SUM(tensile_strength) AS total_chunks FROM table_2"
    outcome = ToolOutcome("sql", {"query": query}, True, "total_chunks = 1890", backing=(steel,))
    question = "How many total chunks did the Chipper processing produce?"
    assert review(question, outcome, []).verdict == "repair"
    named = ToolOutcome(
        "sql", {"query": "SELECT SUM(chunks) AS n FROM runs"}, True, "n = 5", backing=(steel,)
    )
    assert review(question, named, []).verdict == "accept"


def test_a_column_named_by_another_form_of_the_word_is_used() -> None:
    # "started" is the column start_year.
    query = sql("SELECT name FROM staff ORDER BY start_year DESC LIMIT 1", "name = Eve Novak")
    assert review("Who started most recently?", query, []).verdict == "accept"


def test_a_median_or_an_average_is_computed_as_asked() -> None:
    question = "What is the median salary?"
    mean = sql("SELECT AVG(salary) AS median_salary FROM staff", "median_salary = 79,583.33")
    assert review(question, mean, []).verdict == "repair"
    assert "MEDIAN(column)" in review(question, mean, []).why
    median = sql("SELECT MEDIAN(salary) FROM staff", "median(salary) = 70,500")
    assert review(question, median, []).verdict == "accept"
    total = sql("SELECT SUM(salary) FROM staff", "sum(salary) = 618,500")
    assert review("What is the average salary?", total, []).verdict == "repair"
    for computed in ("AVG(salary)", "SUM(salary) / COUNT(*)"):
        query = sql(f"SELECT {computed} FROM staff", "x = 77,312.5")
        # (The example table's total row draws another repair.)
        assert "asks for the average" not in review("What is the average salary?", query, []).why
    # "mean" the verb asks for no statistic.
    named = sql("SELECT term FROM glossary WHERE term = 'EBITDA'", "term = EBITDA")
    assert review("What does EBITDA mean in the glossary?", named, []).verdict == "accept"


def test_a_fitting_query_is_accepted() -> None:
    good = sql("SELECT ducks FROM t WHERE year = 2019", "ducks = 120")
    assert review("How many ducks in 2019?", good, []).verdict == "accept"


def test_a_figure_taken_from_itself_is_repaired() -> None:
    """ "How much faster was OTSL than HTML?" written as one row's time minus itself: 0
    whatever the table holds. A difference of two rows' figures stands."""
    itself = sql(
        "SELECT inference_time - inference_time FROM t WHERE language ILIKE '%OTSL%'",
        "(inference_time - inference_time) = 0",
    )
    verdict = review("How much faster was OTSL's inference than HTML's?", itself, [])
    assert verdict.verdict == "repair" and "inference_time - inference_time" in verdict.why
    rows = sql(
        "SELECT (SELECT inference_time FROM t WHERE language = 'HTML') - (SELECT "
        "inference_time FROM t WHERE language = 'OTSL')",
        "x = 2.66",
    )
    assert "against itself" not in review("How much faster was OTSL?", rows, []).why


def test_a_percentage_needs_a_division() -> None:
    added = calculation("120 + 255", "120 + 255 = 375")
    assert review("What percentage of ducks were counted in 2019?", added, []).verdict == "repair"


def test_operands_from_passages_about_something_else_are_repaired() -> None:
    other = Chunk("o", "s2", "/d/cars.pdf", "Cars sold: 55 and 33.", Locator(page=2))
    calc = calculation("55 - 33", "55 − 33 = 22", other)
    assert review("By how much did the duck count change?", calc, []).verdict == "repair"


def test_rows_are_read_with_the_title_of_their_sheet() -> None:
    """A spreadsheet's rows rarely repeat what the sheet is about: "Budget" titles them."""
    rows = "Row 4: Department is Marketing, 2023 is 450000, 2024 is 540000"
    sheet = Chunk(
        "b", "s1", "/d/staff.xlsx", rows, Locator(sheet="Budget", heading_path=("Budget",))
    )
    calc = calculation("540000 - 450000", "540,000 − 450,000 = 90,000", sheet)
    question = "By how much did the Marketing budget change from 2023 to 2024?"
    assert review(question, calc, []).verdict == "accept"
    elsewhere = Chunk(
        "b", "s1", "/d/staff.xlsx", rows, Locator(sheet="Staff", heading_path=("Staff",))
    )
    assert (
        review(
            question, calculation("540000 - 450000", "540,000 − 450,000 = 90,000", elsewhere), []
        ).verdict
        == "repair"
    )


def test_a_source_number_shifted_by_a_constant_is_not_a_calculation() -> None:
    shifted = calculation("2019 - 1", "2019 − 1 = 2018")
    assert review("How many ducks were seen in 2018?", shifted, []).verdict == "discard"


def test_an_implausible_result_is_discarded() -> None:
    huge = ToolOutcome(
        "calculator", {}, True, "1e20 = 100000000000000000000", formula="x", backing=(ROWS,)
    )
    assert review("How many ducks?", huge, []).verdict == "discard"


def test_a_percentage_change_in_parentheses_is_a_calculation() -> None:
    change = calculation("(680 - 774) / 774 * 100", "(680 − 774) ÷ 774 × 100 = -12.14")
    assert review("What was the percentage change of the ducks?", change, []).verdict == "accept"


def test_which_year_wants_a_year_not_a_figure() -> None:
    figure = sql("SELECT y2019 FROM t WHERE label ILIKE '%ducks%'", "y2019 = 914")
    assert review("In which year were the most ducks counted?", figure, []).verdict == "repair"
    year = sql(
        "SELECT period FROM t_by_period WHERE label ILIKE '%ducks%' ORDER BY value DESC LIMIT 1",
        "period = 2018",
    )
    assert review("In which year were the most ducks counted?", year, []).verdict == "accept"


def test_a_result_read_from_the_column_that_picks_the_rows_is_repaired() -> None:
    # The local model's query for the table-qa question t03: the years' difference, 1.
    asked = "By how many did the number of freshwater ducks change from 2022 to 2023?"
    years = sql(
        "SELECT (SELECT DISTINCT year FROM ducks WHERE year = 2023) - "
        "(SELECT DISTINCT year FROM ducks WHERE year = 2022) AS change FROM ducks "
        "WHERE year IN (2022, 2023)",
        "change = 1",
    )
    verdict = review(asked, years, [])
    assert verdict.verdict == "repair" and "year, the column it picks rows by" in verdict.why
    counts = sql(
        "SELECT (SELECT freshwater_ducks FROM ducks WHERE year = 2023) - "
        "(SELECT freshwater_ducks FROM ducks WHERE year = 2022) AS change",
        "change = -10",
    )
    assert review(asked, counts, []).verdict == "accept"
    # Counting the rows a value picks reads nothing else, and is what was asked.
    rows = sql("SELECT COUNT(year) FROM ducks WHERE year = 2023", "count = 1")
    assert "picks rows by" not in review("How many counts were made in 2023?", rows, []).why


def test_which_one_wants_the_column_the_question_names_not_a_neighbour() -> None:
    question = "At which inhibitor concentration was the polarization resistance highest?"
    pick = (
        "FROM table_1 WHERE polarization_resistance = "
        "(SELECT MAX(polarization_resistance) FROM table_1)"
    )
    neighbour = sql(f"SELECT bc_v_dec {pick}", "bc_v_dec = 0.32")
    assert review(question, neighbour, []).verdict == "repair"
    named = sql(f"SELECT inhibitor_concentration_g {pick}", "inhibitor_concentration_g = 6")
    assert review(question, named, []).verdict == "accept"
    ordered = sql("SELECT team FROM cups ORDER BY stanley_cups DESC LIMIT 1", "team = Canadiens")
    assert review("Which team has won the most Stanley Cups?", ordered, []).verdict == "accept"
    # "Who" is answered by whichever column names someone.
    paid = sql(
        "SELECT MAX(amount_usd) AS largest, vendor FROM expenses GROUP BY vendor "
        "ORDER BY largest DESC LIMIT 1",
        "largest = 2100, vendor = DataForge",
    )
    who = "What was the largest single expense, and who was it paid to?"
    assert review(who, paid, []).verdict == "accept"
    # Asked to choose among options it writes out, the options' column is what it asks for.
    options = "Of Vermont, Rhode Island and Wyoming, which had the most checks in total?"
    chosen = sql(
        "SELECT state_territory, totals FROM t WHERE state_territory IN ('Vermont', "
        "'Rhode Island', 'Wyoming') ORDER BY totals DESC LIMIT 1",
        "state_territory = Wyoming, totals = 5017",
    )
    assert review(options, chosen, []).verdict == "accept"
    unasked = chosen.arguments["query"].replace("'Vermont', ", "'Texas', ")
    assert review(options, replace(chosen, arguments={"query": unasked}), []).verdict == "repair"


def test_filters_on_values_the_question_never_names_are_dropped() -> None:
    question = "What is the sum of col-4 in the first table of Sheet2?"
    query = "SELECT SUM(col_4) FROM sheet2 WHERE col_1 LIKE '2' AND col_2 = 4"
    assert drop_unnamed_filters(question, query) == (
        "SELECT SUM(col_4) FROM sheet2",
        ["col_1 LIKE '2'", "col_2 = 4"],
    )


def test_filters_the_question_names_are_kept() -> None:
    kept = "SELECT n FROM t WHERE year = 2019 AND kind ILIKE '%duck%' AND period = 'FY2019'"
    assert drop_unnamed_filters("How many ducks in fiscal 2019?", kept) is None
    # A possessive names its owner.
    owners = "SELECT a FROM t WHERE layers = 6 AND language LIKE '%OTSL%' AND name LIKE '%HTML%'"
    assert drop_unnamed_filters("Was OTSL's faster than HTML’s with 6 layers?", owners) is None
    mixed = "SELECT n FROM t WHERE year = 2019 AND kind ILIKE '%geese%'"
    assert drop_unnamed_filters("How many ducks in 2019?", mixed) == (
        "SELECT n FROM t WHERE year = 2019",
        ["kind ILIKE '%geese%'"],
    )
    assert drop_unnamed_filters("total?", "SELEC nonsense (") is None


def test_a_joined_table_nothing_reads_is_dropped_and_its_condition_kept() -> None:
    query = (
        "SELECT COUNT(T1.cups) FROM cups AS T1 JOIN sales AS T2 ON T1.location ILIKE 'TOR' "
        "WHERE T1.team = 'Leafs'"
    )
    assert drop_idle_joins(query) == (
        "SELECT COUNT(T1.cups) FROM cups AS T1 WHERE T1.team = 'Leafs' AND T1.location ILIKE 'TOR'",
        ["sales"],
    )
    assert drop_idle_joins("SELECT a.x, b.y FROM a JOIN b ON a.id = b.id") is None
    assert drop_idle_joins("SELECT SUM(x) FROM a JOIN b ON a.id = b.id") is None  # unqualified


def test_a_query_joined_only_to_filter_is_tried_over_its_first_table() -> None:
    """The year with the most saltwater ducks, asked of table_1, joined to a revenue chart
    and filtered on it to nothing: the query over table_1 alone."""
    query = (
        "SELECT T1.category, T1.saltwater_ducks FROM table_1 AS T1 INNER JOIN table_2 AS T2 "
        "ON T1.category = T2.category WHERE T2.y2026 LIKE '%2026%' AND T1.category > 2000 "
        "ORDER BY T1.saltwater_ducks DESC LIMIT 1"
    )
    assert without_filtering_joins(query) == (
        "SELECT T1.category, T1.saltwater_ducks FROM table_1 AS T1 WHERE T1.category > 2000 "
        "ORDER BY T1.saltwater_ducks DESC LIMIT 1",
        ["the join of table_2", "T2.y2026 LIKE '%2026%'"],
    )
    read = "SELECT T1.a, T2.b FROM t1 AS T1 JOIN t2 AS T2 ON T1.k = T2.k WHERE T2.x = 1"
    assert without_filtering_joins(read) is None  # it selects the joined table's column
    assert without_filtering_joins("SELECT a FROM t1 WHERE a = 1") is None  # nothing joined


def test_how_many_of_a_column_adds_it_up() -> None:
    counted = "SELECT COUNT(stanley_cups) FROM cups WHERE team ILIKE '%Leafs%'"
    assert summed_not_counted("How many Stanley Cups have the Leafs won?", counted) == (
        "SELECT SUM(stanley_cups) FROM cups WHERE team ILIKE '%Leafs%'",
        ["stanley_cups"],
    )
    assert summed_not_counted("How many teams are listed?", counted) is None
    assert summed_not_counted("How many rows?", "SELECT COUNT(*) FROM cups") is None

    def numeric(table: str) -> list[str]:
        return ["stanley_cups"] if table == "cups" else []

    rows_counted = "SELECT COUNT(*) FROM cups WHERE location ILIKE '%TOR%'"
    assert summed_not_counted("How many Stanley Cups has Toronto won?", rows_counted, numeric) == (
        "SELECT SUM(\"stanley_cups\") FROM cups WHERE location ILIKE '%TOR%'",
        ["stanley_cups"],
    )
    assert summed_not_counted("How many teams are there?", rows_counted, numeric) is None


def test_how_many_of_a_listed_thing_adds_up_its_quantity() -> None:
    """A receipt lists each item once with its quantity: the lunches ordered are the
    quantity of the Lunch row, not the one row counted. A count of sales of a product is a
    count of rows."""

    def numeric(table: str) -> list[str]:
        return ["quantity"] if table == "table_1" else []

    counted = "SELECT COUNT(*) FROM table_1 WHERE item_description ILIKE '%Lunch%'"
    assert summed_not_counted("How many lunches were ordered?", counted, numeric) == (
        "SELECT SUM(\"quantity\") FROM table_1 WHERE item_description ILIKE '%Lunch%'",
        ["quantity"],
    )
    sales = "SELECT COUNT(*) FROM table_1 WHERE item_description = 'Lunch'"
    assert summed_not_counted("How many sales of Lunch were recorded?", sales, numeric) is None
    assert summed_not_counted("How many lunches were ordered?", counted, lambda _t: []) is None
    priced = lambda _table: ["price"]  # noqa: E731 - no quantity column: rows are counted
    assert summed_not_counted("How many lunches were ordered?", counted, priced) is None


def test_a_count_of_none_found_nothing() -> None:
    assert found_nothing("count_star() = 0") and found_nothing("count(team) = 0")
    assert not found_nothing("sum(cups) = 0") and not found_nothing("count(team) = 3")


def test_a_query_that_found_nothing_is_told_where_its_values_are() -> None:
    """The SQL tool's note on where the text a query looked for is goes back with the
    repair; without one, only the general advice."""
    query = "SELECT SUM(employees) FROM table_16 WHERE month LIKE '%ProCourier%'"
    note = "'ProCourier' is in the column company of table_1, which the query did not read"
    told = review("How many did ProCourier lay off?", sql(query, f"x = NULL\nnote: {note}"), [])
    assert told.verdict == "repair" and told.why.endswith(f"; {note}")
    plain = review("How many did ProCourier lay off?", sql(query, "x = NULL"), [])
    assert plain.verdict == "repair" and "note" not in plain.why and "ProCourier" not in plain.why


def test_a_sum_of_a_case_becomes_a_sum_over_the_rows_it_names() -> None:
    """The same figure, but the rows cited are the company's, not the whole list."""
    query = (
        "SELECT SUM(CASE WHEN company = 'Microsoft Corporation' THEN no_of ELSE 0 END) AS "
        "total FROM table_1"
    )
    assert conditions_out_of_case(query) == (
        "SELECT SUM(no_of) AS total FROM table_1 WHERE company = 'Microsoft Corporation'"
    )
    both = "SELECT SUM(CASE WHEN a = 'x' THEN b END), COUNT(CASE WHEN a = 'x' THEN 1 END) FROM t"
    assert conditions_out_of_case(both + " WHERE y > 2") == (
        "SELECT SUM(b), COUNT(1) FROM t WHERE y > 2 AND a = 'x'"
    )
    for other in (
        "SELECT AVG(CASE WHEN a = 'x' THEN b ELSE 0 END) FROM t",  # zeros count in an average
        "SELECT SUM(CASE WHEN a = 'x' THEN b ELSE 1 END) FROM t",
        "SELECT SUM(CASE WHEN a = 'x' THEN b END), SUM(CASE WHEN a = 'y' THEN b END) FROM t",
        "SELECT SUM(CASE WHEN a = 'x' THEN b END) FROM t GROUP BY c",
        "SELECT SUM(CASE WHEN a = 'x' THEN b WHEN a = 'y' THEN c END) FROM t",
        "SELECT SUM(CASE WHEN t.a = 'x' THEN u.b END) FROM t JOIN u ON t.id = u.id",
        "SELECT SUM(b) FROM t",
    ):
        assert conditions_out_of_case(other) is None, other


def test_an_equality_on_words_that_found_nothing_becomes_contains() -> None:
    assert equalities_as_contains(
        "SELECT SUM(no_of) FROM t WHERE company = 'ProCourier' AND year = '2015'"
    ) == (
        "SELECT SUM(no_of) FROM t WHERE company ILIKE '%ProCourier%' AND year ILIKE '%2015%'",
        ["company = 'ProCourier'", "year = '2015'"],
    )
    assert equalities_as_contains("SELECT x FROM t WHERE 'Acme' = company") == (
        "SELECT x FROM t WHERE company ILIKE '%Acme%'",
        ["'Acme' = company"],
    )
    assert equalities_as_contains("SELECT x FROM t WHERE n = '12' AND m IN ('1', '2')") is None
    # Years are written inside periods: "April 27, 2019".
    assert equalities_as_contains("SELECT AVG(value) FROM v WHERE period IN ('2018', '2019')") == (
        "SELECT AVG(value) FROM v WHERE (period ILIKE '%2018%' OR period ILIKE '%2019%')",
        ["period IN ('2018', '2019')"],
    )
    # A dash stands for any dash: the sheet writes "January–June 2022".
    assert equalities_as_contains(
        "SELECT SUM(value) FROM v WHERE period = 'January-June 2022'"
    ) == (
        "SELECT SUM(value) FROM v WHERE period ILIKE '%January_June 2022%'",
        ["period = 'January-June 2022'"],
    )


@pytest.mark.parametrize(
    "query",
    [
        "SELECT product FROM sales WHERE revenue = (SELECT MAX(revenue) FROM sales)",
        "SELECT product, revenue FROM sales ORDER BY revenue DESC LIMIT 1",
    ],
)
def test_which_label_has_the_most_compares_totals_when_labels_repeat(query: str) -> None:
    assert totals_per_label(query, lambda table, column: True) == (
        'SELECT "product", SUM("revenue") AS total FROM "sales" GROUP BY "product" '
        "ORDER BY total DESC LIMIT 1",
        "product",
    )
    assert totals_per_label(query, lambda table, column: False) is None  # one row per product
    # Asked about one sale, the row with the largest revenue is the answer.
    for asked in (
        "Which product had the highest revenue in a single sale?",
        "Which product had the largest individual order?",
        "Which product sold the most on any one day?",
    ):
        assert totals_per_label(query, lambda table, column: True, asked) is None
    widget = "Which widget brought in the most revenue?"
    assert totals_per_label(query, lambda table, column: True, widget) is not None


def test_the_smallest_total_keeps_the_other_conditions() -> None:
    query = "SELECT region FROM sales WHERE year = 2024 ORDER BY revenue LIMIT 1"
    grouped = totals_per_label(query, lambda table, column: column == "region")
    assert grouped is not None
    assert grouped[0].endswith('WHERE year = 2024 GROUP BY "region" ORDER BY total ASC LIMIT 1')
    grouped_already = "SELECT region, SUM(revenue) FROM sales GROUP BY region"
    assert totals_per_label(grouped_already, lambda table, column: True) is None


def test_a_figure_subtracted_from_itself_stands_only_when_a_row_writes_it_twice() -> None:
    """A rate of 21.0% in both years changed by 0; Ulta's net income of 340.8, written once,
    taken for both ends of an inventory change, did not."""
    question = "What was the change in the statutory federal income tax rate from 2018 to 2019?"
    rate = passage(
        "/d/tax.md", "Row 2: Statutory federal income tax rate — 2019: 21.0%, 2018: 21.0%"
    )
    zero = calculation("21.0 - 21.0", "21.0 − 21.0 = 0")
    assert review(question, replace(zero, backing=(rate,)), [rate]).verdict == "accept"
    heading = passage("/d/ulta.pdf", "Net Income of $340.8 Million or $6.68 Per Diluted Share")
    asked = "By how much did merchandise inventories increase from 2022 to 2023?"
    same = calculation("340.8 - 340.8", "340.8 − 340.8 = 0")
    found = review(asked, replace(same, backing=(heading,)), [heading])
    assert found.verdict == "repair" and "subtracted from itself" in found.why


def test_the_years_a_question_names_are_no_operands() -> None:
    years = calculation("(2019 - 2018) / 2018 * 100", "(2019 − 2018) ÷ 2018 × 100 = 0.05")
    question = "What is the percentage change in the duck count from 2018 to 2019?"
    found = review(question, years, [])
    assert found.verdict == "repair" and "2018 and 2019 are years" in found.why
    figures = calculation("(135 - 120) / 120 * 100", "(135 − 120) ÷ 120 × 100 = 12.5")
    assert review(question, figures, []).verdict == "accept"
    span = calculation("2019 - 2011", "2019 − 2011 = 8")
    assert review("How many years passed between 2011 and 2019?", span, []).verdict == "accept"


@pytest.mark.parametrize(
    ("question", "expression", "shown", "why"),
    [
        (
            "What is the average duck count?",
            "4044 - 3316 / 3316 * 100",
            "4044 − 3316 ÷ 3316 × 100 = 3944",
            "divided by itself",
        ),
        (
            "What was gross profit as a percentage of net sales for the 52 weeks ended 2023?",
            "(10208580 - 8630889) / 8630889 * 100",
            "(10,208,580 − 8,630,889) ÷ 8,630,889 × 100 = 18.28",
            "as a percentage of another, not a change",
        ),
        (
            "By how much did merchandise inventories increase from 2022 to 2023?",
            "340.8 - 340.8",
            "340.8 − 340.8 = 0",
            "subtracted from itself",
        ),
        (
            "What is the 2019 average duck count?",
            "(135 - 120) / 120 * 100",
            "(135 − 120) ÷ 120 × 100 = 12.5",
            "asks for an average",
        ),
        (
            "What was the difference in the duck count between 2019 and 2020?",
            "(135 - 120) / 120 * 100",
            "(135 − 120) ÷ 120 × 100 = 12.5",
            "a difference, not a percentage",
        ),
        (
            "By how much did profit increase from the first half of 2022 to that of 2023?",
            "(6565 - 6185) / 6185 * 100",
            "(6565 − 6185) ÷ 6185 × 100 = 6.14",
            "a difference, not a percentage",
        ),
    ],
)
def test_a_formula_of_the_wrong_shape_is_repaired(
    question: str, expression: str, shown: str, why: str
) -> None:
    found = review(question, calculation(expression, shown), [])
    assert found.verdict == "repair" and why in found.why


def test_formulas_of_the_right_shape_are_accepted() -> None:
    average = calculation("(135 + 120) / 2", "(135 + 120) ÷ 2 = 127.5")
    assert review("What is the average duck count?", average, []).verdict == "accept"
    change = calculation("(135 - 120) / 120 * 100", "(135 − 120) ÷ 120 × 100 = 12.5")
    assert review("What is the percentage change in ducks?", change, []).verdict == "accept"
    assert review("What is the growth rate of the duck count?", change, []).verdict == "accept"


def test_operands_from_lines_about_something_else_are_repaired() -> None:
    note = passage(
        "/d/imft.md",
        "IMFT sales to Intel were $731 million, $507 million, and $493 million for 2019, 2018, "
        "and 2017, respectively. IMFT total assets were $2,664 million and $3,025 million.",
    )
    question = "What is the change of IMFT's total assets from 2018 to 2019?"
    sales = calculation("493 - 507", "493 − 507 = -14", note)
    found = review(question, sales, [])
    assert found.verdict == "repair" and "493, 507 are not from" in found.why
    assets = calculation("2664 - 3025", "2,664 − 3,025 = -361", note)
    assert review(question, assets, []).verdict == "accept"


def test_operands_written_for_other_periods_than_the_question_asks_are_repaired() -> None:
    grants = passage(
        "/d/awards.md",
        "In February 2016, we granted 547,000 PSUs with certain targets. As of December 31, "
        "2019, 253,203 shares had vested.\nIn October 2018, we granted 464,888 PSUs.\n"
        "In April 2019, we granted 346,453 PSUs with certain financial targets.",
    )
    question = (
        "What is the percentage difference in PSUs granted between February 2016 and October 2018?"
    )
    wrong = calculation(
        "(346453 - 464888) / 464888 * 100", "(346,453 − 464,888) ÷ 464,888 × 100 = -25.48", grants
    )
    found = review(question, wrong, [])
    assert found.verdict == "repair"
    assert "346,453 is written for April 2019" in found.why
    assert "February 2016 and October 2018" in found.why
    assert "(February 2016: 547,000; October 2018: 464,888)" in found.why  # what to take
    right = calculation(
        "(464888 - 547000) / 547000 * 100", "(464,888 − 547,000) ÷ 547,000 × 100 = -15.01", grants
    )
    assert review(question, right, []).verdict == "accept"
    # By years: the question names no month; a sentence of the same year fits.
    by_year = "What is the percentage change in PSUs granted from 2016 to 2018?"
    assert review(by_year, right, []).verdict == "accept"
    assert "346,453 is written for 2019" in review(by_year, wrong, []).why


def test_a_total_over_a_span_of_years_takes_the_years_between() -> None:
    """ "In total from 2019 to 2022" adds 2020 and 2021 too; a change from 2019 to 2022 takes
    only its ends."""
    chart = Chunk(
        "c1",
        "s1",
        "/d/ducks.pptx",
        "Table 1: Chart: Wild Duck Observations by Year\n"
        "| Category | Freshwater Ducks | Saltwater Ducks |\n| --- | --- | --- |\n"
        "| 2019 | 120 | 80 |\n| 2022 | 175 | 130 |\n| 2020 | 130 | 95 |\n| 2021 | 150 | 110 |",
        Locator(slide=1),
        Modality.TABLE,
    )
    total = "How many freshwater ducks were observed in total from 2019 to 2022?"
    added = calculation("120 + 130 + 150 + 175", "120 + 130 + 150 + 175 = 575", chart)
    assert review(total, added, []).verdict == "accept"
    change = "By how much did the freshwater ducks increase from 2019 to 2022?"
    across = calculation("150 - 120", "150 − 120 = 30", chart)
    assert "150 is written for 2021" in review(change, across, []).why


def test_percentage_points_are_a_difference_of_percentages() -> None:
    shares = passage(
        "/d/ibm.md",
        "IBM produced 80% of the computers in the U.S. and 70% of those worldwide.",
    )
    question = "How many percentage points higher was IBM's share in the U.S. than worldwide?"
    ratio = calculation("(80 - 70) / 70 * 100", "(80 − 70) ÷ 70 × 100 = 14.29", shares)
    found = review(question, ratio, [])
    assert found.verdict == "repair" and "percentage points" in found.why
    assert review(question, calculation("80 - 70", "80 − 70 = 10", shares), []).verdict == "accept"


def test_how_much_farther_than_is_a_difference_not_a_percentage() -> None:
    rivers = passage(
        "/d/isw.html",
        "The Berezina river is 70 km from the border; the Neman river is 170 km from it.",
    )
    question = "How much farther from the border is the Neman river than the Berezina river?"
    relative = calculation("(170 - 70) / 70 * 100", "(170 − 70) ÷ 70 × 100 = 142.86", rivers)
    found = review(question, relative, [])
    assert found.verdict == "repair" and "without * 100" in found.why
    assert review(question, calculation("170 - 70", "170 − 70 = 100", rivers), []).verdict == (
        "accept"
    )
    # Asked as a percentage, the same division is what the question wants.
    percent = "By what percent is the Neman river farther from the border than the Berezina?"
    assert review(percent, relative, []).verdict == "accept"


def test_a_row_named_as_the_question_names_it_wins_over_a_similar_one() -> None:
    rows = "| As of | 2019 | 2018 |\n| --- | --- | --- |\n| Total current assets | 391 | 339 |\n"
    sheet = Chunk(
        "b1", "s1", "/d/balance.md", rows + "| Total assets | $2,664 | $3,025 |", Locator()
    )
    question = "What is the change of IMFT's total assets from 2018 to 2019?"
    current = review(question, calculation("391 - 339", "391 − 339 = 52", sheet), [])
    assert current.verdict == "repair"
    assert "'Total assets' has 2018: 3025 and 2019: 2664: take those two values" in current.why
    total = calculation("2664 - 3025", "2,664 − 3,025 = -361", sheet)
    assert review(question, total, []).verdict == "accept"


def test_a_change_over_a_statement_takes_the_row_the_question_writes_out_in_full() -> None:
    """Two rows "Other" and a "Total Other", under a row of years: the percentage change of
    "Total Other" is over that row's values, whatever the model took."""
    table = (
        "|  |  | Years Ended December 31, |  |\n| --- | --- | --- | --- |\n"
        "|  | 2019 | 2018 | 2017 |\n| Other | 123,969 | 118,620 | 118,853 |\n"
        "| Other | 223,847 | 203,251 | 178,649 |\n| Total Other | 89 | 95 | 82 |"
    )
    chunk = Chunk("o1", "s5", "/d/regions.md", table, Locator())
    question = "What was the percentage change in Total Other in 2018 from 2017?"
    wrong = calculation(
        "(123969 - 118620) / 118620 * 100", "(123,969 − 118,620) ÷ 118,620 × 100 = 4.51", chunk
    )
    verdict = review(question, wrong, [])
    assert "'Total Other' has 2017: 82 and 2018: 95: compute (95 - 82) / 82 * 100" in verdict.why
    right = calculation("(95 - 82) / 82 * 100", "(95 − 82) ÷ 82 × 100 = 15.85", chunk)
    assert review(question, right, []).verdict == "accept"
    average = "What was the average Total Other in 2018 and 2017?"  # no change: not read
    assert "has 2017" not in review(average, wrong, []).why


def test_the_row_written_out_in_full_may_order_its_words_otherwise() -> None:
    """Rows "Sales" and "Sales, net": "net sales" writes the second out in full, in another
    order, so the change is over that row."""
    table = (
        "|  | 2019 | 2018 |\n| --- | --- | --- |\n"
        "| Sales | 1,200 | 1,100 |\n| Sales, net | 1,040 | 800 |"
    )
    chunk = Chunk("n1", "s5", "/d/sales.md", table, Locator())
    question = "What was the percentage change in net sales from 2018 to 2019?"
    gross = calculation("(1200 - 1100) / 1100 * 100", "(1,200 − 1,100) ÷ 1,100 × 100 = 9.09", chunk)
    verdict = review(question, gross, [])
    assert "'Sales, net' has 2018: 800 and 2019: 1040: compute (1040 - 800) / 800" in verdict.why
    net = calculation("(1040 - 800) / 800 * 100", "(1,040 − 800) ÷ 800 × 100 = 30", chunk)
    assert review(question, net, []).verdict == "accept"


def test_a_row_under_a_title_naming_the_measure_holds_right_operands() -> None:
    """ "Training hours" is the table's title, not its rows'; a sentence naming them with a
    year only ("rose in most departments in 2024") is no row of them, so Operations' 210 and
    260 are the right operands."""
    table = Chunk(
        "t1", "s7", "/d/training.docx",
        "| Department | 2023 | 2024 |\n| --- | --- | --- |\n| Finance | 120 | 150 |\n"
        "| Operations | 210 | 260 |",
        Locator(heading_path=("Staff training report", "Training hours by department")),
    )  # fmt: skip
    prose = passage("/d/training.docx", "Training hours rose in most departments in 2024.")
    question = "By how much did Operations' training hours increase from 2023 to 2024?"
    right = calculation("260 - 210", "260 − 210 = 50", table)
    assert review(question, right, [prose]).verdict == "accept"


def test_operands_of_a_sentence_wrapped_across_lines_are_from_that_sentence() -> None:
    """Markdown wraps its prose: "capital budget of" ends one line and "2.4 million euros for
    2026, up from 1.9 million" opens the next; both are one sentence about the budget."""
    minutes = passage(
        "/d/minutes.md",
        "# Minutes\n\nThe board approved a capital budget of\n2.4 million euros for 2026, up "
        "from 1.9 million euros in 2025. Most of it goes to the new\npacking line in Lyon.",
    )
    question = "By what percentage did the capital budget increase from 2025 to 2026?"
    right = calculation("(2.4 - 1.9) / 1.9 * 100", "(2.4 − 1.9) ÷ 1.9 × 100 = 26.32", minutes)
    assert review(question, right, []).verdict == "accept"


def test_a_small_figure_the_sources_write_is_an_operand_not_a_constant() -> None:
    """Lead times of 15 and 7 days: "(15 - 7) / 7 * 100" for their difference is a formula of
    the wrong shape to repair, not one number shifted by a constant to discard."""
    suppliers = Chunk(
        "l1", "s8", "/d/suppliers.html",
        "| Supplier | Lead time (days) |\n| --- | --- |\n| PackRight | 7 |\n| Baltic Pallet | 15 |",
        Locator(),
    )  # fmt: skip
    question = "What is the difference between the lead times of Baltic Pallet and PackRight?"
    shaped = calculation("(15 - 7) / 7 * 100", "(15 − 7) ÷ 7 × 100 = 114.29", suppliers)
    found = review(question, shaped, [])
    assert found.verdict == "repair" and "a difference, not a percentage" in found.why
    assert review(question, calculation("15 - 7", "15 − 7 = 8", suppliers), []).verdict == (
        "accept"
    )
    shifted = calculation("15 + 7", "15 + 7 = 22", ROWS)  # 7 is no figure of the ducks
    assert review("How many ducks plus a week?", shifted, []).verdict == "discard"


def test_average_in_a_rows_name_asks_for_no_average() -> None:
    """ "The change in the average price per unit" is over the row "Average price per unit":
    a subtraction, not a sum halved; "the average of the prices" still asks for one."""
    table = (
        "|  | 2019 | 2018 |\n| --- | --- | --- |\n"
        "| Units sold | 410 | 380 |\n| Average price per unit | 12.5 | 11.0 |"
    )
    chunk = Chunk("a1", "s6", "/d/prices.md", table, Locator())
    question = "What was the change in the average price per unit from 2018 to 2019?"
    change = calculation("12.5 - 11.0", "12.5 − 11.0 = 1.5", chunk)
    assert review(question, change, []).verdict == "accept"
    asked = "What was the average of the price per unit in 2018 and 2019?"
    assert "asks for an average" in review(asked, change, []).why


def test_a_row_the_question_names_more_fully_is_taken_instead() -> None:
    """The question divides total current assets by total current liabilities; the model took
    "Total assets" and "Total liabilities", rows of the same statement that it names less fully."""
    statement = Chunk(
        "b2", "s1", "/d/10k.pdf",
        "Table 10: SQUARE, INC. CONSOLIDATED BALANCE SHEETS\n"
        "Row 12: Total current assets — 2016: 1,001,425, 2015: 705,563\n"
        "Row 17: Total assets — 2016: 1,211,362, 2015: 894,772\n"
        "Row 28: Total current liabilities — 2016: 577,464, 2015: 334,202\n"
        "Row 31: Total liabilities — 2016: 635,209, 2015: 386,724",
        Locator(page=68),
    )  # fmt: skip
    question = (
        "What is Block's FY2016 working capital ratio? Define working capital ratio as total "
        "current assets divided by total current liabilities."
    )
    wrong = review(
        question, calculation("1211362 / 635209", "1,211,362 ÷ 635,209 = 1.91", statement), []
    )
    assert wrong.verdict == "repair"
    assert "'total assets', but the question names 'total current assets'" in wrong.why
    assert "'total liabilities', but the question names 'total current liabilities'" in wrong.why
    right = calculation("1001425 / 577464", "1,001,425 ÷ 577,464 = 1.73", statement)
    assert review(question, right, []).verdict == "accept"
    # A question that names neither fuller row leaves the operands alone.
    plain = "What is Block's FY2016 ratio of total assets to total liabilities?"
    assert (
        review(
            plain, calculation("1211362 / 635209", "1,211,362 ÷ 635,209 = 1.91", statement), []
        ).verdict
        == "accept"
    )


def test_a_row_said_only_after_the_row_the_question_names_is_not_the_one_named() -> None:
    """ "Finished goods inventories": the row is "Finished goods"; "Inventories", the total
    under it, is only the noun the question ends with."""
    note = Chunk(
        "n8", "s1", "/d/10k.pdf",
        "Table 28: Note 8. Other Financial Information\n"
        "Row 2: Finished goods — 2021: 3,641, 2020: 2,867\n"
        "Row 3: Work in process — 2021: 4,424, 2020: 4,436\n"
        "Row 5: Inventories — 2021: 9,059, 2020: 8,020",
        Locator(page=88),
    )  # fmt: skip
    question = (
        "By what percentage did Pfizer's finished goods inventories increase from December 31, "
        "2020 to December 31, 2021?"
    )
    total = calculation("(9059 - 8020) / 8020 * 100", "(9,059 − 8,020) ÷ 8,020 × 100 = 12.96", note)
    wrong = review(question, total, [])
    assert wrong.verdict == "repair"
    assert "the row 'inventories', but the question names 'finished goods'" in wrong.why
    right = calculation("(3641 - 2867) / 2867 * 100", "(3,641 − 2,867) ÷ 2,867 × 100 = 27.0", note)
    assert review(question, right, []).verdict == "accept"
    # The total named on its own is the total: a share of it takes it as it is.
    share = "What share of Pfizer's total inventories were finished goods in 2021?"
    ratio = calculation("3641 / 9059 * 100", "3,641 ÷ 9,059 × 100 = 40.2", note)
    assert review(share, ratio, []).verdict == "accept"


def test_a_sum_over_rows_picked_by_numbers_the_question_never_says_loses_that_filter() -> None:
    question = "What is the sum of col-4 in the first table of Sheet2?"
    picked = "SELECT SUM(col_4) FROM sheet2 WHERE col_1 IN (1, 2, 3, 4)"
    assert aggregates_all(picked)
    assert drop_unnamed_filters(question, picked, copied_only=True) == (
        "SELECT SUM(col_4) FROM sheet2",
        ["col_1 IN (1, 2, 3, 4)"],
    )
    # Words may be the model's synonym of the question's, a year its reading of "last year".
    synonym = "SELECT SUM(v) FROM t WHERE label ILIKE '%net sales%' AND year = 2023"
    assert drop_unnamed_filters("Total revenue last year?", synonym, copied_only=True) is None
    row = (
        "SELECT SUM(amount_usd) FROM expenses WHERE category LIKE 'Office' "
        "AND vendor LIKE 'PaperPoint' AND date LIKE '2025-03%'"
    )
    assert drop_unnamed_filters("How much was spent in March 2025?", row, copied_only=True) == (
        "SELECT SUM(amount_usd) FROM expenses WHERE date LIKE '2025-03%'",
        ["category LIKE 'Office'", "vendor LIKE 'PaperPoint'"],
    )  # a whole example row's values at once, none named: copied
    # One value none of the question's words could stand for: every word is a column's.
    germany = "SELECT AVG(unit_price_eur) FROM suppliers WHERE country ILIKE '%Germany%'"
    price = "What is the average unit price of the suppliers?"
    assert drop_unnamed_filters(price, germany, copied_only=True) == (
        "SELECT AVG(unit_price_eur) FROM suppliers",
        ["country ILIKE '%Germany%'"],
    )
    # The table's title reads a word too: a web page's "Approved suppliers" as table_1.
    untitled = germany.replace("FROM suppliers", "FROM table_1")
    assert drop_unnamed_filters(price, untitled, copied_only=True) is None
    titled = drop_unnamed_filters(
        price, untitled, copied_only=True, titles="suppliers.html, table_1: Approved suppliers"
    )
    assert titled is not None and titled[1] == ["country ILIKE '%Germany%'"]
    flights = "SELECT SUM(amount) FROM expenses WHERE category ILIKE '%Travel%'"
    assert drop_unnamed_filters("How much went on flights?", flights, copied_only=True) is None
    losses = "SELECT COUNT(*) FROM t WHERE profit < 0"  # "a loss", read as a comparison
    assert drop_unnamed_filters("How many months had a loss?", losses, copied_only=True) is None
    # A list of values the question never names is copied off the example rows too.
    listed = (
        "SELECT MEDIAN(salary) FROM staff WHERE department LIKE '%Engineering%' "
        "OR department LIKE '%Sales%'"
    )
    assert drop_unnamed_filters("What is the median salary?", listed, copied_only=True) == (
        "SELECT MEDIAN(salary) FROM staff",
        ["department LIKE '%Engineering%' OR department LIKE '%Sales%'"],
    )
    assert (
        drop_unnamed_filters("Median salary in Sales or Engineering?", listed, copied_only=True)
        is None
    )
    assert not aggregates_all("SELECT label, SUM(v) FROM t WHERE n = 5 GROUP BY label")
    assert not aggregates_all("SELECT v FROM t WHERE n = 5")
    assert not aggregates_all("SELEC nonsense (")


def test_a_row_the_question_names_is_taken_instead_of_one_sharing_its_words() -> None:
    reconciliation = Chunk(
        "r1", "s1", "/d/segments.xlsx",
        "| In millions of CHF | January–June 2023 | January–June 2022 |\n| --- | --- | --- |\n"
        "| Operating profit | 7262 | 6619 |\n| Net financial income/(expense) | -697 | -434 |\n"
        "| Profit before taxes, associates and joint ventures | 6565 | 6185 |",
        Locator(sheet="Reconciliation"),
    )  # fmt: skip
    question = (
        "By how much did profit before taxes, associates and joint ventures increase from the "
        "first half of 2022 to the first half of 2023?"
    )
    wrong = review(question, calculation("7262 - 6619", "7262 − 6619 = 643", reconciliation), [])
    assert wrong.verdict == "repair"
    assert "the row 'operating profit', but the question names 'profit before taxes" in wrong.why
    right = calculation("6565 - 6185", "6565 − 6185 = 380", reconciliation)
    assert review(question, right, []).verdict == "accept"
    # An operand's row sharing less than half its words with the row named is left alone.
    both = "What was profit before taxes, associates and joint ventures less net financial income?"
    net = review(both, calculation("6565 - -697", "6565 − -697 = 7262", reconciliation), [])
    assert net.verdict == "accept", net.why


def test_a_calculation_the_question_does_not_ask_for_is_discarded() -> None:
    stores = passage(
        "/d/bby.pdf",
        "Best Buy: 908 stores at the start of the quarter, 907 at its end. Yardbird: 22 stores.",
    )
    lookup = "How many Yardbird stores did Best Buy operate at the end of the quarter?"
    difference = calculation("907 - 908", "907 − 908 = -1", stores)
    found = review(lookup, difference, [])
    assert found.verdict == "discard" and "no difference" in found.why
    # "plus" asks for a sum: a subtraction still answers another question.
    revenues = passage("/d/awk.pdf", "Regulated Businesses revenues: 3,255 in 2020, 3,094 in 2019.")
    plus = "What were the revenues in New Jersey (water plus wastewater) for 2020?"
    assert review(plus, calculation("3255 - 3094", "3255 − 3094 = 161", revenues), []).verdict == (
        "discard"
    )
    share = calculation("572 / 824 * 100", "572 ÷ 824 × 100 = 69.42", revenues)
    listed = "How many coffee-shop brands are listed as eligible for the 2% accrual?"
    assert "no ratio" in review(listed, share, []).why
    # Asked for, the same operations are reviewed as usual.
    asked = "By how much did the store count change during the quarter?"
    assert review(asked, difference, []).verdict == "accept"
    assert review("What share of the brands are coffee shops?", share, []).verdict != "discard"


def test_a_figure_under_another_column_than_the_one_named_is_repaired() -> None:
    segments = passage(
        "/d/awk.pdf",
        "Table 80: Regulated Businesses, Market-Based Businesses, Consolidated\n"
        "| | Regulated Businesses | Market-Based Businesses | Consolidated |\n"
        "| --- | --- | --- | --- |\n| Operating revenues | 3,255 | 540 | 3,777 |",
    )
    earlier = passage(
        "/d/awk.pdf",
        "| | Regulated Businesses | Market-Based Businesses | Consolidated |\n"
        "| --- | --- | --- | --- |\n| Operating revenues | 3,094 | 539 | 3,610 |",
    )
    question = "By what percentage did Regulated Businesses operating revenues grow in 2020?"
    mixed = calculation(
        "(3777 - 3094) / 3094 * 100", "(3777 − 3094) ÷ 3094 × 100 = 22.07", segments
    )
    found = review(question, mixed, [segments, earlier])
    assert found.verdict == "repair"
    assert "3777 stands under 'consolidated'" in found.why and "'regulated businesses'" in found.why
    right = calculation("(3255 - 3094) / 3094 * 100", "(3255 − 3094) ÷ 3094 × 100 = 5.2", segments)
    assert "stands under" not in review(question, right, [segments, earlier]).why


def test_percentages_taken_for_an_amount_are_repaired() -> None:
    mdna = passage(
        "/d/mgm.pdf",
        "MGM China net revenues decreased 77% in 2020 compared to 2019, and Regional "
        "Operations net revenues decreased 61%. MGM China net revenues were $656,703 "
        "thousand in 2020 and $2,905,422 thousand in 2019.",
    )
    question = (
        "By how much did MGM China's segment net revenues decline from 2019 to 2020, in "
        "thousands of dollars?"
    )
    shares = calculation("77 - 61", "77 − 61 = 16", mdna)
    found = review(question, shares, [mdna])
    assert found.verdict == "repair" and "77 and 61 are percentages" in found.why
    amounts = calculation("2905422 - 656703", "2,905,422 − 656,703 = 2,248,719", mdna)
    assert "percentages" not in review(question, amounts, [mdna]).why
    # A question about shares may subtract them.
    points = (
        "By how many percentage points did the decline in MGM China's net revenues exceed "
        "Regional Operations'?"
    )
    assert "percentages in the sources" not in review(points, shares, [mdna]).why


def test_a_comparison_of_two_periods_goes_the_way_the_question_s_change_goes() -> None:
    question = "Which department's budget decreased from 2023 to 2024?"
    grew = "SELECT department FROM budget WHERE y2023 < y2024"
    assert change_the_way_asked(question, grew) == (
        "SELECT department FROM budget WHERE y2023 > y2024",
        ["y2023 < y2024"],
    )
    assert (
        change_the_way_asked(question, "SELECT department FROM budget WHERE y2024 < y2023") is None
    )
    assert change_the_way_asked(
        "Which segments grew?", "SELECT s FROM t WHERE y2019 <= y2018 AND n > 1"
    ) == ("SELECT s FROM t WHERE y2019 >= y2018 AND n > 1", ["y2019 <= y2018"])
    # Both ways asked, or no two periods compared: nothing to turn.
    assert change_the_way_asked("Which grew or fell?", grew) is None
    assert change_the_way_asked(question, "SELECT d FROM b WHERE cost < revenue") is None


WIDE = Chunk(
    "w", "s1", "/d/inventory.xlsx",
    "Row 2: Product is Widgets, Jan is 40, Feb is 44, Mar is 52, Apr is 60\n"
    "Row 3: Product is Gadgets, Jan is 25, Feb is 30, Mar is 28, Apr is 35",
    Locator(sheet="Units sold", heading_path=("Units sold",)),
)  # fmt: skip


def test_a_change_between_two_months_takes_the_row_s_values_under_them() -> None:
    """ "From January to April" over columns Jan … Apr: the row the question names, its first
    and last asked columns; the same number twice is a change from itself."""
    question = "By what percentage did widget sales grow from January to April?"
    itself = calculation("(40 - 40) / 40 * 100", "(40 − 40) ÷ 40 × 100 = 0", WIDE)
    verdict = review(question, itself, [])
    assert verdict.verdict == "repair"
    assert "'Widgets' has Jan: 40 and Apr: 60: compute (60 - 40) / 40 * 100" in verdict.why
    right = calculation("(60 - 40) / 40 * 100", "(60 − 40) ÷ 40 × 100 = 50", WIDE)
    assert review(question, right, []).verdict == "accept"  # "widget" is the row "Widgets"
    gadgets = calculation("30 - 25", "30 − 25 = 5", WIDE)
    asked = "By how much did gadget sales change from Feb to Mar?"
    assert "Feb: 30 and Mar: 28: take those two values" in review(asked, gadgets, []).why
    backwards = "By how much did gadget sales in March change compared with February?"
    assert "Feb: 30 and Mar: 28" in review(backwards, gadgets, []).why


PORTFOLIO = Chunk(
    "t1", "s3", "/d/portfolio.docx",
    "Table 1: Project, Owner, Budget (EUR), Status\n"
    "Row 2: Project is Atlas, Owner is Mira Santos, Budget (EUR) is 420,000, Status is Completed\n"
    "Row 3: Project is Borealis, Owner is Jonas Berg, Budget (EUR) is 310,000, Status is Delayed",
    Locator(heading_path=("Project portfolio review 2025",)),
)  # fmt: skip


def test_a_difference_between_two_named_things_takes_the_first_named_first() -> None:
    """ "The difference between Atlas and Borealis" is Atlas' figure minus Borealis'; "how much
    less … than" the other way round; a subtraction in the asked order is accepted."""
    question = "What is the difference between the budgets of Atlas and Borealis?"
    turned = calculation("310000 - 420000", "310,000 − 420,000 = -110,000", PORTFOLIO)
    verdict = review(question, turned, [])
    assert verdict.verdict == "repair"
    assert "Atlas minus Borealis, so compute 420,000 - 310,000" in verdict.why
    right = calculation("420000 - 310000", "420,000 − 310,000 = 110,000", PORTFOLIO)
    assert review(question, right, []).verdict == "accept"
    more = "How much more was budgeted for Atlas than for Borealis?"
    assert review(more, turned, []).verdict == "repair"
    assert review(more, right, []).verdict == "accept"
    less = "How much less was budgeted for Borealis than for Atlas?"
    assert review(less, right, []).verdict == "accept"
    assert "compute 420,000 - 310,000" in review(less, turned, []).why


YIELDS = Chunk(
    "v1", "s4", "/d/tatqa.md",
    "Table 1\n| | 2019 | 2018 | 2017 |\n| --- | --- | --- | --- |\n"
    "| Dividend yield (%) | 4.6 | 4.5 | 4.1 |\n| Expected volatility (%) | 28.7 | 27.1 | 28.7 |\n"
    "| Risk-free interest rate (%) | 1.9 | 2.8 | 2.0 |",
    Locator(rows=(2, 5)),
)  # fmt: skip


def test_an_aggregate_over_every_row_or_year_of_a_statement_is_repaired_to_those_named() -> None:
    """AVG(value) over a statement's period view averages every line (or every year) unless
    its conditions keep the row and the years the question names."""
    question = "What is the average dividend yield in 2018 and 2019?"
    mixed = ToolOutcome(
        "sql",
        {"query": "SELECT AVG(value) FROM table_1 WHERE period = '2018' OR period = '2019'"},
        True, 'avg("value") = 9.97', backing=(YIELDS,),
    )  # fmt: skip
    verdict = review(question, mixed, [])
    assert verdict.verdict == "repair"
    assert verdict.why.endswith(
        "WHERE (period = '2018' OR period = '2019') AND label ILIKE '%dividend yield%'"
    )
    row_only = "SELECT AVG(value) FROM table_1 WHERE label ILIKE '%dividend yield%'"
    every_year = review(question, replace(mixed, arguments={"query": row_only}), [])
    assert every_year.why.endswith("AND period IN ('2018', '2019')")
    both = row_only + " AND period IN ('2018', '2019')"
    assert review(question, replace(mixed, arguments={"query": both}), []).verdict == "accept"
    total = "What is the average total dividend yield in 2018 and 2019?"
    both_rows = replace(
        YIELDS, text=YIELDS.text + "\n| Total dividend yield (%) | 5.0 | 4.9 | 4.4 |"
    )
    fuller = review(total, replace(mixed, backing=(both_rows,)), [])
    assert "label ILIKE '%total dividend yield%'" in fuller.why  # the row named in full
    every = "What is the average of all the rates in 2019?"  # names no row: as asked
    assert review(every, mixed, []).verdict == "accept"


def test_which_one_is_ranked_over_every_row_and_a_measure_named_average_is_a_column() -> None:
    """ "Which vehicle type has the highest average age?": 'average' names the column "Average
    age (years)", and a condition picking 'Trucks' (off the example rows) leaves one row."""
    question = "Which vehicle type has the highest average age?"
    ranked = "SELECT vehicle_type FROM table_1 ORDER BY average_age_years DESC LIMIT 1"
    assert review(question, sql(ranked, "vehicle_type = Forklifts"), []).verdict == "accept"
    preset = (
        "SELECT vehicle_type FROM table_1 WHERE vehicle_type LIKE '%Trucks%' "
        "ORDER BY average_age_years DESC LIMIT 1"
    )
    verdict = review(question, sql(preset, "vehicle_type = Trucks"), [])
    assert verdict.verdict == "repair"
    assert "picks the answer before ranking (vehicle_type LIKE '%Trucks%')" in verdict.why
    named = "Which truck model has the highest average age?"  # a condition the question names
    kept = "SELECT model FROM t WHERE model ILIKE '%truck%' ORDER BY average_age DESC LIMIT 1"
    assert "picks the answer" not in review(named, sql(kept, "model = T1"), []).why
    # On another column, when each word of the question is a column's or the table's.
    stock = "Which product has the highest quantity in stock?"
    berlin = "SELECT product FROM stock WHERE warehouse = 'Berlin' ORDER BY quantity DESC LIMIT 1"
    found = review(stock, sql(berlin, "product = Steel nuts M8, quantity = 1500"), [])
    assert "picks the answer before ranking (warehouse = 'Berlin')" in found.why
    # A word left over may be what the value stands for ("fasteners" for a category).
    fasteners = "Which fastener has the highest quantity in stock?"
    bolts = "SELECT product FROM stock WHERE category = 'Bolts' ORDER BY quantity DESC LIMIT 1"
    assert "picks the answer" not in review(fasteners, sql(bolts, "product = M8"), []).why


def test_a_pick_before_ranking_is_taken_out_by_code() -> None:
    """Told to leave "state ILIKE '%Alabama%' OR … '%Arizona%'" (the example rows) out, the
    model wrote it again three times; code ranks every row itself."""
    question = "Which state had the most background checks in total in November 2015?"
    picked = (
        "SELECT state_territory FROM table_1 WHERE state_territory ILIKE '%Alabama%' OR "
        "state_territory ILIKE '%Alaska%' ORDER BY totals DESC LIMIT 1"
    )
    assert without_preset(question, picked) == (
        "SELECT state_territory FROM table_1 ORDER BY totals DESC LIMIT 1",
        "state_territory ILIKE '%Alabama%' OR state_territory ILIKE '%Alaska%'",
    )
    both = "SELECT product FROM stock WHERE warehouse = 'Berlin' AND qty > 0 ORDER BY qty DESC"
    assert without_preset("Which product has the highest qty in stock?", both) == (
        "SELECT product FROM stock WHERE qty > 0 ORDER BY qty DESC",
        "warehouse = 'Berlin'",
    )
    named = "SELECT state_territory FROM t WHERE state_territory ILIKE '%Kentucky%'"
    assert without_preset("Which Kentucky county had the most checks?", named) is None


def test_the_kind_a_ranking_question_asks_for() -> None:
    assert kind_asked("Which zone had the lowest sales in January–June 2023?") == "zone"
    assert kind_asked("Which of the regions had the most revenue?") == "region"
    for none in (
        "What was the highest revenue?",
        "In which year were the most ducks observed?",
        "Which zone is in Europe?",  # no ranking asked
    ):
        assert kind_asked(none) == ""


def test_a_difference_of_two_named_rows_under_a_named_column() -> None:
    rows = passage(
        "/d/nics.pdf",
        "Row 16: State / Territory is Illinois, Permit is 87,190, Totals is 129,861\n"
        "Row 17: State / Territory is Indiana, Permit is 81,935, Totals is 130,333\n"
        "Row 30: State / Territory is New York, Permit is 2,906, Totals is 36,421\n"
        "Row 31: State / Territory is Ohio, Permit is (1,200), Totals is 5\n"
        "Row 57: State / Territory is Totals, Permit is 804,006, Totals is 2,236,457",
    )
    totals = "What was the difference between the totals of Indiana and Illinois?"
    assert difference_of_rows(totals, [rows]) == (
        "130333 - 129861",
        "Totals of Indiana and Illinois",
    )
    more = "How many more permits did New York have than Indiana?"  # York alone is no row
    assert difference_of_rows(more, [rows]) == ("2906 - 81935", "Permit of New York and Indiana")
    below = "How many more permits did Indiana have than Ohio?"  # a negative in parentheses
    assert difference_of_rows(below, [rows]) == ("81935 - (-1200)", "Permit of Indiana and Ohio")
    for other in (
        "What was the percentage change between the totals of Indiana and Illinois?",
        "What was the total of Indiana?",  # no difference asked
        "What was the difference between the totals of Indiana and Utah?",  # no Utah row
    ):
        assert difference_of_rows(other, [rows]) is None


def test_a_difference_between_two_entries_of_a_listing_is_found_by_their_names() -> None:
    """A listing read from a PDF without ruling: the lines of the two payees the question
    names, in any order of their names' words, give the amounts ending them."""
    listing = Chunk(
        "l1",
        "senate",
        "/docs/senate.pdf",
        "PAYEE NAME OBLIGATION/SERVICE DESCRIPTION AMOUNT ($)\n"
        "VELEZ-GREEN, ALEXANDER J LEGISLATIVE ASSISTANT FROM MAY 22 26,874.99\n"
        "KISHI, DANIEL M LEGISLATIVE CORRESPONDENT FROM JUL. 15 11,188.87\n"
        "KISHI, ANNA B INTERN 446.87",
        Locator(page=1),
    )
    more = "How much more was paid to Alexander J Velez-Green than to Daniel M Kishi?"
    assert difference_of_rows(more, [listing]) == (
        "26874.99 - 11188.87",
        "the amounts of Alexander J Velez-Green and Daniel M Kishi",
    )
    for other in (
        "How much more was paid to Alexander J Velez-Green than to Kishi?",  # one word: no name
        "How much was paid to Daniel M Kishi?",  # no difference asked
        "How much more was paid to Alexander J Velez-Green than to John Doe?",  # no such line
    ):
        assert difference_of_rows(other, [listing]) is None


def test_a_question_after_the_largest_one_ranks_the_groups_a_query_lists() -> None:
    """MAX(amount) per vendor lists each vendor's largest expense; "the largest single
    expense" is the first of them ranked (DataForge's 2,100, not the first row's 1,510)."""
    question = "What was the largest single expense, and who was it paid to?"
    listed = "SELECT MAX(amount_usd) AS largest, vendor FROM expenses GROUP BY vendor"
    assert rank_groups(question, listed) == (listed + " ORDER BY largest DESC LIMIT 1", "largest")
    counted = "SELECT category, COUNT(*) FROM t GROUP BY category"
    fewest = rank_groups("Which category has the fewest tickets?", counted)
    assert fewest is not None and fewest[0].endswith("ORDER BY COUNT(*) ASC LIMIT 1")
    # One per group asked, or already ranked: as written.
    assert rank_groups("What is the highest amount per vendor?", listed) is None
    assert rank_groups(question, listed + " ORDER BY largest DESC LIMIT 1") is None
    assert rank_groups("How much did each vendor get?", listed) is None
