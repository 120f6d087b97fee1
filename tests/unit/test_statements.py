"""Statement figures and standard ratios read and computed by code: which figure and years a
question asks for, the row of the statement that reports each line item, the unit, and an
answer that states the figure with the rows cited."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyrag.agent.answers import Request
from polyrag.agent.graph import Agent
from polyrag.agent.route import route
from polyrag.agent.steps import Steps
from polyrag.agent.tools.base import ToolContext
from polyrag.agent.tools.registry import Toolbox, builtin_tools
from polyrag.agent.tools.statements import plan, run, text_statements
from polyrag.agent.trace import Trace
from polyrag.index.tables.base import SourceTable
from polyrag.index.tables.sqlite import SqliteTableStore
from polyrag.llm.fallback import FallbackChain
from polyrag.retrieve.base import RetrievalResult
from polyrag.settings import Settings
from polyrag.types import Answer, Chunk, Filter, Hit, Locator, Modality, Table
from tests.unit.replies import Replies

# Amazon's FY2017 10-K, as its statements read (in millions).
OPERATIONS = Table(
    header=("Column 1", "Year Ended December 31, 2015", "2016", "2017"),
    rows=(
        ("Net product sales", "$ 79,268", "$ 94,665", "$ 118,573"),
        ("Total net sales", "107,006", "135,987", "177,866"),
        ("Cost of sales", "71,651", "88,265", "111,934"),
        ("Operating income", "2,233", "4,186", "4,106"),
        ("Net income", "$ 596", "$ 2,371", "$ 3,033"),
    ),
    locator=Locator(page=38),
    name="Table 9",
    title="AMAZON.COM, INC. CONSOLIDATED STATEMENTS OF OPERATIONS (in millions)",
)
BALANCE = Table(
    header=("Column 1", "December 31, 2016", "2017"),
    rows=(
        ("Inventories", "11,461", "16,047"),
        ("Total current assets", "45,781", "60,197"),
        ("Total assets", "$ 83,402", "$ 131,310"),
        ("Accounts payable", "$ 25,309", "$ 34,616"),
        ("Total current liabilities", "43,816", "57,883"),
    ),
    locator=Locator(page=40),
    name="Table 11",
    title="AMAZON.COM, INC. CONSOLIDATED BALANCE SHEETS",
)
# A table that names revenue but is no statement: a segment's, with the same years.
SEGMENT = Table(
    header=("Column 1", "2016", "2017"),
    rows=(("Revenue", "6,000", "7,000"), ("Operating income", "10", "12")),
    locator=Locator(page=20),
    name="Table 2",
    title="AWS segment",
)
# An untitled cash flow statement in thousands: its rows say what it is, its page the unit.
CASH = Table(
    header=("Column 1", "2017", "2016"),
    rows=(
        ("Net cash provided by operating activities", "$ 18,434,000", "$ 16,443,000"),
        ("Purchases of property and equipment", "(11,955,000)", "(6,737,000)"),
        ("Net cash used in investing activities", "(27,084,000)", "(9,876,000)"),
    ),
    locator=Locator(page=41),
    name="Table 12",
)
PATH = "/docs/AMAZON_2017_10K.pdf"
TABLES = [SourceTable("amzn", PATH, t) for t in (SEGMENT, OPERATIONS, BALANCE, CASH)]


def chunks_of(source: str) -> list[Chunk]:
    return [Chunk("p41", source, PATH, "(in thousands)", Locator(page=41))]


def compute(question: str, tables: list[SourceTable] = TABLES) -> tuple[bool, str]:
    outcome = run(question, tables, ToolContext(passages=[]), chunks_of)
    return outcome.ok, outcome.result if outcome.ok else outcome.error


@pytest.mark.parametrize(
    ("question", "described"),
    [
        ("What is the FY2018 capital expenditure amount (in USD millions) for 3M?",
         "capital expenditure for FY2018"),
        ("What is the FY2017 - FY2019 3 year average of capex as a % of revenue for X? Answer "
         "in units of percents and round to one decimal place.",
         "capital expenditure as a % of revenue averaged over FY2017–FY2019"),
        ("What is X's year-over-year change in revenue from FY2016 to FY2017 (in units of "
         "percents)?", "revenue growth from FY2016 to FY2017"),
        ("What is X's 2 year total revenue CAGR from FY2020 to FY2022?",
         "revenue compound annual growth from FY2020 to FY2022"),
        ("What is the FY2019 fixed asset turnover ratio for X? Fixed asset turnover ratio is "
         "defined as: FY2019 revenue / (average PP&E between FY2018 and FY2019).",
         "fixed asset turnover ratio for FY2019"),
        ("How much total current assets did Nike have at the end of fiscal 2019?",
         "total current assets for FY2019"),
        ("How much did revenue increase from Fiscal 2017 to Fiscal 2018?",
         "change in revenue from FY2017 to FY2018"),
        ("What is the FY2017 - FY2019 3 year average of capex to revenue ratio for X?",
         "capital expenditure as a % of revenue averaged over FY2017–FY2019"),
    ],
)  # fmt: skip
def test_a_question_names_a_figure_and_its_fiscal_years(question: str, described: str) -> None:
    asked = plan(question)
    assert asked is not None and asked.describe() == described


@pytest.mark.parametrize(
    "question",
    [
        "Does Adobe have a strong operating margin profile as of FY2022?",  # a judgement
        "Did Ulta Beauty's wages expense as a percent of net sales increase in FY2023?",
        "Did JnJ's net earnings increase in Q2 of FY2023 compared to Q2 of FY2022?",
        "Has Boeing's adjusted operating margin improved in FY2022?",
        "Did Boeing's Commercial Airplanes revenue increase in FY2022?",  # a segment's
        "Is Amazon's revenue growth in FY2019 driven by AWS?",  # why it moved
        "Is growth in JnJ's net income expected to accelerate in FY2023?",  # how it will
        "What drove the reduction in SG&A expense as a percent of net sales in FY2023?",
        "What was the total revenue in 2019?",  # no fiscal year named as one
        "Who were the primary customers of Boeing as of FY2022?",  # no figure
        "What was the change in inventories in FY2017?",  # not the figure itself
        "What was the revenue in the fiscal 2019 third quarter?",  # a quarter's
        "What is total debt to total assets for Costco in FY 2021?",  # a ratio of another
        "What is sales to working capital ratio of Netflix in FY 2015?",
        "What is the Total net revenue for fiscal 2018 and 2017?",  # two figures
        "What is the change in the Total Gross Margin between Fiscal 2018 and 2019?",
        "What were the sales contributed to the segment's net sales in fiscal 2019?",
        "What are the components of cost of sales for Amazon's FY2017?",
        "What Was AMCOR's Adjusted Non GAAP EBITDA for FY 2023",
        "What is Ulta Beauty's fiscal 2023 outlook for capital expenditures?",  # guidance
        "What capital expenditures does the company expect for fiscal 2024?",
        # A part of the company's figure: a brand's, a country's, segments'.
        "How much net sales did the Cheerios brand generate for General Mills in fiscal 2022?",
        "How much of Nike's fiscal 2019 revenue was derived in the United States?",
        "What were Nike's combined fiscal 2019 revenues from its Greater China and APLA segments?",
    ],
)
def test_questions_about_something_else_are_left_to_the_model(question: str) -> None:
    assert plan(question) is None


@pytest.mark.parametrize(
    ("question", "described", "direction"),
    [
        ("Does Adobe have an improving operating margin profile as of FY2022? If operating "
         "margin is not a useful metric for a company like this, then state that.",
         "operating margin, FY2022 against FY2021", "up"),
        ("How much has the effective tax rate of Corning changed between FY2021 and FY2022?",
         "effective tax rate, FY2022 against FY2021", ""),
        ("How does Boeing's effective tax rate in FY2022 compare to FY2021?",
         "effective tax rate, FY2022 against FY2021", ""),
        ("Has the company's days inventory outstanding improved in fiscal 2020?",
         "days inventory outstanding, FY2020 against FY2019", "down"),  # fewer days is better
        ("Did total assets decline between FY2019 and FY2021?",
         "total assets, FY2021 against FY2019", "down"),
    ],
)  # fmt: skip
def test_whether_a_figure_went_up_or_down_is_two_years_side_by_side(
    question: str, described: str, direction: str
) -> None:
    asked = plan(question)
    assert asked is not None and asked.describe() == described and asked.trend == direction


def test_a_trend_answers_yes_or_no_with_both_years_and_the_change() -> None:
    ok, result = compute("Did Amazon have an improving operating margin as of FY2017?")
    assert ok
    lines = result.split("\n")
    assert lines[0] == (
        "No — Operating margin, FY2017 against FY2016: 2.3%, down 0.8 percentage points from 3.1%"
    )
    assert lines[1] == (
        "computed as FY2016: 4186 ÷ 135,987 × 100 = 3.08; FY2017: 4106 ÷ 177,866 × 100 = 2.31"
    )
    ok, result = compute("Did Amazon's total assets grow between FY2016 and FY2017?")
    assert ok and result.startswith(
        "Yes — Total assets, FY2017 against FY2016: 131,310, up 47,908 (57.4%) from 83,402 "
        "(USD millions)\nread from Total assets, FY2016: 83,402 (Table 11, page 40); "
    )
    ok, result = compute("How did Amazon's total current liabilities change from FY2016 to FY2017?")
    assert ok and result.startswith(
        "Total current liabilities, FY2017 against FY2016: 57,883, up 14,067 (32.1%) from 43,816"
    )


def test_a_trend_states_the_change_between_the_figures_as_worked() -> None:
    adobe = Table(
        header=("Column 1", "2022", "2021"),
        rows=(("Total revenue", "17,606", "15,785"), ("Operating income", "6,098", "5,802")),
        locator=Locator(page=54),
        name="Table 7",
        title="ADOBE INC. CONSOLIDATED STATEMENTS OF INCOME (In millions)",
    )
    ok, result = compute(
        "Does Adobe have an improving operating margin profile as of FY2022?",
        [SourceTable("adbe", "/docs/ADOBE_2022_10K.pdf", adobe)],
    )
    # 36.76% to 34.64% is 2.12 points, though the figures shown, 36.8% and 34.6%, differ by 2.2
    assert ok and result.startswith(
        "No — Operating margin, FY2022 against FY2021: 34.6%, down 2.1 percentage points from "
        "36.8%\ncomputed as FY2021: 5802 ÷ 15,785 × 100 = 36.76; "
    ), result


def test_a_trend_code_read_is_the_answer_whatever_the_model_said(tmp_path: Path) -> None:
    answer, _trace = ask_agent(
        tmp_path,
        "Does Amazon have an improving operating margin profile as of FY2017?",
        "Yes, Amazon's operating margin improved to 2.3% [1].",  # the figure right, the verdict not
    )
    assert answer.text.startswith(
        "No — Operating margin, FY2017 against FY2016: 2.3%, down 0.8 percentage points from "
        "3.1%, computed as FY2016: 4186 ÷ 135,987 × 100 = 3.08; "
    )
    assert {c.chunk.locator.page for c in answer.citations} == {38}


def test_a_ratio_reads_each_item_from_its_statement_in_the_years_asked() -> None:
    ok, result = compute(
        "What is Amazon's FY2017 days payable outstanding (DPO)? DPO is defined as: 365 * "
        "(average accounts payable between FY2016 and FY2017) / (FY2017 COGS + change in "
        "inventory between FY2016 and FY2017). Round your answer to two decimal places."
    )
    assert ok, result
    first, worked, rows = result.split("\n")
    assert first == "Days payable outstanding for FY2017: 93.86 days"
    assert worked == (
        "computed as 365 × ((34,616 + 25,309) ÷ 2) ÷ (111,934 + 16,047 − 11,461) = 93.86"
    )
    assert "Accounts payable, FY2016: 25,309 (Table 11, page 40)" in rows


def test_revenue_comes_from_the_statement_not_a_segment_table_that_lists_it_first() -> None:
    ok, result = compute(
        "What is Amazon's year-over-year change in revenue from FY2016 to FY2017 (in units of "
        "percents and round to one decimal place)?"
    )
    assert ok and result.startswith("Revenue growth from FY2016 to FY2017: 30.8%"), result


def test_an_untitled_statement_in_thousands_is_read_in_the_unit_asked() -> None:
    ok, result = compute(
        "How much cash from operations did Amazon have in FY2017, in USD millions?"
    )
    assert ok and result.startswith("Cash from operating activities for FY2017: 18,434"), result
    ok, result = compute("What is the FY2017 capital expenditure for Amazon?")
    assert ok and result.startswith("Capital expenditure for FY2017: 11,955,000 (USD thousands)")


def test_figures_in_different_units_are_not_mixed() -> None:
    # Revenue in millions, capex in thousands: more likely a unit misread than a formula.
    ok, error = compute(
        "What is the FY2016 - FY2017 2 year average of capex as a % of revenue for Amazon?"
    )
    assert not ok and error == "the statements give their figures in different units"


def test_a_figure_the_statements_lack_fails_naming_the_line_item() -> None:
    ok, error = compute("What is Amazon's FY2015 total current liabilities (in USD millions)?")
    assert not ok and error == (
        "no row for total current liabilities in FY2015 in the balance sheet"
    )


def test_units_asked_for_are_honoured() -> None:
    ok, result = compute("What is Amazon's FY2017 total assets in USD billions?")
    assert ok and result.startswith("Total assets for FY2017: 131.31 (USD billions)"), result
    ok, result = compute("What is Amazon's FY2017 working capital? Answer in thousands.")
    assert ok and result.startswith("Working capital for FY2017: 2,314,000 (USD thousands)")
    ok, result = compute("How much did revenue increase from FY2016 to FY2017 for Amazon?")
    assert ok and result.startswith("Change in revenue from FY2016 to FY2017: 41,879 (USD"), result


def test_the_route_sends_statement_figures_to_the_agent() -> None:
    lookup = route("What is Amazon's FY2017 total assets in USD billions?", [])
    ratio = route("What is Amazon's FY2017 inventory turnover ratio?", [])
    assert (lookup.kind, lookup.agent) == ("lookup", True)
    assert (ratio.kind, ratio.agent) == ("compute", True)


class FilingRetriever:
    """Finds the filing's statement page for any question."""

    chunk = Chunk(
        "c1",
        "amzn",
        PATH,
        "CONSOLIDATED BALANCE SHEETS\nRow 5: Total assets — 2016: 83,402; 2017: 131,310",
        Locator(page=40),
        Modality.TABLE,
    )

    def search(
        self, query: str, k: int | None = None, where: Filter | None = None, mode: str = "hybrid"
    ) -> RetrievalResult:
        return RetrievalResult([Hit(self.chunk, 1.0, 1, 1, 0.6)])


class Store:
    def chunks_of(self, source_id: str) -> list[Chunk]:
        return [FilingRetriever.chunk]


def ask_agent(tmp_path: Path, question: str, reply: str) -> tuple[Answer, Trace]:
    chat = Replies([reply])
    settings = Settings(home=tmp_path, answer={"min_similarity": 0.1})
    steps = Steps(FilingRetriever(), FallbackChain([chat]), settings)  # type: ignore[arg-type]
    tables = SqliteTableStore(tmp_path / "tables.sqlite")
    tables.put("amzn", PATH, [SEGMENT, OPERATIONS, BALANCE, CASH])
    agent = Agent(steps, Toolbox(builtin_tools()), Store(), tables, tmp_path / "agent.sqlite")  # type: ignore[arg-type]
    trace = Trace(lambda _event: None)
    hits = steps.retrieve(question, None, trace)
    return agent.answer(Request(question), question, route(question, hits), hits, trace), trace


def test_the_agent_states_the_ratio_code_computed_when_the_model_writes_another(
    tmp_path: Path,
) -> None:
    answer, trace = ask_agent(
        tmp_path,
        "What is Amazon's FY2017 working capital ratio?",
        "Amazon's working capital ratio was 1.2 [1].",  # redone wrong
    )
    assert not answer.refused
    assert answer.text == (
        "Working capital (current) ratio for FY2017: 1.04, computed as 60,197 ÷ 57,883 = 1.04 [1]."
    )
    cited = answer.citations[0].chunk
    assert cited.locator.page == 40 and "| Total current assets | 45,781 | 60,197 |" in cited.text
    tools = [s.summary for s in trace.steps if s.name == "tool"]
    assert tools == ["statement: Working capital (current) ratio for FY2017: 1.04"]
    assert answer.model_calls == 1  # the reply; the figure took no model call


def test_a_figure_read_off_one_row_gives_way_to_a_supported_reply_naming_another(
    tmp_path: Path,
) -> None:
    # The statement's total may not be what the question means (a segment's, a part's): the
    # reply stands when the sources state its number.
    question = "What is Amazon's FY2017 total assets in USD millions?"
    answer, _trace = ask_agent(tmp_path, question, "Total assets were 83,402 million [1].")
    assert "83,402" in answer.text
    answer, _trace = ask_agent(tmp_path, question, "The sources do not say.")
    assert answer.text.startswith("Total assets for FY2017: 131,310 (USD millions) [1]")


def test_a_figure_code_cannot_find_is_left_to_the_model(tmp_path: Path) -> None:
    chat = Replies(
        [
            '{"answer": "", "found": "", "next_search": ""}',  # is the evidence enough?
            "The sources do not give FY2015 current liabilities.",
        ]
    )
    settings = Settings(home=tmp_path, answer={"min_similarity": 0.1})
    steps = Steps(FilingRetriever(), FallbackChain([chat]), settings)  # type: ignore[arg-type]
    tables = SqliteTableStore(tmp_path / "tables.sqlite")
    tables.put("amzn", PATH, [BALANCE])
    agent = Agent(steps, Toolbox(builtin_tools()), Store(), tables, tmp_path / "agent.sqlite")  # type: ignore[arg-type]
    question = "What is Amazon's FY2015 total current liabilities in USD millions?"
    trace = Trace(lambda _event: None)
    hits = steps.retrieve(question, None, trace)
    agent.answer(Request(question), question, route(question, hits), hits, trace)
    tools = [s.summary for s in trace.steps if s.name == "tool"]
    assert tools == [
        "statement: failed — no row for total current liabilities in FY2015 in the balance sheet"
    ]  # tried once (code fails the same way twice), then set aside
    assert any("statement set aside" in s.summary for s in trace.steps)
    assert len(chat.asked) == 2  # the model judged the evidence and answered


# Corning's FY2020 balance sheet as its page was read (no table found: the rows are lines of
# text, and consecutive chunks overlap by a line), and a cash flow page whose rows the
# extraction ran together onto the line of years (as General Mills' FY2022 one was).
CORNING = [
    Chunk(
        "b1",
        "glw",
        "/docs/CORNING_2020_10K.pdf",
        "Consolidated Balance Sheets Corning Incorporated and Subsidiary Companies\n"
        "December 31,\n(In millions, except share and per share amounts) 2020 2019\n"
        "Trade accounts receivable, net of doubtful accounts - $46 and $41 2,133 1,836\n"
        "Inventories, net (Note 6) 2,438 2,320\nTotal current assets 8,004 7,463",
        Locator(page=72, heading_path=("Consolidated Balance Sheets Corning Incorporated",)),
    ),
    Chunk(
        "b2",
        "glw",
        "/docs/CORNING_2020_10K.pdf",
        "Total current assets 8,004 7,463\nCurrent liabilities:\n"
        "Current portion of long-term debt and short-term borrowings (Note 12) $ 156 $ 11\n"
        "Accounts payable 1,174 1,587\nTotal current liabilities 3,767 3,521",
        Locator(page=72, heading_path=("Consolidated Balance Sheets Corning Incorporated",)),
    ),
    Chunk(
        "c1",
        "glw",
        "/docs/CORNING_2020_10K.pdf",
        "2020 2019 2018 Cash Flows - Operating Activities Net income $ 512 $ 960 $ 1,066 "
        "Purchases of common stock for treasury (876.8) (301.4) (3.4) Dividends paid (1,244.5) "
        "(1,246.4) (1,195.8) Other, net (28.0) (30.9) (16.0)\n"
        "Net cash provided by operating activities 2,180 2,031 2,919",
        Locator(page=75, heading_path=("Consolidated Statements of Cash Flows", "Fiscal Year")),
    ),
]


def test_statements_read_as_text_give_their_rows() -> None:
    found = text_statements("glw", "/docs/CORNING_2020_10K.pdf", CORNING)
    balance, cash = (t.table for t in found)
    assert balance.header == ("Column 1", "2020", "2019") and balance.locator.page == 72
    assert ("Accounts payable", "1,174", "1,587") in balance.rows
    assert ("Inventories, net (Note 6)", "2,438", "2,320") in balance.rows
    assert balance.rows.count(("Total current assets", "8,004", "7,463")) == 1  # overlap
    assert ("Dividends paid", "(1,244.5)", "(1,246.4)", "(1,195.8)") in cash.rows
    assert ("Purchases of common stock for treasury", "(876.8)", "(301.4)", "(3.4)") in cash.rows
    tables = [SourceTable("glw", "/docs/CORNING_2020_10K.pdf", SEGMENT)]
    outcome = run(
        "What is Corning's FY2020 working capital ratio?",
        tables,
        ToolContext(passages=[]),
        lambda _source: CORNING,
    )
    assert outcome.ok and outcome.result.startswith(
        "Working capital (current) ratio for FY2020: 2.12"
    ), outcome.error
    assert "(statement text, page 72)" in outcome.result


@pytest.mark.parametrize(
    ("question", "first_line"),
    [
        ("What is Amazon's FY2017 gross profit?", "Gross profit for FY2017: 65,932 (USD millions)"),
        ("What is Amazon's FY2017 EBITDA % margin?", None),  # no D&A row: not computed
        ("What is Amazon's FY2017 payables turnover?", "Payables turnover ratio for FY2017: 3.74"),
        ("What is Amazon's FY2017 return on assets?", "Return on assets for FY2017: 2.8%"),
        ("What is Amazon's FY2017 quick ratio?", "Quick ratio for FY2017: 0.76"),
    ],
)
def test_standard_ratios_from_the_statements(question: str, first_line: str | None) -> None:
    ok, result = compute(question)
    if first_line is None:
        assert not ok and "depreciation and amortization" in result
    else:
        assert ok and result.split("\n")[0] == first_line, result
