"""The cheap route: what a question needs, from its shape and what retrieval found; and the
check that an answer is stated in what was found."""

from __future__ import annotations

import pytest

from polyrag.agent.questions import stated_in
from polyrag.agent.route import route
from polyrag.types import Chunk, Hit, Locator, Modality


def hits(
    modality: Modality, text: str = "Revenue 1,577 in 2019 and 1,373 in 2018 and 2,001"
) -> list[Hit]:
    return [Hit(Chunk("c", "s", "/d/f", text, Locator(), modality), 1.0)]


@pytest.mark.parametrize(
    ("question", "modality", "kind", "agent"),
    [
        ("How many freshwater ducks were observed in total?", Modality.TABLE, "aggregate", True),
        ("Which year had the fewest ducks?", Modality.TABLE, "aggregate", True),
        ("How many employees work in Sales?", Modality.TABLE, "aggregate", True),
        # Money spent or paid, asked of a ledger, adds up the rows it names.
        ("How much was spent on travel in 2025?", Modality.TABLE, "aggregate", True),
        ("How much did we pay Harbor Hotel?", Modality.TABLE, "aggregate", True),
        ("How much is the hotel cap?", Modality.TABLE, "lookup", False),
        ("Which supplier has the shortest lead time?", Modality.TABLE, "aggregate", True),
        (
            "Which department's budget decreased from 2023 to 2024?",
            Modality.TABLE,
            "aggregate",
            True,
        ),
        ("In which year was the tax receivable larger?", Modality.TABLE, "aggregate", True),
        (
            "Which department had fewer training hours in 2024 than in 2023?",
            Modality.TABLE,
            "aggregate",
            True,
        ),
        (
            "What was the percentage change in revenue from 2018 to 2019?",
            Modality.TEXT,
            "compute",
            True,
        ),
        (
            "Were Scott Derrickson and Ed Wood of the same nationality?",
            Modality.TEXT,
            "compare",
            True,
        ),
        (
            "What government position was held by the woman who portrayed Corliss Archer?",
            Modality.TEXT,
            "multihop",
            True,
        ),
        ("When was Iwan Roberts born?", Modality.TEXT, "lookup", False),
        # Farther than, years after: differences too.
        (
            "How much farther from the border is the Neman river than the Berezina river?",
            Modality.TEXT,
            "compute",
            True,
        ),
        (
            "How many years after WordStar was Microsoft Word for MS-DOS launched?",
            Modality.TEXT,
            "compute",
            True,
        ),
        (
            "How many square kilometres larger is Lake Ladoga than Lake Onega?",
            Modality.TEXT,
            "compute",
            True,
        ),
        # Something that was changed is no change to compute; how much it changed is.
        ("On what date was the company's name changed?", Modality.TEXT, "lookup", False),
        ("How much has the tax rate changed since 2021?", Modality.TEXT, "compute", True),
        # How many more or fewer one thing has than another: a difference, not a count.
        (
            "How many fewer total chunks did Chipper produce than Base 256?",
            Modality.TABLE,
            "compute",
            True,
        ),
        (
            "How many more handgun checks did Florida have than Georgia?",
            Modality.TEXT,
            "compute",
            True,
        ),
    ],
)
def test_question_shapes(question: str, modality: Modality, kind: str, agent: bool) -> None:
    chosen = route(question, hits(modality))
    assert (chosen.kind, chosen.agent) == (kind, agent)


def test_an_aggregate_word_without_a_table_is_unsure() -> None:
    chosen = route("What was the total attendance?", hits(Modality.TEXT, "no figures here"))
    assert not chosen.agent and not chosen.sure


def test_a_sum_of_named_things_over_figures_in_text_is_computed() -> None:
    """A listing read from a PDF without ruling is text, not a table: "the combined amount
    paid to A and B" adds two of its figures with the calculator. The model read it as a
    lookup, and added them up wrong itself."""
    listing = (
        "BAIN, J MATTHEW DISTRICT DIRECTOR 37,499.96\n"
        "CAMPBELL, CLAYTON D DISTRICT DIRECTOR FROM MAY 23 31,111.08"
    )
    question = "What was the combined amount paid to J Matthew Bain and Clayton D Campbell?"
    chosen = route(question, hits(Modality.TEXT, listing))
    assert (chosen.kind, chosen.agent) == ("compute", True)
    alone = route("What was the total amount paid to J Matthew Bain?", hits(Modality.TEXT, listing))
    assert not alone.agent and not alone.sure


def test_a_total_the_table_states_as_a_row_is_a_lookup() -> None:
    statement = (
        "Table 8: Consolidated Balance Sheets\n"
        "Row 9: Total current assets — 2019: 16,525, 2018: 15,134\n"
        "Row 28: Total current liabilities — 2019: 7,866, 2018: 6,040"
    )
    found = hits(Modality.TABLE, statement)
    lookup = route("How much total current assets did Nike have at the end of 2019?", found)
    assert (lookup.kind, lookup.agent) == ("lookup", False)
    # Named as a fiscal year, it is a statement figure the agent's code reads off the row.
    fiscal = route("How much total current assets did Nike have at the end of FY2019?", found)
    assert (fiscal.kind, fiscal.agent) == ("lookup", True)
    # Adding up is still an aggregate, and arithmetic on stated totals is a computation.
    summed = route("What is the sum of total current assets over 2018 and 2019?", found)
    assert summed.kind == "aggregate"
    ratio = route(
        "What is the working capital ratio, total current assets divided by total current "
        "liabilities?",
        found,
    )
    assert ratio.kind == "compute"
    net = route(
        "What is net working capital: total current assets less total current liabilities?", found
    )
    assert net.kind == "compute"
    # A table whose total row is a bare "Total" states no particular total.
    ducks = hits(Modality.TABLE, "| Year | Ducks |\n| --- | --- |\n| 2019 | 120 |\n| Total | 735 |")
    assert route("How many ducks were observed in total?", ducks).kind == "aggregate"


def test_an_average_the_sources_name_as_a_measure_is_a_lookup() -> None:
    maus = (
        "Monthly Active Users. We monitor monthly active users (MAUs) as a key measure.\n"
        "Average MAUs increased by 93 million, or 29%, for the three months ended December 31, "
        "2019. King 249 247 258 272 and Activision 128 36 37 41"
    )
    found = hits(Modality.TEXT, maus)
    question = (
        "What were the average monthly active users (MAUs) of Activision Blizzard's King segment "
        "for the quarter ended December 31, 2019?"
    )
    named = route(question, found)
    assert (named.kind, named.sure) == ("lookup", True)
    # Named in full as the table names it, too.
    rates = hits(Modality.TABLE, "| | 2020 |\n| --- | --- |\n| Average Daily Rate (ADR) | $161 |")
    assert route("What was the average daily rate at the Strip resorts in 2020?", rates).kind == (
        "lookup"
    )
    # An average the sources do not name is computed from the table.
    assert not route("What was the average quarterly King MAU count in 2019?", found).sure
    assert route("What was the average of the daily rates from 2018 to 2020?", rates).kind != (
        "lookup"
    )


def test_two_rows_taken_together_are_added_up() -> None:
    # The count is a column of the table ("Freshwater Ducks"): read as it stands for one year,
    # added up for two taken together.
    ducks = hits(Modality.TABLE, "Row 5: Year is 2019, Freshwater Ducks is 120")
    lookup = route("How many freshwater ducks were observed in 2019?", ducks)
    assert (lookup.kind, lookup.agent) == ("lookup", False)
    summed = route("How many freshwater ducks were observed in 2019 and 2020 together?", ducks)
    assert (summed.kind, summed.agent) == ("aggregate", True)


@pytest.mark.parametrize(
    "question",
    [
        "What drove the reduction in SG&A expense as a percent of net sales in FY2023?",
        "Why did the gross margin decrease in 2019?",
        "As of FY2023Q1, why did Pepsico raise full year guidance for FY2023?",
        "What were the main drivers of the increase in revenue?",
        # The changes themselves, not the size of one (FinanceBench: the model computed
        # "(31 − 31) ÷ 31 × 100" from one figure of the rate table).
        "What production rate changes is Boeing forecasting for FY2023?",
        "What accounting changes did the company adopt in 2022?",
    ],
)
def test_a_question_after_a_reason_is_no_computation(question: str) -> None:
    found = route(question, hits(Modality.TABLE))
    assert (found.kind, found.agent) == ("lookup", False)


def test_the_size_of_a_change_is_still_computed() -> None:
    found = route(
        "What was the change in the production rate from 2022 to 2023?", hits(Modality.TABLE)
    )
    assert (found.kind, found.agent) == ("compute", True)


def test_a_clause_about_the_sources_or_the_reader_is_no_hop() -> None:
    framed = (
        "Assume that you are a public equities analyst. Answer the following question by "
        "primarily using information that is shown in the balance sheet: what is the year end "
        "FY2018 net PPNE for 3M?"
    )
    assert route(framed, hits(Modality.TEXT, "3M annual report")).kind == "lookup"
    analyst = (
        "What is the revenue growth? Answer as an investment banking analyst who only has "
        "access to the income statement."
    )
    assert route(analyst, hits(Modality.TEXT, "Revenue")).kind != "multihop"
    hop = "What government position was held by the woman who portrayed Corliss Archer?"
    assert route(hop, hits(Modality.TEXT, "Kiss and Tell")).kind == "multihop"


@pytest.mark.parametrize(
    "question",
    [
        "What is the FY2019 fixed asset turnover ratio? Fixed asset turnover ratio is defined as: "
        "FY2019 revenue / (average PP&E between FY2018 and FY2019).",
        "What is the FY2017 - FY2019 3 year average of capex as a % of revenue?",
        "What is the 2 year total revenue CAGR from FY2020 to FY2022?",
    ],
)
def test_an_average_or_total_inside_a_formula_is_a_computation(question: str) -> None:
    statement = hits(Modality.TABLE, "Table 3: Income\nRow 2: Revenue — 2019: 6,489, 2018: 7,500")
    assert route(question, statement).kind == "compute"
    # Adding up or averaging a table's rows stays an aggregate.
    ducks = hits(Modality.TABLE, "| Year | Ducks |\n| --- | --- |\n| 2019 | 120 |")
    assert route("How many ducks were observed in total from 2019 to 2024?", ducks).kind == (
        "aggregate"
    )
    assert route("What was the average number of ducks per year?", ducks).kind == "aggregate"


@pytest.mark.parametrize(
    "question",
    [
        "Where was the author of Dune born?",
        "In which city did the lead singer of Queen die?",
        "What instrument did the father of Johann Sebastian Bach play?",
        'The director of the thriller "Heat" was born in which state?',
        "This composer of The Planets taught at which school?",
        "What is the revenue of the company founded by Elon Musk?",
        "Which label released the album produced by Quincy Jones in 1982?",
        "The team, coached by Phil Jackson in 1996, played in which arena?",
    ],
)
def test_something_named_by_its_relation_to_another_is_a_hop(question: str) -> None:
    chosen = route(question, hits(Modality.TEXT, "Prose."))
    assert (chosen.kind, chosen.agent) == ("multihop", True)


@pytest.mark.parametrize(
    "question",
    [
        "Who was the director of Big Stone Gap?",
        "Who is the father of Kasper Schmeichel?",
        "What is the capital of France?",
        "Who were the founders of The Rolling Stones?",
    ],
)
def test_a_question_asking_only_for_the_relation_is_a_lookup(question: str) -> None:
    chosen = route(question, hits(Modality.TEXT, "Prose."))
    assert (chosen.kind, chosen.agent) == ("lookup", False)


def test_a_choice_between_two_named_things_is_a_comparison() -> None:
    question = "Which river flows through Vienna, the Rhine or the Danube?"
    assert route(question, hits(Modality.TEXT, "Prose.")).kind == "compare"


CUPS = (
    "Stanley Cups\n| Team | Location | Stanley Cups |\n| --- | --- | --- |\n"
    "| Blues | STL | 1 |\n| Flyers | PHI | 2 |\n| Maple Leafs | TOR | 13 |"
)
CUP_ROWS = "Row 3: Team is Blues, Location is STL, Stanley Cups is 1"


@pytest.mark.parametrize("text", [CUPS, CUP_ROWS])
@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many Stanley Cups have the Blues won?", "lookup"),  # the row's own cell
        ("How many Stanley Cup have the Blues won?", "lookup"),
        ("How many teams have won a Stanley Cup?", "aggregate"),  # rows counted
        ("How many Stanley Cups have the teams won in total?", "aggregate"),
    ],
)
def test_a_count_a_table_states_in_a_column_is_a_lookup(
    text: str, question: str, kind: str
) -> None:
    assert route(question, hits(Modality.TABLE, text)).kind == kind


CHECKS = (
    "Row 47: State / Territory is Tennessee, Permit is 9,509, Handgun is 28,815, Totals is "
    "63,670\nRow 48: State / Territory is Texas, Permit is 21,550, Handgun is 56,941, Totals "
    "is 146,982"
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # A word of what is counted names a column alone ("Totals"), read in the row named.
        ("How many total background checks did Texas have?", "lookup"),
        ("How many total background checks were there?", "aggregate"),  # the column added up
    ],
)
def test_a_count_of_a_column_named_by_one_word_in_one_row_is_a_lookup(
    question: str, kind: str
) -> None:
    assert route(question, hits(Modality.TABLE, CHECKS)).kind == kind


PSUS = (
    "| Grant date | Number of shares (thousands) | Fair value |\n| --- | --- | --- |\n"
    "| February 2016 | 547 | $ 42.01 |\n| October 2018 | 465 | $ 60.25 |"
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # No verb after what is counted: a word of a numeric column's header is read there.
        ("How many shares PSUs granted in February 2016?", "lookup"),
        ("How many grant dates are listed?", "aggregate"),
    ],
)
def test_a_count_without_a_verb_reads_a_column_that_names_it(question: str, kind: str) -> None:
    assert route(question, hits(Modality.TABLE, PSUS)).kind == kind


STOCK = (
    "Row 4: SKU is A-103, Product is Hinges, Warehouse is Lyon, Quantity is 340, Unit cost is "
    "2.8\nRow 5: SKU is A-104, Product is Handles, Warehouse is Lyon, Quantity is 95, Unit cost "
    "is 14.5\nRow 6: SKU is A-105, Product is Cable ties, Warehouse is Milan, Quantity is 2600, "
    "Unit cost is 0.05"
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # A column's word ("Unit cost") counted over the rows a name picks: added up.
        ("How many units are held in the Lyon warehouse?", "aggregate"),
        # What is counted after a code's number ("A-103, Product is"): rows, not a stated count.
        ("How many products are stored in Milan?", "aggregate"),
        ("How many units are held in Milan?", "lookup"),  # one row's own figure
    ],
)
def test_a_count_over_the_rows_a_name_picks_is_an_aggregate(question: str, kind: str) -> None:
    assert route(question, hits(Modality.TABLE, STOCK)).kind == kind


def test_a_one_digit_answer_is_found_as_a_number_of_its_own() -> None:
    """The agent's evaluation takes the model's answer only if a passage states it."""
    row = "Row 3: Team is Blues, Location is STL, Stanley Cups is 1"
    assert stated_in("1", [row]) and stated_in("1.", [row])
    assert not stated_in("2", [row])
    assert not stated_in("1", ["Revenue was 1.5 million in 2019"])  # inside other numbers
    assert not stated_in("", [row])


def test_a_sum_of_rows_the_question_names_goes_to_the_agent() -> None:
    # Prose, not a table: only the rows the question names and the sentence's figures tell.
    text = "Costco operated 815 warehouses: 30 in Japan, 16 in Korea and 14 in Taiwan."
    question = "How many warehouses did Costco operate in total in Japan, Korea and Taiwan?"
    found = route(question, hits(Modality.TEXT, text))
    assert found.agent and found.why == "it asks for the sum of rows it names"
    assert route(question, hits(Modality.TEXT)).why != found.why


def test_a_count_a_passage_states_is_a_lookup() -> None:
    cover = (
        "Indicate the number of shares outstanding of each of the registrant's classes of "
        "common stock: 23,718,968 common shares as of March 28, 2022."
    )
    found = hits(Modality.TEXT, cover)
    chosen = route(
        "How many common shares did Galaxy Gaming have outstanding in March 2022?", found
    )
    assert (chosen.kind, chosen.sure) == ("lookup", True)
    # Periods are counted, and a year is no count of anything.
    fiscal = hits(Modality.TEXT, "Sales grew in the 2019 and 2018 fiscal years at 12 stores.")
    assert not route("How many fiscal years did Costco report sales for?", fiscal).sure
